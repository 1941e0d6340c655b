"""Planted-bug kernels as patches: each fixture's expect.toml names its edits to the reference solution,
so a fixture keeps following the solution and differs from it only where the bug is planted."""

from __future__ import annotations

import tomllib
from pathlib import Path

from grader.config import REPO_ROOT

FIXTURES_DIR = Path(__file__).parent / "fixtures"


def fixture_dirs() -> list[Path]:
    return sorted(p for p in FIXTURES_DIR.iterdir() if (p / "expect.toml").is_file())


def load_expect(folder: Path) -> dict:
    return tomllib.loads((folder / "expect.toml").read_text())


def planted_kernel(expect: dict) -> str:
    """The solution's kernel.cu with each [[replace]] applied; every `old` must occur exactly once."""
    text = (REPO_ROOT / "solutions" / expect["lab"] / "kernel.cu").read_text()
    for edit in expect["replace"]:
        count = text.count(edit["old"])
        if count != 1:
            raise ValueError(f"fixture edit must match the solution once, matched {count} times:\n{edit['old']}")
        text = text.replace(edit["old"], edit["new"])
    return text


def write_submission(folder: Path, destination: Path) -> Path:
    """A student folder holding the fixture's one planted kernel."""
    expect = load_expect(folder)
    kernel = destination / expect["lab"] / "kernel.cu"
    kernel.parent.mkdir(parents=True, exist_ok=True)
    kernel.write_text(planted_kernel(expect))
    return destination
