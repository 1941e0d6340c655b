"""Measuring the reference solutions on this GPU and writing its target file of thresholds."""

from __future__ import annotations

import re
from pathlib import Path

from grader.bench import run_bench
from grader.build import BuildTree, build_lab
from grader.config import TARGETS_DIR, Config, Lab
from grader.gpu import Gpu
from grader.model import BenchResult


def slug(device_name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", device_name.lower()).strip("-")


def _group_lines(lab: Lab, result: BenchResult, group: str, fraction: float) -> list[str]:
    student, baseline = result.kernel("student", group), result.kernel("baseline", group)
    if not student.correct:
        raise RuntimeError(f"the solution of {lab.name} computed a wrong result: {student.check}")
    speedup = baseline.median_ms / student.median_ms
    lines = [f'[lab.{lab.name}.groups."{group}"]'] if group else []
    lines.append(f"min_speedup = {fraction * speedup:.3g}  # solution: x{speedup:.2f} over {lab.baseline}")
    if lab.memory_bound:
        copy_fraction = student.gbps / result.copy_gbps
        lines.append(f"min_copy_fraction = {fraction * copy_fraction:.3g}  # solution: {copy_fraction:.2f} of copy")
    return lines


def calibrate(config: Config, tree: BuildTree, gpu: Gpu, fraction: float, output: Path | None, say) -> Path:
    """Threshold = `fraction` x what the solution measured, for the speedup and the copy fraction alike."""
    lines = [
        f"# Thresholds for {gpu.name}, written by ./cml calibrate: {fraction:g} x what the reference",
        "# solutions measured here. Each is a ratio measured inside one benchmark run.",
        "",
        "[device]",
        f'description = "{gpu.name} (compute capability {gpu.compute_capability}), calibrated"',
        f'match = ["{gpu.name}"]',
    ]
    for lab in config.labs:
        say(f"Lab {lab.name}: building and measuring the solution")
        built = build_lab(tree, lab.name, "solution", config.timeouts["build"])
        if not built.ok:
            raise RuntimeError(f"the solution of {lab.name} does not build:\n{built.tail()}")
        run = run_bench(tree.binary(lab.name, "solution", "bench"), config.timeouts["bench"])
        if run.result is None:
            raise RuntimeError(f"the benchmark of {lab.name} {run.outcome.how_it_ended()}:\n{run.outcome.tail()}")
        lines += ["", f"[lab.{lab.name}]"]
        for group in run.result.groups():
            lines += _group_lines(lab, run.result, group, fraction)
    path = output or TARGETS_DIR / f"{slug(gpu.name)}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path
