"""The occupancy arithmetic (grader/steps/occupancy.py) and the GPU limits it reads (grader/gpu_limits.toml): worked
cases of each CUDA occupancy rule, then the same arithmetic against cuda_occupancy.h, the toolkit's calculator,
over a grid of launches on every GPU the file lists."""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from grader.core.config import REPO_ROOT, load_config
from grader.core.model import KernelResources, Status
from grader.execution.proc import Outcome
from grader.grading.checks import counter_check, occupancy_check
from grader.steps import occupancy
from grader.steps.occupancy import BlockUse, resident_blocks
from grader.steps.profile import CounterRun
from grader.steps.resources import ResourceReport

LIMITS = occupancy.load_limits()
H100 = LIMITS["h100"]


def blocks(threads: int, registers: int, shared: int = 0, gpu: str = "h100") -> int:
    return resident_blocks(BlockUse(threads, registers, dynamic_shared=shared), LIMITS[gpu]).blocks


def test_lists_the_h100_h200_a100_rtx4090_and_t4_each_with_a_source_for_every_figure():
    assert set(LIMITS) == {"h100", "h200", "a100", "rtx4090", "t4"}
    text = occupancy.GPU_LIMITS.read_text()
    figures = [line for line in text.splitlines() if " = " in line and line.split()[0] not in ("name", "match", "arch")]
    assert figures and all("# [" in line for line in figures), "each figure names its source"


def test_finds_a_gpu_by_its_device_name_and_none_for_a_gpu_not_listed():
    assert occupancy.limits_for("NVIDIA H100 80GB HBM3") == H100
    for device, key in (("NVIDIA H200", "h200"), ("NVIDIA GeForce RTX 4090", "rtx4090"), ("Tesla T4", "t4")):
        found = occupancy.limits_for(device)
        assert found is not None and found.key == key, device
    assert occupancy.limits_for("NVIDIA GeForce GTX 1080") is None


def test_warps_limit_a_block_of_few_registers():
    # 2048 threads per SM: 8 blocks of 256, 2 of 1024; 32 blocks at most, however small.
    assert blocks(256, 16) == 8
    assert blocks(1024, 16) == 2
    assert blocks(32, 16) == 32
    # A partial warp takes a whole one: 33 threads are 2 warps, 32 blocks of them by warps, 32 by blocks.
    assert resident_blocks(BlockUse(33, 16), H100).warps_per_block == 2


def test_registers_are_given_to_warps_in_units_of_256():
    # 64 registers: 2048 per warp, 8 warps per sub-partition, 32 per SM: 4 blocks of 256 threads.
    assert blocks(256, 64) == 4
    # 65 registers round up to 2304 per warp (not 2080): 7 warps per sub-partition, 28 per SM: 3 blocks of 8.
    assert blocks(256, 65) == 3
    # 255 registers, 8192 per warp: 2 warps per sub-partition, so 8 per SM: one block of 256.
    assert blocks(256, 255) == 1


def test_a_block_whose_registers_exceed_the_per_block_limit_never_fits():
    # 1024 threads x 72 registers (2304 per warp x 32 warps = 73728 > 65536).
    occupied = resident_blocks(BlockUse(1024, 72), H100)
    assert occupied.blocks == 0 and "registers" in occupied.why_none
    assert blocks(256, 256) == 0  # more than 255 per thread


def test_shared_memory_includes_the_1_kb_reserved_per_block_and_rounds_to_128_bytes():
    # 115 KB per block (the lab's skeleton): 116 KB with the reserve, so 1 block in 228 KB.
    assert blocks(256, 16, 115 * 1024) == 1
    # 228 KB hold 8 blocks of exactly 28.5 KB: 27.5 KB of the block's own and the 1 KB reserve. One byte more takes
    # another unit of 128 bytes, and 8 no longer fit; without the reserve, 28.5 KB of its own would still fit 8.
    assert blocks(256, 16, 28160) == 8
    assert blocks(256, 16, 28161) == 7
    assert blocks(256, 16, 29184) == 7
    assert blocks(256, 16, 227 * 1024) == 1
    assert blocks(256, 16, 227 * 1024 + 1) == 0


