"""The benchmark's timed region, on the CPU emulator: every solution's benchmark still reports
right results with nothing against its time, and kernels that cheat the timed launches are caught with the
reason. Timings mean nothing on the emulator, but every check on the launches runs as it does on a GPU."""

from __future__ import annotations

import re

import pytest

from grader.core.config import REPO_ROOT, Thresholds, load_config, load_target
from grader.core.model import Status
from grader.execution import proc
from grader.grading.lab_runs import printed_only
from grader.steps.bench import printed_only_args
from grader.steps.student_steps import StudentWork
from grader.tests.support.grading import benchmarked, built_programs, kernel_of, speed_check, student_work
from grader.tests.support.kernels import write_measured_labs
from grader.tests.support.tiers import first_lab_quick

pytestmark = pytest.mark.needs_solutions

LABS = [lab.name for lab in load_config().labs]
# Planted kernels (grader/tests/fixtures), one per lab, built together in place of the skeletons.
CHEATS = ("01_first_call_only", "02_sets_persisting_l2", "04_skips_repeated_pointers", "05_overwrites_its_input")
TIMED_LAUNCHES = 25
PRINTED_ONLY_LAUNCHES = 7  # cml/bench.hpp: kPrintedOnlyLaunches
WARMUPS = 2  # checked as the timed launches are: a kernel that skips work is caught at the first it skips


@pytest.fixture(scope="module")
def cheats(tmp_path_factory) -> StudentWork:
    root = tmp_path_factory.mktemp("cheats")
    return student_work(write_measured_labs(root / "labs", CHEATS), root / "steps")


@pytest.mark.parametrize("lab", first_lab_quick(LABS))
def test_every_solution_is_right_at_every_verified_launch_and_nothing_is_held_against_its_time(
    emulator, config, lab, tmp_path
):
    outcome, result = benchmarked(emulator, config, lab, "solution", tmp_path)
    graded_groups = config.lab(lab).graded_groups
    for kernel in (k for k in result.kernels if k.attempted):
        where = f"{kernel.role} {kernel.name} [{kernel.group}]"
        assert kernel.correct, f"{where}: {kernel.check}"
        assert kernel.problems == [], f"{where}: {kernel.problems}"
        # Every timed launch of the student's kernels (the solution's, here) is looked at, at least two of them
        # in full; none of the grader's own. A setting that is graded is timed over the default count; one only
        # printed may take fewer (Lab 10's zero-copy stretch).
        suspected = kernel.role in ("student", "stretch")
        assert kernel.timed_launches_checked == (kernel.timed_launches if suspected else 0), where
        graded = not graded_groups or kernel.group in graded_groups
        assert kernel.timed_launches == TIMED_LAUNCHES if graded else 2 < kernel.timed_launches <= TIMED_LAUNCHES, where
        assert (kernel.timed_launches_verified >= 2) if suspected else (kernel.timed_launches_verified == 0), where
        assert kernel.host_median_ms > 0 and kernel.floor_ms > 0, where
    assert all(check.status is Status.PASSED for check in speed_check(config, lab, outcome, result))


def test_a_group_this_gpu_grades_by_no_time_is_timed_over_fewer_launches(emulator, config, tmp_path):
    """The grader names each group whose thresholds grade no time on the GPU (targets/*.toml: not_graded) to the
    benchmark, which times that group's kernels alone over fewer launches: their figures are only shown."""
    h100 = load_target(REPO_ROOT / "grader" / "targets" / "h100.toml")
    assert printed_only(h100.for_lab("03_smoothing_halo")) == ("R = 1",)  # "R = 32" is graded there
    assert printed_only(h100.for_lab("10_host_memory")) == ("A: pinned", "B: overlapped", "C: managed")
    assert printed_only({"": Thresholds(min_copy_fraction=0.5, not_graded="speedup: no")}) == ()
    options = printed_only_args(printed_only(h100.for_lab("03_smoothing_halo")))
    _, result = benchmarked(emulator, config, "03_smoothing_halo", "solution", tmp_path, options)
    launches = {(k.group, k.role): k.timed_launches for k in result.kernels if k.attempted}
    assert {n for (group, _), n in launches.items() if group == "R = 1"} == {PRINTED_ONLY_LAUNCHES}, launches
    assert {n for (group, _), n in launches.items() if group != "R = 1"} == {TIMED_LAUNCHES}, launches


