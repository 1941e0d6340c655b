"""The runs of a lab's programs, each made once, and how the labs graded at once take turns: the build folder
(one build at a time), the GPU (shared, or alone for a benchmark's launches), and its performance monitors (one
ncu run at a time). Each step's wall time goes into the lab's Timing, and waiting for the build folder or the
GPU is a step of its own, so that the others' times stay honest."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager

from grader.core.config import Lab, Thresholds
from grader.execution import gpu_turn, proc
from grader.execution.gpu_lock import Mutex
from grader.grading.context import Context
from grader.grading.evidence import Facts, Timing
from grader.grading.plan import counted, counted_by_recorder, counted_groups, needed_runs, schedule_aspects
from grader.steps import bench, profile, sanitize, time_limits

WAITING_TO_BUILD = "waiting to build"  # another lab of the run is building in the same folder
WAITING_FOR_THE_GPU = "waiting for the GPU"  # a benchmark has it, or is next in line; or another ncu run

Progress = Callable[[str], None]


class Steps:
    """A lab's way through its steps: each step's wall time, from one to the next, into `timing`, and each
    reported to `progress` as it starts."""

    def __init__(self, ctx: Context, timing: Timing, progress: Progress) -> None:
        self.ctx, self.timing, self.progress = ctx, timing, progress
        self.step, self.started = "checking the source", time.monotonic()

    def limit(self, lab: Lab, step: str) -> proc.TimeLimit:
        """The time limit of `step` of `lab` here (grader/steps/time_limits.py)."""
        return time_limits.step_limit(self.ctx.config, self.ctx.target, lab.name, step, self.ctx.gpu.name)

    def ran(self, step: str, outcome: proc.Outcome) -> None:
        """Keeps how long `step`'s program ran: the longest of its runs (a benchmark may run three times)."""
        seconds = max(self.timing.program_seconds.get(step, 0.0), outcome.seconds)
        self.timing.program_seconds[step] = round(seconds, 2)

    def next(self, name: str) -> None:
        now = time.monotonic()
        self.timing.steps[self.step] = round(self.timing.steps.get(self.step, 0.0) + now - self.started, 2)
        self.step, self.started = name, now
        self.progress(name)

    def building(self) -> AbstractContextManager[None]:
        """The build folder, to this lab alone among the run's labs. And the GPU, shared: a build keeps every core
        busy, which would disturb a benchmark's clocks and launches (its thresholds were measured on a quiet
        machine), so no build runs beside a benchmark's launches."""
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
                    self.timing.gpu_alone_seconds = round(self.timing.gpu_alone_seconds + alone, 2)
                    alone_since = None
                hold.give_back()

            if self.step != step:
                self.next(step)
            try:
                yield gpu_turn.Hold(take, give_back)
            finally:
                give_back()


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

    def __init__(self, ctx: Context, lab: Lab, variant: str, steps: Steps, facts: Facts, seed: dict | None = None):
        self.ctx, self.lab, self.variant, self.steps = ctx, lab, variant, steps
        self.seed = seed or {}  # the grade's CML_SEED: the benchmark's inputs are drawn again in a replay
        self.made: bench.BenchRun | None = None
        self.counting = self._counting(facts)

    def _counting(self, facts: Facts) -> profile.Counting | None:
        """What the recorder counts in the run: every group whose metrics it can count (plan.counted_by_recorder)."""
        groups = counted_by_recorder(self.lab, facts)
        launches = [(group, role) for group, (roles, _) in groups.items() for role in roles]
        metrics = list(dict.fromkeys(name for _, names in groups.values() for name in names))
        return profile.Counting(self.ctx.tree.counters_recorder(), launches, metrics) if launches else None

    def counts(self, group: str) -> bool:
        """Whether the run's recorder counts `group`'s launches."""
        return self.counting is not None and any(g == group for g, _ in self.counting.launches)

    def run(self) -> bench.BenchRun:
        if self.made is None:
            self.made = self.timed(self.counting)
        return self.made

    def timed(self, counting: profile.Counting | None = None) -> bench.BenchRun:
        """A run of the benchmark with the GPU to itself while its launches run (and `counting`, where given)."""
        binary = self.ctx.program(self.lab.name, self.variant, "bench")
        timeout = self.steps.limit(self.lab, "bench")
        with self.steps.gpu_then_alone() as hold:
            only_printed = printed_only(self.ctx.thresholds_of(self.lab))
            timed = bench.run_bench(binary, timeout, hold, counting, only_printed, self.seed)
        self.steps.ran("bench", timed.outcome)
        return timed


