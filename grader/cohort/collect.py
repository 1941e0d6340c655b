"""Merging a batch's per-lab results into one report per student and one row per student (CSV and JSON)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from grader.cohort import batch, roster
from grader.core.config import Config
from grader.core.recorded import RecordedRun, load_grade, read_grade
from grader.reporting import report
from grader.reporting.export import write_exports

# A cell starting with one of these is a formula to a spreadsheet (=, +, -, @), or becomes one once the
# spreadsheet drops the leading tab or carriage return: OWASP's list for CSV injection.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NOT_GRADED_YET = "not graded yet"  # a submitted lab whose task has not run or not ended
# What a lab's verdict cell says where it has no result (missing_lab_cell).
MISSING = ("refused", "unreadable", "grader error", NOT_GRADED_YET, "not submitted")


def spreadsheet_cell(value):
    """A CSV cell that a spreadsheet shows as the text it is: text that would start a formula gets a leading '
    (OWASP's advice on CSV injection); numbers stay numbers. Names, notes and roster columns are the students'
    or the roster's text, never the grader's."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def write_csv(path: Path, columns: list[str], rows: list[dict]) -> None:
    """rows as a CSV file with a header, every text cell made safe for a spreadsheet."""
    with path.open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=columns, restval="")
        writer.writeheader()
        writer.writerows({column: spreadsheet_cell(value) for column, value in row.items()} for row in rows)


def student_run(folder: Path, student: str) -> dict:
    """The student's labs, each from its own result file (cut by batch.lab_run from the JSON of the process that
    graded it), as one run (the shape of report.write_json)."""
    parts = [load_grade(p) for p in sorted(folder.glob("[0-9][0-9]_*.json"))]
    errors = {p.name.removesuffix(".error"): p.read_text().strip() for p in sorted(folder.glob("*.error"))}
    first = parts[0].source if parts else {}
    shared = {k: v for k, v in first.items() if k not in ("labs", "files_used", "kernel_sha256")}
    labs = [lab for part in parts for lab in part.labs]
    graded = {lab.lab for lab in labs}
    files_used = {k: v for part in parts for k, v in (part.source.get("files_used") or {}).items() if k in graded}
    return {
        **shared,
        "student": student,
        "labs": [lab.source for lab in labs],
        "files_used": files_used,
        "grader_errors": errors,
        "score": sum(lab.points for lab in labs),
    }


def missing_lab_cell(lab: str, run: RecordedRun, submitted: list[str]) -> str:
    """The cell of a lab with no result: the submission was refused or cannot be read, the grader failed on it, it
    is still to grade, or there is no kernel.cu."""
    if run.refused:
        return "refused"
    if run.unreadable:
        return "unreadable"
    if lab in run.grader_errors:
        return "grader error"
    return NOT_GRADED_YET if lab in submitted else "not submitted"


def points_column(lab: str) -> str:
    return f"{lab}_points"


def verdict_column(lab: str) -> str:
    return f"{lab}_verdict"


def lab_columns(labs: list) -> list[str]:
    """Two cells per lab, so that a spreadsheet sums the points: its points, and its verdict or why it has none."""
    return [column for lab in labs for column in (points_column(lab.name), verdict_column(lab.name))]


def lab_cells(lab: str, points: float | str, verdict: str) -> dict:
    return {points_column(lab): points, verdict_column(lab): verdict}


def lab_cell(row: dict, lab: str) -> str:
    """A lab's two cells of a row as a person reads them on the terminal: '70.0 incomplete', 'not submitted'."""
    points, verdict = row.get(points_column(lab), ""), row.get(verdict_column(lab), "")
    return f"{points:.1f} {verdict}" if isinstance(points, float) and verdict not in MISSING else str(verdict)


