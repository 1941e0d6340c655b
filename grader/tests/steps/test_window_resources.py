"""Lab 8's handout and deck quote the compiler's report of three kernels (registers and stack bytes): the skeleton
as shipped, the solution under __launch_bounds__(256, 8), and the solution. Those figures are nvcc's, so they are
checked here against nvcc itself, for sm_90 as the grader builds; a new compiler that changes them fails this."""

from __future__ import annotations

import re

import pytest

from grader.core.config import REPO_ROOT
from grader.steps import resources, sass
from grader.tests.support.grading import compile_object, nvcc_and_cuobjdump

LAB = "08_registers_local_memory"
HANDOUT = REPO_ROOT / "labs" / LAB / "README.md"
DECK = REPO_ROOT / "slides" / "decks" / f"{LAB}.md"
SOLUTION = REPO_ROOT / "solutions" / LAB / "kernel.cu"

pytestmark = pytest.mark.needs_solutions


def report_of(source: str, tmp_path, name: str) -> dict[int, tuple[int, int]]:
    """taps -> (registers, stack bytes) of each kernel of `source`; the skeleton's one kernel under taps 0."""
    nvcc, tool = nvcc_and_cuobjdump()
    path = tmp_path / f"{name}.cu"
    path.write_text(source)
    includes = [REPO_ROOT / "common", REPO_ROOT / "tests" / LAB]
    report = resources.read_report(compile_object(nvcc, path, tmp_path / f"{name}.o", includes), tool)
    assert report.read, report.problem
    found = {}
    for kernel in report.kernels:
        taps = re.search(r"column_filter_kernel<(\d+)>", kernel.name)
        found[int(taps[1]) if taps else 0] = (kernel.registers, kernel.stack_bytes)
    return found


def test_the_skeleton_keeps_its_window_on_the_stack_as_the_handout_says(tmp_path):
    skeleton = report_of((REPO_ROOT / "labs" / LAB / "kernel.cu").read_text(), tmp_path, "skeleton")
    assert skeleton == {0: (32, 128)}
    assert "32 registers, 128 B stack" in HANDOUT.read_text()
    assert "| 32 | **128 B**: the whole window, 32 floats |" in DECK.read_text()


def test_eight_blocks_per_sm_spill_the_window_and_four_do_not(tmp_path):
    solution = SOLUTION.read_text()
    assert "constexpr int kMinBlocksPerSM = 4;" in solution
    capped = report_of(solution.replace("kMinBlocksPerSM = 4;", "kMinBlocksPerSM = 8;"), tmp_path, "capped")
    assert (capped[32], capped[16][1]) == ((32, 160), 32)
    assert capped[8][1] == capped[4][1] == 0
    assert "(32 B at 16 taps and 160 B at 32 taps, with nvcc 13 for sm_90)" in HANDOUT.read_text()
    assert "| 32 | **160 B**: spilled |" in DECK.read_text()
    uncapped = report_of(solution, tmp_path, "solution")
    assert all(stack == 0 for _, stack in uncapped.values())
    assert uncapped[32][0] == 56 and "| 56 | **0 B** |" in DECK.read_text()


SMEM_SPILLING = '    asm volatile(".pragma \\"enable_smem_spilling\\";");\n'


def test_a_spill_moved_to_shared_memory_leaves_no_stack_frame_and_still_fails(tmp_path):
    """CUDA 13 lets the PTX ask ptxas to spill to shared memory: under a cap of 40 registers (6 blocks of 256) the
    32-tap window then spills with a frame of 0 B, which alone would pass. The pragma in the PTX fails it."""
    from grader.core.config import load_config
    from grader.core.model import Status
    from grader.grading import checks

    solution = SOLUTION.read_text().replace("kMinBlocksPerSM = 4;", "kMinBlocksPerSM = 6;")
    honest = report_of(solution, tmp_path, "six_blocks")
    assert honest[32][1] > 0  # 40 registers are too few for the 32-tap window: it spills to the stack
    body = "    const int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    hidden = solution.replace(body, SMEM_SPILLING + body, 1)
    nvcc, tool = nvcc_and_cuobjdump()
    path = tmp_path / "hidden.cu"
    path.write_text(hidden)
    includes = [REPO_ROOT / "common", REPO_ROOT / "tests" / LAB]
    report = resources.read_report(compile_object(nvcc, path, tmp_path / "hidden.o", includes), tool)
    assert report.read and all(kernel.stack_bytes == 0 for kernel in report.kernels)
    assert report.spills_to_shared
    (check,) = [m for m in load_config().lab("08").mechanisms if m.tool == "resources"]
    found = checks.resource_check(check, report)
    assert found.status is Status.FAILED and "enable_smem_spilling" in found.detail
    assert not resources.read_report(compile_object(nvcc, SOLUTION, tmp_path / "s.o", includes), tool).spills_to_shared


def test_a_window_from_alloca_has_no_frame_in_the_report_and_local_memory_in_the_code(tmp_path):
    """A window taken from the stack at run time (__builtin_alloca, sized by the filter's length) is in no report:
    the report shows 0 B of stack and of local memory for every kernel, and the machine code loads and stores local
    memory for every output. The check reads the code, so it fails it; the solution passes with the code read."""
    from grader.core.config import load_config
    from grader.core.model import Status
    from grader.grading import checks

    skeleton = (REPO_ROOT / "labs" / LAB / "kernel.cu").read_text()
    window = "    float window[kMaxTaps];\n"
    assert window in skeleton
    hidden = skeleton.replace(
        window, "    float* window = static_cast<float*>(__builtin_alloca(taps * sizeof(float)));\n"
    )
    nvcc, tool = nvcc_and_cuobjdump()
    includes = [REPO_ROOT / "common", REPO_ROOT / "tests" / LAB]
    (check,) = [m for m in load_config().lab("08").mechanisms if m.tool == "resources"]
    for name, source, verdict in (("alloca", hidden, Status.FAILED), ("solution", SOLUTION.read_text(), Status.PASSED)):
        path = tmp_path / f"{name}.cu"
        path.write_text(source)
        obj = compile_object(nvcc, path, tmp_path / f"{name}.o", includes)
        report, code = resources.read_report(obj, tool), sass.read_report(obj, [tool.parent])
        assert report.read and code.read, report.problem + code.problem
        found = checks.resource_check(check, report, code)
        assert found.status is verdict, found.detail
    assert all(kernel.stack_bytes == kernel.local_bytes == 0 for kernel in report.kernels)  # the solution's
    assert (
        "loads and stores of local memory (LDL, STL)"
        in checks.resource_check(
            check,
            resources.read_report(tmp_path / "alloca.o", tool),
            sass.read_report(tmp_path / "alloca.o", [tool.parent]),
        ).detail
    )
