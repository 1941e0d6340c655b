"""What made a lab's evidence, as one key: the kernel.cu's bytes, the lab's harness (its tests, baseline and
checker, common/, the build's files, the skeleton and the solution), the grader's code that makes evidence (the
steps, their runs and what drives them: everything of grader/ but the checks that judge, the reports, the
exports, the command line and ./cml run's own programs), the versions of the tools that build and run it, the machine, the seed and the
options of the grade. Recorded evidence whose key is today's is what a grade would make now; one byte changed in
any of these, and the case must be graded again. What only judges evidence is left out, so that a change to a
check is judged at once from the evidence recorded before it."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from grader.core.config import REPO_ROOT
from grader.execution import sandbox

# The grader's own files that only judge evidence, report it or drive a class: not part of what made it.
JUDGEMENT = (
    "grader/grading/judge.py",
    "grader/grading/checks.py",
    "grader/grading/rejudge.py",
    "grader/grading/run_program.py",  # ./cml run: a student's program run by hand, which no grade reads
    "grader/grading/evidence_key.py",
    "grader/reporting",
    "grader/platforms",
    "grader/cohort",
    "grader/calibration",
    "grader/cli.py",
    "grader/__main__.py",
    "grader/targets",
    "grader/tests",
    "grader/requirements-test.txt",  # the test runner's and the linters' packages: no grade imports them
    "grader/requirements-lint.txt",
)
HARNESS = ("common", "meson.build", "meson.options", "grader/requirements.txt")
# The tools a grade builds and runs with: each one's first line of --version. cuobjdump and nvdisasm are the
# toolkit's (nvcc's version) or the wheels grader/requirements.txt pins (in the harness's digest).
TOOLS = ("nvcc", "clang++", "c++", "ld", "meson", "ninja")


@dataclass(frozen=True)
class KeyInputs:
    """Everything a lab's evidence was made from, each part as a digest or a version."""

    lab: str
    variants: tuple[str, ...]  # "student", and "solution" where the grade built the solution too
    kernel: str  # sha256 of the kernel.cu
    harness: str  # the lab's harness and what every lab shares
    grader: str  # the grader's code that makes evidence
    tools: dict[str, str] = field(default_factory=dict)
    machine: str = ""  # the GPU's name, or the CPU emulator
    options: dict[str, object] = field(default_factory=dict)  # seed, static checks, mechanisms, limits, ...

    def key(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()

    def changed(self, other: dict) -> list[str]:
        """The parts that differ from `other` (recorded inputs, as data): what a regrade is for."""
        mine = asdict(self)
        return sorted(
            name
            for name in mine
            if json.dumps(mine[name], sort_keys=True) != json.dumps(other.get(name), sort_keys=True)
        )


def files_digest(paths: Iterable[Path], root: Path = REPO_ROOT, left_out: tuple[str, ...] = ()) -> str:
    """sha256 of every file under `paths` (a file, or a folder walked), by its path from `root` and its bytes, in
    the order of their paths; compiled Python and what `left_out` names (paths from `root`) are not read."""
    digest = hashlib.sha256()
    found: list[Path] = []
    for path in paths:
        found += sorted(path.rglob("*")) if path.is_dir() else [path] if path.is_file() else []
    for file in sorted(set(found)):
        relative = file.relative_to(root).as_posix()
        if not file.is_file() or "__pycache__" in file.parts or file.suffix == ".pyc":
            continue
        if any(relative == name or relative.startswith(f"{name}/") for name in left_out):
            continue
        digest.update(relative.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def harness_digest(lab: str, root: Path = REPO_ROOT) -> str:
    """The lab's harness (tests/NN_name), its skeleton and solution, and what every lab's build shares."""
    lab_files = [root / "tests" / lab, root / "labs" / lab / "kernel.cu", root / "solutions" / lab / "kernel.cu"]
    shared = [root / "grader" / "labs.toml", root / "grader" / "gpu_limits.toml", *(root / name for name in HARNESS)]
    return files_digest([*lab_files, *shared], root)


def grader_digest(root: Path = REPO_ROOT) -> str:
    """The grader's code and configuration that make evidence: all of grader/ but what only judges it."""
    return files_digest([root / "grader"], root, JUDGEMENT)


def first_line(command: list[str]) -> str:
    try:
        said = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"could not be asked: {error}"
    lines = (said.stdout or said.stderr).strip().splitlines()
    return lines[-1] if command[0].endswith("nvcc") and lines else lines[0] if lines else ""


@functools.cache
def tool_versions(path: str = "") -> dict[str, str]:
    """Each TOOLS' version as this machine has it on `path` (the build's PATH), or 'not found'; Python's; and the
    sandbox the steps run in, and as whom (what an attack meets depends on both)."""
    versions = {"python": platform.python_version()}
    for tool in TOOLS:
        found = shutil.which(tool, path=path or None)
        versions[tool] = first_line([found, "--version"]) if found else "not found"
    wrapper = sandbox.bwrap()
    versions["sandbox"] = sandbox.unavailable() or (first_line([wrapper, "--version"]) if wrapper else "")
    versions["as root"] = str(os.geteuid() == 0)
    return versions


def key_inputs(
    lab: str,
    kernel: bytes,
    variants: tuple[str, ...],
    machine: str,
    options: dict[str, object],
    tool_path: str = "",
    root: Path = REPO_ROOT,
) -> KeyInputs:
    return KeyInputs(
        lab=lab,
        variants=variants,
        kernel=hashlib.sha256(kernel).hexdigest(),
        harness=harness_digest(lab, root),
        grader=grader_digest(root),
        tools=tool_versions(tool_path),
        machine=machine,
        options=options,
    )
