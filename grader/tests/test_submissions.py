"""Reading a submission: only each lab's kernel.cu, from a folder, a tarball or a zip; links, duplicates and
everything else are listed as ignored; an unreadable file is an error for that student alone."""

from __future__ import annotations

import os

import pytest

from grader.submission import SubmissionError, read_submission
from grader.tests import class_submissions as generated

LABS = ["01_vector_add", "06_warp_reduction"]


@pytest.fixture(scope="module")
def submissions(tmp_path_factory):
    return generated.make(tmp_path_factory.mktemp("class"))


def test_a_folder_gives_its_kernel_and_nothing_else(submissions):
    sub = read_submission(submissions / "leo_edits_tests_and_thresholds", LABS)
    assert sub.used == {"01_vector_add": "01_vector_add/kernel.cu"}
    assert sorted(sub.ignored) == ["grader/targets/h100.toml", "tests/01_vector_add/test.cpp"]


def test_a_tarball_and_a_zip_are_read_without_unpacking(submissions):
    tarball = read_submission(submissions / "bob_correct_tarball.tar.gz", LABS)
    assert tarball.used == {"01_vector_add": "bob/labs/01_vector_add/kernel.cu"}
    zipped = read_submission(submissions / "carol_two_labs_zip.zip", LABS)
    assert set(zipped.kernels) == set(LABS)


def test_the_shallowest_of_two_kernels_is_used_and_the_other_named(submissions):
    sub = read_submission(submissions / "sam_two_copies", LABS)
    assert sub.used["01_vector_add"] == "01_vector_add/kernel.cu"
    assert any("a second kernel.cu" in line for line in sub.ignored)


def test_a_link_is_never_followed(submissions):
    sub = read_submission(submissions / "wendy_symlink_to_solution", LABS)
    assert sub.kernels == {}
    assert any("a link" in line for line in sub.ignored)


def test_a_corrupt_archive_is_an_error_for_that_submission(submissions):
    with pytest.raises(SubmissionError, match="not a folder, a tarball or a zip"):
        read_submission(submissions / "xavier_corrupt_zip.zip", LABS)


def test_a_path_that_climbs_out_of_a_tarball_is_only_a_name(tmp_path):
    import io
    import tarfile

    archive = tmp_path / "evil.tar"
    with tarfile.open(archive, "w") as tar:
        data = b"// kernel"
        info = tarfile.TarInfo("../../etc/01_vector_add/kernel.cu")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    sub = read_submission(archive, LABS)
    assert sub.kernels == {"01_vector_add": b"// kernel"}  # read into memory; nothing written anywhere
    assert not (tmp_path.parent / "etc").exists() and not os.path.exists("/etc/01_vector_add")
