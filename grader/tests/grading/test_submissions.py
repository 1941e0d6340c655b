"""Reading a submission: only each lab's kernel.cu, from a folder, a tarball or a zip; links, duplicates and
everything else are listed as ignored; an unreadable file is an error for that student alone."""

from __future__ import annotations

import os

import pytest

from grader.core.config import REPO_ROOT
from grader.grading.submission import (
    SubmissionError,
    defines_none_of,
    interface_functions,
    lab_by_content,
    read_submission,
)
from grader.platforms.edition import NO_SOLUTIONS, has_solutions

if not has_solutions():  # read as the module is imported, which no marker can skip
    pytest.skip(NO_SOLUTIONS, allow_module_level=True)

from grader.tests.support import classes as generated

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


def tarball(path, names, size: int = 0):
    import io
    import tarfile

    with tarfile.open(path, "w:gz") as tar:
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = size
            tar.addfile(info, io.BytesIO(b"\0" * size))
    return path


def test_a_tarball_of_too_many_entries_is_refused_before_it_is_listed_whole(tmp_path, monkeypatch):
    import tarfile

    from grader.grading import submission

    path = tarball(tmp_path / "many.tar.gz", [f"f{i}" for i in range(submission.MAX_ENTRIES + 1)])
    with pytest.raises(SubmissionError, match="more than 10,000 files and folders: refused unread"):
        read_submission(path, LABS)
    # Walked a header at a time and stopped at the limit: past it, nothing more is read.
    read: list[int] = []
    original = tarfile.TarInfo.frombuf

    def counted(cls, *args):
        read.append(1)
        return original(*args)

    monkeypatch.setattr(tarfile.TarInfo, "frombuf", classmethod(counted))
    monkeypatch.setattr(submission, "MAX_ENTRIES", 50)
    with pytest.raises(SubmissionError, match="more than 50 files"):
        read_submission(path, LABS)
    assert 50 <= len(read) < 60  # of 10,001 (telling a tarball from other files reads the first one too)


def test_a_submission_too_large_unpacked_is_refused(tmp_path, monkeypatch):
    from grader.grading import submission

    monkeypatch.setattr(submission, "MAX_TOTAL_BYTES", 1 << 20)
    path = tarball(tmp_path / "big.tar.gz", ["a", "b", "01_vector_add/kernel.cu"], size=600 << 10)
    with pytest.raises(SubmissionError, match="more than 1 MiB in all, unpacked"):
        read_submission(path, LABS)


def test_a_zip_with_too_long_a_list_of_files_is_refused_before_zipfile_reads_it(tmp_path, monkeypatch):
    import zipfile

    from grader.grading import submission

    path = tmp_path / "many.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(300):
            archive.writestr(f"f{i}", "")
        archive.writestr("01_vector_add/kernel.cu", "// kernel")
    assert read_submission(path, LABS).kernels == {"01_vector_add": b"// kernel"}
    monkeypatch.setattr(submission, "MAX_ENTRIES", 100)  # counted after zipfile read the list
    with pytest.raises(SubmissionError, match="more than 100 files"):
        read_submission(path, LABS)
    monkeypatch.setattr(submission, "MAX_ZIP_DIRECTORY_BYTES", 1024)
    monkeypatch.setattr(zipfile.ZipFile, "__init__", lambda *a, **k: pytest.fail("zipfile read the list"))
    with pytest.raises(SubmissionError, match="its list of files is over 1 KiB"):
        read_submission(path, LABS)


def test_the_zip_directory_size_is_read_from_the_end_record_and_the_zip64_one(tmp_path, monkeypatch):
    import struct
    import zipfile

    from grader.grading.submission import ZIP_END, zip_directory_bytes

    path = tmp_path / "sub.zip"
    monkeypatch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 1)  # zipfile writes zip64 end records past this many
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(3):
            archive.writestr(f"01_vector_add/f{i}", "x")
    data = bytearray(path.read_bytes())
    end = data.rfind(ZIP_END)
    (directory,) = struct.unpack_from("<I", data, end + 12)
    assert zip_directory_bytes(path) == directory > 0
    struct.pack_into("<I", data, end + 12, 0xFFFFFFFF)  # as a tool writes it when only the zip64 record has it
    path.write_bytes(bytes(data))
    assert zip_directory_bytes(path) == directory


def test_a_folder_of_too_many_files_is_refused(tmp_path, monkeypatch):
    from grader.grading import submission

    monkeypatch.setattr(submission, "MAX_ENTRIES", 20)
    for i in range(30):
        (tmp_path / "sub" / f"d{i}").mkdir(parents=True)
    with pytest.raises(SubmissionError, match="more than 20 files and folders"):
        read_submission(tmp_path / "sub", LABS)


