"""What the tests share to build and grade: the student's programs of a lab built in a build folder the tests
share, in a work folder of the test's own, and a grade on the CPU emulator."""

from __future__ import annotations

import importlib.util
import json
import secrets
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from grader.core.config import REPO_ROOT, Config, Thresholds, load_config
from grader.core.model import BenchResult, Category, Check, KernelTiming, LabGrade, Status
from grader.execution import proc
from grader.execution.gpu import Gpu
from grader.grading.checks import performance_checks
from grader.grading.context import Context
from grader.grading.grade import grade_lab
from grader.grading.judge import EMULATED, NO_TIMING
from grader.reporting.score import verdict
from grader.steps import build, resources
from grader.steps.bench import BenchRun, parse_bench
from grader.steps.build_tree import BuildTree
from grader.steps.student_steps import KINDS, StudentWork

LAB_NAMES = [lab.name for lab in load_config().labs]


def student_work(labs_folder: Path, root: Path) -> StudentWork:
    """The kernel.cu files of a folder of labs (as labs/ holds them), their steps working in `root`."""
    return StudentWork(root, {lab: labs_folder / lab / "kernel.cu" for lab in LAB_NAMES})


def built_programs(
    tree: BuildTree, config: Config, lab: str, variant: str, emulated: bool, work: StudentWork | None = None
) -> dict[str, Path]:
    """kind ('test', 'bench') -> the program, built: the grader's own variant by Meson, the student's (from
    `work`) by its own steps, as a grade builds them with the static checks off."""
    timeout = config.timeouts["build"]
    if variant != "student":
        outcome = build.build_variant(tree, lab, variant, timeout, emulated)
        assert outcome.ok, build.compiler_errors(outcome, source=None)
        return {kind: tree.binary(lab, variant, kind, emulated) for kind in KINDS}
    assert work is not None, "a student's programs are built from a work folder"
    build.prepare_student(tree, [lab], timeout, emulated)
    steps = work.steps(tree, lab, emulated)
    compiled = steps.compile(timeout)
    assert compiled.ok, build.compiler_errors(compiled)
    for kind in KINDS:
        linked = steps.link(kind, timeout)
        assert linked.ok, build.compiler_errors(linked)
    return {kind: steps.program(kind) for kind in KINDS}


def emulator_context(
    tree: BuildTree, config: Config, work: StudentWork | None = None, seed: int | None = None
) -> Context:
    """A grading run on the CPU emulator, as a machine without a GPU grades, of `work` (None: the checkout's labs)."""
    return Context(
        config,
        tree,
        Gpu(False, reason="the test grades on the CPU emulator"),
        None,
        None,
        None,
        seed=secrets.randbits(48) if seed is None else seed,
        emulator=True,
        work=work,
    )


def graded_without_a_gpu(
    tree: BuildTree, config: Config, lab: str, variant: str, work: StudentWork | None = None
) -> LabGrade:
    ctx = emulator_context(tree, config, work)
    print(f"grading {lab} ({variant}) on the CPU emulator, seed {ctx.seed}")
    return grade_lab(ctx, config.lab(lab), variant)


# Sizes at which the emulator runs each benchmark in seconds; the checks do not depend on the size.
BENCH_SIZES = {
    "01": 65536,
    "02": 65536,
    "03": 16384,
    "04": 64,
    "05": 128,
    "06": 65536,
    "07": 16384,
    "08": 128,
    "09": 65536,
    "10": 65536,
    "11": 65536,
    "12": 16384,
}


def benchmarked(
    tree: BuildTree,
    config: Config,
    lab: str,
    variant: str,
    tmp_path: Path,
    options: tuple[str, ...] = (),
    work: StudentWork | None = None,
) -> tuple[proc.Outcome, BenchResult]:
    """The lab's benchmark, built for the emulator and run at a small size (with `options`); its JSON as the
    grader reads it."""
    program = built_programs(tree, config, lab, variant, emulated=True, work=work)["bench"]
    results = tmp_path / f"{lab}.json"
    command = [str(program), "--size", str(BENCH_SIZES[lab[:2]]), "--json", str(results), *options]
    outcome = proc.run(command, config.timeouts["bench"])
    assert outcome.ok, outcome.tail(20)
    return outcome, parse_bench(json.loads(results.read_text()))


