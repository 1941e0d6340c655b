"""What a kernel.cu may not do, judged on what nvcc read and wrote: honest kernels pass, and each way around the
rules (a library, another file however its #include is spelt, a harness symbol strong or weak, code that runs
before main, a call no lab needs, a raw system call) fails, saying why. Each kernel.cu is compiled with the
command Meson writes for Lab 1's student kernel, into a folder of its own, two at a time."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from pathlib import Path

import pytest

from grader.core.config import REPO_ROOT, load_config
from grader.execution import proc
from grader.platforms.edition import NO_SOLUTIONS, has_solutions
from grader.steps import build, build_commands, integrity
from grader.steps.integrity import includes, symbols
from grader.tests.support.grading import load_tool

if not has_solutions():  # read as the module is imported, which no marker can skip
    pytest.skip(NO_SOLUTIONS, allow_module_level=True)

LAB = "01_vector_add"
# Every kernel.cu below is compiled once, by the module's first test to ask: its tests run in one process.
pytestmark = pytest.mark.xdist_group("the integrity check's compiled kernels")
SOLUTION = (REPO_ROOT / "solutions" / LAB / "kernel.cu").read_text()
# The rest of a kernel.cu around one piece under test: the interface, and one kernel launched by vector_add.
HEADER = '#include "vector_add.hpp"\n'
INTERFACE = """
namespace {
__global__ void add(const float* a, const float* b, float* c, int n)
{ const int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }
}
void vector_add(const float* a, const float* b, float* c, int n)
{ if (n > 0) add<<<(n + 255) / 256, 256>>>(a, b, c, n); CML_CHECK_LAUNCH(); %s }
void vector_add_float4(const float* a, const float* b, float* c, int n) { vector_add(a, b, c, n); }
const bool vector_add_float4_attempted = false;
"""


def kernel(before: str = "", call: str = "", after: str = "") -> str:
    """A small honest kernel.cu, with `before` ahead of the interface, `call` in vector_add, `after` at the end."""
    return HEADER + before + INTERFACE % call + after


HONEST = {
    "the reference solution": SOLUTION,
    "kernels, __device__ functions and __constant__ data at file scope, a template kernel, a named namespace": kernel(
        """__constant__ float scale[4];
__device__ float twice(float x) { return 2.0f * x; }
template <int kBlock> __global__ void fill(float* c, int n)
{ const int i = blockIdx.x * kBlock + threadIdx.x; if (i < n) c[i] = twice(scale[0]); }
__global__ void zero(float* c, int n) { const int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = 0; }
namespace lab { __global__ void one(float* c) { c[0] = 1.0f; } }
""",
        "fill<128><<<1, 128>>>(c, 0); zero<<<1, 32>>>(c, 0); lab::one<<<1, 1>>>(c);",
    ),
    "cooperative groups, host math, printf, a static local, an exception, scratch memory": kernel(
        """#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cmath>
#include <cstdio>
#include <stdexcept>
namespace cg = cooperative_groups;
namespace {
__global__ void warp_sums(const float* a, float* out)
{ auto warp = cg::tiled_partition<32>(cg::this_thread_block()); out[0] = cg::reduce(warp, a[0], cg::plus<float>()); }
int sms()
{
    static const int count = [] {
        int sms = 0;
        CML_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        return sms;
    }();
    return count;
}
}
""",
        """if (n < 0) throw std::runtime_error("n < 0");
if (n > 1 << 30) std::printf("%f\\n", std::sqrt(double(n) / sms()));
float* scratch = nullptr; CML_CHECK(cudaMalloc(&scratch, 4)); warp_sums<<<1, 32>>>(a, scratch);
CML_CHECK(cudaMemcpy(c, scratch, 4, cudaMemcpyDeviceToDevice)); CML_CHECK(cudaFree(scratch));""",
    ),
}

HARNESS_COMPARE = """#include "cml/compare.hpp"
namespace cml {
%sComparison compare(const std::vector<float>&, const std::vector<double>&, Tolerance) { return {true}; }
}
"""
# A texture object and the CUDA array it reads: Lab 12's lesson, which labs.toml allows that lab alone.
TEXTURE_OBJECT = kernel(
    call="""cudaArray_t array; cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
