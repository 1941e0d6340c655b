"""Grading a class: a batch over a folder of submissions, one grader process per submission, resumable, and
the same work as Slurm array tasks merged by collect. Real grader processes on a few generated submissions (CPU
only here: the GPU checks are 'not run'); the whole generated class is graded on the H100
(results/h100.md, "A class"). The cutting of a process's JSON into per-lab results is tested on its own, and with
a stand-in grader process."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest

from grader.cohort import batch, current, plan, reading
from grader.cohort.collect import FORMULA_STARTS, collect, lab_cell, student_run
from grader.core.config import REPO_ROOT
from grader.core.exits import Exit
from grader.core.model import LabGrade
from grader.core.recorded import load_grade, read_grade
from grader.platforms.edition import NO_SOLUTIONS, has_solutions
from grader.reporting.report import run_dict
from grader.tests.support.batch import setup, stand_in

if not has_solutions():  # read as the module is imported, which no marker can skip
    pytest.skip(NO_SOLUTIONS, allow_module_level=True)

from grader.tests.support import classes as generated

# The class is graded once, by the module's first test to ask: every test of the module runs in one process.
pytestmark = pytest.mark.xdist_group("a class graded in batch")

STUDENTS = [
    "alice_correct",
    "bob_correct_tarball",
    "carol_two_labs_zip",  # labs 1 and 6: graded together, in one process
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
def graded(tmp_path_factory, device, built_tree):
    if device.present:
        pytest.skip("on a GPU machine the whole class is graded instead (tools/gpu-check.sh class)")
    out = tmp_path_factory.mktemp("batch")
    submissions = generated.make(out, STUDENTS)
    shared = ["--build-dir", str(built_tree.directory)]  # the tests' build folder: its harness is built once
    finished = cml("batch", str(submissions), "--out", str(out / "results"), "--lab", "1", "--lab", "6", *shared)
    assert finished.returncode in (0, 1), finished.stdout + finished.stderr
    return out, submissions, finished


def rows(out) -> dict:
    return {row["student"]: row for row in json.loads((out / "results" / "results.json").read_text())}


@pytest.mark.slow
def test_every_student_gets_a_row_with_the_right_verdict(graded):
    out, _, _ = graded
    got = rows(out)
    assert set(got) == set(STUDENTS)
    assert got["alice_correct"]["01_vector_add_verdict"] == "incomplete"  # correct so far; the GPU checks did not run
    assert got["bob_correct_tarball"]["01_vector_add_verdict"] == "incomplete"
    assert (
        got["heidi_does_not_compile"]["01_vector_add_points"],
        got["heidi_does_not_compile"]["01_vector_add_verdict"],
    ) == (0.0, "failed")
    assert (
        got["nick_includes_the_solution"]["01_vector_add_points"],
        got["nick_includes_the_solution"]["01_vector_add_verdict"],
    ) == (0.0, "failed")
    assert got["wendy_symlink_to_solution"]["01_vector_add_verdict"] == "not submitted"
    assert "unreadable" in got["xavier_corrupt_zip"]["notes"]
    assert got["carol_two_labs_zip"]["06_warp_reduction_verdict"] == "incomplete"
    assert got["alice_correct"]["06_warp_reduction_verdict"] == "not submitted"
    # Points and verdict in cells of their own: a correct Lab 1 earns all but its speed here; a lab not handed in, 0.
    assert got["alice_correct"]["01_vector_add_points"] == 70.0
    assert got["alice_correct"]["06_warp_reduction_points"] == 0.0
    header = "student,score,max_score,01_vector_add_points,01_vector_add_verdict,01_vector_add_cause,"
    header += "06_warp_reduction_points,06_warp_reduction_verdict,06_warp_reduction_cause,notes"
    assert (out / "results" / "results.csv").read_text().startswith(header)


@pytest.mark.slow
def test_each_submission_is_graded_in_one_process_and_its_json_cut_per_lab(graded):
    out, _, finished = graded
    students = out / "results" / "students"
    said = " ".join(finished.stdout.split())  # as one line, however the terminal wrapped it
    assert "7 submission(s), on 1 worker(s): each is read in its own turn" in said, said
    assert "7 submission(s) read: 6 lab(s) graded now, 0 already graded, 1 unreadable" in said, said
    logs = sorted(path.parent.name for path in students.glob("*/grade.log"))
    assert logs == sorted(set(STUDENTS) - {"wendy_symlink_to_solution", "xavier_corrupt_zip"})  # nothing to grade
    assert not list(students.glob("*/*.partial")) and not list(students.glob("*/*.error"))
    folder = students / "carol_two_labs_zip"
    log = (folder / "grade.log").read_text()
    assert "Lab 01_vector_add" in log and "Lab 06_warp_reduction" in log  # one process graded both
    assert str(folder / "06_warp_reduction.json") in log.splitlines()[-2]  # where the results are, not the partial
    for lab in ("01_vector_add", "06_warp_reduction"):
        part = json.loads((folder / f"{lab}.json").read_text())
        assert [entry["lab"] for entry in part["labs"]] == [lab]
        assert set(part["kernel_sha256"]) == set(part["files_used"]) == {lab}
        assert part["score"] == part["labs"][0]["points"]
    grade = json.loads((folder / "grade.json").read_text())
    assert [entry["lab"] for entry in grade["labs"]] == ["01_vector_add", "06_warp_reduction"]


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
    assert rows(out)["xavier_corrupt_zip"]["01_vector_add_verdict"] == "unreadable"
    for name in ("grade.json", "junit.xml", "report.html"):
        assert (folder / name).is_file(), name


@pytest.mark.slow
def test_a_second_run_grades_nothing_again(graded):
    out, submissions, _ = graded
    again = cml("batch", str(submissions), "--out", str(out / "results"), "--lab", "1", "--lab", "6")
    said = " ".join(again.stdout.split())
    assert "0 lab(s) graded now, 6 already graded" in said, said
    assert again.returncode == Exit.PASSED, said


@pytest.mark.slow
def test_slurm_array_tasks_share_the_work_and_collect_merges_it(graded, built_tree, tmp_path):
    # Three of the class: one correct, one that does not compile, one refused unread; each task grades its share
    # in the tests' build folder, where the harness is built already.
    _, everyone, _ = graded
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    for student in ("alice_correct", "heidi_does_not_compile", "wendy_symlink_to_solution"):
        shutil.copytree(everyone / student, submissions / student, symlinks=True)
    shared = ["--build-dir", str(built_tree.directory)]
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
    # Nothing of a submission is read before its turn: what it holds is not known yet, and said so.
    assert pending["alice_correct"]["01_vector_add_verdict"] == "not graded yet"
    assert pending["wendy_symlink_to_solution"]["01_vector_add_verdict"] == "not graded yet"
    for task in ("0", "1"):  # as Slurm would start them, one after the other here
        env = {"SLURM_ARRAY_TASK_ID": task, "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_JOB_ID": "42"}
        ran = cml("batch-task", str(submissions), "--out", str(out), "--lab", "1", *shared, env=env)
        assert ran.returncode in (0, 1), ran.stdout + ran.stderr
        assert f"Slurm array task {task} of 2" in ran.stdout
    merged = cml("collect", str(out))
    assert merged.returncode == 0, merged.stdout + merged.stderr
    got = {row["student"]: row for row in json.loads((out / "results.json").read_text())}
    assert (
        got["heidi_does_not_compile"]["01_vector_add_points"],
        got["heidi_does_not_compile"]["01_vector_add_verdict"],
    ) == (0.0, "failed")
    assert got["alice_correct"]["01_vector_add_verdict"] == "incomplete"


@pytest.mark.slow
def test_one_student_is_regraded_and_the_roster_goes_into_the_results(graded, built_tree, tmp_path):
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
        "--build-dir",  # the tests' build folder, as the class's grade had it: its harness is built already
        str(built_tree.directory),
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert "1 lab(s) graded now, 0 already graded" in " ".join(again.stdout.split())
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
    submissions = generated.make(tmp_path, ["carol_two_labs_zip"])
    broken = tmp_path / "broken.toml"
    broken.write_text("[device\n")  # the instructor's thresholds file, not the student's work, is what is wrong
    labs = ["--lab", "1", "--lab", "6"]
    finished = cml("batch", str(submissions), "--out", str(tmp_path / "results"), *labs, "--target", str(broken))
    assert finished.returncode == Exit.INTERNAL, finished.stdout + finished.stderr
    row = rows(tmp_path)["carol_two_labs_zip"]
    folder = tmp_path / "results" / "students" / "carol_two_labs_zip"
    for lab in ("01_vector_add", "06_warp_reduction"):  # the process failed, then each lab alone: each says so
        assert row[f"{lab}_verdict"] == "grader error" and f"{lab}: error: --target" in row["notes"], row
        assert f"(see {folder / lab}.log)" in row["notes"]


def lab_grade(lab: str, points: float) -> LabGrade:
    return LabGrade(
        lab=lab, title=lab, variant="student", kernel_path=f"{lab}/kernel.cu", points=points, max_points=100
    )


def run_of(grades: list[LabGrade], labs: list[str]) -> dict:
    """A run's JSON as report.write_json writes it, with the facts of a submission of `labs`."""
    context = {
        "device": None,
        "seed": 7,
        "notes": ["no GPU"],
        "files_used": {lab: f"sub.zip: {lab}/kernel.cu" for lab in labs},
        "files_ignored": [],
        "kernel_sha256": {lab: f"digest-{lab}" for lab in labs},
        "jobs": 1,
        "seconds": 12.5,
    }
    return run_dict(grades, context)


