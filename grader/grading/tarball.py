"""A tarball's members, walked one 512-byte header at a time, each header counted before anything it declares is read.

tarfile cannot be given a limit in time: it reads a GNU long name or a pax header whole as soon as it meets one (a
1.9 kB .tar.bz2 can declare a name of 1 GiB), follows a chain of such headers by recursion, keeps every global pax
record for every later member, and parses pax records with regular expressions that take quadratic time on some
Pythons. So the walk here uses tarfile only to decode one header block (TarInfo.frombuf), and does the rest itself:

- every header is counted by the caller's budget (entries, bytes declared, time) before its data is read or skipped;
- an extended header (a long name or link, a pax header) is read only up to MAX_EXTENDED_BYTES, and all of them up to
  MAX_EXTENDED_TOTAL; one past either is skipped unread, and the member it names is reported with its own header's
  name and why;
- a pax header's records are split in one pass, and only `path` and `size` are kept; a global one is skipped;
- data is decompressed in chunks of CHUNK bytes and dropped, except the bytes of a member the caller asks for.
"""

from __future__ import annotations

import _compression  # the reader gzip, bz2 and lzma build on: only it takes liblzma's memory limit
import bz2
import gzip
import io
import lzma
import re
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

BLOCK = tarfile.BLOCKSIZE
ZEROS = bytes(BLOCK)  # the end of an archive
CHUNK = 1 << 20  # bytes decompressed at a time while a member's data is skipped
MAX_EXTENDED_BYTES = 64 << 10  # one long name or pax header: a path is at most a few kB (PATH_MAX is 4096)
MAX_EXTENDED_TOTAL = 8 << 20  # all of them: a pax header of a few hundred bytes for each of 10,000 files is 3 MB
MAX_LENGTH_DIGITS = 20  # of a pax record's length or size: more is no number of bytes
PAX_LENGTH = re.compile(rb"(\d{1,%d}) " % MAX_LENGTH_DIGITS)
# What liblzma may allocate to decompress an xz file (its dictionary, which the file names, up to 4 GiB): xz -9
# needs 65 MiB.
XZ_MEMORY = 96 << 20
LONG_NAMES = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)
PAX = (tarfile.XHDTYPE, tarfile.SOLARIS_XHDTYPE)
EXTENDED = (*LONG_NAMES, *PAX, tarfile.XGLTYPE)
DECOMPRESSION_ERRORS = (OSError, EOFError, lzma.LZMAError, zlib.error)


class TarballError(Exception):
    """The tarball cannot be walked: a member it cannot describe, or data it does not hold."""


class Budget(Protocol):
    def entry(self, size: int) -> None:
        """One more header, declaring `size` bytes of data; raises past a limit of the submission's."""

    def tick(self) -> None:
        """Raises once the submission has taken too long to read."""


@dataclass
class Member:
    name: str
    size: int
    regular: bool  # a plain file, whose bytes may be read
    directory: bool
    unread: str = ""  # why its name is only its own header's: an extended header of its was skipped unread


def is_tarball(path: Path) -> bool:
    """Whether `path`, decompressed where it is gzip, bzip2 or xz, starts with a tar header (as tarfile.is_tarfile
    says, reading one block instead of the first member whole). Raises where it cannot be decompressed."""
    try:
        with open_stream(path) as stream:
            block = stream.read(BLOCK)
    except DECOMPRESSION_ERRORS as error:
        raise TarballError(f"cannot be decompressed ({error})") from error
    if block == ZEROS:
        return True  # an empty archive, as tarfile reads it
    try:
        tarfile.TarInfo.frombuf(block, "utf-8", "replace")
    except tarfile.HeaderError:
        return False
    return True


def open_stream(path: Path) -> io.BufferedIOBase:
    """The file's bytes, decompressed by its magic number; each read(n) decompresses at most n bytes."""
    with path.open("rb") as file:
        magic = file.read(6)
    if magic.startswith(b"\x1f\x8b"):
        return gzip.open(path, "rb")
    if magic.startswith(b"BZh"):
        return bz2.open(path, "rb")
    if magic.startswith(b"\xfd7zXZ\x00"):
        xz = _compression.DecompressReader(
            path.open("rb"), lzma.LZMADecompressor, trailing_error=lzma.LZMAError, memlimit=XZ_MEMORY
        )
        return io.BufferedReader(xz)
    return path.open("rb")