def kernel_of(result: BenchResult, role: str) -> KernelTiming:
    """The kernel of `role`; in a lab measured in groups, that of the first group."""
    found = next((k for k in result.kernels if k.role == role), None)
    assert found is not None, f"the benchmark reported no {role} kernel"
    return found


def speed_check(config: Config, lab: str, outcome: proc.Outcome, result: BenchResult) -> list[Check]:
    """The lab's speed check as the grader makes it, against a threshold any honest kernel passes here."""
    lab_config = config.lab(lab)
    thresholds = {group: Thresholds(min_speedup=1e-9) for group in result.groups()}
    checks = performance_checks(lab_config, BenchRun(outcome, result), thresholds, "the CPU emulator")
    return [check for check in checks if check.category is Category.PERFORMANCE]


def assert_passes_every_test_and_mechanism_and_no_speed_is_graded(grade, config, lab: str):
    by_category = {category: [c for c in grade.checks if c.category is category] for category in Category}
    gpu_only = {m.name: m.gpu_only for m in config.lab(lab).mechanisms if m.gpu_only}
    # The compiler's resource report and the object's machine code are nvcc's, read as on a GPU: nothing of them
    # is emulated, and they say so by bearing no emulator mark.
    from_nvcc = {m.name for m in config.lab(lab).mechanisms if m.tool in ("resources", "sass")}
    # A check of the stretch's kernel is graded for no points, among the stretch's: the solution passes it too.
    stretch = {m.name for m in config.lab(lab).mechanisms if m.stretch}
    stretch_checks = [c for c in by_category[Category.STRETCH] if c.name in stretch]
    assert len(stretch_checks) == len(stretch)
    for check in by_category[Category.CORRECTNESS] + by_category[Category.MECHANISM] + stretch_checks:
        if check.name in gpu_only:  # not run here, and the report says why: never passed
            assert (check.status, check.detail) == (Status.NOT_RUN, f"counted on a GPU only: {gpu_only[check.name]}")
            continue
        assert check.status is Status.PASSED, f"{check.name}: {check.status.value}: {check.detail}"
        marked = EMULATED in check.detail.splitlines()[0]
        assert marked != (check.name in from_nvcc), f"{check.name}: the emulator mark where it ran is {marked}"
    graded = [m for m in config.lab(lab).mechanisms if not m.stretch]
    assert by_category[Category.CORRECTNESS] and len(by_category[Category.MECHANISM]) == len(graded)
    assert [(c.status, c.detail) for c in by_category[Category.PERFORMANCE]] == [(Status.NOT_RUN, NO_TIMING)]
    assert verdict(grade) == "incomplete"


def lab_entry(lab: str, checks: list[dict]) -> dict:
    """A lab's entry in grade.json with these checks, and what every entry holds besides."""
    facts = {"title": "t", "variant": "student", "kernel_path": "k", "verdict": "?", "points": 0, "max_points": 0}
    return {"lab": lab, **facts, "checks": checks}


def graded(labs: list[dict], **facts) -> dict:
    """A grade.json holding these labs' entries."""
    return {"labs": labs, "score": 0, "max_score": 0, **facts}


def nvcc_and_cuobjdump() -> tuple[str, Path]:
    nvcc, tool = shutil.which("nvcc"), resources.find_tool([])
    if nvcc is None or tool is None:
        pytest.skip("needs nvcc and cuobjdump (the CUDA toolkit, or the nvidia-cuda-cuobjdump wheel)")
    return nvcc, tool


def compile_object(nvcc: str, source: Path, out: Path, includes: Sequence[Path] = ()) -> Path:
    flags = [f"-I{folder}" for folder in includes]
    subprocess.run([nvcc, "-c", "-arch=sm_90", *flags, str(source), "-o", str(out)], check=True, capture_output=True)
    return out


def load_tool(name: str):
    path = REPO_ROOT / "tools" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
