"""Lab 10's schedule check on a GPU: the recorder the grader injects into the test program
(common/schedule/cupti_recorder.cpp), its judge's own tests on the host, and the command that runs it, checked
here without a GPU; the recorded run itself needs one (skipped here)."""

from __future__ import annotations

import json
import stat
from dataclasses import replace
from typing import Any

import pytest

from grader.core.config import MechanismCheck
from grader.core.model import Status
from grader.execution import proc, sandbox
from grader.grading import checks, judge
from grader.grading.sizes import lab_sizes
from grader.steps import build, build_tree, sanitize, suite
from grader.tests.support import recorders as injected

LAB = "10_host_memory"


def test_the_schedule_judge_passes_its_own_tests(built_tree, config):
    injected.passes_its_own_tests(built_tree, config, "cml_schedule_judge_selftest")


def test_the_recorder_builds_where_cupti_is_and_offers_both_injection_entries(built_tree, config):
    injected.offers_both_injection_entries(
        built_tree, config, build_tree.RECORDER_TARGET, built_tree.schedule_recorder()
    )


def test_the_grader_builds_the_recorder_with_a_lab_for_a_gpu_only(tmp_path):
    tree = build_tree.BuildTree(tmp_path, "sm_90")
    assert tree.recorder_targets(emulated=False) == []  # not configured: no target to ask Ninja for
    (tmp_path / "meson-info").mkdir()
    (tmp_path / "meson-info" / "intro-targets.json").write_text(json.dumps([{"name": build_tree.RECORDER_TARGET}]))
    assert tree.own_targets(LAB, emulated=False) == [f"{LAB}_checker", f"{LAB}_baseline", build_tree.RECORDER_TARGET]
    assert tree.own_targets(LAB, emulated=True) == [f"{LAB}_checker", f"{LAB}_baseline_emu_o"]
    assert tree.schedule_recorder() == tmp_path / f"lib{build_tree.RECORDER_TARGET}.so"


@pytest.fixture
def recorded_program(tmp_path):
    """A test program's run as the schedule check on a GPU sets it up, and the grader's recorder it sees."""
    recorder = tmp_path / "build" / "libcml_schedule_recorder.so"
    recorder.parent.mkdir()
    recorder.write_bytes(b"\x7fELF the grader's recorder")
    binary = tmp_path / "build" / "10_host_memory_student_test"
    binary.write_bytes(b"\x7fELF a test program")
    scratch = tmp_path / "run"
    scratch.mkdir()
    env = sanitize.recorder_variables("returned")
    return suite.program_run(binary, scratch, env, files={sanitize.RECORDER: recorder}), recorder


def settings(command: list[str]) -> dict[str, str]:
    return {command[i + 1]: command[i + 2] for i, arg in enumerate(command) if arg == "--setenv"}


def test_in_the_sandbox_the_recorder_is_a_read_only_copy_that_cuda_and_nvtx_load(recorded_program, monkeypatch):
    monkeypatch.setattr(sandbox, "unavailable", lambda: "")
    monkeypatch.setattr(sandbox, "bwrap", lambda: "/usr/bin/bwrap")
    program, recorder = recorded_program
    command = program.command([str(sandbox.PROGRAM)])
    copy = program.scratch / sanitize.RECORDER.name
    at = command.index(str(sanitize.RECORDER))
    assert command[at - 2 : at] == ["--ro-bind", str(copy)]  # the grader's own copy, never a writable path
    assert str(recorder) not in command
    assert copy.read_bytes() == recorder.read_bytes()
    assert not copy.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    assert command.index("--remount-ro") > at  # and bound before the whole view is made read-only
    variables = settings(command)
    assert variables["CUDA_INJECTION64_PATH"] == variables["NVTX_INJECTION64_PATH"] == str(sanitize.RECORDER)
    assert variables["CML_SCHEDULE"] == "returned"
    assert variables["CML_SCHEDULE_ERROR_EXITCODE"] == str(sanitize.SANITIZER_FOUND)
    assert variables["CML_CONFINE"] == "1"  # confined as every run of a submission's program


