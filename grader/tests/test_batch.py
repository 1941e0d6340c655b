"""Grading a class: a batch over a folder of submissions, resumable, and the same work as Slurm array
tasks merged by collect. Real grader processes on a few generated submissions (CPU only here: the GPU
checks are 'not run'); the whole generated class is graded on the H100 (results/h100-class.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from grader.config import REPO_ROOT
from grader.exits import Exit
from grader.tests import class_submissions as generated

STUDENTS = [
    "alice_correct",
    "bob_correct_tarball",
    "heidi_does_not_compile",
    "nick_includes_the_solution",
    "wendy_symlink_to_solution",
    "xavier_corrupt_zip",
]


def cml(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grader", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture(scope="module")
def graded(tmp_path_factory, device):
    if device.present:
        pytest.skip("on a GPU machine the whole class is graded instead (tools/gpu-check.sh class)")
    out = tmp_path_factory.mktemp("batch")
    submissions = generated.make(out, STUDENTS)
    finished = cml("batch", str(submissions), "--out", str(out / "results"), "--lab", "1")
    assert finished.returncode in (0, 1), finished.stdout + finished.stderr
    return out, submissions, finished


def rows(out) -> dict:
    return {row["student"]: row for row in json.loads((out / "results" / "results.json").read_text())}


@pytest.mark.slow
def test_every_student_gets_a_row_with_the_right_verdict(graded):
    out, _, _ = graded
    got = rows(out)
    assert set(got) == set(STUDENTS)
    assert got["alice_correct"]["01_vector_add"].endswith("incomplete")  # correct so far; the GPU checks did not run
    assert got["bob_correct_tarball"]["01_vector_add"].endswith("incomplete")
    assert got["heidi_does_not_compile"]["01_vector_add"] == "0.0 failed"
    assert got["nick_includes_the_solution"]["01_vector_add"] == "0.0 failed"
    assert got["wendy_symlink_to_solution"]["01_vector_add"] == "not submitted"
    assert "unreadable" in got["xavier_corrupt_zip"]["notes"]
    assert (out / "results" / "results.csv").read_text().startswith("student,score,max_score,01_vector_add,notes")


@pytest.mark.slow
def test_each_student_gets_reports_for_the_platforms(graded):
    out, _, _ = graded
    folder = out / "results" / "students" / "heidi_does_not_compile"
    for name in ("grade.json", "results.json", "junit.xml", "report.html"):
        assert (folder / name).is_file(), name
    grade = json.loads((folder / "grade.json").read_text())
    build = grade["labs"][0]["checks"][0]
    assert build["status"] == "failed" and "01_vector_add/kernel.cu" in build["detail"]  # the compiler's message
    assert "build-" not in build["detail"]  # named as the student knows the file, not the grader's copy


@pytest.mark.slow
def test_an_unreadable_submission_still_gets_its_reports_with_the_reason(graded):
    out, _, _ = graded
    folder = out / "results" / "students" / "xavier_corrupt_zip"
    gradescope = json.loads((folder / "results.json").read_text())
    assert gradescope["score"] == 0 and "unreadable submission" in gradescope["output"]
    assert rows(out)["xavier_corrupt_zip"]["01_vector_add"] == "unreadable"
    for name in ("grade.json", "junit.xml", "report.html"):
        assert (folder / name).is_file(), name


@pytest.mark.slow
def test_a_second_run_grades_nothing_again(graded):
    out, submissions, _ = graded
    again = cml("batch", str(submissions), "--out", str(out / "results"), "--lab", "1")
    assert "0 to grade" in again.stdout, again.stdout


@pytest.mark.slow
def test_slurm_array_tasks_share_the_work_and_collect_merges_it(graded, tmp_path):
    _, submissions, _ = graded
    out = tmp_path / "slurm"
    written = cml("slurm", str(submissions), "--out", str(out), "--lab", "1", "--tasks", "2")
    assert written.returncode == 0, written.stdout + written.stderr
    script = (out / "grade.sbatch").read_text()
    assert "#SBATCH --array=0-1" in script and "batch-task" in script and "--lab 1" in script
    outside = cml("batch-task", str(submissions), "--out", str(out), "--lab", "1")
    assert outside.returncode != 0 and "not inside a Slurm array task" in outside.stderr
    early = cml("collect", str(out))  # before any task ran: pending, not "not submitted", and said so
    assert early.returncode == Exit.INCOMPLETE and "Not finished" in early.stdout, early.stdout + early.stderr
    pending = {row["student"]: row for row in json.loads((out / "results.json").read_text())}
    assert pending["alice_correct"]["01_vector_add"] == "not graded yet"
    assert pending["wendy_symlink_to_solution"]["01_vector_add"] == "not submitted"
    for task in ("0", "1"):  # as Slurm would start them, one after the other here
        env = {"SLURM_ARRAY_TASK_ID": task, "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_JOB_ID": "42"}
        ran = cml("batch-task", str(submissions), "--out", str(out), "--lab", "1", env=env)
        assert ran.returncode in (0, 1), ran.stdout + ran.stderr
        assert f"Slurm array task {task} of 2" in ran.stdout
    merged = cml("collect", str(out))
    assert merged.returncode == 0, merged.stdout + merged.stderr
    got = {row["student"]: row for row in json.loads((out / "results.json").read_text())}
    assert got["heidi_does_not_compile"]["01_vector_add"] == "0.0 failed"
    assert got["alice_correct"]["01_vector_add"].endswith("incomplete")


@pytest.mark.slow
def test_one_student_is_regraded_and_the_roster_goes_into_the_results(graded, tmp_path):
    out, submissions, _ = graded
    roster = tmp_path / "roster.csv"
    roster.write_text("student,sid,email,submitted_at\nalice_correct,17,alice@example.edu,2026-03-03T12:00:00Z\n")
    before = json.loads((out / "results" / "students" / "heidi_does_not_compile" / "01_vector_add.json").read_text())
    again = cml(
        "batch",
        str(submissions),
        "--out",
        str(out / "results"),
        "--lab",
        "1",
        "--student",
        "alice_correct",
        "--roster",
        str(roster),
        "--due",
        "2026-03-01T23:59:00Z",
        "--late-penalty",
        "10",
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert "1 to grade" in again.stdout
    after = json.loads((out / "results" / "students" / "heidi_does_not_compile" / "01_vector_add.json").read_text())
    assert after == before  # everyone else's result kept as it was
    row = rows(out)["alice_correct"]
    assert row["email"] == "alice@example.edu" and row["sid"] == "17" and row["days_late"] == 2
    grade = json.loads((out / "results" / "students" / "alice_correct" / "grade.json").read_text())
    assert grade["late"]["kept"] == pytest.approx(0.8) and grade["score"] == pytest.approx(
        0.8 * grade["late"]["score_before"]
    )
    unknown = cml("batch", str(submissions), "--out", str(out / "results"), "--lab", "1", "--student", "nobody")
    assert unknown.returncode == Exit.USAGE and "no such submission" in unknown.stderr


def test_a_grader_failure_is_a_grader_error_not_the_students_failure(tmp_path):
    submissions = generated.make(tmp_path, ["alice_correct"])
    broken = tmp_path / "broken.toml"
    broken.write_text("[device\n")  # the instructor's thresholds file, not the student's work, is what is wrong
    finished = cml("batch", str(submissions), "--out", str(tmp_path / "results"), "--lab", "1", "--target", str(broken))
    assert finished.returncode == Exit.INTERNAL, finished.stdout + finished.stderr
    row = rows(tmp_path)["alice_correct"]
    assert row["01_vector_add"] == "grader error" and "--target" in row["notes"], row
