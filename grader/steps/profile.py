"""Nsight Compute counters of the student's kernels, read from a run of the benchmark, or, with no GPU, the
same counters as the CPU emulator counts them (common/emu/README.md).

ncu watches the benchmark run as it is timed, with no arguments, so that the kernels under test see the same run
whether they are profiled or timed, and cannot behave well only while profiled. It profiles only the checked
launches it is asked for: the benchmark wraps each checked launch, and nothing else, in NVTX push/pop ranges, its
group's range (when the lab has groups, e.g. "R = 1") and inside it its role's ("baseline", "student", ...). One ncu
run per group collects every metric and role the lab's checks of that group need; ncu renames each profiled kernel
after its innermost range, its role, so the counters are the student's whatever the kernels are called.

The CPU emulator is too slow for the default sizes: its run is `--profile --size N` (checked launches only).

Where the build has the counters recorder (common/counters/cupti_counters.cpp), a lab's counters come from its
benchmark's timed run instead, with no run of their own: CUDA loads the recorder into the benchmark, and CUPTI
counts the same metrics over the same checked launches, which are never timed. Nsight Compute's runs cost about
4 s each on an H100 (results/h100.md), and only one runs at a time on a machine. ncu still counts a group whose
metrics are a launch's shape (launch__*, which only ncu derives), and any lab whose recorder failed.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.core.access import MAX_FILE_CHARS, MAX_LINES, AccessDataError, LineAccess, kernel_name, line_from
from grader.core.config import LAUNCH_SHAPE
from grader.execution import proc, sandbox
from grader.steps import suite
from grader.steps.integrity.elf import demangle

# The counters recorder, as the benchmark sees it: CUDA loads it (CUDA_INJECTION64_PATH), and NVTX hands its
# ranges to CUPTI through it (NVTX_INJECTION64_PATH).
COUNTERS_RECORDER = sandbox.INSIDE / "counters-recorder.so"
RECORDER_LINE = "CML COUNTERS "  # what each line of the recorder's begins with, then the run's mark
RECORDER_TOOL = "CUPTI, in the benchmark's timed run"
ONLY_NCU = "launch__"  # metrics Nsight Compute derives from a launch's shape, which no hardware counter counts
# Characters Nsight Compute's NVTX filter reads as quantifiers: in a range's name they take a backslash.
NVTX_QUANTIFIERS = "@,[]/*+"
EMULATOR_TOOL = "the CPU emulator"
PROFILE_LIMIT = 4 << 20  # bytes of the CPU emulator's counters read: a few kB for each kernel a lab launches
# Of the kernels the recorder names for one launch: as many as it counts (cupti_counters.cpp), and a mangled name's
# characters past what any lab's kernel needs.
MOST_NAMES = 64
NAME_CHARS = 4096


@dataclass
class CounterRun:
    outcome: proc.Outcome
    totals: dict[str, float]  # metric -> sum over the profiled kernels
    kernels: int  # how many launches were profiled
    tool: str = "ncu"  # what counted them, for reports
    problem: str = ""  # why there are no counts, where the tool said (the recorder's own failure)
    # Per source line, space and direction, with its worst request: where the CPU emulator counted (emulated_lines)
    lines: list[LineAccess] = field(default_factory=list)
    launched: list[str] = field(default_factory=list)  # the kernels the launches made, as the tool names them


def nvtx_name(name: str) -> str:
    """A range's name as an --nvtx-include expression spells it."""
    if "\\" in name:
        raise ValueError(f"an NVTX range name with a backslash cannot be selected reliably: {name!r}")
    return "".join(f"\\{c}" if c in NVTX_QUANTIFIERS else c for c in name)


def nvtx_include(role: str, group: str = "") -> str:
    """ncu's --nvtx-include expression for the checked launch of `role` in `group`. Nsight Compute's syntax for
    push/pop ranges: "A/" is range A anywhere in the stack; "A/*/B" is range B above range A, with zero or more
    ranges between them."""
    return f"{nvtx_name(group)}/*/{nvtx_name(role)}" if group else f"{nvtx_name(role)}/"


def nvtx_stack(role: str, group: str = "") -> str:
    """The same checked launch as the CPU emulator names its ranges: the open ranges, outermost first, joined
    by '/' (common/emu/src/profile.cpp)."""
    return f"{group}/{role}" if group else role


