"""What each check of a lab needs from the steps, decided from the lab's configuration and what the machine has
(evidence.Facts): a run of the test program under a tool, a group's counters, or nvcc's object alone; or why it
cannot run here. The steps make exactly what this asks for (grader/grading/gather.py), and the checks find it
there or give the same reason (grader/grading/judge.py): one place decides both."""

from __future__ import annotations

from dataclasses import dataclass

from grader.core.config import Lab, MechanismCheck
from grader.grading.evidence import Facts
from grader.steps import profile, sanitize

COUNTED = ("ncu", "occupancy")  # checks that read a profile of the benchmark's checked launches
FROM_NVCC = ("resources", "sass")  # checks judged from nvcc's object, on every machine
OBJECT = "object"


@dataclass(frozen=True)
class Need:
    """What a check reads: OBJECT, a run of the test program ("run", its tool) or counters ("counters", a group);
    or, with `not_run`, why it cannot run here."""

    kind: str = ""
    name: str = ""
    not_run: str = ""


def reads_launches(check: MechanismCheck) -> bool:
    """A machine-code check of the kernels its group's checked launch made, which the counted run of that launch
    names (config.MechanismCheck: group)."""
    return check.tool == "sass" and bool(check.group) and not check.stretch


def counted(check: MechanismCheck) -> bool:
    """A check that reads what a counted run of the benchmark's checked launches gives: counters, or names."""
    return check.tool in COUNTED or reads_launches(check)


def counted_groups(lab: Lab) -> dict[str, tuple[list[str], list[str]]]:
    """Each group of the lab's counted checks (counted()): the roles and the metrics its checks name."""
    groups: dict[str, tuple[list[str], list[str]]] = {}
    for check in (m for m in lab.mechanisms if counted(m)):
        roles, metrics = groups.setdefault(check.group, ([], []))
        roles += [role for role in check.roles if role not in roles]
        metrics += [name for name in check.metrics if name not in metrics]
    return groups


def counted_by_recorder(lab: Lab, facts: Facts) -> dict[str, tuple[list[str], list[str]]]:
    """The groups the counters recorder counts in the benchmark's timed run: every group whose metrics it can
    count, where there is a GPU, a counter check to run, and the recorder in the build."""
    if facts.emulator or not facts.run_mechanisms or not facts.counters_recorder:
        return {}
    return {group: found for group, found in counted_groups(lab).items() if profile.counted_in_bench(found[1])}


def need(lab: Lab, mechanism: MechanismCheck, facts: Facts) -> Need:
    """What `mechanism` (not a stretch's) reads here, or why it is not run."""
    tool = mechanism.tool
    if not facts.run_mechanisms:
        return Need(not_run="turned off (--no-mechanisms)")
    if reads_launches(mechanism) and (facts.gpu_present or facts.emulator):
        # nvcc's object, judged at the kernels the checked launch made: a counted run names them.
        if facts.emulator or mechanism.group in counted_by_recorder(lab, facts) or facts.ncu:
            return Need("counters", mechanism.group)
        return Need(not_run="ncu (Nsight Compute) not found, and the build has no counters recorder: which kernels "
                            "the checked launch made is not known")  # fmt: skip
    if tool in FROM_NVCC:  # read from nvcc's object, the same with a GPU or without one
        return Need(OBJECT)
    if not facts.gpu_present and not facts.emulator:
        return Need(not_run=facts.gpu_reason)
    if mechanism.gpu_reason and not facts.emulator:
        return Need(not_run=mechanism.gpu_reason)
    if tool == "schedule":  # one run of the lab's test program serves every schedule check
        if not facts.emulator and not facts.schedule_recorder:
            return Need(not_run=sanitize.NO_RECORDER)
        return Need("run", tool)
    if tool in sanitize.SANITIZERS:
        if not facts.emulator and not facts.sanitizer:
            return Need(not_run="compute-sanitizer not found (it comes with the CUDA toolkit)")
        if facts.emulator and tool not in sanitize.EMULATED_TOOLS:
            return Need(not_run=f"no GPU, and the CPU emulator has no {tool}")
        return Need("run", tool)
    counted = facts.emulator or mechanism.group in counted_by_recorder(lab, facts) or facts.ncu
    if tool == "occupancy":
        if not counted:
            return Need(not_run="ncu (Nsight Compute) not found, and it tells the launch's shape")
        return Need("counters", mechanism.group)
    if tool == "ncu":
        if not counted:
            return Need(not_run="ncu (Nsight Compute) not found, and the build has no counters recorder")
        if facts.emulator and mechanism.gpu_only:
            return Need(not_run=f"counted on a GPU only: {mechanism.gpu_only}")
        return Need("counters", mechanism.group)
    raise ValueError(f"unknown mechanism tool {tool!r} in labs.toml")


def needed_runs(lab: Lab, facts: Facts) -> list[str]:
    """The tools whose runs of the test program the lab's checks read here, in the checks' order."""
    found = (need(lab, m, facts) for m in lab.mechanisms if not m.stretch)
    return list(dict.fromkeys(n.name for n in found if n.kind == "run"))


def schedule_aspects(lab: Lab, facts: Facts) -> str:
    """The aspects of the lab's schedule checks that run here (one with a gpu_reason runs on the emulator)."""
    graded = [m for m in lab.mechanisms if m.tool == "schedule" and (facts.emulator or not m.gpu_reason)]
    return ",".join(dict.fromkeys(m.schedule for m in graded))
