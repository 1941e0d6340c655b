"""A stop asked of the grader while it runs: SIGTERM (kill, a Slurm time limit), SIGINT (Ctrl-C), or a full disk.

The first signal asks the stop: every program proc.run is running is ended with its process group, none starts
after it, and the command keeps what it finished and says what it did not. A second signal ends the process at
once, as it would have ended without this. The signal handler itself only sets an event: it may have
interrupted the main thread anywhere (inside proc.run, holding its lock), so a thread of its own does the rest."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

from grader.execution import proc

SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Stop:
    """Whether the grader has been asked to stop, and why ('SIGTERM', 'the disk is full: ...'); the first reason
    given is kept."""

    def __init__(self) -> None:
        self._asked = threading.Event()
        self.why = ""

    def ask(self, why: str) -> None:
        if not self._asked.is_set():
            self.why = why
            self._asked.set()

    @property
    def asked(self) -> bool:
        return self._asked.is_set()

    def wait(self, seconds: float) -> bool:
        """Waits up to `seconds` for a stop; whether one was asked."""
        return self._asked.wait(seconds)


@contextlib.contextmanager
def on_signals(stop: Stop) -> Iterator[Stop]:
    """For the block: SIGTERM and SIGINT ask `stop`, and any stop ends proc.run's programs (proc.stop_every_run);
    a second signal ends the process with that signal. After it, proc.run starts programs again: the stop was the
    block's. Only in the main thread, where Python runs handlers."""
    ended = threading.Event()

    def end_programs() -> None:
        while not ended.is_set():
            if stop.wait(0.2):
                proc.stop_every_run()
                return

    def handler(signum: int, _frame) -> None:
        if stop.asked:  # asked twice: no more waiting for what is being kept
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        stop.ask(signal.Signals(signum).name)

    watcher = threading.Thread(target=end_programs, name="stop-watcher", daemon=True)
    watcher.start()
    previous = {signum: signal.signal(signum, handler) for signum in SIGNALS}
    try:
        yield stop
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
        ended.set()
        watcher.join()
        proc.run_again()
