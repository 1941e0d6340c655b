"""Where the GPU's lock files are (grader/execution/gpu_lock.py): one pair per card, named by the card's UUID so
that every grader on it finds the same pair however CUDA_VISIBLE_DEVICES numbers it, in a folder only the grading
user can write. The sandbox shows no program built from a submission this folder (it sees neither /run nor the
grader's /tmp): one that could hold a lock file would stall every grader on the machine."""

from __future__ import annotations

import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.execution.gpu_lock import GpuLock, Turn

FOLDER = "cml-gpu-locks"


class UnsafeFolder(Exception):
    """The folder is not ours alone: someone else could hold or replace the lock files."""


def lock_folder() -> Path:
    """The folder, made where it is not there yet: in $XDG_RUNTIME_DIR (the user's own, emptied at logout), else
    a folder of this user's in the system's temporary folder. Raises UnsafeFolder unless it is a real folder of
    this user's that no one else may enter."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    base = Path(runtime) if runtime and Path(runtime).is_dir() else Path(tempfile.gettempdir())
    folder = base / f"{FOLDER}-{os.geteuid()}"
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError as error:
        raise UnsafeFolder(f"{folder} cannot be made ({error.strerror})") from error
    found = folder.lstat()
    if not stat.S_ISDIR(found.st_mode):
        raise UnsafeFolder(f"{folder} is not a folder")
    if found.st_uid != os.geteuid():
        raise UnsafeFolder(f"{folder} belongs to another user")
    if found.st_mode & 0o077:
        raise UnsafeFolder(f"{folder} is open to other users (mode {stat.S_IMODE(found.st_mode):o})")
    return folder


def card_name(uuid: str) -> str:
    """The card's UUID as a file name: nvidia-smi's GPU-xxxxxxxx-..., anything else in it replaced."""
    return re.sub(r"[^A-Za-z0-9-]", "_", uuid)


@dataclass
class GpuLocks:
    gpu: GpuLock  # the readers-writer lock of the card
    counters: Turn  # its performance monitors: one ncu run at a time


def gpu_locks(uuid: str, folder: Path | None = None) -> GpuLocks:
    """The card's locks, held through its files in `folder` (lock_folder() unless given). Raises UnsafeFolder."""
    where = folder if folder is not None else lock_folder()
    name = card_name(uuid)
    return GpuLocks(GpuLock(where / f"{name}.gpu.lock"), Turn(where / f"{name}.ncu.lock"))
