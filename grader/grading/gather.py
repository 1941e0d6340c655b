"""A lab's steps, in order, making its evidence from the submission: the build (nvcc's compile, the integrity of
what it read and made before anything links it, the links), the compiler's resource report and machine code, the
CPU emulator's build where there is no GPU, the tests, the runs and counters the lab's checks need (plan.need),
and the benchmark. Nothing is judged here but whether a later step can run at all: a build that failed or an
object refused ends the steps, as does a test program stopped at its time limit (the same kernel would hang every
later step). The checks judge the evidence afterwards (grader/grading/judge.py)."""

from __future__ import annotations

from pathlib import Path

from grader.core.config import REPO_ROOT, Lab
from grader.execution import proc
from grader.grading import access_runs, checks
from grader.grading.context import Context
from grader.grading.evidence import BuildEvidence, LabEvidence
from grader.grading.lab_runs import LabBench, LabCounters, LabTestRuns, Progress, Steps
from grader.grading.plan import need
from grader.grading.sizes import lab_sizes
from grader.grading.submission import defines_none_of, interface_functions
from grader.reporting.report import lab_option
from grader.steps import access, bench, build, integrity, resources, sass, sass_lines, suite
from grader.steps.student_steps import KINDS

NEAR_MISS_BAND = 0.10  # a ratio this close under its threshold is measured again before it is judged
SKELETONS = REPO_ROOT / "labs"  # the skeletons as shipped: a report shows no CML_TODO text but theirs


def kernel_path(ctx: Context, lab: Lab, variant: str) -> str:
    """The graded file as the student knows it: in the submission, when one was assembled."""
    if variant == "student" and ctx.kernel_sources:
        return ctx.kernel_sources[lab.name]
    return str(ctx.kernel_source(lab.name, variant))


def shown_path(ctx: Context, lab: Lab, variant: str) -> str:
    """The graded kernel.cu as the student knows it: labs/NN_name/kernel.cu in the checkout, NN_name/kernel.cu in
    a submission (the compiler, the sanitizers and the emulator name the copy the grader built)."""
    source = ctx.kernel_source(lab.name, variant).resolve()
    submitted = variant == "student" and ctx.kernel_sources
    return (
        str(source.relative_to(REPO_ROOT))
        if source.is_relative_to(REPO_ROOT) and not submitted
        else f"{lab.name}/kernel.cu"
    )


def gather(ctx: Context, lab: Lab, variant: str, progress: Progress = lambda _: None) -> LabEvidence:
    """The evidence of one lab's steps for `variant` ("student", or the grader's own "solution")."""
    seed, sizes = ctx.seed, lab_sizes(lab, ctx.seed, ctx.instructor_sizes)
    evidence = LabEvidence(
        lab.name, variant, kernel_path(ctx, lab, variant), shown_path(ctx, lab, variant), seed, sizes, ctx.facts()
    )
    steps = Steps(ctx, evidence.timing, progress)
    evidence.empty = defines_nothing(
        ctx, lab, variant, evidence.kernel_path
    )  # before the build, which may not change it
    _make(ctx, lab, variant, evidence, steps)
    steps.next("done")
    evidence.timing.steps.pop("done", None)
    return evidence


