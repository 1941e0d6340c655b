"""Checks on the symbols of a kernel.cu's object: what it defines for others to link against (only the lab's
interface, and what nvcc generates), and what it calls (an allow-list of what a lab needs).

The allow-lists were read off the objects of every solution, skeleton, planted fixture and textbook variant
(variants/), compiled as the grader compiles them, and off the headers a kernel.cu includes."""

from __future__ import annotations

import re

from grader.steps.integrity import nvcc
from grader.steps.integrity.elf import ObjectFile

# ---- what a kernel.cu may call ----

CUDA_CALLS = frozenset({
    # a kernel launch, as nvcc writes <<<...>>>, and by hand
    "__cudaPushCallConfiguration", "__cudaPopCallConfiguration", "__cudaLaunchKernel", "__cudaGetKernel",
    "cudaLaunchKernel", "cudaLaunchCooperativeKernel",
    # errors
    "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetErrorName",
    # copies and fills, to and from __constant__ and __device__ variables too
    "cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemcpyToSymbol",
    "cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbol", "cudaMemcpyFromSymbolAsync", "cudaMemset", "cudaMemsetAsync",
    "cudaMemset2D", "cudaMemset2DAsync", "cudaGetSymbolAddress", "cudaGetSymbolSize",
    # scratch memory on the device
    "cudaMalloc", "cudaFree", "cudaMallocAsync", "cudaFreeAsync", "cudaMallocPitch",
    # waiting for the device
    "cudaDeviceSynchronize", "cudaStreamSynchronize",
    # what the device is, how many blocks fit, and a kernel's own attributes
    "cudaGetDevice", "cudaGetDeviceCount", "cudaDeviceGetAttribute", "cudaGetDeviceProperties",
    "cudaGetDeviceProperties_v2", "cudaDeviceGetLimit", "cudaMemGetInfo", "cudaRuntimeGetVersion",
    "cudaDriverGetVersion", "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "cudaOccupancyAvailableDynamicSMemPerBlock",
    "cudaFuncGetAttributes", "cudaFuncSetAttribute", "cudaFuncSetCacheConfig",
})  # fmt: skip
CML_HELPERS = frozenset(
    {
        "_ZN3cml16throw_cuda_errorE9cudaErrorPKcS2_i",  # cml::throw_cuda_error, what CML_CHECK calls on an error
        "_ZN3cml11report_todoEPKciS1_",  # cml::report_todo, what CML_TODO calls
    }
)
# The __*_chk names are glibc's checked copies of the same functions, which a compiler that defines
# _FORTIFY_SOURCE when optimising (Ubuntu's gcc does, Debian's does not) calls where it knows a buffer's size.
C_LIBRARY = re.compile(
    r"^(memcpy|memmove|memset|memcmp|strlen|printf|vprintf|__printf_chk|__vprintf_chk|__memcpy_chk|__memmove_chk"
    r"|__memset_chk|puts|putchar|malloc|calloc|realloc|free"
    r"|aligned_alloc|posix_memalign"
    r"|(sqrt|cbrt|hypot|exp|exp2|expm1|log|log2|log10|log1p|pow|sin|cos|tan|sincos|asin|acos|atan|atan2|sinh|cosh"
    r"|asinh|acosh|atanh"
    r"|tanh|erf|erfc|tgamma|lgamma|fabs|fmod|remainder|remquo|fma|fmin|fmax|fdim|floor|ceil|trunc|round|lround"
    r"|llround|rint|lrint|llrint|nearbyint|ldexp|frexp|modf|copysign|nextafter|scalbn|scalbln|ilogb|logb|nan"
    # what the CUDA Math API has of the C library's extensions (common/emu/device_api.txt)
    r"|exp10|j0|j1|jn|y0|y1|yn)[fl]?)$"
)
# The C++ runtime's own, on demangled names: allocation, exceptions (what a throw or a CML_CHECK needs, with
# std::string), guards of function-local statics, unwinding.
CXX_RUNTIME = re.compile(
    r"^(operator (new|delete)(\[\])?\(|__cxa_\w+$|std::__throw_\w+\(|std::__glibcxx_assert_fail\(|std::terminate\(\)"
    r"|_Unwind_Resume$|__gxx_personality_v0$|__stack_chk_fail$|__dso_handle$|_GLOBAL_OFFSET_TABLE_$"
    r"|(typeinfo for |vtable for )__cxxabiv1::"
    r"|(typeinfo for |typeinfo name for |vtable for )?std::(__cxx11::)?(basic_string<char\b|exception\b|bad_alloc\b"
    r"|bad_array_new_length\b|runtime_error\b|logic_error\b|length_error\b|out_of_range\b|invalid_argument\b"
    r"|domain_error\b|range_error\b|overflow_error\b|underflow_error\b))"
)

