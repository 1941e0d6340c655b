"""compute-sanitizer (memcheck, racecheck, synccheck, initcheck) over a lab's test program, or, with no GPU,
the CPU emulator's own checks (common/emu), which print the same reports and summaries; and Lab 10's schedule
check, on a GPU from CUPTI's record (common/schedule/cupti_recorder.cpp), which prints what the emulator's does.
The program runs as in its correctness run (same variables and files: grader/steps/suite.py) over the graded
cases, and the checker judges the record of this very run: a clean report counts only if this run's results
were right.

The stretch's cases (their doctest suites are named "stretch: ...") are left out: a mechanism check is about
the graded kernel, and a stretch carries no points. They come last in every test.cpp, so up to the last graded
case the graded kernel sees the same calls as in the correctness run; left out, Lab 4's racecheck is about a
quarter shorter, and on the H100 that racecheck was the longest step of a grade. So are the cases whose point is
their size alone (suites named "size alone: ...", just before the stretch's): Lab 11's 64 MB of equal bytes,
which take a block's bin past 16 bits, took the CPU emulator's memcheck and racecheck from 1 s to 8 s each."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from grader.execution import proc, sandbox
from grader.steps import suite

# The sanitizer exits with this when it found anything (racecheck's hazard warnings included), and with
# the program's own status otherwise.
SANITIZER_FOUND = 86
# compute-sanitizer's tools, as labs.toml names a mechanism's tool and a check's name begins.
SANITIZERS = ("memcheck", "racecheck", "synccheck", "initcheck")
# The checks the CPU emulator makes (CML_EMU_CHECK); its initcheck is of shared memory, not global. Its schedule
# check, of the runtime calls around host memory and streams, has no compute-sanitizer tool of the same name.
EMULATED_TOOLS = ("memcheck", "racecheck", "initcheck", "schedule")
PRINT_LIMIT = 10
# The doctest suites a sanitizer's run leaves out (by the start of their names): the stretch's, and those whose
# point is their size alone, where a sanitizer would find nothing a smaller case does not show, at many times the
# cost. GRADED_CASES is doctest's filter for every other case.
LEFT_OUT = ("stretch", "size alone")
GRADED_CASES = ("--test-suite-exclude=" + ",".join(f"{suite}*" for suite in LEFT_OUT),)

# The schedule check's recorder, as the test program sees it: CUDA loads it (CUDA_INJECTION64_PATH), and NVTX
# hands its ranges to CUPTI through it (NVTX_INJECTION64_PATH).
RECORDER = sandbox.INSIDE / "schedule-recorder.so"
NO_RECORDER = "the schedule recorder was not built: the build found no CUPTI (libcupti and cupti.h) in the CUDA toolkit"
NO_SUMMARY = (
    "the schedule recorder printed no summary: CUDA did not load it, or the program ended without running its exit "
    "handlers"
)
NOT_MEASURED = "were not measured"  # common/schedule/findings.cpp: faults_not_measured
# What the recorder measured of an aspect, on the line before the aspect's summary: shown with its check, never
# graded, in the recorder's own words (common/schedule/findings.cpp: overlap_figure). The emulator measures none.
MEASURED = "SCHEDULE MEASURED"
IMITATED = "no measurement shown: the program printed a line like the recorder's"
# How each of the schedule check's findings begins (common/schedule/findings.cpp).
SCHEDULE_FINDING = ("Schedule error", "Race reported between")
# An aspect's summary that counts errors: common/schedule/findings.cpp prints one for each aspect it reports.
SCHEDULE_ERRORS = re.compile(r"^========= SCHEDULE SUMMARY \(\w+\): [1-9]")
SUMMARY = re.compile(r"(ERROR SUMMARY: \d+ errors?|RACECHECK SUMMARY: [^\n]*|SCHEDULE SUMMARY: [^\n]*)")
# Digits of a summary's count read as a number: the program under test can print a line like the tools', and
# Python refuses to convert a number of more than 4,300 digits.
COUNT_DIGITS = 9


@dataclass
class SanitizerRun:
    tool: str
    outcome: proc.Outcome
    clean: bool
    summary: str  # the tool's summary line
    first_report: str  # the first report, with the kernel and source line it names
    results_right: bool = False  # the checker passed every required case of this run's record
    first_wrong: str = ""  # the first required case this run's record failed: its name and message
    unmeasured: str = ""  # a schedule aspect the machine could not measure (its findings say only that)
    recorded: bool = False  # the schedule recorder's run on a GPU, the only one that measures anything
    measured: str = ""  # what the recorder measured of the aspect (MEASURED), for the student to read


def first_report(output: str, lines: int = 8) -> str:
    """The first block of '=========' lines that is a finding, not the tool's banner or summary."""
    block: list[str] = []
    for line in output.splitlines():
        if not line.startswith("========="):
            continue
        body = line.removeprefix("=========").strip()
        if not block and not re.search(r"Invalid|hazard|Race|Error|error|Uninitialized|Barrier|Warning", body):
            continue
        if block and not body:
            break
        block.append(body)
        if len(block) >= lines:
            break
    return "\n".join(block)


