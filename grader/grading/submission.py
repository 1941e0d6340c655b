"""A student's submission: a folder, a tarball or a zip. Only each lab's kernel.cu is ever taken from it
(found as <anything>/NN_name/kernel.cu, or a kernel.cu outside such a folder matched to its lab by the interface
it includes and defines); everything else is listed as ignored, never unpacked or run.

A submission is read in the grader's own process, so everything it costs is bounded before it is spent: more than
MAX_ENTRIES files, MAX_TOTAL_BYTES in all (as declared, before anything is decompressed) or READ_SECONDS of
reading refuse it; a tarball is walked a header at a time (grader/grading/tarball.py), a zip's list of files is
sized before zipfile reads it, and only the bytes of at most MAX_KERNELS_READ kernel.cu files are ever read. A
course's work is a few files. A name longer than MAX_NAME_CHARS is cut where it is reported, saying so."""

from __future__ import annotations

import hashlib
import re
import struct
import time
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TypeVar

from grader.core.config import REPO_ROOT
from grader.grading import tarball
from grader.grading.source_names import names_in, without_comments
from grader.reporting.terminal import one_line  # a refusal is one paragraph: no name of the student's starts a line

KERNEL = "kernel.cu"
MAX_KERNEL_BYTES = 1 << 20  # a kernel.cu is a few kB; anything this large is not one
MAX_ENTRIES = 10_000  # files and folders in one submission: a whole course's checkout has a few hundred
MAX_TOTAL_BYTES = 256 << 20  # their sizes added up, unpacked: a tarball is decompressed to be walked
READ_SECONDS = 60.0  # to list and read a submission: a bzip2 tarball of MAX_TOTAL_BYTES takes a few seconds
MAX_KERNELS_READ = 64  # kernel.cu files whose bytes are read (each lab's, and those outside a lab's folder)
MAX_NAME_CHARS = 256  # of a file's name, as reports show it: a tarball can name a file with 64 kB
ZIP_READABLE = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)  # zipfile inflates these a bounded read at a time
# zipfile reads a zip's whole list of files when it opens one, before it can be counted: that list is refused past
# the room MAX_ENTRIES entries with long names take (a record is 46 bytes and the name).
MAX_ZIP_DIRECTORY_BYTES = MAX_ENTRIES * 256
ZIP_END, ZIP64_LOCATOR, ZIP64_END = b"PK\x05\x06", b"PK\x06\x07", b"PK\x06\x06"
ZIP_END_SIZE, ZIP64_LOCATOR_SIZE, ZIP64_END_SIZE = 22, 20, 56
ZIP_END_SEARCH = ZIP_END_SIZE + (1 << 16)  # the end record, and the longest comment that may follow it, as zipfile
T = TypeVar("T")
LAYOUT = "put each lab's kernel.cu in a folder named after its lab, as in labs/: 01_vector_add/kernel.cu"
# The grader's own headers in a lab's tests/ folder; every other header there is the lab's interface.
NOT_INTERFACE = {"baseline.hpp", "reference.hpp"}
DECLARED = re.compile(r"^[A-Za-z_][\w:<>]*(?:[\s*&]+[A-Za-z_][\w:<>]*)*[\s*&]+([A-Za-z_]\w*)\s*\([^)]*\)\s*;", re.M)


class SubmissionError(Exception):
    """The submission cannot be read at all (not a folder, tarball or zip; corrupt)."""


@dataclass
class Submission:
    source: Path
    kernels: dict[str, bytes] = field(default_factory=dict)  # lab -> the contents of its kernel.cu
    used: dict[str, str] = field(default_factory=dict)  # lab -> its path inside the submission
    ignored: list[str] = field(default_factory=list)  # every other file, and why where it matters
    # kernel.cu files outside a lab's folder, read while walking: placed by their content once the walk is done,
    # after the ones in lab folders, which come first whatever their depth.
    loose: list[tuple[str, bytes]] = field(default_factory=list, repr=False)
    kernels_read: int = 0  # kernel.cu files whose bytes were read, at most MAX_KERNELS_READ

    def digest(self, lab: str) -> str:
        """sha256 of the lab's kernel.cu; '' when the submission has none."""
        return hashlib.sha256(self.kernels[lab]).hexdigest() if lab in self.kernels else ""


