"""Where courses grade (grader/platforms, grader/cohort/late.py, grader/cohort/roster.py): Gradescope's autograder zip
and its results, the speed CSV, the GitHub Classroom workflow and its annotations, Slurm's CPU count and script,
the roster and the late policy. Quick: no grading here (test_batch.py grades a class; the zip is run in a
clean root by tools/gradescope-check.sh, the workflow's steps by tools/classroom-check.sh)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import jsonschema
import pytest
from rich.console import Console

from grader.cohort import late, roster, slurm
from grader.core.config import load_config
from grader.core.model import Category, Check, LabGrade, Status
from grader.core.recorded import read_grade
from grader.grading.workspace import not_submitted
from grader.platforms import classroom, gradescope
from grader.reporting import report
from grader.reporting.export import write_exports
from grader.reporting.export.gradescope import ELSEWHERE, SCHEMA, gradescope_results
from grader.reporting.export.junit import write_junit
from grader.reporting.score import score

DATA = Path(__file__).resolve().parents[1] / "data"


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text())


# Gradescope


def one_lab_submission() -> dict:
    """A grade of a submission that holds Lab 1 alone, graded without a GPU for every lab, as ./cml grade without
    --lab grades it: Lab 1 correct so far (its stretch not attempted, its speed for a GPU), the eleven others
    "not submitted"."""
    config = load_config()
    checks = [
        Check("build", Category.BUILD, Status.PASSED),
        Check("matches the CPU reference", Category.CORRECTNESS, Status.PASSED, "(CPU emulator)"),
        Check("float4: matches the CPU reference", Category.STRETCH, Status.SKIPPED, "stretch not attempted"),
        Check("memcheck: no access outside the arrays", Category.MECHANISM, Status.PASSED, "clean (CPU emulator)"),
        Check("speedup over lanes 32 apart", Category.PERFORMANCE, Status.NOT_RUN, "no GPU: timings mean nothing"),
        Check("stretch: speedup of float4", Category.STRETCH, Status.NOT_RUN, "no GPU: timings mean nothing"),
    ]
    lab = config.lab("01_vector_add")
    grades = [score(LabGrade(lab.name, lab.title, "student", "01_vector_add/kernel.cu", checks=checks), lab.points)]
    grades += [not_submitted(other, f"no {other.name}/kernel.cu in the submission") for other in config.labs[1:]]
    return report.run_dict(grades, {"device": None, "cpu_emulator": True, "gpu_reason": "no NVIDIA driver"})


def red(results: dict) -> list[str]:
    return [test["name"] for test in results["tests"] if test["status"] == "failed"]


def test_a_stretch_not_attempted_is_no_red_test_but_named_as_optional():
    results = gradescope_results(read_grade(one_lab_submission()))
    jsonschema.validate(results, json.loads(SCHEMA.read_text()))
    assert not [name for name in red(results) if name.startswith("01_vector_add")]
    assert not any("float4" in test["name"] for test in results["tests"])
    not_attempted = "optional, not attempted (worth no points either way): float4: matches the CPU reference"
    assert not_attempted in results["output"]


def test_speed_graded_elsewhere_is_one_state_in_every_path(tmp_path):
    """./cml grade --gradescope (write_exports) and run_autograder (gradescope-results) show speed not measured
    for want of a GPU alike: no test, neither red nor green, its points named as graded on a GPU."""
    run = one_lab_submission()
    graded_here = tmp_path / "grade-results.json"
    write_exports(read_grade(run), gradescope=graded_here)
    grade = tmp_path / "grade.json"
    grade.write_text(json.dumps(run))
    autograder = tmp_path / "autograder-results.json"
    args = _parser().parse_args(["gradescope-results", "--grade", str(grade), "--out", str(autograder)])
    assert gradescope.command_results(args, Console(file=open(os.devnull, "w"))) == 0
    both = [json.loads(path.read_text()) for path in (graded_here, autograder)]
    assert both[0]["tests"] == both[1]["tests"] and both[0]["output"] == both[1]["output"]
    for results in both:
        assert not any("speed" in test["name"] or "performance" in test["tags"] for test in results["tests"])
        assert f"the other 30 points are for speed, {ELSEWHERE}" in results["output"]
        assert "graded on a GPU, not here: speedup over lanes 32 apart; stretch: speedup of float4" in results["output"]
        assert results["extra_data"]["graded_elsewhere"] == 30


def test_a_run_on_a_gpu_has_nothing_graded_elsewhere():
    results = gradescope_results(read_grade(load("h100-run.json")))
    assert results["extra_data"]["graded_elsewhere"] == 0 and ELSEWHERE not in results["output"]
    assert any("performance" in test["tags"] for test in results["tests"])


def test_a_submission_is_graded_out_of_the_labs_the_assignment_names(tmp_path):
    """The zip of an assignment of Lab 1 alone: a grade of every lab (a one-lab submission graded without --lab)
    counts out of Lab 1's 100 points, not the twelve labs' 1200, and no lab it does not hold is a test."""
    grade = tmp_path / "grade.json"
    grade.write_text(json.dumps(one_lab_submission()))
    settings = tmp_path / "autograder.json"
    settings.write_text(json.dumps({"labs": ["01_vector_add"], "visibility": "visible", "late": None}))
    out = tmp_path / "results.json"
    args = _parser().parse_args(
        ["gradescope-results", "--grade", str(grade), "--settings", str(settings), "--out", str(out)]
    )
    assert gradescope.command_results(args, Console(file=open(os.devnull, "w"))) == 0
    results = json.loads(out.read_text())
    assert results["extra_data"]["max_score"] == load_config().lab("01").max_points == 100
    assert {test["tags"][0] for test in results["tests"]} == {"01_vector_add"} and not red(results)
    assert results["output"].startswith("Score here: 70.0 / 70;")
    assert "not counted, not in this assignment: 02_dot_product" in results["output"]
    whole = gradescope_results(read_grade(one_lab_submission()))  # the same grade with no assignment's labs
    assert whole["extra_data"]["max_score"] == 1200 and len(red(whole)) == 11


def test_an_assignment_names_its_labs_once_when_its_zip_is_made(tmp_path, capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args(["gradescope", "--out", str(tmp_path / "a.zip")])  # which labs? it must say
    assert "one of the arguments --lab --all-labs is required" in capsys.readouterr().err
    every = _parser().parse_args(["gradescope", "--all-labs"])
    assert every.all_labs and not every.lab


@pytest.mark.needs_solutions
def test_the_zip_has_gradescopes_two_scripts_at_its_root_and_the_grader(tmp_path):
    path = gradescope.write_zip(
        tmp_path / "autograder.zip", ["01_vector_add"], None, late.LatePolicy(10, 3), "after_due_date"
    )
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        mode = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
        run_autograder = archive.read("run_autograder").decode()
        settings = json.loads(archive.read(gradescope.SETTINGS))
    assert {
        "setup.sh",
        "run_autograder",
        "cml",
        "meson.build",
        "grader/cli.py",
        "tools/install-system.sh",
        "tests/01_vector_add/test.cpp",
        "solutions/01_vector_add/kernel.cu",
    } <= names
    assert not any(name.startswith("grader/tests/") or "__pycache__" in name for name in names)
    assert all(mode[name] & stat.S_IXUSR for name in ("setup.sh", "run_autograder", "cml"))
    assert (
        '--submission "$autograder/submission" --lab 01_vector_add' in run_autograder and "@LABS@" not in run_autograder
    )
    assert settings == {
        "labs": ["01_vector_add"],
        "visibility": "after_due_date",
        "late": {"percent_per_day": 10, "limit_days": 3},
    }


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=root, check=True)


def test_the_zip_ships_the_committed_skeletons_and_warns_of_a_worked_working_tree(tmp_path):
    root = tmp_path / "kit"
    skeleton = root / "labs" / "01_vector_add" / "kernel.cu"
    skeleton.parent.mkdir(parents=True)
    skeleton.write_text("// TODO 1: the skeleton\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "skeleton")
    assert gradescope.skeleton_warning(root) is None

    skeleton.write_text("// a finished kernel: never for the students\n")
    (skeleton.parent / "notes.txt").write_text("untracked\n")
    warning = gradescope.skeleton_warning(root)
    assert warning and "labs/01_vector_add/kernel.cu" in warning and "labs/01_vector_add/notes.txt" in warning
    path = gradescope.write_zip(tmp_path / "autograder.zip", [], None, None, "visible", root=root)
    with zipfile.ZipFile(path) as archive:
        assert archive.read("labs/01_vector_add/kernel.cu") == b"// TODO 1: the skeleton\n"
        assert "labs/01_vector_add/notes.txt" not in archive.namelist()


def test_a_zip_from_no_git_checkout_says_its_skeletons_are_unchecked(tmp_path):
    (tmp_path / "labs").mkdir()
    assert "no git checkout" in (gradescope.skeleton_warning(tmp_path) or "")


# run_autograder is tried on a copy of Gradescope's layout with a stand-in for the grader's Python: its grade step
# is the submission's code at its worst (run unsandboxed), rewriting the script that is running in place, with
# its new text past where bash had read, and trying the checkout's Python too. Where the tests run as root, the
# script runs as nobody for the first test (as any user but root would), and as root for the second, as
# Gradescope runs it.
FAKE_PYTHON = """#!/bin/bash
case $3 in
grade)
    work=$(dirname "${@: -1}")
    id -u >"$work/whoami"
    script=@ROOT@/run_autograder
    size=$(stat -c %s "$script")  # before the redirection below empties it
    { head -c "$size" /dev/zero | tr '\\0' '\\n'
      echo 'echo "{\\"score\\": 100.0}" >@ROOT@/results/results.json; exit 0'; } 2>/dev/null >"$script" &&
        echo rewritten >>"$work/attack"
    echo 'exit 0' 2>/dev/null >"$0" && echo python >>"$work/attack"
    echo '{"score": 0.0}' >"${@: -1}"
    exit 1 ;;
