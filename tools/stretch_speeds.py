"""Each grade's stretch kernel against the library its lab's benchmark compares it with, in the same run.

A Markdown table of each stretch's speed, the library's (Lab 4: cuBLAS fp32) and the fraction, both measured by
one benchmark run: the way to choose between stretch kernels, each a variant graded on the same GPU.

    tools/grade-variants.sh --lab 4 --only NAME,NAME -- --no-mechanisms     # each variant's grade, on a GPU
    ./cml grade --solutions --lab 4 --no-mechanisms --json .results/solution.json
    PYTHONPATH=. .venv/bin/python tools/stretch_speeds.py .results/solution.json .results/variants/04_tiled_gemm/*.json

A grade on the CPU emulator has no benchmark: its row says so."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.core.model import BenchResult, KernelTiming, ratio
from grader.core.recorded import load_grade

REFERENCE = "reference"  # the role bench.cpp gives the library it compares with
STRETCH = "stretch"
HEADER = "| grade | lab | device | stretch | reference | fraction | problems |\n|---|---|---|---|---|---|---|"


def rate(kernel: KernelTiming) -> str:
    shown = f"{kernel.name}: " + (f"{kernel.gflops / 1000:.1f} TFLOP/s" if kernel.gflops else f"{kernel.gbps:.0f} GB/s")
    return shown if kernel.correct else f"{shown} (wrong result)"


def fraction(stretch: KernelTiming, reference: KernelTiming) -> str:
    """The stretch's speed over the reference's, both from one run; "-" where either has no trusted figure."""
    if not (stretch.correct and reference.correct) or stretch.problems or reference.problems:
        return "-"
    value = ratio(stretch.gflops, reference.gflops) if reference.gflops else ratio(stretch.gbps, reference.gbps)
    return "-" if value is None else f"{value:.2f}"


def rows(name: str, lab: str, bench: BenchResult | None) -> list[list[str]]:
    if bench is None:
        return [[name, lab[:2], "-", "not benchmarked (no GPU, or the benchmark did not run)", "-", "-", "-"]]
    reference = next((k for k in bench.kernels if k.role == REFERENCE), None)
    stretches = [k for k in bench.kernels if k.role == STRETCH and k.attempted]
    if not stretches:
        return [[name, lab[:2], bench.device, "no stretch attempted", "-", "-", "-"]]
    return [
        [
            name,
            lab[:2],
            bench.device,
            rate(stretch),
            rate(reference) if reference else "-",
            fraction(stretch, reference) if reference else "-",
            "; ".join(stretch.problems) or "-",
        ]
        for stretch in stretches
    ]


def table(grades: list[Path]) -> str:
    """One row per stretch kernel of each lab in each grade file, named by the file (and "solution" for a
    reference solution's entry)."""
    lines = [HEADER]
    for path in grades:
        for lab in load_grade(path).labs:
            lines += [
                "| " + " | ".join(cell.replace("|", "/") for cell in cells) + " |"
                for cells in rows(path.stem + (" (solution)" if lab.variant == "solution" else ""), lab.lab, lab.bench)
            ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("grades", type=Path, nargs="+", help="grade files (./cml grade --json, or a variant's)")
    args = parser.parse_args()
    print(table(args.grades), end="")


if __name__ == "__main__":
    main()
