"""The decks' pictures: diagrams drawn as SVG by small Python functions, and plots of the measured numbers."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

from grader.core.recorded import load_grade

from . import (
    accesses,
    banks,
    coalescing,
    constant_cache,
    gemm_tiles,
    halo,
    hierarchy,
    occupancy,
    plots,
    reduction,
    registers,
)
from .measured import read_calibration, read_grade
from .svg import GRID, Svg

LABS = [
    "01_vector_add",
    "02_dot_product",
    "03_smoothing_halo",
    "04_tiled_gemm",
    "05_padded_transpose",
    "06_warp_reduction",
    "07_constant_memory",
    "08_registers_local_memory",
    "09_occupancy",
    "10_host_memory",
    "11_histogram_atomics",
    "12_readonly_texture",
]


def _save_plot(fig, path: Path) -> None:
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def _placeholder(lab: str, reason: str) -> Svg:
    svg = Svg(1100, 300)
    svg.rect(20, 20, 1060, 260, fill="#fafafa", stroke=GRID, rx=12, dash="8,6")
    svg.text(550, 120, f"No timed results of yours for lab {lab[:2]} yet", size=26, weight="bold")
    svg.text(550, 170, reason, size=18, fill=GRID)
    svg.text(550, 215, "On a machine with a GPU: ./cml grade, then ./cml slides", size=20, mono=True)
    return svg


def write_all(out: Path, calibration: Path, solutions: Path, learner: Path | None) -> list[Path]:
    """Writes every picture into out/ and returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    cal = read_calibration(calibration)
    labs = read_grade(solutions, "solution")
    written = []
    for module in (banks, coalescing, constant_cache, gemm_tiles, halo, occupancy, reduction, registers):
        for name, draw in module.PICTURES.items():
            draw().save(out / name)
            written.append(out / name)
    hierarchy.hierarchy(cal).save(out / "intro-hierarchy.svg")
    written.append(out / "intro-hierarchy.svg")
    charts = {
        "intro-roofline.svg": plots.roofline(cal, labs),
        "intro-spread.svg": plots.spread(labs),
        "lab1-plot.svg": plots.vector_add(cal, labs),
        "lab2-plot.svg": plots.dot_product(cal, labs),
        "lab3-plot.svg": plots.smoothing(cal, labs),
        "lab4-plot.svg": plots.gemm(cal, labs),
        "lab5-plot.svg": plots.transpose(cal, labs),
        "lab6-plot.svg": plots.warp_reduction(cal, labs),
        "lab7-plot.svg": plots.constant_memory(cal, labs),
    }
    for name, fig in charts.items():
        _save_plot(fig, out / name)
        written.append(out / name)
    mine, device = ({}, None)
    if learner and learner.is_file():
        mine, device = read_grade(learner, "student"), _device(learner)
    for lab in LABS:
        path = out / f"lab{int(lab[:2])}-yours.svg"
        bench = mine.get(lab)
        if bench and lab in labs and any(k.correct and k.role in ("student", "stretch") for k in bench.kernels):
            _save_plot(plots.yours(lab, bench, labs[lab], device), path)
        else:
            reason = (
                "the reference solution's results have no timed run of this lab yet"
                if lab not in labs
                else f"{learner} has no timed, correct kernel of this lab"
                if learner and learner.is_file()
                else "no .results/grade.json in this checkout"
            )
            _placeholder(lab, reason).save(path)
        written.append(path)
    written += accesses.write(out, learner)
    return written


def _device(path: Path) -> str | None:
    return load_grade(path).device
