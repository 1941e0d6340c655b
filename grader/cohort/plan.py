"""What a batch grades: one student per entry of the submissions folder, known by the entry's name alone. Nothing
of a submission is read here: each is read in its student's own turn (reading.py), so that no submission can
cost the class its plan. OUT/plan.json records the plan for collect: the labs, the students, the names refused
and why, where each submission is, and what a result must have been graded with to count (current.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from grader.core import atomic
from grader.core.config import Lab

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".tar", ".zip")
PLAN_FILE = "plan.json"


def student_name(entry: Path) -> str:
    name = entry.name
    for suffix in ARCHIVE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def name_problem(student: str) -> str | None:
    """Why a student's name cannot name their results folder (OUT/students/<name>/), or None where it can."""
    if student in ("", ".", ".."):
        return f"its name, {student!r} without the archive's suffix, is no folder name"
    if "/" in student or "\\" in student:
        return "its name has a path separator"
    if not all(character.isprintable() for character in student):
        return "its name has a control character"
    return None


def shown(name: str) -> str:
    """A file's name as it can be printed: its control characters written as \\xNN."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in name)


def submissions_in(folder: Path) -> list[Path]:
    """Each folder and archive directly in `folder` is one student's submission."""
    return sorted(p for p in folder.iterdir() if p.is_dir() or p.name.endswith(ARCHIVE_SUFFIXES))


@dataclass
class Plan:
    entries: dict[str, Path]  # student -> their submission, for every name that is one student's
    shared: dict[str, str]  # student -> why: two submissions have the name, and neither is graded
    refused: dict[str, str]  # an entry's name, as shown() -> why it is no student's name

    @property
    def students(self) -> list[str]:
        """Every student with a row: each to grade, and each name two submissions share."""
        return sorted([*self.entries, *self.shared])


def plan(folder: Path) -> Plan:
    """The submissions in `folder`, by name: student -> their entry, for every name that is one student's; a name
    two entries share (bob/ and bob.zip), of which none is graded, since which one is the student's is for the
    instructor to say; an entry whose name cannot be a student's."""
    named: dict[str, list[Path]] = {}
    refused = {}
    for entry in submissions_in(folder):
        problem = name_problem(student_name(entry))
        if problem:
            refused[shown(entry.name)] = f"{problem}; rename it"
        else:
            named.setdefault(student_name(entry), []).append(entry)
    shared = {
        student: f"{len(found)} submissions have this name ({', '.join(shown(e.name) for e in found)}): "
        "none is graded; remove or rename all but one"
        for student, found in named.items()
        if len(found) > 1
    }
    unique = {student: found[0] for student, found in named.items() if len(found) == 1}
    return Plan(unique, shared, refused)


def write_plan(folder: Path, labs: list[Lab], out: Path, key: dict, devices: list[str | None] | None) -> Plan:
    """Plans the batch and writes OUT/plan.json, what collect reads: the labs, the students and the names refused
    (with why), where each submission is, and what a result must have been graded with (`key`) and on which
    devices (None: any, each Slurm array task on its own) to count."""
    planned = plan(folder)
    record = {
        "labs": [lab.name for lab in labs],
        "students": planned.students,
        "shared": planned.shared,
        "refused": planned.refused,
        "folder": str(folder.resolve()),
        "entries": {student: entry.name for student, entry in planned.entries.items()},
        "graded_with": key,
        "devices": devices,
    }
    atomic.write_text(out / PLAN_FILE, json.dumps(record, indent=2) + "\n")
    return planned


def read_plan(out: Path) -> dict | None:
    """The plan write_plan wrote; None where OUT holds no batch."""
    path = out / PLAN_FILE
    return json.loads(path.read_text()) if path.exists() else None


def entry_of(plan: dict, student: str) -> Path | None:
    """Where the student's submission is, as the plan found it; None for a name the plan grades no entry of."""
    name = plan.get("entries", {}).get(student)
    return Path(plan["folder"]) / name if name and plan.get("folder") else None


def share(students: list[str], index: int, count: int) -> list[str]:
    """Every count-th student from the index-th: a Slurm array task's share of the class."""
    return students[index::count]
