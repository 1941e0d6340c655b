"""Every CUDA target builds with nvcc, one lab and variant at a time, as the grader builds them, and every
solution and skeleton passes the integrity checks on what the compiler read and wrote."""

import pytest

from grader.core.config import REPO_ROOT, load_config
from grader.steps import build, integrity
from grader.tests.fixture_kernels import write_labs

LABS = [lab.name for lab in load_config().labs]


@pytest.mark.parametrize(
    "variant", [pytest.param(v, marks=pytest.mark.needs_solutions) if v == "solution" else v for v in build.VARIANTS]
)
@pytest.mark.parametrize("lab", LABS)
def test_lab_builds(built_tree, config, lab, variant):
    outcome = build.build_lab(built_tree, lab, variant, config.timeouts["build"])
    assert outcome.ok, build.compiler_errors(outcome)
    for kind in ("test", "bench"):
        assert built_tree.binary(lab, variant, kind).is_file()
    assert integrity.check_build(built_tree, lab, variant, compiled=True, lab_calls=config.lab(lab).allowed_calls) == ""


@pytest.mark.slow
def test_building_ahead_builds_every_lab_and_leaves_a_compile_error_to_its_own_lab(config, tmp_path):
    """build_ahead compiles the labs of a run at once and judges nothing: a kernel.cu that does not compile stops
    no other lab, and its own lab's build_lab then reports its error."""
    labs = ["01_vector_add", "07_constant_memory"]
    broken = (REPO_ROOT / "labs" / labs[0] / "kernel.cu").read_text() + "\nthis line is not C++;\n"
    student_dir = write_labs(tmp_path / "labs", {labs[0]: broken})
    tree = build.BuildTree(tmp_path / "build", student_dir, "sm_90")
    assert build.configure(tree, config.timeouts["build"]).ok
    build.build_ahead(tree, labs, ["student"], config.timeouts["build"])
    assert not tree.kernel_library(labs[0], "student").exists()
    assert tree.kernel_library(labs[1], "student").exists() and tree.checker(labs[0]).exists()
    failed = build.build_lab(tree, labs[0], "student", config.timeouts["build"])
    assert not failed.ok and "this line is not C++" in build.compiler_errors(failed)
    assert build.build_lab(tree, labs[1], "student", config.timeouts["build"]).ok


def test_a_build_tree_set_up_with_the_same_options_is_not_set_up_again(config, tmp_path, monkeypatch):
    """A batch worker's next student (reuse): no meson run where nothing changed; another option, one; on the CPU
    emulator, one where the tree has none of the emulator's targets."""
    timeout = config.timeouts["build"]
    tree = build.BuildTree(tmp_path / "build", REPO_ROOT / "labs", "sm_90")
    assert build.configure(tree, timeout, reuse=True).ok
    again = build.configure(tree, timeout, reuse=True)
    assert again.ok and again.stdout == "set up already with these options"
    with monkeypatch.context() as without_emulator:
        without_emulator.setattr(build.BuildTree, "has_emulator", lambda _: False)
        emulated = build.configure(tree, timeout, reuse=True, emulated=True)
        assert emulated.ok and "set up already" not in emulated.stdout
        assert build.configure(tree, timeout, reuse=True).stdout == "set up already with these options"
    with monkeypatch.context() as with_emulator:
        with_emulator.setattr(build.BuildTree, "has_emulator", lambda _: True)
        assert build.configure(tree, timeout, reuse=True, emulated=True).stdout == "set up already with these options"
    other_arch = build.BuildTree(tmp_path / "build", REPO_ROOT / "labs", "sm_80")
    changed = build.configure(other_arch, timeout, reuse=True)
    assert changed.ok and "set up already" not in changed.stdout
    assert build.set_up_with(other_arch, {"gpu_arch": "sm_80", "student_dir": str((REPO_ROOT / "labs").resolve())})
    assert not build.set_up_with(tree, {"gpu_arch": "sm_90"})
