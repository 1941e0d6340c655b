"""A class's grades survive faults: a row is the grade of the submission as it is now, or says "not graded yet" or
"grader error", never an older kernel's score; one batch at a time holds an output folder; a damaged build folder
is made anew; what decides "already graded" is the kernel, the grader and every option that changes a verdict.
The grader process is the stand-in of batch_support.py: these are the batch's own decisions, in seconds each."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading

import pytest

from grader.cohort import batch, collect, current, output_lock, plan, reading
from grader.core.exits import Exit
from grader.core.recorded import read_grade
from grader.tests.support.batch import (
    alive,
    batch_process,
    class_folder,
    cml_batch,
    processes,
    resubmit,
    setup,
    stand_in,
    wait_for,
)

LAB = "01_vector_add"


def rows(out) -> dict:
    return {row["student"]: row for row in json.loads((out / "results.json").read_text())}


def gradescope_score(out, student: str) -> float:
    return json.loads((out / "students" / student / "results.json").read_text())["score"]


def test_a_resubmission_whose_regrade_was_killed_shows_not_graded_yet_never_the_old_score(tmp_path):
    submissions, out = class_folder(tmp_path, ["alice", "bob"], [LAB]), tmp_path / "out"
    first = batch_process(submissions, out, "--lab", "1", points=70)
    said, _ = first.communicate(timeout=120)
    assert first.returncode == Exit.PASSED, said
    assert rows(out)["alice"][f"{LAB}_points"] == 70.0 and gradescope_score(out, "alice") == 70.0
    resubmit(submissions, "alice", LAB, 2)  # a wrong kernel, say
    log = tmp_path / "processes.jsonl"
    regrade = batch_process(submissions, out, "--lab", "1", points=0, sleep=60, log=str(log))
    wait_for(lambda: processes(log))  # alice's grader process has started
    grader = processes(log)[0]["pid"]
    try:
        regrade.kill()  # the batch killed outright, as the out-of-memory killer does; its grader process lives on
        regrade.communicate()
        assert collect_status(out) == Exit.INCOMPLETE
        alice = rows(out)["alice"]
        assert alice[f"{LAB}_verdict"] == "not graded yet" and alice[f"{LAB}_points"] == "", alice
        assert "not graded yet" in alice["notes"] and alice["score"] == 0.0
        assert gradescope_score(out, "alice") == 0.0  # what the student sees on the platform: not the old 70
        assert rows(out)["bob"][f"{LAB}_points"] == 70.0  # unchanged, and graded: kept
        # Its grader process still builds in the folder: a new batch is refused, the dead holder named.
        second = batch_process(submissions, out, "--lab", "1")
        said, _ = second.communicate(timeout=60)
        assert second.returncode == Exit.BUSY, said
        said = " ".join(said.split())
        assert f"pid {regrade.pid} on " in said and "a grader process it started is still running" in said, said
    finally:
        os.kill(grader, signal.SIGKILL)
    wait_for(lambda: not alive(grader))
    third = batch_process(submissions, out, "--lab", "1", points=30)
    said, _ = third.communicate(timeout=120)
    assert third.returncode == Exit.PASSED, said
    assert rows(out)["alice"][f"{LAB}_points"] == 30.0 and rows(out)["bob"][f"{LAB}_points"] == 70.0


def collect_status(out) -> int:
    from grader import cli

    return cli.main(["collect", str(out)])


def test_a_resubmission_whose_grader_process_died_shows_a_grader_error_never_the_old_score(
    config, tmp_path, monkeypatch
):
    submissions = class_folder(tmp_path, ["alice"], [LAB])
    work = setup(tmp_path / "out", config, [LAB])
    stand_in(monkeypatch, points=70)
    batch.run_students(work, {"alice": submissions / "alice"}, [None])
    resubmit(submissions, "alice", LAB, 2)
    kill = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"  # as the out-of-memory killer would
    monkeypatch.setattr(batch, "grade_command", lambda tasks, path, build, options: [sys.executable, "-c", kill])
    run = batch.run_students(work, {"alice": submissions / "alice"}, [None])
    assert "exited with status -9" in run.failures[("alice", LAB)]
    plan.write_plan(submissions, work.labs, work.out, work.key, work.devices)
    got = {row["student"]: row for row in collect.collect(work.out, config, plan.read_plan(work.out) or {})}
    assert got["alice"][f"{LAB}_verdict"] == "grader error" and got["alice"]["score"] == 0.0
    assert gradescope_score(work.out, "alice") == 0.0


def test_a_resubmission_the_batch_did_not_reach_shows_not_graded_yet_and_the_batch_exits_4(
    tmp_path, monkeypatch, capsys
):
    students = ["anna", "bob", "carol"]
    submissions, out = class_folder(tmp_path, students, [LAB]), tmp_path / "out"
    assert cml_batch(monkeypatch, submissions, out, "--lab", "1", points=70) == Exit.PASSED
    for student in students:
        resubmit(submissions, student, LAB, 2)
    # anna's turn takes 2 s; --stop-after 0.01 minutes (0.6 s) lets no other turn start after hers.
    status = cml_batch(monkeypatch, submissions, out, "--lab", "1", "--stop-after", "0.01", points=40, sleep=2)
    said = " ".join(capsys.readouterr().out.split())
    assert status == Exit.INCOMPLETE, said
    assert "2 submission(s) not graded yet (bob, carol)" in said
    got = rows(out)
    assert got["anna"][f"{LAB}_points"] == 40.0
    for student in ("bob", "carol"):
        assert got[student][f"{LAB}_verdict"] == "not graded yet" and got[student]["score"] == 0.0
        assert gradescope_score(out, student) == 0.0


def test_a_submission_removed_or_added_between_runs_is_the_only_change(tmp_path, monkeypatch):
    submissions, out = class_folder(tmp_path, ["anna", "bob"], [LAB]), tmp_path / "out"
    log = tmp_path / "processes.jsonl"
    assert cml_batch(monkeypatch, submissions, out, "--lab", "1", log=str(log)) == Exit.PASSED
    (submissions / "bob" / LAB / "kernel.cu").unlink()
    (submissions / "bob" / LAB).rmdir()
    (submissions / "bob" / "notes.txt").write_text("no kernel this time\n")
    class_folder(tmp_path, ["carol"], [LAB])
    assert cml_batch(monkeypatch, submissions, out, "--lab", "1", log=str(log)) == Exit.PASSED
    assert [process["student"] for process in processes(log)] == ["anna", "bob", "carol"]  # carol alone again
    got = rows(out)
    assert got["bob"][f"{LAB}_verdict"] == "not submitted" and got["carol"][f"{LAB}_points"] == 10.0


BEFORE = ["--step-timeout", "100", "--arch", "sm_90", "--target", "{tmp}/mine.toml"]


@pytest.mark.parametrize(
    "after",
    [
        ["--step-timeout", "50", "--arch", "sm_90", "--target", "{tmp}/mine.toml"],
        ["--step-timeout", "100", "--arch", "sm_80", "--target", "{tmp}/mine.toml"],
        ["--step-timeout", "100", "--arch", "sm_90", "--target", "{tmp}/other.toml"],
        [*BEFORE, "--no-sandbox"],
        [*BEFORE, "--instructor-sizes", "{tmp}/sizes.toml"],
    ],
    ids=["step timeout", "architecture", "thresholds file", "sandbox", "instructor sizes"],
)
def test_results_graded_with_other_options_are_graded_again(config, tmp_path, monkeypatch, after):
    submissions = class_folder(tmp_path, ["anna"], [LAB])
    for name in ("mine.toml", "other.toml", "sizes.toml"):
        (tmp_path / name).write_text(f"# {name}\n")
    before, after = ([o.format(tmp=tmp_path) for o in options] for options in (BEFORE, after))
    stand_in(monkeypatch)
    entries = {"anna": submissions / "anna"}
    batch.run_students(setup(tmp_path / "out", config, [LAB], before), entries, [None])
    kept = batch.run_students(setup(tmp_path / "out", config, [LAB], before), entries, [None])
    assert kept.turns[0].kept == [LAB] and kept.turns[0].graded == []
    again = batch.run_students(setup(tmp_path / "out", config, [LAB], after), entries, [None])
    assert again.turns[0].graded == [LAB], after


def test_a_thresholds_file_changed_in_place_is_another_option(tmp_path):
    target = tmp_path / "gpu.toml"
    target.write_text("[device]\n")
    first = current.grading_key(["--target", str(target)])
    target.write_text("[device]\n# recalibrated\n")
    assert current.grading_key(["--target", str(target)]) != first
    assert current.grading_key(["--target", str(target)])["options"][1].startswith("sha256:")


def test_another_version_of_the_grader_or_the_tests_is_another_key(tmp_path):
    for name in current.VERSIONED:
        path = tmp_path / name
        if "." in name:
            path.write_text("project('x')\n")
        else:
            (path / "part").mkdir(parents=True)
            (path / "part" / "a.py").write_text("x = 1\n")
    (tmp_path / "grader" / "tests").mkdir()
    first = current.grader_version(tmp_path)
    (tmp_path / "grader" / "tests" / "test_x.py").write_text("# the grader's own test: judges no kernel\n")
    (tmp_path / "grader" / "part" / "__pycache__").mkdir()
    (tmp_path / "grader" / "part" / "__pycache__" / "a.pyc").write_bytes(b"\0")
    assert current.grader_version(tmp_path) == first
    for name in ("grader", "tests", "common"):
        (tmp_path / name / "part" / "a.py").write_text(f"x = 2  # {name}\n")
        assert current.grader_version(tmp_path) != first, name
        first = current.grader_version(tmp_path)


def test_a_result_counts_only_for_its_kernel_its_key_and_a_device_of_the_batch(tmp_path):
    key = current.grading_key([])
    run = {"labs": [], "score": 0, "max_score": 0, "device": "NVIDIA H100", "kernel_sha256": {LAB: "abc"}}
    result = read_grade({**run, current.KEY: key})
    assert current.is_current(result, LAB, "abc", key, ["NVIDIA H100"])
    assert current.is_current(result, LAB, "abc", key, None)  # a Slurm array's tasks: any device
    assert not current.is_current(result, LAB, "abd", key, ["NVIDIA H100"])  # another kernel.cu
    assert not current.is_current(result, LAB, "abc", {**key, "grader": "older"}, ["NVIDIA H100"])
    assert not current.is_current(result, LAB, "abc", key, [None])  # graded on a GPU; the batch has the emulator
    assert not current.is_current(read_grade(run), LAB, "abc", key, None)  # no key: a batch from before it was kept
    assert not current.is_current(result, LAB, "", key, None)  # not submitted now


def test_a_second_batch_on_the_folder_is_refused_with_the_holder_named(tmp_path, monkeypatch, capsys):
    submissions, out = class_folder(tmp_path, ["anna"], [LAB]), tmp_path / "out"
    held = output_lock.OutputLock(out).hold()
    status = cml_batch(monkeypatch, submissions, out, "--lab", "1")
    said = " ".join(capsys.readouterr().err.split())
    assert status == Exit.BUSY
    assert f"is in use by another batch (pid {os.getpid()} on {socket.gethostname()}, started " in said, said
    assert not (out / "plan.json").exists()  # nothing done
    held.release()
    assert cml_batch(monkeypatch, submissions, out, "--lab", "1") == Exit.PASSED


def test_the_tasks_of_one_slurm_array_share_the_folder_and_no_one_else(tmp_path):
    first, second = output_lock.OutputLock(tmp_path).share("42"), output_lock.OutputLock(tmp_path).share("42")
    with pytest.raises(output_lock.FolderBusy, match="Slurm job 42"):
        output_lock.OutputLock(tmp_path).share("43")
    with pytest.raises(output_lock.FolderBusy, match="Slurm job 42"):
        output_lock.OutputLock(tmp_path).hold()
    first.release()
    second.release()
    alone = output_lock.OutputLock(tmp_path).hold()
    with pytest.raises(output_lock.FolderBusy, match=f"pid {os.getpid()}"):
        output_lock.OutputLock(tmp_path).share("42")
    alone.release()


def test_a_damaged_build_folder_is_made_anew_once_and_the_class_graded(config, tmp_path, monkeypatch):
    submissions = class_folder(tmp_path, ["anna", "bob"], [LAB])
    work = setup(tmp_path / "out", config, [LAB])
    damaged = work.out / "work" / batch.SHARED_BUILD
    damaged.mkdir(parents=True)
    (damaged / "damaged").write_text("a .ninja_deps a killed batch left half written\n")
    stand_in(monkeypatch, broken_build=True)
    run = batch.run_students(work, {s: submissions / s for s in ("anna", "bob")}, [None])
    assert run.failures == {} and [sorted(turn.graded) for turn in run.turns] == [[LAB], [LAB]]
    assert "anna's grader process failed: grader error: the build folder cannot be used" in run.workers[0].rebuilt
    assert not (damaged / "damaged").exists()


def test_a_build_folder_that_fails_again_is_made_anew_only_once(config, tmp_path, monkeypatch):
    submissions = class_folder(tmp_path, ["anna", "bob"], [LAB])
    work = setup(tmp_path / "out", config, [LAB])
    log = tmp_path / "processes.jsonl"
    monkeypatch.setattr(batch, "grade_command", failing(log))  # fails whatever the folder: the grader's own error
    run = batch.run_students(work, {s: submissions / s for s in ("anna", "bob")}, [None])
    assert set(run.failures) == {("anna", LAB), ("bob", LAB)}
    assert [process["student"] for process in processes(log)] == ["anna", "anna", "bob"]  # once anew, not twice


def failing(log):
    script = "import json, sys; open(sys.argv[1], 'a').write(json.dumps({'student': sys.argv[2]}) + '\\n'); sys.exit(5)"

    def command(tasks, json_path, build_dir, options):
        return [sys.executable, "-c", script, str(log), tasks[0].student]

    return command


def test_the_plan_reads_no_submission(config, tmp_path):
    """A submission is read in its student's turn alone: planning a class whose archives would each fail to be
    read, or never end being read (a pipe, which waits for ever for a writer), takes their names and nothing else."""
    folder = tmp_path / "submissions"
    folder.mkdir()
    (folder / "anna.zip").write_bytes(b"PK\x03\x04 not a zip")
    os.mkfifo(folder / "bob.tar")
    planned: list[plan.Plan] = []
    planning = threading.Thread(
        target=lambda: planned.append(plan.write_plan(folder, [config.lab(LAB)], tmp_path / "out", {}, [None])),
        daemon=True,
    )
    planning.start()
    planning.join(timeout=20)
    assert planned and sorted(planned[0].entries) == ["anna", "bob"]
    assert reading.stamp(folder / "bob.tar") != "missing"  # by its file system entry alone, never opened


def test_a_students_log_ends_with_where_the_batch_kept_the_results(config, tmp_path, monkeypatch):
    """The grader process names the JSON it wrote, the batch's own, which the batch then cuts into one result per
    lab and removes: the log ends with the files that are kept, never with the one that is gone."""
    submissions = class_folder(tmp_path, ["anna"], [LAB])
    work = setup(tmp_path / "out", config, [LAB])
    stand_in(monkeypatch)
    batch.run_students(work, {"anna": submissions / "anna"}, [None])
    log = batch.log_path(work.out, "anna").read_text().splitlines()
    kept = batch.result_path(work.out, batch.Task("anna", submissions / "anna", config.lab(LAB), ""))
    assert kept.is_file() and str(kept) in log[-2] and "collect" in log[-1]
    assert not list(kept.parent.glob("*.partial"))
