"""Student text is data: what a submission wrote (a TODO line, a folder's name, an exception's message, a compile
error, what its program printed) reaches a report only as text, cut to a bound, read in linear time, and never
quoting a file that is not the student's."""

from __future__ import annotations

import io
import json
import re
import struct
import sys
import time
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest

from grader import cli
from grader.core.config import REPO_ROOT, load_config
from grader.core.exits import Exit
from grader.core.model import Category, Check, LabGrade, Status
from grader.core.recorded import read_grade
from grader.execution import proc
from grader.grading.judge import DETAIL_LIMIT, student_paths
from grader.reporting import report
from grader.reporting.export import write_junit
from grader.reporting.terminal import Terminal
from grader.steps import build, suite

MARKUP = "[/x] [bold red]not ours[/]"  # ends rich's markup parser with an error unless escaped
LAB = load_config().lab("01_vector_add")
SKELETON = REPO_ROOT / "labs" / LAB.name / "kernel.cu"
ONE_MB = 1 << 20


def marked_up_grade() -> LabGrade:
    """A lab whose every text field holds markup, as a submission can make each of them."""
    grade = LabGrade(LAB.name, LAB.title, "student", f"{MARKUP}/01_vector_add/kernel.cu")
    grade.checks = [
        Check("build", Category.BUILD, Status.PASSED),
        Check(f"case {MARKUP}", Category.CORRECTNESS, Status.FAILED, f"exception: {MARKUP}\\", f"{MARKUP}\\"),
    ]
    return grade


def printed(render) -> str:
    out = io.StringIO()
    render(Terminal(file=out, width=200))
    return out.getvalue()


def test_markup_in_a_check_a_path_or_a_note_is_printed_as_text():
    grade = marked_up_grade()
    shown = printed(lambda console: report.print_report(console, [grade], None, [f"note {MARKUP}"]))
    assert shown.count("[/x]") >= 4, shown  # the title, the check's name, detail and hint, the note
    solution = LabGrade(LAB.name, LAB.title, "solution", "solutions/01_vector_add/kernel.cu", list(grade.checks))
    beside = printed(lambda console: report.print_report(console, [grade, solution], None, []))
    assert "[/x]" in beside


def test_the_json_and_the_exports_are_written_before_the_terminal_report(monkeypatch, tmp_path):
    """Whatever befalls the terminal report, the results are kept."""
    session = SimpleNamespace(
        notes=[f"ignored: {MARKUP}/notes.txt"],
        files_ignored=[f"{MARKUP}/notes.txt"],
        build=lambda say: SimpleNamespace(gpu=SimpleNamespace(present=False), target=None),
        grade=lambda progress: [marked_up_grade()],
        facts=lambda: {"notes": [f"ignored: {MARKUP}/notes.txt"]},
    )
    monkeypatch.setattr(cli, "start", lambda request: session)
    results, junit = tmp_path / "grade.json", tmp_path / "junit.xml"
    arguments = ["grade", "--json", str(results), "--junit", str(junit)]
    assert cli.main(arguments) == Exit.FAILED  # the lab failed: the report printed, markup and all
    assert MARKUP in results.read_text() and junit.is_file()

    results.unlink()
    junit.unlink()

    def broken(*args) -> None:
        raise RuntimeError("the terminal went away")

    monkeypatch.setattr(report, "print_report", broken)
    monkeypatch.setattr(cli, "ERROR_LOGS", tmp_path)
    assert cli.main(arguments) == Exit.INTERNAL
    assert json.loads(results.read_text())["labs"][0]["lab"] == LAB.name and junit.is_file()


