"""Measuring this GPU and writing its thresholds, each set between what correct and wrong kernels reach.

The reference solution and every kernel of variants/ (correct ones written elsewhere, and known-wrong
ones) are benchmarked `runs` times each, in turns. Each speed check of each graded group then gets the
threshold that separates the slowest correct kernel from the fastest wrong one, the lab's baseline included,
with a margin on each side of at least MIN_MARGIN and of twice the run-to-run noise measured here. A check
that no threshold separates with that margin is not graded on this GPU (its points go to the lab's mechanism
checks), and the thresholds file says so and why. Every number in it says what it was derived from.

It also grades the reference solution, each lab alone, and records how long each step's program ran: the steps'
time limits on this GPU are derived from those times (grader/steps/time_limits.py)."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader.calibration.variants import Variant, load_variants, split_group
from grader.core.config import TARGETS_DIR, Config, Lab
from grader.core.exits import GraderError, UsageError
from grader.core.model import Status
from grader.execution.gpu import Gpu
from grader.execution.gpu_lock import GpuLock
from grader.grading.context import Context
from grader.grading.grade import grade_lab
from grader.steps.bench import run_bench
from grader.steps.build import BuildTree, compile_targets
from grader.steps.time_limits import TIMED_STEPS

MIN_MARGIN = 0.03  # at least 3 % between a threshold and any kernel it passes or fails
NOISE_FACTOR = 2.0  # and twice the largest run-to-run spread measured here
METRICS = {
    "speedup": ("x{:.2f}", "min_speedup", "speedup_from", "reference_speedup"),
    "copy fraction": ("{:.2f}", "min_copy_fraction", "copy_fraction_from", "reference_copy_fraction"),
}


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

    def spread(self, group: str, metric: str) -> float | None:
        """How far its runs differ, relative to their median; None where it was not measured twice. The
        baseline's speedup is 1 by definition, not a measurement, so it has no spread."""
        found = self.values.get((group, metric)) or []
        if len(found) < 2 or min(found) <= 0 or (self.name == "the baseline" and metric == "speedup"):
            return None
        return (max(found) - min(found)) / statistics.median(found)

    def must_fail_check(self, group: str, metric: str) -> bool:
        head, named = split_group(self.must_fail)
        return head == metric and named in ("", group)

    def must_fail_speed(self, group: str, metric: str) -> bool:
        """A wrong kernel that this speed check must fail: the lab's baseline, or one whose lesson is this check.
        (A wrong kernel whose lesson is a mechanism is caught there, whatever its speed.)"""
        return self.kind == "wrong" and (self.name == "the baseline" or self.must_fail_check(group, metric))


@dataclass
class Separation:
    threshold: float | None  # None: not graded on this GPU
    why: str  # what the number was derived from, or why there is none


def separate(
    correct: dict[str, float], wrong: dict[str, float], noise: float | None, unit: str, noise_from: str = ""
) -> Separation:
    """The threshold between the slowest correct kernel and the fastest wrong one: their geometric mean, kept a
    margin away from both; None where the margin cannot be kept. `noise` None: no kernel was measured twice,
    so the margin is MIN_MARGIN alone, and the derivation says so; `noise_from` says where it was measured."""
    slow_name, slowest = min(correct.items(), key=lambda item: item[1])
    fast_name, fastest = max(wrong.items(), key=lambda item: item[1])
    margin = MIN_MARGIN if noise is None else max(MIN_MARGIN, NOISE_FACTOR * noise)
    spread = (
        "run-to-run spread not measured: one run of each kernel" if noise is None else f"run-to-run spread {noise:.1%}"
    )
    spread += noise_from
    low, high = fastest * (1 + margin), slowest * (1 - margin)
    said = (
        f"the slowest correct kernel, {slow_name}, reached {unit.format(slowest)}; the fastest wrong one, "
        f"{fast_name}, {unit.format(fastest)}; margin {margin:.0%} each side ({spread})"
    )
    if low >= high:
        return Separation(None, f"time cannot separate them on this GPU: {said}")
    return Separation(min(max(math.sqrt(slowest * fastest), low), high), said)


