"""Grading a class: a batch over a folder of submissions, one grader process per submission, resumable, and
the same work as Slurm array tasks merged by collect. Real grader processes on a few generated submissions (CPU
only here: the GPU checks are 'not run'); the whole generated class is graded on the H100
(results/h100.md, "A class"). The cutting of a process's JSON into per-lab results is tested on its own, and with
a stand-in grader process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from grader.cohort import batch
from grader.cohort.collect import FORMULA_STARTS, collect, lab_cell, student_run
from grader.core.config import REPO_ROOT
from grader.core.exits import Exit
from grader.core.model import LabGrade
from grader.core.recorded import read_grade
from grader.platforms.edition import NO_SOLUTIONS, has_solutions
from grader.reporting.report import run_dict

if not has_solutions():  # read as the module is imported, which no marker can skip
    pytest.skip(NO_SOLUTIONS, allow_module_level=True)

from grader.tests import class_submissions as generated

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
def graded(tmp_path_factory, device):
    if device.present:
        pytest.skip("on a GPU machine the whole class is graded instead (tools/gpu-check.sh class)")
    out = tmp_path_factory.mktemp("batch")
    submissions = generated.make(out, STUDENTS)
    finished = cml("batch", str(submissions), "--out", str(out / "results"), "--lab", "1", "--lab", "6")
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
    header = "student,score,max_score,01_vector_add_points,01_vector_add_verdict,06_warp_reduction_points,"
    header += "06_warp_reduction_verdict,notes"
    assert (out / "results" / "results.csv").read_text().startswith(header)


@pytest.mark.slow
def test_each_submission_is_graded_in_one_process_and_its_json_cut_per_lab(graded):
    out, _, finished = graded
    students = out / "results" / "students"
    said = " ".join(finished.stdout.split())  # as one line, however the terminal wrapped it
    assert "6 labs of 5 submission(s); 0 already graded; 6 to grade in 5 grader process(es)" in said, said
    logs = sorted(path.parent.name for path in students.glob("*/grade.log"))
    assert logs == sorted(set(STUDENTS) - {"wendy_symlink_to_solution", "xavier_corrupt_zip"})  # nothing to grade
    assert not list(students.glob("*/*.partial")) and not list(students.glob("*/*.error"))
    folder = students / "carol_two_labs_zip"
    log = (folder / "grade.log").read_text()
    assert "Lab 01_vector_add" in log and "Lab 06_warp_reduction" in log  # one process graded both
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
    assert pending["alice_correct"]["01_vector_add_verdict"] == "not graded yet"
    assert pending["wendy_symlink_to_solution"]["01_vector_add_verdict"] == "not submitted"
    for task in ("0", "1"):  # as Slurm would start them, one after the other here
        env = {"SLURM_ARRAY_TASK_ID": task, "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_JOB_ID": "42"}
        ran = cml("batch-task", str(submissions), "--out", str(out), "--lab", "1", env=env)
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
    for lab in labs:
        (tmp_path / f"{lab}.json").write_text(json.dumps(batch.lab_run(read_grade(run), lab)))
    merged = student_run(tmp_path, "carol")
    assert merged["labs"] == run["labs"] and merged["files_used"] == run["files_used"] and merged["score"] == 135


def tasks_of(config, student: str, labs: list[str], entry=None) -> list[batch.Task]:
    return [batch.Task(student, entry or REPO_ROOT / "labs", config.lab(lab), f"digest-{lab}") for lab in labs]


def test_a_submissions_labs_stay_together_in_one_process_and_one_slurm_task(config):
    tasks = tasks_of(config, "a", ["01_vector_add", "06_warp_reduction"]) + tasks_of(config, "b", ["01_vector_add"])
    tasks += tasks_of(config, "c", ["02_dot_product", "03_smoothing_halo"])
    assert [[t.lab.name for t in group] for group in batch.by_submission(tasks)] == [
        ["01_vector_add", "06_warp_reduction"],
        ["01_vector_add"],
        ["02_dot_product", "03_smoothing_halo"],
    ]
    assert {t.student for t in batch.share(tasks, 0, 2)} == {"a", "c"} and len(batch.share(tasks, 0, 2)) == 4
    assert {t.student for t in batch.share(tasks, 1, 2)} == {"b"}


def test_the_time_limit_of_a_process_grows_with_its_labs(config):
    one, three = batch.task_timeout(config), batch.task_timeout(config, 3)
    assert one == sum(config.timeouts.values()) + 2 * config.timeouts["bench"] + 300
    assert three == one + 2 * (one - 300)


# Stands in for `./cml grade`: writes a run of the labs it is given but 06_warp_reduction, exits with the status
# asked for, and prints what the real grader prints for an error of its own.
FAKE_GRADER = """
import json, sys
from grader.core.model import LabGrade
from grader.reporting.report import run_dict
path, status, labs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
if status == 5:  # the grader's error, on Lab 7 alone; the others graded
    if "07_constant_memory" in labs:
        print("grader error: something broke (RuntimeError; the traceback is in x.log)")
        sys.exit(status)
    status = 0
