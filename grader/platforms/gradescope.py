"""Gradescope: the autograder zip (./cml gradescope), what its two scripts call (gradescope-prepare in setup.sh,
gradescope-results in run_autograder), and the speed points of a GPU batch as a CSV for Gradescope's score
upload (written by ./cml collect).

An assignment names its labs once, when its zip is made (--lab, or --all-labs): they are written into the zip's
autograder.json, run_autograder grades those labs alone, and each submission's score is out of their points,
never out of a lab the assignment does not hold.

Gradescope's containers have no GPU: there the tests, sanitizers and counters run on the CPU emulator, and the
speed checks are "graded on a GPU, not here" (grader/reporting/export/gradescope.py says how they look). The
instructor grades the class again on a GPU after the due date (./cml batch or ./cml slurm with --roster), and
uploads OUT/gradescope-speed.csv to the assignment that holds the speed points."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import tarfile
import zipfile
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from grader.cohort import late
from grader.cohort.collect import spreadsheet_cell
from grader.cohort.plan import name_problem
from grader.core import atomic
from grader.core.config import REPO_ROOT, Lab, load_config
from grader.core.exits import Exit, GraderError, UsageError
from grader.core.model import Category
from grader.core.recorded import GradeFileError, RecordedRun, load_grade, read_grade
from grader.execution import gpu
from grader.grading.session import choose_arch, select_labs
from grader.reporting.export.gradescope import VISIBILITIES, write_gradescope
from grader.steps import build

TEMPLATES = Path(__file__).resolve().parent / "templates"
# What the autograder needs of the checkout: the grader, the harness, the labs' tests and both variants (the
# build configures the reference solutions too; the zip is the instructor's, never the students').
SOURCES = (
    "cml",
    "meson.build",
    "meson.options",
    "pyproject.toml",
    "SECURITY.md",  # what the sandbox guards against, which the grader's messages cite
    "tools/bootstrap.sh",
    "tools/install-system.sh",
    "grader",
    "common",
    "tests",
    "labs",
    "solutions",
    "variants",  # the calibration's kernels (./cml calibrate)
)
LEFT_OUT = ("grader/tests",)
# The skeletons go into the zip as committed, never as the working tree has them: a checkout where someone
# worked a lab through would otherwise ship the finished kernel.cu to every student's grade.
SKELETONS = "labs"
SETTINGS = "autograder.json"
SIZES = "instructor-sizes.toml"
SPEED_CSV = "gradescope-speed.csv"
SPEED_COLUMNS = ("Name", "SID", "Email", "Score")


def add_command(commands) -> None:
    make = commands.add_parser(
        "gradescope",
        help="write a Gradescope autograder zip",
        description="Write a Gradescope autograder zip (setup.sh, run_autograder and the grader) that grades "
        "/autograder/submission: the labs the assignment holds, named once here, and each submission out of their "
        "points. Gradescope has no GPU: correctness, sanitizers and counters are graded on the CPU emulator, and "
        "speed is 'graded on a GPU, not here', no test and worth 0 there. Grade the class on a GPU later "
        "(./cml batch --roster) and upload OUT/gradescope-speed.csv for the speed points. The due date comes "
        "from Gradescope; the late policy, if any, from the options here.",
    )
    make.add_argument("--out", type=Path, default=Path("autograder.zip"), help="zip to write (default autograder.zip)")
    holds = make.add_mutually_exclusive_group(required=True)
    holds.add_argument(
        "--lab", action="append", metavar="N", help="a lab this assignment holds (repeatable): scores are out of these"
    )
    holds.add_argument("--all-labs", action="store_true", help="the assignment holds every lab")
    make.add_argument("--instructor-sizes", type=Path, metavar="TOML", help="extra sizes per lab (see grade --help)")
    make.add_argument(
        "--late-penalty",
        type=float,
        metavar="PERCENT",
        help="percent of the score taken off per started day after Gradescope's due date",
    )
    make.add_argument("--late-limit", type=float, metavar="DAYS", help="more days late than this scores 0")
    make.add_argument(
        "--visibility",
        choices=VISIBILITIES,
        default="visible",
        help="when students see the tests (Gradescope's visibility; default visible)",
    )
    prepare = commands.add_parser("gradescope-prepare", help="(setup.sh) build the grader's own parts ahead")
    prepare.add_argument("--lab", action="append", metavar="N")
    results = commands.add_parser("gradescope-results", help="(run_autograder) results.json from a grade's JSON")
    results.add_argument("--grade", type=Path, required=True, help="the JSON ./cml grade wrote")
    results.add_argument("--metadata", type=Path, help="Gradescope's submission_metadata.json")
    results.add_argument("--settings", type=Path, help=f"the zip's {SETTINGS}")
    results.add_argument("--out", type=Path, required=True, help="results.json to write")


def committed_skeletons(root: Path = REPO_ROOT) -> dict[str, tuple[bytes, bool]] | None:
    """labs/ as committed at HEAD: path -> (its bytes, whether it is executable); None where root is no git
    checkout (or git is missing)."""
    try:
        archive = subprocess.run(
            ["git", "archive", "--format=tar", "HEAD", "--", SKELETONS], cwd=root, capture_output=True, check=False
        )
    except OSError:
        return None
    if archive.returncode != 0:
        return None
    files = {}
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        for member in tar.getmembers():
            data = tar.extractfile(member) if member.isfile() else None
            if data is not None:
                files[member.name] = (data.read(), bool(member.mode & 0o111))
    return files


def skeleton_warning(root: Path = REPO_ROOT) -> str | None:
    """What the instructor must know about the skeletons the zip ships: the working tree's labs/ that differ
    from the committed ones (left out of the zip), or that they could not be checked; None where all is clean."""
    if committed_skeletons(root) is None:
        return f"{root} is no git checkout: {SKELETONS}/ is shipped as it is on disk, which may not be the skeletons"
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all", "--", SKELETONS],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    changed = [line[3:] for line in status.stdout.splitlines()]
    if not changed:
        return None
    return (
        f"the working tree's {SKELETONS}/ differs from the last commit ({', '.join(changed)}): the zip ships the "
        "committed skeletons, not these changes"
    )


def source_files(root: Path = REPO_ROOT) -> list[Path]:
    """The checkout's files the autograder needs, relative to root."""
    files = []
    for name in SOURCES:
        path = root / name
        found = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in found:
            relative = file.relative_to(root)
            if "__pycache__" in relative.parts or relative.as_posix().startswith(LEFT_OUT):
                continue
            files.append(relative)
    return files


