"""What makes a lab's result the grade of the submission as it is now, so that a batch grades it no more and
collect shows it: the same kernel.cu (its sha256), graded by the same grader with every option that can change a
verdict, on a GPU of the batch's (or, on none, the CPU emulator). Anything else is graded again; until then its
row says "not graded yet", never the old score.

The grader's version is the sha256 of its own files and of the tests and harness it builds (what judges a
kernel), so that a change of any of them is a new grader; options that name a file (thresholds, sizes) are
taken by that file's sha256, so that a file changed in place is a new option. Every grade draws a fresh seed:
that is part of the key too, for the day an option sets it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from grader.core.config import REPO_ROOT
from grader.core.recorded import RecordedRun

# What judges a kernel: the grader (its configuration and every GPU's thresholds with it), the tests and the harness.
VERSIONED = ("grader", "common", "tests", "meson.build", "meson.options")
NOT_VERSIONED = ("grader/tests",)  # the grader's own tests judge no submission
FILE_OPTIONS = ("--target", "--instructor-sizes")
SEEDS = "a fresh seed each grade"
KEY = "graded_with"  # where a lab's result records its key


def _files(root: Path) -> list[Path]:
    found = []
    for name in VERSIONED:
        path = root / name
        if path.is_file():
            found.append(path)
            continue
        for folder, folders, files in os.walk(path):
            relative = Path(folder).relative_to(root).as_posix()
            folders[:] = sorted(
                f
                for f in folders
                if not f.startswith(".") and f != "__pycache__" and f"{relative}/{f}" not in NOT_VERSIONED
            )
            found += [Path(folder) / f for f in sorted(files) if not f.startswith(".") and not f.endswith(".pyc")]
    return found


def grader_version(root: Path = REPO_ROOT) -> str:
    """The sha256 of every file that judges a kernel, by name and content."""
    digest = hashlib.sha256()
    for path in _files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def file_digest(path: str) -> str:
    try:
        return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as error:
        return f"unreadable: {error.strerror}"


def grading_key(options: list[str], root: Path = REPO_ROOT) -> dict:
    """What a lab's result must have been graded with to count now: the grader's version, the options a batch
    passes to each grader process (those naming a file, by its content), and how seeds are drawn."""
    said = []
    for at, option in enumerate(options):
        named = at > 0 and options[at - 1] in FILE_OPTIONS
        said.append(file_digest(option) if named else option)
    return {"grader": grader_version(root), "options": said, "seeds": SEEDS}


def is_current(result: RecordedRun, lab: str, digest: str, key: dict, devices: list[str | None] | None) -> bool:
    """Whether `result` grades this kernel.cu (`digest`) under `key`, on one of `devices` (a GPU's name; None for
    the CPU emulator), or on any where `devices` is None (a Slurm array's tasks, each on a GPU of its own)."""
    if not digest or result.kernel_sha256.get(lab) != digest or result.source.get(KEY) != key:
        return False
    return devices is None or result.device in devices
