"""The runs of a lab's test program that its schedule and sanitizer checks read (lab_runs.LabTestRuns): on a GPU the
first check to ask starts all of them side by side under one shared hold of the GPU; on the CPU emulator one run
makes the schedule check and a sanitizer's together, when the first of them asks."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

from grader.execution import proc
from grader.execution.gpu import Gpu
from grader.grading import lab_runs
from grader.grading.context import Context
from grader.grading.evidence import Timing
from grader.grading.plan import needed_runs
from grader.steps import sanitize
from grader.steps.build_tree import BuildTree

SIDE_BY_SIDE_S = 10  # a barrier that only runs started together pass


def a_run(tool: str) -> sanitize.SanitizerRun:
    return sanitize.SanitizerRun(
        tool, proc.Outcome([tool], 0, "", "", 60.0), True, f"{tool}: clean", "", results_right=True
    )


def lab_ten_runs(config, tmp_path: Path, emulator: bool = False) -> lab_runs.LabTestRuns:
    tree = BuildTree(tmp_path, "sm_90")
    tree.schedule_recorder().write_bytes(b"\x7fELF the grader's recorder")
    sanitizer = None if emulator else Path("compute-sanitizer")
    ctx = Context(config, tree, Gpu(not emulator, "Test GPU", "9.0"), None, sanitizer, None, emulator=emulator)
    lab = config.lab("10")  # its schedule checks and memcheck read two runs of its test program
    steps = lab_runs.Steps(ctx, Timing(), lambda _: None)
    return lab_runs.LabTestRuns(ctx, lab, "solution", steps, {"CML_SEED": "1"}, ctx.facts())


def test_on_a_gpu_the_schedule_run_and_memcheck_run_side_by_side_under_one_hold(config, tmp_path, monkeypatch):
    together = threading.Barrier(2, timeout=SIDE_BY_SIDE_S)
    started: list[str] = []

    def sanitizer(tool, *_):
        started.append(tool)
        together.wait()  # broken, and raising, unless the other run started too
        return a_run(tool)

    monkeypatch.setattr(sanitize, "run_sanitizer", sanitizer)
    monkeypatch.setattr(sanitize, "run_recorded", lambda *_: sanitizer("schedule"))
    holds: list[str] = []

    @contextlib.contextmanager
    def gpu(self):
        holds.append(self.step)
        yield

    monkeypatch.setattr(lab_runs.Steps, "gpu", gpu)
    runs = lab_ten_runs(config, tmp_path)
    assert needed_runs(runs.lab, runs.facts) == ["schedule", "memcheck"]
    assert runs.of("schedule").summary == "schedule: clean"
    assert sorted(started) == ["memcheck", "schedule"] and len(holds) == 1
    assert runs.of("memcheck").summary == "memcheck: clean"  # made already: no run, no hold more
    assert len(started) == 2 and len(holds) == 1


def test_on_the_emulator_the_schedules_run_makes_memchecks_too(config, tmp_path, monkeypatch):
    made: list[tuple[str, ...]] = []

    def emulated(tools, *_args):
        made.append(tools)
        return {tool: a_run(tool) for tool in tools}

    monkeypatch.setattr(sanitize, "run_emulated_together", emulated)
    runs = lab_ten_runs(config, tmp_path, emulator=True)
    assert runs.of("schedule").summary == "schedule: clean"
    assert made == [("schedule", "memcheck")]
    assert runs.of("memcheck").summary == "memcheck: clean"  # made already: no run more
    assert made == [("schedule", "memcheck")]


def test_on_the_emulator_two_sanitizers_never_share_a_run():
    assert lab_runs.emulated_together("memcheck", ["racecheck", "memcheck"], {}) == ("memcheck",)
    assert lab_runs.emulated_together("memcheck", ["schedule", "memcheck", "racecheck"], {}) == ("schedule", "memcheck")
    assert lab_runs.emulated_together("schedule", ["schedule", "racecheck", "memcheck"], {}) == (
        "schedule",
        "racecheck",
    )
    assert lab_runs.emulated_together("memcheck", ["schedule", "racecheck", "memcheck"], {"schedule": 1}) == (
        "memcheck",
    )
    assert lab_runs.emulated_together("schedule", ["schedule"], {}) == ("schedule",)


def test_a_sanitizer_the_gpu_has_no_tool_for_is_not_asked_for(config, tmp_path):
    runs = lab_ten_runs(config, tmp_path)
    runs.ctx.sanitizer = None  # plan.need says "not found" for memcheck, and asks only for the schedule
    assert needed_runs(runs.lab, runs.ctx.facts()) == ["schedule"]
    runs.ctx.tree.schedule_recorder().unlink()
    assert needed_runs(runs.lab, runs.ctx.facts()) == []