def _add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool) -> None:
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def script_text(template: str, labs: list[str], sizes: bool) -> str:
    """setup.sh or run_autograder as the zip holds it: the labs and the grade's options filled in."""
    lab_args = " ".join(f"--lab {lab}" for lab in labs)
    options = f"--instructor-sizes {SIZES}" if sizes else ""
    return (TEMPLATES / template).read_text().replace("@LABS@", lab_args).replace("@GRADE_OPTIONS@", options)


def write_zip(
    out: Path,
    labs: list[str],
    sizes: Path | None,
    policy: late.LatePolicy | None,
    visibility: str,
    root: Path = REPO_ROOT,
) -> Path:
    """The autograder zip of the checkout at root; its labs/ as committed (committed_skeletons)."""
    settings = {
        "labs": labs,
        "visibility": visibility,
        "late": {"percent_per_day": policy.percent_per_day, "limit_days": policy.limit_days} if policy else None,
    }
    with atomic.replacing(out) as written, zipfile.ZipFile(written, "w") as archive:
        for template in ("setup.sh", "run_autograder"):
            _add(archive, template, script_text(template, labs, sizes is not None).encode(), executable=True)
        _add(archive, SETTINGS, (json.dumps(settings, indent=2) + "\n").encode(), executable=False)
        if sizes:
            _add(archive, SIZES, sizes.read_bytes(), executable=False)
        skeletons = committed_skeletons(root)
        for relative in source_files(root):
            if skeletons is not None and relative.parts[0] == SKELETONS:
                continue  # from the commit, below
            path = root / relative
            _add(archive, relative.as_posix(), path.read_bytes(), executable=bool(path.stat().st_mode & 0o111))
        for name, (data, executable) in sorted((skeletons or {}).items()):
            _add(archive, name, data, executable)
    return out


def command(args, console: Console) -> int:
    labs = [lab.name for lab in select_labs(load_config(), [] if args.all_labs else args.lab)]
    if args.instructor_sizes and not args.instructor_sizes.is_file():
        raise UsageError(f"--instructor-sizes {args.instructor_sizes}: no such file")
    try:
        policy = (
            late.LatePolicy(args.late_penalty or 0.0, args.late_limit)
            if args.late_penalty is not None or args.late_limit is not None
            else None
        )
    except ValueError as error:
        raise UsageError(str(error)) from error
    warning = skeleton_warning()
    if warning:
        console.print(f"[bold yellow]Warning: {escape(warning)}[/]")
    path = write_zip(args.out, labs, args.instructor_sizes, policy, args.visibility)
    console.print(
        f"Wrote {path} ({path.stat().st_size // 1024} KiB): labs {', '.join(labs)}. Upload it on "
        "the assignment's Configure Autograder page (base image: Ubuntu 22.04 or 24.04)."
    )
    return Exit.PASSED


