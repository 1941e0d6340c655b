"""Command line of the grader (./cml is python -m grader with setup): parses, calls, prints. The grading itself
is in session.py and grade.py, a class's batch in batch.py, the thresholds in calibrate.py."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import shlex
import subprocess
import sys
import textwrap
import threading
import time
import traceback
from pathlib import Path

from rich.markup import escape
from rich.progress import Progress, TextColumn
from rich.status import Status
from rich.table import Table
from rich.text import Text

from grader.calibration.calibrate import calibrate, read_measurements, rewrite, time_steps
from grader.cohort import batch, current, late, plan, roster, slurm
from grader.cohort.collect import collect as collect_results
from grader.cohort.collect import lab_cell, unfinished
from grader.cohort.output_lock import FolderBusy, OutputLock
from grader.core import atomic
from grader.core.config import REPO_ROOT, load_config
from grader.core.exits import CannotGrade, Exit, UsageError
from grader.core.model import EMULATOR_LIMIT, NOT_SUBMITTED
from grader.core.recorded import read_grade
from grader.execution import proc, sandbox, stopping
from grader.grading import access_pictures, evidence, run_program
from grader.grading.session import GradeRequest, select_labs, start
from grader.platforms import classroom, edition, gradescope
from grader.reporting import report
from grader.reporting.export import write_exports
from grader.reporting.score import verdict
from grader.reporting.terminal import Terminal, terminal_width

DESCRIPTION = textwrap.dedent(
    """\
    Grade the CUDA memory labs on this machine.

    The usual loop: edit labs/NN_name/kernel.cu (read the README.md beside it), then
      ./cml grade --lab 1              build and grade Lab 1
      ./cml grade --lab 1 --compare    the same, next to the reference solution's numbers
      ./cml grade                      every lab
      ./cml run --lab 1 --seed S       your own test program alone, on the inputs of the grade with seed S
    Each lab is built, tested with its doctest suite, checked with compute-sanitizer and Nsight Compute
    counters where the lab asks for them, and benchmarked against its baseline; the thresholds come from
    grader/targets/<gpu>.toml. On a GPU nobody calibrated, run ./cml calibrate first. Without a GPU
    everything is still built with nvcc, the tests, sanitizers and counters run on the CPU emulator
    (common/emu; each such check says "(CPU emulator)"), and the speed checks are reported as "not run",
    never as passed.

    Besides the commands below, ./cml itself runs (each with its own --help where it has options):
      ./cml test [PATH ...]            the project's own tests (pytest; PATH picks test files)
      ./cml slides [--out DIR]         build the lecture decks to slides/build/html
      ./cml lint                       ruff, mypy and shellcheck (tools/lint.sh)
    """
)
EPILOG = Exit.describe()
ERROR_LOGS = REPO_ROOT / ".results"


def add_build_options(sub: argparse.ArgumentParser, folder: str = "build") -> None:
    sub.add_argument(
        "--build-dir", type=Path, default=REPO_ROOT / folder, help=f"Meson build folder (default: {folder})"
    )
    sub.add_argument(
        "--arch",
        default="auto",
        help="GPU architecture for nvcc: sm_90 (the H100), native (the GPU "
        "here), or auto (default: native when a GPU is present, else sm_90)",
    )


def add_grade_command(commands) -> None:
    grade = commands.add_parser(
        "grade", help="build and grade the labs", description="Build and grade the labs.", epilog=EPILOG
    )
    add_build_options(grade)
    grade.add_argument("--lab", action="append", metavar="N", help="grade only this lab (number or name; repeatable)")
    which = grade.add_mutually_exclusive_group()
    which.add_argument("--solutions", action="store_true", help="grade the reference solutions instead of labs/")
    which.add_argument("--compare", action="store_true", help="grade labs/ and the solutions, side by side")
    grade.add_argument(
        "--submission",
        "--student-dir",
        dest="submission",
        type=Path,
        default=REPO_ROOT / "labs",
        help="what to grade: a folder, tarball or zip holding NN_name/kernel.cu files at any depth; "
        "only those files are used (default: labs)",
    )
    grade.add_argument(
        "--seed", type=int, help="replay a run: its random inputs and drawn sizes (default: a fresh seed)"
    )
    grade.add_argument(
        "--instructor-sizes",
        type=Path,
        metavar="TOML",
        help='extra sizes per lab, kept out of the public repository: [lab.04_tiled_gemm] sizes = ["577x3x1021"]',
    )
    grade.add_argument(
        "--target", type=Path, help="thresholds file (default: the grader/targets/*.toml matching the GPU)"
    )
    grade.add_argument(
        "--json",
        type=Path,
        default=REPO_ROOT / ".results" / "grade.json",
        help="where to write the results as JSON (default: .results/grade.json)",
    )
    grade.add_argument("--gradescope", type=Path, metavar="PATH", help="also write Gradescope's results.json here")
    grade.add_argument(
        "--junit", type=Path, metavar="PATH", help="also write JUnit XML here (CI systems, GitHub Classroom)"
    )
    grade.add_argument("--html", type=Path, metavar="PATH", help="also write a self-contained HTML report here")
    grade.add_argument(
        "--table",
        action="store_true",
        help="also print a table of every check of each lab, after each lab's verdict, cause, hint and replay",
    )
    grade.add_argument(
        "--work-dir",
        type=Path,
        help="the folder of this grade's own work (the submission's kernel.cu files and their steps), for graders "
        "that share one --build-dir at once, such as a batch's workers (default: beside the build folder)",
    )
    grade.add_argument(
        "--evidence",
        type=Path,
        metavar="PATH",
        help="also write what each lab's steps made (the evidence its checks judged) here, as JSON",
    )
    grade.add_argument(
        "--show-access",
        type=source_line,
        metavar="FILE:LINE",
        help="also draw one warp's memory request at this line of your kernel.cu (e.g. kernel.cu:27), as the CPU "
        "emulator saw it in the checked launches, beside the reference's; the counter checks about memory draw "
        "their worst line by themselves",
    )
    grade.add_argument(
        "--no-mechanisms", action="store_true", help="skip sanitizers and counters (reported as not run)"
    )
    grade.add_argument("--no-bench", action="store_true", help="skip the benchmarks (reported as not run)")
    grade.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="grade N labs at once (default: with a GPU, all of them, up to one per CPU core; 1 on the CPU "
        "emulator). Builds take turns, and a benchmark or ncu run always runs alone: no other lab's program "
        "or build beside it",
    )
    grade.add_argument(
        "--step-timeout",
        type=float,
        metavar="SECONDS",
        help="cap the time limit of every step but the build (labs.toml sets them)",
    )
    add_sandbox_option(grade)


def source_line(text: str) -> tuple[str, int]:
    """FILE:LINE of --show-access, as (FILE, LINE)."""
    file, colon, line = text.rpartition(":")
    if not colon or not file or not line.isdigit() or int(line) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not FILE:LINE (kernel.cu:27, say)")
    return file, int(line)


def add_run_command(commands) -> None:
    run = commands.add_parser(
        "run",
        help="build and run your own test or benchmark program of a lab",
        description="Build a lab's test program (or benchmark) from labs/NN_name/kernel.cu, as ./cml grade builds "
        "it, and run it: on the GPU, or on the CPU emulator where there is none (or with --emulator). It grades "
        "nothing: the program prints its own results, and its exit status is this command's. A grade's inputs "
        "come from its seed (--seed, in .results/grade.json), which also draws its sizes; the program's own "
        "options go after --, such as doctest's -tc='writes every*' (one case) or the benchmark's --size N. "
        "Your own kernel.cu runs with your rights, outside the sandbox, as the program run by hand would.",
    )
    add_build_options(run)
    run.add_argument("--lab", required=True, metavar="N", help="the lab (number or name)")
    run.add_argument("--bench", action="store_true", help="the benchmark program instead of the tests")
    run.add_argument("--emulator", action="store_true", help="the CPU emulator's build, even with a GPU here")
    run.add_argument("--seed", type=int, help="the inputs of a grade's run (default: a fresh seed, printed)")
    run.add_argument(
        "--sizes",
        nargs="+",
        metavar="SIZE",
        help="the sizes of the grader's drawn cases, as .results/grade.json's grader_sizes lists them, or joined by "
        "';' (default: those the seed draws)",
    )
    run.add_argument(
        "--check",
        metavar="TOOL",
        help="run under a checker: compute-sanitizer's memcheck, racecheck, synccheck or initcheck on a GPU; the "
        "emulator's memcheck, racecheck, initcheck or schedule on the CPU",
    )
    run.add_argument(
        "--profile", action="store_true", help="the CPU emulator's counters of each source line (CML_EMU_PROFILE=-)"
    )
    run.add_argument(
        "--under", metavar="COMMAND", help="run the program under this command, such as 'ncu --metrics ...' on a GPU"
    )
    run.add_argument("--sass", action="store_true", help="print the machine code of your kernel.cu (cuobjdump -sass)")
    run.add_argument("--work-dir", type=Path, help="a folder of this run's own for the steps (as grade's)")
    run.add_argument("arguments", nargs="*", metavar="-- OPTION", help="the program's own options, after --")


def add_sandbox_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run the submissions' programs and compiles without the sandbox (SECURITY.md): only "
        "for your own code, or where no sandbox can be made and you accept the risk",
    )


def add_class_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("submissions", type=Path, help="folder with one entry per student: a folder, tarball or zip")
    sub.add_argument("--out", type=Path, required=True, help="results folder (re-using it resumes the batch)")
    sub.add_argument("--lab", action="append", metavar="N", help="grade only this lab (repeatable; default: all)")
    sub.add_argument(
        "--step-timeout", type=float, metavar="SECONDS", help="cap every step's time limit but the build's"
    )
    sub.add_argument("--instructor-sizes", type=Path, metavar="TOML", help="extra sizes per lab (see grade --help)")
    sub.add_argument("--target", type=Path, help="thresholds file (default: the one matching the GPU)")
    sub.add_argument("--arch", default="auto", help="GPU architecture for nvcc (see grade --help)")
    add_sandbox_option(sub)
    add_roster_options(sub)


def add_roster_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--roster",
        type=Path,
        metavar="CSV",
        help="the class list: a 'student' column (the "
        "submission's name) and any of sid, email, name, submitted_at; they go into every result",
    )
    add_late_options(sub)


def add_late_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--due",
        metavar="TIME",
        help="due date, ISO 8601 (2026-03-01T23:59-05:00): later submissions "
        "are marked late (their time: the roster's submitted_at, else the file's time on this disk)",
    )
    sub.add_argument(
        "--late-penalty",
        type=float,
        metavar="PERCENT",
        help="percent of the score taken off per started day late (default: none, lateness is only reported)",
    )
    sub.add_argument("--late-limit", type=float, metavar="DAYS", help="more days late than this scores 0")


def late_policy(args) -> late.LatePolicy | None:
    if args.late_penalty is None and args.late_limit is None:
        return None
    try:
        return late.LatePolicy(args.late_penalty or 0.0, args.late_limit)
    except ValueError as error:
        raise UsageError(str(error)) from error


def add_shared_build(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--build-dir",
        type=Path,
        help="the build folder every worker grades in, its harness built there once (default: OUT/work/build); "
        "one that other graders share is used as it is, under its lock",
    )


def add_class_commands(commands) -> None:
    batch_command = commands.add_parser(
        "batch",
        help="grade a whole class on this machine",
        epilog=Exit.describe_batch(),
        description="Grade every submission in a folder: one grader process per submission, grading its labs "
        "together, one worker per GPU. Writes OUT/results.csv and OUT/results.json (a row per student) and, per "
        "student, OUT/students/NAME/{grade.json, results.json (Gradescope), junit.xml, report.html}, with "
        "grade.log, the grader's output. Each submission is read in its student's turn, under limits. Running it "
        "again grades only what is missing or has changed (the kernel, the grader, an option); one batch at a time "
        "holds OUT (OUT/batch.lock), and a stop (SIGTERM, Ctrl-C) keeps every student finished.",
    )
    add_class_options(batch_command)
    add_shared_build(batch_command)
    batch_command.add_argument("--workers", type=int, help="parallel graders (default: one per GPU; 1 without a GPU)")
    batch_command.add_argument(
        "--stop-after",
        type=float,
        metavar="MINUTES",
        help="start no submission's grading after this long; run again to resume",
    )
    batch_command.add_argument(
        "--student",
        action="append",
        metavar="NAME",
        help="regrade only this student (repeatable): their earlier results are replaced, "
        "everyone else's kept, and the class merged again",
    )
    batch_task = commands.add_parser("batch-task", help="one Slurm array task's share of a batch (see slurm)")
    add_class_options(batch_task)
    add_shared_build(batch_task)
    slurm_command = commands.add_parser(
        "slurm",
        help="write a Slurm job-array script that grades a class",
        description="Write OUT/grade.sbatch: a job array whose tasks each grade their share of the submissions "
        "(./cml batch-task) on one GPU. Submit it with sbatch, then merge with ./cml collect OUT.",
    )
    add_class_options(slurm_command)
    slurm_command.add_argument("--tasks", type=int, default=8, help="array tasks, one GPU each (default 8)")
    slurm_command.add_argument("--time", default="04:00:00", help="time limit per task (default 04:00:00)")
    slurm_command.add_argument(
        "--cpus",
        type=int,
        help="CPU cores per task, for the builds (default: 8, or "
        "fewer where the partition's smallest node has fewer; sinfo is asked)",
    )
    slurm_command.add_argument(
        "--gpus",
        type=int,
        default=1,
        help="GPUs per task (default 1; 0 on nodes without "
        "one: the checks run on the CPU emulator and speed is not graded)",
    )
    slurm_command.add_argument("--submit", action="store_true", help="also submit it with sbatch, from this checkout")
    slurm_command.add_argument(
        "--sbatch", action="append", default=[], metavar="LINE", help='extra #SBATCH line, e.g. "--partition=gpu"'
    )
    collect = commands.add_parser(
        "collect",
        help="merge a batch's results (after the Slurm tasks have ended)",
        description="Merge a batch's results: OUT/results.csv and .json, each student's reports, and "
        "OUT/gradescope-speed.csv (the speed points of every student graded on a GPU, for Gradescope's score "
        "upload). Exit status 4 when some submitted labs have no result yet: their tasks are still running, or "
        "were stopped; run collect again once they have ended.",
    )
    collect.add_argument("out", type=Path, help="the batch's results folder")
    gradescope.add_command(commands)
    classroom.add_command(commands)


def add_edition_command(commands) -> None:
    sub = commands.add_parser(
        "edition",
        help="write the student edition of the kit (no reference solutions) to a folder",
        description="Write an edition of the committed tree (git archive HEAD: uncommitted changes are left out, "
        "with a warning) to OUT. The student edition holds no reference solution and no file made from one "
        "(grader/platforms/edition.py lists what is left out, and why); students grade their own work with it as with the "
        "full kit. docs/editions.md says who gets which edition.",
    )
    sub.add_argument("kind", choices=["student"], help="which edition (student: for a graded course)")
    sub.add_argument("out", type=Path, help="the folder to write it to: new or empty")
    sub.add_argument("--git", action="store_true", help="make OUT a fresh git repository of one commit, to publish")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="./cml", description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    add_grade_command(commands)
    add_run_command(commands)
    cal = commands.add_parser(
        "calibrate",
        help="measure this GPU and write its thresholds",
        description="Benchmark the reference solutions and every correct and known-wrong "
        "kernel of variants/ on this GPU, several times each, and write "
        "grader/targets/<gpu>.toml: each threshold between the slowest correct kernel and the "
        "fastest wrong one, with a margin of the noise measured; a speed check time cannot "
        "separate here is not graded, and its points go to the lab's mechanism checks. It also grades "
        "each reference solution and records how long each step took, which the steps' time limits on "
        "this GPU are derived from.",
    )
    add_build_options(cal, "build-calibrate")  # its own: it also holds the programs of every variant
    cal.add_argument(
        "--runs",
        type=int,
        default=3,
        help="benchmark runs of each kernel, and timed grades of each reference solution (default 3)",
    )
    cal.add_argument(
        "--lab",
        action="append",
        metavar="N",
        help="measure only this lab (repeatable); the thresholds "
        "file is written from every lab measured on this GPU so far (--measurements)",
    )
    cal.add_argument(
        "--missing-only",
        action="store_true",
        help="measure only the labs --measurements does not hold yet for this GPU (go on where a run stopped)",
    )
    cal.add_argument(
        "--times-only",
        action="store_true",
        help="only time the reference solution's steps (their time limits here), keeping the kernels' "
        "measurements; with --missing-only, the labs whose steps are not timed yet",
    )
    cal.add_argument(
        "--rewrite",
        action="store_true",
        help="measure nothing: write the thresholds file again from --measurements alone (no GPU needed)",
    )
    cal.add_argument("--output", type=Path, help="file to write (default: grader/targets/<gpu name>.toml)")
    cal.add_argument(
        "--measurements",
        type=Path,
        default=REPO_ROOT / ".results" / "calibration.json",
        help="every kernel's measured ratios, kept across runs of calibrate on this GPU "
        "(default: .results/calibration.json)",
    )
    add_class_commands(commands)
    add_edition_command(commands)
    commands.add_parser("list", help="list the labs")
    return parser.parse_args(argv)


def grade_request(args) -> GradeRequest:
    variants = ("student", "solution") if args.compare else ("solution",) if args.solutions else ("student",)
    return GradeRequest(
        labs=args.lab or [],
        variants=variants,
        submission=args.submission,
        build_dir=args.build_dir,
        arch=args.arch,
        seed=args.seed,
        instructor_sizes=args.instructor_sizes,
        target=args.target,
        mechanisms=not args.no_mechanisms,
        bench=not args.no_bench,
        step_timeout=args.step_timeout,
        jobs=args.jobs,
        work_dir=args.work_dir,
    )


class LabSteps:
    """The status line of a run: the step each lab being graded is at, a line per lab (several labs are graded
    at once with --jobs). Called from the thread grading each lab."""

    def __init__(self, status: Status) -> None:
        self.status, self.lock = status, threading.Lock()
        self.steps: dict[str, str] = {}  # "Lab 02_dot_product (student)" -> its step now

    def __call__(self, lab: str, variant: str, step: str) -> None:
        with self.lock:
            if step == "done":
                self.steps.pop(f"Lab {lab} ({variant})", None)
            else:
                self.steps[f"Lab {lab} ({variant})"] = step
            self.status.update("\n".join(f"{which}: {now}" for which, now in self.steps.items()))


def command_grade(args, console: Terminal) -> int:
    if (args.solutions or args.compare) and not edition.has_solutions():
        raise UsageError(f"{edition.NO_SOLUTIONS}: --solutions and --compare cannot be graded here")
    session = start(grade_request(args))
    for note in session.notes:
        console.print(f"[bold yellow]{escape(note)}[/]")  # before anything is graded: what this run cannot promise
    exports = {"gradescope": args.gradescope, "junit": args.junit, "html": args.html}
    try:
        with console.status("") as status:
            context = session.build(status.update)
    except CannotGrade as error:
        # Still a result for every platform: 0 points, and the reason where the student reads it.
        console.print(f"[bold red]{escape(str(error))}[/]")
        run = report.ungraded_run(session.facts(), session.max_points, str(error))
        report.save_run(args.json, run)
        write_exports(read_grade(run), **exports)
        return Exit.NOT_GRADABLE
    except proc.Stopped:
        return stopped_grade(args, console, session, exports)
    if context.gpu.present:
        console.print(
            f"GPU: {context.gpu.name} (compute capability {context.gpu.compute_capability}); "
            f"thresholds: {context.target.shown_path() if context.target else 'none'}"
        )
    try:
        with console.status("") as status:
            grades = session.grade(LabSteps(status))
    except proc.Stopped:
        return stopped_grade(args, console, session, exports)
    # Written before anything is printed: whatever befalls the terminal report, the results are kept.
    run = report.write_json(args.json, grades, session.facts(), context.target)
    written = write_exports(read_grade(run), **exports)
    if args.evidence:
        evidence.write_evidence(args.evidence, session.evidence)
        written.append(args.evidence)
    report.print_report(console, grades, context.target, session.notes, full=args.table)
    if args.show_access:
        report.print_lines(console, access_pictures.shown(session.evidence, *args.show_access))
    report.print_ignored(console, session.files_ignored)
    console.print(escape(f"Results written to {args.json}"))
    for path in written:
        console.print(escape(f"Written: {path}"))
    return grade_status({verdict(g) for g in grades})


def grade_status(verdicts: set[str]) -> Exit:
    """A grade's exit status from its labs' verdicts: a failed lab first (a lab asked for and not submitted earned
    nothing), then a kernel.cu the CPU emulator could not build, then checks that could not run here."""
    if verdicts & {"failed", NOT_SUBMITTED}:
        return Exit.FAILED
    if EMULATOR_LIMIT in verdicts:
        return Exit.EMULATOR_LIMIT
    return Exit.INCOMPLETE if "incomplete" in verdicts else Exit.PASSED


def run_request(args) -> run_program.RunRequest:
    sizes = [size for listed in args.sizes for size in listed.split(";") if size] if args.sizes else None
    return run_program.RunRequest(
        lab=args.lab,
        kind="bench" if args.bench else "test",
        emulator=args.emulator,
        seed=args.seed,
        sizes=sizes,
        check=args.check,
        profile=args.profile,
        under=shlex.split(args.under) if args.under else [],
        sass=args.sass,
        arguments=args.arguments,
        build_dir=args.build_dir,
        arch=args.arch,
        work_dir=args.work_dir,
    )


def command_run(args, console: Terminal) -> int:
    errors = Terminal(stderr=True, width=console.width)  # what the program prints alone goes to standard output
    try:
        with errors.status("") as status:
            prepared = run_program.prepare(run_request(args), status.update)
    except CannotGrade as error:
        raise UsageError(str(error)) from error
    except run_program.BuildFailed as error:
        errors.print(f"[bold red]{escape(args.lab)}: your kernel.cu did not build:[/]")
        errors.print(Text(str(error)), soft_wrap=True, highlight=False)
        return Exit.FAILED
    errors.print(Text(f"$ {prepared.shown()}", style="dim"), soft_wrap=True, highlight=False)
    return run_program.run(prepared)


def stopped_grade(args, console: Terminal, session, exports: dict) -> int:
    """A grade stopped by a signal: the labs it finished are written as they are, out of the points of every lab
    asked for, and the others are named, on the terminal and in every report."""
    grades = list(session.finished)
    done = {(grade.lab, grade.variant) for grade in grades}
    several = len(session.request.variants) > 1
    left = [
        lab.name + (f" ({variant})" if several else "")
        for lab in session.labs
        for variant in session.request.variants
        if (lab.name, variant) not in done
    ]
    why = f"stopped ({args.stop.why}) before it graded {', '.join(left)}: not graded, run it again to grade them"
    target = session.context.target if session.context else None
    run = report.write_stopped_json(args.json, grades, session.facts(), target, session.max_points, why)
    written = write_exports(read_grade(run), **exports)
    console.print(f"[bold yellow]{escape(why[0].upper() + why[1:])}[/]")
    finished = ", ".join(f"{grade.lab} ({grade.points:.1f} / {grade.max_points:g})" for grade in grades)
    console.print(escape(f"Graded before the stop: {finished or 'nothing'}; written to {args.json}"))
    for path in written:
        console.print(escape(f"Written: {path}"))
    return Exit.STOPPED


def command_calibrate(args, console: Terminal) -> int:
    if args.rewrite:
        console.print(f"Wrote {rewrite(load_config(), args.measurements, args.output)} from {args.measurements}")
        return Exit.PASSED
    session = start(
        GradeRequest(variants=("solution",), build_dir=args.build_dir, arch=args.arch, calibration_kernels=True)
    )
    if not session.device.present:
        raise UsageError(f"calibrate needs a GPU: {session.device.reason}")
    labs = select_labs(session.config, args.lab or [])
    if args.missing_only:
        done = read_measurements(args.measurements, session.device).get("step_seconds" if args.times_only else "labs")
        labs = [lab for lab in labs if lab.name not in (done or {})]
    with console.status("") as status:
        # Into a log (no terminal), each step as a line: a calibration takes minutes, and a spinner shows nothing.
        say = status.update if console.is_terminal else lambda text: console.print(escape(text))
        context = session.build(say)
        timed = functools.partial(time_steps, context)
        path, measured = calibrate(
            session.config,
            context.tree,
            session.device,
            args.runs,
            labs,
            args.measurements,
            args.output,
            say,
            timed,
            args.times_only,
            context.gpu_lock,
        )
    for lab, kernels in measured.items():
        for name, kernel in kernels.items():
            if kernel["wrong_results"]:
                console.print(
                    f"[yellow]{lab} {name}: computed a wrong result ({', '.join(kernel['wrong_results'])}); "
                    "left out of the thresholds[/]"
                )
    console.print(f"Wrote {path} and {args.measurements}")
    return Exit.PASSED


def command_edition(args, console: Terminal) -> int:
    try:
        written = edition.write_student_edition(args.out, make_git=args.git)
    except ValueError as error:
        raise UsageError(str(error)) from error
    except subprocess.CalledProcessError as error:
        raise UsageError(f"an edition is made from a git checkout: {error.stderr.decode(errors='replace')}") from error
    if written.uncommitted:
        console.print(
            f"[bold yellow]The working tree differs from HEAD ({len(written.uncommitted)} paths); the edition holds "
            "the commit only:[/]"
        )
        for line in written.uncommitted[:10]:
            console.print(f"  {escape(line)}")
    console.print(
        escape(
            f"Student edition of {written.commit[:12]} written to {args.out}: {len(written.kept)} files kept, "
            f"{len(written.dropped)} left out, code slides taken out of {len(written.stripped)} decks"
            + (", one git commit" if args.git else "")
        )
    )
    for rule in edition.RULES:
        count = sum(1 for path in written.dropped if edition.action_for(path) is rule)
        if count:
            console.print(escape(f"  left out: {rule.pattern} ({count} files): {rule.why}"))
    return Exit.PASSED


def command_list(args, console: Terminal) -> int:
    for lab in load_config().labs:
        console.print(f"{lab.number}  {lab.name:<24} {lab.title}")
    return Exit.PASSED


def grade_options(args) -> list[str]:
    """What a batch passes on to each grader process."""
    options = ["--arch", args.arch] + (["--no-sandbox"] if args.no_sandbox else [])
    if args.step_timeout:
        options += ["--step-timeout", str(args.step_timeout)]
    if args.instructor_sizes:
        options += ["--instructor-sizes", str(args.instructor_sizes.resolve())]
    if args.target:
        options += ["--target", str(args.target.resolve())]
    return options


def require_sandbox(args) -> None:
    """A class is graded in the sandbox, or with the instructor's explicit --no-sandbox."""
    why = sandbox.unavailable()
    if why and not args.no_sandbox:
        raise UsageError(
            f"no sandbox can be made here ({why}): without one, each submission's code could read and "
            "change the others' files, the grader and the results. Install bubblewrap (./cml does) or "
            "pass --no-sandbox to grade anyway"
        )


