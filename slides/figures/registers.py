"""Lab 8: a window whose every index is known at compile time gets registers; one indexed at run time goes to
local memory, in DRAM behind L1, and each element read becomes a load."""

from .svg import CONFLICT, GRID, HALO, INK, LANE, USED, Svg

SHOWN = 8  # elements of the window drawn; the rest are the dots


def window() -> Svg:
    svg = Svg(1200, 470)
    cell = 52
    # Left: registers, each element named by the compiler.
    lx = 40
    svg.text(lx, 34, "window[k], k known at compile time", size=19, anchor="start", weight="bold")
    svg.text(lx, 60, "#pragma unroll, template <int kTaps>", size=15, anchor="start", mono=True, fill=GRID)
    for k in range(SHOWN):
        x = lx + k * (cell + 6)
        svg.rect(x, 90, cell, 44, fill=USED, stroke=INK, rx=4)
        svg.text(x + cell / 2, 118, f"R{k + 12}", size=15, weight="bold", mono=True, fill="white")
    svg.text(lx + SHOWN * (cell + 6) + 4, 118, "...", size=18, anchor="start")
    svg.rect(lx + 120, 190, 240, 44, fill="#f4f4f4", stroke=INK, rx=6)
    svg.text(lx + 240, 218, "FFMA sum, R12, w[0], sum", size=15, mono=True)
    svg.line(lx + cell / 2, 136, lx + 150, 188, stroke=USED, width=2, arrow=True)
    svg.text(lx, 280, "each element a register of its own:", size=16, anchor="start")
    svg.text(lx, 304, "an operand of the multiply-add, no load at all", size=16, anchor="start", weight="bold")
    svg.text(lx, 346, "the compiler's report: 0 B stack", size=16, anchor="start", mono=True, fill=USED)

    # Right: local memory, an address per element.
    rx = 640
    svg.text(rx, 34, "window[k], k known at run time", size=19, anchor="start", weight="bold")
    svg.text(rx, 60, "for (k = 0; k < taps; ++k)", size=15, anchor="start", mono=True, fill=GRID)
    svg.rect(rx, 84, 520, 160, fill="#fafafa", stroke=GRID, rx=8, dash="6,4")
    svg.text(
        rx + 10,
        104,
        "local memory: the thread's stack frame, in DRAM, cached in L1 and L2",
        size=13,
        anchor="start",
        fill=GRID,
    )
    for k in range(SHOWN):
        x = rx + 14 + k * (cell + 6)
        svg.rect(x, 118, cell, 44, fill=HALO, stroke=INK, rx=4)
        svg.text(x + cell / 2, 146, f"+{4 * k}", size=14, mono=True)
    svg.text(rx + 14 + SHOWN * (cell + 6), 146, "...", size=18, anchor="start")
    svg.rect(rx + 60, 188, 300, 40, fill="white", stroke=CONFLICT, rx=6)
    svg.text(rx + 210, 214, "LDL R0, [frame + 4k]", size=15, mono=True, fill=CONFLICT)
    svg.rect(rx + 140, 270, 240, 44, fill="#f4f4f4", stroke=INK, rx=6)
    svg.text(rx + 260, 298, "FFMA sum, R0, w[k], sum", size=15, mono=True)
    svg.line(rx + 210, 230, rx + 240, 268, stroke=CONFLICT, width=2, arrow=True)
    svg.text(rx, 352, "registers have names, not addresses: an index that", size=16, anchor="start")
    svg.text(rx, 376, "arrives at run time needs memory, and every read a load", size=16, anchor="start", weight="bold")
    svg.text(
        rx, 418, "the compiler's report: 128 B stack (32 floats)", size=16, anchor="start", mono=True, fill=CONFLICT
    )
    svg.line(600, 20, 600, 450, stroke=LANE, width=1, dash="4,6")
    return svg


PICTURES = {"lab8-window.svg": window}
