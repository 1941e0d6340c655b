"""What a kernel.cu may not do, checked on what the compiler saw and produced rather than on the text: include
anything but its lab's interface header, the cml/ headers and CUDA and system headers (nor those of a library
doing the work, such as cuBLAS, CUB or Thrust); define anything for others to link against but the lab's
interface and what nvcc generates (so nothing of the harness, weak or strong); call anything outside an
allow-list of what a lab needs; run code before main; or call the operating system directly.

includes.py reads the compiler's dependency output, symbols.py and code.py the object (elf.py), and nvcc.py
tells nvcc's own code apart from the student's. Each problem is one sentence naming the include, symbol or
instruction and why. Where the CPU emulator grades, the object clang made of the same kernel.cu is judged too
(emulator.py): it may hold code nvcc never saw (#ifdef CML_EMULATOR), and must leave the emulator its watch."""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from grader.core.config import REPO_ROOT
from grader.steps.build_commands import read_depfile
from grader.steps.build_tree import BuildTree
from grader.steps.integrity import code, elf, emulator, includes, sections, symbols


class StudentCompile(Protocol):
    """What integrity reads of a student's compile (grader/steps/student_steps.py's StudentSteps)."""

    @property
    def source(self) -> Path: ...  # the kernel.cu

    @property
    def object(self) -> Path: ...  # what nvcc made of it, once compiled

    def preprocess(self, view: str) -> str: ...


MAX_SHOWN = 8  # problems listed; the rest are counted
# Bytes of the compiler's list of the files a student's compile read: a lab's is about 13 kB. Each file is resolved
# in the grader's own process (seconds for this many bytes of one-letter names), so a longer list is refused unread.
DEPENDENCIES_LIMIT = 256 << 10


@dataclass(frozen=True)
class Interface:
    """A lab's interface, from the grader's own stand-ins for it (tests/NN_name/checker_stubs.cpp, which
    define exactly what kernel.cu must): the headers they include from the lab's folder, and the symbols they
    define."""

    headers: frozenset[Path]
    symbols: frozenset[str]


def interface_of(stubs_object: Path, stubs_dependencies: list[Path], lab_folder: Path) -> Interface:
    headers = frozenset(p for p in stubs_dependencies if p.parent == lab_folder.resolve() and p.suffix == ".hpp")
    return Interface(headers, frozenset(elf.read_object(stubs_object).defined_globals()))


def check_includes(
    dependencies: list[Path], source: Path, rules: includes.Rules, preprocess: Callable[[str], str], directory: Path
) -> list[str]:
    """Problems with the files the compile read. `preprocess(view)`: the preprocessor's output of the same
    compile, as the "device" or the "host" pass sees the source, asked for only to name the lines of kernel.cu
    that include a forbidden file."""
    forbidden = includes.forbidden(dependencies, source, rules)
    if not forbidden:
        return []
    lines: dict[Path, int] = {}
    for view in ("device", "host"):
        if not forbidden.keys() <= lines.keys():
            lines = {**includes.including_lines(preprocess(view), source, directory), **lines}
    return includes.describe(forbidden, lines, source.name, rules)


def check_object(
    library: Path, interface: Interface, harness: frozenset[str] = frozenset(), lab_calls: frozenset[str] = frozenset()
) -> list[str]:
    """Problems with what a kernel.cu's built object (or static library) defines, calls and runs; `lab_calls`:
    what its lab alone may call besides every lab's allow-list (labs.toml: allowed_calls)."""
    return object_problems(elf.read_object(library), interface.symbols, harness, lab_calls)


def object_problems(
    obj: elf.ObjectFile, interface: frozenset[str], harness: frozenset[str], lab_calls: frozenset[str] = frozenset()
) -> list[str]:
    return symbols.definitions(obj, interface, harness) + symbols.calls(obj, lab_calls) + code.problems(obj)


def summary(problems: list[str]) -> str:
    """'' when there are none; else one problem a line, the first MAX_SHOWN of them."""
    shown = list(dict.fromkeys(problems))[:MAX_SHOWN]
    more = len(set(problems)) - len(shown)
    return "\n".join(shown + ([f"... and {more} more"] if more > 0 else []))


def harness_definitions(libraries: list[Path]) -> frozenset[str]:
    """What the grader's own libraries define, which no symbol of a kernel.cu may take."""
    return frozenset(name for lib in libraries if lib.exists() for name in elf.defined_globals(elf.read_symbols(lib)))