cudaMallocArray(&array, &channel, 4, 4); cudaMemcpy2DToArray(array, 0, 0, a, 16, 16, 4, cudaMemcpyDeviceToDevice);
cudaResourceDesc resource{}; resource.resType = cudaResourceTypeArray; resource.res.array.array = array;
cudaTextureDesc sampling{}; cudaTextureObject_t texture; cudaCreateTextureObject(&texture, &resource, &sampling, nullptr);
cudaDestroyTextureObject(texture); cudaFreeArray(array);"""
)
TEXTURE_CALLS = (
    "cudaMallocArray",
    "cudaMemcpy2DToArray",
    "cudaCreateTextureObject",
    "cudaDestroyTextureObject",
    "cudaFreeArray",
    "cudaCreateChannelDesc",
)

REJECTED_OBJECTS = {
    "makes a texture object, which only Lab 12 may": (
        TEXTURE_OBJECT, [f"calls {name}: not among the calls a kernel.cu needs" for name in TEXTURE_CALLS]),
    "redefines cml::compare (class_submissions' mia)": (
        SOLUTION + HARNESS_COMPARE % "", ["defines cml::compare(", "grader's test harness"]),
    "redefines cml::compare as a weak symbol": (
        SOLUTION + HARNESS_COMPARE % "__attribute__((weak)) ", ["cml::Tolerance) (weak): it belongs to the grader's test harness"]),
    "defines main": (kernel(after="int main() { return 0; }\n"), ["defines main: it belongs to the grader's test harness"]),
    "defines a helper outside any anonymous namespace": (
        kernel(after="int blocks(int n) { return n / 256; }\n"), ["defines blocks(int): not part of the lab's interface"]),
    "defines an extern \"C\" kernel": (
        kernel(after='extern "C" __global__ void malloc_kernel(float* c) { c[0] = 0; }\n'), ['defines malloc_kernel: a kernel declared extern "C"']),
    "has a global object with a constructor": (
        kernel(after="namespace { struct Early { Early() { cudaFree(nullptr); } } early; }\n"),
        ["has a global object with a constructor"]),
    "has an __attribute__((constructor)) function": (
        kernel(after="__attribute__((constructor)) static void early() { cudaFree(nullptr); }\n"),
        ["early() runs before main"]),
    "includes <iostream>": (kernel("#include <iostream>\n"), ["includes <iostream>, whose global object"]),
    # What GCC 13's <iostream> leaves in an object (this machine's GCC may be older): a reference that links the
    # library's stream start-up, with no global object of the kernel's own.
    "includes <iostream> as GCC 13 compiles it": (
        kernel(after='__asm__(".globl _ZSt21ios_base_library_initv");\n'), ["includes <iostream>, whose global object"]),
    "reads an environment variable": (
        kernel("#include <cstdlib>\n", "if (std::getenv(\"CML_SEED\")) return;"), ["calls getenv: reads or changes environment variables"]),
    "opens a file": (
        kernel("#include <cstdio>\n", "std::fclose(std::fopen(\"/tmp/x\", \"w\"));"), ["calls fopen: reads or writes files"]),
    "starts a thread with pthread_create": (
        kernel("#include <pthread.h>\nstatic void* work(void*) { return nullptr; }\n",
               "pthread_t t; pthread_create(&t, nullptr, work, nullptr);"), ["calls pthread_create: starts a thread"]),
    "starts a std::thread": (
        kernel("#include <thread>\n", "std::thread([] {}).detach();"), ["std::thread::", "starts a thread"]),
    "makes a system call in inline assembly": (
        kernel(call='long r; asm volatile("syscall" : "=a"(r) : "a"(39L) : "rcx", "r11", "memory");'),
        ["contains a `syscall` instruction"]),
    "creates a stream": (
        kernel(call="cudaStream_t s; CML_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));"),
        ["calls cudaStreamCreateWithFlags: creates a stream of its own"]),
    # What Lab 10 teaches: refused in every other lab, allowed there (test_a_lab_allows_only_the_calls_it_teaches).
    "pins host memory, on a stream of its own, with a callback": (
        kernel("static void CUDART_CB done(void*) {}\n",
               "cudaStream_t s; CML_CHECK(cudaStreamCreate(&s)); CML_CHECK(cudaHostRegister(c, 4, 0));"
               "CML_CHECK(cudaLaunchHostFunc(s, done, nullptr)); CML_CHECK(cudaHostUnregister(c));"
               "CML_CHECK(cudaStreamDestroy(s));"),
        ["calls cudaStreamCreate: creates a stream of its own", "calls cudaHostRegister: allocates page-locked",
         "calls cudaLaunchHostFunc: runs host code from a stream"]),
    "waits for a stream and an event by asking, in a loop": (
        kernel(call="cudaStream_t s; CML_CHECK(cudaStreamCreate(&s)); cudaEvent_t e; CML_CHECK(cudaEventCreate(&e));"
                    "CML_CHECK(cudaEventRecord(e, s)); while (cudaEventQuery(e) == cudaErrorNotReady) {}"
                    "while (cudaStreamQuery(s) == cudaErrorNotReady) {} CML_CHECK(cudaEventDestroy(e));"
                    "CML_CHECK(cudaStreamDestroy(s));"),
        ["calls cudaStreamQuery: not among the calls a kernel.cu needs", "calls cudaEventQuery: uses CUDA events"]),
    "sets a device limit": (
        kernel(call="CML_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));"),
        ["calls cudaDeviceSetLimit: changes a device-wide limit"]),
    "calls cuBLAS": (
        kernel('extern "C" int cublasSaxpy_v2(void*, int, const float*, const float*, int, float*, int);\n',
               "cublasSaxpy_v2(nullptr, n, nullptr, a, 1, c, 1);"), ["calls cublasSaxpy_v2: a library that does the lab's work"]),
    "calls atexit": (kernel("#include <cstdlib>\nstatic void last() {}\n", "std::atexit(last);"), ["calls atexit"]),
}  # fmt: skip

SOLUTION_PATH = "solutions/01_vector_add/kernel.cu"  # found through the build's -I of the checkout's root
# kernel.cu -> what its include check must say (line numbers are kernel.cu's)
REJECTED_INCLUDES = {
    "the solution, through a digraph": (f'%:include "{SOLUTION_PATH}"\n', f"line 1 includes {SOLUTION_PATH}"),
    "the solution, with a comment in the directive": (f'# /**/ include "{SOLUTION_PATH}"\n',
                                                      f"line 1 includes {SOLUTION_PATH}"),
    "the solution, through a line splice": (f'#inc\\\nlude "{SOLUTION_PATH}"\n', f"includes {SOLUTION_PATH}"),
    "the solution, through a macro": (f'#define SOLUTION "{SOLUTION_PATH}"\n#include SOLUTION\n',
                                      f"line 2 includes {SOLUTION_PATH}"),
    "another lab's header": (HEADER + '#include "../02_dot_product/dot_product.hpp"\n',
                             "line 2 includes tests/02_dot_product/dot_product.hpp"),
    "the lab's baseline, on the host only": (HEADER + '#ifndef __CUDA_ARCH__\n#include "baseline.hpp"\n#endif\n',
                                             "line 3 includes tests/01_vector_add/baseline.hpp"),
    "the lab's CPU reference, on the device only": (HEADER + '#ifdef __CUDA_ARCH__\n#include "reference.hpp"\n#endif\n',
                                                    "line 3 includes tests/01_vector_add/reference.hpp"),
    "a file of the system": ('#include "/etc/passwd"\n' + HEADER, "line 1 includes /etc/passwd"),
    "cuBLAS": ("#include <cublas_v2.h>\n" + HEADER,
               "line 1 includes <cublas_v2.h>: a header of cuBLAS, a library that does the lab's work"),
    "Thrust": (HEADER + "#include <thrust/version.h>\n", "line 2 includes <thrust/version.h>: a header of Thrust"),
    "CUB": (HEADER + "#include <cub/version.cuh>\n", "line 2 includes <cub/version.cuh>: a header of CUB"),
    "the occupancy calculator": (HEADER + "#include <cuda_occupancy.h>\n",
                                 "line 2 includes <cuda_occupancy.h>: the toolkit's occupancy calculator"),
}  # fmt: skip


@pytest.fixture(scope="module")
def compile_step(built_tree) -> build_commands.CompileStep:
    return built_tree.kernel_compile(LAB, "student")


def redirected(command: list[str], replaced: dict[str, str]) -> list[str]:
    """`command` with the argument after each flag of `replaced` (-o, -MF, -c) replaced."""
    return command[:1] + [replaced.get(flag, arg) for flag, arg in pairwise(command)]


def case_step(step: build_commands.CompileStep, folder: Path, source: str) -> build_commands.CompileStep:
    """The grader's compile of a student's kernel.cu, for `source` written into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.cu").write_text(source)
    paths = {"-c": folder / "kernel.cu", "-o": folder / "kernel.o", "-MF": folder / "kernel.d"}
    command = redirected(step.command, {flag: str(path) for flag, path in paths.items()})
    return build_commands.CompileStep(command, paths["-c"].resolve(), str(paths["-o"]))


