"""The cause first, in every output a student reads: for the classic bugs of the labs (grader/tests/support/
classic_bugs.py), the first failing item of the terminal, the HTML report, Gradescope's results.json, JUnit XML
and a class's CSV is the check that explains the others, with the file:line it points to; never the launch check
that reported the error afterwards. The order comes from one place, grader/reporting/causes.py."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from grader.cohort.collect import cause_column, student_row
from grader.core.config import load_config
from grader.core.model import Category, Check, LabGrade, Status
from grader.core.recorded import RecordedRun, read_grade
from grader.reporting import causes, report
from grader.reporting.export.gradescope import gradescope_results
from grader.reporting.export.html import render_html
from grader.reporting.export.junit import junit_xml
from grader.reporting.terminal import Terminal
from grader.tests.support.classic_bugs import BUGS, Bug

LAUNCH_CHECK = re.compile(r"cudaGetLastError\(\) failed")


@pytest.fixture(params=BUGS, ids=[bug.name for bug in BUGS])
def bug(request) -> Bug:
    return request.param


def recorded(grade: LabGrade) -> RecordedRun:
    return read_grade(report.run_dict([grade], {"seed": grade.seed}))


def assert_names_the_cause(bug: Bug, name: str, text: str) -> None:
    """`name` is the cause's check, and `text` (what shows with it) its place."""
    assert name.startswith(bug.cause), f"{bug.name}: the first failing item is {name!r}"
    if bug.place:
        assert bug.place in text, f"{bug.name}: {bug.place} is not in what shows with the cause:\n{text}"


# The one place


def test_the_cause_is_the_check_that_explains_the_others_and_points_to_its_line(bug):
    grade = bug.grade()
    cause = causes.cause(grade.checks)
    assert cause is not None and cause.status is Status.FAILED
    assert_names_the_cause(bug, cause.name, causes.location(cause) or "")
    assert (causes.location(cause) or "").endswith(bug.place or "") if bug.place else causes.location(cause) is None


def test_a_sanitizers_finding_comes_before_the_launch_error_it_explains():
    """Lab 1 with no bounds check, as recorded: the first test reports the illegal address at the launcher's error
    check, a line that is not the bug; memcheck names the write, and comes first."""
    grade = BUGS[0].grade()
    first_test = next(c for c in grade.checks if c.status is Status.FAILED and c.category is Category.CORRECTNESS)
    assert LAUNCH_CHECK.search(first_test.detail) and causes.location(first_test) != BUGS[0].place
    order = causes.ordered(grade.checks)
    assert order[0].name.startswith("memcheck") and order.index(first_test) > 0


def test_memcheck_comes_before_racecheck_and_a_build_before_both():
    checks = [
        Check("racecheck: x", Category.MECHANISM, Status.FAILED, "RACECHECK SUMMARY: 1 hazard"),
        Check("memcheck: y", Category.MECHANISM, Status.FAILED, "ERROR SUMMARY: 1 error"),
        Check("a test", Category.CORRECTNESS, Status.FAILED, "wrong"),
        Check("stretch: a test", Category.STRETCH, Status.FAILED, "wrong"),
        Check("ncu: z", Category.MECHANISM, Status.FAILED, "0.9 (must be <= 0.3)"),
        Check("speedup", Category.PERFORMANCE, Status.NOT_RUN, "no GPU"),
    ]
    names = [check.name for check in causes.ordered(checks)]
    assert names == ["memcheck: y", "racecheck: x", "a test", "ncu: z", "stretch: a test", "speedup"]
    built = [Check("build", Category.BUILD, Status.FAILED, "kernel.cu(3): error"), *checks]
    first = causes.cause(built)
    assert first is not None and first.name == "build"
    assert causes.cause([Check("a", Category.CORRECTNESS, Status.PASSED)]) is None


