"""A memory counter check's picture, chosen from a lab's evidence alone: the student's worst line for what the check
counts (its sectors, bank conflicts, requests or addresses, in the check's memory space and direction), that line's
worst request, and the reference's matching line, the reference's worst in the same space and direction; beside
them, the kernel's resources, the occupancy they allow, and the line's machine code. Also a picture at any line a
student asks for (./cml grade --show-access kernel.cu:27).

The requests are the CPU emulator's: on a GPU grade, from its run at the group's small size, and the picture says
so, with the emulator's figure for the check beside the GPU's."""

from __future__ import annotations

import dataclasses

from rich.text import Text

from grader.core.access import AccessPicture, KernelFacts, LineAccess, kernel_name
from grader.core.config import LAUNCH_SHAPE, Lab, MechanismCheck
from grader.grading import checks
from grader.grading.evidence import LabEvidence
from grader.reporting import access_text
from grader.steps import access, occupancy, sass_lines
from grader.steps.profile import UNITS, CounterRun

DEFAULT_GPU = "h100"  # whose limits the occupancy is told against where no GPU graded the lab
NO_LOCAL = (
    "the CPU emulator keeps a thread's local memory on the host's stack, where it records no request: the machine "
    "code below shows where nvcc reads and writes local memory (LDL, STL)"
)


def quantity(line: LineAccess, counted: access.Counted) -> int:
    """How much of what a check counts a line holds: its sectors, conflicts, requests or addresses."""
    if counted.quantity == "requests":
        return line.requests
    if counted.quantity == "bank conflicts":
        return line.conflicts
    return line.units


def worst_line(lines: list[LineAccess], counted: access.Counted) -> LineAccess | None:
    """The line with the most of what is counted, in the counted space and direction: then the most requests, then
    the first in the file."""
    candidates = [line for line in lines if line.space == counted.space and line.op == counted.op]
    return min(candidates, key=lambda line: (-quantity(line, counted), -line.requests, line.line), default=None)


def emulated_runs(evidence: LabEvidence, group: str) -> dict[str, CounterRun]:
    """The emulator's runs of the student's kernel in `group`: its counters' own on the emulator, its own on a GPU."""
    runs = evidence.access.get(group)
    if evidence.facts.emulator:
        return evidence.counters.get(group, {})
    return runs.emulated if runs else {}


def picture(lab: Lab, mechanism: MechanismCheck, evidence: LabEvidence, shown: str = "") -> AccessPicture | None:
    """The picture of a counter check about memory (access.counted_by), or None for any other check, or where the
    build folder has no emulator to draw with. `shown`: how the student knows the graded kernel.cu's path."""
    counted = access.counted_by(mechanism)
    if counted is None:
        return None
    if counted.space == "local":
        return local_picture(counted, evidence)
    runs = evidence.access.get(mechanism.group)
    if runs is None:
        return None
    emulated = emulated_runs(evidence, mechanism.group)
    student = emulated.get("student")
    yours = worst_line(student.lines, counted) if student else None
    found = AccessPicture(
        counted=counted.quantity,
        space=counted.space,
        op=counted.op,
        yours=_shown(yours, shown),
        reference=worst_line(runs.reference, counted),
        reference_name=runs.reference_name,
        source=source_words(runs.size, evidence.facts.emulator),
        problem=runs.problem if yours is None else "",
    )
    if yours is None and not found.problem:
        found.problem = f"your kernel made no {counted.space} {counted.op} in its checked launch"
    if not evidence.facts.emulator and student is not None:
        found.beside = beside_words(mechanism, emulated, runs.size)
    found.facts = kernel_facts(yours, evidence, student)
    return found


def picture_at(evidence: LabEvidence, file: str, line: int, shown: str = "") -> list[AccessPicture]:
    """A picture of every space and direction the student's kernel accesses at `file`:`line` (any group's checked
    launch), beside the reference's worst line of the same space and direction; none where it accesses nothing."""
    found: list[AccessPicture] = []
    seen: set[tuple[str, str]] = set()
    name = file.rsplit("/", 1)[-1]
    for group, runs in evidence.access.items():
        student = emulated_runs(evidence, group).get("student")
        for here in student.lines if student else []:
            if here.line != line or here.file.rsplit("/", 1)[-1] != name or (here.space, here.op) in seen:
                continue
            seen.add((here.space, here.op))
            counted = access.Counted(here.space, here.op, "bank conflicts" if here.space == "shared" else "units")
            found.append(
                AccessPicture(
                    counted="bank conflicts" if here.space == "shared" else UNITS[here.space],
                    space=here.space,
                    op=here.op,
                    yours=_shown(here, shown),
                    reference=worst_line(runs.reference, counted),
                    reference_name=runs.reference_name,
                    source=source_words(runs.size, evidence.facts.emulator) + (f", group {group}" if group else ""),
                    facts=kernel_facts(here, evidence, student),
                )
            )
    return found


