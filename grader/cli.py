"""Command line of the grader: ./cml grade | calibrate | list (./cml is python -m grader with setup)."""

from __future__ import annotations

import argparse
import json
import secrets
import time
import sys
import textwrap
from pathlib import Path

from rich.console import Console
from rich.progress import Progress, TextColumn
from rich.table import Table

from grader import batch, build, gpu, report, slurm
from grader.calibrate import calibrate
from grader.collect import collect as collect_results
from grader.config import REPO_ROOT, Config, find_target, load_config, load_target
from grader.grade import Context, grade_lab
from grader.score import verdict
from grader.export import write_exports
from grader.sizes import lab_sizes, load_instructor_sizes
from grader.submission import SubmissionError, read_submission
from grader.workspace import assemble_student_dir

EXIT_PASSED, EXIT_FAILED, EXIT_USAGE, EXIT_BROKEN, EXIT_INCOMPLETE = 0, 1, 2, 3, 4

DESCRIPTION = textwrap.dedent(
    """\
    Grade the CUDA memory labs on this machine.

    The usual loop: edit labs/NN_name/kernel.cu (read the README.md beside it), then
      ./cml grade --lab 1              build and grade Lab 1
      ./cml grade --lab 1 --compare    the same, next to the reference solution's numbers
      ./cml grade                      every lab
    Each lab is built, tested with its doctest suite, checked with compute-sanitizer and Nsight Compute
    counters where the lab asks for them, and benchmarked against its baseline; the thresholds come from
    grader/targets/<gpu>.toml. On a GPU nobody calibrated, run ./cml calibrate first. Without a GPU
    everything is still built with nvcc, the tests, sanitizers and counters run on the CPU emulator
    (common/emu; each such check says "(CPU emulator)"), and the speed checks are reported as "not run",
    never as passed.
    """
)

EPILOG = textwrap.dedent(
    """\
    exit status: 0 every lab passed; 1 a lab failed; 2 bad arguments; 3 the build could not be set up;
    4 nothing failed, but some checks could not run here (no GPU: the speed checks; no sanitizer).
    """
)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="./cml", description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")

    def with_build_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--build-dir", type=Path, default=REPO_ROOT / "build", help="Meson build folder (default: build)")
        sub.add_argument(
            "--arch",
            default="auto",
            help="GPU architecture for nvcc: sm_90 (the H100), native (the GPU here), or auto (default: "
            "native when a GPU is present, else sm_90)",
        )

    grade = commands.add_parser(
        "grade", help="build and grade the labs", description="Build and grade the labs.", epilog=EPILOG
    )
    with_build_options(grade)
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
        help="what to grade: a folder, tarball or zip holding NN_name/kernel.cu files at any depth; only those "
        "files are used (default: labs)",
    )
    grade.add_argument("--seed", type=int, help="replay a run: its random inputs and drawn sizes (default: a fresh seed)")
    grade.add_argument(
        "--instructor-sizes",
        type=Path,
        metavar="TOML",
        help='extra sizes per lab, kept out of the public repository: [lab.04_tiled_gemm] sizes = ["577x3x1021"]',
    )
    grade.add_argument("--target", type=Path, help="thresholds file (default: the grader/targets/*.toml matching the GPU)")
    grade.add_argument("--json", type=Path, default=REPO_ROOT / ".results" / "grade.json", help="where to write the results as JSON (default: .results/grade.json)")
    grade.add_argument("--gradescope", type=Path, metavar="PATH", help="also write Gradescope's results.json here")
    grade.add_argument("--junit", type=Path, metavar="PATH", help="also write JUnit XML here (CI systems, GitHub Classroom)")
    grade.add_argument("--html", type=Path, metavar="PATH", help="also write a self-contained HTML report here")
    grade.add_argument("--no-mechanisms", action="store_true", help="skip sanitizers and counters (reported as not run)")
    grade.add_argument("--no-bench", action="store_true", help="skip the benchmarks (reported as not run)")
    grade.add_argument("--step-timeout", type=float, metavar="SECONDS", help="cap the time limit of every step but the build (labs.toml sets them)")

    cal = commands.add_parser(
        "calibrate",
        help="measure the solutions on this GPU and write its thresholds",
        description="Measure the reference solutions on this GPU and write grader/targets/<gpu>.toml, each "
        "threshold a fraction of what the solution reached.",
    )
    with_build_options(cal)
    cal.add_argument("--fraction", type=float, default=0.6, help="threshold as this fraction of the solution's gain (default 0.6; see grader/calibrate.py)")
    cal.add_argument("--output", type=Path, help="file to write (default: grader/targets/<gpu name>.toml)")

    def with_class_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("submissions", type=Path, help="folder with one entry per student: a folder, tarball or zip")
        sub.add_argument("--out", type=Path, required=True, help="results folder (re-using it resumes the batch)")
        sub.add_argument("--lab", action="append", metavar="N", help="grade only this lab (repeatable; default: all)")
        sub.add_argument("--step-timeout", type=float, metavar="SECONDS", help="cap every step's time limit but the build's")
        sub.add_argument("--instructor-sizes", type=Path, metavar="TOML", help="extra sizes per lab (see grade --help)")
        sub.add_argument("--target", type=Path, help="thresholds file (default: the one matching the GPU)")
        sub.add_argument("--arch", default="auto", help="GPU architecture for nvcc (see grade --help)")

    batch = commands.add_parser(
        "batch",
        help="grade a whole class on this machine",
        description="Grade every submission in a folder: one grader process per lab per submission, one worker "
        "per GPU. Writes OUT/results.csv and OUT/results.json (a row per student) and, per student, "
        "OUT/students/NAME/{grade.json, results.json (Gradescope), junit.xml, report.html}. Running it again "
        "grades only what is missing or has changed.",
    )
    with_class_options(batch)
    batch.add_argument("--workers", type=int, help="parallel graders (default: one per GPU; 1 without a GPU)")
    batch.add_argument("--stop-after", type=float, metavar="MINUTES", help="start no task after this long; run again to resume")

    task = commands.add_parser("batch-task", help="one Slurm array task's share of a batch (see slurm)")
    with_class_options(task)

    slurm = commands.add_parser(
        "slurm",
        help="write a Slurm job-array script that grades a class",
        description="Write OUT/grade.sbatch: a job array whose tasks each grade their share of the submissions "
        "(./cml batch-task) on one GPU. Submit it with sbatch, then merge with ./cml collect OUT.",
    )
    with_class_options(slurm)
    slurm.add_argument("--tasks", type=int, default=8, help="array tasks, one GPU each (default 8)")
    slurm.add_argument("--time", default="04:00:00", help="time limit per task (default 04:00:00)")
    slurm.add_argument("--cpus", type=int, default=8, help="CPU cores per task, for the builds (default 8)")
    slurm.add_argument("--sbatch", action="append", default=[], metavar="LINE", help='extra #SBATCH line, e.g. "--partition=gpu"')

    collect = commands.add_parser("collect", help="merge a batch's results (after the Slurm tasks have ended)")
    collect.add_argument("out", type=Path, help="the batch's results folder")

    commands.add_parser("list", help="list the labs")
    return parser.parse_args(argv)


