"""The grader's configuration: labs.toml (what each lab is) and targets/*.toml (thresholds per GPU)."""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

GRADER_DIR = Path(__file__).resolve().parents[1]


def checkout() -> Path:
    """The checkout graded in: CML_ROOT (./cml sets it), else the one this package lies in, else the current
    folder (cml-grader installed by pip and run in a checkout)."""
    for folder in (os.environ.get("CML_ROOT"), GRADER_DIR.parent, Path.cwd()):
        if folder and (Path(folder) / "meson.build").is_file():
            return Path(folder).resolve()
    return GRADER_DIR.parent


REPO_ROOT = checkout()
LABS_TOML = GRADER_DIR / "labs.toml"
TARGETS_DIR = GRADER_DIR / "targets"


@dataclass
class Evidence:
    """What shows that a counter check's mechanism was used at all (labs.toml: `used`): the student's `metric` must
    reach `min` times the baseline's `per`, the grader's own kernel on the same problem, so the yardstick grows with
    the problem's size; `per` left out: `min` events. Short of it, a ratio measures nothing (0 bank conflicts over 0
    shared loads), and the check fails with `says`, the lesson the kernel did not use."""

    metric: str  # a metric, or a sum of them (metric_parts)
    min: float
    says: str
    per: str = ""


def metric_parts(expression: str) -> list[str]:
    """The metrics a counter of labs.toml adds up: one name, or several joined by " + " (a GPU counts an atomic whose
    old value is used as an ATOM, one whose value is not as a RED, under two metrics: Lab 11 counts both)."""
    return [part.strip() for part in expression.split("+") if part.strip()]


# What the schedule check reports, one aspect a check (common/schedule/findings.hpp).
SCHEDULE_ASPECTS = ("pinned", "overlap", "returned", "prefetched")

# A launch's shape as Nsight Compute names it (the CPU emulator counts the same: common/emu/README.md).
RUNTIME_CALL = re.compile(r"^cuda[A-Z]\w*$")  # what a lab's allowed_calls may name: the CUDA runtime's calls
SASS_RULES = ("read-only gathers", "texture fetches", "cp.async copies")
LAUNCH_SHAPE = ("launch__block_size", "launch__grid_size", "launch__shared_mem_per_block_dynamic")
# What a machine-code check's group is counted with where no other check counts it: it is counted for the names of
# the kernels its checked launch made (CounterRun.launched), and every lab's kernels store to global memory.
LAUNCHED_ONLY = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"


