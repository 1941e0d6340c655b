"""What a batch knows of a class beyond its code: the roster (each submission's student id, email and name),
when each submission came in, and the due date and late policy. Written by batch and slurm to OUT/class.json,
read by collect, which puts them into each student's results and row.

A roster is a CSV file with a header: `student` (the submission's name in the folder: the folder, or the
archive without its suffix) and any of `sid`, `email`, `name` and `submitted_at` (ISO 8601). A submission's
time is the roster's `submitted_at` where given (from the course's own records), else the time the
submission was last changed on this disk (a folder: its newest file). The times inside an archive are the
student's to set, so they are never used."""

from __future__ import annotations

import csv
import json
import stat
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from grader.cohort import late, reading
from grader.core import atomic

COLUMNS = ("sid", "email", "name", "submitted_at")
CLASS_FILE = "class.json"


@dataclass
class ClassInfo:
    roster: dict[str, dict[str, str]] = field(default_factory=dict)  # student -> {sid, email, name}
    submitted_at: dict[str, str] = field(default_factory=dict)  # student -> ISO time
    due: str | None = None
    policy: late.LatePolicy | None = None

    def annotate(self, run: dict, student: str) -> dict:
        """The student's run with their roster entry, submission time and lateness."""
        entry = self.roster.get(student, {})
        run.update({column: entry[column] for column in ("sid", "email", "name") if entry.get(column)})
        when = self.submitted_at.get(student)
        return late.apply(
            run, late.parse_time(when) if when else None, late.parse_time(self.due) if self.due else None, self.policy
        )


def read_roster(path: Path) -> dict[str, dict[str, str]]:
    """student -> {sid, email, name, submitted_at}: the columns the file has. Raises ValueError when it has no
    `student` column, names a student twice, or has a time that is not ISO 8601."""
    with path.open(newline="", encoding="utf-8-sig") as file:
        reader = csv.DictReader(file)
        header = {name.strip().lower(): name for name in reader.fieldnames or []}
        if "student" not in header:
            raise ValueError(f"{path}: no 'student' column (the submission's name); columns: {list(header)}")
        roster: dict[str, dict[str, str]] = {}
        for line, row in enumerate(reader, start=2):
            student = (row[header["student"]] or "").strip()
            if not student:
                continue
            if student in roster:
                raise ValueError(f"{path}:{line}: {student} is listed twice")
            entry = {column: (row[header[column]] or "").strip() for column in COLUMNS if column in header}
            if entry.get("submitted_at"):
                late.parse_time(entry["submitted_at"])  # raises ValueError with the text
            roster[student] = {k: v for k, v in entry.items() if v}
    return roster


def changed_at(entry: Path) -> datetime:
    """When a submission was last changed on this disk: an archive's own time, or a folder's newest file's (of
    the files reading.listed() lists: a folder of millions is not walked whole before anyone is graded)."""
    times = [entry.lstat().st_mtime]
    if entry.is_dir():
        times += [info.st_mtime for _, info in reading.listed(entry) if stat.S_ISREG(info.st_mode)]
    return datetime.fromtimestamp(max(times), tz=UTC)


def gather(
    entries: dict[str, Path], roster_path: Path | None, due: str | None, policy: late.LatePolicy | None
) -> ClassInfo:
    """The class facts of a batch: entries is student -> their submission."""
    roster = read_roster(roster_path) if roster_path else {}
    times = {
        student: roster.get(student, {}).get("submitted_at") or changed_at(entry).isoformat()
        for student, entry in entries.items()
    }
    if due:
        late.parse_time(due)
    return ClassInfo(
        {s: {k: v for k, v in e.items() if k != "submitted_at"} for s, e in roster.items()}, times, due, policy
    )


def write(out: Path, info: ClassInfo) -> None:
    record = {**asdict(info), "policy": asdict(info.policy) if info.policy else None}
    atomic.write_text(out / CLASS_FILE, json.dumps(record, indent=2) + "\n")


def read(out: Path) -> ClassInfo:
    """OUT/class.json; an empty ClassInfo where a batch wrote none (one from before it existed)."""
    path = out / CLASS_FILE
    if not path.exists():
        return ClassInfo()
    record = json.loads(path.read_text())
    policy = late.LatePolicy(**record["policy"]) if record.get("policy") else None
    return ClassInfo(record.get("roster", {}), record.get("submitted_at", {}), record.get("due"), policy)
