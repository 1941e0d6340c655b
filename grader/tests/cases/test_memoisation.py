"""Kernels that keep each benchmark instance's result from an earlier launch and copy it back, on the CPU
emulator: the attack submissions that do it (grader/tests/attacks/*_memoises_its_results) are wrong at a
warm-up or timed launch, and wrong the way a kept result is, by exactly what the refresh before that launch
changed. Their GPU verdict, the failed speed check, is graded by test_attacks.py on a GPU."""

from __future__ import annotations

import re

import pytest

from grader.core.model import Status
from grader.platforms.edition import NO_SOLUTIONS, has_solutions

if not has_solutions():  # read as the module is imported, which no marker can skip
    pytest.skip(NO_SOLUTIONS, allow_module_level=True)

from grader.steps.build_tree import BuildTree
from grader.steps.student_steps import StudentWork
from grader.tests.attacks import load_attacks
from grader.tests.support.grading import benchmarked, kernel_of, speed_check, student_work
from grader.tests.support.kernels import write_labs

MEMOISERS = {attack.lab: attack for attack in load_attacks() if attack.name.endswith("_memoises_its_results")}
WRONG_LAUNCH = re.compile(r"^(warm-up|timed) launch \d+ of \d+ wrote a wrong output: .*got (\S+), want (\S+);")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def memoisers(tmp_path_factory) -> StudentWork:
    """The skeletons, with each memoising attack's kernel.cu in place of its lab's."""
    root = tmp_path_factory.mktemp("memoisers")
    labs = write_labs(root / "labs", {lab: attack.kernel() for lab, attack in MEMOISERS.items()})
    return student_work(labs, root / "steps")


def wrong_launch(config, tree: BuildTree, work: StudentWork, lab: str, tmp_path) -> tuple[str, float, float]:
    """The student's kernel benchmarked on the emulator: which launch it got wrong first, what it wrote
    there, what was wanted. The speed check fails with that reason, and the baseline is right."""
    outcome, result = benchmarked(tree, config, lab, "student", tmp_path, work=work)
    student = kernel_of(result, "student")
    print(student.check)
    assert not student.correct
    assert kernel_of(result, "baseline").correct
    (check, *_) = speed_check(config, lab, outcome, result)
    assert check.status is Status.FAILED and "wrote a wrong output" in check.detail
    found = WRONG_LAUNCH.match(student.check)
    assert found, student.check
    return found.group(1), float(found.group(2)), float(found.group(3))


def test_every_memoising_attack_is_tested_here():
    assert set(MEMOISERS) == {"02_dot_product", "04_tiled_gemm", "10_host_memory"}


def test_a_gemm_that_copies_back_a_kept_c_is_wrong_where_the_refresh_negated_a_row_of_a(
    memoisers, emulator, config, tmp_path
):
    _, got, want = wrong_launch(config, emulator, memoisers, "04_tiled_gemm", tmp_path)
    # The kept C predates the row's negation: it holds the element the refresh negated.
    assert got == pytest.approx(-want, rel=1e-5)


def test_a_dot_product_that_writes_back_a_kept_sum_is_wrong_by_what_the_refresh_moved(
    memoisers, emulator, config, tmp_path
):
    _, got, want = wrong_launch(config, emulator, memoisers, "02_dot_product", tmp_path)
    # 16 elements of a negated, each moving the sum by 2 the same way: the kept sum is 32 away.
    assert abs(got - want) == 32


def test_a_pipeline_that_copies_back_a_kept_result_is_wrong_where_the_refresh_negated_an_input(
    memoisers, emulator, config, tmp_path
):
    _, got, want = wrong_launch(config, emulator, memoisers, "10_host_memory", tmp_path)
    # The kept result is p(x) of an input the refresh has since negated: it differs from p(-x) by at least 1/2
    # (tests/10_host_memory/reference.hpp).
    assert abs(got - want) >= 0.5
