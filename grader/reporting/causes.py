"""The order of a lab's checks in every output a student reads (the terminal, the HTML page, Gradescope's
results.json, JUnit XML and a class's CSV), and which failure is the cause: the one to mend first.

A build error stops everything after it; a sanitizer's finding names the line that explains the wrong results
and the launch errors the tests then report (an access out of bounds ends the GPU context, and the next error
check, usually the launcher's, reports it at its own line); memcheck's finding comes before racecheck's, since a
write out of bounds can land in shared memory and make hazards of its own. Then the tests that failed, the other
required checks, and last what is optional (a stretch goal, worth no points). Checks that did not fail keep the
order they came in."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from grader.core.model import Category, Check, Status
from grader.steps.sanitize import SANITIZERS

Item = TypeVar("Item", bound=Check)  # a check as graded, or as read back from a grade's JSON

# file:line or file:line:column of a source file, with any folders before it.
LOCATION = re.compile(r"(?:[\w.+-]*/)*([\w.+-]+\.(?:cu|cuh|cpp|hpp|h|cc|c)):(\d+(?::\d+)?)")
STUDENT_FILE = "kernel.cu"  # the file a student edits: a location in it is the one to show first
REPLAY = re.compile(r"(?:^|\n)replay: ")  # where a failed case's hint gives the command that runs it again
NOT_FAILED = 9  # the rank of every check that did not fail
SEEN_LINES = 3  # of a cause's detail: a sanitizer's summary, its finding and where; a test's wrong element


def sanitizer(check: Check) -> str | None:
    """The compute-sanitizer tool a check is named after ('memcheck: no access ...'), or None."""
    tool = check.name.split(":")[0].strip()
    return tool if tool in SANITIZERS else None


def rank(check: Check) -> int:
    """Where a check comes in its lab's order: the lower, the sooner (the module's help says why)."""
    if check.status is not Status.FAILED:
        return NOT_FAILED
    if check.category is Category.BUILD:
        return 0
    tool = sanitizer(check)
    if tool is not None and check.category is not Category.STRETCH:
        return 1 + SANITIZERS.index(tool)
    if check.category is Category.CORRECTNESS:
        return 1 + len(SANITIZERS)
    return 2 + len(SANITIZERS) if check.category is not Category.STRETCH else 3 + len(SANITIZERS)


def ordered(checks: Sequence[Item]) -> list[Item]:
    """The failed checks first, the cause first of all; the others as they came."""
    return sorted(checks, key=rank)


def cause(checks: Sequence[Item]) -> Item | None:
    """The failure to mend first; None where nothing failed."""
    first = ordered(checks)[:1]
    return first[0] if first and first[0].status is Status.FAILED else None


def seen(check: Check, lines: int = SEEN_LINES) -> list[str]:
    """The first lines of what a check saw (its detail), blank lines left out."""
    return [line.strip() for line in check.detail.splitlines() if line.strip()][:lines]


def locations(text: str) -> list[str]:
    """Every file:line in `text`, in its order, each once: the student's kernel.cu first, then the others (a
    sanitizer's report can name a header of the toolkit's or the emulator's beside it)."""
    files = {match[0]: match[1] for match in LOCATION.finditer(text)}  # each place, and its file's name
    return sorted(files, key=lambda place: files[place] != STUDENT_FILE)


def short_locations(text: str) -> str:
    """`text` with each file:line cut to its file name and line: short enough for a cell or a wrapped line, where
    a long path could be broken in two (the whole one has a line of its own)."""
    return LOCATION.sub(lambda match: f"{match[1]}:{match[2]}", text)


def location(check: Check) -> str | None:
    """Where the check points in the source: the first file:line of its detail (a sanitizer's report, a compile
    error, an exception), else of its hint (a TODO the run reached); None where it names none."""
    for text in (check.detail, split_hint(check.hint)[0]):
        places = locations(text)
        if places:
            return places[0]
    return None


def split_hint(hint: str) -> tuple[str, list[str]]:
    """A check's hint without its replay commands, and those commands."""
    text, *replays = REPLAY.split(hint)
    return text.strip(), [replay.strip() for replay in replays if replay.strip()]


def lab_option(lab: str) -> str:
    """How --lab names a lab: its number, '01_vector_add' -> '1'."""
    number = lab.split("_")[0]
    return (number.lstrip("0") or number) if number.isdigit() else lab


def replay(checks: Sequence[Check], lab: str, seed: int | None) -> str | None:
    """The command that shows the cause again on the same inputs: a sanitizer's finding, that sanitizer over the
    student's own test program (./cml run, on the machine's GPU or its CPU emulator, as the grade ran it);
    else the command of the first failed case that has one. None where there is neither."""
    first = cause(checks)
    tool = sanitizer(first) if first is not None else None
    if tool and seed is not None:
        return f"./cml run --lab {lab_option(lab)} --seed {seed} --check {tool}"
    for check in ordered(checks):
        commands = split_hint(check.hint)[1] if check.status is Status.FAILED else []
        if commands:
            return commands[0]
    return None


def summary(check: Check) -> str:
    """The cause in one line, for a cell or a heading: its name, and where it points."""
    place = location(check)
    return f"{check.name} (at {place})" if place else check.name
