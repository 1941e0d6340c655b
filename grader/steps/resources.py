"""The compiler's resource report of a kernel.cu's object (cuobjdump --dump-resource-usage): per kernel, its
registers, stack frame, shared, local and constant memory. Where a thread's variables live and how many blocks fit
on an SM follow from these, and nvcc writes them into the object, so they are read on every machine, the CPU
emulator's too (nvcc compiles the kernel.cu there as well).

The report has no spill counts (ptxas -v prints those, and only while it compiles): a spill goes to the thread's
stack frame, so a frame of 0 bytes means no spill and no local array, unless the PTX asks ptxas to spill to shared
memory instead (CUDA 13's `.pragma "enable_smem_spilling"`, which inline assembly can write). The frame is then
0 bytes with the spill still there, so the object's PTX is read for that pragma too. The object is the student's
bytes: cuobjdump reads it in the sandbox with limits, its output is bounded, and a line it cannot read makes the
whole report unreadable, never a crash."""

from __future__ import annotations

import re
import shutil
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.model import KernelResources
from grader.execution import proc, sandbox
from grader.steps.integrity.elf import demangle

TOOL = "cuobjdump"
OUTPUT_LIMIT = 1 << 20  # bytes: an honest report is a few hundred per kernel
TIMEOUT_S = 60
MAX_KERNELS = 256  # a kernel.cu of a lab has a handful; more is not a report worth keeping
SHOWN = 8  # kernels a terminal report lists, one line each
NAME_LIMIT = 200  # characters of a kernel's name kept: a template's can run to thousands
UNREADABLE = "could not read the resource report"

ARCH = re.compile(r"^arch = (?P<arch>sm_\w+)$")
FUNCTION = re.compile(r"^ Function (?P<name>[^\s:]+):$")
# A usage line: fields of at most 12 digits (Python refuses to convert a number of more than 4,300), every
# repetition possessive, so that a line of the report's size is read once.
USAGE = re.compile(r"^  (?:[A-Z]++(?:\[\d{1,4}+\])?:\d{1,12}+ ?)++$")
FIELD = re.compile(r"(?P<key>[A-Z]+)(?:\[(?P<bank>\d{1,4})\])?:(?P<value>\d{1,12})")
NEEDED = ("REG", "STACK", "SHARED", "LOCAL")  # a usage line without one of these is not understood
SHARED_SPILLS = re.compile(r'\.pragma\s+"enable_smem_spilling"')


@dataclass
class ResourceReport:
    kernels: list[KernelResources] = field(default_factory=list)
    problem: str = ""  # why there is no report; "" when it was read
    no_tool: bool = False  # the machine lacks cuobjdump: not the submission's doing
    spills_to_shared: bool = False  # its PTX asks ptxas to spill registers to shared memory, not to the stack

    @property
    def read(self) -> bool:
        return not self.problem


def find_tool(folders: list[Path]) -> Path | None:
    """cuobjdump: beside a compiler Meson configured or the nvcc on PATH (a CUDA toolkit ships it there), on PATH, or
    the nvidia-cuda-cuobjdump wheel in the grader's environment (where a toolkit lacks it)."""
    nvcc = shutil.which("nvcc")
    candidates = [folder / TOOL for folder in [*folders, *([Path(nvcc).resolve().parent] if nvcc else [])]]
    on_path = shutil.which(TOOL)
    candidates += [Path(on_path)] if on_path else []
    candidates += sorted(Path(sysconfig.get_paths()["purelib"]).glob(f"nvidia/cu*/bin/{TOOL}"))
    return next((path for path in candidates if path.is_file()), None)


def read_report(obj: Path, tool: Path | None) -> ResourceReport:
    """The resource report of `obj` (an object or a static library), or the reason there is none."""
    if tool is None:
        return ResourceReport(problem=f"{UNREADABLE}: {TOOL} not found (it comes with the CUDA toolkit)", no_tool=True)
    if not obj.is_file():
        return ResourceReport(problem=f"{UNREADABLE}: no compiled object")
    obj = obj.resolve()
    ran = dump(obj, tool, "--dump-resource-usage")
    if not ran.ok:
        return ResourceReport(problem=f"{UNREADABLE}: {TOOL} {ran.how_it_ended()}: {said(ran, obj)}")
    report = parse(ran.stdout)
    if report.read:
        ptx = dump(obj, tool, "-ptx")
        if not ptx.ok:
            return ResourceReport(problem=f"{UNREADABLE}: {TOOL} -ptx {ptx.how_it_ended()}: {said(ptx, obj)}")
        report.spills_to_shared = SHARED_SPILLS.search(ptx.stdout) is not None
    return report


