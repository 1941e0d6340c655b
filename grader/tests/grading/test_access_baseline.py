"""The student edition, which has no reference solutions, draws the lab's baseline beside the student's accesses
(grader/grading/access_runs.py): the baseline's checked launch of the student's own counted run, on the CPU
emulator and on a GPU grade alike. Stand-ins for the build folder and the steps; the counters are what the
emulator recorded of planted kernels (grader/tests/support/access_samples.py)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from grader.core.config import load_config
from grader.grading import access_pictures, access_runs
from grader.reporting import access_text
from grader.steps import access, profile
from grader.tests.support import access_samples

BANK_LOAD = "ncu: shared-memory bank conflicts per shared load (padding)"
COALESCING = "ncu: global load sectors against the lanes-32-apart kernel (coalescing)"


def edition(gpu: bool, solutions: bool = False) -> Any:  # a Context's stand-in
    """A grade's context in a build folder with the emulator: the student edition's (no solution's target)."""
    tree = SimpleNamespace(
        has_emulator=lambda: True,
        has_target=lambda name: solutions and name.endswith("_solution_emu_bench"),
        binary=lambda *_, **__: Path("/nonexistent/solution_emu_bench"),
        directory=Path("/nonexistent"),
    )
    config = SimpleNamespace(timeouts={"profile": 60, "build": 60})
    return SimpleNamespace(
        tree=tree, emulator=not gpu, config=config, program=lambda *_, **__: Path("/nonexistent/bench")
    )


STEPS: Any = SimpleNamespace(  # a Steps' stand-in
    next=lambda name: None, building=contextlib.nullcontext
)


def built(*_):
    return SimpleNamespace(integrity=[], ok=True)


def drawn_evidence(fixture: str, gpu: bool, monkeypatch):
    """The sample's evidence with its AccessRuns made again by access_runs.drawn, as the student edition makes
    them; on a GPU grade, the emulator's run of the student's kernel is the sample's own lines."""
    evidence = access_samples.evidence(access_samples.load(fixture), gpu="NVIDIA H100 80GB HBM3" if gpu else "")
    emulated = {group: runs.emulated for group, runs in evidence.access.items()}
    asked: list[list[str]] = []

    def emulator_run(bench, metrics, roles, group, size, limit, seed=None):
        asked.append(roles)
        return {role: emulated[group][role] for role in roles}

    monkeypatch.setattr(profile, "read_emulated_counters", emulator_run)
    lab = load_config().lab(evidence.lab)
    evidence.access = access_runs.drawn(edition(gpu), lab, "student", evidence, STEPS, built)
    assert all("baseline" in roles for roles in asked), "a GPU grade's emulator run reads the baseline's launch"
    return lab, evidence


@pytest.mark.parametrize("gpu", [False, True], ids=["on the emulator", "on a GPU"])
def test_lab_1_in_the_student_edition_draws_the_baseline_s_read_beside_the_student_s(gpu, monkeypatch):
    lab, evidence = drawn_evidence("01_lanes_32_apart", gpu, monkeypatch)
    (runs,) = evidence.access.values()
    assert runs.reference_name == access.BASELINE and runs.problem == ""
    mechanism = next(m for m in lab.mechanisms if m.name == COALESCING)
    picture = access_pictures.picture(lab, mechanism, evidence)
    assert picture is not None and picture.reference is not None and picture.reference.worst is not None
    # the lab's baseline is the lanes-32-apart kernel itself: its lanes 128 bytes apart, 32 sectors
    assert picture.reference.file.endswith("baseline.cu")
    assert picture.reference.worst.lanes == [128 * lane for lane in range(32)]
    text = access_text.plain(picture)
    assert "\n  baseline  " in text and "solution" not in text


def test_lab_5_s_baseline_has_no_shared_load_and_the_figure_says_so_in_words(monkeypatch):
    lab, evidence = drawn_evidence("05_no_padding", False, monkeypatch)
    mechanism = next(m for m in lab.mechanisms if m.name == BANK_LOAD)
    picture = access_pictures.picture(lab, mechanism, evidence)
    assert picture is not None and picture.drawn and picture.reference is None
    assert picture.reference_name == access.BASELINE
    lines = access_text.plain(picture).splitlines()
    (row,) = [line for line in lines if line.startswith("  baseline  ")]
    assert row.split(maxsplit=1)[1] == "the lab's baseline makes no shared load in its checked launch"


def test_with_the_solutions_the_reference_is_the_solution_s_run(monkeypatch, tmp_path):
    """The kit with its solutions draws the solution's own run, not the baseline (the reference's file stands in
    for the solution's emulator run)."""
    evidence = access_samples.evidence(access_samples.load("01_lanes_32_apart"))
    lab = load_config().lab(evidence.lab)
    solution = evidence.access[""].reference
    monkeypatch.setattr(access, "reference_profile", lambda *_: ({"stand-in": True}, ""))
    monkeypatch.setattr(access, "reference_lines", lambda data, group: solution if data else [])
    monkeypatch.setattr(access_runs.build, "build_variant", lambda *_, **__: SimpleNamespace(ok=True))
    found = access_runs.drawn(edition(False, solutions=True), lab, "student", evidence, STEPS, built)
    assert found[""].reference_name == access.SOLUTION and found[""].reference == solution
