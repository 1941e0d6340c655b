"""The sizes a grading run adds to the public test cases: drawn afresh from each run's seed, plus any an
instructor lists in a file of their own, so that output hard-coded for the public sizes fails."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

from grader.core.config import Lab


def draw_sizes(lab: Lab, seed: int) -> list[str]:
    """`count` sizes such as "17x33x65", one value per range of labs.toml; the same seed gives the same sizes."""
    spec = lab.grader_sizes
    if spec is None:
        return []
    draw = random.Random(f"{seed}:{lab.name}")
    return ["x".join(str(draw.randint(low, high)) for low, high in spec.ranges) for _ in range(spec.count)]


def load_instructor_sizes(path: Path) -> dict[str, list[str]]:
    """A TOML file kept out of the public repository:  [lab.04_tiled_gemm] sizes = ["577x3x1021", ...]"""
    data = tomllib.loads(path.read_text())
    return {lab: [str(size) for size in entry.get("sizes", [])] for lab, entry in data.get("lab", {}).items()}


def lab_sizes(lab: Lab, seed: int, instructor: dict[str, list[str]]) -> list[str]:
    listed = instructor.get(lab.name, [])
    parts = len(lab.grader_sizes.ranges) if lab.grader_sizes else 1
    for size in listed:
        values = size.split("x")
        if len(values) != parts or not all(v.strip().isdigit() for v in values):
            fmt = lab.grader_sizes.format if lab.grader_sizes else "n"
            raise ValueError(
                f"instructor size {size!r} for {lab.name}: its sizes are {fmt}, e.g. {'x'.join(['7'] * parts)}"
            )
    return draw_sizes(lab, seed) + listed
