"""From what the steps saw to checks, points and verdicts."""

import dataclasses
from typing import Any

import pytest

from grader.core.config import Lab, Lesson, MechanismCheck, Thresholds
from grader.core.model import BenchResult, Category, Check, KernelTiming, LabGrade, Status
from grader.execution.proc import Outcome
from grader.grading.checks import correctness_checks, counter_check, performance_checks
from grader.grading.judge import later_checks
from grader.reporting.score import score, verdict
from grader.steps.bench import BenchRun, median_of, parse_bench
from grader.steps.profile import CounterRun
from grader.steps.resources import ResourceReport
from grader.steps.sass import SassReport
from grader.steps.suite import SKIPPED_BY_PROGRAM, CaseResult, SuiteRun

LAB = Lab("01_vector_add", "Vector add", {"correctness": 50, "mechanism": 20, "performance": 30}, "lanes 32 apart")
POINTS = LAB.points


def outcome(returncode=0, stderr="") -> Outcome:
    return Outcome(["x"], returncode, "", stderr, 10.0)


def timing(role, ms, correct=True, group="") -> KernelTiming:
    return KernelTiming(role, role, group, True, correct, "check", ms, 0.01, 12.0 / ms, 0.0)


def bench(student_ms, baseline_ms=10.0, correct=True, copy_gbps=20.0) -> BenchRun:
    kernels = [timing("baseline", baseline_ms), timing("student", student_ms, correct)]
    return BenchRun(outcome(), BenchResult("H100", copy_gbps, "n", kernels))


def result_of(run: BenchRun) -> BenchResult:
    """The run's result, which every benchmark of these tests has."""
    assert run.result is not None
    return run.result


def kernel_of(result: BenchResult, role: str) -> KernelTiming:
    found = result.kernel(role)
    assert found is not None, f"no {role} kernel"
    return found


def test_without_a_gpu_cases_are_not_run_and_their_points_not_graded():
    checks = [
        c
        for c in later_checks(LAB, Status.NOT_RUN, "no usable CUDA device", ResourceReport(), tests=True)
        if c.category is Category.CORRECTNESS
    ]
    assert [c.status for c in checks] == [Status.NOT_RUN]
    grade = score(LabGrade("01", "t", "student", "k", [Check("build", Category.BUILD, Status.PASSED)] + checks), POINTS)
    assert grade.points == 0 and grade.ungraded_points == 50
    assert verdict(grade) == "incomplete"


def test_a_resources_check_is_judged_from_nvcc_s_report_where_no_later_step_runs():
    """The emulator cannot build inline PTX, and a machine may have neither GPU nor emulator: the compiler's report
    is there all the same. A kernel over its bound fails; a clean one is withheld, its results unshown."""
    from grader.core.model import KernelResources

    bound = MechanismCheck("resources: no stack", "resources", max_stack_bytes=0)
    lab = dataclasses.replace(LAB, mechanisms=[bound])
    kernel = KernelResources("k()", "sm_90", 32, 96, 0, 0, 0)
    spilled = later_checks(
        lab, Status.NOT_RUN, "not run: the CPU emulator could not build it", ResourceReport([kernel])
    )
    (judged,) = [c for c in spilled if c.name == bound.name]
    assert judged.status is Status.FAILED and "96 B of stack frame" in judged.detail
    clean = ResourceReport([dataclasses.replace(kernel, stack_bytes=0)])
    listing = SassReport(kernels=["k()"])  # read, with no local memory: nothing hidden from the report
    (withheld,) = [c for c in later_checks(lab, Status.NOT_RUN, "no GPU", clean, listing) if c.name == bound.name]
    assert withheld.status is Status.WITHHELD
    # Unread, the frame one alloca makes at run time could hide there: the check cannot pass on the report alone.
    (unread,) = [c for c in later_checks(lab, Status.NOT_RUN, "no GPU", clean) if c.name == bound.name]
    assert unread.status is not Status.WITHHELD and "machine code was not read" in unread.detail
    others = [c for c in spilled if c.name != bound.name]
    assert others and all(c.status is Status.NOT_RUN for c in others)


