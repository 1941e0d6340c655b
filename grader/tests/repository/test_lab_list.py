"""One list of labs: grader/labs.toml. The build (meson.build reads it), the skeletons, the solutions and the
grader's own tests must all have exactly those labs, so that no lab is built but never graded, or the reverse."""

from __future__ import annotations

import json

import pytest

from grader.core.config import REPO_ROOT, load_config


def folders(parent: str) -> set[str]:
    return {path.name for path in (REPO_ROOT / parent).iterdir() if path.is_dir() and path.name[:2].isdigit()}


def labs_built(tree) -> set[str]:
    targets = json.loads((tree.directory / "meson-info" / "intro-targets.json").read_text())
    return {t["name"].removesuffix("_student_test") for t in targets if t["name"].endswith("_student_test")}


@pytest.mark.needs_solutions
def test_every_place_has_the_labs_of_labs_toml(built_tree):
    listed = {lab.name for lab in load_config().labs}
    assert listed, "grader/labs.toml lists no lab"
    places = {
        "labs/": folders("labs"),
        "solutions/": folders("solutions"),
        "tests/": folders("tests"),
        "the build (meson.build)": labs_built(built_tree),
    }
    disagree = {
        place: {"missing": sorted(listed - found), "not in labs.toml": sorted(found - listed)}
        for place, found in places.items()
        if found != listed
    }
    assert not disagree, f"these places disagree with grader/labs.toml: {disagree}"


@pytest.mark.needs_solutions
def test_each_lab_folder_has_its_parts():
    for lab in load_config().labs:
        for part in (
            f"labs/{lab.name}/kernel.cu",
            f"labs/{lab.name}/README.md",
            f"solutions/{lab.name}/kernel.cu",
            f"tests/{lab.name}/test.cpp",
            f"tests/{lab.name}/bench.cpp",
            f"tests/{lab.name}/baseline.cu",
        ):
            assert (REPO_ROOT / part).is_file(), f"{part} is missing"


def test_a_labs_stretch_cases_come_after_its_graded_ones():
    """The sanitizers leave the stretch's cases out (grader/steps/sanitize.py): only where they come last does the
    graded kernel see the same calls under a sanitizer as in the correctness run."""
    for lab in load_config().labs:
        suites = [
            line
            for line in (REPO_ROOT / "tests" / lab.name / "test.cpp").read_text().splitlines()
            if line.startswith("TEST_SUITE(")
        ]
        stretch = [i for i, line in enumerate(suites) if line.startswith('TEST_SUITE("stretch')]
        assert suites and stretch == list(range(len(suites) - len(stretch), len(suites))), (lab.name, suites)