def _lab_of(member: str, labs: list[str]) -> str | None:
    parts = PurePosixPath(member).parts
    if len(parts) >= 2 and parts[-1] == KERNEL and parts[-2] in labs:
        return parts[-2]
    return None


def interface_names(lab: str, root: Path = REPO_ROOT) -> set[str]:
    """What a lab's kernel.cu includes and defines: its interface header's file name and the functions declared
    there (tests/NN_name/, the grader's own copy)."""
    names = set()
    for header in sorted((root / "tests" / lab).glob("*.hpp")):
        if header.name not in NOT_INTERFACE:
            names.add(header.name)
            names.update(DECLARED.findall(header.read_text(errors="replace")))
    return names


def interface_functions(lab: str, root: Path = REPO_ROOT) -> list[str]:
    """The functions a lab's test calls: those its interface header declares, in name order."""
    return sorted(name for name in interface_names(lab, root) if not name.endswith(".hpp"))


def defines_none_of(source: bytes, functions: list[str]) -> bool:
    """Whether a kernel.cu, its comments left out, names none of these functions: it cannot define any of them,
    and its build would end in linker errors against the test program that name none of its own lines."""
    names = names_in(without_comments(source.decode(errors="replace")))
    return bool(functions) and not any(names.mentions(name) for name in functions)


def lab_by_content(source: bytes, labs: list[str], root: Path = REPO_ROOT) -> str | None:
    """The one lab whose interface a kernel.cu includes and defines the most of; None where it names none of
    any lab's, or as much of two labs' interfaces."""
    names = names_in(source.decode(errors="replace"))
    counts = {lab: sum(names.mentions(name) for name in interface_names(lab, root)) for lab in labs}
    best = max(counts.values(), default=0)
    winners = [lab for lab, count in counts.items() if count == best]
    return winners[0] if best > 0 and len(winners) == 1 else None


def _place_loose(sub: Submission, labs: list[str]) -> None:
    """Each kernel.cu found outside a lab's folder, given to the lab whose interface it includes and defines.
    One that matches no lab is refused with the layout to use, and the whole submission with it where it has no
    other kernel.cu: grading the skeletons in its place would give 0 points without saying why."""
    unmatched = []
    for name, source in sub.loose:
        lab = lab_by_content(source, labs)
        if lab is None:
            unmatched.append(name)
        elif lab in sub.used:
            sub.ignored.append(f"{name} (outside a lab folder; it is {lab}'s, but {sub.used[lab]} is used)")
        else:
            sub.kernels[lab], sub.used[lab] = source, f"{name} (outside a lab folder: {lab}'s by what it defines)"
    if unmatched and not sub.kernels:
        raise SubmissionError(
            f"{', '.join(map(one_line, unmatched))}: outside a lab folder, and it defines no lab's functions, so it cannot be "
            f"told which lab it is for. {LAYOUT[0].upper()}{LAYOUT[1:]}."
        )
    sub.ignored.extend(f"{name} (outside a lab folder and matching no lab's functions: {LAYOUT})" for name in unmatched)


def shown_name(name: str) -> str:
    """A file's name as reports show it: cut to MAX_NAME_CHARS characters, saying how many more it had."""
    if len(name) <= MAX_NAME_CHARS:
        return name
    return f"{name[:MAX_NAME_CHARS]}[... {len(name) - MAX_NAME_CHARS:,} more characters]"


