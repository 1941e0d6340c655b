"""What keeping each instruction's worst request costs the CPU emulator (common/emu/src/worst_request.cpp: the
lanes' addresses the access pictures draw). The grader's counted run of a lab (`NN_name_solution_emu_bench
--profile --size N` with CML_EMU_PROFILE, at the size labs.toml profiles) is the only run that records them, so
that is what is timed: built twice from the committed tree, once as it is and once with the recording taken out
(the emulator's part of the commit that added worst_request.cpp, applied in reverse), the two programs run in
turn, A B A B ..., so that a drift of the shared machine's speed meets both; each run a whole process, its CPU
time (user + system, from the kernel's accounting of the finished child) and its wall time.

Usage:
    PYTHONPATH=. .venv/bin/python tools/access_recording_cost.py [--runs 7] [--labs 1,3,5,7] [--larger 5:2048]
        [--out DIR]

--larger LAB:SIZE,...: also time those labs at a larger --size, where the kernels' requests outweigh the
program's start more than at the grader's own size.

Needs ./cml's install (.venv, .deps) and the emulator's tools (clang++, Boost.Context). Prints a Markdown table:
per lab, the median CPU and wall seconds of each build and the median of the pairs' ratios (with / without)."""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from grader.core.config import load_config

REPO = Path(__file__).resolve().parent.parent
ADDED_WITH = "common/emu/src/worst_request.cpp"  # the commit that added this file added the recording
RECORDING = [  # that commit's files that call the recording or hold it: the part taken out
    "common/emu/src/profile.cpp",
    "common/emu/src/profile.hpp",
    "common/emu/src/block_threads.cpp",
    "common/emu/src/profile_report.cpp",
]


def git(*args: str, stdin: bytes | None = None, cwd: Path = REPO) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, input=stdin, check=True, capture_output=True).stdout


def committed_tree(into: Path) -> None:
    """HEAD's committed files in `into` (no build folder, nothing uncommitted)."""
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(git("archive", "--format=tar", "HEAD"))) as archive:
        archive.extractall(into, filter="data")


def without_recording(tree: Path) -> str:
    """Takes the recording out of `tree`: the reverse of the emulator's part of the commit that added it."""
    added = git("log", "--diff-filter=A", "--format=%h", "-1", "--", ADDED_WITH).decode().strip()
    patch = git("show", "--format=", added, "--", *RECORDING)
    # patch(1), not git apply: inside this repository's folder, git apply would skip the paths as outside it.
    subprocess.run(["patch", "-R", "-p1", "--quiet"], cwd=tree, input=patch, check=True)
    return added


def build(tree: Path, targets: list[str]) -> Path:
    """The emulator's build of `targets` from `tree`, in tree/build."""
    folder = tree / "build"
    env = {**os.environ, "PATH": f"{REPO / '.venv' / 'bin'}:{os.environ['PATH']}"}
    setup = ["meson", "setup", str(folder), "-Demulator=enabled", f"-Ddeps_dir={REPO / '.deps'}"]
    if not (folder / "meson-private").is_dir():
        subprocess.run(setup, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(
        ["meson", "compile", "-C", str(folder), *targets], cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL
    )
    return folder


def one_run(program: Path, size: int, profile: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one counted run, as a whole process."""
    env = {**os.environ, "CML_EMU_PROFILE": str(profile)}
    started = time.monotonic()
    child = subprocess.Popen(
        [str(program), "--profile", "--size", str(size)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{program} --profile --size {size} failed ({os.waitstatus_to_exitcode(status)})")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--labs", default="1,3,5,7")
    parser.add_argument("--larger", default="")
    parser.add_argument("--out", type=Path, default=REPO / ".results" / "access-cost")
    args = parser.parse_args()
    chosen = {int(n) for n in args.labs.split(",")}
    labs = [lab for lab in load_config().labs if int(lab.name[:2]) in chosen]
    # The size the grader's counted run uses: the largest profile_size of the lab's counter checks.
    sizes = {lab.name: max((m.profile_size for m in lab.mechanisms if m.tool == "ncu"), default=0) for lab in labs}
    targets = [f"{lab.name}_solution_emu_bench" for lab in labs]
    timed = [(lab, target, sizes[lab.name]) for lab, target in zip(labs, targets, strict=True)]
    for asked in filter(None, args.larger.split(",")):
        number, size = (int(part) for part in asked.split(":"))
        timed += [(lab, target, size) for lab, target in zip(labs, targets, strict=True) if int(lab.name[:2]) == number]

    trees = {"with": args.out / "with", "without": args.out / "without"}
    for name, tree in trees.items():
        if not (tree / "meson.build").is_file():
            committed_tree(tree)
            (tree / "made-from").write_text(git("rev-parse", "--short", "HEAD").decode())
            if name == "without":
                print(f"recording taken out: the reverse of {without_recording(tree)} on {', '.join(RECORDING)}")
    folders = {name: build(tree, targets) for name, tree in trees.items()}
    made_from = {(tree / "made-from").read_text().strip() for tree in trees.values()}
    print(
        f"trees made from {', '.join(sorted(made_from))}, {os.cpu_count()} CPUs, "
        f"{args.runs} runs of each after one of each unmeasured, in turn\n"
    )

    print("| counted run (solution) | --size | CPU s with / without | wall s with / without | CPU ratio | wall ratio |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="cml-access-cost-") as scratch:
        profile = Path(scratch) / "counters.json"
        for lab, target, size in timed:
            programs = {name: folder / target for name, folder in folders.items()}
            for name, program in programs.items():
                one_run(program, size, profile)  # warm-up: the page cache, the symbolizer's first start
                if ('"worst": ' in profile.read_text()) != (name == "with"):
                    sys.exit(f"the {name} build's counters file does not match its name: recording is not as built")
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name in programs}
            for _ in range(args.runs):
                for name, program in programs.items():
                    runs[name].append(one_run(program, size, profile))
            cells = []
            for i in (0, 1):
                medians = [statistics.median(r[i] for r in runs[name]) for name in programs]
                cells.append(" / ".join(f"{m:.2f}" for m in medians))
            for i in (0, 1):
                ratios = [w[i] / o[i] for w, o in zip(runs["with"], runs["without"], strict=True)]
                cells.append(f"{statistics.median(ratios):.3f} ({min(ratios):.3f} to {max(ratios):.3f})")
            print(f"| {lab.name} | {size} | " + " | ".join(cells) + " |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
