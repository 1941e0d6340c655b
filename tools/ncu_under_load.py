"""Do Nsight Compute's counters change when other programs use the GPU beside the profiled one?

The grader gives an ncu run the GPU alone for its profiled launches, and every other lab of the run waits.
This measures whether that is needed: each lab's ncu run of its reference solution, exactly as the grader
makes it (grader/profile.py, every metric and role of the lab's checks), first with the GPU quiet, then with
copies of Lab 4's benchmark (its GEMMs keep every SM busy) running beside it. The counters are integers
summed over the profiled launches; the table shows each beside its quiet value.

    PYTHONPATH=. .venv/bin/python tools/ncu_under_load.py BUILD_DIR [--loaded-runs N] [--load-copies N]

BUILD_DIR holds the solutions' benchmarks (e.g. build-speed after tools/gpu-check.sh speed). Exit status 0
whether or not the counters moved: the table is the result."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

from grader import profile
from grader.config import load_config

LOAD_LAB = "04_tiled_gemm"


def counters(build: Path, lab_name: str, group: str) -> dict[tuple[str, str], float]:
    """(role, metric) -> the total of the lab's ncu run for `group`, as the grader reads it."""
    lab = load_config().lab(lab_name)
    checks = [m for m in lab.mechanisms if m.tool == "ncu" and m.group == group]
    metrics = list(dict.fromkeys(name for m in checks for name in m.metrics))
    roles = list(dict.fromkeys(role for m in checks for role in m.roles))
    ncu = Path(shutil.which("ncu") or "/usr/local/cuda/bin/ncu")
    runs = profile.read_counters(ncu, build / f"{lab_name}_solution_bench", metrics, roles, group, 600)
    return {(role, metric): run.totals.get(metric, -1.0) for role, run in runs.items() for metric in metrics}


def start_load(build: Path, copies: int) -> list[subprocess.Popen]:
    """Copies of Lab 4's benchmark, each started again whenever it ends, until stopped."""
    bench = build / f"{LOAD_LAB}_solution_bench"
    loop = f"while true; do '{bench}' >/dev/null 2>&1; done"
    return [subprocess.Popen(["bash", "-c", loop], start_new_session=True) for _ in range(copies)]


def stop_load(load: list[subprocess.Popen]) -> None:
    for process in load:
        subprocess.run(["pkill", "-KILL", "-s", str(process.pid)], check=False)
        process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build", type=Path)
    parser.add_argument("--loaded-runs", type=int, default=2)
    parser.add_argument("--load-copies", type=int, default=2)
    args = parser.parse_args()
    groups = [
        (lab.name, group)
        for lab in load_config().labs
        for group in dict.fromkeys(m.group for m in lab.mechanisms if m.tool == "ncu")
    ]
    quiet = {key: counters(args.build, *key) for key in groups}
    load = start_load(args.build, args.load_copies)
    time.sleep(3)  # the copies past their set-up, launching
    try:
        loaded = [{key: counters(args.build, *key) for key in groups} for _ in range(args.loaded_runs)]
    finally:
        stop_load(load)
    print(f"| lab | group | role | metric | quiet | {' | '.join(f'loaded {i + 1}' for i in range(len(loaded)))} |")
    print("|---|---|---|---|---|" + "---|" * len(loaded))
    moved = 0
    for key in groups:
        for (role, metric), value in quiet[key].items():
            others = [run[key][(role, metric)] for run in loaded]
            moved += sum(other != value for other in others)
            shown = " | ".join(f"{other:.0f}" + ("" if other == value else " (moved)") for other in others)
            print(f"| {key[0]} | {key[1] or '-'} | {role} | {metric} | {value:.0f} | {shown} |")
    print(f"\n{moved} loaded value(s) differ from the quiet ones")
    return 0


if __name__ == "__main__":
    sys.exit(main())
