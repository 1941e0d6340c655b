"""Running a lab's doctest suite and reading its XML report, even when the program died half-way."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from grader import proc

NO_GPU_LINE = re.compile(r"^GPU test cases skipped: (.*)$", re.MULTILINE)
TODO_LINE = re.compile(r"^TODO not done: (.*)$", re.MULTILINE)


@dataclass
class CaseResult:
    name: str
    suite: str
    ran: bool  # False: skipped by its decorator (no GPU, or a stretch not attempted), or never reached
    passed: bool
    message: str = ""  # the first failure: its check, captured values and message, or the exception


@dataclass
class SuiteRun:
    outcome: proc.Outcome
    cases: list[CaseResult] = field(default_factory=list)
    no_gpu_reason: str = ""
    todos: list[str] = field(default_factory=list)  # "kernel.cu:42: TODO 3: ..." lines the skeleton printed


def _text(element: ET.Element | None) -> str:
    return " ".join((element.text or "").split()) if element is not None else ""


def _first_failure(case: ET.Element) -> str:
    for child in case:
        if child.tag == "Expression" and child.get("success") == "false":
            infos = [_text(info) for info in child.findall("Info")]
            return "; ".join([f"{_text(child.find('Expanded'))} is false", *infos])
        if child.tag == "Exception":
            return f"exception: {_text(child)}"
        if child.tag == "Message" and child.get("type", "").upper().startswith(("ERROR", "FATAL")):
            return _text(child.find("Text")) or _text(child)
    return ""


def parse_report(xml_text: str) -> list[CaseResult]:
    """Every test case the report finished, read incrementally so that a truncated report still counts."""
    parser = ET.XMLPullParser(events=("start", "end"))
    suite = ""
    cases: list[CaseResult] = []
    try:
        parser.feed(xml_text)
        for event, element in parser.read_events():
            if event == "start" and element.tag == "TestSuite":
                suite = element.get("name", "")
            elif event == "end" and element.tag == "TestCase":
                skipped = element.get("skipped") == "true"
                totals = element.find("OverallResultsAsserts")
                passed = not skipped and totals is not None and totals.get("test_case_success") == "true"
                cases.append(CaseResult(element.get("name", "?"), suite, not skipped, passed, _first_failure(element)))
    except ET.ParseError:
        pass  # the program died mid-report: keep the cases it finished
    return cases


def list_cases(binary: Path, timeout_s: float) -> list[CaseResult]:
    """All cases of the suite, as not run: the ones a run never reached keep this state."""
    command = [str(binary), "--list-test-cases", "--no-skip", "--reporters=xml", "--no-version"]
    outcome = proc.run(command, timeout_s)
    try:
        root = ET.fromstring(outcome.stdout)
    except ET.ParseError:
        return []
    return [CaseResult(c.get("name", "?"), c.get("testsuite", ""), False, False) for c in root.iter("TestCase")]


def run_suite(binary: Path, timeout_s: float, env: dict | None = None) -> SuiteRun:
    outcome = proc.run([str(binary), "--reporters=xml", "--no-version"], timeout_s, env=env)
    finished = {case.name: case for case in parse_report(outcome.stdout)}
    cases = [finished.get(case.name, case) for case in list_cases(binary, timeout_s)]
    no_gpu = NO_GPU_LINE.search(outcome.stderr)
    return SuiteRun(
        outcome=outcome,
        cases=cases,
        no_gpu_reason=no_gpu.group(1) if no_gpu else "",
        todos=TODO_LINE.findall(outcome.stderr),
    )
