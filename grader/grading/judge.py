"""A lab's checks, judged from its evidence alone (grader/grading/evidence.py): the build and integrity, one check
per test case, each mechanism from the run, counters or object it reads (plan.need), and the speed checks from the
benchmark against the thresholds given. Nothing runs here, so the same evidence judged twice gets the same checks,
and recorded evidence is judged in milliseconds."""

from __future__ import annotations

import re
from dataclasses import replace

from grader.core.config import Lab, MechanismCheck, Thresholds
from grader.core.model import EMULATOR_BUILD, Category, Check, LabGrade, Status
from grader.execution import proc
from grader.grading import access_pictures, checks
from grader.grading.evidence import LabEvidence
from grader.grading.plan import FROM_NVCC, need
from grader.reporting.score import correctness_passed, score
from grader.steps import bench, occupancy, resources, sanitize, sass
from grader.steps.profile import CounterRun

INTEGRITY = "integrity: the lab's own work (no library doing it, no other file, nothing of the harness)"
INTEGRITY_HINT = (
    "a kernel.cu includes only its lab's header, cml/ and CUDA and system headers, defines only the "
    "lab's functions (helpers in an anonymous namespace), and calls only the CUDA runtime it needs"
)
# A check's detail holds at most a message of the student's and our words around it (grader/execution/proc.py).
DETAIL_LIMIT = 2 * proc.MESSAGE_LIMIT
EMULATED = "(CPU emulator)"  # ends the first line of the detail of every check the emulator graded
NO_TIMING = "no GPU: timings on the CPU emulator mean nothing"
# How the CPU emulator's build names what it does not emulate (CML_EMU_LIMIT, in its headers and rewrite.py).
EMULATOR_LIMIT_MARK = "cml_emu limit:"


def judge(lab: Lab, evidence: LabEvidence, thresholds: dict[str, Thresholds], device: str) -> LabGrade:
    """The lab's grade from `evidence`, its speed judged against `thresholds` (`device` names the GPU and the
    thresholds' file in a speed check's words)."""
    grade = LabGrade(lab.name, lab.title, evidence.variant, evidence.kernel_path)
    grade.seed, grade.grader_sizes = evidence.seed, list(evidence.grader_sizes)
    timing = evidence.timing
    grade.steps, grade.program_seconds = dict(timing.steps), dict(timing.program_seconds)
    grade.gpu_alone_seconds, grade.seconds = timing.gpu_alone_seconds, timing.seconds
    if evidence.report is not None:
        grade.resources, grade.resources_problem = evidence.report.kernels, evidence.report.problem
    grade.checks = lab_checks(lab, evidence, thresholds, device, grade)
    for check in grade.checks:
        check.detail = student_paths(check.detail, lab, evidence.shown_path)
        check.hint = student_paths(check.hint, lab, evidence.shown_path)
    return score(grade, lab.points, lab.lessons)


def lab_checks(
    lab: Lab, evidence: LabEvidence, thresholds: dict[str, Thresholds], device: str, grade: LabGrade
) -> list[Check]:
    """The checks in the order of the steps; a step that did not run gives its checks the reason."""
    facts, built = evidence.facts, evidence.build
    if built.integrity:
        return [Check(INTEGRITY, Category.BUILD, Status.FAILED, built.integrity, INTEGRITY_HINT)]
    if not built.ok and built.compiled and evidence.empty:
        # It compiled to nothing: the links' errors would name the test program's calls, none of its own lines.
        hint = "start from the lab's skeleton (its kernel.cu in labs/ of the course's repository), which defines each"
        return [Check("build", Category.BUILD, Status.FAILED, evidence.empty, hint)]
    if not built.ok:
        hint = f"fix {evidence.kernel_path} until it compiles; the other labs are graded anyway"
        return [Check("build", Category.BUILD, Status.FAILED, built.errors, hint)]
    found = [Check("build", Category.BUILD, Status.PASSED), Check(INTEGRITY, Category.BUILD, Status.PASSED)]
    report = evidence.report or resources.ResourceReport(problem="not read")
    code = evidence.code
    if facts.emulator:
        if built.emulator_integrity:  # the nvcc object passed: this is the object the emulator grades
            return [found[0], Check(INTEGRITY, Category.BUILD, Status.FAILED, built.emulator_integrity, INTEGRITY_HINT)]
        if not built.emulator_ok:
            # nvcc compiled it, so it is CUDA: what the emulator cannot build is the grader's limit, never the
            # student's failure, and its verdict is its own (score.verdict), with the way to a grade: a GPU.
            # The emulator's own words for what it does not emulate (CML_EMU_LIMIT of cml_emu/device.hpp) first.
            errors = built.emulator_errors.splitlines()
            limits = [line for line in errors if EMULATOR_LIMIT_MARK in line]
            shown = "\n".join(limits + [line for line in errors if line not in limits])
            detail = (
                "not run: nvcc built this kernel.cu, and the CPU emulator could not: a limit of the grader, not a "
                f"mistake in your kernel. Grade it on a GPU, where nothing is emulated.\n{shown}"
            )
            hint = "grade this lab on a machine with an NVIDIA GPU (./cml grade there, or your course's GPU grader)"
            limit = Check(EMULATOR_BUILD, Category.BUILD, Status.NOT_RUN, detail, hint)
            reason = "not run: the CPU emulator could not build it (a limit of the grader: grade it on a GPU)"
            return [*found, limit, *later_checks(lab, Status.NOT_RUN, reason, report, code, tests=True)]
    if evidence.tests is None:
        return found + later_checks(lab, Status.NOT_RUN, facts.gpu_reason, report, code, tests=True)

    tests = evidence.tests
    handout = f"labs/{lab.name}/README.md"
    correctness = checks.correctness_checks(tests, handout, replay(evidence.replay))
    found += [emulated(c) for c in correctness] if facts.emulator else correctness
    if tests.outcome.timed_out:
        # The same kernel would hang every later step as well: stopped there, with the reason on each check.
        ended = f"not run: the test program {tests.outcome.how_it_ended()}"
        stopped = later_checks(lab, Status.FAILED, ended, report, code)
        from_nvcc = {m.name for m in lab.mechanisms if m.tool in FROM_NVCC}  # read as on a GPU: no emulator mark
        return found + [emulated(c) if facts.emulator and c.name not in from_nvcc else c for c in stopped]

    for mechanism in lab.mechanisms:
        if mechanism.stretch:
            found.append(stretch_check(mechanism, found, report, code))
        else:
            found.append(mechanism_check(lab, mechanism, correctness_passed(found), evidence, report, code))
    found += performance(lab, evidence, thresholds, device, grade)
    return found