LIBRARY = re.compile(
    r"^(cublas|cudnn|cusparse|cufft|cusolver|cutensor|nccl|npp|nvblas|cudss)\w*"
    r"|^(\S+ )?(thrust|cub|cutlass|cute)::"
)
LIBRARY_REASON = "a library that does the lab's work; write the kernel yourself"
HARNESS = re.compile(r"^(cml|doctest)::|^main$")
HARNESS_REASON = "it belongs to the grader's test harness"
FILES = "reads or writes files; a kernel.cu works only on the buffers it is given"
# Calls named with their reason; anything else not allowed gets the general one.
FORBIDDEN = (
    (r"^(dlopen|dlmopen|dlsym|dlvsym|dladdr\d?|dlinfo)$", "loads code the grader never saw"),
    (r"^(fork|vfork|clone\d?|exec[lv]p?e?|fexecve|system|popen|posix_spawnp?)$", "starts another program"),
    (r"^(f?open(at)?(64)?|__open\w*|creat(64)?|f?reopen(64)?|fdopen|p?(read|write)v?(64)?|__read_chk|close|fclose"
     r"|fread|fwrite|fgets|fgetc|getc|fputs|fputc|putc|v?fprintf|__fprintf_chk|v?fscanf|getline|getdelim|unlink(at)?"
     r"|remove|rename(at)?|mkdir(at)?|rmdir|opendir|readdir(64)?|(f|l)?stat(at)?(64)?|statx|access|faccessat|chdir"
     r"|chmod|f?truncate(64)?|dup[23]?|pipe2?|ioctl|fcntl(64)?|tmpfile|mkstemp|sendfile)$", FILES),
    (r"^std::(__cxx11::)?basic_(i|o)?fstream|^std::basic_filebuf", FILES),
    (r"^(socket|socketpair|connect|bind|listen|accept4?|send(to|msg)?|recv(from|msg)?|getaddrinfo|gethostbyname)$",
     "uses the network"),
    (r"^(secure_)?getenv$|^(setenv|unsetenv|putenv|clearenv|_?_?environ)$",
     "reads or changes environment variables, where the grader keeps its seed and settings"),
    (r"^(_exit|_Exit|quick_exit|at_quick_exit|abort|on_exit)$", "it ends the test program instead of returning"),
    (r"^(kill|tgkill|tkill|raise|signal|sigaction|ptrace|syscall|prctl|setrlimit|prlimit(64)?|seccomp)$",
     "signals, traces or calls the operating system directly"),
    (r"^(mmap(64)?|munmap|mprotect|pkey_mprotect|mremap|madvise)$",
     "changes memory mappings, which could rewrite the test program's code"),
    (r"^(pthread_create|thrd_create)$|^std::thread::|^std::__future_base",
     "starts a thread, which could go on working after your function returned and the timer stopped"),
    (r"^cudaStreamCreate", "creates a stream of its own: the benchmark's timer waits only for the default stream"),
    (r"^cudaEvent", "uses CUDA events: timing is the benchmark's job"),
    (r"^cudaDeviceSetLimit$",
     "changes a device-wide limit (the persisting-L2 carve-out, say), which outlives your call and changes the "
     "baseline's times"),
    (r"^(cudaStreamSetAttribute|cudaCtxResetPersistingL2Cache)$",
     "sets up L2 persistence, which keeps data in L2 across the benchmark's cache flush"),
    (r"^cudaGraph", "runs work through a CUDA graph, outside the launches the benchmark times"),
    (r"^(cudaLaunchHostFunc|cudaStreamAddCallback)$", "runs host code from a stream after your function returned"),
    (r"^cudaDeviceReset$", "destroys the test program's CUDA context and everything in it"),
    (r"^cudaSetDevice$", "switches the test program to another GPU"),
    (r"^(cudaMallocHost|cudaHostAlloc|cudaHostRegister|cudaHostGetDevicePointer)$",
     "allocates page-locked host memory, which kernels can reach after your function returned"),
)  # fmt: skip
IOSTREAM_REASON = "includes <iostream>, whose global object's constructor runs before main; print with printf instead"
# GCC 13's <iostream> has no global object of its own: it refers to this function, so that the link pulls in the
# library's, which constructs the streams before main all the same.
IOSTREAM_LIBRARY_INIT = "_ZSt21ios_base_library_initv"
NOT_NEEDED = (
    "not among the calls a kernel.cu needs (kernel launches, error checks, cudaMemcpy and cudaMemset, "
    "cudaMalloc and cudaFree of scratch memory, synchronising, device and occupancy queries, printf, math)"
)


