"""One run of the CPU emulator makes Lab 10's schedule check and memcheck together (sanitize.run_emulated_together):
each is read from its own lines of the run's output, and the exit status that either's findings set is memcheck's
only where no schedule aspect counted an error."""

from __future__ import annotations

from grader.execution import proc
from grader.steps import sanitize, suite

MEMCHECK_FINDING = (
    "========= Invalid __global__ read of size 4 bytes\n"
    "=========     at polynomial_kernel in kernel.cu:12\n"
    "=========     by thread (0,0,0) in block (3,0,0)\n"
    "=========     Address 0x7f00 is out of bounds\n"
    "=========\n"
)
SCHEDULE_FINDING = (
    "========= Schedule error: pipeline_pinned copied from pageable host memory (cudaMemcpy)\n"
    "=========     (2 times)\n"
    "=========\n"
)
PINNED_FOUND = SCHEDULE_FINDING + "========= SCHEDULE SUMMARY (pinned): 1 error\n========= SCHEDULE SUMMARY: 1 error\n"
PINNED_CLEAN = "========= SCHEDULE SUMMARY (pinned): 0 errors\n========= SCHEDULE SUMMARY: 0 errors\n"


def together(returncode: int, stderr: str) -> dict[str, sanitize.SanitizerRun]:
    """The schedule's and memcheck's views of one run that printed `stderr` and ended with `returncode`."""
    run = suite.SuiteRun(proc.Outcome(["program"], returncode, "", stderr, 60), [])
    return {"schedule": sanitize.read_run("schedule", run), "memcheck": sanitize.read_run("memcheck", run, True)}


def test_a_schedule_finding_is_not_memchecks():
    runs = together(sanitize.SANITIZER_FOUND, PINNED_FOUND + "========= ERROR SUMMARY: 0 errors\n")
    memcheck, pinned = runs["memcheck"], sanitize.aspect_view(runs["schedule"], "pinned")
    assert memcheck.clean and memcheck.summary == "ERROR SUMMARY: 0 errors"
    assert "Schedule error" not in memcheck.first_report
    assert not pinned.clean and "pageable host memory" in pinned.first_report


def test_a_memcheck_finding_is_not_the_schedules():
    runs = together(sanitize.SANITIZER_FOUND, MEMCHECK_FINDING + PINNED_CLEAN + "========= ERROR SUMMARY: 1 error\n")
    memcheck, pinned = runs["memcheck"], sanitize.aspect_view(runs["schedule"], "pinned")
    assert not memcheck.clean and "Invalid __global__ read" in memcheck.first_report
    assert pinned.clean and not pinned.first_report


def test_both_found_in_one_run_each_shows_its_own():
    runs = together(sanitize.SANITIZER_FOUND, MEMCHECK_FINDING + PINNED_FOUND + "========= ERROR SUMMARY: 1 error\n")
    memcheck, pinned = runs["memcheck"], sanitize.aspect_view(runs["schedule"], "pinned")
    assert not memcheck.clean and memcheck.first_report.startswith("Invalid __global__ read")
    assert not pinned.clean and pinned.first_report.startswith("Schedule error")


def test_the_exit_status_no_schedule_error_explains_is_memchecks():
    # A clean memcheck summary the program printed, then an end with the emulator's status for a finding: no
    # aspect counted an error, so the finding is memcheck's, whatever the summary said.
    runs = together(sanitize.SANITIZER_FOUND, PINNED_CLEAN + "========= ERROR SUMMARY: 0 errors\n")
    assert not runs["memcheck"].clean
    assert together(0, PINNED_CLEAN + "========= ERROR SUMMARY: 0 errors\n")["memcheck"].clean


def test_a_run_of_memcheck_alone_still_reads_every_summary():
    run = suite.SuiteRun(proc.Outcome(["program"], 0, "", PINNED_FOUND + "========= ERROR SUMMARY: 0 errors\n", 60), [])
    assert not sanitize.read_run("memcheck", run).clean  # "SCHEDULE SUMMARY: 1 error" is a finding there
