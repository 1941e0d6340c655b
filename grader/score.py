"""Points: each category's share of a lab's points is split evenly over that category's checks."""

from __future__ import annotations

from grader.model import Category, Check, LabGrade, Status

SCORED = (Category.CORRECTNESS, Category.MECHANISM, Category.PERFORMANCE)


def score(grade: LabGrade, points: dict[str, float]) -> LabGrade:
    grade.max_points = sum(points.get(category.value, 0.0) for category in SCORED)
    grade.points = grade.ungraded_points = 0.0
    built = not any(c.category is Category.BUILD and c.status is Status.FAILED for c in grade.checks)
    for category in SCORED:
        checks = [c for c in grade.checks if c.category is category]
        share = points.get(category.value, 0.0) / len(checks) if checks else 0.0
        for check in checks:
            check.max_points = share
            check.points = share if built and check.status is Status.PASSED else 0.0
        grade.points += sum(c.points for c in checks)
        grade.ungraded_points += share * sum(c.status is Status.NOT_RUN for c in checks) if built else 0.0
    if not built:
        # The failed build is what cost every point: platforms that list checks show it so.
        for check in grade.checks:
            check.max_points = grade.max_points if check.category is Category.BUILD else check.max_points
    return grade


def verdict(grade: LabGrade) -> str:
    """'passed', 'failed', or 'incomplete' (nothing failed, but some checks could not run here)."""
    required = [c for c in grade.checks if c.category is not Category.STRETCH]
    if any(c.status is Status.FAILED for c in required):
        return "failed"
    if any(c.status is Status.NOT_RUN for c in required):
        return "incomplete"
    return "passed"


def correctness_passed(checks: list[Check]) -> bool:
    required = [c for c in checks if c.category is Category.CORRECTNESS]
    return bool(required) and all(c.status is Status.PASSED for c in required)
