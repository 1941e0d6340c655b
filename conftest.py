"""Fixtures shared by the grader's tests (grader/tests) and the slides' (slides/tests): the browser that the
browser tests drive. It is installed the first time one of those tests runs, never by ./cml grade, by
./cml test before it starts, or by a run of tests that opens no page."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent


def find_chromium() -> str | None:
    """The chromium to drive: CML_CHROMIUM where set, else Debian's on PATH."""
    return os.environ.get("CML_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def install_chromium() -> subprocess.CompletedProcess:
    """Debian's chromium through tools/bootstrap.sh (apt, without recommends), as ./cml installs everything."""
    script = "source tools/bootstrap.sh && ensure_chromium"
    environment = {**os.environ, "CML_ROOT": str(ROOT)}
    return subprocess.run(["bash", "-c", script], cwd=ROOT, env=environment, capture_output=True, text=True)


@pytest.fixture(scope="session")
def chromium() -> str:
    """The browser's executable. CML_SKIP_BROWSER=1 skips every test that asks for it; where apt cannot install
    it, an offline machine (PIP_NO_INDEX set) skips them with the reason, and anywhere else they fail."""
    if os.environ.get("CML_SKIP_BROWSER") == "1":
        pytest.skip("CML_SKIP_BROWSER=1: nothing is opened in a browser")
    found = find_chromium()
    if found:
        return found
    installed = install_chromium()
    found = find_chromium()
    if found:
        return found
    why = f"apt could not install Debian's chromium ({installed.stderr.strip()[-400:]})"
    if os.environ.get("PIP_NO_INDEX"):
        pytest.skip(f"offline machine: {why}")
    pytest.fail(f"{why}; CML_SKIP_BROWSER=1 skips the browser tests", pytrace=False)