def test_cases_a_crashed_program_never_finished_fail_with_how_it_ended():
    suite = SuiteRun(outcome(None), [CaseResult("a", "s", True, True), CaseResult("b", "s", False, False)])
    checks = correctness_checks(suite, "README.md")
    assert [c.status for c in checks] == [Status.PASSED, Status.FAILED]
    assert "timed out" in checks[1].detail


def test_an_unattempted_stretch_is_skipped_and_worth_nothing():
    skipped = f"exception: {SKIPPED_BY_PROGRAM} (a stretch goal not attempted)"  # the checker's words
    suite = SuiteRun(
        outcome(0), [CaseResult("a", "vector_add", True, True), CaseResult("f4", "stretch: x", True, False, skipped)]
    )
    checks = [Check("build", Category.BUILD, Status.PASSED)] + correctness_checks(suite, "README.md")
    assert checks[-1].status is Status.SKIPPED and checks[-1].category is Category.STRETCH
    assert score(LabGrade("01", "t", "student", "k", checks), {"correctness": 50}).points == 50


def test_todo_lines_become_the_hint_of_a_failed_case():
    suite = SuiteRun(outcome(1), [CaseResult("a", "s", True, False, "wrong")], todos=["kernel.cu:30: TODO 3: launch"])
    (check,) = correctness_checks(suite, "README.md")
    assert "TODO 3" in check.hint


def test_speedup_and_copy_fraction_against_thresholds():
    passing = performance_checks(LAB, bench(student_ms=0.5), {"": Thresholds(10.7, 0.55)}, "H100")
    assert [c.status for c in passing] == [Status.PASSED, Status.PASSED]
    assert "x20.00" in passing[0].detail
    slow = performance_checks(LAB, bench(student_ms=1.0), {"": Thresholds(10.7, 0.55)}, "H100")
    assert [c.status for c in slow] == [Status.FAILED, Status.PASSED]


def test_a_wrong_result_earns_no_speed_points_however_fast():
    (check,) = performance_checks(LAB, bench(student_ms=0.1, correct=False), {"": Thresholds(2.0)}, "H100")
    assert check.status is Status.FAILED and "wrong" in check.detail


CLOCK = (
    "did work outside the timed stream: the host's clock saw 5.2 ms per launch and device-wide synchronise, "
    "the CUDA events on the default stream 0.01 ms (allowed: 0.0625 ms)"
)


def with_problems(run: BenchRun, role: str, *problems: str) -> BenchRun:
    result = result_of(run)
    kernels = [dataclasses.replace(k, problems=list(problems)) if k.role == role else k for k in result.kernels]
    return BenchRun(run.outcome, dataclasses.replace(result, kernels=kernels))


def test_a_time_the_benchmark_cannot_trust_earns_nothing_and_the_check_says_why():
    run = with_problems(bench(student_ms=0.001), "student", CLOCK)
    checks = performance_checks(LAB, run, {"": Thresholds(10.7, 0.55)}, "H100")
    assert [c.status for c in checks] == [Status.FAILED]
    assert "cannot be trusted" in checks[0].detail and "outside the timed stream" in checks[0].detail
    (rates,) = result_of(run).rates(memory_bound=True)
    assert rates.correct and rates.speedup is None and rates.copy_fraction is None


def test_a_baseline_time_that_cannot_be_trusted_leaves_the_speedup_not_run_rather_than_failed():
    run = with_problems(
        bench(student_ms=0.5),
        "baseline",
        "faster than its 12 bytes can move at this GPU's copy bandwidth: 0.0001 ms < 0.0004 ms",
    )
    (check,) = performance_checks(LAB, run, {"": Thresholds(10.7)}, "H100")
    assert check.status is Status.NOT_RUN and "baseline's time cannot be trusted" in check.detail


