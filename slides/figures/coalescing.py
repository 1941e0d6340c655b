"""Lab 1: the sectors a warp's load touches, lanes on neighbouring floats against lanes 32 floats apart."""

from .svg import GRID, INK, LANE, USED, WASTED, Svg

WARP = 32
FLOATS_PER_SECTOR = 8  # a sector is 32 bytes
LANE_W = 34  # the width of one lane's box; the memory row below is drawn on the same scale
LEFT = 110


def _lanes(svg: Svg, y: int) -> None:
    svg.text(LEFT - 12, y + 17, "lanes", size=15, anchor="end")
    for lane in range(WARP):
        x = LEFT + lane * LANE_W
        svg.rect(x + 2, y, LANE_W - 4, 24, fill=LANE, stroke=LANE, rx=3)
        svg.text(x + LANE_W / 2, y + 17, lane, size=12, fill="white")


def _panel(svg: Svg, top: int, stride: int, title: str, verdict: str) -> None:
    svg.text(LEFT, top, title, size=19, anchor="start", weight="bold")
    lanes_y, memory_y = top + 14, top + 110
    _lanes(svg, lanes_y)
    svg.text(LEFT - 12, memory_y + 20, "memory", size=15, anchor="end")
    sectors = {lane * stride // FLOATS_PER_SECTOR for lane in range(WARP)}
    # Each sector the warp touches is one box; its 8 floats are cells, green where a lane reads one.
    sector_w = WARP * LANE_W / len(sectors)
    for n, sector in enumerate(sorted(sectors)):
        x0 = LEFT + n * sector_w
        used = {
            lane * stride % FLOATS_PER_SECTOR for lane in range(WARP) if lane * stride // FLOATS_PER_SECTOR == sector
        }
        cell = sector_w / FLOATS_PER_SECTOR
        for f in range(FLOATS_PER_SECTOR):
            svg.rect(
                x0 + f * cell, memory_y, cell, 30, fill=USED if f in used else WASTED, stroke="white", stroke_width=0.5
            )
        svg.rect(x0, memory_y, sector_w, 30, stroke=INK, stroke_width=1.6)
    for lane in range(WARP):
        sector = lane * stride // FLOATS_PER_SECTOR
        n = sorted(sectors).index(sector)
        cell = sector_w / FLOATS_PER_SECTOR
        target = LEFT + n * sector_w + (lane * stride % FLOATS_PER_SECTOR + 0.5) * cell
        svg.line(LEFT + (lane + 0.5) * LANE_W, lanes_y + 26, target, memory_y - 3, stroke=GRID, width=1.1, arrow=True)
    moved = len(sectors) * 32
    svg.text(
        LEFT,
        memory_y + 58,
        f"{len(sectors)} sectors of 32 B fetched = {moved} B for 128 B used ({12800 / moved:g}% useful).  {verdict}",
        size=16,
        anchor="start",
    )


def coalescing() -> Svg:
    svg = Svg(1240, 480)
    _panel(svg, 30, 1, "coalesced: lane l reads a[base + l]", "ncu: 4 sectors per request")
    _panel(svg, 260, 32, "lanes 32 apart: lane l reads a[base + 32 l]", "ncu: 32 sectors per request")
    svg.text(
        LEFT,
        465,
        "(the 32 sectors are drawn side by side; in memory each is 128 B after the one before)",
        size=14,
        anchor="start",
        italic=True,
    )
    return svg


PICTURES = {"lab1-coalescing.svg": coalescing}