@dataclass
class MechanismCheck:
    name: str
    tool: str  # memcheck, racecheck, synccheck, initcheck, ncu, resources, occupancy, sass or schedule
    hint: str = ""
    # ncu: the ratio is numerator / denominator over the student's launches, or, with relative_to =
    # "baseline", the numerator of the student's launches over that of the baseline's, or with neither, the
    # numerator itself (a count of blocks, say); it must lie in [min, max] (either bound may be left out). Each
    # is a metric, or a sum of metrics "a + b" (metric_parts).
    numerator: str = ""
    denominator: str = ""
    relative_to: str = ""
    min: float | None = None
    max: float | None = None
    # ncu: the benchmark group whose checked launches are profiled ("" for a lab measured at one setting). On
    # a GPU, ncu watches the benchmark run as it is timed, at its default size (grader/steps/profile.py); the CPU
    # emulator, too slow for that, runs `--profile --size profile_size` instead.
    group: str = ""
    profile_size: int = 1 << 20
    # ncu: why the CPU emulator cannot count it, where it cannot ("" where it can). Such a check is graded on a
    # GPU only; without one it is "not run", with this reason.
    gpu_only: str = ""
    # ncu: what must be counted for the ratio to mean anything (Evidence); labs.toml gives a list of tables.
    used: list[Evidence] = field(default_factory=list)
    # resources: the most each of the student's kernels may use, by the compiler's report of its object
    # (grader/steps/resources.py); a bound left out is not checked. A spill goes to the stack frame, so
    # max_stack_bytes = 0 asks for no spill and no local array.
    max_registers: int | None = None
    max_stack_bytes: int | None = None
    max_local_bytes: int | None = None
    max_shared_bytes: int | None = None
    # occupancy: how many blocks of the student's checked launch must fit on one SM of `gpu` (gpu_limits.toml),
    # by the compiler's report of the kernel and the launch's shape, as ncu or the CPU emulator saw it
    # (grader/steps/occupancy.py). Its launch must also cover the work: as many floats of tile as the baseline's.
    min_blocks_per_sm: int | None = None
    gpu: str = "h100"
    kernel: str = ""  # sass: the kernels it reads, those whose name contains this ("" for every kernel)
    # A check of the stretch's kernel: graded as the stretch's test cases are, for no points, and skipped when
    # the stretch is not attempted. Only checks read from nvcc's object (FROM_NVCC) may be one.
    stretch: bool = False
    # sass: with a `group`, the rule reads the kernels the student's checked launch of that group made (as the
    # benchmark's counted run names them: CounterRun.launched), not every kernel of the object; without, every one.
    # What the machine code of the student's object must show (grader/steps/sass.py), one of SASS_RULES:
    # "read-only gathers", every load whose address comes from a loaded value takes the read-only path, and at
    # least one whose value is read does; "texture fetches", at least one texture fetch whose value is read;
    # "cp.async copies", every kernel named by `kernel` copies global memory to shared with LDGSTS (cp.async).
    sass: str = ""
    # schedule: which findings of the schedule check the check reports (the CPU emulator's,
    # common/emu/src/schedule.hpp, or on a GPU CUPTI's recorder, common/schedule/cupti_recorder.cpp): "pinned"
    # (copies from pageable memory), "overlap" (never two streams in flight), "returned" (work, streams, events,
    # pinned, managed or device memory left behind by a call) or "prefetched" (a kernel's page faults on managed
    # memory).
    schedule: str = ""
    # A check made by the CPU emulator alone: on a GPU it is not run, with this reason.
    gpu_reason: str = ""

    def __post_init__(self) -> None:
        self.used = [Evidence(**entry) if isinstance(entry, dict) else entry for entry in self.used]
        bounds = (self.max_registers, self.max_stack_bytes, self.max_local_bytes, self.max_shared_bytes)
        if self.tool == "resources" and all(bound is None for bound in bounds):
            raise ValueError(f"labs.toml: the resources check {self.name!r} names no bound, so it could never fail")
        if self.tool == "sass" and self.sass not in SASS_RULES:
            raise ValueError(f"labs.toml: the sass check {self.name!r} names no rule of {', '.join(SASS_RULES)}")
        if self.stretch and self.tool not in ("resources", "sass"):
            raise ValueError(f"labs.toml: the stretch check {self.name!r} is not read from nvcc's object")
        if self.tool == "occupancy" and not self.min_blocks_per_sm:
            raise ValueError(f"labs.toml: the occupancy check {self.name!r} names no min_blocks_per_sm")
        if self.tool == "schedule" and self.schedule not in SCHEDULE_ASPECTS:
            raise ValueError(f"labs.toml: the schedule check {self.name!r} names none of {', '.join(SCHEDULE_ASPECTS)}")

    @property
    def metrics(self) -> list[str]:
        """Every metric the check reads, of the student's launches or the baseline's."""
        if self.tool == "occupancy":
            return list(LAUNCH_SHAPE)
        if self.tool == "sass":
            return [LAUNCHED_ONLY] if self.group else []
        named = [self.numerator, self.denominator, *(e.metric for e in self.used), *(e.per for e in self.used)]
        return list(dict.fromkeys(part for name in named for part in metric_parts(name)))

    @property
    def reads_machine_code(self) -> bool:
        """Whether the check reads the machine code of nvcc's object (grader/steps/sass.py): a sass check, and a
        resources check that bounds the stack frame or local memory, which a frame allocated at run time (alloca)
        uses with no report declaring it."""
        bounds_local = self.max_stack_bytes is not None or self.max_local_bytes is not None
        return self.tool == "sass" or (self.tool == "resources" and bounds_local)

    @property
    def roles(self) -> list[str]:
        """The checked launches whose counters it reads: the student's, and those it compares with (relative_to),
        which hold its evidence's yardsticks too; the baseline's where only the evidence compares."""
        if self.tool == "occupancy":  # the baseline's launch says how much work there is to cover
            return ["student", "baseline"]
        compared = self.relative_to or ("baseline" if any(e.per for e in self.used) else "")
        return ["student", compared] if compared else ["student"]


# A lesson's `pays_for`: every test case, the test cases whose name starts with what follows TESTS, or a tool.
EVERY_TEST = "correctness"
TESTS = "tests: "