def test_a_wrong_timed_launch_fails_the_speed_check_with_which_launch_and_what_was_wrong():
    wrong = "timed launch 17 of 25 left its output unwritten (poison): 1 of 1 elements wrong"
    run = bench(student_ms=0.01, correct=False)
    result_of(run).kernels[1].check = wrong
    (check,) = performance_checks(LAB, run, {"": Thresholds(10.7)}, "H100")
    assert check.status is Status.FAILED and wrong in check.detail


def test_a_stretch_with_a_time_not_trusted_fails_though_its_result_is_right():
    stretch = dataclasses.replace(
        timing("stretch", 0.1),
        name="float4",
        problems=[
            "the checked launch set aside 1048576 bytes of L2 for persisting accesses (the benchmark holds it at 0)"
        ],
    )
    run = bench(student_ms=0.5)
    result_of(run).kernels.append(stretch)
    found = [c for c in performance_checks(LAB, run, {"": Thresholds(10.7)}, "H100") if c.category is Category.STRETCH]
    assert [c.status for c in found] == [Status.FAILED] and "persisting accesses" in found[0].detail


BENCH_JSON: dict[str, Any] = {
    "device": {"name": "H100", "copy_gbps": 2956.0},
    "problem": "n",
    "kernels": [
        {
            "name": "k",
            "role": "student",
            "group": "",
            "attempted": True,
            "correct": True,
            "check": "ok",
            "median_ms": 1.0,
            "min_ms": 1.0,
            "max_ms": 1.0,
            "gbps": 1.0,
            "gflops": 0.0,
        }
    ],
}


def test_the_benchmarks_checks_of_its_timed_launches_are_read_and_older_json_gets_their_defaults():
    (old,) = parse_bench(BENCH_JSON).kernels
    assert (old.problems, old.timed_launches_verified, old.host_median_ms, old.floor_ms) == ([], 0, 0.0, 0.0)
    fields = {"problems": [CLOCK], "timed_launches_verified": 2, "host_median_ms": 5.2, "floor_ms": 0.27}
    (new,) = parse_bench({**BENCH_JSON, "kernels": [{**BENCH_JSON["kernels"][0], **fields}]}).kernels
    assert (new.problems, new.timed_launches_verified, new.host_median_ms, new.floor_ms) == ([CLOCK], 2, 5.2, 0.27)


def test_a_problem_in_any_of_the_runs_measured_again_stays_in_their_median():
    runs = [result_of(bench(student_ms=1.0)), result_of(with_problems(bench(student_ms=1.0), "student", CLOCK))]
    merged = median_of(runs)
    assert kernel_of(merged, "student").problems == [CLOCK] and kernel_of(merged, "baseline").problems == []


def test_no_thresholds_for_this_gpu_means_not_run():
    (check,) = performance_checks(LAB, bench(student_ms=0.5), {}, "Some GPU")
    assert check.status is Status.NOT_RUN and "calibrate" in check.detail


def test_groups_are_each_graded_against_their_own_threshold():
    kernels = [
        timing("baseline", 1.0, group="R = 1"),
        timing("student", 1.1, group="R = 1"),
        timing("baseline", 1.6, group="R = 32"),
        timing("student", 1.0, group="R = 32"),
    ]
    run = BenchRun(outcome(), BenchResult("H100", 20.0, "n", kernels))
    thresholds = {"R = 1": Thresholds(0.8), "R = 32": Thresholds(1.3)}
    checks = performance_checks(LAB, run, thresholds, "H100")
    assert [(c.name, c.status) for c in checks] == [
        ("speedup over lanes 32 apart (R = 1)", Status.PASSED),
        ("speedup over lanes 32 apart (R = 32)", Status.PASSED),
    ]


def counters(**totals) -> CounterRun:
    return CounterRun(outcome(), totals, kernels=1)