def plan_batch(args, console: Terminal, devices: list[str | None] | None):
    """Plans the batch by the submissions' names alone (nothing of them is read before their turn) and writes
    OUT/plan.json and the class's facts; (the configuration, the labs, the plan, what results count with)."""
    require_sandbox(args)
    config = load_config()
    labs = select_labs(config, args.lab or [])
    key = current.grading_key(grade_options(args))
    planned = plan.write_plan(args.submissions, labs, args.out, key, devices)
    for student, why in {**planned.shared, **planned.refused}.items():
        console.print(f"[red]{escape(student)}: cannot be graded:[/] {escape(why)}")
    entries = {plan.student_name(entry): entry for entry in plan.submissions_in(args.submissions)}
    try:
        info = roster.gather(entries, args.roster, args.due, late_policy(args))
    except (OSError, ValueError) as error:
        raise UsageError(f"--roster or --due: {error}") from error
    for student in sorted(set(info.roster) - set(entries)):
        console.print(f"[yellow]{escape(student)} is on the roster but has no submission[/]")
    roster.write(args.out, info)
    return config, labs, planned, key


def class_options(args) -> list[str]:
    """What a Slurm array task passes on to its plan: the roster and the late policy."""
    options = ["--roster", str(args.roster.resolve())] if args.roster else []
    for flag, value in (("--due", args.due), ("--late-penalty", args.late_penalty), ("--late-limit", args.late_limit)):
        options += [flag, str(value)] if value is not None else []
    return options


