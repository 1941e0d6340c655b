"""Grading one lab: build, tests, sanitizers and counters, benchmark, score. Each lab on its own, so
that one lab's broken build, crash or hang never stops the grading of the others.

With no GPU, the tests, sanitizers and counters run on the CPU emulator's build of the same kernel.cu
(common/emu), each check saying so; the nvcc build is still what decides the build verdict."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.core.config import REPO_ROOT, Config, Lab, MechanismCheck, Target, Thresholds
from grader.core.model import Category, Check, LabGrade, Status
from grader.execution import gpu_turn, proc
from grader.execution.fair_lock import FairLock
from grader.execution.gpu import Gpu
from grader.execution.gpu_lock import GpuLock, Mutex
from grader.grading import checks
from grader.grading.sizes import lab_sizes
from grader.grading.submission import defines_none_of, interface_functions
from grader.reporting.report import lab_option
from grader.reporting.score import correctness_passed, score
from grader.steps import bench, build, integrity, occupancy, profile, resources, sanitize, sass, suite, time_limits

NEAR_MISS_BAND = 0.10  # a ratio this close under its threshold is measured again before it fails
INTEGRITY = "integrity: the lab's own work (no library doing it, no other file, nothing of the harness)"
INTEGRITY_HINT = (
    "a kernel.cu includes only its lab's header, cml/ and CUDA and system headers, defines only the "
    "lab's functions (helpers in an anonymous namespace), and calls only the CUDA runtime it needs"
)
# A check's detail holds at most a message of the student's and our words around it (grader/execution/proc.py).
DETAIL_LIMIT = 2 * proc.MESSAGE_LIMIT
SKELETONS = REPO_ROOT / "labs"  # the skeletons as shipped: a report shows no CML_TODO text but theirs
EMULATED = "(CPU emulator)"  # ends the first line of the detail of every check the emulator graded
NO_TIMING = "no GPU: timings on the CPU emulator mean nothing"
COUNTED = ("ncu", "occupancy")  # checks that read a profile of the benchmark's checked launches
FROM_NVCC = ("resources", "sass")  # checks judged from nvcc's object alone, on every machine
# Steps of their own when labs are graded at once (./cml grade --jobs), so that the others' times stay honest.
WAITING_TO_BUILD = "waiting to build"  # another lab of the run is building in the same folder
WAITING_FOR_THE_GPU = "waiting for the GPU"  # a benchmark has it, or is next in line; or another ncu run


@dataclass
class Context:
    config: Config
    tree: build.BuildTree
    gpu: Gpu
    target: Target | None
    sanitizer: Path | None  # compute-sanitizer, if found
    ncu: Path | None
    run_mechanisms: bool = True
    run_bench: bool = True
    kernel_sources: dict[str, str] | None = None  # lab -> the submitted file, when the student folder was assembled
    seed: int = 0  # the run's seed: random inputs, and the sizes drawn for the grader's own test cases
    instructor_sizes: dict[str, list[str]] = field(default_factory=dict)  # lab -> sizes from an instructor's file
    emulator: bool = False  # no GPU: tests, sanitizers and counters on the CPU emulator's builds (common/emu)
    # False only in the project's own tests of the defences behind the static checks (test_attacks.py).
    static_checks: bool = True
    # What the labs graded at once share: the build folder (one Ninja at a time), the GPU (gpu_lock.py), and
    # its performance monitors (one ncu run at a time); on a GPU, the last two with every grader on the card.
    build_lock: Mutex = field(default_factory=FairLock)
    gpu_lock: GpuLock = field(default_factory=GpuLock)
    counters_lock: Mutex = field(default_factory=threading.Lock)


Progress = Callable[[str], None]


def kernel_path(ctx: Context, lab: Lab, variant: str) -> str:
    """The graded file as the student knows it: in the submission, when one was assembled."""
    if variant == "student" and ctx.kernel_sources:
        return ctx.kernel_sources[lab.name]
    return str(ctx.tree.kernel_source(lab.name, variant))


def shown_path(ctx: Context, lab: Lab, variant: str) -> str:
    """The graded kernel.cu as the student knows it: labs/NN_name/kernel.cu in the checkout, NN_name/kernel.cu in
    a submission (the compiler, the sanitizers and the emulator name the copy the grader built)."""
    source = ctx.tree.kernel_source(lab.name, variant).resolve()
    submitted = variant == "student" and ctx.kernel_sources
    return (
        str(source.relative_to(REPO_ROOT))
        if source.is_relative_to(REPO_ROOT) and not submitted
        else f"{lab.name}/kernel.cu"
    )


def student_paths(text: str, lab: Lab, shown: str) -> str:
    """`text` (a check's detail or hint, which can hold the student's text) cut to DETAIL_LIMIT characters, with
    every path of the graded kernel.cu as the student knows it. A path is matched only from the start of a run
    of characters that can make one, so a long run costs one pass, never one per character."""
    path = rf"(?<![^\s'\"(])[^\s'\"(]*{re.escape(lab.name)}/kernel\.cu"
    return re.sub(path, lambda _: shown, proc.bounded(text, DETAIL_LIMIT))


def emulated(check: Check) -> Check:
    """A check graded on the CPU emulator: its detail says so."""
    first, newline, rest = check.detail.partition("\n")
    check.detail = f"{first} {EMULATED}".lstrip() + newline + rest
    return check


class Steps:
    """A lab's way through its steps: each step's wall time, from one to the next, into grade.steps, and each
    reported to `progress` as it starts. Waiting for the build folder or the GPU, which the other labs of the
    run may hold, is a step of its own."""

    def __init__(self, ctx: Context, grade: LabGrade, progress: Progress) -> None:
        self.ctx, self.grade, self.progress = ctx, grade, progress
        self.step, self.started = "checking the source", time.monotonic()

    def limit(self, lab: Lab, step: str) -> proc.TimeLimit:
        """The time limit of `step` of `lab` here (grader/steps/time_limits.py)."""
        return time_limits.step_limit(self.ctx.config, self.ctx.target, lab.name, step, self.ctx.gpu.name)

    def ran(self, step: str, outcome: proc.Outcome) -> None:
        """Keeps how long `step`'s program ran: the longest of its runs (a benchmark may run three times)."""
        seconds = max(self.grade.program_seconds.get(step, 0.0), outcome.seconds)
        self.grade.program_seconds[step] = round(seconds, 2)

    def next(self, name: str) -> None:
        now = time.monotonic()
        self.grade.steps[self.step] = round(self.grade.steps.get(self.step, 0.0) + now - self.started, 2)
        self.step, self.started = name, now
        self.progress(name)

    def building(self) -> AbstractContextManager[None]:
        """The build folder, to this lab alone: Ninja must never run twice at once in it. And the GPU, shared: a
        build keeps every core busy, which would disturb a benchmark's clocks and launches (its thresholds were
        measured on a quiet machine), so no build runs beside a benchmark's launches."""
        return self._alone_with(self.ctx.build_lock, WAITING_TO_BUILD)

    def counters(self) -> AbstractContextManager[None]:
        """The GPU shared, and its performance monitors to this lab alone: an ncu run. Its counters are the
        profiled process's own: on the H100 every count the checks read came out the same with Lab 4's
        benchmark running beside it (results/h100.md, "Nsight Compute beside other programs"), so the others'
        tests and sanitizers go on. One ncu run at a time on the card, whichever grader runs it, so that two never
        share the monitors."""
        return self._alone_with(self.ctx.counters_lock, WAITING_FOR_THE_GPU)

    @contextmanager
    def _alone_with(self, lock: Mutex, waiting_step: str) -> Iterator[None]:
        """`lock` to this lab alone, waiting for it a step of its own, and the GPU shared."""
        step = self.step
        if not lock.acquire(blocking=False):
            self.next(waiting_step)
            lock.acquire()
            self.next(step)
        try:
            with self.gpu():
                yield
        finally:
            lock.release()

    @contextmanager
    def gpu(self) -> Iterator[None]:
        """The GPU, shared with the other labs' tests, sanitizers, ncu runs, builds and benchmarks setting up;
        nothing to hold on the CPU emulator."""
        if self.ctx.emulator:
            yield
            return
        step, waited = self.step, False

        def waiting() -> None:
            nonlocal waited
            waited = True
            self.next(WAITING_FOR_THE_GPU)

        with self.ctx.gpu_lock.shared(waiting):
            if waited:
                self.next(step)
            yield

    @contextmanager
    def gpu_then_alone(self) -> Iterator[gpu_turn.Hold | None]:
        """The GPU shared while a benchmark starts and sets up, then to it alone from when it asks until its
        launches are over, through the returned hold (grader/execution/gpu_turn.py). None on the CPU emulator."""
        if self.ctx.emulator:
            yield None
            return
        step = self.step

        def waiting() -> None:
            self.next(WAITING_FOR_THE_GPU)

        alone_since: float | None = None

        with self.ctx.gpu_lock.shared_then_exclusive(waiting) as hold:

            def take() -> None:
                nonlocal alone_since
                hold.take()
                alone_since = time.monotonic()
                if self.step != step:
                    self.next(step)

            def give_back() -> None:
                nonlocal alone_since
                if alone_since is not None:
                    alone = time.monotonic() - alone_since
                    self.grade.gpu_alone_seconds = round(self.grade.gpu_alone_seconds + alone, 2)
                    alone_since = None
                hold.give_back()

            if self.step != step:
                self.next(step)
            try:
                yield gpu_turn.Hold(take, give_back)
            finally:
                give_back()


