"""One grader process of a batch (`./cml grade` on one submission's labs), run in a session of its own so that
a Ctrl-C at the terminal reaches the batch alone, which then ends each grader process in order: SIGTERM, which
the grader answers by ending every program of its own and saying what it did not grade, and SIGKILL after
GRACE_S where it has not ended by then. The same ending stops a process past its time limit; no grader process,
and no program of one, is left running in the worker's build folder for the next one to race."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from grader.core.config import REPO_ROOT
from grader.core.exits import Exit
from grader.execution.stopping import Stop

GRACE_S = 20.0  # what a grader may take to end its programs and write what it finished, once told to stop
WAKE_S = 0.5  # how often a wait looks at the stop and the time left


@dataclass
class Ended:
    """How a grader process ended: its exit status, or None where the batch ended it, and why."""

    status: int | None
    why: str = ""  # where the batch ended it: 'stopped (SIGTERM)', or its time limit

    @property
    def stopped(self) -> bool:
        """Ended by a stop, the batch's or its own (a signal sent to the process itself): it graded part of its
        labs at most, and nothing of it is the student's or the grader's fault."""
        return self.status == Exit.STOPPED or self.why.startswith("stopped")


def end(process: subprocess.Popen) -> None:
    """Ends the process and its process group: SIGTERM, then SIGKILL after GRACE_S."""
    for sent, wait in ((signal.SIGTERM, GRACE_S), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, sent)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def run(
    command: list[str], env: dict, log: Path, timeout_s: float, stop: Stop, inherited: tuple[int, ...] = ()
) -> Ended:
    """Runs `command` with its output in `log`, until it ends, `stop` is asked, or `timeout_s` has passed.
    `inherited`: descriptors the process keeps open (the output folder's lock, held as long as it runs)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as output:
        process = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=inherited,
        )
    started = time.monotonic()
    while True:
        try:
            return Ended(process.wait(timeout=WAKE_S))
        except subprocess.TimeoutExpired:
            pass
        if stop.asked:
            end(process)
            return Ended(None, f"stopped ({stop.why})")
        if time.monotonic() - started > timeout_s:
            end(process)
            return Ended(None, f"the grader did not finish within {timeout_s:g} s")


def failure(log: Path, ended: Ended) -> str:
    """Why a grader process graded nothing, in one line: its own 'grader error:' line where it printed one."""
    if ended.status is None:
        return ended.why
    try:
        text = log.read_text(errors="replace")
    except OSError:
        text = ""
    said = [line for line in text.splitlines() if line.startswith(("grader error:", "error:"))]
    return said[-1] if said else f"the grader exited with status {ended.status}"
