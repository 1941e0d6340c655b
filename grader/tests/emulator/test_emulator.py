"""The CPU emulator (common/emu), as CI runs it on a machine with no GPU: its own tests, every lab graded on
it, kernels written with cooperative groups, the races and counters of the planted kernels that
tools/ncu-planted.sh measures on a GPU (the two side by side: results/emulator.md), and the time the
correctness suites take."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from grader.core.config import REPO_ROOT, MechanismCheck, load_config
from grader.core.model import Category, Check, LabGrade, Status
from grader.core.recorded import RecordedLab
from grader.execution import proc
from grader.execution.gpu import Gpu
from grader.grading.checks import counter_check, sanitizer_check
from grader.grading.judge import EMULATED
from grader.grading.sizes import lab_sizes
from grader.reporting.report import shipped_skeletons
from grader.reporting.score import score
from grader.steps import profile, sanitize, suite
from grader.steps.build_tree import BuildTree
from grader.steps.student_steps import StudentWork
from grader.tests.support.cases import Case, judge_case, recorded_lab
from grader.tests.support.emulator_runs import emulator_counters, kernel_lines, selftest_program
from grader.tests.support.grading import (
    assert_passes_every_test_and_mechanism_and_no_speed_is_graded,
    built_programs,
    student_work,
)
from grader.tests.support.kernels import write_measured_labs

LABS = [lab.name for lab in load_config().labs]
OWN_KERNELS = Path(__file__).parents[1] / "kernels"  # kernels of this file's own, each a whole kernel.cu
RACECHECK = MechanismCheck("racecheck", "racecheck")


@pytest.fixture(scope="session")
def planted(tmp_path_factory) -> StudentWork:
    """The planted kernels tools/ncu-planted.sh profiles on a GPU, in place of the skeletons."""
    root = tmp_path_factory.mktemp("planted")
    return student_work(write_measured_labs(root / "labs"), root / "steps")


def write_64_kb_past_the_output() -> tuple[str, int]:
    """Lab 1's solution with one more write, 64 KB past the end of c, by the last thread; and its line."""
    solution = (REPO_ROOT / "solutions" / "01_vector_add" / "kernel.cu").read_text()
    old = "    c[i] = a[i] + b[i];\n"
    assert solution.count(old) == 1
    planted = "    if (i == n - 1) c[n + 64 * 1024 / sizeof(float)] = 0.0f;  // planted: 64 KB past the end of c\n"
    text = solution.replace(old, old + planted)
    return text, text[: text.index(planted)].count("\n") + 1


def built(tree: BuildTree, config, lab: str, variant: str, kind: str, work: StudentWork | None = None) -> Path:
    """The emulator's build of a lab's `kind` program of `variant` (the student's from `work`)."""
    return built_programs(tree, config, lab, variant, emulated=True, work=work)[kind]


# ---- the emulator itself ----


# The self-test is one target of the build folder, built under its lock: a second test process would wait there
# while the first builds it. Its tests run in one process.
SELFTEST_GROUP = pytest.mark.xdist_group("the emulator's self-test")


@pytest.fixture(scope="session")
def selftest(emulator, config) -> str:
    return selftest_program(emulator, config)


@SELFTEST_GROUP
def test_the_emulator_passes_its_own_tests_and_its_checks_find_nothing_there(selftest, config):
    run = proc.run([selftest], config.timeouts["tests"])
    assert run.ok, run.tail()
    checks = {"CML_EMU_CHECK": "memcheck,racecheck,initcheck", "CML_EMU_ERROR_EXITCODE": str(sanitize.SANITIZER_FOUND)}
    checked = proc.run([selftest], config.timeouts["sanitizer"], env=checks)
    assert checked.ok, checked.tail()
    assert "RACECHECK SUMMARY: 0 hazards" in checked.stderr and "ERROR SUMMARY: 0 errors" in checked.stderr


@SELFTEST_GROUP
def test_a_block_whose_threads_wait_for_each_other_is_reported_not_hung(selftest):
    # Skipped in the self-test's own run: it leaves the runtime failed, as a fault would on a GPU.
    run = proc.run([selftest, "--no-skip", "--test-case=a block whose threads wait*"], timeout_s=60)
    assert run.ok, run.tail()
    assert "Barrier error detected" in run.stderr and "deadlock_kernel" in run.stderr