@dataclass
class Lesson:
    """Where a lab's skeleton starts from a working but slow kernel, the checks that kernel already passes as
    shipped (`pays_for`) earn their points only once the checks that show the lesson done (`shown_by`) come out
    clean: alone they say nothing of the lesson (grader/reporting/score.py, the rule of labs.toml's header)."""

    shown_by: list[str]  # names of the lab's mechanism checks
    # What the skeleton passes untouched: EVERY_TEST, TESTS + the start of test cases' names, or a tool of the
    # lab's mechanism checks ("memcheck", "racecheck": each of its checks).
    pays_for: list[str]
    tools: dict[str, str] = field(default_factory=dict)  # the lab's mechanism checks, name -> tool (Lab sets it)

    def gates(self, name: str, category: str) -> bool:
        """Whether the check of `name` and `category` ("correctness", "mechanism", ...) pays only with the lesson."""
        if name in self.shown_by:
            return False
        if category == "correctness":
            starts = [item.removeprefix(TESTS) for item in self.pays_for if item.startswith(TESTS)]
            return EVERY_TEST in self.pays_for or any(name.startswith(start) for start in starts)
        return category == "mechanism" and self.tools.get(name, "") in self.pays_for


@dataclass
class SizeSpec:
    """How the grader draws a lab's own sizes for each run (labs.toml: grader_sizes)."""

    format: str  # what the parts of a size are, e.g. "M x N x K"
    count: int
    ranges: list[list[int]]  # [lowest, highest] of each part


@dataclass
class Lab:
    name: str  # "01_vector_add"
    title: str
    points: dict[str, float]
    baseline: str
    mechanisms: list[MechanismCheck] = field(default_factory=list)
    memory_bound: bool = True  # False: rated in GFLOP/s, and no copy-bandwidth fraction is asked
    graded_groups: list[str] = field(default_factory=list)  # benchmark groups calibrate writes thresholds for; [] = all
    grader_sizes: SizeSpec | None = None
    # Calls this lab teaches, which the integrity check refuses in every other lab: only those of
    # steps/integrity/symbols.py's TEACHABLE_CALLS count (Lab 10's streams and pinned memory, Lab 12's textures).
    allowed_calls: frozenset[str] = frozenset()
    # A benchmark group measured against a baseline of its own, by name (Lab 10's managed memory against the same
    # pipeline without prefetches); every other group against `baseline`.
    group_baselines: dict[str, str] = field(default_factory=dict)
    # Where the skeleton starts from a working but slow kernel: what it passes untouched pays only with the lesson.
    lessons: list[Lesson] = field(default_factory=list)
    # The benchmark's --size on the CPU emulator where it counts none of the lab's accesses (labs.toml).
    emulator_bench_size: int | None = None

    def __post_init__(self) -> None:
        odd = [name for name in self.allowed_calls if not RUNTIME_CALL.match(name)]
        if odd:
            raise ValueError(f"labs.toml: {self.name}'s allowed_calls names what is no CUDA runtime call: {odd}")
        tools = {m.name: m.tool for m in self.mechanisms if not m.stretch}
        for lesson in self.lessons:
            lesson.tools = tools
            unknown = [name for name in lesson.shown_by if name not in tools] + [
                item
                for item in lesson.pays_for
                if item != EVERY_TEST and not item.startswith(TESTS) and item not in tools.values()
            ]
            if unknown or not lesson.shown_by:
                raise ValueError(f"labs.toml: a lesson of {self.name} names no check or tool of the lab: {unknown}")

    @property
    def number(self) -> str:
        return self.name.split("_", 1)[0]

    @property
    def max_points(self) -> float:
        return sum(self.points.values())

    def speedup_check(self, group: str = "") -> str:
        """The name of the speedup check, as reports and fixtures spell it."""
        return f"speedup over {self.group_baselines.get(group, self.baseline)}" + (f" ({group})" if group else "")

    def copy_fraction_check(self, group: str = "") -> str:
        """The name of the check of the student's share of this GPU's copy bandwidth (memory-bound labs)."""
        return "fraction of this GPU's copy bandwidth" + (f" ({group})" if group else "")