def choose_arch(requested: str, device: gpu.Gpu) -> str:
    if requested != "auto":
        return requested
    return "native" if device.present else "sm_90"


class CannotGrade(Exception):
    """Nothing can be graded: the submission cannot be read, or the build cannot be set up."""


def prepare_tree(args, config: Config, device: gpu.Gpu, console: Console) -> build.BuildTree:
    student_dir = getattr(args, "submission", REPO_ROOT / "labs").resolve()
    if student_dir != (REPO_ROOT / "labs").resolve():
        # A submission: build only its kernel.cu files, copied next to the build folder.
        try:
            submission = read_submission(student_dir, [lab.name for lab in config.labs])
        except SubmissionError as error:
            raise CannotGrade(f"cannot grade this submission: {error}") from error
        assembled = args.build_dir.resolve().with_name(args.build_dir.name + "-student")
        args.kernel_sources = assemble_student_dir(config, submission, assembled)
        args.ignored_files = submission.ignored
        args.kernel_sha256 = {lab.name: submission.digest(lab.name) for lab in config.labs}
        student_dir = assembled
    tree = build.BuildTree(args.build_dir, student_dir, choose_arch(args.arch, device))
    with console.status(f"Configuring the build in {tree.directory} (nvcc -arch={tree.gpu_arch})"):
        outcome = build.configure(tree, config.timeouts["build"])
    if not outcome.ok:
        raise CannotGrade(f"the build could not be set up ({outcome.how_it_ended()}):\n{outcome.tail(15)}")
    return tree


