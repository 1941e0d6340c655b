"""GitHub Classroom: the workflow a student's repository grades its pushes with (./cml classroom writes it from
templates/classroom.yml), and the step that shows a JUnit file's checks as annotations and a job summary
(./cml classroom-annotate, through GitHub's workflow commands)."""

from __future__ import annotations

from pathlib import Path

from junitparser import Failure, JUnitXml, Skipped
from rich.console import Console

from grader.core.config import load_config
from grader.core.exits import Exit, UsageError
from grader.grading.session import select_labs

TEMPLATE = Path(__file__).resolve().parent / "templates" / "classroom.yml"
WORKFLOW = Path(".github") / "workflows" / "cml-grade.yml"
LINT_SETTINGS = TEMPLATE.with_name("actionlint.yaml")


def add_command(commands) -> None:
    make = commands.add_parser(
        "classroom",
        help="write the GitHub Classroom workflow for students' repositories",
        description=f"Write OUT/{WORKFLOW}: put it in the assignment's template repository. Each push is graded "
        "by the grader of GRADER_REPO at REF (its tests and thresholds, never the student's copies): on a "
        "hosted runner with the CPU emulator, and for speed on a self-hosted runner labelled 'gpu'.",
    )
    make.add_argument("--out", type=Path, required=True, help="the template repository's folder")
    make.add_argument("--grader-repo", required=True, metavar="OWNER/NAME", help="the repository the grader comes from")
    make.add_argument(
        "--grader-ref",
        required=True,
        metavar="REF",
        help="its tag or commit: fixed for the course, so the grade cannot move under a class",
    )
    make.add_argument("--lab", action="append", metavar="N", help="grade only this lab (repeatable; default: all)")
    annotate = commands.add_parser("classroom-annotate", help="(in the workflow) a JUnit file's checks as annotations")
    annotate.add_argument("junit", type=Path)
    annotate.add_argument("--summary", type=Path, help="also append a Markdown table here ($GITHUB_STEP_SUMMARY)")


def workflow_text(grader_repo: str, grader_ref: str, labs: list[str]) -> str:
    lab_args = " ".join(f"--lab {lab}" for lab in labs)
    text = TEMPLATE.read_text()
    for token, value in (("@GRADER_REPO@", grader_repo), ("@GRADER_REF@", grader_ref), ("@LABS@", lab_args)):
        text = text.replace(token, value)
    return text


def command(args, console: Console) -> int:
    if args.grader_repo.count("/") != 1:
        raise UsageError(f"--grader-repo {args.grader_repo}: give OWNER/NAME")
    labs = [lab.name for lab in select_labs(load_config(), args.lab)] if args.lab else []
    path = args.out / WORKFLOW
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(workflow_text(args.grader_repo, args.grader_ref, labs))
    (args.out / ".github" / "actionlint.yaml").write_text(LINT_SETTINGS.read_text())  # the runner's label
    console.print(
        f"Wrote {path}. The gpu job needs a self-hosted runner labelled 'gpu' with the CUDA toolkit; "
        "a private grader repository needs a CML_GRADER_TOKEN secret that can read it."
    )
    return Exit.PASSED


def _escape(text: str, property_value: bool = False) -> str:
    """GitHub's escaping of a workflow command's message (and, more strictly, of its properties)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if property_value else text


def workflow_commands(junit: Path) -> tuple[list[str], list[str]]:
    """(workflow commands, Markdown table rows): an error per failed check, a warning per check that did not
    run or was withheld, a notice per passed one."""
    commands, rows = [], []
    for suite in JUnitXml.fromfile(str(junit)):
        for case in suite:
            results = case.result
            failed = next((r for r in results if isinstance(r, Failure)), None)
            skipped = next((r for r in results if isinstance(r, Skipped)), None)
            level, status = (
                ("error", "failed") if failed else ("warning", "not passed") if skipped else ("notice", "passed")
            )
            said = failed or skipped
            message = (said.text or said.message or "") if said else (case.system_out or "")
            title = f"{suite.name}: {case.name}"
            commands.append(f"::{level} title={_escape(title, True)}::{_escape(message.strip() or status)}")
            first = (said.message or "").splitlines()[0] if said and said.message else ""
            rows.append(f"| {suite.name} | {case.name} | {status} | {first.replace('|', '/')} |")
    return commands, rows


def command_annotate(args, console: Console) -> int:
    if not args.junit.is_file():
        raise UsageError(f"{args.junit}: no JUnit file (the grade step wrote none: see its output)")
    commands, rows = workflow_commands(args.junit)
    for line in commands:
        print(line, flush=True)  # not through rich: GitHub reads these lines as they are
    if args.summary:
        table = ["| lab | check | result | why |", "|---|---|---|---|", *rows]
        with args.summary.open("a") as summary:
            summary.write("\n".join(["## cuda-memory-labs", "", *table, ""]) + "\n")
    return Exit.PASSED


COMMANDS = {"classroom": command, "classroom-annotate": command_annotate}
