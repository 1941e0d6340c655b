"""What draws a memory counter check's picture (grader/core/access.py): which counters are about memory and what
they count in a line's requests, and the CPU emulator's runs that record the requests where the counters' own run
did not (a GPU grade), and the reference's.

The reference solution's run is the grader's own program at the emulator's size for the group, the same for every
grade of a build folder: it is made once and kept there (REFERENCE_FOLDER), named by the program's digest, so a
changed solution or emulator is run again."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from grader.core import atomic
from grader.core.access import LineAccess
from grader.core.config import MechanismCheck
from grader.execution import proc
from grader.steps.profile import CounterRun, emulated_lines, read_profile, run_emulator_profile

REFERENCE_FOLDER = "access-references"  # in the build folder: the reference's counters per lab and size
SOLUTION, BASELINE = "the reference solution", "the lab's baseline"


@dataclass(frozen=True)
class Counted:
    """What a metric counts of a line's requests: its memory space and direction, and the quantity ("sectors",
    "bank conflicts", "requests", "wavefronts", "addresses") that makes a line worse than another."""

    space: str
    op: str
    quantity: str


def metric_counts(metric: str) -> Counted | None:
    """What a counter check's metric counts, where it is about memory accesses the emulator records (Nsight
    Compute's names for global and shared memory, the emulator's own for __constant__); local memory is the
    thread's stack on the emulator, where it records none. None for any other metric."""
    direction = {"ld": "load", "st": "store"}
    for prefix, space, quantity in (
        ("l1tex__t_sectors_pipe_lsu_mem_global_op_", "global", "sectors"),
        ("l1tex__t_requests_pipe_lsu_mem_global_op_", "global", "requests"),
        ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_", "shared", "bank conflicts"),
        ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_", "shared", "wavefronts"),
        ("smsp__inst_executed_op_shared_", "shared", "requests"),
        ("l1tex__t_sectors_pipe_lsu_mem_local_op_", "local", "sectors"),
        ("l1tex__t_requests_pipe_lsu_mem_local_op_", "local", "requests"),
    ):
        op = metric.removeprefix(prefix).removesuffix(".sum")
        if metric.startswith(prefix) and op in direction:
            return Counted(space, direction[op], quantity)
    if metric.startswith("cml_emu__constant_"):
        return Counted("constant", "load", "addresses")
    return None


def counted_by(mechanism: MechanismCheck) -> Counted | None:
    """What a counter check (tool "ncu") counts of memory, by its numerator; None for a check not about memory."""
    return metric_counts(mechanism.numerator) if mechanism.tool == "ncu" else None


def drawn_roles(roles: list[str]) -> list[str]:
    """The roles an emulator's counters run reads: the checks' own, and the baseline's, which stands in for the
    reference where the kit has no solutions."""
    return roles if "baseline" in roles else [*roles, "baseline"]


@dataclass
class AccessRuns:
    """What draws a counted group's accesses, beside its counters: on a GPU grade, the emulator's run of the
    student's kernel at `size` (on the emulator its counters' own run has the lines); and the reference's lines at
    the same size, the solution's, or the baseline's where the kit has no solutions."""

    size: int = 0  # the emulator's --size, the group's profile_size
    emulated: dict[str, CounterRun] = field(default_factory=dict)  # role -> the emulator's run, on a GPU grade
    reference: list[LineAccess] = field(default_factory=list)
    reference_name: str = ""  # SOLUTION or BASELINE; "" where there is none (the solution graded itself)
    problem: str = ""  # why something is missing: a build or run that failed


def reference_profile(bench: Path, size: int, timeout_s: proc.Limit, folder: Path) -> tuple[dict, str]:
    """The counters file of the reference's emulator build at `size`, made once per program and kept in `folder`;
    and why there is none ('' where there is)."""
    try:
        digest = hashlib.sha256(bench.read_bytes()).hexdigest()[:16]
    except OSError as error:
        return {}, f"the reference's emulator build is missing: {error.strerror}"
    kept = folder / f"{bench.name}.{size}.{digest}.json"
    if kept.is_file():
        try:
            return read_profile(kept), ""
        except (OSError, ValueError, RecursionError):
            kept.unlink(missing_ok=True)
    outcome, data = run_emulator_profile(bench, ("--profile", "--size", str(size)), timeout_s)
    if not data:
        return {}, f"the reference's run on the CPU emulator {outcome.how_it_ended()}"
    folder.mkdir(parents=True, exist_ok=True)
    atomic.write_text(kept, json.dumps(data))
    return data, ""


def reference_lines(data: dict, group: str, role: str = "student") -> list[LineAccess]:
    """The lines of the reference's checked launch in `group`: its own "student" launch in the solution's program,
    or the "baseline" launch of the student's own run."""
    return emulated_lines(data, role, group)