def group_thresholds(lab: Lab, group: str, kernels: list[Kernel]) -> dict[str, object]:
    """The thresholds file's entries for one group: each metric's threshold (or why none) and its derivation."""
    entries: dict[str, object] = {}
    why_not: list[str] = []
    metrics = ["speedup"] + (["copy fraction"] if lab.memory_bound else [])
    spreads = {
        (k.name, metric): spread
        for k in kernels
        for metric in metrics
        if (spread := k.spread(group, metric)) is not None
    }
    noise = max(spreads.values(), default=None)
    # With one run of each kernel, only the baseline (run beside every kernel) was measured more than once.
    alone = spreads and all(name == "the baseline" for name, _ in spreads)
    noise_from = ", of the baseline alone: one run of every other kernel" if alone else ""
    for metric in metrics:
        unit, key, derivation, reference = METRICS[metric]
        measured = {k.name: value for k in kernels if (value := k.median(group, metric)) is not None}
        correct = {
            name: value
            for name, value in measured.items()
            if next(k for k in kernels if k.name == name).kind == "correct"
        }
        wrong = {k.name: measured[k.name] for k in kernels if k.name in measured and k.must_fail_speed(group, metric)}
        if not wrong:
            continue  # no wrong kernel to separate from: nothing to grade with this metric
        found = separate(correct, wrong, noise, unit, noise_from)
        entries[derivation] = found.why
        entries[reference] = round(measured["the solution"], 3)
        if found.threshold is None:
            why_not.append(f"{metric}: {found.why}")
        else:
            entries[key] = round(found.threshold, 3)
    if why_not:
        entries["not_graded"] = "; ".join(why_not) + ". Its points go to the lab's mechanism checks."
    return entries


def measure(
    config: Config, tree: BuildTree, lab: Lab, variants: list[Variant], runs: int, say, gpu_lock: GpuLock
) -> list[Kernel]:
    """Benchmarks the solution and the lab's variants `runs` times, in turns (so a drift of the GPU touches
    them all alike); the baseline's figures come with every run. Each benchmark has the GPU to itself for its
    whole run (`gpu_lock`: on a GPU, the card's, which every grader on it holds too)."""
    programs = {"the solution": tree.binary(lab.name, "solution", "bench")}
    programs |= {v.name: tree.variant_binary(lab.name, v.name, "bench") for v in variants}
    kernels = {"the solution": Kernel("the solution", "correct"), "the baseline": Kernel("the baseline", "wrong")}
    kernels |= {v.name: Kernel(v.name, v.kind, v.must_fail) for v in variants}
    for run in range(runs):
        for name, program in programs.items():
            say(f"Lab {lab.name}: run {run + 1} of {runs}, {name}")
            with gpu_lock.exclusive():
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
                    baseline = result.kernel("baseline", group)
                    assert baseline is not None  # group_rates() is None where the group has no baseline
                    baseline_fraction = result.copy_fraction(baseline) or 0.0
                    kernels["the baseline"].values[(group, "copy fraction")].append(baseline_fraction)
    return list(kernels.values())


def toml_value(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else '"' + str(value).replace('"', "'") + '"'


def kernel_record(kernel: Kernel) -> dict:
    return {
        "kind": kernel.kind,
        "must_fail": kernel.must_fail,
        "wrong_results": kernel.wrong_results,
        "values": {f"{group} / {metric}": values for (group, metric), values in kernel.values.items()},
    }


def kernel_from_record(name: str, record: dict) -> Kernel:
    kernel = Kernel(name, record["kind"], record["must_fail"], wrong_results=record["wrong_results"])
    for key, values in record["values"].items():
        group, _, metric = key.rpartition(" / ")
        kernel.values[(group, metric)] = values
    return kernel


def read_measurements(path: Path, gpu: Gpu) -> dict:
    """What earlier runs of calibrate measured on this GPU: "labs" (lab -> kernel -> record) and "step_seconds"
    (lab -> step -> the reference solution's seconds, one per run); {} for another GPU."""
    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) and found.get("device") == gpu.name else {}