def test_a_runs_json_is_cut_into_what_a_run_of_each_lab_alone_writes():
    labs = ["01_vector_add", "02_dot_product", "06_warp_reduction"]
    points = {"01_vector_add": 80, "06_warp_reduction": 55}
    run = run_of([lab_grade(lab, got) for lab, got in points.items()], labs)
    for lab, got in points.items():
        alone = run_of([lab_grade(lab, got)], labs)
        only = {key: {lab: alone[key][lab]} for key in ("files_used", "kernel_sha256")}  # the lab's own, no other's
        assert batch.lab_run(read_grade(run), lab) == {**alone, **only}
    assert batch.lab_run(read_grade(run), "02_dot_product") is None  # no result for it: never an empty one


def test_collect_merges_the_cut_results_back_into_the_run(tmp_path):
    labs = ["01_vector_add", "06_warp_reduction"]
    run = run_of([lab_grade("01_vector_add", 80), lab_grade("06_warp_reduction", 55)], labs)
    parts = [read_grade(batch.lab_run(read_grade(run), lab)) for lab in labs]
    merged = student_run(parts, {}, "carol")
    assert merged["labs"] == run["labs"] and merged["files_used"] == run["files_used"] and merged["score"] == 135


def tasks_of(config, student: str, labs: list[str], entry=None) -> list[batch.Task]:
    return [batch.Task(student, entry or REPO_ROOT / "labs", config.lab(lab), f"digest-{lab}") for lab in labs]


