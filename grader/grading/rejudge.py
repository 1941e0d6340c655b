"""A recorded grade's speed checks judged again against another thresholds file: after a new
calibration, whether the grades already made of the variants would get the same verdicts, from the benchmark
figures each grade.json holds, without measuring anything again. The grader's own checks.performance_checks
decides each status, as it does when grading.

One thing differs from a live grade: a figure just short of a new threshold would have been measured twice more
(grade.py's near miss); here the recorded figure alone decides."""

from __future__ import annotations

import dataclasses

from grader.core.config import Lab, Target
from grader.core.model import Category
from grader.core.recorded import RecordedCheck, RecordedLab
from grader.execution.proc import Outcome
from grader.grading.checks import performance_checks
from grader.steps.bench import BenchRun


def rejudged_checks(lab_grade: RecordedLab, lab: Lab, target: Target) -> list[RecordedCheck]:
    """The checks of one lab's entry in grade.json, its speed and stretch checks made again from its recorded
    benchmark against `target`. A grade with no benchmark figures (no GPU, --no-bench, a benchmark that did not
    finish) keeps its checks as they are."""
    if not lab_grade.bench:
        return lab_grade.checks
    result = lab_grade.bench
    recorded = Outcome(["grade.json"], 0, "", "", 0.0)  # what ran is gone; its result is what counts
    found = performance_checks(lab, BenchRun(recorded, result), target.for_lab(lab.name), result.device)
    # A stretch's test cases and machine-code checks are kept: only the checks made from the benchmark are remade.
    remade = {check.name for check in found}
    kept = [
        check
        for check in lab_grade.checks
        if check.category is not Category.PERFORMANCE
        and not (check.category is Category.STRETCH and check.name in remade)
    ]
    return kept + [
        RecordedCheck(**{f.name: getattr(check, f.name) for f in dataclasses.fields(check)}) for check in found
    ]
