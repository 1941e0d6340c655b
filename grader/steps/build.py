"""Setting up the Meson build folder and building the grader's own parts of it: each lab's harness (tests,
baseline, checker, common/, the recorders) and the reference solutions. Only the grader's own sources are built
here, with the grader's rights, by Ninja, under the folder's lock; a student's kernel.cu is compiled and linked by
its own steps, in the sandbox (grader/steps/student_steps.py), against the harness built here once."""

from __future__ import annotations

import json
import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from grader.core.config import REPO_ROOT
from grader.core.exits import GraderError
from grader.execution import folder_lock, proc, sandbox
from grader.steps.build_commands import ninja
from grader.steps.build_tree import BuildTree
from grader.steps.student_steps import KINDS, StudentSteps, link_command, program_name

VARIANTS = ("student", "solution")
# meson.build configures the CPU emulator's targets (common/emu) only where it finds both.
EMULATOR_MISSING = (
    "the CPU emulator is not built here: it needs clang++ and Boost.Context "
    "(Debian: clang and libboost-context-dev, which ./cml installs on a machine without a GPU)"
)
# Ninja unable to read the folder's build file (damaged by a grader killed while Meson wrote it, or a full disk),
# as opposed to a command of the build that failed or a target it does not know: only then is the folder set up
# anew, since other graders may be using it.
NINJA_BROKEN = re.compile(r"^ninja: error: (loading 'build\.ninja'|build\.ninja:\d+: )", re.M)


def configure(tree: BuildTree, timeout_s: float, reuse: bool = False, emulated: bool = False) -> proc.Outcome:
    """meson setup, or reconfigure with the options of this run when the build tree exists already. With
    `reuse`, nothing where the tree was set up with these options already (a batch worker's next student: the
    reconfigure took 3.5 s on a 2-core machine, 6 s beside another grade); Ninja sets it up again itself should
    meson.build or labs.toml change. For a run on the CPU emulator (`emulated`), only a tree that has the
    emulator's targets: which of them exist depends on what was installed when the tree was set up. A folder
    Meson cannot set up again (a damaged one) is emptied and set up anew."""
    options: dict[str, str | bool] = {"gpu_arch": tree.gpu_arch}
    if tree.variants:
        options["variants"] = True  # once on, a build folder keeps them: they only add targets
    given = [f"-D{name}={'true' if value is True else value}" for name, value in options.items()]
    command = ["meson", "setup", str(tree.directory), str(REPO_ROOT), *given]
    with folder_lock.held(tree.directory):
        if reuse and set_up_with(tree, options) and (tree.has_emulator() or not emulated):
            return proc.Outcome(command, 0, "set up already with these options", "", timeout_s)
        if (tree.directory / "meson-private").is_dir():
            again = proc.run([*command[:2], "--reconfigure", *command[2:]], timeout_s)
            if again.ok:
                return again
            folder_lock.empty(tree.directory)
        return proc.run(command, timeout_s)


def set_up_with(tree: BuildTree, options: dict[str, str | bool]) -> bool:
    """Whether Meson set up the build tree with `options`, by its own record of them."""
    try:
        recorded = json.loads((tree.directory / "meson-info" / "intro-buildoptions.json").read_text())
    except (OSError, ValueError):
        return False
    values = {option.get("name"): option.get("value") for option in recorded if isinstance(option, dict)}
    return (tree.directory / "build.ninja").is_file() and all(values.get(k) == v for k, v in options.items())


def compile_targets(tree: BuildTree, targets: list[str], timeout_s: float, keep_going: bool = False) -> proc.Outcome:
    """meson compile of `targets`, the grader's own, under the folder's lock; `keep_going`, past a target that
    fails. Where Ninja itself fails (a damaged log), the folder is set up anew and the targets built again."""
    command = [shutil.which("meson") or "meson", "compile", "-C", str(tree.directory.resolve()), *targets]
    command += ["--ninja-args=-k0"] if keep_going else []
    with folder_lock.held(tree.directory):
        built = proc.run(command, timeout_s)
    if built.ok or not NINJA_BROKEN.search(built.stdout + built.stderr):
        return built
    with folder_lock.held(tree.directory):
        folder_lock.empty(tree.directory)
    set_up = configure(tree, timeout_s)
    if not set_up.ok:
        return set_up
    with folder_lock.held(tree.directory):
        return proc.run(command, timeout_s)


def build_objects(tree: BuildTree, objects: list[str], timeout_s: float) -> proc.Outcome:
    """Ninja's build of these files of the folder (the grader's own), under its lock, past any that fails."""
    with folder_lock.held(tree.directory):
        return proc.run([ninja(), "-C", str(tree.directory), "-k0", *objects], timeout_s)