def test_a_location_in_the_students_file_comes_before_one_in_a_header():
    detail = "Race between Read at f in /usr/include/cuda_pipeline.h:24\nand Write at g in 04_tiled_gemm/kernel.cu:44"
    assert causes.locations(detail) == ["04_tiled_gemm/kernel.cu:44", "/usr/include/cuda_pipeline.h:24"]
    todo = Check("a test", Category.CORRECTNESS, Status.FAILED, "1 of 1 wrong", "labs/01/kernel.cu:29: TODO 3: x")
    assert causes.location(todo) == "labs/01/kernel.cu:29"  # a TODO the run reached, where the detail names none


# Every output


def test_the_terminal_opens_with_the_cause_and_its_line(bug):
    out = io.StringIO()
    report.print_report(Terminal(file=out, width=80, color_system=None), [bug.grade()], None, [])
    lines = out.getvalue().splitlines()
    cause = next(line for line in lines if line.startswith("cause: "))
    at = next((line for line in lines if line.startswith("at ")), "")
    assert_names_the_cause(bug, cause.removeprefix("cause: "), at)
    assert lines.index(cause) <= 2, "\n".join(lines)  # right under the lab's verdict (two rows at 80 columns)


class Causes(HTMLParser):
    """The text of the page's first cause block, and the names of the failed checks in its checks' table."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.first_cause = ""
        self.in_row = False
        self.cells: list[str] = []
        self.rows: list[list[str]] = []

    def handle_starttag(self, tag, attrs):
        classes = dict(attrs).get("class") or ""
        if tag == "div" and classes == "cause" and not self.first_cause:
            self.depth = 1
        elif tag == "div" and self.depth:
            self.depth += 1
        if tag == "tr":
            self.in_row, self.cells = True, []
        if tag == "td" and self.in_row:
            self.cells.append("")

    def handle_endtag(self, tag):
        if tag == "div" and self.depth:
            self.depth -= 1
            if not self.depth:
                self.first_cause = self.first_cause or "(empty)"
        if tag == "tr" and self.in_row:
            self.rows.append(self.cells)
            self.in_row = False

    def handle_data(self, data):
        if self.depth:
            self.first_cause += data
        if self.in_row and self.cells:
            self.cells[-1] += data


def test_the_html_report_opens_with_the_cause_and_its_line(bug):
    page = render_html(recorded(bug.grade()))
    parsed = Causes()
    parsed.feed(page)
    assert page.index('class="causes"') < page.index('class="summary"')  # above everything but the page's header
    failed = [cells for cells in parsed.rows if len(cells) == 5 and cells[2].strip() == "failed"]
    assert_names_the_cause(bug, failed[0][0].strip(), parsed.first_cause)
    assert failed[0][0].strip() in parsed.first_cause


def test_gradescope_numbers_the_cause_first_and_names_its_line(bug):
    results = gradescope_results(recorded(bug.grade()))
    first = results["tests"][0]
    assert first["status"] == "failed" and first["number"].endswith(".1")
    assert_names_the_cause(bug, first["name"].split(" · ", 1)[1], first["output"])
    assert f"to mend first: {first['name'].split(' · ', 1)[1]}" in results["output"]


def test_junit_lists_the_cause_as_its_first_failure(bug):
    (suite,) = list(junit_xml(recorded(bug.grade())))
    root = ET.fromstring(suite.tostring())
    first = next(case for case in root.iter("testcase") if case.find("failure") is not None)
    failure = first.find("failure")
    assert failure is not None
    assert_names_the_cause(bug, first.get("name", ""), failure.text or "")


def test_the_class_csv_names_the_cause_and_its_line(bug):
    run = recorded(bug.grade())
    (lab,) = run.labs
    row = student_row(run, [load_config().lab(lab.lab)], [lab.lab])
    cell = row[cause_column(lab.lab)]
    assert_names_the_cause(bug, cell, cell)
    assert row[f"{lab.lab}_verdict"] == "failed"
