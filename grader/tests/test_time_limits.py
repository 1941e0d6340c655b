"""Each step's time limit: the reference solution's time for it on the grading GPU (./cml calibrate measures it)
and a margin, or labs.toml's fixed limit where nothing was measured; the verdict of a program stopped at its
limit says which applied."""

from __future__ import annotations

import sys

import pytest

from grader import proc, time_limits
from grader.checks import correctness_checks
from grader.config import TARGETS_DIR, Config, Target, load_config, load_target
from grader.model import Status
from grader.suite import CaseResult, SuiteRun
from grader.time_limits import MARGIN_S, SLOWDOWN, from_reference, step_limit


def target(**steps: float) -> Target:
    return Target("test", "Test GPU", ["Test GPU"], {}, reference_seconds={"01_vector_add": steps})


@pytest.fixture
def config() -> Config:
    """A fresh one: a test sets its --step-timeout."""
    return load_config()


def test_a_short_step_is_stopped_the_margin_after_the_reference_would_have_ended(config):
    limit = step_limit(config, target(tests=8.0), "01_vector_add", "tests")
    assert limit.seconds == 8 + MARGIN_S < config.timeouts["tests"]
    assert limit.why == "the reference solution takes 8.0 s here"


def test_a_long_step_may_take_several_times_the_reference(config):
    # Past MARGIN_S / (SLOWDOWN - 1) seconds, SLOWDOWN times the reference is the larger allowance.
    reference = 2 * MARGIN_S / (SLOWDOWN - 1)
    limit = step_limit(config, target(racecheck=reference), "01_vector_add", "racecheck")
    assert limit.seconds == from_reference(reference) == SLOWDOWN * reference > reference + MARGIN_S
    assert from_reference(0.42) == 31 and step_limit(config, target(tests=0.42), "01_vector_add", "tests").why == (
        "the reference solution takes 0.4 s here"
    )


def test_every_sanitizer_has_its_own_time_and_shares_the_fixed_limit(config):
    timed = target(memcheck=5.0)
    assert step_limit(config, timed, "01_vector_add", "memcheck").seconds == 35
    racecheck = step_limit(config, timed, "01_vector_add", "racecheck")
    assert racecheck.seconds == config.timeouts["sanitizer"] and "not measured" in racecheck.why


def test_a_derived_limit_never_passes_the_fixed_one(config):
    slow = config.timeouts["bench"]  # the reference alone takes the whole fixed limit
    limit = step_limit(config, target(bench=slow), "01_vector_add", "bench")
    assert limit.seconds == config.timeouts["bench"]
    assert limit.why.startswith(time_limits.FIXED) and f"takes {slow:.0f} s here" in limit.why


def test_where_nothing_was_measured_the_fixed_limit_applies_and_says_so(config):
    for unmeasured in (None, target(), target(bench=3.0)):  # the emulator or no thresholds; no lab; no step
        limit = step_limit(config, unmeasured, "01_vector_add", "tests")
        assert limit.seconds == config.timeouts["tests"]
        assert limit.why == f"{time_limits.FIXED}: the reference solution's time for this step is not measured here"
    assert step_limit(config, target(tests=1.0), "02_dot_product", "tests").seconds == config.timeouts["tests"]


def test_the_shipped_targets_are_not_timed_yet_so_the_fixed_limits_apply(config):
    """Until ./cml calibrate times the reference solutions on the H100 and H200, their steps keep the fixed limits,
    and their thresholds files say so."""
    for gpu in ("h100", "h200"):
        shipped = load_target(TARGETS_DIR / f"{gpu}.toml")
        if shipped.reference_seconds:
            pytest.skip(f"{gpu}.toml holds reference_seconds: its derived limits are tested above")
        assert "No reference_seconds" in (TARGETS_DIR / f"{gpu}.toml").read_text()
        for lab in config.labs:
            assert step_limit(config, shipped, lab.name, "tests").seconds == config.timeouts["tests"]


def test_step_timeout_caps_a_derived_limit_and_a_fixed_one(config):
    config.step_cap = 20.0
    assert step_limit(config, target(tests=8.0), "01_vector_add", "tests") == proc.TimeLimit(
        20.0, "the limit --step-timeout set"
    )
    assert step_limit(config, None, "01_vector_add", "memcheck") == proc.TimeLimit(20.0, "the limit --step-timeout set")
    config.step_cap = 60.0  # above the derived limit: the derived one stands
    assert step_limit(config, target(tests=8.0), "01_vector_add", "tests").seconds == 38


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
