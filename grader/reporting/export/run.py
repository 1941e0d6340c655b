"""Reading a saved run (the dict report.write_json writes) the way every export shows it: one label per lab,
what a status that is not `passed` means, text made safe to put anywhere, and the measured rates per group."""

from __future__ import annotations

import re
from dataclasses import dataclass

from grader.core.model import Status

# Not passed, and why: said in so many words wherever a platform has no status of that name.
NOT_PASSED = {
    Status.NOT_RUN.value: "NOT PASSED (not run): it could not run here, so it earned nothing",
    Status.SKIPPED.value: "NOT PASSED (skipped): an optional stretch goal, not attempted; worth no points either way",
    Status.WITHHELD.value: "NOT PASSED (withheld): it came out clean, but counts only once all correctness tests pass",
    Status.NOT_GRADED.value: "NOT GRADED on this GPU: time cannot tell the lesson apart here; the points went to the "
    "mechanism checks",
}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # not allowed in XML 1.0; garbage on a page


def plain(text: str | None) -> str:
    """Compiler and sanitizer output without colour codes or control characters."""
    return _CONTROL.sub("", _ANSI.sub("", text or ""))


def lab_label(lab: dict) -> str:
    """'01_vector_add', or '01_vector_add (solution)' when the reference solution was graded."""
    variant = lab.get("variant", "student")
    return lab["lab"] if variant == "student" else f"{lab['lab']} ({variant})"


def lab_number(lab: dict, position: int) -> int:
    """The lab's number from its folder name ('01_vector_add' -> 1), else its position in the run."""
    head = lab["lab"].split("_", 1)[0]
    return int(head) if head.isdigit() else position


def check_text(check: dict) -> str:
    """What a reader needs of one check: why it did not pass, what was seen, what to do about it."""
    parts = [NOT_PASSED.get(check["status"], ""), plain(check.get("detail")).strip()]
    if check.get("hint"):
        parts.append(f"Hint: {plain(check['hint']).strip()}")
    return "\n\n".join(part for part in parts if part)


def lab_seconds(lab: dict) -> float:
    return float(lab.get("seconds") or 0.0)


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


def group_rates(lab: dict) -> list[GroupRate]:
    """One GroupRate per benchmark group the student's kernel ran in; [] when nothing was measured."""
    thresholds = lab.get("thresholds") or {}
    rates = []
    for measured in lab.get("rates") or []:
        limits = thresholds.get(measured["group"]) or {}
        rates.append(
            GroupRate(
                group=measured["group"],
                baseline=measured["baseline"],
                correct=measured["correct"],
                speedup=measured["speedup"],
                min_speedup=limits.get("min_speedup"),
                memory_bound=measured["memory_bound"],
                copy_fraction=measured["copy_fraction"],
                min_copy_fraction=limits.get("min_copy_fraction") if measured["memory_bound"] else None,
            )
        )
    return rates


def not_measured_reason(run: dict, lab: dict) -> str:
    """Why a lab has no benchmark numbers: no GPU, a step turned off, or the build that failed."""
    if run.get("gpu_reason"):
        return plain(run["gpu_reason"])
    for check in lab.get("checks", []):
        if check["category"] == "build" and check["status"] == Status.FAILED.value:
            return "the build failed"
    for check in lab.get("checks", []):
        if check["category"] == "performance" and check["status"] != Status.PASSED.value and check.get("detail"):
            return plain(check["detail"]).splitlines()[0]
    return "no benchmark ran"
