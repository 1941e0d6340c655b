"""A folder's lock, held by one thread of one process at a time, whichever process: an flock on a file in it.

Several graders may share one build folder (the workers of a batch, the processes of a test run): each runs
Ninja and Meson there only while it holds the folder's lock, since two Ninjas in one folder corrupt its logs.
The kernel lets go of a lock when its holder dies, so a killed grader never leaves the folder locked."""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = ".cml-lock"


@contextmanager
def held(folder: Path) -> Iterator[None]:
    """The folder's lock, waited for. Not reentrant: a holder that asks again waits for itself."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_FILE, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def empty(folder: Path) -> None:
    """Removes everything the folder holds but its lock, which the caller holds (a damaged build folder, made
    anew)."""
    for path in folder.iterdir():
        if path.name != LOCK_FILE:
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
