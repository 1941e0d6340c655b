"""A recorded grade's speed checks judged again against other thresholds (grader/grading/rejudge.py): the grader's own
checks decide, from the benchmark figures the grade holds."""

from __future__ import annotations

import dataclasses
import json

from grader.core.config import Target, Thresholds, load_config
from grader.core.model import BenchResult, Category, KernelTiming, Status
from grader.core.recorded import RecordedLab, read_grade
from grader.grading.rejudge import rejudged_checks

LAB = "04_tiled_gemm"


def timing(role: str, median_ms: float) -> KernelTiming:
    return KernelTiming(role, role, "", True, True, "all match", median_ms, 0.01, 0.0, 100.0)


def recorded_grade(**changes) -> RecordedLab:
    """A lab's entry in grade.json: the student 1.39 times the baseline's speed, graded against x1.18 then."""
    bench = BenchResult("GPU", 3000.0, "n", [timing("baseline", 1.39), timing("student", 1.0)])
    speed = {"name": "speedup over naive", "category": "performance", "status": "passed", "measured": 1.39}
    counter = {"name": "ncu: global load sectors", "category": "mechanism", "status": "passed"}
    entry = {"lab": LAB, "title": "t", "variant": "student", "kernel_path": "k", "verdict": "passed", "points": 1}
    entry |= {"max_points": 1, "checks": [counter, speed], "bench": json.loads(json.dumps(dataclasses.asdict(bench)))}
    return read_grade({"labs": [entry | changes], "score": 1, "max_score": 1}).labs[0]


def target(min_speedup: float) -> Target:
    return Target("gpu", "a GPU", ["GPU"], {LAB: {"": Thresholds(min_speedup=min_speedup)}})


def test_a_higher_threshold_fails_the_recorded_speedup_with_partial_credit():
    checks = rejudged_checks(recorded_grade(), load_config().lab(LAB), target(1.45))
    speed = next(c for c in checks if c.category is Category.PERFORMANCE)
    assert speed.status is Status.FAILED and speed.threshold == 1.45 and speed.measured is not None
    assert abs(speed.measured - 1.39) < 1e-9 and abs(speed.credit - 0.39 / 0.45) < 1e-9
    assert any(c.name == "ncu: global load sectors" and c.status is Status.PASSED for c in checks)


def test_a_lower_threshold_passes_it_and_none_leaves_it_not_graded():
    lab = load_config().lab(LAB)
    passed = next(c for c in rejudged_checks(recorded_grade(), lab, target(1.18)) if c.category == "performance")
    assert passed.status is Status.PASSED
    ungraded = Target("gpu", "a GPU", ["GPU"], {LAB: {"": Thresholds(not_graded="time cannot separate them")}})
    speed = next(c for c in rejudged_checks(recorded_grade(), lab, ungraded) if c.category == "performance")
    assert speed.status is Status.NOT_GRADED


def test_a_grade_without_benchmark_figures_keeps_its_checks():
    grade = recorded_grade(bench=None)
    assert rejudged_checks(grade, load_config().lab(LAB), target(9.0)) == grade.checks


def test_the_stretchs_checks_not_made_from_the_benchmark_are_kept():
    speed = {"name": "speedup over naive", "category": "performance", "status": "passed", "measured": 1.39}
    case = {"name": "register-blocked: a case", "category": "stretch", "status": "passed"}
    copies = {"name": "machine code: cp.async", "category": "stretch", "status": "failed"}
    grade = recorded_grade(checks=[speed, case, copies])
    names = [c.name for c in rejudged_checks(grade, load_config().lab(LAB), target(1.18))]
    assert "register-blocked: a case" in names and "machine code: cp.async" in names