def launch_range(kernel_name: str) -> str:
    """The innermost NVTX range of a launch, from the name ncu gives its kernel with --print-nvtx-rename kernel:
    "range/kernel(arguments)" (seen on the H100: "baseline/<unnamed>::lanes_32_apart_kernel(const float *,
    ...)"). The kernel's own name, up to its arguments, holds no '/'; a name without a range is returned whole."""
    head = kernel_name.split("(", 1)[0]
    return head.rsplit("/", 1)[0].rsplit("/", 1)[-1] if "/" in head else kernel_name


def parse_csv(text: str) -> dict[str, tuple[dict[str, float], int]]:
    """Per innermost NVTX range of a launch (its role: launch_range): each metric
    summed over its launches, and how many launches there were. The benchmark's own output is on the same stream,
    so a row the csv module cannot read (a field over its limit of 128 kB) ends the rows read."""
    rows = [line for line in text.splitlines() if line.startswith('"')]
    totals: dict[str, dict[str, float]] = {}
    launches: dict[str, set[str]] = {}
    for row in csv_rows("\n".join(rows)):
        value = row.get("Metric Value", "").replace(",", "")
        try:
            number = float(value)
        except ValueError:
            continue
        name = launch_range(row.get("Kernel Name", ""))
        launches.setdefault(name, set()).add(row.get("ID", ""))
        kernel = totals.setdefault(name, {})
        kernel[row["Metric Name"]] = kernel.get(row["Metric Name"], 0.0) + number
    return {name: (totals[name], len(launches[name])) for name in totals}


def launched_kernel(kernel_name: str) -> str:
    """The kernel itself of the name ncu gives a launch ("range/kernel(arguments)", launch_range)."""
    head, paren, arguments = kernel_name.partition("(")
    return head.rpartition("/")[2] + paren + arguments


def launched_in_csv(text: str) -> dict[str, list[str]]:
    """Per innermost NVTX range of a launch (its role), the kernels its launches made, each once, in order."""
    rows = [line for line in text.splitlines() if line.startswith('"')]
    found: dict[str, list[str]] = {}
    for row in csv_rows("\n".join(rows)):
        name = row.get("Kernel Name", "")
        kernels = found.setdefault(launch_range(name), [])
        if launched_kernel(name) not in kernels:
            kernels.append(launched_kernel(name))
    return found


def csv_rows(text: str) -> Iterator[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(text))
    with contextlib.suppress(csv.Error):
        yield from reader


def read_counters(
    ncu: Path,
    bench: Path,
    metrics: list[str],
    roles: list[str],
    group: str,
    timeout_s: proc.Limit,
    seed: dict[str, str] | None = None,
) -> dict[str, CounterRun]:
    """The benchmark, with no arguments, under ncu in the sandbox: the counters of each role's checked launch
    in `group`. ncu's CSV is all its stdout has (the benchmark prints to stderr when the grader runs it). The
    run is the timed run up to the last of those launches, and ends there (CML_PROFILED_LAUNCHES,
    common/cml/bench.hpp): what comes after it would only cost time. Other programs may use the GPU meanwhile:
    the counters are the profiled process's own (grade.Steps.counters)."""
    selected = [option for role in roles for option in ("--nvtx-include", nvtx_include(role, group))]
    profiled = {**(seed or {}), "CML_PROFILED_LAUNCHES": "\n".join(f"{group}\t{role}" for role in roles)}
    tool = (
        str(ncu),
        "--csv",
        "--print-units", "base",  # bytes as bytes: by default ncu scales them (8 KB of shared memory as 8.19 Kbyte)
        "--clock-control", "none",
        "--nvtx", *selected,
        "--print-nvtx-rename", "kernel",
        "--metrics", ",".join(metrics),
    )  # fmt: skip
    with suite.run_folder() as scratch:
        program = suite.program_run(bench, scratch, profiled)
        outcome = suite.run_program(program, timeout_s, tool)
    found, launched = parse_csv(outcome.stdout), launched_in_csv(outcome.stdout)
    return {role: CounterRun(outcome, *found.get(role, ({}, 0)), launched=launched.get(role, [])) for role in roles}


def parse_emulator_json(data: dict, metrics: list[str], role: str, group: str = "") -> tuple[dict[str, float], int]:
    """The metrics of the launches in exactly the NVTX ranges of `role`'s checked launch in `group`, from the
    emulator's CML_EMU_PROFILE file; a metric the emulator does not count is left out. The file is written in the
    process that runs the kernel: one not of the emulator's shape gives no counters, which counter_check reports."""
    totals: dict[str, float] = {}
    launches = 0
    try:
        for kernel in data.get("kernels", []):
            if kernel.get("nvtx_range", "") != nvtx_stack(role, group):
                continue
            launches += int(kernel.get("launches", 0))
            for name in metrics:
                if name in kernel.get("metrics", {}):
                    totals[name] = totals.get(name, 0.0) + float(kernel["metrics"][name])
    except (AttributeError, TypeError, ValueError):
        return {}, 0
    return totals, launches