def test_a_slurm_array_task_grades_every_count_th_student():
    students = ["a", "b", "c", "d", "e"]
    assert plan.share(students, 0, 2) == ["a", "c", "e"] and plan.share(students, 1, 2) == ["b", "d"]
    assert sorted(plan.share(students, 0, 3) + plan.share(students, 1, 3) + plan.share(students, 2, 3)) == students


def test_the_time_limit_of_a_process_grows_with_its_labs(config):
    one, three = batch.task_timeout(config), batch.task_timeout(config, 3)
    assert one == sum(config.timeouts.values()) + 2 * config.timeouts["bench"] + 300
    assert three == one + 2 * (one - 300)


def carol(tmp_path, labs: list[str]):
    """carol's submission of `labs`, and her turn's setup."""
    folder = tmp_path / "submissions" / "carol"
    for lab in labs:
        (folder / lab).mkdir(parents=True)
        (folder / lab / "kernel.cu").write_text(f"// carol's {lab}\n")
    return folder


def test_a_lab_missing_from_the_processs_json_gets_its_error(config, tmp_path, monkeypatch):
    stand_in(monkeypatch, status=Exit.FAILED, leave_out="06_warp_reduction")  # graded: a lab failed, the student's
    labs = ["01_vector_add", "06_warp_reduction", "07_constant_memory"]
    work = setup(tmp_path, config, labs)
    done: list[batch.Turn] = []
    run = batch.run_students(work, {"carol": carol(tmp_path, labs)}, [None], done.append)
    folder = tmp_path / "students" / "carol"
    log = folder / "grade.log"
    assert run.failures == {("carol", "06_warp_reduction"): f"the grader wrote no result for this lab (see {log})"}
    assert [turn.errors for turn in done] == [{"06_warp_reduction": run.failures[("carol", "06_warp_reduction")]}]
    assert (folder / "06_warp_reduction.error").read_text().startswith("the grader wrote no result")
    assert not (folder / "06_warp_reduction.json").exists()
    again = batch.run_students(work, {"carol": tmp_path / "submissions" / "carol"}, [None])
    assert sorted(again.turns[0].kept) == ["01_vector_add", "07_constant_memory"]  # graded: never again
    assert sorted(p.name for p in folder.iterdir()) == [
        "01_vector_add.json",
        "06_warp_reduction.error",
        "07_constant_memory.json",
        "grade.log",
        "submission.json",
    ]


