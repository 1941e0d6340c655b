"""A lab that a GPU's thresholds file does not hold yet (a new lab before ./cml calibrate has measured it there):
its speed is measured and shown, but graded by nothing, and the grade says so. Never passed, never failed."""

from __future__ import annotations

import dataclasses

from grader.core.config import TARGETS_DIR, load_config, load_target
from grader.core.model import BenchResult, Category, Check, KernelTiming, LabGrade, Status
from grader.execution.proc import Outcome
from grader.grading.checks import performance_checks
from grader.reporting import score
from grader.steps.bench import BenchRun


def timing(role: str, median_ms: float) -> KernelTiming:
    return KernelTiming(role, role, "", True, True, "ok", median_ms, 0.01, 8.0 / median_ms, 0.0, bytes=8e6)


def a_fast_correct_run() -> BenchRun:
    result = BenchResult("NVIDIA H100 80GB HBM3", 2955.0, "n", [timing("baseline", 4.0), timing("student", 0.4)])
    return BenchRun(Outcome(["bench"], 0, "", "", 60.0), result)


def test_a_lab_missing_from_the_targets_has_its_speed_not_run_with_the_reason():
    lab = load_config().lab("01")
    h100 = load_target(TARGETS_DIR / "h100.toml")
    assert h100.for_lab(lab.name), "Lab 1 is calibrated on the H100: the case below takes it away"
    missing = dataclasses.replace(h100, thresholds={k: v for k, v in h100.thresholds.items() if k != lab.name})
    found = performance_checks(lab, a_fast_correct_run(), missing.for_lab(lab.name), "NVIDIA H100 80GB HBM3")
    assert [(c.category, c.status) for c in found] == [(Category.PERFORMANCE, Status.NOT_RUN)]
    assert "no thresholds for NVIDIA H100 80GB HBM3" in found[0].detail and "./cml calibrate" in found[0].detail
    # Everything else passed: the lab is incomplete, not passed, and its speed earns no points.
    grade = LabGrade(lab.name, lab.title, "student", "labs/01_vector_add/kernel.cu")
    grade.checks = [Check("a test case", Category.CORRECTNESS, Status.PASSED, "ok"), *found]
    assert score.verdict(grade) == "incomplete"