def grade_lab(ctx: Context, lab: Lab, variant: str, progress: Progress = lambda _: None) -> LabGrade:
    grade = LabGrade(lab.name, lab.title, variant, kernel_path(ctx, lab, variant))
    grade.seed, grade.grader_sizes = ctx.seed, lab_sizes(lab, ctx.seed, ctx.instructor_sizes)
    env = {"CML_SEED": str(grade.seed), "CML_GRADER_SIZES": ";".join(grade.grader_sizes)}
    started = time.monotonic()
    steps = Steps(ctx, grade, progress)
    run_steps(ctx, lab, variant, grade, env, steps)
    shown = shown_path(ctx, lab, variant)
    for check in grade.checks:
        check.detail, check.hint = student_paths(check.detail, lab, shown), student_paths(check.hint, lab, shown)
    steps.next("done")
    grade.steps.pop("done", None)
    grade.seconds = round(time.monotonic() - started, 1)
    return score(grade, lab.points)


def run_steps(ctx: Context, lab: Lab, variant: str, grade: LabGrade, env: dict, steps: Steps) -> None:
    """Appends the checks of each step to grade.checks; a step that makes the later ones pointless ends it."""
    timeouts = ctx.config.timeouts

    empty = defines_nothing(ctx, lab, variant, grade)  # read before the build, which may not change it
    steps.next("building")
    library = ctx.tree.kernel_library(lab.name, variant)
    with steps.building():  # the integrity check too: it asks Ninja, and runs the preprocessor, in the folder
        outcome = build.build_lab(ctx.tree, lab.name, variant, timeouts["build"])  # never leaves a stale one
        # Judged on what the compiler read and wrote, before any compiler error: a definition taken from the
        # harness can make the link fail, and an error message can quote a file kernel.cu may not include.
        compiled = library.exists()
        problem = (
            integrity.check_build(ctx.tree, lab.name, variant, compiled, lab.allowed_calls) if ctx.static_checks else ""
        )
    if problem:
        grade.checks.append(Check(INTEGRITY, Category.BUILD, Status.FAILED, problem, INTEGRITY_HINT))
        return
    if not outcome.ok and compiled and empty:
        # It compiled to nothing: the links' errors would name the test program's calls, none of its own lines.
        hint = "start from the lab's skeleton (its kernel.cu in labs/ of the course's repository), which defines each"
        grade.checks.append(Check("build", Category.BUILD, Status.FAILED, empty, hint))
        return
    if not outcome.ok:
        hint = f"fix {grade.kernel_path} until it compiles; the other labs are graded anyway"
        grade.checks.append(Check("build", Category.BUILD, Status.FAILED, build.compiler_errors(outcome), hint))
        return
    grade.checks.append(Check("build", Category.BUILD, Status.PASSED))
    grade.checks.append(Check(INTEGRITY, Category.BUILD, Status.PASSED))
    steps.next("reading the resource report")
    report = read_resources(ctx, lab, variant)
    grade.resources, grade.resources_problem = report.kernels, report.problem
    code = read_machine_code(ctx, lab, variant)

    if ctx.emulator:
        steps.next("building for the CPU emulator")
        with steps.building():
            outcome = build.build_lab(ctx.tree, lab.name, variant, timeouts["build"], emulated=True)
            checked = outcome.ok and ctx.static_checks
            problem = integrity.check_emulator_build(ctx.tree, lab.name, variant, lab.allowed_calls) if checked else ""
        if not outcome.ok:
            # nvcc compiled it, so it is CUDA; only the emulator cannot run it.
            reason = f"not run: the CPU emulator could not build it:\n{build.compiler_errors(outcome)}"
            grade.checks += later_checks(lab, Status.NOT_RUN, reason, report, code, tests=True)
            return
        if problem:  # the nvcc object passed: this is the object the emulator grades
            grade.checks = [c for c in grade.checks if c.name != INTEGRITY]
            grade.checks.append(Check(INTEGRITY, Category.BUILD, Status.FAILED, problem, INTEGRITY_HINT))
            return

    if not ctx.gpu.present and not ctx.emulator:
        grade.checks += later_checks(lab, Status.NOT_RUN, ctx.gpu.reason, report, code, tests=True)
        return

    steps.next("running the correctness tests")
    test_program = ctx.tree.binary(lab.name, variant, "test", ctx.emulator)
    with steps.gpu():
        tests = suite.run_suite(test_program, ctx.tree.checker(lab.name), steps.limit(lab, "tests"), env)
    steps.ran("tests", tests.outcome)
    tests.todos = suite.shown_todos(tests.todos, lab.name, SKELETONS / lab.name / "kernel.cu")
    handout = f"labs/{lab.name}/README.md"
    found = checks.correctness_checks(tests, handout, replay_command(test_program, env, replay_in_a_clone(ctx, lab)))
    grade.checks += [emulated(c) for c in found] if ctx.emulator else found

    if tests.outcome.timed_out:
        # The same kernel would hang every later step as well: stop here, with the reason on each check.
        ended = f"not run: the test program {tests.outcome.how_it_ended()}"
        stopped = later_checks(lab, Status.FAILED, ended, report, code)
        from_nvcc = {m.name for m in lab.mechanisms if m.tool in FROM_NVCC}  # read as on a GPU: no emulator mark
        grade.checks += [emulated(c) if ctx.emulator and c.name not in from_nvcc else c for c in stopped]
        return

    timed = LabBench(ctx, lab, variant, steps)
    counters, test_runs = LabCounters(ctx, lab, variant, steps, timed), LabTestRuns(ctx, lab, variant, steps, env)
    for mechanism in lab.mechanisms:
        steps.next(mechanism.name)
        if mechanism.stretch:
            grade.checks.append(stretch_check(mechanism, grade.checks, report, code))
            continue
        grade.checks.append(
            mechanism_check(
                ctx,
                mechanism,
                correctness_passed(grade.checks),
                counters,
                test_runs,
                steps,
                report,
                code,
            )
        )

    steps.next("benchmarking")
    grade.checks += performance(ctx, lab, grade, timed)


