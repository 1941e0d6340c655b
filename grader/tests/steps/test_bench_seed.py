"""The benchmark's runs draw the grade's inputs: the timed run, the counted run on the CPU emulator and the run
under ncu all get the grade's CML_SEED, so that a grade's evidence is made again from the same inputs and a
student's replay of a benchmark sees what the grade saw. A program that prints the seed it was given stands in
for the benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.execution import proc
from grader.steps import bench, profile

SEED = {"CML_SEED": "424242"}
LIMIT = proc.TimeLimit(20.0, "the test's own limit")


@pytest.fixture
def says_its_seed(tmp_path) -> Path:
    program = tmp_path / "says-its-seed"
    program.write_text('#!/bin/sh\necho "given seed [$CML_SEED]" >&2\n')
    program.chmod(0o755)
    return program


def test_the_timed_run_gets_the_grades_seed(says_its_seed):
    run = bench.run_bench(says_its_seed, LIMIT, seed=SEED)
    assert "given seed [424242]" in run.outcome.stderr, run.outcome.stderr


def test_the_emulators_counted_run_gets_the_grades_seed(says_its_seed):
    runs = profile.read_emulated_counters(says_its_seed, ["m"], ["student"], "", 64, LIMIT, SEED)
    assert "given seed [424242]" in runs["student"].outcome.stderr, runs["student"].outcome.stderr


def test_without_a_seed_the_program_draws_its_own(says_its_seed):
    run = bench.run_bench(says_its_seed, LIMIT)
    assert "given seed []" in run.outcome.stderr, run.outcome.stderr
