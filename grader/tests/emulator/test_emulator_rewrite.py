"""rewrite.py, the CPU emulator's rewriter of a kernel.cu: a launch through any kernel expression nvcc takes
before <<<...>>> becomes the emulator's launch of that expression, and what it cannot read it says so in the
words of the emulator's limits (the grader tells those from a kernel's own mistakes). On strings, no compiler."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from grader.core.config import REPO_ROOT


def load_rewrite():
    path = REPO_ROOT / "common" / "emu" / "rewrite.py"
    spec = importlib.util.spec_from_file_location("emu_rewrite", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


rewrite = load_rewrite()


@pytest.mark.parametrize(
    ("before", "kernel"),
    [
        ("k", "k"),
        ("ns::k<float, 4>", "ns::k<float, 4>"),
        ("k<A<int>>", "k<A<int>>"),
        ("kernels[which]", "kernels[which]"),
        ("s.kernel", "s.kernel"),
        ("p->more[1]", "p->more[1]"),
        ("(*pointer)", "(*pointer)"),
        ("pick(n)", "pick(n)"),
        ("ns :: table [ 2 ] . fn", "ns :: table [ 2 ] . fn"),
    ],
)
def test_a_launch_through_any_kernel_expression_launches_that_expression(before, kernel):
    text = rewrite.rewrite(f"void f() {{ {before}<<<grid, block>>>(x, y); }}")
    assert text == f"void f() {{ ::cml_emu::launch(::cml_emu::config(grid, block), {kernel}, x, y); }}"


@pytest.mark.parametrize("statement", ["if (ready)", "while (more)", "else", "return"])
def test_a_keyword_before_the_kernel_expression_stays_out_of_it(statement):
    text = rewrite.rewrite(f"void f() {{ {statement} (*pointer)<<<1, 32>>>(x); }}")
    assert f"{statement} ::cml_emu::launch(::cml_emu::config(1, 32), (*pointer), x);" in text


def test_what_the_rewriter_cannot_read_is_said_as_a_limit_of_the_emulator(tmp_path, capsys):
    source = tmp_path / "kernel.cu"
    source.write_text("void f() { k<<<1, 1>>>; }\n")  # no argument list: nothing rewrite.py can read
    assert rewrite.main(["rewrite.py", str(source), str(tmp_path / "kernel.cpp")]) == 1
    assert "cml_emu limit: rewrite.py cannot read this file" in capsys.readouterr().err


def test_shared_memory_at_namespace_scope_fails_the_build_as_a_limit_of_the_emulator():
    text = rewrite.rewrite("__shared__ float tile[32];\n__global__ void k() {}\n")
    assert text.startswith('static_assert(false, "cml_emu limit: __shared__ at namespace scope (line 1)')
    assert "a limit of the grader's CPU emulator" in text