def test_a_run_the_profiler_watches_ends_after_the_last_launch_it_profiles(emulator, config, tmp_path):
    """grader/steps/profile.py names the checked launches ncu profiles; the run is the timed one up to the last of
    them (the naive kernel's checked and timed launches at R = 1, then the student's checked launch), then ends."""
    lab = "03_smoothing_halo"
    program = built_programs(emulator, config, lab, "solution", emulated=True)["bench"]
    results = tmp_path / "bench.json"
    command = [str(program), "--size", "16384", "--json", str(results)]
    profiled = {"CML_PROFILED_LAUNCHES": "R = 1\tbaseline\nR = 1\tstudent"}
    outcome = proc.run(command, config.timeouts["bench"], env=profiled)
    print(outcome.stderr)
    assert outcome.ok, outcome.tail(20)
    lines = [line for line in outcome.stderr.splitlines() if re.match(r"\[ *[0-9.]+ s\] ", line)]
    assert re.search(r"naive @ R = 1 \(baseline\): checked launch [0-9.]+ s, timed launches [0-9.]+ s", lines[-2])
    assert lines[-1].endswith("every launch the profiler watches has run") and "smooth @ R = 1 (student)" in lines[-1]
    assert not results.exists()  # its results are the profiler's counters


@pytest.mark.slow
def test_a_launcher_that_skips_pointers_it_has_seen_is_wrong_at_a_checked_warm_up(cheats, emulator, config, tmp_path):
    outcome, result = benchmarked(emulator, config, "04_tiled_gemm", "student", tmp_path, work=cheats)
    student = kernel_of(result, "student")
    print(student.check)
    assert not student.correct
    assert re.match(rf"warm-up launch [12] of {WARMUPS} left its output unwritten \(poison\): ", student.check)
    assert kernel_of(result, "baseline").correct
    (check, *_) = speed_check(config, "04_tiled_gemm", outcome, result)
    assert check.status is Status.FAILED and "left its output unwritten (poison)" in check.detail


@pytest.mark.slow
def test_a_launcher_that_works_on_its_first_call_only_is_wrong_at_the_first_checked_warm_up(
    cheats, emulator, config, tmp_path
):
    outcome, result = benchmarked(emulator, config, "01_vector_add", "student", tmp_path, work=cheats)
    student = kernel_of(result, "student")
    print(student.check)
    # Its first call is the checked launch, which it gets right; the first warm-up already leaves the poison.
    assert not student.correct
    assert re.match(rf"warm-up launch 1 of {WARMUPS} left its output unwritten \(poison\): ", student.check)
    (check, *_) = speed_check(config, "01_vector_add", outcome, result)
    assert check.status is Status.FAILED and "left its output unwritten (poison)" in check.detail


@pytest.mark.slow
def test_a_launcher_that_writes_to_its_input_is_wrong_with_the_input_named(cheats, emulator, config, tmp_path):
    outcome, result = benchmarked(emulator, config, "05_padded_transpose", "student", tmp_path, work=cheats)
    student = kernel_of(result, "student")
    print(student.check)
    assert not student.correct and re.search(r"changed its inputs \(instance \d: in\[0\] is 0 where ", student.check)
    assert kernel_of(result, "baseline").correct and kernel_of(result, "reference").correct  # the inputs were put back
    (check, *_) = speed_check(config, "05_padded_transpose", outcome, result)
    assert check.status is Status.FAILED and "changed its inputs" in check.detail


@pytest.mark.slow
def test_a_launcher_that_sets_aside_persisting_l2_has_its_time_failed_though_its_result_is_right(
    cheats, emulator, config, tmp_path
):
    outcome, result = benchmarked(emulator, config, "02_dot_product", "student", tmp_path, work=cheats)
    student = kernel_of(result, "student")
    print(student.problems)
    assert student.correct
    assert student.problems == [
        "the checked launch set aside 1048576 bytes of L2 for persisting accesses (the benchmark holds it at 0)"
    ]
    assert kernel_of(result, "baseline").problems == []
    (check, *_) = speed_check(config, "02_dot_product", outcome, result)
    assert check.status is Status.FAILED and "set aside 1048576 bytes of L2" in check.detail