def command_grade(args, console: Console) -> int:
    config = load_config()
    if args.step_timeout:
        config.timeouts = {step: limit if step == "build" else min(limit, args.step_timeout) for step, limit in config.timeouts.items()}
    labs = [config.lab(key) for key in args.lab] if args.lab else config.labs
    variants = ["student", "solution"] if args.compare else ["solution"] if args.solutions else ["student"]
    device = gpu.detect_gpu()
    notes = []
    target = load_target(args.target) if args.target else find_target(device.name) if device.present else None
    if device.present and target is None:
        notes.append(f"No thresholds for {device.name}: performance is not graded. Run ./cml calibrate first.")
    try:
        instructor_sizes = load_instructor_sizes(args.instructor_sizes) if args.instructor_sizes else {}
        seed = args.seed if args.seed is not None else secrets.randbits(48)
        for lab in labs:
            lab_sizes(lab, seed, instructor_sizes)  # a malformed instructor size is a usage error, up front
    except (OSError, ValueError) as error:
        console.print(f"[bold red]--instructor-sizes:[/] {error}")
        return EXIT_USAGE
    context = {
        "device": device.name or None,
        "gpu_reason": device.reason or None,
        "target": target.shown_path() if target else None,
        "submission": str(args.submission),
        "seed": seed,
        "notes": notes,
    }
    try:
        tree = prepare_tree(args, config, device, console)
    except CannotGrade as error:
        # Still a result for every platform: 0 points, and the reason where the student reads it.
        console.print(f"[bold red]{error}[/]")
        run = report.ungraded_run(context, sum(lab.max_points for lab in labs), str(error))
        report.save_run(args.json, run)
        write_exports(run, gradescope=args.gradescope, junit=args.junit, html=args.html)
        return EXIT_BROKEN
    emulator = not device.present and tree.has_emulator()
    if emulator:
        notes.append(f"No GPU ({device.reason}): the tests, sanitizers and counters ran on the CPU emulator "
                     "(common/emu), each such check marked '(CPU emulator)'; the speed checks are 'not run'.")
    elif not device.present:
        notes.append(f"GPU checks were not run: {device.reason}; {build.EMULATOR_MISSING}. They are reported "
                     "as 'not run', not as passed.")
    sanitizer, ncu = gpu.find_tool("compute-sanitizer"), gpu.find_tool("ncu")
    for tool, path, what in (("compute-sanitizer", sanitizer, "sanitizer"), ("ncu", ncu, "profiler-counter")):
        if device.present and path is None and not args.no_mechanisms:
            notes.append(f"{tool} was not found (it comes with the CUDA toolkit): the {what} checks are 'not run'.")
    ctx = Context(
        config=config,
        tree=tree,
        gpu=device,
        target=target,
        sanitizer=sanitizer,
        ncu=ncu,
        run_mechanisms=not args.no_mechanisms,
        run_bench=not args.no_bench,
        kernel_sources=getattr(args, "kernel_sources", None),
        seed=seed,
        instructor_sizes=instructor_sizes,
        emulator=emulator,
    )
    if device.present:
        console.print(f"GPU: {device.name} (compute capability {device.compute_capability}); "
                      f"thresholds: {target.shown_path() if target else 'none'}")
    grades = []
    with console.status("") as status:
        for lab in labs:
            for variant in variants:
                def progress(step: str, lab=lab, variant=variant) -> None:
                    status.update(f"Lab {lab.name} ({variant}): {step}")
                grades.append(grade_lab(ctx, lab, variant, progress))
    report.print_report(console, grades, target, notes)
    context.update(cpu_emulator=emulator, files_used=getattr(args, "kernel_sources", None),
                   files_ignored=getattr(args, "ignored_files", []), kernel_sha256=getattr(args, "kernel_sha256", {}))
    run = report.write_json(args.json, grades, context, target)
    console.print(f"Results written to {args.json}")
    write_exports(run, gradescope=args.gradescope, junit=args.junit, html=args.html)
    for path in (args.gradescope, args.junit, args.html):
        if path:
            console.print(f"Written: {path}")
    verdicts = {verdict(g) for g in grades}
    if "failed" in verdicts:
        return EXIT_FAILED
    return EXIT_INCOMPLETE if "incomplete" in verdicts else EXIT_PASSED


def command_calibrate(args, console: Console) -> int:
    device = gpu.detect_gpu()
    if not device.present:
        console.print(f"[bold red]calibrate needs a GPU:[/] {device.reason}")
        return EXIT_USAGE
    config = load_config()
    try:
        tree = prepare_tree(args, config, device, console)
    except CannotGrade as error:
        console.print(f"[bold red]{error}[/]")
        return EXIT_BROKEN
    with console.status("") as status:
        path = calibrate(config, tree, device, args.fraction, args.output, status.update)
    console.print(f"Wrote {path}")
    return EXIT_PASSED


def command_list(console: Console) -> int:
    for lab in load_config().labs:
        console.print(f"{lab.number}  {lab.name:<24} {lab.title}")
    return EXIT_PASSED


def grade_options(args) -> list[str]:
    """What a batch passes on to each grader process."""
    options = ["--arch", args.arch]
    if args.step_timeout:
        options += ["--step-timeout", str(args.step_timeout)]
    if args.instructor_sizes:
        options += ["--instructor-sizes", str(args.instructor_sizes.resolve())]
    if args.target:
        options += ["--target", str(args.target.resolve())]
    return options


