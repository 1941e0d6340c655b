"""Merging a batch's per-lab results into one report per student and one row per student (CSV and JSON)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from grader.config import Config
from grader.export import write_exports


def student_run(folder: Path, student: str) -> dict:
    """The student's labs, each from its own grader process, as one run (the shape of report.write_json)."""
    parts = [json.loads(p.read_text()) for p in sorted(folder.glob("[0-9][0-9]_*.json"))]
    errors = {p.name.removesuffix(".error"): p.read_text().strip() for p in sorted(folder.glob("*.error"))}
    shared = {k: v for k, v in (parts[0] if parts else {}).items() if k not in ("labs", "files_used", "kernel_sha256")}
    labs = [lab for part in parts for lab in part["labs"]]
    graded = {lab["lab"] for lab in labs}
    files_used = {k: v for part in parts for k, v in (part.get("files_used") or {}).items() if k in graded}
    return {**shared, "student": student, "labs": labs, "files_used": files_used, "grader_errors": errors,
            "score": sum(lab["points"] for lab in labs)}


def missing_lab_cell(lab: str, run: dict, submitted: list[str]) -> str:
    """The cell of a lab with no result: the grader failed on it, it is still to grade, or there is no kernel.cu."""
    if lab in run["grader_errors"]:
        return "grader error"
    return "not graded yet" if lab in submitted else "not submitted"


def collect(out: Path, config: Config, plan: dict) -> list[dict]:
    """Writes students/<name>/{grade.json, results.json, junit.xml, report.html}, results.csv and results.json.
    Every student of the plan gets a row; a lab with no kernel.cu in the submission scores 0, "not submitted";
    one a time-boxed batch did not reach yet reads "not graded yet"."""
    labs = [config.lab(name) for name in plan["labs"]]
    max_score = sum(sum(lab.points.values()) for lab in labs)
    rows = []
    for student in plan["students"]:
        row = {"student": student, "score": 0.0, "max_score": max_score}
        if student in plan["unreadable"]:
            rows.append({**row, "notes": f"unreadable submission: {plan['unreadable'][student]}"})
            continue
        folder = out / "students" / student
        folder.mkdir(parents=True, exist_ok=True)
        run = {**student_run(folder, student), "max_score": max_score}
        (folder / "grade.json").write_text(json.dumps(run, indent=2) + "\n")
        write_exports(run, gradescope=folder / "results.json", junit=folder / "junit.xml", html=folder / "report.html")
        row["score"] = round(run["score"], 1)
        for lab in labs:
            graded = next((entry for entry in run["labs"] if entry["lab"] == lab.name), None)
            if graded:
                row[lab.name] = f"{graded['points']:.1f} {graded['verdict']}"
            else:
                row[lab.name] = missing_lab_cell(lab.name, run, plan.get("submitted", {}).get(student, []))
        row["notes"] = "; ".join(f"{lab}: {why}" for lab, why in run["grader_errors"].items())
        rows.append(row)
    columns = ["student", "score", "max_score", *[lab.name for lab in labs], "notes"]
    with (out / "results.csv").open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=columns, restval="")
        writer.writeheader()
        writer.writerows(rows)
    (out / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
    return rows
