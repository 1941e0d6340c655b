"""A recorded grade's speed checks judged again against another thresholds file: after a new
calibration, whether the grades already made of the variants would get the same verdicts, from the benchmark
figures each grade.json holds, without measuring anything again. The grader's own checks.performance_checks
decides each status, as it does when grading.

One thing differs from a live grade: a figure just short of a new threshold would have been measured twice more
(grade.py's near miss); here the recorded figure alone decides."""

from __future__ import annotations

import dataclasses
import json

from grader.core.config import Lab, Target
from grader.core.model import BenchResult, Category, KernelTiming
from grader.execution.proc import Outcome
from grader.grading.checks import performance_checks
from grader.steps.bench import BenchRun

TIMING_FIELDS = {f.name for f in dataclasses.fields(KernelTiming)}
REJUDGED = {Category.PERFORMANCE.value, Category.STRETCH.value}


def recorded_bench(bench: dict) -> BenchResult:
    """The benchmark result as grade.json records it (dataclasses.asdict of a BenchResult)."""
    kernels = [KernelTiming(**{k: v for k, v in kernel.items() if k in TIMING_FIELDS}) for kernel in bench["kernels"]]
    return BenchResult(bench["device"], bench["copy_gbps"], bench["problem"], kernels)


def rejudged_checks(lab_grade: dict, lab: Lab, target: Target) -> list[dict]:
    """The checks of one lab's entry in grade.json, its speed and stretch checks made again from its recorded
    benchmark against `target`. A grade with no benchmark figures (no GPU, --no-bench, a benchmark that did not
    finish) keeps its checks as they are."""
    if not lab_grade.get("bench"):
        return lab_grade["checks"]
    result = recorded_bench(lab_grade["bench"])
    recorded = Outcome(["grade.json"], 0, "", "", 0.0)  # what ran is gone; its result is what counts
    found = performance_checks(lab, BenchRun(recorded, result), target.for_lab(lab.name), result.device)
    kept = [check for check in lab_grade["checks"] if check["category"] not in REJUDGED]
    return kept + [json.loads(json.dumps(dataclasses.asdict(check))) for check in found]