# A kernel.cu outside its lab's folder (Gradescope's upload of the file alone, or lab1/kernel.cu) goes to the lab
# whose interface it includes and defines, or is refused with the layout: never the skeleton graded in its place.
ALL_LABS = sorted(p.name for p in (REPO_ROOT / "labs").iterdir() if p.is_dir())


def kernel_of(lab: str, tree: str = "solutions") -> bytes:
    return (REPO_ROOT / tree / lab / "kernel.cu").read_bytes()


@pytest.mark.parametrize("tree", ["labs", "solutions"])
def test_every_labs_skeleton_and_solution_is_told_apart_by_what_it_defines(tree):
    for lab in ALL_LABS:
        assert lab_by_content(kernel_of(lab, tree), ALL_LABS) == lab


def test_a_lone_kernel_at_the_top_is_graded_as_its_lab(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "kernel.cu").write_bytes(kernel_of("06_warp_reduction"))
    sub = read_submission(tmp_path / "sub", ALL_LABS)
    assert sub.kernels == {"06_warp_reduction": kernel_of("06_warp_reduction")}
    assert sub.used["06_warp_reduction"].startswith("kernel.cu (outside a lab folder")


def test_kernels_in_folders_of_other_names_are_each_given_to_their_lab(tmp_path):
    import zipfile

    path = tmp_path / "sub.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("lab1/kernel.cu", kernel_of("01_vector_add"))
        archive.writestr("my work/lab 6/kernel.cu", kernel_of("06_warp_reduction"))
    sub = read_submission(path, ALL_LABS)
    assert set(sub.kernels) == {"01_vector_add", "06_warp_reduction"}
    assert sub.kernels["01_vector_add"] == kernel_of("01_vector_add")


def test_a_kernel_in_its_lab_folder_wins_over_a_shallower_one_outside(tmp_path):
    (tmp_path / "sub" / "deep" / "01_vector_add").mkdir(parents=True)
    (tmp_path / "sub" / "deep" / "01_vector_add" / "kernel.cu").write_bytes(kernel_of("01_vector_add"))
    (tmp_path / "sub" / "kernel.cu").write_bytes(kernel_of("01_vector_add", "labs"))
    sub = read_submission(tmp_path / "sub", ALL_LABS)
    assert sub.used == {"01_vector_add": "deep/01_vector_add/kernel.cu"}
    assert sub.kernels["01_vector_add"] == kernel_of("01_vector_add")
    assert any(line.startswith("kernel.cu (outside a lab folder") for line in sub.ignored)


def test_a_lone_kernel_of_no_lab_is_refused_with_the_layout_to_use(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "kernel.cu").write_text("__global__ void mine(float* x) {}\n")
    with pytest.raises(SubmissionError, match="01_vector_add/kernel.cu"):
        read_submission(tmp_path / "sub", ALL_LABS)
    (tmp_path / "sub" / "02_dot_product").mkdir()
    (tmp_path / "sub" / "02_dot_product" / "kernel.cu").write_bytes(kernel_of("02_dot_product"))
    sub = read_submission(tmp_path / "sub", ALL_LABS)  # graded for the lab it has; the stray one named
    assert set(sub.kernels) == {"02_dot_product"}
    assert any(line.startswith("kernel.cu (outside a lab folder and matching no lab") for line in sub.ignored)


def test_a_kernel_that_matches_two_labs_as_well_is_refused(tmp_path):
    (tmp_path / "sub").mkdir()
    both = b'#include "vector_add.hpp"\n#include "dot_product.hpp"\n'
    assert lab_by_content(both, ALL_LABS) is None
    (tmp_path / "sub" / "kernel.cu").write_bytes(both)
    with pytest.raises(SubmissionError, match="cannot be told which lab"):
        read_submission(tmp_path / "sub", ALL_LABS)


def test_a_kernel_cu_that_names_none_of_its_labs_functions_defines_nothing():
    functions = interface_functions("01_vector_add")
    assert functions == ["vector_add", "vector_add_float4"]
    assert defines_none_of(b"", functions)
    assert defines_none_of(
        b'#include "vector_add.hpp"\n// vector_add(a, b) comes later\n/* vector_add( */\n', functions
    )
    assert not defines_none_of(b"void vector_add(const float* a, const float* b, float* c, int n) {}\n", functions)
    for lab in ("01_vector_add", "07_constant_memory"):  # the skeletons and solutions define their functions
        for folder in ("labs", "solutions"):
            assert not defines_none_of((REPO_ROOT / folder / lab / "kernel.cu").read_bytes(), interface_functions(lab))
