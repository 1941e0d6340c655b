"""Turning what each step saw into checks: one Check per test case, sanitizer, counter and threshold."""

from __future__ import annotations

from grader.bench import BenchRun
from grader.config import Lab, MechanismCheck, Thresholds
from grader.model import Category, Check, Status
from grader.profile import CounterRun
from grader.sanitize import SanitizerRun
from grader.tests import SuiteRun

STRETCH_PREFIX = "stretch"


def correctness_checks(suite: SuiteRun, handout: str) -> list[Check]:
    outcome = suite.outcome
    died = outcome.timed_out or outcome.returncode < 0
    hint = "; ".join(suite.todos) if suite.todos else f"see {handout}"
    checks = []
    for case in suite.cases:
        stretch = case.suite.startswith(STRETCH_PREFIX)
        category = Category.STRETCH if stretch else Category.CORRECTNESS
        if case.ran:
            status = Status.PASSED if case.passed else Status.FAILED
            checks.append(Check(case.name, category, status, case.message, "" if case.passed else hint))
        elif suite.no_gpu_reason:
            checks.append(Check(case.name, category, Status.NOT_RUN, suite.no_gpu_reason))
        elif died:
            detail = f"the test program {outcome.how_it_ended()} before this case finished"
            checks.append(Check(case.name, category, Status.FAILED, detail, hint))
        elif stretch:
            checks.append(Check(case.name, category, Status.SKIPPED, "stretch not attempted"))
        else:
            checks.append(Check(case.name, category, Status.NOT_RUN, "skipped by the test program"))
    if not suite.cases:
        detail = f"the test program {outcome.how_it_ended()} without a report:\n{outcome.tail(10)}"
        checks.append(Check("tests", Category.CORRECTNESS, Status.FAILED, detail, hint))
    return checks


def sanitizer_check(mechanism: MechanismCheck, run: SanitizerRun) -> Check:
    if run.clean:
        return Check(mechanism.name, Category.MECHANISM, Status.PASSED, run.summary)
    outcome = run.outcome
    if outcome.timed_out or outcome.returncode < 0:
        detail = f"{run.tool} {outcome.how_it_ended()}\n{run.first_report}"
    else:
        detail = f"{run.summary}\n{run.first_report}".strip()
    return Check(mechanism.name, Category.MECHANISM, Status.FAILED, detail, mechanism.hint)


def counter_check(mechanism: MechanismCheck, run: CounterRun) -> Check:
    numerator = run.totals.get(mechanism.numerator)
    denominator = run.totals.get(mechanism.denominator)
    if not run.outcome.ok or numerator is None or denominator is None:
        detail = f"ncu {run.outcome.how_it_ended()} without the counters:\n{run.outcome.tail(6)}"
        return Check(mechanism.name, Category.MECHANISM, Status.NOT_RUN, detail)
    ratio = numerator / denominator if denominator else float("inf")
    detail = f"{ratio:.2f} (limit {mechanism.max:g}) over {run.kernels} launch(es): {numerator:.0f} / {denominator:.0f}"
    status = Status.PASSED if ratio <= mechanism.max else Status.FAILED
    return Check(mechanism.name, Category.MECHANISM, status, detail, "" if status is Status.PASSED else mechanism.hint)


def performance_checks(lab: Lab, run: BenchRun, thresholds: Thresholds | None, device: str) -> list[Check]:
    name = f"speedup over {lab.baseline}"
    result = run.result
    if result is None:
        detail = f"the benchmark {run.outcome.how_it_ended()}:\n{run.outcome.tail(8)}"
        return [Check(name, Category.PERFORMANCE, Status.FAILED, detail)]
    student, baseline = result.kernel("student"), result.kernel("baseline")
    checks = []
    if thresholds is None:
        detail = f"no thresholds for {device}: measure the solutions with `./cml calibrate` first"
        checks.append(Check(name, Category.PERFORMANCE, Status.NOT_RUN, detail))
    elif not student.correct:
        detail = f"the benchmarked result was wrong, so its time earns nothing: {student.check}"
        checks.append(Check(name, Category.PERFORMANCE, Status.FAILED, detail))
    else:
        speedup = baseline.median_ms / student.median_ms
        passed = speedup >= thresholds.min_speedup
        detail = f"x{speedup:.2f} (threshold x{thresholds.min_speedup:g}): {student.median_ms:.3f} ms against {baseline.median_ms:.3f} ms"
        checks.append(Check(name, Category.PERFORMANCE, Status.PASSED if passed else Status.FAILED, detail))
        if thresholds.min_copy_fraction is not None:
            fraction = student.gbps / result.copy_gbps
            passed = fraction >= thresholds.min_copy_fraction
            detail = f"{fraction:.2f} (threshold {thresholds.min_copy_fraction:g}): {student.gbps:.0f} of {result.copy_gbps:.0f} GB/s"
            status = Status.PASSED if passed else Status.FAILED
            checks.append(Check("fraction of this GPU's copy bandwidth", Category.PERFORMANCE, status, detail))
    stretch = result.kernel("stretch")
    if stretch is not None and stretch.attempted:
        status = Status.PASSED if stretch.correct else Status.FAILED
        detail = f"{stretch.gbps:.0f} GB/s, {stretch.gbps / result.copy_gbps:.2f} of copy; {stretch.check}"
        checks.append(Check(f"stretch: {stretch.name}", Category.STRETCH, status, detail))
    return checks
