"""Lab 7: the constant cache broadcasts one address to a warp, and serialises different ones."""

import random

from .svg import CONFLICT, GRID, HALO, INK, LANE, Svg

WARP = 32
TABLE = 1024


def constant_cache() -> Svg:
    svg = Svg(1240, 490)
    lw = 15  # a lane's width
    # Part A: every lane reads c[k] at the same moment.
    ax = 40
    svg.text(ax, 30, "Part A, polynomial: all lanes read c[k] at once", size=18, anchor="start", weight="bold")
    for lane in range(WARP):
        svg.rect(ax + lane * lw, 50, lw - 2, 22, fill=LANE, stroke=LANE, rx=2)
    target = (ax + WARP * lw / 2, 210)
    for lane in range(WARP):
        svg.line(target[0], target[1] - 26, ax + lane * lw + lw / 2, 76, stroke=HALO, width=1, arrow=True)
    svg.rect(target[0] - 40, target[1] - 26, 80, 34, fill=HALO, stroke=INK, rx=4)
    svg.text(target[0], target[1] - 4, "c[k]", size=17, weight="bold", mono=True)
    svg.text(target[0], 250, "1 access, broadcast to 32 lanes", size=17, weight="bold")
    svg.text(target[0], 276, "and no load instruction at all: the value is an", size=15)
    svg.text(target[0], 296, "operand of the FMA (when k is known at compile time)", size=15)

    # Part B: every lane reads its own entry.
    bx = 650
    svg.text(bx, 30, "Part B, look-up: each lane reads table[index[i]]", size=18, anchor="start", weight="bold")
    rng = random.Random(7)
    entries = [rng.randrange(TABLE) for _ in range(WARP)]
    for lane in range(WARP):
        svg.rect(bx + lane * lw, 50, lw - 2, 22, fill=LANE, stroke=LANE, rx=2)
    table_y, table_w = 180, WARP * lw
    svg.rect(bx, table_y, table_w, 24, fill="#f4f4f4", stroke=INK)
    svg.text(bx + table_w + 8, table_y + 17, "table", size=14, anchor="start")
    for lane, e in enumerate(entries):
        x = bx + e / TABLE * table_w
        svg.line(bx + lane * lw + lw / 2, 76, x, table_y - 2, stroke=CONFLICT, width=1, opacity=0.7)
        svg.line(x, table_y, x, table_y + 24, stroke=CONFLICT, width=1.5)
    distinct = len(set(entries))
    # The constant cache serves one address per access: a timeline of accesses, one after another.
    ty = 262
    svg.text(
        bx,
        ty - 30,
        f"__constant__: {distinct} different addresses = {distinct} accesses,",
        size=15,
        anchor="start",
        weight="bold",
        fill=CONFLICT,
    )
    svg.text(bx, ty - 10, "served one after another", size=15, anchor="start", weight="bold", fill=CONFLICT)
    for n in range(distinct):
        svg.rect(bx + n * lw, ty, lw - 2, 20, fill=CONFLICT, stroke="white")
    svg.line(bx, ty + 34, bx + distinct * lw, ty + 34, arrow=True, width=1.5)
    svg.text(bx + distinct * lw + 8, ty + 39, "time", size=13, anchor="start", fill=GRID)
    lines = len({e * 4 // 128 for e in entries})
    svg.text(bx, ty + 72, "__device__ (global, through L1): one pass per 128-byte", size=15, anchor="start")
    svg.text(bx, ty + 92, f"line the warp touches: {lines} of the table's 32", size=15, anchor="start")
    for n in range(lines):
        svg.rect(bx + n * lw, ty + 104, lw - 2, 20, fill=GRID, stroke="white")

    svg.text(
        40,
        440,
        'The question to ask of each array is not "is it read-only?" but "what do the 32 lanes read at the '
        'same moment?"',
        size=17,
        anchor="start",
        italic=True,
    )
    svg.text(
        40,
        472,
        f"drawn: one warp, 32 random indices into a {TABLE}-entry table (seeded); on average ~31.5 "
        "different entries and ~20 lines",
        size=14,
        anchor="start",
        fill=GRID,
    )
    return svg


PICTURES = {"lab7-constant-cache.svg": constant_cache}
