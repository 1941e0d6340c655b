"""The same class graded by ./cml batch on every GPU and on one (tools/gpu-check.sh class-gpus), set side by side
in Markdown: each run's wall time, each worker's share of it, and the ratio of the two wall times.

    python tools/class_gpus.py ALL_GPUS_OUT ONE_GPU_OUT
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def read(out: Path) -> dict:
    return json.loads((out / "workers.json").read_text())


def lines_of(name: str, run: dict) -> list[str]:
    wall = run["wall_s"]
    lines = [f"**{name}**: {len(run['workers'])} worker(s), wall time **{wall:.0f} s**", ""]
    lines += ["| worker | GPU | submissions | labs | busy s | share of the wall time | last done at s |"]
    lines += ["|---|---|---|---|---|---|---|"]
    for w in run["workers"]:
        lines.append(
            f"| {w['worker']} | {w['gpu']} | {w['submissions']} | {w['labs']} | {w['busy_s']:.0f} | "
            f"{w['busy_s'] / wall:.0%} | {w['last_end_s']:.0f} |"
        )
    per_student = sum(w["busy_s"] for w in run["workers"]) / max(1, sum(w["submissions"] for w in run["workers"]))
    return [*lines, "", f"A submission's grader process took {per_student:.1f} s on average.", ""]


def main() -> int:
    every, one = (read(Path(arg)) for arg in sys.argv[1:3])
    print(f"# A class on {len(every['workers'])} GPUs and on 1\n")
    print("\n".join(lines_of("every GPU", every) + lines_of("one GPU", one)))
    print(f"Wall time on one GPU over wall time on every GPU: **{one['wall_s'] / every['wall_s']:.2f}**")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