def read_resources(ctx: Context, lab: Lab, variant: str) -> resources.ResourceReport:
    """The compiler's resource report of the nvcc object of the kernel.cu, which is built on every machine."""
    folders = [folder for _, folder in ctx.tree.compilers()]
    return resources.read_report(ctx.tree.kernel_library(lab.name, variant), resources.find_tool(folders))


def read_machine_code(ctx: Context, lab: Lab, variant: str) -> sass.SassReport:
    """The loads and texture fetches of the nvcc object's machine code, read only for a lab that checks them."""
    if not any(m.tool == "sass" for m in lab.mechanisms):
        return sass.SassReport(problem="not read: no check of this lab reads the machine code")
    folders = [folder for _, folder in ctx.tree.compilers()]
    return sass.read_report(ctx.tree.kernel_library(lab.name, variant), folders)


def defines_nothing(ctx: Context, lab: Lab, variant: str, grade: LabGrade) -> str:
    """One line saying that the kernel.cu defines none of the functions the lab's test calls; '' where it names
    any of them (a file that cannot be read is the build's to report)."""
    functions = interface_functions(lab.name)
    try:
        source = ctx.tree.kernel_source(lab.name, variant).read_bytes()
    except OSError:
        return ""
    if not defines_none_of(source, functions):
        return ""
    return f"{grade.kernel_path} defines nothing: none of the functions the lab's test calls ({', '.join(functions)})"


