"""How long each step's program may run. On a GPU whose thresholds file holds the reference solution's own time
for the step (measured there by ./cml calibrate), a little longer than that, so that a kernel that never returns
is stopped soon after a correct one would have ended; elsewhere (the CPU emulator, a GPU nobody measured), the
fixed limits of labs.toml. Each limit says where it came from, and the verdict of a program stopped at it too."""

from __future__ import annotations

import dataclasses
import math

from grader.core.config import Config, Target
from grader.execution.proc import TimeLimit
from grader.steps.sanitize import SANITIZERS

# What a step may take beyond the reference solution's time, whatever that time: a CUDA context and a sandbox
# started on a busy host, the run's other labs on the same GPU, sizes drawn larger than calibrate's. A step
# of a few seconds, the tests of every lab, is stopped this long after the reference would have ended.
MARGIN_S = 30.0
# And at least this many times the reference's time, for the long steps, whose time grows with the kernel's work
# (a sanitizer's, up to about 20 s on the H100): two grader processes on one host made each other's memcheck
# 1.6 times as long, and a correct kernel slower than the reference must still finish (labs.toml's fixed
# limits bound all of it).
SLOWDOWN = 4.0
# The steps whose programs run a submission, by the names their limits go by; a sanitizer's is its tool's.
TIMED_STEPS = ("tests", *SANITIZERS, "profile", "bench")
FIXED = "labs.toml's fixed limit"


def fixed_name(step: str) -> str:
    """The step's entry in labs.toml's [timeouts]: every sanitizer shares one, and so does the CPU emulator's
    schedule check, which runs the test program as they do."""
    return "sanitizer" if step in (*SANITIZERS, "schedule") else step


def seconds_said(seconds: float) -> str:
    return f"{seconds:.1f}" if seconds < 10 else f"{seconds:.0f}"


def from_reference(reference_s: float) -> float:
    """The limit derived from the reference solution's time for a step, in whole seconds."""
    return float(math.ceil(max(SLOWDOWN * reference_s, reference_s + MARGIN_S)))


def step_limit(config: Config, target: Target | None, lab: str, step: str, device: str) -> TimeLimit:
    """The time limit of `step` (one of TIMED_STEPS) of `lab` on `device` (the GPU's name; "" for none): from the
    reference solution's time in `target` where it holds one and is that device's file (a time measured on
    another GPU says nothing of this one), never past the fixed limit; else the fixed limit. Capped by
    --step-timeout."""
    fixed = float(config.timeouts[fixed_name(step)])
    timed = target.reference_seconds if target and target.matches(device) else {}
    reference = timed.get(lab, {}).get(step)
    if reference is None:
        limit = TimeLimit(fixed, f"{FIXED}: the reference solution's time for this step is not measured here")
    elif from_reference(reference) > fixed:
        limit = TimeLimit(fixed, f"{FIXED}; the reference solution takes {seconds_said(reference)} s here")
    else:
        limit = TimeLimit(from_reference(reference), f"the reference solution takes {seconds_said(reference)} s here")
    if config.step_cap is not None and config.step_cap < limit.seconds:
        limit = TimeLimit(config.step_cap, "the limit --step-timeout set")
    return dataclasses.replace(limit, grader_s=min(fixed, config.step_cap or fixed))
