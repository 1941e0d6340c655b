"""./cml run: a lab's test or benchmark program, built from the checkout's labs/NN_name/kernel.cu by the steps a
grade builds it with (grader/grading/gather.py: built), then run as a student runs it by hand: on the GPU or the
CPU emulator, with a seed and sizes (a grade's own inputs: one seed draws the same sizes), under a sanitizer or
the emulator's checks, and with doctest's or the benchmark's own options.

It grades nothing: the program prints its own results (doctest's cases, the benchmark's table), and its exit
status is the command's. It runs the student's own code with the student's rights and outside the sandbox, as
the program run by hand would: it is for one's own kernel.cu, never for a submission of someone else's, which
./cml grade reads."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.config import REPO_ROOT, Lab
from grader.core.exits import UsageError
from grader.grading.context import Context
from grader.grading.gather import built
from grader.grading.plan import counted
from grader.grading.session import GradeRequest, start
from grader.grading.sizes import lab_sizes
from grader.steps import build, resources, sass
from grader.steps.sanitize import EMULATED_TOOLS, SANITIZERS

KINDS = ("test", "bench")


@dataclass
class RunRequest:
    """What ./cml run was asked for."""

    lab: str  # a number or a name
    kind: str = "test"  # "test" or "bench"
    emulator: bool = False  # the CPU emulator's build, even with a GPU here
    seed: int | None = None  # None: a fresh one, said before the program runs
    sizes: list[str] | None = None  # the grader's sizes for the drawn cases; None: those the seed draws
    check: str | None = None  # a sanitizer on a GPU, the emulator's check on the CPU
    profile: bool = False  # the emulator's counters per source line (CML_EMU_PROFILE)
    under: list[str] = field(default_factory=list)  # a command the program runs under, such as ncu and its options
    sass: bool = False  # the machine code of the kernel.cu (cuobjdump -sass) instead of a run
    arguments: list[str] = field(default_factory=list)  # the program's own (doctest's -tc=..., --size N)
    build_dir: Path = REPO_ROOT / "build"
    arch: str = "auto"
    work_dir: Path | None = None  # a grade's own folder for the steps (--work-dir), as ./cml grade takes it


@dataclass
class Prepared:
    """A program built and ready to run: its command, and the variables it runs with besides the caller's."""

    command: list[str]
    variables: dict[str, str]
    cwd: Path = REPO_ROOT

    def shown(self) -> str:
        """The command as a person types it in the checkout."""
        names = " ".join(f"{name}={shlex.quote(value)}" for name, value in self.variables.items())
        words = [str(Path(word).relative_to(Path.cwd())) if _inside_cwd(word) else word for word in self.command]
        return f"{names} {shlex.join(words)}".strip()


def _inside_cwd(word: str) -> bool:
    path = Path(word)
    return path.is_absolute() and path.is_relative_to(Path.cwd())


class BuildFailed(Exception):
    """The kernel.cu did not build (or its build was refused): what the compiler or the checks said."""


def checked(request: RunRequest, gpu_present: bool, emulator_built: bool) -> bool:
    """Whether the run is on the CPU emulator; a UsageError for what this machine or that choice cannot do."""
    emulated = request.emulator or not gpu_present
    if emulated and not emulator_built:
        raise UsageError(f"no GPU here and no CPU emulator: {build.EMULATOR_MISSING}")
    tools = EMULATED_TOOLS if emulated else SANITIZERS
    if request.check and request.check not in tools:
        where = "the CPU emulator" if emulated else "compute-sanitizer on a GPU"
        raise UsageError(f"--check {request.check}: {where} checks {', '.join(tools)}")
    if request.profile and not emulated:
        raise UsageError(
            "--profile counts the CPU emulator's loads per source line; on a GPU, run ncu: --under 'ncu ...'"
        )
    return emulated