def hold_output(args, console: Terminal, job: str | None = None) -> OutputLock:
    """The output folder's lock, for this batch alone (or shared with Slurm job `job`'s other tasks); FolderBusy
    where another batch holds it."""
    lock = OutputLock(args.out)
    try:
        lock = lock.share(job) if job else lock.hold()
    except FolderBusy:
        lock.close()
        raise
    if lock.unlocked_because:
        console.print(
            f"[bold yellow]Warning: {escape(lock.unlocked_because)}: make sure no other batch uses it meanwhile[/]"
        )
    return lock


def turn_said(turn: batch.Turn) -> str:
    """One student's turn, as the progress bar says it."""
    if turn.unreadable:
        return f"{turn.student}: unreadable"
    parts = [f"{len(turn.graded)} graded"] + ([f"{len(turn.kept)} already graded"] if turn.kept else [])
    parts += [f"{len(turn.errors)} grader error(s)"] if turn.errors else []
    return f"{turn.student}: {', '.join(parts)}"


def run_batch(args, console: Terminal, setup: batch.Batch, students: dict, gpus: list, worker_prefix: str = "w") -> int:
    console.print(
        f"{len(students)} submission(s), on {len(gpus)} worker(s): each is read in its own turn, and its labs not "
        "graded yet are graded in one grader process"
    )
    with Progress(*Progress.get_default_columns(), TextColumn("{task.description}"), console=console) as bar:
        progress = bar.add_task("grading", total=len(students))

        def done(turn: batch.Turn) -> None:
            bar.update(progress, advance=1, description=escape(turn_said(turn)))

        run = batch.run_students(setup, students, gpus, done, worker_prefix)
    graded, kept = sum(len(turn.graded) for turn in run.turns), sum(len(turn.kept) for turn in run.turns)
    console.print(
        f"{len(run.turns)} submission(s) read: {graded} lab(s) graded now, {kept} already graded, "
        f"{len(run.unreadable)} unreadable"
    )
    for student, why in run.unreadable.items():
        console.print(f"[red]{escape(student)}: cannot be graded:[/] {escape(why)}")
    for (student, lab), why in run.failures.items():
        console.print(f"[red]{escape(student)} {lab}: grader error: {escape(why)}[/]")
    for worker in run.workers:
        if worker.rebuilt:
            console.print(
                f"[yellow]{worker.name}'s build folder could not be used and was made anew, once: "
                f"{escape(worker.rebuilt)}[/]"
            )
    print_shares(console, run, batch.write_shares(args.out, run) if graded else None)
    left = f"{len(run.left)} submission(s) not graded yet ({escape(', '.join(run.left[:8]))}{', ...' if len(run.left) > 8 else ''})"
    if setup.stop.asked:
        console.print(
            f"[bold yellow]Stopped ({escape(setup.stop.why)}): every submission graded is kept; {left}. "
            "Run the same command again to resume.[/]"
        )
        return Exit.STOPPED
    if run.failures:
        return Exit.INTERNAL
    if run.left:
        console.print(f"[bold yellow]{left}: run the same command again to resume.[/]")
        return Exit.INCOMPLETE
    return Exit.PASSED