@pytest.fixture(scope="module")
def interface(built_tree, tmp_path_factory) -> integrity.Interface:
    """Lab 1's interface, from the checker's stand-ins compiled as the build compiles them."""
    folder = tmp_path_factory.mktemp("interface")
    outputs = {"-o": str(folder / "stubs.o"), "-MF": str(folder / "stubs.d")}
    command = redirected(built_tree.interface_compile(LAB).command, outputs)
    assert proc.run(command, 120, cwd=built_tree.directory, env={"PATH": built_tree.tool_path()}).ok
    read = build_commands.read_depfile((folder / "stubs.d").read_text(), built_tree.directory)
    return integrity.interface_of(folder / "stubs.o", read, REPO_ROOT / "tests" / LAB)


@pytest.fixture(scope="module")
def objects(built_tree, compile_step, tmp_path_factory) -> dict[str, Path | str]:
    """Every kernel.cu of HONEST and REJECTED_OBJECTS compiled: name -> its object, or the compiler's errors."""
    folder = tmp_path_factory.mktemp("objects")
    sources = {**HONEST, **{name: source for name, (source, _) in REJECTED_OBJECTS.items()}}

    def compile_one(index_and_name):
        index, name = index_and_name
        step = case_step(compile_step, folder / str(index), sources[name])
        ran = proc.run(step.command, 300, cwd=built_tree.directory, env={"PATH": built_tree.tool_path()})
        return name, Path(step.output) if ran.ok else ran.tail(10)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(compile_one, enumerate(sources)))


