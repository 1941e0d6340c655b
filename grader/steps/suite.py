"""Running a lab's test program, and judging what it computed with the lab's checker.

The test program links the student's kernel.cu and runs in the sandbox (grader/execution/sandbox.py), where it writes a
record of every result its test cases read back from the GPU (common/cml/record.hpp). The checker is the same
test cases built without any kernel.cu: it replays the record with the run's seed and decides each case. Its
verdict is the one the grader uses, so nothing the student's code prints or does to its own process can pass a
case it did not compute (SECURITY.md)."""

from __future__ import annotations

import re
import secrets
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from grader.core.exits import GraderError
from grader.execution import proc, sandbox
from grader.execution.gpu_turn import GpuTurn

# What the test main prints first, before any code under test runs, when it finds no GPU.
NO_GPU_START = re.compile(r"seed [^\n]*\nGPU test cases skipped: ([^\n]*)")
# What cml::report_todo prints for a CML_TODO line that ran: "TODO not done: FILE:LINE: TEXT". FILE and TEXT are
# the student's to choose (#line, any string), so only the line number and a TEXT of the skeleton's are shown.
TODO_PREFIX = "TODO not done: "
TODO_LINE = re.compile(r":(\d{1,9}): (.*)")
CML_TODO = re.compile(r'CML_TODO\("((?:[^"\\\n]|\\.)*)"\)')  # a CML_TODO("...") of a skeleton, its text
# The checker's words (common/cml/record.cpp) for a case the record lacks.
SKIPPED_BY_PROGRAM = "skipped by the program under test"
CUT_SHORT = "(it crashed, timed out or exited)"  # replaced by how the program really ended


@dataclass
class CaseResult:
    name: str
    suite: str
    ran: bool  # False: skipped by its decorator (no GPU, or a stretch not attempted), or never reached
    passed: bool
    message: str = ""  # the first failure: its check, captured values and message, or the exception

    @property
    def skipped_by_program(self) -> bool:
        """The test program skipped this case (a stretch it does not attempt), so the record has nothing."""
        return not self.passed and self.message.startswith(f"exception: {SKIPPED_BY_PROGRAM}")


@dataclass
class SuiteRun:
    outcome: proc.Outcome  # the test program's run (the process that ran the kernel.cu)
    cases: list[CaseResult] = field(default_factory=list)  # as the checker judged that run's record
    # "FILE:LINE: TEXT" of each CML_TODO line the run reached, as it printed them (cut to MESSAGE_LIMIT): the
    # student's text, shown only through shown_todos()
    todos: list[str] = field(default_factory=list)

    @property
    def all_passed(self) -> bool:
        required = [case for case in self.cases if not case.suite.startswith("stretch")]
        return bool(required) and all(case.passed for case in required)


def printed_todos(stderr: str) -> list[str]:
    """The "FILE:LINE: TEXT" of each TODO line a run printed, each cut to MESSAGE_LIMIT characters. A line may
    start inside another: doctest's report, written to the same stream through a buffer of its own, can be cut
    by it mid-word ("ERRTODO not done: ...")."""
    found = (line.partition(TODO_PREFIX) for line in stderr.splitlines())
    return [proc.bounded(todo) for _, prefix, todo in found if prefix]


def skeleton_todos(skeleton: Path) -> set[str]:
    """The text of every CML_TODO("...") in a lab's skeleton as shipped; none where it cannot be read."""
    try:
        text = skeleton.read_bytes().decode(errors="replace")
    except OSError:
        return set()
    return {found.replace('\\"', '"').replace("\\\\", "\\") for found in CML_TODO.findall(text)}