@pytest.mark.parametrize(
    "tool, case, report",
    [
        ("memcheck", "a read one element past the end of an allocation", "Invalid __global__ read of size 4 bytes"),
        ("memcheck", "writes 64 KB past the end of an allocation", "Invalid __global__ write of size 4 bytes"),
        (
            "memcheck",
            "reads 4 GB past the end of an allocation where nothing is",
            "Invalid __global__ read of size 4 bytes",
        ),
        ("memcheck", "writes to the host's memory are not made", "Invalid __global__ write of size 4 bytes"),
        ("memcheck", "reads past the end of a __shared__ array", "Invalid __shared__ read of size 4 bytes"),
        ("memcheck", "an atomic before the start of a __shared__ array", "is out of bounds: byte -4 of the block's"),
        (
            "initcheck",
            "reads of __shared__ memory no thread wrote",
            "Uninitialized __shared__ memory read of size 4 bytes",
        ),
        (
            "racecheck",
            "two tiles of one warp read each other's slots after each synced alone",
            "Warning: Race reported between Write access at tiles_of_one_warp_race_kernel",
        ),
    ],
)
@SELFTEST_GROUP
def test_the_checks_report_the_planted_bugs_of_the_self_test(selftest, config, tool, case, report):
    # Each case checks what the program sees: an access outside every allocation is not made (a host buffer
    # written to keeps its values), and its launch succeeds under memcheck, which reports it, or fails with
    # cudaErrorIllegalAddress without, as on a GPU. Either way the program goes on to its end.
    run = proc.run(
        [selftest, "--no-skip", f"--test-case=planted: {case}"],
        config.timeouts["sanitizer"],
        env={"CML_EMU_CHECK": tool, "CML_EMU_ERROR_EXITCODE": str(sanitize.SANITIZER_FOUND)},
    )
    assert run.returncode == sanitize.SANITIZER_FOUND and "Status: SUCCESS" in run.stdout, run.tail()
    nothing = "RACECHECK SUMMARY: 0 hazards" if tool == "racecheck" else "ERROR SUMMARY: 0 errors"
    assert report in run.stderr and "kernels.cu" in run.stderr and nothing not in run.stderr
    clean = proc.run([selftest, "--no-skip", f"--test-case=planted: {case}"], config.timeouts["tests"])
    assert clean.ok and "=========" not in clean.stderr, "no check asked for, none reported"


def planted_under_racecheck(selftest, config, case: str):
    """The self-test's planted case run under racecheck, which must find something and let the program end."""
    run = proc.run(
        [selftest, "--no-skip", f"--test-case=planted: {case}"],
        config.timeouts["sanitizer"],
        env={"CML_EMU_CHECK": "racecheck", "CML_EMU_ERROR_EXITCODE": str(sanitize.SANITIZER_FOUND)},
    )
    assert run.returncode == sanitize.SANITIZER_FOUND and "Status: SUCCESS" in run.stdout, run.tail()
    return run


@SELFTEST_GROUP
def test_racecheck_sees_an_atomic_race_with_a_plain_store_but_not_with_another_atomic(selftest, config):
    # Thread 32 adds to the bin thread 0 zeroed, no barrier between: one error. 64 threads then add to one bin at
    # once, after a barrier: no hazard (Lab 11's shared histogram).
    run = planted_under_racecheck(selftest, config, "a shared bin zeroed by one thread*")
    assert "RACECHECK SUMMARY: 1 hazards displayed (1 errors, 0 warnings)" in run.stderr, run.tail()
    assert "zeroed_while_added_to_kernel" in run.stderr


@SELFTEST_GROUP
def test_racecheck_tracks_bytes_as_compute_sanitizer_does(selftest, config):
    # Threads 0 and 32 write one byte, and thread 32 reads a byte thread 0 wrote: two errors. Threads 1 and 33
    # write two bytes of one word: no hazard (a 4-byte word's racecheck made it a third).
    run = planted_under_racecheck(selftest, config, "two threads write one byte*")
    assert "RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)" in run.stderr, run.tail()
    assert "Write access at byte_races_kernel" in run.stderr and "Read access at byte_races_kernel" in run.stderr


