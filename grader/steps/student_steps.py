"""The steps of a build that read a student's bytes, each in a sandbox of its own with limits
(grader/execution/sandbox.py): the compile of kernel.cu (nvcc; for the CPU emulator, rewrite.py and then clang), and the
links of the lab's test and benchmark programs. Meson wrote their commands (build.ninja); they are run from here rather
than by Ninja, so that each step reads the grader's parts read-only and writes only its own folder,
<build>/student/NN_name/STEP. Those folders are the submission's own: emptied when its grade starts, so nothing of one
submission is there for the next one graded in the same build folder. The linker runs with its plugins off and hidden,
and only after the object was found to hold nothing but what a compiler emits for a kernel.cu
(grader/steps/integrity/sections.py): an object can carry compiler IR that a plugin would compile and run in place of
the code the checks judged."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from grader.core.config import REPO_ROOT
from grader.core.exits import GraderError
from grader.execution import proc, sandbox
from grader.steps.integrity import sections

if TYPE_CHECKING:
    from grader.steps.build import BuildTree

FOLDER = "student"  # in a build folder: the submission's steps
KINDS = ("test", "bench")
# What a compile of a kernel.cu may read of the checkout: the headers and the harness it is built with, and the
# installs of ./cml (the emulator's rewrite runs on the .venv's Python). Not solutions/, the grader or results.
COMPILE_READS = ("common", "tests", ".venv", ".deps")
# How gcc, and nvcc through it, are told not to hand the linker gcc's LTO plugin (which is hidden besides).
NO_PLUGIN = {"nvcc": ["-Xcompiler=-fno-use-linker-plugin"], "gcc": ["-fno-use-linker-plugin"]}


@dataclass(frozen=True)
class StudentSteps:
    tree: BuildTree
    lab: str
    emulated: bool = False

    @property
    def folder(self) -> Path:
        return lab_folder(self.tree.directory, self.lab, self.emulated)

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
        return program_path(self.tree.directory, self.lab, kind, self.emulated)

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
        """The test or benchmark program, linked in the sandbox from the grader's parts and self.object, which must
        hold only what a compiler emits (else the link is refused, with the reason)."""
        refused = sections.problems(self.object)
        if refused:
            return proc.Outcome(["link"], 1, "", "\n".join(refused), timeout_s)
        command, inputs = self.meson_link(kind)
        built = proc.run([ninja(), "-C", str(self.tree.directory), *inputs], timeout_s)
        if not built.ok:
            raise GraderError(f"the grader's own part of {self.lab} does not build: {built.tail(3)}")
        out = self.new_step_folder(kind)
        reads = [self.tree.directory.resolve(), self.step_folder("compile"), *self.compiler_prefixes()]
        return self.run_step(command, out, reads, timeout_s)

    # ---- the commands, as Meson wrote them, with the student's paths in the step folders ----

    def nvcc_compile(self) -> list[str]:
        step = self.tree.kernel_compile(self.lab, "student")
        return swap(step.command, {step.output: str(self.object), f"{step.output}.d": f"{self.object}.d"})

    def emulator_compile(self) -> list[list[str]]:
        """rewrite.py's command and clang's, the last two of the chain that makes the emulator's object."""
        chain = ninja_commands(self.tree.directory, self.meson_kernel())
        if len(chain) < 2 or "rewrite.py" not in " ".join(chain[-2]):
            raise GraderError(f"the build has no rewrite and compile of {self.lab}'s kernel.cu for the CPU emulator")
        stem = f"{self.lab}_student_emu"
        rewritten = self.step_folder("compile") / "kernel.cpp"
        paths = {f"{stem}.cpp": str(rewritten), f"{stem}.o": str(self.object), f"{stem}.d": f"{self.object}.d"}
        return [swap(chain[-2], paths), swap(chain[-1], paths)]

    def meson_link(self, kind: str) -> tuple[list[str], list[str]]:
        """The link command of the program, and the grader's own files it reads (to build first, outside)."""
        target = self.target(kind)
        linked = ninja_commands(self.tree.directory, target, final_only=True)
        if len(linked) != 1:
            raise GraderError(f"the build has no link of {target}")
        command = swap(linked[0], {self.meson_kernel(): str(self.object), target: str(self.program(kind))})
        driver = Path(command[0]).name
        command[1:1] = NO_PLUGIN["nvcc" if driver == "nvcc" else "gcc"]
        inputs = [name for name in ninja_inputs(self.tree.directory, target) if name != self.meson_kernel()]
        return command, inputs

    # ---- running one step ----

    def new_step_folder(self, step: str) -> Path:
        folder = self.step_folder(step)
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        return folder

    def compile_reads(self) -> list[Path]:
        reads = [REPO_ROOT / path for path in COMPILE_READS if (REPO_ROOT / path).exists()]
        return [*reads, self.tree.directory.resolve(), self.tree.student_dir.resolve(), *self.compiler_prefixes()]

    def compiler_prefixes(self) -> list[Path]:
        return [prefix for prefix, _ in self.tree.compilers()]

    def run_step(
        self, command: list[str], out: Path, reads: list[Path], timeout_s: float, python: bool = False
    ) -> proc.Outcome:
        hidden = self.tree.others_work()
        wrapped = sandbox.step_command(command, reads, out, self.tree.directory.resolve(), hidden, python=python)
        ran = proc.run(wrapped, timeout_s, cwd=self.tree.directory, env={"PATH": self.tree.tool_path()})
        return explained(ran)

    def preprocess(self, view: str) -> str:
        """What the preprocessor made of kernel.cu (a build.PREPROCESSOR_FLAGS view), in the sandbox; '' when it
        failed."""
        from grader.steps.build import preprocessor_command  # build.py imports this module

        out = self.new_step_folder(f"preprocess-{view}")
        output = out / "kernel.i"
        command = preprocessor_command(self.tree.kernel_compile(self.lab, "student"), view)
        ran = self.run_step([*command, "-o", str(output)], out, self.compile_reads(), 300)
        text = output.read_text(errors="replace") if ran.ok and output.is_file() else ""
        shutil.rmtree(out, ignore_errors=True)
        return text