def prepare(request: RunRequest, say: Callable[[str], None] = lambda _: None) -> Prepared:
    """Builds the lab's programs as a grade does and returns the command that runs the one asked for; raises
    UsageError for a choice this machine cannot run and BuildFailed where the kernel.cu does not build."""
    if request.kind not in KINDS:
        raise UsageError(f"a lab's programs are {', '.join(KINDS)}, not {request.kind}")
    session = start(
        GradeRequest(
            labs=[request.lab],
            build_dir=request.build_dir,
            arch=request.arch,
            seed=request.seed,
            mechanisms=False,
            bench=False,
            jobs=1,
            work_dir=request.work_dir,
            submission=REPO_ROOT / "labs",
        )
    )
    (lab,) = session.labs
    context = session.build(say)
    emulated = checked(request, context.gpu.present, context.tree.has_emulator())
    say(f"Building {lab.name}'s programs from {context.kernel_source(lab.name, 'student')}")
    for emulator_build in (False, True) if emulated else (False,):  # the emulator's integrity reads nvcc's object
        found = built(context, lab, "student", emulated=emulator_build)
        problem = found.integrity or ("" if found.ok else found.errors or "the build failed")
        if problem:
            raise BuildFailed(problem)
    if request.sass:
        return machine_code(context, lab.name)
    sizes = request.sizes if request.sizes is not None else lab_sizes(lab, session.seed, {})
    variables = {"CML_SEED": str(session.seed), "CML_GRADER_SIZES": ";".join(sizes)}
    program = context.program(lab.name, "student", request.kind, emulated)
    tool: list[str] = []
    if request.check and emulated:
        variables["CML_EMU_CHECK"] = request.check
    elif request.check:
        if context.sanitizer is None:
            raise UsageError("compute-sanitizer was not found (it comes with the CUDA toolkit)")
        tool = [str(context.sanitizer), "--tool", request.check]
    if request.profile:
        variables["CML_EMU_PROFILE"] = "-"
    arguments = request.arguments
    if emulated and request.kind == "bench" and "--size" not in arguments:
        arguments = [*emulator_size(lab, say), *arguments]
    return Prepared([*request.under, *tool, str(program), *arguments], variables)


def emulator_size(lab: Lab, say: Callable[[str], None]) -> list[str]:
    """The benchmark's --size on the CPU emulator, where the arguments name none: the size a grade counts the
    lab's accesses at there (labs.toml: profile_size), or a small one of its own for a lab it counts nothing of
    (labs.toml: emulator_bench_size).
    At the GPU's size it would run for minutes, and its times are the CPU's all the same."""
    sizes = [check.profile_size for check in lab.mechanisms if counted(check) and not check.gpu_only]
    size = str(max(sizes)) if sizes else str(lab.emulator_bench_size or "")
    if not size:
        return []
    say(f"On the CPU emulator the benchmark runs at --size {size}, a small size of its own (--size N for another)")
    return ["--size", size]


def machine_code(context: Context, lab: str) -> Prepared:
    """cuobjdump -sass of the kernel.cu's nvcc object, as the grader's checks of the machine code read it."""
    tool = resources.find_tool([folder for _, folder in context.tree.compilers()])
    if tool is None or not (tool.parent / sass.DISASSEMBLER).is_file():
        raise UsageError(f"{resources.TOOL} or {sass.DISASSEMBLER} not found (./cml installs them)")
    # cuobjdump runs nvdisasm, which it looks for on PATH or where NVDISASM_PATH says: not always beside itself.
    variables = {"NVDISASM_PATH": str(tool.parent)}
    return Prepared([str(tool), "-sass", str(context.kernel_object(lab, "student"))], variables)


def run(prepared: Prepared) -> int:
    """Runs the program with the terminal's input and output, and returns its exit status (a signal's, as the
    shell gives it: 128 + its number)."""
    try:
        ended = subprocess.run(prepared.command, env={**os.environ, **prepared.variables}, cwd=prepared.cwd)
    except OSError as error:
        raise UsageError(f"{prepared.command[0]}: {error.strerror}") from error
    return ended.returncode if ended.returncode >= 0 else 128 - ended.returncode
