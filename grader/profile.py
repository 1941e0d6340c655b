"""Nsight Compute counters of the student's kernels, read from a short profiling run of the benchmark, or,
with no GPU, the same counters as the CPU emulator counts them (common/emu/README.md).

The benchmark wraps each launch in an NVTX range named by its role ("student", "baseline", "stretch"), so
the counters are those of the student's launches whatever the kernels are called.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

from grader import proc, suite


@dataclass
class CounterRun:
    outcome: proc.Outcome
    totals: dict[str, float]  # metric -> sum over the profiled kernels
    kernels: int  # how many launches were profiled
    tool: str = "ncu"  # what counted them, for reports


def parse_csv(text: str) -> tuple[dict[str, float], int]:
    rows = [line for line in text.splitlines() if line.startswith('"')]
    totals: dict[str, float] = {}
    launches: set[str] = set()
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        value = row.get("Metric Value", "").replace(",", "")
        try:
            number = float(value)
        except ValueError:
            continue
        launches.add(row.get("ID", ""))
        totals[row["Metric Name"]] = totals.get(row["Metric Name"], 0.0) + number
    return totals, len(launches)


def read_counters(
    ncu: Path, bench: Path, metrics: list[str], role: str, size: int, timeout_s: float
) -> CounterRun:
    """The benchmark's profiling run under ncu, in the sandbox; ncu's CSV is all its stdout has (the benchmark
    prints to stderr when the grader runs it)."""
    tool = (
        str(ncu),
        "--csv",
        "--clock-control", "none",
        "--nvtx", "--nvtx-include", f"{role}/",
        "--metrics", ",".join(metrics),
    )  # fmt: skip
    with suite.run_folder() as scratch:
        outcome = suite.run_program(suite.program_run(bench, scratch), timeout_s, tool, ("--profile", "--size", str(size)))
    totals, kernels = parse_csv(outcome.stdout)
    return CounterRun(outcome, totals, kernels)


def parse_emulator_json(data: dict, metrics: list[str], role: str) -> tuple[dict[str, float], int]:
    """The metrics of the launches in NVTX range `role` (the outermost one, as --nvtx-include role/ picks
    them) from the emulator's CML_EMU_PROFILE file; a metric the emulator does not count is left out."""
    totals: dict[str, float] = {}
    launches = 0
    for kernel in data.get("kernels", []):
        if kernel.get("nvtx_range", "").split("/")[0] != role:
            continue
        launches += kernel.get("launches", 0)
        for name in metrics:
            if name in kernel.get("metrics", {}):
                totals[name] = totals.get(name, 0.0) + float(kernel["metrics"][name])
    return totals, launches


def run_emulator_profile(bench: Path, args: tuple, timeout_s: float, env: dict | None = None) -> tuple[proc.Outcome, dict]:
    """Runs a program of the CPU emulator's build, in the sandbox, with its counters written to its record
    (CML_EMU_PROFILE); the counters it wrote, {} if none."""
    with suite.run_folder() as scratch:
        seen = suite.program_run(bench, scratch).record_as_seen()
        program = suite.program_run(bench, scratch, {**(env or {}), "CML_EMU_PROFILE": seen})
        outcome = suite.run_program(program, timeout_s, args=args)
        try:
            return outcome, json.loads(program.record.read_text()) if outcome.ok else {}
        except (OSError, ValueError):
            return outcome, {}  # a run that died while writing: no counters, which counter_check reports


def read_emulated_counters(bench: Path, metrics: list[str], role: str, size: int, timeout_s: float) -> CounterRun:
    """The same run of the benchmark as read_counters profiles, on the CPU emulator's build of it."""
    outcome, data = run_emulator_profile(bench, ("--profile", "--size", str(size)), timeout_s)
    totals, kernels = parse_emulator_json(data, metrics, role)
    return CounterRun(outcome, totals, kernels, tool="the CPU emulator")