def test_before_compute_capability_8_no_shared_memory_is_reserved():
    # A T4: 64 KB per SM, units of 256, no reserve: 4 blocks of 16 KB exactly.
    assert blocks(128, 16, 16 * 1024, "t4") == 4
    assert blocks(128, 16, 16 * 1024 + 1, "t4") == 3


def test_names_the_limiter_as_ncu_does_and_the_theoretical_occupancy():
    one = resident_blocks(BlockUse(256, 16, 0, 115 * 1024), H100)
    assert one.limiters == ["shared_mem"] and one.fraction == pytest.approx(8 / 64)
    eight = resident_blocks(BlockUse(256, 16, 0, 16 * 1024), H100)
    assert eight.limiters == ["warps"] and eight.fraction == 1.0
    assert "1 block(s) per SM" in one.describe() and "shared_mem" in one.describe()


# ---- the worked cases of the lab's tests (tests/09_occupancy/worked_cases.hpp) ----

WORKED = REPO_ROOT / "tests" / "09_occupancy" / "worked_cases.hpp"
T4_LISTS = ("kT4Cases",)  # every other list is on an H100's limits
# Each rule of the calculator, dropped (or its unit changed), and the list of worked cases that must catch it:
# the lab's test case named for that rule.
WRONG_RULES = {
    "a partial warp as no warp": ("kWarpCases", "kT4Cases"),
    "no limit of warps per SM": ("kWarpCases",),
    "no limit of blocks per SM": ("kWarpCases",),
    "registers per warp not rounded to their unit": ("kRegisterCases",),
    "registers of the whole SM, not whole warps per quarter": ("kRegisterCases",),
    "no shared memory reserved per block": ("kSharedCases",),
    "shared memory not rounded to its unit": ("kSharedCases", "kT4Cases"),
    "shared memory in units of 128 bytes on every GPU": ("kT4Cases",),
    "shared memory in units of 256 bytes on every GPU": ("kSharedCases",),
    "no limit of threads per block": ("kFitCases",),
}


def worked_cases() -> dict[str, list[tuple[str, int, int, int, int]]]:
    """Each list of worked cases by its name: (gpu, threads, registers, shared bytes, blocks per SM)."""
    text = WORKED.read_text()
    lists = re.findall(r"const std::vector<WorkedCase> (\w+) = \{(.*?)\n\};", text, re.S)
    case = re.compile(r"\{\{(\d+), (\d+), (\d+)\}, (\d+)\}")
    return {
        name: [("t4" if name in T4_LISTS else "h100", *map(int, found)) for found in case.findall(body)]  # type: ignore[misc]
        for name, body in lists
    }


