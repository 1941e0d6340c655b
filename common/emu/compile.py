"""The CPU emulator's compile of a kernel.cu (after rewrite.py), in the steps that let every access to memory be
counted as a GPU makes it:

1. clang++ writes the IR of the source as it reads it, before any optimisation (and the list of files it read);
2. access_widths.py makes each copy of an aggregate (a float4, a struct) the loads and stores of its real width;
3. clang++ optimises that IR and puts a callback before each load and store (-fsanitize-coverage=trace-loads,
   trace-stores, among the flags given);
4. counted_accesses.py gives every access left without one a callback of its own, or refuses the kernel;
5. clang++ compiles the result to the object, with no further optimisation that could move an access.

    compile.py COMPILER... FLAGS... -c SOURCE -o OBJECT

COMPILER is clang++ (with a compiler cache in front of it, where Meson found one: only the first step uses it).
FLAGS are the compile's own (meson.build: emu_kernel_args), with -MD -MF DEPFILE for the list of files read."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import access_widths
import counted_accesses

SOURCE_ONLY = ("-std=", "-I", "-D", "-U", "-W", "-include", "-isystem")  # what only the first step reads
DEPENDENCIES = ("-MD", "-MMD")
COVERAGE = "-fsanitize-coverage="


def split(arguments: list[str]) -> tuple[list[str], list[str], str, str]:
    """(the compiler's words, the flags, the source, the object) of the command line."""
    compiler = []
    while arguments and not arguments[0].startswith("-"):
        compiler.append(arguments.pop(0))
    flags, source, output = [], "", ""
    items = iter(arguments)
    for argument in items:
        if argument == "-c":
            source = next(items)
        elif argument == "-o":
            output = next(items)
        else:
            flags.append(argument)
    if not compiler or not source or not output:
        sys.exit("usage: compile.py COMPILER... FLAGS... -c SOURCE -o OBJECT")
    return compiler, flags, source, output


def ir_flags(flags: list[str], coverage: bool) -> list[str]:
    """The flags that concern IR already written: optimisation and code generation, not the source's."""
    kept, items = [], iter(flags)
    for flag in items:
        if flag in ("-MF", "-MT", "-MQ"):
            next(items, None)
        elif flag in DEPENDENCIES or flag.startswith(SOURCE_ONLY) or (flag.startswith(COVERAGE) and not coverage):
            continue
        else:
            kept.append(flag)
    return [*kept, "-Qunused-arguments"]


def source_flags(flags: list[str], output: str) -> list[str]:
    """The flags of the first step: the source's, without the coverage (which the third step adds), and the list
    of files read named after the object."""
    kept = [flag for flag in flags if not flag.startswith(COVERAGE)]
    return kept + (["-MT", output] if "-MF" in kept and "-MT" not in kept else [])


def run(command: list[str]) -> None:
    done = subprocess.run(command)
    if done.returncode != 0:
        sys.exit(done.returncode)


def main(arguments: list[str]) -> None:
    compiler, flags, source, output = split(arguments)
    clang = compiler[-1]
    with tempfile.TemporaryDirectory(dir=Path(output).resolve().parent, prefix=".emu-compile-") as scratch:
        read, wide, optimised, counted = (
            Path(scratch) / name for name in ("read.ll", "wide.ll", "opt.ll", "counted.ll")
        )
        run([*compiler, *source_flags(flags, output), "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm",
             source, "-o", str(read)])  # fmt: skip
        wide.write_text(access_widths.widen(read.read_text()))
        run([clang, *ir_flags(flags, coverage=True), "-S", "-emit-llvm", str(wide), "-o", str(optimised)])
        try:
            counted.write_text(counted_accesses.count_accesses(optimised.read_text()))
        except counted_accesses.Refused as refusal:
            sys.exit(f"{source}: cml_emu limit: {refusal}: the CPU emulator cannot count it (a limit of the grader's "
                     "CPU emulator, not a mistake in the kernel: grade it on a GPU)")  # fmt: skip
        run([clang, *ir_flags(flags, coverage=False), "-Xclang", "-disable-llvm-passes", "-c", str(counted),
             "-o", output])  # fmt: skip
    if not Path(output).is_file():
        sys.exit(f"{clang} wrote no {output}")


if __name__ == "__main__":
    main(sys.argv[1:])
