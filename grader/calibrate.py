"""Measuring this GPU and writing its thresholds (issue 16).

The reference solution and every kernel of grader/variants (correct ones written elsewhere, and known-wrong
ones) are benchmarked `runs` times each, in turns. Each speed check of each graded group then gets the
threshold that separates the slowest correct kernel from the fastest wrong one, the lab's baseline included,
with a margin on each side of at least MIN_MARGIN and of twice the run-to-run noise measured here. A check
that no threshold separates with that margin is not graded on this GPU (its points go to the lab's mechanism
checks), and the thresholds file says so and why. Every number in it says what it was derived from."""

from __future__ import annotations

import math
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from grader.bench import run_bench
from grader.build import BuildTree, compile_targets
from grader.config import TARGETS_DIR, Config, Lab
from grader.exits import GraderError
from grader.gpu import Gpu
from grader.variants import Variant, load_variants, split_group

MIN_MARGIN = 0.03  # at least 3 % between a threshold and any kernel it passes or fails
NOISE_FACTOR = 2.0  # and twice the largest run-to-run spread measured here
METRICS = {"speedup": ("x{:.2f}", "min_speedup", "speedup_from", "reference_speedup"),
           "copy fraction": ("{:.2f}", "min_copy_fraction", "copy_fraction_from", "reference_copy_fraction")}


@dataclass
class Kernel:
    """One program calibrate measures: the solution, a variant, or (as a wrong kernel) the lab's baseline."""

    name: str
    kind: str  # "correct" or "wrong"
    must_fail: str = ""  # a wrong kernel's check, as variants.toml names it
    values: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))  # (group, metric)
    wrong_results: list[str] = field(default_factory=list)  # runs where it computed a wrong result

    def median(self, group: str, metric: str) -> float | None:
        found = self.values.get((group, metric))
        return statistics.median(found) if found else None

    def spread(self, group: str, metric: str) -> float:
        found = self.values.get((group, metric)) or []
        return (max(found) - min(found)) / statistics.median(found) if len(found) > 1 and min(found) > 0 else 0.0

    def must_fail_check(self, group: str, metric: str) -> bool:
        head, named = split_group(self.must_fail)
        return head == metric and named in ("", group)


@dataclass
class Separation:
    threshold: float | None  # None: not graded on this GPU
    why: str  # what the number was derived from, or why there is none


def separate(correct: dict[str, float], wrong: dict[str, float], noise: float, unit: str) -> Separation:
    """The threshold between the slowest correct kernel and the fastest wrong one: their geometric mean, kept a
    margin away from both; None where the margin cannot be kept."""
    slow_name, slowest = min(correct.items(), key=lambda item: item[1])
    fast_name, fastest = max(wrong.items(), key=lambda item: item[1])
    margin = max(MIN_MARGIN, NOISE_FACTOR * noise)
    low, high = fastest * (1 + margin), slowest * (1 - margin)
    said = (f"the slowest correct kernel, {slow_name}, reached {unit.format(slowest)}; the fastest wrong one, "
            f"{fast_name}, {unit.format(fastest)}; margin {margin:.0%} each side (run-to-run spread {noise:.1%})")
    if low >= high:
        return Separation(None, f"time cannot separate them on this GPU: {said}")
    return Separation(min(max(math.sqrt(slowest * fastest), low), high), said)


def group_thresholds(lab: Lab, group: str, kernels: list[Kernel]) -> dict[str, object]:
    """The thresholds file's entries for one group: each metric's threshold (or why none) and its derivation."""
    entries: dict[str, object] = {}
    why_not: list[str] = []
    metrics = ["speedup"] + (["copy fraction"] if lab.memory_bound else [])
    noise = max(kernel.spread(group, metric) for kernel in kernels for metric in metrics)
    for metric in metrics:
        unit, key, derivation, reference = METRICS[metric]
        measured = {k.name: k.median(group, metric) for k in kernels if k.median(group, metric) is not None}
        correct = {name: value for name, value in measured.items()
                   if next(k for k in kernels if k.name == name).kind == "correct"}
        wrong = {k.name: measured[k.name] for k in kernels if k.kind == "wrong" and k.name in measured
                 and (k.name == "the baseline" or k.must_fail_check(group, metric))}
        if not wrong:
            continue  # no wrong kernel to separate from: nothing to grade with this metric
        found = separate(correct, wrong, noise, unit)
        entries[derivation] = found.why
        entries[reference] = round(measured["the solution"], 3)
        if found.threshold is None:
            why_not.append(f"{metric}: {found.why}")
        else:
            entries[key] = round(found.threshold, 3)
    if why_not:
        entries["not_graded"] = "; ".join(why_not) + ". Its points go to the lab's mechanism checks."
    return entries


