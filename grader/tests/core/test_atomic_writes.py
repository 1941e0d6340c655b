"""Every file someone reads afterwards is written whole or not at all: with the disk full, the file that was there
stays as it was (never cut to 0 bytes), no temporary file is left beside it, and the grader says so in one line.
The full disk is a stand-in: the one place the bytes go to the disk (atomic._write_all) fails as a full disk does,
after writing half of them."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from grader.cohort import batch, collect, plan, roster, slurm
from grader.core import atomic
from grader.core.exits import Exit
from grader.core.recorded import read_grade
from grader.platforms import gradescope
from grader.reporting import report
from grader.reporting.export import write_gradescope, write_html, write_junit
from grader.tests.support.batch import class_folder, cml_batch, setup, stand_in

LAB = "01_vector_add"
RUN = {"labs": [], "score": 0.0, "max_score": 100.0, "notes": ["a run"], "device": "NVIDIA H100"}


def full_disk(monkeypatch, where: str = "") -> list[str]:
    """From now on, a write of a file whose name holds `where` fails as a full disk does, half written; returns the
    names of the files it failed."""
    failed: list[str] = []
    write = atomic._write_all

    def half(file, data: bytes) -> None:
        if where not in Path(file.name).name:
            write(file, data)
            return
        file.write(data[: len(data) // 2])
        failed.append(Path(file.name).name)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic, "_write_all", half)
    return failed


def test_a_full_disk_leaves_the_file_as_it_was_and_says_so(tmp_path, monkeypatch):
    path = tmp_path / "grade.json"
    path.write_text('{"score": 70}\n')
    full_disk(monkeypatch)
    with pytest.raises(atomic.DiskFull) as raised:
        atomic.write_text(path, '{"score": 0}\n' * 1000)
    assert path.read_text() == '{"score": 70}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grade.json"]  # no temporary file left
    said = str(raised.value)
    assert said.startswith("the disk is full: ") and str(path) in said and "unchanged" in said


def test_a_write_replaces_the_file_whole(tmp_path):
    path = tmp_path / "out" / "results.csv"
    atomic.write_text(path, "student,score\n")
    atomic.write_text(path, "student,score\nanna,70\n")
    assert path.read_text() == "student,score\nanna,70\n" and len(list(path.parent.iterdir())) == 1


def writers(tmp_path: Path, config) -> dict:
    """Each writer of a file someone reads afterwards, writing it at the path it returns."""
    recorded = read_grade(RUN)

    def at(name: str, write) -> Path:
        path = tmp_path / name
        write(path)
        return path

    return {
        "grade.json": lambda: at("grade.json", lambda p: report.save_run(p, RUN)),
        "Gradescope results.json": lambda: at("results.json", lambda p: write_gradescope(recorded, p)),
        "JUnit": lambda: at("junit.xml", lambda p: write_junit(recorded, p)),
        "HTML": lambda: at("report.html", lambda p: write_html(recorded, p)),
        "results.csv": lambda: at("results.csv", lambda p: collect.write_csv(p, ["student"], [{"student": "a"}])),
        "class.json": lambda: at("class.json", lambda p: roster.write(p.parent, roster.ClassInfo())),
        "plan.json": lambda: at("plan.json", lambda p: plan.write_plan(tmp_path, [], p.parent, {}, None)),
        "speed CSV": lambda: at(gradescope.SPEED_CSV, lambda p: gradescope.write_speed_csv(p.parent, [])),
        "workers.json": lambda: at("workers.json", lambda p: batch.write_shares(p.parent, batch.BatchRun({}, [], 1))),
        "grade.sbatch": lambda: at(
            "grade.sbatch", lambda p: slurm.write_script(tmp_path, p.parent, 1, [], "1:00:00", 1, [])
        ),
    }


@pytest.mark.parametrize(
    "writer",
    [
        "grade.json",
        "Gradescope results.json",
        "JUnit",
        "HTML",
        "results.csv",
        "class.json",
        "plan.json",
        "speed CSV",
        "workers.json",
        "grade.sbatch",
    ],
)
def test_every_writer_of_a_file_someone_reads_leaves_it_whole_on_a_full_disk(tmp_path, config, monkeypatch, writer):
    write = writers(tmp_path, config)[writer]
    path = write()
    before = path.read_bytes()
    assert before
    full_disk(monkeypatch)
    with pytest.raises(atomic.DiskFull):
        write()
    assert path.read_bytes() == before
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_collect_on_a_full_disk_leaves_every_students_grade_whole(config, tmp_path, monkeypatch):
    submissions, out = class_folder(tmp_path, ["anna"], [LAB]), tmp_path / "out"
    work = setup(out, config, [LAB])
    stand_in(monkeypatch, points=70)
    batch.run_students(work, {"anna": submissions / "anna"}, [None])
    plan.write_plan(submissions, work.labs, out, work.key, work.devices)
    recorded = plan.read_plan(out) or {}
    collect.collect(out, config, recorded)
    grade = out / "students" / "anna" / "grade.json"
    before = grade.read_bytes()
    failed = full_disk(monkeypatch, "grade.json")
    with pytest.raises(atomic.DiskFull):
        collect.collect(out, config, recorded)
    assert failed and grade.read_bytes() == before and json.loads(before)["score"] == 70


def test_a_batch_on_a_full_disk_stops_says_so_once_and_keeps_what_was_written(tmp_path, monkeypatch, capsys):
    submissions, out = class_folder(tmp_path, ["anna"], [LAB]), tmp_path / "out"
    assert cml_batch(monkeypatch, submissions, out, "--lab", "1") == Exit.PASSED
    anna = (out / "students" / "anna" / f"{LAB}.json").read_bytes()
    class_folder(tmp_path, ["bob", "carol"], [LAB])
    failed = full_disk(monkeypatch, LAB)  # every lab's result and .error: what the worker writes
    # bob's grader process writes no result for the lab: the worker writes its .error, and the disk is full.
    status = cml_batch(monkeypatch, submissions, out, "--lab", "1", leave_out=LAB)
    printed = capsys.readouterr()
    said = " ".join((printed.out + printed.err).split())
    assert status == Exit.STOPPED, said
    assert failed == [name for name in failed if name.startswith(f".{LAB}.error.")] and len(failed) == 1
    assert said.count("the disk is full") == 1, said  # one clear message, no traceback
    assert "2 submission(s) not graded yet (bob, carol)" in said  # carol's turn never started
    assert "Traceback" not in said
    assert (out / "students" / "anna" / f"{LAB}.json").read_bytes() == anna  # what was written is kept
    assert not (out / "students" / "bob" / f"{LAB}.error").exists()  # never an empty .error
    assert not list(out.glob("students/*/.*.tmp"))
