"""Plain data passed from one grading step to the next."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from grader.core.access import AccessPicture


class Status(str, Enum):  # noqa: UP042 (StrEnum would change str() and format() of a member: the value, not Status.X)
    PASSED = "passed"
    FAILED = "failed"
    NOT_RUN = "not run"  # could not be checked here (no GPU, no tool, an earlier step failed)
    SKIPPED = "skipped"  # optional and not attempted (a stretch goal): worth no points either way
    # came out clean, but earns nothing until every correctness test passes (or, for what the skeleton passes
    # untouched, until the lesson's own check does: grader/reporting/score.py)
    WITHHELD = "withheld"
    NOT_GRADED = "not graded"  # measured and shown, worth nothing on this GPU: time cannot separate the lesson here


# A lab the submission has no kernel.cu for: its one check, failed, and its verdict (grader/grading/workspace.py).
SUBMITTED = "submitted"
NOT_SUBMITTED = "not submitted"
# A kernel.cu that nvcc built and the CPU emulator could not: the build check that says so (not run), and the
# lab's verdict, a limit of the grader and never the student's failure nor a pass (grader/grading/judge.py).
EMULATOR_BUILD = "build on the CPU emulator"
EMULATOR_LIMIT = "emulator limit"


class Category(str, Enum):  # noqa: UP042 (as Status: StrEnum would change str() of a member)
    BUILD = "build"
    CORRECTNESS = "correctness"
    MECHANISM = "mechanism"
    PERFORMANCE = "performance"
    STRETCH = "stretch"


@dataclass
class Check:
    name: str
    category: Category
    status: Status
    detail: str = ""  # what was seen: the first wrong element, the sanitizer's first report, the measured ratio
    hint: str = ""  # what to do about it
    points: float = 0.0  # set by score(): this check's share of its category's points, if it passed
    max_points: float = 0.0
    credit: float = 0.0  # the fraction of its points a failed speed check still earns (between baseline and threshold)
    # A speed check's ratio (speedup or copy fraction) and the one it must reach, None where there is none (not
    # graded on this GPU, not measured), and a counter check's ratio (its bounds are in labs.toml): the figures
    # its detail shows, for tools that read grade.json.
    measured: float | None = None
    threshold: float | None = None
    # A counter check about memory: one warp's worst request on the student's worst line, beside the reference's
    # (grader/grading/access_pictures.py); None for any other check.
    access: AccessPicture | None = None


@dataclass
class KernelTiming:
    name: str
    role: str  # "baseline", "student", "stretch" or "reference" (a library such as cuBLAS, shown only)
    group: str  # the setting it was measured at, e.g. "R = 32"; "" for a lab measured at one setting
    attempted: bool
    correct: bool
    check: str
    median_ms: float
    spread: float
    gbps: float
    gflops: float
    bytes: float = 0.0  # the fewest bytes one launch must move (the benchmark's napkin math)
    flops: float = 0.0  # floating-point operations of one launch; 0 where the lab is rated in GB/s
    # Why its time cannot be trusted, whatever its outputs (work outside the timed stream, changed L2
    # settings, faster than its bytes can move): such a time earns nothing. Empty when none.
    problems: list[str] = field(default_factory=list)
    timed_launches_verified: int = 0  # timed launches whose outputs it compared in full, besides the checked one
    timed_launches_checked: int = 0  # timed launches whose outputs it looked at, in full or by a spot check
    timed_launches: int = 0  # how many it timed: the benchmark's default, or fewer for a figure only printed
    host_median_ms: float = 0.0  # the host's clock around each timed launch and a device-wide synchronise
    floor_ms: float = 0.0  # the napkin-math bytes at 1.5 x this GPU's copy bandwidth: no honest time is lower


def ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, or None where either is not a positive measurement."""
    return numerator / denominator if numerator > 0 and denominator > 0 else None


@dataclass
class GroupRates:
    """The student's kernel in one benchmark group, against the baseline and this GPU's copy bandwidth. The
    one place these ratios are computed (BenchResult.rates): the checks, the report, calibrate and the exports
    all read them from here, or from the run's JSON, which holds them."""

    group: str  # "" for a lab measured at one setting
    baseline: str  # the baseline kernel's name
    correct: bool  # a wrong result's time means nothing: it has no speedup and no fractions (nor has a time
    # with problems, the student's or the baseline's: KernelTiming.problems)
    memory_bound: bool  # rated against the copy bandwidth (labs.toml), not in GFLOP/s
    speedup: float | None  # the baseline's time over the student's
    copy_fraction: float | None  # the student's GB/s over the copy's, where the lab is memory-bound
    roofline_fraction: float | None  # the time the napkin-math bytes need at copy bandwidth, over the student's


