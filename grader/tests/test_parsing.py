"""Reading what the tools print: doctest XML (whole and cut short), sanitizer and ncu output."""

from grader.profile import parse_csv
from grader.sanitize import first_report
from grader.suite import parse_report

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


NCU = """==PROF== Connected to process 1
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Section Name","Metric Name","Metric Unit","Metric Value"
"0","1","bench","h","k","1","7","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","","65,536"
"0","1","bench","h","k","1","7","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","262,144"
"1","1","bench","h","k","1","7","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","","65,536"
"1","1","bench","h","k","1","7","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","262,144"
==PROF== Disconnected from process 1
"""


def test_ncu_counters_are_summed_over_launches():
    totals, launches = parse_csv(NCU)
    assert launches == 2
    assert totals["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 524288
    assert totals["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 131072
