"""The command line: help that teaches, and an honest grade on a machine without a GPU."""

import json
import subprocess
import sys

import pytest

from grader import build
from grader.cli import EXIT_INCOMPLETE, main, parse_args
from grader.config import REPO_ROOT, load_target
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


def test_an_unreadable_submission_is_a_zero_with_the_reason_on_every_platform(tmp_path):
    corrupt = tmp_path / "alice.zip"
    corrupt.write_bytes(b"PK\x03\x04 not really a zip")
    results, gradescope = tmp_path / "grade.json", tmp_path / "results.json"
    command = [sys.executable, "-m", "grader", "grade", "--submission", str(corrupt), "--lab", "1",
               "--json", str(results), "--gradescope", str(gradescope), "--junit", str(tmp_path / "junit.xml")]
    finished = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True)
    assert finished.returncode == 3, finished.stdout + finished.stderr
    assert "not a folder, a tarball or a zip file" in finished.stdout
    shown = json.loads(gradescope.read_text())
    assert shown["score"] == 0 and shown["extra_data"]["max_score"] == 100
    assert "cannot grade this submission" in shown["output"]
    assert (tmp_path / "junit.xml").is_file() and json.loads(results.read_text())["labs"] == []


def test_reports_name_a_target_file_of_the_repository_relative_to_it(tmp_path):
    shipped = REPO_ROOT / "grader" / "targets" / "h100.toml"
    assert load_target(shipped).shown_path() == "grader/targets/h100.toml"
    own = tmp_path / "my-gpu.toml"
    own.write_text(shipped.read_text())
    assert load_target(own).shown_path() == str(own)  # an instructor's own file: where it is
