"""Every CUDA target builds with nvcc, one lab and variant at a time, as the grader builds them, and every
solution and skeleton passes the integrity checks on what the compiler read and wrote."""

import pytest

from grader import build, integrity
from grader.config import load_config

LABS = [lab.name for lab in load_config().labs]


@pytest.mark.parametrize("variant", build.VARIANTS)
@pytest.mark.parametrize("lab", LABS)
def test_lab_builds(built_tree, config, lab, variant):
    outcome = build.build_lab(built_tree, lab, variant, config.timeouts["build"])
    assert outcome.ok, build.compiler_errors(outcome)
    for kind in ("test", "bench"):
        assert built_tree.binary(lab, variant, kind).is_file()
    assert integrity.check_build(built_tree, lab, variant, compiled=True) == ""