class LabCounters:
    """The counters of a lab's counted checks, per group, read when the first check of the group asks: from the
    benchmark's timed run where the counters recorder counts the group, else from a profiling run of the
    benchmark of the group's own, under ncu, with every metric and role the lab's checks of that group name."""

    def __init__(self, ctx: Context, lab: Lab, variant: str, steps: Steps, timed: LabBench):
        self.ctx, self.lab, self.variant, self.steps, self.timed = ctx, lab, variant, steps, timed

    def of(self, group: str) -> dict[str, profile.CounterRun]:
        """role -> its counters, in `group`."""
        ctx = self.ctx
        roles, metrics = counted_groups(self.lab)[group]
        if ctx.emulator:
            bench_program = ctx.program(self.lab.name, self.variant, "bench", emulated=True)
            size = max(m.profile_size for m in self.lab.mechanisms if counted(m) and m.group == group)
            timeout = self.steps.limit(self.lab, "profile")
            return profile.read_emulated_counters(bench_program, metrics, roles, group, size, timeout, self.timed.seed)
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
        assert self.ctx.ncu is not None  # plan.need asks for no counters where nothing counts them
        bench_program = self.ctx.program(self.lab.name, self.variant, "bench")
        with self.steps.counters():
            limit = self.steps.limit(self.lab, "profile")
            runs = profile.read_counters(self.ctx.ncu, bench_program, metrics, roles, group, limit, self.timed.seed)
        for run in runs.values():  # the roles share one run of the program
            self.steps.ran("profile", run.outcome)
        return runs


class LabTestRuns:
    """The runs of a lab's test program that its schedule and sanitizer checks read, each made once, the schedule's
    reporting every aspect of the lab's checks that run here (sanitize.aspect_view gives each check its own
    verdict). On a GPU the first check to ask starts every run the lab's checks will read, side by side under one
    shared hold of the GPU: each run waits on the GPU for a part of its time, and one after another they were the
    longest way to a lab's benchmark (Lab 10: the schedule's run, then memcheck's). On the CPU emulator, whose runs
    are all the CPU's work, a run is made when its check asks, and the schedule's run makes a sanitizer's check
    too (emulated_together): Lab 10's grade ran its test program once less."""

    def __init__(self, ctx: Context, lab: Lab, variant: str, steps: Steps, env: dict, facts: Facts):
        self.ctx, self.lab, self.variant, self.steps, self.env, self.facts = ctx, lab, variant, steps, env, facts
        self.made: dict[str, sanitize.SanitizerRun] = {}

    def of(self, tool: str) -> sanitize.SanitizerRun:
        if tool not in self.made:
            wanted = needed_runs(self.lab, self.facts)
            if self.ctx.emulator:
                self.made.update(self._emulated(emulated_together(tool, wanted, self.made)))
            else:
                tools = list(dict.fromkeys([tool, *(t for t in wanted if t not in self.made)]))
                with self.steps.gpu(), ThreadPoolExecutor(len(tools)) as pool:
                    self.made.update(zip(tools, pool.map(self._run, tools), strict=True))
        return self.made[tool]

    def _emulated(self, tools: tuple[str, ...]) -> dict[str, sanitize.SanitizerRun]:
        """`tools`' checks from one run of the emulator's build, under the longest of their limits."""
        ctx, lab = self.ctx, self.lab
        binary, checker = ctx.program(lab.name, self.variant, "test", True), ctx.tree.checker(lab.name)
        limit = max((self.steps.limit(lab, tool) for tool in tools), key=lambda limit: limit.seconds)
        aspects = schedule_aspects(lab, self.facts) if "schedule" in tools else ""
        return sanitize.run_emulated_together(tools, binary, checker, limit, self.env, aspects)

    def _run(self, tool: str) -> sanitize.SanitizerRun:
        """One run on a GPU, held by the caller."""
        ctx, lab = self.ctx, self.lab
        binary, checker = ctx.program(lab.name, self.variant, "test"), ctx.tree.checker(lab.name)
        limit = self.steps.limit(lab, tool)
        if tool == "schedule":
            aspects = schedule_aspects(lab, self.facts)
            return sanitize.run_recorded(ctx.tree.schedule_recorder(), binary, checker, limit, self.env, aspects)
        assert ctx.sanitizer is not None  # plan.need asks for no sanitizer run without one
        return sanitize.run_sanitizer(tool, ctx.sanitizer, binary, checker, limit, self.env)


def emulated_together(tool: str, wanted: list[str], made: Collection[str]) -> tuple[str, ...]:
    """The checks one run of the CPU emulator makes when `tool`'s check asks, of the runs the lab's checks read
    (`wanted`) that are not `made` yet: the schedule's with one sanitizer's, which the emulator reports apart
    (sanitize.run_emulated_together); a sanitizer alone otherwise. Two sanitizers never share a run: the
    emulator counts their errors in one summary."""
    if "schedule" not in wanted or "schedule" in made:
        return (tool,)
    partner = tool if tool != "schedule" else next((t for t in wanted if t != "schedule" and t not in made), None)
    return ("schedule", partner) if partner else ("schedule",)