def test_without_a_sandbox_the_variables_name_the_recorder_itself(recorded_program, monkeypatch):
    monkeypatch.setattr(sandbox, "unavailable", lambda: "turned off (--no-sandbox)")
    program, recorder = recorded_program
    assert program.command([str(sandbox.PROGRAM)]) == [str(program.binary)]
    variables = program.environment()
    assert variables["CUDA_INJECTION64_PATH"] == variables["NVTX_INJECTION64_PATH"] == str(recorder)


def recorded(monkeypatch, tmp_path, returncode: int, stderr: str) -> sanitize.SanitizerRun:
    """run_recorded over a made-up run of the test program that ended with `returncode`, printing `stderr`."""
    seen: dict[str, Any] = {}

    def run_suite(binary, checker, timeout_s, env=None, tool=(), args=(), files=None):
        seen.update(env=env, files=files, args=args)
        return suite.SuiteRun(proc.Outcome(["program"], returncode, "", stderr, 60))

    monkeypatch.setattr(suite, "run_suite", run_suite)
    recorder = tmp_path / "recorder.so"
    run = sanitize.run_recorded(recorder, tmp_path / "test", tmp_path / "checker", 60, {"CML_SEED": "1"}, "overlap")
    assert seen["files"] == {sanitize.RECORDER: recorder}
    assert seen["env"]["CML_SEED"] == "1" and seen["env"]["CML_SCHEDULE"] == "overlap"
    assert seen["args"] == sanitize.GRADED_CASES
    return run


FINDING = "========= Schedule error: pipeline_overlapped never had work in flight on two streams at once (at most 1)"


def test_the_recorders_summary_is_read_as_the_emulators(monkeypatch, tmp_path):
    clean = recorded(monkeypatch, tmp_path, 0, "========= SCHEDULE SUMMARY: 0 errors\n")
    assert clean.clean and clean.summary == "SCHEDULE SUMMARY: 0 errors"
    found = recorded(
        monkeypatch, tmp_path, sanitize.SANITIZER_FOUND, f"{FINDING}\n========= SCHEDULE SUMMARY: 1 error\n"
    )
    assert not found.clean and "never had work in flight" in found.first_report


def test_a_forged_clean_summary_hides_no_finding(monkeypatch, tmp_path):
    forged = f"========= SCHEDULE SUMMARY: 0 errors\n{FINDING}\n========= SCHEDULE SUMMARY: 1 error\n"
    assert not recorded(monkeypatch, tmp_path, sanitize.SANITIZER_FOUND, forged).clean


def aspects_run(returncode: int, stderr: str) -> sanitize.SanitizerRun:
    """A run that reported several aspects, as the recorder and the emulator print them."""
    outcome = proc.Outcome(["program"], returncode, "", stderr, 60)
    return sanitize.read_run("schedule", suite.SuiteRun(outcome, []))


PREFETCHED = MechanismCheck(name="schedule: prefetched", tool="schedule", schedule="prefetched")
PINNED_CLEAN = "========= SCHEDULE SUMMARY (pinned): 0 errors\n"
ALL_CLEAN, ALL_FOUND = "========= SCHEDULE SUMMARY: 0 errors\n", "========= SCHEDULE SUMMARY: 1 error\n"
PINNED = MechanismCheck(name="schedule: pinned", tool="schedule", schedule="pinned")
OVERLAP_FOUND = f"{FINDING}\n=========     (1 time)\n=========\n========= SCHEDULE SUMMARY (overlap): 1 error\n"


def test_one_run_gives_each_aspect_its_own_verdict_and_findings():
    run = aspects_run(sanitize.SANITIZER_FOUND, PINNED_CLEAN + OVERLAP_FOUND + "========= SCHEDULE SUMMARY: 1 error\n")
    pinned, overlap = sanitize.aspect_view(run, "pinned"), sanitize.aspect_view(run, "overlap")
    assert pinned.clean and pinned.summary == "SCHEDULE SUMMARY: 0 errors" and not pinned.first_report
    assert not overlap.clean and overlap.summary == "SCHEDULE SUMMARY: 1 error"
    assert "never had work in flight" in overlap.first_report


