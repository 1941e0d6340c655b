"""A saved run (report.write_json's file, read by grader/core/recorded.py) the way every export shows it: one
label per lab, what a status that is not `passed` means, text made safe to put anywhere, and the measured rates
per group."""

from __future__ import annotations

import re
from dataclasses import dataclass

from grader.core.model import Category, Status
from grader.core.recorded import RecordedCheck, RecordedLab, RecordedRun
from grader.reporting import access_text

# Not passed, and why: said in so many words wherever a platform has no status of that name.
NOT_PASSED = {
    Status.NOT_RUN.value: "NOT PASSED (not run): it could not run here, so it earned nothing",
    Status.SKIPPED.value: "NOT PASSED (skipped): an optional stretch goal, not attempted; worth no points either way",
    Status.WITHHELD.value: (
        "NOT PASSED (withheld): it came out clean, but counts only once all correctness tests pass (and, where the "
        "untouched skeleton passes it too, once the lesson's own check does)"
    ),
    Status.NOT_GRADED.value: "NOT GRADED on this GPU: time cannot tell the lesson apart here; the points went to the "
    "mechanism checks",
}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # not allowed in XML 1.0; garbage on a page


def plain(text: str | None) -> str:
    """Compiler and sanitizer output without colour codes or control characters."""
    return _CONTROL.sub("", _ANSI.sub("", text or ""))


def lab_number(lab: RecordedLab, position: int) -> int:
    """The lab's number from its folder name ('01_vector_add' -> 1), else its position in the run."""
    head = lab.lab.split("_", 1)[0]
    return int(head) if head.isdigit() else position


def check_text(check: RecordedCheck) -> str:
    """What a reader needs of one check: why it did not pass, what was seen, what to do about it."""
    parts = [NOT_PASSED.get(check.status.value, ""), plain(check.detail).strip()]
    if check.hint:
        parts.append(f"Hint: {plain(check.hint).strip()}")
    if check.access is not None and check.status is Status.FAILED:  # a counter check about memory: its picture
        parts.append(plain(access_text.plain(check.access)))
    return "\n\n".join(part for part in parts if part)


def lab_seconds(lab: RecordedLab) -> float:
    return float(lab.seconds or 0.0)


@dataclass
class GroupRate:
    """The student's kernel in one benchmark group as the run's JSON holds it (model.GroupRates, computed once by
    the grader), beside the thresholds it was graded against."""

    group: str  # "" for a lab measured at one setting
    baseline: str  # the baseline kernel's name
    correct: bool  # a wrong result's time means nothing: no speedup is shown for it
    speedup: float | None
    min_speedup: float | None  # None: shown, not graded
    memory_bound: bool  # rated in GB/s against the copy bandwidth, not in GFLOP/s
    copy_fraction: float | None  # None for a wrong result, and where the lab is compute-bound
    min_copy_fraction: float | None


def group_rates(lab: RecordedLab) -> list[GroupRate]:
    """One GroupRate per benchmark group the student's kernel ran in; [] when nothing was measured."""
    rates = []
    for measured in lab.rates:
        limits = lab.thresholds.get(measured.group)
        rates.append(
            GroupRate(
                group=measured.group,
                baseline=measured.baseline,
                correct=measured.correct,
                speedup=measured.speedup,
                min_speedup=limits.min_speedup if limits else None,
                memory_bound=measured.memory_bound,
                copy_fraction=measured.copy_fraction,
                min_copy_fraction=limits.min_copy_fraction if limits and measured.memory_bound else None,
            )
        )
    return rates


def not_measured_reason(run: RecordedRun, lab: RecordedLab) -> str:
    """Why a lab has no benchmark numbers: no GPU, a step turned off, or the build that failed."""
    if run.gpu_reason:
        return plain(run.gpu_reason)
    for check in lab.checks:
        if check.category is Category.BUILD and check.status is Status.FAILED:
            return "the build failed"
    for check in lab.checks:
        if check.category is Category.PERFORMANCE and check.status is not Status.PASSED and check.detail:
            return plain(check.detail).splitlines()[0]
    return "no benchmark ran"
