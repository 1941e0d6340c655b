"""Turning what each step saw into checks: one Check per test case, sanitizer, counter and threshold."""

from __future__ import annotations

import math
import re

from grader.core.config import LAUNCH_SHAPE, Lab, MechanismCheck, Thresholds, metric_parts
from grader.core.model import BenchResult, Category, Check, KernelResources, Status, ratio
from grader.steps import occupancy, sass
from grader.steps.bench import BenchRun
from grader.steps.profile import CounterRun
from grader.steps.resources import ResourceReport
from grader.steps.sanitize import SanitizerRun
from grader.steps.sass import SassReport
from grader.steps.suite import SuiteRun

STRETCH_PREFIX = "stretch"
# CUDA errors after which the process's context is gone, so every later call fails with the same error.
CONTEXT_LOST = re.compile(
    r"cudaError(IllegalAddress|LaunchFailure|IllegalInstruction|MisalignedAddress|"
    r"HardwareStackError|Assert|LaunchTimeout|InvalidPc)"
)


def correctness_checks(suite: SuiteRun, handout: str, replay=lambda case: "") -> list[Check]:
    """A check per test case; a failed one says its cause first, and how to run it again on the same inputs.
    After an error that ends the GPU context (an illegal address, say), every later case fails with it: the
    first such case is the cause, and the others say they could not run after it."""
    outcome = suite.outcome
    died = outcome.timed_out or outcome.crashed
    hint = "; ".join(suite.todos) if suite.todos else f"see {handout}"
    checks = []
    cause = ""  # the first case that lost the GPU context
    for case in suite.cases:
        stretch = case.suite.startswith(STRETCH_PREFIX)
        category = Category.STRETCH if stretch else Category.CORRECTNESS
        lost = CONTEXT_LOST.search(case.message) if not case.passed else None
        if stretch and case.skipped_by_program:
            checks.append(Check(case.name, category, Status.SKIPPED, "stretch not attempted"))
        elif case.ran and lost and cause:
            detail = f'could not run after the {lost.group(0)} in "{cause}", whose check shows the cause'
            checks.append(Check(case.name, category, Status.FAILED, detail))
        elif case.ran:
            cause = cause or (case.name if lost else "")
            status = Status.PASSED if case.passed else Status.FAILED
            again = f"\nreplay: {replay(case.name)}" if not case.passed and replay(case.name) else ""
            checks.append(Check(case.name, category, status, case.message, "" if case.passed else hint + again))
        elif died:
            detail = f"the test program {outcome.how_it_ended()} before this case finished"
            checks.append(Check(case.name, category, Status.FAILED, detail, hint))
        else:
            checks.append(Check(case.name, category, Status.NOT_RUN, "skipped by the test program"))
    if not suite.cases:
        detail = f"the test program {outcome.how_it_ended()} without a report:\n{outcome.tail(10)}"
        checks.append(Check("tests", Category.CORRECTNESS, Status.FAILED, detail, hint))
    return checks


def _with_measured(detail: str, run: SanitizerRun) -> str:
    """`detail`, then what the run measured for the student to read (sanitize.MEASURED): the same whatever the
    verdict, which it never enters."""
    return f"{detail}\n{run.measured}".strip() if run.measured else detail


def sanitizer_check(mechanism: MechanismCheck, run: SanitizerRun) -> Check:
    if run.clean:
        return Check(mechanism.name, Category.MECHANISM, Status.PASSED, _with_measured(run.summary, run))
    if run.unmeasured and not run.outcome.timed_out:
        # This machine could not measure it (the schedule recorder says why): not run, never passed, and not
        # the student's failure either.
        detail = _with_measured(f"not measured here:\n{run.unmeasured}", run)
        return Check(mechanism.name, Category.MECHANISM, Status.NOT_RUN, detail)
    outcome = run.outcome
    if outcome.timed_out or outcome.crashed:
        detail = f"{run.tool} {outcome.how_it_ended()}\n{run.first_report}"
    else:
        detail = f"{run.summary}\n{run.first_report}".strip()
    return Check(mechanism.name, Category.MECHANISM, Status.FAILED, _with_measured(detail, run), mechanism.hint)


