"""The first screen a student reads at 80 columns, piped or not: COLUMNS is honoured where the output is no
terminal (a pipe, a log), and one failing lab's verdict, cause with its line, hint and replay command come within
its first 25 rows, before anything else of the report; the table of every check is behind --table."""

from __future__ import annotations

import io
import math
import re

import pytest

from grader import cli
from grader.reporting import lab_brief, report
from grader.reporting.terminal import UNMEASURED_WIDTH, Terminal, terminal_width
from grader.tests.support.classic_bugs import BUGS

SCREEN_ROWS, COLUMNS = 25, 80
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# What command_grade prints before the report, at worst: a note of three rows (no sandbox here) and the GPU's line.
BEFORE_THE_REPORT = 4
NO_GPU = (
    "No GPU (nvidia-smi not found: this machine has no NVIDIA driver): the tests, sanitizers and counters ran on "
    "the CPU emulator (common/emu), each such check marked '(CPU emulator)'; the speed checks are 'not run'."
)


def test_columns_is_honoured_where_the_output_is_piped(monkeypatch):
    piped = io.StringIO()
    monkeypatch.setenv("COLUMNS", "80")
    assert terminal_width(piped) == 80
    monkeypatch.setenv("COLUMNS", "wide")
    assert terminal_width(piped) == UNMEASURED_WIDTH
    monkeypatch.delenv("COLUMNS")
    assert terminal_width(piped) == UNMEASURED_WIDTH


def test_the_command_line_lays_its_output_out_at_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    seen: dict[str, int] = {}

    def run_command(args, console, errors):
        seen.update(out=console.width, errors=errors.width)
        return 0

    monkeypatch.setattr(cli, "run_command", run_command)
    assert cli.main(["list"]) == 0
    assert seen == {"out": 80, "errors": 80}  # pytest captures both: neither is a terminal


def screen_rows(text: str) -> list[str]:
    """The rows a screen of COLUMNS shows of `text`: a longer line is wrapped by the terminal."""
    rows = []
    for line in ANSI.sub("", text).splitlines():
        rows += [line[at : at + COLUMNS] for at in range(0, max(1, math.ceil(len(line) / COLUMNS)) * COLUMNS, COLUMNS)]
    return rows


@pytest.mark.parametrize("piped", [True, False], ids=["piped", "terminal"])
@pytest.mark.parametrize("bug", BUGS, ids=[bug.name for bug in BUGS])
def test_one_failing_labs_verdict_cause_hint_and_replay_fit_its_first_screen(bug, piped, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(COLUMNS))
    out = io.StringIO()
    width = terminal_width(out)
    console = Terminal(file=out, width=width, force_terminal=not piped, color_system=None if piped else "standard")
    grade = bug.grade()
    report.print_report(console, [grade], None, [NO_GPU])
    rows = screen_rows(out.getvalue())
    first = "\n".join(rows[: SCREEN_ROWS - BEFORE_THE_REPORT])
    said = " ".join(first.split())  # as one text, however the screen wrapped it
    assert "failed" in rows[0] + rows[1] and f"Lab {grade.lab}" in rows[0], first
    assert f"cause: {bug.cause}" in said, first
    if bug.place:
        assert bug.place in said, first
    assert "hint: " in said, first
    assert "see it again, on the same inputs: ./cml" in said and "--seed 20261123" in said, first
    assert "┏" not in "\n".join(rows[: rows.index(next(r for r in rows if "Summary" in r))]), first  # no table before


def test_every_check_is_in_a_table_with_the_table_option():
    grade = BUGS[0].grade()
    out = io.StringIO()
    report.print_report(Terminal(file=out, width=COLUMNS, color_system=None), [grade], None, [], full=True)
    text = out.getvalue()
    assert text.index("cause: memcheck") < text.index("┏")  # the brief first, then the table
    assert all(check.name.split()[0] in text for check in grade.checks)


def test_a_long_line_of_the_cause_is_cut_keeping_where_it_ran():
    line = "1 of 1 elements wrong; first at index 0: got -nan, want 1.8417666 (never written: still holds " * 2
    cut = lab_brief.cut(line + "(CPU emulator)")
    assert len(cut) == lab_brief.DETAIL_CHARS and cut.endswith("... (CPU emulator)")
    assert lab_brief.cut("short (CPU emulator)") == "short (CPU emulator)"
