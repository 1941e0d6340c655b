"""The second of the CPU emulator's passes over a kernel.cu's IR (compile.py), after LLVM has optimised it and clang's
SanitizerCoverage has put a callback before each load and store it could (trace-loads, trace-stores): every access
to memory left without one is given one, or the kernel is refused with the reason. Nothing that touches memory
reaches the machine code unseen, so the emulator's counters, memcheck and racecheck never judge a kernel on the
accesses they happened to see.

- A load or store the coverage left out (one of a size it has no callback for, a function it was told to skip)
  gets a callback of its own.
- A copy, move or fill of memory (what memcpy, memmove and memset become, and what clang makes of a large struct's
  copy) and a call of the C library's memcpy, memmove, memset, memcmp, bcmp or strlen, however it is reached, go to
  the emulator's runtime (src/instrument.cpp), which counts and checks each piece a GPU would move, then does it.
- An atomic instruction (`__atomic_*`, std::atomic, cuda::atomic_ref) is noted as an atomic access first.
- A load that reads a __constant__ variable by its name is a constant-bank load on a GPU (LDC); through any other
  pointer, even one into the constant bank (cudaGetSymbolAddress), nvcc makes a global load (LDG). The load's
  callback says which, from where its address comes from.
- What cannot be counted is refused: assembly with any instruction in it, and an intrinsic that reaches memory
  through a pointer and is none of those above."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field

import llvm_ir

CONSTANT_SECTION = "cml_emu_constant"  # where the emulator puts __constant__ variables (cml_emu/device.hpp)
COVERAGE = re.compile(
    r"^(?P<head>\s+(?:tail )?call void )@__sanitizer_cov_(?P<op>load|store)(?P<bytes>\d+)\((?P<operand>.*)\)"
)
RUNTIME_CALLBACK = re.compile(r"^\s+(?:tail )?call void @__cml_emu_(?:constant_load\d+|load|store|atomic)\(")
LOAD = re.compile(r"^\s+%\S+ = load (?P<rest>.*)$")
STORE = re.compile(r"^\s+store (?P<rest>.*)$")
ATOMIC = re.compile(r"^\s+%\S+ = (?P<kind>atomicrmw|cmpxchg) (?P<rest>.*)$")
MEMORY_INTRINSIC = re.compile(
    r"^(?P<indent>\s+)(?:(?:tail|musttail|notail) )?call void @llvm\.(?P<kind>memcpy|memmove|memset)(?P<suffix>[\w.]*)\("
)
INTRINSIC_CALL = re.compile(r"\bcall [^@]*@(?P<name>llvm\.[\w.]+)\((?P<arguments>.*)$")
INLINE_ASSEMBLY = re.compile(r'\basm (?:sideeffect )?(?:alignstack )?(?:inteldialect )?(?:unwind )?"(?P<text>[^"]*)"')
# Intrinsics given a pointer that touch no memory a kernel's counters see: the compiler's bookkeeping, the stack.
HARMLESS_INTRINSICS = re.compile(
    r"^llvm\.(dbg|lifetime|prefetch|invariant|launder\.invariant\.group|strip\.invariant\.group|objectsize|ptrmask"
    r"|stacksave|stackrestore|va_start|va_end|va_copy|experimental\.noalias\.scope\.decl|threadlocal\.address"
    r"|is\.constant|annotation|var\.annotation|ptr\.annotation|sideeffect|donothing|assume|expect|eh|trap"
    r"|returnaddress|frameaddress|type\.test|public\.type\.test)\b"
)
# The C library's functions that read or write memory through their arguments, as a kernel.cu may call them: each
# goes to the runtime's own, which counts the accesses of a GPU thread and then calls it.
LIBRARY_FUNCTIONS = ("memcpy", "memmove", "memset", "memcmp", "bcmp", "strlen", "__memcpy_chk", "__memmove_chk",
                     "__memset_chk")  # fmt: skip
LIBRARY_REFERENCE = re.compile(rf"@({'|'.join(re.escape(name) for name in LIBRARY_FUNCTIONS)})(?![-\w.$])")
SCALAR_TYPE = re.compile(r"^(?P<type>i\d+|half|bfloat|float|double|x86_fp80|fp128|ptr(?: addrspace\(\d+\))?|.+?\*)\s")
ORDERING = re.compile(r"\s+(?:syncscope\(\"[^\"]*\"\)\s+)?(unordered|monotonic|acquire|release|acq_rel|seq_cst)$")


class Refused(Exception):
    """What the emulator cannot count: the kernel.cu is not built, with this reason."""


@dataclass
class Module:
    """The state of the pass over one module: how it spells pointers, what it adds, what it must declare."""

    opaque: bool
    lines_of: dict[str, int]  # debug location -> source line
    constants: set[str]  # the __constant__ variables
    declarations: dict[str, str] = field(default_factory=dict)  # runtime function -> its declaration
    count: int = 0

    @property
    def byte_pointer(self) -> str:
        return "ptr" if self.opaque else "i8*"

    def name(self) -> str:
        self.count += 1
        return f"%cml.c{self.count}"

    def as_bytes(self, pointer_type: str, value: str, out: list[str], indent: str) -> str:
        """The pointer `value` as an operand of i8 pointer type, casting it where pointers are typed."""
        if self.opaque or pointer_type == "i8*":
            return f"{self.byte_pointer} {value}"
        cast = self.name()
        out.append(f"{indent}{cast} = bitcast {pointer_type} {value} to i8*")
        return f"i8* {cast}"

    def declare(self, function: str, parameters: str) -> str:
        self.declarations.setdefault(function, f"declare void @{function}({parameters})")
        return function

    def where(self, line: str, function: str) -> str:
        location = llvm_ir.location(line)
        at = self.lines_of.get(location.rpartition(" ")[2]) if location else None
        return f"in {function}" + (f", at line {at} of its source" if at else "")


class Roots:
    """Where a function's pointer values come from: whether every way back ends at a __constant__ variable."""

    def __init__(self, function: llvm_ir.Function, constants: set[str]) -> None:
        self.definitions, self.constants = function.definitions, constants
        self.known: dict[str, bool] = {}

    def constant(self, value: str) -> bool:
        value = value.strip()
        if value.startswith("%"):
            return self.local(value)
        referenced = llvm_ir.GLOBAL.findall(value)
        locals_ = [name for name in llvm_ir.LOCAL.findall(value) if name in self.definitions]
        return bool(referenced) and all(name in self.constants for name in referenced) and not locals_

    def local(self, name: str) -> bool:
        if name in self.known:
            return self.known[name]
        self.known[name] = True  # a cycle through phis adds nothing of its own
        found = self.sources(self.definitions.get(name, ""))
        self.known[name] = bool(found) and all(self.constant(source) for source in found)
        return self.known[name]

    @staticmethod
    def sources(definition: str) -> list[str]:
        """The pointers a value is made from, where it is an address computed from others; [] where not."""
        words = definition.split(" ", 1)
        operation, rest = words[0], words[1] if len(words) > 1 else ""
        if operation == "getelementptr":
            operands = llvm_ir.split_operands(rest.removeprefix("inbounds "))
            return [llvm_ir.pointer_operand(operands[1])[1]] if len(operands) > 1 else []
        if operation in ("bitcast", "addrspacecast"):
            return [llvm_ir.pointer_operand(rest.rsplit(" to ", 1)[0])[1]]
        if operation == "phi":
            return [incoming.split(",")[0].strip() for incoming in re.findall(r"\[\s*([^\]]*)\]", rest)]
        if operation == "select":
            operands = llvm_ir.split_operands(rest)
            return [llvm_ir.pointer_operand(operand)[1] for operand in operands[1:3]] if len(operands) >= 3 else []
        return []


