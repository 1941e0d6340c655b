"""The first of the CPU emulator's passes over a kernel.cu's IR (compile.py), before LLVM optimises it: each copy of
an aggregate (a float4, an int2, a struct) becomes the loads and stores a GPU makes of it, as wide as its
alignment allows, up to 16 bytes. clang writes `float4 v = p[i]` as a memcpy of 16 bytes, which LLVM's scalar
replacement then splits into four loads of 4 bytes, each counted as a request of its own; nvcc makes it one
16-byte load per lane (LDG.E.128), one request touching the same sectors once. Written as one wide load here, the
copy is one request of its real width, and LLVM keeps it so (a vector load is not split).

A copy of more than MOST_CHUNKS pieces, or of a size known only at run time, is left to the second pass
(counted_accesses.py), which hands it to the emulator's runtime, counted in pieces of the same widths."""

from __future__ import annotations

import re
import sys

import llvm_ir

MOST_CHUNKS = 16  # a copy of more pieces is left to the runtime: a struct of arrays, say
WIDEST = 16  # bytes: a GPU thread's widest load or store (LDG.E.128, STG.E.128)
CHUNK_TYPES = {16: "<4 x i32>", 8: "<2 x i32>", 4: "i32", 2: "i16", 1: "i8"}  # vectors: LLVM never splits them
COPY = re.compile(r"^(?P<indent>\s+)(?:(?:tail|musttail|notail) )?call void @llvm\.(?P<kind>memcpy|memmove)\.[\w.]+\(")
POINTER_ARGUMENT = re.compile(
    r"^(?P<type>ptr(?: addrspace\(\d+\))?|i8(?: addrspace\(\d+\))?\*)"
    r"(?P<attributes>(?:\s+(?:align \d+|noundef|nonnull|noalias|nocapture|readonly|writeonly"
    r"|dereferenceable(?:_or_null)?\(\d+\)))*)\s+(?P<value>.+)$"
)
ALIGN = re.compile(r"align (\d+)")


def widest_chunk(size: int, alignment: int) -> int:
    """The widest piece a GPU moves of a copy of `size` bytes at `alignment`: a power of two dividing both."""
    width = WIDEST
    while width > 1 and (alignment % width or size % width):
        width //= 2
    return width


def pointer_argument(operand: str) -> tuple[str, int, str] | None:
    """(type, alignment, value) of a pointer argument of a memory intrinsic; None for an address space not 0."""
    found = POINTER_ARGUMENT.match(operand)
    if not found or "addrspace" in found["type"]:
        return None
    aligned = ALIGN.search(found["attributes"])
    return found["type"], int(aligned[1]) if aligned else 1, found["value"]


class Widener:
    """Rewrites a module's constant-size copies as wide loads and stores, naming the values it adds uniquely."""

    def __init__(self, opaque: bool) -> None:
        self.opaque = opaque
        self.count = 0

    def address(self, base: str, offset: int, chunk: str, where: str, out: list[str], indent: str) -> str:
        """Lines that make the address of `chunk` at `offset` bytes from `base` (an i8 pointer); its operand."""
        self.count += 1
        name = f"%cml.w{self.count}"
        pointer = "ptr" if self.opaque else "i8*"
        at = base
        if offset:
            out.append(f"{indent}{name}.at = getelementptr inbounds i8, {pointer} {base}, i64 {offset}{where}")
            at = f"{name}.at"
        if self.opaque:
            return f"ptr {at}"
        out.append(f"{indent}{name}.as = bitcast i8* {at} to {chunk}*{where}")
        return f"{chunk}* {name}.as"

    def copy(self, line: str) -> list[str] | None:
        """The loads and stores for a copy's line; None where it stays a copy."""
        start = COPY.match(line)
        if not start:
            return None
        opening = start.end() - 1
        arguments = llvm_ir.split_operands(line[opening + 1 : llvm_ir.closing(line, opening)])
        if len(arguments) != 4 or arguments[3] != "i1 false" or not re.fullmatch(r"i(32|64) \d+", arguments[2]):
            return None  # volatile, or of a size known at run time
        destination, source = pointer_argument(arguments[0]), pointer_argument(arguments[1])
        size = int(arguments[2].split()[1])
        if destination is None or source is None or size == 0:
            return None
        width = widest_chunk(size, min(destination[1], source[1]))
        if size // width > MOST_CHUNKS:
            return None
        chunk, indent, where = CHUNK_TYPES[width], start["indent"], llvm_ir.location(line)
        out: list[str] = []
        values = []
        for offset in range(0, size, width):  # every load before any store: a memmove's regions may overlap
            address = self.address(source[2], offset, chunk, where, out, indent)
            values.append(f"%cml.w{self.count}.v")
            out.append(f"{indent}{values[-1]} = load {chunk}, {address}, align {width}{where}")
        for offset, value in zip(range(0, size, width), values, strict=True):
            address = self.address(destination[2], offset, chunk, where, out, indent)
            out.append(f"{indent}store {chunk} {value}, {address}, align {width}{where}")
        return out


def widen(text: str) -> str:
    """The module with every copy of a known size, of at most MOST_CHUNKS pieces, made as a GPU makes it."""
    widener = Widener(llvm_ir.is_opaque(text))
    out = []
    for line in text.splitlines():
        made = widener.copy(line)
        out.extend(made if made is not None else [line])
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    source, target = sys.argv[1:3]
    with open(source) as read, open(target, "w") as written:
        written.write(widen(read.read()))