# The emulator's name, per memory space, for what a line's requests cost, and for its bank conflicts.
UNITS = {"global": "sectors", "shared": "wavefronts", "constant": "addresses"}


def emulated_lines(data: dict, role: str, group: str = "") -> list[LineAccess]:
    """Each source line of the launches of `role`'s checked launch in `group`, as the emulator's CML_EMU_PROFILE
    file gives it, with its worst request (common/emu/src/worst_request.hpp); a line not of its shape is left
    out. Paths keep their last two parts ("NN_name/kernel.cu"): no folder of the machine that ran it."""
    found: list[LineAccess] = []
    kernels = data.get("kernels", []) if isinstance(data, dict) else []
    for kernel in kernels if isinstance(kernels, list) else []:
        if not isinstance(kernel, dict) or kernel.get("nvtx_range", "") != nvtx_stack(role, group):
            continue
        rows = kernel.get("lines", [])
        for row in (rows if isinstance(rows, list) else [])[:MAX_LINES]:
            try:
                found.append(replace(emulated_line(row), kernel=kernel_name(str(kernel.get("name", ""))[:4096])))
            except (AccessDataError, AttributeError, TypeError, ValueError, KeyError):
                continue
    return found


def emulated_line(row: dict) -> LineAccess:
    """One line of the emulator's counters file, checked as a recorded one is (the kernel's process writes the
    file, and could write anything)."""
    space = row["space"]
    return line_from(
        {
            "file": "/".join(str(row["file"])[-4 * MAX_FILE_CHARS :].split("/")[-2:]),
            "line": row["line"],
            "space": space,
            "op": row["op"],
            "requests": row["requests"],
            "units": row.get(UNITS.get(space, ""), 0) if isinstance(space, str) else 0,
            "conflicts": row.get("bank_conflicts", 0),
            "worst": row.get("worst"),
        }
    )


def emulator_launched(data: dict, role: str, group: str = "") -> list[str]:
    """The kernels the launches in exactly `role`'s ranges in `group` made, as the CPU emulator names them."""
    try:
        names = [
            str(k.get("name", ""))
            for k in data.get("kernels", [])
            if k.get("nvtx_range", "") == nvtx_stack(role, group)
        ]
    except (AttributeError, TypeError):
        return []
    return list(dict.fromkeys(name for name in names if name))


def run_emulator_profile(
    bench: Path, args: tuple, timeout_s: proc.Limit, env: dict | None = None
) -> tuple[proc.Outcome, dict]:
    """Runs a program of the CPU emulator's build, in the sandbox, with its counters written to its record
    (CML_EMU_PROFILE); the counters it wrote, {} if none."""
    with suite.run_folder() as scratch:
        seen = suite.program_run(bench, scratch).record_as_seen()
        program = suite.program_run(bench, scratch, {**(env or {}), "CML_EMU_PROFILE": seen})
        outcome = suite.run_program(program, timeout_s, args=args)
        try:
            return outcome, read_profile(program.record) if outcome.ok else {}
        except (OSError, ValueError, RecursionError):
            return outcome, {}  # a run that died while writing: no counters, which counter_check reports


def read_profile(path: Path) -> dict:
    """The emulator's counters as its run wrote them, which the kernel's process could write over: at most
    PROFILE_LIMIT bytes, read as JSON, and an object (else ValueError)."""
    with path.open("rb") as file:
        text = file.read(PROFILE_LIMIT + 1)
    if len(text) > PROFILE_LIMIT:
        raise ValueError(f"the counters' record is over {PROFILE_LIMIT >> 20} MiB")
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("the counters' record is no JSON object")
    return data


def read_emulated_counters(
    bench: Path,
    metrics: list[str],
    roles: list[str],
    group: str,
    size: int,
    timeout_s: proc.Limit,
    seed: dict[str, str] | None = None,
) -> dict[str, CounterRun]:
    """The checked launches read_counters profiles, from the CPU emulator's build of the benchmark, at `size`."""
    outcome, data = run_emulator_profile(bench, ("--profile", "--size", str(size)), timeout_s, seed)
    return {role: emulated_run(outcome, data, metrics, role, group) for role in roles}


