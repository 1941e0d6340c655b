"""The command line: help that teaches, and an honest grade on a machine without a GPU."""

import json
import subprocess
import sys

import pytest

from grader import cli
from grader.cli import main, parse_args
from grader.core.config import REPO_ROOT, load_target
from grader.core.exits import Exit, UsageError
from grader.execution import gpu
from grader.grading.judge import INTEGRITY
from grader.grading.session import choose_arch
from grader.steps import build


def test_help_explains_the_workflow(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    text = capsys.readouterr().out
    assert "./cml grade --lab 1" in text and "calibrate" in text and "not run" in text


def test_grading_without_a_gpu_or_the_emulator_builds_and_passes_nothing_it_did_not_run(
    device, tmp_path, monkeypatch, capsys
):
    if device.present:
        pytest.skip("this machine has a GPU")
    monkeypatch.setattr(build.BuildTree, "has_emulator", lambda tree: False)  # test_emulator.py grades with it
    results = tmp_path / "grade.json"
    status = main(["grade", "--lab", "1", "--build-dir", str(REPO_ROOT / "build-tests"), "--json", str(results)])
    printed = capsys.readouterr().out
    assert status == Exit.INCOMPLETE, printed
    assert max(len(line) for line in printed.splitlines()) <= 100  # a log's width, as a person reads it
    said = " ".join(printed.split())
    assert "GPU checks were not run" in said and "the CPU emulator is not built here" in said
    (lab,) = json.loads(results.read_text())["labs"]
    statuses = {c["name"]: c["status"] for c in lab["checks"]}
    assert statuses.pop("build") == "passed"
    assert statuses.pop(INTEGRITY) == "passed"  # a check of the source and the object: no GPU needed
    assert set(statuses.values()) == {"not run"}
    assert lab["verdict"] == "incomplete" and lab["points"] == 0
    assert lab["steps"]["building"] > 0 and lab["seconds"] >= sum(lab["steps"].values()) - 0.1  # where the time went


def test_an_unreadable_submission_is_a_zero_with_the_reason_on_every_platform(tmp_path):
    corrupt = tmp_path / "alice.zip"
    corrupt.write_bytes(b"PK\x03\x04 not really a zip")
    results, gradescope = tmp_path / "grade.json", tmp_path / "results.json"
    command = [
        sys.executable,
        "-m",
        "grader",
        "grade",
        "--submission",
        str(corrupt),
        "--lab",
        "1",
        "--json",
        str(results),
        "--gradescope",
        str(gradescope),
        "--junit",
        str(tmp_path / "junit.xml"),
    ]
    finished = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True)
    assert finished.returncode == Exit.NOT_GRADABLE, finished.stdout + finished.stderr
    assert "not a folder, a tarball or a zip file" in " ".join(finished.stdout.split())
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


def run_cml(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=REPO_ROOT, capture_output=True, text=True)


def test_an_unknown_lab_is_one_line_and_the_usage_status():
    finished = run_cml("grade", "--lab", "42")
    assert finished.returncode == Exit.USAGE
    said = finished.stderr.strip().splitlines()
    assert len(said) == 1 and "no lab '42'" in said[0] and "01_vector_add" in said[0], finished.stderr
    assert "Traceback" not in finished.stdout + finished.stderr


def test_a_missing_thresholds_file_is_a_usage_error(tmp_path):
    finished = run_cml("grade", "--lab", "1", "--target", str(tmp_path / "missing.toml"))
    assert finished.returncode == Exit.USAGE, finished.stdout + finished.stderr
    assert "missing.toml" in finished.stderr and "Traceback" not in finished.stderr


def test_a_grader_crash_is_its_own_status_with_one_line_and_a_log(monkeypatch, capsys, tmp_path):
    def broken(request):
        raise RuntimeError("the grader tripped over itself\nsecond line")

    monkeypatch.setattr(cli, "start", broken)
    monkeypatch.setattr(cli, "ERROR_LOGS", tmp_path)
    assert main(["grade", "--lab", "1"]) == Exit.INTERNAL
    said = capsys.readouterr().err.strip()
    assert said.startswith("grader error: the grader tripped over itself") and "second line" not in said
    (log,) = tmp_path.glob("grader-error-*.log")
    assert str(log) in said.replace("\n", "") and "RuntimeError" in log.read_text()


def test_calibrate_without_a_gpu_is_a_usage_error(device):
    if device.present:
        pytest.skip("this machine has a GPU")
    finished = run_cml("calibrate")
    assert finished.returncode == Exit.USAGE and "calibrate needs a GPU" in finished.stderr


def test_calibrate_rewrite_needs_no_gpu_and_names_a_bad_measurements_file(tmp_path):
    written = tmp_path / "h200.toml"
    measurements = REPO_ROOT / "results" / "calibration" / "h200-measurements.json"
    finished = run_cml("calibrate", "--rewrite", "--measurements", str(measurements), "--output", str(written))
    assert finished.returncode == Exit.PASSED and "min_speedup" in written.read_text()
    (tmp_path / "bad.json").write_text("{}")
    finished = run_cml("calibrate", "--rewrite", "--measurements", str(tmp_path / "bad.json"))
    assert finished.returncode == Exit.USAGE and "not a measurements file" in finished.stderr


def test_the_statuses_are_distinct_and_documented():
    assert len({int(status) for status in Exit}) == len(Exit)
    for status in Exit:  # each in the help of the command that returns it (BUSY is batch's alone)
        assert f"{int(status)} " in (Exit.describe_batch() if status is Exit.BUSY else Exit.describe())


def test_the_top_level_help_lists_what_the_cml_script_runs_itself(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    text = capsys.readouterr().out
    for command in ("./cml test", "./cml slides", "./cml lint"):
        assert command in text
        assert command.split()[1] in (REPO_ROOT / "cml").read_text()  # the script does handle it


def test_batch_help_gives_batch_s_own_statuses(capsys):
    with pytest.raises(SystemExit):
        parse_args(["batch", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "0 every submission was graded, whatever its verdicts" in text
    assert "1 a lab failed" not in text  # grade's, which batch never returns


def test_the_build_names_the_gpus_own_architecture_never_native():
    # A student's kernel.cu compiles in the sandbox, where nvcc sees no GPU: "native" there quietly builds sm_75.
    h200 = gpu.Gpu(True, name="NVIDIA H200", compute_capability="9.0")
    assert choose_arch("auto", h200) == "sm_90"
    assert choose_arch("native", h200) == "sm_90"
    assert choose_arch("auto", gpu.Gpu(True, name="RTX 4090", compute_capability="8.9")) == "sm_89"
    assert choose_arch("sm_80", h200) == "sm_80"
    no_gpu = gpu.Gpu(False, reason="nvidia-smi not found")
    assert choose_arch("auto", no_gpu) == "sm_90"
    with pytest.raises(UsageError, match="native needs a GPU"):
        choose_arch("native", no_gpu)
