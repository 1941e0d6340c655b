"""What ./cml installs, and for which command: a student's ./cml grade installs nothing it does not use, and
the browser comes with the browser tests alone, through apt without recommends. Run with stand-ins for apt,
sudo, Python and the bootstrap's steps: nothing is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from grader.core.config import REPO_ROOT

# The steps of tools/bootstrap.sh that ./cml calls, each replaced by a line in a log.
STEPS = [
    "ensure_env",
    "ensure_python_env",
    "ensure_test_env",
    "ensure_slides_env",
    "ensure_slides_test_env",
    "ensure_emulator_test_env",
    "ensure_emulator_for_grading",
    "ensure_lint_env",
    "ensure_chromium",
]


def stand_in(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/bash\n{body}\n")
    path.chmod(0o755)


def steps_of(tmp_path: Path, *arguments: str) -> list[str]:
    """The bootstrap steps ./cml calls for these arguments, in order (its Python is a stand-in that does nothing)."""
    root = tmp_path / "checkout"
    (root / "tools").mkdir(parents=True)
    shutil.copy(REPO_ROOT / "cml", root / "cml")
    log = tmp_path / "steps.log"
    functions = [f'{step}() {{ echo {step} >>"{log}"; }}' for step in STEPS]
    (root / "tools" / "bootstrap.sh").write_text("\n".join(["die() { exit 1; }", *functions]) + "\n")
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    stand_in(bin_folder, "python", "exit 0")
    environment = {**os.environ, "PATH": f"{bin_folder}:{os.environ['PATH']}"}
    ran = subprocess.run(["bash", str(root / "cml"), *arguments], env=environment, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    return log.read_text().split() if log.exists() else []


def test_grade_installs_what_grading_uses_and_nothing_of_the_tests_slides_or_browser(tmp_path):
    assert steps_of(tmp_path, "grade", "--lab", "1") == ["ensure_env", "ensure_emulator_for_grading"]


def test_the_tests_install_their_runner_and_the_slides_packages_but_no_browser_before_a_browser_test(tmp_path):
    steps = steps_of(tmp_path, "test", "grader/tests/repository/test_bootstrap.py")
    assert steps == ["ensure_env", "ensure_test_env", "ensure_slides_test_env", "ensure_emulator_test_env"]


def test_the_graders_requirements_hold_no_test_runner():
    """./cml grade installs grader/requirements.txt: pytest and jsonschema are the tests' alone."""
    grading = (REPO_ROOT / "grader" / "requirements.txt").read_text()
    testing = (REPO_ROOT / "grader" / "requirements-test.txt").read_text()
    for package in ("pytest", "jsonschema"):
        assert f"\n{package}==" not in grading and f"\n{package}==" in testing


def test_chromium_is_installed_through_apt_without_recommends(tmp_path):
    """ensure_chromium, as the browser tests' fixture calls it, with apt-get and sudo replaced by loggers."""
    bin_folder, log = tmp_path / "bin", tmp_path / "apt.log"
    bin_folder.mkdir()
    stand_in(bin_folder, "apt-get", f'echo "apt-get $*" >>"{log}"')
    stand_in(bin_folder, "sudo", 'exec "$@"')
    for tool in ("env", "id"):  # what the bootstrap runs besides apt; chromium stays out of reach
        (bin_folder / tool).symlink_to(shutil.which(tool) or f"/usr/bin/{tool}")
    script = f"source {REPO_ROOT / 'tools' / 'bootstrap.sh'} && ensure_chromium"
    ran = subprocess.run(
        ["/bin/bash", "-c", script], env={"PATH": str(bin_folder), "CML_ROOT": str(REPO_ROOT)}, capture_output=True
    )
    assert ran.returncode == 0, ran.stderr
    assert log.read_text().splitlines() == ["apt-get install -y -qq --no-install-recommends chromium"]


def test_the_slides_tests_setup_installs_no_browser(tmp_path):
    """./cml test's step for the slides installs their Python packages; chromium waits for a browser test."""
    log = tmp_path / "steps.log"
    script = (
        f"source {REPO_ROOT / 'tools' / 'bootstrap.sh'}; "
        f'ensure_slides_env() {{ echo ensure_slides_env >>"{log}"; }}; '
        f'ensure_chromium() {{ echo ensure_chromium >>"{log}"; }}; '
        "ensure_slides_test_env"
    )
    ran = subprocess.run(["bash", "-c", script], env={**os.environ, "CML_ROOT": str(REPO_ROOT)}, capture_output=True)
    assert ran.returncode == 0, ran.stderr
    assert log.read_text().split() == ["ensure_slides_env"]