def calculator(threads: int, registers: int, shared: int, sm: occupancy.SmLimits, wrong: str = "") -> int:
    """The occupancy calculator's rules written out again, each as plainly as a student might, with the rule
    `wrong` names (WRONG_RULES) left out or changed: the calculators the worked cases must tell apart."""
    many = 1 << 20
    if threads > sm.max_threads_per_block and wrong != "no limit of threads per block":
        return 0
    warps = max(threads // 32, 1) if wrong == "a partial warp as no warp" else -(-threads // 32)
    per_warp = registers * 32
    if wrong != "registers per warp not rounded to their unit":
        per_warp = occupancy.round_up(per_warp, sm.register_unit)
    if wrong == "registers of the whole SM, not whole warps per quarter":
        by_registers = sm.registers_per_sm // per_warp // warps if per_warp else many
    else:
        quarter = sm.registers_per_sm // sm.sub_partitions
        by_registers = quarter // per_warp * sm.sub_partitions // warps if per_warp else many
    units = {
        "shared memory not rounded to its unit": 1,
        "shared memory in units of 128 bytes on every GPU": 128,
        "shared memory in units of 256 bytes on every GPU": 256,
    }
    reserve = 0 if wrong == "no shared memory reserved per block" else sm.reserved_shared_per_block
    allocated = occupancy.round_up(shared + reserve, units.get(wrong, sm.shared_unit))
    if shared > sm.shared_per_block_optin:
        return 0
    by_shared = sm.shared_per_sm // allocated if allocated else many
    by_warps = many if wrong == "no limit of warps per SM" else sm.max_warps_per_sm // warps
    by_blocks = many if wrong == "no limit of blocks per SM" else sm.max_blocks_per_sm
    return min(by_warps, by_registers, by_shared, by_blocks)


def test_every_worked_case_of_the_lab_is_what_these_rules_give():
    lists = worked_cases()
    assert set(lists) == {name for names in WRONG_RULES.values() for name in names} | {"kFitCases"}
    for name, found in lists.items():
        assert found, f"{name} holds no case this test can read"
        for gpu, threads, registers, shared, want in found:
            assert blocks(threads, registers, shared, gpu) == want, (name, gpu, threads, registers, shared)
            assert calculator(threads, registers, shared, LIMITS[gpu]) == want, (name, gpu, threads, registers)


@pytest.mark.parametrize("wrong", WRONG_RULES)
def test_a_calculator_that_gets_one_rule_wrong_fails_that_rules_worked_cases_whatever_the_seed(wrong):
    lists = worked_cases()
    for name in WRONG_RULES[wrong]:
        caught = [case for case in lists[name] if calculator(*case[1:4], LIMITS[case[0]], wrong) != case[4]]
        assert caught, f"no case of {name} tells {wrong!r} from the rules"


def test_a_calculator_that_gives_0_for_everything_fails_every_list_of_worked_cases():
    for name, found in worked_cases().items():
        assert any(want > 0 for *_, want in found), f"a calculator returning 0 passes {name}"


# ---- side by side with the toolkit's calculator ----

CALCULATOR = r"""
#include <cuda_occupancy.h>
#include <cstdio>
int main() {
    cudaOccDeviceProp p;
    cudaOccFuncAttributes a;
    a.maxThreadsPerBlock = 1024; a.partitionedGCConfig = PARTITIONED_GC_OFF;
    a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN; a.numBlockBarriers = 1; a.virtualResourceCount = 0;
    cudaOccDeviceState state;
    int threads, registers; size_t shared;
    while (std::scanf("%d %d %d %d %d %d %zu %zu %zu %zu %d %d %zu", &p.computeMajor, &p.computeMinor,
                      &p.maxThreadsPerMultiprocessor, &p.regsPerBlock, &p.regsPerMultiprocessor, &p.numSms,
                      &p.sharedMemPerBlock, &p.sharedMemPerMultiprocessor, &p.sharedMemPerBlockOptin,
                      &p.reservedSharedMemPerBlock, &threads, &registers, &shared) == 13) {
        p.maxThreadsPerBlock = 1024; p.warpSize = 32;
        a.numRegs = registers; a.sharedSizeBytes = 0; a.maxDynamicSharedSizeBytes = p.sharedMemPerBlockOptin;
        cudaOccResult result;
        const cudaOccError error = cudaOccMaxActiveBlocksPerMultiprocessor(&result, &p, &a, &state, threads, shared);
        std::printf("%d\n", error == CUDA_OCC_SUCCESS ? result.activeBlocksPerMultiprocessor : -1);
    }
}
"""


def calculator_header() -> Path | None:
    nvcc = shutil.which("nvcc")
    homes = ([Path(nvcc).resolve().parent.parent] if nvcc else []) + [Path("/usr/local/cuda")]
    return next((home / "include" for home in homes if (home / "include" / "cuda_occupancy.h").is_file()), None)


NEEDS_THE_TOOLKIT = pytest.mark.skipif(
    calculator_header() is None or shutil.which("c++") is None,
    reason="cuda_occupancy.h (it comes with the CUDA toolkit) or a C++ compiler not found",
)


def toolkit_blocks(cases: list[tuple[str, int, int, int]], folder: Path) -> list[int]:
    """The toolkit's calculator's blocks per SM for each (gpu, threads, registers, shared bytes); -1 where it
    refuses the launch."""
    program = folder / "calculator"
    source = folder / "calculator.cpp"
    source.write_text(CALCULATOR)
    subprocess.run(["c++", "-O1", f"-I{calculator_header()}", str(source), "-o", str(program)], check=True)
    lines = []
    for key, threads, registers, shared in cases:
        gpu = LIMITS[key]
        major, minor = int(gpu.arch[3:-1]), int(gpu.arch[-1])
        fields = (
            major,
            minor,
            gpu.max_warps_per_sm * 32,
            gpu.registers_per_block,
            gpu.registers_per_sm,
            gpu.multiprocessors,
            gpu.shared_per_block,
            gpu.shared_per_sm,
            gpu.shared_per_block_optin,
            gpu.reserved_shared_per_block,
            threads,
            registers,
            shared,
        )
        lines.append(" ".join(map(str, fields)))
    ran = subprocess.run([str(program)], input="\n".join(lines), capture_output=True, text=True, check=True)
    theirs = [int(value) for value in ran.stdout.split()]
    assert len(theirs) == len(cases)
    return theirs


@NEEDS_THE_TOOLKIT
def test_agrees_with_the_toolkits_calculator_on_every_listed_gpu(tmp_path):
    cases = [
        (gpu.key, threads, registers, shared)
        for gpu, threads, registers, shared in itertools.product(
            LIMITS.values(),
            (32, 33, 96, 128, 200, 256, 512, 640, 1024),
            (0, 16, 32, 40, 64, 65, 96, 128, 168, 255),
            (0, 1, 1000, 16 * 1024, 27 * 1024, 48 * 1024 + 1, 99 * 1024, 115 * 1024, 163 * 1024, 227 * 1024),
        )
        if shared <= gpu.shared_per_block_optin  # more: the launch itself fails, cudaFuncSetAttribute refuses it
    ]
    theirs = toolkit_blocks(cases, tmp_path)
    ours = [blocks(threads, registers, shared, gpu) for gpu, threads, registers, shared in cases]
    differ = [(case, o, t) for case, o, t in zip(cases, ours, theirs, strict=True) if o != max(t, 0)]
    assert not differ, f"{len(differ)} of {len(cases)} launches differ, first: {differ[:5]}"


@NEEDS_THE_TOOLKIT
def test_every_worked_case_of_the_lab_is_the_toolkits_count(tmp_path):
    found = [case for cases in worked_cases().values() for case in cases]
    theirs = toolkit_blocks([case[:4] for case in found], tmp_path)
    differ = [(case, t) for case, t in zip(found, theirs, strict=True) if case[4] != max(t, 0)]
    assert not differ, f"worked cases whose count is not the toolkit's: {differ}"


# ---- the checks that use it ----

SOLUTION_LAUNCH = {"launch__block_size": 256, "launch__grid_size": 512, "launch__shared_mem_per_block_dynamic": 8192}
ONE_BLOCK_PER_SM = {"launch__block_size": 256, "launch__grid_size": 36, "launch__shared_mem_per_block_dynamic": 117760}
LAB9 = {m.name: m for m in load_config().lab("09_occupancy").mechanisms}
OCCUPANCY = next(m for m in LAB9.values() if m.tool == "occupancy")
LIMITER = next(m for m in LAB9.values() if m.numerator == "launch__occupancy_limit_shared_mem")


def counted(totals: dict, launches: int = 1) -> CounterRun:
    return CounterRun(Outcome(["bench"], 0, "", "", 1.0), {k: float(v) for k, v in totals.items()}, kernels=launches)


def compiled(registers: int = 18, shared: int = 1024, arch: str = "sm_90") -> ResourceReport:
    kernel = KernelResources("reverse_kernel", arch, registers, 0, shared, 0, 0)
    return ResourceReport([kernel])


def judged(student: dict, report: ResourceReport | None = None, launches: int = 1):
    return occupancy_check(OCCUPANCY, report or compiled(), counted(student, launches), counted(ONE_BLOCK_PER_SM), H100)


def test_the_solutions_launch_fits_8_blocks_and_the_skeletons_1():
    passed = judged(SOLUTION_LAUNCH)
    assert passed.status is Status.PASSED and passed.measured == 8
    failed = judged(ONE_BLOCK_PER_SM)
    assert failed.status is Status.FAILED and failed.measured == 1 and "shared_mem" in failed.detail
    assert failed.hint == OCCUPANCY.hint


def test_the_compilers_registers_count_and_the_system_reserve_is_counted_once_on_sm_90():
    # 128 registers x 256 threads: 16 warps per SM, 2 blocks, whatever the launch's shared memory.
    assert judged(SOLUTION_LAUNCH, compiled(registers=128)).measured == 2
    # 27.5 KB of tile: 8 blocks with the reserve counted once (sm_90 reports it as static shared memory), and
    # with a kernel's own 1 KB of static shared memory on top, 7.
    tile = {**SOLUTION_LAUNCH, "launch__shared_mem_per_block_dynamic": 28160, "launch__grid_size": 150}
    assert judged(tile, compiled(shared=1024)).measured == 8
    assert judged(tile, compiled(shared=2048)).measured == 7
    assert judged(tile, compiled(shared=1024, arch="sm_80")).measured == 7


def test_a_launch_that_does_not_cover_the_work_fails_however_many_blocks_fit():
    # One block per SM of an H100 looping over 8 KB tiles: 132 x 2048 floats, fewer than the baseline's
    # 35 full tiles of 29,440.
    found = judged({**SOLUTION_LAUNCH, "launch__grid_size": 132})
    assert found.status is Status.FAILED and "does not cover the work" in found.detail


def test_without_the_launchs_shape_or_the_report_the_check_is_not_run_and_an_unreadable_report_fails():
    absent = judged({"launch__block_size": 256})
    assert absent.status is Status.NOT_RUN and "launch__grid_size" in absent.detail
    no_tool = judged(SOLUTION_LAUNCH, ResourceReport(problem="no cuobjdump", no_tool=True))
    assert no_tool.status is Status.NOT_RUN
    assert judged(SOLUTION_LAUNCH, ResourceReport(problem="line 3 is not understood")).status is Status.FAILED
    assert judged(SOLUTION_LAUNCH, launches=2).status is Status.FAILED


def test_a_counter_check_of_one_metric_bounds_the_metric_itself():
    evidence = {"smsp__inst_executed_op_shared_ld.sum": 1000.0}
    baseline = counted(evidence)
    assert counter_check(LIMITER, counted({**evidence, LIMITER.numerator: 25}), baseline).status is Status.PASSED
    one = counter_check(LIMITER, counted({**evidence, LIMITER.numerator: 1}), baseline)
    assert one.status is Status.FAILED and one.measured == 1 and "(must be >= 4)" in one.detail


def test_the_labs_reference_limits_are_those_of_this_file():
    # tests/09_occupancy/reference.hpp holds the H100's and the T4's limits for the C++ tests.
    text = (REPO_ROOT / "tests" / "09_occupancy" / "reference.hpp").read_text()
    for name, gpu in (("kH100", LIMITS["h100"]), ("kT4", LIMITS["t4"])):
        figures = (
            gpu.max_warps_per_sm, gpu.max_blocks_per_sm, gpu.registers_per_sm, gpu.register_unit,
            gpu.sub_partitions, gpu.shared_per_sm, gpu.shared_per_block_optin, gpu.reserved_shared_per_block,
            gpu.shared_unit,
        )  # fmt: skip
        assert f"constexpr SmLimits {name} = {{{', '.join(map(str, figures))}}};" in text
