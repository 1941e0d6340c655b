"""Every CUDA runtime call a kernel.cu may make (grader/steps/integrity/symbols.py) works on the CPU emulator: one
file that makes them all, kernels/every_runtime_call.cu, compiled by nvcc, where the calls read off its
object must be the allow-list's runtime calls exactly (so a call allowed later without an emulator version
fails here); and compiled and run on the emulator as meson.build builds a kernel.cu for it (rewrite.py, then
clang++ with the emulator's flags), where each call must do what CUDA says. Built the same way,
kernels/copies_every_way.cu shows the schedule check following the data through each way to copy between the host
and the GPU, as CUPTI records them on a GPU, and kernels/schedule_orders.cu its judging each call from what orders
the work and what the host waited for. No GPU is needed."""

from __future__ import annotations

import re
import shutil
from itertools import pairwise
from pathlib import Path

import pytest

from grader.execution import proc
from grader.steps import sanitize, suite
from grader.steps.build_commands import without_cache
from grader.steps.integrity import elf, symbols
from grader.tests.support.emulator_builds import built_on_the_emulator

EVERY_CALL = Path(__file__).parents[1] / "kernels" / "every_runtime_call.cu"
COPIES = Path(__file__).parents[1] / "kernels" / "copies_every_way.cu"
ORDERS = Path(__file__).parents[1] / "kernels" / "schedule_orders.cu"
# nvcc's own calls (__cudaPushCallConfiguration, __cudaLaunchKernel, ...) are what it writes for <<<...>>>,
# which rewrite.py turns into the emulator's launch instead: the runtime calls are the others.
RUNTIME_CALLS = frozenset(name for name in symbols.CUDA_CALLS if not name.startswith("__"))
# A call CUDA's headers rename with a macro (CUDA 12: cudaGetDeviceProperties is cudaGetDeviceProperties_v2).
RENAMED = re.compile(r"^#define\s+(cuda\w+)\s+(cuda\w+)\s*$", re.MULTILINE)


def toolkit_renames(nvcc: Path) -> set[str]:
    header = nvcc.resolve().parent.parent / "include" / "cuda_runtime_api.h"
    return {name for name, _ in RENAMED.findall(header.read_text())}


def test_the_file_makes_every_allowed_runtime_call_and_nothing_else(built_tree, config, tmp_path):
    # Compiled as the grader compiles a kernel.cu (Lab 1's command, with this file in and its object out).
    template = without_cache(built_tree.kernel_compile("01_vector_add", "student").command)
    replaced = {"-c": str(EVERY_CALL), "-o": str(tmp_path / "every.o"), "-MF": str(tmp_path / "every.d")}
    command = template[:1] + [replaced.get(flag, arg) for flag, arg in pairwise(template)]
    compiled = proc.run(
        command, config.timeouts["build"], cwd=built_tree.directory, env={"PATH": built_tree.tool_path()}
    )
    assert compiled.ok, compiled.tail(30)
    obj = elf.read_object(tmp_path / "every.o")
    called = {name for name in obj.undefined() if name.startswith("cuda")}
    nvcc = shutil.which(command[0], path=built_tree.tool_path())
    assert nvcc, f"{command[0]} not found"
    assert called | (toolkit_renames(Path(nvcc)) & RUNTIME_CALLS) == RUNTIME_CALLS
    assert symbols.calls(obj) == []


@pytest.fixture(scope="module")
def every_call_on_the_emulator(emulator, config, tmp_path_factory) -> Path:
    return built_on_the_emulator(emulator, config, EVERY_CALL, tmp_path_factory.mktemp("every_call"))


def test_every_allowed_runtime_call_does_on_the_emulator_what_cuda_says(every_call_on_the_emulator, config):
    run = proc.run([str(every_call_on_the_emulator)], config.timeouts["tests"])
    assert run.ok and "0 checks failed" in run.stdout, run.tail(40)


def test_the_checks_find_nothing_in_the_calls(every_call_on_the_emulator, config):
    checks = {"CML_EMU_CHECK": "all", "CML_EMU_ERROR_EXITCODE": str(sanitize.SANITIZER_FOUND)}
    run = proc.run([str(every_call_on_the_emulator)], config.timeouts["sanitizer"], env=checks)
    assert run.ok and "0 checks failed" in run.stdout, run.tail(40)
    assert "RACECHECK SUMMARY: 0 hazards" in run.stderr and "ERROR SUMMARY: 0 errors" in run.stderr


