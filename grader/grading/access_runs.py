"""The steps that let a memory counter check draw the student's own accesses (grader/steps/access.py): the CPU
emulator's run of the student's kernel where the counters came from a GPU, and the reference's run, each at the
emulator's size of the group. On the emulator the counters' own run recorded the student's requests already.

On a GPU the emulator's build of the kernel.cu is made for this alone, where the build folder has the emulator
(meson.build's option `emulator`); it is the same file, checked for integrity as the emulator's build of a grade
without a GPU is. Nothing here decides a check: a build or run that fails leaves the picture out, and says why."""

from __future__ import annotations

from collections.abc import Callable

from grader.core.config import Lab
from grader.execution import proc
from grader.grading.context import Context
from grader.grading.evidence import BuildEvidence, LabEvidence
from grader.grading.lab_runs import Steps
from grader.grading.plan import counted_groups
from grader.steps import access, build, profile

Built = Callable[[Context, Lab, str, bool], BuildEvidence]  # gather.built


def memory_groups(lab: Lab, evidence: LabEvidence) -> dict[str, int]:
    """Each counted group whose counters were recorded and that a check about memory reads: the emulator's size."""
    groups: dict[str, int] = {}
    for mechanism in lab.mechanisms:
        counted = access.counted_by(mechanism)
        local = counted is not None and counted.space == "local"  # the emulator records none: its machine code tells
        if counted and not local and not mechanism.stretch and mechanism.group in evidence.counters:
            groups[mechanism.group] = max(groups.get(mechanism.group, 0), mechanism.profile_size)
    return groups


def drawn(ctx: Context, lab: Lab, variant: str, evidence: LabEvidence, steps: Steps, built: Built) -> dict:
    """group -> its AccessRuns, for each group memory_groups names; none where the build has no emulator."""
    groups = memory_groups(lab, evidence)
    if not groups or not ctx.tree.has_emulator() or (variant != "student" and not ctx.emulator):
        return {}  # on a GPU the solution's own picture is the student's reference, drawn on the emulator
    steps.next("drawing your accesses on the CPU emulator")
    problem = "" if ctx.emulator else _student_build(ctx, lab, variant, steps, built)
    with_solution = variant == "student" and ctx.tree.has_target(f"{lab.name}_solution_emu_bench")
    solution_built = with_solution and _reference_build(ctx, lab, steps)
    found = {}
    for group, size in groups.items():
        runs = access.AccessRuns(size=size, problem=problem)
        roles, metrics = counted_groups(lab)[group]
        limit = proc.TimeLimit(float(ctx.config.timeouts["profile"]), "the fixed limit of the counters' step")
        if not ctx.emulator and not problem:
            bench = ctx.program(lab.name, variant, "bench", emulated=True)
            # Not a step with a time limit of its own: its time is kept out of the counters' (calibrate reads them).
            runs.emulated = profile.read_emulated_counters(
                bench, metrics, access.drawn_roles(roles), group, size, limit, {"CML_SEED": str(evidence.seed)}
            )
        if solution_built:
            bench = ctx.tree.binary(lab.name, "solution", "bench", emulated=True)
            data, said = access.reference_profile(bench, size, limit, ctx.tree.directory / access.REFERENCE_FOLDER)
            runs.reference, runs.reference_name = access.reference_lines(data, group), access.SOLUTION
            runs.problem = runs.problem or said
        elif with_solution:
            runs.problem = runs.problem or "the reference solution's build on the CPU emulator failed"
        elif variant == "student":  # no solutions in this edition: the baseline of the student's own run
            emulated = runs.emulated or evidence.counters.get(group, {})
            baseline = emulated.get("baseline")
            runs.reference = baseline.lines if baseline else []
            runs.reference_name = access.BASELINE
        found[group] = runs
    return found


def _student_build(ctx: Context, lab: Lab, variant: str, steps: Steps, built: Built) -> str:
    """The emulator's build of the graded kernel.cu on a GPU grade; why there is none ('' where it built)."""
    with steps.building():
        made = built(ctx, lab, variant, True)
    if made.integrity or not made.ok:
        return "the CPU emulator could not build this kernel.cu, so no picture of its accesses is drawn"
    return ""


def _reference_build(ctx: Context, lab: Lab, steps: Steps) -> bool:
    """The emulator's build of the reference solution; whether it built."""
    with steps.building():
        made = build.build_variant(ctx.tree, lab.name, "solution", ctx.config.timeouts["build"], emulated=True)
    return made.ok
