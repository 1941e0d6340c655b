"""The command line: help that teaches, and an honest grade on a machine without a GPU."""

import json

import pytest

from grader import build
from grader.cli import EXIT_INCOMPLETE, main, parse_args
from grader.config import REPO_ROOT
from grader.grade import INTEGRITY


def test_help_explains_the_workflow(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    text = capsys.readouterr().out
    assert "./cml grade --lab 1" in text and "calibrate" in text and "not run" in text


def test_grading_without_a_gpu_or_the_emulator_builds_and_passes_nothing_it_did_not_run(device, tmp_path, monkeypatch,
                                                                                        capsys):
    if device.present:
        pytest.skip("this machine has a GPU")
    monkeypatch.setattr(build.BuildTree, "has_emulator", lambda tree: False)  # test_emulator.py grades with it
    results = tmp_path / "grade.json"
    status = main(["grade", "--lab", "1", "--build-dir", str(REPO_ROOT / "build-tests"), "--json", str(results)])
    printed = capsys.readouterr().out
    assert status == EXIT_INCOMPLETE, printed
    assert "GPU checks were not run" in printed and "the CPU emulator is not built here" in printed
    (lab,) = json.loads(results.read_text())["labs"]
    statuses = {c["name"]: c["status"] for c in lab["checks"]}
    assert statuses.pop("build") == "passed"
    assert statuses.pop(INTEGRITY) == "passed"  # a check of the source and the object: no GPU needed
    assert set(statuses.values()) == {"not run"}
    assert lab["verdict"] == "incomplete" and lab["points"] == 0