def run_sanitizer(
    tool: str, sanitizer: Path, binary: Path, checker: Path, timeout_s: proc.Limit, env: dict | None = None
) -> SanitizerRun:
    command = (
        str(sanitizer),
        "--tool",
        tool,
        "--error-exitcode",
        str(SANITIZER_FOUND),
        "--print-limit",
        str(PRINT_LIMIT),
    )
    run = suite.run_suite(binary, checker, timeout_s, env, tool=command, args=GRADED_CASES)
    return read_run(tool, run)


def run_emulated(
    tool: str, binary: Path, checker: Path, timeout_s: proc.Limit, env: dict | None = None, schedule: str = ""
) -> SanitizerRun:
    """`tool` as the CPU emulator makes it, over the emulator's build of the test program; for the schedule
    check, the aspects of it to report (`schedule`)."""
    return run_emulated_together((tool,), binary, checker, timeout_s, env, schedule)[tool]


def run_emulated_together(
    tools: tuple[str, ...],
    binary: Path,
    checker: Path,
    timeout_s: proc.Limit,
    env: dict | None = None,
    schedule: str = "",
) -> dict[str, SanitizerRun]:
    """Each of `tools` from one run of the emulator's build of the test program, which makes them all: the
    schedule check and one sanitizer at most, whose findings and summaries the emulator keeps apart (a second
    sanitizer's errors would share the first's ERROR SUMMARY). Each tool's run is read from its own lines."""
    assert sum(tool != "schedule" for tool in tools) <= 1, tools
    checks = {
        "CML_EMU_CHECK": ",".join(tools),
        "CML_EMU_SCHEDULE": schedule,
        "CML_EMU_ERROR_EXITCODE": str(SANITIZER_FOUND),
        "CML_EMU_PRINT_LIMIT": str(PRINT_LIMIT),
    }
    run = suite.run_suite(binary, checker, timeout_s, {**(env or {}), **checks}, args=GRADED_CASES)
    beside_schedule = "schedule" in tools
    return {tool: read_run(tool, run, beside_schedule and tool != "schedule") for tool in tools}


def recorder_variables(schedule: str) -> dict[str, str]:
    """What a test program's run under the schedule recorder adds to its variables: `schedule`, the one aspect
    of the check to report."""
    return {
        "CUDA_INJECTION64_PATH": str(RECORDER),
        "NVTX_INJECTION64_PATH": str(RECORDER),
        "CML_SCHEDULE": schedule,
        "CML_SCHEDULE_ERROR_EXITCODE": str(SANITIZER_FOUND),
        "CML_SCHEDULE_PRINT_LIMIT": str(PRINT_LIMIT),
    }


def run_recorded(
    recorder: Path, binary: Path, checker: Path, timeout_s: proc.Limit, env: dict | None = None, schedule: str = ""
) -> SanitizerRun:
    """The schedule check on a GPU: the test program, in the sandbox as ever, with the grader's `recorder` (built
    by meson.build from common/schedule, never from a submission) seen read-only at RECORDER and injected."""
    variables = {**(env or {}), **recorder_variables(schedule)}
    run = suite.run_suite(binary, checker, timeout_s, variables, args=GRADED_CASES, files={RECORDER: recorder})
    found = replace(read_run("schedule", run), recorded=True)
    if not found.summary and not found.outcome.timed_out:  # the recorder's own reason for a missing summary
        found.first_report = NO_SUMMARY
    return found


def schedule_lines(output: str) -> tuple[list[str], list[str]]:
    """A run's output as the schedule check's lines and the rest. The check's lines are its findings (from a line
    "========= Schedule error: ..." or "========= Race reported between ..." to the bare "=========" that ends it:
    common/schedule/findings.cpp), its measurements and its summaries; the rest is the program's own and, where
    the CPU emulator made a sanitizer's check in the same run, that sanitizer's, whose races begin "Error: " or
    "Warning: "."""
    schedule: list[str] = []
    rest: list[str] = []
    in_finding = False
    for line in output.splitlines():
        body = line.removeprefix("=========").strip() if line.startswith("=========") else None
        if body is not None and (in_finding or body.startswith((*SCHEDULE_FINDING, "SCHEDULE "))):
            schedule.append(line)
            in_finding = body.startswith(SCHEDULE_FINDING) or (in_finding and body != "")
        else:
            rest.append(line)
    return schedule, rest


