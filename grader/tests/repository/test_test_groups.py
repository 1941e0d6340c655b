"""pytest-xdist keeps the tests of one group (xdist_group) in one process under --dist loadgroup, as ./cml test and
CI run them: a module's costly set-up (a class graded in batch, a build) is made once, not once per process. A
pytest that pytest-xdist cannot mark the groups of deals them out like any other test, and nothing else says so."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_the_tests_of_one_group_run_in_one_process_and_share_its_set_up(tmp_path):
    (tmp_path / "test_grouped.py").write_text(
        textwrap.dedent(
            """
            import os
            import pytest

            pytestmark = pytest.mark.xdist_group("one set-up")


            @pytest.fixture(scope="module")
            def set_up():
                with open("set-ups.txt", "a") as made:
                    made.write(f"{os.getpid()}\\n")


            @pytest.mark.parametrize("i", range(8))
            def test_grouped(set_up, i):
                pass
            """
        )
    )
    (tmp_path / "test_other.py").write_text(
        "import pytest\n\n\n@pytest.mark.parametrize('i', range(8))\ndef test_other(i):\n    pass\n"
    )
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "16 passed" in ran.stdout, ran.stdout
    set_ups = (tmp_path / "set-ups.txt").read_text().split()
    assert len(set_ups) == 1, f"the group's set-up was made {len(set_ups)} times, in processes {set_ups}"