# ---- every lab, graded on the emulator ----


SEED = 20261123  # fixed, so that a case's recorded evidence is what a grade of it makes now
GRADED_HERE = Gpu(False, reason="graded on the CPU emulator")


def graded_case(
    emulator, suite: str, name: str, lab: str, kernel: bytes, whole: bool, folder, record_property, repeatable=True
) -> RecordedLab:
    """A kernel.cu graded on the emulator as a submission: end to end (`whole`), or judged from its recorded
    evidence where what made it has not changed."""
    case = Case(suite, name, lab, kernel, SEED, end_to_end=whole, repeatable=repeatable)
    judged = judge_case(case, emulator.directory, folder, GRADED_HERE)
    record_property("evidence", judged.how)
    return recorded_lab(judged.student)


@pytest.mark.needs_solutions
@pytest.mark.parametrize("lab", LABS)
def test_every_solution_passes_its_tests_and_mechanisms_on_the_emulator_and_no_speed_is_graded(
    emulator, config, whole_grades, lab, tmp_path, record_property
):
    """Every solution, graded as a submission: end to end in the slow tier, from its evidence in every other run."""
    solution = (REPO_ROOT / "solutions" / lab / "kernel.cu").read_bytes()
    grade = graded_case(emulator, "solutions", lab, lab, solution, whole_grades, tmp_path, record_property)
    assert_passes_every_test_and_mechanism_and_no_speed_is_graded(grade, config, lab)


@pytest.mark.needs_solutions
def test_a_dot_product_written_with_cooperative_groups_passes_every_test_and_mechanism(
    emulator, config, whole_grades, tmp_path, record_property
):
    # block.sync() and cg::sync(block) between the steps of the tree, cg::reduce over tiles of 32 and
    # shuffles over a tile of 8, one atomicAdd per block: racecheck must see the syncs as the barriers they are.
    kernel = (OWN_KERNELS / "02_dot_product_cooperative_groups.cu").read_bytes()
    grade = graded_case(
        emulator, "kernels", "02_cooperative_groups", "02_dot_product", kernel, whole_grades, tmp_path, record_property
    )
    assert_passes_every_test_and_mechanism_and_no_speed_is_graded(grade, config, "02_dot_product")
    stretch = [c for c in grade.checks if c.category is Category.STRETCH]  # tiles of 32 and 8, cg::reduce
    assert stretch and all(c.status is Status.PASSED for c in stretch), [(c.name, c.status.value) for c in stretch]


# The most an untouched skeleton may earn of its lab's points, on any machine (labs.toml's header: lesson).
SKELETON_SHARE = 0.10


# Labs whose baseline is the skeleton's own kernel (labs.toml says so beside each `baseline`): on a GPU, a counter
# check against the baseline measures the untouched skeleton at a ratio of 1.
SKELETON_IS_THE_BASELINE = {"08_registers_local_memory", "09_occupancy", "11_histogram_atomics"}


def on_a_gpu(check: Check, lab, correct: bool) -> Status:
    """The best a check the emulator could not run could come to for the skeleton on a GPU: withheld where a test
    failed (as judge.withheld_unless has it), failed where it compares the skeleton's own kernel with itself at a
    ratio its bounds exclude, else passed (a GPU's tools may pass what the emulator cannot judge)."""
    if not correct:
        return Status.WITHHELD
    mechanism = next((m for m in lab.mechanisms if m.name == check.name), None)
    if mechanism and mechanism.relative_to == "baseline" and lab.name in SKELETON_IS_THE_BASELINE:
        low, high = mechanism.min, mechanism.max
        if (low is not None and low > 1.0) or (high is not None and high < 1.0):
            return Status.FAILED
    return Status.PASSED


