"""Every CUDA target builds with nvcc, one lab and variant at a time, as the grader builds them, and every
solution and skeleton passes the integrity checks on what the compiler read and wrote. One build folder serves
every grade: the harness is built once, and a student's kernel.cu is compiled, judged and linked apart from it."""

import pytest

from grader.core.config import REPO_ROOT, load_config
from grader.execution.gpu import Gpu
from grader.grading import gather
from grader.grading.context import Context
from grader.platforms.edition import has_solutions
from grader.steps import build
from grader.tests.support.grading import student_work
from grader.tests.support.kernels import write_labs
from grader.tests.support.tiers import first_lab_quick

LABS = [lab.name for lab in load_config().labs]


@pytest.mark.parametrize(
    "variant", [pytest.param(v, marks=pytest.mark.needs_solutions) if v == "solution" else v for v in build.VARIANTS]
)
@pytest.mark.parametrize("lab", first_lab_quick(LABS))
def test_lab_builds(built_tree, config, lab, variant, tmp_path):
    ctx = Context(config, built_tree, Gpu(False, reason="a test"), None, None, None)
    ctx.work = student_work(REPO_ROOT / "labs", tmp_path)
    found = gather.built(ctx, config.lab(lab), variant, emulated=False)
    assert found.ok and found.integrity == "", found.errors or found.integrity
    for kind in ("test", "bench"):
        assert ctx.program(lab, variant, kind).is_file()


def test_a_student_s_build_writes_nothing_into_the_build_folder(built_tree, config, tmp_path):
    """The harness half of the folder is the same before and after a grade of a kernel.cu: the student's steps
    write only their own work folder."""
    lab = config.lab("01")
    build.prepare_student(built_tree, [lab.name], config.timeouts["build"])
    # Every part of the lab that another test process may build in this folder, built first (each build waits for
    # the folder's lock, so none is half made): the reference solution's, for nvcc and the emulator, and the
    # emulator's harness.
    for emulated in (False, True) if built_tree.has_emulator() else (False,):
        if has_solutions():
            assert build.build_variant(built_tree, lab.name, "solution", config.timeouts["build"], emulated).ok
        build.prepare_student(built_tree, [lab.name], config.timeouts["build"], emulated)

    def lab_files() -> dict:
        # The lab's own files only: the other test processes build other labs' parts in the same folder meanwhile,
        # and Ninja's own log with them; the lab's parts are built already, and nothing rebuilds them.
        return {p: p.stat().st_mtime_ns for p in built_tree.directory.rglob(f"*{lab.name}*") if p.is_file()}

    before = lab_files()
    ctx = Context(config, built_tree, Gpu(False, reason="a test"), None, None, None)
    ctx.work = student_work(REPO_ROOT / "labs", tmp_path)
    assert gather.built(ctx, lab, "student", emulated=False).ok
    after = lab_files()
    changed = [path for path in after if before.get(path) != after[path]]
    assert before and changed == []
    assert all(path.is_relative_to(tmp_path) for path in ctx.student(lab.name).folder.rglob("*"))


def test_an_object_integrity_refuses_is_never_linked(built_tree, config, tmp_path):
    """A kernel.cu that defines a function of the harness is judged on its object, before any link: one compile,
    and no program."""
    lab = config.lab("01")
    harness = (REPO_ROOT / "labs" / lab.name / "kernel.cu").read_text() + "\nnamespace cml { void die() {} }\n"
    ctx = Context(config, built_tree, Gpu(False, reason="a test"), None, None, None)
    ctx.work = student_work(write_labs(tmp_path / "labs", {lab.name: harness}), tmp_path / "steps")
    found = gather.built(ctx, lab, "student", emulated=False)
    assert found.compiled and found.integrity and not found.ok
    assert not ctx.program(lab.name, "student", "test").exists()
    assert not ctx.program(lab.name, "student", "bench").exists()


@pytest.mark.slow
def test_compiling_ahead_leaves_a_compile_error_to_its_own_lab(built_tree, config, tmp_path):
    """compile_ahead compiles the labs of a run at once and judges nothing: a kernel.cu that does not compile stops
    no other lab, and its own lab's build then reports its error."""
    labs = ["01_vector_add", "07_constant_memory"]
    broken = (REPO_ROOT / "labs" / labs[0] / "kernel.cu").read_text() + "\nthis line is not C++;\n"
    ctx = Context(config, built_tree, Gpu(False, reason="a test"), None, None, None)
    ctx.work = student_work(write_labs(tmp_path / "labs", {labs[0]: broken}), tmp_path / "steps")
    build.prepare_student(built_tree, labs, config.timeouts["build"])
    ctx.compiled_ahead = build.compile_ahead([ctx.student(lab) for lab in labs], config.timeouts["build"])
    assert ctx.compiled_ahead == {ctx.student(labs[1]).object}
    failed = gather.built(ctx, config.lab(labs[0]), "student", emulated=False)
    assert not failed.ok and "this line is not C++" in failed.errors
    assert gather.built(ctx, config.lab(labs[1]), "student", emulated=False).ok


def test_a_build_tree_set_up_with_the_same_options_is_not_set_up_again(config, tmp_path, monkeypatch):
    """A batch worker's next student (reuse): no meson run where nothing changed; another option, one; on the CPU
    emulator, one where the tree has none of the emulator's targets."""
    timeout = config.timeouts["build"]
    tree = build.BuildTree(tmp_path / "build", "sm_90")
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
    other_arch = build.BuildTree(tmp_path / "build", "sm_80")
    changed = build.configure(other_arch, timeout, reuse=True)
    assert changed.ok and "set up already" not in changed.stdout
    assert build.set_up_with(other_arch, {"gpu_arch": "sm_80"})
    assert not build.set_up_with(tree, {"gpu_arch": "sm_90"})


def test_a_damaged_build_folder_is_set_up_anew_not_fatal(config, tmp_path):
    """A folder whose Meson files are damaged (a second grader stopped half-way, a full disk) is emptied and set up
    again, and what was asked builds."""
    timeout = config.timeouts["build"]
    tree = build.BuildTree(tmp_path / "build", "sm_90")
    assert build.configure(tree, timeout).ok
    (tree.directory / "build.ninja").write_text("this is no ninja file\n")
    (tree.directory / ".ninja_deps").write_bytes(b"\x00damaged")
    built = build.compile_targets(tree, ["cml_harness_selftest"], timeout)
    assert built.ok, built.tail(10)
    assert (tree.directory / "cml_harness_selftest").is_file()
