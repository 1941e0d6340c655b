"""Command line of the grader: ./cml grade | calibrate | list (./cml is python -m grader with setup)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from rich.console import Console

from grader import build, gpu, report
from grader.calibrate import calibrate
from grader.config import REPO_ROOT, Config, find_target, load_config, load_target
from grader.grade import Context, grade_lab
from grader.score import verdict
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
    everything is still built, and the GPU checks are reported as "not run", never as passed.
    """
)

EPILOG = textwrap.dedent(
    """\
    exit status: 0 every lab passed; 1 a lab failed; 2 bad arguments; 3 the build could not be set up;
    4 nothing failed, but some checks could not run here (no GPU, no sanitizer).
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
    grade.add_argument("--student-dir", type=Path, default=REPO_ROOT / "labs", help="folder of NN_name/kernel.cu files (default: labs)")
    grade.add_argument("--target", type=Path, help="thresholds file (default: the grader/targets/*.toml matching the GPU)")
    grade.add_argument("--json", type=Path, default=REPO_ROOT / ".results" / "grade.json", help="where to write the results as JSON (default: .results/grade.json)")
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

    commands.add_parser("list", help="list the labs")
    return parser.parse_args(argv)


def choose_arch(requested: str, device: gpu.Gpu) -> str:
    if requested != "auto":
        return requested
    return "native" if device.present else "sm_90"


def prepare_tree(args, config: Config, device: gpu.Gpu, console: Console) -> build.BuildTree | None:
    student_dir = getattr(args, "student_dir", REPO_ROOT / "labs").resolve()
    if student_dir != (REPO_ROOT / "labs").resolve():
        # Another folder (a fixture, a submission): build only its kernel.cu files, next to the build folder.
        assembled = args.build_dir.resolve().with_name(args.build_dir.name + "-student")
        args.kernel_sources = assemble_student_dir(config, student_dir, assembled)
        student_dir = assembled
    tree = build.BuildTree(args.build_dir, student_dir, choose_arch(args.arch, device))
    with console.status(f"Configuring the build in {tree.directory} (nvcc -arch={tree.gpu_arch})"):
        outcome = build.configure(tree, config.timeouts["build"])
    if not outcome.ok:
        console.print(f"[bold red]The build could not be set up[/] ({outcome.how_it_ended()}):\n{outcome.tail(15)}")
        return None
    return tree


def command_grade(args, console: Console) -> int:
    config = load_config()
    if args.step_timeout:
        config.timeouts = {step: limit if step == "build" else min(limit, args.step_timeout) for step, limit in config.timeouts.items()}
    labs = [config.lab(key) for key in args.lab] if args.lab else config.labs
    variants = ["student", "solution"] if args.compare else ["solution"] if args.solutions else ["student"]
    device = gpu.detect_gpu()
    notes = []
    if not device.present:
        notes.append(f"GPU checks were not run: {device.reason}. They are reported as 'not run', not as passed.")
    target = load_target(args.target) if args.target else find_target(device.name) if device.present else None
    if device.present and target is None:
        notes.append(f"No thresholds for {device.name}: performance is not graded. Run ./cml calibrate first.")
    tree = prepare_tree(args, config, device, console)
    if tree is None:
        return EXIT_BROKEN
    ctx = Context(
        config=config,
        tree=tree,
        gpu=device,
        target=target,
        sanitizer=gpu.find_tool("compute-sanitizer"),
        ncu=gpu.find_tool("ncu"),
        run_mechanisms=not args.no_mechanisms,
        run_bench=not args.no_bench,
        kernel_sources=getattr(args, "kernel_sources", None),
    )
    if device.present:
        console.print(f"GPU: {device.name} (compute capability {device.compute_capability}); "
                      f"thresholds: {target.path if target else 'none'}")
    grades = []
    with console.status("") as status:
        for lab in labs:
            for variant in variants:
                def progress(step: str, lab=lab, variant=variant) -> None:
                    status.update(f"Lab {lab.name} ({variant}): {step}")
                grades.append(grade_lab(ctx, lab, variant, progress))
    report.print_report(console, grades, target, notes)
    report.write_json(
        args.json,
        grades,
        {"device": device.name or None, "gpu_reason": device.reason or None, "target": str(target.path) if target else None},
    )
    console.print(f"Results written to {args.json}")
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
    tree = prepare_tree(args, config, device, console)
    if tree is None:
        return EXIT_BROKEN
    with console.status("") as status:
        path = calibrate(config, tree, device, args.fraction, args.output, status.update)
    console.print(f"Wrote {path}")
    return EXIT_PASSED


def command_list(console: Console) -> int:
    for lab in load_config().labs:
        console.print(f"{lab.number}  {lab.name:<24} {lab.title}")
    return EXIT_PASSED


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    # Wide tables in logs and CI, where there is no terminal to measure.
    console = Console(width=None if sys.stdout.isatty() else 150)
    if args.command == "grade":
        return command_grade(args, console)
    if args.command == "calibrate":
        return command_calibrate(args, console)
    return command_list(console)