def best_on_a_gpu(grade: RecordedLab, lab) -> float:
    """The most the same skeleton could earn on a GPU, from its grade here: the checks judged here as they were
    (the tests and sanitizers run the same code, the counters count the same loads, nvcc's report is the same),
    each check the emulator could not run at the best it could come to there (on_a_gpu), and its speed at the
    baseline's, since the skeleton's kernel is the baseline or as slow (no speedup: 0 credit), whether that GPU
    grades the speed or hands its points to the mechanism checks. The lesson's rule is applied again to that."""
    gated = [c for c in grade.checks if any(lesson.gates(c.name, c.category.value) for lesson in lab.lessons)]
    correct = all(
        c.status is Status.PASSED or (c in gated and c.status is Status.WITHHELD)
        for c in grade.checks
        if c.category is Category.CORRECTNESS
    )
    best = 0.0
    for speed in (Status.FAILED, Status.NOT_GRADED):
        checks = []
        for c in grade.checks:
            status = c.status
            if c.category is Category.PERFORMANCE:
                status = speed
            elif status is Status.NOT_RUN and c.category is Category.MECHANISM:
                status = on_a_gpu(c, lab, correct)
            elif status is Status.WITHHELD and c in gated and (correct or c.category is Category.CORRECTNESS):
                status = Status.PASSED  # as it was before the lesson's rule, which decides again below
            checks.append(Check(c.name, c.category, status, c.detail))
        rescored = score(
            LabGrade(grade.lab, grade.title, grade.variant, grade.kernel_path, checks), lab.points, lab.lessons
        )
        best = max(best, rescored.points)
    return best


@pytest.mark.parametrize("lab", LABS)
def test_every_untouched_skeleton_fails_on_the_emulator(emulator, config, whole_grades, lab, tmp_path, record_property):
    """Every skeleton as shipped, graded as a submission: end to end in the slow tier, from its evidence in every
    other run. It fails, and earns at most SKELETON_SHARE of its lab's points, here and at best on a GPU (where
    the skeleton's speed is the baseline's, so its speed checks earn no credit either)."""
    skeleton = (REPO_ROOT / "labs" / lab / "kernel.cu").read_bytes()
    if hashlib.sha256(skeleton).hexdigest() != shipped_skeletons().get(lab):
        pytest.skip(f"labs/{lab}/kernel.cu is no longer the skeleton")
    grade = graded_case(emulator, "skeletons", lab, lab, skeleton, whole_grades, tmp_path, record_property)
    failed = [c for c in grade.checks if c.category is Category.CORRECTNESS and c.status is Status.FAILED]
    if b"CML_TODO(" not in skeleton:
        # A skeleton that computes the right answer as shipped (Lab 8's window in local memory): its lesson is
        # a mechanism, and that check fails it.
        failed = [c for c in grade.checks if c.category is Category.MECHANISM and c.status is Status.FAILED]
    assert failed, [(c.name, c.status.value) for c in grade.checks]
    assert all(EMULATED in c.detail for c in failed if c.category is Category.CORRECTNESS)
    assert grade.verdict == "failed"
    paid = [(c.name, c.points) for c in grade.checks if c.points]
    assert grade.points <= SKELETON_SHARE * grade.max_points, f"{grade.points} of {grade.max_points}: {paid}"
    on_a_gpu = best_on_a_gpu(grade, config.lab(lab))
    assert on_a_gpu <= SKELETON_SHARE * grade.max_points, f"at best {on_a_gpu} of {grade.max_points} on a GPU"


@pytest.mark.needs_solutions
def test_a_write_64_kb_past_an_output_is_reported_at_its_line_and_the_tests_fail_as_on_a_gpu(
    emulator, config, whole_grades, tmp_path, record_property
):
    # It used to land in the test program's own memory, past the 4 KB red zone: the suite hung ("timed out")
    # and memcheck never reported. Now memcheck names the line, and without it the launch fails.
    kernel, line = write_64_kb_past_the_output()
    grade = graded_case(
        emulator,
        "kernels",
        "01_writes_64_kb_past",
        "01_vector_add",
        kernel.encode(),
        whole_grades,
        tmp_path,
        record_property,
        repeatable=False,  # its counted run crashed in one grade and not the next while unseeded; seeded, unproven
    )
    (memcheck,) = [c for c in grade.checks if c.name.startswith("memcheck")]
    assert memcheck.status is Status.FAILED, memcheck.detail
    assert "Invalid __global__ write of size 4 bytes" in memcheck.detail and f"kernel.cu:{line}" in memcheck.detail
    correctness = [c for c in grade.checks if c.category is Category.CORRECTNESS]
    assert correctness and all(c.status is not Status.NOT_RUN and "timed out" not in c.detail for c in correctness)
    failed = [c for c in correctness if c.status is Status.FAILED]
    assert failed and all("cudaErrorIllegalAddress" in c.detail for c in failed), [c.detail for c in correctness]
    assert grade.verdict == "failed"


