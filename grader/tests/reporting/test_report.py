"""The terminal report as a student first reads it: each lab's brief (the verdict, the cause, its hint and replay),
then with --table the failure that explains the others first, each hint and replay command once per lab, and no
command or file:line cut at a table cell's edge, at 80 columns or any width."""

from __future__ import annotations

import hashlib
import io
import subprocess

import pytest

from grader.core.config import REPO_ROOT
from grader.core.model import Category, Check, LabGrade, Status
from grader.reporting import causes, report
from grader.reporting.terminal import Terminal

LOCATION = "/srv/course/students/cuda-memory-labs/labs/01_vector_add/kernel.cu:31:7"
TODO = "labs/01_vector_add/kernel.cu:29: TODO 3: choose the launch configuration of vector_add_kernel"
PROGRAM = "build/student/01_vector_add_emu/test/01_vector_add_student_emu_test"


def replay(case: str) -> str:
    return f"CML_SEED='39008256253152' CML_GRADER_SIZES='1079167;694350;1140878' {PROGRAM} -tc=\"{case}\""


CASES = ["matches the CPU reference at sizes around a warp", "writes every element and nothing past n"]


def failing_lab() -> LabGrade:
    """A lab as the grader orders its checks: build, tests, sanitizers, speed; memcheck found the cause."""
    grade = LabGrade("01_vector_add", "Vector add", "student", "labs/01_vector_add/kernel.cu")
    grade.checks = [
        Check("build", Category.BUILD, Status.PASSED),
        *(
            Check(case, Category.CORRECTNESS, Status.FAILED, "1 of 1 elements wrong", f"{TODO}\nreplay: {replay(case)}")
            for case in CASES
        ),
        Check("float4: matches", Category.STRETCH, Status.SKIPPED, "stretch not attempted"),
        Check(
            "memcheck: no access outside the arrays",
            Category.MECHANISM,
            Status.FAILED,
            f"1 error\nInvalid __global__ write of size 4 at vector_add_kernel in {LOCATION}",
            "a thread past n wrote",
        ),
        Check("speedup over lanes 32 apart", Category.PERFORMANCE, Status.NOT_RUN, "no GPU"),
    ]
    return grade


def shown(grade: LabGrade, width: int, full: bool = True) -> list[str]:
    out = io.StringIO()
    report.print_report(Terminal(file=out, width=width, color_system=None), [grade], None, [], full=full)
    return out.getvalue().splitlines()


def table_rows(lines: list[str]) -> list[str]:
    """The first cell of each row that starts a check in the lab's table."""
    return [line.split("│")[1].strip() for line in lines if line.startswith("│") and line.split("│")[3].strip()]


def test_the_first_failed_row_is_the_sanitizer_finding_that_explains_the_wrong_results():
    rows = table_rows(shown(failing_lab(), 200))
    assert rows[0].startswith("memcheck"), rows
    assert rows[1:3] == CASES


def test_a_build_failure_comes_before_everything():
    grade = failing_lab()
    grade.checks.append(Check("integrity: the lab's own work", Category.BUILD, Status.FAILED, "reads a file"))
    names = [check.name for check in causes.ordered(grade.checks)]
    assert names[:2] == ["integrity: the lab's own work", "memcheck: no access outside the arrays"]
    assert names[4:] == ["build", "float4: matches", "speedup over lanes 32 apart"]  # the rest as they came


@pytest.mark.parametrize("width", [80, 120, 200])
@pytest.mark.parametrize("full", [True, False])
def test_each_hint_and_replay_command_is_printed_once_on_a_line_of_its_own(width, full):
    lines = shown(failing_lab(), width, full)
    assert sum("a thread past n wrote" in line for line in lines) == 1
    sanitizer = "./cml run --lab 1 --seed 0 --check memcheck"  # the cause's own check, on the same inputs
    assert sum(line.strip() == sanitizer for line in lines) == 1, "\n".join(lines)
    if not full:
        return  # the brief: the cause's hint and the command that shows it again, alone
    for case in CASES:
        assert sum(line.strip() == replay(case) for line in lines) == 1, "\n".join(lines)
    assert sum(TODO in line for line in lines) == 1


@pytest.mark.parametrize("width", [80, 120, 200])
@pytest.mark.parametrize("full", [True, False])
def test_no_file_line_location_is_cut(width, full):
    lines = shown(failing_lab(), width, full)
    assert f"at {LOCATION}" in lines
    whole = {LOCATION, "kernel.cu:31:7", TODO.split(": ")[0]}
    for line in lines:
        for found in report.LOCATION.finditer(line):
            assert found[0] in whole, f"a location cut: {found[0]!r} in {line!r}"


def skeleton_lab(lab: str) -> LabGrade:
    grade = failing_lab()
    grade.lab, grade.kernel_path = lab, str(REPO_ROOT / "labs" / lab / "kernel.cu")
    return grade


