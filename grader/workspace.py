"""Assembling the student folder that gets built: each lab's kernel.cu from the submission, the
shipped skeleton for a lab the submission lacks. Nothing else of a submission is ever used."""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.config import REPO_ROOT, Config
from grader.submission import KERNEL, Submission


def assemble_student_dir(config: Config, submission: Submission, destination: Path) -> dict[str, str]:
    """Writes one kernel.cu per lab into destination/NN_name/; returns lab -> where that file came from."""
    if destination.exists():
        shutil.rmtree(destination)
    used = {}
    for lab in config.labs:
        (destination / lab.name).mkdir(parents=True)
        target = destination / lab.name / KERNEL
        if lab.name in submission.kernels:
            target.write_bytes(submission.kernels[lab.name])
            used[lab.name] = f"{submission.source}: {submission.used[lab.name]}"
        else:
            shutil.copyfile(REPO_ROOT / "labs" / lab.name / KERNEL, target)
            used[lab.name] = f"labs/{lab.name}/{KERNEL} (the untouched skeleton: the submission has none)"
    return used
