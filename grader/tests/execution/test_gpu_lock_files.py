"""The GPU's lock files (grader/execution/gpu_lock_files.py): grader processes on one card hold one lock, as the labs
inside one grader do (grader/tests/execution/test_gpu_lock.py runs those rules on the file lock too). Each other grader here is
a process of grader/tests/support/gpu_lock_holder.py that says what it does, line by line: the tests wait for its words,
never for a clock, and check what a word cannot show by trying the lock themselves, without waiting. The folder of
the files is this user's alone, and no program built from a submission sees it."""

from __future__ import annotations

import os
import queue
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from grader.core.config import REPO_ROOT
from grader.execution import gpu_lock_files, proc, sandbox
from grader.execution.gpu import Gpu
from grader.execution.gpu_lock_files import UnsafeFolder, gpu_locks, lock_folder
from grader.grading.session import Session
from grader.steps import suite
from grader.tests.support.gpu_lock_holder import CARD

PATIENCE_S = 10.0  # a process starts and says its word well within this; only a broken lock waits this long


class OtherGrader:
    """A grader process holding the card's lock files in `folder`: `kind` as gpu_lock_holder.py takes it."""

    def __init__(self, folder: Path, kind: str) -> None:
        command = [sys.executable, "-m", "grader.tests.support.gpu_lock_holder", str(folder), kind]
        self.process = subprocess.Popen(
            command, cwd=REPO_ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.said: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._listen, daemon=True).start()

    def _listen(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.said.put(line.strip())
        self.said.put("ended")

    def says(self, word: str) -> None:
        heard = self.said.get(timeout=PATIENCE_S)
        assert heard == word, f"said {heard!r}, not {word!r}"

    def quiet(self) -> bool:
        return self.said.empty()

    def tell(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def let_go(self) -> None:
        self.tell("go")
        self.says("out")
        assert self.process.wait(PATIENCE_S) == 0

    def end(self) -> None:
        """However the test went: nothing of it left running."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(PATIENCE_S)


@pytest.fixture
def graders(tmp_path):
    """Starts other graders on one card's files; kills whichever are still there at the end."""
    started: list[OtherGrader] = []

    def start(kind: str) -> OtherGrader:
        started.append(OtherGrader(tmp_path, kind))
        return started[-1]

    yield start
    for grader in started:
        grader.end()


class Busy(Exception):
    pass


def busy() -> None:
    raise Busy


def free(folder: Path, exclusive: bool) -> bool:
    """Whether this process could hold the card's GPU lock at once, shared or exclusive (it lets go at once)."""
    lock = gpu_locks(CARD, folder).gpu
    try:
        with (lock.exclusive if exclusive else lock.shared)(busy):
            return True
    except Busy:
        return False


def held_and_awaited(graders, kind: str, awaited_as: str) -> tuple[OtherGrader, OtherGrader]:
    """A grader holding the lock as `kind`, once it is in, and another once it says it waits for it."""
    holder = graders(kind)
    holder.says("in")
    waiter = graders(awaited_as)
    waiter.says("waiting")
    return holder, waiter


def test_a_shared_hold_in_one_grader_keeps_another_graders_exclusive_one_out(graders, tmp_path):
    tests, bench = held_and_awaited(graders, "shared", "exclusive")
    assert free(tmp_path, exclusive=False)  # so no one holds it alone: the benchmark is not in
    tests.let_go()
    bench.says("in")
    bench.let_go()


def test_an_exclusive_hold_in_one_grader_keeps_another_graders_shared_one_out(graders, tmp_path):
    bench, tests = held_and_awaited(graders, "exclusive", "shared")
    bench.let_go()
    tests.says("in")
    assert not free(tmp_path, exclusive=True)
    tests.let_go()
    assert free(tmp_path, exclusive=True)


def test_shared_holds_of_two_graders_go_side_by_side(graders, tmp_path):
    tests, memcheck = graders("shared"), graders("shared")
    tests.says("in")
    memcheck.says("in")  # not "waiting": beside the other grader's tests
    assert not free(tmp_path, exclusive=True) and free(tmp_path, exclusive=False)
    tests.let_go()
    memcheck.let_go()


def test_a_benchmark_sets_up_beside_another_graders_tests_and_launches_once_they_are_over(graders, tmp_path):
    tests = graders("shared")
    tests.says("in")
    bench = graders("staged")
    bench.says("in")  # setting up beside the tests
    bench.tell("take")
    bench.says("waiting")  # its launches wait for the tests
    memcheck = graders("shared")
    memcheck.says("in")  # reader preference across graders: in at once, though a benchmark waits
    tests.let_go()
    assert bench.quiet() and free(tmp_path, exclusive=False)  # still waiting, for the memcheck
    memcheck.let_go()
    bench.says("alone")
    racecheck = graders("shared")
    racecheck.says("waiting")  # nothing beside its launches
    bench.let_go()
    racecheck.says("in")
    racecheck.let_go()


def test_one_ncu_run_at_a_time_among_the_graders_of_a_card(graders, tmp_path):
    first, second = held_and_awaited(graders, "ncu", "ncu")
    turn = gpu_locks(CARD, tmp_path).counters
    assert not turn.acquire(blocking=False)
    assert free(tmp_path, exclusive=True)  # the ncu turn is a lock of its own: the GPU itself is not held by it
    first.let_go()
    second.says("in")
    second.let_go()
    assert turn.acquire(blocking=False)
    turn.release()


@pytest.mark.parametrize("kind", ["exclusive", "ncu"])
def test_a_grader_killed_while_it_holds_a_lock_keeps_no_one_out(graders, tmp_path, kind):
    dying, waiting = held_and_awaited(graders, kind, kind)
    dying.process.kill()  # no chance to let go: the kernel does it as the process ends
    waiting.says("in")
    waiting.let_go()


def test_the_folder_is_made_for_this_user_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    folder = lock_folder()
    assert folder.parent == tmp_path
    found = folder.lstat()
    assert stat.S_ISDIR(found.st_mode) and found.st_uid == os.geteuid() and stat.S_IMODE(found.st_mode) == 0o700
    assert lock_folder() == folder  # found again by the next grader


def test_without_a_runtime_folder_it_is_in_the_temporary_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert lock_folder().parent == tmp_path


def test_a_folder_another_user_could_enter_or_a_link_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    name = tmp_path / f"{gpu_lock_files.FOLDER}-{os.geteuid()}"
    name.mkdir(mode=0o755)
    name.chmod(0o755)  # whatever the umask
    with pytest.raises(UnsafeFolder, match="open to other users"):
        lock_folder()
    name.rmdir()
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    name.symlink_to(tmp_path / "elsewhere")  # another user's link could point the graders at their own files
    with pytest.raises(UnsafeFolder, match="not a folder"):
        lock_folder()


def test_each_card_has_files_of_its_own(tmp_path):
    one, other = gpu_locks("GPU-1111", tmp_path), gpu_locks("GPU-2222", tmp_path)
    with one.gpu.exclusive(busy), other.gpu.exclusive(busy):
        pass
    strange = gpu_locks("GPU-../../x", tmp_path).gpu.path
    assert strange is not None and strange.parent == tmp_path  # a strange UUID names no other folder


def test_a_grade_on_a_gpu_holds_its_cards_files_and_one_without_holds_its_own_lock(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    said: list[str] = []
    on_a_gpu = cast(Session, SimpleNamespace(device=Gpu(True, "NVIDIA H100", "9.0", uuid="GPU-abc")))
    locks = Session._gpu_locks(on_a_gpu, said.append)
    assert locks is not None and locks.gpu.path == lock_folder() / "GPU-abc.gpu.lock"
    emulated = cast(Session, SimpleNamespace(device=Gpu(False, reason="no GPU")))
    assert Session._gpu_locks(emulated, said.append) is None and not said
    lock_folder().chmod(0o755)  # a folder others may enter: this grader's own lock, and it says so
    assert Session._gpu_locks(on_a_gpu, said.append) is None
    assert len(said) == 1 and "other graders on this GPU will not wait" in said[0]


def flock_command(path: Path) -> list[str]:
    """util-linux's flock taking `path` alone without waiting: 75 where another holds it."""
    return ["--exclusive", "--nonblock", "--conflict-exit-code", "75", str(path), "true"]


@pytest.mark.parametrize("step", ["test program", "compile"])
def test_a_program_built_from_a_submission_cannot_reach_the_lock_files(step):
    """A student's program that held a lock file would stall every grader on the machine: in the sandbox the
    folder is not there at all, where the same program outside it holds the lock as a grader would."""
    if sandbox.unavailable():
        pytest.skip(f"no sandbox here: {sandbox.unavailable()}")
    flock = shutil.which("flock")
    if flock is None:
        pytest.skip("util-linux's flock is not installed")
    locks = gpu_locks(CARD)  # the folder every grader on this machine uses
    path = locks.gpu.path
    assert path is not None
    with locks.gpu.shared():
        unguarded = proc.run([flock, *flock_command(path)], timeout_s=PATIENCE_S)
        assert unguarded.returncode == 75, unguarded.tail(5)  # the attack works without the sandbox
        with suite.run_folder() as scratch:  # as the grader makes it: reachable where programs run as nobody
            if step == "test program":
                run = sandbox.ProgramRun(Path(flock), scratch)
                inside = run.command([str(sandbox.PROGRAM), *flock_command(path)])
            else:
                inside = sandbox.step_command([flock, *flock_command(path)], [REPO_ROOT / "common"], scratch, scratch)
            guarded = proc.run(inside, timeout_s=PATIENCE_S)
    assert guarded.returncode not in (0, 75), guarded.tail(5)
    assert "No such file or directory" in guarded.stderr, guarded.tail(5)
