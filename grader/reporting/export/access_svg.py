"""A memory counter check's picture as inline SVG, made here from the recorded request (no library, nothing loaded
from elsewhere): per side, the student's and the reference's, the 32 lanes across the top, below them the sectors
(global memory, in address order, each filled as far as the warp's bytes use it), the banks (shared memory: each
bank's column as tall as the distinct words its lanes asked of it) or the addresses (__constant__), and an arrow
from each lane to where it went; what costs a pass more, or a sector mostly wasted, is red. Every text is escaped:
names and paths are the student's. The slides draw the student's own picture with the same function."""

from __future__ import annotations

from html import escape

from grader.core.access import AccessPicture, LineAccess
from grader.reporting.access_text import line_words, request_words
from grader.reporting.access_units import BANKS, SECTOR_BYTES, LaneUnits, lane_units

LANE_W, GAP = 20, 4  # a lane's box, and the space between two
LEFT, TOP = 64, 14  # room for the rows' labels, and above the first side
PANEL_H = 214  # one side's height
UNIT_TOP = 128  # where the sectors or banks start, below a side's top
MAX_UNITS = 32  # sectors or addresses drawn; more are counted
LABEL_SIZE, LABEL_CHAR_W = 9, 6.0  # a unit's offset label: its font size, and the width of one of its characters
WORD_H = 1.4  # a bank's column grows by this for each word beyond its first: 32 words, about 57 pixels
WIDTH = LEFT + 32 * (LANE_W + GAP) + 16
COLOURS = {
    "lane": "#4c72b0",
    "used": "#55a868",
    "wasted": "#f0b8b8",
    "slow": "#c44e52",
    "idle": "#e6e6e6",
    "ink": "#222222",
    "grid": "#888888",
}
FONT = 'font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif"'


class _Svg:
    def __init__(self) -> None:
        self.items: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str = COLOURS["grid"]) -> None:
        self.items.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}" stroke="{stroke}" '
            'stroke-width="0.6"/>'
        )

    def text(self, x: float, y: float, text: str, size: int = 11, anchor: str = "middle", **style: str) -> None:
        extra = "".join(f' {key.replace("_", "-")}="{escape(value)}"' for key, value in style.items())
        self.items.append(
            f'<text x="{x:.1f}" y="{y:.1f}" {FONT} font-size="{size}" text-anchor="{anchor}"{extra}>'
            f"{escape(text)}</text>"
        )

    def arrow(self, x1: float, y1: float, x2: float, y2: float, colour: str) -> None:
        self.items.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2 - 4:.1f}" stroke="{colour}" '
            'stroke-width="1" stroke-opacity="0.8"/>'
        )
        self.items.append(
            f'<polygon points="{x2:.1f},{y2:.1f} {x2 - 3:.1f},{y2 - 5:.1f} {x2 + 3:.1f},{y2 - 5:.1f}" fill="{colour}"/>'
        )


def _lane_x(lane: int) -> float:
    return LEFT + lane * (LANE_W + GAP)


def _side(svg: _Svg, top: float, label: str, line: LineAccess | None, space: str, op: str) -> None:
    """One side: its heading, lanes, arrows and units; or why it has none."""
    if line is None or line.worst is None:
        svg.text(LEFT, top + 16, f"{label}: no {space} {op} in its checked launch", size=13, anchor="start")
        return
    worst = line.worst
    found = lane_units(worst, space)
    block = ",".join(str(axis) for axis in worst.block)
    svg.text(
        LEFT,
        top + 14,
        f"{label}: {line.place}, {space} {op}, block ({block}) warp {worst.warp}: {request_words(worst, space)}",
        size=13,
        anchor="start",
        font_weight="bold",
    )
    svg.text(LEFT, top + 30, f"the whole line: {line_words(line)}", size=11, anchor="start", fill=COLOURS["grid"])
    lanes_y = top + 44
    svg.text(LEFT - 8, lanes_y + 14, "lane", anchor="end")
    for lane, offset in enumerate(worst.lanes):
        fill = COLOURS["idle"] if offset is None else COLOURS["lane"]
        svg.rect(_lane_x(lane), lanes_y, LANE_W, LANE_W, fill)
        svg.text(
            _lane_x(lane) + LANE_W / 2,
            lanes_y + 14,
            str(lane),
            size=9,
            fill="white" if offset is not None else COLOURS["ink"],
        )
    places = _units(svg, top + UNIT_TOP, found, space)
    for lane, units in enumerate(found.units):
        if units and units[0] in places:
            colour = COLOURS["slow"] if lane in found.slow else COLOURS["grid"]
            svg.arrow(_lane_x(lane) + LANE_W / 2, lanes_y + LANE_W, places[units[0]], top + UNIT_TOP, colour)