def lab_folder(build_dir: Path, lab: str, emulated: bool) -> Path:
    return build_dir.resolve() / FOLDER / (f"{lab}_emu" if emulated else lab)


def program_name(lab: str, kind: str, emulated: bool) -> str:
    return f"{lab}_student{'_emu' if emulated else ''}_{kind}"


def program_path(build_dir: Path, lab: str, kind: str, emulated: bool) -> Path:
    """Where a student's test or benchmark program is linked (a step folder of its own)."""
    return lab_folder(build_dir, lab, emulated) / kind / program_name(lab, kind, emulated)


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


def swap(command: list[str], paths: dict[str, str]) -> list[str]:
    """`command` with every argument that names one of `paths` (alone, or after '=') named by its new path."""
    swapped = []
    for arg in command:
        name, equals, value = arg.partition("=")
        if arg in paths:
            swapped.append(paths[arg])
        elif equals and value in paths:
            swapped.append(f"{name}={paths[value]}")
        else:
            swapped.append(arg)
    return swapped


def ninja() -> str:
    """The Ninja that Meson runs: the one beside it (./cml installs both into .venv), else the one on PATH."""
    beside = Path(shutil.which("meson") or "meson").parent / "ninja"
    return str(beside) if beside.is_file() else shutil.which("ninja") or "ninja"


def ninja_tool(directory: Path, *tool: str) -> str:
    """What one of Ninja's tools (`ninja -t TOOL ...`) says of the build folder; its refusal is the grader's."""
    listed = subprocess.run([ninja(), "-C", str(directory), "-t", *tool], capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        raise GraderError(f"ninja -t {' '.join(tool)}: {listed.stderr.strip()[:300]}")
    return listed.stdout


def ninja_commands(directory: Path, target: str, final_only: bool = False) -> list[list[str]]:
    """The commands Ninja would run to make `target`, split as a shell would (`ninja -t commands`)."""
    listed = ninja_tool(directory, "commands", *(["-s"] if final_only else []), target)
    return [shlex.split(line) for line in listed.splitlines() if line.strip()]


def ninja_inputs(directory: Path, target: str) -> list[str]:
    """Every file Ninja says `target` is made from (`ninja -t query`: explicit, implicit and order-only)."""
    inputs, reading = [], False
    for line in ninja_tool(directory, "query", target).splitlines():
        if line.startswith("  input:"):
            reading = True
        elif line.startswith("  outputs:"):
            reading = False
        elif reading and line.startswith("    "):
            inputs.append(line.strip().lstrip("|").strip())
    return inputs
