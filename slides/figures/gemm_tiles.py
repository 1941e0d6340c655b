"""Lab 4: a block's tiles of A and B walking along K while its tile of C stays put."""

from .svg import GRID, HALO, INK, LANE, USED, Svg

TILES = 4  # each matrix drawn as 4 x 4 tiles
T = 56  # a tile's size in pixels
ROW, COL = 1, 2  # the block's tile of C
STEP = 1  # the step of K drawn as current: earlier ones faded, later ones dashed


def _tile_style(k: int):
    if k < STEP:
        return dict(fill=HALO, opacity=0.3, stroke=HALO)
    if k == STEP:
        return dict(fill=HALO, opacity=1.0, stroke=INK, stroke_width=2)
    return dict(fill="white", stroke=HALO, stroke_width=2, dash="5,4")


def _matrix(svg: Svg, x0, y0, name, label):
    for r in range(TILES):
        for c in range(TILES):
            svg.rect(x0 + c * T, y0 + r * T, T, T, fill="white", stroke="#cccccc")
    svg.rect(x0, y0, TILES * T, TILES * T, stroke=INK, stroke_width=1.5)
    svg.text(x0 + TILES * T / 2, y0 + TILES * T + 26, name, size=18, weight="bold")
    svg.text(x0 + TILES * T / 2, y0 + TILES * T + 48, label, size=14, fill=GRID)


def gemm_tiles() -> Svg:
    svg = Svg(1200, 640)
    ax, ay = 60, 330  # A: M x K, bottom left
    bx, by = ax + TILES * T + 40, 10  # B: K x N, top right
    cx, cy = bx, ay  # C: M x N, bottom right
    _matrix(svg, ax, ay, "A", "M x K: the tile moves right")
    _matrix(svg, bx, by, "B", "K x N: the tile moves down")
    _matrix(svg, cx, cy, "C", "M x N: the block's tile stays")
    for k in range(TILES):
        svg.rect(ax + k * T, ay + ROW * T, T, T, **_tile_style(k))
        svg.rect(bx + COL * T, by + k * T, T, T, **_tile_style(k))
        svg.text(ax + k * T + T / 2, ay + ROW * T + T - 10, f"k0={k}", size=12)
        svg.text(bx + COL * T + T / 2 - 8, by + k * T + T / 2 + 5, f"k0={k}", size=12)
    svg.rect(cx + COL * T, cy + ROW * T, T, T, fill=USED, stroke=INK, stroke_width=2)
    svg.line(ax + 10, ay + ROW * T - 12, ax + TILES * T - 10, ay + ROW * T - 12, arrow=True, width=2)
    svg.line(bx + COL * T - 12, by + 10, bx + COL * T - 12, by + TILES * T - 10, arrow=True, width=2)
    # Thread (tx, ty): row ty of a_tile, column tx of b_tile, element (ty, tx) of the C tile.
    tx, ty = 0.85, 0.25
    a0, b0 = (ax + STEP * T, ay + ROW * T), (bx + COL * T, by + STEP * T)
    svg.line(a0[0] + 3, a0[1] + ty * T, a0[0] + T - 3, a0[1] + ty * T, stroke=LANE, width=3)
    svg.line(b0[0] + tx * T, b0[1] + 3, b0[0] + tx * T, b0[1] + T - 3, stroke=LANE, width=3)
    svg.rect(cx + COL * T + tx * T - 4, cy + ROW * T + ty * T - 4, 8, 8, fill=LANE, stroke=LANE)

    steps = [
        "for each step k0 along K (32 wide):",
        "  1. each thread loads one element of a_tile and one of b_tile",
        "  2. __syncthreads()   (read after write: the tiles are complete)",
        "  3. 32 multiply-adds: a_tile[ty][p] * b_tile[p][tx]",
        "  4. __syncthreads()   (write after read: nobody still reads",
        "      the tiles the next step overwrites)",
    ]
    x_text = bx + TILES * T + 40
    for n, line in enumerate(steps):
        svg.text(x_text, 40 + 28 * n, line, size=15, anchor="start", mono=True)
    svg.text(x_text, ay + 60, "blue: what thread (tx, ty) reads and owns.", size=15, anchor="start", fill=LANE)
    svg.text(x_text, ay + 90, "Each element of A and B comes from global memory", size=15, anchor="start")
    svg.text(x_text, ay + 114, "once per block instead of once per thread: 32x fewer loads.", size=15, anchor="start")
    return svg


PICTURES = {"lab4-gemm-tiles.svg": gemm_tiles}
