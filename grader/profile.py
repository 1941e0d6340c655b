"""Nsight Compute counters of the student's kernels, read from a short profiling run of the benchmark.

The benchmark wraps each launch in an NVTX range named by its role ("student", "baseline", "stretch"), so
the counters are those of the student's launches whatever the kernels are called.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from grader import proc


@dataclass
class CounterRun:
    outcome: proc.Outcome
    totals: dict[str, float]  # metric -> sum over the profiled kernels
    kernels: int  # how many launches were profiled


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
    command = [
        str(ncu),
        "--csv",
        "--clock-control", "none",
        "--nvtx", "--nvtx-include", f"{role}/",
        "--metrics", ",".join(metrics),
        str(bench), "--profile", "--size", str(size),
    ]  # fmt: skip
    outcome = proc.run(command, timeout_s)
    totals, kernels = parse_csv(outcome.stdout)
    return CounterRun(outcome, totals, kernels)
