"""How long the reference solutions' correctness suites take on the CPU emulator: each lab's test program run once,
as a grade runs it (the programs only, not their build). A figure for results/emulator.md, not a limit: a wall
clock asserted in a test failed on a loaded machine while every suite passed. Whether each suite passes is the
solutions' grades' to say (grader/tests/emulator/test_emulator.py); here a failing one is reported and counted.

Usage:
    PYTHONPATH=. .venv/bin/python tools/emulator_suite_times.py [--build-dir build-tests]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from grader.core.config import REPO_ROOT, load_config
from grader.execution.gpu import Gpu
from grader.grading.session import choose_arch
from grader.steps import build, suite
from grader.tests.support.grading import built_programs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", type=Path, default=REPO_ROOT / "build-tests")
    args = parser.parse_args()
    # Meson and Ninja are the virtual environment's, as ./cml puts them on the PATH.
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    config = load_config()
    tree = build.BuildTree(args.build_dir.resolve(), choose_arch("auto", Gpu(False, reason="the CPU emulator")))
    configured = build.configure(tree, config.timeouts["build"], reuse=True, emulated=True)
    if not configured.ok or not tree.has_emulator():
        print(f"no build with the CPU emulator's targets in {args.build_dir}:\n{configured.tail(20)}", file=sys.stderr)
        return 1
    labs = [lab.name for lab in config.labs]
    programs = {lab: built_programs(tree, config, lab, "solution", emulated=True)["test"] for lab in labs}
    seconds, failed = {}, []
    for lab in labs:
        started = time.monotonic()
        run = suite.run_suite(programs[lab], tree.checker(lab), config.timeouts["tests"])
        seconds[lab] = time.monotonic() - started
        if not (run.outcome.ok and all(case.passed for case in run.cases if case.ran)):
            failed.append(lab)
    print(
        f"correctness suites of the {len(labs)} solutions on the CPU emulator ({os.cpu_count()} cores): "
        f"{sum(seconds.values()):.1f} s; " + ", ".join(f"{lab[:2]} {s:.1f} s" for lab, s in seconds.items())
    )
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
