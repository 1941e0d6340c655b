"""A Meson build folder of the grader's own: what it holds and where, read from Meson's own records. It holds the
harness of every lab (tests, baselines, common/, the checkers), the reference solutions and the calibration's
kernels, and the templates of a student's compile and links, which the student's steps run on a submission's
kernel.cu in a folder of their own (grader/steps/student_steps.py). Nothing in it depends on the submission, so
one build folder serves every grade: a class, a batch worker, a test run."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

from grader.core.config import REPO_ROOT
from grader.core.exits import GraderError
from grader.execution import proc, sandbox
from grader.steps.build_commands import CompileStep, preprocessor_command, read_depfile

RECORDER_TARGET = "cml_schedule_recorder"  # meson.build: the schedule check's recorder on a GPU
COUNTERS_TARGET = "cml_counters_recorder"  # meson.build: the counter checks' recorder, in a benchmark's run
WORK_FOLDER = "student"  # in a build folder: the work of `./cml grade` on the checkout's own labs/


@dataclass
class BuildTree:
    directory: Path
    gpu_arch: str
    variants: bool = False  # also the calibration's kernels of variants/ (meson option `variants`)

    def binary(self, lab: str, variant: str, kind: str, emulated: bool = False) -> Path:
        """A program Meson links, of a variant other than the student's: kind 'test' or 'bench'; emulated: the
        CPU emulator's build of it (common/emu). A student's programs are their steps' (StudentSteps.program)."""
        if variant == "student":
            raise ValueError("a student's programs are linked by their own steps, not by Meson")
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
                program = shutil.which(compiler["exelist"][-1])  # the compiler, past any cache in front of it
                if program:
                    folder = Path(program).resolve().parent
                    places.append((folder.parent, folder))
        return [place for place in dict.fromkeys(places) if not str(place[0]).startswith(sandbox.SYSTEM_DIRS)]

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
        """The kernel.cu a variant other than the student's is built from (the student's: the grade's own)."""
        folder = REPO_ROOT / ("solutions" if variant == "solution" else "labs")
        return folder / lab / "kernel.cu"

    def kernel_library(self, lab: str, variant: str) -> Path:
        """The static library meson.build makes of a variant's kernel.cu."""
        return self.directory / f"lib{lab}_{variant}_kernel.a"

    def harness_libraries(self, lab: str) -> list[Path]:
        return [self.directory / "libcml_common.a", self.directory / f"lib{lab}_baseline.a"]

    def kernel_compile(self, lab: str, variant: str) -> CompileStep:
        """The compile of a kernel.cu into its library's object (the student's: the template of their compile)."""
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

    def preprocess(self, step: CompileStep, view: str) -> str:
        """The preprocessor's output for the compile of `step`, one of the grader's own (a student's:
        StudentSteps.preprocess); '' if it fails."""
        scratch = self.directory.resolve() / "meson-private" / "cml-preprocessed"
        scratch.mkdir(parents=True, exist_ok=True)
        written = scratch / f"{os.getpid()}-{threading.get_ident()}-{step.output.replace('/', '_')}.{view}"
        command = [*preprocessor_command(step, view), "-o", str(written)]
        ran = proc.run(command, 300, cwd=self.directory, env={"PATH": self.tool_path()})
        text = written.read_text(errors="replace") if ran.ok and written.is_file() else ""
        written.unlink(missing_ok=True)
        return text

    def dependencies(self, step: CompileStep) -> list[Path]:
        """Every file the compile of `step` reads (one of the grader's own), from its preprocessor: Ninja's record of
        it is lost with a damaged log, and may be another grader's to write at this moment."""
        return read_depfile(self.preprocess(step, "dependencies"), self.directory)

    def tool_path(self) -> str:
        """PATH as a compile sees it: the compilers Meson found first, then the CUDA toolkit's usual place."""
        folders = [str(folder) for _, folder in self.compilers()] + ["/usr/local/cuda/bin", os.environ.get("PATH", "")]
        return os.pathsep.join(folders)