# Calls a lab may allow because it teaches them (grader/labs.toml: allowed_calls), refused in every other lab (for
# the reasons of FORBIDDEN, or as not needed). Lab 10's streams, events, pinned and managed memory: its benchmark
# times the whole call on the host's clock, after a device-wide synchronise, so no work of them (a prefetch is
# work on a stream) escapes its timer, and a managed buffer kept from call to call is found as a pinned one is
# (SECURITY.md); a kernel on mapped host memory (cudaHostGetDevicePointer, the zero-copy stretch) is waited for
# and checked as any other. Lab 12's texture objects: they read an image, and no other lab needs one. Callbacks,
# graphs, threads and the rest of FORBIDDEN stay refused everywhere: no lab may allow them.
TEACHABLE_CALLS = frozenset({
    # streams of one's own
    "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority", "cudaStreamDestroy",
    "cudaStreamQuery", "cudaStreamWaitEvent",
    # events that order streams
    "cudaEventCreate", "cudaEventCreateWithFlags", "cudaEventRecord", "cudaEventRecordWithFlags",
    "cudaEventSynchronize", "cudaEventQuery", "cudaEventDestroy",
    # page-locked host memory
    "cudaMallocHost", "cudaFreeHost", "cudaHostAlloc", "cudaHostRegister", "cudaHostUnregister",
    "cudaHostGetDevicePointer",
    # managed memory, and where its pages are moved
    "cudaMallocManaged", "cudaMemPrefetchAsync", "cudaMemAdvise",
    # texture objects, and the CUDA arrays and channel formats they read
    "cudaMallocArray", "cudaFreeArray", "cudaMemcpy2DToArray", "cudaCreateChannelDesc", "cudaCreateTextureObject",
    "cudaDestroyTextureObject",
})  # fmt: skip


def allowed_call(name: str, readable: str, lab_calls: frozenset[str] = frozenset()) -> bool:
    """Whether a kernel.cu may call `name`: every lab's allow-list, or what its lab teaches (labs.toml:
    allowed_calls), of TEACHABLE_CALLS alone."""
    if readable.startswith("std::ios_base::Init::"):
        return True  # <iostream>'s global object: code.startup_code says why it is refused
    return (
        name in lab_calls & TEACHABLE_CALLS
        or name in CUDA_CALLS
        or name in CML_HELPERS
        or C_LIBRARY.match(name) is not None
        or CXX_RUNTIME.match(readable) is not None
    )


