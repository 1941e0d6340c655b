"""Planted-bug kernels as patches: each fixture's expect.toml names its edits to the reference solution,
so a fixture keeps following the solution and differs from it only where the bug is planted."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from grader.core.config import REPO_ROOT

FIXTURES_DIR = Path(__file__).parents[1] / "fixtures"
# The planted kernels whose races and counters are measured on both sides: by Nsight Compute and
# compute-sanitizer on a GPU (tools/ncu-planted.sh) and by the CPU emulator (test_emulator.py).
MEASURED = ("01_lanes_32_apart", "03_no_syncthreads", "05_no_padding", "06_legacy_warp_unroll", "07_table_in_constant")


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


def write_labs(destination: Path, kernels: dict[str, str]) -> Path:
    """A student folder of the skeletons, with `kernels` (lab: the text of its kernel.cu) in place of theirs.
    A file whose text is already there is left alone, so that a build of the folder stays up to date."""
    scratch = destination.with_name(destination.name + ".new")
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(REPO_ROOT / "labs", scratch)
    for lab, text in kernels.items():
        (scratch / lab / "kernel.cu").write_text(text)
    for source in sorted(scratch.rglob("*")):
        target = destination / source.relative_to(scratch)
        if source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif not target.is_file() or target.read_bytes() != source.read_bytes():
            shutil.copyfile(source, target)
    shutil.rmtree(scratch)
    return destination


def write_measured_labs(destination: Path, fixtures: tuple[str, ...] = MEASURED) -> Path:
    """A student folder of the skeletons, with the planted kernels of `fixtures` (one per lab) in place of theirs."""
    planted = [load_expect(FIXTURES_DIR / name) for name in fixtures]
    return write_labs(destination, {expect["lab"]: planted_kernel(expect) for expect in planted})
