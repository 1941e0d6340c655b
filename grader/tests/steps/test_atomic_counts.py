"""Lab 11's privatization check counts every global atomic: a GPU counts an atomic whose old value is unused as a
reduction (RED, ..._op_red) and one whose value is used as an ATOM (..._op_atom), so a check of REDs alone passed a
kernel that adds every byte to global memory and reads what atomicAdd returns. Judged here on counts of the shape
a GPU gives (the baseline's at 64 MB on an H100, results/h100.md); the run on a GPU is tools/gpu-check.sh's."""

from __future__ import annotations

import pytest

from grader.core.config import load_config, metric_parts
from grader.core.model import Status
from grader.execution.proc import Outcome
from grader.grading.checks import counter_check
from grader.steps.profile import CounterRun, counted_in_bench

ATOM = "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"
RED = "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"
SHARED_ATOMICS = "smsp__sass_inst_executed_op_shared_atom.sum"
LAB11 = load_config().lab("11_histogram_atomics")
PRIVATIZATION = next(m for m in LAB11.mechanisms if m.name.startswith("ncu: global atomic requests"))
BYTE_REQUESTS = 2_097_152  # one warp-wide request per 32 bytes of 64 MB
MERGE_REQUESTS = 4_224  # a private histogram per block: 8 requests per block, 4 blocks on each of 132 SMs


def counted(totals: dict[str, float]) -> CounterRun:
    return CounterRun(Outcome(["bench"], 0, "", "", 1.0), totals, kernels=1)


BASELINE = counted({RED: BYTE_REQUESTS, ATOM: 0, SHARED_ATOMICS: 0})


def test_the_check_reads_both_kinds_of_global_atomic_and_the_recorder_counts_them():
    assert metric_parts(PRIVATIZATION.numerator) == [ATOM, RED]
    assert {ATOM, RED} <= set(PRIVATIZATION.metrics)
    for evidence in PRIVATIZATION.used:
        assert RED not in metric_parts(evidence.metric) or ATOM in metric_parts(evidence.metric)
        assert RED not in metric_parts(evidence.per) or ATOM in metric_parts(evidence.per)
    assert counted_in_bench(PRIVATIZATION.metrics)  # the CUPTI recorder of a GPU, not ncu's own run


def test_an_atomic_per_byte_whose_value_is_used_fails_though_it_makes_no_reduction():
    # Shared atomics for show, one RED per block and bin, and every byte added to global memory by an atomicAdd
    # whose returned value the kernel reads: ATOMs. REDs alone measured 0.002 of the baseline's.
    student = counted({RED: MERGE_REQUESTS, ATOM: BYTE_REQUESTS, SHARED_ATOMICS: BYTE_REQUESTS})
    found = counter_check(PRIVATIZATION, student, BASELINE)
    assert found.status is Status.FAILED
    assert found.measured == pytest.approx((BYTE_REQUESTS + MERGE_REQUESTS) / BYTE_REQUESTS)
    assert f"{ATOM} + {RED}" in found.detail


def test_a_private_histogram_merged_by_atomics_whose_value_is_used_passes():
    # Once, the merge's ATOMs were no global atomic at all: "not used", for a kernel that did the lesson.
    student = counted({RED: 0, ATOM: MERGE_REQUESTS, SHARED_ATOMICS: BYTE_REQUESTS})
    found = counter_check(PRIVATIZATION, student, BASELINE)
    assert found.status is Status.PASSED, found.detail
    assert found.measured == pytest.approx(MERGE_REQUESTS / BYTE_REQUESTS)


def test_the_solutions_reductions_pass_and_no_global_atomic_at_all_is_not_used():
    solution = counted({RED: MERGE_REQUESTS, ATOM: 0, SHARED_ATOMICS: BYTE_REQUESTS})
    assert counter_check(PRIVATIZATION, solution, BASELINE).status is Status.PASSED
    nothing = counter_check(PRIVATIZATION, counted({RED: 0, ATOM: 0, SHARED_ATOMICS: BYTE_REQUESTS}), BASELINE)
    assert nothing.status is Status.FAILED and nothing.detail.startswith("not used: ")


def test_a_count_of_one_kind_alone_is_unknown_not_zero():
    found = counter_check(PRIVATIZATION, counted({RED: MERGE_REQUESTS, SHARED_ATOMICS: BYTE_REQUESTS}), BASELINE)
    assert found.status is Status.NOT_RUN and ATOM in found.detail
