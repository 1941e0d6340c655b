"""A kernel.cu cannot hide its accesses from the CPU emulator (grader/steps/integrity/emulator.py), whatever it
spells to do it; and the emulator's rewriter passes any byte of a kernel.cu through unchanged."""

from __future__ import annotations

import platform
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.core.config import REPO_ROOT
from grader.steps.integrity import elf, emulator
from grader.tests.support.grading import (
    assert_passes_every_test_and_mechanism_and_no_speed_is_graded,
    graded_without_a_gpu,
    student_work,
)
from grader.tests.support.kernels import write_labs

REWRITE = REPO_ROOT / "common" / "emu" / "rewrite.py"
LATIN_1_E_ACUTE = b"\xe9"  # é in Latin-1; never valid UTF-8 on its own


def emulator_kernel_flags() -> list[str]:
    """clang++'s flags for a kernel.cu, as meson.build's emulator section sets them (emu_kernel_args)."""
    found = re.search(r"emu_kernel_args = \[(.*?)\]", (REPO_ROOT / "meson.build").read_text(), re.DOTALL)
    assert found, "meson.build no longer sets emu_kernel_args"
    return re.findall(r"'([^']*)'", found.group(1))


def cuda_include() -> Path | None:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    include = Path(nvcc).resolve().parent.parent / "include"
    return include if (include / "vector_types.h").is_file() else None


def compile_as_the_emulator_does(source: bytes, folder: Path) -> Path:
    """`source` (a .cu) through rewrite.py, then clang++ with meson.build's flags and include folders."""
    clang, include = shutil.which("clang++"), cuda_include()
    if not clang or not include:
        pytest.skip("the CPU emulator's compile needs clang++ and the CUDA headers (./cml installs them)")
    cu, cpp, obj = folder / "kernel.cu", folder / "kernel.cpp", folder / "kernel.o"
    cu.write_bytes(source)
    subprocess.run([sys.executable, str(REWRITE), str(cu), str(cpp)], check=True)
    includes = [f"-I{REPO_ROOT / 'common' / 'emu' / 'include'}", f"-I{include}", f"-I{REPO_ROOT / 'common'}"]
    command = [clang, *emulator_kernel_flags(), *includes, "-c", str(cpp), "-o", str(obj)]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, shlex.join(command) + "\n" + done.stderr
    return obj


def kernel(name: str, before: str = "") -> str:
    """A kernel that reads and writes global memory, and its launch."""
    return f"""
{before}
__global__ void {name}(const float* a, float* b, int n)
{{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 2.0f * a[i];
}}
void launch_{name}(const float* a, float* b, int n) {{ {name}<<<(n + 255) / 256, 256>>>(a, b, n); }}
"""


# Each way to leave a kernel without the callbacks, and the kernel it is used on.
HIDDEN = {
    "attribute": kernel("plain_attribute", '__attribute__((no_sanitize("coverage")))'),
    "reserved spelling": kernel("reserved_spelling", '__attribute__((__no_sanitize__("coverage")))'),
    "C++11 attribute": kernel("cxx11_attribute", '[[clang::no_sanitize("coverage")]]'),
    "macro with token pasting": kernel("pasted", "#define QUIET(w, h) __attribute__((no_##w(#h)))\nQUIET(sanitize, coverage)"),
    "pragma": kernel("under_a_pragma", '#pragma clang attribute push (__attribute__((no_sanitize("coverage"))), apply_to = function)')
    + "#pragma clang attribute pop\n",
}  # fmt: skip
NAKED = """
__attribute__((naked)) void copy_one(const float*, float*) { asm("movl (%rdi), %eax\\n movl %eax, (%rsi)\\n ret"); }
void use_copy_one(const float* a, float* b) { copy_one(a, b); }
"""
RESERVED_NAME = """
extern "C" void __sanitizer_quiet_copy(const float* a, float* b, int n) { for (int i = 0; i < n; ++i) b[i] = a[i]; }
void use_quiet_copy(const float* a, float* b, int n) { __sanitizer_quiet_copy(a, b, n); }
"""


@pytest.fixture(scope="module")
def hidden_object(tmp_path_factory) -> Path:
    """One object with every way above, beside a kernel left alone (one compile: they take seconds each)."""
    source = "#include <cuda_runtime.h>\n" + kernel("left_alone") + "".join(HIDDEN.values())
    source += NAKED if platform.machine() == "x86_64" else ""  # its assembly is x86-64's
    return compile_as_the_emulator_does((source + RESERVED_NAME).encode(), tmp_path_factory.mktemp("hidden"))