@dataclass
class BenchResult:
    device: str
    copy_gbps: float
    problem: str
    kernels: list[KernelTiming]

    def kernel(self, role: str, group: str = "") -> KernelTiming | None:
        return next((k for k in self.kernels if k.role == role and k.group == group), None)

    def groups(self) -> list[str]:
        return list(dict.fromkeys(k.group for k in self.kernels if k.role == "student"))

    def copy_fraction(self, kernel: KernelTiming) -> float | None:
        """The kernel's GB/s over this GPU's device-to-device copy, measured in the same run."""
        return ratio(kernel.gbps, self.copy_gbps)

    def group_rates(self, group: str, memory_bound: bool) -> GroupRates | None:
        """The student's ratios in one group; None where the benchmark has no student or no baseline there."""
        student, baseline = self.kernel("student", group), self.kernel("baseline", group)
        if student is None or baseline is None:
            return None
        correct = student.correct
        trusted = correct and not student.problems and not baseline.problems  # a time that means something
        floor_ms = ratio(student.bytes, self.copy_gbps * 1e6) or 0.0  # bytes / (GB/s) in ms
        return GroupRates(
            group=group,
            baseline=baseline.name,
            correct=correct,
            memory_bound=memory_bound,
            speedup=ratio(baseline.median_ms, student.median_ms) if trusted else None,
            copy_fraction=self.copy_fraction(student) if trusted and memory_bound else None,
            roofline_fraction=ratio(floor_ms, student.median_ms) if trusted else None,
        )

    def rates(self, memory_bound: bool) -> list[GroupRates]:
        """group_rates() of every group the student's kernel ran in."""
        found = (self.group_rates(group, memory_bound) for group in self.groups())
        return [rates for rates in found if rates is not None]


@dataclass(frozen=True)
class KernelResources:
    """One kernel of the compiler's resource report of a kernel.cu's object (grader/steps/resources.py)."""

    name: str  # as a person reads it (c++filt)
    arch: str  # the SASS it was compiled for, e.g. "sm_90"
    registers: int  # per thread
    stack_bytes: int  # per thread: spills and local arrays live here
    shared_bytes: int  # static shared memory per block
    local_bytes: int  # per thread, outside the stack frame
    constant_bytes: int  # all constant banks together (bank 0 holds the kernel's parameters)

    def line(self) -> str:
        """One line of a terminal report."""
        return (
            f"{self.name}: {self.registers} registers, {self.stack_bytes} B stack, "
            f"{self.local_bytes} B local, {self.shared_bytes} B shared ({self.arch})"
        )


@dataclass
class LabGrade:
    lab: str
    title: str
    variant: str  # "student" or "solution"
    kernel_path: str
    checks: list[Check] = field(default_factory=list)
    bench: BenchResult | None = None
    rates: list[GroupRates] = field(default_factory=list)  # bench.rates(), once the benchmark ran
    points: float = 0.0
    max_points: float = 0.0
    ungraded_points: float = 0.0  # points of checks that could not run here
    seconds: float = 0.0  # how long grading this lab took, the build included
    steps: dict[str, float] = field(default_factory=dict)  # seconds of each step: building, tests, each mechanism, ...
    # How long each step's program ran (its wait for its turn on the GPU left out), the longest run of each, by the
    # name its time limit goes by (grader/steps/time_limits.py): what ./cml calibrate records of the reference solution.
    program_seconds: dict[str, float] = field(default_factory=dict)
    # Seconds this lab had the GPU to itself (its benchmark's and ncu's launches): the run's other labs waited.
    gpu_alone_seconds: float = 0.0
    seed: int = 0  # CML_SEED of every program of this lab: the same seed replays the same inputs
    grader_sizes: list[str] = field(default_factory=list)  # the sizes this run added to the public cases
    # The compiler's report of each kernel of the graded kernel.cu (grader/steps/resources.py), and why there is none.
    resources: list[KernelResources] = field(default_factory=list)
    resources_problem: str = ""
