"""The CPU emulator counts every access to memory as a GPU issues it (common/emu/compile.py): an aggregate copied as
one access of its real width (access_widths.py); every access the coverage leaves out given a callback, copies and
fills and the C library's memory functions handed to the runtime, atomic instructions noted, a load of a __constant__
variable by name told from one through a pointer, and what cannot be counted refused (counted_accesses.py). The
passes are run here on small C++ compiled by clang, in both spellings of pointers LLVM has had (clang 14's typed
ones, and the opaque ones of later versions, asked of clang 14 with -opaque-pointers); then the emulator's own
kernels are counted at run time."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from grader.core.config import REPO_ROOT
from grader.steps.integrity import emulator
from grader.tests.support.emulator_runs import emulator_counters, kernel_lines, selftest_program

EMU = REPO_ROOT / "common" / "emu"
# clang 14's opaque pointers are its own experiment (its loop passes crash on them): the C++ here has no loop.
SPELLINGS = {"typed pointers": [], "opaque pointers": ["-mllvm", "-opaque-pointers"]}
CONSTANT = '__attribute__((section("cml_emu_constant")))'  # what the emulator makes of __constant__


def load(name: str) -> ModuleType:
    """One of the emulator's compile passes, which import each other as scripts beside them do."""
    if str(EMU) not in sys.path:
        sys.path.insert(0, str(EMU))
    spec = importlib.util.spec_from_file_location(name, EMU / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


access_widths, counted_accesses = load("access_widths"), load("counted_accesses")


def clang() -> str:
    found = shutil.which("clang++")
    if not found:
        pytest.skip("the CPU emulator's compile needs clang++ (./cml installs it)")
    return found


def compiled(source: str, folder: Path, spelling: list[str], *flags: str, suffix: str = "cpp") -> str:
    """clang++'s IR of `source` (C++, or IR with suffix 'll')."""
    given, written = folder / f"given.{suffix}", folder / "written.ll"
    given.write_text(source)
    command = [clang(), *spelling, "-O2", "-fno-vectorize", "-fno-slp-vectorize", *flags, "-S", "-emit-llvm"]
    done = subprocess.run([*command, str(given), "-o", str(written)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return written.read_text()


def counted(source: str, folder: Path, spelling: list[str]) -> str:
    """`source` through the emulator's passes, as compile.py runs them: its IR before optimisation, widened,
    optimised with the coverage's callbacks, and every access then counted."""
    read = compiled("#include <cstring>\n#include <cstddef>\n" + source, folder, spelling, "-std=c++17",
                    "-Xclang", "-disable-llvm-passes")  # fmt: skip
    optimised = compiled(access_widths.widen(read), folder, spelling, "-fsanitize-coverage=func,trace-loads,trace-stores",
                         suffix="ll")  # fmt: skip
    return counted_accesses.count_accesses(optimised)


def body(ir: str, function: str) -> str:
    """The lines of the function whose (mangled) name contains `function`."""
    lines = ir.splitlines()
    start = next(at for at, line in enumerate(lines) if line.startswith("define ") and function in line)
    return "\n".join(lines[start : lines.index("}", start)])


@pytest.fixture(params=list(SPELLINGS), ids=list(SPELLINGS))
def spelling(request) -> list[str]:
    return SPELLINGS[request.param]


def test_an_aligned_aggregate_is_one_access_of_its_width_and_a_packed_one_an_access_per_float(spelling, tmp_path):
    ir = counted(
        """
        struct alignas(16) Four { float x, y, z, w; };
        struct Three { float x, y, z; };
        void four(const Four* in, Four* out, int i) { Four v = in[i]; out[i] = Four{v.x + 1, v.y, v.z, v.w}; }
        void three(const Three* in, Three* out, int i) { Three v = in[i]; out[i] = Three{v.x + 1, v.y, v.z}; }
        """,
        tmp_path,
        spelling,
    )
    four, three = body(ir, "four"), body(ir, "three")
    assert (four.count("@__sanitizer_cov_load16("), four.count("@__sanitizer_cov_store16(")) == (1, 1), four
    assert "@__sanitizer_cov_load4(" not in four
    assert three.count("@__sanitizer_cov_load4(") == 3 and "load16" not in three, three


def test_a_copy_of_a_size_known_at_run_time_goes_to_the_runtime_with_its_alignment(spelling, tmp_path):
    ir = counted(
        """
        float copied(const float* a, int i, int bytes) { float x; std::memcpy(&x, a + i, bytes); return x; }
        void filled(float* a, int bytes) { std::memset(a, 0, bytes); }
        using Copy = void* (*)(void*, const void*, std::size_t);
        Copy volatile kept = std::memcpy;
        float through_a_pointer(const float* a, int bytes) { float x; kept(&x, a, bytes); return x; }
        """,
        tmp_path,
        spelling,
    )
    assert "call void @llvm.mem" not in ir
    assert "@__cml_emu_copy(" in body(ir, "copied") and ", i64 4)" in body(ir, "copied")
    assert "@__cml_emu_fill(" in body(ir, "filled")
    assert "@__cml_emu_memcpy" in ir and "@memcpy" not in ir  # the C library's, however it is reached


UNCOUNTED = {
    "typed pointers": """
define void @copy(float* %p, float* %q) {
  %v = load float, float* %p, align 4
  store float %v, float* %q, align 4
  ret void
}
""",
    "opaque pointers": """
define void @copy(ptr %p, ptr %q) {
  %v = load float, ptr %p, align 4
  store float %v, ptr %q, align 4
  ret void
}
""",
}


@pytest.mark.parametrize("spelled", list(UNCOUNTED))
def test_a_load_and_a_store_with_no_callback_get_one_and_stay_ir_clang_compiles(spelled, tmp_path):
    ir = counted_accesses.count_accesses(UNCOUNTED[spelled])
    lines = body(ir, "copy").splitlines()
    at_load = next(at for at, line in enumerate(lines) if " = load float" in line)
    at_store = next(at for at, line in enumerate(lines) if line.strip().startswith("store float"))
    assert "call void @__cml_emu_load(" in lines[at_load - 1] and "i64 4)" in lines[at_load - 1]
    assert "call void @__cml_emu_store(" in lines[at_store - 1]
    assert counted_accesses.count_accesses(ir) == ir, "a second pass finds no access without a callback"
    given = tmp_path / "counted.ll"
    given.write_text(ir)
    done = subprocess.run([clang(), *SPELLINGS[spelled], "-c", str(given), "-o", str(tmp_path / "counted.o")],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_every_access_of_a_function_the_coverage_may_skip_is_counted(spelling, tmp_path):
    ir = counted(
        """
        __attribute__((no_sanitize("coverage"))) void quiet(const float* a, float* b, int i) { b[i] = 2.0f * a[i]; }
        long double wide(const long double* a, int i) { return a[i]; }
        """,
        tmp_path,
        spelling,
    )
    quiet = body(ir, "quiet")
    assert "@__sanitizer_cov_load4(" in quiet or "@__cml_emu_load(" in quiet, quiet
    assert "i64 10)" in body(ir, "wide")  # an x86 long double: 10 bytes, which the coverage has no callback for
    assert counted_accesses.count_accesses(ir) == ir, "a second pass finds no access without a callback"


def test_a_constant_variable_read_by_name_is_a_constant_load_and_through_a_pointer_a_global_one(spelling, tmp_path):
    ir = counted(
        f"""
        {CONSTANT} float table[4];
        float by_name(int i) {{ return table[i & 3]; }}
        float by_a_local_pointer(int i) {{ const float* p = table; return p[i & 3]; }}
        float through(const float* p, int i) {{ return p[i & 3]; }}
        float either(const float* p, int i) {{ return (i ? table : p)[i & 3]; }}
        """,
        tmp_path,
        spelling,
    )
    for name in ("by_name", "by_a_local_pointer"):
        assert "@__cml_emu_constant_load4(" in body(ir, name), body(ir, name)
    for name in ("through", "either"):
        assert "@__sanitizer_cov_load4(" in body(ir, name) and "constant" not in body(ir, name), body(ir, name)


def test_an_atomic_instruction_is_noted_as_an_atomic_access(spelling, tmp_path):
    ir = counted(
        """
        unsigned add(unsigned* p) { return __atomic_fetch_add(p, 1u, __ATOMIC_RELAXED); }
        bool swap(int* p, int expected) { return __atomic_compare_exchange_n(p, &expected, 1, false,
                                                                             __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }
        """,
        tmp_path,
        spelling,
    )
    for name, instruction in (("add", "atomicrmw"), ("swap", "cmpxchg")):
        lines = body(ir, name).splitlines()
        at = next(at for at, line in enumerate(lines) if instruction in line)
        assert "@__cml_emu_atomic(" in lines[at - 1] and "i64 4)" in lines[at - 1], lines


def test_assembly_with_an_instruction_is_refused_and_an_empty_barrier_is_not(spelling, tmp_path):
    with pytest.raises(counted_accesses.Refused, match="assembly"):
        counted('void write(int* p) { asm volatile("movl $0, (%0)" : : "r"(p) : "memory"); }', tmp_path, spelling)
    counted('void fence(int* p) { *p = 1; asm volatile("" : : : "memory"); }', tmp_path, spelling)


def test_an_intrinsic_that_reaches_memory_is_refused_and_the_compilers_bookkeeping_is_not():
    masked = "  %v = call <4 x float> @llvm.masked.load.v4f32.p0(ptr %p, i32 4, <4 x i1> %m, <4 x float> undef)"
    assert counted_accesses.refused_intrinsic(masked) == "llvm.masked.load.v4f32.p0"
    assert counted_accesses.refused_intrinsic("  call void @llvm.lifetime.start.p0(i64 4, ptr %x)") == ""
    assert counted_accesses.refused_intrinsic("  %m = call float @llvm.fmuladd.f32(float %a, float %b, float %c)") == ""


# ---- the compile as Meson and a grade run it ----


def test_the_compile_refuses_what_it_cannot_count_in_the_emulators_words(tmp_path):
    clang()
    source = tmp_path / "kernel.cpp"
    source.write_text('void write(int* p) { asm volatile("movl $0, (%0)" : : "r"(p) : "memory"); }\n')
    command = [sys.executable, str(EMU / "compile.py"), clang(), "-O2", "-c", str(source), "-o", str(tmp_path / "k.o")]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode != 0 and "cml_emu limit: assembly" in done.stderr, done.stderr
    assert not (tmp_path / "k.o").exists() and not list(tmp_path.glob(".emu-compile-*"))


def test_an_attribute_that_turns_the_coverage_off_leaves_no_function_unwatched(tmp_path):
    """no_sanitize("coverage"), which nvcc ignores, took a kernel's accesses out of the emulator's sight: the
    compile now gives them callbacks, so the object's own check finds nothing left unwatched."""
    source = tmp_path / "kernel.cpp"
    source.write_text(
        '__attribute__((no_sanitize("coverage"))) void quiet(const float* a, float* b, int n) {\n'
        "    for (int i = 0; i < n; ++i) b[i] = 2.0f * a[i];\n}\n"
    )
    obj = tmp_path / "kernel.o"
    flags = ["-O2", "-fPIE", "-fno-addrsig", "-fsanitize-coverage=func,trace-loads,trace-stores"]
    command = [sys.executable, str(EMU / "compile.py"), clang(), *flags, "-c", str(source), "-o", str(obj)]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert emulator.problems(obj) == []


# ---- counted at run time ----


def test_the_emulators_kernels_are_counted_as_a_gpu_issues_their_accesses(emulator, config):
    """One warp each (common/emu/tests/kernels.cu): a float4 per lane is one request of 16 sectors (LDG.E.128);
    three floats of a struct three requests of 4 bytes; a memcpy and a memset of 16 bytes at a size known at run
    time four requests each, in pieces of their alignment; the __constant__ table by name a constant load, and
    through cudaGetSymbolAddress's pointer a global one; a GCC atomic builtin a global atomic."""
    selftest = selftest_program(emulator, config)
    counters = emulator_counters([selftest, "--test-case=counted accesses*"], config)

    def lines(kernel: str) -> list[tuple]:
        found = kernel_lines(counters, kernel)
        return [
            (line["space"], line["op"], line["bytes_per_lane"], line["requests"], line.get("sectors")) for line in found
        ]

    assert lines("aggregate_copies_kernel") == [
        ("global", "load", 16, 1, 16),
        ("global", "store", 16, 1, 16),
        ("global", "load", 4, 3, 36),
        ("global", "store", 4, 3, 36),
    ]
    assert lines("library_copies_kernel") == [
        ("global", "load", 4, 4, 64),
        ("global", "store", 4, 4, 64),
        ("global", "store", 4, 4, 64),
    ]
    reads = lines("constant_reads_kernel")
    assert ("constant", "load", 4, 1, None) in reads and ("global", "load", 4, 1, 1) in reads
    assert lines("builtin_atomics_kernel") == [("global", "atomic", 4, 1, None)]