def _make(ctx: Context, lab: Lab, variant: str, evidence: LabEvidence, steps: Steps) -> None:
    steps.next("building")
    with steps.building():  # the integrity check too: it runs the preprocessor in the folder
        evidence.build = built(ctx, lab, variant, emulated=False)
    evidence.facts = ctx.facts()  # what the build made: the recorders, where CUPTI is
    facts = evidence.facts
    if evidence.build.integrity or not evidence.build.ok:
        return
    steps.next("reading the resource report")
    evidence.report = read_resources(ctx, lab, variant)
    evidence.code = read_machine_code(ctx, lab, variant)
    evidence.machine_lines = read_machine_lines(ctx, lab, variant)
    if ctx.emulator:
        steps.next("building for the CPU emulator")
        with steps.building():
            emulated = built(ctx, lab, variant, emulated=True)
        evidence.build.emulator_ok = emulated.ok
        evidence.build.emulator_errors = emulated.errors
        evidence.build.emulator_integrity = emulated.integrity
        if emulated.integrity or not emulated.ok:
            return
    if not ctx.gpu.present and not ctx.emulator:
        return

    env = {"CML_SEED": str(evidence.seed), "CML_GRADER_SIZES": ";".join(evidence.grader_sizes)}
    steps.next("running the correctness tests")
    test_program = ctx.program(lab.name, variant, "test", ctx.emulator)
    with steps.gpu():
        tests = suite.run_suite(test_program, ctx.tree.checker(lab.name), steps.limit(lab, "tests"), env)
    steps.ran("tests", tests.outcome)
    tests.todos = suite.shown_todos(tests.todos, lab.name, SKELETONS / lab.name / "kernel.cu")
    evidence.tests = tests
    evidence.replay = replay_prefix(test_program, env, replay_in_a_clone(ctx, lab))
    if tests.outcome.timed_out:
        return

    timed = LabBench(ctx, lab, variant, steps, facts, seed={"CML_SEED": env["CML_SEED"]})
    counters = LabCounters(ctx, lab, variant, steps, timed)
    test_runs = LabTestRuns(ctx, lab, variant, steps, env, facts)
    for mechanism in lab.mechanisms:
        if mechanism.stretch:
            continue
        needed = need(lab, mechanism, facts)
        if needed.kind == "run":
            steps.next(mechanism.name)
            run = test_runs.of(needed.name)
            steps.ran(needed.name, run.outcome)
            evidence.runs[needed.name] = run
        elif needed.kind == "counters" and needed.name not in evidence.counters:
            steps.next(mechanism.name)
            evidence.counters[needed.name] = counters.of(needed.name)

    evidence.access = access_runs.drawn(ctx, lab, variant, evidence, steps, built)

    steps.next("benchmarking")
    if ctx.run_bench and ctx.gpu.present:
        evidence.bench = benchmark(ctx, lab, timed)


def built(ctx: Context, lab: Lab, variant: str, emulated: bool) -> BuildEvidence:
    """nvcc's build of the kernel.cu (or, `emulated`, the CPU emulator's), judged for integrity as soon as it is
    compiled: an object refused is never linked. A student's kernel.cu is compiled and linked by its own steps in
    the sandbox, against the harness this build folder holds; the grader's own solution by Meson."""
    timeout = ctx.config.timeouts["build"]
    found = BuildEvidence()
    if variant != "student":
        outcome = build.build_variant(ctx.tree, lab.name, variant, timeout, emulated)
        # Ninja's verdict, not the file: a failed build leaves the last good library in place.
        found.compiled = outcome.ok
        if ctx.static_checks and found.compiled:
            found.integrity = _integrity(ctx, lab, variant, emulated, found.compiled)
    else:
        build.prepare_student(ctx.tree, [lab.name], timeout, emulated)
        student = ctx.student(lab.name, emulated)
        outcome = proc.Outcome(["compiled ahead"], 0, "", "", timeout)
        if student.object not in ctx.compiled_ahead or not student.object.is_file():
            outcome = student.compile(timeout)
        ctx.compiled_ahead.discard(student.object)
        found.compiled = student.object.is_file()
        if ctx.static_checks and (found.compiled or not emulated):
            found.integrity = _integrity(ctx, lab, variant, emulated, found.compiled)
        if found.integrity:
            return found
        for kind in KINDS if outcome.ok else ():
            outcome = student.link(kind, timeout)
            if not outcome.ok:
                break
    found.ok = outcome.ok and not found.integrity
    if not outcome.ok:
        found.errors = build.compiler_errors(outcome)
    return found


