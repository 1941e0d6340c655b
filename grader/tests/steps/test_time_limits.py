"""Each step's time limit: the reference solution's time for it on the grading GPU (./cml calibrate measures it)
and a margin, or labs.toml's fixed limit where nothing was measured; the verdict of a program stopped at its
limit says which applied."""

from __future__ import annotations

import sys

import pytest

from grader.core.config import REPO_ROOT, TARGETS_DIR, Config, Target, load_config, load_target
from grader.core.model import Status
from grader.execution import proc
from grader.grading.checks import correctness_checks
from grader.steps import time_limits
from grader.steps.suite import CaseResult, SuiteRun
from grader.steps.time_limits import MARGIN_S, SLOWDOWN, from_reference, step_limit

GPU = "Test GPU 80GB"  # the device graded on


def target(**steps: float) -> Target:
    """A thresholds file for the device graded on, holding the reference solution's `steps` times for Lab 1."""
    return Target("test", "Test GPU", ["Test GPU"], {}, reference_seconds={"01_vector_add": steps})


@pytest.fixture
def fresh() -> Config:
    """The configuration, each test its own: one sets its --step-timeout."""
    return load_config()


def test_a_short_step_is_stopped_the_margin_after_the_reference_would_have_ended(fresh):
    limit = step_limit(fresh, target(tests=8.0), "01_vector_add", "tests", GPU)
    assert limit.seconds == 8 + MARGIN_S < fresh.timeouts["tests"]
    assert limit.why == "the reference solution takes 8.0 s here"
    # The checker, the grader's own program, whose time does not depend on the submission, keeps the fixed limit.
    assert limit.for_the_grader == fresh.timeouts["tests"]


def test_a_long_step_may_take_several_times_the_reference(fresh):
    # Past MARGIN_S / (SLOWDOWN - 1) seconds, SLOWDOWN times the reference is the larger allowance.
    reference = 2 * MARGIN_S / (SLOWDOWN - 1)
    limit = step_limit(fresh, target(racecheck=reference), "01_vector_add", "racecheck", GPU)
    assert limit.seconds == from_reference(reference) == SLOWDOWN * reference > reference + MARGIN_S
    assert from_reference(0.42) == 31 and step_limit(fresh, target(tests=0.42), "01_vector_add", "tests", GPU).why == (
        "the reference solution takes 0.4 s here"
    )


def test_every_sanitizer_has_its_own_time_and_shares_the_fixed_limit(fresh):
    timed = target(memcheck=5.0)
    assert step_limit(fresh, timed, "01_vector_add", "memcheck", GPU).seconds == 35
    racecheck = step_limit(fresh, timed, "01_vector_add", "racecheck", GPU)
    assert racecheck.seconds == fresh.timeouts["sanitizer"] and "not measured" in racecheck.why


def test_a_derived_limit_never_passes_the_fixed_one(fresh):
    slow = fresh.timeouts["bench"]  # the reference alone takes the whole fixed limit
    limit = step_limit(fresh, target(bench=slow), "01_vector_add", "bench", GPU)
    assert limit.seconds == fresh.timeouts["bench"]
    assert limit.why.startswith(time_limits.FIXED) and f"takes {slow:.0f} s here" in limit.why


def test_where_nothing_was_measured_the_fixed_limit_applies_and_says_so(fresh):
    for unmeasured in (None, target(), target(bench=3.0)):  # the emulator or no thresholds; no lab; no step
        limit = step_limit(fresh, unmeasured, "01_vector_add", "tests", GPU)
        assert limit.seconds == fresh.timeouts["tests"]
        assert limit.why == f"{time_limits.FIXED}: the reference solution's time for this step is not measured here"
    assert step_limit(fresh, target(tests=1.0), "02_dot_product", "tests", GPU).seconds == fresh.timeouts["tests"]


def test_a_time_measured_on_another_gpu_is_no_limit_here(fresh):
    """A thresholds file named by --target, of another GPU than the one graded on, or graded on the CPU emulator
    (no device): its thresholds are used as asked, its reference times are not."""
    for device in ("NVIDIA A100-SXM4-40GB", ""):
        limit = step_limit(fresh, target(tests=1.0), "01_vector_add", "tests", device)
        assert limit.seconds == fresh.timeouts["tests"] and "not measured here" in limit.why


def test_the_shipped_targets_are_not_timed_yet_so_the_fixed_limits_apply(fresh):
    """Until ./cml calibrate times the reference solutions on the H100 and H200, their steps keep the fixed limits,
    and their thresholds files say so."""
    for gpu in ("h100", "h200"):
        shipped = load_target(TARGETS_DIR / f"{gpu}.toml")
        if shipped.reference_seconds:
            pytest.skip(f"{gpu}.toml holds reference_seconds: its derived limits are tested above")
        assert "No reference_seconds" in (TARGETS_DIR / f"{gpu}.toml").read_text()
        for lab in fresh.labs:
            assert step_limit(fresh, shipped, lab.name, "tests", shipped.match[0]).seconds == fresh.timeouts["tests"]


