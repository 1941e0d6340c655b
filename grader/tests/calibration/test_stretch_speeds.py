"""tools/stretch_speeds.py: each grade's stretch against the library its benchmark compared it with, in that run."""

from __future__ import annotations

import json
from pathlib import Path

from grader.tests.support.grading import load_tool


def timing(name: str, role: str, gflops: float, correct: bool = True, attempted: bool = True) -> dict:
    return {
        "name": name,
        "role": role,
        "group": "",
        "attempted": attempted,
        "correct": correct,
        "check": "",
        "median_ms": 1.0,
        "spread": 0.0,
        "gbps": 1.0,
        "gflops": gflops,
    }


def grade(folder: Path, name: str, kernels: list[dict] | None) -> Path:
    lab = {
        "lab": "04_tiled_gemm",
        "title": "t",
        "variant": "student",
        "kernel_path": "k",
        "verdict": "passed",
        "points": 0,
        "max_points": 0,
        "checks": [],
    }
    if kernels is not None:
        lab["bench"] = {"device": "GPU", "copy_gbps": 3000.0, "problem": "p", "kernels": kernels}
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"labs": [lab], "score": 0, "max_score": 0}))
    return path


def test_the_fraction_is_the_stretch_over_the_reference_of_the_same_run_and_only_for_right_results(tmp_path):
    speeds = load_tool("stretch_speeds")
    library = timing("cuBLAS sgemm (fp32)", "reference", 51720.0)
    fast = grade(
        tmp_path, "fast", [timing("naive", "baseline", 5880.0), timing("blocked", "stretch", 41199.0), library]
    )
    wrong = grade(tmp_path, "wrong", [timing("blocked", "stretch", 60000.0, correct=False), library])
    skipped = grade(tmp_path, "skipped", [timing("blocked", "stretch", 0.0, attempted=False), library])
    emulated = grade(tmp_path, "emulated", None)
    lines = speeds.table([fast, wrong, skipped, emulated]).splitlines()
    assert lines[2] == "| fast | 04 | GPU | blocked: 41.2 TFLOP/s | cuBLAS sgemm (fp32): 51.7 TFLOP/s | 0.80 | - |"
    assert lines[3].startswith("| wrong | 04 | GPU | blocked: 60.0 TFLOP/s (wrong result) |")
    assert lines[3].endswith("| - | - |")
    assert "no stretch attempted" in lines[4] and "not benchmarked" in lines[5]
