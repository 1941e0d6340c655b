"""The build folder's lock: granted in the order the labs asked for it."""

from __future__ import annotations

import threading
import time

from grader.execution.fair_lock import FairLock


def test_waiters_get_the_lock_in_the_order_they_asked():
    lock, order = FairLock(), []

    def take_in_turn(name: int) -> None:
        lock.acquire()
        order.append(name)
        lock.release()

    assert lock.acquire()
    waiters = []
    for name in range(6):
        waiter = threading.Thread(target=take_in_turn, args=(name,))
        waiter.start()
        waiters.append(waiter)
        time.sleep(0.05)  # each asks after the one before is waiting
    lock.release()
    for waiter in waiters:
        waiter.join(5)
    assert order == list(range(6))


def test_a_try_fails_while_it_is_held_or_awaited_and_takes_it_when_free():
    lock = FairLock()
    assert lock.acquire(blocking=False)
    assert not lock.acquire(blocking=False)
    lock.release()
    assert lock.acquire(blocking=False)
    lock.release()
