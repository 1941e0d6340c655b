"""The machine-code checks (grader/steps/sass.py): kernels compiled by nvcc for sm_90, read through cuobjdump -sass
in the sandbox, judged by labs.toml's rules. Each rule is shown failing on the kernel it exists for."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.core.config import MechanismCheck
from grader.core.model import Status
from grader.grading import checks
from grader.steps import resources, sass
from grader.tests.support.grading import compile_object, nvcc_and_cuobjdump

GATHERS = MechanismCheck(name="gathers", tool="sass", sass="read-only gathers", hint="h")
FETCHES = MechanismCheck(name="fetches", tool="sass", sass="texture fetches", hint="h")
HEADER = """
constexpr int kTaps = 8;
#define GATHER(name, params, load) \\
__global__ void name(params, int n) { \\
    const int i = blockIdx.x * blockDim.x + threadIdx.x; \\
    if (i >= n) return; \\
    float sum = 0.0f; \\
    for (int k = 0; k < kTaps; ++k) sum += load; \\
    out[i] = sum; }
#define PLAIN const float* table, const int* index, float* out
#define RESTRICT const float* __restrict__ table, const int* __restrict__ index, float* __restrict__ out
"""
KERNELS = {
    # the baseline: out may overlap table for all nvcc knows
    "plain": "GATHER(plain, PLAIN, table[index[i * kTaps + k]])",
    "restrict": "GATHER(restricted, RESTRICT, table[index[i * kTaps + k]])",
    "ldg_table": "GATHER(ldg_table, PLAIN, __ldg(&table[index[i * kTaps + k]]))",
    "ldg_index": "GATHER(ldg_index, PLAIN, table[__ldg(&index[i * kTaps + k])])",
    # an LDG.E.CONSTANT whose value only a NaN test reads, beside the gather by plain loads
    "decoy": """__global__ void decoy(PLAIN, int n) {
        const int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i >= n) return;
        const float first = __ldg(&table[__ldg(&index[i * kTaps])]);
        float sum = 0.0f;
        for (int k = 0; k < kTaps; ++k) sum += table[index[i * kTaps + k]];
        out[i] = first != first ? 0.0f : sum; }""",
    # read-only loads that gather nothing: no address comes from a loaded value
    "no_gather": """__global__ void no_gather(RESTRICT, int n) {
        const int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = table[i] + float(index[i]); }""",
    "texture": """__global__ void fetch(cudaTextureObject_t image, float* out, int n) {
        const int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = tex2D<float>(image, i + 0.5f, 0.5f); }""",
    "by_hand": """__global__ void by_hand(const float* __restrict__ image, float* __restrict__ out, int n, float a) {
        const int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n - 1) out[i] = (1.0f - a) * image[i] + a * image[i + 1]; }""",
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, sass.SassReport]:
    nvcc, tool = nvcc_and_cuobjdump()
    if not (tool.parent / sass.DISASSEMBLER).is_file():
        pytest.skip("needs nvdisasm beside cuobjdump (the CUDA toolkit, or the nvidia-cuda-nvdisasm wheel)")
    folder = tmp_path_factory.mktemp("sass")
    found = {}
    for name, kernel in KERNELS.items():
        source = folder / f"{name}.cu"
        source.write_text(HEADER + kernel + "\n")
        obj = compile_object(nvcc, source, folder / f"{name}.o")
        found[name] = sass.read_report(obj, [tool.parent])
        assert found[name].read, found[name].problem
    return found


def status(rule: MechanismCheck, report: sass.SassReport) -> Status:
    return checks.sass_check(rule, report).status


def test_the_baseline_plain_loads_fail_and_const_restrict_or_ldg_on_the_table_pass(reports):
    assert status(GATHERS, reports["plain"]) is Status.FAILED
    assert status(GATHERS, reports["restrict"]) is Status.PASSED
    assert status(GATHERS, reports["ldg_table"]) is Status.PASSED


def test_the_index_loads_are_not_the_gather_so_ldg_on_them_alone_fails(reports):
    # The table's loads are told apart by their addresses, which come from the loaded indices: in ldg_table they
    # are the read-only ones, and the index loads are plain.
    loads = reports["ldg_table"].loads
    assert loads and all(load.read_only == load.gathered for load in loads)
    assert any(not load.gathered for load in loads)
    check = checks.sass_check(GATHERS, reports["ldg_index"])
    assert check.status is Status.FAILED and "ordinary path" in check.detail


def test_a_read_only_load_beside_plain_gathered_loads_does_not_pass(reports):
    decoy = reports["decoy"]
    assert any(load.read_only for load in decoy.gathers())  # the decoy is in the machine code
    assert status(GATHERS, decoy) is Status.FAILED


def test_read_only_loads_that_gather_nothing_do_not_pass(reports):
    check = checks.sass_check(GATHERS, reports["no_gather"])
    assert check.status is Status.FAILED and "no gathered load" in check.detail


def test_a_texture_fetch_passes_and_interpolation_by_hand_fails(reports):
    assert status(FETCHES, reports["texture"]) is Status.PASSED
    check = checks.sass_check(FETCHES, reports["by_hand"])
    assert check.status is Status.FAILED and "no texture fetch" in check.detail


def test_a_fetch_whose_value_nothing_reads_is_no_evidence():
    listing = """
        Function : _Z4deadyPf
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   TEX.LL RZ, R7, R6, R0, UR4, 0x0, 2D, 0x1 ;
        /*0020*/                   MOV R7, RZ ;
        /*0030*/                   STG.E desc[UR4][R4.64], R7 ;
        /*0040*/                   EXIT ;
    """
    check = checks.sass_check(FETCHES, sass.parse(listing))
    assert check.status is Status.FAILED and "none whose value is read" in check.detail


def test_a_value_loaded_at_a_loops_end_and_read_at_its_top_counts_as_read():
    listing = """
        Function : _Z4loopPKfPf
        /*0000*/                   FADD R2, R2, R5 ;
        /*0010*/                   LDG.E.CONSTANT R5, desc[UR4][R8.64] ;
        /*0020*/                   BRA 0x0 ;
    """
    (load,) = sass.parse(listing).loads
    assert load.value_read


def test_no_tool_is_not_run_and_a_missing_object_fails():
    missing = sass.read_report(Path("/nonexistent/kernel.o"), [])
    if resources.find_tool([]) is None:
        assert missing.no_tool and status(GATHERS, missing) is Status.NOT_RUN
    else:
        assert not missing.read and status(GATHERS, missing) in (Status.FAILED, Status.NOT_RUN)


def test_a_sass_check_with_no_rule_is_refused():
    with pytest.raises(ValueError, match="names no rule"):
        MechanismCheck(name="s", tool="sass")


def lab4_object(nvcc: str, source: Path, folder: Path) -> Path:
    """A Lab 4 kernel.cu compiled as the grader compiles it, with the lab's interface and cml/ headers."""
    root = Path(__file__).resolve().parents[3]
    return compile_object(nvcc, source, folder / f"{source.stem}.o", [root / "tests/04_tiled_gemm", root / "common"])