def load_measurements(path: Path, gpu: Gpu) -> dict:
    """The kernels' measurements of earlier runs of calibrate on this GPU (lab -> kernel -> record)."""
    return read_measurements(path, gpu).get("labs", {})


def runs_per_lab(measured: dict) -> dict[str, int]:
    """How many runs of its kernels each lab's measurements hold (the labs may come from calls of calibrate
    with different --runs): the reference solution's count."""
    return {
        lab: max((len(values) for values in kernels["the solution"]["values"].values()), default=0)
        for lab, kernels in measured.items()
    }


def reference_seconds_lines(config: Config, step_seconds: dict) -> list[str]:
    """The thresholds file's [reference_seconds.LAB] tables: the longest of the reference solution's runs of each
    step, which its time limits are derived from (grader/steps/time_limits.py)."""
    lines = []
    for lab in (lab for lab in config.labs if step_seconds.get(lab.name)):
        steps = step_seconds[lab.name]
        lines += ["", f"[reference_seconds.{lab.name}]"]
        lines += [f"{step} = {toml_value(round(max(steps[step]), 1))}" for step in TIMED_STEPS if steps.get(step)]
    return lines


def thresholds_file(config: Config, gpu: Gpu, measured: dict, step_seconds: dict | None = None) -> str:
    runs = runs_per_lab(measured)
    step_seconds = step_seconds or {}
    lines = [
        f"# Thresholds for {gpu.name}, written by ./cml calibrate (grader/calibration/calibrate.py) from runs of the reference",
        "# solution and of every kernel of variants/. Each threshold lies between the slowest correct kernel",
        "# and the fastest wrong one, the baseline included; *_from says which and with what margin. reference_* is",
        "# the reference solution's median over the runs (reports show it beside the student's figure).",
        "# Runs of each kernel, by lab: " + ", ".join(f"{lab[:2]}: {count}" for lab, count in runs.items()) + ".",
    ]
    missing = [lab.name for lab in config.labs if lab.name not in measured]
    if missing:
        lines.append(f"# Not measured yet, so not graded on this GPU: {', '.join(missing)}.")
    if step_seconds:
        lines += [
            "# reference_seconds: how long each step's program ran as the reference solution was graded here, each lab",
            "# alone, at the largest sizes the grader draws (the longest of the runs); each step's time limit on this",
            "# GPU comes from it (grader/steps/time_limits.py). A lab without one has labs.toml's fixed limits.",
        ]
    else:
        lines += [
            "# No reference_seconds: the reference solution's steps are not timed on this GPU, so each step has",
            "# labs.toml's fixed time limit (./cml calibrate --times-only times them).",
        ]
    lines += [
        "",
        "[device]",
        f'description = "{gpu.name} (compute capability {gpu.compute_capability}), calibrated"',
        f'match = ["{gpu.name}"]',
    ]
    for lab in (lab for lab in config.labs if lab.name in measured):
        kernels = [kernel_from_record(name, record) for name, record in measured[lab.name].items()]
        trusted = [kernel for kernel in kernels if not kernel.wrong_results]
        for group in lab.graded_groups or sorted({g for k in kernels for g, _ in k.values}):
            header = f'[lab.{lab.name}.groups."{group}"]' if group else f"[lab.{lab.name}]"
            entries = group_thresholds(lab, group, trusted)
            lines += ["", header, *(f"{key} = {toml_value(value)}" for key, value in entries.items())]
    lines += reference_seconds_lines(config, step_seconds)
    return "\n".join(lines) + "\n"


def largest_sizes(lab: Lab) -> list[str]:
    """As many sizes as the grader draws for `lab`, each at the top of every range: no run draws larger."""
    spec = lab.grader_sizes
    return ["x".join(str(high) for _, high in spec.ranges)] * spec.count if spec else []