def print_shares(console: Terminal, run, written) -> None:
    """The batch's wall time and each worker's share of it: what an instructor plans the next class with."""
    for share in run.workers:
        device = f"GPU {share.gpu}" if share.gpu is not None else "no GPU set"
        console.print(
            escape(
                f"{share.name} ({device}): {share.submissions} submission(s), {share.labs} lab(s), "
                f"busy {share.busy_s:.0f} s of {run.wall_s:.0f} s, last done at {share.last_end_s:.0f} s"
            )
        )
    if written:
        console.print(f"Wall time {run.wall_s:.0f} s; each worker's share in {escape(str(written))}")


def batch_setup(args, config, labs, key, devices, lock: OutputLock) -> batch.Batch:
    stop_after = getattr(args, "stop_after", None)
    deadline = time.monotonic() + 60 * stop_after if stop_after is not None else None
    inherited = () if lock.unlocked_because else (lock.descriptor,)
    found = batch.Batch(args.out, labs, config, grade_options(args), key, devices, args.stop, inherited, deadline)
    found.build_dir = getattr(args, "build_dir", None)
    return found


def command_batch(args, console: Terminal) -> int:
    with hold_output(args, console) as lock:
        gpus = batch.worker_gpus(args.workers)
        devices = batch.devices_of(gpus)
        config, labs, planned, key = plan_batch(args, console, devices)
        students = planned.entries
        if args.student:
            try:
                chosen = batch.regrade(args.out, args.student, plan.read_plan(args.out) or {})
            except KeyError as error:
                raise UsageError(error.args[0]) from error
            students = {student: entry for student, entry in students.items() if student in chosen}
        status = run_batch(args, console, batch_setup(args, config, labs, key, devices, lock), students, gpus)
        collected = command_collect(args, console, config)
    return Exit.STOPPED if args.stop.asked else status or collected


