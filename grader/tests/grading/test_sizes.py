"""The grader's own sizes: fresh with every seed, the same for the same seed, inside labs.toml's ranges,
and an instructor's list checked against the lab's format."""

from __future__ import annotations

import pytest

from grader.grading.sizes import draw_sizes, lab_sizes, load_instructor_sizes


def test_drawn_sizes_follow_the_seed_and_stay_in_range(config):
    gemm = config.lab("4")
    first, again, other = draw_sizes(gemm, 1), draw_sizes(gemm, 1), draw_sizes(gemm, 2)
    assert first == again and first != other
    assert len(first) == gemm.grader_sizes.count
    for size in first + other:
        parts = [int(p) for p in size.split("x")]
        assert (
            all(low <= v <= high for v, (low, high) in zip(parts, gemm.grader_sizes.ranges, strict=True))
            and len(parts) == 3
        )


def test_every_lab_has_sizes(config):
    assert all(draw_sizes(lab, 7) for lab in config.labs)


def test_instructor_sizes_are_added_and_checked(config, tmp_path):
    listed = tmp_path / "hidden.toml"
    listed.write_text('[lab.04_tiled_gemm]\nsizes = ["577x3x1021"]\n[lab.01_vector_add]\nsizes = ["7x7"]\n')
    sizes = load_instructor_sizes(listed)
    assert lab_sizes(config.lab("4"), 3, sizes)[-1] == "577x3x1021"
    with pytest.raises(ValueError, match="its sizes are n"):
        lab_sizes(config.lab("1"), 3, sizes)
