"""The commands the handouts show (their "Run it" block, written from tools/handout_commands.toml): each block is
as its one source writes it, every command in it parses as ./cml reads it and names the handout's own lab, and
each ./cml run of them runs the program it names, built from the lab's kernel.cu in a build folder of the tests
(slow: a build and a whole program's run each; a line run under ncu needs a GPU, and says so where there is none).
./cml run itself (grader/grading/run_program.py): what it refuses, and the command it shows."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from grader import cli
from grader.core.config import REPO_ROOT, load_config
from grader.core.exits import UsageError
from grader.grading import run_program
from grader.tests.support.grading import load_tool

LABS = load_config().labs
TOOL = load_tool("handout_commands")


def shown(lab) -> list[list[str]]:
    return TOOL.shown_commands((REPO_ROOT / "labs" / lab.name / "README.md").read_text())


def runs(lab) -> list[list[str]]:
    """The ./cml run commands of the handout, each as words, up to a pipe ('| grep ...' reads their output)."""
    found = []
    for words in shown(lab):
        upto = words.index("|") if "|" in words else len(words)
        if words[:2] == ["./cml", "run"]:
            found.append(words[:upto])
    return found


def test_every_handout_shows_the_commands_of_its_one_source(capsys):
    assert TOOL.main(["--check"]) == 0, capsys.readouterr().err


def test_no_handout_names_a_program_of_the_build_folder():
    """The build makes each program under a grade's own folder: a path the handout named would not be there."""
    for lab in LABS:
        text = (REPO_ROOT / "labs" / lab.name / "README.md").read_text()
        assert f"{lab.name}_student" not in text and "build/" not in text, lab.name


@pytest.mark.parametrize("lab", LABS, ids=[lab.name for lab in LABS])
def test_every_command_a_handout_shows_parses_and_names_its_lab(lab):
    commands = shown(lab)
    assert [words[:2] for words in commands[:2]] == [["./cml", "grade"]] * 2 and runs(lab), commands
    for words in commands:
        assert words[0] == "./cml", words
        upto = words.index("|") if "|" in words else len(words)
        args = cli.parse_args(words[1:upto])
        named = args.lab if args.command == "run" else args.lab[0]
        assert load_config().lab(named).name == lab.name, words
        if args.command == "run":
            request = cli.run_request(args)
            assert request.check is None or request.check in (*run_program.EMULATED_TOOLS, *run_program.SANITIZERS)


def test_a_run_that_this_machine_cannot_make_is_refused_with_the_reason():
    with pytest.raises(UsageError, match="no GPU here and no CPU emulator"):
        run_program.checked(run_program.RunRequest("1"), gpu_present=False, emulator_built=False)
    with pytest.raises(UsageError, match="--check schedule: compute-sanitizer on a GPU checks"):
        run_program.checked(run_program.RunRequest("10", check="schedule"), gpu_present=True, emulator_built=True)
    with pytest.raises(UsageError, match="--profile counts the CPU emulator"):
        run_program.checked(run_program.RunRequest("1", profile=True), gpu_present=True, emulator_built=True)
    assert run_program.checked(run_program.RunRequest("1", check="schedule"), False, True)  # the emulator's
    assert not run_program.checked(run_program.RunRequest("1", check="racecheck"), True, True)  # the GPU's


def test_the_sizes_are_taken_as_grade_json_lists_them_or_joined():
    args = cli.parse_args(["run", "--lab", "3", "--sizes", "1000x17;20x3", "7x1", "--", "-tc=*drew*"])
    request = cli.run_request(args)
    assert request.sizes == ["1000x17", "20x3", "7x1"] and request.arguments == ["-tc=*drew*"]
    under = cli.run_request(cli.parse_args(["run", "--lab", "3", "--under", "ncu --metrics a,b"]))
    assert under.under == ["ncu", "--metrics", "a,b"] and under.sizes is None


