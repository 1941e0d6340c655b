"""Whether the figures a GPU's thresholds were set from still hold: each variant's ratios as ./cml calibrate
measured them, against the same ratios in later grades of the variants (tools/grade-variants.sh runs, one folder
each; grades written since the checks carry `measured`), as a Markdown table. The benchmarks changed
after calibrate ran; this shows by how much the measured ratios moved with them.

    PYTHONPATH=. .venv/bin/python tools/calibration_drift.py results/calibration/h100-measurements.json RUN_DIR ...
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from grader.calibration.calibrate import METRICS, kernel_from_record
from grader.calibration.variants import PERFORMANCE
from grader.core.recorded import RecordedCheck, load_grade


def metric_and_group(check: RecordedCheck, groups: set[str]) -> tuple[str, str] | None:
    """('speedup', 'R = 32') for 'speedup over naive (R = 32)'; None for a check that is no speed check."""
    metric = next((m for m, prefix in PERFORMANCE.items() if check.name.startswith(prefix)), None)
    if metric is None:
        return None
    last = check.name.rpartition(" (")[2].rstrip(")")
    return metric, last if check.name.endswith(")") and last in groups else ""


def ratio(check: RecordedCheck) -> float | None:
    """The measured ratio, also where this GPU grades the check by nothing ('not graded' still measures it).
    Only grades that carry the field count: older ones hold the ratio rounded in their detail text, too coarse
    for the small copy fractions."""
    return float(check.measured) if check.measured is not None else None


def graded_ratios(runs: list[Path], lab: str, name: str, groups: set[str]) -> dict[tuple[str, str], list[float]]:
    """(group, metric) -> the variant's ratio in each run that graded it."""
    found: dict[tuple[str, str], list[float]] = {}
    for run in runs:
        path = run / lab / f"{name}.json"
        if not path.is_file():
            continue
        for graded in load_grade(path).labs:
            if graded.lab != lab:
                continue
            for check in graded.checks:
                kind, value = metric_and_group(check, groups), ratio(check)
                if kind and value is not None:
                    found.setdefault((kind[1], kind[0]), []).append(value)
    return found


def drift_table(measurements: dict, runs: list[Path]) -> tuple[str, float]:
    """The table, and the largest move of a median (relative to calibrate's)."""
    lines = [
        "| lab | kernel | group | metric | calibrate (runs) | graded, lowest to highest (runs) | median moved |",
        "|---|---|---|---|---|---|---|",
    ]
    largest = 0.0
    for lab, kernels in measurements["labs"].items():
        for name, record in kernels.items():
            kernel = kernel_from_record(name, record)
            groups = {group for group, _ in kernel.values}
            graded = graded_ratios(runs, lab, name, groups)
            for (group, metric), values in sorted(kernel.values.items()):
                later = graded.get((group, metric))
                if not later or not values:
                    continue
                unit = METRICS[metric][0]
                before, after = statistics.median(values), statistics.median(later)
                moved = after / before - 1
                largest = max(largest, abs(moved))
                lines.append(
                    f"| {lab[:2]} | {name} | {group or '-'} | {metric} | {unit.format(before)} ({len(values)}) | "
                    f"{unit.format(min(later))} to {unit.format(max(later))} ({len(later)}) | {moved:+.1%} |"
                )
    return "\n".join(lines) + "\n", largest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("measurements", type=Path, help="a measurements JSON of ./cml calibrate")
    parser.add_argument("runs", type=Path, nargs="+", help="folders of tools/grade-variants.sh runs")
    args = parser.parse_args()
    table, largest = drift_table(json.loads(args.measurements.read_text()), args.runs)
    print(table + f"\nThe largest move of a median: {largest:.1%}.")


if __name__ == "__main__":
    main()
