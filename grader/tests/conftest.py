"""Shared fixtures: one build of every lab for the whole session, whether a GPU is here, and whether that
build has the CPU emulator's targets; and the skips of what needs the reference solutions, where this edition
has none."""

from __future__ import annotations

import glob
import os
import shutil

import pytest

from grader.core.config import REPO_ROOT, load_config
from grader.execution import gpu
from grader.grading.session import choose_arch
from grader.platforms.edition import NO_SOLUTIONS, has_solutions
from grader.steps import build

# The tests' build folder: tools/gpu-check.sh gives each of the processes it runs at once one of its own.
TEST_BUILD_DIR = REPO_ROOT / os.environ.get("CML_TEST_BUILDS", "build-tests")


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", help="also run the slow end-to-end tests (marked slow)")


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_solutions: reads the reference solutions (solutions/), skipped without")


def pytest_collection_modifyitems(config, items):
    slow = None if config.getoption("--slow") else pytest.mark.skip(reason="slow: run with ./cml test --slow")
    # The student edition has no solutions/: what needs them is reported as skipped, with that reason.
    unsolved = None if has_solutions() else pytest.mark.skip(reason=NO_SOLUTIONS)
    for item in items:
        if slow and "slow" in item.keywords:
            item.add_marker(slow)
        if unsolved and "needs_solutions" in item.keywords:
            item.add_marker(unsolved)


@pytest.fixture(scope="session")
def device() -> gpu.Gpu:
    return gpu.detect_gpu()


@pytest.fixture(scope="session")
def needs_gpu(device):
    if not device.present:
        pytest.skip(f"needs a GPU: {device.reason}")


@pytest.fixture(scope="session")
def config():
    return load_config()


@pytest.fixture(scope="session")
def built_tree(config, device) -> build.BuildTree:
    """The build folder every test grades in (for the GPU here, sm_90 without one), set up once and shared by the
    test processes of a run: each lab's harness is built in it once, under its lock, and each grade works in a
    folder of its own."""
    tree = build.BuildTree(TEST_BUILD_DIR, choose_arch("auto", device))
    outcome = build.configure(tree, config.timeouts["build"], reuse=True, emulated=not device.present)
    assert outcome.ok, outcome.tail(30)
    return tree


@pytest.fixture(scope="session")
def whole_grades(pytestconfig) -> bool:
    """Whether the cases each layer's sample names are graded end to end (the slow tier), rather than judged from
    their recorded evidence like every other case."""
    return bool(pytestconfig.getoption("--slow"))


def pytest_terminal_summary(terminalreporter):
    """How each case of the suite was judged: from its recorded evidence (where, and at which commit), or graded
    end to end; and the cases whose evidence was written anew, to be committed."""
    hows: dict[str, int] = {}
    for report in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", []):
        for name, value in getattr(report, "user_properties", []):
            if name == "evidence":
                hows[value] = hows.get(value, 0) + 1
    if hows:
        terminalreporter.section("cases judged")
        for how, count in sorted(hows.items()):
            terminalreporter.write_line(f"{count:4d} {how}")


def skip_where_the_emulator_cannot_be_built() -> None:
    if os.environ.get("CML_EMU_UNAVAILABLE"):
        pytest.skip(f"the CPU emulator cannot be built here: {os.environ['CML_EMU_UNAVAILABLE']}")
    if not shutil.which("clang++") or not glob.glob("/usr/lib/*/libboost_context.so"):
        pytest.skip(f"{build.EMULATOR_MISSING}; ./cml test installs them")


@pytest.fixture(scope="session")
def emulator(built_tree) -> build.BuildTree:
    """The test build, with the emulator's targets; skipped, with the reason, where they cannot be built."""
    if built_tree.has_emulator():
        return built_tree
    skip_where_the_emulator_cannot_be_built()
    pytest.fail("clang++ and Boost.Context are installed, yet Meson configured no emulator targets: see meson-log.txt")


@pytest.fixture(scope="session")
def emulator_arch(device) -> str:
    """The nvcc -arch of a test's own build tree with the emulator's targets, never setting up the session's
    build (so that another pytest process can use that beside it); skipped, with the reason, where they cannot
    be built. The test's own build then fails where they should be and are not."""
    skip_where_the_emulator_cannot_be_built()
    return choose_arch("auto", device)
