"""The commands of a Meson build folder, as Ninja gives them, and what to change in one so that it makes a
submission's file in a folder of its own: the student's steps (grader/steps/student_steps.py) run Meson's own
commands, not Ninja. Every question to Ninja is asked under the folder's lock, since another grader may be
building there."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from grader.core.exits import GraderError
from grader.execution import folder_lock

# What the preprocessor is asked for: the device pass's view of the source, the host pass's, or only the list
# of files it reads (which works on a kernel.cu that does not compile, as long as its includes are found).
PREPROCESSOR_FLAGS = {"device": ["-E"], "host": ["-E", "-Xcompiler=-U__CUDA_ARCH__"], "dependencies": ["-M"]}
# A compiler cache in front of a compiler (Meson puts ccache there where it finds it): the grader's own compiles
# share its cache; a submission's never go through it.
CACHES = ("ccache", "sccache")


@dataclass
class CompileStep:
    """One compile of the build, as Meson's compile_commands.json records it (run in the build folder)."""

    command: list[str]
    source: Path
    output: str  # the object, relative to the build folder


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


def without_cache(command: list[str]) -> list[str]:
    """`command` without a compiler cache in front of its compiler."""
    while command and Path(command[0]).name in CACHES:
        command = command[1:]
    return command


def preprocessor_command(step: CompileStep, view: str) -> list[str]:
    """The compile of `step` asked for a PREPROCESSOR_FLAGS view instead of an object, its output not yet named."""
    arguments, command = iter(without_cache(step.command)), []
    for arg in arguments:
        if arg in ("-MT", "-MF", "-o"):
            next(arguments, None)  # and the path after it: the depfile and the object are the build's
        elif arg not in ("-MD", "-c"):
            command.append(arg)
    return command + PREPROCESSOR_FLAGS[view]


def read_depfile(text: str, directory: Path) -> list[Path]:
    """The prerequisites of a Make-style depfile (`target: a b \\` ...), resolved from `directory`."""
    body = text.replace("\\\n", " ").split(":", 1)[-1]
    return [(directory / name.replace("\\ ", " ")).resolve() for name in re.findall(r"(?:\\ |\S)+", body)]


def ninja() -> str:
    """The Ninja that Meson runs: the one beside it (./cml installs both into .venv), else the one on PATH."""
    beside = Path(shutil.which("meson") or "meson").parent / "ninja"
    return str(beside) if beside.is_file() else shutil.which("ninja") or "ninja"


def ninja_tool(directory: Path, *tool: str) -> str:
    """What one of Ninja's tools (`ninja -t TOOL ...`) says of the build folder; its refusal is the grader's."""
    with folder_lock.held(directory):
        command = [ninja(), "-C", str(directory), "-t", *tool]
        listed = subprocess.run(command, capture_output=True, text=True, check=False)
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