@functools.cache
def search_roots(tool_path: str) -> tuple[Path, ...]:
    return includes.search_roots(shutil.which("nvcc", path=tool_path) or "nvcc", tool_path)


_interfaces: dict[tuple[Path, str, int], Interface] = {}  # by build folder, lab, and when its stubs were built


def lab_interface(tree: BuildTree, lab: str) -> Interface:
    """The lab's interface, from its checker's stand-ins as this build folder compiled them (asked once per
    compile of them: the preprocessor that lists their headers takes a second)."""
    step = tree.interface_compile(lab)
    stubs = tree.directory / step.output
    key = (tree.directory.resolve(), lab, stubs.stat().st_mtime_ns if stubs.exists() else 0)
    if key not in _interfaces:
        _interfaces[key] = interface_of(stubs, tree.dependencies(step), REPO_ROOT / "tests" / lab)
    return _interfaces[key]


def check_build(
    tree: BuildTree,
    lab: str,
    variant: str,
    compiled: bool,
    lab_calls: frozenset[str] = frozenset(),
    student: StudentCompile | None = None,
) -> str:
    """'' when the kernel.cu of `variant` is fine; else its problems, one a line. Once it `compiled`, judged on
    the files the compile read and on the object; if it did not, on the files it reads alone (so that the
    compiler's errors never quote a file it may not read). `student`: the student's steps, whose object is judged
    before anything links it. `lab_calls`: what this lab alone may call."""
    step = tree.kernel_compile(lab, variant)
    if not compiled and student is None:
        return ""  # the grader's own solution: its compiler errors are the grader's to read
    interface = lab_interface(tree, lab)
    source = student.source.resolve() if student else step.source
    built = student.object if student else tree.kernel_library(lab, variant)

    def preprocess(view: str) -> str:
        return student.preprocess(view) if student else tree.preprocess(step, view)

    if student:
        depfile = student.object.with_name("kernel.o.d")
        listed = (read_bounded(depfile) if depfile.is_file() else "") if compiled else preprocess("dependencies")
        if listed is None or len(listed) > DEPENDENCIES_LIMIT:
            return f"the compile read more files than a lab's kernel.cu can: their list is over {DEPENDENCIES_LIMIT:,} bytes"
        read = read_depfile(listed, tree.directory)
    else:
        read = tree.dependencies(step)
    rules = includes.Rules(interface.headers, search_roots(tree.tool_path()))
    problems = check_includes(read, source, rules, preprocess, tree.directory)
    if compiled and student:
        refused = sections.problems(built)
        if refused:
            return summary(problems + refused)  # what the object's own code would do is moot: it never links
    if compiled:
        harness = harness_definitions(tree.harness_libraries(lab))
        try:
            problems += check_object(built, interface, harness, lab_calls)
        except elf.ObjectTooLarge as error:
            problems.append(too_large(error))
    return summary(problems)


def read_bounded(path: Path, limit: int = DEPENDENCIES_LIMIT) -> str | None:
    """A file's text; None where it has more than `limit` bytes, which are left unread."""
    with path.open("rb") as file:
        data = file.read(limit + 1)
    return None if len(data) > limit else data.decode(errors="replace")


def too_large(error: elf.ObjectTooLarge) -> str:
    return f"the compiled kernel.cu is too large to judge: {error} (a lab's object is read in well under a second)"


def check_emulator_build(
    tree: BuildTree, lab: str, emulated: Path, compiled: Path, lab_calls: frozenset[str] = frozenset()
) -> str:
    """'' when the CPU emulator's object of a kernel.cu (`emulated`), once built, is fine; else its problems, one
    a line. The checks of the nvcc object (`compiled`) again, for code only the emulator compiles (#ifdef
    CML_EMULATOR), less what the emulator's own headers put there; and every access left to the emulator."""
    runtime = tree.directory / "libcml_emu.a"
    interface = lab_interface(tree, lab)
    try:
        # What the nvcc object defines passed check_build already (a kernel outside an anonymous namespace, say).
        allowed = interface.symbols | frozenset(elf.read_object(compiled).defined_globals())
        obj = emulator.without_the_emulators_own(elf.read_object(emulated), harness_definitions([runtime]))
        harness = harness_definitions([*tree.harness_libraries(lab), runtime])
        return summary(emulator.problems(emulated) + object_problems(obj, allowed, harness, lab_calls))
    except elf.ObjectTooLarge as error:
        return too_large(error)