def replay_in_a_clone(ctx: Context, lab: Lab) -> tuple[str, Path] | None:
    """For a submission (graded in the grader's folders, which the student never sees): the command that builds
    the same program in the student's own clone, and the build folder its path is taken from; None for a
    grade of this checkout, where the program is replayed where it is."""
    if not ctx.kernel_sources:
        return None
    return f"./cml grade --lab {lab_option(lab.name)} --seed {ctx.seed}", ctx.tree.directory


def replay_command(program: Path, env: dict, clone: tuple[str, Path] | None = None) -> Callable[[str], str]:
    """The command that runs one case again on the same inputs, as a person types it in the checkout. For a
    submission (`clone`: replay_in_a_clone), as the student types it in their own clone: the grade that builds
    the program with the same seed, then the program in build/, where ./cml grade puts it."""
    shown = program.relative_to(Path.cwd()) if program.is_relative_to(Path.cwd()) else program
    first = ""
    if clone and program.is_relative_to(clone[1]):
        first, shown = f"{clone[0]} && ", Path("build") / program.relative_to(clone[1])
    variables = " ".join(f"{name}='{value}'" for name, value in env.items() if value)

    def command(case: str) -> str:
        # doctest's filter: a comma separates two filters, so a name is cut before its first comma.
        pattern = case.split(",")[0] + ("*" if "," in case else "")
        return f'{first}{variables} {shown} -tc="{pattern}"'

    return command


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