def include_problems(
    tree: build.BuildTree, step: build_commands.CompileStep, interface: integrity.Interface
) -> list[str]:
    """The grader's include check of `step`, from the files the preprocessor alone reads (nvcc -M)."""
    read = build_commands.read_depfile(tree.preprocess(step, "dependencies"), tree.directory)
    rules = includes.Rules(interface.headers, integrity.search_roots(tree.tool_path()))
    return integrity.check_includes(read, step.source, rules, lambda view: tree.preprocess(step, view), tree.directory)


@pytest.mark.parametrize("name", HONEST)
def test_an_honest_kernel_passes(objects, interface, built_tree, compile_step, tmp_path, name):
    assert isinstance(objects[name], Path), objects[name]
    assert integrity.check_object(objects[name], interface) == []
    assert include_problems(built_tree, case_step(compile_step, tmp_path, HONEST[name]), interface) == []


@pytest.mark.parametrize("name", REJECTED_OBJECTS)
def test_a_kernel_that_goes_around_the_rules_is_rejected_saying_why(objects, interface, name):
    assert isinstance(objects[name], Path), objects[name]
    problems = "\n".join(integrity.check_object(objects[name], interface))
    for reason in REJECTED_OBJECTS[name][1]:
        assert reason in problems, problems


def test_the_texture_calls_pass_where_the_lab_allows_them_and_nothing_else_does(objects, interface):
    lab_calls = frozenset(load_config().lab("12_readonly_texture").allowed_calls)
    assert set(TEXTURE_CALLS) <= lab_calls
    texture = objects["makes a texture object, which only Lab 12 may"]
    assert isinstance(texture, Path), texture
    assert integrity.check_object(texture, interface, lab_calls=lab_calls) == []
    # Lab 12's allowance is no licence for what every lab is refused.
    stream = objects["creates a stream"]
    assert isinstance(stream, Path), stream
    assert any(
        "cudaStreamCreate" in problem for problem in integrity.check_object(stream, interface, lab_calls=lab_calls)
    )
    assert lab_calls <= symbols.TEACHABLE_CALLS, "a lab may allow only calls it can teach"