def measure(config: Config, tree: BuildTree, lab: Lab, variants: list[Variant], runs: int, say) -> list[Kernel]:
    """Benchmarks the solution and the lab's variants `runs` times, in turns (so a drift of the GPU touches
    them all alike); the baseline's figures come with every run."""
    programs = {"the solution": tree.binary(lab.name, "solution", "bench")}
    programs |= {v.name: tree.variant_binary(lab.name, v.name, "bench") for v in variants}
    kernels = {"the solution": Kernel("the solution", "correct"), "the baseline": Kernel("the baseline", "wrong")}
    kernels |= {v.name: Kernel(v.name, v.kind, v.must_fail) for v in variants}
    for run in range(runs):
        for name, program in programs.items():
            say(f"Lab {lab.name}: run {run + 1} of {runs}, {name}")
            result = run_bench(program, config.timeouts["bench"]).result
            if result is None:
                raise GraderError(f"the benchmark of {lab.name} with {name} did not finish")
            for group in lab.graded_groups or result.groups():
                rates = result.group_rates(group, lab.memory_bound)
                if rates is None or not rates.correct or rates.speedup is None:
                    kernels[name].wrong_results.append(f"run {run + 1}, {group or 'the benchmark'}")
                    continue
                kernels[name].values[(group, "speedup")].append(rates.speedup)
                kernels["the baseline"].values[(group, "speedup")].append(1.0)
                if lab.memory_bound:
                    kernels[name].values[(group, "copy fraction")].append(rates.copy_fraction or 0.0)
                    baseline_fraction = result.copy_fraction(result.kernel("baseline", group)) or 0.0
                    kernels["the baseline"].values[(group, "copy fraction")].append(baseline_fraction)
    return list(kernels.values())


def toml_value(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else '"' + str(value).replace('"', "'") + '"'


def calibrate(config: Config, tree: BuildTree, gpu: Gpu, runs: int, output: Path | None, say) -> tuple[Path, dict]:
    """Measures every lab and writes the thresholds file; returns its path and every kernel's medians."""
    variants = load_variants()
    say("Building the solutions and the variants")
    built = compile_targets(tree, ["variants"] + [f"{lab.name}_solution" for lab in config.labs], config.timeouts["build"])
    if not built.ok:
        raise GraderError(f"the solutions or the variants do not build: {built.tail(3)}")
    lines = [
        f"# Thresholds for {gpu.name}, written by ./cml calibrate (grader/calibrate.py) from {runs} runs of the",
        "# reference solution and of every kernel of grader/variants. Each threshold lies between the slowest correct",
        "# kernel and the fastest wrong one, the baseline included; *_from says which and with what margin.",
        "",
        "[device]",
        f'description = "{gpu.name} (compute capability {gpu.compute_capability}), calibrated"',
        f'match = ["{gpu.name}"]',
    ]
    measured: dict[str, dict] = {}
    for lab in config.labs:
        mine = [v for v in variants if v.lab == lab.name]
        kernels = measure(config, tree, lab, mine, runs, say)
        measured[lab.name] = {k.name: {"kind": k.kind, "must_fail": k.must_fail, "wrong_results": k.wrong_results,
                                       "values": {f"{g} / {m}": v for (g, m), v in k.values.items()}} for k in kernels}
        for group in lab.graded_groups or sorted({g for k in kernels for g, _ in k.values}):
            header = f'[lab.{lab.name}.groups."{group}"]' if group else f"[lab.{lab.name}]"
            entries = group_thresholds(lab, group, [k for k in kernels if not k.wrong_results])
            lines += ["", header, *(f"{key} = {toml_value(value)}" for key, value in entries.items())]
    path = output or TARGETS_DIR / f"{slug(gpu.name)}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path, measured


def slug(device_name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", device_name.lower()).strip("-")