def _take(
    sub: Submission,
    lab: str | None,
    name: str,
    read: Callable[[], bytes | None],
    size: int,
    regular: bool,
    unread: str = "",
) -> None:
    """Where one file of the submission goes: a lab's kernel.cu, one outside a lab's folder, or the ignored list
    (with why, where it matters). `read()`: its bytes, or None where they were not kept; `unread`: why its bytes or
    its full name cannot be read."""
    shown = shown_name(name)
    loose = lab is None and PurePosixPath(name).name == KERNEL
    if unread:
        sub.ignored.append(f"{shown} ({unread}: not used)")
    elif lab is None and not loose:
        sub.ignored.append(shown)
    elif not regular:
        sub.ignored.append(f"{shown} (a link or special file: not used)")
    elif size > MAX_KERNEL_BYTES:
        sub.ignored.append(f"{shown} (over {MAX_KERNEL_BYTES} bytes: not used)")
    elif lab is not None and lab in sub.used:
        sub.ignored.append(f"{shown} (a second kernel.cu for {lab}: {sub.used[lab]} is used)")
    elif sub.kernels_read >= MAX_KERNELS_READ or (data := read()) is None:
        sub.ignored.append(f"{shown} (more than {MAX_KERNELS_READ} kernel.cu files: not read)")
    else:
        sub.kernels_read += 1
        if lab is None:  # a kernel.cu outside a lab's folder, placed by its content once the walk is done
            sub.loose.append((shown, data))
        else:
            sub.kernels[lab], sub.used[lab] = data, shown


class Budget:
    """What reading a submission has cost so far: its entries, the bytes they declare and the time. Each entry is
    counted before anything of it is read, and the submission refused as soon as one limit is passed."""

    def __init__(self, path: Path) -> None:
        self.path, self.entries, self.bytes = path, 0, 0
        self.deadline = time.monotonic() + READ_SECONDS

    def entry(self, size: int) -> None:
        self.entries += 1
        self.bytes += max(size, 0)
        if self.entries > MAX_ENTRIES:
            raise SubmissionError(
                f"{self.path}: more than {MAX_ENTRIES:,} files and folders: refused unread (a submission needs only "
                "its labs' NN_name/kernel.cu)"
            )
        if self.bytes > MAX_TOTAL_BYTES:
            raise SubmissionError(
                f"{self.path}: more than {MAX_TOTAL_BYTES >> 20} MiB in all, unpacked: refused unread (a submission "
                "needs only its labs' NN_name/kernel.cu)"
            )
        self.tick()

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise SubmissionError(f"{self.path}: not read within {READ_SECONDS:g} s: refused")

    def listed(self, entries: Iterable[T], size_of: Callable[[T], int]) -> list[T]:
        """The entries as they are listed, refused before the rest is listed once one is past a limit."""
        kept = []
        for entry in entries:
            self.entry(size_of(entry))
            kept.append(entry)
        return kept


def zip_directory_bytes(path: Path) -> int:
    """The size of a zip's central directory, which zipfile reads whole, a record per entry, when it opens the file;
    0 where there is no end record (zipfile then says it is no zip). Found where zipfile finds it: the end record in
    the last 22 bytes if it has no comment there, else the last one in the 64 kB before; and, where a zip64 locator
    comes just before it, the zip64 end record just before that (not where the locator points)."""
    with path.open("rb") as file:
        size = file.seek(0, 2)
        file.seek(max(0, size - ZIP_END_SEARCH))
        tail = file.read()
        last = len(tail) - ZIP_END_SIZE
        plain = last >= 0 and tail[last : last + 4] == ZIP_END and tail[-2:] == b"\0\0"
        at = last if plain else tail.rfind(ZIP_END)
        if at < 0 or len(tail) < at + ZIP_END_SIZE:
            return 0
        (directory,) = struct.unpack_from("<I", tail, at + 12)
        end = size - len(tail) + at
        if end < ZIP64_LOCATOR_SIZE + ZIP64_END_SIZE:
            return directory
        file.seek(end - ZIP64_LOCATOR_SIZE)
        if file.read(4) != ZIP64_LOCATOR:
            return directory
        file.seek(end - ZIP64_LOCATOR_SIZE - ZIP64_END_SIZE)
        zip64 = file.read(ZIP64_END_SIZE)
        return struct.unpack_from("<Q", zip64, 40)[0] if zip64[:4] == ZIP64_END else directory