def command_batch_task(args, console: Terminal) -> int:
    try:
        index, count = slurm.array_share()
    except RuntimeError as error:
        raise UsageError(f"batch-task: {error}") from error
    with hold_output(args, console, job=os.environ.get("SLURM_ARRAY_JOB_ID", "unknown")) as lock:
        # Each task on a GPU of its own, perhaps of another kind than another task's: any device counts in the plan.
        config, labs, planned, key = plan_batch(args, console, None)
        console.print(f"Slurm array task {index} of {count}")
        # The GPU Slurm gave this task, and a build folder per task: the tasks share the results folder.
        mine = plan.share(sorted(planned.entries), index, count)
        setup = batch_setup(args, config, labs, key, batch.devices_of([None]), lock)  # Slurm's GPU for this task
        students = {student: planned.entries[student] for student in mine}
        return run_batch(args, console, setup, students, [None], worker_prefix=f"slurm-task{index}-")


def command_slurm(args, console: Terminal) -> int:
    with hold_output(args, console):  # while the plan is written: no batch or array may be running on it
        plan_batch(args, console, None)
    labs = [arg for lab in args.lab or [] for arg in ("--lab", lab)]
    cpus, why = slurm.choose_cpus(args.cpus, args.sbatch)
    console.print(f"CPU cores per task: {cpus} ({why})")
    script = slurm.write_script(
        args.submissions,
        args.out,
        args.tasks,
        grade_options(args) + labs + class_options(args),
        args.time,
        cpus,
        args.sbatch,
        args.gpus,
    )
    console.print(f"Wrote {script}")
    if args.submit:
        console.print(f"Submitted: job {slurm.submit(script)}")
    else:
        console.print(f"Submit it from this checkout: cd {REPO_ROOT} && sbatch {script}")
    console.print(f"Then, when every task has ended: ./cml collect {args.out}")
    return Exit.PASSED


