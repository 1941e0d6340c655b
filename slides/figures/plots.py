"""Plots of the measured numbers: the H100 calibration and the reference solutions' graded run (results/).
Every value is read from those files; each plot says which file it came from."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (the backend must be chosen first)
from matplotlib.layout_engine import ConstrainedLayoutEngine  # noqa: E402

from .measured import Bench, Calibration, number  # noqa: E402
from .svg import CONFLICT, GRID, HALO, LANE, USED  # noqa: E402

plt.rcParams.update(
    {
        "font.family": "DejaVu Sans",
        "font.size": 14,
        "svg.fonttype": "none",
        "svg.hashsalt": "cml",
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.3,
    }
)
CAL = "results/calibration/h100-textbook-kernels.md"
LAB = "results/h100-grade.json (reference solutions, graded on the H100)"


def _figure(title: str, source: str, size=(11, 5.2)):
    fig, ax = plt.subplots(figsize=size, layout=ConstrainedLayoutEngine(rect=(0, 0.04, 1, 0.96)))
    fig.suptitle(title, x=0.01, ha="left", fontsize=16, fontweight="bold")
    fig.text(0.99, 0.005, f"source: {source}", ha="right", va="bottom", fontsize=10, color=GRID)
    return fig, ax


def _bars(ax, labels, values, colors, unit="GB/s", fmt="{:.0f}"):
    bars = ax.barh(labels, values, color=colors)
    ax.invert_yaxis()
    ax.set_xlabel(unit)
    for bar, v in zip(bars, values, strict=True):
        ax.text(
            bar.get_width(),
            bar.get_y() + bar.get_height() / 2,
            " " + (f"{v:.1f}" if v < 10 else fmt.format(v)),
            va="center",
            fontsize=13,
        )
    ax.grid(axis="y", visible=False)
    return bars


def _copy_line(ax, gbps, label="cudaMemcpy copy"):
    ax.axvline(gbps, color=GRID, linestyle="--", linewidth=1.5)
    ax.text(
        gbps,
        1.0,
        f"{label}: {gbps:.0f} GB/s ",
        color=GRID,
        fontsize=12,
        va="bottom",
        ha="right",
        transform=ax.get_xaxis_transform(),
    )


def roofline(cal: Calibration, labs: dict[str, Bench]):
    fig, ax = _figure("H100 roofline (fp32, DRAM) and where the labs' solutions land", f"{CAL}; {LAB}")
    peak, bw = cal.fp32_peak_gflops, cal.copy_gbps
    ai = [2 ** (e / 4) for e in range(-16, 48)]
    ax.plot(ai, [min(peak, x * bw) for x in ai], color="black", linewidth=2.5)
    ax.text(0.45, 3000, f"DRAM roof: {bw:.0f} GB/s x intensity\n(the measured copy) ", ha="right", fontsize=12)
    ax.text(
        2**-4,
        peak * 1.12,
        f"fp32 peak: {peak / 1000:.1f} TFLOP/s (derived: {cal.sms} SMs x 128 x 2 x {cal.clock_ghz:.2f} GHz)",
        fontsize=12,
        ha="left",
    )
    ax.axvline(peak / bw, color=GRID, linestyle=":")
    ax.text(peak / bw * 1.08, 12, f"ridge: {peak / bw:.0f} flop/byte", color=GRID, fontsize=12)
    n = 4096
    points = [  # (label, flops per byte of DRAM traffic, GFLOP/s measured)
        ("vector add", 1 / 12, labs["01_vector_add"].kernel("vector_add").gbps / 12),
        ("dot (tree)", 2 / 8, labs["02_dot_product"].kernel("dot_product").gbps * 2 / 8),
        ("smoothing R=32", 65 / 8, labs["03_smoothing_halo"].kernel("smooth", "R = 32").gbps * 65 / 8),
        ("polynomial", 62 / 8, labs["07_constant_memory"].kernel("polynomial", "A: polynomial").gbps * 62 / 8),
        ("SGEMM naive", n / 6, labs["04_tiled_gemm"].kernel("naive").gflops),
        ("SGEMM tiled", n / 6, labs["04_tiled_gemm"].kernel("gemm_tiled").gflops),
        ("SGEMM reg.-blocked", n / 6, labs["04_tiled_gemm"].kernel("gemm_register_blocked").gflops),
        ("cuBLAS fp32", n / 6, labs["04_tiled_gemm"].kernel("cuBLAS sgemm (fp32)").gflops),
    ]
    # Where each label sits against its point (points: offset x, offset y, alignment), so none overlap.
    offsets = {
        "vector add": (6, -14, "left"),
        "dot (tree)": (6, 6, "left"),
        "polynomial": (6, 6, "left"),
        "smoothing R=32": (6, -14, "left"),
        "cuBLAS fp32": (8, -4, "left"),
        "SGEMM reg.-blocked": (-8, -6, "right"),
        "SGEMM tiled": (-8, 0, "right"),
        "SGEMM naive": (-8, -12, "right"),
    }
    for label, x, y in points:
        ax.plot(x, y, "o", color=LANE if x < 100 else HALO, markersize=9)
        dx, dy, ha = offsets[label]
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(dx, dy), ha=ha, fontsize=12)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity: flops per byte of DRAM traffic")
    ax.set_ylabel("GFLOP/s")
    ax.set_ylim(10, peak * 2)
    return fig


def spread(labs: dict[str, Bench]):
    fig, ax = _figure(
        "Run-to-run spread of every timed kernel: (max - min) / median of 25 launches", LAB, size=(11, 4.2)
    )
    values = [k.spread * 100 for b in labs.values() for k in b.kernels if k.correct]
    ax.hist(values, bins=[i / 4 for i in range(0, 14)], color=LANE, edgecolor="white")
    ax.set_xlabel("spread, % of the median")
    ax.set_ylabel("kernels")
    return fig


def vector_add(cal: Calibration, labs: dict[str, Bench]):
    fig, ax = _figure("Lab 1: vector add, 64M floats: GB/s by the distance between neighbouring lanes", f"{CAL}; {LAB}")
    rows = cal.table("Lab: vector add")
    labels = [r["version"] for r in rows]
    values = [number(r["GB/s"]) for r in rows]
    colors = [USED if v.startswith("coalesced") else CONFLICT for v in labels]
    _bars(ax, labels, values, colors)
    _copy_line(ax, cal.copy_gbps)
    lab = labs["01_vector_add"]
    ax.set_xlim(0, cal.copy_gbps * 1.18)
    ax.text(
        0.8,
        0.3,
        f"the lab's graded run: coalesced {lab.kernel('vector_add').gbps:.0f},\n"
        f"float4 {lab.kernel('vector_add_float4').gbps:.0f}, lanes 32 apart {lab.kernel('lanes 32 apart').gbps:.0f} GB/s",
        transform=ax.transAxes,
        ha="right",
        fontsize=12,
        color=GRID,
    )
    return fig


def dot_product(cal: Calibration, labs: dict[str, Bench]):
    fig, ax = _figure("Lab 2: dot product: the atomics set the pace (log scale)", f"16M rows: {LAB}; 64M rows: {CAL}")
    lab = labs["02_dot_product"]
    rows = cal.table("Lab: dot product")
    labels = [
        "one atomicAdd per element (16M)",
        "tree per block + 1 atomic per block (16M)",
        "same at 64M: 262k atomics on one address",
        "grid-stride + shuffles (16M)",
        "grid-stride + shuffles (64M)",
    ]
    values = [
        lab.kernel("one atomicAdd per element").gbps,
        lab.kernel("dot_product").gbps,
        number(rows[2]["GB/s"]),
        lab.kernel("dot_product_grid_stride").gbps,
        number(rows[3]["GB/s"]),
    ]
    _bars(ax, labels, values, [CONFLICT, LANE, LANE, USED, USED])
    ax.set_xscale("log")
    ax.set_xlim(1, cal.copy_gbps * 4)
    _copy_line(ax, cal.copy_gbps)
    return fig


def smoothing(cal: Calibration, labs: dict[str, Bench]):
    fig, ax = _figure("Lab 3: smoothing, 64M floats: the tile pays only once L1 cannot keep up", f"{CAL}; {LAB}")
    lab = labs["03_smoothing_halo"]
    radii = [1, 2, 4, 8, 16, 32]
    naive = [lab.kernel("naive", f"R = {r}").gbps for r in radii]
    tile = [lab.kernel("smooth", f"R = {r}").gbps for r in radii]
    rows = {int(number(r["R"])): r for r in cal.table("Lab: 1D smoothing")}
    ax.plot(radii, naive, "o-", color=CONFLICT, linewidth=2.5, label="naive: 2R + 1 global loads per thread")
    ax.plot(radii, tile, "o-", color=USED, linewidth=2.5, label="shared tile + halo")
    ax.plot(
        radii,
        [number(rows[r]["naive (L1 catches the reuse) GB/s"]) for r in radii],
        "o--",
        color=CONFLICT,
        alpha=0.4,
        label="calibration, naive",
    )
    ax.plot(
        radii,
        [number(rows[r]["shared tile + halo GB/s"]) for r in radii],
        "o--",
        color=USED,
        alpha=0.4,
        label="calibration, tile",
    )
    ax.text(0.9, 2700, "tile / naive:", ha="right", fontsize=13)
    for r, a, b in zip(radii, naive, tile, strict=True):
        ax.text(r, 2700, f"x{b / a:.2f}", ha="center", fontsize=13, fontweight="bold" if b > a else "normal")
    ax.set_xscale("log", base=2)
    ax.set_xticks(radii, [str(r) for r in radii])
    ax.set_xlabel("radius R")
    ax.set_ylabel("GB/s")
    ax.set_xlim(0.6, 45)
    ax.set_ylim(0, cal.copy_gbps)
    ax.legend(loc="lower left", fontsize=12)
    return fig


def gemm(cal: Calibration, labs: dict[str, Bench]):
    fig, ax = _figure("Lab 4: SGEMM, N = 4096, fp32", f"{CAL}; {LAB}")
    lab = labs["04_tiled_gemm"]
    sixteen = number(cal.row("Lab: SGEMM", "shared tiles 16x16")["N=4096 (GFLOP/s)"])
    labels = [
        "naive (x walks columns)",
        "tiles 16 x 16 (calibration)",
        "tiles 32 x 32 (the lab)",
        "128 x 128 block, 8 x 8 per thread",
        "cuBLAS sgemm, fp32",
    ]
    values = [
        lab.kernel("naive").gflops,
        sixteen,
        lab.kernel("gemm_tiled").gflops,
        lab.kernel("gemm_register_blocked").gflops,
        lab.kernel("cuBLAS sgemm (fp32)").gflops,
    ]
    _bars(ax, labels, values, [CONFLICT, LANE, LANE, USED, GRID], unit="GFLOP/s")
    peak = cal.fp32_peak_gflops
    ax.axvline(peak, color=GRID, linestyle="--")
    ax.text(
        peak,
        1.0,
        f"fp32 peak (derived): {peak:.0f} ",
        color=GRID,
        fontsize=12,
        ha="right",
        va="bottom",
        transform=ax.get_xaxis_transform(),
    )
    ax.set_xlim(0, peak * 1.1)
    return fig


def transpose(cal: Calibration, labs: dict[str, Bench]):
    fig, ax = _figure("Lab 5: transpose, 8192 x 8192 floats", f"{CAL}; {LAB}")
    lab = labs["05_padded_transpose"]
    unpadded = number(cal.row("Lab: transpose", "shared tile, no padding")["GB/s"])
    labels = [
        "naive (writes strided)",
        "tile [32][32] (calibration)",
        "tile [32][33]",
        "tile [32][32], XOR swizzle",
        "copy kernel, same launch shape",
    ]
    values = [
        lab.kernel("naive").gbps,
        unpadded,
        lab.kernel("transpose").gbps,
        lab.kernel("transpose_swizzled").gbps,
        lab.kernel("copy kernel (not a transpose)").gbps,
    ]
    _bars(ax, labels, values, [CONFLICT, CONFLICT, USED, USED, GRID])
    _copy_line(ax, cal.copy_gbps)
    ax.set_xlim(0, cal.copy_gbps * 1.18)
    return fig


def warp_reduction(cal: Calibration, labs: dict[str, Bench]):
    fig, ax = _figure(
        "Lab 6: block sums, 64M floats: the warp tricks pay only while a block's life is latency", f"{CAL}; {LAB}"
    )
    lab = labs["06_warp_reduction"]
    l2 = [number(v) for v in cal.row("Lab: warp-synchronous", "L2-resident")["GB/s"].split("/")]
    groups = {
        "1 element / thread": [
            lab.kernel("full tree", "unrolled, 1/thread").gbps,
            lab.kernel("unrolled last warp", "unrolled, 1/thread").gbps,
            lab.kernel("warp shuffles", "shuffle, 1/thread").gbps,
        ],
        "8 elements / thread": [
            lab.kernel("full tree", "unrolled, 8/thread").gbps,
            lab.kernel("unrolled last warp", "unrolled, 8/thread").gbps,
            lab.kernel("warp shuffles", "shuffle, 8/thread").gbps,
        ],
        "8 MB, L2-resident (calibration)": l2,
    }
    width = 0.27
    for n, (name, color) in enumerate([("full tree", CONFLICT), ("unrolled last warp", LANE), ("warp shuffles", USED)]):
        xs = [g + (n - 1) * width for g in range(len(groups))]
        values = [v[n] for v in groups.values()]
        ax.bar(xs, values, width, color=color, label=name)
        for x, v, base in zip(xs, values, [v[0] for v in groups.values()], strict=True):
            ax.text(x, v, f"{v:.0f}\nx{v / base:.2f}", ha="center", va="bottom", fontsize=11)
    ax.set_xticks(range(len(groups)), list(groups))
    ax.set_ylabel("GB/s")
    ax.set_ylim(0, cal.copy_gbps * 1.15)
    ax.axhline(cal.copy_gbps, color=GRID, linestyle="--")
    ax.legend(loc="upper left", fontsize=12)
    return fig


def constant_memory(cal: Calibration, labs: dict[str, Bench]):
    fig, ax = _figure("Lab 7: the same kernel, the array in global or in __constant__ memory", f"{CAL}; {LAB}")
    lab = labs["07_constant_memory"]
    conv = [
        number(cal.row("Lab: constant memory", "63-tap")["GB/s"]),
        number(cal.row("Lab: constant memory", "same, weights")["GB/s"]),
    ]
    groups = {
        "A: degree-31 polynomial\n(lanes read the same c[k])": [
            lab.kernel("global pointer", "A: polynomial").gbps,
            lab.kernel("polynomial", "A: polynomial").gbps,
        ],
        "B: 1024-entry look-up\n(each lane its own entry)": [
            lab.kernel("global-memory table", "B: look-up").gbps,
            lab.kernel("__constant__ table", "B: look-up").gbps,
        ],
        "63-tap convolution\n(calibration)": conv,
    }
    width = 0.36
    for n, (name, color) in enumerate([("global memory", LANE), ("constant memory", HALO)]):
        xs = [g + (n - 0.5) * width for g in range(len(groups))]
        values = [v[n] for v in groups.values()]
        ax.bar(xs, values, width, color=color, label=name)
        for x, v in zip(xs, values, strict=True):
            ax.text(x, v, f"{v:.0f}", ha="center", va="bottom", fontsize=12)
    ax.set_xticks(range(len(groups)), list(groups))
    ax.set_ylabel("GB/s")
    ax.set_ylim(0, cal.copy_gbps)
    ax.legend(loc="upper right", fontsize=12)
    return fig


def yours(lab: str, mine: Bench, reference: Bench, device: str | None):
    """The learner's kernels next to the reference solution's, from the learner's own .results/grade.json."""
    fig, ax = _figure(
        f"Lab {int(lab[:2])}: yours ({device or 'your GPU'}) and the reference solution (H100)",
        ".results/grade.json (your last ./cml grade) and " + LAB,
        size=(11, 4.6),
    )

    def rate(x):
        return x.gflops or x.gbps

    rows = []
    for k in reference.kernels:
        if k.role not in ("student", "stretch"):
            continue
        label = f"{k.name} ({k.group})" if k.group else k.name
        try:
            m = mine.kernel(k.name, k.group)
        except KeyError:
            m = None
        rows.append((label, rate(m) if m and m.correct else 0.0, rate(k)))
    unit = "GFLOP/s" if reference.kernels[0].gflops else "GB/s"
    ys = range(len(rows))
    ax.barh([y - 0.2 for y in ys], [r[1] for r in rows], 0.4, color=LANE, label="yours (0: not timed or not correct)")
    ax.barh([y + 0.2 for y in ys], [r[2] for r in rows], 0.4, color=GRID, label="reference solution, H100")
    for y, (_, mine_rate, ref_rate) in zip(ys, rows, strict=True):
        ax.text(mine_rate, y - 0.2, f" {mine_rate:.0f}", va="center", fontsize=12)
        ax.text(ref_rate, y + 0.2, f" {ref_rate:.0f}", va="center", fontsize=12)
    ax.set_yticks(list(ys), [r[0] for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel(unit)
    ax.set_xlim(0, max(max(r[1], r[2]) for r in rows) * 1.6)
    ax.legend(loc="center right", fontsize=12)
    return fig
