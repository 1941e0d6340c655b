"""A stop (SIGTERM, SIGINT, a Slurm time limit) ends every program the grader runs, keeps what is finished, says
what is not, and ends with a status of its own (6); a second signal ends the grader at once. A batch ends its
grader processes in order, and leaves none of them, nor any program of theirs, running in its build folders."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from grader import cli
from grader.core.config import REPO_ROOT
from grader.core.exits import Exit
from grader.core.model import LabGrade
from grader.execution import proc, stopping
from grader.tests.support.batch import alive, class_folder, cml_batch, wait_for

LAB = "01_vector_add"


@pytest.fixture
def runs_again():
    """A test that stops proc.run lets it start programs again afterwards, for the tests after it."""
    yield
    proc.run_again()


def test_a_stop_ends_every_running_program_and_starts_no_other(tmp_path, runs_again):
    ended: list[BaseException] = []
    marker = tmp_path / "child.pid"
    script = f"import os, subprocess, sys, time; c = subprocess.Popen(['sleep', '60']); open('{marker}', 'w').write(str(c.pid)); time.sleep(60)"

    def running() -> None:
        try:
            proc.run([sys.executable, "-c", script], 120)
        except proc.Stopped as stopped:
            ended.append(stopped)

    thread = threading.Thread(target=running)
    thread.start()
    wait_for(marker.exists)
    grandchild = int(marker.read_text())
    began = time.monotonic()
    proc.stop_every_run()
    thread.join(timeout=30)
    assert ended and time.monotonic() - began < 15  # ended, not waited for its 60 s
    wait_for(lambda: not alive(grandchild))  # its whole process group: nothing of it left
    with pytest.raises(proc.Stopped, match="not started"):
        proc.run(["true"], 10)


def test_a_signal_asks_the_stop_and_ends_the_programs():
    before = {signum: signal.getsignal(signum) for signum in stopping.SIGNALS}
    stop = stopping.Stop()
    with stopping.on_signals(stop):
        assert not stop.asked and not proc.stopping()
        os.kill(os.getpid(), signal.SIGTERM)
        wait_for(proc.stopping)
        assert stop.asked and stop.why == "SIGTERM"
    assert {signum: signal.getsignal(signum) for signum in stopping.SIGNALS} == before  # put back as they were
    assert not proc.stopping()  # the stop was the block's


def test_a_second_signal_ends_the_grader_at_once():
    script = (
        "import os, signal, time\n"
        "from grader.execution import stopping\n"
        "with stopping.on_signals(stopping.Stop()):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(1)\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(30)\n"
    )
    began = time.monotonic()
    ended = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, timeout=60, check=False)
    assert ended.returncode == -signal.SIGTERM and time.monotonic() - began < 20


class StoppedSession:
    """Stands in for a grading session: grades Lab 1, then is sent SIGTERM while Lab 6's program runs."""

    def __init__(self, config) -> None:
        self.labs = [config.lab(LAB), config.lab("06_warp_reduction")]
        self.request = SimpleNamespace(variants=("student",))
        self.notes: list[str] = []
        self.files_ignored: list[str] = []
        self.finished: list[LabGrade] = []
        self.context = SimpleNamespace(target=None, gpu=SimpleNamespace(present=False))
        self.max_points = 200.0

    def facts(self) -> dict:
        return {"device": None, "notes": list(self.notes), "kernel_sha256": {}}

    def build(self, say):
        return self.context

    def grade(self, progress) -> list[LabGrade]:
        self.finished.append(
            LabGrade(lab=LAB, title="Vector add", variant="student", kernel_path="k", points=70, max_points=100)
        )
        os.kill(os.getpid(), signal.SIGTERM)
        proc.run(["sleep", "60"], 120)  # ended by the stop: raises proc.Stopped
        raise AssertionError("the stop did not end the program")


def test_a_stopped_grade_keeps_the_labs_it_finished_and_names_the_others(config, tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "start", lambda request: StoppedSession(config))
    results, gradescope = tmp_path / "grade.json", tmp_path / "results.json"
    began = time.monotonic()
    status = cli.main(["grade", "--lab", "1", "--lab", "6", "--json", str(results), "--gradescope", str(gradescope)])
    assert status == Exit.STOPPED and time.monotonic() - began < 30
    run = json.loads(results.read_text())
    assert [lab["lab"] for lab in run["labs"]] == [LAB] and run["score"] == 70
    assert run["max_score"] == 200  # out of every lab asked for: a stopped run never looks whole
    assert any("stopped (SIGTERM) before it graded 06_warp_reduction" in note for note in run["notes"])
    shown = json.loads(gradescope.read_text())
    assert "06_warp_reduction" in shown["output"] and shown["score"] == 70


def test_a_stopped_batch_ends_its_grader_process_keeps_the_finished_students_and_exits_6(tmp_path, monkeypatch, capsys):
    submissions, out = class_folder(tmp_path, ["anna"], [LAB]), tmp_path / "out"
    assert cml_batch(monkeypatch, submissions, out, "--lab", "1") == Exit.PASSED
    class_folder(tmp_path, ["bob", "carol"], [LAB])
    child = tmp_path / "child.pid"
    # bob's grader process sends the batch SIGTERM (as kill or Slurm would), and starts a program of its own.
    began = time.monotonic()
    status = cml_batch(monkeypatch, submissions, out, "--lab", "1", signal_batch=True, child=str(child), sleep=60)
    said = " ".join(capsys.readouterr().out.split())
    assert status == Exit.STOPPED, said
    assert time.monotonic() - began < 30  # ended, not waited for
    assert "Stopped (SIGTERM): every submission graded is kept; 2 submission(s) not graded yet (bob, carol)" in said
    assert not alive(int(child.read_text()))  # nothing of bob's grader process left in the build folder
    rows = {row["student"]: row for row in json.loads((out / "results.json").read_text())}
    assert rows["anna"][f"{LAB}_points"] == 10.0
    assert rows["bob"][f"{LAB}_verdict"] == rows["carol"][f"{LAB}_verdict"] == "not graded yet"
    assert not list(Path(out / "students").glob("*/*.error"))  # a stop is no one's error


@pytest.mark.slow
def test_sigterm_to_a_whole_grade_on_the_emulator_ends_it_with_6_and_leaves_no_program(tmp_path, device):
    """The real grader: stopped while it builds or grades Lab 1 on the CPU emulator, it ends within seconds, with
    its own status, a JSON that names the lab as not graded, and no program left in its build folder."""
    if device.present:
        pytest.skip("on a GPU the same holds; this case is timed for the CPU emulator")
    build = tmp_path / "build"
    results = tmp_path / "grade.json"
    command = [sys.executable, "-m", "grader", "grade", "--lab", "1", "--build-dir", str(build), "--json", str(results)]
    grading = subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # Stopped once it builds the lab (ninja) or runs its emulator programs, in its build folder.
    wait_for(lambda: any("ninja" in line or "_emu" in line for line in programs_in(build)), seconds=600)
    grading.send_signal(signal.SIGTERM)
    said, _ = grading.communicate(timeout=60)
    assert grading.returncode == Exit.STOPPED, said
    assert "not graded" in json.loads(results.read_text())["notes"][-1]
    time.sleep(1)
    assert programs_in(build) == [], programs_in(build)


def programs_in(folder: Path) -> list[str]:
    """The command lines of the processes whose working folder or command line is in `folder` (or beside it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            where = os.readlink(entry / "cwd")
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if (where.startswith(str(folder)) or str(folder) in line) and " -m grader grade " not in f" {line}":
            found.append(line)
    return found
