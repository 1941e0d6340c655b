"""The GPU, shared by the labs of one run graded at once (./cml grade --jobs): a readers-writer lock.

Shared holders (the test programs, the sanitizers, and the builds, which would load the CPU under a benchmark)
may run side by side; an exclusive holder has the GPU to itself. A benchmark holds it in stages (StagedHold):
shared while it starts and sets up, alone from its first launch to its last, since its timings must see no
other program (grader/execution/gpu_turn.py). An ncu run holds it shared: its counters are its own process's.
Reader-preferring: a shared holder starts whenever no exclusive one holds the GPU, even while one waits. A
run's shared work is finite (its labs' tests, sanitizers and ncu runs), so no benchmark waits forever, and the
run ends soonest when that work overlaps as much as it can. Under writer preference one benchmark waiting for
Lab 4's racecheck (about 20 s on the H100) kept every other lab's tests and sanitizers waiting as well."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class GpuLock:
    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._shared = 0  # shared holders now
        self._exclusive = False  # an exclusive holder now

    @contextmanager
    def shared(self, waiting: Callable[[], None] = lambda: None) -> Iterator[None]:
        """Held alongside other shared holders, never with an exclusive one. `waiting()` is called once,
        before blocking, where the lock is not free at once."""
        self._acquire(False, waiting)
        try:
            yield
        finally:
            self._release(exclusive=False)

    @contextmanager
    def exclusive(self, waiting: Callable[[], None] = lambda: None) -> Iterator[None]:
        """Held alone. `waiting()` as for shared()."""
        self._acquire(True, waiting)
        try:
            yield
        finally:
            self._release(exclusive=True)

    @contextmanager
    def shared_then_exclusive(self, waiting: Callable[[], None] = lambda: None) -> Iterator[StagedHold]:
        """Held shared until the hold's take() (a benchmark sets up beside the others), then alone until its
        give_back() or the end (its launches: grader/execution/gpu_turn.py)."""
        self._acquire(False, waiting)
        hold = StagedHold(self, waiting)
        try:
            yield hold
        finally:
            hold.give_back()

    def _release(self, exclusive: bool) -> None:
        with self._condition:
            if exclusive:
                self._exclusive = False
            else:
                self._shared -= 1
            self._condition.notify_all()

    def _free(self, exclusive: bool) -> bool:
        return not self._exclusive and (self._shared == 0 or not exclusive)

    def _acquire(self, exclusive: bool, waiting: Callable[[], None]) -> None:
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


class StagedHold:
    """A hold of the GPU that starts shared and may become exclusive once; its methods may be called from any
    one thread at a time."""

    def __init__(self, lock: GpuLock, waiting: Callable[[], None]) -> None:
        self._lock, self._waiting = lock, waiting
        self._held = "shared"

    def take(self) -> None:
        """The GPU alone, once every other holder has gone. The shared hold is let go before the wait, so two
        staged holds never wait on each other."""
        self._lock._release(exclusive=False)
        self._held = "nothing"
        self._lock._acquire(True, self._waiting)
        self._held = "exclusive"

    def give_back(self) -> None:
        """Lets go of whatever is held, at once (the launches are over, the program still ends)."""
        if self._held != "nothing":
            self._lock._release(exclusive=self._held == "exclusive")
            self._held = "nothing"
