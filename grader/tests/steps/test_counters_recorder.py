"""The counter checks on a GPU from the benchmark's own timed run: the recorder the grader injects into it
(common/counters/cupti_counters.cpp), its host-side parts' own tests, the lines it answers with and what the grade
makes of them, checked here without a GPU; on a GPU, its counts beside Nsight Compute's, which stays the reference
(skipped elsewhere)."""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path

import pytest

from grader.core.config import MechanismCheck, load_config
from grader.core.model import Status
from grader.execution import proc, sandbox
from grader.execution.gpu import Gpu, find_tool
from grader.grading import checks, lab_runs
from grader.grading.context import Context
from grader.grading.evidence import Timing
from grader.grading.plan import counted_groups
from grader.steps import bench, build, build_tree, profile
from grader.tests.support import recorders as injected

LAUNCHES = [("R = 1", "student"), ("R = 1", "baseline")]
METRICS = ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sm__warps_active.avg.pct_of_peak_sustained_active"]


def test_the_recorders_host_side_passes_its_own_tests(built_tree, config):
    injected.passes_its_own_tests(built_tree, config, "cml_counters_selftest")


def test_the_recorder_builds_where_cupti_is_and_offers_both_injection_entries(built_tree, config):
    injected.offers_both_injection_entries(
        built_tree, config, build_tree.COUNTERS_TARGET, built_tree.counters_recorder()
    )


def test_a_grade_builds_the_counters_recorder_beside_the_schedule_recorder_for_a_gpu_only(tmp_path):
    tree = build_tree.BuildTree(tmp_path, "sm_90")
    (tmp_path / "meson-info").mkdir()
    targets = [{"name": build_tree.RECORDER_TARGET}, {"name": build_tree.COUNTERS_TARGET}]
    (tmp_path / "meson-info" / "intro-targets.json").write_text(json.dumps(targets))
    assert tree.recorder_targets(emulated=False) == [build_tree.RECORDER_TARGET, build_tree.COUNTERS_TARGET]
    assert tree.recorder_targets(emulated=True) == []
    assert tree.counters_recorder() == tmp_path / f"lib{build_tree.COUNTERS_TARGET}.so"


def counting(tmp_path: Path) -> profile.Counting:
    recorder = tmp_path / "libcml_counters_recorder.so"
    recorder.write_bytes(b"\x7fELF the grader's recorder")
    return profile.Counting(recorder, list(LAUNCHES), list(METRICS))


def outcome(stderr: str, returncode: int = 0) -> proc.Outcome:
    return proc.Outcome(["bench"], returncode, "", stderr, 60.0)


def test_each_run_has_a_mark_of_its_own_and_the_recorder_is_asked_for_every_launch_and_metric(tmp_path):
    asked = counting(tmp_path)
    first, second = asked.variables(), asked.variables()
    assert first["CML_COUNTERS_MARK"] != second["CML_COUNTERS_MARK"] == asked.mark
    assert len(asked.mark) == 32
    assert first["CUDA_INJECTION64_PATH"] == first["NVTX_INJECTION64_PATH"] == str(profile.COUNTERS_RECORDER)
    assert first["CML_COUNTED_LAUNCHES"] == "R = 1\tstudent\nR = 1\tbaseline\n"
    assert first["CML_COUNTER_METRICS"] == ",".join(METRICS)


def test_in_the_sandbox_the_recorder_is_a_read_only_copy_of_the_grader(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "unavailable", lambda: "")
    monkeypatch.setattr(sandbox, "bwrap", lambda: "/usr/bin/bwrap")
    asked = counting(tmp_path)
    binary = tmp_path / "05_padded_transpose_student_bench"
    binary.write_bytes(b"\x7fELF a benchmark")
    scratch = tmp_path / "run"
    scratch.mkdir()
    program = sandbox.ProgramRun(binary, scratch, asked.variables(), files=asked.files())
    command = program.command([str(sandbox.PROGRAM)])
    at = command.index(str(profile.COUNTERS_RECORDER))
    assert command[at - 2 : at] == ["--ro-bind", str(scratch / profile.COUNTERS_RECORDER.name)]


def line(mark: str, said: dict) -> str:
    return f"{profile.RECORDER_LINE}{mark} {json.dumps(said)}"


def test_only_the_lines_with_the_runs_mark_count_and_a_launch_never_reached_has_no_counters(tmp_path):
    asked = counting(tmp_path)
    asked.variables()
    printed = "\n".join(
        [
            "seed 1 (set CML_SEED to repeat)",
            line(asked.mark, {"launch": 0, "kernels": 1, "dropped": 0, "values": [1000.0, 55.5]}),
            line("0" * 32, {"launch": 1, "kernels": 1, "dropped": 0, "values": [1.0, 1.0]}),  # forged: not the mark
            f"{profile.RECORDER_LINE}{asked.mark}x " + json.dumps({"launch": 1}),
        ]
    )
    recorded = profile.read_recorded(asked, outcome(printed))
    student, baseline = recorded.of("R = 1", ["student", "baseline"]).values()
    assert recorded.failure == ""
    assert (student.kernels, student.totals) == (1, dict(zip(METRICS, [1000.0, 55.5], strict=True)))
    assert (baseline.kernels, baseline.totals) == (0, {})
    assert student.tool == profile.RECORDER_TOOL
    check = checks.counter_check(
        MechanismCheck("c", "ncu", numerator=METRICS[0], relative_to="baseline"), student, baseline
    )
    assert check.status is Status.NOT_RUN  # a ratio over a launch never counted is no evidence