class Walk:
    """The members of one tarball, in order; `read()` gives the bytes of the member just yielded."""

    def __init__(self, stream: io.BufferedIOBase, budget: Budget) -> None:
        self.stream, self.budget = stream, budget
        self.left = 0  # bytes of the current member's data not read yet, its padding to the block included
        self.data = 0  # of them, its data
        self.extended = 0  # bytes of extended headers read so far

    def read(self) -> bytes:
        """The data of the member just yielded, whole: its size is the caller's to bound."""
        data = self._read(self.data)
        self.left -= self.data
        self.data = 0
        return data

    def __iter__(self) -> Iterator[Member]:
        name, size, unread = None, None, ""  # what extended headers said of the next member
        first = True
        while True:
            self._skip(self.left)
            block = self._read_header()
            if not block or block == ZEROS:
                return
            try:
                info = tarfile.TarInfo.frombuf(block, "utf-8", "replace")
            except tarfile.HeaderError as error:
                if first:
                    raise TarballError(f"not a tarball ({error})") from error
                return  # as tarfile does: a header it cannot read after the first ends the archive
            first = False
            if info.type == tarfile.GNUTYPE_SPARSE:
                raise TarballError(f"{info.name[:100]!r} is an old GNU sparse member, which is not read")
            data = data_size(info, size)
            self.budget.entry(data)
            self.left, self.data = -(-data // BLOCK) * BLOCK, data
            if info.type == tarfile.XGLTYPE:
                continue  # records for every later member: nothing of them is used, so they are skipped unread
            if info.type not in EXTENDED:
                named = name if name is not None and not unread else info.name
                yield Member(named, data, info.isreg() and not unread, info.isdir(), unread)
                name, size, unread = None, None, ""
                continue
            said = self._extended(info, data)
            if isinstance(said, str):
                unread = said
            elif info.type == tarfile.GNUTYPE_LONGNAME:
                name = said.split(b"\0", 1)[0].decode("utf-8", "replace")
            elif info.type in PAX:
                records = pax_records(said)
                name = records["path"].decode("utf-8", "replace") if "path" in records else name
                size = pax_size(records["size"]) if "size" in records else size

    def _extended(self, info: tarfile.TarInfo, size: int) -> bytes | str:
        """An extended header's data; or, where it is over a limit, why it was skipped unread."""
        if size > MAX_EXTENDED_BYTES:
            return f"a long name or pax header of {size:,} bytes, over the limit of {MAX_EXTENDED_BYTES:,}"
        if self.extended + size > MAX_EXTENDED_TOTAL:
            return f"long names and pax headers of more than {MAX_EXTENDED_TOTAL >> 20} MiB in all"
        self.extended += size
        return self.read()

    def _read_header(self) -> bytes:
        self.budget.tick()
        return self._read(BLOCK, whole=False)

    def _skip(self, size: int) -> None:
        while size > 0:
            self.budget.tick()
            size -= len(self._read(min(size, CHUNK)))
        self.left, self.data = 0, 0

    def _read(self, size: int, whole: bool = True) -> bytes:
        try:
            data = self.stream.read(size)
        except DECOMPRESSION_ERRORS as error:
            raise TarballError(f"cannot be decompressed ({error})") from error
        if whole and len(data) != size:
            raise TarballError("it ends inside a member's data")
        return data


def data_size(info: tarfile.TarInfo, pax_size: int | None) -> int:
    """How many bytes of data follow a header, as tarfile counts them: a pax header's size in place of the header's
    own; none for a link, a folder or a device."""
    size = pax_size if pax_size is not None and info.type not in EXTENDED else info.size
    if size < 0:
        raise TarballError(f"{info.name[:100]!r} has a negative size")
    has_data = info.type in EXTENDED or info.isreg() or info.type not in tarfile.SUPPORTED_TYPES
    return size if has_data else 0


def pax_records(data: bytes) -> dict[str, bytes]:
    """A pax header's `path` and `size` records ("LENGTH KEY=VALUE\\n", LENGTH counting the whole record), split in
    one pass; the others are checked for their length and dropped."""
    kept: dict[str, bytes] = {}
    at = 0
    while at < len(data):
        length = PAX_LENGTH.match(data, at)
        end = at + int(length[1]) if length else -1
        if length is None or end <= length.end() or end > len(data) or data[end - 1] != ord("\n"):
            raise TarballError(f"a pax header with a malformed record at byte {at}")
        for key in ("path", "size"):
            if data.startswith(b"%s=" % key.encode(), length.end()):
                kept[key] = data[length.end() + len(key) + 1 : end - 1]
        at = end
    return kept


def pax_size(value: bytes) -> int:
    if not value.isdigit() or len(value) > MAX_LENGTH_DIGITS:
        raise TarballError(f"a pax header whose size is no number: {value[:40]!r}")
    return int(value)