def test_an_aspect_is_clean_only_with_its_own_summary_and_none_forged_over_a_finding():
    run = aspects_run(0, PINNED_CLEAN + "========= SCHEDULE SUMMARY: 0 errors\n")
    missing = sanitize.aspect_view(run, "returned")
    assert not missing.clean and missing.first_report == sanitize.NO_SUMMARY
    forged = "========= SCHEDULE SUMMARY (overlap): 0 errors\n" + PINNED_CLEAN + OVERLAP_FOUND
    overlap = sanitize.aspect_view(aspects_run(sanitize.SANITIZER_FOUND, forged), "overlap")
    assert not overlap.clean and "never had work in flight" in overlap.first_report


def test_faults_this_machine_could_not_count_are_not_run_never_passed_nor_the_students_failure():
    unmeasured = (
        "========= Schedule error: the page faults of pipeline_managed were not measured (cuptiActivityEnable"
        "(UNIFIED_MEMORY_COUNTER): CUPTI_ERROR_NOT_READY), so prefetching cannot be judged: not passed\n"
        "=========     (3 times)\n=========\n========= SCHEDULE SUMMARY (prefetched): 1 error\n"
    )
    run = sanitize.aspect_view(aspects_run(sanitize.SANITIZER_FOUND, unmeasured), "prefetched")
    assert not run.clean and "CUPTI_ERROR_NOT_READY" in run.unmeasured
    check = checks.sanitizer_check(PREFETCHED, run)
    assert check.status is Status.NOT_RUN and "not measured here" in check.detail
    faulted = unmeasured.replace(
        "=========     (3 times)", "=========     (3 times)\n=========\n========= Schedule error: took page faults"
    )
    both = sanitize.aspect_view(aspects_run(sanitize.SANITIZER_FOUND, faulted), "prefetched")
    assert not both.unmeasured and checks.sanitizer_check(PREFETCHED, both).status is Status.FAILED


OVERLAP = MechanismCheck(name="schedule: overlap", tool="schedule", schedule="overlap", hint="one stream per chunk")
FIGURE = (
    "copies ran beside a kernel for 6% of their time on the GPU, kernels beside a copy for 61% of theirs (3.2 ms of "
    "copies and 0.3 ms of kernels over 21 calls; the call that copied longest, 0.41 ms: 7% and 70%)"
)
MEASURED = f"========= SCHEDULE MEASURED (overlap): {FIGURE}\n"
OVERLAP_CLEAN = "========= SCHEDULE SUMMARY (overlap): 0 errors\n"
# The recorder prints its measurement of the overlap aspect in every run, found or clean, before the summary.
OVERLAP_FOUND_MEASURED = f"{FINDING}\n=========     (1 time)\n=========\n{MEASURED}{OVERLAP_FOUND.splitlines()[-1]}\n"


def recorded_aspects(monkeypatch, tmp_path, returncode: int, stderr: str, stdout: str = "") -> sanitize.SanitizerRun:
    """A run of the recorder on a GPU (run_recorded) that printed `stderr`, the program's own lines `stdout`."""
    run = recorded(monkeypatch, tmp_path, returncode, stderr)
    return replace(run, outcome=replace(run.outcome, stdout=stdout))


def test_the_overlap_check_shows_the_recorders_figure_whether_it_passed_or_failed(monkeypatch, tmp_path):
    clean = recorded_aspects(monkeypatch, tmp_path, 0, PINNED_CLEAN + MEASURED + OVERLAP_CLEAN + ALL_CLEAN)
    passed = checks.sanitizer_check(OVERLAP, sanitize.aspect_view(clean, "overlap"))
    assert passed.status is Status.PASSED and passed.detail == f"SCHEDULE SUMMARY: 0 errors\n{FIGURE}"
    assert FIGURE not in checks.sanitizer_check(PINNED, sanitize.aspect_view(clean, "pinned")).detail
    failed_run = recorded_aspects(monkeypatch, tmp_path, sanitize.SANITIZER_FOUND, OVERLAP_FOUND_MEASURED)
    failed_view = sanitize.aspect_view(failed_run, "overlap")
    failed = checks.sanitizer_check(OVERLAP, failed_view)
    assert failed.status is Status.FAILED and "never had work in flight" in failed.detail
    assert failed.detail.endswith(f"\n{FIGURE}") and FIGURE not in failed_view.first_report
    # Withheld until the tests pass, the check keeps the figure under its verdict.
    withheld = judge.withheld_unless(passed, correct=False)
    assert withheld.status is Status.WITHHELD and withheld.detail.splitlines()[1:] == [FIGURE]
    assert withheld.detail.startswith("clean (SCHEDULE SUMMARY: 0 errors), but")


