"""What the machine code of a kernel.cu's object does with memory (cuobjdump -sass), read on every machine that
compiles it, the CPU emulator's included: which path a gather's loads take, whether texture fetches are made,
whether global memory is copied to shared by cp.async (LDGSTS, whatever the emulator does with the copy), and
where each function reads or writes local memory (LDL, STL: a thread's stack, whatever frame the compiler's
resource report declares; one allocated at run time, by alloca, is in no report).

A gather reads an array at positions it has loaded from memory (table[index[i]]). Its loads are told apart from
the others by where their address comes from: registers that depend, instruction by instruction, on a value some
load brought in. The read-only path shows as `LDG.E.CONSTANT` (`ld.global.nc`, what `__ldg` asks for and what
nvcc picks by itself where it can prove the array is not written). A load whose value nothing reads is dead and
shows nothing, so only loads whose value is read count as evidence. The order of instructions is taken as written,
twice round so that a value loaded at the end of a loop and read at its top is seen; the object is the student's
bytes, read by cuobjdump in the sandbox as the resource report is (grader/steps/resources.py).

The listing is read in the grader's own process, so its cost is bounded: at most LISTING_LIMIT bytes of it, lines
of at most MAX_LINE_CHARS and MAX_INSTRUCTIONS instructions, every pattern anchored and possessive, and each
kernel's code walked a fixed number of times, its registers as the bits of one integer."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from grader.steps import resources
from grader.steps.integrity.elf import demangle

DISASSEMBLER = "nvdisasm"  # what cuobjdump -sass runs; the toolkit and the nvidia-cuda-nvdisasm wheel ship it
UNREADABLE = "could not read the machine code"
MAX_INSTRUCTIONS = 200_000  # a lab's kernel.cu compiles to a few thousand at most
LISTING_LIMIT = resources.OUTPUT_LIMIT * 16  # bytes of cuobjdump -sass's listing read: 200,000 instructions' worth
MAX_LINE_CHARS = 64 << 10  # an instruction's line is under 200 characters, a template kernel's name a few thousand
NAME_LIMIT = resources.NAME_LIMIT
# Registers as bits of one integer: R0 to R255 from bit 0, the uniform UR0 to UR255 from bit 512, more than any GPU
# has (the listing writes the zero registers as RZ and URZ), so that a wide value at R255 reaches no uniform one.
BANKS = {"R": (0, 256), "UR": (512, 256)}  # a bank's first bit, and how many registers it has

FUNCTION = re.compile(r"^\s*+Function : (?P<name>\S++)\s*+$")
INSTRUCTION = re.compile(
    r"^\s*+/\*[0-9a-f]{4,}+\*/\s++(?P<guard>@!?U?P[T0-9]++\s++)?(?P<opcode>[A-Z][A-Z0-9_.]*+)(?P<operands>[^;]*+);"
)
REGISTER = re.compile(r"(?<![\w.])U?R\d++(?:\.64)?")
# An anonymous namespace as c++filt and Nsight Compute write it; the CPU emulator's names leave it out.
ANONYMOUS = re.compile(r"\(anonymous namespace\)::|<unnamed>::")
TEMPLATE_ARGUMENTS = re.compile(r"<[^<>]*+>")
# Loads of data from memory: their values seed the dependence of a gather's addresses.
LOADS = re.compile(r"^(LDG|LD|LDS|LDL|LDSM|ATOM|ATOMG|ATOMS)(\.|$)")
GLOBAL_LOADS = re.compile(r"^(LDG|LD)(\.|$)")  # LD: a generic load, which may reach global memory
READ_ONLY = ".CONSTANT"  # ld.global.nc: the read-only (non-coherent) path
ASYNC_COPIES = re.compile(r"^LDGSTS(\.|$)")  # cp.async: global to shared, no register on the way (sm_80 on)
LOCAL_ACCESSES = re.compile(r"^(LDL|STL)(\.|$)")  # a thread's local memory: its stack
TEXTURE_FETCHES = re.compile(r"^(TEX|TLD|TLD4|TEXS|TLDS|TLD4S|TMML|TXD)(\.|$)")
# Instructions whose first operand is read, not written.
NO_DESTINATION = re.compile(
    r"^(ST|STG|STS|STL|RED|BRA|BRX|EXIT|RET|BAR|BSYNC|BSSY|WARPSYNC|NOP|MEMBAR|CCTL|ERRBAR|DEPBAR|YIELD|CALL|JMP"
    r"|BPT|FENCE|BREAK|KILL)(\.|$)"
)
PREDICATE_FIRST = re.compile(r"^(SHFL)(\.|$)")  # SHFL.DOWN PT, R5, R4, ...: the predicate first, then the value
# TEX.LL RZ, R7, R6, R0, UR4, 0x0, 2D, 0x1: a fetch writes its first two operands (the texels' registers, RZ
# where it needs one), and reads the coordinates after them (R6 and R7 here: R7 is read, then written).
TWO_WRITTEN = TEXTURE_FETCHES


@dataclass(frozen=True)
class Instruction:
    opcode: str
    written: int  # registers it writes, a bit each (register_bits)
    read: int  # registers it reads, its address included
    address: int  # registers of its memory address ([...]), where it has one
    guarded: bool  # under a predicate (@P0): it may not run, so it overwrites nothing for certain


@dataclass
class Load:
    """A load or fetch of one kernel, as the machine code makes it."""

    kernel: str
    opcode: str
    gathered: bool  # its address depends on a value loaded from memory
    value_read: bool  # some instruction reads what it loaded

    @property
    def read_only(self) -> bool:
        return READ_ONLY in self.opcode


@dataclass
class SassReport:
    loads: list[Load] = field(default_factory=list)  # global loads and texture fetches of every kernel
    kernels: list[str] = field(default_factory=list)
    async_copies: dict[str, int] = field(default_factory=dict)  # kernel -> its LDGSTS instructions
    local_accesses: dict[str, int] = field(default_factory=dict)  # function -> its LDL and STL instructions
    problem: str = ""  # why there is none; "" when it was read
    no_tool: bool = False  # the machine lacks cuobjdump or nvdisasm: not the submission's doing

    @property
    def read(self) -> bool:
        return not self.problem

    def gathers(self) -> list[Load]:
        return [load for load in self.loads if load.gathered and GLOBAL_LOADS.match(load.opcode)]

    def fetches(self) -> list[Load]:
        return [load for load in self.loads if TEXTURE_FETCHES.match(load.opcode)]


def kernel_key(name: str, signature: bool = True) -> str:
    """A kernel's name as the listing and a record of launches both give it: no anonymous namespace and no spaces;
    without `signature`, no parameters and no template arguments either (Nsight Compute writes types its own way,
    `const float *`, where c++filt and the CPU emulator write `float const*`)."""
    name = ANONYMOUS.sub("", name[:NAME_LIMIT])
    if not signature:
        name = name.partition("(")[0]
        while TEMPLATE_ARGUMENTS.search(name):
            name = TEMPLATE_ARGUMENTS.sub("", name)
    return "".join(name.split())


def of_kernels(report: SassReport, launched: list[str], signature: bool = True) -> SassReport:
    """The report of the kernels among `launched` (names as a record of launches gives them) alone."""
    wanted = {kernel_key(name, signature) for name in launched}
    kept = [kernel for kernel in report.kernels if kernel_key(kernel, signature) in wanted]
    return SassReport(
        loads=[load for load in report.loads if load.kernel in kept],
        kernels=kept,
        async_copies={kernel: count for kernel, count in report.async_copies.items() if kernel in kept},
        local_accesses={kernel: count for kernel, count in report.local_accesses.items() if kernel in kept},
    )


def read_report(obj: Path, folders: list[Path]) -> SassReport:
    """The loads of every kernel of `obj` (an object or a static library), or the reason there are none."""
    tool = resources.find_tool(folders)
    disassembler = tool.parent / DISASSEMBLER if tool else None
    if tool is None or disassembler is None or not disassembler.is_file():
        shown = resources.TOOL if tool is None else DISASSEMBLER
        return SassReport(problem=f"{UNREADABLE}: {shown} not found (it comes with the CUDA toolkit)", no_tool=True)
    if not obj.is_file():
        return SassReport(problem=f"{UNREADABLE}: no compiled object")
    obj = obj.resolve()
    # cuobjdump runs nvdisasm, which it looks for on PATH or where NVDISASM_PATH says: not always beside itself.
    nvdisasm_path = (f"NVDISASM_PATH={disassembler.parent}",)
    ran = resources.dump(obj, tool, "-sass", env=nvdisasm_path, output_limit=LISTING_LIMIT)
    if not ran.ok:
        return SassReport(
            problem=f"{UNREADABLE}: {resources.TOOL} -sass {ran.how_it_ended()}: {resources.said(ran, obj)}"
        )
    return parse(ran.stdout)


class Unreadable(ValueError):
    """A listing that is not cuobjdump's: why, for the report's problem."""


def parse(text: str) -> SassReport:
    """cuobjdump -sass's listing: a `Function : NAME` line per kernel, then its instructions."""
    try:
        functions = listed_functions(text)
    except Unreadable as error:
        return SassReport(problem=f"{UNREADABLE}: {error}")
    readable = demangle(sorted({name for name, _ in functions}))
    report = SassReport(kernels=[readable.get(name, name)[:NAME_LIMIT] for name, _ in functions])
    for (_, code), shown in zip(functions, report.kernels, strict=True):
        report.loads += loads_of(shown, code)
        report.async_copies[shown] = sum(bool(ASYNC_COPIES.match(inst.opcode)) for inst in code)
        report.local_accesses[shown] = sum(bool(LOCAL_ACCESSES.match(inst.opcode)) for inst in code)
    return report


