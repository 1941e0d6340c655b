"""Lab 3: one block's tile in shared memory, its halo from the neighbouring blocks, and one thread's window."""

from .svg import HALO, IDLE, INK, LANE, USED, Svg

BLOCK = 12  # drawn; the lab's block is 256 threads
RADIUS = 3
CELL = 40
THREAD = 4  # the thread whose window is shown


def halo() -> Svg:
    svg = Svg(960, 460)
    left = 60
    # The input array: the end of block 0, block 1 (this block), the start of block 2.
    svg.text(left - 10, 75, "in", size=18, anchor="end", weight="bold")
    first = BLOCK  # block 1's first element
    shown = range(first - RADIUS - 2, first + BLOCK + RADIUS + 2)
    for n, i in enumerate(shown):
        x = left + n * CELL
        mine = first <= i < first + BLOCK
        in_halo = first - RADIUS <= i < first or first + BLOCK <= i < first + BLOCK + RADIUS
        svg.rect(x, 50, CELL, 36, fill=USED if mine else HALO if in_halo else IDLE, stroke="white", stroke_width=2)
        svg.text(x + CELL / 2, 74, i, size=14, fill="white" if mine or in_halo else INK)
    x_block = left + (first - shown.start) * CELL
    svg.brace(x_block - RADIUS * CELL, x_block, 92, "left halo: R", size=14)
    svg.brace(x_block, x_block + BLOCK * CELL, 92, f"block 1: its {BLOCK} elements, one per thread", size=14)
    svg.brace(x_block + BLOCK * CELL, x_block + (BLOCK + RADIUS) * CELL, 92, "right halo: R", size=14)
    svg.text(left + 30, 40, "block 0", size=14, anchor="start", italic=True)
    svg.text(left + (len(shown)) * CELL - 30, 40, "block 2", size=14, anchor="end", italic=True)

    # The tile: the same elements, copied once into shared memory.
    tile_y = 200
    svg.text(left - 10, tile_y + 25, "tile", size=18, anchor="end", weight="bold")
    x_tile = x_block - RADIUS * CELL
    for s in range(BLOCK + 2 * RADIUS):
        mine = RADIUS <= s < RADIUS + BLOCK
        svg.rect(x_tile + s * CELL, tile_y, CELL, 36, fill=USED if mine else HALO, stroke="white", stroke_width=2)
        svg.text(x_tile + s * CELL + CELL / 2, tile_y + 24, s, size=14, fill="white")
        svg.line(
            x_tile + s * CELL + CELL / 2,
            136,
            x_tile + s * CELL + CELL / 2,
            tile_y - 4,
            stroke="#aaaaaa",
            width=1,
            arrow=True,
        )

    # Thread THREAD's window: tile[t .. t + 2R]; its own element is tile[t + R].
    win_x = x_tile + THREAD * CELL
    svg.rect(win_x - 3, tile_y - 5, (2 * RADIUS + 1) * CELL + 6, 46, stroke=LANE, stroke_width=3, rx=6)
    svg.brace(
        win_x,
        win_x + (2 * RADIUS + 1) * CELL,
        tile_y + 44,
        f"thread {THREAD} averages tile[{THREAD} .. {THREAD + 2 * RADIUS}] = in[{first + THREAD - RADIUS} .. {first + THREAD + RADIUS}]",
        size=15,
    )
    steps = [
        "1. every thread copies its own element: tile[R + t] = in[first + t]",
        "2. threads 0 .. R-1 also copy one left-halo and one right-halo element",
        "3. __syncthreads(): the tile is complete",
        "4. thread t averages tile[t .. t + 2R]: 2R + 1 reads from shared memory, none from global",
    ]
    for n, step in enumerate(steps):
        svg.text(left, 320 + 26 * n, step, size=16, anchor="start")
    svg.text(
        left,
        445,
        f"drawn: {BLOCK} threads, R = {RADIUS}.  The lab: 256 threads, R from 1 to 64; "
        "every index goes through clamp_to_edge.",
        size=14,
        anchor="start",
        italic=True,
    )
    return svg


PICTURES = {"lab3-halo.svg": halo}
