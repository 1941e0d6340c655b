"""Lab 5: where the 32 elements of one tile column land among the 32 banks, for three layouts of the tile."""

from .svg import CONFLICT, GRID, IDLE, INK, Svg

BANKS = 32
TILE = 32
COLUMN = 1  # the tile column a warp reads when it writes one row of `out`
CELL = 10


def _layouts():
    """(title, words per tile row, stored column of element (r, c))."""
    return [
        ("float tile[32][32]", TILE, lambda r, c: c),
        ("float tile[32][33]: one column of padding", TILE + 1, lambda r, c: c),
        ("float tile[32][32], column c ^ r: XOR swizzle", TILE, lambda r, c: c ^ r),
    ]


def _panel(svg: Svg, x0: int, y0: int, title: str, row_words: int, stored) -> None:
    svg.text(x0 + BANKS * CELL / 2, y0 - 34, title, size=15, weight="bold")
    for bank in (0, 8, 16, 24, 31):
        svg.text(x0 + (bank + 0.5) * CELL, y0 - 8, bank, size=11, fill=GRID)
    lines = (TILE * row_words + BANKS - 1) // BANKS
    # Memory as the banks see it: word w is in bank w % 32, on line w // 32.
    for line in range(lines):
        for bank in range(BANKS):
            svg.rect(x0 + bank * CELL, y0 + line * CELL, CELL, CELL, fill="white", stroke="#dddddd", stroke_width=0.5)
    hit = []
    for r in range(TILE):
        if row_words > TILE:  # the padding word at the end of each row: never used
            w = r * row_words + TILE
            svg.rect(
                x0 + (w % BANKS) * CELL,
                y0 + (w // BANKS) * CELL,
                CELL,
                CELL,
                fill=IDLE,
                stroke="#bbbbbb",
                stroke_width=0.5,
            )
        w = r * row_words + stored(r, COLUMN)
        hit.append(w % BANKS)
        svg.rect(
            x0 + (w % BANKS) * CELL, y0 + (w // BANKS) * CELL, CELL, CELL, fill=CONFLICT, stroke=INK, stroke_width=0.6
        )
    worst = max(hit.count(b) for b in set(hit))
    y = y0 + lines * CELL + 24
    svg.text(
        x0 + BANKS * CELL / 2,
        y,
        f"column {COLUMN}: " + ("all in one bank" if len(set(hit)) == 1 else f"{len(set(hit))} different banks"),
        size=15,
    )
    verdict = "1 pass" if worst == 1 else f"{worst} passes ({worst - 1} conflicts per load)"
    svg.text(x0 + BANKS * CELL / 2, y + 22, verdict, size=15, weight="bold", fill=CONFLICT if worst > 1 else INK)


def banks() -> Svg:
    svg = Svg(1160, 470)
    for n, (title, row_words, stored) in enumerate(_layouts()):
        _panel(svg, 30 + n * 390, 60, title, row_words, stored)
    svg.text(
        580,
        462,
        "one cell = one 4-byte word; columns = the 32 banks; red = the 32 elements (r, 1) a warp reads at once;"
        " grey = padding",
        size=13,
        fill=GRID,
    )
    return svg


PICTURES = {"lab5-banks.svg": banks}
