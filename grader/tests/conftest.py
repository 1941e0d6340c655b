"""Shared fixtures: one build of every lab for the whole session, whether a GPU is here, and whether that
build has the CPU emulator's targets."""

from __future__ import annotations

import glob
import os
import shutil

import pytest

from grader import build, gpu
from grader.config import REPO_ROOT, load_config

TEST_BUILD_DIR = REPO_ROOT / "build-tests"


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", help="also run the slow end-to-end tests (marked slow)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with ./cml test --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


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
    """Every lab, student and solution, built once (native arch on a GPU machine, sm_90 elsewhere)."""
    tree = build.BuildTree(TEST_BUILD_DIR, REPO_ROOT / "labs", "native" if device.present else "sm_90")
    outcome = build.configure(tree, config.timeouts["build"])
    assert outcome.ok, outcome.tail(30)
    return tree


@pytest.fixture(scope="session")
def emulator(built_tree) -> build.BuildTree:
    """The test build, with the emulator's targets; skipped, with the reason, where they cannot be built."""
    if built_tree.has_emulator():
        return built_tree
    if os.environ.get("CML_EMU_UNAVAILABLE"):
        pytest.skip(f"the CPU emulator cannot be built here: {os.environ['CML_EMU_UNAVAILABLE']}")
    if not shutil.which("clang++") or not glob.glob("/usr/lib/*/libboost_context.so"):
        pytest.skip(f"{build.EMULATOR_MISSING}; ./cml test installs them")
    pytest.fail("clang++ and Boost.Context are installed, yet Meson configured no emulator targets: see meson-log.txt")
