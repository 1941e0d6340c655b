"""Labs 2 and 6: the tree in shared memory, and who works (and waits) at each of its steps."""

from .svg import CONFLICT, GRID, HALO, IDLE, LANE, USED, Svg

SLOTS = 16  # drawn; the labs' blocks have 256 threads


def tree() -> Svg:
    svg = Svg(1150, 620)
    left, top, w, gap = 150, 40, 52, 108
    strides = [SLOTS // 2 >> s for s in range(SLOTS.bit_length() - 1)]  # 8, 4, 2, 1
    rows = ["products"] + [f"stride {s}" for s in strides]
    live = [SLOTS] + strides
    for row, (name, alive) in enumerate(zip(rows, live, strict=True)):
        y = top + row * gap
        svg.text(left - 16, y + 26, name, size=16, anchor="end")
        for t in range(SLOTS):
            svg.rect(left + t * w + 3, y, w - 6, 38, fill=LANE if t < alive else IDLE, stroke="white", rx=4)
            svg.text(
                left + t * w + w / 2, y + 25, f"p{t}" if row == 0 else t, size=13, fill="white" if t < alive else GRID
            )
        if row:
            stride = strides[row - 1]
            for t in range(stride):
                svg.line(
                    left + (t + stride) * w + w / 2,
                    y - gap + 40,
                    left + t * w + w / 2 + 6,
                    y - 3,
                    stroke=HALO,
                    width=1.6,
                    arrow=True,
                )
                svg.line(
                    left + t * w + w / 2, y - gap + 40, left + t * w + w / 2, y - 3, stroke=GRID, width=1.2, arrow=True
                )
            svg.line(
                left - 6, y - gap / 2 + 18, left + SLOTS * w + 6, y - gap / 2 + 18, stroke=CONFLICT, width=2, dash="8,5"
            )
    svg.text(
        left + SLOTS * w + 12, top + gap / 2 + 22, "__syncthreads()", size=14, anchor="start", fill=CONFLICT, mono=True
    )
    y = top + (len(rows) - 1) * gap
    svg.line(left + w / 2, y + 40, left + w / 2, y + 75, arrow=True, width=2)
    svg.text(
        left + w / 2 + 12,
        y + 72,
        "thread 0: one atomicAdd(result, products[0]) per block, not one per element",
        size=16,
        anchor="start",
    )
    svg.text(
        left,
        600,
        f"drawn: {SLOTS} threads, {len(strides)} steps.  The lab: 256 threads, strides 128 .. 1, 8 steps;"
        " slot t += slot t + stride for t < stride",
        size=14,
        anchor="start",
        italic=True,
    )
    return svg


WARPS = 8
STRIDES = [128, 64, 32, 16, 8, 4, 2, 1]


def _warp_panel(svg: Svg, x0: int, title: str, block_barriers_after: set, warp_steps: list, notes: list) -> None:
    """One version of the block sum as a timeline: rows are steps, columns the block's 8 warps."""
    cw, rh, top = 30, 30, 80
    svg.text(x0 + WARPS * cw / 2, 30, title, size=17, weight="bold")
    for w in range(WARPS):
        svg.text(x0 + w * cw + cw / 2, top - 10, w, size=12, fill=GRID)
    barriers = 0
    y = top
    for label, active, kind in warp_steps:
        svg.text(x0 - 8, y + 20, label, size=12, anchor="end", mono=True)
        for w in range(WARPS):
            svg.rect(
                x0 + w * cw + 2,
                y + 2,
                cw - 4,
                rh - 4,
                fill=(USED if kind == "shfl" else LANE) if w < active else IDLE,
                stroke="white",
                rx=3,
            )
        y += rh
        if label in block_barriers_after:
            svg.line(x0 - 4, y, x0 + WARPS * cw + 4, y, stroke=CONFLICT, width=3)
            barriers += 1
        elif kind == "syncwarp":
            svg.line(x0, y, x0 + cw, y, stroke=HALO, width=3)
            svg.line(x0, y - 4, x0 + cw, y - 4, stroke=HALO, width=3)
    svg.text(x0 + WARPS * cw / 2, y + 30, f"{barriers} x __syncthreads()", size=15, fill=CONFLICT, weight="bold")
    for n, note in enumerate(notes):
        svg.text(x0 + WARPS * cw / 2, y + 52 + 20 * n, note, size=14)


def last_warp() -> Svg:
    svg = Svg(1180, 505)
    tree_steps = [("store", WARPS, "tree")] + [(f"s={s}", max(1, s // 32) if s >= 32 else 1, "tree") for s in STRIDES]
    _warp_panel(svg, 110, "full tree (the baseline)", {label for label, _, _ in tree_steps}, tree_steps, [])
    unrolled = tree_steps[:3] + [(f"s={s}", 1, "syncwarp") for s in STRIDES[2:]]
    _warp_panel(
        svg, 500, "unrolled last warp", {"store", "s=128", "s=64"}, unrolled, ["then 12 x __syncwarp() in warp 0"]
    )
    shuffles = [(f"shfl {o}", WARPS, "shfl") for o in (16, 8, 4, 2, 1)]
    shuffles += [(f"w0: shfl {o}", 1, "shfl") for o in (4, 2, 1)]
    _warp_panel(
        svg,
        890,
        "warp shuffles",
        {"shfl 1"},
        shuffles,
        ["registers only; the 8 warp sums", "meet in shared memory once"],
    )
    svg.text(
        40,
        470,
        "columns: the block's 8 warps; rows: the steps in order; blue: warps with work in shared memory;",
        size=14,
        anchor="start",
        fill=GRID,
    )
    svg.text(
        40,
        492,
        "green: shuffles in registers; red line: the whole block waits; orange: warp 0 alone waits (__syncwarp)",
        size=14,
        anchor="start",
        fill=GRID,
    )
    return svg


PICTURES = {"lab2-tree.svg": tree, "lab6-last-warp.svg": last_warp}
