"""Planted-bug submissions are graded with the right verdict for the right reason (fixtures/README.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from grader.core.config import REPO_ROOT, find_target, load_config
from grader.core.exits import Exit
from grader.core.model import Status
from grader.platforms.edition import NO_SOLUTIONS, has_solutions

if not has_solutions():  # read as the module is imported, which no marker can skip
    pytest.skip(NO_SOLUTIONS, allow_module_level=True)

from grader.steps.time_limits import from_reference, step_limit
from grader.tests.fixture_kernels import FIXTURES_DIR, fixture_dirs, load_expect, planted_kernel, write_submission

# Where its grades build, a folder per lab: tools/gpu-check.sh gives each of the processes it runs at once its own.
BUILDS = REPO_ROOT / os.environ.get("CML_TEST_BUILDS", "build-fixtures")


def grade_fixture(folder, expect, tmp_path) -> dict:
    results = tmp_path / "grade.json"
    command = [
        sys.executable, "-m", "grader", "grade",
        "--student-dir", str(write_submission(folder, tmp_path / "submission")),
        "--lab", expect["lab"],
        # One folder per lab, as a batch worker keeps one for its students: the next fixture of the lab builds
        # its kernel.cu alone (grader/steps/build.py never reuses a stale student library).
        "--build-dir", str(BUILDS / expect["lab"]),
        "--json", str(results),
    ]  # fmt: skip
    if "timeout_s" in expect:
        command += ["--step-timeout", str(expect["timeout_s"])]
    finished = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True)
    assert Exit.graded(finished.returncode), finished.stdout + finished.stderr
    return json.loads(results.read_text())


NOT_GRADED = Status.NOT_GRADED.value


def matches(name: str, pattern: str) -> bool:
    """The exact check name, or with a trailing '*' a prefix (names contain [ ] and *, so no globbing)."""
    return name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern


def status_of(checks: list[dict], pattern: str) -> list[str]:
    found = [c["status"] for c in checks if matches(c["name"], pattern)]
    assert found, f"no check named {pattern!r}; checks: {[c['name'] for c in checks]}"
    return found


@pytest.mark.parametrize("folder", fixture_dirs(), ids=lambda p: p.name)
def test_planted_bug_differs_from_the_solution(folder):
    expect = load_expect(folder)
    solution = (REPO_ROOT / "solutions" / expect["lab"] / "kernel.cu").read_text()
    assert planted_kernel(expect) != solution


def graded_fixtures() -> list:
    """Every fixture; those whose expect.toml says `slow = true` (their lesson is also proven elsewhere in the
    quick tests, or by an attack) in ./cml test --slow only, to keep the quick tests short."""
    return [
        pytest.param(folder, marks=[pytest.mark.slow] if load_expect(folder).get("slow") else [], id=folder.name)
        for folder in fixture_dirs()
    ]


@pytest.mark.parametrize("folder", graded_fixtures())
def test_planted_bug_gets_its_verdict(folder, device, tmp_path):
    expect = load_expect(folder)
    if expect.get("needs_gpu", True) and not device.present:
        pytest.skip(f"needs a GPU: {device.reason}")
    graded = grade_fixture(folder, expect, tmp_path)
    (lab,) = [entry for entry in graded["labs"] if entry["lab"] == expect["lab"]]
    # A speed check this GPU's thresholds do not grade (time cannot separate the lesson here: grader/targets)
    # can neither fail nor pass. A fixture whose only proof is such a check proves nothing here: said, not passed.
    # What a GPU's tools see and what the CPU emulator's see may differ: each may add checks that must fail.
    fail = expect.get("fail", []) + expect.get("gpu_fail" if device.present else "emulator_fail", [])
    ungraded = [p for p in fail if set(status_of(lab["checks"], p)) == {NOT_GRADED}]
    if ungraded and ungraded == fail:
        pytest.skip(f"its lesson shows only in {', '.join(ungraded)}, which {graded['device']} does not grade")
    assert lab["verdict"] == expect.get("verdict", "failed")
    for pattern in fail:
        if pattern not in ungraded:
            assert "failed" in status_of(lab["checks"], pattern), f"{pattern} should have failed"
    for pattern in expect.get("pass", []):
        assert set(status_of(lab["checks"], pattern)) <= {"passed", NOT_GRADED}, f"{pattern} should have passed"
    for text in expect.get("not_in_any_detail", []):
        blamed = [c["name"] for c in lab["checks"] if text in c.get("detail", "")]
        assert not blamed, f"{text!r} should appear in no check's detail, but does in {blamed}"


def test_a_kernel_that_never_returns_is_stopped_soon_after_the_reference_s_tests_would_end(device, tmp_path):
    """On a GPU whose thresholds file holds the reference solution's time for Lab 1's tests (./cml calibrate
    --times-only), the planted kernel that never returns, graded with no --step-timeout, is stopped at the limit
    derived from that time, and its verdict says so."""
    if not device.present:
        pytest.skip(f"needs a GPU: {device.reason}")
    target = find_target(device.name)
    reference = target.reference_seconds.get("01_vector_add", {}).get("tests") if target else None
    if target is None or reference is None:
        pytest.skip(f"Lab 1's reference tests are not timed on {device.name}: ./cml calibrate --times-only --lab 1")
    folder = FIXTURES_DIR / "01_never_returns"
    expect = {key: value for key, value in load_expect(folder).items() if key != "timeout_s"}
    (lab,) = [entry for entry in grade_fixture(folder, expect, tmp_path)["labs"] if entry["lab"] == "01_vector_add"]
    limit = step_limit(load_config(), target, "01_vector_add", "tests", device.name)
    ran = lab["program_seconds"]["tests"]
    print(f"reference {reference} s, limit {limit.seconds:g} s, stopped after {ran} s")
    assert limit.seconds == from_reference(reference) and limit.seconds - 1 < ran < limit.seconds + 5
    said = f"timed out after {limit.seconds:g} s and was stopped: {limit.why}"
    assert any(said in check["detail"] for check in lab["checks"]), [c["detail"] for c in lab["checks"]]
