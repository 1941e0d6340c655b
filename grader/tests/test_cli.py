"""The command line: help that teaches, and an honest grade on a machine without a GPU."""

import json
import subprocess
import sys

import pytest

from grader.cli import parse_args
from grader.config import REPO_ROOT
from grader.grade import INTEGRITY


def test_help_explains_the_workflow(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    text = capsys.readouterr().out
    assert "./cml grade --lab 1" in text and "calibrate" in text and "not run" in text


def test_grading_without_a_gpu_builds_and_passes_nothing_it_did_not_run(device, tmp_path):
    if device.present:
        pytest.skip("this machine has a GPU")
    results = tmp_path / "grade.json"
    command = [sys.executable, "-m", "grader", "grade", "--lab", "1", "--build-dir", str(REPO_ROOT / "build-tests"),
               "--json", str(results)]
    finished = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True)
    assert finished.returncode == 4, finished.stdout + finished.stderr
    assert "GPU checks were not run" in finished.stdout
    (lab,) = json.loads(results.read_text())["labs"]
    statuses = {c["name"]: c["status"] for c in lab["checks"]}
    assert statuses.pop("build") == "passed"
    assert statuses.pop(INTEGRITY) == "passed"  # a check of the source and the object: no GPU needed
    assert set(statuses.values()) == {"not run"}
    assert lab["verdict"] == "incomplete" and lab["points"] == 0