def test_step_timeout_caps_a_derived_limit_and_a_fixed_one(fresh):
    fresh.step_cap = 20.0
    capped = proc.TimeLimit(20.0, "the limit --step-timeout set", grader_s=20.0)  # the checker's limit too
    assert step_limit(fresh, target(tests=8.0), "01_vector_add", "tests", GPU) == capped
    assert step_limit(fresh, None, "01_vector_add", "memcheck", GPU) == capped
    fresh.step_cap = 60.0  # above the derived limit: the derived one stands
    assert step_limit(fresh, target(tests=8.0), "01_vector_add", "tests", GPU).seconds == 38


def test_a_program_stopped_at_its_limit_says_what_the_limit_came_from():
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    outcome = proc.run(sleeper, proc.TimeLimit(1, "the reference solution takes 0.2 s here"))
    assert outcome.timed_out and 1 <= outcome.seconds < 10
    assert outcome.how_it_ended() == (
        "timed out after 1 s and was stopped: the reference solution takes 0.2 s here (a kernel that never returns?)"
    )
    plain = proc.run(sleeper, 1)  # a bare number: a limit with nothing to say about where it came from
    assert plain.how_it_ended() == "timed out after 1 s and was stopped (a kernel that never returns?)"


def test_the_correctness_verdict_of_a_stopped_test_program_names_its_limit():
    stopped = proc.Outcome(["test"], None, "", "", 41.0, limit_why="the reference solution takes 11 s here")
    suite = SuiteRun(stopped, [CaseResult("adds", "s", True, True), CaseResult("never ends", "s", False, False)])
    checks = correctness_checks(suite, "README.md")
    assert [c.status for c in checks] == [Status.PASSED, Status.FAILED]
    assert "timed out after 41 s and was stopped: the reference solution takes 11 s here" in checks[1].detail


def test_a_program_s_time_leaves_out_its_wait_for_the_gpu():
    outcome = proc.run([sys.executable, "-c", "import time; time.sleep(1.5)"], 30, paused=lambda: 1.0)
    assert outcome.ok and 0.4 <= outcome.seconds < 1.4


@pytest.mark.needs_solutions
def test_on_the_emulator_a_measured_reference_time_stops_the_tests_and_the_verdict_says_so(
    emulator, config, monkeypatch
):
    """End to end: a thresholds file (given as --target gives one) says the reference solution's tests take
    0.1 s, and with no margin the limit is 1 s: the emulated tests, which take longer (ten more cases at the
    largest size keep them longer on any machine), are stopped there, every case the run did not finish fails
    saying so, and the later steps are not run, for that reason."""
    from grader.execution.gpu import Gpu
    from grader.grading.context import Context
    from grader.grading.grade import grade_lab

    monkeypatch.setattr(time_limits, "MARGIN_S", 0.0)
    measured = target(tests=0.1)
    limit = step_limit(config, measured, "01_vector_add", "tests", GPU)
    assert limit == proc.TimeLimit(1, "the reference solution takes 0.1 s here", grader_s=config.timeouts["tests"])
    # The emulator in the place of the GPU the time was measured on: no GPU is present, but the name matches.
    as_if = Gpu(False, GPU, reason="the test grades on the CPU emulator")
    ctx = Context(config, emulator, as_if, measured, None, None, instructor_sizes={"01_vector_add": ["3000000"] * 10})
    ctx.emulator = True
    grade = grade_lab(ctx, config.lab("01"), "solution")
    said = f"timed out after 1 s and was stopped: {limit.why}"
    stopped = [c for c in grade.checks if said in c.detail]
    assert stopped and grade.program_seconds["tests"] < 10, [(c.name, c.detail) for c in grade.checks]
    assert all(c.status is Status.FAILED for c in stopped)
    assert any(c.name.startswith("memcheck") and c.detail.startswith("not run: the test program") for c in stopped)


def test_the_documents_quote_the_margin_the_slowdown_and_the_fixed_limit(config):
    maintainer = " ".join((REPO_ROOT / "docs" / "maintainer.md").read_text().split())
    assert f"{SLOWDOWN:g} times that long, and at least {MARGIN_S:g} s longer" in maintainer
    assert f"stopped about {MARGIN_S:g} s after the reference's tests" in maintainer
    assert f"lets it spin for {config.timeouts['tests'] / 60:g} minutes" in maintainer
    security = " ".join((REPO_ROOT / "SECURITY.md").read_text().split())
    assert f"about {MARGIN_S:g} s past the reference's time" in security