def student_row(run: RecordedRun, labs: list, submitted: list[str]) -> dict:
    """One line of results.csv: the score, two cells per lab (lab_columns), and why anything could not be graded.
    A lab with no result has the points it earns, 0, except one still to grade, whose cell stays empty."""
    row = {"student": run.student, "score": round(run.score, 1), "max_score": run.max_score}
    for lab in labs:
        graded = next((entry for entry in run.labs if entry.lab == lab.name), None)
        if graded:
            row.update(lab_cells(lab.name, round(graded.points, 1), graded.verdict))
        else:
            missing = missing_lab_cell(lab.name, run, submitted)
            row.update(lab_cells(lab.name, "" if missing == NOT_GRADED_YET else 0.0, missing))
    problems = [f"unreadable submission: {run.unreadable}"] if run.unreadable else []
    problems += [run.refused] if run.refused else []
    row["notes"] = "; ".join(problems + [f"{lab}: {why}" for lab, why in run.grader_errors.items()])
    return row


def class_cells(run: RecordedRun, info: roster.ClassInfo) -> dict:
    """The row's cells from the roster and the submission time (the score in the row is after any penalty)."""
    cells = {"submitted_at": run.submitted_at or "", "days_late": (run.late or {}).get("days", 0)}
    return {**cells, **{column: getattr(run, column) or "" for column in ("sid", "email", "name") if info.roster}}


def unfinished(rows: list[dict], labs: list) -> list[str]:
    """'student lab' of every submitted lab with no result yet: its task has not run or not ended."""
    return [
        f"{row['student']} {lab.name}"
        for row in rows
        for lab in labs
        if row.get(verdict_column(lab.name)) == NOT_GRADED_YET
    ]


def refused_row(entry: str, why: str, labs: list, max_score: float) -> dict:
    """The row of a folder entry whose name is no student's (batch.name_problem): it has no results folder."""
    return {
        "student": entry,
        "score": 0.0,
        "max_score": max_score,
        **{column: cell for lab in labs for column, cell in lab_cells(lab.name, 0.0, "refused").items()},
        "notes": why,
    }


def collect(out: Path, config: Config, plan: dict) -> list[dict]:
    """Writes students/<name>/{grade.json, results.json, junit.xml, report.html}, results.csv and results.json.
    Every student of the plan gets a row; a lab with no kernel.cu in the submission scores 0, "not submitted";
    one a time-boxed batch did not reach yet reads "not graded yet". A name two submissions share is refused, as
    is an entry whose name cannot be a student's: each gets a row that says why, and nothing is graded."""
    labs = [config.lab(name) for name in plan["labs"]]
    max_score = sum(lab.max_points for lab in labs)
    info = roster.read(out)  # ids, emails, submission times and the late policy, where the batch was given them
    rows = []
    refused = dict(plan.get("refused", {}))
    for student in plan["students"]:
        problem = batch.name_problem(student)  # a plan written before names were checked may hold one
        if problem:
            refused[batch.shown(student)] = f"{problem}; rename it"
            continue
        folder = out / "students" / student
        folder.mkdir(parents=True, exist_ok=True)
        unreadable, shared = plan["unreadable"].get(student), plan.get("shared", {}).get(student)
        # Reports all the same for a submission not graded: the student sees why on the platform.
        if shared:
            run = report.ungraded_run({"student": student, "grader_errors": {}, "refused": shared}, max_score, shared)
        elif unreadable:
            context = {"student": student, "grader_errors": {}, "unreadable": unreadable}
            run = report.ungraded_run(context, max_score, f"unreadable submission: {unreadable}")
        else:
            run = {**student_run(folder, student), "max_score": max_score}
        run = info.annotate(run, student)
        report.save_run(folder / "grade.json", run)
        recorded = read_grade(run, str(folder / "grade.json"))
        write_exports(
            recorded, gradescope=folder / "results.json", junit=folder / "junit.xml", html=folder / "report.html"
        )
        submitted = plan.get("submitted", {}).get(student, [])
        rows.append({**student_row(recorded, labs, submitted), **class_cells(recorded, info)})
    rows += [refused_row(entry, why, labs, max_score) for entry, why in refused.items()]
    columns = ["student", "score", "max_score", *lab_columns(labs), "notes", "submitted_at", "days_late"]
    columns += [column for column in ("sid", "email", "name") if info.roster]
    write_csv(out / "results.csv", columns, rows)
    (out / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
    return rows
