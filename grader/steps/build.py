"""Configuring the Meson build, building one lab's targets at a time, and what a compile read and saw (its
dependencies and its preprocessor output, which grader/steps/integrity judges)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.config import REPO_ROOT
from grader.core.exits import GraderError
from grader.execution import proc, sandbox
from grader.steps import student_steps
from grader.steps.student_steps import StudentSteps

VARIANTS = ("student", "solution")
RECORDER_TARGET = "cml_schedule_recorder"  # meson.build: the schedule check's recorder on a GPU
COUNTERS_TARGET = "cml_counters_recorder"  # meson.build: the counter checks' recorder, in a benchmark's run
# meson.build configures the CPU emulator's targets (common/emu) only where it finds both.
EMULATOR_MISSING = (
    "the CPU emulator is not built here: it needs clang++ and Boost.Context "
    "(Debian: clang and libboost-context-dev, which ./cml installs on a machine without a GPU)"
)


@dataclass
class CompileStep:
    """One compile of the build, as Meson's compile_commands.json records it (run in the build folder)."""

    command: list[str]
    source: Path
    output: str  # the object, relative to the build folder


@dataclass
class BuildTree:
    directory: Path
    student_dir: Path
    gpu_arch: str
    variants: bool = False  # also the calibration's kernels of variants/ (meson option `variants`)
    compiled_ahead: set[Path] = field(default_factory=set)  # student objects build_ahead compiled in this run

    def student(self, lab: str, emulated: bool = False) -> StudentSteps:
        """The steps that build a lab's programs from the student's kernel.cu (grader/steps/student_steps.py)."""
        return StudentSteps(self, lab, emulated)

    def binary(self, lab: str, variant: str, kind: str, emulated: bool = False) -> Path:
        """kind: 'test' or 'bench'; emulated: the CPU emulator's build of them (common/emu)."""
        if variant == "student":
            return self.student(lab, emulated).program(kind)
        return self.directory / f"{lab}_{variant}{'_emu' if emulated else ''}_{kind}"

    def variant_binary(self, lab: str, name: str, kind: str) -> Path:
        """A calibration kernel's test or benchmark program (variants/, built with variants=True)."""
        return self.directory / f"variant_{lab}__{name}_{kind}"

    def checker(self, lab: str) -> Path:
        """The lab's checker: its test cases without any kernel.cu, which judge a test program's record."""
        return self.directory / f"{lab}_checker"

    def compilers(self) -> list[tuple[Path, Path]]:
        """(install prefix, bin folder) of each compiler Meson configured, outside the system's folders."""
        try:
            found = json.loads((self.directory / "meson-info" / "intro-compilers.json").read_text())
        except (OSError, ValueError):
            return []
        places = []
        for machine in found.values():
            for compiler in machine.values():
                program = shutil.which(compiler["exelist"][0])
                if program:
                    folder = Path(program).resolve().parent
                    places.append((folder.parent, folder))
        return [place for place in dict.fromkeys(places) if not str(place[0]).startswith(sandbox.SYSTEM_DIRS)]

    def others_work(self) -> list[Path]:
        """What the build folder holds of code that is not this submission's: the solutions' and calibrate's
        compiled kernels, and what Meson itself built of a kernel.cu in the student folder before the student's
        steps ran apart from it. Hidden from a student's steps, which could otherwise embed it (`.incbin`)."""
        found = [*self.directory.glob("*_solution_*"), *self.directory.glob("*variant_*")]
        # Of the student's targets, Meson's folders of the test and benchmark programs hold the grader's objects.
        found += [path for path in self.directory.glob("*_student_*") if path.is_file() or path.suffix == ".p"
                  and path.name.endswith("_kernel.a.p")]  # fmt: skip
        return sorted({path.resolve() for path in found})

    def has_emulator(self) -> bool:
        """Whether Meson configured the CPU emulator's targets (meson.build, option `emulator`)."""
        return self.has_target("cml_emu_selftest")

    def has_target(self, name: str) -> bool:
        """Whether Meson configured a target of this name."""
        try:
            targets = json.loads((self.directory / "meson-info" / "intro-targets.json").read_text())
        except (OSError, ValueError):
            return False
        return any(target.get("name") == name for target in targets)

    def schedule_recorder(self) -> Path:
        """The schedule check's recorder for a GPU (common/schedule/cupti_recorder.cpp), built where CUPTI is."""
        return self.directory / f"lib{RECORDER_TARGET}.so"

    def counters_recorder(self) -> Path:
        """The counter checks' recorder for a GPU (common/counters/cupti_counters.cpp), built where CUPTI is."""
        return self.directory / f"lib{COUNTERS_TARGET}.so"

    def own_targets(self, lab: str, emulated: bool) -> list[str]:
        """The grader's own parts of a lab a student's programs need: its checker and baseline, and the
        recorders."""
        harness = [f"{lab}_checker", f"{lab}_baseline_emu_o" if emulated else f"{lab}_baseline"]
        return harness + self.recorder_targets(emulated)

    def recorder_targets(self, emulated: bool) -> list[str]:
        """The recorders of the schedule and counter checks, for a GPU, where the build has them."""
        if emulated:
            return []
        return [name for name in (RECORDER_TARGET, COUNTERS_TARGET) if self.has_target(name)]

    def kernel_source(self, lab: str, variant: str) -> Path:
        folder = REPO_ROOT / "solutions" if variant == "solution" else self.student_dir
        return folder / lab / "kernel.cu"

    def kernel_library(self, lab: str, variant: str) -> Path:
        """What the kernel.cu compiled into: the static library meson.build makes of it, or the student's object."""
        if variant == "student":
            return self.student(lab).object
        return self.directory / f"lib{lab}_{variant}_kernel.a"

    def harness_libraries(self, lab: str) -> list[Path]:
        return [self.directory / "libcml_common.a", self.directory / f"lib{lab}_baseline.a"]

    def kernel_compile(self, lab: str, variant: str) -> CompileStep:
        """The compile of a kernel.cu into its library's object."""
        return self.compile_step(f"lib{lab}_{variant}_kernel.a.p/", "kernel.cu")

    def interface_compile(self, lab: str) -> CompileStep:
        """The compile of the checker's stand-ins for a kernel.cu (tests/NN_name/checker_stubs.cpp), which
        define exactly the lab's interface."""
        return self.compile_step(f"{lab}_checker.p/", "checker_stubs.cpp")

    def compile_commands(self) -> list[dict]:
        try:
            return json.loads((self.directory / "compile_commands.json").read_text())
        except (OSError, ValueError) as error:
            raise GraderError(f"no compile_commands.json in {self.directory}: {error}") from error

    def objects(self, target: str) -> list[str]:
        """The objects Meson compiles for `target` (relative to the build folder), without linking it."""
        return [step["output"] for step in self.compile_commands() if step["output"].startswith(f"{target}.p/")]

    def compile_step(self, object_folder: str, source_name: str) -> CompileStep:
        for step in self.compile_commands():
            if step["output"].startswith(object_folder) and Path(step["file"]).name == source_name:
                source = (self.directory / step["file"]).resolve()
                return CompileStep(shlex.split(step["command"]), source, step["output"])
        raise GraderError(f"the build has no compile of {source_name} into {object_folder}")

    def tool_path(self) -> str:
        """PATH as a compile sees it: the compilers Meson found first, then the CUDA toolkit's usual place."""
        folders = [str(folder) for _, folder in self.compilers()] + ["/usr/local/cuda/bin", os.environ.get("PATH", "")]
        return os.pathsep.join(folders)


