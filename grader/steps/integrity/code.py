"""Checks on the host machine code of a kernel.cu: nothing runs before main but nvcc's registration, nothing
calls the operating system directly, and the calls only nvcc's own code needs (exit, atexit, the registration
calls) come only from that code."""

from __future__ import annotations

import re

from grader.steps.integrity import nvcc, symbols
from grader.steps.integrity.elf import Function, ObjectFile, Reference

SYSCALL = re.compile(r"^(syscall|sysenter|int \$0x80|svc)\b")  # x86-64's three ways, and AArch64's
# Arrays of functions the loader calls before main (init, preinit, ctors) or at exit (fini, dtors).
STARTUP_TABLES = (".init_array", ".preinit_array", ".ctors", ".fini_array", ".dtors")
CODE_SECTIONS = re.compile(r"^\.text(\..+)?$")  # .init and .fini hold code the loader runs before and after main
IOSTREAM_INIT = "_ZNSt8ios_base4InitC1Ev"  # std::ios_base::Init::Init(), what <iostream>'s global object runs


def syscalls(obj: ObjectFile) -> list[str]:
    return [
        f"{obj.readable(f.name)} contains a `{instruction}` instruction: a kernel.cu reaches the "
        "operating system only through the CUDA runtime"
        for f in obj.functions
        for instruction in f.instructions
        if SYSCALL.match(instruction)
    ]


def code_sections(obj: ObjectFile) -> list[str]:
    odd = sorted({f.section for f in obj.functions if not CODE_SECTIONS.match(f.section)})
    return [
        f"has code in section {section}, "
        + (
            "which the loader runs before main"
            if section == ".init"
            else "which runs at exit"
            if section == ".fini"
            else "where no compiled C++ puts code"
        )
        for section in odd
    ]


def indirect_functions(obj: ObjectFile) -> list[str]:
    return [
        f"defines {obj.readable(name)} as an indirect function (ifunc), whose resolver runs as the program loads"
        for name, kind in obj.symbols.items()
        if kind == "i"
    ]


def target(obj: ObjectFile, ref: Reference) -> Function | None:
    """The function a relocation points at: by name, or by section and offset for a section symbol."""
    return obj.function_at(ref.symbol, ref.addend) if ref.symbol.startswith(".") else obj.function(ref.symbol)


def startup_code(obj: ObjectFile) -> list[str]:
    """Every function the startup tables name, but nvcc's registration, is a problem (a global object's
    constructor, __attribute__((constructor)), a destructor run at exit)."""
    problems = []
    for section, refs in obj.data_references.items():
        if not section.startswith(STARTUP_TABLES):
            continue
        for ref in refs:
            function = target(obj, ref)
            if function is not None and function.name == nvcc.REGISTER_ALL and section == ".init_array":
                continue
            problems.append(startup_reason(obj, function, section))
    return problems


def startup_reason(obj: ObjectFile, function: Function | None, section: str) -> str:
    when = "before main" if section.startswith((".init", ".preinit", ".ctors")) else "at exit"
    if function is None:
        return f"adds an entry to {section}: code that runs {when}"
    if function.name.startswith("_GLOBAL__sub_I_"):
        if any(ref.symbol == IOSTREAM_INIT for ref in function.references):
            return symbols.IOSTREAM_REASON
        return "has a global object with a constructor (or other code that runs before main); globals must need none"
    attribute = "constructor" if when == "before main" else "destructor"
    return f"{obj.readable(function.name)} runs {when} (__attribute__(({attribute})) or an entry of {section})"


def callers(obj: ObjectFile, symbol: str) -> tuple[list[Function], bool]:
    """The functions whose code refers to `symbol`, and whether any data does (a pointer to it)."""
    functions = [f for f in obj.functions if any(ref.symbol == symbol for ref in f.references)]
    in_data = any(ref.symbol == symbol for refs in obj.data_references.values() for ref in refs)
    return functions, in_data


def nvcc_only_calls(obj: ObjectFile) -> list[str]:
    """atexit and the registration calls only from nvcc's registration code. (exit is not judged here: nvcc's host
    copies of __device__ functions call it, in code that differs from one host compiler to the next, and a test
    program that exits early only loses the cases its record then lacks.)"""
    problems = []
    for symbol in sorted(obj.undefined() & nvcc.REGISTRATION_CALLS):
        functions, in_data = callers(obj, symbol)
        if in_data or not all(f.name in nvcc.REGISTRATION for f in functions):
            problems.append(
                f"calls {symbol}: "
                + (
                    "it runs code as the program ends"
                    if symbol == "atexit"
                    else "only nvcc's own registration code makes this call"
                )
            )
    return problems


def problems(obj: ObjectFile) -> list[str]:
    return syscalls(obj) + code_sections(obj) + indirect_functions(obj) + startup_code(obj) + nvcc_only_calls(obj)