def command_collect(args, console: Terminal, config=None) -> int:
    recorded = plan.read_plan(args.out)
    if recorded is None:
        raise UsageError(f"{args.out} holds no batch (no plan.json): run ./cml batch or ./cml slurm first")
    config = config or load_config()
    rows = collect_results(args.out, config, recorded)
    table = Table("student", "score", "labs")
    for row in rows:
        labs = ", ".join(f"{lab[:2]}: {lab_cell(row, lab)}" for lab in recorded["labs"])
        notes = f" {row['notes']}" if row.get("notes") else ""
        table.add_row(escape(row["student"]), f"{row['score']} / {row['max_score']}", escape(labs + notes))
    console.print(table)
    console.print(
        f"Written: {args.out / 'results.csv'}, {args.out / 'results.json'}, and per student {args.out / 'students'}/*/"
    )
    speed, left_out = gradescope.write_speed_csv(args.out, [row["student"] for row in rows])
    console.print(
        f"Written: {speed} ({len(rows) - len(left_out)} students"
        + (f"; {len(left_out)} without a GPU result left out" if left_out else "")
        + ")"
    )
    waiting = unfinished(rows, [config.lab(name) for name in recorded["labs"]])
    if waiting:
        console.print(
            f"[bold yellow]Not finished: {len(waiting)} submitted lab(s) have no result yet[/] "
            f"({escape(', '.join(waiting[:8]))}{', ...' if len(waiting) > 8 else ''}): their tasks are "
            "still running or were stopped, or their submissions changed since. Run ./cml collect again once every "
            "task has ended, or the batch again to grade what changed."
        )
        return Exit.INCOMPLETE
    return Exit.PASSED


