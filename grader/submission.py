"""A student's submission: a folder, a tarball or a zip. Only each lab's kernel.cu is ever taken from it
(found as <anything>/NN_name/kernel.cu); everything else is listed as ignored, never unpacked or run."""

from __future__ import annotations

import hashlib
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

KERNEL = "kernel.cu"
MAX_KERNEL_BYTES = 1 << 20  # a kernel.cu is a few kB; anything this large is not one


class SubmissionError(Exception):
    """The submission cannot be read at all (not a folder, tarball or zip; corrupt)."""


@dataclass
class Submission:
    source: Path
    kernels: dict[str, bytes] = field(default_factory=dict)  # lab -> the contents of its kernel.cu
    used: dict[str, str] = field(default_factory=dict)  # lab -> its path inside the submission
    ignored: list[str] = field(default_factory=list)  # every other file, and why where it matters

    def digest(self, lab: str) -> str:
        """sha256 of the lab's kernel.cu; '' when the submission has none."""
        return hashlib.sha256(self.kernels[lab]).hexdigest() if lab in self.kernels else ""


def _lab_of(member: str, labs: list[str]) -> str | None:
    parts = PurePosixPath(member).parts
    if len(parts) >= 2 and parts[-1] == KERNEL and parts[-2] in labs:
        return parts[-2]
    return None


def _take(sub: Submission, lab: str | None, name: str, read, size: int, regular: bool) -> None:
    if lab is None:
        sub.ignored.append(name)
    elif not regular:
        sub.ignored.append(f"{name} (a link or special file: not used)")
    elif size > MAX_KERNEL_BYTES:
        sub.ignored.append(f"{name} (over {MAX_KERNEL_BYTES} bytes: not used)")
    elif lab in sub.used:
        sub.ignored.append(f"{name} (a second kernel.cu for {lab}: {sub.used[lab]} is used)")
    else:
        sub.kernels[lab], sub.used[lab] = read(), name


def _member_bytes(archive: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    """A regular member's bytes (_take reads no other; extractfile() is None only for what is not a file)."""
    stream = archive.extractfile(member)
    assert stream is not None, f"{member.name}: not a regular file"
    return stream.read()


def read_submission(path: Path, labs: list[str]) -> Submission:
    """The kernel.cu of each lab found in `path`; the shallowest wins where a lab has several."""
    sub = Submission(path)
    try:
        if path.is_dir():
            files = sorted((p for p in path.rglob("*") if p.is_file() or p.is_symlink()), key=lambda p: len(p.parts))
            for file in files:
                name = file.relative_to(path).as_posix()
                _take(sub, _lab_of(name, labs), name, file.read_bytes, file.lstat().st_size, not file.is_symlink())
        elif zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                infos = sorted((i for i in archive.infolist() if not i.is_dir()), key=lambda i: i.filename.count("/"))
                for info in infos:
                    regular = (info.external_attr >> 28) in (0, 0o10)  # no mode, or S_IFREG
                    _take(
                        sub,
                        _lab_of(info.filename, labs),
                        info.filename,
                        lambda i=info: archive.read(i),
                        info.file_size,
                        regular,
                    )
        elif tarfile.is_tarfile(path):
            with tarfile.open(path) as archive:
                members = sorted((m for m in archive.getmembers() if not m.isdir()), key=lambda m: m.name.count("/"))
                for member in members:
                    _take(
                        sub,
                        _lab_of(member.name, labs),
                        member.name,
                        lambda m=member: _member_bytes(archive, m),
                        member.size,
                        member.isfile(),
                    )
        else:
            raise SubmissionError(f"{path}: not a folder, a tarball or a zip file")
    except (OSError, tarfile.TarError, zipfile.BadZipFile) as error:
        raise SubmissionError(f"{path}: cannot be read ({error})") from error
    return sub