@pytest.mark.parametrize("spelling", list(HIDDEN))
def test_a_kernel_whose_callbacks_are_turned_off_is_refused_by_name(hidden_object, spelling):
    name = re.search(r"__global__ void (\w+)", HIDDEN[spelling])[1]  # type: ignore[index]
    refused = [p for p in emulator.problems(hidden_object) if f" {name}(" in p]
    assert len(refused) == 1, emulator.problems(hidden_object)
    assert refused[0].startswith("turns off the CPU emulator's instrumentation in")


def test_a_naked_function_of_assembly_and_a_function_clang_skips_by_its_name_are_refused(hidden_object):
    problems = emulator.problems(hidden_object)
    if platform.machine() == "x86_64":
        assert any("copy_one(" in p for p in problems), problems
    assert any("__sanitizer_quiet_copy" in p for p in problems), problems


def test_a_kernel_left_as_clang_instruments_it_and_its_launch_are_not_refused(hidden_object):
    problems = emulator.problems(hidden_object)
    assert not [p for p in problems if "left_alone" in p or "launch_" in p], problems


# ---- the rewriter, on bytes that are not UTF-8 ----


def test_a_latin_1_byte_in_a_comment_and_in_a_string_passes_through_the_rewrite_unchanged(tmp_path):
    source = (
        b"// r" + LATIN_1_E_ACUTE + b"sum" + LATIN_1_E_ACUTE + b"\n"
        b'const char* kName = "caf' + LATIN_1_E_ACUTE + b'";\n'
        b"#include <cuda_runtime.h>\n"
        b"__global__ void k(float* a) { __shared__ float s[32]; s[threadIdx.x] = a[0]; a[1] = s[0]; }\n"
        b"void launch(float* a) { k<<<1, 32>>>(a); }\n"
    )
    (tmp_path / "kernel.cu").write_bytes(source)
    done = subprocess.run(
        [sys.executable, str(REWRITE), str(tmp_path / "kernel.cu"), str(tmp_path / "kernel.cpp")],
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},  # as bare a locale as a sandbox may give it
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    rewritten = (tmp_path / "kernel.cpp").read_bytes()
    lines = rewritten.split(b"\n")  # after the #include of cuda_runtime.h that nvcc puts first, and the #line
    assert lines[2:4] == source.split(b"\n")[:2], "the comment and the string, byte for byte"
    assert b"::cml_emu::launch(" in rewritten and b"__shared__" not in rewritten, "and the rewrite still done"


@pytest.mark.needs_solutions
@pytest.mark.slow
def test_a_correct_kernel_with_a_latin_1_byte_in_a_comment_gets_every_mark_the_emulator_grades(
    emulator, config, tmp_path
):
    lab = "01_vector_add"
    solution = (REPO_ROOT / "solutions" / lab / "kernel.cu").read_bytes()
    kernel = b"// Written by Ren" + LATIN_1_E_ACUTE + b", in an editor set to Latin-1.\n" + solution
    student = write_labs(tmp_path / "labs", {})
    (student / lab / "kernel.cu").write_bytes(kernel)
    grade = graded_without_a_gpu(emulator, config, lab, "student", student_work(student, tmp_path / "steps"))
    assert_passes_every_test_and_mechanism_and_no_speed_is_graded(grade, config, lab)
    # Every point of what the emulator grades: only what could not run here (the speed) is missing.
    assert grade.points > 0 and grade.points == pytest.approx(grade.max_points - grade.ungraded_points), [
        (c.name, c.status.value, c.points, c.max_points) for c in grade.checks
    ]


def test_a_library_defines_what_any_member_defines_whichever_member_comes_first(tmp_path):
    """The emulator's runtime defines blockIdx in one member and refers to it in a later one: the name is the
    runtime's own, which the check of a kernel.cu's calls leaves out, not a call of the kernel.cu's."""
    compiler = shutil.which("cc") or shutil.which("clang")
    if not compiler:
        pytest.skip("needs a C compiler")
    (tmp_path / "defines.c").write_text("__thread int blockIdx;\n")
    (tmp_path / "refers.c").write_text("extern __thread int blockIdx;\nint read_it(void) { return blockIdx; }\n")
    for name in ("refers", "defines"):
        subprocess.run([compiler, "-c", str(tmp_path / f"{name}.c"), "-o", str(tmp_path / f"{name}.o")], check=True)
    for order in (("defines", "refers"), ("refers", "defines")):
        library = tmp_path / f"lib{'_'.join(order)}.a"
        subprocess.run(["ar", "rcs", str(library), *(str(tmp_path / f"{name}.o") for name in order)], check=True)
        symbols = elf.read_symbols(library)
        assert "blockIdx" in elf.defined_globals(symbols) and "read_it" in elf.defined_globals(symbols), order