def listed_functions(text: str) -> list[tuple[str, list[Instruction]]]:
    """Each kernel's name and instructions, in the listing's order; raises Unreadable past a bound."""
    functions: list[tuple[str, list[Instruction]]] = []
    count = 0
    for number, line in enumerate(text.splitlines(), 1):
        if len(line) > MAX_LINE_CHARS:
            raise Unreadable(f"line {number} has {len(line):,} characters, more than {MAX_LINE_CHARS:,}")
        if match := FUNCTION.match(line):
            functions.append((match["name"], []))
        elif (match := INSTRUCTION.match(line)) and functions:
            functions[-1][1].append(instruction(match["guard"], match["opcode"], match["operands"]))
            count += 1
            if count > MAX_INSTRUCTIONS:
                raise Unreadable(f"more than {MAX_INSTRUCTIONS} instructions")
    return functions


def register_bits(operand: str, width: int = 1) -> int:
    """The registers an operand names, a bit each: R14.64 is R14 and R15, and R14 of a `width` of 4 is R14 to
    R17; RZ and URZ are no register."""
    bits = 0
    for token in REGISTER.findall(operand):
        found = REGISTERS.get(token)
        if found is None:
            raise Unreadable(f"{token[:20]} is no register")
        bits |= found if token.endswith(".64") else found * ((1 << width) - 1)
    return bits


