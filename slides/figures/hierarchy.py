"""The introduction: the H100's memory hierarchy, capacity, latency and bandwidth, each with where it comes from."""

import math

from .measured import Calibration
from .svg import GRID, HALO, LANE, USED, Svg


def _levels(cal: Calibration):
    """(name, capacity, capacity in bytes, latency, bandwidth text, bandwidth in GB/s or None, its source)."""
    per_clock_gbps = cal.sms * cal.clock_ghz  # GB/s per byte per SM per clock
    registers = 128 * 3 * 4 * per_clock_gbps  # 3 operands of 4 bytes for each of 128 FP32 lanes per clock
    shared = 32 * 4 * per_clock_gbps  # 32 banks x 4 bytes per clock
    return [
        (
            "registers",
            "256 KB per SM",
            256e3 * cal.sms,
            "~1 cycle",
            f"{registers / 1000:.0f} TB/s",
            registers,
            "derived",
        ),
        (
            "shared memory / L1",
            "256 KB per SM, <= 228 KB shared",
            256e3 * cal.sms,
            "~30 cycles",
            f"{shared / 1000:.1f} TB/s",
            shared,
            "derived",
        ),
        ("L2 cache", "50 MB, whole GPU", 50e6, "~200-300 cycles", "between the two", None, "not measured here"),
        (
            "HBM3 (global memory)",
            "80 GB",
            80e9,
            "~500+ cycles",
            f"{cal.copy_gbps:.0f} GB/s",
            cal.copy_gbps,
            "measured copy",
        ),
    ]


def hierarchy(cal: Calibration) -> Svg:
    svg = Svg(1240, 470)
    cols = [30, 290, 640, 820]
    for x, head in zip(cols, ["level", "capacity (log scale)", "latency", "bandwidth (log scale)"], strict=True):
        svg.text(x, 30, head, size=16, anchor="start", weight="bold")
    for n, (name, cap, cap_bytes, latency, bw_text, bw, source) in enumerate(_levels(cal)):
        y = 60 + n * 82
        svg.rect(20, y - 6, 1200, 72, fill="#f7f7f7" if n % 2 else "white", stroke="none")
        svg.text(cols[0], y + 28, name, size=17, anchor="start", weight="bold")
        width = (math.log10(cap_bytes) - 6) / (11 - 6) * 320  # 1 MB .. 100 GB
        svg.rect(cols[1], y + 6, width, 22, fill=LANE, stroke="none", rx=3)
        svg.text(cols[1], y + 50, cap, size=14, anchor="start")
        svg.text(cols[2], y + 28, latency, size=17, anchor="start")
        if bw:
            width = (math.log10(bw) - 2) / (6 - 2) * 380  # 100 GB/s .. 1 PB/s
            svg.rect(
                cols[3], y + 6, width, 22, fill=USED if source.startswith("measured") else HALO, stroke="none", rx=3
            )
        svg.text(cols[3], y + 50, f"{bw_text}  ({source})", size=14, anchor="start")
    notes = [
        f"capacities: NVIDIA's H100 SXM specification.  derived: {cal.sms} SMs x {cal.clock_ghz:.2f} GHz x bytes per clock "
        "(registers: 3 operands x 128 lanes x 4 B;",
        "shared: 32 banks x 4 B).  measured: cudaMemcpy device-to-device in the course's calibration (the spec says 3.35 TB/s).",
        "latencies: orders of magnitude from public microbenchmarks of Hopper, not measured by this course; "
        f"1 cycle = {1 / cal.clock_ghz:.2f} ns.",
    ]
    for n, note in enumerate(notes):
        svg.text(30, 405 + 20 * n, note, size=13, anchor="start", fill=GRID)
    return svg
