"""Points: each category's share of a lab's points is split evenly over that category's checks. A failed speed
check keeps the partial credit it earned between the baseline and the threshold; a speed check not graded on
this GPU is worth nothing, and where none of a lab's is graded, the performance points go to its mechanism
checks (time cannot carry the lesson there: targets/*.toml says why). Where a skeleton starts from a working but
slow kernel, the checks it passes untouched pay only once the lesson's own checks come out clean (labs.toml's
`lesson`): an untouched skeleton earns nothing."""

from __future__ import annotations

from grader.core.config import Lesson
from grader.core.model import (
    EMULATOR_BUILD,
    EMULATOR_LIMIT,
    NOT_SUBMITTED,
    SUBMITTED,
    Category,
    Check,
    LabGrade,
    Status,
)

SCORED = (Category.CORRECTNESS, Category.MECHANISM, Category.PERFORMANCE)


def category_points(grade: LabGrade, points: dict[str, float]) -> dict[Category, float]:
    """Each category's points, after moving those of speed checks time cannot grade here to the mechanisms."""
    shares = {category: points.get(category.value, 0.0) for category in SCORED}
    speed = [c for c in grade.checks if c.category is Category.PERFORMANCE]
    receiver = (
        Category.MECHANISM if any(c.category is Category.MECHANISM for c in grade.checks) else Category.CORRECTNESS
    )
    if speed and all(c.status is Status.NOT_GRADED for c in speed):
        shares[receiver] += shares[Category.PERFORMANCE]
        shares[Category.PERFORMANCE] = 0.0
    return shares


def earned(check: Check, share: float) -> float:
    if check.status is Status.PASSED:
        return share
    return share * check.credit if check.status is Status.FAILED and check.category is Category.PERFORMANCE else 0.0


def shown(lesson: Lesson, checks: list[Check]) -> bool:
    """Whether the lesson's checks judged here all came out clean (passed, or withheld only until every test
    passes), and at least one was judged: one not run, or not graded on this GPU, shows nothing either way."""
    judged = [c for c in checks if c.name in lesson.shown_by and c.status not in (Status.NOT_RUN, Status.NOT_GRADED)]
    return bool(judged) and all(c.status in (Status.PASSED, Status.WITHHELD) for c in judged)


def hold_until_shown(checks: list[Check], lessons: list[Lesson]) -> None:
    """A passed check that the untouched skeleton passes too is withheld until its lesson is shown."""
    for lesson in lessons:
        if shown(lesson, checks):
            continue
        said = "; ".join(f"{c.name}: {c.status.value}" for c in checks if c.name in lesson.shown_by)
        for check in checks:
            if check.status is Status.PASSED and lesson.gates(check.name, check.category.value):
                first, newline, rest = check.detail.partition("\n")
                check.status = Status.WITHHELD
                was = "passed" + (f" {first}" if first.startswith("(") else f" ({first})" if first else "")
                check.detail = (
                    f"{was}, but the skeleton as shipped passes it too: it counts only once the lesson's check comes "
                    f"out clean ({said}){newline}{rest}"
                )


def score(grade: LabGrade, points: dict[str, float], lessons: list[Lesson] | None = None) -> LabGrade:
    hold_until_shown(grade.checks, lessons or [])
    grade.max_points = sum(points.get(category.value, 0.0) for category in SCORED)
    grade.points = grade.ungraded_points = 0.0
    built = not any(c.category is Category.BUILD and c.status is Status.FAILED for c in grade.checks)
    shares = category_points(grade, points)
    for category in SCORED:
        checks = [c for c in grade.checks if c.category is category and c.status is not Status.NOT_GRADED]
        share = shares[category] / len(checks) if checks else 0.0
        for check in checks:
            check.max_points = share
            check.points = earned(check, share) if built else 0.0
        grade.points += sum(c.points for c in checks)
        grade.ungraded_points += share * sum(c.status is Status.NOT_RUN for c in checks) if built else 0.0
    if not built:
        # The failed build is what cost every point: platforms that list checks show it so.
        for check in grade.checks:
            check.max_points = grade.max_points if check.category is Category.BUILD else check.max_points
    return grade


def verdict(grade: LabGrade) -> str:
    """'passed', 'failed', 'incomplete' (nothing failed, but some checks could not run here), 'emulator limit'
    (nothing failed, but the CPU emulator could not build what nvcc built: the grader's limit, never a pass and
    never the student's failure), or 'not submitted' (the submission has no kernel.cu for the lab:
    grader/grading/workspace.py). A check that failed fails the lab wherever it was judged, the emulator's
    limit or not (a resources check read from nvcc's object, say)."""
    if any(c.name == SUBMITTED and c.status is Status.FAILED for c in grade.checks):
        return NOT_SUBMITTED
    required = [c for c in grade.checks if c.category is not Category.STRETCH]
    if any(c.status is Status.FAILED for c in required):
        return "failed"
    if any(c.name == EMULATOR_BUILD and c.status is Status.NOT_RUN for c in required):
        return EMULATOR_LIMIT
    if any(c.status is Status.NOT_RUN for c in required):
        return "incomplete"
    return "passed"


def correctness_passed(checks: list[Check]) -> bool:
    required = [c for c in checks if c.category is Category.CORRECTNESS]
    return bool(required) and all(c.status is Status.PASSED for c in required)
