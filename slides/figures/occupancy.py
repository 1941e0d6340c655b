"""Lab 9: how many blocks share an SM, drawn from the grader's own arithmetic (grader/steps/occupancy.py) on the H100's
limits (grader/gpu_limits.toml): the skeleton's 115 KB tile against the solution's 8 KB one."""

from grader.steps.occupancy import BlockUse, load_limits, resident_blocks

from .svg import GRID, HALO, IDLE, INK, LANE, Svg

KB = 1024
LAUNCHES = [  # (title, threads, registers, tile bytes)
    ("the skeleton: 256 threads, a 115 KB tile", 256, 18, 115 * KB),
    ("the solution: 256 threads, an 8 KB tile", 256, 18, 8 * KB),
]


def occupancy() -> Svg:
    sm = load_limits()["h100"]
    svg = Svg(1240, 470)
    left, width = 40, 1100
    for row, (title, threads, registers, tile) in enumerate(LAUNCHES):
        fits = resident_blocks(BlockUse(threads, registers, 0, tile), sm)
        y = 40 + row * 215
        svg.text(left, y, f"{title}: {fits.blocks} block(s) per SM", size=19, anchor="start", weight="bold")
        # Shared memory: each block's tile plus the reserve, against the SM's 228 KB.
        per_block = tile + sm.reserved_shared_per_block
        svg.text(left, y + 32, f"shared memory, {sm.shared_per_sm // KB} KB", size=15, anchor="start", fill=GRID)
        svg.rect(left, y + 40, width, 34, fill=IDLE, stroke=INK)
        for b in range(fits.blocks):
            x = left + b * per_block / sm.shared_per_sm * width
            svg.rect(x, y + 40, per_block / sm.shared_per_sm * width - 2, 34, fill=HALO, stroke=INK)
            svg.text(x + per_block / sm.shared_per_sm * width / 2, y + 63, f"{per_block // KB} KB", size=13)
        # Warps: 8 per block, against the SM's 64.
        warps = fits.blocks * fits.warps_per_block
        svg.text(left, y + 100, f"warps, {sm.max_warps_per_sm}", size=15, anchor="start", fill=GRID)
        slot = width / sm.max_warps_per_sm
        for w in range(sm.max_warps_per_sm):
            svg.rect(left + w * slot, y + 108, slot - 3, 30, fill=LANE if w < warps else IDLE, stroke=INK, rx=2)
        limit = " and ".join(name.replace("shared_mem", "shared memory") for name in fits.limiters)
        svg.text(
            left,
            y + 165,
            f"{warps} of {sm.max_warps_per_sm} warps resident ({fits.fraction:.0%}); limited by {limit}",
            size=16,
            anchor="start",
        )
    return svg


PICTURES = {"lab9-occupancy.svg": occupancy}