def mechanism_check(
    lab: Lab,
    mechanism: MechanismCheck,
    correct: bool,
    evidence: LabEvidence,
    report: resources.ResourceReport,
    code: sass.SassReport | None = None,
) -> Check:
    """One mechanism check (not a stretch's) from what it reads of the evidence, or why it was not run."""
    facts = evidence.facts
    needed = need(lab, mechanism, facts)
    if needed.not_run:
        return Check(mechanism.name, Category.MECHANISM, Status.NOT_RUN, needed.not_run)
    if needed.kind not in ("run", "counters"):  # read from nvcc's object, the same with a GPU or without one
        return withheld_unless(object_check(mechanism, report, code), correct)
    if mechanism.tool == "sass":  # nvcc's object, at the kernels the counted run of its checked launch names
        runs = evidence.counters.get(needed.name)
        if runs is None:
            return Check(mechanism.name, Category.MECHANISM, Status.NOT_RUN, "no counted run of it was recorded")
        launched = runs["student"]
        return withheld_unless(object_check(mechanism, report, code, launched), correct)
    if needed.kind == "run":
        if needed.name not in evidence.runs:
            return Check(mechanism.name, Category.MECHANISM, Status.NOT_RUN, "no run of it was recorded")
        run = evidence.runs[needed.name]
        if mechanism.tool == "schedule":  # one run of the lab's test program serves every schedule check
            run = sanitize.aspect_view(run, mechanism.schedule)
        check = checks.sanitizer_check(mechanism, run)
        if check.status is Status.PASSED and correct and not run.results_right:
            check = checks.order_dependent(mechanism, run)
        # A clean report counts only if this very run computed the right results (the checker's verdict).
        correct = correct and run.results_right
    else:
        runs = evidence.counters.get(needed.name)
        if runs is None:
            return Check(mechanism.name, Category.MECHANISM, Status.NOT_RUN, "no counters of it were recorded")
        if mechanism.tool == "occupancy":
            limits = occupancy.load_limits()[mechanism.gpu]
            check = checks.occupancy_check(mechanism, report, runs["student"], runs["baseline"], limits)
        else:
            compared = runs[mechanism.roles[1]] if len(mechanism.roles) > 1 else None
            check = checks.counter_check(mechanism, runs["student"], compared)
            check.access = access_pictures.picture(lab, mechanism, evidence, evidence.shown_path)
    check = withheld_unless(check, correct)
    return emulated(check) if facts.emulator else check


def object_check(
    mechanism: MechanismCheck,
    report: resources.ResourceReport,
    code: sass.SassReport | None = None,
    launched: CounterRun | None = None,
) -> Check:
    """A check judged from nvcc's object: its resource report, or its machine code (None: not read), at the kernels
    `launched` names where it is given."""
    if mechanism.tool == "sass":
        return checks.sass_check(mechanism, code or sass.SassReport(problem=f"{sass.UNREADABLE}: not read"), launched)
    return checks.resource_check(mechanism, report, code)


