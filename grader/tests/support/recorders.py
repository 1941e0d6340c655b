"""What the tests of both recorders the grader injects into a program check alike: the host-side self-test of
their plain C++ parts, and the library's two entry points, CUDA's and NVTX's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.core.config import Config
from grader.execution import proc
from grader.steps import build


def passes_its_own_tests(tree: build.BuildTree, config: Config, target: str) -> None:
    compiled = build.compile_targets(tree, [target], config.timeouts["build"])
    assert compiled.ok, build.compiler_errors(compiled, source=None)
    run = proc.run([str(tree.directory / target)], config.timeouts["tests"])
    assert run.ok and "Status: SUCCESS!" in run.stdout, run.tail(30)


def offers_both_injection_entries(tree: build.BuildTree, config: Config, target: str, library: Path) -> None:
    """The recorder `target` builds where CUPTI is, and exports CUDA's and NVTX's injection entry points."""
    if not tree.has_target(target):
        pytest.skip(f"this CUDA toolkit has no CUPTI, so the build has no {target}")
    compiled = build.compile_targets(tree, [target], config.timeouts["build"])
    assert compiled.ok, build.compiler_errors(compiled, source=None)
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm (binutils) is not installed")
    exported = proc.run([nm, "-D", "--defined-only", str(library)], 60).stdout.split()
    assert "InitializeInjection" in exported and "InitializeInjectionNvtx2" in exported
