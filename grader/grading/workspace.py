"""Assembling the student folder that gets built: each lab's kernel.cu from the submission, and for a lab the
submission lacks, a stand-in that is never built: that lab is "not submitted" and earns nothing. Nothing else
of a submission is ever used, and nothing of the checkout's labs/ is ever graded for a submission (a finished
kernel.cu there is the instructor's or a previous student's, never this submission's work)."""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.core.config import Config, Lab
from grader.core.model import NOT_SUBMITTED, SUBMITTED, Category, Check, LabGrade, Status
from grader.grading.submission import KERNEL, Submission
from grader.reporting.score import score

# The build configures every lab from the student folder, so each lab needs a file there; this one has no
# code, and the grader never builds it (Session.grade gives such a lab not_submitted() instead).
STAND_IN = b"// not submitted: the submission has no kernel.cu for this lab, so it is neither built nor graded\n"


def assemble_student_dir(config: Config, submission: Submission, destination: Path) -> dict[str, str]:
    """Writes one kernel.cu per lab into destination/NN_name/; returns lab -> where that file came from, as its
    path inside the submission (every report a student gets names it so, never the grader's folders)."""
    if destination.exists():
        shutil.rmtree(destination)
    used = {}
    for lab in config.labs:
        (destination / lab.name).mkdir(parents=True)
        target = destination / lab.name / KERNEL
        if lab.name in submission.kernels:
            target.write_bytes(submission.kernels[lab.name])
            used[lab.name] = submission.used[lab.name]  # as the student knows it: no path of the grader's machine
        else:
            target.write_bytes(STAND_IN)
            used[lab.name] = f"{NOT_SUBMITTED}: the submission has no {lab.name}/{KERNEL}"
    return used


def not_submitted(lab: Lab, why: str) -> LabGrade:
    """The grade of a lab the submission has no kernel.cu for (`why`: its entry of assemble_student_dir's
    answer): one failed check that says so, 0 of the lab's points, nothing built or run."""
    hint = f"submit {lab.name}/{KERNEL} (at any depth of the folder or archive) to have this lab graded"
    grade = LabGrade(lab.name, lab.title, "student", f"{lab.name}/{KERNEL}")
    grade.checks.append(Check(SUBMITTED, Category.BUILD, Status.FAILED, f"{why}, so nothing was built or run", hint))
    return score(grade, lab.points)
