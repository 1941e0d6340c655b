"""The machine code of each source line of a kernel.cu's object: which memory instructions nvcc made of it, what a
student would otherwise read in Nsight Compute's source view. nvcc builds with -lineinfo (meson.build), so the
object's cubins carry a line table: cuobjdump extracts them (-xelf all) into a scratch folder of the step's own,
and nvdisasm lists each with its source lines (-g). Both run in the sandbox on the student's bytes, as the
resource report's cuobjdump does (grader/steps/resources.py), with their output bounded; a listing that cannot be
read gives no lines and says why."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.execution import proc, sandbox
from grader.steps import resources, sass
from grader.steps.integrity.elf import demangle

MAX_CUBINS = 8  # one per architecture and object: a kernel.cu builds one
MAX_SOURCE_LINES = 2000  # source lines kept: a lab's kernel.cu has a few hundred
MAX_KEPT = 12  # memory instructions kept per source line, the rest counted
LOCATION = re.compile(r'^\s*+//## File "(?P<file>[^"]{1,4096}+)", line (?P<line>\d{1,9}+)')
FUNCTION = re.compile(r"^\s*+\.type\s++(?P<name>[\w$.]{1,4096}+),@function")
INSTRUCTION = re.compile(r"^\s*+/\*[0-9a-f]{4,}+\*/\s++(?P<text>[^;]{1,4096}+);")
# The instructions that move data between registers and memory, or read a __constant__ bank other than the
# kernel's parameters (bank 0).
MEMORY = re.compile(
    r"^(?:@!?U?P[T0-9]++\s++)?(?:LD|ST|LDG|STG|LDS|STS|LDL|STL|LDSM|ATOM|ATOMS|ATOMG|RED|REDG|LDGSTS|TEX|TLD|TLD4)(?:\.|\s|$)"
)
USER_CONSTANT = re.compile(r"c\[0x[1-9a-f]\]")


GUARD = re.compile(r"^@!?U?P[T0-9]++\s++")  # an instruction's predicate, before its opcode
# The opcodes of each memory space and direction, as a picture of one names them.
OPCODES = {
    ("global", "load"): ("LDG", "LD"),
    ("global", "store"): ("STG", "ST"),
    ("global", "atomic"): ("ATOM", "ATOMG", "RED", "REDG"),
    ("shared", "load"): ("LDS", "LDSM"),
    ("shared", "store"): ("STS",),
    ("shared", "atomic"): ("ATOMS",),
    ("local", "load"): ("LDL",),
    ("local", "store"): ("STL",),
}


def opcode(instruction: str) -> str:
    """'@!P2 LDG.E.CONSTANT R3, desc[UR6][R2.64]' -> 'LDG'."""
    return GUARD.sub("", instruction).split(" ", 1)[0].split(".", 1)[0]


def of_kind(instructions: list[str], space: str, op: str) -> list[str]:
    """The instructions of one memory space and direction; for __constant__, those reading one of its banks."""
    if space == "constant":
        return [i for i in instructions if USER_CONSTANT.search(i)]
    return [i for i in instructions if opcode(i) in OPCODES.get((space, op), ())]


@dataclass
class SourceLineCode:
    """What nvcc made of one source line, over every kernel: its memory instructions and how many others."""

    file: str  # the last two parts of its path ("NN_name/kernel.cu")
    line: int
    kernel: str  # the first kernel it was seen in, as a person reads its name
    memory: list[str] = field(default_factory=list)  # at most MAX_KEPT, as the listing writes them
    others: int = 0  # its other instructions, and memory ones past MAX_KEPT


@dataclass
class MachineLines:
    lines: list[SourceLineCode] = field(default_factory=list)
    problem: str = ""  # why there are none; "" when the listing was read

    def at(self, file: str, line: int) -> SourceLineCode | None:
        name = file.rsplit("/", 1)[-1]
        return next((c for c in self.lines if c.line == line and c.file.rsplit("/", 1)[-1] == name), None)


def read_lines(obj: Path, folders: list[Path]) -> MachineLines:
    """The memory instructions of each source line of `obj` (an object or a static library), or why not."""
    tool = resources.find_tool(folders)
    disassembler = tool.parent / sass.DISASSEMBLER if tool else None
    if tool is None or disassembler is None or not disassembler.is_file():
        return MachineLines(problem=f"{sass.UNREADABLE}: {resources.TOOL} or {sass.DISASSEMBLER} not found")
    if not obj.is_file():
        return MachineLines(problem=f"{sass.UNREADABLE}: no compiled object")
    obj = obj.resolve()
    with tempfile.TemporaryDirectory(prefix="cml-sass-") as folder:
        scratch = Path(folder)
        ran = _in_sandbox([str(tool), "-xelf", "all", str(obj)], [obj, tool.resolve().parent], scratch)
        cubins = sorted(scratch.glob("*.cubin"))[:MAX_CUBINS]
        if not ran.ok or not cubins:
            return MachineLines(problem=f"{sass.UNREADABLE}: {resources.TOOL} -xelf {ran.how_it_ended()}")
        text = ""
        for cubin in cubins:
            listed = _in_sandbox([str(disassembler), "-g", "-c", str(cubin)], [disassembler.parent], scratch)
            if not listed.ok:
                return MachineLines(problem=f"{sass.UNREADABLE}: {sass.DISASSEMBLER} -g {listed.how_it_ended()}")
            text += listed.stdout
    return parse(text)


def _in_sandbox(command: list[str], readable: list[Path], scratch: Path) -> proc.Outcome:
    wrapped = sandbox.step_command(command, readable, scratch, scratch, limits=sandbox.TOOL_LIMITS)
    return proc.run(wrapped, resources.TIMEOUT_S, output_limit=sass.LISTING_LIMIT, kept=sass.LISTING_LIMIT)


def parse(text: str) -> MachineLines:
    """nvdisasm -g's listing: `.type NAME,@function` per kernel, `//## File "F", line N` before the instructions of
    each source line."""
    found: dict[tuple[str, int], SourceLineCode] = {}
    kernel, where = "", None
    for line in text.splitlines():
        if len(line) > sass.MAX_LINE_CHARS:
            return MachineLines(problem=f"{sass.UNREADABLE}: a line of {len(line):,} characters")
        if match := FUNCTION.match(line):
            kernel, where = match["name"], None
        elif match := LOCATION.match(line):
            where = ("/".join(match["file"].split("/")[-2:])[-200:], int(match["line"]))
        elif (match := INSTRUCTION.match(line)) and where is not None:
            if where not in found:
                if len(found) >= MAX_SOURCE_LINES:
                    continue
                found[where] = SourceLineCode(where[0], where[1], kernel)
            code, instruction = found[where], " ".join(match["text"].split())
            if (MEMORY.match(instruction) or USER_CONSTANT.search(instruction)) and len(code.memory) < MAX_KEPT:
                code.memory.append(instruction[:200])
            else:
                code.others += 1
    readable = demangle(sorted({code.kernel for code in found.values() if code.kernel}))
    for code in found.values():
        code.kernel = readable.get(code.kernel, code.kernel)[: resources.NAME_LIMIT]
    return MachineLines(sorted(found.values(), key=lambda code: (code.file, code.line)))