grades = [LabGrade(lab=l, title=l, variant="student", kernel_path="k", points=10, max_points=100) for l in labs]
context = {"files_used": {l: "sub" for l in labs}, "kernel_sha256": {l: "digest-" + l for l in labs}}
open(path, "w").write(json.dumps(run_dict([g for g in grades if g.lab != "06_warp_reduction"], context)))
sys.exit(status)
"""


def fake_grader(monkeypatch, status: int) -> None:
    def command(tasks, json_path, build_dir, options):
        return [sys.executable, "-c", FAKE_GRADER, str(json_path), str(status), *(t.lab.name for t in tasks)]

    monkeypatch.setattr(batch, "grade_command", command)


def test_a_lab_missing_from_the_processs_json_gets_its_error(config, tmp_path, monkeypatch):
    fake_grader(monkeypatch, Exit.FAILED)  # graded: a lab failed, the student's
    tasks = tasks_of(config, "carol", ["01_vector_add", "06_warp_reduction", "07_constant_memory"])
    done = []
    failures = batch.run_tasks(tasks, tmp_path, [None], [], config, lambda group, errors: done.append(errors)).failures
    folder = tmp_path / "students" / "carol"
    log = folder / "grade.log"
    assert failures == {("carol", "06_warp_reduction"): f"the grader wrote no result for this lab (see {log})"}
    assert done == [{"06_warp_reduction": failures[("carol", "06_warp_reduction")]}]  # one process, once
    assert (folder / "06_warp_reduction.error").read_text().startswith("the grader wrote no result")
    assert not (folder / "06_warp_reduction.json").exists()
    for task in (tasks[0], tasks[2]):
        assert batch.already_graded(tmp_path, task), task.lab.name
    assert sorted(p.name for p in folder.iterdir()) == [
        "01_vector_add.json",
        "06_warp_reduction.error",
        "07_constant_memory.json",
        "grade.log",
    ]


def test_a_failed_process_has_each_lab_graded_again_alone_and_leaves_no_stale_result(config, tmp_path, monkeypatch):
    tasks = tasks_of(config, "carol", ["01_vector_add", "07_constant_memory"])
    fake_grader(monkeypatch, Exit.FAILED)
    batch.run_tasks(tasks, tmp_path, [None], [], config)
    fake_grader(monkeypatch, Exit.INTERNAL)  # graded again: its earlier results must not survive as this run's
    for task in tasks:
        batch.result_path(tmp_path, task).unlink()
    done = []
    failures = batch.run_tasks(tasks, tmp_path, [None], [], config, lambda group, errors: done.append(errors)).failures
    folder = tmp_path / "students" / "carol"
    log = folder / "07_constant_memory.log"
    why = f"grader error: something broke (RuntimeError; the traceback is in x.log) (see {log})"
    assert failures == {("carol", "07_constant_memory"): why}  # Lab 1, graded alone, lost nothing
    assert done == [{"07_constant_memory": why}]  # one call, for the submission, after its labs alone
    assert batch.already_graded(tmp_path, tasks[0])
    assert sorted(p.name for p in folder.iterdir()) == [
        "01_vector_add.json",
        "01_vector_add.log",
        "07_constant_memory.error",
        "07_constant_memory.log",
        "grade.log",  # the process that failed with both
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
    tasks, problems = batch.write_plan(folder, [config.lab("01_vector_add")], config, out)
    assert sorted(task.student for task in tasks) == ["=1+2", "alice"]  # every other is graded all the same
    plan = batch.read_plan(out)
    assert plan is not None
    assert sorted(plan["refused"]) == sorted([".zip", "..zip", "...zip", "back\\slash", "tab\\x09name"])
    assert "is no folder name" in plan["refused"]["...zip"] and "control character" in plan["refused"]["tab\\x09name"]
    assert "path separator" in plan["refused"]["back\\slash"]
    assert plan["shared"] == {
        "bob": "2 submissions have this name (bob, bob.zip): none is graded; remove or rename all but one",
        "carol": "2 submissions have this name (carol.tar.gz, carol.zip): none is graded; remove or rename all but one",
    }
    assert set(problems) == set(plan["refused"]) | {"bob", "carol"}  # what the batch prints before it grades
    rows = {row["student"]: row for row in collect(out, config, plan)}
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
    batch.write_plan(folder, [config.lab("01_vector_add")], config, out)
    plan = batch.read_plan(out)
    assert plan is not None
    collect(out, config, plan)
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
    batch.write_plan(folder, [config.lab("01_vector_add"), config.lab("02_dot_product")], config, out)
    plan = batch.read_plan(out)
    assert plan is not None
    saved = json.loads((REPO_ROOT / "grader" / "tests" / "data" / "no-gpu-run.json").read_text())
    lab = {**saved["labs"][0], "points": 70.0, "verdict": "incomplete"}  # 01_vector_add, graded so far
    (out / "students" / "alice").mkdir(parents=True, exist_ok=True)
    part = {**saved, "labs": [lab], "score": 70.0, "files_used": {}, "kernel_sha256": {}}
    (out / "students" / "alice" / "01_vector_add.json").write_text(json.dumps(part))
    rows = {row["student"]: row for row in collect(out, config, plan)}
    with (out / "results.csv").open(newline="") as file:
        table = {row["student"]: row for row in csv.DictReader(file)}
    for got in (rows, table):  # results.json and results.csv alike
        alice, bob = got["alice"], got["bob"]
        assert float(alice["01_vector_add_points"]) == 70.0 and alice["01_vector_add_verdict"] == "incomplete"
        assert float(alice["02_dot_product_points"]) == 0.0 and alice["02_dot_product_verdict"] == "not submitted"
        assert bob["01_vector_add_points"] == "" and bob["01_vector_add_verdict"] == "not graded yet"
    assert [lab_cell(rows["alice"], name) for name in plan["labs"]] == ["70.0 incomplete", "not submitted"]