def access_operands(rest: str, is_store: bool) -> tuple[str, str, str]:
    """(the accessed type, the pointer's type, the pointer) of a load's or store's text after its keyword."""
    rest = re.sub(r"^(?:atomic )?(?:volatile )?", "", rest)
    operands = llvm_ir.split_operands(rest)
    pointer_type, pointer = llvm_ir.pointer_operand(ORDERING.sub("", operands[1]))
    if is_store:
        accessed = SCALAR_TYPE.match(operands[0] + " ")
        spelled = accessed["type"] if accessed else operands[0].rsplit(" ", 1)[0]
    else:
        spelled = operands[0]
    return spelled, pointer_type, pointer


def callback_for(module: Module, line: str, is_store: bool, function: str) -> list[str]:
    """The callback a load or store the coverage left out needs, before it."""
    found = (STORE if is_store else LOAD).match(line)
    assert found
    spelled, pointer_type, pointer = access_operands(found["rest"], is_store)
    size = llvm_ir.type_bytes(spelled)
    if size is None:
        raise Refused(f"a {'store' if is_store else 'load'} of a whole {spelled} {module.where(line, function)}")
    indent, out = re.match(r"^\s*", line).group(0), []  # type: ignore[union-attr]
    operand = module.as_bytes(pointer_type, pointer, out, indent)
    callee = module.declare(f"__cml_emu_{'store' if is_store else 'load'}", f"{module.byte_pointer}, i64")
    out.append(f"{indent}call void @{callee}({operand}, i64 {size}){llvm_ir.location(line)}")
    return out


