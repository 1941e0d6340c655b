"""Grading one lab: build, tests, sanitizers and counters, benchmark, score. Each lab on its own, so
that one lab's broken build, crash or hang never stops the grading of the others."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from grader import bench, build, checks, profile, sanitize, suite
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
    kernel_sources: dict[str, str] | None = None  # lab -> the submitted file, when the student folder was assembled


Progress = Callable[[str], None]


def kernel_path(ctx: Context, lab: Lab, variant: str) -> Path:
    if variant == "solution":
        return build.REPO_ROOT / "solutions" / lab.name / "kernel.cu"
    if ctx.kernel_sources:
        return Path(ctx.kernel_sources[lab.name])
    return ctx.tree.student_dir / lab.name / "kernel.cu"


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
    tests = suite.run_suite(ctx.tree.binary(lab.name, variant, "test"), timeouts["tests"])
    handout = f"labs/{lab.name}/README.md"
    grade.checks += checks.correctness_checks(tests, handout)

    if tests.outcome.timed_out:
        # The same kernel would hang every later step as well: stop here, with the reason on each check.
        reason = f"not run: the test program {tests.outcome.how_it_ended()}"
        names = [m.name for m in lab.mechanisms] + [lab.speedup_check()]
        categories = [Category.MECHANISM] * len(lab.mechanisms) + [Category.PERFORMANCE]
        grade.checks += [Check(n, c, Status.FAILED, reason) for n, c in zip(names, categories)]
        return score(grade, lab.points)

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
        metrics = [m for m in (mechanism.numerator, mechanism.denominator) if m]

        def counters(role: str) -> profile.CounterRun:
            bench_binary = ctx.tree.binary(lab.name, variant, "bench")
            return profile.read_counters(
                ctx.ncu, bench_binary, metrics, role, mechanism.profile_size, timeouts["profile"]
            )

        baseline = counters(mechanism.relative_to) if mechanism.relative_to else None
        check = checks.counter_check(mechanism, counters("student"), baseline)
    else:
        raise ValueError(f"unknown mechanism tool {mechanism.tool!r} in labs.toml")
    # A clean report from a kernel that computes the wrong thing proves nothing: it earns no points.
    if check.status is Status.PASSED and not correct:
        detail = f"clean ({check.detail}), but it counts only once every correctness test passes"
        return Check(mechanism.name, Category.MECHANISM, Status.WITHHELD, detail)
    return check


def performance(ctx: Context, lab: Lab, variant: str, grade: LabGrade) -> list[Check]:
    name = lab.speedup_check()
    if not ctx.run_bench:
        return [Check(name, Category.PERFORMANCE, Status.NOT_RUN, "turned off (--no-bench)")]
    if not ctx.gpu.present:
        return [Check(name, Category.PERFORMANCE, Status.NOT_RUN, ctx.gpu.reason)]
    run = bench.run_bench(ctx.tree.binary(lab.name, variant, "bench"), ctx.config.timeouts["bench"])
    grade.bench = run.result
    thresholds = ctx.target.for_lab(lab.name) if ctx.target else {}
    return checks.performance_checks(lab, run, thresholds, ctx.gpu.name)
