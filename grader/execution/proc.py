"""Running one step of grading as a subprocess, with a time limit, and naming how it ended.

What a program prints is read through a bounded reader: its first and last OUTPUT_KEPT bytes of each stream are
kept and the rest is counted, so a program that prints gigabytes costs the grader no memory. A program built
from a submission may print at most OUTPUT_LIMIT bytes: past that it is stopped, and "printed too much" is how
it ended, never a time-out. Everything read is bytes, decoded with errors="replace": no byte can raise.

What a program printed is the student's text: where it becomes a check's detail or the grader's error it is cut
to MESSAGE_LIMIT characters (bounded), so that no message can fill a report, a log or the memory of what reads
it."""

from __future__ import annotations

import contextlib
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
# Bytes a program built from a submission may print, its streams together: far past an honest run's (doctest's
# lines, a sanitizer's first reports, ncu's counters), far short of what a print in a loop reaches before its
# time limit.
OUTPUT_LIMIT = 64 << 20
MESSAGE_LIMIT = 4096  # characters of a program's message (an exception, a tail of output) a report shows
LINGER_S = 10.0  # how long output is still read after the program ended
STOP_GRACE_S = 5.0  # how long a program told to stop may take to end its own (a build's compiles) before SIGKILL
WAKE_S = 1.0  # how often a long wait looks again at the time left


class Stopped(BaseException):
    """The grader was asked to stop (a signal): its programs were ended, and no other may start. A BaseException,
    as KeyboardInterrupt is, so that no step takes it for a failure of its own and goes on to the next."""


# Every program run() has started and not yet seen end, by pid: what stop_every_run() ends.
_running: dict[int, subprocess.Popen] = {}
_running_lock = threading.Lock()
_stopped = threading.Event()


def stop_every_run() -> None:
    """Ends every program run() is running, each with its whole process group, and makes every later run() raise
    Stopped: a grader told to stop leaves no program of its own behind in its build folder. SIGTERM first, and
    SIGKILL after STOP_GRACE_S: Ninja runs each command in a process group of its own, which it ends when it is
    told to stop, and which a SIGKILL of Ninja's own group would leave running."""
    with _running_lock:
        _stopped.set()
        running = list(_running.values())
    for sent in (signal.SIGTERM, signal.SIGKILL):
        for process in running:
            if process.poll() is None:  # not reaped yet, so its process group is still its own
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, sent)
        ends = time.monotonic() + STOP_GRACE_S
        while time.monotonic() < ends and any(process.poll() is None for process in running):
            time.sleep(0.05)


def stopping() -> bool:
    return _stopped.is_set()


def run_again() -> None:
    """Lets run() start programs again after stop_every_run(), in a process that goes on (a test of the stop)."""
    _stopped.clear()


def bounded(text: str, limit: int = MESSAGE_LIMIT, keep_end: bool = False) -> str:
    """`text` cut to about `limit` characters, saying how many were left out: its start (a message says its
    cause first), or with `keep_end` its end (where a program's output says how it ended)."""
    if len(text) <= limit:
        return text
    left_out = f"[... {len(text) - limit} characters left out ...]"
    return f"{left_out}\n{text[-limit:]}" if keep_end else f"{text[:limit]}\n{left_out}"


@dataclass(frozen=True)
class TimeLimit:
    """How long a step's program may run, and what decided it (grader/steps/time_limits.py), which the verdict of a
    program stopped at it says."""

    seconds: float
    why: str = ""
    # What the grader's own program of the step (the checker, replaying the record) may take, where that differs:
    # its time does not depend on the submission, so a limit derived from the reference's time is not its own.
    grader_s: float | None = None

    @property
    def for_the_grader(self) -> float:
        return self.seconds if self.grader_s is None else self.grader_s


Limit = float | TimeLimit  # a bare number is a limit with nothing to say about where it came from


def time_limit(limit: Limit) -> TimeLimit:
    return limit if isinstance(limit, TimeLimit) else TimeLimit(float(limit))