def _integrity(ctx: Context, lab: Lab, variant: str, emulated: bool, compiled: bool) -> str:
    """What integrity finds in the kernel.cu's build (nvcc's, or the emulator's object of it)."""
    calls = lab.allowed_calls
    if not emulated:
        student = ctx.student(lab.name) if variant == "student" else None
        return integrity.check_build(ctx.tree, lab.name, variant, compiled, calls, student)
    emulated_object = (
        ctx.student(lab.name, emulated=True).object
        if variant == "student"
        else ctx.tree.directory / f"{lab.name}_{variant}_emu.o"
    )
    return integrity.check_emulator_build(
        ctx.tree, lab.name, emulated_object, ctx.kernel_object(lab.name, variant), calls
    )


def benchmark(ctx: Context, lab: Lab, timed: LabBench) -> list[bench.BenchRun]:
    """The benchmark's run; just short of a threshold, two more, whose median the speed checks judge."""
    runs = [timed.run()]
    first = runs[0].result
    if first and checks.near_miss(lab, first, ctx.thresholds_of(lab), NEAR_MISS_BAND):
        runs += [timed.timed() for _ in range(2)]
    return runs


def read_resources(ctx: Context, lab: Lab, variant: str) -> resources.ResourceReport:
    """The compiler's resource report of the nvcc object of the kernel.cu, which is built on every machine."""
    folders = [folder for _, folder in ctx.tree.compilers()]
    return resources.read_report(ctx.kernel_object(lab.name, variant), resources.find_tool(folders))


def read_machine_code(ctx: Context, lab: Lab, variant: str) -> sass.SassReport:
    """What the nvcc object's machine code does with memory, read only for a lab whose checks read it."""
    if not any(m.reads_machine_code for m in lab.mechanisms):
        return sass.SassReport(problem="not read: no check of this lab reads the machine code")
    folders = [folder for _, folder in ctx.tree.compilers()]
    return sass.read_report(ctx.kernel_object(lab.name, variant), folders)


def read_machine_lines(ctx: Context, lab: Lab, variant: str) -> sass_lines.MachineLines | None:
    """The memory instructions of each source line of nvcc's object, read only for a lab whose counter checks are
    about memory: they are shown beside the picture of its accesses."""
    if not any(access.counted_by(m) for m in lab.mechanisms):
        return None
    folders = [folder for _, folder in ctx.tree.compilers()]
    return sass_lines.read_lines(ctx.kernel_object(lab.name, variant), folders)


def defines_nothing(ctx: Context, lab: Lab, variant: str, shown: str) -> str:
    """One line saying that the kernel.cu defines none of the functions the lab's test calls; '' where it names
    any of them (a file that cannot be read is the build's to report)."""
    functions = interface_functions(lab.name)
    try:
        source = ctx.kernel_source(lab.name, variant).read_bytes()
    except OSError:
        return ""
    if not defines_none_of(source, functions):
        return ""
    return f"{shown} defines nothing: none of the functions the lab's test calls ({', '.join(functions)})"


def replay_in_a_clone(ctx: Context, lab: Lab) -> tuple[str, Path] | None:
    """For a submission (graded in the grader's folders, which the student never sees): the command that builds
    the same program in the student's own clone, and the folder its path is taken from; None for a grade of this
    checkout, where the program is replayed where it is."""
    if not ctx.kernel_sources or ctx.work is None:
        return None
    return f"./cml grade --lab {lab_option(lab.name)} --seed {ctx.seed}", ctx.work.root


def replay_prefix(program: Path, env: dict, clone: tuple[str, Path] | None = None) -> str:
    """The command that runs the test program again on the same inputs, as a person types it in the checkout, but
    for the case's filter (judge.replay adds it). For a submission (`clone`: replay_in_a_clone), as the student
    types it in their own clone: the grade that builds the program with the same seed, then the program in
    build/, where ./cml grade puts it."""
    shown = program.relative_to(Path.cwd()) if program.is_relative_to(Path.cwd()) else program
    first = ""
    if clone and program.is_relative_to(clone[1]):
        first, shown = f"{clone[0]} && ", Path("build") / "student" / program.relative_to(clone[1])
    variables = " ".join(f"{name}='{value}'" for name, value in env.items() if value)
    return f"{first}{variables} {shown}"
