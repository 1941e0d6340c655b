"""Merging a batch's per-lab results into one report per student and one row per student (CSV and JSON)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

from grader.cohort import current, reading, roster
from grader.cohort.plan import entry_of, name_problem, shown
from grader.core import atomic
from grader.core.config import Config
from grader.core.recorded import GradeFileError, RecordedRun, load_grade, read_grade
from grader.reporting import causes, report
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
    """rows as a CSV file with a header, every text cell made safe for a spreadsheet; written whole or not at all."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=columns, restval="")
    writer.writeheader()
    writer.writerows({column: spreadsheet_cell(value) for column, value in row.items()} for row in rows)
    atomic.write_text(path, text.getvalue())


def student_run(parts: list[RecordedRun], errors: dict[str, str], student: str) -> dict:
    """The student's labs, each from its own result file (cut by batch.lab_run from the JSON of the process that
    graded it), as one run (the shape of report.write_json); `errors`: lab -> why the grader could not grade it."""
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


@dataclass
class Standing:
    """What a student's row can say now: their run (the labs whose results grade the submission as it is now),
    the labs they submitted, and why any submitted lab has no result yet."""

    run: dict
    submitted: list[str]
    pending: str = ""  # why some submitted labs read "not graded yet"


def not_current(plan: dict, student: str, record: reading.Reading | None) -> str:
    """Why the student's record does not say what the submission is now ('' where it does): never read, read by
    a batch with another grader or other options, or changed (or gone) since it was read."""
    if record is None:
        return "not graded yet: the batch has not reached this submission"
    if record.key != plan.get("graded_with"):
        return "not graded yet with this batch's grader and options"
    entry = entry_of(plan, student)
    if entry is None or reading.stamp(entry) != record.stamp:
        return "not graded yet: the submission changed (or is gone) since it was graded"
    return ""


def current_results(folder: Path, plan: dict, record: reading.Reading) -> tuple[list[RecordedRun], dict[str, str]]:
    """The results that grade each submitted lab's kernel.cu as it is now, and the grader's errors on the labs
    that have none; a result of an earlier kernel.cu, grader or option is left out."""
    parts, errors = [], {}
    for lab in plan["labs"]:
        digest = record.kernels.get(lab)
        if digest is None:
            continue
        try:
            result = load_grade(folder / f"{lab}.json")
        except GradeFileError:
            result = None
        if result is not None and current.is_current(
            result, lab, digest, plan.get("graded_with") or {}, plan.get("devices")
        ):
            parts.append(result)
        elif (folder / f"{lab}.error").is_file():
            errors[lab] = (folder / f"{lab}.error").read_text(errors="replace").strip()
    return parts, errors


def standing(out: Path, plan: dict, student: str, max_score: float) -> Standing:
    """The student's run as collect writes it, from their record and results (never a result of another kernel.cu
    than the one submitted now: where that is not known yet, every lab is "not graded yet")."""
    folder = out / "students" / student
    shared = plan.get("shared", {}).get(student)
    if shared:
        context = {"student": student, "grader_errors": {}, "refused": shared}
        return Standing(report.ungraded_run(context, max_score, shared), [])
    record = reading.load_record(out, student)
    why = not_current(plan, student, record)
    if why or record is None:
        context = {"student": student, "grader_errors": {}, "notes": [why]}
        return Standing({**context, "labs": [], "score": 0.0, "max_score": max_score}, plan["labs"], why)
    if record.unreadable:
        context = {"student": student, "grader_errors": {}, "unreadable": record.unreadable}
        return Standing(report.ungraded_run(context, max_score, f"unreadable submission: {record.unreadable}"), [])
    submitted = [lab for lab in plan["labs"] if lab in record.kernels]
    if record.failed:
        context = {"student": student, "grader_errors": {lab: record.failed for lab in plan["labs"]}}
        return Standing({**context, "labs": [], "score": 0.0, "max_score": max_score}, plan["labs"])
    parts, errors = current_results(folder, plan, record)
    run = {**student_run(parts, errors, student), "max_score": max_score}
    done = {lab.lab for part in parts for lab in part.labs} | set(errors)
    waiting = [lab for lab in submitted if lab not in done]
    why = f"not graded yet: {', '.join(waiting)}" if waiting else ""
    if why:
        run["notes"] = [*run.get("notes", []), why]
    return Standing(run, submitted, why)


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


def cause_column(lab: str) -> str:
    return f"{lab}_cause"


def lab_columns(labs: list) -> list[str]:
    """Three cells per lab, the points alone in theirs so that a spreadsheet sums them: its points, its verdict or
    why it has none, and the failure to mend first with the file:line it points to (grader/reporting/causes.py)."""
    return [
        column for lab in labs for column in (points_column(lab.name), verdict_column(lab.name), cause_column(lab.name))
    ]


def lab_cells(lab: str, points: float | str, verdict: str, cause: str = "") -> dict:
    return {points_column(lab): points, verdict_column(lab): verdict, cause_column(lab): cause}


def lab_cell(row: dict, lab: str) -> str:
    """A lab's two cells of a row as a person reads them on the terminal: '70.0 incomplete', 'not submitted'."""
    points, verdict = row.get(points_column(lab), ""), row.get(verdict_column(lab), "")
    return f"{points:.1f} {verdict}" if isinstance(points, float) and verdict not in MISSING else str(verdict)


def student_row(run: RecordedRun, labs: list, submitted: list[str], pending: str = "") -> dict:
    """One line of results.csv: the score, two cells per lab (lab_columns), and why anything could not be graded.
    A lab with no result has the points it earns, 0, except one still to grade, whose cell stays empty."""
    row = {"student": run.student, "score": round(run.score, 1), "max_score": run.max_score}
    for lab in labs:
        graded = next((entry for entry in run.labs if entry.lab == lab.name), None)
        if graded:
            first = causes.cause(graded.checks)
            cause = causes.summary(first) if first else ""
            row.update(lab_cells(lab.name, round(graded.points, 1), graded.verdict, cause))
        else:
            missing = missing_lab_cell(lab.name, run, submitted)
            row.update(lab_cells(lab.name, "" if missing == NOT_GRADED_YET else 0.0, missing))
    problems = [f"unreadable submission: {run.unreadable}"] if run.unreadable else []
    problems += [run.refused] if run.refused else []
    problems += [f"{lab}: {why}" for lab, why in run.grader_errors.items()]
    row["notes"] = "; ".join(problems + ([pending] if pending else []))
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
        problem = name_problem(student)  # a plan written before names were checked may hold one
        if problem:
            refused[shown(student)] = f"{problem}; rename it"
            continue
        folder = out / "students" / student
        now = standing(out, plan, student, max_score)
        run = info.annotate(now.run, student)
        report.save_run(folder / "grade.json", run)
        recorded = read_grade(run, str(folder / "grade.json"))
        write_exports(
            recorded, gradescope=folder / "results.json", junit=folder / "junit.xml", html=folder / "report.html"
        )
        rows.append({**student_row(recorded, labs, now.submitted, now.pending), **class_cells(recorded, info)})
    rows += [refused_row(entry, why, labs, max_score) for entry, why in refused.items()]
    columns = ["student", "score", "max_score", *lab_columns(labs), "notes", "submitted_at", "days_late"]
    columns += [column for column in ("sid", "email", "name") if info.roster]
    write_csv(out / "results.csv", columns, rows)
    atomic.write_text(out / "results.json", json.dumps(rows, indent=2) + "\n")
    return rows
