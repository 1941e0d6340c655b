"""The GPU's readers-writer lock (grader/execution/gpu_lock.py), with threads that hold it until told to let go. A
holder that must wait says so (the lock's `waiting` callback) before it blocks: the tests wait for that, never for a
clock, and a lock that lets a holder in too early or never is caught by the order in which they got in. Each test
runs on the lock of one grader process and on the lock file every grader on a card holds (gpu_lock_files.py),
whose threads follow the same rules."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from grader.execution.gpu_lock import GpuLock

PATIENCE_S = 5.0  # only a broken lock waits this long


@pytest.fixture(params=["in one process", "through a file"])
def new_lock(request, tmp_path) -> Callable[[], GpuLock]:
    return lambda: GpuLock(tmp_path / "gpu.lock" if request.param == "through a file" else None)


class Holder(threading.Thread):
    """Takes the lock, shared or exclusive, writes down when it got in, and holds it until `release` is set."""

    def __init__(self, lock: GpuLock, name: str, exclusive: bool, log: list[str]) -> None:
        super().__init__(name=name, daemon=True)
        self.lock, self.exclusive, self.log = lock, exclusive, log
        self.waiting, self.inside, self.release = threading.Event(), threading.Event(), threading.Event()

    def run(self) -> None:
        hold = self.lock.exclusive if self.exclusive else self.lock.shared
        with hold(self.waiting.set):
            self.log.append(self.name)
            self.inside.set()
            assert self.release.wait(PATIENCE_S)

    def let_go(self) -> None:
        self.release.set()
        self.join(PATIENCE_S)
        assert not self.is_alive(), f"{self.name} did not end"


def holder(lock: GpuLock, name: str, exclusive: bool, log: list[str], blocked: bool = False) -> Holder:
    """A started holder, once it is inside the lock, or, `blocked`, once it has said it waits for it."""
    started = Holder(lock, name, exclusive, log)
    started.start()
    assert (started.waiting if blocked else started.inside).wait(PATIENCE_S), f"{name}: neither in nor waiting"
    return started


def test_shared_holders_overlap(new_lock):
    lock, log = new_lock(), list[str]()  # log: the holders, in the order they got in
    tests = holder(lock, "tests", False, log)
    memcheck = holder(lock, "memcheck", False, log)  # in while the tests are still in
    assert not tests.waiting.is_set() and not memcheck.waiting.is_set()
    tests.let_go()
    memcheck.let_go()
    assert log == ["tests", "memcheck"]


def test_an_exclusive_holder_waits_for_the_shared_holders_and_they_for_it(new_lock):
    lock, log = new_lock(), list[str]()
    tests = holder(lock, "tests", False, log)
    bench = holder(lock, "bench", True, log, blocked=True)
    tests.let_go()
    assert bench.inside.wait(PATIENCE_S)
    racecheck = holder(lock, "racecheck", False, log, blocked=True)  # not beside the benchmark
    bench.let_go()
    assert racecheck.inside.wait(PATIENCE_S)
    racecheck.let_go()
    assert log == ["tests", "bench", "racecheck"]


def test_exclusive_holders_take_turns(new_lock):
    lock, log = new_lock(), list[str]()
    bench = holder(lock, "bench", True, log)
    ncu = holder(lock, "ncu", True, log, blocked=True)
    assert not ncu.inside.is_set()
    bench.let_go()
    assert ncu.inside.wait(PATIENCE_S)
    ncu.let_go()
    assert log == ["bench", "ncu"]


def test_shared_holders_go_in_while_an_exclusive_holder_waits(new_lock):
    lock, log = new_lock(), list[str]()
    racecheck = holder(lock, "racecheck", False, log)
    bench = holder(lock, "bench", True, log, blocked=True)
    # In at once beside the racecheck: the run's shared work overlaps, and the benchmark runs after all of it.
    memcheck = holder(lock, "memcheck", False, log)
    racecheck.let_go()
    assert not bench.inside.is_set()  # the memcheck is still in
    memcheck.let_go()
    assert bench.inside.wait(PATIENCE_S)
    bench.let_go()
    assert log == ["racecheck", "memcheck", "bench"]


def test_an_exclusive_holder_that_gave_up_waiting_keeps_no_one_out(new_lock):
    lock = new_lock()

    def give_up() -> None:
        raise KeyboardInterrupt

    with lock.shared():
        try:
            with lock.exclusive(give_up):
                raise AssertionError("got in beside a shared holder")
        except KeyboardInterrupt:
            pass
        with lock.shared(give_up):  # in at once: no exclusive holder is in
            pass
    with lock.exclusive(give_up):  # and free at once once every holder has gone
        pass


class Staged(threading.Thread):
    """Holds the lock shared (a benchmark setting up), then takes it alone when told (its launches)."""

    def __init__(self, lock: GpuLock, name: str, log: list[str]) -> None:
        super().__init__(name=name, daemon=True)
        self.lock, self.log = lock, log
        self.waiting, self.set_up, self.alone = threading.Event(), threading.Event(), threading.Event()
        self.go_alone, self.release = threading.Event(), threading.Event()

    def run(self) -> None:
        with self.lock.shared_then_exclusive(self.waiting.set) as hold:
            self.log.append(f"{self.name} sets up")
            self.set_up.set()
            assert self.go_alone.wait(PATIENCE_S)
            hold.take()
            self.log.append(f"{self.name} alone")
            self.alone.set()
            assert self.release.wait(PATIENCE_S)


def test_a_benchmark_sets_up_beside_others_and_runs_its_launches_alone(new_lock):
    lock, log = new_lock(), list[str]()
    tests = holder(lock, "tests", False, log)
    bench = Staged(lock, "bench", log)
    bench.start()
    assert bench.set_up.wait(PATIENCE_S)  # beside the tests
    bench.go_alone.set()
    assert bench.waiting.wait(PATIENCE_S) and not bench.alone.is_set()  # its launches wait for the tests
    memcheck = holder(lock, "memcheck", False, log)  # in at once, beside the tests
    tests.let_go()
    assert not bench.alone.is_set()  # and for the memcheck
    memcheck.let_go()
    assert bench.alone.wait(PATIENCE_S)
    racecheck = holder(lock, "racecheck", False, log, blocked=True)  # nothing beside its launches
    bench.release.set()
    bench.join(PATIENCE_S)
    assert racecheck.inside.wait(PATIENCE_S)
    racecheck.let_go()
    assert log == ["tests", "bench sets up", "memcheck", "bench alone", "racecheck"]


def test_two_benchmarks_set_up_together_and_take_turns_alone(new_lock):
    lock, log = new_lock(), list[str]()
    first, second = Staged(lock, "first", log), Staged(lock, "second", log)
    for bench in (first, second):
        bench.start()
        assert bench.set_up.wait(PATIENCE_S)
    first.go_alone.set()
    assert first.waiting.wait(PATIENCE_S) and not first.alone.is_set()  # the second still sets up
    second.go_alone.set()  # each lets go of its shared hold before it waits: neither waits for the other's
    deadline = time.monotonic() + PATIENCE_S
    while not (first.alone.is_set() or second.alone.is_set()) and time.monotonic() < deadline:
        time.sleep(0.01)
    ahead, behind = (first, second) if first.alone.is_set() else (second, first)
    assert ahead.alone.is_set()
    assert not behind.alone.is_set()
    ahead.release.set()
    assert behind.alone.wait(PATIENCE_S)
    behind.release.set()
    for bench in (first, second):
        bench.join(PATIENCE_S)
    with lock.exclusive(lambda: (_ for _ in ()).throw(AssertionError("the lock was left held"))):
        pass


def test_a_benchmark_gives_the_gpu_back_when_its_launches_are_over(new_lock):
    lock, log = new_lock(), list[str]()
    with lock.shared_then_exclusive() as hold:
        hold.take()
        memcheck = holder(lock, "memcheck", False, log, blocked=True)
        hold.give_back()  # the program still writes its results: the others need not wait for that
        assert memcheck.inside.wait(PATIENCE_S)
    memcheck.let_go()