def _folder(sub: Submission, path: Path, labs: list[str], budget: Budget) -> None:
    def size(entry: Path) -> int:
        return entry.lstat().st_size if entry.is_file() and not entry.is_symlink() else 0

    listed = budget.listed(path.rglob("*"), size)
    files = sorted((p for p in listed if p.is_file() or p.is_symlink()), key=lambda p: len(p.parts))
    for file in files:
        name = file.relative_to(path).as_posix()
        read = lambda f=file: _file_bytes(f)  # noqa: E731  (bound now: the loop moves on)
        _take(sub, _lab_of(name, labs), name, read, file.lstat().st_size, not file.is_symlink())


def _file_bytes(file: Path) -> bytes:
    with file.open("rb") as opened:
        return opened.read(MAX_KERNEL_BYTES + 1)  # its size was checked when listed: no more is ever read


def _zip(sub: Submission, path: Path, labs: list[str], budget: Budget) -> None:
    if zip_directory_bytes(path) > MAX_ZIP_DIRECTORY_BYTES:
        raise SubmissionError(
            f"{path}: its list of files is over {MAX_ZIP_DIRECTORY_BYTES >> 10} KiB (more than {MAX_ENTRIES:,} files?): "
            "refused unread (a submission needs only its labs' NN_name/kernel.cu)"
        )
    with zipfile.ZipFile(path) as archive:
        listed = budget.listed(archive.infolist(), lambda i: i.file_size)
        for info in sorted((i for i in listed if not i.is_dir()), key=lambda i: i.filename.count("/")):
            regular = (info.external_attr >> 28) in (0, 0o10)  # no mode, or S_IFREG
            read = lambda i=info: _zip_member(archive, i)  # noqa: E731  (bound now: the loop moves on)
            _take(sub, _lab_of(info.filename, labs), info.filename, read, info.file_size, regular, _zip_unread(info))


def _zip_unread(info: zipfile.ZipInfo) -> str:
    """Why a zip's member cannot be read within bounds: zipfile inflates bzip2 and LZMA whole, however large."""
    if info.flag_bits & 0x1:
        return "encrypted"
    return "" if info.compress_type in ZIP_READABLE else f"compressed by method {info.compress_type}, not deflate"


def _zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A member's bytes, inflated no further than the size it declares (checked against MAX_KERNEL_BYTES)."""
    with archive.open(info) as member:
        return member.read(info.file_size)


def _tar(sub: Submission, path: Path, labs: list[str], budget: Budget) -> None:
    """Walked once, in order: the bytes of each kernel.cu are read as the walk passes it, of at most
    MAX_KERNELS_READ of them; the rest of the data is decompressed and dropped."""
    found: list[tuple[tarball.Member, bytes | None]] = []
    read = 0
    with tarball.open_stream(path) as stream:
        walk = tarball.Walk(stream, budget)
        for member in walk:
            if member.directory:
                continue
            wanted = member.regular and member.size <= MAX_KERNEL_BYTES and PurePosixPath(member.name).name == KERNEL
            found.append((member, walk.read() if wanted and read < MAX_KERNELS_READ else None))
            read += wanted
    for member, data in sorted(found, key=lambda item: item[0].name.count("/")):
        kept = lambda d=data: d  # noqa: E731
        _take(sub, _lab_of(member.name, labs), member.name, kept, member.size, member.regular, member.unread)


def read_submission(path: Path, labs: list[str]) -> Submission:
    """The kernel.cu of each lab found in `path`; the shallowest wins where a lab has several, and one in its lab's
    folder before one outside any (_place_loose)."""
    sub = Submission(path)
    budget = Budget(path)
    try:
        if path.is_dir():
            _folder(sub, path, labs, budget)
        elif zipfile.is_zipfile(path):
            _zip(sub, path, labs, budget)
        elif tarball.is_tarball(path):
            _tar(sub, path, labs, budget)
        else:
            raise SubmissionError(f"{path}: not a folder, a tarball or a zip file")
    except tarball.TarballError as error:
        raise SubmissionError(f"{path}: cannot be read: {error}") from error
    except (OSError, EOFError, zipfile.BadZipFile, struct.error, UnicodeDecodeError) as error:
        raise SubmissionError(f"{path}: cannot be read ({error})") from error
    _place_loose(sub, labs)
    return sub
