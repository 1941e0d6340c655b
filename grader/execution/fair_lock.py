"""A lock granted in the order it was asked for."""

from __future__ import annotations

import threading


class FairLock:
    """threading.Lock's acquire and release, granted first come, first served. The labs graded at once take turns
    to build in the order they started (longest first: grader/grading/session.py, LabSeconds); threading.Lock
    lets whichever waiter the scheduler wakes in, so on the H100 the lab meant to build second waited behind
    most of the others (14 s of a 112 s set)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._next_ticket = 0  # the ticket the next acquire gets
        self._serving = 0  # the ticket that holds the lock, or may take it

    def acquire(self, blocking: bool = True) -> bool:
        with self._changed:
            if not blocking and self._serving != self._next_ticket:
                return False  # held, or others are waiting first
            ticket = self._next_ticket
            self._next_ticket += 1
            self._changed.wait_for(lambda: self._serving == ticket)
            return True

    def release(self) -> None:
        with self._changed:
            self._serving += 1
            self._changed.notify_all()
