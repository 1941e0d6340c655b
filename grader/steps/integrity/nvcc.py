"""What nvcc itself writes into a kernel.cu's host object, told apart from what the student wrote.

For each kernel, nvcc writes a host-side entry (the kernel's own name) and a `__device_stub__` that launches it,
and registers the entry with the CUDA runtime in a function that runs before main (`__sti____cudaRegisterAll`,
the one entry of .init_array it needs); for each __device__ function, a host copy whose body is
`{ int volatile ___ = 1; ::exit(___); }`, which host code can never call. Names in an anonymous namespace come
out external but private to this file: cudafe++ names the namespace `_GLOBAL__N__<hash>_9_kernel_cu_<hash>`."""

from __future__ import annotations

import re

from grader.steps.integrity.elf import Function, ObjectFile

REGISTER_ALL = "_ZL24__sti____cudaRegisterAllv"  # registers the fatbinary and every kernel and variable in it
REGISTRATION = (REGISTER_ALL, "_ZL31__nv_cudaEntityRegisterCallbackPPv", "_ZL26__cudaUnregisterBinaryUtilv")
# Calls only nvcc's registration code makes (the fatbinary, its kernels and variables, its removal at exit).
REGISTRATION_CALLS = frozenset(
    {
        "atexit",
        "__cudaRegisterFatBinary",
        "__cudaRegisterFatBinaryEnd",
        "__cudaUnregisterFatBinary",
        "__cudaRegisterFunction",
        "__cudaRegisterVar",
    }
)
# Tried only where a run of digits starts: a symbol's name can be megabytes of digits (an asm label).
ANONYMOUS = re.compile(r"(?<!\d)\d++_GLOBAL__N__[0-9a-f]++_9_kernel_cu_[0-9a-f]+")
DEVICE_STUB = re.compile(r"^_Z\d+__device_stub__(?P<kernel>.+)$")
PERSONALITY = "DW.ref.__gxx_personality_v0"  # the C++ exception personality, as the host compiler refers to it
PADDING = re.compile(r"^(endbr64|(data16 |cs )*nop\w*( .*)?|xchg %ax,%ax)$")
# The host copy of a __device__ function: 1 stored into a volatile slot, loaded into the argument, exit called.
# x86-64 as gcc -O3 writes it; the AArch64 form is written from the same C++ and not yet seen on a machine.
EXIT_STUB = (
    re.compile(
        r"^(sub \$0x[0-9a-f]+,%rsp;)?movl \$0x1,(?P<slot>(0x[0-9a-f]+)?\(%rsp\));"
        r"mov (?P=slot),%edi;call \S+( <[^>]*>)?$"
    ),
    re.compile(
        r"^(sub sp, sp, #0x[0-9a-f]+;)?mov w0, #0x1;str w0, (?P<slot>\[sp(, #0x[0-9a-f]+)?\]);"
        r"ldr w0, (?P=slot);bl \S+( <[^>]*>)?$"
    ),
)


def private(name: str) -> bool:
    """Whether `name` is in this file's anonymous namespace, which no other object can name."""
    return ANONYMOUS.search(name) is not None


def registered(obj: ObjectFile) -> set[str]:
    """The defined global symbols nvcc's registration passes to the CUDA runtime: the kernels' host entries."""
    defined = obj.defined_globals()
    return {
        ref.symbol
        for name in REGISTRATION
        if (f := obj.function(name))
        for ref in f.references
        if ref.symbol in defined
    }


def kernel_stub(name: str, kernels: set[str]) -> bool:
    """Whether `name` is the __device_stub__ nvcc writes for one of `kernels` (it embeds the kernel's name)."""
    match = DEVICE_STUB.match(name)
    return match is not None and any(match["kernel"].startswith(kernel[1:]) for kernel in kernels)


def exit_stub(function: Function) -> bool:
    """Whether `function` is nvcc's host copy of a __device__ function, which only calls exit(1)."""
    body = ";".join(i for i in function.instructions if not PADDING.match(i))
    targets = [ref.symbol for ref in function.references]
    return targets == ["exit"] and any(pattern.match(body) for pattern in EXIT_STUB)


def generated(obj: ObjectFile) -> set[str]:
    """The defined global symbols nvcc wrote for kernels and __device__ functions (named by the student)."""
    kernels = registered(obj)
    stubs = {name for name in obj.defined_globals() if kernel_stub(name, kernels)}
    copies = {f.name for f in obj.functions if exit_stub(f)}
    return kernels | stubs | copies
