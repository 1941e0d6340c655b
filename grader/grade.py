"""Grading one lab: build, tests, sanitizers and counters, benchmark, score. Each lab on its own, so
that one lab's broken build, crash or hang never stops the grading of the others."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from grader import bench, build, checks, profile, sanitize, tests
from grader.config import Config, Lab, MechanismCheck, Target
from grader.gpu import Gpu
from grader.model import Category, Check, LabGrade, Status
from grader.score import correctness_passed, score

SANITIZERS = ("memcheck", "racecheck", "synccheck", "initcheck")


@dataclass
class Context:
    config: Config
    tree: build.BuildTree
    gpu: Gpu
    target: Target | None
    sanitizer: Path | None  # compute-sanitizer, if found
    ncu: Path | None
    run_mechanisms: bool = True
    run_bench: bool = True


Progress = Callable[[str], None]


def kernel_path(ctx: Context, lab: Lab, variant: str) -> Path:
    root = ctx.tree.student_dir if variant == "student" else build.REPO_ROOT / "solutions"
    return root / lab.name / "kernel.cu"


def grade_lab(ctx: Context, lab: Lab, variant: str, progress: Progress = lambda _: None) -> LabGrade:
    grade = LabGrade(lab.name, lab.title, variant, str(kernel_path(ctx, lab, variant)))
    timeouts = ctx.config.timeouts

    progress("building")
    outcome = build.build_lab(ctx.tree, lab.name, variant, timeouts["build"])
    if not outcome.ok:
        detail = build.compiler_errors(outcome)
        hint = f"fix {grade.kernel_path} until it compiles; the other labs are graded anyway"
        grade.checks.append(Check("build", Category.BUILD, Status.FAILED, detail, hint))
        return score(grade, lab.points)
    grade.checks.append(Check("build", Category.BUILD, Status.PASSED))

    progress("running the correctness tests")
    suite = tests.run_suite(ctx.tree.binary(lab.name, variant, "test"), timeouts["tests"])
    handout = f"labs/{lab.name}/README.md"
    grade.checks += checks.correctness_checks(suite, handout)

    for mechanism in lab.mechanisms:
        progress(mechanism.name)
        grade.checks.append(mechanism_check(ctx, lab, variant, mechanism, correctness_passed(grade.checks)))

    progress("benchmarking")
    grade.checks += performance(ctx, lab, variant, grade)
    return score(grade, lab.points)


def mechanism_check(ctx: Context, lab: Lab, variant: str, mechanism: MechanismCheck, correct: bool) -> Check:
    def not_run(reason: str) -> Check:
        return Check(mechanism.name, Category.MECHANISM, Status.NOT_RUN, reason)

    if not ctx.run_mechanisms:
        return not_run("turned off (--no-mechanisms)")
    if not ctx.gpu.present:
        return not_run(ctx.gpu.reason)
    timeouts = ctx.config.timeouts
    if mechanism.tool in SANITIZERS:
        if ctx.sanitizer is None:
            return not_run("compute-sanitizer not found (it comes with the CUDA toolkit)")
        binary = ctx.tree.binary(lab.name, variant, "test")
        check = checks.sanitizer_check(
            mechanism, sanitize.run_sanitizer(mechanism.tool, ctx.sanitizer, binary, timeouts["sanitizer"])
        )
    elif mechanism.tool == "ncu":
        if ctx.ncu is None:
            return not_run("ncu (Nsight Compute) not found")
        run = profile.read_counters(
            ctx.ncu,
            ctx.tree.binary(lab.name, variant, "bench"),
            [mechanism.numerator, mechanism.denominator],
            role="student",
            size=mechanism.profile_size,
            timeout_s=timeouts["profile"],
        )
        check = checks.counter_check(mechanism, run)
    else:
        raise ValueError(f"unknown mechanism tool {mechanism.tool!r} in labs.toml")
    # A clean report from a kernel that computes the wrong thing proves nothing: it earns no points.
    if check.status is Status.PASSED and not correct:
        return not_run(f"clean ({check.detail}), but it counts only once every correctness test passes")
    return check


def performance(ctx: Context, lab: Lab, variant: str, grade: LabGrade) -> list[Check]:
    name = f"speedup over {lab.baseline}"
    if not ctx.run_bench:
        return [Check(name, Category.PERFORMANCE, Status.NOT_RUN, "turned off (--no-bench)")]
    if not ctx.gpu.present:
        return [Check(name, Category.PERFORMANCE, Status.NOT_RUN, ctx.gpu.reason)]
    run = bench.run_bench(ctx.tree.binary(lab.name, variant, "bench"), ctx.config.timeouts["bench"])
    grade.bench = run.result
    thresholds = ctx.target.thresholds.get(lab.name) if ctx.target else None
    return checks.performance_checks(lab, run, thresholds, ctx.gpu.name)
