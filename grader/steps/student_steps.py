"""The steps of a build that read a student's bytes, each in a sandbox of its own with limits
(grader/execution/sandbox.py): the compile of kernel.cu (nvcc; for the CPU emulator, rewrite.py and then clang), and
the links of the lab's test and benchmark programs. Meson wrote their commands (build.ninja) for the shipped
skeleton; they are run from here rather than by Ninja, on the grade's own kernel.cu, so that each step reads the
grader's parts read-only and writes only its own folder, WORK/NN_name/STEP, where WORK is the grade's own folder.
Nothing of a submission is ever written into the build folder's harness, and one build folder serves every grade.
The linker runs with its plugins off and hidden, and only after the object was found to hold nothing but what a
compiler emits for a kernel.cu (grader/steps/integrity/sections.py): an object can carry compiler IR that a plugin
would compile and run in place of the code the checks judged. No step of a submission goes through the compiler
cache that the grader's own compiles share: nothing a submission's compile writes is read by another grade."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from grader.core.config import REPO_ROOT
from grader.core.exits import GraderError
from grader.execution import proc, sandbox
from grader.steps.build_commands import (
    CompileStep,
    ninja_commands,
    ninja_inputs,
    preprocessor_command,
    swap,
    without_cache,
)
from grader.steps.build_tree import WORK_FOLDER, BuildTree
from grader.steps.integrity import sections

KINDS = ("test", "bench")
# What a compile of a kernel.cu may read of the checkout: the headers and the harness it is built with, and the
# installs of ./cml (the emulator's rewrite runs on the .venv's Python). Not solutions/, the grader or results.
COMPILE_READS = ("common", "tests", ".venv", ".deps")
# How gcc, and nvcc through it, are told not to hand the linker gcc's LTO plugin (which is hidden besides).
NO_PLUGIN = {"nvcc": ["-Xcompiler=-fno-use-linker-plugin"], "gcc": ["-fno-use-linker-plugin"]}


@dataclass(frozen=True)
class StudentWork:
    """One grade's student: each lab's kernel.cu, and the folder its steps work in (emptied as each lab's
    steps start, so nothing of an earlier grade there is read)."""

    root: Path
    sources: dict[str, Path]  # lab -> its kernel.cu

    def steps(self, tree: BuildTree, lab: str, emulated: bool = False) -> StudentSteps:
        return StudentSteps(tree, lab, self.sources[lab], lab_folder(self.root, lab, emulated), emulated)


def checkout_work(tree: BuildTree, labs_folder: Path, labs: list[str]) -> StudentWork:
    """The work of a grade of a folder of labs (the checkout's labs/) in the build folder's own work folder,
    where a replayed program keeps the same path from one grade to the next."""
    return StudentWork(tree.directory.resolve() / WORK_FOLDER, {lab: labs_folder / lab / "kernel.cu" for lab in labs})


@dataclass(frozen=True)
class StudentSteps:
    tree: BuildTree
    lab: str
    source: Path  # the kernel.cu
    folder: Path  # its steps' folders are in here
    emulated: bool = False

    def step_folder(self, step: str) -> Path:
        return self.folder / step

    @property
    def object(self) -> Path:
        """The kernel.cu's object, once compiled."""
        return self.step_folder("compile") / "kernel.o"

    def target(self, kind: str) -> str:
        """Meson's name for the program (the file name is kept: it is what a replay command shows)."""
        return program_name(self.lab, kind, self.emulated)

    def program(self, kind: str) -> Path:
        return program_path(self.folder.parent, self.lab, kind, self.emulated)

    def meson_kernel(self) -> str:
        """What Meson's link of the student's programs names for the kernel.cu: its library, or its emulator object."""
        return f"{self.lab}_student_emu.o" if self.emulated else f"lib{self.lab}_student_kernel.a"

    # ---- the steps ----

    def clear(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def compile(self, timeout_s: float) -> proc.Outcome:
        """kernel.cu into self.object, in the sandbox; the folder is emptied first."""
        self.clear()
        out = self.new_step_folder("compile")
        commands = self.emulator_compile() if self.emulated else [self.nvcc_compile()]
        ran = proc.Outcome([], 0, "", "", timeout_s)
        for command in commands:
            ran = self.run_step(command, out, self.compile_reads(), timeout_s, python=self.emulated)
            if not ran.ok:
                break
        if not ran.ok:
            self.object.unlink(missing_ok=True)
        return ran

    def link(self, kind: str, timeout_s: float) -> proc.Outcome:
        """The test or benchmark program, linked in the sandbox from the grader's parts (built already:
        build.prepare_student) and self.object, which must hold only what a compiler emits (else the link is
        refused, with the reason)."""
        refused = sections.problems(self.object)
        if refused:
            return proc.Outcome(["link"], 1, "", "\n".join(refused), timeout_s)
        command, inputs = self.meson_link(kind)
        missing = [name for name in inputs if not (self.tree.directory / name).exists()]
        if missing:
            raise GraderError(f"the grader's own part of {self.lab} is not built: {', '.join(missing[:3])}")
        out = self.new_step_folder(kind)
        # Of the build folder, the link sees the grader's files it links and nothing else.
        files = [(self.tree.directory / name).resolve() for name in inputs]
        return self.run_step(command, out, [*files, *self.compiler_prefixes()], timeout_s)

    # ---- the commands, as Meson wrote them, with the student's paths in the step folders ----

    def with_own_source(self, command: list[str], template: Path) -> list[str]:
        """`command` (Meson's, for the shipped skeleton `template`) reading this grade's kernel.cu instead."""
        directory = self.tree.directory
        return [
            str(self.source) if not arg.startswith("-") and (directory / arg).resolve() == template else arg
            for arg in without_cache(command)
        ]

    def compile_template(self) -> CompileStep:
        return self.tree.kernel_compile(self.lab, "student")

    def nvcc_compile(self) -> list[str]:
        step = self.compile_template()
        command = self.with_own_source(step.command, step.source)
        return swap(command, {step.output: str(self.object), f"{step.output}.d": f"{self.object}.d"})

    def emulator_compile(self) -> list[list[str]]:
        """rewrite.py's command and clang's, the last two of the chain that makes the emulator's object."""
        chain = ninja_commands(self.tree.directory, self.meson_kernel())
        if len(chain) < 2 or "rewrite.py" not in " ".join(chain[-2]):
            raise GraderError(f"the build has no rewrite and compile of {self.lab}'s kernel.cu for the CPU emulator")
        stem = f"{self.lab}_student_emu"
        rewritten = self.step_folder("compile") / "kernel.cpp"
        paths = {f"{stem}.cpp": str(rewritten), f"{stem}.o": str(self.object), f"{stem}.d": f"{self.object}.d"}
        rewrite = self.with_own_source(chain[-2], self.compile_template().source)
        return [swap(rewrite, paths), swap(without_cache(chain[-1]), paths)]

    def meson_link(self, kind: str) -> tuple[list[str], list[str]]:
        """The link command of the program, and the grader's own files it reads (built by then, outside)."""
        return link_command(self.tree, self.lab, kind, self.emulated, str(self.object), str(self.program(kind)))

    # ---- running one step ----

    def new_step_folder(self, step: str) -> Path:
        folder = self.step_folder(step)
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        return folder

    def compile_reads(self) -> list[Path]:
        reads = [REPO_ROOT / path for path in COMPILE_READS if (REPO_ROOT / path).exists()]
        return [*reads, self.source.parent.resolve(), *self.compiler_prefixes()]

    def compiler_prefixes(self) -> list[Path]:
        return [prefix for prefix, _ in self.tree.compilers()]

    def run_step(
        self, command: list[str], out: Path, reads: list[Path], timeout_s: float, python: bool = False
    ) -> proc.Outcome:
        """A step run in the build folder, which it sees empty but for `reads` that lie in it: nothing of the
        solutions' or calibrate's kernels, nor of another grade's work there, whoever is building in it now."""
        own = [self.step_folder("compile")] if out != self.step_folder("compile") else []
        folder = self.tree.directory.resolve()
        wrapped = sandbox.step_command(command, reads, out, folder, python=python, own=own, empty=[folder])
        ran = proc.run(wrapped, timeout_s, cwd=self.tree.directory, env={"PATH": self.tree.tool_path()})
        return explained(ran)

    def preprocess(self, view: str) -> str:
        """What the preprocessor made of kernel.cu (a build_commands.PREPROCESSOR_FLAGS view), in the sandbox; ''
        when it failed."""
        out = self.new_step_folder(f"preprocess-{view}")
        output = out / "kernel.i"
        step = self.compile_template()
        command = preprocessor_command(
            CompileStep(self.with_own_source(step.command, step.source), step.source, ""), view
        )
        ran = self.run_step([*command, "-o", str(output)], out, self.compile_reads(), 300)
        text = output.read_text(errors="replace") if ran.ok and output.is_file() else ""
        shutil.rmtree(out, ignore_errors=True)
        return text


def link_command(
    tree: BuildTree, lab: str, kind: str, emulated: bool, kernel: str, program: str
) -> tuple[list[str], list[str]]:
    """Meson's link of a student's program with `kernel` in place of the skeleton's, written to `program`; and the
    grader's own files the link reads."""
    target = program_name(lab, kind, emulated)
    meson_kernel = f"{lab}_student_emu.o" if emulated else f"lib{lab}_student_kernel.a"
    linked = ninja_commands(tree.directory, target, final_only=True)
    if len(linked) != 1:
        raise GraderError(f"the build has no link of {target}")
    command = swap(without_cache(linked[0]), {meson_kernel: kernel, target: program})
    driver = Path(command[0]).name
    command[1:1] = NO_PLUGIN["nvcc" if driver == "nvcc" else "gcc"]
    inputs = [name for name in ninja_inputs(tree.directory, target) if name != meson_kernel]
    return command, inputs


def lab_folder(root: Path, lab: str, emulated: bool) -> Path:
    return root.resolve() / (f"{lab}_emu" if emulated else lab)


def program_name(lab: str, kind: str, emulated: bool) -> str:
    return f"{lab}_student{'_emu' if emulated else ''}_{kind}"


def program_path(root: Path, lab: str, kind: str, emulated: bool) -> Path:
    """Where a student's test or benchmark program is linked, in a grade's work folder `root`."""
    return lab_folder(root, lab, emulated) / kind / program_name(lab, kind, emulated)


def explained(ran: proc.Outcome) -> proc.Outcome:
    """The outcome, with a line that names the limit a step ran into (the tools' own messages do not)."""
    said = ran.stdout + ran.stderr
    if "File size limit exceeded" in said or ran.returncode in (-25, 153):  # SIGXFSZ, or a shell's 128 + 25
        note = f"a file the step wrote grew past the limit of {sandbox.STEP_LIMITS.file_size >> 20} MiB"
    elif ran.returncode in (-24, 152) or "CPU time limit exceeded" in said:  # SIGXCPU
        note = f"the step used more than its {sandbox.STEP_LIMITS.cpu_s} s of CPU time"
    elif "out of memory" in said.lower() or "std::bad_alloc" in said:
        note = f"the step needed more than its {sandbox.STEP_LIMITS.memory >> 30} GiB of memory"
    else:
        return ran
    return proc.Outcome(ran.command, ran.returncode, ran.stdout, f"{ran.stderr}\nerror: {note}", ran.timeout_s)