def time_steps(ctx: Context, lab: Lab) -> dict[str, float]:
    """How long each step's program ran as the reference solution of `lab` was graded (grade.grade_lab) with
    labs.toml's fixed limits, not those an earlier calibration gave, and the largest sizes the grader draws.
    Raises GraderError where a check failed: the times of a run that went wrong would set wrong limits."""
    measuring = dataclasses.replace(ctx, target=None, instructor_sizes={lab.name: largest_sizes(lab)})
    graded = grade_lab(measuring, lab, "solution")
    failed = [check.name for check in graded.checks if check.status is Status.FAILED]
    if failed:
        raise GraderError(
            f"the reference solution of {lab.name} failed {', '.join(failed[:3])}: its steps are not timed"
        )
    return graded.program_seconds


def calibrate(
    config: Config,
    tree: BuildTree,
    gpu: Gpu,
    runs: int,
    labs: list[Lab],
    measurements: Path,
    output: Path | None,
    say,
    timed: Callable[[Lab], dict[str, float]] | None = None,
    times_only: bool = False,
    gpu_lock: GpuLock | None = None,
) -> tuple[Path, dict]:
    """Measures `labs` (adding to what `measurements` holds for this GPU, which it keeps up to date after each
    lab, so a run stopped half-way loses nothing) and writes the thresholds file from every lab measured so far.
    `timed(lab)`: one timing of the reference solution's steps (time_steps), made `runs` times; None: not made.
    With `times_only`, the kernels are not benchmarked again. `gpu_lock`: the card's (grade.Context's), so that
    no grader on it runs beside a benchmark; none: this process's own. Returns the file's path and the kernels'
    measurements."""
    variants = load_variants()
    found = read_measurements(measurements, gpu)
    measured, step_seconds = found.get("labs", {}), found.get("step_seconds", {})
    for lab in labs:
        if not times_only:
            mine = [v for v in variants if v.lab == lab.name]
            say(f"Lab {lab.name}: building the solution and {len(mine)} variants")
            targets = [f"{lab.name}_solution"] + [f"variant_{lab.name}__{v.name}_bench" for v in mine]
            built = compile_targets(tree, targets, config.timeouts["build"])
            if not built.ok:
                raise GraderError(f"the solution or the variants of {lab.name} do not build: {built.tail(3)}")
            kernels = measure(config, tree, lab, mine, runs, say, gpu_lock or GpuLock())
            measured[lab.name] = {kernel.name: kernel_record(kernel) for kernel in kernels}
        if timed:
            steps: dict[str, list[float]] = defaultdict(list)
            for run in range(runs):
                say(f"Lab {lab.name}: run {run + 1} of {runs}, timing the reference solution's steps")
                for step, seconds in timed(lab).items():
                    steps[step].append(seconds)
            step_seconds[lab.name] = dict(steps)
        measurements.parent.mkdir(parents=True, exist_ok=True)
        device = {"device": gpu.name, "compute_capability": gpu.compute_capability}
        kept = device | {"labs": measured} | ({"step_seconds": step_seconds} if step_seconds else {})
        measurements.write_text(json.dumps(kept, indent=1) + "\n")
    path = output or TARGETS_DIR / f"{slug(gpu.name)}.toml"
    path.write_text(thresholds_file(config, gpu, measured, step_seconds))
    return path, measured


def rewrite(config: Config, measurements: Path, output: Path | None) -> Path:
    """The thresholds file written again from `measurements` alone, with no GPU and nothing measured (after a
    change to how thresholds are derived, or to check a shipped file against the figures it came from)."""
    try:
        found = json.loads(measurements.read_text())
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read the measurements {measurements}: {error}") from error
    if not isinstance(found, dict) or not {"device", "labs"} <= found.keys():
        raise UsageError(f"{measurements} is not a measurements file of ./cml calibrate (no device or labs)")
    gpu = Gpu(True, found["device"], found.get("compute_capability", "?"))
    path = output or TARGETS_DIR / f"{slug(gpu.name)}.toml"
    path.write_text(thresholds_file(config, gpu, found["labs"], found.get("step_seconds", {})))
    return path


def slug(device_name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", device_name.lower()).strip("-")