def test_a_lab_allows_only_the_calls_it_teaches(objects, interface):
    """Lab 10 teaches streams and pinned memory (labs.toml: allowed_calls): its allowance lifts those refusals,
    for its kernel.cu alone, and never that of a call no lab may allow (a host callback)."""
    name = "pins host memory, on a stream of its own, with a callback"
    assert isinstance(objects[name], Path), objects[name]
    labs = {lab.name: lab.allowed_calls for lab in load_config().labs}
    assert [lab for lab, allowed in labs.items() if allowed] == ["10_host_memory", "12_readonly_texture"]
    assert labs["10_host_memory"] <= symbols.TEACHABLE_CALLS, "a lab may allow only calls it can teach"
    problems = "\n".join(integrity.check_object(objects[name], interface, lab_calls=labs["10_host_memory"]))
    assert "cudaStreamCreate" not in problems and "cudaHostRegister" not in problems, problems
    assert "calls cudaLaunchHostFunc: runs host code from a stream" in problems, problems
    anything = frozenset({"cudaLaunchHostFunc", "cudaStreamCreate"})  # a labs.toml that asks for more
    problems = "\n".join(integrity.check_object(objects[name], interface, lab_calls=anything))
    assert "cudaLaunchHostFunc" in problems and "cudaHostRegister" in problems, problems


def test_lab_10_may_wait_by_asking_and_no_other_lab_may(objects, interface):
    """cudaStreamQuery and cudaEventQuery, asked in a loop, are waits the handout teaches: Lab 10's list holds
    them, and the refusal elsewhere stands."""
    name = "waits for a stream and an event by asking, in a loop"
    assert isinstance(objects[name], Path), objects[name]
    allowed = load_config().lab("10_host_memory").allowed_calls
    assert {"cudaStreamQuery", "cudaEventQuery"} <= allowed
    assert integrity.check_object(objects[name], interface, lab_calls=allowed) == []
    texture_lab = load_config().lab("12_readonly_texture").allowed_calls
    assert "cudaStreamQuery" in "\n".join(integrity.check_object(objects[name], interface, lab_calls=texture_lab))


def test_each_handout_lists_the_calls_its_lab_alone_may_make_as_labs_toml_does(capsys):
    """One list: labs.toml's allowed_calls, which the integrity check reads, written into the handout of each lab
    that has one (tools/handout_calls.py)."""
    assert load_tool("handout_calls").main(["--check"]) == 0, capsys.readouterr().err


