"""Whether the CPU emulator sees every memory access of a kernel.cu, judged on the object clang made of it.

The emulator counts, bounds-checks and race-checks a kernel's accesses through the callbacks its compile puts
before each load and store (common/emu/compile.py): clang's coverage where it has one, and the compile's own
after it (counted_accesses.py, which gives a callback to every access left without one, hands copies and fills
to the runtime and refuses assembly). That compile runs in the sandbox as the student's step; this check, on the
object it made, is the second line: a function that reads or writes memory other than its own stack frame must
call at least one of the callbacks, whatever attribute or assembly tried to leave it without."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.steps.integrity import elf

# The coverage's callbacks, and those the emulator's compile adds where it has none (common/emu/counted_accesses.py).
CALLBACK = re.compile(
    r"^(__sanitizer_cov_(load|store)(1|2|4|8|16)|__cml_emu_(constant_load(1|2|4|8|16)|load|store|atomic|copy|move|fill))$"
)
# Words in front of an x86 mnemonic that are not the operation itself.
PREFIXES = frozenset(
    {"rep", "repz", "repe", "repnz", "repne", "lock", "notrack", "bnd", "data16", "addr32", "cs", "ds"}
)
# Operations with a memory operand that touch no memory: address arithmetic, padding, cache hints.
NO_ACCESS = re.compile(r"^(lea\w*|nop\w*|prefetch\w*|prfu?m|endbr\d+)$")
# Tried only where a run of the characters an operand's displacement holds starts: a symbol's long name never
# makes it scan the same run again.
X86_OPERAND = re.compile(r"(?<![-\w.@+:])(?:%[a-z]s:)?[-\w.@+]*+\((?P<base>%\w+)?(?:,%\w+)?(?:,\d+)?\)")
AARCH64_OPERAND = re.compile(r"\[(?P<base>\w+)")
AARCH64_ACCESS = re.compile(r"^(ld|st|cas|swp)")  # loads, stores, atomics; the rest never touch memory
FRAME_POINTER_SET = ("mov %rsp,%rbp", "mov x29, sp")  # after it the frame pointer addresses the stack frame
# Where a rip-relative operand reads what is no memory of a kernel's: the GOT (the address of a global, not
# the global) and the compiler's constants (literal pools, jump tables, strings).
NOT_DATA_RELOCATION = re.compile(r"GOT")
CONSTANTS = re.compile(r"^\.(LCPI|LJTI|L\.str|rodata)")
# Of what the emulator's runtime defines, what stands in for the GPU (its built-in variables, atomics, fences,
# shuffles, the launch, the accesses' callbacks); its CUDA runtime API stays under the allow-list of the calls.
NOT_DEVICE = re.compile(r"^(cuda|nvtx|std::|boost::|DW\.ref\.)")


@dataclass
class Instruction:
    text: str  # whitespace squeezed, objdump's comments dropped
    relocation: str = ""  # the type of a relocation inside it, if any
    target: str = ""  # and what that relocation points at


@dataclass
class Code:
    name: str
    instructions: list[Instruction] = field(default_factory=list)

    def calls_callbacks(self) -> bool:
        return any(CALLBACK.match(elf.Reference.parse(i.target).symbol) for i in self.instructions if i.target)


def read_code(path: Path) -> list[Code]:
    """objdump -dr, each function's instructions with the relocation inside each (elf.read_functions keeps
    the relocations apart from the instructions: here it matters which instruction one belongs to)."""
    functions: list[Code] = []
    for line in elf.binutils("objdump", "-dr", "--no-show-raw-insn", str(path.resolve())).splitlines():
        if match := elf.FUNCTION.match(line):
            functions.append(Code(match["name"]))
        elif functions and functions[-1].instructions and (match := elf.RELOCATION.match(line)):
            functions[-1].instructions[-1].relocation = match["type"]
            functions[-1].instructions[-1].target = match["target"]
        elif functions and (match := elf.INSTRUCTION.match(line)):
            text = " ".join(elf.COMMENT.sub("", match["text"]).split())
            if text and text != "(bad)":
                functions[-1].instructions.append(Instruction(text))
    return functions


def mnemonic(text: str) -> str:
    return next((word for word in text.split() if word not in PREFIXES), "")


def memory_bases(instruction: Instruction) -> list[str]:
    """The base register of each memory operand the instruction reads or writes ('' where there is none)."""
    operation = mnemonic(instruction.text)
    if NO_ACCESS.match(operation):
        return []
    if "%" in instruction.text or "(" in instruction.text:  # x86-64, AT&T syntax
        return [m["base"] or "" for m in X86_OPERAND.finditer(instruction.text)]
    if AARCH64_ACCESS.match(operation):
        return [m["base"] for m in AARCH64_OPERAND.finditer(instruction.text)]
    return []


def constant_or_address(instruction: Instruction) -> bool:
    """A rip-relative operand that reads a constant of the compiler's or a global's address from the GOT."""
    symbol = elf.Reference.parse(instruction.target).symbol
    return bool(NOT_DATA_RELOCATION.search(instruction.relocation) or CONSTANTS.match(symbol))


def unwatched_access(function: Code) -> str:
    """An instruction of `function` that reads or writes memory outside its stack frame, or ''. One that
    names the memory in the source reads best: thread-local ones (%fs:) are the built-in variables."""
    frame_pointer = any(i.text in FRAME_POINTER_SET for i in function.instructions)
    stack = {"%rsp", "%esp", "sp"} | ({"%rbp", "x29"} if frame_pointer else set())
    found = [
        instruction.text
        for instruction in function.instructions
        for base in memory_bases(instruction)
        if base not in stack and not (base == "%rip" and constant_or_address(instruction))
    ]
    return next((text for text in found if "%fs:" not in text), found[0] if found else "")


def problems(path: Path) -> list[str]:
    """What in the emulator's object of a kernel.cu (common/emu) escapes the emulator's watch: each function
    that accesses memory without calling any of the callbacks that count and check the accesses."""
    found = []
    functions = read_code(path)
    readable = elf.demangle(sorted({f.name for f in functions}))
    for function in functions:
        access = unwatched_access(function)
        if access and not function.calls_callbacks():
            found.append(
                f"turns off the CPU emulator's instrumentation in {readable.get(function.name, function.name)}: "
                f"it reads or writes memory (`{access}`) without the callbacks through which the emulator counts "
                'and checks every access (an attribute such as no_sanitize("coverage"), or assembly, does that)'
            )
    return found


def without_the_emulators_own(obj: elf.ObjectFile, runtime: frozenset[str]) -> elf.ObjectFile:
    """The emulator's object of a kernel.cu less what its headers put there: calls into the emulator's runtime
    where the GPU does the work itself (`runtime`: what its library defines), and the weak instantiations of
    its templates (cml_emu::launch<...>). What is left is judged as the nvcc object is."""

    def the_emulators(name: str, kind: str) -> bool:
        readable = obj.readable(name)
        if kind == "U":
            return name in runtime and not NOT_DEVICE.match(readable)
        return kind in "Wu" and readable.startswith("cml_emu::")

    kept = {name: kind for name, kind in obj.symbols.items() if not the_emulators(name, kind)}
    return replace(obj, symbols=kept)