def test_counter_ratio_against_its_bounds():
    sectors = MechanismCheck("coalescing", "ncu", numerator="sectors", denominator="requests", max=4.5)
    assert counter_check(sectors, counters(sectors=4.0, requests=1.0)).status is Status.PASSED
    assert counter_check(sectors, counters(sectors=32.0, requests=1.0)).status is Status.FAILED
    assert counter_check(sectors, counters(sectors=4.0, requests=1.0)).measured == 4.0  # for tools reading grade.json
    assert counter_check(sectors, counters(sectors=4.0, requests=0.0)).measured is None  # infinite: plain JSON
    relative = MechanismCheck("fewer loads", "ncu", numerator="sectors", relative_to="baseline", max=0.5)
    assert counter_check(relative, counters(sectors=1.0), counters(sectors=3.0)).status is Status.PASSED
    assert counter_check(relative, counters(sectors=3.0), counters(sectors=3.0)).status is Status.FAILED


def test_missing_counters_are_not_run_rather_than_passed():
    check = MechanismCheck("coalescing", "ncu", numerator="sectors", denominator="requests", max=4.5)
    broken = CounterRun(outcome(1, "ERR_NVGPUCTRPERM"), {}, kernels=0)
    assert counter_check(check, broken).status is Status.NOT_RUN


def test_a_metric_with_no_value_is_not_run_rather_than_zero():
    check = MechanismCheck("coalescing", "ncu", numerator="sectors", denominator="requests", max=4.5)
    found = counter_check(check, counters(requests=1.0))
    assert found.status is Status.NOT_RUN and "no value for sectors" in found.detail
    relative = MechanismCheck("fewer loads", "ncu", numerator="sectors", relative_to="baseline", max=0.5)
    assert counter_check(relative, counters(sectors=1.0), counters(requests=3.0)).status is Status.NOT_RUN


def test_a_failed_build_scores_nothing_and_fails_the_lab():
    grade = score(LabGrade("01", "t", "student", "k", [Check("build", Category.BUILD, Status.FAILED)]), POINTS)
    assert grade.points == 0 and grade.ungraded_points == 0 and verdict(grade) == "failed"


def test_points_split_evenly_within_each_category():
    checks = [
        Check("build", Category.BUILD, Status.PASSED),
        Check("a", Category.CORRECTNESS, Status.PASSED),
        Check("b", Category.CORRECTNESS, Status.FAILED),
        Check("m", Category.MECHANISM, Status.PASSED),
        Check("p", Category.PERFORMANCE, Status.NOT_RUN),
    ]
    grade = score(LabGrade("01", "t", "student", "k", checks), POINTS)
    assert grade.points == 25 + 20 and grade.ungraded_points == 30 and verdict(grade) == "failed"


def test_a_speed_short_of_its_threshold_earns_its_share_of_the_way_from_the_baseline():
    # Baseline x1, threshold x5: a student at x3 is half way there.
    (check,) = performance_checks(LAB, bench(student_ms=10.0 / 3), {"": Thresholds(5.0)}, "H100")
    assert check.status is Status.FAILED and abs(check.credit - 0.5) < 1e-9 and "50%" in check.detail
    assert check.measured == pytest.approx(3.0) and check.threshold == 5.0  # its detail's figures, for grade.json
    grade = score(LabGrade("01", "t", "student", "k", [Check("build", Category.BUILD, Status.PASSED), check]), POINTS)
    assert abs(grade.points - 15.0) < 1e-9 and verdict(grade) == "failed"
    (slower,) = performance_checks(LAB, bench(student_ms=20.0), {"": Thresholds(5.0)}, "H100")
    assert slower.credit == 0.0  # slower than the baseline itself: nothing