def dump(obj: Path, tool: Path, what: str, env: tuple[str, ...] = (), output_limit: int = OUTPUT_LIMIT) -> proc.Outcome:
    """cuobjdump `what` of the object, in the sandbox, its output bounded and kept whole (a run past the bound is
    stopped, and read as unreadable); `env`: NAME=VALUE settings for it."""
    command = [*(["env", *env] if env else []), str(tool), what, str(obj)]
    wrapped = sandbox.step_command(command, [obj, tool.resolve().parent], None, Path("/"), limits=sandbox.TOOL_LIMITS)
    return proc.run(wrapped, TIMEOUT_S, output_limit=output_limit, kept=output_limit)


def said(ran: proc.Outcome, obj: Path) -> str:
    return proc.bounded(ran.tail(3), 300).replace(str(obj), obj.name)  # no report shows the grader's folders


def parse(text: str) -> ResourceReport:
    """cuobjdump's report: an `arch = sm_NN` line per ELF, then ` Function NAME:` and its usage line per kernel.
    Anything not understood there makes the report unreadable, with the line that was not."""
    kernels: list[tuple[str, str, dict[str, int]]] = []
    arch, name, reading = "", "", False
    for number, line in enumerate(text.splitlines(), 1):
        if name and not line.startswith("  "):  # a kernel's name is followed by its usage, and nothing else
            return ResourceReport(problem=f"{UNREADABLE}: no usage line for {name[:NAME_LIMIT]}")
        if match := ARCH.match(line):
            arch, reading = match["arch"], False
        elif line == "Resource usage:":
            reading = True
        elif not reading or line == " Common:" or line.startswith("  GLOBAL:"):
            continue  # the headers of each ELF, and the usage common to its kernels
        elif line == "":
            reading = False
        elif match := FUNCTION.match(line):
            name = match["name"]
        elif name and USAGE.match(line) and (usage := usage_fields(line)) is not None:
            kernels.append((name, arch, usage))
            name = ""
        else:
            return odd_line(number, line)
        if len(kernels) > MAX_KERNELS:
            return ResourceReport(problem=f"{UNREADABLE}: more than {MAX_KERNELS} kernels")
    if name:
        return ResourceReport(problem=f"{UNREADABLE}: no usage line for {name[:NAME_LIMIT]}")
    readable = demangle(sorted({mangled for mangled, _, _ in kernels}))
    return ResourceReport([resources(readable.get(n, n)[:NAME_LIMIT], a, usage) for n, a, usage in kernels])


def usage_fields(line: str) -> dict[str, int] | None:
    """REG:22 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:556 ... as numbers, constant banks summed; None where one of
    NEEDED is missing or a name repeats."""
    usage: dict[str, int] = {}
    for match in FIELD.finditer(line):
        key = f"{match['key']}[{match['bank']}]" if match["bank"] is not None else match["key"]
        if key in usage:
            return None
        usage[key] = int(match["value"])
    if any(key not in usage for key in NEEDED):
        return None
    usage["CONSTANT"] = sum(value for key, value in usage.items() if key.startswith("CONSTANT["))
    return usage


def resources(name: str, arch: str, usage: dict[str, int]) -> KernelResources:
    return KernelResources(
        name=name,
        arch=arch,
        registers=usage["REG"],
        stack_bytes=usage["STACK"],
        shared_bytes=usage["SHARED"],
        local_bytes=usage["LOCAL"],
        constant_bytes=usage["CONSTANT"],
    )


def odd_line(number: int, line: str) -> ResourceReport:
    return ResourceReport(problem=f"{UNREADABLE}: line {number} is not understood: {line[:120]!r}")


def summary(report: ResourceReport, limit: int = SHOWN) -> list[str]:
    """One line per kernel, at most `limit` of them and a line saying how many more; or the problem."""
    if not report.read:
        return [report.problem]
    lines = [kernel.line() for kernel in report.kernels[:limit]]
    if len(report.kernels) > limit:
        lines.append(f"... and {len(report.kernels) - limit} more kernels (grade.json lists them all)")
    return lines
