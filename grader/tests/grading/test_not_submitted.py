"""A lab missing from a submission is "not submitted": 0 points, one failed check that says so, nothing built,
and never the checkout's own labs/NN_name/kernel.cu graded in its place (a finished kernel.cu there would
otherwise score for a student who sent none)."""

from __future__ import annotations

import subprocess
import zipfile

import pytest

from grader.core.config import REPO_ROOT
from grader.core.model import NOT_SUBMITTED, SUBMITTED, Category, Status
from grader.grading.session import BUILDING_AHEAD, GradeRequest, start
from grader.reporting import report
from grader.reporting.score import verdict


def committed(path: str) -> bytes:
    return subprocess.run(["git", "show", f"HEAD:{path}"], cwd=REPO_ROOT, capture_output=True, check=True).stdout


@pytest.mark.parametrize("jobs", [1, 2])  # one lab at a time, and built ahead as labs graded at once are
def test_a_lab_missing_from_a_zip_is_not_submitted_and_never_built(built_tree, tmp_path, jobs):
    submission = tmp_path / "alice.zip"
    with zipfile.ZipFile(submission, "w") as archive:
        archive.writestr("alice/02_dot_product/kernel.cu", committed("labs/02_dot_product/kernel.cu"))
    work = tmp_path / "work"
    request = GradeRequest(
        labs=["1"], submission=submission, build_dir=built_tree.directory, mechanisms=False, bench=False, jobs=jobs,
        work_dir=work,
    )  # fmt: skip
    session = start(request)
    session.build()
    steps: list[str] = []
    grades = session.grade(lambda lab, variant, step: steps.append(step) if step != BUILDING_AHEAD else None)

    [grade] = grades
    assert verdict(grade) == NOT_SUBMITTED and grade.points == 0 and grade.max_points == 100
    [check] = grade.checks
    assert (check.name, check.category, check.status) == (SUBMITTED, Category.BUILD, Status.FAILED)
    assert check.detail.startswith(f"{NOT_SUBMITTED}: the submission has no 01_vector_add/kernel.cu")
    assert str(tmp_path) not in check.detail + grade.kernel_path  # no folder of the grader's machine
    assert check.max_points == 100 and check.points == 0
    assert "labs/" not in grade.kernel_path and not steps, "a lab not submitted has no step to run"
    assert not list(work.rglob("*.o")), "nothing of Lab 1's student variant is built"
    assert session.files_used and "labs/" not in session.files_used["01_vector_add"]

    run = report.run_dict(grades, session.facts())
    assert run["labs"][0]["verdict"] == NOT_SUBMITTED and run["labs"][0]["points"] == 0


@pytest.mark.slow
def test_an_empty_kernel_cu_is_said_to_define_nothing_not_shown_as_linker_errors(built_tree, tmp_path):
    submission = tmp_path / "bob"
    (submission / "01_vector_add").mkdir(parents=True)
    (submission / "01_vector_add" / "kernel.cu").write_text("// nothing yet: vector_add comes later\n")
    request = GradeRequest(
        labs=["1"], submission=submission, build_dir=built_tree.directory, mechanisms=False, bench=False, jobs=1,
        work_dir=tmp_path / "work",
    )  # fmt: skip
    session = start(request)
    session.build()
    [grade] = session.grade()
    build = grade.checks[0]
    assert (build.name, build.status, grade.points) == ("build", Status.FAILED, 0)
    assert "\n" not in build.detail and "undefined reference" not in build.detail
    assert build.detail.endswith(
        "defines nothing: none of the functions the lab's test calls (vector_add, vector_add_float4)"
    )
    assert build.detail.startswith("01_vector_add/kernel.cu ") and "skeleton" in build.hint
