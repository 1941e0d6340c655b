"""A mechanism check of the stretch's kernel (labs.toml: stretch = true): graded for no points, as the stretch's
test cases are, and skipped with them when the stretch is not attempted."""

from __future__ import annotations

import pytest

from grader.core.config import MechanismCheck
from grader.core.model import Category, Check, Status
from grader.grading.judge import stretch_check
from grader.steps import resources, sass

RULE = MechanismCheck(name="copies", tool="sass", sass="cp.async copies", kernel="blocked", stretch=True, hint="h")
WITH_COPIES = sass.SassReport(kernels=["blocked_kernel"], async_copies={"blocked_kernel": 5})
WITHOUT = sass.SassReport(kernels=["blocked_kernel"], async_copies={"blocked_kernel": 0})
NO_REPORT = resources.ResourceReport()


def case(status: Status) -> Check:
    return Check("register-blocked: a case", Category.STRETCH, status)


def test_not_attempted_is_skipped_whatever_the_machine_code():
    check = stretch_check(RULE, [case(Status.SKIPPED)], NO_REPORT, WITH_COPIES)
    assert (check.status, check.category) == (Status.SKIPPED, Category.STRETCH)


def test_attempted_is_judged_from_the_machine_code_for_no_points():
    passed = stretch_check(RULE, [case(Status.PASSED)], NO_REPORT, WITH_COPIES)
    failed = stretch_check(RULE, [case(Status.PASSED)], NO_REPORT, WITHOUT)
    assert (passed.status, passed.category) == (Status.PASSED, Category.STRETCH)
    assert (failed.status, failed.category) == (Status.FAILED, Category.STRETCH)


def test_a_clean_report_is_withheld_while_a_stretch_case_fails():
    check = stretch_check(RULE, [case(Status.PASSED), case(Status.FAILED)], NO_REPORT, WITH_COPIES)
    assert (check.status, check.category) == (Status.WITHHELD, Category.STRETCH)


def test_only_checks_read_from_nvccs_object_may_be_the_stretchs():
    with pytest.raises(ValueError, match="stretch"):
        MechanismCheck(name="r", tool="racecheck", stretch=True)