def test_the_schedule_check_follows_the_data_of_every_way_to_copy_and_finds_a_call_that_copies_none(
    emulator, config, tmp_path
):
    program = built_on_the_emulator(emulator, config, COPIES, tmp_path)
    checks = {"CML_EMU_CHECK": "schedule", "CML_EMU_ERROR_EXITCODE": str(sanitize.SANITIZER_FOUND)}
    run = proc.run([str(program)], config.timeouts["sanitizer"], env=checks)
    assert run.returncode == sanitize.SANITIZER_FOUND, run.tail(40)
    assert "by_no_copy_at_all copied none of its input to the GPU" in run.stderr
    assert "by_no_copy_at_all copied none of its output back to the host" in run.stderr
    assert "SCHEDULE SUMMARY (pinned): 2 errors" in run.stderr and "SCHEDULE SUMMARY: 2 errors" in run.stderr
    assert run.stderr.count("Schedule error") == 2, run.stderr


# What each failing call of kernels/schedule_orders.cu must be found for, under which aspect's summary.
ORDER_FINDINGS = {
    "halves_chained_by_an_event_fails": ["never had a copy and a kernel on two streams that could run at the same"],
    "copy_back_not_after_its_kernel_fails": ["Race reported between Write access by a kernel and Read access by the"],
    "staging_read_too_soon_fails": ["which read the copy's bytes (in pinned memory) before it waited for the copy",
                                    "copied none of its output back to the host"],
    "one_query_fails": ["which returned before synchronising that stream", "returned with the copy to the GPU still",
                        "returned with the kernel still queued"],
    "prefetch_unordered_and_none_back_fails": ["launched a kernel that took page faults on managed memory",
                                               "with no prefetch of them back to the host after the kernel"],
}  # fmt: skip


def test_the_schedule_check_judges_what_orders_the_work_and_what_the_host_waited_for(emulator, config, tmp_path):
    program = built_on_the_emulator(emulator, config, ORDERS, tmp_path)
    checks = {"CML_EMU_CHECK": "schedule", "CML_EMU_ERROR_EXITCODE": str(sanitize.SANITIZER_FOUND),
              "CML_EMU_PRINT_LIMIT": "100"}  # fmt: skip
    run = proc.run([str(program)], config.timeouts["sanitizer"], env=checks)
    assert run.returncode == sanitize.SANITIZER_FOUND, run.tail(40)
    findings = [line for line in run.stderr.splitlines() if "Schedule error" in line or "Race reported" in line]
    for call, said in ORDER_FINDINGS.items():
        for words in said:
            assert any(call in f and words in f for f in findings), (call, words, findings)
    assert not [f for f in findings if "_passes" in f], findings
    assert len(findings) == sum(len(said) for said in ORDER_FINDINGS.values()), findings


def test_one_run_makes_the_schedule_check_and_memcheck_each_as_it_would_alone(emulator, config, tmp_path):
    program = built_on_the_emulator(emulator, config, ORDERS, tmp_path)

    def run(checks: str) -> suite.SuiteRun:
        variables = {"CML_EMU_CHECK": checks, "CML_EMU_ERROR_EXITCODE": str(sanitize.SANITIZER_FOUND)}
        return suite.SuiteRun(proc.run([str(program)], config.timeouts["sanitizer"], env=variables), [])

    alone, together = run("schedule"), run("schedule,memcheck")
    assert together.outcome.returncode == sanitize.SANITIZER_FOUND, together.outcome.tail(40)
    for aspect in ("pinned", "overlap", "returned", "prefetched"):
        by_itself = sanitize.aspect_view(sanitize.read_run("schedule", alone), aspect)
        beside_memcheck = sanitize.aspect_view(sanitize.read_run("schedule", together), aspect)
        assert not by_itself.clean, aspect  # each aspect has a failing call in the file
        assert (beside_memcheck.clean, beside_memcheck.summary, beside_memcheck.first_report) == (
            by_itself.clean, by_itself.summary, by_itself.first_report
        ), aspect  # fmt: skip
    memcheck = sanitize.read_run("memcheck", together, beside_schedule=True)
    assert memcheck.clean and memcheck.summary == "ERROR SUMMARY: 0 errors", memcheck
    assert not sanitize.read_run("memcheck", together).clean  # read as its own run, the status would be memcheck's