def build_variant(tree: BuildTree, lab: str, variant: str, timeout_s: float, emulated: bool = False) -> proc.Outcome:
    """Builds one lab's test and benchmark programs and its checker for a variant of the grader's own (the
    reference solution: alias target NN_name_variant), or their CPU emulator builds (NN_name_variant_emu)."""
    targets = [f"{lab}_{variant}_emu" if emulated else f"{lab}_{variant}"]
    return compile_targets(tree, targets + tree.recorder_targets(emulated), timeout_s)


def student_inputs(tree: BuildTree, lab: str, emulated: bool) -> tuple[list[str], list[str]]:
    """What a student's programs of `lab` link besides their kernel.cu: (Meson targets, other files of the
    folder), every one the grader's own."""
    files: list[str] = []
    for kind in KINDS:
        _, inputs = link_command(tree, lab, kind, emulated, "", program_name(lab, kind, emulated))
        files += [name for name in inputs if name not in files]
    return tree.own_targets(lab, emulated), files


def prepare_student(tree: BuildTree, labs: list[str], timeout_s: float, emulated: bool = False) -> None:
    """Builds the grader's own parts that the student's programs of `labs` link with, once per build folder
    (Ninja finds them built afterwards); their failure is the grader's (GraderError), never the student's."""
    targets: list[str] = []
    files: list[str] = []
    for lab in labs:
        own, inputs = student_inputs(tree, lab, emulated)
        targets += own
        files += inputs
    built = compile_targets(tree, list(dict.fromkeys(targets)), timeout_s)
    if built.ok:
        built = build_objects(tree, list(dict.fromkeys(files)), timeout_s)
    if not built.ok:
        raise GraderError(f"the grader's own part of {', '.join(labs)} does not build: {built.tail(3)}")


def compile_ahead(steps: list[StudentSteps], timeout_s: float) -> set[Path]:
    """Compiles the student's kernel.cu files of a run at once, at most as many as the machine has cores and
    memory for, past any that fails; the objects compiled. Nothing is judged here: each lab then finds its object
    compiled, or meets the failure alone, with its own compiler errors and its own time limit."""
    compiled: set[Path] = set()
    with ThreadPoolExecutor(max_workers=compile_slots()) as pool:
        for student, ran in zip(steps, pool.map(lambda s: s.compile(timeout_s), steps), strict=True):
            if ran.ok:
                compiled.add(student.object)
    return compiled


# How long the kernel.cu files of a run may compile together (compile_ahead); one still compiling then is
# compiled again on its own by its lab, with the build's whole time limit.
AHEAD_LIMIT_S = 120


def compile_slots() -> int:
    """How many kernel.cu compiles run at once: one a core, and no more than the memory holds at their limit."""
    available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return max(1, min(os.cpu_count() or 1, available // sandbox.STEP_LIMITS.memory))


# Where a compiler line is about (gcc and clang "FILE:LINE:", nvcc "FILE(LINE):", the assembler "FILE:LINE:" and
# "FILE: Assembler messages:", an include chain's "In file included from FILE:LINE"): its file.
DIAGNOSTIC_FILE = re.compile(
    r"^\s*(?:In file included from |from )?(?P<file>[^\s:()][^:()]*?)(?:\(\d+\)|:\d+|: Assembler messages:)"
)
COMPILER_ERROR = re.compile(r"\berror\b|undefined reference|multiple definition", re.IGNORECASE)


def compiler_errors(outcome: proc.Outcome, limit: int = 12, source: str | None = "kernel.cu") -> str:
    """The compiler's own error lines (and the lines after each), without Ninja's chatter, about the student's
    `source` alone: a line about any other file (and the lines that follow it, which quote that file) is left
    out and counted. Files are judged by name: every file named kernel.cu a compile can see is the student's
    own or a public skeleton, whereas an assembler's .include or a #line can make the compiler quote any other.
    `source` None: about every file (a build of the grader's own)."""
    kept: list[str] = []
    left_out = 0
    about: str | None = None  # the file the lines are about, from the last line that named one
    for line in (outcome.stdout + "\n" + outcome.stderr).splitlines():
        named = DIAGNOSTIC_FILE.match(line)
        if named:
            about = Path(named["file"].strip()).name
        if source is None or about in (None, source):
            kept.append(line)
        else:
            left_out += bool(line.strip())
    errors: list[str] = []
    for i, line in enumerate(kept):
        if COMPILER_ERROR.search(line):
            errors.extend(kept[i : i + 3])
        if len(errors) >= limit:
            break
    shown = proc.bounded("\n".join(dict.fromkeys(errors)) or "\n".join(kept[-limit:]).strip())
    others = (
        f"({left_out} lines of the compiler's output about files other than {source} not shown)" if left_out else ""
    )
    return "\n".join(part for part in (shown, others) if part)
