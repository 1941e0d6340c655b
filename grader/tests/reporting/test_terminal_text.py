"""Student text on the terminal: file names in a submission, a compiler's message, what a program printed, the
details of checks. A terminal obeys the control characters in what it is sent, so none of the student's reaches
it: every one is shown as its escape, and a name keeps to its line, so that nothing the student wrote can clear the
screen, draw a score, set the window's title, write the reader's clipboard or reverse the text. The JSON keeps the
text as it was."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import unicodedata

import pytest
from rich.progress import Progress, TextColumn
from rich.table import Table
from rich.text import Text

from grader.core.model import Category, Check, LabGrade, Status
from grader.execution import proc
from grader.grading.submission import SubmissionError, read_submission
from grader.reporting import report
from grader.reporting.terminal import Terminal, one_line, visible
from grader.steps import build

FORGED = "Score: 100.0 / 100"
# What a submission drew on the terminal of the grader that showed it, each in its own form.
SEQUENCES = {
    "a clear screen and a green score": f"\x1b[2J\x1b[H\x1b[1;32m{FORGED}\x1b[0m",
    "the clipboard (OSC 52)": "\x1b]52;c;cm0gLXJmIH4vKgo=\x07",
    "the window's title": "\x1b]0;all tests passed\x1b\\",
    "a carriage return": f"\r{FORGED}",
    "a newline": f"\n{FORGED}",
    "backspaces": f"0.0\x08\x08\x08{FORGED}",
    "the 8-bit CSI": "\x9b2J\x9bH",
    "a cursor moved up a line": f"\x1b[1A\x1b[2K{FORGED}",
    "hidden text": "\x1b[8mhidden\x1b[28m",
    "a bidirectional override": "\u202e001 / 0.001 :erocS\u202c",
    "invisible characters": "a\u200bb\u2060c\U000e0041",
    "a line separator": f"x\u2028{FORGED}",
    "a lone surrogate": "\udce2",
}
HOSTILE = "".join(SEQUENCES.values())
SGR = re.compile(r"\x1b\[[0-9;]*m")  # rich's own colours: the only escape sequences a report may hold
# What rich sends of its own: colours, hyperlinks (a log line's source), and its live display's cursor moves.
RICH_OWN = re.compile(r"\x1b\[[0-9;]*[mAK]|\x1b\[\?25[lh]|\r|\x1b\]8;[^\x07\x1b]*\x1b\\")
# What of SEQUENCES rich never sends, so that each tells the student's from rich's own.
STUDENTS_OWN = [
    "\x1b[2J",
    "\x1b[H",
    "\x1b]52;",
    "\x1b]0;",
    "\x9b",
    "\x08",
    "\r" + FORGED,
    "\x1b[8m",
    "\u202e",
    "\u200b",
]


def raw_controls(text: str) -> list[str]:
    """The control and invisible characters in `text` but line breaks and rich's own colours."""
    found = SGR.sub("", text)
    return sorted({c for c in found if c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs")})


def printed(render, colours: bool) -> str:
    out = io.StringIO()
    console = Terminal(file=out, width=160, force_terminal=colours, color_system="truecolor" if colours else None)
    render(console)
    return out.getvalue()


def hostile_grade(detail: str) -> LabGrade:
    grade = LabGrade("01_vector_add", "Vector add", "student", f"alice{HOSTILE}/01_vector_add/kernel.cu")
    grade.max_points = 100.0
    grade.checks = [
        Check("build", Category.BUILD, Status.FAILED, detail, f"fix alice{HOSTILE}/01_vector_add/kernel.cu"),
        Check(f"case {HOSTILE}", Category.CORRECTNESS, Status.FAILED, f"exception: {HOSTILE}", f"hint {HOSTILE}"),
    ]
    return grade


def whole_report(grade: LabGrade, console: Terminal) -> None:
    report.print_report(console, [grade], None, [f"note {HOSTILE}"])
    report.print_ignored(console, [f"{name}{sequence}.txt" for name, sequence in SEQUENCES.items()])


@pytest.mark.parametrize("colours", [True, False], ids=["a terminal", "a log"])
def test_no_control_character_of_a_name_or_a_message_reaches_the_terminal(colours):
    shown = printed(lambda console: whole_report(hostile_grade(f"error: {HOSTILE}"), console), colours)
    assert raw_controls(shown) == []
    assert "\\x1b]52;c;cm0gLXJmIH4vKgo=\\x07" in shown and "\\u202e" in shown  # shown, as its escapes
    if not colours:
        assert "\x1b" not in shown


def test_no_score_can_be_drawn_at_the_start_of_a_line():
    shown = printed(lambda console: whole_report(hostile_grade(f"error: {HOSTILE}"), console), colours=False)
    lines = shown.splitlines()
    assert "Score: 0.0 / 100" in lines  # the report's own
    assert not [line for line in lines if line.startswith(FORGED)], shown
    assert "\r" not in shown


def test_a_hash_error_line_from_nvcc_reaches_the_report_as_text(tmp_path):
    """nvcc quotes the #error line, and its message, byte for byte."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("needs nvcc")
    source = tmp_path / "student" / "01_vector_add" / "kernel.cu"
    source.parent.mkdir(parents=True)
    source.write_text(
        f'#error "{SEQUENCES["a clear screen and a green score"]}{SEQUENCES["the clipboard (OSC 52)"]}"\n'
    )
    ran = subprocess.run([nvcc, "-c", str(source), "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    detail = build.compiler_errors(proc.Outcome(["nvcc"], ran.returncode, ran.stdout, ran.stderr, 60.0))
    assert "\x1b]52;c;" in detail and "#error" in detail  # the compiler's words, as the grader keeps them
    grade = hostile_grade(detail)
    assert raw_controls(printed(lambda console: report.print_report(console, [grade], None, []), colours=True)) == []
    # The JSON keeps what the compiler said: it is data, for what reads it to show safely.
    assert report.run_dict([grade], {})["labs"][0]["checks"][0]["detail"] == detail


def everything(text: str, console: Terminal) -> None:
    """`text` printed every way rich prints: markup, Text, a table's title, header and cell, a log line, a rule, and
    a progress bar's description (drawn by rich's Live display, with cursor moves of its own)."""
    table = Table(title=f"title {text}")
    table.add_column(f"column {text}")
    table.add_row(Text(f"cell {text}"))
    console.print(table)
    console.print(Text(text), soft_wrap=True)
    console.print(text, markup=False)
    console.log(text)
    console.rule(text)
    with Progress(TextColumn("{task.description}"), console=console, auto_refresh=False) as bar:
        bar.add_task(text.replace("[", "\\["))
        bar.refresh()


def test_every_way_rich_prints_text_goes_through_the_terminal():
    """Whatever prints the text, the student's sequences are shown, never sent; the only ones sent are rich's own,
    of the kinds it sends for plain text too (colours, links, the live display's cursor moves)."""
    shown = printed(lambda console: everything(HOSTILE, console), colours=True)
    assert [marker for marker in STUDENTS_OWN if marker in shown] == []
    assert raw_controls(RICH_OWN.sub("", shown)) == []
    assert raw_controls(RICH_OWN.sub("", printed(lambda console: everything("plain", console), colours=True))) == []


def test_visible_is_one_pass_over_any_text_and_idempotent():
    text = HOSTILE * 20_000  # 4.7 MB
    shown = visible(text)
    assert visible(shown) == shown and one_line(one_line(text)) == one_line(text)
    assert "\n" in shown and "\n" not in one_line(text)
    assert visible("tab\tand é, ü, 中文, emoji 🎉") == "tab\tand é, ü, 中文, emoji 🎉"


def test_a_refused_submissions_reason_keeps_each_name_on_its_line(tmp_path):
    folder = tmp_path / "submission" / f"x\n{FORGED}\n"
    folder.mkdir(parents=True)
    (folder / "kernel.cu").write_text("int nothing;\n")
    with pytest.raises(SubmissionError) as refused:
        read_submission(tmp_path / "submission", ["01_vector_add"])
    assert "\n" not in str(refused.value) and f"x\\n{FORGED}" in str(refused.value)