def test_a_metric_cupti_gave_no_value_for_is_absent_never_zero(tmp_path):
    asked = counting(tmp_path)
    asked.variables()
    printed = line(asked.mark, {"launch": 0, "kernels": 1, "dropped": 0, "values": [None, 10.0]})
    student = profile.read_recorded(asked, outcome(printed)).runs[LAUNCHES[0]]
    assert METRICS[0] not in student.totals and student.totals[METRICS[1]] == 10.0


@pytest.mark.parametrize(
    "said, reason",
    [
        ({"failure": "cuptiRangeProfilerEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"}, "INSUFFICIENT_PRIVILEGES"),
        ({"launch": 0, "kernels": 70, "dropped": 6, "values": [1.0, 1.0]}, "dropped 6 kernels"),
        ({"launch": 0, "kernels": 1, "dropped": 0, "values": [1.0]}, "could not be read"),
        ({"launch": 7, "kernels": 1, "dropped": 0, "values": [1.0, 1.0]}, "could not be read"),
    ],
)
def test_the_recorders_own_failure_is_said_as_such(tmp_path, said, reason):
    asked = counting(tmp_path)
    asked.variables()
    assert reason in profile.read_recorded(asked, outcome(line(asked.mark, said))).failure


def ctx_with_recorder(config, tmp_path: Path, recorder: bool = True, ncu: Path | None = None) -> Context:
    tree = build_tree.BuildTree(tmp_path, "sm_90")
    if recorder:
        tree.counters_recorder().write_bytes(b"\x7fELF the grader's recorder")
    return Context(config, tree, Gpu(True, "Test GPU", "9.0"), None, None, ncu)


def lab_bench(ctx: Context, lab_name: str) -> lab_runs.LabBench:
    lab = next(lab for lab in ctx.config.labs if lab.name == lab_name)
    steps = lab_runs.Steps(ctx, Timing(), lambda _: None)
    return lab_runs.LabBench(ctx, lab, "solution", steps, ctx.facts())


def test_the_recorder_counts_every_group_of_hardware_counters_and_leaves_a_launchs_shape_to_ncu(config, tmp_path):
    ctx = ctx_with_recorder(config, tmp_path)
    sixth = lab_bench(ctx, "06_warp_reduction").counting
    assert sixth is not None
    assert {group for group, _ in sixth.launches} == {"unrolled, 1/thread", "shuffle, 1/thread"}
    assert "smsp__inst_executed_op_shared_ld.sum" in sixth.metrics
    # Lab 9's group reads launch__occupancy_limit_shared_mem, which only ncu derives: ncu counts the group.
    assert lab_bench(ctx, "09_occupancy").counting is None
    assert not lab_bench(ctx, "09_occupancy").counts("")
    assert lab_bench(ctx, "02_dot_product").counting is None  # no counter check at all


def test_no_recorder_no_gpu_or_no_mechanisms_leave_the_benchmark_as_it_was(config, tmp_path):
    assert lab_bench(ctx_with_recorder(config, tmp_path, recorder=False), "05_padded_transpose").counting is None
    ctx = ctx_with_recorder(config, tmp_path)
    ctx.run_mechanisms = False
    assert lab_bench(ctx, "05_padded_transpose").counting is None
    ctx = ctx_with_recorder(config, tmp_path)
    ctx.emulator = True
    assert lab_bench(ctx, "05_padded_transpose").counting is None


def recorded_run(asked: profile.Counting, printed: str) -> bench.BenchRun:
    ran = outcome(printed)
    return bench.BenchRun(ran, None, profile.read_recorded(asked, ran))


def test_the_counters_come_from_the_one_timed_run_which_the_benchmark_step_reads_again(config, tmp_path, monkeypatch):
    ctx = ctx_with_recorder(config, tmp_path)
    timed = lab_bench(ctx, "01_vector_add")
    runs: list[profile.Counting | None] = []

    def run_bench(binary, timeout, hold, counting=None, printed_only=(), seed=None):
        runs.append(counting)
        assert counting is not None
        counting.variables()
        said = [
            line(counting.mark, {"launch": i, "kernels": 1, "dropped": 0, "values": [100.0 * (i + 1)]}) for i in (0, 1)
        ]
        return recorded_run(counting, "\n".join(said))

    monkeypatch.setattr(bench, "run_bench", run_bench)
    monkeypatch.setattr(lab_runs.Steps, "gpu_then_alone", lambda self: nullcontext())
    counters = lab_runs.LabCounters(ctx, timed.lab, "solution", timed.steps, timed)
    mechanism = next(m for m in timed.lab.mechanisms if m.tool == "ncu")
    found = counters.of(mechanism.group)
    assert (found["student"].totals, found["baseline"].totals) == (
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 100.0},
        {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 200.0},
    )
    assert timed.run() is timed.run() and len(runs) == 1


