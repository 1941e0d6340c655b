"""Reading what the tools print: doctest XML (whole and cut short), sanitizer and ncu output."""

from grader.steps.profile import nvtx_include, parse_csv, parse_emulator_json
from grader.steps.sanitize import first_report
from grader.steps.suite import parse_report

REPORT = """<?xml version="1.0" encoding="UTF-8"?>
<doctest binary="t">
  <TestSuite name="vector_add">
    <TestCase name="matches" filename="t.cpp" line="4">
      <Expression success="false" type="CHECK" filename="t.cpp" line="4">
        <Original>result.ok</Original>
        <Expanded>false</Expanded>
        <Info>n := 33</Info>
        <Info>1 of 33 elements wrong; first at index 32</Info>
      </Expression>
      <OverallResultsAsserts successes="1" failures="1" test_case_success="false"/>
    </TestCase>
    <TestCase name="throws" filename="t.cpp" line="5">
      <Exception crash="false">t.cpp:12: cudaMalloc failed</Exception>
      <OverallResultsAsserts successes="0" failures="0" test_case_success="false"/>
    </TestCase>
    <TestCase name="passes" filename="t.cpp" line="6">
      <OverallResultsAsserts successes="1" failures="0" test_case_success="true"/>
    </TestCase>
  </TestSuite>
  <TestSuite name="stretch: float4">
    <TestCase name="skipped one" filename="t.cpp" line="7" skipped="true"/>
  </TestSuite>
</doctest>
"""


def test_report_gives_each_case_its_outcome_and_first_failure():
    cases = {c.name: c for c in parse_report(REPORT)}
    assert not cases["matches"].passed
    # The cause first, then what the test captured; never doctest's "false is false".
    assert cases["matches"].message == "1 of 33 elements wrong; first at index 32 (with n = 33)"
    assert not cases["throws"].passed and "cudaMalloc failed" in cases["throws"].message
    assert cases["passes"].passed and cases["passes"].ran
    assert not cases["skipped one"].ran and cases["skipped one"].suite == "stretch: float4"


def test_a_check_without_a_message_names_what_was_checked():
    bare = REPORT.replace("<Info>1 of 33 elements wrong; first at index 32</Info>", "")
    assert parse_report(bare)[0].message == "failed: result.ok (with n = 33)"


def test_a_report_cut_off_mid_case_keeps_the_cases_it_finished():
    cut = REPORT[: REPORT.index('<TestCase name="passes"') + 30]
    assert [c.name for c in parse_report(cut)] == ["matches", "throws"]


MEMCHECK = """========= COMPUTE-SANITIZER
[doctest] doctest version is "2.4.9"
========= Invalid __global__ write of size 4 bytes
=========     at vector_add_kernel(const float *, const float *, float *, int)+0x90 in kernel.cu:15
=========     by thread (1,0,0) in block (0,0,0)
=========     Address 0x7f00 is out of bounds
=========
========= ERROR SUMMARY: 3 errors
"""


def test_first_sanitizer_report_names_the_source_line():
    report = first_report(MEMCHECK)
    assert report.startswith("Invalid __global__ write")
    assert "kernel.cu:15" in report
    assert "ERROR SUMMARY" not in report


# The header and the row format as the CUDA 13 toolkit's ncu printed them on the H100 (2026-11-24) with --csv --nvtx
# --print-nvtx-rename kernel: the kernel renamed "range/kernel(arguments)" (the values here are made up).
NCU = """==PROF== Connected to process 1198
"ID","Process ID","Process Name","Host Name","thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg","Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","1198","01_vector_add_solution_bench","127.0.0.1","1198  ""<default domain>:baseline:none:none:none:none:none:none"" ","","baseline/<unnamed>::lanes_32_apart_kernel(const float *, const float *, float *, int)","1","7","(256, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","","65,536"
"0","1198","01_vector_add_solution_bench","127.0.0.1","1198  ""<default domain>:baseline:none:none:none:none:none:none"" ","","baseline/<unnamed>::lanes_32_apart_kernel(const float *, const float *, float *, int)","1","7","(256, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","458,750"
"1","1198","01_vector_add_solution_bench","127.0.0.1","1198  ""<default domain>:student:none:none:none:none:none:none"" ","","student/<unnamed>::vector_add_kernel(const float *, const float *, float *, int)","1","7","(256, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","","65,536"
"1","1198","01_vector_add_solution_bench","127.0.0.1","1198  ""<default domain>:student:none:none:none:none:none:none"" ","","student/<unnamed>::vector_add_kernel(const float *, const float *, float *, int)","1","7","(256, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","139,264"
"2","1198","01_vector_add_solution_bench","127.0.0.1","1198  ""<default domain>:student:none:none:none:none:none:none"" ","","student/<unnamed>::vector_add_kernel(const float *, const float *, float *, int)","1","7","(256, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","","1"
"2","1198","01_vector_add_solution_bench","127.0.0.1","1198  ""<default domain>:student:none:none:none:none:none:none"" ","","student/<unnamed>::vector_add_kernel(const float *, const float *, float *, int)","1","7","(256, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","2"
==PROF== Disconnected from process 1198
"""


def test_ncu_counters_are_summed_over_the_launches_of_each_role_ncu_named_them_after():
    found = parse_csv(NCU)
    assert set(found) == {"baseline", "student"}
    totals, launches = found["student"]
    assert launches == 2
    assert totals["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 139266
    assert totals["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 65537
    assert found["baseline"] == (
        {
            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 65536,
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 458750,
        },
        1,
    )


def test_the_checked_launch_is_selected_by_its_group_range_and_its_role_range_inside_it():
    assert nvtx_include("student") == "student/"
    assert nvtx_include("baseline", "R = 1") == "R = 1/*/baseline"
    assert nvtx_include("student", "A: polynomial") == "A: polynomial/*/student"
    # Nsight Compute's quantifiers in a name are escaped.
    assert nvtx_include("student", "unrolled, 1/thread") == "unrolled\\, 1\\/thread/*/student"


def test_the_emulator_counters_are_those_of_exactly_the_checked_launchs_ranges():
    metric = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
    data = {
        "kernels": [
            {"nvtx_range": "R = 1/student", "launches": 1, "metrics": {metric: 34}},
            {"nvtx_range": "R = 16/student", "launches": 1, "metrics": {metric: 99}},
            {"nvtx_range": "R = 1/baseline", "launches": 1, "metrics": {metric: 112}},
            {"nvtx_range": "", "launches": 27, "metrics": {metric: 918}},  # timed launches: in no range
        ]
    }
    assert parse_emulator_json(data, [metric], "student", "R = 1") == ({metric: 34}, 1)
    assert parse_emulator_json(data, [metric], "baseline", "R = 1") == ({metric: 112}, 1)
    assert parse_emulator_json(data, [metric], "student") == ({}, 0)
