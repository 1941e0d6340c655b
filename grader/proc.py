"""Running one step of grading as a subprocess, with a time limit, and naming how it ended.

What a program prints is read through a bounded reader: its first and last OUTPUT_KEPT bytes of each stream are
kept and the rest is counted, so a program that prints gigabytes costs the grader no memory."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

EXIT_SKIPPED = 77  # the test mains' and benchmarks' "no GPU here"
OUTPUT_KEPT = 1 << 20  # bytes kept at each end of stdout and of stderr
LINGER_S = 10.0  # how long output is still read after the program ended
WAKE_S = 1.0  # how often a long wait looks again at the time left


@dataclass
class Outcome:
    command: list[str]
    returncode: int | None  # None when it timed out
    stdout: str
    stderr: str
    timeout_s: float

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def crashed(self) -> bool:
        return self.returncode is not None and self.returncode < 0

    def how_it_ended(self) -> str:
        """'exited 1', 'killed by SIGSEGV', 'timed out after 60 s' — for reports."""
        if self.returncode is None:
            return f"timed out after {self.timeout_s:g} s and was stopped (a kernel that never returns?)"
        if self.returncode < 0:
            return f"crashed: killed by {signal.Signals(-self.returncode).name}"
        return f"exited with status {self.returncode}"

    def tail(self, lines: int = 20) -> str:
        text = (self.stdout + "\n" + self.stderr).strip().splitlines()
        return "\n".join(text[-lines:])


class BoundedReader(threading.Thread):
    """Reads a pipe to its end, keeping its first and last `kept` bytes."""

    def __init__(self, pipe, kept: int = OUTPUT_KEPT) -> None:
        super().__init__(daemon=True)
        self.pipe, self.kept = pipe, kept
        self.head, self.tail, self.dropped = bytearray(), bytearray(), 0

    def run(self) -> None:
        while chunk := os.read(self.pipe.fileno(), 1 << 16):
            room = self.kept - len(self.head)
            self.head += chunk[:room]
            self.tail += chunk[room:] if room > 0 else chunk
            if len(self.tail) > self.kept:
                self.dropped += len(self.tail) - self.kept
                del self.tail[: len(self.tail) - self.kept]
        self.pipe.close()

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes of output not kept ...]\n".encode() if self.dropped else b""
        return bytes(self.head + middle + self.tail).decode(errors="replace")


def run(
    command: list[str],
    timeout_s: float,
    cwd: Path | None = None,
    env: dict | None = None,
    paused: Callable[[], float] = lambda: 0.0,
) -> Outcome:
    """Runs `command`; on timeout kills its whole process group, so a hung GPU program goes too. `paused()`: the
    seconds so far that the program spent waiting on the grader (its turn on the GPU), not counted."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    readers = [BoundedReader(process.stdout), BoundedReader(process.stderr)]
    for reader in readers:
        reader.start()
    started = time.monotonic()
    returncode: int | None = None
    while True:
        left = started + timeout_s + paused() - time.monotonic()
        if left <= 0:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            break
        try:
            returncode = process.wait(timeout=min(left, WAKE_S))
            break
        except subprocess.TimeoutExpired:
            continue
    for reader in readers:
        # A process it left behind (only possible outside the sandbox) may hold the pipe open: not waited for.
        reader.join(timeout=LINGER_S)
    return Outcome(command, returncode, readers[0].text(), readers[1].text(), timeout_s)