def test_a_failed_process_has_each_lab_graded_again_alone_and_leaves_no_stale_result(config, tmp_path, monkeypatch):
    labs = ["01_vector_add", "07_constant_memory"]
    entry = carol(tmp_path, labs)
    stand_in(monkeypatch, status=Exit.FAILED)
    work = setup(tmp_path, config, labs)
    batch.run_students(work, {"carol": entry}, [None])
    stand_in(monkeypatch, status=Exit.INTERNAL)  # graded again: its earlier results must not survive as this run's
    for lab in labs:
        (tmp_path / "students" / "carol" / f"{lab}.json").unlink()
    done: list[batch.Turn] = []
    run = batch.run_students(work, {"carol": entry}, [None], done.append)
    folder = tmp_path / "students" / "carol"
    log = folder / "07_constant_memory.log"
    why = f"grader error: something broke (RuntimeError; the traceback is in x.log) (see {log})"
    assert run.failures == {("carol", "07_constant_memory"): why}  # Lab 1, graded alone, lost nothing
    assert [turn.errors for turn in done] == [{"07_constant_memory": why}]  # one turn, after its labs alone
    assert (folder / "01_vector_add.json").is_file()
    assert sorted(p.name for p in folder.iterdir()) == [
        "01_vector_add.json",
        "01_vector_add.log",
        "07_constant_memory.error",
        "07_constant_memory.log",
        "grade.log",  # the process that failed with both
        "submission.json",
    ]


def zipped(path, files: dict[str, str]):
    import zipfile

    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)


def test_entry_names_are_checked_and_a_name_two_entries_share_is_refused(config, tmp_path):
    folder = tmp_path / "submissions"
    kernel = {"01_vector_add/kernel.cu": "// kernel\n"}
    for name in ("alice", "bob", "=1+2", "tab\tname", "back\\slash"):
        (folder / name / "01_vector_add").mkdir(parents=True)
        (folder / name / "01_vector_add" / "kernel.cu").write_text("// kernel\n")
    for name in ("..zip", "...zip", ".zip", "bob.zip", "carol.zip", "carol.tar.gz"):
        zipped(folder / name, kernel)
    out = tmp_path / "results"
    planned = plan.write_plan(folder, [config.lab("01_vector_add")], out, {}, [None])
    assert sorted(planned.entries) == ["=1+2", "alice"]  # every other is graded all the same
    recorded = plan.read_plan(out)
    assert recorded is not None
    assert sorted(recorded["refused"]) == sorted([".zip", "..zip", "...zip", "back\\slash", "tab\\x09name"])
    assert (
        "is no folder name" in recorded["refused"]["...zip"]
        and "control character" in recorded["refused"]["tab\\x09name"]
    )
    assert "path separator" in recorded["refused"]["back\\slash"]
    assert recorded["shared"] == {
        "bob": "2 submissions have this name (bob, bob.zip): none is graded; remove or rename all but one",
        "carol": "2 submissions have this name (carol.tar.gz, carol.zip): none is graded; remove or rename all but one",
    }
    said = {**planned.shared, **planned.refused}  # what the batch prints before it grades
    assert said == {**recorded["shared"], **recorded["refused"]}
    rows = {row["student"]: row for row in collect(out, config, recorded)}
    assert (
        rows["bob"]["01_vector_add_verdict"] == "refused"
        and rows["bob"]["score"] == 0
        and "bob.zip" in rows["bob"]["notes"]
    )
    assert (
        rows["..zip"]["01_vector_add_verdict"] == "refused"
        and rows["alice"]["01_vector_add_verdict"] == "not graded yet"
    )
    assert sorted(p.name for p in (out / "students").iterdir()) == ["=1+2", "alice", "bob", "carol"]
    assert sorted(p.name for p in out.iterdir()) == [
        "plan.json",
        "results.csv",
        "results.json",
        "students",
    ]  # nothing of a student's in the batch's own folder
    bob = json.loads((out / "students" / "bob" / "results.json").read_text())
    assert bob["score"] == 0 and "none is graded" in bob["output"]  # the student is told why on the platform


