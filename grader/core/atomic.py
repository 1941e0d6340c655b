"""Writing a file that someone reads afterwards (a grade's JSON, results.csv, an export): whole or not at all.

The text goes to a temporary file in the same folder, is flushed to the disk, and is renamed over the file's name
in one step, so that a reader sees the file as it was before or as it is now, never a part of it: a batch
killed in the middle of a write, or a disk that fills up, leaves the earlier file as it was. A full disk is said
in one line (DiskFull), naming the file that was not written."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

# The errors that say the disk (or the user's share of it) has no room left.
NO_ROOM = (errno.ENOSPC, errno.EDQUOT)


class DiskFull(OSError):
    """A file could not be written for want of room on its disk; the file there before, if any, is unchanged."""

    def __init__(self, path: Path, error: OSError) -> None:
        said = (
            f"the disk is full: {path} was not written (what was there before is unchanged; free some space and "
            f"run the command again) [{error.strerror}]"
        )
        super().__init__(error.errno, said)
        self.path, self.said = path, said

    def __str__(self) -> str:
        return self.said  # one line, without OSError's "[Errno 28]" before it


def is_disk_full(error: BaseException) -> bool:
    return isinstance(error, OSError) and error.errno in NO_ROOM


def _temporary(path: Path) -> Path:
    """A name beside `path` that no reader globs for (it starts with a dot) and no other writer takes."""
    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")


def _sync(path: Path) -> None:
    """What was written to a file, or to a folder's entries, on the disk itself."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary path to write the new file to (for writers that take a path, such as a library's); when the
    block ends without an error it replaces `path`, else it is removed and `path` is left as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = _temporary(path)
    try:
        yield temporary
        _sync(temporary)
        os.replace(temporary, path)
        with contextlib.suppress(OSError):  # written and renamed already: a folder some file systems cannot sync
            _sync(path.parent)  # the rename itself lasts through a crash of the machine: a folder's entries are data
    except OSError as error:
        temporary.unlink(missing_ok=True)
        if is_disk_full(error) and not isinstance(error, DiskFull):
            raise DiskFull(path, error) from error
        raise
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_bytes(path: Path, data: bytes) -> None:
    """`data` as the whole of the file at `path`, written whole or not at all."""
    with replacing(path) as temporary, temporary.open("wb") as file:
        _write_all(file, data)


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def _write_all(file, data: bytes) -> None:
    """The one place the bytes go to the disk (a test stands in a full disk here)."""
    file.write(data)
