"""What an object compiled from a kernel.cu may hold before anything links it: the sections nvcc and the CPU
emulator's clang emit for the skeletons, the solutions and the calibration's kernels, and nothing larger than a
lab needs.

A section outside that list is refused, whatever it holds, since the tools that read the object treat some of them
as code of their own: gcc's linker plugin compiles `.gnu.lto_*` sections (compiler IR, which can carry options for
the assembler and the linker) and discards the object's ordinary code, so every check of that code would judge
code that never runs; `.llvm*` sections are the same for clang. Sections the linker drops (SHF_EXCLUDE) have no
business in a kernel.cu either. The headers are read with readelf, which loads no plugin, in the sandbox."""

from __future__ import annotations

import re
from pathlib import Path

from grader.execution import proc, sandbox

# A lab's object is tens of kB; a large initialised array costs the compiler a gigabyte of memory and the grade
# its time, and teaches nothing a lab asks for.
MAX_OBJECT_BYTES = 8 << 20
# Section names, after an optional relocation prefix (.rela / .rel).
ALLOWED = re.compile(
    r"(\.text|\.data|\.bss|\.rodata|\.tdata|\.tbss|\.gcc_except_table|\.init_array)(\.[\w.$]+)?"
    r"|\.data\.rel\.ro(\.[\w.$]+)?|\.data\.rel(\.local)?(\.[\w.$]+)?"
    r"|\.eh_frame|\.comment|\.note\.GNU-stack|\.note\.gnu\.property|\.group|\.symtab|\.symtab_shndx|\.strtab"
    r"|\.shstrtab|\.nv_fatbin|\.nvFatBinSegment|__nv_module_id|__nv_relfatbin"
    r"|__sancov_\w+|\.debug_\w+|\.stack_sizes"
    # the CPU emulator's own sections for __constant__ and __device__ variables (common/emu/include/cml_emu)
    r"|cml_emu_constant|cml_emu_device"
)
TYPES = {"NULL", "PROGBITS", "NOBITS", "RELA", "REL", "SYMTAB", "SYMTAB SECTION INDICES", "STRTAB", "GROUP", "NOTE",
         "INIT_ARRAY", "X86_64_UNWIND"}  # fmt: skip
ADDRESS = re.compile(r"[0-9a-f]{16}")
LISTING_LIMIT = 16 << 20  # bytes of readelf's listing of the headers: 3 lines of one each, a lab's object has 100
WHY = "the sections a compiler emits for a kernel.cu"


def problems(path: Path) -> list[str]:
    """Why the object at `path` may not be linked: one sentence each; [] when it may."""
    if not path.is_file():
        return [f"{path.name} was not compiled"]
    size = path.stat().st_size
    if size > MAX_OBJECT_BYTES:
        return [
            f"the compiled kernel.cu is {size >> 20} MiB, over the {MAX_OBJECT_BYTES >> 20} MiB a lab's object may "
            "be (a large initialised array or an assembler directive that fills space?)"
        ]
    found = []
    for name, kind, flags in read_sections(path):
        if not name and kind == "NULL":
            continue  # the header every ELF file starts with
        bare = re.sub(r"^\.rela?(?=\.)", "", name)
        if "E" in flags:
            found.append(f"section {name!r} is one the linker drops (SHF_EXCLUDE): not among {WHY}")
        elif name.startswith((".gnu.lto", ".llvm", ".gnu.linkonce")) or not ALLOWED.fullmatch(bare):
            found.append(f"section {name!r} is not among {WHY} (compiler IR a linker plugin would run?)")
        elif kind not in TYPES:
            found.append(f"section {name!r} has type {kind}, not among {WHY}")
    return found


def read_sections(path: Path) -> list[tuple[str, str, str]]:
    """(name, type, flags) of every section header, read with `readelf -S -W -t` in the sandbox, which puts the
    name, the type and the flags (as words: EXCLUDE, ...) each on a line of its own."""
    command = sandbox.step_command(
        ["readelf", "-S", "-W", "-t", str(path.resolve())], [path.resolve()], None, path.resolve().parent,
        limits=sandbox.TOOL_LIMITS,
    )  # fmt: skip
    # Kept whole, never its ends alone: a section left unread in the middle would be a section unchecked.
    ran = proc.run(command, 60, output_limit=LISTING_LIMIT, kept=LISTING_LIMIT)
    if ran.printed_too_much:
        return [(f"(section headers past {LISTING_LIMIT:,} bytes of readelf's listing of them)", "?", "")]
    if not ran.ok:
        return [("(unreadable: not an ELF object?)", "?", "")]
    headers: list[tuple[str, str, str]] = []
    lines = ran.stdout.splitlines()
    for at, line in enumerate(lines):
        if not re.match(r"^\s*\[\s*\d+\] ", line) or at + 2 >= len(lines):
            continue
        name = line.split("]", 1)[1].strip()
        fields = lines[at + 1].split()
        kind = " ".join(fields[: next((i for i, f in enumerate(fields) if ADDRESS.fullmatch(f)), len(fields))])
        flags = lines[at + 2].partition("]:")[2]
        headers.append((name, kind, "E" if "EXCLUDE" in flags else ""))
    return headers if headers else [("(no section headers read)", "?", "")]
