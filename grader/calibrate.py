"""Measuring the reference solutions on this GPU and writing its target file of thresholds."""

from __future__ import annotations

import re
from pathlib import Path

from grader.bench import run_bench
from grader.build import BuildTree, build_lab
from grader.config import TARGETS_DIR, Config, Lab
from grader.exits import GraderError
from grader.gpu import Gpu
from grader.model import BenchResult


def slug(device_name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", device_name.lower()).strip("-")


def speedup_threshold(speedup: float, fraction: float) -> float:
    """`fraction` of the solution's gain over the baseline: 1 + f (s - 1). Where the solution is no faster
    (s <= 1, a lesson that does not pay on this GPU), the student is asked only not to be much slower:
    (1 + f) / 2 of s, 0.8 s for f = 0.6. Never f x s itself: for s = 1.3 that is 0.78, which the
    baseline kernel would pass."""
    return 1 + fraction * (speedup - 1) if speedup > 1 else (1 + fraction) / 2 * speedup


def _group_lines(lab: Lab, result: BenchResult, group: str, fraction: float) -> list[str]:
    rates = result.group_rates(group, lab.memory_bound)
    if rates is None:
        raise GraderError(f"the benchmark of {lab.name} reported no {group!r} run of the solution")
    if not rates.correct or rates.speedup is None:
        raise GraderError(f"the solution of {lab.name} computed a wrong result: {result.kernel('student', group).check}")
    threshold = speedup_threshold(rates.speedup, fraction)
    lines = [f'[lab.{lab.name}.groups."{group}"]'] if group else []
    lines.append(f"min_speedup = {threshold:.3g}  # solution: x{rates.speedup:.2f} over {lab.baseline}")
    if rates.copy_fraction is not None:
        lines.append(f"min_copy_fraction = {fraction * rates.copy_fraction:.3g}  # solution: {rates.copy_fraction:.2f} of copy")
    return lines


def calibrate(config: Config, tree: BuildTree, gpu: Gpu, fraction: float, output: Path | None, say) -> Path:
    """Thresholds from what the solutions measure here: speedup_threshold() for the speedup, `fraction`
    x the solution's fraction of copy bandwidth for memory-bound labs."""
    lines = [
        f"# Thresholds for {gpu.name}, written by ./cml calibrate from what the reference solutions",
        f"# measured here (fraction {fraction:g}: see grader/calibrate.py). Each is a ratio measured inside one",
        "# benchmark run.",
        "",
        "[device]",
        f'description = "{gpu.name} (compute capability {gpu.compute_capability}), calibrated"',
        f'match = ["{gpu.name}"]',
    ]
    for lab in config.labs:
        say(f"Lab {lab.name}: building and measuring the solution")
        built = build_lab(tree, lab.name, "solution", config.timeouts["build"])
        if not built.ok:
            raise GraderError(f"the solution of {lab.name} does not build: {built.tail(1)}")
        run = run_bench(tree.binary(lab.name, "solution", "bench"), config.timeouts["bench"])
        if run.result is None:
            raise GraderError(f"the benchmark of {lab.name} {run.outcome.how_it_ended()}: {run.outcome.tail(1)}")
        lines += ["", f"[lab.{lab.name}]"]
        for group in lab.graded_groups or run.result.groups():
            lines += _group_lines(lab, run.result, group, fraction)
    path = output or TARGETS_DIR / f"{slug(gpu.name)}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path