def test_results_csv_cells_never_start_a_spreadsheet_formula(config, tmp_path):
    import csv

    folder = tmp_path / "submissions"
    for name in ("=HYPERLINK(1)", "+1", "-1", "@SUM(1)", "plain"):
        (folder / name / "01_vector_add").mkdir(parents=True)
        (folder / name / "01_vector_add" / "kernel.cu").write_text("// kernel\n")
    out = tmp_path / "results"
    plan.write_plan(folder, [config.lab("01_vector_add")], out, {}, [None])
    recorded = plan.read_plan(out)
    assert recorded is not None
    collect(out, config, recorded)
    with (out / "results.csv").open(newline="") as file:
        cells = [cell for row in csv.reader(file) for cell in row]
    students = [row["student"] for row in json.loads((out / "results.json").read_text())]
    assert sorted(students) == sorted(["=HYPERLINK(1)", "+1", "-1", "@SUM(1)", "plain"])  # the JSON keeps them
    assert {"'=HYPERLINK(1)", "'+1", "'-1", "'@SUM(1)", "plain"} <= set(cells)
    assert not any(cell.startswith(FORMULA_STARTS) for cell in cells)


def test_the_speed_csv_cells_never_start_a_spreadsheet_formula(tmp_path):
    from grader.platforms import gradescope

    run = {
        "device": "H100",
        "labs": [],
        "score": 0,
        "max_score": 0,
        "name": "=cmd|' /C calc'!A0",
        "email": "@x",
        "sid": "-1",
    }
    (tmp_path / "students" / "s").mkdir(parents=True)
    (tmp_path / "students" / "s" / "grade.json").write_text(json.dumps(run))
    path, left_out = gradescope.write_speed_csv(tmp_path, ["s", ".."])
    assert left_out == [".."]  # a name that is no folder is never looked up
    assert path.read_text().splitlines()[1] == "'=cmd|' /C calc'!A0,'-1,'@x,0.00"


def test_results_csv_has_a_points_cell_and_a_verdict_cell_per_lab(config, tmp_path):
    import csv

    folder = tmp_path / "submissions"
    for name in ("alice", "bob"):
        (folder / name / "01_vector_add").mkdir(parents=True)
        (folder / name / "01_vector_add" / "kernel.cu").write_text("// kernel\n")
    out = tmp_path / "results"
    key = current.grading_key([])
    plan.write_plan(folder, [config.lab("01_vector_add"), config.lab("02_dot_product")], out, key, [None])
    recorded = plan.read_plan(out)
    assert recorded is not None
    digest = hashlib.sha256(b"// kernel\n").hexdigest()
    read = reading.Reading(reading.stamp(folder / "alice"), {"01_vector_add": digest}, key=key)
    reading.write_record(out, "alice", read)  # what alice's turn read: 01_vector_add alone
    saved = json.loads((REPO_ROOT / "grader" / "tests" / "data" / "no-gpu-run.json").read_text())
    lab = {**saved["labs"][0], "points": 70.0, "verdict": "incomplete"}  # 01_vector_add, graded so far
    part = {**saved, "labs": [lab], "score": 70.0, "files_used": {}, "kernel_sha256": {"01_vector_add": digest}}
    (out / "students" / "alice" / "01_vector_add.json").write_text(json.dumps({**part, current.KEY: key}))
    rows = {row["student"]: row for row in collect(out, config, recorded)}
    with (out / "results.csv").open(newline="") as file:
        table = {row["student"]: row for row in csv.DictReader(file)}
    for got in (rows, table):  # results.json and results.csv alike
        alice, bob = got["alice"], got["bob"]
        assert float(alice["01_vector_add_points"]) == 70.0 and alice["01_vector_add_verdict"] == "incomplete"
        assert float(alice["02_dot_product_points"]) == 0.0 and alice["02_dot_product_verdict"] == "not submitted"
        assert bob["01_vector_add_points"] == "" and bob["01_vector_add_verdict"] == "not graded yet"
        assert bob["02_dot_product_verdict"] == "not graded yet"  # not read yet: nothing of it is known
    assert [lab_cell(rows["alice"], name) for name in recorded["labs"]] == ["70.0 incomplete", "not submitted"]
    assert load_grade(out / "students" / "alice" / "grade.json").score == 70.0
