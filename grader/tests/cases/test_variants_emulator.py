"""Variants whose lesson the CPU emulator's counters show, graded on it as submissions: each gets the verdict
variants.toml gives it (grader/calibration/variants.py, judge). The shapes that once passed where they should fail, and
their controls: a transpose with no tile, unpadded or half-padded tiles with the conflict on the stores, GEMMs with
one factor tiled or rectangular tiles, launches that fit too few blocks on an SM or do not cover the work, and
histograms that race on their shared bins or leave the atomics in global memory.
(tools/grade-variants.sh grades every variant the same way.)"""

from __future__ import annotations

import pytest

from grader.platforms.edition import NO_SOLUTIONS, has_solutions

if not has_solutions():  # read as the module is imported, which no marker can skip
    pytest.skip(NO_SOLUTIONS, allow_module_level=True)

from grader.calibration.variants import Variant, judge, load_variants
from grader.execution.gpu import Gpu
from grader.tests.support.cases import Case, judge_case, recorded_lab

GRADED = {
    # A lab whose lesson the emulator's counters, racecheck or the compiler's report show: a wrong variant, and a
    # correct one written another way than the solution.
    # float4_vectorized: one 16-byte load per lane (LDG.E.128 on a GPU), counted as one request of its width.
    "01_vector_add": ["block_index_fastest", "grid_stride_sm_sized", "float4_vectorized"],
    "02_dot_product": ["harris5_legacy_warp_unroll", "cg_reduce_four_per_thread"],
    "03_smoothing_halo": ["tile_loaded_but_unused", "pmpp_edge_threads_block512"],
    "06_warp_reduction": ["syncwarp_between_lines", "cg_tiled_partition"],
    "07_constant_memory": ["coefficients_through_global_pointer", "table_in_shared_memory"],
    "08_registers_local_memory": ["runtime_taps_window", "ring_in_shared_memory"],
    "12_readonly_texture": ["interpolation_by_hand", "grid_stride_pitched_texture"],
    "05_padded_transpose": [
        "naive_strided_reads",
        "unpadded_tile_written_by_columns",
        "padded_16x16_rows_side_by_side",
        "padded_16x16_tile",
        "cuda_samples_no_bank_conflicts_32x8",
    ],
    "04_tiled_gemm": [
        "tiled_only_a_32x32",
        "tiled_only_b_32x32",
        "tiled_a_and_b_32x32",
        "rectangular_16x64_k16_1024_threads",
        "rectangular_64x16_k32_4_rows_per_thread",
        # cp.async: the CPU emulator makes each copy at once, by the issuing thread, and racecheck still sees a
        # thread read another's copy with no barrier after the wait.
        "register_blocked_cp_async",
        "cp_async_tiled_32x32",
        "cp_async_no_barrier_after_wait",
    ],
    # The occupancy check, from the compiler's report and the launch's shape, is graded in full without a GPU.
    "09_occupancy": [
        "launcher_keeps_the_115kb_tile",
        "grid_stride_one_block_per_sm",
        "skeleton_launch_kept",
        "dynamic_reverse_one_per_thread",
        "occupancy_api_sizes_the_tile",
    ],
    # The schedule checks, from the CPU emulator's log of the runtime calls, are graded in full without a GPU.
    "10_host_memory": [
        "pinned_one_stream",
        "streams_over_pageable_memory",
        "synchronises_after_each_chunk",
        "staging_in_cuda_malloc_host",
        "a_stream_per_engine_with_events",
        # Not managed_read_mostly_advice: the page faults its advice leaves show on a GPU alone.
        "managed_without_prefetch",
        "managed_prefetched_after_the_kernel",
        # Parts A and B with no copy, or the input's alone: the copies' bytes, counted against the call's own.
        "zero_copy_in_parts_a_and_b",
        # The zero-copy stretch: mapped host memory the emulated kernels reach, and its own test cases.
        "zero_copy_maps_the_callers_buffers",
        "zero_copy_never_unregisters",
        # What orders the work, not what was issued: waits by asking in a loop, staging through pinned buffers;
        # chains of events that order every chunk, copies back not ordered after their kernel, staging buffers
        # read before their copy is known done, a single query, prefetches the kernel is not ordered after, and
        # results read with no prefetch back.
        "waits_by_polling_the_streams",
        "waits_by_polling_an_event_per_stream",
        "staged_chunks_in_a_pinned_ring",
        "chunks_chained_by_events",
        "copies_in_wait_for_the_last_copy_back",
        "copy_back_waits_for_the_copy_in",
        "copy_back_one_kernel_behind",
        "reads_the_staging_buffer_before_waiting",
        "staged_chunks_read_too_soon",
        "queries_once_without_a_loop",
        "prefetched_on_the_legacy_stream",
        "prefetch_event_recorded_too_early",
        "results_read_without_prefetch_back",
        "prefetches_the_input_back_instead",
    ],
    # The emulator counts global and shared atomics, and racecheck sees a plain access against an atomic.
    "11_histogram_atomics": [
        "no_sync_after_zeroing",
        "shared_bins_never_used",
        "merged_one_atomic_per_byte",
        "one_block_per_256_bytes",
        "runs_counted_in_registers",
    ],
}
VARIANTS = [v for v in load_variants() if v.name in GRADED.get(v.lab, [])]


def first_line(text: str) -> str:
    return text.partition("\n")[0]


SEED = 20261123  # fixed, so that a variant's recorded evidence is what a grade of it makes now
# The first variant of each lab is graded end to end in the slow tier; every run judges the others from their
# recorded evidence.
SAMPLE = {lab: names[0] for lab, names in GRADED.items()}


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v.lab[:2]}: {v.name}")
def test_the_variant_gets_the_verdict_variants_toml_gives_it_on_the_emulator(
    variant: Variant, emulator, config, whole_grades, tmp_path, record_property
):
    case = Case(
        suite="variants",
        name=f"{variant.lab}__{variant.name}",
        lab=variant.lab,
        kernel=variant.path.read_bytes(),
        seed=SEED,
        end_to_end=whole_grades and SAMPLE[variant.lab] == variant.name,
    )
    judged = judge_case(case, emulator.directory, tmp_path, Gpu(False, reason="graded on the CPU emulator"))
    record_property("evidence", judged.how)
    lab = recorded_lab(judged.student)
    unseen = frozenset(m.name for m in config.lab(variant.lab).mechanisms if m.gpu_only)
    ok, why = judge(variant, lab.checks, unseen)
    assert ok, "\n".join([why, *(f"{c.status.value}: {c.name}: {first_line(c.detail)}" for c in lab.checks)])
