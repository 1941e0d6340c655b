"""What an object file holds, read with binutils (nm, objdump, c++filt), which come wherever nvcc does: its
symbols, its functions with their instructions and the relocations in them, and the relocations of its data.
They read a submission's bytes, so they run in the sandbox with limits, where no linker plugin can be loaded:
nm and objdump load any plugin they find, and gcc's would show the symbols of compiler IR carried in the
object's sections instead of the code that runs (grader/steps/integrity/sections.py refuses such objects first).

What they print is read in the grader's own process: at most OUTPUT_LIMIT bytes of it, kept whole (a program that
prints more, or runs longer than TIMEOUT_S, is stopped, and the object is too large to judge: ObjectTooLarge), read
a line at a time with patterns anchored at one end, so that none is tried again over the same characters."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.execution import proc, sandbox

# Bytes a binutils program may print about one object: an honest lab's objdump -dr is under 400 kB.
OUTPUT_LIMIT = 16 << 20
TIMEOUT_S = 120
# A symbol's name may hold any byte but NUL, '>' included (an asm label): the name runs to the line's last '>:'.
FUNCTION = re.compile(r"^[0-9a-f]++ <(?P<name>.+)>:$")
INSTRUCTION = re.compile(r"^\s*(?P<offset>[0-9a-f]+):\t(?P<text>.*)$")
RELOCATION = re.compile(r"^\s*[0-9a-f]+: (?P<type>R_\S+)\t(?P<target>.+)$")
RELOCATION_RECORD = re.compile(r"^[0-9a-f]+ (?P<type>R_\S+)\s+(?P<target>.+)$")
# objdump's notes: x86-64 "# 33 <f+0x33>", AArch64 "// #1"; tried only where a run of spaces starts.
COMMENT = re.compile(r"(?<!\s)\s++(# |//).*$")
ADDEND = re.compile(r"^(?P<symbol>.*?)(?P<addend>[+-]0x[0-9a-f]+)?$")


@dataclass(frozen=True)
class Reference:
    """Where a relocation points: a symbol (a section's name for a section symbol) plus an offset."""

    symbol: str
    addend: int = 0

    @classmethod
    def parse(cls, target: str) -> Reference:
        match = ADDEND.match(target.strip())
        assert match is not None  # ADDEND matches any line: the addend is optional
        return cls(match["symbol"], int(match["addend"] or "0", 16))


@dataclass
class Function:
    """One symbol's code, as objdump shows it: its section, its offset there, its instructions (whitespace
    squeezed) and what the relocations inside it point to."""

    name: str
    section: str
    start: int
    instructions: list[str] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)


@dataclass
class ObjectFile:
    symbols: dict[str, str]  # name -> nm's type letter (U undefined, T text, W weak, ...), external and local
    functions: list[Function]  # in every section that holds code
    data_references: dict[str, list[Reference]]  # section -> its relocations, for the sections that hold no code
    readable_names: dict[str, str] = field(default_factory=dict)  # mangled -> demangled, of every name above

    def readable(self, name: str) -> str:
        return self.readable_names.get(name, name)

    def defined_globals(self) -> dict[str, str]:
        return defined_globals(self.symbols)

    def undefined(self) -> set[str]:
        """What the object needs from elsewhere (U; w and v when the reference is weak)."""
        return {name for name, kind in self.symbols.items() if kind in UNDEFINED}

    def function_at(self, section: str, offset: int) -> Function | None:
        return next((f for f in self.functions if f.section == section and f.start == offset), None)

    def function(self, name: str) -> Function | None:
        return next((f for f in self.functions if f.name == name), None)


def defined_globals(symbols: dict[str, str]) -> dict[str, str]:
    """The symbols another object could link against: defined, global or weak (nm's upper-case letters but U,
    and u for GNU unique)."""
    return {name: kind for name, kind in symbols.items() if (kind.isupper() and kind != "U") or kind == "u"}


class ObjectTooLarge(RuntimeError):
    """What a binutils program says of the object is past its bound, in bytes or in time: the object's doing."""


