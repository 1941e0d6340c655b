"""A batch reads each student's submission in that student's own turn, in a process of its own under limits of
memory, CPU time and wall time: a submission that cannot be read, or that would take more than the limits to
read, costs that student's grade alone ("unreadable", with the limit it passed), and the rest of the class is
graded. The grader process is the stand-in of batch_support.py; the reading is the real one."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

from grader.cohort import batch, reading
from grader.core.config import REPO_ROOT
from grader.tests.support.batch import class_folder, digest, setup, stand_in

LAB = "01_vector_add"
LONG_NAME_BYTES = 200 << 20  # far past what the test's reading may take (below), a few hundred kB gzipped


def long_name_tarball(path: Path, name_bytes: int) -> None:
    """A .tar.gz whose one member has a GNU long name of `name_bytes` bytes: small on the disk, huge to read.
    Written a MiB at a time, so that making it costs the test no memory."""

    def header(name: bytes, size: int, kind: bytes) -> bytes:
        block = bytearray(512)
        block[0 : len(name)] = name
        block[100:108] = b"0000644\0"
        block[124:136] = f"{size:011o}\0".encode()
        block[136:148] = b"00000000000\0"
        block[156:157] = kind
        block[257:263] = b"ustar "
        block[148:156] = b" " * 8
        block[148:156] = f"{sum(block):06o}\0 ".encode()
        return bytes(block)

    chunk = b"a" * (1 << 20)
    with gzip.open(path, "wb", compresslevel=1) as archive:
        archive.write(header(b"././@LongLink", name_bytes + 1, b"L"))
        for _ in range(name_bytes // len(chunk)):
            archive.write(chunk)
        archive.write(b"a" * (name_bytes % len(chunk)) + b"\0" * (1 + (-(name_bytes + 1)) % 512))  # to a block
        archive.write(header(b"01_vector_add/kernel.cu", 0, b"0"))
        archive.write(b"\0" * 1024)


def test_one_hostile_submission_costs_that_student_alone_and_the_class_is_graded(config, tmp_path, monkeypatch):
    folder = class_folder(tmp_path, ["anna", "erin"], [LAB])
    os.mkfifo(folder / "bob.tar")  # reading it waits for ever for a writer: the wall time limit
    long_name_tarball(folder / "carol.tar.gz", LONG_NAME_BYTES)  # past the reading's cap on a name: not used
    (folder / "dave.zip").write_bytes(b"PK\x03\x04 not a zip at all")  # cannot be read
    work = setup(tmp_path / "out", config, [LAB])
    work.reading_limits = reading.Limits(memory_bytes=256 << 20, cpu_s=20, wall_s=5)
    stand_in(monkeypatch, points=70)
    entries = {path.name.split(".")[0]: path for path in sorted(folder.iterdir())}
    run = batch.run_students(work, entries, [None])
    assert run.failures == {} and run.left == []
    assert set(run.unreadable) == {"bob", "dave"}, run.unreadable
    assert "reading it took longer than 5 s" in run.unreadable["bob"]
    (carol,) = [turn for turn in run.turns if turn.student == "carol"]
    assert carol.graded == []  # her one kernel.cu's name is past the cap on a name: not used, so nothing to grade
    for student in ("anna", "erin"):  # graded, before and after the hostile ones
        (turn,) = [turn for turn in run.turns if turn.student == student]
        assert turn.graded == [LAB]
        record = reading.load_record(work.out, student)
        assert record is not None and record.kernels[LAB] == digest(folder, student, LAB)


def test_the_reading_process_cannot_take_more_memory_than_its_limit():
    script = (
        "from grader.cohort import reading\n"
        "reading.confine(reading.Limits(memory_bytes=128 << 20))\n"
        "try:\n"
        "    bytearray(512 << 20)\n"
        "except MemoryError:\n"
        "    print('refused')\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    assert ran.stdout.strip() == "refused", ran.stderr


def test_a_submission_changed_after_it_was_read_has_another_stamp(tmp_path):
    folder = class_folder(tmp_path, ["anna"], [LAB])
    first = reading.stamp(folder / "anna")
    assert reading.stamp(folder / "anna") == first  # nothing changed: the same
    (folder / "anna" / LAB / "kernel.cu").write_text("// resubmitted\n")
    second = reading.stamp(folder / "anna")
    assert second != first
    (folder / "anna" / "notes.txt").write_text("added\n")
    assert reading.stamp(folder / "anna") != second
    assert reading.stamp(folder / "nobody") == "missing"