COMMANDS = {
    "grade": command_grade,
    "run": command_run,
    **gradescope.COMMANDS,
    **classroom.COMMANDS,
    "calibrate": command_calibrate,
    "batch": command_batch,
    "batch-task": command_batch_task,
    "slurm": command_slurm,
    "collect": command_collect,
    "edition": command_edition,
    "list": command_list,
}


def log_grader_error(command: str) -> Path:
    """The traceback of a grader error, in a file of its own (batch workers may fail at the same time)."""
    ERROR_LOGS.mkdir(parents=True, exist_ok=True)
    path = ERROR_LOGS / f"grader-error-{time.strftime('%Y%m%d-%H%M%S')}-{command}-{id(object()):x}.log"
    path.write_text(traceback.format_exc())
    return path


# The commands a signal stops in order (stopping.py): the programs they run ended, what they finished kept.
STOPPABLE = ("grade", "batch", "batch-task")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if getattr(args, "no_sandbox", False):
        os.environ[sandbox.NO_SANDBOX] = "1"  # for this process and every grader process a batch starts
    console = Terminal(width=terminal_width(sys.stdout))
    errors = Terminal(stderr=True, width=terminal_width(sys.stderr))
    args.stop = stopping.Stop()
    stoppable = stopping.on_signals(args.stop) if args.command in STOPPABLE else contextlib.nullcontext()
    with stoppable:
        return run_command(args, console, errors)


def run_command(args, console: Terminal, errors: Terminal) -> int:
    """The command, and its ending said in one line where it is not its own: its status (grader/core/exits.py)."""
    try:
        return COMMANDS[args.command](args, console)
    except UsageError as error:
        errors.print(f"[bold red]error:[/] {escape(str(error))}", soft_wrap=True)
        return Exit.USAGE
    except FolderBusy as error:
        errors.print(f"[bold red]error:[/] {escape(str(error))}", soft_wrap=True)
        return Exit.BUSY
    except proc.Stopped:
        errors.print(f"[bold yellow]Stopped ({escape(args.stop.why or 'a signal')}) before anything was graded[/]")
        return Exit.STOPPED
    except Exception as error:  # the error boundary: whatever failed, it was the grader, never the student
        if atomic.is_disk_full(error):  # said once, plainly: no traceback, which could not be written either
            errors.print(f"[bold red]error:[/] {escape(str(error))}", soft_wrap=True)
            return Exit.STOPPED
        log = log_grader_error(args.command)
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        errors.print(
            f"[bold red]grader error:[/] {escape(reason)} ({type(error).__name__}; the traceback is in {log})",
            soft_wrap=True,
        )
        return Exit.INTERNAL