def aspect_view(run: SanitizerRun, aspect: str) -> SanitizerRun:
    """A schedule run's verdict on one `aspect`, where the run reported several: one run of the test program
    serves every schedule check of a lab. The findings between the previous summary and the aspect's own
    ("SCHEDULE SUMMARY (pinned): 0 errors") are its; the exit status, which any aspect's finding sets, is not.
    Clean only if the run ended normally and every summary line of the aspect counts none: a forged clean line
    hides no finding, and a missing one is never clean. A measurement ("SCHEDULE MEASURED (overlap): ...") is
    no finding: it is the aspect's only from the recorder's run, which prints one in every run that reports the
    aspect, and only where the output holds one, since the program's own output may imitate it. Only the
    schedule's own lines are read: on the CPU emulator, a sanitizer's check may have been made in the same run."""
    output, _ = schedule_lines(run.outcome.stdout + "\n" + run.outcome.stderr)
    own = re.compile(rf"SCHEDULE SUMMARY \({re.escape(aspect)}\): (\d{{1,{COUNT_DIGITS}}}) errors?")
    own_measurement = f"========= {MEASURED} ({aspect}): "
    block: list[str] = []
    summaries: list[tuple[int, list[str]]] = []  # each of the aspect's summary lines: its count, its findings
    measurements: list[str] = []
    for line in output:
        if line.removeprefix("=========").lstrip().startswith(f"{MEASURED} ("):
            if line.startswith(own_measurement):
                measurements.append(line.removeprefix(own_measurement).strip())
            continue
        summary = own.search(line)
        if summary:
            summaries.append((int(summary.group(1)), block))
        if "SCHEDULE SUMMARY" in line:
            block = []
        else:
            block.append(line)
    if not summaries:
        return replace(run, clean=False, summary="", first_report=NO_SUMMARY)
    ended_normally = not run.outcome.timed_out and not run.outcome.crashed
    errors, findings = max(summaries, key=lambda counted: counted[0])
    said = f"SCHEDULE SUMMARY: {errors} error{'' if errors == 1 else 's'}"
    shown = first_report("\n".join(findings))
    # The recorder's own limits (CUPTI could not count the page faults here) are no finding of the student's.
    said_errors = [line for line in findings if "Schedule error" in line]
    unmeasured = shown if said_errors and all(NOT_MEASURED in line for line in said_errors) else ""
    clean = ended_normally and errors == 0
    measured = "" if not run.recorded or not measurements else measurements[0] if len(measurements) == 1 else IMITATED
    return replace(run, clean=clean, summary=said, first_report=shown, unmeasured=unmeasured, measured=measured)


def read_run(tool: str, run: suite.SuiteRun, beside_schedule: bool = False) -> SanitizerRun:
    """`tool`'s verdict on `run`; `beside_schedule`, from a run of the CPU emulator that made the schedule check
    too, whose lines are not the tool's and whose findings also end the run with SANITIZER_FOUND."""
    outcome = run.outcome
    output = outcome.stdout + "\n" + outcome.stderr
    status_found = outcome.returncode == SANITIZER_FOUND
    if beside_schedule:
        schedule, rest = schedule_lines(output)
        output = "\n".join(rest)
        # The exit status is the tool's only where no schedule aspect counted an error. A schedule summary the
        # program printed itself can take it away only at the cost of that aspect's check; the tool's own summary
        # still counts its errors.
        status_found = status_found and not any(SCHEDULE_ERRORS.search(line) for line in schedule)
    summary = SUMMARY.search(output)
    # Exit status SANITIZER_FOUND counts racecheck's hazard warnings too (a lock-step warp idiom only warns).
    ended_normally = not outcome.timed_out and not outcome.crashed
    found = status_found or re.search(r"(ERROR|RACECHECK|SCHEDULE) SUMMARY: [1-9]", output)
    # Its verdict missing is never a clean one: the run ended before the tool could speak.
    clean = ended_normally and not found and summary is not None
    required = [case for case in run.cases if not case.suite.startswith(LEFT_OUT)]
    wrong = next((case for case in required if not case.passed), None)
    first_wrong = f"{wrong.name}: {wrong.message}" if wrong else ""
    found_summary = summary.group(1) if summary else ""
    shown = first_report(output) or ("" if summary else no_summary(tool, outcome.returncode))
    results_right = bool(required) and wrong is None
    return SanitizerRun(tool, outcome, clean, found_summary, shown, results_right, first_wrong)


def no_summary(tool: str, returncode: int | None) -> str:
    """Why a run with no summary line is not clean (the CPU emulator prints its summary as the program exits: a
    crash it did not see coming, such as a wild write, ends the run first)."""
    return (
        f"{tool} printed no summary: the program ended first (exit status {returncode}), so nothing says it was clean"
    )