def test_the_recorders_own_failure_sends_the_group_to_ncu(config, tmp_path, monkeypatch):
    ctx = ctx_with_recorder(config, tmp_path, ncu=tmp_path / "ncu")
    timed = lab_bench(ctx, "01_vector_add")

    def run_bench(binary, timeout, hold, counting=None, printed_only=(), seed=None):
        counting.variables()
        return recorded_run(counting, line(counting.mark, {"failure": "cuptiProfilerInitialize: refused"}))

    profiled = {
        "student": profile.CounterRun(outcome(""), {"x": 1.0}, 1),
        "baseline": profile.CounterRun(outcome(""), {"x": 2.0}, 1),
    }
    monkeypatch.setattr(bench, "run_bench", run_bench)
    monkeypatch.setattr(profile, "read_counters", lambda *args: profiled)
    monkeypatch.setattr(lab_runs.Steps, "gpu_then_alone", lambda self: nullcontext())
    monkeypatch.setattr(lab_runs.Steps, "counters", lambda self: nullcontext())
    counters = lab_runs.LabCounters(ctx, timed.lab, "solution", timed.steps, timed)
    mechanism = next(m for m in timed.lab.mechanisms if m.tool == "ncu")
    assert counters.of(mechanism.group) is profiled


# Counts that depend on the order the hardware served requests in (bank conflicts, the merge's atomics, the
# warps' residency over time) moved by up to 3.8% between the two tools' runs on the H100 (Lab 5's conflicts per
# shared store, 0.027 against a limit of 0.5); the sectors, requests and instructions were equal.
AGREEMENT = 0.10


def counted_groups_of_every_lab() -> list[tuple[str, str]]:
    """(lab, group) of every group of counter checks, in every lab."""
    return [(lab.name, group) for lab in load_config().labs for group in counted_groups(lab)]


@pytest.mark.parametrize("lab_name, group", counted_groups_of_every_lab())
def test_on_a_gpu_the_recorder_counts_what_nsight_compute_counts(needs_gpu, built_tree, config, lab_name, group):
    """Every hardware metric of the group's checks, the solution's launches and the baseline's, from the
    recorder in the benchmark's run and from ncu's own run (a launch's shape, launch__*, is ncu's alone)."""
    ncu = find_tool("ncu")
    if ncu is None or not built_tree.has_target(build_tree.COUNTERS_TARGET):
        pytest.skip("needs ncu and a build with the counters recorder (CUPTI)")
    lab = next(lab for lab in config.labs if lab.name == lab_name)
    roles, named = counted_groups(lab)[group]
    metrics = [name for name in named if not name.startswith(profile.ONLY_NCU)]
    program = built_tree.binary(lab_name, "solution", "bench")
    compiled = build.compile_targets(built_tree, [program.name, build_tree.COUNTERS_TARGET], config.timeouts["build"])
    assert compiled.ok, build.compiler_errors(compiled, source=None)
    asked = profile.Counting(built_tree.counters_recorder(), [(group, role) for role in roles], metrics)
    recorded = bench.run_bench(program, config.timeouts["bench"], counting=asked).counters
    assert recorded is not None and not recorded.failure
    profiled = profile.read_counters(ncu, program, metrics, roles, group, config.timeouts["bench"])
    for role in roles:
        ours, theirs = recorded.runs[(group, role)], profiled[role]
        assert ours.kernels == theirs.kernels >= 1
        for metric in metrics:
            assert ours.totals[metric] == pytest.approx(theirs.totals[metric], rel=AGREEMENT), (role, metric)


def test_without_ncu_the_recorders_failure_leaves_its_checks_not_run_with_its_reason(tmp_path):
    """Counts printed before a failure may miss kernels (more than the recorder keeps, say): none is used."""
    asked = counting(tmp_path)
    asked.variables()
    printed = "\n".join(
        [
            line(asked.mark, {"launch": 0, "kernels": 64, "dropped": 3, "values": [10.0, 1.0]}),
            line(asked.mark, {"launch": 1, "kernels": 1, "dropped": 0, "values": [1000.0, 1.0]}),
        ]
    )
    runs = profile.read_recorded(asked, outcome(printed)).of("R = 1", ["student", "baseline"])
    assert runs["student"].kernels == 0 and runs["student"].totals == {}
    mechanism = MechanismCheck("c", "ncu", numerator=METRICS[0], relative_to="baseline", max=0.5)
    check = checks.counter_check(mechanism, runs["student"], runs["baseline"])
    assert check.status is Status.NOT_RUN and "dropped 3 kernels" in check.detail