def local_picture(counted: access.Counted, evidence: LabEvidence) -> AccessPicture:
    """Local memory, which the emulator cannot see: the source line whose machine code reads or writes it most."""
    lines = evidence.machine_lines.lines if evidence.machine_lines else []

    def local(code) -> int:
        return len(sass_lines.of_kind(code.memory, "local", "load") + sass_lines.of_kind(code.memory, "local", "store"))

    busiest = max(lines, key=local, default=None)
    facts = KernelFacts()
    if busiest is not None and local(busiest):
        shown = [
            *sass_lines.of_kind(busiest.memory, "local", "load"),
            *sass_lines.of_kind(busiest.memory, "local", "store"),
        ]
        facts = KernelFacts(
            kernel=kernel_name(busiest.kernel),
            machine_code=[f"{busiest.file.rsplit('/', 1)[-1]}:{busiest.line}: {i}" for i in shown],
            other_instructions=busiest.others + len(busiest.memory) - len(shown),
        )
        _add_resources(facts, evidence)
    return AccessPicture(
        counted=counted.quantity,
        space="local",
        op=counted.op,
        yours=None,
        reference=None,
        reference_name="",
        source="nvcc's machine code of your kernel.cu",
        problem=NO_LOCAL if facts.machine_code else f"{NO_LOCAL}; nvcc's code of your kernel.cu has none",
        facts=facts,
    )


def source_words(size: int, emulator: bool) -> str:
    run = f"the CPU emulator's run of the benchmark at --size {size}"
    return run if emulator else f"{run} (no GPU draws one warp's request: the emulator sees every lane's address)"


def beside_words(mechanism: MechanismCheck, emulated: dict[str, CounterRun], size: int) -> str:
    """The emulator's figure for the check at its size, to read beside the GPU's (the check's own detail)."""
    compared = emulated.get(mechanism.roles[1]) if len(mechanism.roles) > 1 else None
    figure = checks.counter_check(mechanism, emulated["student"], compared).measured
    if figure is None:
        return f"the CPU emulator's run at --size {size} gave no figure for this check"
    return f"the CPU emulator counts {figure:.3g} at --size {size}, beside the GPU's figure in the detail above"


def kernel_facts(line: LineAccess | None, evidence: LabEvidence, run: CounterRun | None) -> KernelFacts:
    """The kernel's resources (nvcc's report), the occupancy of the checked launch, the line's machine code."""
    if line is None:
        return KernelFacts()
    facts = KernelFacts(kernel=line.kernel)
    code = evidence.machine_lines.at(line.file, line.line) if evidence.machine_lines else None
    if code is not None:
        facts.machine_code = sass_lines.of_kind(code.memory, line.space, line.op)
        facts.other_instructions = code.others + len(code.memory) - len(facts.machine_code)
    kernel = _add_resources(facts, evidence)
    if kernel is not None and run is not None and run.kernels and all(m in run.totals for m in LAUNCH_SHAPE):
        threads = int(run.totals["launch__block_size"] / run.kernels)
        dynamic = int(run.totals["launch__shared_mem_per_block_dynamic"] / run.kernels)
        gpu = occupancy.limits_for(evidence.facts.gpu_name) if evidence.facts.gpu_name else None
        limits = gpu or occupancy.load_limits()[DEFAULT_GPU]
        use = occupancy.BlockUse(threads, kernel.registers, kernel.shared_bytes, dynamic)
        facts.occupancy = occupancy_words(occupancy.resident_blocks(use, limits), threads, limits.name)
    return facts


def occupancy_words(found: occupancy.Occupancy, threads: int, gpu: str) -> str:
    """'8 blocks of 256 threads per SM of an NVIDIA H100 SXM (100% of its warps), limited by warps'."""
    if found.why_none:
        return f"no block of {threads} threads fits on an SM of an {gpu}: {found.why_none}"
    return (
        f"{found.blocks} block(s) of {threads} threads per SM of an {gpu} ({found.fraction:.0%} of its warps), "
        f"limited by {' and '.join(name.replace('_mem', ' memory') for name in found.limiters)}"
    )


def _add_resources(facts: KernelFacts, evidence: LabEvidence):
    """The compiler's report of the facts' kernel, copied in; the kernel's entry, or None where it has none."""
    report = evidence.report.kernels if evidence.report else []
    kernel = next((k for k in report if kernel_name(k.name) == kernel_name(facts.kernel)), None)
    if kernel is not None:
        facts.registers, facts.shared_bytes = kernel.registers, kernel.shared_bytes
        facts.stack_bytes, facts.local_bytes = kernel.stack_bytes, kernel.local_bytes
    return kernel


def _shown(line: LineAccess | None, shown: str) -> LineAccess | None:
    """The student's line, its file as the student knows it."""
    if line is None or not shown or line.file.rsplit("/", 1)[-1] != "kernel.cu":
        return line
    return dataclasses.replace(line, file=shown)


def accessed_lines(evidence: LabEvidence, file: str) -> list[int]:
    """The lines of `file` where the student's checked launches access memory, as the emulator recorded them."""
    name, found = file.rsplit("/", 1)[-1], set()
    for group in evidence.access:
        student = emulated_runs(evidence, group).get("student")
        found |= {line.line for line in (student.lines if student else []) if line.file.rsplit("/", 1)[-1] == name}
    return sorted(found)


def shown(evidence: list[LabEvidence], file: str, line: int) -> list[Text]:
    """./cml grade --show-access FILE:LINE: the picture at that line of each student's lab graded, as text."""
    found: list[Text] = []
    for lab in (e for e in evidence if e.variant == "student"):
        place = f"{file.rsplit('/', 1)[-1]}:{line}"
        pictures = picture_at(lab, file, line, lab.shown_path)
        found += access_text.shown_at(lab.lab, place, pictures, accessed_lines(lab, file))
    return found
