"""A test program built on the CPU emulator as meson.build builds its self-test: a .cu through rewrite.py, clang++
with the emulator's flags, linked with its libraries. The commands are the build tree's own (Meson's
introspection), so a test builds what the grader would."""

from __future__ import annotations

import json
from pathlib import Path

from grader.execution import proc
from grader.steps import build
from grader.steps.build_commands import ninja_commands, swap, without_cache


def intro_target(tree: build.BuildTree, name: str) -> dict:
    targets = json.loads((tree.directory / "meson-info" / "intro-targets.json").read_text())
    (target,) = [t for t in targets if t["name"] == name]
    return target


def filled(command: list[str], **paths: Path) -> list[str]:
    """A Meson custom target's command with @INPUT@ and @OUTPUT@ filled in, and no depfile written."""
    out = [arg for arg in command if arg not in ("-MD", "-MF", "@DEPFILE@")]
    return [str(paths[arg.strip("@").lower()]) if arg in ("@INPUT@", "@OUTPUT@") else arg for arg in out]


def kernel_compile_command(emulator: build.BuildTree, source: Path, output: Path, passes: bool = True) -> list[str]:
    """The command for a rewritten .cu, as the emulator's self-test kernels are compiled: through the emulator's
    compile and its passes over the IR (common/emu/compile.py), or with `passes` False clang++'s own command with
    the same flags, for what reads the source alone (the preprocessor, a check of the syntax)."""
    (compile_,) = intro_target(emulator, "cml_emu_selftest_o")["target_sources"]
    command = without_cache(filled(compile_["compiler"], input=source, output=output))
    if not passes:
        command = command[next(at for at, arg in enumerate(command) if arg.endswith("compile.py")) + 1 :]
    return command


def built_on_the_emulator(
    emulator: build.BuildTree, config, source: Path, folder: Path, include: tuple[Path, ...] = ()
) -> Path:
    """`source` built as meson.build builds the emulator's self-test kernels, and linked as the self-test is;
    `include`: folders its own headers are in (the rewritten file is compiled from `folder`)."""
    built = build.compile_targets(emulator, ["cml_emu", "cml_common_emu"], config.timeouts["build"])
    assert built.ok, build.compiler_errors(built)
    rewritten, objected, program = folder / f"{source.stem}.cpp", folder / f"{source.stem}.o", folder / source.stem
    (rewrite,) = intro_target(emulator, "cml_emu_selftest_cpp")["target_sources"]
    _, link = intro_target(emulator, "cml_emu_selftest")["target_sources"]
    compile_ = kernel_compile_command(emulator, rewritten, objected)
    at = compile_.index("-c")  # the include folders among the compiler's flags (compile.py's command ends -c IN -o OUT)
    steps = [
        filled(rewrite["compiler"], input=source, output=rewritten),
        [*compile_[:at], *(f"-I{folder}" for folder in include), *compile_[at:]],
        [*link["linker"], str(objected), "-o", str(program), *link["parameters"]],
    ]
    for step in steps:
        ran = proc.run(step, config.timeouts["build"], cwd=emulator.directory)
        assert ran.ok, ran.tail(80)
    return program


def lab_tests_on_the_emulator(emulator: build.BuildTree, config, lab: str, kernel: Path, folder: Path) -> Path:
    """Lab `lab`'s test program on the emulator with `kernel` as its kernel.cu: rewritten and compiled by the
    commands Meson has for the student's, and linked with the lab's own parts as the student's is."""
    target = f"{lab}_student_emu_test"
    built = build.compile_targets(emulator, [target], config.timeouts["build"])
    assert built.ok, built.tail(40)
    rewritten, objected, program = folder / "kernel.cpp", folder / "kernel.o", folder / target
    (rewrite,) = intro_target(emulator, f"{lab}_student_emu_cpp")["target_sources"]
    (compile_,) = intro_target(emulator, f"{lab}_student_emu_o")["target_sources"]
    (link,) = ninja_commands(emulator.directory, target, final_only=True)
    steps = [
        filled(rewrite["compiler"], input=kernel, output=rewritten),
        without_cache(filled(compile_["compiler"], input=rewritten, output=objected)),
        swap(without_cache(link), {f"{lab}_student_emu.o": str(objected), target: str(program)}),
    ]
    for step in steps:
        ran = proc.run(step, config.timeouts["build"], cwd=emulator.directory)
        assert ran.ok, ran.tail(80)
    return program