def test_the_command_shown_is_the_one_that_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    program = tmp_path / "student" / "01_vector_add_emu" / "test" / "01_vector_add_student_emu_test"
    prepared = run_program.Prepared([str(program), "-tc=writes every*"], {"CML_SEED": "7", "CML_GRADER_SIZES": "1;2"})
    assert shlex.split(prepared.shown()) == [
        "CML_SEED=7",
        "CML_GRADER_SIZES=1;2",
        "student/01_vector_add_emu/test/01_vector_add_student_emu_test",
        "-tc=writes every*",
    ]
    ran = run_program.Prepared(
        [sys.executable, "-c", "import os, sys; sys.exit(int(os.environ['CML_SEED']))"], {"CML_SEED": "3"}
    )
    assert run_program.run(ran) == 3  # the program's status is the command's


# Each ./cml run a handout shows, run


def markers(words: list[str]) -> tuple[str, ...]:
    """What the output of a program run so shows: doctest's summary, the benchmark's table, the machine code."""
    if "--sass" in words:
        return ("Function : ",)
    if "--bench" in words:
        return ("role", "median ms")
    return ("[doctest] Status:",)


@pytest.mark.slow
@pytest.mark.parametrize(
    "words", [words for lab in LABS for words in runs(lab)], ids=[" ".join(w[1:]) for lab in LABS for w in runs(lab)]
)
def test_each_run_a_handout_shows_runs_its_program(words, device, built_tree, tmp_path):
    """From the tests' build folder (fresh on a clean clone), in a work folder of the test's own."""
    if "--under" in words and not device.present:
        pytest.skip(f"runs under ncu, which needs a GPU: {device.reason}")
    upto = words.index("--") if "--" in words else len(words)
    if "--bench" in words and "--size" in words[upto:] and "--profile" not in words and not device.present:
        pytest.skip("the benchmark at a size of the GPU's, which the CPU emulator takes minutes over; the same lab's "
                    "./cml run --bench runs here at the emulator's own size")  # fmt: skip
    command = [sys.executable, "-m", "grader", *words[1:upto], "--build-dir", str(built_tree.directory)]
    command += ["--work-dir", str(tmp_path / "work"), *words[upto:]]
    ran = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=1200)
    said = ran.stdout + ran.stderr
    assert ran.returncode not in (2, 5, 126, 127) and ran.returncode >= 0, said[-3000:]
    assert all(marker in said for marker in markers(words)), said[-3000:]
    assert "did not build" not in said, said[-3000:]


def test_the_slow_runs_cover_every_lab():
    assert {lab.name for lab in LABS if runs(lab)} == {lab.name for lab in LABS}
    assert Path(TOOL.SOURCE).is_file()


# Each lab's benchmark size on the CPU emulator, worked out by hand from labs.toml: the largest profile_size of
# the checks the emulator counts (1 << 20 where a check names none), else the lab's emulator_bench_size.
EMULATOR_BENCH_SIZES = {
    "01_vector_add": 1 << 20,
    "02_dot_product": 1 << 16,  # counts nothing: emulator_bench_size
    "03_smoothing_halo": 1 << 20,
    "04_tiled_gemm": 512,
    "05_padded_transpose": 256,
    "06_warp_reduction": 1 << 16,
    "07_constant_memory": 1 << 20,
    "08_registers_local_memory": 256,  # counts nothing: emulator_bench_size, the image's side
    "09_occupancy": 1 << 20,
    "10_host_memory": 1 << 16,  # counts nothing: emulator_bench_size
    "11_histogram_atomics": 1 << 20,
    "12_readonly_texture": 1 << 20,
}


def test_the_emulators_benchmark_runs_at_the_size_a_grade_counts_at():
    """At the GPU's size an emulated benchmark runs for minutes; the grade's counted size is the one it knows."""
    said: list[str] = []
    for lab in LABS:
        assert run_program.emulator_size(lab, said.append) == ["--size", str(EMULATOR_BENCH_SIZES[lab.name])], lab.name
    assert len(said) == len(LABS) and all("--size" in line for line in said)
