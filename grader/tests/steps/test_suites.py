"""The doctest suites themselves: the solutions pass them on a GPU, untouched skeletons fail them cleanly,
and without a GPU every case reports itself as skipped (never as passed)."""

from pathlib import Path

import pytest

from grader.core.config import REPO_ROOT, load_config
from grader.execution import proc
from grader.execution.proc import EXIT_SKIPPED
from grader.grading.sizes import lab_sizes
from grader.steps import suite
from grader.steps.student_steps import checkout_work
from grader.tests.support.grading import built_programs
from grader.tests.support.tiers import first_lab_quick

LABS = [lab.name for lab in load_config().labs]
SEED = 20261124


def built(built_tree, config, lab, variant) -> Path:
    """The test program of `variant`, the student's being the checkout's labs/ (the skeleton)."""
    work = checkout_work(built_tree, REPO_ROOT / "labs", LABS)
    return built_programs(built_tree, config, lab, variant, emulated=False, work=work)["test"]


def run(built_tree, config, lab, variant) -> suite.SuiteRun:
    """The suite as the grader runs it: with sizes drawn for the run, so that no case skips itself for want of
    them (gather.gather)."""
    sizes = {"CML_GRADER_SIZES": ";".join(lab_sizes(config.lab(lab), SEED, {}))}
    program = built(built_tree, config, lab, variant)
    return suite.run_suite(program, built_tree.checker(lab), config.timeouts["tests"], sizes)


@pytest.mark.needs_solutions
@pytest.mark.parametrize("lab", first_lab_quick(LABS))
def test_without_a_gpu_every_case_is_skipped_not_passed(built_tree, config, device, lab):
    if device.present:
        pytest.skip("this machine has a GPU")
    binary = built(built_tree, config, lab, "solution")
    tests = proc.run([str(binary), "--reporters=xml", "--no-version"], config.timeouts["tests"])
    assert tests.returncode == EXIT_SKIPPED, tests.tail()
    assert suite.NO_GPU_START.match(tests.stderr), tests.stderr
    cases = suite.parse_report(tests.stdout)
    assert cases and not any(case.ran for case in cases)


@pytest.mark.needs_solutions
@pytest.mark.parametrize("lab", LABS)
def test_solution_passes_every_case(built_tree, config, needs_gpu, lab):
    tests = run(built_tree, config, lab, "solution")
    failures = [f"{c.name}: {c.message}" for c in tests.cases if c.ran and not c.passed]
    assert tests.outcome.ok, "\n".join(failures) or tests.outcome.tail()
    assert all(c.ran for c in tests.cases), "a case of the solution was skipped"


@pytest.mark.parametrize("lab", LABS)
def test_untouched_skeleton_fails_cleanly_and_points_at_a_todo(built_tree, config, needs_gpu, lab):
    if "CML_TODO(" not in (REPO_ROOT / "labs" / lab / "kernel.cu").read_text():
        pytest.skip(f"labs/{lab}/kernel.cu is no longer the skeleton")
    tests = run(built_tree, config, lab, "student")
    assert tests.outcome.returncode == 1, f"expected failed tests, got: {tests.outcome.how_it_ended()}"
    assert any(c.ran and not c.passed for c in tests.cases)
    assert tests.todos, "the skeleton should print which TODO is not done"