def order_dependent(mechanism: MechanismCheck, run: SanitizerRun) -> Check:
    """A sanitizer that found nothing, in a run whose results came out wrong where the tests alone got them right:
    the results depend on the threads' order, which the sanitizer changes. A race it has no report for shows this
    way: compute-sanitizer's racecheck names no hazard between a plain store and an atomic on the same shared
    word, so a histogram added to before its zeroing is complete passes it clean."""
    detail = (
        f"{run.tool} reported nothing ({run.summary}), but under it the results came out wrong where the tests "
        f"alone got them right, so they depend on the order the threads run in (a race, or memory read before "
        f"it is written): {run.first_wrong}"
    )
    return Check(mechanism.name, Category.MECHANISM, Status.FAILED, _with_measured(detail, run), mechanism.hint)


def _within(value: float, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def _bounds(low: float | None, high: float | None) -> str:
    return " and ".join(
        part for part in (low is not None and f">= {low:g}", high is not None and f"<= {high:g}") if part
    )


def _counted(run: CounterRun, expression: str) -> float:
    """A counter of labs.toml in `run`: its metric, or the sum of its metrics (config.metric_parts)."""
    return sum(run.totals[part] for part in metric_parts(expression))


def _unused(mechanism: MechanismCheck, student: CounterRun, baseline: CounterRun | None) -> str:
    """Why the student's counts show the check's mechanism unused (labs.toml: `used`), or "" where they do not.
    A ratio over no events passes any upper bound, and says nothing about the lesson."""
    for evidence in mechanism.used:
        value = _counted(student, evidence.metric)
        if evidence.per:
            yardstick = _counted(baseline, evidence.per) if baseline else 0.0
            needed = evidence.min * yardstick
            basis = f"{evidence.min:g} x the baseline's {evidence.per}, {yardstick:.0f}"
        else:
            needed, basis = evidence.min, "the least that shows it used"
        if value < needed:
            return (
                f"not used: {evidence.says}. {evidence.metric} counted {value:.0f}, under {needed:.4g} "
                f"({basis}), so its ratio would measure nothing"
            )
    return ""


def counter_check(mechanism: MechanismCheck, student: CounterRun, baseline: CounterRun | None = None) -> Check:
    """numerator / denominator over the student's launches, or the student's numerator over the baseline's; first,
    the student's counts must show the mechanism used at all (labs.toml: `used`). `baseline`: the baseline's
    counters, where the check compares with them or measures its evidence against them."""
    runs = [student] + ([baseline] if baseline else [])
    broken = next((run for run in runs if not run.outcome.ok or not run.kernels), None)
    if broken:
        ended = f"{broken.outcome.how_it_ended()} without the counters:\n{broken.outcome.tail(6)}"
        detail = f"{broken.tool}: {broken.problem}" if broken.problem else f"{broken.tool} {ended}"
        return Check(mechanism.name, Category.MECHANISM, Status.NOT_RUN, detail)
    compared = bool(mechanism.relative_to)
    # A metric with no value is unknown, not 0: it would pass any upper bound.
    alone = not compared and not mechanism.denominator  # a value of its own: launch__occupancy_limit_shared_mem
    needed: list[tuple[CounterRun | None, str]] = [(student, mechanism.numerator)]
    if not alone:
        needed.append((baseline, mechanism.numerator) if compared else (student, mechanism.denominator))
    needed += [(student, e.metric) for e in mechanism.used] + [(baseline, e.per) for e in mechanism.used if e.per]
    absent = sorted(
        {part for run, name in needed for part in metric_parts(name) if run is None or part not in run.totals}
    )
    if absent:
        detail = f"{student.tool} gave no value for {', '.join(absent)}"
        return Check(mechanism.name, Category.MECHANISM, Status.NOT_RUN, detail)
    unused = _unused(mechanism, student, baseline)
    if unused:
        return Check(mechanism.name, Category.MECHANISM, Status.FAILED, unused, mechanism.hint)
    numerator = _counted(student, mechanism.numerator)
    if alone:
        passed = _within(numerator, mechanism.min, mechanism.max)
        detail = (
            f"{mechanism.numerator} {numerator:.3g} (must be {_bounds(mechanism.min, mechanism.max)}), "
            f"{student.kernels} launch(es)"
        )
        status = Status.PASSED if passed else Status.FAILED
        return Check(
            mechanism.name, Category.MECHANISM, status, detail, "" if passed else mechanism.hint, measured=numerator
        )
    if compared:
        assert baseline is not None  # else its numerator would be absent, above
        denominator, of = _counted(baseline, mechanism.numerator), f"the baseline's {mechanism.numerator}"
    else:
        denominator, of = _counted(student, mechanism.denominator), mechanism.denominator
    if denominator == 0 and not compared:  # nothing to take a ratio over: the mechanism was not used
        detail = f"not used: {of} counted 0, so there is no ratio to measure"
        return Check(mechanism.name, Category.MECHANISM, Status.FAILED, detail, mechanism.hint)
    ratio = numerator / denominator if denominator else (0.0 if numerator == 0 else float("inf"))
    passed = _within(ratio, mechanism.min, mechanism.max)
    detail = (
        f"{ratio:.3g} (must be {_bounds(mechanism.min, mechanism.max)}): {mechanism.numerator} {numerator:.0f} "
        f"over {of} {denominator:.0f}, {student.kernels} launch(es)"
    )
    status = Status.PASSED if passed else Status.FAILED
    finite = ratio if math.isfinite(ratio) else None  # grade.json stays plain JSON (no Infinity)
    return Check(mechanism.name, Category.MECHANISM, status, detail, "" if passed else mechanism.hint, measured=finite)


# A resources check's bounds (labs.toml) and how a detail names what each bounds, per kernel.
RESOURCE_BOUNDS = (
    ("max_registers", "registers", "registers"),
    ("max_stack_bytes", "stack_bytes", "B of stack frame"),
    ("max_local_bytes", "local_bytes", "B of local memory"),
    ("max_shared_bytes", "shared_bytes", "B of shared memory"),
)


def unreadable(mechanism: MechanismCheck, problem: str, no_tool: bool) -> Check:
    """A check of the compiled object whose report could not be read: failed, since the object is the
    submission's, unless this machine lacks the tool to read it (not run)."""
    status = Status.NOT_RUN if no_tool else Status.FAILED
    return Check(mechanism.name, Category.MECHANISM, status, problem, "" if no_tool else mechanism.hint)


def resource_check(mechanism: MechanismCheck, report: ResourceReport, code: SassReport | None = None) -> Check:
    """Every kernel of the student's object within the check's bounds, by the compiler's resource report; and, where
    the check bounds the stack frame or local memory, no function of the machine code (`code`) reading or writing
    local memory that the report does not declare. An unreadable report or listing fails (the object is the
    submission's), unless the machine has no tool to read it."""
    if not report.read:
        return unreadable(mechanism, report.problem, report.no_tool)
    if not report.kernels:
        detail = "the compiled kernel.cu holds no kernel, so there is nothing to judge"
        return Check(mechanism.name, Category.MECHANISM, Status.FAILED, detail, mechanism.hint)
    if report.spills_to_shared and mechanism.max_stack_bytes is not None:
        detail = (
            'its PTX asks ptxas to spill registers to shared memory (.pragma "enable_smem_spilling"): a spill '
            "moved out of the stack frame is still a spill, so a frame of 0 B says nothing here"
        )
        return Check(mechanism.name, Category.MECHANISM, Status.FAILED, detail, mechanism.hint)
    over = [
        f"{kernel.name}: {getattr(kernel, field)} {unit} (at most {bound})"
        for kernel in report.kernels
        for bound_name, field, unit in RESOURCE_BOUNDS
        if (bound := getattr(mechanism, bound_name)) is not None and getattr(kernel, field) > bound
    ]
    if over:
        shown = over[:5] + ([f"... and {len(over) - 5} more"] if len(over) > 5 else [])
        return Check(mechanism.name, Category.MECHANISM, Status.FAILED, "\n".join(shown), mechanism.hint)
    if mechanism.reads_machine_code:
        code = code or SassReport(problem="the machine code was not read")
        if not code.read:
            problem = f"the resource report cannot show a frame allocated at run time, and {code.problem}"
            return unreadable(mechanism, problem, code.no_tool)
        hidden = undeclared_local_memory(report, code)
        if hidden:
            return Check(mechanism.name, Category.MECHANISM, Status.FAILED, hidden, mechanism.hint)
    bounds = ", ".join(
        f"{unit} <= {getattr(mechanism, bound_name)}"
        for bound_name, _, unit in RESOURCE_BOUNDS
        if getattr(mechanism, bound_name) is not None
    )
    detail = f"all {len(report.kernels)} kernel(s) within bounds ({bounds})"
    return Check(mechanism.name, Category.MECHANISM, Status.PASSED, detail)


def undeclared_local_memory(report: ResourceReport, code: SassReport) -> str:
    """Local memory the machine code reads or writes (LDL, STL) in a function whose resource report declares no stack
    frame and no local memory, or that has no report of its own: a frame allocated at run time (alloca) is in no
    report. '' where there is none."""
    declared = {kernel.name for kernel in report.kernels if kernel.stack_bytes or kernel.local_bytes}
    hidden = [
        f"{function}: {count} loads and stores of local memory (LDL, STL)"
        for function, count in code.local_accesses.items()
        if count and function not in declared
    ]
    if not hidden:
        return ""
    return (
        "the machine code reads and writes local memory that the resource report declares no frame for (a frame "
        "allocated on the stack at run time, by alloca, is in no report): " + "; ".join(hidden[:5])
    )


def sass_check(mechanism: MechanismCheck, report: SassReport, launched: CounterRun | None = None) -> Check:
    """The rule of labs.toml on the machine code of the student's object (grader/steps/sass.py): of the kernels the
    checked launch made, where `launched` (the counted run of it) names them, else of every kernel. An unreadable
    listing fails (the object is the submission's), unless the machine has no tool to read it."""
    name = mechanism.name

    scope = ""  # which kernels were judged, where the launch named them

    def failed(detail: str) -> Check:
        return Check(name, Category.MECHANISM, Status.FAILED, detail + scope, mechanism.hint)

    def passed(detail: str) -> Check:
        return Check(name, Category.MECHANISM, Status.PASSED, detail + scope)

    if not report.read:
        return unreadable(mechanism, report.problem, report.no_tool)
    if launched is not None:
        if not launched.launched:
            detail = f"{launched.tool} named no kernel of the checked launch: {launched.outcome.how_it_ended()}"
            return Check(name, Category.MECHANISM, Status.NOT_RUN, detail)
        report = sass.of_kernels(report, launched.launched, signature=launched.tool != "ncu")
        if not report.kernels:
            shown = ", ".join(launched.launched[:3])
            return failed(f"none of the kernels the checked launch made ({shown}) is in the machine code")
        scope = f" (of the kernels the checked launch made: {', '.join(report.kernels[:3])})"
    if mechanism.sass == "texture fetches":
        fetches = report.fetches()
        if not any(load.value_read for load in fetches):
            shown = f"{len(fetches)} texture fetches, none whose value is read" if fetches else "no texture fetch"
            return failed(f"the machine code makes {shown} (TEX, TLD)")
        kernels = sorted({load.kernel for load in fetches})
        return passed(f"{len(fetches)} texture fetches in {', '.join(kernels)}")
    if mechanism.sass == "cp.async copies":
        return async_copy_check(mechanism, report)
    gathers = report.gathers()
    plain = [load for load in gathers if not load.read_only]
    if plain:
        kernels = sorted({load.kernel for load in plain})
        return failed(
            f"{len(plain)} of {len(gathers)} gathered loads take the ordinary path ({plain[0].opcode}, not "
            f"LDG.E.CONSTANT) in {', '.join(kernels)}"
        )
    if not any(load.value_read for load in gathers):
        return failed(
            "the machine code makes no gathered load whose value is read: no load's address comes from a loaded index"
        )
    return passed(f"all {len(gathers)} gathered loads are LDG.E.CONSTANT")


def async_copy_check(mechanism: MechanismCheck, report: SassReport) -> Check:
    """Every kernel that `mechanism.kernel` names issues at least one LDGSTS: its tiles come by cp.async."""
    named = [kernel for kernel in report.kernels if mechanism.kernel in kernel]
    category = Category.MECHANISM  # a stretch's check is moved to its category where it is graded
    if not named:
        detail = f"no kernel whose name contains {mechanism.kernel!r} in the machine code"
        return Check(mechanism.name, category, Status.FAILED, detail, mechanism.hint)
    without = [kernel for kernel in named if not report.async_copies.get(kernel)]
    if without:
        detail = f"no LDGSTS (cp.async) in {', '.join(without)}"
        return Check(mechanism.name, category, Status.FAILED, detail, mechanism.hint)
    counts = ", ".join(f"{kernel}: {report.async_copies[kernel]}" for kernel in named)
    return Check(mechanism.name, category, Status.PASSED, f"LDGSTS in every kernel named: {counts}")


def own_shared(kernel: KernelResources, sm: occupancy.SmLimits) -> int:
    """A kernel's static shared memory without the system's reserve. From sm_90 on, nvcc writes the 1 KB each
    block leaves the system into the kernel's shared memory (cuobjdump shows 1024 B for a kernel with none, where
    an sm_80 build of it shows 0); the occupancy rules add that reserve themselves, so it is counted once."""
    arch = int("".join(c for c in kernel.arch if c.isdigit()) or 0)
    reserve = sm.reserved_shared_per_block if arch >= 90 else 0
    return max(0, kernel.shared_bytes - reserve)


def occupancy_check(
    mechanism: MechanismCheck,
    report: ResourceReport,
    student: CounterRun,
    baseline: CounterRun,
    sm: occupancy.SmLimits,
) -> Check:
    """How many blocks of the student's checked launch fit on one SM of `sm`: its shape as the profile saw it (one
    launch), each thread's registers and the static shared memory by the compiler's report (the most of any kernel
    of the object, since the profile does not say which ran). The launch must also cover the work: its tiles, one
    per block in dynamic shared memory, hold more floats than all but the last of the baseline's, so that a launch
    of few blocks looping over the array cannot fit more of them on an SM than the work would."""

    def verdict(status: Status, detail: str) -> Check:
        return Check(
            mechanism.name, Category.MECHANISM, status, detail, "" if status is Status.PASSED else mechanism.hint
        )

    broken = next((run for run in (student, baseline) if not run.outcome.ok or not run.kernels), None)
    if broken:
        return verdict(Status.NOT_RUN, f"{broken.tool} {broken.outcome.how_it_ended()} without the launch's shape")
    absent = sorted({name for run in (student, baseline) for name in LAUNCH_SHAPE if name not in run.totals})
    if absent:
        return verdict(Status.NOT_RUN, f"{student.tool} gave no value for {', '.join(absent)}")
    if not report.read:
        return verdict(Status.NOT_RUN if report.no_tool else Status.FAILED, report.problem)
    if not report.kernels:
        return verdict(Status.FAILED, "the compiled kernel.cu holds no kernel, so there is nothing to judge")
    if student.kernels != 1:
        return verdict(Status.FAILED, f"the checked call made {student.kernels} launches; the lab asks for one kernel")
    shape = {name: int(student.totals[name]) for name in LAUNCH_SHAPE}
    threads, grid = shape["launch__block_size"], shape["launch__grid_size"]
    dynamic = shape["launch__shared_mem_per_block_dynamic"]
    registers = max(kernel.registers for kernel in report.kernels)
    static = max(own_shared(kernel, sm) for kernel in report.kernels)
    fits = occupancy.resident_blocks(occupancy.BlockUse(threads, registers, static, dynamic), sm)
    launch = (
        f"{grid} blocks of {threads} threads, {dynamic} B of dynamic shared memory, {registers} registers and "
        f"{static} B of static shared memory by the compiler"
    )
    detail = f"on an {sm.name}, {fits.describe()}; your launch: {launch}"
    tile_floats = dynamic // 4
    base_grid, base_floats = (
        int(baseline.totals["launch__grid_size"]),
        int(baseline.totals["launch__shared_mem_per_block_dynamic"]) // 4,
    )
    least = (base_grid - 1) * base_floats + 1  # at most the array's length
    if grid * tile_floats < least:
        return verdict(
            Status.FAILED,
            f"the launch does not cover the work: {grid} tiles of {tile_floats} floats hold {grid * tile_floats}, "
            f"and the array has at least {least}; {detail}",
        )
    assert mechanism.min_blocks_per_sm is not None  # config refuses an occupancy check without it
    status = Status.PASSED if fits.blocks >= mechanism.min_blocks_per_sm else Status.FAILED
    return Check(
        mechanism.name,
        Category.MECHANISM,
        status,
        f"must be >= {mechanism.min_blocks_per_sm} block(s) per SM {detail}",
        "" if status is Status.PASSED else mechanism.hint,
        measured=float(fits.blocks),
    )


def partial_credit(value: float, base: float, threshold: float) -> float:
    """Speed points rise from 0 at the baseline's ratio to all of them at the threshold: no cliff."""
    return max(0.0, min(1.0, (value - base) / (threshold - base))) if threshold > base else 0.0


def speed_check(
    name: str,
    value: float,
    base: float,
    threshold: float | None,
    reference: float | None,
    unit: str,
    measured: str,
    not_graded: str,
) -> Check:
    """One speed check: where the student stands between the baseline, the threshold and the reference."""
    shown = unit.format(value)
    where = f"{shown}; the baseline {unit.format(base)}"
    if reference is not None:
        where += f", the reference solution {unit.format(reference)} on this GPU"
    if threshold is None:
        detail = f"{where}; {measured}. Not graded on this GPU: {not_graded}"
        return Check(name, Category.PERFORMANCE, Status.NOT_GRADED, detail, measured=value)
    credit = 1.0 if value >= threshold else partial_credit(value, base, threshold)
    status = Status.PASSED if value >= threshold else Status.FAILED
    detail = f"{shown} (threshold {unit.format(threshold)}): {where}; {measured}"
    if status is Status.FAILED:
        detail += f"; {credit:.0%} of its points, for the way from the baseline to the threshold"
    return Check(name, Category.PERFORMANCE, status, detail, credit=credit, measured=value, threshold=threshold)


def _group_checks(lab: Lab, result: BenchResult, group: str, thresholds: Thresholds) -> list[Check]:
    name = lab.speedup_check(group)
    rates = result.group_rates(group, lab.memory_bound)
    student, baseline = result.kernel("student", group), result.kernel("baseline", group)
    if rates is None or student is None or baseline is None:  # rates are None exactly where either is missing
        return [Check(name, Category.PERFORMANCE, Status.FAILED, f"the benchmark reported no {group!r} run")]
    if not rates.correct:
        detail = f"the benchmarked result was wrong, so its time earns nothing: {student.check}"
        return [Check(name, Category.PERFORMANCE, Status.FAILED, detail)]
    if student.problems:
        detail = f"its time cannot be trusted, so it earns nothing: {'; '.join(student.problems)}"
        return [Check(name, Category.PERFORMANCE, Status.FAILED, detail)]
    if baseline.problems:  # the grader's own kernel: not the student's fault, but nothing to compare with
        detail = f"the baseline's time cannot be trusted, so there is no speedup: {'; '.join(baseline.problems)}"
        return [Check(name, Category.PERFORMANCE, Status.NOT_RUN, detail)]
    if rates.speedup is None:
        return [Check(name, Category.PERFORMANCE, Status.FAILED, "the benchmark reported no time for it")]
    measured = f"{student.median_ms:.3f} ms against {baseline.median_ms:.3f} ms"
    reference = result.kernel("reference", group)
    of_reference = ratio(reference.median_ms, student.median_ms) if reference else None
    if reference is not None and of_reference is not None:
        measured += f"; {of_reference:.2f} of {reference.name}'s speed"
    checks = [
        speed_check(
            name,
            rates.speedup,
            1.0,
            thresholds.min_speedup,
            thresholds.reference_speedup,
            "x{:.2f}",
            measured,
            thresholds.not_graded,
        )
    ]
    if lab.memory_bound and (thresholds.min_copy_fraction is not None or thresholds.not_graded):
        base = result.copy_fraction(baseline) or 0.0
        measured = f"{student.gbps:.0f} of {result.copy_gbps:.0f} GB/s"
        checks.append(
            speed_check(
                lab.copy_fraction_check(group),
                rates.copy_fraction or 0.0,
                base,
                thresholds.min_copy_fraction,
                thresholds.reference_copy_fraction,
                "{:.2f}",
                measured,
                thresholds.not_graded,
            )
        )
    return checks


def near_miss(lab: Lab, result: BenchResult, thresholds: dict[str, Thresholds], band: float) -> bool:
    """Whether a ratio falls short of its threshold by less than `band` (a fraction): worth measuring again."""

    def short(value: float | None, threshold: float | None) -> bool:
        return value is not None and threshold is not None and (1 - band) * threshold <= value < threshold

    for group, limits in thresholds.items():
        rates = result.group_rates(group, lab.memory_bound)
        if rates and (short(rates.speedup, limits.min_speedup) or short(rates.copy_fraction, limits.min_copy_fraction)):
            return True
    return False


def performance_checks(lab: Lab, run: BenchRun, thresholds: dict[str, Thresholds], device: str) -> list[Check]:
    result = run.result
    if result is None:
        detail = f"the benchmark {run.outcome.how_it_ended()}:\n{run.outcome.tail(8)}"
        return [Check(lab.speedup_check(), Category.PERFORMANCE, Status.FAILED, detail)]
    checks = []
    if not thresholds:
        detail = (
            f"no thresholds for {device}: measure the solutions with `./cml calibrate --lab {int(lab.number)}` first"
        )
        checks.append(Check(lab.speedup_check(), Category.PERFORMANCE, Status.NOT_RUN, detail))
    for group, group_thresholds in thresholds.items():
        checks += _group_checks(lab, result, group, group_thresholds)
    for stretch in (k for k in result.kernels if k.role == "stretch" and k.attempted):
        status = Status.PASSED if stretch.correct and not stretch.problems else Status.FAILED
        fraction = result.copy_fraction(stretch)
        rate = (
            f"{stretch.gflops:.0f} GFLOP/s"
            if stretch.gflops
            else f"{stretch.gbps:.0f} GB/s, {fraction or 0.0:.2f} of copy"
        )
        untrusted = f"; its time cannot be trusted: {'; '.join(stretch.problems)}" if stretch.problems else ""
        checks.append(
            Check(f"stretch: {stretch.name}", Category.STRETCH, status, f"{rate}; {stretch.check}{untrusted}")
        )
    return checks
