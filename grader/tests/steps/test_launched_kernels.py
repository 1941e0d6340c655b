"""A machine-code check of Lab 12 judges the kernels its checked launch made, as the benchmark's counted run names
them (the CPU emulator's counters, the counters recorder's CUPTI callbacks on a GPU, or ncu's CSV), never a kernel
of the object that is not launched: a TEX or an LDG.E.CONSTANT in code that never runs is no evidence."""

from __future__ import annotations

import pytest

from grader.core.config import load_config
from grader.core.model import Status
from grader.execution.proc import Outcome
from grader.grading import checks
from grader.grading.evidence import Facts
from grader.grading.plan import need
from grader.steps import profile, sass
from grader.steps.profile import CounterRun

LAB12 = load_config().lab("12_readonly_texture")
FETCHES, GATHERS = (
    next(m for m in LAB12.mechanisms if m.tool == "sass" and m.sass == rule)
    for rule in ("texture fetches", "read-only gathers")
)
TEXTURE = "_ZN12_GLOBAL__N_115resample_kernelEyiiPfii9Transform"  # (anonymous namespace)::resample_kernel(...)
BY_HAND = "_ZN12_GLOBAL__N_123resample_by_hand_kernelEPKfiiPfii9Transform"
# The two kernels as cuobjdump -sass lists them: one fetches from the texture, one blends by hand.
LISTING = f"""
        Function : {TEXTURE}
        /*0000*/                   TEX.LL RZ, R7, R6, R0, UR4, 0x0, 2D, 0x1 ;
        /*0010*/                   STG.E desc[UR4][R4.64], R7 ;
        /*0020*/                   EXIT ;
        Function : {BY_HAND}
        /*0000*/                   LDG.E R7, desc[UR4][R2.64] ;
        /*0010*/                   STG.E desc[UR4][R4.64], R7 ;
        /*0020*/                   EXIT ;
"""
EMULATED, RECORDED, NCU = "the CPU emulator", profile.RECORDER_TOOL, "ncu"


def launched(*names: str, tool: str = EMULATED) -> CounterRun:
    return CounterRun(Outcome(["bench"], 0, "", "", 1.0), {}, 1, tool, launched=list(names))


@pytest.fixture(scope="module")
def listing() -> sass.SassReport:
    report = sass.parse(LISTING)
    assert report.read and len(report.kernels) == 2, report
    return report


def test_the_kernels_are_named_alike_by_cxxfilt_the_emulator_and_ncu(listing):
    texture = next(kernel for kernel in listing.kernels if "resample_kernel" in kernel)
    assert (
        texture == "(anonymous namespace)::resample_kernel(unsigned long long, int, int, float*, int, int, Transform)"
    )
    emulator = "resample_kernel(unsigned long long, int, int, float*, int, int, Transform)"  # no namespace of its own
    assert sass.kernel_key(texture) == sass.kernel_key(emulator)
    ncu = "<unnamed>::resample_kernel(unsigned long long, int, int, float *, int, int, Transform)"
    assert sass.kernel_key(texture, signature=False) == sass.kernel_key(ncu, signature=False) == "resample_kernel"
    assert sass.kernel_key("ns::k<32, float>(int)", signature=False) == "ns::k"
    assert sass.of_kernels(listing, [emulator]).kernels == [texture]


def test_a_texture_fetch_in_a_kernel_the_launch_never_made_is_no_evidence(listing):
    assert checks.sass_check(FETCHES, listing).status is Status.PASSED  # every kernel of the object: it was
    by_hand = checks.sass_check(
        FETCHES, listing, launched("resample_by_hand_kernel(float const*, int, int, float*, int, int, Transform)")
    )
    assert by_hand.status is Status.FAILED and "no texture fetch" in by_hand.detail
    both = launched(
        "resample_kernel(unsigned long long, int, int, float*, int, int, Transform)",
        "resample_by_hand_kernel(float const*, int, int, float*, int, int, Transform)",
    )
    assert checks.sass_check(FETCHES, listing, both).status is Status.PASSED