def atomic_note(module: Module, line: str) -> list[str]:
    """The call that notes an atomic instruction's access, before it."""
    found = ATOMIC.match(line)
    assert found
    rest = re.sub(r"^(?:weak )?(?:volatile )?", "", found["rest"])
    if found["kind"] == "atomicrmw":
        rest = rest.split(" ", 1)[1]  # the operation: add, xchg, fadd, ...
    operands = llvm_ir.split_operands(rest)
    pointer_type, pointer = llvm_ir.pointer_operand(operands[0])
    value = SCALAR_TYPE.match(operands[1] + " ")
    size = llvm_ir.type_bytes(value["type"]) if value else None
    if size is None:
        raise Refused(f"an atomic of a {operands[1]} the emulator cannot count")
    indent, out = re.match(r"^\s*", line).group(0), []  # type: ignore[union-attr]
    operand = module.as_bytes(pointer_type, pointer, out, indent)
    callee = module.declare("__cml_emu_atomic", f"{module.byte_pointer}, i64")
    out.append(f"{indent}call void @{callee}({operand}, i64 {size}){llvm_ir.location(line)}")
    return out


def runtime_copy(module: Module, line: str, function: str) -> list[str]:
    """A memory intrinsic's call as a call of the runtime's copy, move or fill, which counts its pieces."""
    found = MEMORY_INTRINSIC.match(line)
    assert found
    if "element" in found["suffix"]:
        raise Refused(f"an element-wise atomic {found['kind']} {module.where(line, function)}")
    opening = found.end() - 1
    arguments = llvm_ir.split_operands(line[opening + 1 : llvm_ir.closing(line, opening)])
    indent, out = found["indent"], []
    filling = found["kind"] == "memset"
    pointers = [pointer_argument(module, argument, out, indent) for argument in arguments[: 1 if filling else 2]]
    size_type, size = arguments[-2].split(" ", 1)
    if size_type != "i64":
        widened = module.name()
        out.append(f"{indent}{widened} = zext {size_type} {size} to i64")
        size = widened
    alignment = min(align for _, align in pointers)
    byte = module.byte_pointer
    if filling:
        callee = module.declare("__cml_emu_fill", f"{byte}, i8 zeroext, i64, i64")
        fill = arguments[1]
        call = f"{pointers[0][0]}, {fill.replace('i8 ', 'i8 zeroext ', 1)}, i64 {size}, i64 {alignment}"
    else:
        callee = module.declare(
            f"__cml_emu_{'copy' if found['kind'] == 'memcpy' else 'move'}", f"{byte}, {byte}, i64, i64"
        )
        call = f"{pointers[0][0]}, {pointers[1][0]}, i64 {size}, i64 {alignment}"
    out.append(f"{indent}call void @{callee}({call}){llvm_ir.location(line)}")
    return out