def stretch_check(
    mechanism: MechanismCheck, graded: list[Check], report: resources.ResourceReport, code: sass.SassReport | None
) -> Check:
    """A check of the stretch's kernel (labs.toml: stretch = true), read from nvcc's object: for no points, as the
    stretch's test cases are; skipped with them when the stretch is not attempted, withheld unless they passed."""
    cases = [check for check in graded if check.category is Category.STRETCH]
    if all(case.status is Status.SKIPPED for case in cases):
        return Check(mechanism.name, Category.STRETCH, Status.SKIPPED, "stretch not attempted")
    correct = all(case.status is Status.PASSED for case in cases)
    return replace(withheld_unless(object_check(mechanism, report, code), correct), category=Category.STRETCH)


def withheld_unless(check: Check, correct: bool) -> Check:
    """A clean report from a kernel that computes the wrong thing proves nothing: it earns no points."""
    if check.status is Status.PASSED and not correct:
        first, newline, rest = check.detail.partition("\n")  # the verdict; what follows stays as it was
        detail = f"clean ({first}), but it counts only once every correctness test passes{newline}{rest}"
        return Check(check.name, Category.MECHANISM, Status.WITHHELD, detail, access=check.access)
    return check


def performance(
    lab: Lab, evidence: LabEvidence, thresholds: dict[str, Thresholds], device: str, grade: LabGrade
) -> list[Check]:
    """The speed checks, from the benchmark's runs: the median of three where the first fell just short."""
    facts = evidence.facts
    name = lab.speedup_check()
    if not facts.run_bench:
        return [Check(name, Category.PERFORMANCE, Status.NOT_RUN, "turned off (--no-bench)")]
    if not facts.gpu_present:
        return [Check(name, Category.PERFORMANCE, Status.NOT_RUN, NO_TIMING if facts.emulator else facts.gpu_reason)]
    if not evidence.bench:
        return [Check(name, Category.PERFORMANCE, Status.NOT_RUN, "no benchmark run was recorded")]
    run, remeasured = evidence.bench[0], ""
    results = [r.result for r in evidence.bench if r.result]
    if len(evidence.bench) > 1 and run.result:
        run = bench.BenchRun(run.outcome, bench.median_of(results))
        remeasured = f" (re-measured, just short of a threshold: median of {len(results)} runs)"
    grade.bench = run.result
    grade.rates = run.result.rates(lab.memory_bound) if run.result else []
    found = checks.performance_checks(lab, run, thresholds, device)
    for check in found:
        if check.category is Category.PERFORMANCE and check.status in (Status.PASSED, Status.FAILED):
            check.detail += remeasured
    return found


def later_checks(
    lab: Lab,
    status: Status,
    reason: str,
    report: resources.ResourceReport,
    code: sass.SassReport | None = None,
    tests: bool = False,
) -> list[Check]:
    """The checks a lab's later steps would have made, each with `reason`: (the tests,) the mechanisms, the speed.
    A resources or machine-code check needs none of those steps: it is judged from nvcc's `report` and `code` all
    the same, a clean one withheld, since no test has shown the results right."""
    named = [("tests", Category.CORRECTNESS)] if tests else []
    named += [(m.name, Category.STRETCH if m.stretch else Category.MECHANISM) for m in lab.mechanisms]
    named += [(lab.speedup_check(), Category.PERFORMANCE)]
    judged = {
        m.name: withheld_unless(object_check(m, report, code), False)
        for m in lab.mechanisms
        if m.tool in FROM_NVCC and not m.stretch
    }
    return [judged.get(name) or Check(name, category, status, reason) for name, category in named]


def emulated(check: Check) -> Check:
    """A check graded on the CPU emulator: its detail says so."""
    first, newline, rest = check.detail.partition("\n")
    check.detail = f"{first} {EMULATED}".lstrip() + newline + rest
    return check


def replay(prefix: str):
    """The command that runs one case again on the same inputs (gather.replay_prefix, then the case's filter);
    '' where there is none."""

    def command(case: str) -> str:
        if not prefix:
            return ""
        # doctest's filter: a comma separates two filters, so a name is cut before its first comma.
        pattern = case.split(",")[0] + ("*" if "," in case else "")
        return f'{prefix} -tc="{pattern}"'

    return command


def student_paths(text: str, lab: Lab, shown: str) -> str:
    """`text` (a check's detail or hint, which can hold the student's text) cut to DETAIL_LIMIT characters, with
    every path of the graded kernel.cu as the student knows it. A path is matched only from the start of a run
    of characters that can make one, so a long run costs one pass, never one per character."""
    path = rf"(?<![^\s'\"(])[^\s'\"(]*{re.escape(lab.name)}/kernel\.cu"
    return re.sub(path, lambda _: shown, proc.bounded(text, DETAIL_LIMIT))
