"""Running a lab's benchmark and reading its JSON."""

from __future__ import annotations

import dataclasses
import json
import statistics
from dataclasses import dataclass
from pathlib import Path

from grader.core.model import BenchResult, KernelTiming
from grader.execution import gpu_turn, proc
from grader.steps import profile, suite


@dataclass
class BenchRun:
    outcome: proc.Outcome
    result: BenchResult | None  # None when the benchmark did not finish
    counters: profile.RecordedCounters | None = None  # what the counters recorder counted, where it was asked


def parse_bench(data: dict) -> BenchResult:
    kernels = [
        KernelTiming(
            name=k["name"],
            role=k["role"],
            group=k.get("group", ""),
            attempted=k["attempted"],
            correct=k["correct"],
            check=k["check"],
            median_ms=k["median_ms"],
            spread=(k["max_ms"] - k["min_ms"]) / k["median_ms"] if k["median_ms"] else 0.0,
            gbps=k["gbps"],
            gflops=k["gflops"],
            bytes=k.get("bytes", 0.0),
            flops=k.get("flops", 0.0),
            problems=list(k.get("problems", [])),
            timed_launches_verified=k.get("timed_launches_verified", 0),
            timed_launches_checked=k.get("timed_launches_checked", 0),
            timed_launches=k.get("samples", 0),
            host_median_ms=k.get("host_median_ms", 0.0),
            floor_ms=k.get("floor_ms", 0.0),
        )
        for k in data["kernels"]
    ]
    device = data["device"]
    return BenchResult(device=device["name"], copy_gbps=device["copy_gbps"], problem=data["problem"], kernels=kernels)


def median_of(results: list[BenchResult]) -> BenchResult:
    """One result from several runs of the same benchmark: each kernel's median time (and rate) over the
    runs. With three runs, one disturbed run cannot decide a verdict either way."""

    def mid(values: list[float]) -> float:
        return statistics.median(values)

    first = results[0]
    kernels = []
    for kernel in first.kernels:
        same = [
            k
            for r in results
            for k in r.kernels
            if (k.role, k.group, k.name) == (kernel.role, kernel.group, kernel.name)
        ]
        kernels.append(
            dataclasses.replace(
                kernel,
                median_ms=mid([k.median_ms for k in same]),
                gbps=mid([k.gbps for k in same]),
                gflops=mid([k.gflops for k in same]),
                spread=max(k.spread for k in same),
                correct=all(k.correct for k in same),
                problems=list(dict.fromkeys(problem for k in same for problem in k.problems)),
                timed_launches_verified=sum(k.timed_launches_verified for k in same),
                timed_launches_checked=sum(k.timed_launches_checked for k in same),
                timed_launches=sum(k.timed_launches for k in same),
                host_median_ms=mid([k.host_median_ms for k in same]),
            )
        )
    return dataclasses.replace(first, copy_gbps=mid([r.copy_gbps for r in results]), kernels=kernels)


def printed_only_args(groups: tuple[str, ...]) -> tuple[str, ...]:
    """The benchmark's arguments naming `groups` as shown, not graded (cml/bench.hpp: --printed-only)."""
    return tuple(word for group in groups for word in ("--printed-only", group))


def run_bench(
    binary: Path,
    timeout_s: proc.Limit,
    gpu_hold: gpu_turn.Hold | None = None,
    counting: profile.Counting | None = None,
    printed_only: tuple[str, ...] = (),
    seed: dict[str, str] | None = None,
) -> BenchRun:
    """The benchmark in the sandbox; its results are the JSON it writes to its record. With `gpu_hold`, it asks
    for the GPU alone before its first launch, and has it until its last launch is over
    (grader/execution/gpu_turn.py). With `counting`, the counters recorder counts its checked launches as well.
    `printed_only`: groups whose times are shown, not graded, which it times over fewer launches. `seed`: the
    grade's CML_SEED, so that its inputs are drawn again in a replay."""
    variables = {**(seed or {}), **(counting.variables() if counting else {})}
    files = counting.files() if counting else {}
    args = printed_only_args(printed_only)
    with suite.run_folder() as scratch, gpu_turn.served(scratch, gpu_hold) as turn:
        program = suite.program_run(binary, scratch, variables, turn=turn, files=files)
        outcome = suite.run_program(program, timeout_s, args=args, turn=turn)
        try:
            result = parse_bench(json.loads(program.record.read_text())) if outcome.ok else None
        except (ValueError, KeyError, TypeError):
            result = None  # no JSON, or not the benchmark's: reported as a benchmark that did not finish
    return BenchRun(outcome, result, profile.read_recorded(counting, outcome) if counting else None)