def pointer_argument(module: Module, argument: str, out: list[str], indent: str) -> tuple[str, int]:
    """A memory intrinsic's pointer argument as a plain operand of the runtime's call, and its alignment."""
    aligned = re.search(r"\balign (\d+)", argument)
    cleaned = re.sub(r"\s+(?:align \d+|noundef|nonnull|noalias|nocapture|readonly|writeonly"
                     r"|dereferenceable(?:_or_null)?\(\d+\))(?=\s)", "", argument)  # fmt: skip
    pointer_type, value = llvm_ir.pointer_operand(cleaned)
    return module.as_bytes(pointer_type, value, out, indent), int(aligned[1]) if aligned else 1


def refused_intrinsic(line: str) -> str:
    """The intrinsic a line calls that reaches memory through a pointer and is none the runtime counts; ''."""
    found = INTRINSIC_CALL.search(line)
    if not found or MEMORY_INTRINSIC.match(line) or HARMLESS_INTRINSICS.match(found["name"]):
        return ""
    takes_a_pointer = re.search(r"(\bptr\b|\*)\s", found["arguments"]) is not None
    return found["name"] if takes_a_pointer else ""


def check_function(module: Module, function: llvm_ir.Function) -> list[str]:
    """The function's body, each access given what counts it; raises Refused for what cannot be counted."""
    roots = Roots(function, module.constants)
    out: list[str] = []
    previous = ""  # the last instruction line
    for line in function.body:
        stripped = line.strip()
        if not stripped or stripped.startswith(";") or stripped.endswith(":") or re.match(r"^[\w.$-]+:", stripped):
            out.append(line)
            continue
        if assembly := INLINE_ASSEMBLY.search(line):
            if assembly["text"].strip():
                raise Refused(f"assembly ({assembly['text'][:60]!r}) {module.where(line, function.name)}")
        if coverage := COVERAGE.match(line):
            _, value = llvm_ir.pointer_operand(coverage["operand"])
            if coverage["op"] == "load" and roots.constant(value):
                parameter = llvm_ir.pointer_operand(coverage["operand"])[0]
                callee = module.declare(f"__cml_emu_constant_load{coverage['bytes']}", parameter)
                line = line.replace(f"@__sanitizer_cov_load{coverage['bytes']}(", f"@{callee}(", 1)
        elif LOAD.match(line) or STORE.match(line):
            if not (COVERAGE.match(previous) or RUNTIME_CALLBACK.match(previous)):
                out.extend(callback_for(module, line, STORE.match(line) is not None, function.name))
        elif ATOMIC.match(line):
            out.extend(atomic_note(module, line))
        elif MEMORY_INTRINSIC.match(line):
            out.extend(runtime_copy(module, line, function.name))
            previous = line
            continue
        elif intrinsic := refused_intrinsic(line):
            raise Refused(f"a call of {intrinsic}, which reaches memory, {module.where(line, function.name)}")
        out.append(line)
        previous = line
    return out


def count_accesses(text: str) -> str:
    """The module with every access to memory counted, or Refused."""
    lines = text.splitlines()
    module = Module(
        llvm_ir.is_opaque(text), llvm_ir.source_lines(lines), llvm_ir.globals_in_section(lines, CONSTANT_SECTION)
    )
    for line in lines:
        if line.startswith("module asm ") and line.split(" ", 2)[2].strip('" '):
            raise Refused(f"assembly outside any function ({line[11:70]})")
    rewritten: list[str] = []
    at = 0
    for function in llvm_ir.functions(lines):
        rewritten += lines[at : function.first]
        rewritten += check_function(module, function)
        at = function.first + len(function.body)
    rewritten += lines[at:]
    rewritten += module.declarations.values()
    return LIBRARY_REFERENCE.sub(lambda found: f"@__cml_emu_{found[1].lstrip('_')}", "\n".join(rewritten)) + "\n"


if __name__ == "__main__":
    source, target = sys.argv[1:3]
    try:
        with open(source) as read:
            counted = count_accesses(read.read())
    except Refused as refusal:
        sys.exit(f"cml_emu limit: {refusal}: the CPU emulator cannot count it")
    with open(target, "w") as written:
        written.write(counted)
