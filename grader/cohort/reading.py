"""Reading one student's submission in that student's own turn of a batch, never all of them before anyone is
graded: in a process of its own (python -m grader.cohort.reading ENTRY LAB...), under limits of memory, CPU time,
wall time and output, so that an archive that would take gigabytes or hours to read costs that student alone
("unreadable", with the limit it passed) and the rest of the class is graded.

What was read is kept as the student's record (OUT/students/NAME/submission.json): each lab's kernel.cu by its
sha256, and the submission's stamp, read from the file system alone (sizes and times, nothing of its content),
by which collect tells a submission changed since: its row then says "not graded yet", never the old score."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import signal
import stat
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from grader.core import atomic
from grader.core.config import REPO_ROOT
from grader.execution import proc
from grader.grading.submission import MAX_ENTRIES, SubmissionError, read_submission

OUTPUT_BYTES = 1 << 20  # what the reading process may print: its answer, or a bounded message
RECORD = "submission.json"


@dataclass(frozen=True)
class Limits:
    """What reading one submission may take. An honest one takes milliseconds and a few MiB: these are far past
    that, and far short of what an archive bomb needs."""

    memory_bytes: int = 1 << 30  # the reading process's address space, the Python it runs in (25 MiB) included
    cpu_s: int = 60
    wall_s: float = 120.0


@dataclass
class Reading:
    """What a student's turn read of their submission."""

    stamp: str  # Stamp of the submission, taken before it was read
    kernels: dict[str, str] = field(default_factory=dict)  # lab -> sha256 of its kernel.cu
    unreadable: str | None = None  # why the submission cannot be read: the student's (a corrupt or huge archive)
    failed: str | None = None  # why the grader could not read it: the grader's own failure
    key: dict = field(default_factory=dict)  # what the batch graded with (current.grading_key)


def listed(entry: Path) -> Iterator[tuple[str, os.stat_result]]:
    """Each file and folder under `entry`, by its path from there and what lstat says of it, folder by folder in
    name order: the first MAX_ENTRIES only (reading refuses a submission of more), and none it cannot list."""
    seen, folders = 0, [entry]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as listing:
                items = []
                for item in listing:
                    seen += 1
                    if seen > MAX_ENTRIES:
                        return
                    items.append(item)
            found = [(item, item.stat(follow_symlinks=False)) for item in sorted(items, key=lambda i: i.name)]
        except OSError:
            continue
        for item, info in found:
            yield os.path.relpath(item.path, entry), info
            if stat.S_ISDIR(info.st_mode):
                folders.append(Path(item.path))


def stamp(entry: Path) -> str:
    """What changes when a submission is replaced, edited, or has files added or removed: the sha256 of its type,
    size and modification time, and for a folder of those of every file and folder under it (listed());
    'missing' where there is nothing at that path."""
    try:
        top = entry.lstat()
    except OSError:
        return "missing"
    digest = hashlib.sha256()
    for name, info in [(".", top), *(listed(entry) if stat.S_ISDIR(top.st_mode) else [])]:
        digest.update(os.fsencode(name) + f"\0{stat.S_IFMT(info.st_mode)} {info.st_size} {info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def read_in_turn(entry: Path, labs: list[str], key: dict, limits: Limits = Limits()) -> Reading:
    """The submission at `entry`, read in a process of its own under `limits`; each way it can fail is the
    student's (unreadable) or the grader's (failed), in one line."""
    taken = stamp(entry)  # before reading: a submission changed while it is read reads as changed
    command = [sys.executable, "-m", "grader.cohort.reading", str(limits.memory_bytes), str(limits.cpu_s)]
    ran = proc.run([*command, str(entry), *labs], limits.wall_s, cwd=REPO_ROOT, output_limit=OUTPUT_BYTES)
    reading = Reading(taken, key=key)
    if ran.timed_out:
        reading.unreadable = f"reading it took longer than {limits.wall_s:g} s: refused unread"
    elif ran.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        reading.unreadable = f"reading it took more than {limits.cpu_s} s of CPU time: refused unread"
    elif ran.returncode != 0:
        reading.failed = f"the grader could not read it ({ran.how_it_ended()}): {ran.tail(3)}"
    else:
        try:
            said = json.loads(ran.stdout)
            reading.kernels = {str(lab): str(digest) for lab, digest in said.get("kernels", {}).items()}
            reading.unreadable = proc.bounded(str(said["unreadable"])) if said.get("unreadable") else None
        except (ValueError, AttributeError) as error:
            reading.failed = f"the grader could not read it: its reading process said no JSON ({error})"
    return reading


def record_path(out: Path, student: str) -> Path:
    return out / "students" / student / RECORD


def write_record(out: Path, student: str, reading: Reading) -> None:
    atomic.write_text(record_path(out, student), json.dumps(asdict(reading), indent=2) + "\n")


def load_record(out: Path, student: str) -> Reading | None:
    """The student's record as the batch wrote it; None where there is none, or it cannot be read as one."""
    try:
        data = json.loads(record_path(out, student).read_text())
        return Reading(
            stamp=str(data["stamp"]),
            kernels={str(lab): str(digest) for lab, digest in data.get("kernels", {}).items()},
            unreadable=data.get("unreadable"),
            failed=data.get("failed"),
            key=data.get("key") or {},
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def confine(limits: Limits) -> None:
    """The reading process's own limits, set before it reads a byte: memory (an allocation past it fails), CPU
    time (past it, SIGXCPU ends the process)."""
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))


def main(argv: list[str]) -> int:
    """The reading process: python -m grader.cohort.reading MEMORY_BYTES CPU_S ENTRY LAB..."""
    limits = Limits(int(argv[0]), int(argv[1]))
    entry, labs = Path(argv[2]), argv[3:]
    confine(limits)
    try:
        submission = read_submission(entry, labs)
        answer: dict = {"kernels": {lab: submission.digest(lab) for lab in submission.kernels}}
    except SubmissionError as error:
        answer = {"unreadable": proc.bounded(str(error))}
    except MemoryError:
        answer = {"unreadable": f"reading it needs more than {limits.memory_bytes >> 20} MiB of memory: refused unread"}
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