def test_the_shipped_skeleton_digests_are_those_of_labs():
    """grader/skeletons.sha256 lists every lab's skeleton as committed (sha256sum labs/*/kernel.cu): read from git,
    so that a student's own edits to labs/ fail nothing here."""
    labs = sorted(p.name for p in (REPO_ROOT / "labs").iterdir() if p.is_dir())
    digests = report.shipped_skeletons()
    assert sorted(digests) == labs
    for lab in labs:
        shown = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "show", f"HEAD:labs/{lab}/kernel.cu"], capture_output=True, check=False
        )
        if shown.returncode != 0:
            pytest.skip(f"not a git checkout with labs/ committed: {shown.stderr.decode(errors='replace')[:200]}")
        committed = hashlib.sha256(shown.stdout).hexdigest()
        assert digests[lab] == committed, f"{lab}: its skeleton changed: sha256sum labs/*/kernel.cu again"


def test_a_run_over_untouched_skeletons_says_so_in_a_line_per_lab_and_points_to_lab_1(tmp_path):
    edited = tmp_path / "kernel.cu"
    edited.write_bytes((REPO_ROOT / "labs" / "02_dot_product" / "kernel.cu").read_bytes() + b"// begun\n")
    begun = skeleton_lab("02_dot_product")
    begun.kernel_path = str(edited)
    lines = shown_all([skeleton_lab("01_vector_add"), begun, skeleton_lab("03_smoothing_halo")], 80, full=True)
    text = "\n".join(lines)
    assert sum("the skeleton as shipped, untouched" in line for line in lines) == 2, text
    assert sum("┏" in line for line in lines) == 2, text  # Lab 2's table and the summary's
    assert sum(line.startswith("cause: ") for line in lines) == 1, text  # Lab 2's brief
    assert "./cml grade --lab 1" in lines[-1]
    alone = shown_all([skeleton_lab("01_vector_add")], 80, full=True)  # the lab asked for: its table and TODO hints
    assert not any("untouched" in line for line in alone) and any("TODO 3" in line for line in alone)


def shown_all(grades: list[LabGrade], width: int, full: bool = False) -> list[str]:
    out = io.StringIO()
    report.print_report(Terminal(file=out, width=width, color_system=None), grades, None, [], full=full)
    return out.getvalue().splitlines()


def test_a_compared_run_keeps_the_students_grade_and_the_solutions_apart():
    """--compare: the student's 40 of 100 and the solution's 100 of 100, never one record of 140 of 200."""
    yours = LabGrade("01_vector_add", "Vector add", "student", "labs/01_vector_add/kernel.cu", points=40.0)
    theirs = LabGrade("01_vector_add", "Vector add", "solution", "solutions/01_vector_add/kernel.cu", points=100.0)
    yours.max_points = theirs.max_points = 100.0
    run = report.run_dict([yours, theirs], {"seed": 1})
    assert (run["score"], run["max_score"]) == (40.0, 100.0)
    assert [lab["variant"] for lab in run["labs"]] == ["student"]
    assert (run["solution"]["score"], run["solution"]["max_score"]) == (100.0, 100.0)
    assert [lab["variant"] for lab in run["solution"]["labs"]] == ["solution"]
    alone = report.run_dict([theirs], {"seed": 1})  # --solutions: one record, the solutions'
    assert alone["score"] == 100.0 and "solution" not in alone


def test_a_submissions_ignored_files_are_listed_in_one_short_block():
    out = io.StringIO()
    ignored = ["notes.txt", "[red]x[/red].cu", *(f"carol/build/obj{n}.o" for n in range(20))]
    report.print_ignored(Terminal(file=out, width=80, color_system=None), ignored)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("Ignored in the submission (22 file(s)")
    assert lines[1:3] == ["  notes.txt", "  [red]x[/red].cu"]  # the student's names, as text, never markup
    assert len(lines) == 1 + report.IGNORED_SHOWN + 1 and lines[-1].startswith("  ... and 14 more")
    nothing = io.StringIO()
    report.print_ignored(Terminal(file=nothing), [])
    assert nothing.getvalue() == ""


def test_a_submissions_replay_command_runs_in_the_students_own_clone(tmp_path):
    """Graded in a batch worker's folder: the command names build/ as ./cml grade makes it in a clone, and the
    grade with the same seed that builds the program there; never a folder of the grader's machine."""
    from grader.grading.gather import replay_prefix
    from grader.grading.judge import replay
    from grader.grading.session import shown_submission

    worker = tmp_path / "marks" / "work" / "w0" / "steps"
    program = worker / "01_vector_add_emu" / "test" / "01_vector_add_student_emu_test"
    clone = ("./cml grade --lab 1 --seed 7", worker)
    command = replay(replay_prefix(program, {"CML_SEED": "7"}, clone))("writes every element, and nothing past n")
    assert command == (
        "./cml grade --lab 1 --seed 7 && CML_SEED='7' "
        'build/student/01_vector_add_emu/test/01_vector_add_student_emu_test -tc="writes every element*"'
    )
    assert shown_submission(tmp_path / "class" / "carol.zip") == "carol.zip"
    assert shown_submission(REPO_ROOT / "labs") == "labs"
