"""The compiler's resource report (grader/steps/resources.py): read from nvcc's objects through cuobjdump in the
sandbox, parsed defensively, and the labs.toml check on it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from grader.core.config import REPO_ROOT, MechanismCheck, load_config
from grader.core.model import LabGrade, Status
from grader.core.recorded import read_grade
from grader.grading import checks, judge
from grader.grading.evidence import Facts, LabEvidence
from grader.reporting import report
from grader.reporting.export.html import render_html
from grader.steps import resources, sass
from grader.tests.support.grading import compile_object, nvcc_and_cuobjdump

# cuobjdump 13's report of an object with two kernels, as it prints it (the headers of each ELF included).
REPORT = """
Fatbin elf code:
================
arch = sm_90
code version = [1,8]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:0
 Function _Z5lightPf:
  REG:10 STACK:0 SHARED:2048 LOCAL:0 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _Z5heavyPKfPfi:
  REG:32 STACK:464 SHARED:0 LOCAL:0 CONSTANT[0]:548 CONSTANT[2]:8 TEXTURE:0 SURFACE:0 SAMPLER:0

Fatbin ptx code:
================
arch = sm_90
code version = [9,0]
compressed
"""

# One kernel that spills (a register cap far below what 64 live floats need), one that does not.
KERNELS = """
__global__ void __launch_bounds__(1024, 2) heavy(const float* in, float* out, int k) {
    float acc[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = in[threadIdx.x + i * 1024];
    float s = 0;
#pragma unroll
    for (int j = 0; j < 64; ++j) s += acc[j] * acc[(j * 7) % 64];
    out[threadIdx.x] = s + acc[k & 63];
}
__global__ void light(float* out) { out[threadIdx.x] = 1.0f; }
"""

NO_STACK = MechanismCheck(name="resources: nothing on the stack", tool="resources", max_stack_bytes=0, hint="h")


def test_reads_each_kernel_with_its_name_as_a_person_reads_it():
    report = resources.parse(REPORT)
    assert report.read, report.problem
    light, heavy = report.kernels
    assert (light.name, light.registers, light.stack_bytes, light.shared_bytes) == ("light(float*)", 10, 0, 2048)
    assert (heavy.name, heavy.registers, heavy.stack_bytes, heavy.arch) == (
        "heavy(float const*, float*, int)",
        32,
        464,
        "sm_90",
    )
    assert heavy.constant_bytes == 548 + 8  # every constant bank


@pytest.mark.parametrize(
    "broken",
    [
        REPORT.replace("  REG:10 STACK:0", "  REG:10 STACK:zero"),  # an odd value
        REPORT.replace(" STACK:464", ""),  # a field missing
        REPORT.replace("REG:32", "REG:32 REG:4"),  # a field twice
        REPORT.replace(" Function _Z5heavyPKfPfi:\n", " Something else:\n"),  # an odd line
        REPORT.replace(
            "  REG:32 STACK:464 SHARED:0 LOCAL:0 CONSTANT[0]:548 CONSTANT[2]:8 TEXTURE:0 SURFACE:0 SAMPLER:0\n", ""
        ),
        "Resource usage:\n Function _Z1fv:\n",  # cut short
    ],
)
def test_a_malformed_report_is_unreadable_never_a_crash(broken):
    report = resources.parse(broken)
    assert not report.read and report.problem.startswith(resources.UNREADABLE)
    check = checks.resource_check(NO_STACK, report)
    assert check.status is Status.FAILED and check.detail.startswith(resources.UNREADABLE)


def test_too_many_kernels_are_refused():
    usage = " Function _Z1fv:\n  REG:1 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:0\n"
    report = resources.parse("Resource usage:\n" + usage * (resources.MAX_KERNELS + 1))
    assert not report.read and "more than" in report.problem


def test_a_check_fails_a_kernel_over_its_bound_and_names_it():
    check = checks.resource_check(NO_STACK, resources.parse(REPORT))
    assert check.status is Status.FAILED
    assert "heavy(float const*, float*, int): 464 B of stack frame (at most 0)" in check.detail
    assert "light" not in check.detail
    passed = checks.resource_check(MechanismCheck("r", "resources", max_registers=32), resources.parse(REPORT))
    assert passed.status is Status.PASSED and "2 kernel(s)" in passed.detail


def test_no_tool_is_not_run_and_no_kernel_fails():
    missing = resources.read_report(Path(__file__), None)
    assert missing.no_tool and checks.resource_check(NO_STACK, missing).status is Status.NOT_RUN
    empty = resources.parse("Resource usage:\n Common:\n  GLOBAL:0\n")
    assert empty.read and checks.resource_check(NO_STACK, empty).status is Status.FAILED


def listing(function: str, *opcodes: str) -> str:
    """cuobjdump -sass's listing of one function, an instruction a line, as it prints them."""
    code = "".join(
        f"        /*{16 * at:04x}*/                   {op} ;  /* 0x0000000000000000 */\n"
        for at, op in enumerate(opcodes)
    )
    return f"\t\tFunction : {function}\n{code}"


NO_FRAME = resources.parse(REPORT.replace("STACK:464", "STACK:0"))  # neither kernel declares a frame
ALLOCA = sass.parse(
    listing("_Z5lightPf", "S2R R0, SR_TID.X", "STG.E [R2.64], R0", "EXIT")
    + listing("_Z5heavyPKfPfi", "STL [R9], R6", "LDL R5, [R5]", "LDL R13, [R13]", "STG.E [R2.64], R5", "EXIT")
)


def test_local_memory_in_the_machine_code_that_no_report_declares_fails_and_names_its_function():
    found = checks.resource_check(NO_STACK, NO_FRAME, ALLOCA)
    assert found.status is Status.FAILED and found.hint == "h"
    assert "heavy(float const*, float*, int): 3 loads and stores of local memory (LDL, STL)" in found.detail
    assert "allocated on the stack at run time" in found.detail and "light" not in found.detail
    clean = sass.parse(listing("_Z5heavyPKfPfi", "LDG.E R5, [R2.64]", "STG.E [R2.64], R5", "EXIT"))
    assert checks.resource_check(NO_STACK, NO_FRAME, clean).status is Status.PASSED


def test_local_memory_of_a_declared_frame_is_judged_by_its_bound_alone():
    declared = MechanismCheck("r", "resources", max_stack_bytes=512)
    assert checks.resource_check(declared, resources.parse(REPORT), ALLOCA).status is Status.PASSED
    assert checks.resource_check(declared, NO_FRAME, ALLOCA).status is Status.FAILED


def test_a_check_of_the_frame_without_the_machine_code_is_never_passed():
    no_tool = sass.SassReport(problem=f"{sass.UNREADABLE}: nvdisasm not found", no_tool=True)
    assert checks.resource_check(NO_STACK, NO_FRAME, no_tool).status is Status.NOT_RUN
    broken = sass.SassReport(problem=f"{sass.UNREADABLE}: more than 200000 instructions")
    found = checks.resource_check(NO_STACK, NO_FRAME, broken)
    assert found.status is Status.FAILED and "more than 200000 instructions" in found.detail
    assert checks.resource_check(NO_STACK, NO_FRAME).status is Status.FAILED  # none given: not read
    registers = MechanismCheck("r", "resources", max_registers=32)  # no frame bounded: the code is not needed
    assert not registers.reads_machine_code and checks.resource_check(registers, NO_FRAME).status is Status.PASSED


def test_a_resources_check_with_no_bound_is_refused():
    with pytest.raises(ValueError, match="names no bound"):
        MechanismCheck(name="r", tool="resources")


def test_the_terminal_lines_are_bounded():
    usage = " Function _Z1fv:\n  REG:1 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:0\n"
    report = resources.parse("Resource usage:\n" + usage * 20)
    lines = resources.summary(report)
    assert len(lines) == resources.SHOWN + 1 and "12 more kernels" in lines[-1]


def test_a_spilling_kernel_fails_the_check_and_a_plain_one_passes(tmp_path):
    nvcc, tool = nvcc_and_cuobjdump()
    source = tmp_path / "kernels.cu"
    source.write_text(KERNELS)
    obj = compile_object(nvcc, source, tmp_path / "kernels.o")
    report, code = resources.read_report(obj, tool), sass.read_report(obj, [tool.parent])
    assert report.read and code.read, report.problem + code.problem
    by_name = {kernel.name.split("(")[0]: kernel for kernel in report.kernels}
    assert by_name["heavy"].stack_bytes > 0 and by_name["light"].stack_bytes == 0
    assert checks.resource_check(NO_STACK, report, code).status is Status.FAILED
    light_only = resources.ResourceReport([by_name["light"]])
    assert code.local_accesses["light(float*)"] == 0 and code.local_accesses["heavy(float const*, float*, int)"]
    assert checks.resource_check(NO_STACK, light_only, code).status is Status.FAILED  # the spill's LDL, no report
    light_code = sass.SassReport(kernels=["light(float*)"], local_accesses={"light(float*)": 0})
    assert checks.resource_check(NO_STACK, light_only, light_code).status is Status.PASSED


def test_bytes_that_are_no_object_give_the_reason(tmp_path):
    _, tool = nvcc_and_cuobjdump()
    hostile = tmp_path / "kernel.o"
    hostile.write_bytes(b"\x7fELF" + b"\xff" * 4096)
    report = resources.read_report(hostile, tool)
    assert not report.read and report.problem.startswith(resources.UNREADABLE)
    assert str(tmp_path) not in report.problem  # no report shows the grader's folders


@pytest.mark.slow
@pytest.mark.needs_solutions
@pytest.mark.parametrize("lab", sorted(path.name for path in (REPO_ROOT / "solutions").glob("[0-9]*")))
def test_the_report_is_read_from_every_solution(lab, tmp_path):
    nvcc, tool = nvcc_and_cuobjdump()
    source = REPO_ROOT / "solutions" / lab / "kernel.cu"
    obj = compile_object(nvcc, source, tmp_path / "kernel.o", [REPO_ROOT / "common", REPO_ROOT / "tests" / lab])
    report = resources.read_report(obj, tool)
    assert report.read, report.problem
    assert report.kernels and all(kernel.registers > 0 for kernel in report.kernels)


def graded_with(report: resources.ResourceReport) -> LabGrade:
    grade = LabGrade("01_vector_add", "Vector add", "student", "labs/01_vector_add/kernel.cu")
    grade.resources, grade.resources_problem = report.kernels, report.problem
    return grade


def test_the_terminal_shows_a_line_per_kernel_or_why_there_is_none():
    lines = report.resource_lines(graded_with(resources.parse(REPORT)))
    assert any("heavy(float const*, float*, int): 32 registers, 464 B stack" in line for line in lines)
    unreadable = report.resource_lines(graded_with(resources.parse("Resource usage:\n junk\n")))
    assert resources.UNREADABLE in unreadable[-1]
    assert report.resource_lines(graded_with(resources.ResourceReport())) == []  # the build failed before it


def test_grade_json_lists_each_kernel_of_each_lab():
    saved = report.run_dict([graded_with(resources.parse(REPORT))], {})
    kernels = json.loads(json.dumps(saved))["labs"][0]["resources"]
    assert [kernel["stack_bytes"] for kernel in kernels] == [0, 464]
    assert kernels[0]["name"] == "light(float*)" and kernels[0]["registers"] == 10


def test_the_html_report_shows_the_kernels_escaped_and_pages_without_them_still_render():
    run = json.loads((Path(__file__).resolve().parents[1] / "data" / "h100-run.json").read_text())
    assert "<th>kernel</th>" not in render_html(read_grade(run))  # a run saved before the report was read
    kernel = dataclasses.asdict(resources.parse(REPORT).kernels[1])
    run["labs"][0]["resources"] = [{**kernel, "name": "<script>alert(1)</script>"}]
    page = render_html(read_grade(run))
    assert "<th>kernel</th>" in page and '<td class="num">464</td>' in page
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_grading_runs_a_resources_check_from_labs_toml_withheld_until_the_kernel_is_correct():
    lab = load_config().lab("08")
    evidence = LabEvidence(lab.name, "student", "", "", 0, [], Facts())  # a resources check reads nothing else
    heavy = resources.parse(REPORT)
    light = resources.ResourceReport(heavy.kernels[:1])

    def judged(report: resources.ResourceReport, correct: bool) -> Status:
        return judge.mechanism_check(lab, NO_STACK, correct, evidence, report, sass.SassReport()).status

    assert judged(light, True) is Status.PASSED and judged(heavy, True) is Status.FAILED
    assert judged(light, False) is Status.WITHHELD
