"""A student's submission: a folder, a tarball or a zip. Only each lab's kernel.cu is ever taken from it
(found as <anything>/NN_name/kernel.cu, or a kernel.cu outside such a folder matched to its lab by the interface
it includes and defines); everything else is listed as ignored, never unpacked or run. A
submission of more than MAX_ENTRIES files or MAX_TOTAL_BYTES in all is refused before it is listed whole: a
course's work is a few files, and listing an archive of a million names costs the grader's memory and time."""

from __future__ import annotations

import hashlib
import re
import struct
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader.core.config import REPO_ROOT

KERNEL = "kernel.cu"
MAX_KERNEL_BYTES = 1 << 20  # a kernel.cu is a few kB; anything this large is not one
MAX_ENTRIES = 10_000  # files and folders in one submission: a whole course's checkout has a few hundred
MAX_TOTAL_BYTES = 256 << 20  # their sizes added up, unpacked: a tarball is decompressed to be walked
# zipfile reads a zip's whole list of files when it opens one, before it can be counted: that list is refused past
# the room MAX_ENTRIES entries with long names take (a record is 46 bytes and the name).
MAX_ZIP_DIRECTORY_BYTES = MAX_ENTRIES * 256
ZIP_END, ZIP64_LOCATOR, ZIP64_END = b"PK\x05\x06", b"PK\x06\x07", b"PK\x06\x06"
ZIP_END_SEARCH = 22 + 0xFFFF  # the end record, and the longest comment that may follow it
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


COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def defines_none_of(source: bytes, functions: list[str]) -> bool:
    """Whether a kernel.cu, its comments left out, names none of these functions: it cannot define any of them,
    and its build would end in linker errors against the test program that name none of its own lines."""
    text = COMMENT.sub(" ", source.decode(errors="replace"))
    return bool(functions) and not any(_mentions(text, name) for name in functions)


def _mentions(source: str, name: str) -> bool:
    """Whether a kernel.cu includes this header (by its file name, from any folder) or names this function."""
    if name.endswith(".hpp"):
        pattern = r'#[ \t]*include[ \t]*[<"](?:[^">\n]{0,200}/)?' + re.escape(name) + r'[">]'
    else:
        pattern = r"\b" + re.escape(name) + r"\s*\("
    return re.search(pattern, source) is not None


def lab_by_content(source: bytes, labs: list[str], root: Path = REPO_ROOT) -> str | None:
    """The one lab whose interface a kernel.cu includes and defines the most of; None where it names none of
    any lab's, or as much of two labs' interfaces."""
    text = source.decode(errors="replace")
    counts = {lab: sum(_mentions(text, name) for name in interface_names(lab, root)) for lab in labs}
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
            f"{', '.join(unmatched)}: outside a lab folder, and it defines no lab's functions, so it cannot be "
            f"told which lab it is for. {LAYOUT[0].upper()}{LAYOUT[1:]}."
        )
    sub.ignored.extend(f"{name} (outside a lab folder and matching no lab's functions: {LAYOUT})" for name in unmatched)


def _take(sub: Submission, lab: str | None, name: str, read, size: int, regular: bool) -> None:
    loose = lab is None and PurePosixPath(name).name == KERNEL
    if lab is None and not loose:
        sub.ignored.append(name)
    elif not regular:
        sub.ignored.append(f"{name} (a link or special file: not used)")
    elif size > MAX_KERNEL_BYTES:
        sub.ignored.append(f"{name} (over {MAX_KERNEL_BYTES} bytes: not used)")
    elif lab is None:  # a kernel.cu outside a lab's folder (the first branch took every other file)
        sub.loose.append((name, read()))
    elif lab in sub.used:
        sub.ignored.append(f"{name} (a second kernel.cu for {lab}: {sub.used[lab]} is used)")
    else:
        sub.kernels[lab], sub.used[lab] = read(), name