def counted_groups(lab: Lab) -> dict[str, tuple[list[str], list[str]]]:
    """Each group of the lab's counted checks (COUNTED): the roles and the metrics its checks name."""
    groups: dict[str, tuple[list[str], list[str]]] = {}
    for check in (m for m in lab.mechanisms if m.tool in COUNTED):
        roles, metrics = groups.setdefault(check.group, ([], []))
        roles += [role for role in check.roles if role not in roles]
        metrics += [name for name in check.metrics if name not in metrics]
    return groups


def printed_only(thresholds: dict[str, Thresholds]) -> tuple[str, ...]:
    """The groups that this GPU's thresholds grade by no time: their figures are only shown, so the benchmark
    times them over fewer launches (cml/bench.hpp: kPrintedOnlyLaunches) and holds the GPU alone for less."""
    return tuple(
        sorted(group for group, t in thresholds.items() if t.min_speedup is None and t.min_copy_fraction is None)
    )


class LabBench:
    """A lab's timed run of its benchmark, made once, when first asked: by a counter check whose counters the
    counters recorder counts in that run (grader/steps/profile.py), else by the benchmark step, which reads the
    same run either way."""

    def __init__(self, ctx: Context, lab: Lab, variant: str, steps: Steps):
        self.ctx, self.lab, self.variant, self.steps = ctx, lab, variant, steps
        self.made: bench.BenchRun | None = None
        self.counting = self._counting()

    def _counting(self) -> profile.Counting | None:
        """What the recorder counts in the run: every group whose metrics it can count; None where there is no
        GPU, no counter check to run, or no recorder in the build."""
        recorder = self.ctx.tree.counters_recorder()
        if self.ctx.emulator or not self.ctx.run_mechanisms or not recorder.is_file():
            return None
        groups = {g: found for g, found in counted_groups(self.lab).items() if profile.counted_in_bench(found[1])}
        launches = [(group, role) for group, (roles, _) in groups.items() for role in roles]
        metrics = list(dict.fromkeys(name for _, names in groups.values() for name in names))
        return profile.Counting(recorder, launches, metrics) if launches else None

    def counts(self, group: str) -> bool:
        """Whether the run's recorder counts `group`'s launches."""
        return self.counting is not None and any(g == group for g, _ in self.counting.launches)

    def run(self) -> bench.BenchRun:
        if self.made is None:
            self.made = self.timed(self.counting)
        return self.made

    def timed(self, counting: profile.Counting | None = None) -> bench.BenchRun:
        """A run of the benchmark with the GPU to itself while its launches run (and `counting`, where given)."""
        binary, timeout = (
            self.ctx.tree.binary(self.lab.name, self.variant, "bench"),
            self.steps.limit(self.lab, "bench"),
        )
        thresholds = self.ctx.target.for_lab(self.lab.name) if self.ctx.target else {}
        with self.steps.gpu_then_alone() as hold:
            timed = bench.run_bench(binary, timeout, hold, counting, printed_only(thresholds))
        self.steps.ran("bench", timed.outcome)
        return timed


