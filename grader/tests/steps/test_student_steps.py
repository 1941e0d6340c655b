"""The steps that read a student's bytes (grader/steps/student_steps.py, grader/execution/sandbox.py): each writes only
its own folder, runs within its limits, links with no plugin, and sees nothing an earlier submission left in the build
folder."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from grader.core.config import REPO_ROOT
from grader.execution import sandbox
from grader.grading.session import GradeRequest, start
from grader.reporting import report
from grader.steps import build, student_steps
from grader.steps.integrity import sections
from grader.tests.attacks import lto
from grader.tests.support.grading import student_work

LABS = sorted(p.name for p in (REPO_ROOT / "labs").iterdir() if p.is_dir())
needs_sandbox = pytest.mark.skipif(bool(sandbox.unavailable()), reason=f"no sandbox here: {sandbox.unavailable()}")


def run(command: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)


@needs_sandbox
def test_a_step_writes_its_own_folder_and_nothing_it_reads(tmp_path):
    reads, out = tmp_path / "reads", tmp_path / "out"
    reads.mkdir()
    out.mkdir()
    (reads / "input").write_text("grader's")
    script = f"echo x > {out}/ok; echo x > {reads}/input; echo x > {reads}/planted; echo x > {tmp_path}/planted"
    ran = run(sandbox.step_command(["sh", "-c", script], [reads], out, reads))
    assert (out / "ok").read_text() == "x\n", ran.stderr
    assert (reads / "input").read_text() == "grader's"
    assert not (reads / "planted").exists() and not (tmp_path / "planted").exists()


def test_a_step_that_writes_past_its_file_size_limit_is_stopped(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    limits = sandbox.Limits(memory=1 << 30, file_size=1 << 20, cpu_s=30, processes=4096)
    script = f"head -c 10000000 /dev/zero > {out}/big"
    ran = run(sandbox.step_command(["sh", "-c", script], [], out, out, limits=limits))
    assert ran.returncode != 0
    assert (out / "big").stat().st_size <= 1 << 20


@needs_sandbox
@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc to make compiler IR with")
def test_a_link_in_the_sandbox_runs_no_linker_plugin(tmp_path):
    """The IR's recorded assembler option writes a file when gcc links it as usual; in a step, where every
    plugin is hidden, nothing is written, even with gcc left to hand ld its plugin."""
    out = tmp_path / "out"
    out.mkdir()
    planted = tmp_path / "planted.d"
    ir = tmp_path / "ir.c"
    ir.write_text(lto.as_inline_assembly(lto.ir_sections(f"--MD={planted}")) + "int main(void) { return 0; }\n")
    assert run(["gcc", "-c", str(ir), "-o", str(tmp_path / "ir.o")]).returncode == 0
    linked = run(sandbox.step_command(["gcc", str(tmp_path / "ir.o"), "-o", str(out / "a")], [tmp_path], out, out))
    assert not planted.exists(), linked.stderr
    run(["gcc", str(tmp_path / "ir.o"), "-o", str(tmp_path / "a")])  # the control: no sandbox
    assert planted.exists(), "linked as usual, the IR should have written the file"


def test_a_meson_command_names_the_steps_own_paths():
    command = ["nvcc", "-MF", "x.o.d", "-o", "x.o", "-c", "/k.cu", "--out=x.o"]
    swapped = student_steps.swap(command, {"x.o": "/s/kernel.o", "x.o.d": "/s/kernel.o.d"})
    assert swapped == ["nvcc", "-MF", "/s/kernel.o.d", "-o", "/s/kernel.o", "-c", "/k.cu", "--out=/s/kernel.o"]


LEAK = """
extern "C" const char leaked_start[], leaked_end[];
asm(".section .rodata\\nleaked_start:\\n.incbin \\"@OBJECT@\\"\\nleaked_end:\\n.previous\\n");
"""


@pytest.mark.needs_solutions
@pytest.mark.slow
def test_a_submission_sees_nothing_of_the_one_graded_before_it_in_the_same_build_folder(
    config, device, built_tree, tmp_path
):
    """Alice's Lab 2 test program is in the build folder once she is graded; Bob's Lab 1 kernel.cu, graded next in
    the same folder (as a batch worker does), embeds it by its path. It must find nothing there."""
    build_dir = built_tree.directory
    work = tmp_path / "work"  # one grade after the other in it, as a batch worker grades its students
    alice_program = student_steps.program_path(work / "steps", "02_dot_product", "test", emulated=False)
    leak = LEAK.replace("@OBJECT@", str(alice_program))
    submissions = {
        "alice": {
            lab: (REPO_ROOT / "solutions" / lab / "kernel.cu").read_text()
            for lab in ("01_vector_add", "02_dot_product")
        },
        "bob": {"01_vector_add": (REPO_ROOT / "solutions" / "01_vector_add" / "kernel.cu").read_text() + leak},
    }
    labs = {}
    for student, kernels in submissions.items():
        for lab, text in kernels.items():
            (tmp_path / student / lab).mkdir(parents=True)
            (tmp_path / student / lab / "kernel.cu").write_text(text)
        request = GradeRequest(
            labs=list(kernels), submission=tmp_path / student, build_dir=build_dir, mechanisms=False, bench=False,
            jobs=1, work_dir=work,
        )  # fmt: skip
        session = start(request)
        session.build()
        labs[student] = report.run_dict(session.grade(), session.facts())["labs"][0]
        if student == "alice":
            assert alice_program.is_file(), "alice's program should be there once she is graded"
    build = next(check for check in labs["bob"]["checks"] if check["name"] == "build")
    assert build["status"] == "failed", "bob's .incbin should find no file of alice's"


@pytest.mark.needs_solutions
@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_every_solution_object_holds_only_sections_a_kernel_may(lab, config, emulator):
    """The section allow-list passes what nvcc and the emulator's clang emit for a correct kernel.cu: each
    solution's object, for the GPU and for the CPU emulator (whose __constant__ variables have a section of
    their own)."""
    for emulated in (False, True):
        assert build.build_variant(emulator, lab, "solution", config.timeouts["build"], emulated=emulated).ok
    native = next((emulator.directory / f"lib{lab}_solution_kernel.a.p").glob("*.o"))
    for obj in (native, emulator.directory / f"{lab}_solution_emu.o"):
        assert sections.problems(obj) == [], obj.name


def compile_cache() -> Path | None:
    """Where this machine's ccache keeps the grader's own compiles; None without ccache."""
    if shutil.which("ccache") is None:
        return None
    said = run(["ccache", "--get-config", "cache_dir"])
    return Path(said.stdout.strip()) if said.returncode == 0 and said.stdout.strip() else None


@pytest.mark.skipif(compile_cache() is None, reason="no ccache here: the grader's own compiles are not cached")
def test_a_student_s_compile_never_goes_through_the_compile_cache(emulator, tmp_path):
    """The build folder's own compile of a kernel.cu goes through ccache (Meson puts it in front of nvcc); the
    student's compile, made from that same command, does not, and nor does the emulator's of it."""
    lab = "01_vector_add"
    template = emulator.kernel_compile(lab, "student")
    if Path(template.command[0]).name != "ccache":
        pytest.skip(f"{emulator.directory} was set up before ccache was installed: Meson put nothing in front of nvcc")
    work = student_work(REPO_ROOT / "labs", tmp_path)
    nvcc = work.steps(emulator, lab).nvcc_compile()
    emulated = work.steps(emulator, lab, emulated=True).emulator_compile()
    assert all("ccache" not in part for command in [nvcc, *emulated] for part in command)


@needs_sandbox
@pytest.mark.skipif(compile_cache() is None, reason="no ccache here: the grader's own compiles are not cached")
def test_an_attack_run_inside_a_student_s_step_cannot_poison_the_compile_cache(emulator, tmp_path):
    """Code that a submission gets to run inside one of its steps (a compiler's bug, a plugin that got past the
    checks) tries to plant an entry in the cache every grade's harness is compiled through: the step sees no
    such folder, and writes nothing there."""
    cache = compile_cache()
    assert cache is not None
    cache.mkdir(parents=True, exist_ok=True)
    planted = [cache / "0" / "0" / "cml-poisoned", cache / "cml-poisoned"]
    steps = student_work(REPO_ROOT / "labs", tmp_path).steps(emulator, "01_vector_add")
    out = steps.new_step_folder("compile")
    script = "; ".join(f"mkdir -p {path.parent}; echo poison > {path}" for path in planted)
    ran = steps.run_step(["sh", "-c", f"{script}; ls {cache}"], out, steps.compile_reads(), 60)
    assert not any(path.exists() for path in planted), ran.stderr
    # The step cannot reach the cache: it sees no such folder, or cannot write it, or (a cache under /tmp) writes
    # into the empty /tmp of its own sandbox, which the host never sees.
    apart = cache.resolve().is_relative_to("/tmp")
    assert apart or "No such file or directory" in ran.stderr or "Read-only file system" in ran.stderr, ran.stderr
