"""JUnit XML for CI tools and GitHub Classroom: one <testsuite> per lab, one <testcase> per check, in the order
of their causes (grader/reporting/causes.py: the first failure is the one to mend first).

failed -> <failure>; not run, skipped and withheld -> <skipped>, whose message starts with NOT PASSED (a CI
tool counts a skipped test as neither passed nor failed). The lab's grading time is on its suite: the checks
are not timed one by one, so the test cases carry no time."""

from __future__ import annotations

import io
from pathlib import Path

from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite

from grader.core import atomic
from grader.core.model import Status
from grader.core.recorded import RecordedCheck, RecordedLab, RecordedRun
from grader.reporting.causes import ordered
from grader.reporting.export.run import NOT_PASSED, check_text, lab_seconds, plain


def _points(check: RecordedCheck) -> str:
    return f"points: {check.points:g} / {check.max_points:g}"


def _testcase(lab: RecordedLab, check: RecordedCheck) -> TestCase:
    case = TestCase(plain(check.name), classname=f"{lab.lab}.{check.category.value}")
    status, detail = check.status.value, plain(check.detail).strip()
    if status == Status.FAILED.value:
        message = detail.splitlines()[0] if detail else "failed"
        failure = Failure(message, check.category.value)
        failure.text = check_text(check)
        case.result = [failure]
    elif status in NOT_PASSED:
        skipped = Skipped(NOT_PASSED[status])
        skipped.text = check_text(check)
        case.result = [skipped]
    seen = detail if status == Status.PASSED.value else ""  # a failure or a skip holds it already
    case.system_out = "\n".join(part for part in (_points(check), seen) if part)
    return case


def _testsuite(run: RecordedRun, lab: RecordedLab) -> TestSuite:
    suite = TestSuite(lab.label)
    for name in ("title", "variant", "verdict", "points", "max_points", "kernel_path", "seed"):
        if getattr(lab, name) is not None:
            suite.add_property(name, plain(str(getattr(lab, name))))  # kernel_path: a submission's folder names
    for name, value in (("device", run.device), ("target", run.target)):
        if value:
            suite.add_property(name, value)
    suite.add_testcases([_testcase(lab, check) for check in ordered(lab.checks)])
    suite.time = lab_seconds(lab)  # after add_testcases, which sums the (absent) times of the cases
    if run.timestamp:
        suite.timestamp = run.timestamp
    return suite


def junit_xml(run: RecordedRun) -> JUnitXml:
    xml = JUnitXml("cuda-memory-labs")
    suites = [_testsuite(run, lab) for lab in run.labs]
    for suite in suites:
        xml.add_testsuite(suite)
    # Not xml.update_statistics(): it would sum the suites' times again from their cases.
    xml.tests, xml.failures = sum(s.tests for s in suites), sum(s.failures for s in suites)
    xml.errors, xml.skipped = sum(s.errors for s in suites), sum(s.skipped for s in suites)
    xml.time = round(sum(s.time for s in suites), 3)
    return xml


def write_junit(run: RecordedRun, path: Path) -> None:
    text = io.BytesIO()
    junit_xml(run).write(text, pretty=True)
    atomic.write_bytes(path, text.getvalue())
