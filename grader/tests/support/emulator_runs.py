"""Runs of the CPU emulator's own programs for the tests: its self-test, built once per run, and the counters of
one run of any of its programs."""

from __future__ import annotations

from pathlib import Path

from grader.steps import build, profile
from grader.steps.build_tree import BuildTree


def selftest_program(tree: BuildTree, config) -> str:
    """The emulator's self-test (common/emu/tests), built in `tree` under its lock: a test process that built it
    unlocked relinked it while another ran it."""
    outcome = build.compile_targets(tree, ["cml_emu_selftest"], config.timeouts["build"])
    assert outcome.ok, build.compiler_errors(outcome)
    return str(tree.directory / "cml_emu_selftest")


def emulator_counters(command: list, config, env: dict | None = None) -> dict:
    """The counters file of one run of an emulator build, which must succeed."""
    program, *args = (str(part) for part in command)
    outcome, counters = profile.run_emulator_profile(Path(program), tuple(args), config.timeouts["profile"], env)
    assert outcome.ok and counters, outcome.tail(20)
    return counters


def kernel_lines(counters: dict, kernel: str, role: str = "") -> list[dict]:
    """The counters' lines of one kernel, launched in the NVTX range `role` ('' for none)."""
    (found,) = [k for k in counters["kernels"] if k["name"].startswith(kernel + "(") and k["nvtx_range"] == role]
    return found["lines"]
