"""Where grading time goes: each lab's steps (grade.json's "steps"), as a Markdown table, from one or more runs.

Usage:
    python tools/step_times.py GRADE.json [GRADE.json ...]     # one row per lab and variant per file
"""

from __future__ import annotations

import json
import sys


def table(paths: list[str]) -> str:
    runs = [(path, json.load(open(path))) for path in paths]
    steps = list(dict.fromkeys(step for _, run in runs for lab in run["labs"] for step in lab.get("steps", {})))
    # The GPU alone: the part of the benchmark's and ncu's steps during which every other lab of the run waited.
    rows = [
        "| run | lab | variant | total s | the GPU alone | " + " | ".join(steps) + " |",
        "|---|---|---|---|---|" + "---|" * len(steps),
    ]
    for path, run in runs:
        for lab in run["labs"]:
            cells = [f"{lab.get('steps', {}).get(step, 0.0):.1f}" for step in steps]
            alone = lab.get("gpu_alone_seconds", 0.0)
            rows.append(
                f"| {path} | {lab['lab']} | {lab['variant']} | {lab['seconds']:.1f} | {alone:.1f} | "
                + " | ".join(cells)
                + " |"
            )
        total = sum(lab["seconds"] for lab in run["labs"])
        alone = sum(lab.get("gpu_alone_seconds", 0.0) for lab in run["labs"])
        rows.append(f"| {path} | all, summed | | {total:.1f} | {alone:.1f} |" + " |" * len(steps))
        # Labs graded at once (--jobs) overlap: the run's own wall time is what a person waits.
        if run.get("built_ahead_seconds") is not None:
            rows.append(
                f"| {path} | all, built ahead at once | | {run['built_ahead_seconds']:.1f} | |" + " |" * len(steps)
            )
        if "seconds" in run:
            rows.append(
                f"| {path} | all, wall ({run.get('jobs', 1)} jobs) | | {run['seconds']:.1f} | |" + " |" * len(steps)
            )
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.stdout.write(table(sys.argv[1:]))
