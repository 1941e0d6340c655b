"""A kernel.cu that nvcc built and the CPU emulator could not: a limit of the grader, never the student's failure and
never "incomplete" like a pass. It has a verdict and an exit status of its own, and words that say where to grade
it; in the project's own suite, every case the emulator could not build is a bug of the grader's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.cli import grade_status
from grader.core.config import load_config
from grader.core.exits import Exit
from grader.core.model import EMULATOR_BUILD, EMULATOR_LIMIT, NOT_SUBMITTED, Category, KernelResources, Status
from grader.grading import judge
from grader.grading.evidence import BuildEvidence, Facts, LabEvidence
from grader.reporting.score import verdict
from grader.steps.resources import ResourceReport
from grader.tests.support import cases

SEED = 20261124
LIMIT_LINE = (
    "kernel.cu:12:5: error: 'this_grid' is unavailable: cml_emu limit: cooperative groups' grid is not emulated on "
    "the CPU emulator (a limit of the grader's CPU emulator, not a mistake in the kernel: grade it on a GPU)"
)


def not_emulated(lab: str, errors: str, stack_bytes: int = 0) -> LabEvidence:
    """Evidence of a kernel.cu nvcc built (its report: one kernel of `stack_bytes` stack) that the emulator could
    not build, with `errors`."""
    built = BuildEvidence(compiled=True, ok=True, emulator_ok=False, emulator_errors=errors)
    report = ResourceReport([KernelResources("kernel", "sm_90", 32, stack_bytes, 0, 0, 0)])
    return LabEvidence(lab, "student", "k", "k", SEED, [], Facts(emulator=True), build=built, report=report)


def test_a_kernel_nvcc_built_and_the_emulator_could_not_gets_its_own_verdict_and_exit_status_never_incomplete():
    lab = load_config().lab("02_dot_product")
    errors = f"kernel.cu:3:1: note: in a file included from here\n{LIMIT_LINE}"
    grade = judge.judge(lab, not_emulated(lab.name, errors), {}, "CPU emulator")
    assert verdict(grade) == EMULATOR_LIMIT != "incomplete"
    assert grade_status({verdict(grade)}) is Exit.EMULATOR_LIMIT
    (limit,) = [c for c in grade.checks if c.name == EMULATOR_BUILD]
    assert (limit.category, limit.status) == (Category.BUILD, Status.NOT_RUN)
    first, _, rest = limit.detail.partition("\n")
    assert "nvcc built this kernel.cu" in first and "a limit of the grader" in first and "on a GPU" in first
    assert rest.startswith(LIMIT_LINE), "the emulator's own words for what it cannot run come first"
    assert "GPU" in limit.hint
    assert grade.points == 0 and grade.ungraded_points == grade.max_points  # nothing judged, nothing lost
    others = [c for c in grade.checks if c.category is not Category.BUILD]
    assert others and all(c.status is Status.NOT_RUN and "grade it on a GPU" in c.detail for c in others)


def test_any_emulator_build_failure_after_nvcc_built_it_is_the_graders_limit_marker_or_not():
    lab = load_config().lab("01_vector_add")
    grade = judge.judge(lab, not_emulated(lab.name, "kernel.cu:9:3: error: no member named 'x' in 'Foo'"), {}, "")
    assert verdict(grade) == EMULATOR_LIMIT


def test_a_check_judged_from_nvccs_object_that_fails_still_fails_the_lab():
    # Lab 8's resources check is read from nvcc's report, the same on every machine: a stack frame fails it.
    lab = load_config().lab("08_registers_local_memory")
    grade = judge.judge(lab, not_emulated(lab.name, LIMIT_LINE, stack_bytes=128), {}, "CPU emulator")
    assert verdict(grade) == "failed"
    assert any(c.name == EMULATOR_BUILD for c in grade.checks), "the emulator's limit is still said"


@pytest.mark.parametrize(
    ("verdicts", "status"),
    [
        ({"passed"}, Exit.PASSED),
        ({"passed", "incomplete"}, Exit.INCOMPLETE),
        ({"incomplete", EMULATOR_LIMIT}, Exit.EMULATOR_LIMIT),
        ({EMULATOR_LIMIT, "failed"}, Exit.FAILED),
        ({EMULATOR_LIMIT, NOT_SUBMITTED}, Exit.FAILED),
    ],
)
def test_the_grades_exit_status_puts_a_failed_lab_first_then_the_emulators_limit_then_checks_not_run(verdicts, status):
    assert grade_status(verdicts) is status


def test_a_batch_counts_the_emulators_limit_as_graded():
    assert Exit.graded(Exit.EMULATOR_LIMIT) and "8 " in Exit.describe()


def recorded_evidence() -> list[Path]:
    return sorted(cases.EVIDENCE_DIR.rglob("*.json"))


def test_no_case_of_the_suite_is_one_the_emulator_could_not_build():
    """Every kernel.cu of the suite that nvcc builds, the emulator builds: a case judged "emulator limit" from its
    recorded evidence is a bug of the grader's (its emulator), not a property of the case."""
    found = recorded_evidence()
    assert found, f"no recorded evidence under {cases.EVIDENCE_DIR}"
    limited = []
    for path in found:
        recorded = json.loads(path.read_text())
        for entry in cases.judged(recorded, recorded.get("recorded_on", cases.EMULATOR)):
            if entry["verdict"] == EMULATOR_LIMIT:
                limited.append(f"{path.relative_to(cases.EVIDENCE_DIR)} ({entry['variant']})")
    assert not limited, f"the CPU emulator could not build these cases, which nvcc built: {limited}"