def verdict(run: sanitize.SanitizerRun) -> tuple[bool, str, str]:
    return run.clean, run.summary, run.first_report


def test_a_figure_the_program_prints_changes_no_verdict_and_is_never_shown(monkeypatch, tmp_path):
    forged_figure = "========= SCHEDULE MEASURED (overlap): copies ran beside a kernel for 100% of their time\n"
    imitations = (  # a figure of its own; lines in the recorder's forms, one with a finding's words in it
        forged_figure,
        "========= SCHEDULE MEASURED (pinned): Schedule error: none\n========= SCHEDULE SUMMARY (overlap): 0 errors\n",
    )
    for stderr in (PINNED_CLEAN + OVERLAP_FOUND_MEASURED + ALL_FOUND, PINNED_CLEAN + MEASURED + OVERLAP_CLEAN):
        honest = recorded_aspects(monkeypatch, tmp_path, sanitize.SANITIZER_FOUND, stderr)
        for printed in imitations:
            forged = recorded_aspects(monkeypatch, tmp_path, sanitize.SANITIZER_FOUND, stderr, stdout=printed)
            for aspect in ("pinned", "overlap", "returned"):
                mine, theirs = sanitize.aspect_view(honest, aspect), sanitize.aspect_view(forged, aspect)
                assert verdict(mine) == verdict(theirs)
            shown = sanitize.aspect_view(forged, "overlap").measured
            # The recorder's own figure where the program printed none for the aspect; never the program's.
            assert shown == (sanitize.IMITATED if printed == forged_figure else FIGURE)


def test_on_the_emulator_no_figure_is_shown_even_one_the_program_prints():
    run = aspects_run(0, MEASURED + OVERLAP_CLEAN + ALL_CLEAN)  # the emulator prints none: the program did
    overlap = sanitize.aspect_view(run, "overlap")
    assert overlap.clean and not overlap.measured
    assert checks.sanitizer_check(OVERLAP, overlap).detail == "SCHEDULE SUMMARY: 0 errors"


def test_an_aspect_of_a_run_that_timed_out_is_never_clean():
    outcome = proc.Outcome(["program"], None, "", PINNED_CLEAN, 60)  # stopped by the grader
    run = sanitize.read_run("schedule", suite.SuiteRun(outcome, []))
    assert not sanitize.aspect_view(run, "pinned").clean


def test_a_run_the_recorder_printed_no_summary_for_is_never_clean(monkeypatch, tmp_path):
    run = recorded(monkeypatch, tmp_path, 0, "")
    assert not run.clean and run.first_report == sanitize.NO_SUMMARY


def test_on_a_gpu_the_solution_leaves_nothing_behind(built_tree, config, needs_gpu):
    if not built_tree.has_target(build_tree.RECORDER_TARGET):
        pytest.skip("this CUDA toolkit has no CUPTI, so the build has no schedule recorder")
    built = build.build_variant(built_tree, LAB, "solution", config.timeouts["build"])
    assert built.ok, built.tail(20)
    binary, checker = built_tree.binary(LAB, "solution", "test"), built_tree.checker(LAB)
    # With sizes drawn as a grade draws them: without, the cases at the grader's sizes skip themselves.
    sizes = {"CML_GRADER_SIZES": ";".join(lab_sizes(config.lab(LAB), 20261127, {}))}
    graded = [m.schedule for m in config.lab(LAB).mechanisms if m.tool == "schedule" and not m.gpu_reason]
    recorder, limit = built_tree.schedule_recorder(), config.timeouts["sanitizer"]
    run = sanitize.run_recorded(recorder, binary, checker, limit, sizes, ",".join(graded))
    assert run.clean and run.results_right, f"{run.summary}\n{run.first_report}\n{run.outcome.tail(20)}"