class LabCounters:
    """The counters of a lab's counted checks, per group, read when the first check of the group asks: from the
    benchmark's timed run where the counters recorder counts the group, else from a profiling run of the
    benchmark of the group's own, under ncu, with every metric and role the lab's checks of that group name."""

    def __init__(self, ctx: Context, lab: Lab, variant: str, steps: Steps, timed: LabBench):
        self.ctx, self.lab, self.variant, self.steps, self.timed = ctx, lab, variant, steps, timed
        self.runs: dict[str, dict[str, profile.CounterRun]] = {}

    def of(self, mechanism: MechanismCheck) -> dict[str, profile.CounterRun]:
        """role -> its counters, in the group of `mechanism`."""
        group = mechanism.group
        if group not in self.runs:
            self.runs[group] = self._read(group)
        return self.runs[group]

    def available(self, group: str) -> bool:
        """Whether anything here counts `group`: the recorder, or ncu."""
        return self.ctx.emulator or self.timed.counts(group) or self.ctx.ncu is not None

    def _read(self, group: str) -> dict[str, profile.CounterRun]:
        ctx = self.ctx
        roles, metrics = counted_groups(self.lab)[group]
        if ctx.emulator:
            bench_program = ctx.tree.binary(self.lab.name, self.variant, "bench", emulated=True)
            size = max(m.profile_size for m in self.lab.mechanisms if m.tool in COUNTED and m.group == group)
            timeout = self.steps.limit(self.lab, "profile")
            return profile.read_emulated_counters(bench_program, metrics, roles, group, size, timeout)
        if self.timed.counts(group):
            recorded = self.timed.run().counters
            assert recorded is not None  # a run made with counting
            # The recorder's own failure is the grader's: ncu counts instead, where there is one; else the
            # checks are not run, with the recorder's reason (recorded.of).
            if not recorded.failure or ctx.ncu is None:
                return recorded.of(group, roles)
        return self._profiled(group, roles, metrics)

    def _profiled(self, group: str, roles: list[str], metrics: list[str]) -> dict[str, profile.CounterRun]:
        """`group`'s counters from a run of the benchmark under ncu."""
        assert self.ctx.ncu is not None  # mechanism_check() asks for no counters where nothing counts them
        bench_program = self.ctx.tree.binary(self.lab.name, self.variant, "bench")
        with self.steps.counters():
            runs = profile.read_counters(
                self.ctx.ncu, bench_program, metrics, roles, group, self.steps.limit(self.lab, "profile")
            )
        for run in runs.values():  # the roles share one run of the program
            self.steps.ran("profile", run.outcome)
        return runs


