"""A memory counter check's picture as text, 80 columns at most: one character a lane, the student's worst request
over the reference's, a row of marks under the lanes that cost it, and what the lines and the kernel use. The
terminal colours the marks (rich Text, never markup: names are the student's); Gradescope and the tests read the
same lines as plain text.

    lane      0       8       16      24      31
    yours     00000000000000000000000000000000  32-way: 32 wavefronts for 1
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    solution  0123456789abcdefghijklmnopqrstuv  no conflict: 1 wavefront
"""

from __future__ import annotations

import textwrap

from rich.text import Text

from grader.core.access import AccessPicture, LineAccess, Request
from grader.reporting.access_units import ideal_sectors, lane_marks, lane_units
from grader.reporting.terminal import one_line

WIDTH = 80
LABEL = 12  # "  solution  " and the other row labels
LANE_RULER = "0       8       16      24    31"  # one column a lane, 0 to 31
MARK = "^"
MACHINE_SHOWN = 4  # instructions of the line's machine code the text names; the HTML shows every one kept
SLOW_STYLE = "bold red"
LEGEND = {
    "global": f"the sector of each lane, in address order; {MARK} a lane in a sector mostly wasted",
    "shared": f"the bank of each lane, 0-31 as 0-9 and a-v; {MARK} a lane in a bank conflict",
    "constant": f"the address of each lane, in address order; {MARK} one of several addresses",
}


def request_words(request: Request, space: str) -> str:
    """What one request cost, in a few words (at most 36 characters)."""
    if space == "shared":
        if request.units <= request.ideal:
            return f"no conflict: {request.units} wavefront{'s' if request.units > 1 else ''}"
        return f"{request.max_ways}-way: {request.units} wavefronts for {request.ideal}"
    if space == "constant":
        return "1 address: a broadcast" if request.units <= 1 else f"{request.units} addresses, one by one"
    ideal = ideal_sectors(request)
    asked = sum(lane is not None for lane in request.lanes) * request.bytes_per_lane
    said = f"{request.units} sector{'s' if request.units > 1 else ''} for {asked} B"
    return said if request.units <= ideal else f"{said}: {ideal} would do"


def line_words(line: LineAccess) -> str:
    counts = f"{line.requests:,} requests"
    if line.space == "shared":
        return f"{counts}, {line.conflicts:,} bank conflicts"
    return f"{counts}, {line.units:,} {'addresses' if line.space == 'constant' else 'sectors'}"


def _row(label: str, line: LineAccess | None, space: str, op: str, name: str) -> list[Text]:
    if line is None or line.worst is None:  # the reference's kernel may have no such access: the baseline's often
        said = one_line(f"{name} makes no {space} {op} in its checked launch")
        return [Text(f"  {label:<{LABEL - 2}}{said}"[:WIDTH])]
    found = lane_units(line.worst, space)
    marks = lane_marks(found, space)
    row = Text(f"  {label:<{LABEL - 2}}")
    for lane, mark in enumerate(marks):
        row.append(mark, style=SLOW_STYLE if lane in found.slow else "")
    row.append(f"  {request_words(line.worst, space)}")
    rows = [row]
    if found.slow:
        under = "".join(MARK if lane in found.slow else " " for lane in range(len(marks)))
        rows.append(Text(" " * LABEL + under.rstrip(), style=SLOW_STYLE))
    return rows


def _wrapped(text: str, indent: str = "  ") -> list[Text]:
    return [
        Text(part)
        for part in textwrap.wrap(one_line(text), WIDTH, initial_indent=indent, subsequent_indent=indent + "  ")
    ]


def figure(picture: AccessPicture, label: str = "yours") -> list[Text]:
    """The picture's lines, none longer than WIDTH."""
    space = picture.space
    lines: list[Text] = []
    if picture.drawn and picture.yours is not None and picture.yours.worst is not None:
        yours, worst = picture.yours, picture.yours.worst
        block = ",".join(str(axis) for axis in worst.block)
        lines += _wrapped(
            f"the worst {space} {picture.op} request, {label}: {yours.place}, block ({block}) warp {worst.warp}",
            indent="",
        )
        reference = picture.reference_name.removeprefix("the ").removeprefix("lab's ").split()[-1]
        lines.append(Text(f"  {'lane':<{LABEL - 2}}{LANE_RULER}"))
        lines += _row(label, yours, space, picture.op, label)
        if picture.reference_name:
            lines += _row(reference, picture.reference, space, picture.op, picture.reference_name)
        lines += _wrapped(LEGEND[space])
        lines += _wrapped(f"the whole line, {label}: {line_words(yours)}")
        if picture.reference is not None:
            lines += _wrapped(f"{reference}'s, {picture.reference.place}: {line_words(picture.reference)}")
    elif picture.problem:
        lines += _wrapped(f"no picture of your accesses: {picture.problem}", indent="")
    lines += facts_lines(picture)
    lines += _wrapped(f"from {picture.source}" + (f"; {picture.beside}" if picture.beside else ""))
    return lines


def resource_words(picture: AccessPicture) -> str:
    """The kernel's resources and the occupancy they allow, in one sentence; '' where nvcc's report has none."""
    facts = picture.facts
    if facts.registers is None:
        return ""
    return (
        f"{facts.kernel}: {facts.registers} registers, {facts.shared_bytes} B shared, {facts.stack_bytes} B stack, "
        f"{facts.local_bytes} B local" + (f"; {facts.occupancy}" if facts.occupancy else "")
    )


def machine_words(picture: AccessPicture, shown: int = MACHINE_SHOWN) -> str:
    """The line's machine code of the picture's space and direction, the first `shown` instructions named."""
    facts = picture.facts
    if not facts.machine_code:
        return ""
    where = f" of {picture.yours.place}" if picture.yours else ""
    named = facts.machine_code[:shown]
    hidden = len(facts.machine_code) - len(named) + facts.other_instructions
    more = f" (and {hidden} other instructions)" if hidden else ""
    return f"machine code{where}: {'; '.join(named)}{more}"


def facts_lines(picture: AccessPicture) -> list[Text]:
    """What a profiler would show besides: the kernel's resources and occupancy, and the line's machine code."""
    return [line for words in (resource_words(picture), machine_words(picture)) if words for line in _wrapped(words)]


def shown_at(lab: str, place: str, pictures: list[AccessPicture], accessed: list[int]) -> list[Text]:
    """What ./cml grade --show-access prints for one lab: the picture of each space and direction the line
    accesses, or the lines that do access memory, where it accesses none."""
    if not pictures:
        where = ", ".join(str(line) for line in accessed) or "none"
        said = f"Lab {lab}: the CPU emulator saw no access at {place} in the checked launches (lines that access memory: {where})"
        return _wrapped(said, indent="")
    lines = [Text(one_line(f"Lab {lab}, {place}:"), style="bold")]
    for picture in pictures:
        lines += figure(picture)
    return lines


def plain(picture: AccessPicture, label: str = "yours") -> str:
    """The figure as plain text (Gradescope's output, a check's text elsewhere)."""
    return "\n".join(line.plain for line in figure(picture, label))