def shown_todos(printed: list[str], lab: str, skeleton: Path, most: int = 5) -> list[str]:
    """The TODO lines a run printed, as a report shows them: "NN_name/kernel.cu:LINE: TEXT" where TEXT is one
    of the CML_TODO texts of the lab's `skeleton`, else a line of ours naming the line. At most `most` of them."""
    ours = skeleton_todos(skeleton)
    shown: dict[str, None] = {}  # in order, each once
    for line in printed:
        found = TODO_LINE.search(line)
        if found:
            number, text = found.groups()
            said = text if text in ours else "a CML_TODO line not done (its text is not the skeleton's: not shown)"
            shown[f"{lab}/kernel.cu:{number}: {said}"] = None
    lines = list(shown)
    return lines[:most] + ([f"and {len(lines) - most} more CML_TODO lines"] if len(lines) > most else [])


def _text(element: ET.Element | None) -> str:
    return " ".join((element.text or "").split()) if element is not None else ""


def _first_failure(case: ET.Element) -> str:
    """The first failure of a case, its cause first: the test's own message, then the values it captured; the
    checked expression only where the test gave no message."""
    for child in case:
        if child.tag == "Expression" and child.get("success") == "false":
            infos = [_text(info) for info in child.findall("Info")]
            captured = [info.replace(" := ", " = ") for info in infos if " := " in info]
            said = "; ".join(info for info in infos if " := " not in info)
            cause = said or f"failed: {_text(child.find('Original'))}"
            return cause + (f" (with {', '.join(captured)})" if captured else "")
        if child.tag == "Exception":
            return f"exception: {_text(child)}"
        if child.tag == "Message" and child.get("type", "").upper().startswith(("ERROR", "FATAL")):
            return _text(child.find("Text")) or _text(child)
    return ""


def parse_report(xml_text: str) -> list[CaseResult]:
    """Every test case the report finished, read incrementally so that a truncated report still counts."""
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    suite = ""
    cases: list[CaseResult] = []
    try:
        parser.feed(xml_text)
        # Only ("start" | "end", element) pairs, for these events; typeshed's type also holds the namespace events'.
        events = cast("Iterator[tuple[str, ET.Element]]", parser.read_events())
        for event, element in events:
            if event == "start" and element.tag == "TestSuite":
                suite = element.get("name", "")
            elif event == "end" and element.tag == "TestCase":
                skipped = element.get("skipped") == "true"
                totals = element.find("OverallResultsAsserts")
                passed = not skipped and totals is not None and totals.get("test_case_success") == "true"
                # A failure's message can be the student's exception text: cut to MESSAGE_LIMIT.
                message = proc.bounded(_first_failure(element))
                cases.append(CaseResult(element.get("name", "?"), suite, not skipped, passed, message))
    except ET.ParseError:
        pass  # the program died mid-report: keep the cases it finished
    return cases


def list_cases(binary: Path, timeout_s: proc.Limit) -> list[CaseResult]:
    """All cases of a suite, as not run: the ones a run never reached keep this state."""
    command = [str(binary), "--list-test-cases", "--no-skip", "--reporters=xml", "--no-version"]
    outcome = proc.run(command, timeout_s)
    try:
        root = ET.fromstring(outcome.stdout)
    except ET.ParseError:
        return []
    return [CaseResult(c.get("name", "?"), c.get("testsuite", ""), False, False) for c in root.iter("TestCase")]


@contextmanager
def run_folder():
    """A folder of the grader's own for one run: the copy of the program and its record
    (grader/execution/sandbox.py)."""
    with tempfile.TemporaryDirectory(prefix="cml-run-") as scratch:
        yield Path(scratch)


def program_run(
    binary: Path,
    scratch: Path,
    env: dict | None = None,
    gpu: bool = True,
    turn: GpuTurn | None = None,
    files: dict[Path, Path] | None = None,
) -> sandbox.ProgramRun:
    """A program built from a submission, as the grader runs it: in the sandbox, with the limits it sets itself
    (CML_CONFINE), writing its record in `scratch`; a benchmark with `turn` asks for the GPU alone through it;
    `files`, the grader's own it may read (sandbox.ProgramRun.files)."""
    return sandbox.ProgramRun(
        binary,
        scratch,
        {**(env or {}), "CML_CONFINE": "1"},
        gpu=gpu,
        gpu_turn=turn.path if turn else None,
        files=files or {},
    )