class LabTestRuns:
    """The runs of a lab's test program that its schedule and sanitizer checks read, each made once, the schedule's
    reporting every aspect of the lab's checks that run here (sanitize.aspect_view gives each check its own
    verdict). On a GPU the first check to ask starts every run the lab's checks will read, side by side under one
    shared hold of the GPU: each run waits on the GPU for a part of its time, and one after another they were the
    longest way to a lab's benchmark (Lab 10: the schedule's run, then memcheck's). On the CPU emulator, whose runs
    are all the CPU's work, each is made when its check asks."""

    def __init__(self, ctx: Context, lab: Lab, variant: str, steps: Steps, env: dict):
        self.ctx, self.lab, self.variant, self.steps, self.env = ctx, lab, variant, steps, env
        self.made: dict[str, sanitize.SanitizerRun] = {}

    def aspects(self) -> str:
        """The aspects of the lab's schedule checks that run here (one with a gpu_reason runs on the emulator)."""
        graded = [m for m in self.lab.mechanisms if m.tool == "schedule" and (self.ctx.emulator or not m.gpu_reason)]
        return ",".join(dict.fromkeys(m.schedule for m in graded))

    def wanted(self) -> list[str]:
        """The tools whose runs the lab's checks read on this GPU (mechanism_check asks for no other)."""
        ctx, tools = self.ctx, []
        for m in self.lab.mechanisms:
            if m.stretch or m.gpu_reason:
                continue
            if m.tool == "schedule" and ctx.tree.schedule_recorder().is_file():
                tools.append(m.tool)
            elif m.tool in sanitize.SANITIZERS and ctx.sanitizer is not None:
                tools.append(m.tool)
        return list(dict.fromkeys(tools))

    def of(self, tool: str) -> sanitize.SanitizerRun:
        if tool not in self.made:
            if self.ctx.emulator:
                self.made[tool] = self._run(tool)
            else:
                tools = list(dict.fromkeys([tool, *(t for t in self.wanted() if t not in self.made)]))
                with self.steps.gpu(), ThreadPoolExecutor(len(tools)) as pool:
                    self.made.update(zip(tools, pool.map(self._run, tools), strict=True))
        return self.made[tool]

    def _run(self, tool: str) -> sanitize.SanitizerRun:
        """One run, with the GPU held by the caller where there is one."""
        ctx, lab, variant = self.ctx, self.lab, self.variant
        binary, checker = ctx.tree.binary(lab.name, variant, "test", ctx.emulator), ctx.tree.checker(lab.name)
        limit = self.steps.limit(lab, tool)
        if tool == "schedule":
            if ctx.emulator:
                return sanitize.run_emulated(tool, binary, checker, limit, self.env, self.aspects())
            return sanitize.run_recorded(ctx.tree.schedule_recorder(), binary, checker, limit, self.env, self.aspects())
        if ctx.emulator:
            return sanitize.run_emulated(tool, binary, checker, limit, self.env)
        assert ctx.sanitizer is not None  # wanted() and mechanism_check() ask for no sanitizer run without one
        return sanitize.run_sanitizer(tool, ctx.sanitizer, binary, checker, limit, self.env)