# ---- racecheck: the planted races, and the fixed kernels ----


@pytest.mark.needs_solutions
@pytest.mark.slow
def test_racecheck_reports_the_halo_kernel_without_syncthreads_as_an_error(planted, emulator, config):
    binary = built(emulator, config, "03_smoothing_halo", "student", "test", planted)
    run = sanitize.run_emulated(
        "racecheck", binary, emulator.checker("03_smoothing_halo"), config.timeouts["sanitizer"]
    )
    errors = re.search(r"RACECHECK SUMMARY: \d+ hazards displayed \((\d+) errors", run.summary)
    assert errors and int(errors.group(1)) > 0, run.outcome.tail()
    assert re.search(r"Error: Race reported between \w+ access at smooth_kernel.*kernel\.cu", run.outcome.stderr)
    assert sanitizer_check(RACECHECK, run).status is Status.FAILED


@pytest.mark.needs_solutions
@pytest.mark.slow
def test_racecheck_reports_the_unrolled_warp_without_syncwarp_as_warnings(planted, emulator, config):
    binary = built(emulator, config, "06_warp_reduction", "student", "test", planted)
    run = sanitize.run_emulated(
        "racecheck", binary, emulator.checker("06_warp_reduction"), config.timeouts["sanitizer"]
    )
    # compute-sanitizer on the H100: "5 hazards displayed (0 errors, 5 warnings)" (labs.toml)
    assert re.fullmatch(r"RACECHECK SUMMARY: ([1-9]\d*) hazards displayed \(0 errors, \1 warnings\)", run.summary), (
        run.outcome.tail()
    )
    assert "block_sums_unrolled_kernel" in run.first_report
    assert sanitizer_check(RACECHECK, run).status is Status.FAILED  # the grader counts warnings


@pytest.mark.needs_solutions
@pytest.mark.parametrize("lab", ["03_smoothing_halo", "06_warp_reduction"])
def test_racecheck_finds_nothing_in_the_fixed_kernels(emulator, config, lab):
    binary = built(emulator, config, lab, "solution", "test")
    run = sanitize.run_emulated("racecheck", binary, emulator.checker(lab), config.timeouts["sanitizer"])
    assert run.clean and run.summary == "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)", (
        run.outcome.tail()
    )


@pytest.mark.needs_solutions
def test_a_sanitizer_runs_the_graded_cases_and_leaves_out_the_stretch(emulator, config):
    lab = "01_vector_add"
    binary = built(emulator, config, lab, "solution", "test")
    env = {"CML_GRADER_SIZES": ";".join(lab_sizes(config.lab(lab), 5, {}))}
    run = suite.run_suite(binary, emulator.checker(lab), config.timeouts["tests"], env, args=sanitize.GRADED_CASES)
    graded = [case for case in run.cases if not case.suite.startswith("stretch")]
    stretch = [case for case in run.cases if case.suite.startswith("stretch")]
    assert graded and all(case.passed for case in graded) and run.all_passed
    assert stretch and all(case.skipped_by_program for case in stretch)
    assert "float4" not in run.outcome.stdout + run.outcome.stderr


# ---- the counters, at the sizes tools/ncu-planted.sh profiles ----


@pytest.mark.needs_solutions
@pytest.mark.slow
def test_lanes_32_apart_read_8_times_the_sectors_of_the_coalesced_kernel(planted, emulator, config):
    coalescing = config.lab("01_vector_add").mechanisms[1]
    sectors, requests = coalescing.numerator, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
    ratios, per_request = {}, {}
    for work, variant in ((planted, "student"), (None, "solution")):
        bench = built(emulator, config, "01_vector_add", variant, "bench", work)
        runs = profile.read_emulated_counters(
            bench, [sectors, requests], ["student", "baseline"], "", 1 << 20, config.timeouts["profile"]
        )
        ratios[variant] = runs["student"].totals[sectors] / runs["baseline"].totals[sectors]
        per_request[variant] = runs["student"].totals[sectors] / runs["student"].totals[requests]
        print(
            f"{variant}: {ratios[variant]:g} of the baseline's sectors; "
            f"{counter_check(coalescing, runs['student'], runs['baseline']).detail}"
        )
    assert ratios == {"student": 1.0, "solution": 0.125}
    assert per_request == {"student": 32.0, "solution": 4.0}  # ncu on the H100: 32 and 4.0


