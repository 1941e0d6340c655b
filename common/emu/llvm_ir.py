"""Reading the textual LLVM IR that clang writes for a kernel.cu, as much of it as the CPU emulator's passes over it
need (access_widths.py, counted_accesses.py): functions and their instructions, operands, types and their sizes,
what a value is defined as, and the source line of an instruction. Both spellings of pointers are read: clang 14's
typed ones (`float*`) and the opaque ones of later versions (`ptr`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

NAME = r'(?:"[^"]*"|[-\w.$]+)'
GLOBAL = re.compile(rf"@{NAME}")
LOCAL = re.compile(rf"%{NAME}")
DEFINITION = re.compile(rf"^\s+(?P<name>%{NAME}) = (?P<rest>.*)$")
DEBUG_LOCATION = re.compile(r"^(?P<id>![0-9]+) = !DILocation\(line: (?P<line>[0-9]+)")
LOCATION = re.compile(r", !dbg (?P<id>![0-9]+)")
# A pointer operand: its type (`ptr`, or a typed pointer ending in *), then its value.
POINTER_OPERAND = re.compile(
    r"^(?P<type>ptr(?: addrspace\(\d+\))?|.+?\*)\s+(?P<value>(?:[%@]|getelementptr|bitcast|addrspacecast|inttoptr"
    r"|null|undef|poison|select).*)$"
)
PRIMITIVE_BYTES = {"half": 2, "bfloat": 2, "float": 4, "double": 8, "x86_fp80": 10, "fp128": 16, "ppc_fp128": 16}


def split_operands(text: str) -> list[str]:
    """`text` split at its commas outside brackets and quotes, each part stripped."""
    parts, depth, start, quoted = [], 0, 0, False
    for at, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:at].strip())
            start = at + 1
    parts.append(text[start:].strip())
    return [part for part in parts if part]


def closing(text: str, opening: int) -> int:
    """The index of the bracket that closes the one at `opening`."""
    depth = 0
    for at in range(opening, len(text)):
        if text[at] in "([{<":
            depth += 1
        elif text[at] in ")]}>":
            depth -= 1
            if depth == 0:
                return at
    raise ValueError(f"no closing bracket in {text[:120]!r}")


def pointer_operand(operand: str) -> tuple[str, str]:
    """(type, value) of a pointer operand such as `float* %16`, `ptr %16` or `i32* getelementptr (...)`."""
    found = POINTER_OPERAND.match(operand.strip())
    if not found:
        raise ValueError(f"not a pointer operand: {operand[:120]!r}")
    return found["type"], found["value"]


def is_opaque(text: str) -> bool:
    """Whether the module spells its pointers `ptr` (opaque), not `T*` (typed)."""
    return re.search(r"\bptr\b", text) is not None and re.search(r"\bi8\*", text) is None


def type_bytes(spelled: str) -> int | None:
    """The bytes a load or store of the type touches; None for a struct, whose layout is not read here."""
    spelled = spelled.strip()
    if found := re.fullmatch(r"i(\d+)", spelled):
        return (int(found[1]) + 7) // 8
    if spelled in PRIMITIVE_BYTES:
        return PRIMITIVE_BYTES[spelled]
    if spelled == "ptr" or spelled.startswith("ptr ") or spelled.endswith("*"):
        return 8
    if found := re.fullmatch(r"[<\[](\d+) x (.+)[>\]]", spelled):
        element = type_bytes(found[2])
        return None if element is None else int(found[1]) * element
    return None


@dataclass
class Function:
    """A function's definition: the lines of its body (between `{` and `}`), and what each of its values is."""

    name: str
    first: int  # the index of its first body line in the module's lines
    body: list[str]
    definitions: dict[str, str] = field(default_factory=dict)  # %value -> what follows its `=`

    def __post_init__(self) -> None:
        for line in self.body:
            if found := DEFINITION.match(line):
                self.definitions[found["name"]] = found["rest"]


def functions(lines: list[str]) -> list[Function]:
    """Every function the module defines."""
    found, name, start = [], "", -1
    for at, line in enumerate(lines):
        if line.startswith("define ") and line.rstrip().endswith("{"):
            named = GLOBAL.search(line)
            name, start = named.group(0) if named else "", at + 1
        elif line == "}" and start >= 0:
            found.append(Function(name, start, lines[start:at]))
            start = -1
    return found


def source_lines(lines: list[str]) -> dict[str, int]:
    """Each debug location's source line (!140 -> 15)."""
    return {found["id"]: int(found["line"]) for line in lines if (found := DEBUG_LOCATION.match(line))}


def location(line: str) -> str:
    """An instruction's debug location (', !dbg !140'), or ''."""
    found = LOCATION.search(line)
    return found.group(0) if found else ""


def globals_in_section(lines: list[str], section: str) -> set[str]:
    """The names of the global variables the module puts in `section`."""
    marker = f'section "{section}"'
    return {
        found.group(0) for line in lines if line.startswith("@") and marker in line if (found := GLOBAL.match(line))
    }
