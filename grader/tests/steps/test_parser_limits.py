"""Every parser of text made from a submission that runs in the grader's own process, fed its cap's worth of the
most costly text there is for it: each finishes within 10 s on a 2-core machine (most in well under one), holds
bounded memory where that was the risk, and says the text is unreadable, or reads what it can, where it used to
raise. The caps are the real ones; the inputs are made by repeating a few lines."""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from grader.execution import proc
from grader.steps import build_commands, profile, resources, sanitize, sass, suite
from grader.steps.integrity import DEPENDENCIES_LIMIT, elf, emulator, includes, nvcc, sections
from grader.steps.integrity import read_bounded as read_dependency_list

SECONDS = 10


def timed(call):
    started = time.perf_counter()
    result = call()
    seconds = time.perf_counter() - started
    assert seconds < SECONDS, seconds
    return result


def repeated(line: str, limit: int, head: str = "") -> str:
    """`line` as many times as fits in `limit` characters after `head`."""
    return head + line * ((limit - len(head)) // len(line))


# The machine code's listing (cuobjdump -sass): up to sass.LISTING_LIMIT bytes and sass.MAX_INSTRUCTIONS.

FUNCTION = "        Function : _Z6kernelPKfPf\n"


def late_reads(count: int) -> str:
    """`count` loads whose values nothing reads until the kernel's last instruction: the walk that looked forward
    from each load to its first reader took time and memory quadratic in them."""
    loads = "".join(f"        /*{i:04x}*/  LDG.E R{i % 200}, desc[UR4][R{200 + i % 50}.64] ;\n" for i in range(256))
    return FUNCTION + loads * (count // 256) + "        /*ffff*/  FADD R0, R0, R1 ;\n"


def test_a_listing_of_the_most_instructions_read_is_walked_in_linear_time():
    count = sass.MAX_INSTRUCTIONS - 1_000
    report = timed(lambda: sass.parse(late_reads(count)))
    assert report.read and len(report.loads) == count // 256 * 256
    assert not any(load.value_read for load in report.loads[:-200])  # each overwritten before any read


def test_the_walk_of_a_listing_holds_memory_in_proportion_to_it():
    tracemalloc.start()
    sass.parse(late_reads(10_000))  # 85 MiB with a set of registers kept before each instruction, and growing as
    # the square of the instructions: 341 MiB for 20,000
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 << 20, peak


@pytest.mark.parametrize(
    "line",
    [
        "        /*0000*/ " + "A" * 60_000 + "\n",  # an opcode with no end: each shorter split was tried again
        "        /*0000*/ FADD " + "R1, " * 15_000 + "R2 ;\n",  # as many registers as a line holds
        "        /*0000*/ " + "@P0 " * 15_000 + "\n",
    ],
    ids=["an opcode without its semicolon", "registers", "guards"],
)
def test_lines_of_the_longest_length_fill_the_listing_in_linear_time(line):
    report = timed(lambda: sass.parse(repeated(line, sass.LISTING_LIMIT, FUNCTION)))
    assert report.read


def test_what_no_listing_of_cuobjdump_holds_is_unreadable_never_a_crash():
    too_long = sass.parse(FUNCTION + "        /*0000*/ MOV R1, " + "x" * sass.MAX_LINE_CHARS + " ;\n")
    assert "characters, more than" in too_long.problem
    assert "R9999 is no register" in sass.parse(FUNCTION + "        /*0000*/ MOV R9999, R1 ;\n").problem
    digits = sass.parse(FUNCTION + "        /*0000*/ MOV R" + "9" * 5_000 + ", R1 ;\n")
    assert "is no register" in digits.problem
    many = sass.parse(late_reads(sass.MAX_INSTRUCTIONS + 256))
    assert f"more than {sass.MAX_INSTRUCTIONS} instructions" in many.problem


def test_a_tools_output_read_whole_is_kept_whole_up_to_its_limit():
    """The listing was read through the ends-only reader, which dropped all but its first and last MiB unsaid."""
    script = "import sys; sys.stdout.write(''.join(f'line {i}\\n' for i in range(400_000)))"  # 4.5 MB
    whole = proc.run([sys.executable, "-c", script], 60, output_limit=8 << 20, kept=8 << 20)
    assert whole.ok and whole.stdout.count("\n") == 400_000
    ends = proc.run([sys.executable, "-c", script], 60)
    assert "bytes of output not kept" in ends.stdout


# The resource report (cuobjdump --dump-resource-usage): up to resources.OUTPUT_LIMIT bytes.

USAGE_HEAD = "arch = sm_90\nResource usage:\n Function _Z1kPf:\n"


@pytest.mark.parametrize(
    "text",
    [
        USAGE_HEAD + "  REG:" + "1" * (resources.OUTPUT_LIMIT - 60) + "\n",  # a number Python refuses to convert
        repeated("REG:1 ", resources.OUTPUT_LIMIT - 2, USAGE_HEAD + "  ") + "\n",
        repeated("A:1", resources.OUTPUT_LIMIT - 2, USAGE_HEAD + "  ") + "x\n",
        repeated("CONSTANT[1]:1 ", resources.OUTPUT_LIMIT - 2, USAGE_HEAD + "  ") + "\n",
    ],
    ids=["digits", "fields", "fields with no end", "banks"],
)
def test_a_resource_report_of_the_largest_size_read_is_unreadable_or_read_in_linear_time(text):
    report = timed(lambda: resources.parse(text))
    assert not report.read and "could not read the resource report" in report.problem


# What binutils prints of an object (objdump -dr, nm): up to elf.OUTPUT_LIMIT bytes, read in the grader's process.


def test_a_binutils_program_that_prints_without_end_is_stopped_at_its_limit():
    started = time.perf_counter()
    with pytest.raises(elf.ObjectTooLarge, match="printed more than 16 MiB"):
        elf.binutils("yes", "a line of objdump's")
    assert time.perf_counter() - started < SECONDS


SPACES = " " * 60_000  # a run of whitespace that no comment follows: each start of it was scanned to its end


@pytest.mark.parametrize(
    "line",
    [
        f"   0:\tmov{SPACES}%rax,%rbx\n",
        "   0:\tcall   0 <" + "a" * 60_000 + ">\n",  # a symbol's name in an operand: each start of it scanned
        "   0:\tlea    " + "b" * 60_000 + "(%rip),%rax\n",
        "0000000000000000 <" + "c>" * 30_000 + ">:\n",  # a function named with '>' in it (an asm label)
    ],
    ids=["whitespace", "a long symbol", "a long displacement", "a name of '>'s"],
)
def test_a_disassembly_of_the_largest_size_read_is_read_in_linear_time(monkeypatch, line):
    listing = repeated(line, elf.OUTPUT_LIMIT, "0000000000000000 <f>:\n")
    monkeypatch.setattr(elf, "binutils", lambda *args, **kwargs: listing)
    functions = timed(lambda: elf.read_functions(Path("kernel.o")))
    code = timed(lambda: emulator.read_code(Path("kernel.o")))
    timed(lambda: [emulator.unwatched_access(function) for function in code])
    assert functions and code


def test_a_function_whose_name_holds_a_closing_bracket_is_its_own_function(monkeypatch):
    listing = "0000000000000000 <f>:\n   0:\tret\n0000000000000010 <a>b>:\n  10:\tmov (%rax),%rbx\n"
    monkeypatch.setattr(elf, "binutils", lambda *args, **kwargs: listing)
    assert [(f.name, f.instructions) for f in elf.read_functions(Path("k.o"))] == [
        ("f", ["ret"]),
        ("a>b", ["mov (%rax),%rbx"]),
    ]


# What a program built from the submission printed: stdout and stderr, each up to proc.OUTPUT_KEPT at each end.

KEPT = 2 * proc.OUTPUT_KEPT


def outcome(stdout: str = "", stderr: str = "") -> proc.Outcome:
    return proc.Outcome(["test"], sanitize.SANITIZER_FOUND, stdout, stderr, 60.0)


@pytest.mark.parametrize(
    "printed",
    [
        "========= SCHEDULE SUMMARY (pinned): " + "9" * (KEPT - 60) + " errors\n",
        repeated("========= Invalid __global__ write of size 4 by thread (0,0,0)\n", KEPT),
        repeated("========= SCHEDULE SUMMARY (pinned): 1 error\n", KEPT),
        repeated("=" * 9 + " " * 1000 + "x", KEPT) + "\n",
    ],
    ids=["a count Python refuses to convert", "findings", "summaries", "a line of spaces"],
)
def test_a_sanitizers_output_of_the_largest_size_read_is_read_in_linear_time(printed):
    run = timed(lambda: sanitize.read_run("schedule", suite.SuiteRun(outcome(printed, printed))))
    aspect = timed(lambda: sanitize.aspect_view(run, "pinned"))
    assert not run.clean and not aspect.clean


def test_a_summary_count_too_long_to_be_a_number_is_no_summary():
    run = sanitize.read_run("schedule", suite.SuiteRun(outcome("========= SCHEDULE SUMMARY (pinned): " + "9" * 5_000)))
    assert sanitize.aspect_view(run, "pinned").first_report == sanitize.NO_SUMMARY


@pytest.mark.parametrize(
    "printed",
    [
        '"ID","Kernel Name","Metric Name","Metric Value"\n"' + "x" * 200_000 + '"\n',  # past csv's field limit
        repeated('"0","student/k()","m","1"\n', KEPT, '"ID","Kernel Name","Metric Name","Metric Value"\n'),
        repeated('"', KEPT),
    ],
    ids=["a field over csv's limit", "rows", "quotes"],
)
def test_ncus_output_mixed_with_the_programs_is_read_in_linear_time_never_raising(printed):
    counted = timed(lambda: profile.parse_csv(printed))
    assert isinstance(counted, dict)


def test_the_emulators_counters_of_any_shape_give_none_rather_than_raise(tmp_path):
    record = tmp_path / "record"
    for written in ("[" * 100_000 + "]" * 100_000, '["kernels"]', '{"kernels": [1, 2]}', '{"kernels": {"a": 1}}'):
        record.write_text(written)
        try:
            data = profile.read_profile(record)
        except (ValueError, RecursionError):
            continue  # what run_emulator_profile reads as no counters
        assert profile.parse_emulator_json(data, ["m"], "student") == ({}, 0)
    record.write_bytes(b" " * (profile.PROFILE_LIMIT + 1))
    with pytest.raises(ValueError, match="over 4 MiB"):
        profile.read_profile(record)


def test_a_recorder_line_nested_past_pythons_recursion_is_the_recorders_failure():
    counting = profile.Counting(Path("r.so"), [("", "student")], ["m"], mark="0123")
    line = f"{profile.RECORDER_LINE}0123 " + "[" * 100_000 + "]" * 100_000
    recorded = profile.read_recorded(counting, outcome(stderr=line))
    assert recorded.failure.startswith("a line of the recorder's could not be read")


def test_the_checkers_report_of_the_largest_size_read_is_read_in_linear_time():
    case = (
        '<TestCase name="c" filename="t.cpp" line="1"><Exception crash="false">'
        + "x" * proc.MESSAGE_LIMIT
        + '</Exception><OverallResultsAsserts test_case_success="false"/></TestCase>\n'
    )
    xml = repeated(case, KEPT, '<doctest><TestSuite name="s">\n') + "</TestSuite></doctest>"
    cases = timed(lambda: suite.parse_report(xml))
    assert len(cases) == (KEPT - 30) // len(case)


# The compiler's list of the files a student's compile read (its depfile): at most DEPENDENCIES_LIMIT bytes.

LIMIT = DEPENDENCIES_LIMIT


@pytest.mark.parametrize(
    "names",
    ["a ", "a \\\n", "/" + "a/" * (LIMIT // 2 - 8), "/usr/include/./stdio.h ", "\\ "],
    ids=["one-letter names", "continued lines", "one deep path", "spellings of a header", "escaped spaces"],
)
def test_a_list_of_the_files_read_of_the_largest_size_read_is_read_in_linear_time(tmp_path, names):
    listed = repeated(names, LIMIT, "kernel.o: ")
    depfile = tmp_path / "kernel.o.d"
    depfile.write_text(listed)
    assert read_dependency_list(depfile) == listed
    timed(lambda: build_commands.read_depfile(listed, tmp_path))
    depfile.write_text(listed + "x " * 10)
    assert read_dependency_list(depfile) is None  # refused unread: past it, a list costs seconds more each 100 kB


def test_a_line_marker_of_too_many_digits_is_no_marker():
    preprocessed = "# " + "9" * 5_000 + ' "kernel.cu" 1\nint x;\n'
    assert includes.including_lines(preprocessed, Path("kernel.cu"), Path(".")) == {}


def test_a_symbols_name_of_digits_is_searched_in_linear_time():
    name = "1" * (elf.OUTPUT_LIMIT // 16) + "x"  # 1 MiB: each start of the run was scanned to its end
    assert not timed(lambda: nvcc.private(name))
    assert nvcc.private("_ZN12_GLOBAL__N__4b1c_9_kernel_cu_5e3a6d2c6kernelEv")


def test_readelfs_listing_of_sections_is_read_whole_or_refused(monkeypatch):
    """Its first and last MiB alone were read: a section between them went unchecked."""
    program = Path(sys.executable).resolve()  # any ELF file with sections
    assert not [line for line in sections.problems(program) if "readelf's listing" in line]
    monkeypatch.setattr(sections, "LISTING_LIMIT", 1024)
    assert sections.read_sections(program) == [
        ("(section headers past 1,024 bytes of readelf's listing of them)", "?", "")
    ]