@pytest.mark.needs_solutions
@pytest.mark.slow
def test_the_unpadded_tile_read_is_a_32_way_bank_conflict_and_the_padded_one_none(planted, emulator, config):
    student = {}
    for work, variant, ways in ((planted, "student", 32), (None, "solution", 1)):
        bench = built(emulator, config, "05_padded_transpose", variant, "bench", work)
        counters = emulator_counters([bench, "--profile", "--size", 256], config)
        shared = [line for line in kernel_lines(counters, "transpose_kernel", "student") if line["space"] == "shared"]
        (tile_read,) = [line for line in shared if line["op"] == "load"]
        print(f"{variant}: {tile_read}")
        assert tile_read["max_ways"] == ways and tile_read["bank_conflicts_per_request"] == ways - 1
        assert all(line["max_ways"] == 1 for line in shared if line["op"] == "store")
        (student[variant],) = [k["metrics"] for k in counters["kernels"] if k["nvtx_range"] == "student"]
    # ncu on the H100 at 256 x 256, unpadded: 63,488 bank conflicts over 2,048 shared loads; padded: 0
    conflicts, loads = (
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "smsp__inst_executed_op_shared_ld.sum",
    )
    assert [(m[conflicts], m[loads]) for m in student.values()] == [(63488, 2048), (0, 2048)]


@pytest.mark.needs_solutions
@pytest.mark.slow
def test_the_histogram_s_atomics_are_counted_per_warp_global_and_shared_apart(emulator, config):
    # 1 MB of text: one global reduction per warp and 32 bytes for the baseline, as ncu counts them (2,097,152 at
    # 64 MB on the H100); the solution adds the same bytes with shared atomics, its loop over the grid's threads
    # covering each 32-byte piece with one warp's instruction, and merges 8 bins per warp at most, 528 blocks.
    lab11 = "11_histogram_atomics"
    bench = built(emulator, config, lab11, "solution", "bench")
    counters = emulator_counters([bench, "--profile", "--size", 1 << 20], config)
    metrics = {k["nvtx_range"]: k["metrics"] for k in counters["kernels"]}
    red, shared = "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "smsp__sass_inst_executed_op_shared_atom.sum"
    assert (metrics["baseline"][red], metrics["baseline"][shared]) == (32768, 0)
    assert metrics["student"][shared] == 32768 and 0 < metrics["student"][red] <= 528 * 8, metrics["student"]
    lines = kernel_lines(counters, "global_atomics_kernel", "baseline")
    assert [(line["space"], line["op"]) for line in lines] == [("global", "load"), ("global", "atomic")]


@pytest.mark.needs_solutions
@pytest.mark.slow
def test_the_divergent_constant_memory_lookup_is_reported_serialised(planted, emulator, config):
    # The look-up's test cases, as tools/ncu-planted.sh profiles them with ncu (no benchmark range of its own).
    test_case = ["--test-case=returns the table entry*", "--reporters=console", "--no-version"]
    found = {}
    for work, variant in ((planted, "student"), (None, "solution")):
        test = built(emulator, config, "07_constant_memory", variant, "test", work)
        counters = emulator_counters([test, *test_case], config, env={"CML_SEED": "1"})
        found[variant] = [line for line in kernel_lines(counters, "lookup_kernel") if line["space"] == "constant"]
        print(f"{variant}: {found[variant]}")
    (table_read,) = found["student"]  # __constant__ table: each lane its own entry
    assert table_read["serialised_requests"] > 0.9 * table_read["requests"]
    assert table_read["addresses_per_request"] > 30 and table_read["max_addresses"] == 32
    # ncu on the H100, same seed and test cases: idc__requests of this kernel exceed the global-table kernel's
    # by 954,410, one request per distinct address beyond the first of each warp's read (results/emulator.md).
    assert table_read["addresses"] - table_read["requests"] == 954_410
    assert found["solution"] == []  # the table in global memory: no constant-cache reads at all