def binutils(*args: str, stdin: str | None = None) -> str:
    """The output of a binutils program, run in the sandbox; the arguments that name files are what it may read."""
    files = [Path(arg).resolve() for arg in args[1:] if Path(arg).is_file()]
    command = sandbox.step_command(list(args), files, None, Path("/"), limits=sandbox.TOOL_LIMITS)
    with tempfile.TemporaryDirectory(prefix="cml-binutils-") as scratch:
        given = None
        if stdin is not None:
            given = Path(scratch) / "stdin"
            given.write_text(stdin)
        ran = proc.run(command, TIMEOUT_S, output_limit=OUTPUT_LIMIT, kept=OUTPUT_LIMIT, stdin=given)
    if ran.printed_too_much:
        raise ObjectTooLarge(f"{args[0]} printed more than {OUTPUT_LIMIT >> 20} MiB about it")
    if ran.timed_out:
        raise ObjectTooLarge(f"{args[0]} did not finish reading it in {TIMEOUT_S} s")
    if ran.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:2])} failed: {ran.stderr.strip()[:300]}")
    return ran.stdout


UNDEFINED = "Uwv"  # nm's kinds of a reference to a symbol defined elsewhere


def read_symbols(path: Path) -> dict[str, str]:
    """nm's POSIX format: `name type [value size]`, one a line; an archive adds a line per member. A name one member
    defines and another refers to is the definition, whichever member nm lists first."""
    symbols: dict[str, str] = {}
    for line in binutils("nm", "-P", "--no-sort", str(path.resolve())).splitlines():
        fields = line.split()
        if len(fields) >= 2 and not line.endswith(":"):
            if fields[1] in UNDEFINED and symbols.get(fields[0], "U") not in UNDEFINED:
                continue
            symbols[fields[0]] = fields[1]
    return symbols


def read_functions(path: Path) -> list[Function]:
    """objdump -dr: every section with code, each symbol's instructions and the relocations among them."""
    functions: list[Function] = []
    section = ""
    for line in binutils("objdump", "-dr", "--no-show-raw-insn", str(path.resolve())).splitlines():
        if line.startswith("Disassembly of section "):
            section = line.removeprefix("Disassembly of section ").rstrip(":")
        elif match := FUNCTION.match(line):
            functions.append(Function(match["name"], section, int(line.split()[0], 16)))
        elif functions and (match := RELOCATION.match(line)):
            functions[-1].references.append(Reference.parse(match["target"]))
        elif functions and (match := INSTRUCTION.match(line)):
            text = " ".join(COMMENT.sub("", match["text"]).split())
            if text and text != "(bad)":
                functions[-1].instructions.append(text)
    return functions


def read_data_references(path: Path, code_sections: set[str]) -> dict[str, list[Reference]]:
    """objdump -r, for the sections that hold no code (the code's own relocations are read_functions')."""
    found: dict[str, list[Reference]] = {}
    section = ""
    for line in binutils("objdump", "-r", str(path.resolve())).splitlines():
        if line.startswith("RELOCATION RECORDS FOR ["):
            section = line[len("RELOCATION RECORDS FOR [") : line.rindex("]")]
        elif (match := RELOCATION_RECORD.match(line)) and section not in code_sections:
            found.setdefault(section, []).append(Reference.parse(match["target"]))
    return found


def read_object(path: Path) -> ObjectFile:
    """Everything the checks look at, of an object file or of a static library (all its members together)."""
    symbols, functions = read_symbols(path), read_functions(path)
    code_sections = {f.section for f in functions}
    obj = ObjectFile(symbols, functions, read_data_references(path, code_sections))
    obj.readable_names = demangle(sorted(set(symbols) | {f.name for f in functions}))
    return obj


def demangle(names: list[str]) -> dict[str, str]:
    """Mangled name -> the C++ a person reads (c++filt); names that are not mangled stay as they are."""
    if not names:
        return {}
    try:
        readable = binutils("c++filt", stdin="\n".join(names) + "\n").splitlines()
    except RuntimeError:
        readable = []
    return dict(zip(names, readable, strict=True)) if len(readable) == len(names) else {n: n for n in names}