def run_program(
    program: sandbox.ProgramRun, timeout_s: proc.Limit, tool: tuple = (), args: tuple = (), turn: GpuTurn | None = None
) -> proc.Outcome:
    """Runs `program`, under `tool` (compute-sanitizer or ncu and their options) where given; the time it waits
    for its `turn` on the GPU is not counted. A test program gets the same variables and files in every run, so
    nothing tells a sanitizer's run from a plain one; its arguments only leave out cases (grader/steps/sanitize.py),
    which no code in a kernel.cu can read (grader/steps/integrity/)."""
    command = program.command([*tool, str(sandbox.PROGRAM), *args])
    paused = turn.waited_s if turn else lambda: 0.0
    return proc.run(command, timeout_s, env=program.environment(), paused=paused, output_limit=proc.OUTPUT_LIMIT)


def judge(checker: Path, record: Path, timeout_s: proc.Limit, env: dict | None = None) -> list[CaseResult]:
    """Every case of the lab, as the checker decides it from `record`. The checker is the grader's own program:
    a checker that fails is the grader's failure, never the student's. It reads a record the student's code
    wrote, so it runs with the limits a test program sets itself (CML_CONFINE: memory, CPU time, file size)."""
    with run_folder() as scratch:
        (scratch / "record").symlink_to(record)  # read, never written: the checker's record is the test program's
        confined = {**(env or {}), "CML_CONFINE": "1"}
        program = sandbox.ProgramRun(checker, scratch, confined, gpu=False, record_writable=False)
        argv = [str(sandbox.PROGRAM), "--replay", str(sandbox.RECORD), "--reporters=xml", "--no-version"]
        outcome = proc.run(program.command(argv), timeout_s, env=program.environment())
    if outcome.timed_out or outcome.returncode not in (0, 1):
        raise GraderError(f"the checker {checker.name} {outcome.how_it_ended()}: {outcome.tail(3)}")
    finished = {case.name: case for case in parse_report(outcome.stdout)}
    listed = list_cases(checker, timeout_s)
    unjudged = [case.name for case in listed if case.name not in finished]
    if not listed or unjudged:
        raise GraderError(
            f"the checker {checker.name} judged no case"
            if not listed
            else f"the checker {checker.name} did not judge {', '.join(unjudged[:3])}"
        )
    return [finished[case.name] for case in listed]


def run_suite(
    binary: Path,
    checker: Path,
    timeout_s: proc.Limit,
    env: dict | None = None,
    tool: tuple = (),
    args: tuple = (),
    files: dict[Path, Path] | None = None,
) -> SuiteRun:
    """The test program's run (under `tool` where given, with doctest's `args`, seeing `files` of the grader's)
    and the checker's verdict on its record. Both draw their inputs from the same seed: the run's, or one drawn
    here. A case the run left out is judged as one the program skipped."""
    env = {"CML_SEED": str(secrets.randbits(48)), **(env or {})}
    with run_folder() as scratch:
        program = program_run(binary, scratch, env, files=files)
        outcome = run_program(program, timeout_s, tool, args)
        no_gpu = NO_GPU_START.match(outcome.stderr)
        if no_gpu:
            # The grader runs a test program only where it found a GPU (or the CPU emulator): this is the
            # sandbox's or the machine's failure, not the student's.
            raise GraderError(f"the test program found no GPU in the sandbox: {no_gpu.group(1)}")
        cases = judge(checker, program.record, proc.time_limit(timeout_s).for_the_grader, env)
    for case in cases:
        case.message = case.message.replace(CUT_SHORT, f"(the test program {outcome.how_it_ended()})")
    return SuiteRun(outcome, cases, todos=printed_todos(outcome.stderr))
