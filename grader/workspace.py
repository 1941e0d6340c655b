"""Assembling the student folder that gets built: each lab's kernel.cu from the submission, the
shipped skeleton for a lab the submission lacks. Nothing else of a submission is ever used."""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.config import REPO_ROOT, Config

KERNEL = "kernel.cu"


def assemble_student_dir(config: Config, submission: Path, destination: Path) -> dict[str, str]:
    """Copies one kernel.cu per lab into destination/NN_name/; returns lab -> the file used."""
    if destination.exists():
        shutil.rmtree(destination)
    used = {}
    for lab in config.labs:
        source = submission / lab.name / KERNEL
        if not source.is_file():
            source = REPO_ROOT / "labs" / lab.name / KERNEL
        (destination / lab.name).mkdir(parents=True)
        shutil.copyfile(source, destination / lab.name / KERNEL)
        used[lab.name] = str(source)
    return used
