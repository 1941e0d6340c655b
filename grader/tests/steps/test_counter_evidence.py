"""A counter check passes only where the student's counts show its mechanism used (labs.toml: `used`): a ratio over
no events, 0 bank conflicts over 0 shared loads, passes any upper bound and proves nothing."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from grader.core.config import Evidence, MechanismCheck, load_config
from grader.core.model import Status
from grader.execution.proc import Outcome
from grader.grading.checks import counter_check
from grader.steps.profile import CounterRun

COUNTER_CHECKS = [(lab.name, m) for lab in load_config().labs for m in lab.mechanisms if m.tool == "ncu"]
# The metrics the CPU emulator counts (common/emu/src/profile_report.cpp), beside ncu's names for them.
EMULATED_METRICS = {
    f"{prefix}_{op}.sum"
    for op in ("ld", "st")
    for prefix in (
        "l1tex__t_requests_pipe_lsu_mem_global_op",
        "l1tex__t_sectors_pipe_lsu_mem_global_op",
        "smsp__inst_executed_op_shared",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op",
    )
} | {
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "smsp__sass_inst_executed_op_shared_atom.sum",
}  # atomics
TRANSPOSE = {m.name: m for lab, m in COUNTER_CHECKS if lab == "05_padded_transpose"}
LOAD_CONFLICTS = "ncu: shared-memory bank conflicts per shared load (padding)"
STORE_CONFLICTS = "ncu: shared-memory bank conflicts per shared store (padding)"
READS, WRITES = (
    "ncu: global load sectors per request (coalesced reads)",
    "ncu: global store sectors per request (coalesced writes)",
)


def counted(totals: Mapping[str, float]) -> CounterRun:
    return CounterRun(Outcome(["bench"], 0, "", "", 1.0), dict(totals), kernels=1)


def ids(case) -> str:
    return f"{case[0][:2]}: {case[1].name}" if isinstance(case, tuple) else ""


@pytest.mark.parametrize("case", COUNTER_CHECKS, ids=ids)
def test_every_counter_check_says_what_shows_its_mechanism_used(case):
    _, mechanism = case
    assert mechanism.used, f"{mechanism.name} declares no `used` in labs.toml"
    for evidence in mechanism.used:
        assert evidence.min > 0 and evidence.says
        # Measured against the baseline, so the bar grows with the problem the benchmark profiles.
        assert evidence.per and "baseline" in mechanism.roles
    if not mechanism.gpu_only:  # the CPU emulator must count what it judges
        assert set(mechanism.metrics) <= EMULATED_METRICS


@pytest.mark.parametrize("case", COUNTER_CHECKS, ids=ids)
def test_a_kernel_with_no_events_fails_every_counter_check_as_not_using_the_mechanism(case):
    _, mechanism = case
    student = counted(dict.fromkeys(mechanism.metrics, 0.0))
    baseline = counted(dict.fromkeys(mechanism.metrics, 4096.0))
    found = counter_check(mechanism, student, baseline)
    assert found.status is Status.FAILED
    assert found.detail.startswith("not used: ") and mechanism.used[0].says in found.detail
    assert found.hint == mechanism.hint


# Lab 5 at 256 x 256 on the CPU emulator (2,048 warp-wide requests each way; the baseline the naive kernel).
NAIVE = {
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 2048,
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 2048,
}
PADDED = NAIVE | {
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 8192,
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 8192,
    "smsp__inst_executed_op_shared_ld.sum": 2048,
    "smsp__inst_executed_op_shared_st.sum": 2048,
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 0,
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": 0,
}
NO_TILE_STRIDED_READS = PADDED | {
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 65536,
    "smsp__inst_executed_op_shared_ld.sum": 0,
    "smsp__inst_executed_op_shared_st.sum": 0,
}
TILE_WRITTEN_BY_COLUMNS = PADDED | {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": 63488}


def verdicts(student: dict) -> dict[str, Status]:
    return {name: counter_check(m, counted(student), counted(NAIVE)).status for name, m in TRANSPOSE.items()}


def test_the_padded_tile_passes_every_transpose_counter():
    assert set(verdicts(PADDED).values()) == {Status.PASSED}


def test_a_transpose_with_no_tile_fails_its_strided_reads_and_both_bank_checks_however_fast():
    assert verdicts(NO_TILE_STRIDED_READS) == {
        READS: Status.FAILED,
        WRITES: Status.PASSED,
        LOAD_CONFLICTS: Status.FAILED,
        STORE_CONFLICTS: Status.FAILED,
    }
    found = counter_check(TRANSPOSE[LOAD_CONFLICTS], counted(NO_TILE_STRIDED_READS), counted(NAIVE))
    assert "the kernel keeps no tile in shared memory, which this lab's lesson is" in found.detail
    assert "smsp__inst_executed_op_shared_ld.sum counted 0, under 204.8" in found.detail


def test_an_unpadded_tile_written_by_columns_fails_on_its_stores():
    assert verdicts(TILE_WRITTEN_BY_COLUMNS) == {
        READS: Status.PASSED,
        WRITES: Status.PASSED,
        LOAD_CONFLICTS: Status.PASSED,
        STORE_CONFLICTS: Status.FAILED,
    }


def test_evidence_short_of_its_share_of_the_baseline_fails_and_at_it_passes():
    check = MechanismCheck(
        "conflicts", "ncu", numerator="conflicts", denominator="loads", max=0.5,
        used=[Evidence("loads", 0.1, "no tile", per="requests")],
    )  # fmt: skip
    baseline = counted({"requests": 1000.0})
    assert counter_check(check, counted({"conflicts": 0.0, "loads": 99.0}), baseline).status is Status.FAILED
    assert counter_check(check, counted({"conflicts": 0.0, "loads": 100.0}), baseline).status is Status.PASSED


def test_evidence_with_no_yardstick_is_an_absolute_count():
    check = MechanismCheck("c", "ncu", numerator="x", denominator="y", max=1.0, used=[Evidence("y", 5, "too few")])
    assert check.roles == ["student"]
    assert counter_check(check, counted({"x": 0.0, "y": 4.0})).status is Status.FAILED
    assert counter_check(check, counted({"x": 0.0, "y": 5.0})).status is Status.PASSED


def test_a_ratio_over_a_zero_denominator_fails_even_where_no_evidence_is_declared():
    check = MechanismCheck("conflicts", "ncu", numerator="conflicts", denominator="loads", max=0.5)
    found = counter_check(check, counted({"conflicts": 0.0, "loads": 0.0}))
    assert found.status is Status.FAILED and found.detail.startswith("not used: loads counted 0")


def test_evidence_the_counters_lack_is_not_run_rather_than_zero():
    check = MechanismCheck(
        "c", "ncu", numerator="x", denominator="y", max=1.0, used=[Evidence("z", 0.1, "none", per="w")]
    )
    assert check.metrics == ["x", "y", "z", "w"] and check.roles == ["student", "baseline"]
    assert counter_check(check, counted({"x": 1.0, "y": 1.0}), counted({"w": 1.0})).status is Status.NOT_RUN
    assert counter_check(check, counted({"x": 1.0, "y": 1.0, "z": 1.0}), None).status is Status.NOT_RUN