def test_a_speed_check_time_cannot_separate_gives_its_points_to_the_mechanisms():
    why = "time cannot separate them on this GPU: ..."
    speed = performance_checks(
        LAB, bench(student_ms=1.0), {"": Thresholds(not_graded=why, reference_speedup=9.0)}, "H100"
    )
    assert {c.status for c in speed} == {Status.NOT_GRADED} and why in speed[0].detail and "x9.00" in speed[0].detail
    checks = [
        Check("build", Category.BUILD, Status.PASSED),
        Check("c", Category.CORRECTNESS, Status.PASSED),
        Check("m", Category.MECHANISM, Status.PASSED),
        *speed,
    ]
    grade = score(LabGrade("01", "t", "student", "k", checks), POINTS)
    assert grade.points == 100 and checks[2].max_points == 50 and all(c.max_points == 0 for c in speed)
    assert verdict(grade) == "passed"


def test_the_report_says_where_a_student_stands_against_the_reference():
    (check,) = performance_checks(LAB, bench(student_ms=1.0), {"": Thresholds(5.0, reference_speedup=12.5)}, "H100")
    assert "threshold x5.00" in check.detail and "the reference solution x12.50" in check.detail


def test_a_clean_sanitizer_run_with_wrong_results_fails_as_order_dependent():
    """compute-sanitizer's racecheck has no report for a plain store and an atomic on one shared word; when its
    run's results come out wrong where the tests alone were right, the check fails and says why."""
    from grader.grading.checks import order_dependent
    from grader.steps.sanitize import read_run

    mechanism = MechanismCheck("racecheck: bins zeroed first", "racecheck", hint="a barrier after the zeroing")
    clean = outcome(1, "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)")
    cases = [
        CaseResult("counts text", "histogram", True, False, "bin 101: got 4, want 5"),
        CaseResult("n = 0", "s", True, True),
    ]
    run = read_run("racecheck", SuiteRun(clean, cases))
    assert run.clean and not run.results_right and run.first_wrong == "counts text: bin 101: got 4, want 5"
    check = order_dependent(mechanism, run)
    assert check.status is Status.FAILED and check.hint == mechanism.hint
    assert "order the threads run in" in check.detail and "bin 101" in check.detail
    right = read_run("racecheck", SuiteRun(clean, [CaseResult("n = 0", "s", True, True)]))
    assert right.results_right and right.first_wrong == ""


def test_a_sanitizer_run_that_ended_without_its_summary_is_never_clean():
    """The CPU emulator prints its summary as the program exits: a wild write that crashed the program (doctest
    catches the signal and exits 139, so the run does not read as a crash) leaves no summary, and no verdict."""
    from grader.steps.sanitize import read_run

    cases = [CaseResult("counts an image", "histogram", True, False, "test case CRASHED: SIGSEGV")]
    crashed = read_run("memcheck", SuiteRun(outcome(139, "FATAL ERROR: test case CRASHED: SIGSEGV"), cases))
    assert not crashed.clean and crashed.summary == ""
    assert crashed.first_report.startswith("memcheck printed no summary") and "exit status 139" in crashed.first_report
    spoke = read_run("memcheck", SuiteRun(outcome(0, "========= ERROR SUMMARY: 0 errors"), []))
    assert spoke.clean and spoke.summary == "ERROR SUMMARY: 0 errors"


def test_a_sanitizers_run_leaves_out_the_cases_of_size_alone_and_their_skip_costs_it_nothing():
    from grader.steps.sanitize import GRADED_CASES, read_run

    assert GRADED_CASES == ("--test-suite-exclude=stretch*,size alone*",)
    left_out = f"exception: {SKIPPED_BY_PROGRAM}"  # the checker's words for a case the run did not reach
    clean = outcome(0, "========= ERROR SUMMARY: 0 errors")
    big = CaseResult("counts 2^26 + 3 equal bytes", "size alone: histogram", False, False, left_out)
    right = read_run("memcheck", SuiteRun(clean, [CaseResult("n = 0", "histogram", True, True), big]))
    assert right.results_right and right.first_wrong == ""
    graded = CaseResult("counts text", "histogram", True, False, left_out)  # a graded case left out is not
    assert not read_run("memcheck", SuiteRun(clean, [graded, big])).results_right