gradescope-results)
    echo '{"score": 0.0, "written by": "gradescope-results"}' >"${@: -1}" ;;
esac
"""
WRITTEN = {"score": 0.0, "written by": "gradescope-results"}
NOBODY = 65534


@pytest.fixture
def reachable():
    """A folder every user can reach (pytest's own is root's alone where the tests run as root)."""
    folder = Path(tempfile.mkdtemp(prefix="cml-autograder-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


def gradescope_layout(root: Path, script: str, owner: int | None) -> list[str]:
    """Gradescope's /autograder at `root` with `script` as run_autograder; the command that runs it, as `owner`
    (who then owns every file) where given."""
    root.mkdir(mode=0o755)
    (root / "submission" / "01_vector_add").mkdir(parents=True)
    (root / "submission" / "01_vector_add" / "kernel.cu").write_text("// computes nothing\n")
    python = root / "source" / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON.replace("@ROOT@", str(root)))
    python.chmod(0o755)
    (root / "source" / "autograder.json").write_text("{}\n")
    (root / "run_autograder").write_text(script.replace("autograder=/autograder\n", f"autograder={root}\n"))
    (root / "run_autograder").chmod(0o755)
    if owner is None:
        return ["bash", str(root / "run_autograder")]
    for path in [root, *root.rglob("*")]:
        os.chown(path, owner, owner)
    return [
        "setpriv",
        "--reuid",
        str(owner),
        "--regid",
        str(owner),
        "--clear-groups",
        "bash",
        str(root / "run_autograder"),
    ]


def test_run_autograder_is_read_whole_before_the_submission_can_rewrite_it(reachable):
    autograder_root = reachable / "whole"
    script = gradescope.script_text("run_autograder", ["01_vector_add"], False)
    assert script.rstrip().endswith('\nmain "$@"; exit') and "\nmain " not in script.rstrip()[:-16]
    owner = NOBODY if os.geteuid() == 0 else None  # as any user but root: the script itself is what is tested
    command = gradescope_layout(autograder_root, script, owner)
    (autograder_root / "source" / ".venv" / "bin" / "python").chmod(0o555)  # the checkout's defence: the next test
    ran = subprocess.run(command, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert (autograder_root / "work" / "attack").read_text().split() == ["rewritten"]  # it did rewrite the script
    assert json.loads((autograder_root / "results" / "results.json").read_text()) == WRITTEN
    # The same attack on the same script with its last line split in two: bash reads on into the new text.
    split = reachable / "split"
    shape = script.replace('main "$@"; exit', 'main "$@"\nexit')
    command = gradescope_layout(split, shape, owner)
    (split / "source" / ".venv" / "bin" / "python").chmod(0o555)
    hijacked = subprocess.run(command, capture_output=True, text=True)
    assert json.loads((split / "results" / "results.json").read_text()) == {"score": 100.0}, hijacked.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: Gradescope runs run_autograder as root")
def test_run_autograder_grades_as_an_ordinary_user_who_cannot_write_the_grader(reachable):
    autograder_root = reachable / "autograder"
    script = gradescope.script_text("run_autograder", ["01_vector_add"], False)
    assert "\ngrader_user=cml-grader\n" in script
    command = gradescope_layout(
        autograder_root, script.replace("\ngrader_user=cml-grader\n", "\ngrader_user=nobody\n"), None
    )
    before = (autograder_root / "run_autograder").read_bytes()
    ran = subprocess.run(command, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    work = autograder_root / "work"
    assert (work / "whoami").read_text().strip() == str(NOBODY)
    assert not (work / "attack").exists()  # neither the script nor the checkout's Python could be written
    assert (autograder_root / "run_autograder").read_bytes() == before
    assert json.loads((autograder_root / "results" / "results.json").read_text()) == WRITTEN
    assert json.loads((autograder_root / "results" / "grade.json").read_text()) == {"score": 0.0}
    assert (autograder_root / "results").stat().st_uid == 0


def test_setup_sh_makes_the_user_that_run_autograder_grades_as_and_gives_it_only_the_build():
    setup = gradescope.script_text("setup.sh", ["01_vector_add"], False)
    script = gradescope.script_text("run_autograder", ["01_vector_add"], False)
    user = next(line.split("=")[1].split()[0] for line in setup.splitlines() if line.startswith("GRADER_USER="))
    assert f"\ngrader_user={user}\n" in script
    assert "chown -R root:root .\nchmod -R go-w .\n" in setup and 'chown -R "$GRADER_USER:" build .results' in setup


def test_gradescope_results_takes_the_time_and_due_date_from_gradescopes_metadata(tmp_path):
    grade = tmp_path / "grade.json"
    grade.write_text(json.dumps(load("no-gpu-run.json") | {"score": 50.0}))
    metadata = tmp_path / "submission_metadata.json"
    metadata.write_text(
        json.dumps(
            {
                "created_at": "2026-03-03T09:00:00.000000-05:00",
                "assignment": {"due_date": "2026-03-01T23:59:00.000000-05:00"},
                "users": [{"email": "ada@example.edu", "id": 7, "name": "Ada"}],
            }
        )
    )
    settings = tmp_path / "autograder.json"
    settings.write_text(json.dumps({"late": {"percent_per_day": 10, "limit_days": 3}}))
    out = tmp_path / "results.json"
    parser = _parser()
    args = parser.parse_args(
        [
            "gradescope-results",
            "--grade",
            str(grade),
            "--metadata",
            str(metadata),
            "--settings",
            str(settings),
            "--out",
            str(out),
        ]
    )
    assert gradescope.command_results(args, Console(file=open(os.devnull, "w"))) == 0
    results = json.loads(out.read_text())
    assert results["score"] == 40.0 and results["extra_data"]["late"]["days"] == 2
    assert "2 days after the due date" in results["output"]


def _parser():
    import argparse

    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command")
    gradescope.add_command(commands)
    classroom.add_command(commands)
    return parser


def test_the_speed_csv_lists_only_students_graded_on_a_gpu(tmp_path):
    for student, name in (("alice", "h100-run.json"), ("bob", "no-gpu-run.json")):
        folder = tmp_path / "students" / student
        folder.mkdir(parents=True)
        run = load(name) | ({"email": "alice@example.edu", "sid": "17"} if student == "alice" else {})
        (folder / "grade.json").write_text(json.dumps(run))
    path, left_out = gradescope.write_speed_csv(tmp_path, ["alice", "bob"])
    lines = path.read_text().splitlines()
    assert lines[0] == "Name,SID,Email,Score" and left_out == ["bob"]
    speed = sum(
        c["points"] for lab in load("h100-run.json")["labs"] for c in lab["checks"] if c["category"] == "performance"
    )
    assert lines[1] == f"alice,17,alice@example.edu,{speed:.2f}" and len(lines) == 2


# GitHub Classroom


def test_the_classroom_workflow_names_the_graders_repository_and_labs():
    text = classroom.workflow_text("course/grader", "v1.2", ["01_vector_add", "06_warp_reduction"])
    assert 'CML_GRADER_REPO: "course/grader"' in text and 'CML_GRADER_REF: "v1.2"' in text
    assert 'CML_LABS: "--lab 01_vector_add --lab 06_warp_reduction"' in text
    assert not any(token in text for token in ("@GRADER_REPO@", "@GRADER_REF@", "@LABS@"))
    assert "runs-on: [self-hosted, gpu]" in text and "classroom-annotate" in text


def test_junit_checks_become_annotations(tmp_path):
    junit = tmp_path / "junit.xml"
    write_junit(read_grade(load("no-gpu-run.json")), junit)
    commands, rows = classroom.workflow_commands(junit)
    assert commands and all(
        line.startswith(("::error title=", "::warning title=", "::notice title=")) for line in commands
    )
    assert any(
        line.startswith("::warning title=01_vector_add%3A speedup over lanes 32 apart::NOT PASSED (not run)")
        for line in commands
    )
    assert all("\n" not in line for line in commands) and len(rows) == len(commands)


# Slurm


def fake_sinfo(tmp_path, monkeypatch, output: str) -> None:
    sinfo = tmp_path / "bin" / "sinfo"
    sinfo.parent.mkdir()
    sinfo.write_text(f"#!/bin/sh\necho \"$@\" > {tmp_path}/asked\nprintf '{output}'\n")
    sinfo.chmod(0o755)
    monkeypatch.setenv("PATH", f"{sinfo.parent}:{os.environ['PATH']}")


def test_slurm_asks_the_partition_for_its_smallest_node(tmp_path, monkeypatch):
    fake_sinfo(tmp_path, monkeypatch, "2\\n16+\\n")
    assert slurm.choose_cpus(None, ["--partition=small"]) == (2, "partition small's smallest node has 2")
    assert (tmp_path / "asked").read_text().split() == ["--noheader", "--format=%c", "--partition", "small"]
    assert slurm.choose_cpus(4, []) == (4, "--cpus")


def test_slurm_without_sinfo_takes_what_this_machine_has(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    cpus, why = slurm.choose_cpus(None, [])
    assert cpus == min(8, os.cpu_count() or 1) and "sinfo did not answer" in why


def test_the_slurm_tasks_run_the_graders_python_not_the_cml_script(tmp_path):
    checkout = tmp_path / "checkout"
    (checkout / "grader").mkdir(parents=True)
    (checkout / "grader" / "__main__.py").write_text("")
    (checkout / ".venv" / "bin").mkdir(parents=True)
    for name, says in ((".venv/bin/python", "python"), ("cml", "./cml")):
        (checkout / name).write_text(f'#!/bin/sh\necho "{says} $*" >"{tmp_path}/ran"\n')
        (checkout / name).chmod(0o755)
    script = slurm.write_script(tmp_path / "subs", tmp_path / "out", 2, ["--lab", "1"], "01:00:00", 2, [], gpus=0)
    assert "\nexec .venv/bin/python -m grader batch-task " in script.read_text()
    ran = subprocess.run(["bash", str(script)], env={**os.environ, "SLURM_SUBMIT_DIR": str(checkout)}, check=False)
    assert ran.returncode == 0
    said = (tmp_path / "ran").read_text().split()
    assert said[:4] == ["python", "-m", "grader", "batch-task"] and said[-2:] == ["--lab", "1"]


def test_the_slurm_script_names_no_checkout_and_no_gpu_when_asked_for_none(tmp_path):
    script = slurm.write_script(tmp_path / "subs", tmp_path / "out", 2, ["--lab", "1"], "01:00:00", 2, [], gpus=0)
    text = script.read_text()
    assert "--gres" not in text and "#SBATCH --cpus-per-task=2" in text
    assert 'cd "${SLURM_SUBMIT_DIR:?' in text and str(Path(__file__).resolve().parents[3]) not in text


# The roster and the late policy


def test_late_days_are_started_days_and_the_policy_scales_the_score():
    due = late.parse_time("2026-03-01T23:59:00-05:00")
    assert late.days_late(late.parse_time("2026-03-01T23:58:00-05:00"), due) == 0
    assert late.days_late(late.parse_time("2026-03-02T00:00:00-05:00"), due) == 1
    policy = late.LatePolicy(10, 3)
    assert [policy.kept(days) for days in (0, 1, 3, 4)] == [1.0, 0.9, 0.7, 0.0]
    run = late.apply({"score": 80.0}, late.parse_time("2026-03-03T12:00:00-05:00"), due, policy)
    assert run["score"] == pytest.approx(64.0) and run["late"]["days"] == 2 and run["late"]["score_before"] == 80.0
    on_time = late.apply({"score": 80.0}, due, due, policy)
    assert on_time["score"] == 80.0 and "late" not in on_time


def test_a_bad_late_policy_is_refused():
    with pytest.raises(ValueError):
        late.LatePolicy(150)


def test_the_roster_gives_ids_emails_and_times(tmp_path):
    (tmp_path / "subs" / "alice").mkdir(parents=True)
    (tmp_path / "subs" / "bob.zip").write_bytes(b"")
    os.utime(tmp_path / "subs" / "bob.zip", (0, 1_700_000_000))
    path = tmp_path / "roster.csv"
    path.write_text(
        "Student,SID,Email,Name,submitted_at\nalice,17,alice@example.edu,Alice A,2026-03-02T10:00:00Z\n"
        "bob,18,bob@example.edu,,\n"
    )
    entries = {"alice": tmp_path / "subs" / "alice", "bob": tmp_path / "subs" / "bob.zip"}
    info = roster.gather(entries, path, "2026-03-01T23:59:00Z", late.LatePolicy(50))
    roster.write(tmp_path, info)
    again = roster.read(tmp_path)
    assert again == info
    assert again.submitted_at["bob"] == datetime.fromtimestamp(1_700_000_000, tz=UTC).isoformat()
    alice = again.annotate({"score": 10.0}, "alice")
    assert alice["email"] == "alice@example.edu" and alice["sid"] == "17" and alice["score"] == 5.0
    assert again.annotate({"score": 10.0}, "bob")["score"] == 10.0  # on time


def test_a_roster_without_a_student_column_is_refused(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("email\na@example.edu\n")
    with pytest.raises(ValueError, match="no 'student' column"):
        roster.read_roster(path)