def test_a_handout_whose_calls_differ_from_labs_toml_is_stale():
    tool = load_tool("handout_calls")
    lab = load_config().lab("10_host_memory")
    current = tool.block(lab)
    assert "`cudaStreamQuery`" in current and "`cudaEventQuery`" in current
    stale = f"intro\n{current.replace('`cudaStreamQuery`', '`cudaLaunchHostFunc`')}\nmore\n"
    assert tool.updated(stale, current) == f"intro\n{current}\nmore\n" != stale
    assert tool.updated("a handout without the markers", current) is None


@pytest.mark.parametrize("name", REJECTED_INCLUDES)
def test_an_include_of_a_forbidden_file_is_rejected_with_its_line(built_tree, compile_step, interface, tmp_path, name):
    source, reason = REJECTED_INCLUDES[name]
    problems = include_problems(built_tree, case_step(compile_step, tmp_path, source), interface)
    assert any(reason in problem for problem in problems), problems


def test_allowed_headers_are_the_interface_cml_cuda_and_the_system(built_tree, compile_step, interface, tmp_path):
    source = (
        '#include "cml/compare.hpp"\n#include <cuda/std/cmath>\n#include <cooperative_groups/memcpy_async.h>\n'
        "#include <vector>\n#include <cstring>\n" + HEADER
    )
    assert include_problems(built_tree, case_step(compile_step, tmp_path, source), interface) == []


@pytest.mark.parametrize(
    ("readable", "kind", "says"),
    [
        ("std::vector<float, std::allocator<float> >::~vector()", "W", "standard-library template"),
        ("void std::vector<float, std::allocator<float> >::_M_realloc_insert<float>(float&&)", "W", "standard-library"),
        ("__gnu_cxx::new_allocator<float>::deallocate(float*, unsigned long)", "W", "standard-library template"),
        ("helper(int)", "W", "a weak definition (an inline function"),  # the student's own inline function
        ("std::vector<float, std::allocator<float> >::~vector()", "T", "not part of the lab's interface"),
    ],
)
def test_a_weak_standard_template_is_refused_with_a_reason_a_student_can_act_on(readable, kind, says):
    reason = symbols.definition_reason(readable, kind, extern_c_kernel=False)
    assert reason.startswith(says) or says in reason, reason


def test_glibcs_checked_copies_are_allowed_as_the_functions_they_check():
    """A host compiler that defines _FORTIFY_SOURCE when optimising turns a memcpy into a buffer of known size
    into __memcpy_chk: refusing it would refuse the same code on one machine and not on another."""
    for name in ("__memcpy_chk", "__memmove_chk", "__memset_chk", "__printf_chk", "__vprintf_chk"):
        assert symbols.allowed_call(name, name), name
    assert not symbols.allowed_call("__strcpy_chk", "__strcpy_chk")  # strcpy itself is not on the list


def test_an_archive_s_definition_counts_whatever_member_calls_it_after(tmp_path):
    """A library of the grader's (the emulator's runtime) whose later member calls what an earlier member defines:
    the name is the library's definition, so a kernel.cu's call to it is the library's to answer, not refused."""
    (tmp_path / "calls.c").write_text("void defined_later(void); void first(void) { defined_later(); }\n")
    (tmp_path / "defines.c").write_text("void defined_later(void) {}\n")
    for name in ("calls", "defines"):
        assert proc.run(["gcc", "-c", str(tmp_path / f"{name}.c"), "-o", str(tmp_path / f"{name}.o")], 60).ok
    archive = tmp_path / "libboth.a"
    assert proc.run(["ar", "rcs", str(archive), str(tmp_path / "defines.o"), str(tmp_path / "calls.o")], 60).ok
    assert "defined_later" in integrity.harness_definitions([archive])