# ---- no points for an untouched skeleton (labs.toml: lesson) ----

LESSON_LAB = Lab(
    "11_histogram_atomics",
    "Histogram",
    {"correctness": 50, "mechanism": 25, "performance": 25},
    "one global atomicAdd per byte",
    mechanisms=[
        MechanismCheck("memcheck: bounds", "memcheck"),
        MechanismCheck("racecheck: bins", "racecheck"),
        MechanismCheck("ncu: privatization", "ncu", numerator="red", relative_to="baseline", max=0.25),
    ],
    lessons=[Lesson(shown_by=["ncu: privatization"], pays_for=["tests: counts ", "racecheck"])],
)


def lesson_grade(lesson: Status, counts: Status = Status.PASSED) -> LabGrade:
    checks = [
        Check("build", Category.BUILD, Status.PASSED),
        Check("counts text", Category.CORRECTNESS, counts, "(CPU emulator)"),
        Check("sets the bins itself", Category.CORRECTNESS, Status.PASSED),
        Check("memcheck: bounds", Category.MECHANISM, Status.PASSED, "ERROR SUMMARY: 0 errors"),
        Check("racecheck: bins", Category.MECHANISM, Status.PASSED, "0 hazards\nits report"),
        Check("ncu: privatization", Category.MECHANISM, lesson, "1.00 (must be <= 0.25)"),
        Check("speedup", Category.PERFORMANCE, Status.NOT_RUN),
    ]
    return score(LabGrade(LESSON_LAB.name, "t", "student", "k", checks), LESSON_LAB.points, LESSON_LAB.lessons)


def test_what_the_untouched_skeleton_passes_is_withheld_until_the_lessons_check_comes_out_clean():
    grade = lesson_grade(Status.FAILED)
    by_name = {c.name: c for c in grade.checks}
    held = [name for name, c in by_name.items() if c.status is Status.WITHHELD]
    assert held == ["counts text", "racecheck: bins"]  # named by `pays_for`: a start of a test's name, a tool
    assert by_name["counts text"].detail.startswith("passed (CPU emulator), but the skeleton as shipped passes it")
    racecheck = by_name["racecheck: bins"].detail
    assert racecheck.startswith("passed (0 hazards), but") and "ncu: privatization: failed" in racecheck
    assert racecheck.endswith("\nits report")  # what followed its verdict stays as it was
    assert grade.points == 25 + 25 / 3 and verdict(grade) == "failed"
    assert lesson_grade(Status.PASSED).points == 75  # every check paid once the lesson shows


def test_a_lessons_check_clean_but_withheld_for_a_failed_test_shows_the_lesson_and_one_not_run_does_not():
    # A private histogram whose one test fails: its counter check came out clean, and the rest is paid.
    clean = lesson_grade(Status.WITHHELD, counts=Status.FAILED)
    assert {c.name: c.status for c in clean.checks}["racecheck: bins"] is Status.PASSED
    unmeasured = lesson_grade(Status.NOT_RUN)  # nothing shows the lesson: an untouched skeleton earns nothing
    assert {c.name: c.status for c in unmeasured.checks}["counts text"] is Status.WITHHELD
    assert verdict(unmeasured) == "incomplete"


def test_a_lesson_must_name_the_labs_own_checks_and_tools():
    with pytest.raises(ValueError, match="names no check or tool"):
        Lab("x", "t", {}, "b", mechanisms=LESSON_LAB.mechanisms, lessons=[Lesson(["ncu: other"], ["racecheck"])])
    with pytest.raises(ValueError, match="names no check or tool"):
        Lab(
            "x", "t", {}, "b", mechanisms=LESSON_LAB.mechanisms, lessons=[Lesson(["ncu: privatization"], ["initcheck"])]
        )
