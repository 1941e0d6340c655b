"""How much the same grading run moves from one repetition to the next: per lab, in how many runs every
check got the same status; for every performance check, the verdicts and the spread of the measured ratio;
and each timed kernel's spread, over the runs' JSON files.

    PYTHONPATH=. .venv/bin/python tools/verdict_noise.py RUN.json RUN.json ...      # prints a Markdown table
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter, defaultdict

from grader.core.recorded import load_grade


def collect(paths: list[str]) -> dict[tuple[str, str, str], list[tuple[str, float, float]]]:
    """(lab, variant, check) -> [(status, measured, threshold)] over the runs."""
    found = defaultdict(list)
    for path in paths:
        for lab in load_grade(path).labs:
            for check in lab.checks:
                figures = check.figures()
                if figures:
                    found[(lab.lab, lab.variant, check.name)].append((check.status.value, *figures))
    return found


def same_statuses(paths: list[str]) -> str:
    """Per lab: how many runs gave every check the status the most common run gave it."""
    outcomes = defaultdict(Counter)
    for path in paths:
        for lab in load_grade(path).labs:
            outcomes[(lab.lab, lab.variant)][tuple((c.name, c.status.value) for c in lab.checks)] += 1
    lines = ["| lab | variant | runs with every check's status the same | statuses in each run |", "|---|---|---|---|"]
    for (lab, variant), counted in sorted(outcomes.items()):
        statuses, runs = counted.most_common(1)[0]
        tally = ", ".join(f"{n} {s}" for s, n in sorted(Counter(s for _, s in statuses).items()))
        lines.append(f"| {lab} | {variant} | {runs} of {sum(counted.values())} | {tally} |")
    return "\n".join(lines)


def table(found: dict) -> str:
    lines = [
        "| lab | variant | check | verdicts | min | median | max | spread | threshold | margin of the min |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (lab, variant, name), runs in sorted(found.items()):
        verdicts = ", ".join(f"{n} {s}" for s, n in sorted(Counter(s for s, _, _ in runs).items()))
        values = [m for _, m, _ in runs if m == m]
        if not values:
            lines.append(f"| {lab} | {variant} | {name} | {verdicts} | | | | | | |")
            continue
        low, mid, high, threshold = min(values), statistics.median(values), max(values), runs[0][2]
        lines.append(
            f"| {lab} | {variant} | {name} | {verdicts} | {low:g} | {mid:g} | {high:g} | "
            f"{(high - low) / mid:.1%} | {threshold:g} | {low / threshold - 1:+.0%} |"
        )
    return "\n".join(lines)


def kernel_times(paths: list[str]) -> str:
    """Each timed kernel's median time over the runs: how far it moves between whole grading runs."""
    times = defaultdict(list)
    for path in paths:
        for lab in load_grade(path).labs:
            for kernel in lab.bench.kernels if lab.bench else []:
                if kernel.attempted and kernel.median_ms > 0:
                    times[(lab.lab, lab.variant, kernel.group, kernel.name)].append(kernel.median_ms)
    lines = [
        "| lab | variant | group | kernel | runs | min ms | median ms | max ms | spread |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (lab, variant, group, name), values in sorted(times.items()):
        low, mid, high = min(values), statistics.median(values), max(values)
        lines.append(
            f"| {lab} | {variant} | {group} | {name} | {len(values)} | {low:.4f} | {mid:.4f} | {high:.4f} | "
            f"{(high - low) / mid:.1%} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(f"{len(sys.argv) - 1} runs\n")
    print(same_statuses(sys.argv[1:]))
    print()
    print(table(collect(sys.argv[1:])))
    print()
    print(kernel_times(sys.argv[1:]))
