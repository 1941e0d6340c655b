"""The GPU, shared by the labs graded at once: a readers-writer lock, and the ncu runs' turn.

Shared holders (the test programs, the sanitizers, and the builds, which would load the CPU under a benchmark)
may run side by side; an exclusive holder has the GPU to itself. A benchmark holds it in stages (StagedHold):
shared while it starts and sets up, alone from its first launch to its last, since its timings must see no
other program (grader/execution/gpu_turn.py). An ncu run holds it shared: its counters are its own process's,
and it takes a turn of its own (Turn) so that two never share the performance monitors. Outside a sandbox ncu
makes its runs wait for each other (on an H100, four started 0.6 s apart ran one after another, whole), but
not runs in different sandboxes: three of four started at once ended with status 9 at their first profiled
launch.
Reader-preferring: a shared holder starts whenever no exclusive one holds the GPU, even while one waits. A
run's shared work is finite (its labs' tests, sanitizers and ncu runs), so no benchmark waits forever, and the
run ends soonest when that work overlaps as much as it can. Under writer preference one benchmark waiting for
Lab 4's racecheck (about 20 s on the H100) kept every other lab's tests and sanitizers waiting as well.

Every grader process on one GPU must hold the same lock, or one grader's tests would run beside another's
benchmark: so on a GPU the locks are files, one per card (grader/execution/gpu_lock_files.py), each hold its
own flock on its own open file. flock gives the same rules across processes as within one (a shared lock is
granted whenever no exclusive one is held, waiting writers or not), and the kernel lets go of a dead grader's
holds. Without a file (no GPU, or no safe folder for one), the lock is this process's alone."""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

Release = Callable[[], None]


def _locked(path: Path, exclusive: bool, waiting: Callable[[], None]) -> Release:
    """A flock of `path` on an open file of its own, taken at once or after `waiting()`; closing the file lets go.
    Not inherited by the programs the grader starts (os.open's files never are), nor followed through a link."""
    handle = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    try:
        try:
            fcntl.flock(handle, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            waiting()
            fcntl.flock(handle, mode)
    except BaseException:
        os.close(handle)
        raise
    return lambda: os.close(handle)


class GpuLock:
    """The readers-writer lock: held through the lock file `path` where given, else within this process."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._condition = threading.Condition()
        self._shared = 0  # shared holders now, in this process (without a file)
        self._exclusive = False  # an exclusive holder now, in this process (without a file)

    @contextmanager
    def shared(self, waiting: Callable[[], None] = lambda: None) -> Iterator[None]:
        """Held alongside other shared holders, never with an exclusive one. `waiting()` is called once,
        before blocking, where the lock is not free at once."""
        release = self._acquire(False, waiting)
        try:
            yield
        finally:
            release()

    @contextmanager
    def exclusive(self, waiting: Callable[[], None] = lambda: None) -> Iterator[None]:
        """Held alone. `waiting()` as for shared()."""
        release = self._acquire(True, waiting)
        try:
            yield
        finally:
            release()

    @contextmanager
    def shared_then_exclusive(self, waiting: Callable[[], None] = lambda: None) -> Iterator[StagedHold]:
        """Held shared until the hold's take() (a benchmark sets up beside the others), then alone until its
        give_back() or the end (its launches: grader/execution/gpu_turn.py)."""
        hold = StagedHold(self, self._acquire(False, waiting), waiting)
        try:
            yield hold
        finally:
            hold.give_back()

    def _acquire(self, exclusive: bool, waiting: Callable[[], None]) -> Release:
        """The lock held, and what lets go of that hold (once)."""
        if self.path is not None:
            return _locked(self.path, exclusive, waiting)
        with self._condition:
            busy = not self._free(exclusive)
        if busy:
            waiting()  # outside the condition's lock: it may print
        with self._condition:
            self._condition.wait_for(lambda: self._free(exclusive))
            if exclusive:
                self._exclusive = True
            else:
                self._shared += 1
        return lambda: self._release(exclusive)

    def _release(self, exclusive: bool) -> None:
        with self._condition:
            if exclusive:
                self._exclusive = False
            else:
                self._shared -= 1
            self._condition.notify_all()

    def _free(self, exclusive: bool) -> bool:
        return not self._exclusive and (self._shared == 0 or not exclusive)


class StagedHold:
    """A hold of the GPU that starts shared and may become exclusive once; its methods may be called from any
    one thread at a time."""

    def __init__(self, lock: GpuLock, release: Release, waiting: Callable[[], None]) -> None:
        self._lock, self._release, self._waiting = lock, release, waiting
        self._held = True

    def take(self) -> None:
        """The GPU alone, once every other holder has gone. The shared hold is let go before the wait, so two
        staged holds never wait on each other."""
        self.give_back()
        self._release = self._lock._acquire(True, self._waiting)
        self._held = True

    def give_back(self) -> None:
        """Lets go of whatever is held, at once (the launches are over, the program still ends)."""
        if self._held:
            self._held = False
            self._release()


class Mutex(Protocol):
    """What threading.Lock and Turn both are: one holder at a time."""

    def acquire(self, blocking: bool = True) -> bool: ...

    def release(self) -> None: ...


class Turn:
    """threading.Lock's acquire and release, held through the lock file `path`: one holder at a time among every
    process that opens it (the ncu runs of every grader on one GPU)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._release: Release | None = None  # the holder's, while it holds

    def acquire(self, blocking: bool = True) -> bool:
        def busy() -> None:
            raise BlockingIOError

        try:
            release = _locked(self.path, True, (lambda: None) if blocking else busy)
        except BlockingIOError:
            return False
        self._release = release
        return True

    def release(self) -> None:
        release, self._release = self._release, None
        if release is None:
            raise RuntimeError("release of a Turn not held")
        release()
