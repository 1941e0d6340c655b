"""Grading one lab, one way: its steps make the evidence (grader/grading/gather.py), then its checks judge it
(grader/grading/judge.py) and it is scored. Each lab on its own, so that one lab's broken build, crash or hang
never stops the grading of the others.

With no GPU, the tests, sanitizers and counters run on the CPU emulator's build of the same kernel.cu
(common/emu), each check saying so; the nvcc build is still what decides the build verdict."""

from __future__ import annotations

import time

from grader.core.config import Lab
from grader.core.model import LabGrade
from grader.grading.context import Context
from grader.grading.evidence import LabEvidence
from grader.grading.gather import gather
from grader.grading.judge import judge
from grader.grading.lab_runs import Progress


def device_label(ctx: Context) -> str:
    """The GPU, and the thresholds file its speed is judged against, as a speed check names them: a lab added after
    this GPU's calibration is missing from its file, and the check says which file, and what measures it."""
    return f"{ctx.gpu.name} in {ctx.target.shown_path()}" if ctx.target else ctx.gpu.name


def graded_lab(
    ctx: Context, lab: Lab, variant: str, progress: Progress = lambda _: None
) -> tuple[LabGrade, LabEvidence]:
    """The lab's grade, and the evidence it was judged from."""
    started = time.monotonic()
    evidence = gather(ctx, lab, variant, progress)
    evidence.timing.seconds = round(time.monotonic() - started, 1)
    return judge(lab, evidence, ctx.thresholds_of(lab), device_label(ctx)), evidence


def grade_lab(ctx: Context, lab: Lab, variant: str, progress: Progress = lambda _: None) -> LabGrade:
    return graded_lab(ctx, lab, variant, progress)[0]