def call_reason(readable: str) -> str:
    if LIBRARY.match(readable):
        return LIBRARY_REASON
    if HARNESS.match(readable):
        return f"{HARNESS_REASON}; a kernel.cu calls only what CML_CHECK and CML_TODO call"
    return next((reason for pattern, reason in FORBIDDEN if re.search(pattern, readable)), NOT_NEEDED)


def calls(obj: ObjectFile, lab_calls: frozenset[str] = frozenset()) -> list[str]:
    """Every undefined symbol not on the allow-list, nor among the TEACHABLE_CALLS its lab allows (`lab_calls`),
    with why. exit, atexit and the registration calls are left to code.nvcc_only_calls, which checks who makes
    them."""
    needed = sorted(obj.undefined() - nvcc.REGISTRATION_CALLS - {"exit"})
    return [
        IOSTREAM_REASON
        if name == IOSTREAM_LIBRARY_INIT
        else f"calls {obj.readable(name)}: {call_reason(obj.readable(name))}"
        for name in needed
        if not allowed_call(name, obj.readable(name), lab_calls)
    ]


# ---- what a kernel.cu may define ----

WEAK_REASON = (
    "a weak definition (an inline function or template instantiated here, or __attribute__((weak))) "
    "can take the place of the test program's own; a kernel.cu defines only its lab's functions"
)
# A standard-library template instantiated in the launcher (a std::vector of host buffers, say) is a weak
# definition too. It is refused all the same, since macros defined before the #include can change its code, but
# with a reason a student can act on; whether one is left depends on what the compiler chose to inline.
STANDARD_TEMPLATE = re.compile(r"^(\S+ )?(std|__gnu_cxx)::")
STANDARD_TEMPLATE_REASON = (
    "your host code instantiates a standard-library template here (std::vector and the like); the test program "
    "has its own copy, and the linker may take either, so a kernel.cu may not define one: keep host data in plain "
    "arrays or in the buffers the launcher is given, as the skeleton does"
)
EXTERN_C_REASON = (
    'a kernel declared extern "C" has a C name, which could take the place of a C library function; drop the extern "C"'
)
STRONG_REASON = (
    "not part of the lab's interface: put kernels, helpers and globals in an anonymous namespace "
    "(namespace { ... }) or make them static, as the skeleton does"
)


def nvcc_wrote(obj: ObjectFile, name: str, harness: frozenset[str]) -> bool:
    """A kernel's entry or stub, or a __device__ function's host copy, under a C++ name nothing else defines."""
    return name.startswith("_Z") and name not in harness and not HARNESS.match(obj.readable(name))


def definition_reason(readable: str, kind: str, extern_c_kernel: bool) -> str:
    if extern_c_kernel:
        return EXTERN_C_REASON
    if HARNESS.match(readable):
        return f"{HARNESS_REASON}; a kernel.cu defines only its lab's functions"
    if LIBRARY.match(readable):
        return LIBRARY_REASON
    if kind in "WVu":
        return STANDARD_TEMPLATE_REASON if STANDARD_TEMPLATE.match(readable) else WEAK_REASON
    return STRONG_REASON


def definitions(obj: ObjectFile, interface: frozenset[str], harness: frozenset[str] = frozenset()) -> list[str]:
    """Every global or weak definition but the lab's interface and what nvcc wrote, with why. `harness`: the
    names the grader's own libraries define, which nothing nvcc wrote may take."""
    generated, kernels = nvcc.generated(obj), nvcc.registered(obj)
    problems = []
    for name, kind in sorted(obj.defined_globals().items()):
        readable = obj.readable(name)
        if (
            name in interface
            or name == nvcc.PERSONALITY
            or nvcc.private(name)
            or (kind == "u" and readable.startswith("cuda::"))  # libcu++'s inline constants
            or (name in generated and nvcc_wrote(obj, name, harness))
        ):
            continue
        weak = " (weak)" if kind in "WVu" else ""
        reason = definition_reason(readable, kind, extern_c_kernel=name in kernels and not name.startswith("_Z"))
        problems.append(f"defines {readable}{weak}: {reason}")
    return problems