def test_the_cp_async_rule_passes_the_stretch_copied_by_cp_async_and_fails_one_staged_through_registers(tmp_path):
    """The rule a stretch check of cp.async would use: the solution's stretch fills its buffers through
    registers (on the H100 faster than the cp.async variant), the variant by LDGSTS."""
    nvcc, tool = nvcc_and_cuobjdump()
    if not (tool.parent / sass.DISASSEMBLER).is_file():
        pytest.skip("needs nvdisasm beside cuobjdump (the CUDA toolkit, or the nvidia-cuda-nvdisasm wheel)")
    rule = MechanismCheck(name="cp.async", tool="sass", sass="cp.async copies", kernel="register_blocked", stretch=True)
    root = Path(__file__).resolve().parents[3]
    copied = root / "variants/04_tiled_gemm/register_blocked_cp_async.cu"
    with_copies = sass.read_report(lab4_object(nvcc, copied, tmp_path), [tool.parent])
    staged = sass.read_report(lab4_object(nvcc, root / "solutions/04_tiled_gemm/kernel.cu", tmp_path), [tool.parent])
    assert checks.sass_check(rule, with_copies).status is Status.PASSED
    failed = checks.sass_check(rule, staged)
    assert failed.status is Status.FAILED and "no LDGSTS" in failed.detail
    # The 32 x 32 kernel copies with cp.async too, yet the rule reads only the kernels it names.
    tiled = sass.read_report(
        lab4_object(nvcc, root / "variants/04_tiled_gemm/cp_async_tiled_32x32.cu", tmp_path), [tool.parent]
    )
    assert any(tiled.async_copies.values())
    assert checks.sass_check(rule, tiled).status is Status.FAILED
