"""Every kernel ./cml calibrate measured on one GPU, against the thresholds it wrote: its median speedup and copy
fraction per group, and whether the speed checks pass it, as a Markdown table.

    PYTHONPATH=. .venv/bin/python tools/variant_speeds.py results/calibration/h200-measurements.json grader/targets/h200.toml

A correct kernel is as expected when every graded check passes it; a wrong one whose lesson is a speed check
(the baseline, or its must_fail names one) when that check fails it. A wrong kernel whose lesson is a mechanism
(a counter or a sanitizer) is caught there, whatever its speed, and is listed for its figures only."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from grader.calibration.calibrate import METRICS, Kernel, kernel_from_record, runs_per_lab
from grader.core.config import Thresholds, load_config, load_target


def verdicts(kernel: Kernel, group: str, thresholds: Thresholds | None) -> tuple[list[str], list[bool]]:
    """Each metric's figure against its threshold, as shown, and whether it passes ("not graded" passes)."""
    shown, passed = [], []
    for metric, (unit, key, _, _) in METRICS.items():
        value = kernel.median(group, metric)
        if value is None:
            continue
        threshold = getattr(thresholds, key, None) if thresholds else None
        ok = threshold is None or value >= threshold
        limit = "not graded" if threshold is None else f"≥ {unit.format(threshold)}"
        shown.append(f"{unit.format(value)} ({limit})")
        passed.append(ok)
    return shown, passed


def expected(kernel: Kernel, group: str, passed: list[bool], time_graded: bool) -> str:
    if kernel.wrong_results:
        return "yes: wrong result" if kernel.kind == "wrong" else "NO: wrong result"
    if kernel.kind == "correct":
        return "yes" if all(passed) else "NO"
    if not any(kernel.must_fail_speed(group, metric) for metric in METRICS):
        return "yes (caught by its mechanism check)"
    if not time_graded:
        return "time not graded on this GPU (its points go to the mechanism checks)"
    return "yes" if not all(passed) else "NO"


def table(measurements: dict, target_path: Path) -> str:
    config, target = load_config(), load_target(target_path)
    rows = [
        f"Device: {measurements['device']}; thresholds: {target_path}; runs of each kernel: "
        + ", ".join(f"{lab} {count}" for lab, count in runs_per_lab(measurements["labs"]).items()),
        "",
        "| lab | group | kernel | kind | speedup | copy fraction | as expected |",
        "|---|---|---|---|---|---|---|",
    ]
    for lab in config.labs:
        records = measurements["labs"].get(lab.name, {})
        kernels = [kernel_from_record(name, record) for name, record in records.items()]
        groups = lab.graded_groups or sorted({group for k in kernels for group, _ in k.values})
        for group in groups:
            thresholds = target.for_lab(lab.name).get(group)
            graded = bool(thresholds and (thresholds.min_speedup or thresholds.min_copy_fraction))
            for kernel in kernels:
                shown, passed = verdicts(kernel, group, thresholds)
                figures = shown + ["-"] * (2 - len(shown))
                rows.append(
                    f"| {lab.name[:2]} | {group or '-'} | {kernel.name} | {kernel.kind} | {figures[0]} | "
                    f"{figures[1]} | {expected(kernel, group, passed, graded)} |"
                )
    return "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("measurements", type=Path, help="what ./cml calibrate measured (its --measurements file)")
    parser.add_argument("target", type=Path, help="the thresholds file it wrote")
    args = parser.parse_args()
    print(table(json.loads(args.measurements.read_text()), args.target), end="")


if __name__ == "__main__":
    main()