def configure(tree: BuildTree, timeout_s: float, reuse: bool = False, emulated: bool = False) -> proc.Outcome:
    """meson setup, or reconfigure with the options of this run when the build tree exists already. With
    `reuse`, nothing where the tree was set up with these options already (a batch worker's next student: the
    reconfigure took 3.5 s on a 2-core machine, 6 s beside another grade); Ninja sets it up again itself should
    meson.build or labs.toml change. For a run on the CPU emulator (`emulated`), only a tree that has the
    emulator's targets: which of them exist depends on what was installed when the tree was set up."""
    options: dict[str, str | bool] = {"gpu_arch": tree.gpu_arch, "student_dir": str(tree.student_dir.resolve())}
    if tree.variants:
        options["variants"] = True  # once on, a build folder keeps them: they only add targets
    given = [f"-D{name}={'true' if value is True else value}" for name, value in options.items()]
    command = ["meson", "setup", str(tree.directory), str(REPO_ROOT), *given]
    if reuse and set_up_with(tree, options) and (tree.has_emulator() or not emulated):
        return proc.Outcome(command, 0, "set up already with these options", "", timeout_s)
    if (tree.directory / "meson-private").is_dir():
        command.insert(2, "--reconfigure")
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
    """meson compile of `targets`, the grader's own (a student's steps are grader/steps/student_steps.py's);
    `keep_going`, past a target that fails."""
    command = [shutil.which("meson") or "meson", "compile", "-C", str(tree.directory.resolve()), *targets]
    command += ["--ninja-args=-k0"] if keep_going else []
    return proc.run(command, timeout_s)


def dependencies(tree: BuildTree, step: CompileStep) -> list[Path]:
    """Every file the compile of `step` read, from the depfile nvcc wrote for Ninja (`ninja -t deps`)."""
    listed = proc.run([student_steps.ninja(), "-C", str(tree.directory), "-t", "deps", step.output], 60)
    lines = listed.stdout.splitlines()
    if not listed.ok or not lines or "#deps" not in lines[0]:
        raise GraderError(f"Ninja has no record of what {step.output} was compiled from: {listed.tail(2)}")
    return [(tree.directory / line.strip()).resolve() for line in lines[1:] if line.startswith("    ")]


