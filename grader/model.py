"""Plain data passed from one grading step to the next."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Status(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    NOT_RUN = "not run"  # could not be checked here (no GPU, no tool, an earlier step failed)
    SKIPPED = "skipped"  # optional and not attempted (a stretch goal): worth no points either way
    WITHHELD = "withheld"  # came out clean, but earns nothing until every correctness test passes


class Category(str, Enum):
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


@dataclass
class LabGrade:
    lab: str
    title: str
    variant: str  # "student" or "solution"
    kernel_path: str
    checks: list[Check] = field(default_factory=list)
    bench: BenchResult | None = None
    points: float = 0.0
    max_points: float = 0.0
    ungraded_points: float = 0.0  # points of checks that could not run here
    seconds: float = 0.0  # how long grading this lab took, the build included
    seed: int = 0  # CML_SEED of every program of this lab: the same seed replays the same inputs
    grader_sizes: list[str] = field(default_factory=list)  # the sizes this run added to the public cases
