"""Showing grades: a table per lab and a summary on the terminal (rich), and JSON for scripts.

Every text of a run is printed as text, never as rich markup: details, hints, paths and notes hold what the
student wrote (a compile error's line, a TODO, a submission's folder name), and a stray "[/x]" in markup ends
the report with an error. It is printed on a Terminal (grader/reporting/terminal.py), the one place where every
control character of it is made visible, and a name (a path, a file, a kernel, a note, a hint) is kept on one line
(one_line), so that nothing a student wrote can start a line of the report's, such as its score. The JSON keeps
each text as it was: it is data, for what reads it to show safely.

Each lab opens with what to mend first, in a few lines that fit the first screen at 80 columns: the verdict, the
cause (grader/reporting/causes.py chooses it, for every output alike) with the file:line it points to, its hint,
and the command that runs the first failed case again. The table of every check, in the same order, follows with
--table (full=True). Hints, replay commands and file:line locations go on lines of their own that rich never
wraps (soft_wrap): a command or a location cut at a cell's edge cannot be pasted or clicked. In the cells a
location is shortened to its file name and line, short enough never to be cut."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Collection
from enum import Enum
from pathlib import Path

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from grader.core import atomic
from grader.core.config import REPO_ROOT, Target
from grader.core.model import EMULATOR_LIMIT, NOT_SUBMITTED, Check, LabGrade, Status
from grader.reporting import access_text
from grader.reporting.causes import LOCATION, cause, lab_option, ordered, short_locations, split_hint
from grader.reporting.lab_brief import lab_brief, said_in_brief
from grader.reporting.score import verdict
from grader.reporting.terminal import Terminal, one_line
from grader.steps import resources

STYLE = {
    Status.PASSED: "green",
    Status.FAILED: "bold red",
    Status.NOT_RUN: "yellow",
    Status.SKIPPED: "dim",
    Status.WITHHELD: "magenta",
    Status.NOT_GRADED: "dim",
    "passed": "bold green",
    "failed": "bold red",
    "incomplete": "bold yellow",
    EMULATOR_LIMIT: "bold yellow",
    NOT_SUBMITTED: "bold red",
}
# sha256 of each lab's skeleton as shipped (sha256sum's lines: digest, two spaces, labs/NN_name/kernel.cu). A
# lab graded from these very bytes gets one line, not a table of the failures every untouched skeleton has.
SKELETON_DIGESTS = REPO_ROOT / "grader" / "skeletons.sha256"


def _styled(value) -> str:
    text = value.value if isinstance(value, Enum) else value
    return f"[{STYLE[value]}]{text}[/]"


def _detail(check: Check) -> str:
    """A check's detail as markup, escaped, each file:line cut to its file name: the full ones, the hint and the
    replay command are printed under the table (lab_notes)."""
    return escape(short_locations(check.detail))


def lab_notes(grade: LabGrade, said: Collection[str] = ()) -> list[Text]:
    """What a lab's failures point to, each once and in the order of the failures: the file:line locations their
    details name, the hints, and the commands that run a failed case again on the same inputs; but what `said`
    holds (what the lab's brief showed already)."""
    places: dict[str, None] = {}
    hints: dict[str, None] = {}
    replays: dict[str, None] = {}
    for check in ordered(grade.checks):
        if check.status is not Status.FAILED:
            continue
        places.update(dict.fromkeys(m[0] for m in LOCATION.finditer(check.detail) if m[0] not in said))
        hint, commands = split_hint(check.hint)
        hints.update(dict.fromkeys([hint] if hint and hint not in said else []))
        replays.update(dict.fromkeys(command for command in commands if command not in said))
    lines = [Text(f"at {one_line(place)}") for place in places]
    lines += [Text(f"hint: {one_line(hint)}", style="cyan") for hint in hints]
    if replays:
        lines.append(Text("run a failed case again on the same inputs:"))
        lines += [Text(f"  {one_line(command)}") for command in replays]
    return lines


def print_notes(console: Terminal, grade: LabGrade, said: Collection[str] = ()) -> None:
    # soft_wrap: never broken by rich at any width; the terminal wraps a long line without cutting the text.
    for line in lab_notes(grade, said):
        console.print(line, soft_wrap=True, highlight=False)


def print_lines(console: Terminal, lines: list[Text]) -> None:
    """Lines laid out already (80 columns at most), never wrapped again by rich."""
    for line in lines:
        console.print(line, soft_wrap=True, highlight=False)


def print_pictures(console: Terminal, grade: LabGrade) -> None:
    """The picture of each failed counter check about memory but the cause's, which the brief drew already."""
    first = cause(grade.checks)
    for check in ordered(grade.checks):
        if check.status is Status.FAILED and check.access is not None and check is not first:
            console.print(Text(one_line(f"{check.name}:"), style="bold"), soft_wrap=True, highlight=False)
            for line in access_text.figure(check.access):
                console.print(line, soft_wrap=True, highlight=False)


def resource_lines(grade: LabGrade) -> list[str]:
    """The compiler's resource report of the graded kernel.cu, a line per kernel (a bounded count), or why there is
    none; nothing where the build failed before it was read."""
    if not grade.resources and not grade.resources_problem:
        return []
    report = resources.ResourceReport(grade.resources, grade.resources_problem)
    return ["the compiler's resources, per kernel:", *(f"  {line}" for line in resources.summary(report))]


def print_resources(console: Terminal, grade: LabGrade) -> None:
    """Wrapped at the terminal's width, unlike a replay command: a kernel's name can be long, and no one copies it."""
    for line in resource_lines(grade):
        console.print(escape(one_line(line)), highlight=False, style="dim")


def lab_table(grade: LabGrade) -> Table:
    title = escape(one_line(f"Lab {grade.lab} · {grade.title} · {grade.variant}: {grade.kernel_path}"))
    table = Table(title=title, title_justify="left", show_lines=False, expand=True)
    table.add_column("check", ratio=3)
    table.add_column("category")
    table.add_column("result", no_wrap=True)
    table.add_column("detail", ratio=5, overflow="fold")
    for check in ordered(grade.checks):
        table.add_row(
            escape(one_line(check.name)), check.category.value, _styled(check.status), _detail(check), end_section=False
        )
    table.caption = f"{_styled(verdict(grade))} · {grade.points:.1f} / {grade.max_points:.0f} points" + (
        f" · {grade.ungraded_points:.1f} not graded here" if grade.ungraded_points else ""
    )
    table.caption_justify = "left"
    return table


def compare_table(yours: LabGrade, solution: LabGrade) -> Table:
    """One lab, your kernel beside the reference solution's: each check's result in two columns."""
    title = escape(one_line(f"Lab {yours.lab} · {yours.title}: {yours.kernel_path}, beside the reference solution"))
    table = Table(title=title, title_justify="left", expand=True)
    table.add_column("check", ratio=3)
    table.add_column("yours", no_wrap=True)
    table.add_column("solution", no_wrap=True)
    table.add_column("detail (yours)", ratio=5, overflow="fold")
    theirs = {check.name: check for check in solution.checks}
    for check in ordered(yours.checks):
        other = theirs.get(check.name)
        table.add_row(
            escape(one_line(check.name)), _styled(check.status), _styled(other.status) if other else "-", _detail(check)
        )
    table.caption = (
        f"yours: {_styled(verdict(yours))} · {yours.points:.1f} / {yours.max_points:.0f} points;  "
        f"the solution: {_styled(verdict(solution))} · {solution.points:.1f} / {solution.max_points:.0f}"
    )
    table.caption_justify = "left"
    return table


def _bench_cells(grade: LabGrade, target: Target | None) -> list[str]:
    """Speedup (with its threshold), rate and fraction of copy, one line per benchmark group."""
    cells: list[list[str]] = [[], [], []]
    thresholds = target.for_lab(grade.lab) if target else {}
    for rates in grade.rates:
        student = grade.bench.kernel("student", rates.group) if grade.bench else None
        label = f"{escape(rates.group)}: " if rates.group else ""
        if student is None or rates.speedup is None:
            why = (
                "wrong result"
                if not rates.correct
                else "time not trusted"
                if student and student.problems
                else "no time"
            )
            cells[0].append(f"{label}{why}")
            cells[1].append("-")
            cells[2].append("-")
            continue
        speedup = f"{label}x{rates.speedup:.2f}"
        limit = thresholds[rates.group].min_speedup if rates.group in thresholds else None
        if limit is not None:
            speedup += f" (≥ x{limit:g})"
        cells[0].append(speedup)
        cells[1].append(f"{student.gflops:.0f} GFLOP/s" if student.gflops else f"{student.gbps:.0f} GB/s")
        cells[2].append(f"{rates.copy_fraction:.2f}" if rates.copy_fraction is not None else "-")
    return ["\n".join(column) or "-" for column in cells]


def summary_table(grades: list[LabGrade], target: Target | None) -> Table:
    table = Table(title="Summary", title_justify="left")
    for column in ("lab", "variant", "verdict", "points", "speedup", "rate", "of copy"):
        table.add_column(column)
    for grade in grades:
        table.add_row(
            escape(one_line(grade.lab)),
            escape(one_line(grade.variant)),
            _styled(verdict(grade)),
            f"{grade.points:.1f} / {grade.max_points:.0f}",
            *_bench_cells(grade, target),
        )
    return table


def shipped_skeletons(path: Path = SKELETON_DIGESTS) -> dict[str, str]:
    """lab -> the sha256 of its skeleton as shipped; none where the list cannot be read."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return {}
    return {Path(name.strip()).parent.name: digest for digest, _, name in (line.partition("  ") for line in lines)}


def untouched(grade: LabGrade, skeletons: dict[str, str]) -> bool:
    """Whether a student's lab was graded from its skeleton as shipped, byte for byte."""
    if grade.variant != "student" or grade.lab not in skeletons:
        return False
    try:
        return hashlib.sha256(Path(grade.kernel_path).read_bytes()).hexdigest() == skeletons[grade.lab]
    except OSError:
        return False


def print_brief(console: Terminal, grade: LabGrade) -> None:
    for line, soft in lab_brief(grade):
        console.print(line, soft_wrap=soft, highlight=False)


def print_report(
    console: Terminal, grades: list[LabGrade], target: Target | None, notes: list[str], full: bool = False
) -> None:
    """Each lab's brief (lab_brief: the verdict, the cause, its hint and replay), then, with `full` (--table), a
    table of every check per lab, and with --compare yours beside the solution's; then the summary, and the score
    of each variant graded: a student's and a solution's points are never added together. A lab still the
    skeleton as shipped gets one line instead in a run of several labs, which then ends by pointing to one lab:
    that lab's own run shows its brief, whose hints name the TODOs."""
    solutions = {g.lab: g for g in grades if g.variant == "solution"}
    compared = any(g.variant == "student" for g in grades) and solutions
    skeletons = shipped_skeletons()
    several = len({g.lab for g in grades}) > 1
    fresh = [g for g in grades if several and untouched(g, skeletons)]
    for grade in grades:
        if grade in fresh:
            line = f"Lab {grade.lab} · {grade.title}: the skeleton as shipped, untouched ({grade.kernel_path}): {grade.points:.1f} / {grade.max_points:.0f}"
            console.print(escape(one_line(line)), soft_wrap=True)
            continue
        if compared and grade.variant == "solution":
            continue  # the solution's side, shown in the student's table
        print_brief(console, grade)
        if compared and grade.lab in solutions:
            console.print(compare_table(grade, solutions[grade.lab]))
            print_notes(console, grade, said_in_brief(grade))
        print_resources(console, grade)
        console.print()
    if full and not compared:
        for grade in (g for g in grades if g not in fresh):
            console.print(lab_table(grade))
            print_notes(console, grade, said_in_brief(grade))
            print_pictures(console, grade)
            console.print()
    console.print(summary_table(grades, target))
    for variant in dict.fromkeys(g.variant for g in grades):
        mine = [g for g in grades if g.variant == variant]
        label = (
            "Score" if len(solutions) in (0, len(grades)) else "Your score" if variant == "student" else "The solution"
        )
        console.print(f"[bold]{label}: {sum(g.points for g in mine):.1f} / {sum(g.max_points for g in mine):.0f}[/]")
    for note in notes:
        console.print(f"[yellow]{escape(one_line(note))}[/]")
    if fresh:
        first = lab_option(fresh[0].lab)
        console.print(
            f"[bold]{len(fresh)} of these labs are still their skeletons. Start with one lab and its handout: "
            f"./cml grade --lab {escape(first)}[/]",
            soft_wrap=True,
        )


# How many of a submission's ignored files the terminal names; the rest are counted.
IGNORED_SHOWN = 8


def ignored_lines(ignored: list[str], shown: int = IGNORED_SHOWN) -> list[str]:
    """One short block naming the files of a submission that were not graded (only each lab's kernel.cu is):
    the first `shown` of them, then how many more; none when nothing was ignored."""
    if not ignored:
        return []
    lines = [f"Ignored in the submission ({len(ignored)} file(s); only each lab's kernel.cu is graded):"]
    lines += [f"  {one_line(name)}" for name in ignored[:shown]]
    if len(ignored) > shown:
        lines.append(f"  ... and {len(ignored) - shown} more (all of them in the JSON's files_ignored)")
    return lines


def print_ignored(console: Terminal, ignored: list[str]) -> None:
    for line in ignored_lines(ignored):
        console.print(Text(line), soft_wrap=True, highlight=False)  # names are the student's: never markup


def _plain(value):
    if isinstance(value, Enum):
        return value.value
    raise TypeError(f"not JSON: {value!r}")


def run_dict(grades: list[LabGrade], context: dict, target: Target | None = None) -> dict:
    """The run as plain data: what the JSON file holds and what the exports (grader/reporting/export) read. A run of the
    student's kernels beside the solutions' (--compare) is two records, never one sum of both scores: the
    student's grade, which every export shows, and the solution's under "solution", with its own score."""

    def thresholds(lab: str) -> dict:
        return {group: dataclasses.asdict(t) for group, t in target.for_lab(lab).items()} if target else {}

    def record(mine: list[LabGrade]) -> dict:
        return {
            "labs": [{**dataclasses.asdict(g), "verdict": verdict(g), "thresholds": thresholds(g.lab)} for g in mine],
            "score": sum(g.points for g in mine),
            "max_score": sum(g.max_points for g in mine),
        }

    students = [g for g in grades if g.variant == "student"]
    solutions = [g for g in grades if g.variant == "solution"]
    run = {**context, **record(grades)}
    if students and solutions:
        run = {**context, **record(students), "solution": record(solutions)}
    return json.loads(json.dumps(run, default=_plain))


def ungraded_run(context: dict, max_score: float, why: str) -> dict:
    """A run in which nothing could be graded (an unreadable submission, a build that cannot be set up):
    0 points out of the labs' maximum, with the reason among the notes, so that every platform shows it."""
    return {**context, "labs": [], "score": 0.0, "max_score": max_score, "notes": [*context.get("notes", []), why]}


def save_run(path: Path, run: dict) -> None:
    """The run's JSON, written whole or not at all: what was there before stays until it is replaced."""
    atomic.write_text(path, json.dumps(run, indent=2) + "\n")


def write_json(path: Path, grades: list[LabGrade], context: dict, target: Target | None = None) -> dict:
    run = run_dict(grades, context, target)
    save_run(path, run)
    return run


def write_stopped_json(
    path: Path, grades: list[LabGrade], context: dict, target: Target | None, max_score: float, why: str
) -> dict:
    """A run stopped before its end: the labs it finished, out of the points of every lab it was asked for (a
    stopped run never looks whole), and why, among the notes, with the labs it did not grade."""
    run = {**run_dict(grades, context, target), "max_score": max_score}
    run["notes"] = [*run.get("notes", []), why]
    save_run(path, run)
    return run