def command_prepare(args, console: Console) -> int:
    """Configures the build as run_autograder will (same folder, same architecture) and builds the grader's own
    parts of each lab, so that a submission compiles only its kernel.cu and links it."""
    config = load_config()
    labs = select_labs(config, args.lab or [])
    tree = build.BuildTree(REPO_ROOT / "build", choose_arch("auto", gpu.detect_gpu()))
    outcome = build.configure(tree, config.timeouts["build"])
    if not outcome.ok:
        raise GraderError(f"the build cannot be set up: {outcome.tail(5)}")
    names = [lab.name for lab in labs]
    console.print(f"Building the grader's parts of {', '.join(names)} (nvcc -arch={tree.gpu_arch})")
    for emulated in (False, True) if tree.has_emulator() else (False,):
        build.prepare_student(tree, names, config.timeouts["build"] * len(labs), emulated)
    return Exit.PASSED


def submission_facts(metadata: dict) -> tuple[str | None, str | None, dict]:
    """(submitted at, due date, the submitter) from Gradescope's submission_metadata.json."""
    users = metadata.get("users") or [{}]
    who = {"name": users[0].get("name"), "email": users[0].get("email"), "sid": users[0].get("sid")}
    return metadata.get("created_at"), (metadata.get("assignment") or {}).get("due_date"), who


def assigned(run: dict, labs: list[Lab]) -> dict:
    """The grade as the assignment counts it: the labs it holds, and the score out of their points; a lab graded
    that it does not hold is left out, and the notes say so."""
    names = [lab.name for lab in labs]
    kept = [entry for entry in run["labs"] if entry["lab"] in names]
    others = sorted({entry["lab"] for entry in run["labs"]} - set(names))
    notes = [*run.get("notes", []), *([f"not counted, not in this assignment: {', '.join(others)}"] if others else [])]
    score = sum(entry["points"] for entry in kept)
    return {**run, "labs": kept, "score": score, "max_score": sum(lab.max_points for lab in labs), "notes": notes}


def command_results(args, console: Console) -> int:
    try:
        run = load_grade(args.grade).source  # checked before anything is added to it
    except GradeFileError as error:
        raise UsageError(str(error)) from error
    settings = json.loads(args.settings.read_text()) if args.settings and args.settings.is_file() else {}
    if settings.get("labs"):  # a zip made before assignments named their labs holds none: every lab graded counts
        run = assigned(run, select_labs(load_config(), settings["labs"]))
    metadata = json.loads(args.metadata.read_text()) if args.metadata and args.metadata.is_file() else {}
    submitted, due, who = submission_facts(metadata)
    run.update({k: v for k, v in who.items() if v})
    policy = late.LatePolicy(**settings["late"]) if settings.get("late") else None
    run = late.apply(
        run, late.parse_time(submitted) if submitted else None, late.parse_time(due) if due else None, policy
    )
    recorded = read_grade(run, str(args.grade))
    write_gradescope(recorded, args.out, visibility=settings.get("visibility", "visible"))
    console.print(f"Written: {args.out} (score {recorded.score:.1f})")
    return Exit.PASSED


def speed_points(run: RecordedRun | None) -> float | None:
    """The points the run's speed checks earned, after any late penalty; None where there is no run, or it had
    no GPU."""
    if run is None or not run.device:
        return None
    earned = sum(check.points for lab in run.labs for check in lab.checks if check.category is Category.PERFORMANCE)
    return earned * (run.late or {}).get("kept", 1.0)


def write_speed_csv(out: Path, students: list[str]) -> tuple[Path, list[str]]:
    """OUT/gradescope-speed.csv: Name, SID, Email and the speed points of every student whose run had a GPU
    (the roster's name, sid and email where the batch had --roster), each text cell safe for a spreadsheet.
    Returns the path and who was left out (a name refused by the batch has no results to read)."""
    path, left_out = out / SPEED_CSV, []
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow(SPEED_COLUMNS)
    for student in students:
        grade = out / "students" / student / "grade.json"
        run = load_grade(grade) if not name_problem(student) and grade.is_file() else None
        points = speed_points(run)
        if run is None or points is None:
            left_out.append(student)
            continue
        who = (run.name or student, run.sid or "", run.email or "")
        writer.writerow([*(spreadsheet_cell(cell) for cell in who), f"{points:.2f}"])
    atomic.write_text(path, text.getvalue())
    return path, left_out


COMMANDS = {"gradescope": command, "gradescope-prepare": command_prepare, "gradescope-results": command_results}
