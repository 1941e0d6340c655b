"""One batch at a time on an output folder: two batches building in the same work folders and writing the same
results corrupt both, so a batch holds OUT/batch.lock (flock) for its whole life, and a second is refused with
the holder's pid, host and start time.

The lock goes with the open file, not the process: the grader processes a batch starts inherit it, so that a
batch killed outright (kill -9, the out-of-memory killer) still holds its folder until the grader process it
left behind has ended, instead of a new batch building beside it. The tasks of one Slurm job array share the
folder by design: each holds the lock shared, and a task of another job, or a batch, is refused."""

from __future__ import annotations

import fcntl
import json
import os
import socket
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

LOCK_FILE = "batch.lock"


class FolderBusy(Exception):
    """Another batch holds the output folder: who, in one line."""


@dataclass
class Holder:
    """The batch that holds an output folder, as its lock file records it."""

    pid: int
    host: str
    started: str
    job: str | None = None  # a Slurm array's job id, shared by its tasks

    @classmethod
    def here(cls, job: str | None = None) -> Holder:
        return cls(os.getpid(), socket.gethostname(), datetime.now().astimezone().isoformat(timespec="seconds"), job)

    def said(self) -> str:
        who = f"Slurm job {self.job}, task pid {self.pid}" if self.job else f"pid {self.pid}"
        gone = ""
        if self.host == socket.gethostname() and not _alive(self.pid):
            gone = " (that process has ended, but a grader process it started is still running in the folder's work/)"
        return f"{who} on {self.host}, started {self.started}{gone}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_holder(descriptor: int) -> Holder | None:
    try:
        text = os.pread(descriptor, 4096, 0).decode(errors="replace")
        return Holder(**json.loads(text))
    except (OSError, ValueError, TypeError):
        return None


def _write_holder(descriptor: int, holder: Holder) -> None:
    # Written in place, never renamed: the lock is on this very file.
    data = json.dumps(holder.__dict__).encode()
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, data, 0)


class OutputLock:
    """The lock of one output folder, held from hold() or share() until release(), the end of a `with` block, or
    the end of the process (and of every process that inherited `descriptor`)."""

    def __init__(self, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        self.path = out / LOCK_FILE
        self.descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        # Why the folder is not locked, where its file system has no locks (a cluster's, mounted without them).
        self.unlocked_because = ""

    def _no_locks(self, error: OSError) -> OutputLock:
        self.unlocked_because = f"{self.path.parent} cannot be locked on its file system ({error.strerror})"
        return self

    def _busy(self) -> FolderBusy:
        holder = _read_holder(self.descriptor)
        who = holder.said() if holder else "a process whose record cannot be read"
        return FolderBusy(
            f"{self.path.parent} is in use by another batch ({who}): wait for it to end, or give another --out"
        )

    def hold(self) -> OutputLock:
        """The folder for this process alone; FolderBusy where anyone holds it."""
        try:
            fcntl.flock(self.descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise self._busy() from None
        except OSError as error:
            return self._no_locks(error)
        _write_holder(self.descriptor, Holder.here())
        return self

    def share(self, job: str) -> OutputLock:
        """The folder shared with the other tasks of Slurm job `job`; FolderBusy where a batch, or another job's
        task, holds it."""
        try:
            fcntl.flock(self.descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            _write_holder(self.descriptor, Holder.here(job))  # the first task: the job's record
            fcntl.flock(self.descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return self
        except BlockingIOError:
            pass
        except OSError as error:
            return self._no_locks(error)
        try:
            fcntl.flock(self.descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise self._busy() from None  # a batch holds it alone
        holder = _read_holder(self.descriptor)
        if holder is None or holder.job != job:
            busy = self._busy()
            self.release()
            raise busy
        return self

    def release(self) -> None:
        fcntl.flock(self.descriptor, fcntl.LOCK_UN)

    def close(self) -> None:
        """Lets go of the lock here; the processes that inherited it hold it until they end."""
        os.close(self.descriptor)

    def __enter__(self) -> OutputLock:
        return self

    def __exit__(self, *exception) -> None:
        self.close()