def _units(svg: _Svg, y: float, found: LaneUnits, space: str) -> dict[int, float]:
    """The sectors, banks or addresses of one request, drawn at `y`; where each one's arrow ends."""
    places: dict[int, float] = {}
    if space == "shared":
        svg.text(LEFT - 8, y + 14, "bank", anchor="end")
        ways = found.load
        for bank in range(BANKS):
            x, count = _lane_x(bank), ways.get(bank, 0)
            height = 14 + WORD_H * (count - 1) if count else 14
            fill = COLOURS["slow"] if count > 1 else COLOURS["used"] if count else COLOURS["idle"]
            svg.rect(x, y, LANE_W, height, fill)
            svg.text(x + LANE_W / 2, y + height + 11, str(bank), size=9)
            if count > 1:
                svg.text(x + LANE_W / 2, y + 11, str(count), size=9, fill="white", font_weight="bold")
            places[bank] = x + LANE_W / 2
        return places
    name = "sector" if space == "global" else "address"
    svg.text(LEFT - 8, y + 14, name, anchor="end")
    shown = found.distinct[:MAX_UNITS]
    step = 32 * (LANE_W + GAP) / max(len(shown), 1)
    width = min(step - GAP, 4 * LANE_W + 3 * GAP)
    used = found.load if space == "global" else {}
    step_bytes = SECTOR_BYTES if space == "global" else 4
    labels = [f"+{(unit - shown[0]) * step_bytes}" for unit in shown]
    every = labelled_every(max((len(label) for label in labels), default=0), step)
    for index, unit in enumerate(shown):  # each at its place in address order, labelled by its byte offset
        x = LEFT + index * step + (step - GAP - width) / 2
        svg.rect(x, y, width, 20, COLOURS["wasted"] if space == "global" else COLOURS["used"])
        if space == "global":
            fraction = min(used.get(unit, 0), SECTOR_BYTES) / SECTOR_BYTES
            svg.rect(x, y, width * fraction, 20, COLOURS["used"])
        if index % every == 0:
            svg.text(x + width / 2, y + 32, labels[index], size=LABEL_SIZE)
        places[unit] = x + width / 2
    if len(found.distinct) > MAX_UNITS:
        svg.text(WIDTH - 8, y + 14, f"+{len(found.distinct) - MAX_UNITS} more", anchor="end")
    return places


def labelled_every(longest: int, step: float) -> int:
    """Which units get their offset written under them (every first, second, fourth ...): as many as fit side by
    side with a space between, so that 32 sectors' offsets, up to "+3968", do not run into each other."""
    every = 1
    while (longest + 1) * LABEL_CHAR_W > every * step and every < MAX_UNITS:
        every *= 2
    return every


def access_svg(picture: AccessPicture, label: str = "yours") -> str:
    """The picture as an <svg> element, to put inline in a page (or save as a file with an XML header)."""
    svg = _Svg()
    reference = picture.reference_name.removeprefix("the ")
    sides = [(label, picture.yours)] + ([(reference, picture.reference)] if picture.reference_name else [])
    for index, (name, line) in enumerate(sides):
        _side(svg, TOP + index * PANEL_H, name, line, picture.space, picture.op)
    height = TOP + len(sides) * PANEL_H + 8
    legend = {
        "global": "green: bytes the warp asked for; pink: bytes of the sector fetched and wasted; red arrow: a lane "
        "in a sector it mostly wastes",
        "shared": "each bank's column: the distinct words its lanes asked for at once; red: a conflict, served in "
        "as many passes",
        "constant": "each distinct address is served one after another; one address for all lanes is a broadcast",
    }[picture.space]
    svg.text(LEFT, height - 4, legend, size=10, anchor="start", fill=COLOURS["grid"])
    title = escape(
        f"{label}: the worst {picture.space} {picture.op} request, beside {picture.reference_name or 'nothing'}"
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="access" width="{WIDTH}" height="{height + 6}" '
        f'viewBox="0 0 {WIDTH} {height + 6}" role="img" aria-label="{title}"><title>{title}</title>'
        + "".join(svg.items)
        + "</svg>"
    )
