"""The C++ harness's own tests (common/cml/tests), which need no GPU: what a failed comparison tells the student."""

from __future__ import annotations

from grader.execution import proc
from grader.steps import build


def test_the_harness_passes_its_own_tests(built_tree, config):
    compiled = build.compile_targets(built_tree, ["cml_harness_selftest"], config.timeouts["build"])
    assert compiled.ok, build.compiler_errors(compiled)
    run = proc.run([str(built_tree.directory / "cml_harness_selftest")], config.timeouts["tests"])
    assert run.ok and "Status: SUCCESS!" in run.stdout, run.tail(30)
