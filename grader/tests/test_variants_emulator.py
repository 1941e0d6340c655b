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
from grader.tests.fixture_kernels import write_labs
from grader.tests.support.grading import graded_without_a_gpu, student_work

GRADED = {
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


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v.lab[:2]}: {v.name}")
def test_the_variant_gets_the_verdict_variants_toml_gives_it_on_the_emulator(
    variant: Variant, emulator, config, tmp_path
):
    labs = write_labs(tmp_path / "labs", {variant.lab: variant.path.read_text()})
    grade = graded_without_a_gpu(emulator, config, variant.lab, "student", student_work(labs, tmp_path / "steps"))
    unseen = frozenset(m.name for m in config.lab(variant.lab).mechanisms if m.gpu_only)
    ok, why = judge(variant, grade.checks, unseen)
    assert ok, "\n".join([why, *(f"{c.status.value}: {c.name}: {first_line(c.detail)}" for c in grade.checks)])
