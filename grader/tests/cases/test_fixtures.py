"""Planted-bug submissions are graded with the right verdict for the right reason (fixtures/README.md)."""

from __future__ import annotations

import pytest

from grader.core.config import REPO_ROOT, find_target, load_config
from grader.core.model import Status
from grader.platforms.edition import NO_SOLUTIONS, has_solutions

if not has_solutions():  # read as the module is imported, which no marker can skip
    pytest.skip(NO_SOLUTIONS, allow_module_level=True)

from grader.steps.time_limits import from_reference, step_limit
from grader.tests.support.cases import Case, Judged, gpu_evidence, judge_case
from grader.tests.support.kernels import FIXTURES_DIR, fixture_dirs, load_expect, planted_kernel

SEED = 20261123  # fixed, so that a fixture's recorded evidence is what a grade of it makes now


def fixture_case(folder, expect, whole: bool) -> Case:
    """The planted kernel as a case of the suite; `whole`: the slow tier, where the sample of each evidence tool
    (expect.toml: end_to_end) is graded end to end."""
    return Case(
        suite="fixtures",
        name=folder.name,
        lab=expect["lab"],
        kernel=planted_kernel(expect).encode(),
        seed=SEED,
        step_timeout=expect.get("timeout_s"),
        end_to_end=whole and expect.get("end_to_end", False),
    )


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


@pytest.mark.parametrize("folder", fixture_dirs(), ids=lambda p: p.name)
def test_planted_bug_gets_its_verdict(folder, device, built_tree, whole_grades, tmp_path, record_property):
    expect = load_expect(folder)
    case = fixture_case(folder, expect, whole_grades)
    if expect.get("needs_gpu", True) and not device.present:
        judged = [found for _, found in gpu_evidence(case)]
        if not judged:
            pytest.skip(f"needs a GPU: {device.reason}; and no evidence recorded on one")
        for found in judged:
            if isinstance(found, str):
                pytest.skip(f"needs a GPU: {device.reason}; {found}")
            record_property("evidence", found.how)
            assert_verdict(expect, found.student, on_a_gpu=True)
        return
    judged_here = judge_case(case, built_tree.directory, tmp_path, device)
    record_property("evidence", judged_here.how)
    assert_verdict(expect, judged_here.student, on_a_gpu=device.present)
    if not device.present:  # and as a GPU graded it, where one did
        for _, found in gpu_evidence(case):
            if isinstance(found, Judged):
                record_property("evidence", found.how)
                assert_verdict(expect, found.student, on_a_gpu=True)


def assert_verdict(expect: dict, lab: dict, on_a_gpu: bool) -> None:
    # A speed check this GPU's thresholds do not grade (time cannot separate the lesson here: grader/targets)
    # can neither fail nor pass. A fixture whose only proof is such a check proves nothing here: said, not passed.
    # What a GPU's tools see and what the CPU emulator's see may differ: each may add checks that must fail.
    fail = expect.get("fail", []) + expect.get("gpu_fail" if on_a_gpu else "emulator_fail", [])
    ungraded = [p for p in fail if set(status_of(lab["checks"], p)) == {NOT_GRADED}]
    if ungraded and ungraded == fail:
        pytest.skip(f"its lesson shows only in {', '.join(ungraded)}, which the GPU here does not grade")
    assert lab["verdict"] == expect.get("verdict", "failed")
    for pattern in fail:
        if pattern not in ungraded:
            assert "failed" in status_of(lab["checks"], pattern), f"{pattern} should have failed"
    for pattern in expect.get("pass", []):
        # Withheld: it came out right, and earns its points once the tests, or the lesson's own check, pass too.
        came_out_right = {"passed", "withheld", NOT_GRADED}
        assert set(status_of(lab["checks"], pattern)) <= came_out_right, f"{pattern} should have passed"
    for text in expect.get("not_in_any_detail", []):
        blamed = [c["name"] for c in lab["checks"] if text in c.get("detail", "")]
        assert not blamed, f"{text!r} should appear in no check's detail, but does in {blamed}"


def test_a_kernel_that_never_returns_is_stopped_soon_after_the_reference_s_tests_would_end(
    device, built_tree, tmp_path
):
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
    lab = judge_case(fixture_case(folder, expect, whole=True), built_tree.directory, tmp_path, device).student
    limit = step_limit(load_config(), target, "01_vector_add", "tests", device.name)
    ran = lab["program_seconds"]["tests"]
    print(f"reference {reference} s, limit {limit.seconds:g} s, stopped after {ran} s")
    assert limit.seconds == from_reference(reference) and limit.seconds - 1 < ran < limit.seconds + 5
    said = f"timed out after {limit.seconds:g} s and was stopped: {limit.why}"
    assert any(said in check["detail"] for check in lab["checks"]), [c["detail"] for c in lab["checks"]]
