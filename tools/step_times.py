"""Where grading time goes: each lab's steps (grade.json's "steps"), as a Markdown table, from one or more runs.

Usage (one row per lab and variant per file):
    PYTHONPATH=. .venv/bin/python tools/step_times.py GRADE.json [GRADE.json ...]
"""

from __future__ import annotations

import sys

from grader.core.recorded import load_grade


def table(paths: list[str]) -> str:
    runs = [(path, load_grade(path)) for path in paths]
    for path, run in runs:
        if any(lab.seconds is None for lab in run.labs):
            raise SystemExit(f"{path}: written before each lab recorded how long it took; grade again to time it")
    steps = list(dict.fromkeys(step for _, run in runs for lab in run.labs for step in lab.steps))
    # The GPU alone: the part of the benchmark's and ncu's steps during which every other lab of the run waited.
    rows = [
        "| run | lab | variant | total s | the GPU alone | " + " | ".join(steps) + " |",
        "|---|---|---|---|---|" + "---|" * len(steps),
    ]
    for path, run in runs:
        for lab in run.labs:
            cells = [f"{lab.steps.get(step, 0.0):.1f}" for step in steps]
            rows.append(
                f"| {path} | {lab.lab} | {lab.variant} | {lab.seconds or 0.0:.1f} | {lab.gpu_alone_seconds:.1f} | "
                + " | ".join(cells)
                + " |"
            )
        total = sum(lab.seconds or 0.0 for lab in run.labs)
        alone = sum(lab.gpu_alone_seconds for lab in run.labs)
        rows.append(f"| {path} | all, summed | | {total:.1f} | {alone:.1f} |" + " |" * len(steps))
        # Labs graded at once (--jobs) overlap: the run's own wall time is what a person waits.
        if run.built_ahead_seconds is not None:
            rows.append(
                f"| {path} | all, built ahead at once | | {run.built_ahead_seconds:.1f} | |" + " |" * len(steps)
            )
        if run.seconds is not None:
            rows.append(f"| {path} | all, wall ({run.jobs or 1} jobs) | | {run.seconds:.1f} | |" + " |" * len(steps))
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.stdout.write(table(sys.argv[1:]))