def test_a_long_line_goes_through_the_path_search_in_linear_time():
    line = "TODO not done: " + "[/x]01_vector_add/kernel.c" * (ONE_MB // 26)  # 1 MB without a space
    started = time.perf_counter()
    shown = student_paths(line, LAB, "labs/01_vector_add/kernel.cu")
    assert time.perf_counter() - started < 0.5
    assert len(shown) < DETAIL_LIMIT + 100 and "characters left out" in shown
    # Under the cut, a run without a space: the search is linear, not one pass per character (about 1 s here).
    run = "x" * (DETAIL_LIMIT - 1)
    started = time.perf_counter()
    assert student_paths(run, LAB, "labs/01_vector_add/kernel.cu") == run
    assert time.perf_counter() - started < 0.05


def test_paths_of_the_graded_kernel_are_still_shown_as_the_student_knows_them():
    said = (
        "/tmp/b/01_vector_add/kernel.cu(12): error: x; in '../01_vector_add/kernel.cu' (at ./01_vector_add/kernel.cu:3)"
    )
    assert student_paths(said, LAB, "labs/01_vector_add/kernel.cu") == (
        "labs/01_vector_add/kernel.cu(12): error: x; in 'labs/01_vector_add/kernel.cu' (at labs/01_vector_add/kernel.cu:3)"
    )


def test_a_todo_line_is_shown_only_where_its_text_is_the_skeletons():
    ours = sorted(suite.skeleton_todos(SKELETON))
    assert ours, "the lab 1 skeleton has CML_TODO lines"
    stderr = "\n".join(
        [
            "seed 1 (set CML_SEED=1 to repeat this run's inputs)",
            f"TODO not done: /build/student/01_vector_add/kernel.cu:29: {ours[0]}",
            f"TODO not done: /build/student/01_vector_add/kernel.cu:40: {MARKUP}",
            f"TODO not done: {MARKUP}:41: {ours[0]}",  # a #line names the file: ours are shown by number alone
            "TODO not done: /b/kernel.cu:42: " + "[/x]" * (ONE_MB // 4),
        ]
    )
    started = time.perf_counter()
    shown = suite.shown_todos(suite.printed_todos(stderr), LAB.name, SKELETON)
    assert time.perf_counter() - started < 0.5
    assert shown[0] == f"01_vector_add/kernel.cu:29: {ours[0]}"
    assert shown[2] == f"01_vector_add/kernel.cu:41: {ours[0]}"
    for number, line in ((40, shown[1]), (42, shown[3])):
        assert line.startswith(f"01_vector_add/kernel.cu:{number}: ") and "not the skeleton's" in line
    assert "[/x]" not in str(shown)


def test_a_todo_line_cut_into_by_doctests_report_is_still_found():
    ours = sorted(suite.skeleton_todos(SKELETON))[0]
    stderr = f"test.cpp:70: ERRTODO not done: /b/student/01_vector_add/kernel.cu:29: {ours}\nOR: CHECK( ok )"
    assert suite.shown_todos(suite.printed_todos(stderr), LAB.name, SKELETON) == [f"01_vector_add/kernel.cu:29: {ours}"]


def test_many_todo_lines_of_a_students_own_are_counted_not_listed():
    stderr = "\n".join(f"TODO not done: k/kernel.cu:{line}: mine" for line in range(100))
    shown = suite.shown_todos(suite.printed_todos(stderr), LAB.name, SKELETON)
    assert len(shown) == 6 and shown[-1] == "and 95 more CML_TODO lines"


def test_an_exception_message_is_cut_where_it_becomes_a_cases_message():
    message = "cudaMalloc failed " * 200_000  # 3.6 MB
    xml = REPORT_WITH_EXCEPTION.replace("@MESSAGE@", message)
    (case,) = suite.parse_report(xml)
    assert len(case.message) < proc.MESSAGE_LIMIT + 100 and "characters left out" in case.message
    assert case.message.startswith("exception: cudaMalloc failed")


def test_the_tail_of_a_programs_output_is_cut_too():
    outcome = proc.Outcome(["p"], 1, "", "last words " * 1_000_000, 1.0)
    tail = outcome.tail(3)
    assert len(tail) < proc.MESSAGE_LIMIT + 100 and tail.endswith("last words")


REPORT_WITH_EXCEPTION = """<?xml version="1.0" encoding="UTF-8"?>
<doctest binary="t">
  <TestSuite name="vector_add">
    <TestCase name="throws" filename="t.cpp" line="5">
      <Exception crash="false">@MESSAGE@</Exception>
      <OverallResultsAsserts successes="0" failures="0" test_case_success="false"/>
    </TestCase>
  </TestSuite>
</doctest>
"""

# nvcc's and the assembler's words for a kernel.cu whose host asm .includes a file of the system.
COMPILE_OUTPUT = """\
[1/2] Compiling Cuda object 01_vector_add_student_kernel.p/kernel.cu.o
FAILED: 01_vector_add_student_kernel.p/kernel.cu.o
/usr/local/cuda/bin/nvcc -o 01_vector_add_student_kernel.p/kernel.cu.o -c ../student/01_vector_add/kernel.cu
../student/01_vector_add/kernel.cu(40): error: identifier "undefined_thing" is undefined
    return undefined_thing;
           ^

/etc/ld.so.conf: Assembler messages:
/etc/ld.so.conf:1: Error: no such instruction: `include /etc/ld.so.conf.d'
/usr/include/secret.h:3:1: error: `the third line of another file'
    the third line of another file
ninja: build stopped: subcommand failed.
"""


def test_compile_errors_are_shown_for_the_students_kernel_alone():
    shown = build.compiler_errors(proc.Outcome(["meson"], 1, COMPILE_OUTPUT, "", 60.0))
    assert 'identifier "undefined_thing" is undefined' in shown and "return undefined_thing;" in shown
    assert "ld.so.conf" not in shown and "another file" not in shown
    assert "(5 lines of the compiler's output about files other than kernel.cu not shown)" in shown


def test_compile_errors_about_other_files_only_say_so():
    other = "/etc/ld.so.conf: Assembler messages:\n/etc/ld.so.conf:1: Error: no such instruction: `include x'\n"
    shown = build.compiler_errors(proc.Outcome(["meson"], 1, other, "", 60.0))
    assert "include x" not in shown and "2 lines" in shown


def test_a_program_that_prints_without_end_printed_too_much_and_never_timed_out():
    flood = [sys.executable, "-c", "while True: print('x' * 1000)"]
    started = time.monotonic()
    outcome = proc.run(flood, 120, output_limit=ONE_MB)
    assert time.monotonic() - started < 30  # stopped as it passed the limit, not at its time limit
    assert outcome.printed_too_much and outcome.timed_out  # stopped by the grader: later steps are not run
    assert "printed more than 1 MiB" in outcome.how_it_ended() and "never returns" not in outcome.how_it_ended()


def test_a_program_that_never_returns_still_timed_out():
    outcome = proc.run([sys.executable, "-c", "import time; time.sleep(60)"], 1, output_limit=ONE_MB)
    assert outcome.timed_out and not outcome.printed_too_much and "never returns" in outcome.how_it_ended()


def test_output_under_the_limit_and_bytes_that_are_not_utf8_are_read_as_they_are():
    script = "import sys; sys.stdout.buffer.write(b'ok \\xff\\xfe done\\n' * 1000)"
    outcome = proc.run([sys.executable, "-c", script], 60, output_limit=ONE_MB)
    assert outcome.ok and not outcome.printed_too_much
    assert outcome.stdout.startswith("ok \ufffd\ufffd done")


CHECKER = f"{LAB.name}_checker"


def record(*entries: tuple[bytes, bytes]) -> bytes:
    """A test program's record (common/cml/record.cpp): a tag, a length and that many bytes, for each entry."""
    return b"".join(tag + struct.pack("<Q", len(body)) + body for tag, body in entries)


@pytest.mark.slow
def test_the_checker_reads_no_more_than_a_few_kilobytes_of_a_failure_message(built_tree, config):
    outcome = build.compile_targets(built_tree, [CHECKER], config.timeouts["build"])
    assert outcome.ok, build.compiler_errors(outcome, source=None)
    checker = built_tree.checker(LAB.name)
    first = suite.list_cases(checker, 60)[0].name
    message = b"a student's exception " * 150_000  # 3.3 MB
    with suite.run_folder() as folder:  # where the checker, as nobody where the grader is root, can read it
        folder.chmod(0o711)
        written = folder / "record"
        written.write_bytes(record((b"C", first.encode()), (b"F", message), (b"E", b"")))
        written.chmod(0o644)
        cases = suite.judge(checker, written, 120, {"CML_SEED": "1"})
    failed = next(case for case in cases if case.name == first)
    assert not failed.passed and "a student's exception" in failed.message
    # The checker's report held about 4 kB of it (the grader cut the few characters past MESSAGE_LIMIT), not 3 MB.
    cut = re.search(r"\[\.\.\. (\d+) characters left out", failed.message)
    assert cut is None or int(cut[1]) < 100, failed.message[-200:]
    assert len(failed.message) < proc.MESSAGE_LIMIT + 100


def test_a_folder_name_with_control_characters_still_makes_well_formed_junit(tmp_path):
    grade = marked_up_grade()
    grade.kernel_path = "alice\x01\x1b[31m/01_vector_add/kernel.cu"
    run = report.run_dict([grade], {})
    write_junit(read_grade(run), tmp_path / "junit.xml")
    properties = ET.parse(tmp_path / "junit.xml").getroot().iter("property")
    assert {p.get("name"): p.get("value") for p in properties}["kernel_path"] == "alice/01_vector_add/kernel.cu"