@pytest.mark.parametrize(
    ("name", "tool"),
    [
        ("(anonymous namespace)::resample_kernel(unsigned long long, int, int, float*, int, int, Transform)", RECORDED),
        ("<unnamed>::resample_kernel(unsigned long long, int, int, float *, int, int, Transform)", NCU),
    ],
)
def test_the_recorder_and_ncu_name_the_launched_kernel_as_the_listing_does(listing, name, tool):
    assert checks.sass_check(FETCHES, listing, launched(name, tool=tool)).status is Status.PASSED


def test_a_launch_of_no_kernel_the_object_holds_fails_and_a_run_that_named_none_is_not_run(listing):
    elsewhere = checks.sass_check(FETCHES, listing, launched("someone_elses_kernel(int)"))
    assert elsewhere.status is Status.FAILED and "none of the kernels the checked launch made" in elsewhere.detail
    unnamed = checks.sass_check(FETCHES, listing, launched())
    assert unnamed.status is Status.NOT_RUN and "named no kernel" in unnamed.detail


def test_each_machine_code_check_of_lab_12_reads_the_launches_of_its_group():
    assert (FETCHES.group, GATHERS.group) == ("B: resample", "A: gather")
    emulator = Facts(emulator=True)
    assert (need(LAB12, FETCHES, emulator).kind, need(LAB12, FETCHES, emulator).name) == ("counters", "B: resample")
    recorder = Facts(gpu_present=True, counters_recorder=True)
    assert need(LAB12, GATHERS, recorder).kind == "counters"
    bare_gpu = need(LAB12, GATHERS, Facts(gpu_present=True))
    assert bare_gpu.not_run and "which kernels the checked launch made is not known" in bare_gpu.not_run
    assert need(LAB12, GATHERS, Facts(gpu_reason="no GPU")).kind == "object"  # nothing runs: judged, and withheld


def test_the_emulators_counters_and_ncus_csv_name_the_kernels_of_each_role():
    data = {
        "kernels": [
            {"name": "resample_kernel(int)", "nvtx_range": "B: resample/student"},
            {"name": "resample_by_hand_kernel(float const*)", "nvtx_range": "B: resample/baseline"},
            {"name": "gather_kernel(int)", "nvtx_range": "A: gather/student"},
        ]
    }
    assert profile.emulator_launched(data, "student", "B: resample") == ["resample_kernel(int)"]
    assert profile.emulator_launched({"kernels": "not a list of kernels"}, "student") == []
    csv = (
        '"ID","Kernel Name","Metric Name","Metric Value"\n'
        '"0","B: resample/student/<unnamed>::resample_kernel(int)","m","1"\n'
        '"1","B: resample/student/<unnamed>::resample_kernel(int)","m","1"\n'
        '"2","B: resample/baseline/<unnamed>::by_hand(const float *)","m","1"\n'
    )
    assert profile.launched_in_csv(csv) == {
        "student": ["<unnamed>::resample_kernel(int)"],
        "baseline": ["<unnamed>::by_hand(const float *)"],
    }


def test_the_recorders_lines_name_the_kernels_demangled_and_bounded():
    counting = profile.Counting(
        recorder=profile.COUNTERS_RECORDER, launches=[("B: resample", "student")], metrics=["m"]
    )
    counting.mark = "m4rk"
    names = [TEXTURE, TEXTURE] + [f"_Z{k}kv" for k in range(100)]
    quoted = ", ".join(f'"{name}"' for name in names)
    line = f'CML COUNTERS m4rk {{"launch": 0, "kernels": 2, "values": [1], "names": [{quoted}]}}'
    run = profile.read_recorded(counting, Outcome(["bench"], 0, "", line, 1.0)).of("B: resample", ["student"])[
        "student"
    ]
    assert (
        run.launched[0]
        == "(anonymous namespace)::resample_kernel(unsigned long long, int, int, float*, int, int, Transform)"
    )
    assert len(run.launched) == profile.MOST_NAMES - 1  # at most MOST_NAMES a line, each once