def mechanism_check(
    ctx: Context,
    mechanism: MechanismCheck,
    correct: bool,
    counters: LabCounters,
    test_runs: LabTestRuns,
    steps: Steps,
    report: resources.ResourceReport,
    code: sass.SassReport | None = None,
) -> Check:
    def not_run(reason: str) -> Check:
        return Check(mechanism.name, Category.MECHANISM, Status.NOT_RUN, reason)

    if not ctx.run_mechanisms:
        return not_run("turned off (--no-mechanisms)")
    if mechanism.tool in FROM_NVCC:  # read from nvcc's object, the same with a GPU or without one
        return withheld_unless(object_check(mechanism, report, code), correct)
    if not ctx.gpu.present and not ctx.emulator:
        return not_run(ctx.gpu.reason)
    if mechanism.gpu_reason and not ctx.emulator:
        return not_run(mechanism.gpu_reason)
    if mechanism.tool in sanitize.SANITIZERS or mechanism.tool == "schedule":
        if mechanism.tool == "schedule":  # one run of the lab's test program serves every schedule check
            if not ctx.emulator and not ctx.tree.schedule_recorder().is_file():
                return not_run(sanitize.NO_RECORDER)
            run = sanitize.aspect_view(test_runs.of("schedule"), mechanism.schedule)
        elif not ctx.emulator and ctx.sanitizer is None:
            return not_run("compute-sanitizer not found (it comes with the CUDA toolkit)")
        elif ctx.emulator and mechanism.tool not in sanitize.EMULATED_TOOLS:
            return not_run(f"no GPU, and the CPU emulator has no {mechanism.tool}")
        else:
            run = test_runs.of(mechanism.tool)
        steps.ran(mechanism.tool, run.outcome)
        check = checks.sanitizer_check(mechanism, run)
        if check.status is Status.PASSED and correct and not run.results_right:
            check = checks.order_dependent(mechanism, run)
        # A clean report counts only if this very run computed the right results (the checker's verdict).
        correct = correct and run.results_right
    elif mechanism.tool == "occupancy":
        if not counters.available(mechanism.group):
            return not_run("ncu (Nsight Compute) not found, and it tells the launch's shape")
        runs = counters.of(mechanism)
        limits = occupancy.load_limits()[mechanism.gpu]
        check = checks.occupancy_check(mechanism, report, runs["student"], runs["baseline"], limits)
    elif mechanism.tool == "ncu":
        if not counters.available(mechanism.group):
            return not_run("ncu (Nsight Compute) not found, and the build has no counters recorder")
        if ctx.emulator and mechanism.gpu_only:
            return not_run(f"counted on a GPU only: {mechanism.gpu_only}")
        runs = counters.of(mechanism)
        compared = runs[mechanism.roles[1]] if len(mechanism.roles) > 1 else None
        check = checks.counter_check(mechanism, runs["student"], compared)
    else:
        raise ValueError(f"unknown mechanism tool {mechanism.tool!r} in labs.toml")
    check = withheld_unless(check, correct)
    return emulated(check) if ctx.emulator else check


def object_check(
    mechanism: MechanismCheck, report: resources.ResourceReport, code: sass.SassReport | None = None
) -> Check:
    """A check judged from nvcc's object alone: its resource report, or its machine code (None: not read)."""
    if mechanism.tool == "sass":
        return checks.sass_check(mechanism, code or sass.SassReport(problem=f"{sass.UNREADABLE}: not read"))
    return checks.resource_check(mechanism, report)


def stretch_check(
    mechanism: MechanismCheck, graded: list[Check], report: resources.ResourceReport, code: sass.SassReport
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
        return Check(check.name, Category.MECHANISM, Status.WITHHELD, detail)
    return check


def performance(ctx: Context, lab: Lab, grade: LabGrade, timed: LabBench) -> list[Check]:
    name = lab.speedup_check()
    if not ctx.run_bench:
        return [Check(name, Category.PERFORMANCE, Status.NOT_RUN, "turned off (--no-bench)")]
    if not ctx.gpu.present:
        return [Check(name, Category.PERFORMANCE, Status.NOT_RUN, NO_TIMING if ctx.emulator else ctx.gpu.reason)]
    thresholds = ctx.target.for_lab(lab.name) if ctx.target else {}
    remeasured = ""
    run = timed.run()
    if run.result and checks.near_miss(lab, run.result, thresholds, NEAR_MISS_BAND):
        # Just short of a threshold: measure twice more, and judge the median of the three runs.
        again = (timed.timed() for _ in range(2))
        results = [run.result] + [r.result for r in again if r.result]
        run = bench.BenchRun(run.outcome, bench.median_of(results))
        remeasured = f" (re-measured, just short of a threshold: median of {len(results)} runs)"
    grade.bench = run.result
    grade.rates = run.result.rates(lab.memory_bound) if run.result else []
    # A lab added after this GPU's calibration is missing from its file: say which file, and what measures it.
    device = f"{ctx.gpu.name} in {ctx.target.shown_path()}" if ctx.target else ctx.gpu.name
    found = checks.performance_checks(lab, run, thresholds, device)
    for check in found:
        if check.category is Category.PERFORMANCE and check.status in (Status.PASSED, Status.FAILED):
            check.detail += remeasured
    return found
