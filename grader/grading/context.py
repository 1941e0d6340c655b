"""What every lab of a grading run is graded in: the configuration, the build folder, the student's work, the
device and its tools, the thresholds, the seed, and the locks the labs graded at once share."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.config import REPO_ROOT, Config, Lab, Target
from grader.execution.fair_lock import FairLock
from grader.execution.gpu import Gpu
from grader.execution.gpu_lock import GpuLock, Mutex
from grader.grading.evidence import Facts
from grader.steps.build_tree import BuildTree
from grader.steps.student_steps import StudentSteps, StudentWork, checkout_work


@dataclass
class Context:
    config: Config
    tree: BuildTree
    gpu: Gpu
    target: Target | None
    sanitizer: Path | None  # compute-sanitizer, if found
    ncu: Path | None
    run_mechanisms: bool = True
    run_bench: bool = True
    kernel_sources: dict[str, str] | None = None  # lab -> the submitted file, when the student folder was assembled
    seed: int = 0  # the run's seed: random inputs, and the sizes drawn for the grader's own test cases
    instructor_sizes: dict[str, list[str]] = field(default_factory=dict)  # lab -> sizes from an instructor's file
    emulator: bool = False  # no GPU: tests, sanitizers and counters on the CPU emulator's builds (common/emu)
    # False only in the project's own tests of the defences behind the static checks (test_attacks.py).
    static_checks: bool = True
    # The student's kernel.cu files and the folder their steps work in; None: the checkout's labs/, in the build
    # folder's own work folder.
    work: StudentWork | None = None
    compiled_ahead: set[Path] = field(default_factory=set)  # student objects compiled at once for this run
    # What the labs graded at once share: the build folder (one Ninja at a time), the GPU (gpu_lock.py), and
    # its performance monitors (one ncu run at a time); on a GPU, the last two with every grader on the card.
    build_lock: Mutex = field(default_factory=FairLock)
    gpu_lock: GpuLock = field(default_factory=GpuLock)
    counters_lock: Mutex = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.work is None:
            self.work = checkout_work(self.tree, REPO_ROOT / "labs", [lab.name for lab in self.config.labs])

    def student(self, lab: str, emulated: bool = False) -> StudentSteps:
        assert self.work is not None  # set in __post_init__
        return self.work.steps(self.tree, lab, emulated)

    def program(self, lab: str, variant: str, kind: str, emulated: bool = False) -> Path:
        """A lab's test or benchmark program of `variant`; emulated: its CPU emulator build."""
        if variant == "student":
            return self.student(lab, emulated).program(kind)
        return self.tree.binary(lab, variant, kind, emulated)

    def kernel_source(self, lab: str, variant: str) -> Path:
        """The graded kernel.cu, where the grader reads it."""
        return self.student(lab).source if variant == "student" else self.tree.kernel_source(lab, variant)

    def kernel_object(self, lab: str, variant: str) -> Path:
        """What nvcc made of the kernel.cu: the student's object, or the library Meson makes of another's."""
        return self.student(lab).object if variant == "student" else self.tree.kernel_library(lab, variant)

    def facts(self) -> Facts:
        return Facts(
            emulator=self.emulator,
            gpu_present=self.gpu.present,
            gpu_reason=self.gpu.reason,
            gpu_name=self.gpu.name,
            sanitizer=self.sanitizer is not None,
            ncu=self.ncu is not None,
            schedule_recorder=self.tree.schedule_recorder().is_file(),
            counters_recorder=self.tree.counters_recorder().is_file(),
            run_mechanisms=self.run_mechanisms,
            run_bench=self.run_bench,
            static_checks=self.static_checks,
        )

    def thresholds_of(self, lab: Lab) -> dict:
        return self.target.for_lab(lab.name) if self.target else {}