def _member_bytes(archive: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    """A regular member's bytes (_take reads no other; extractfile() is None only for what is not a file)."""
    stream = archive.extractfile(member)
    assert stream is not None, f"{member.name}: not a regular file"
    return stream.read()


def _within_limits(path: Path, listed, size_of):
    """The entries of a submission as they are listed, refused as soon as there are more than MAX_ENTRIES or
    their sizes add up past MAX_TOTAL_BYTES (before the rest is listed, or decompressed to be walked)."""
    total = 0
    for count, entry in enumerate(listed, start=1):
        total += max(size_of(entry), 0)
        if count > MAX_ENTRIES:
            raise SubmissionError(
                f"{path}: more than {MAX_ENTRIES:,} files and folders: refused unread (a submission needs only "
                "its labs' NN_name/kernel.cu)"
            )
        if total > MAX_TOTAL_BYTES:
            raise SubmissionError(
                f"{path}: more than {MAX_TOTAL_BYTES >> 20} MiB in all, unpacked: refused unread (a submission "
                "needs only its labs' NN_name/kernel.cu)"
            )
        yield entry


def zip_directory_bytes(path: Path) -> int:
    """The size of a zip's central directory, from its end record: what zipfile reads whole, a record per entry,
    when it opens the file. 0 where there is no end record (zipfile then says it is no zip)."""
    with path.open("rb") as file:
        size = file.seek(0, 2)
        file.seek(max(0, size - ZIP_END_SEARCH))
        tail = file.read()
        at = tail.rfind(ZIP_END)
        if at < 0 or len(tail) < at + 16:
            return 0
        (directory,) = struct.unpack_from("<I", tail, at + 12)
        locator = at - 20  # a zip64 archive's locator comes just before the end record, and points to its own
        if directory != 0xFFFFFFFF or locator < 0 or tail[locator : locator + 4] != ZIP64_LOCATOR:
            return directory
        (record,) = struct.unpack_from("<Q", tail, locator + 8)
        file.seek(record)
        zip64 = file.read(56)
        return struct.unpack_from("<Q", zip64, 40)[0] if len(zip64) == 56 and zip64[:4] == ZIP64_END else directory


def _folder(sub: Submission, path: Path, labs: list[str]) -> None:
    def size(entry: Path) -> int:
        return entry.lstat().st_size if entry.is_file() and not entry.is_symlink() else 0

    listed = list(_within_limits(path, path.rglob("*"), size))
    files = sorted((p for p in listed if p.is_file() or p.is_symlink()), key=lambda p: len(p.parts))
    for file in files:
        name = file.relative_to(path).as_posix()
        _take(sub, _lab_of(name, labs), name, file.read_bytes, file.lstat().st_size, not file.is_symlink())


def _zip(sub: Submission, path: Path, labs: list[str]) -> None:
    if zip_directory_bytes(path) > MAX_ZIP_DIRECTORY_BYTES:
        raise SubmissionError(
            f"{path}: its list of files is over {MAX_ZIP_DIRECTORY_BYTES >> 10} KiB (more than {MAX_ENTRIES:,} files?): "
            "refused unread (a submission needs only its labs' NN_name/kernel.cu)"
        )
    with zipfile.ZipFile(path) as archive:
        listed = list(_within_limits(path, archive.infolist(), lambda i: i.file_size))
        for info in sorted((i for i in listed if not i.is_dir()), key=lambda i: i.filename.count("/")):
            regular = (info.external_attr >> 28) in (0, 0o10)  # no mode, or S_IFREG
            read = lambda i=info: archive.read(i)  # noqa: E731  (bound now: the loop moves on)
            _take(sub, _lab_of(info.filename, labs), info.filename, read, info.file_size, regular)


def _tar(sub: Submission, path: Path, labs: list[str]) -> None:
    with tarfile.open(path) as archive:
        # Walked member by member (not getmembers()): the limits stop it before the rest is read.
        listed = list(_within_limits(path, archive, lambda m: m.size))
        for member in sorted((m for m in listed if not m.isdir()), key=lambda m: m.name.count("/")):
            read = lambda m=member: _member_bytes(archive, m)  # noqa: E731
            _take(sub, _lab_of(member.name, labs), member.name, read, member.size, member.isfile())


def read_submission(path: Path, labs: list[str]) -> Submission:
    """The kernel.cu of each lab found in `path`; the shallowest wins where a lab has several, and one in its lab's
    folder before one outside any (_place_loose)."""
    sub = Submission(path)
    try:
        if path.is_dir():
            _folder(sub, path, labs)
        elif zipfile.is_zipfile(path):
            _zip(sub, path, labs)
        elif tarfile.is_tarfile(path):
            _tar(sub, path, labs)
        else:
            raise SubmissionError(f"{path}: not a folder, a tarball or a zip file")
    except (OSError, tarfile.TarError, zipfile.BadZipFile, struct.error) as error:
        raise SubmissionError(f"{path}: cannot be read ({error})") from error
    _place_loose(sub, labs)
    return sub