@dataclass
class Thresholds:
    """One benchmark group's speed checks on one GPU (targets/*.toml, written by ./cml calibrate). A check whose
    threshold is None is shown, not graded: `not_graded` says why, and its points go to the mechanism checks.
    The *_from texts say what each number was derived from; reference_* is what the reference solution reached."""

    min_speedup: float | None = None
    min_copy_fraction: float | None = None
    not_graded: str = ""
    speedup_from: str = ""
    copy_fraction_from: str = ""
    reference_speedup: float | None = None
    reference_copy_fraction: float | None = None


def names_device(match: list[str], device_name: str) -> bool:
    """Whether one of `match` (a thresholds or limits file's) is part of the device's name, in any case."""
    return bool(device_name) and any(m.lower() in device_name.lower() for m in match)


@dataclass
class Target:
    name: str  # file stem, e.g. "h100"
    description: str
    match: list[str]  # substrings of the device name this file applies to
    thresholds: dict[str, dict[str, Thresholds]]  # lab -> benchmark group ("" for one setting) -> thresholds
    path: Path | None = None
    # lab -> step (grader/steps/time_limits.py: TIMED_STEPS) -> the reference solution's seconds for it on this GPU,
    # as ./cml calibrate measured them; the steps' time limits are derived from them
    reference_seconds: dict[str, dict[str, float]] = field(default_factory=dict)

    def for_lab(self, lab: str) -> dict[str, Thresholds]:
        return self.thresholds.get(lab, {})

    def matches(self, device_name: str) -> bool:
        """Whether this file is for that device: its `match` names part of the device's name."""
        return names_device(self.match, device_name)

    def shown_path(self) -> str:
        """The file as reports name it: relative to the repository when inside it, so no report shows where
        the grading machine keeps its checkout."""
        path = self.path.resolve() if self.path else None
        return str(path.relative_to(REPO_ROOT)) if path and path.is_relative_to(REPO_ROOT) else str(path)


@dataclass
class Config:
    labs: list[Lab]
    timeouts: dict[str, float]  # labs.toml's fixed limit of each step, in seconds
    step_cap: float | None = None  # --step-timeout: no step but the build may run longer

    def lab(self, key: str) -> Lab:
        """A lab by full name or number: '01_vector_add', '01' or '1'."""
        for lab in self.labs:
            if key in (lab.name, lab.number) or (key.isdigit() and int(key) == int(lab.number)):
                return lab
        raise KeyError(f"no lab {key!r}; labs are: {', '.join(lab.name for lab in self.labs)}")


def load_config(path: Path = LABS_TOML) -> Config:
    data = tomllib.loads(path.read_text())
    labs = [
        Lab(
            name=name,
            title=entry["title"],
            points=entry["points"],
            baseline=entry["baseline"],
            mechanisms=[MechanismCheck(**m) for m in entry.get("mechanism", [])],
            memory_bound=entry.get("memory_bound", True),
            graded_groups=entry.get("graded_groups", []),
            grader_sizes=SizeSpec(**entry["grader_sizes"]) if "grader_sizes" in entry else None,
            allowed_calls=frozenset(entry.get("allowed_calls", [])),
            group_baselines=entry.get("group_baselines", {}),
            lessons=[Lesson(**lesson) for lesson in entry.get("lesson", [])],
            emulator_bench_size=entry.get("emulator_bench_size"),
        )
        for name, entry in sorted(data["lab"].items())
    ]
    return Config(labs=labs, timeouts=data["timeouts"])


def _lab_thresholds(values: dict) -> dict[str, Thresholds]:
    """[lab.X] min_speedup = ... for one setting; [lab.X.groups."R = 32"] min_speedup = ... for several."""
    groups = {name: Thresholds(**group) for name, group in values.get("groups", {}).items()}
    flat = {key: value for key, value in values.items() if key != "groups"}
    if flat:
        groups[""] = Thresholds(**flat)
    return groups


def load_target(path: Path) -> Target:
    data = tomllib.loads(path.read_text())
    return Target(
        name=path.stem,
        description=data["device"]["description"],
        match=data["device"]["match"],
        thresholds={lab: _lab_thresholds(values) for lab, values in data.get("lab", {}).items()},
        path=path,
        reference_seconds=data.get("reference_seconds", {}),
    )


def find_target(device_name: str, targets_dir: Path = TARGETS_DIR) -> Target | None:
    """The target file whose `match` names this device; None for a GPU nobody calibrated."""
    for path in sorted(targets_dir.glob("*.toml")):
        target = load_target(path)
        if target.matches(device_name):
            return target
    return None