def emulated_run(outcome: proc.Outcome, data: dict, metrics: list[str], role: str, group: str) -> CounterRun:
    """`role`'s counters and lines from the emulator's counters file of one run, with the launch's shape, which
    the occupancy beside a line's picture reads (grader/grading/access_pictures.py), and the kernels it made."""
    totals, launches = parse_emulator_json(data, list(dict.fromkeys([*metrics, *LAUNCH_SHAPE])), role, group)
    return CounterRun(
        outcome,
        totals,
        launches,
        tool=EMULATOR_TOOL,
        lines=emulated_lines(data, role, group),
        launched=emulator_launched(data, role, group),
    )


def counted_in_bench(metrics: list[str]) -> bool:
    """Whether the counters recorder can count every metric of `metrics` (else ncu counts them)."""
    return bool(metrics) and not any(name.startswith(ONLY_NCU) for name in metrics)


@dataclass
class Counting:
    """What the counters recorder counts in a benchmark's run: each (group, role) of `launches`, every metric."""

    recorder: Path  # the build's library, seen read-only at COUNTERS_RECORDER
    launches: list[tuple[str, str]]
    metrics: list[str]
    mark: str = ""  # this run's word, made by variables(): a line without it is not the recorder's

    def variables(self) -> dict[str, str]:
        """The benchmark's variables that load the recorder and say what to count; each run its own mark."""
        self.mark = secrets.token_hex(16)
        return {
            "CUDA_INJECTION64_PATH": str(COUNTERS_RECORDER),
            "NVTX_INJECTION64_PATH": str(COUNTERS_RECORDER),
            "CML_COUNTED_LAUNCHES": "".join(f"{group}\t{role}\n" for group, role in self.launches),
            "CML_COUNTER_METRICS": ",".join(self.metrics),
            "CML_COUNTERS_MARK": self.mark,
        }

    def files(self) -> dict[Path, Path]:
        return {COUNTERS_RECORDER: self.recorder}


@dataclass
class RecordedCounters:
    """What the recorder said of one benchmark run: each counted launch's counters, or its own failure."""

    runs: dict[tuple[str, str], CounterRun]  # (group, role) -> its counters; none counted: no launches
    failure: str = ""  # the recorder's own failure (a CUPTI call refused): the grader's problem, not the student's

    def of(self, group: str, roles: list[str]) -> dict[str, CounterRun]:
        """Each role's counters in `group`; none at all after a failure, whose counts may miss kernels."""
        if self.failure:
            failed = f"the counters recorder failed: {self.failure}"
            return {role: replace(self.runs[(group, role)], totals={}, kernels=0, problem=failed) for role in roles}
        return {role: self.runs[(group, role)] for role in roles}


def read_recorded(counting: Counting, outcome: proc.Outcome) -> RecordedCounters:
    """The recorder's lines in the benchmark's stderr, those with this run's mark: a launch the run never reached
    has no counters (counter_check says how the run ended). A launch counted twice is summed, as ncu's
    launches are."""
    runs = {launch: CounterRun(outcome, {}, 0, RECORDER_TOOL) for launch in counting.launches}
    failure = ""
    prefix = f"{RECORDER_LINE}{counting.mark} "
    for line in outcome.stderr.splitlines():
        # The recorder's line may follow what the benchmark had printed of its own line.
        at = line.find(prefix) if counting.mark else -1
        if at < 0:
            continue
        try:
            said = json.loads(line[at + len(prefix) :])
            if "failure" in said:
                failure = failure or str(said["failure"])
                continue
            run = runs[counting.launches[int(said["launch"])]]
            kernels, dropped = int(said["kernels"]), int(said.get("dropped", 0))
            values = [None if value is None else float(value) for value in said["values"]]
            if len(values) != len(counting.metrics):
                raise ValueError("a value per metric")
            names = [str(name)[:NAME_CHARS] for name in said.get("names", [])[:MOST_NAMES]]
        except (ValueError, KeyError, IndexError, TypeError, RecursionError):
            failure = failure or f"a line of the recorder's could not be read: {proc.bounded(line, 200)}"
            continue
        if dropped:
            failure = failure or f"CUPTI dropped {dropped} kernels of a counted launch"
        run.kernels += kernels
        run.launched = list(dict.fromkeys(run.launched + names))
        for name, value in zip(counting.metrics, values, strict=True):
            if value is not None:  # no value is unknown, never 0 (counter_check)
                run.totals[name] = run.totals.get(name, 0.0) + value
    readable = demangle(sorted({name for run in runs.values() for name in run.launched}))
    for run in runs.values():  # as c++filt writes them, as the machine code's listing names its kernels
        run.launched = [readable.get(name, name) for name in run.launched]
    return RecordedCounters(runs, failure)
