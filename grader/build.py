"""Configuring the Meson build and building one lab's targets at a time."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from grader import proc, sandbox
from grader.config import REPO_ROOT
from grader.exits import GraderError

VARIANTS = ("student", "solution")
# What a compile of a student's targets may read of the checkout: the build's own files, the headers and the
# harness a kernel.cu is built with, and the installs of ./cml. Not solutions/, the grader or any results.
# (variants.toml, which Meson reads where a build folder also holds calibrate's kernels; never the kernels.)
COMPILE_READS = ("meson.build", "meson.options", "grader/labs.toml", "grader/variants/variants.toml", "common", "tests",
                 ".venv", ".deps")
# meson.build configures the CPU emulator's targets (common/emu) only where it finds both.
EMULATOR_MISSING = (
    "the CPU emulator is not built here: it needs clang++ and Boost.Context "
    "(Debian: clang and libboost-context-dev, which ./cml installs on a machine without a GPU)"
)


@dataclass
class BuildTree:
    directory: Path
    student_dir: Path
    gpu_arch: str
    variants: bool = False  # also the calibration's kernels of grader/variants (meson option `variants`)

    def binary(self, lab: str, variant: str, kind: str, emulated: bool = False) -> Path:
        """kind: 'test' or 'bench'; emulated: the CPU emulator's build of them (common/emu)."""
        return self.directory / f"{lab}_{variant}{'_emu' if emulated else ''}_{kind}"

    def variant_binary(self, lab: str, name: str, kind: str) -> Path:
        """A calibration kernel's test or benchmark program (grader/variants, built with variants=True)."""
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

    def has_emulator(self) -> bool:
        """Whether Meson configured the CPU emulator's targets (meson.build, option `emulator`)."""
        try:
            targets = json.loads((self.directory / "meson-info" / "intro-targets.json").read_text())
        except (OSError, ValueError):
            return False
        return any(target.get("name") == "cml_emu_selftest" for target in targets)

    def kernel_source(self, lab: str, variant: str) -> Path:
        folder = REPO_ROOT / "solutions" if variant == "solution" else self.student_dir
        return folder / lab / "kernel.cu"

    def kernel_library(self, lab: str, variant: str) -> Path:
        """The static library meson.build makes of the kernel.cu alone."""
        return self.directory / f"lib{lab}_{variant}_kernel.a"

    def harness_libraries(self, lab: str) -> list[Path]:
        return [self.directory / "libcml_common.a", self.directory / f"lib{lab}_baseline.a"]


def configure(tree: BuildTree, timeout_s: float) -> proc.Outcome:
    """meson setup, or reconfigure with the options of this run when the build tree exists already."""
    options = [f"-Dgpu_arch={tree.gpu_arch}", f"-Dstudent_dir={tree.student_dir.resolve()}"]
    options += ["-Dvariants=true"] if tree.variants else []  # once on, a build folder keeps them: they only add targets
    again = ["--reconfigure"] if (tree.directory / "meson-private").is_dir() else []
    return proc.run(["meson", "setup", *again, str(tree.directory), str(REPO_ROOT), *options], timeout_s)


def compile_targets(tree: BuildTree, targets: list[str], timeout_s: float, sandboxed: bool = False) -> proc.Outcome:
    """meson compile of `targets`; `sandboxed`, in a sandbox that sees only the system, the compilers, what a
    kernel.cu may include and the student's folder, and writes only the build folder (grader/sandbox.py)."""
    command = [shutil.which("meson") or "meson", "compile", "-C", str(tree.directory.resolve()), *targets]
    if sandboxed:
        compilers = tree.compilers()
        reads = [REPO_ROOT / path for path in COMPILE_READS if (REPO_ROOT / path).exists()]
        reads += [tree.student_dir.resolve(), *(prefix for prefix, _ in compilers)]
        # Meson and Ninja where ./cml installed them, then the compilers Meson found (nvcc finds its host
        # compiler on PATH).
        path = [Path(command[0]).parent, *(folder for _, folder in compilers)]
        command = sandbox.compile_command(command, reads, [tree.directory.resolve()], path)
    return proc.run(command, timeout_s)


def build_lab(tree: BuildTree, lab: str, variant: str, timeout_s: float, emulated: bool = False) -> proc.Outcome:
    """Builds one lab's test and benchmark programs and its checker for one variant (alias target
    NN_name_variant), or their CPU emulator builds (NN_name_variant_emu). A student's kernel.cu is compiled in
    the sandbox, and alone there: the grader's own parts are built first, outside, so that a failure of theirs
    is the grader's (GraderError), never the student's build error."""
    target = f"{lab}_{variant}_emu" if emulated else f"{lab}_{variant}"
    if variant != "student":
        return compile_targets(tree, [target], timeout_s)
    harness = [f"{lab}_checker", f"{lab}_baseline_emu_o" if emulated else f"{lab}_baseline"]
    built = compile_targets(tree, harness, timeout_s)
    if not built.ok:
        raise GraderError(f"the grader's own part of {lab} does not build: {built.tail(3)}")
    kernel = f"{lab}_student_emu_o" if emulated else f"{lab}_student_kernel"
    compiled = compile_targets(tree, [kernel], timeout_s, sandboxed=True)
    # Linking reads the student's object as data: outside the sandbox, with nothing left to compile but ours.
    return compiled if not compiled.ok else compile_targets(tree, [target], timeout_s)


def compiler_errors(outcome: proc.Outcome, limit: int = 12) -> str:
    """The compiler's own error lines (and the lines after each), without Ninja's chatter."""
    lines = (outcome.stdout + "\n" + outcome.stderr).splitlines()
    keep: list[str] = []
    for i, line in enumerate(lines):
        if re.search(r"\berror\b|undefined reference|multiple definition", line, re.IGNORECASE):
            keep.extend(lines[i : i + 3])
        if len(keep) >= limit:
            break
    return "\n".join(dict.fromkeys(keep)) or outcome.tail(limit)