def register_table() -> dict[str, int]:
    """Each register's name as the listing writes it, alone and as the first of a 64-bit pair: its bits."""
    table = {}
    for name, (first, size) in BANKS.items():
        for number in range(size):
            table[f"{name}{number}"] = 1 << (first + number)
            table[f"{name}{number}.64"] = 3 << (first + number)
    return table


REGISTERS = register_table()


def written_width(opcode: str) -> int:
    """How many registers the first operand's value fills: a 64-bit or wide result two, 128 bits four."""
    parts = opcode.split(".")
    return 4 if "128" in parts else 2 if "64" in parts or "WIDE" in parts else 1


def instruction(guard: str | None, opcode: str, operands: str) -> Instruction:
    parts = [part.strip() for part in operands.split(",")] if operands.strip() else []
    first = 1 if PREDICATE_FIRST.match(opcode) else 0
    if NO_DESTINATION.match(opcode) or len(parts) <= first:
        written = 0
        sources = parts
    elif TWO_WRITTEN.match(opcode):
        written = 0
        for part in parts[:2]:
            written |= register_bits(part)
        sources = parts[2:]
    else:
        written = register_bits(parts[first], written_width(opcode))
        sources = parts[:first] + parts[first + 1 :]
    address = read = 0
    for part in sources:
        read |= register_bits(part)
        if "[" in part:
            address |= register_bits(part[part.index("[") :])
    return Instruction(opcode, written, read, address, guard is not None)


def is_load(inst: Instruction) -> bool:
    return bool(LOADS.match(inst.opcode) or TEXTURE_FETCHES.match(inst.opcode))


def loads_of(kernel: str, code: list[Instruction]) -> list[Load]:
    """Every global load and texture fetch of one kernel, with where its address comes from and whether its
    value is read."""
    gathered, read = gathered_addresses(code), values_read(code)
    found = []
    for at, inst in enumerate(code):
        if GLOBAL_LOADS.match(inst.opcode) or TEXTURE_FETCHES.match(inst.opcode):
            found.append(Load(kernel, inst.opcode, gathered[at], read[at]))
    return found


def gathered_addresses(code: list[Instruction]) -> list[bool]:
    """For each instruction, whether its address reads a register whose value depends on one loaded from memory;
    the code walked twice, so that what a loop's end leaves reaches its top."""
    depends = 0
    gathered = [False] * len(code)
    for _ in range(2):
        for at, inst in enumerate(code):
            gathered[at] = gathered[at] or bool(inst.address & depends)
            if is_load(inst) or inst.read & depends:
                depends |= inst.written
            elif not inst.guarded:
                depends &= ~inst.written
    return gathered


def values_read(code: list[Instruction]) -> list[bool]:
    """For each instruction, whether one after it reads a register it wrote before another overwrites it, going
    round to the start once (a loop's next turn, up to the instruction itself). One walk back over the code
    twice over keeps, for each register, whether its next use is a read: at an instruction of the first copy,
    its next use within one turn."""
    read_next = 0  # registers whose next use, after the point reached, reads them
    read = [False] * len(code)
    for position in range(2 * len(code) - 1, -1, -1):
        inst = code[position % len(code)]
        if position < len(code):
            read[position] = bool(inst.written & read_next)
        if not inst.guarded:
            read_next &= ~inst.written
        read_next |= inst.read  # read before it writes: an instruction that does both reads the older value
    return read


def summary(report: SassReport) -> list[str]:
    """Per kernel, its gathered loads by path, its texture fetches, its cp.async copies and its local memory's loads
    and stores; or the problem."""
    if not report.read:
        return [report.problem]
    lines = []
    for kernel in report.kernels:
        gathers = [load for load in report.gathers() if load.kernel == kernel]
        fetches = [load for load in report.fetches() if load.kernel == kernel]
        read_only = sum(load.read_only for load in gathers)
        lines.append(
            f"{kernel}: {len(gathers)} gathered loads ({read_only} LDG.E.CONSTANT), {len(fetches)} texture fetches, "
            f"{report.async_copies.get(kernel, 0)} LDGSTS, {report.local_accesses.get(kernel, 0)} LDL and STL"
        )
    return lines
