"""Labs graded at once (./cml grade --jobs): built ahead together, then the same checks and verdicts as one at
a time, the labs' steps reported from their own threads, and each lab's time still its own (the waits for the build
folder and the GPU are steps of their own)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from grader.cli import grade_request, parse_args
from grader.core.config import TARGETS_DIR, Lab, load_target
from grader.core.exits import UsageError
from grader.core.model import LabGrade
from grader.execution.gpu_lock import GpuLock
from grader.execution.gpu_lock_files import gpu_locks
from grader.grading.context import Context
from grader.grading.evidence import Timing
from grader.grading.lab_runs import WAITING_FOR_THE_GPU, Steps
from grader.grading.session import BUILDING_AHEAD, GradeRequest, LabSeconds, start
from grader.reporting import report

pytestmark = pytest.mark.needs_solutions

SEED = 20261127
LABS = ["2", "6"]  # two of the cheapest on the CPU emulator


def graded(tree, work: Path, jobs: int) -> tuple[dict, list[tuple[str, str, str]]]:
    """Labs 2 and 6 of the solutions, graded `jobs` at a time: the run's JSON, and every progress report as
    (lab, step, thread)."""
    request = GradeRequest(
        labs=LABS, variants=("solution",), build_dir=tree.directory, seed=SEED, bench=False, jobs=jobs, work_dir=work
    )
    session = start(request)
    session.build()
    reports: list[tuple[str, str, str]] = []
    grades = session.grade(lambda lab, variant, step: reports.append((lab, step, threading.current_thread().name)))
    return report.run_dict(grades, session.facts()), reports


def verdicts(run: dict) -> list[tuple]:
    return [
        (lab["lab"], lab["verdict"], lab["points"], [(c["name"], c["status"], c["points"]) for c in lab["checks"]])
        for lab in run["labs"]
    ]


@pytest.mark.slow  # two whole grades on the emulator (37 s on 2 cores): the quick tier's 5 minutes are spent
def test_two_labs_graded_at_once_get_the_checks_and_verdicts_they_get_one_at_a_time(emulator, tmp_path):
    alone, _ = graded(emulator, tmp_path / "alone", jobs=1)
    together, reports = graded(emulator, tmp_path / "together", jobs=2)
    assert verdicts(together) == verdicts(alone)
    assert [lab["lab"] for lab in together["labs"]] == ["02_dot_product", "06_warp_reduction"]  # in the labs' order
    assert together["jobs"] == 2 and alone["jobs"] == 1

    # First both labs are built at once, by the calling thread (build.build_ahead); then both are graded at
    # once, each from a thread of its own: the second lab starts before the first is done.
    first, second = (lab["lab"] for lab in together["labs"])
    ahead = [(lab, thread) for lab, step, thread in reports[:2] if step == BUILDING_AHEAD]
    assert [lab for lab, _ in ahead] == [first, second] and together["built_ahead_seconds"] > 0
    grading = reports[2:]
    started = next(i for i, (lab, _, _) in enumerate(grading) if lab == second)
    assert started < next(i for i, (lab, step, _) in enumerate(grading) if (lab, step) == (first, "done"))
    threads = {thread for _, _, thread in grading}
    assert len(threads) == 2 and ahead[0][1] not in threads
    for lab in together["labs"]:
        assert lab["seconds"] >= sum(lab["steps"].values()) - 0.1  # a wait is counted once, as its own step
        assert together["seconds"] >= lab["seconds"]


def test_jobs_is_an_option_of_grade_and_at_least_one():
    assert grade_request(parse_args(["grade", "--jobs", "3"])).jobs == 3
    assert grade_request(parse_args(["grade"])).jobs is None  # the session's default_jobs()
    with pytest.raises(UsageError, match="--jobs 0"):
        start(GradeRequest(jobs=0))


@pytest.mark.parametrize(
    "other, step", [("tests", "benchmarking"), ("a benchmark", "building"), ("a benchmark's launches", "memcheck")]
)
def test_a_wait_for_the_gpu_is_a_step_of_its_own_and_the_lab_goes_back_to_its_step(other, step):
    ctx = cast(Context, SimpleNamespace(emulator=False, gpu_lock=GpuLock(), build_lock=threading.Lock()))
    grade, said = Timing(), list[str]()
    inside, other_may_end = threading.Event(), threading.Event()

    def progress(name: str) -> None:
        said.append(name)
        if name == WAITING_FOR_THE_GPU:
            other_may_end.set()  # this lab waits for the other one: now it may let go

    def other_lab() -> None:
        hold = ctx.gpu_lock.shared if other == "tests" else ctx.gpu_lock.exclusive
        with hold():
            inside.set()
            assert other_may_end.wait(5)

    thread = threading.Thread(target=other_lab)
    thread.start()
    assert inside.wait(5)
    steps = Steps(ctx, grade, progress)
    steps.next(step)
    if step == "benchmarking":
        with steps.gpu_then_alone() as hold:  # sets up beside the tests; its launches wait for them
            assert hold is not None
            hold.take()
    else:
        with steps.building() if step == "building" else steps.gpu():
            pass
    steps.next("done")
    thread.join(5)
    assert said == [step, WAITING_FOR_THE_GPU, step, "done"]
    assert list(grade.steps) == ["checking the source", step, WAITING_FOR_THE_GPU]


@pytest.mark.parametrize("files", [False, True], ids=["in one process", "through the card's files"])
def test_an_ncu_run_shares_the_gpu_with_the_tests_and_waits_only_for_another_ncu_run(files, tmp_path):
    locks = gpu_locks("GPU-test", tmp_path) if files else None
    gpu_lock, counters_lock = (locks.gpu, locks.counters) if locks else (GpuLock(), threading.Lock())
    ctx = cast(Context, SimpleNamespace(emulator=False, gpu_lock=gpu_lock, counters_lock=counters_lock))
    said = list[str]()
    steps = Steps(ctx, Timing(), said.append)
    steps.next("ncu")
    with ctx.gpu_lock.shared(), steps.counters():  # another lab's tests on the GPU: no wait
        pass
    inside, may_end = threading.Event(), threading.Event()

    def other_ncu_run() -> None:
        with Steps(ctx, Timing(), lambda _: None).counters():
            inside.set()
            assert may_end.wait(5)

    thread = threading.Thread(target=other_ncu_run)
    thread.start()
    assert inside.wait(5)
    threading.Timer(0.2, may_end.set).start()
    with steps.counters():
        assert may_end.is_set()
    thread.join(5)
    assert said == ["ncu", WAITING_FOR_THE_GPU, "ncu"]


def test_the_time_a_lab_has_the_gpu_alone_counts_from_its_turn_to_the_turn_given_back():
    ctx = cast(Context, SimpleNamespace(emulator=False, gpu_lock=GpuLock(), build_lock=threading.Lock()))
    grade = Timing()
    steps = Steps(ctx, grade, lambda _: None)
    steps.next("benchmarking")
    with steps.gpu_then_alone() as hold:
        assert hold is not None
        time.sleep(0.2)  # setting up, the GPU shared: not counted
        hold.take()
        time.sleep(0.3)
        hold.give_back()
        time.sleep(0.2)  # writing its results
    assert 0.3 <= grade.gpu_alone_seconds < 0.45
    with steps.gpu_then_alone() as hold:  # a run that ends holding its turn (it crashed): counted to its end
        assert hold is not None
        hold.take()
        time.sleep(0.1)
    assert 0.4 <= grade.gpu_alone_seconds < 0.6


def test_the_labs_that_worked_longest_last_time_in_the_folder_start_first(tmp_path):
    """Their waits left out: a lab that only waited long is not the one that holds the run up."""
    names = ("01_vector_add", "04_tiled_gemm", "05_padded_transpose")
    jobs = cast("list[tuple[Lab, str]]", [(SimpleNamespace(name=name), "student") for name in names])
    assert LabSeconds(tmp_path).longest_first(jobs) == [0, 1, 2]  # no earlier run: their own order

    def grade(lab: str, seconds: float, waited: float) -> LabGrade:
        lab_grade = LabGrade(lab, "", "student", "")
        lab_grade.seconds, lab_grade.steps = seconds, {WAITING_FOR_THE_GPU: waited, "racecheck": seconds - waited}
        return lab_grade

    LabSeconds(tmp_path).save(
        [
            grade("01_vector_add", 43.8, 25.7),
            grade("04_tiled_gemm", 59.0, 17.6),
            grade("05_padded_transpose", 59.7, 27.5),
        ]
    )
    order = [names[at] for at in LabSeconds(tmp_path).longest_first(jobs)]
    assert order == ["04_tiled_gemm", "05_padded_transpose", "01_vector_add"]


def test_a_folder_with_no_earlier_run_starts_the_labs_whose_reference_steps_take_longest(tmp_path):
    """From a clean build folder, the thresholds file's reference solution times order the labs: on the H100 Lab
    10's tests and benchmark, and Lab 4's racecheck, hold a whole set up longest."""
    names = ("01_vector_add", "04_tiled_gemm", "10_host_memory")
    jobs = cast("list[tuple[Lab, str]]", [(SimpleNamespace(name=name), "student") for name in names])
    reference = {"01_vector_add": {"tests": 3.4, "bench": 3.1}, "10_host_memory": {"tests": 4.7, "bench": 11.6}}
    order = [names[at] for at in LabSeconds(tmp_path, reference).longest_first(jobs)]
    assert order == ["10_host_memory", "01_vector_add", "04_tiled_gemm"]  # Lab 4 unmeasured here: last
    shipped = load_target(TARGETS_DIR / "h100.toml").reference_seconds
    order = [names[at] for at in LabSeconds(tmp_path, shipped).longest_first(jobs)]
    assert order[-1] == "01_vector_add"
