"""A lab's grade in a few lines, the first a student reads on the terminal: the verdict and points, the cause
(causes.cause: the failure to mend first) with the first lines of what was seen and the file:line it points to,
its hint, the command that shows it again on the same inputs, and how many other checks did not pass; under a
counter check about memory, the picture of one warp's request (access_text). At 80 columns one failing lab's brief
fits well inside a screen of 25 lines, 40 with that picture; the table of every check is behind `./cml grade
--table`.

Every line is a (Text, soft) pair: soft lines are never broken by rich (a location or a command cut at the
edge cannot be clicked or pasted; the terminal wraps it whole), the others are wrapped at the terminal's width.
Nothing here is markup: details, hints and commands hold what the student wrote."""

from __future__ import annotations

from rich.text import Text

from grader.core.model import LabGrade, Status
from grader.reporting import access_text, causes
from grader.reporting.score import verdict
from grader.reporting.terminal import one_line

DETAIL_CHARS = 150  # a detail line cut here: two rows of 80 columns at most (the location has a line of its own)
TAIL_CHARS = 20  # a parenthesis this short at a cut line's end is kept: where the check ran, "(CPU emulator)"
VERDICT_STYLE = {"passed": "bold green", "failed": "bold red", "incomplete": "bold yellow"}
Line = tuple[Text, bool]


def heading(grade: LabGrade) -> Text:
    """'Lab 01_vector_add · Vector add: coalescing: failed · 45.0 / 100 points'."""
    said = verdict(grade)
    label = grade.lab if grade.variant == "student" else f"{grade.lab} ({grade.variant})"
    text = Text(one_line(f"Lab {label} · {grade.title}: "), style="bold")
    text.append(said, style=VERDICT_STYLE.get(said, "bold red"))
    text.append(f" · {grade.points:.1f} / {grade.max_points:.0f} points")
    if grade.ungraded_points:
        text.append(f" · {grade.ungraded_points:.1f} not graded here")
    return text


def cut(line: str, limit: int = DETAIL_CHARS) -> str:
    """The line, or its start and its last short parenthesis (where a check says "(CPU emulator)"), within limit."""
    if len(line) <= limit:
        return line
    mark = line.rfind(" (")
    tail = line[mark:] if line.endswith(")") and 0 < len(line) - mark <= TAIL_CHARS else ""
    return line[: limit - 3 - len(tail)] + "..." + tail


def cause_lines(grade: LabGrade) -> list[Line]:
    """The cause, what was seen, where, its hint and the replay command; nothing where no check failed."""
    cause = causes.cause(grade.checks)
    if cause is None:
        return []
    lines: list[Line] = [(Text("cause: ", style="bold red") + Text(one_line(cause.name), style="bold"), False)]
    lines += [(Text(f"  {cut(one_line(causes.short_locations(line)))}"), False) for line in causes.seen(cause)]
    place = causes.location(cause)
    if place:
        lines.append((Text(f"at {one_line(place)}"), True))
    hint = causes.split_hint(cause.hint)[0]
    if hint:
        lines.append((Text(f"hint: {one_line(hint)}", style="cyan"), True))
    command = causes.replay(grade.checks, grade.lab, grade.seed)
    if command:
        lines.append((Text("see it again, on the same inputs:"), False))
        lines.append((Text(f"  {one_line(command)}"), True))
    if cause.access is not None:  # a counter check about memory: the warp's request, drawn (80 columns at most)
        lines += [(line, True) for line in access_text.figure(cause.access)]
    return lines


def others_line(grade: LabGrade) -> list[Line]:
    """How many more checks did not pass, and where every check is listed; nothing where all passed."""
    cause = causes.cause(grade.checks)
    counts = {
        "more failed" if cause else "failed": sum(c.status is Status.FAILED for c in grade.checks) - bool(cause),
        "withheld": sum(c.status is Status.WITHHELD for c in grade.checks),
        "not run here": sum(c.status is Status.NOT_RUN for c in grade.checks),
    }
    said = [f"{count} {what}" for what, count in counts.items() if count]
    if not said:
        return []
    table = f"./cml grade --lab {causes.lab_option(grade.lab)} --seed {grade.seed} --table"
    return [(Text(one_line(f"also: {', '.join(said)} (every check: {table})"), style="dim"), True)]


def lab_brief(grade: LabGrade) -> list[Line]:
    return [(heading(grade), False), *cause_lines(grade), *others_line(grade)]


def said_in_brief(grade: LabGrade) -> set[str]:
    """The cause's location, hint and replay command, which the brief shows: a table's notes need not again."""
    cause = causes.cause(grade.checks)
    if cause is None:
        return set()
    said = {
        causes.location(cause),
        causes.split_hint(cause.hint)[0],
        causes.replay(grade.checks, grade.lab, grade.seed),
    }
    return {text for text in said if text}
