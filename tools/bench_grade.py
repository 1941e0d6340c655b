"""How long `./cml grade --lab N` takes on this machine, as a whole process, lab by lab: the median of several
runs, and of it the seconds spent building (nvcc's build and the CPU emulator's) and running (everything else),
from each run's own grade.json. Two checkouts side by side (today's grader beside an older one), their runs
taken in turn so that both see the same machine.

Usage:
    PYTHONPATH=. .venv/bin/python tools/bench_grade.py [--runs 3] [--labs 1,2,...] [--cold] CHECKOUT [CHECKOUT ...]

--cold: each run starts with no build folder and an empty compile cache (what a fresh clone meets after ./cml's
one-time install); otherwise a run finds the build folder the run before it left (a student's second grade).
Each checkout must have run ./cml once (its install), so that no run times an install."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader.core.recorded import load_grade

BUILDING = ("building", "building for the CPU emulator", "waiting to build")


def one_run(checkout: Path, lab: int, cold: bool) -> tuple[float, float, float]:
    """(wall, building, running) seconds of one grade of `lab` in `checkout`."""
    with tempfile.TemporaryDirectory(prefix="cml-bench-") as scratch:
        results = Path(scratch) / "grade.json"
        env = None
        if cold:
            shutil.rmtree(checkout / "build", ignore_errors=True)
            env = {**os.environ, "CCACHE_DIR": str(Path(scratch) / "ccache")}
        started = time.monotonic()
        subprocess.run(
            ["./cml", "grade", "--lab", str(lab), "--json", str(results)],
            cwd=checkout,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        wall = time.monotonic() - started
        (graded,) = load_grade(results).labs
    building = sum(graded.steps.get(step, 0.0) for step in BUILDING)
    return wall, building, (graded.seconds or 0.0) - building


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkouts", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--labs", default=",".join(str(n) for n in range(1, 13)))
    parser.add_argument("--cold", action="store_true")
    args = parser.parse_args()
    labs = [int(n) for n in args.labs.split(",")]
    header = " | ".join(f"{c.name}: wall / build / run s" for c in args.checkouts)
    print(f"| lab | {header} |")
    print("|---|" + "---|" * len(args.checkouts))
    for lab in labs:
        if not args.cold:
            for checkout in args.checkouts:  # the build folder as a student's second grade finds it
                one_run(checkout, lab, cold=False)
        runs: dict[Path, list[tuple[float, float, float]]] = {c: [] for c in args.checkouts}
        for _ in range(args.runs):
            for checkout in args.checkouts:  # in turn, so that a drift of the machine's speed meets both
                runs[checkout].append(one_run(checkout, lab, args.cold))
        cells = []
        for checkout in args.checkouts:
            medians = [statistics.median(run[i] for run in runs[checkout]) for i in range(3)]
            cells.append(" / ".join(f"{value:.1f}" for value in medians))
        print(f"| {lab} | " + " | ".join(cells) + " |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