@dataclass
class Outcome:
    command: list[str]
    returncode: int | None  # None when the grader stopped it: its time ran out, or it printed too much
    stdout: str
    stderr: str
    timeout_s: float
    printed_too_much: bool = False  # stopped for printing more than output_limit bytes
    output_limit: int = OUTPUT_LIMIT
    limit_why: str = ""  # what decided timeout_s (TimeLimit.why)
    seconds: float = 0.0  # how long it ran, its wait for its turn on the GPU left out

    @property
    def timed_out(self) -> bool:
        """Stopped by the grader before it ended (how_it_ended says why): every later step would be too."""
        return self.returncode is None

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def crashed(self) -> bool:
        return self.returncode is not None and self.returncode < 0

    def how_it_ended(self) -> str:
        """'exited 1', 'killed by SIGSEGV', 'timed out after 60 s' — for reports."""
        if self.printed_too_much:
            return f"printed more than {self.output_limit >> 20} MiB and was stopped (a print in a loop?)"
        if self.returncode is None:
            why = f": {self.limit_why}" if self.limit_why else ""
            return f"timed out after {self.timeout_s:g} s and was stopped{why} (a kernel that never returns?)"
        if self.returncode < 0:
            return f"crashed: killed by {signal.Signals(-self.returncode).name}"
        return f"exited with status {self.returncode}"

    def tail(self, lines: int = 20) -> str:
        """The last `lines` lines of its output, at most MESSAGE_LIMIT characters of them."""
        text = (self.stdout + "\n" + self.stderr).strip().splitlines()
        return bounded("\n".join(text[-lines:]), keep_end=True)


class BoundedReader(threading.Thread):
    """Reads a pipe to its end, keeping its first and last `kept` bytes; calls `read(n)` with each chunk's size."""

    def __init__(self, pipe, kept: int = OUTPUT_KEPT, read: Callable[[int], None] = lambda _: None) -> None:
        super().__init__(daemon=True)
        self.pipe, self.kept, self.read = pipe, kept, read
        self.head, self.tail, self.dropped = bytearray(), bytearray(), 0

    def run(self) -> None:
        while chunk := os.read(self.pipe.fileno(), 1 << 16):
            self.read(len(chunk))
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
    timeout_s: Limit,
    cwd: Path | None = None,
    env: dict | None = None,
    paused: Callable[[], float] = lambda: 0.0,
    output_limit: int | None = None,
    kept: int = OUTPUT_KEPT,
    stdin: Path | None = None,
) -> Outcome:
    """Runs `command`; on timeout kills its whole process group, so a hung GPU program goes too. `paused()`: the
    seconds so far that the program spent waiting on the grader (its turn on the GPU), not counted. With
    `output_limit`, a program that prints more bytes than that is killed the same way, as soon as it has. `kept`:
    the bytes kept at each end of each stream; a tool whose whole output is parsed keeps its output_limit, so
    that nothing of what it printed is dropped unsaid. `stdin`: a file it reads as its input (else none)."""
    limit = time_limit(timeout_s)
    with _running_lock, stdin.open("rb") if stdin else contextlib.nullcontext(subprocess.DEVNULL) as given:
        # Started and listed at once: a stop ends every program that started.
        if _stopped.is_set():
            raise Stopped(f"not started, the grader is stopping: {command[0]}")
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env={**os.environ, **(env or {})},
            stdin=given,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        _running[process.pid] = process
    try:
        outcome = _wait(process, command, limit, paused, output_limit, kept)
    finally:
        with _running_lock:
            _running.pop(process.pid, None)
    if _stopped.is_set():  # ended by the stop, perhaps: how it ended says nothing of the program
        raise Stopped(f"ended, the grader is stopping: {command[0]}")
    return outcome


def _wait(
    process: subprocess.Popen,
    command: list[str],
    limit: TimeLimit,
    paused: Callable[[], float],
    output_limit: int | None,
    kept: int,
) -> Outcome:
    """Waits for run()'s program to end, within its time limit, reading what it prints."""
    flood = OutputLimit(process, output_limit)
    readers = [BoundedReader(pipe, kept, flood.count) for pipe in (process.stdout, process.stderr)]
    for reader in readers:
        reader.start()
    started = time.monotonic()
    returncode: int | None = None
    while True:
        left = started + limit.seconds + paused() - time.monotonic()
        if left <= 0:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            break
        try:
            returncode = process.wait(timeout=min(left, WAKE_S))
            break
        except subprocess.TimeoutExpired:
            continue
    seconds = time.monotonic() - started - paused()
    for reader in readers:
        # A process it left behind (only possible outside the sandbox) may hold the pipe open: not waited for.
        reader.join(timeout=LINGER_S)
    if flood.exceeded:
        returncode = None  # its exit status is the kill's, not the program's
    printed = readers[0].text(), readers[1].text()
    limit_bytes = output_limit or OUTPUT_LIMIT
    return Outcome(command, returncode, *printed, limit.seconds, flood.exceeded, limit_bytes, limit.why, seconds)


class OutputLimit:
    """The bytes a process printed on both its streams; past `limit`, its process group is killed."""

    def __init__(self, process: subprocess.Popen, limit: int | None) -> None:
        self.process, self.limit = process, limit
        self.printed, self.exceeded = 0, False
        self.lock = threading.Lock()

    def count(self, size: int) -> None:
        with self.lock:
            self.printed += size
            if self.limit is None or self.exceeded or self.printed <= self.limit:
                return
            self.exceeded = True
            if self.process.poll() is None:  # not reaped yet, so its process group is still its own
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