def plan_batch(args, console: Console):
    config = load_config()
    labs = [config.lab(key) for key in args.lab] if args.lab else config.labs
    tasks, students, unreadable = batch.plan(args.submissions, labs, config)
    args.out.mkdir(parents=True, exist_ok=True)
    submitted: dict[str, list[str]] = {}
    for task in tasks:
        submitted.setdefault(task.student, []).append(task.lab.name)
    plan = {"labs": [lab.name for lab in labs], "students": students, "unreadable": unreadable, "submitted": submitted}
    (args.out / "plan.json").write_text(json.dumps(plan, indent=2) + "\n")
    for student, why in unreadable.items():
        console.print(f"[red]{student}: cannot be graded:[/] {why}")
    return config, tasks


def run_batch(args, console: Console, config: Config, tasks: list, gpus: list, worker_prefix: str = "w") -> int:
    todo = [t for t in tasks if not batch.already_graded(args.out, t)]
    console.print(f"{len(tasks)} tasks (lab x submission); {len(tasks) - len(todo)} already graded; "
                  f"{len(todo)} to grade on {len(gpus)} worker(s)")
    with Progress(*Progress.get_default_columns(), TextColumn("{task.description}"), console=console) as bar:
        progress = bar.add_task("grading", total=len(todo))

        def done(task, error) -> None:
            bar.update(progress, advance=1, description=f"{task.student} {task.lab.name}" + (" (grader error)" if error else ""))

        stop = getattr(args, "stop_after", None)
        deadline = time.monotonic() + 60 * stop if stop else None
        failures = batch.run_tasks(todo, args.out, gpus, grade_options(args), batch.task_timeout(config), done,
                                   worker_prefix, deadline)
    for (student, lab), why in failures.items():
        console.print(f"[red]{student} {lab}: {why}[/]")
    return EXIT_FAILED if failures else EXIT_PASSED


def command_batch(args, console: Console) -> int:
    config, tasks = plan_batch(args, console)
    present = gpu.gpu_count()
    count = args.workers or max(1, present)
    # More workers than GPUs share them round-robin (their timings then disturb each other).
    gpus = [str(i % present) for i in range(count)] if present else [None] * count
    status = run_batch(args, console, config, tasks, gpus)
    return command_collect(args.out, console, config) or status


def command_batch_task(args, console: Console) -> int:
    try:
        index, count = slurm.array_share()
    except RuntimeError as error:
        print(f"batch-task: {error}", file=sys.stderr)
        return EXIT_USAGE
    config, tasks = plan_batch(args, console)
    console.print(f"Slurm array task {index} of {count}")
    # The GPU Slurm gave this task, and a build folder per task: the tasks share the results folder.
    return run_batch(args, console, config, tasks[index::count], [None], worker_prefix=f"slurm-task{index}-")


def command_slurm(args, console: Console) -> int:
    plan_batch(args, console)
    labs = [arg for lab in args.lab or [] for arg in ("--lab", lab)]
    script = slurm.write_script(args.submissions, args.out, args.tasks, grade_options(args) + labs,
                                args.time, args.cpus, args.sbatch)
    console.print(f"Wrote {script}\nSubmit it with: sbatch {script}\nThen, when every task has ended: ./cml collect {args.out}")
    return EXIT_PASSED


def command_collect(out: Path, console: Console, config: Config | None = None) -> int:
    plan_file = out / "plan.json"
    if not plan_file.exists():
        console.print(f"[bold red]{out} holds no batch[/] (no plan.json): run ./cml batch or ./cml slurm first")
        return EXIT_USAGE
    rows = collect_results(out, config or load_config(), json.loads(plan_file.read_text()))
    table = Table("student", "score", "labs")
    for row in rows:
        labs = ", ".join(f"{k[:2]}: {v}" for k, v in row.items() if k[:2].isdigit())
        table.add_row(row["student"], f"{row['score']} / {row['max_score']}", labs + (f" {row['notes']}" if row.get("notes") else ""))
    console.print(table)
    console.print(f"Written: {out / 'results.csv'}, {out / 'results.json'}, and per student {out / 'students'}/*/")
    return EXIT_PASSED


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    # Wide tables in logs and CI, where there is no terminal to measure.
    console = Console(width=None if sys.stdout.isatty() else 150)
    if args.command == "grade":
        return command_grade(args, console)
    if args.command == "calibrate":
        return command_calibrate(args, console)
    if args.command == "batch":
        return command_batch(args, console)
    if args.command == "batch-task":
        return command_batch_task(args, console)
    if args.command == "slurm":
        return command_slurm(args, console)
    if args.command == "collect":
        return command_collect(args.out, console)
    return command_list(console)