def read_depfile(text: str, directory: Path) -> list[Path]:
    """The prerequisites of a Make-style depfile (`target: a b \\` ...), resolved from `directory`."""
    body = text.replace("\\\n", " ").split(":", 1)[-1]
    return [(directory / name.replace("\\ ", " ")).resolve() for name in re.findall(r"(?:\\ |\S)+", body)]


# What the preprocessor is asked for: the device pass's view of the source, the host pass's, or only the list
# of files it reads (which works on a kernel.cu that does not compile, as long as its includes are found).
PREPROCESSOR_FLAGS = {"device": ["-E"], "host": ["-E", "-Xcompiler=-U__CUDA_ARCH__"], "dependencies": ["-M"]}


def preprocessor_command(step: CompileStep, view: str) -> list[str]:
    """The compile of `step` asked for a PREPROCESSOR_FLAGS view instead of an object, its output not yet named."""
    arguments, command = iter(step.command), []
    for arg in arguments:
        if arg in ("-MT", "-MF", "-o"):
            next(arguments, None)  # and the path after it: the depfile and the object are the build's
        elif arg not in ("-MD", "-c"):
            command.append(arg)
    return command + PREPROCESSOR_FLAGS[view]


def preprocess(tree: BuildTree, step: CompileStep, view: str) -> str:
    """The preprocessor's output for the compile of `step`, one of the grader's own (a student's:
    StudentSteps.preprocess); '' if it fails."""
    output = f"{step.output}.{view}"
    command = [*preprocessor_command(step, view), "-o", output]
    ran = proc.run(command, 300, cwd=tree.directory, env={"PATH": tree.tool_path()})
    written = tree.directory / output
    text = written.read_text(errors="replace") if ran.ok and written.is_file() else ""
    written.unlink(missing_ok=True)
    return text


def build_lab(tree: BuildTree, lab: str, variant: str, timeout_s: float, emulated: bool = False) -> proc.Outcome:
    """Builds one lab's test and benchmark programs and its checker for one variant (alias target
    NN_name_variant), or their CPU emulator builds (NN_name_variant_emu). A student's kernel.cu is compiled and
    linked by its own steps, each in the sandbox (grader/steps/student_steps.py); the grader's own parts are built
    first, outside, so that a failure of theirs is the grader's (GraderError), never the student's build error."""
    if variant != "student":
        if not emulated:
            tree.kernel_library(lab, variant).unlink(missing_ok=True)  # never judge a stale one
        targets = [f"{lab}_{variant}_emu" if emulated else f"{lab}_{variant}"]
        return compile_targets(tree, targets + tree.recorder_targets(emulated), timeout_s)
    built = compile_targets(tree, tree.own_targets(lab, emulated), timeout_s)
    if not built.ok:
        raise GraderError(f"the grader's own part of {lab} does not build: {built.tail(3)}")
    steps = tree.student(lab, emulated)
    if steps.object not in tree.compiled_ahead or not steps.object.is_file():
        compiled = steps.compile(timeout_s)
        if not compiled.ok:
            return compiled
    tree.compiled_ahead.discard(steps.object)
    for kind in student_steps.KINDS:
        linked = steps.link(kind, timeout_s)
        if not linked.ok:
            return linked
    return linked


# How long the kernel.cu files of a run may compile together (build_ahead); one still compiling then is
# compiled again on its own by its lab, with the build's whole time limit.
AHEAD_LIMIT_S = 120


def build_ahead(
    tree: BuildTree, labs: list[str], variants: list[str], timeout_s: float, emulated: bool = False
) -> None:
    """Compiles at once, on every core, what the labs of a run would otherwise build one after the other
    (build_lab, one Ninja at a time in the folder): the grader's own parts and programs, then every student's
    kernel.cu, at most as many at once as the machine has cores and memory for, past any that fails. Nothing is
    judged here: each lab's build_lab then finds its object compiled, or meets the failure alone, with its own
    compiler errors and its own time limit."""
    suffix = "_emu" if emulated else ""
    ours: list[str] = []  # Meson targets
    objects: list[str] = []  # the student programs' own objects (test.cpp, bench.cpp), which read no kernel.cu
    kernels: list[StudentSteps] = []
    for lab in labs:
        for variant in variants:
            if variant != "student":
                ours.append(f"{lab}_{variant}{suffix}")
                continue
            ours += tree.own_targets(lab, emulated)
            objects += tree.objects(f"{lab}_student{suffix}_test") + tree.objects(f"{lab}_student{suffix}_bench")
            kernels.append(tree.student(lab, emulated))
    if ours:
        compile_targets(tree, ours, timeout_s, keep_going=True)
    if objects:
        proc.run([student_steps.ninja(), "-C", str(tree.directory), "-k0", *objects], timeout_s)
    limit = min(timeout_s, AHEAD_LIMIT_S)
    with ThreadPoolExecutor(max_workers=compile_slots()) as pool:
        for steps, compiled in zip(kernels, pool.map(lambda steps: steps.compile(limit), kernels), strict=True):
            if compiled.ok:
                tree.compiled_ahead.add(steps.object)


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
