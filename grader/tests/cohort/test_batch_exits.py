"""./cml batch ends with the statuses its --help lists, each where the help says: one case per status, on the
stand-in grader process of batch_support.py, and the help listing no other."""

from __future__ import annotations

import re

import pytest

from grader.cohort import output_lock
from grader.core.exits import Exit
from grader.execution import proc
from grader.tests.support.batch import class_folder, cml_batch

LAB = "01_vector_add"


def every_graded(tmp_path, monkeypatch) -> int:
    return cml_batch(monkeypatch, class_folder(tmp_path, ["anna", "bob"], [LAB]), tmp_path / "out", "--lab", "1")


def failed_students_are_results_not_a_status(tmp_path, monkeypatch) -> int:
    folder = class_folder(tmp_path, ["anna"], [LAB])
    (folder / "bob.zip").write_bytes(b"PK\x03\x04 not a zip")  # unreadable: a result in results.csv
    return cml_batch(monkeypatch, folder, tmp_path / "out", "--lab", "1", status=Exit.FAILED, points=0)


def bad_arguments(tmp_path, monkeypatch) -> int:
    folder = class_folder(tmp_path, ["anna"], [LAB])
    return cml_batch(monkeypatch, folder, tmp_path / "out", "--lab", "1", "--student", "nobody")


def stopped_by_stop_after(tmp_path, monkeypatch) -> int:
    folder = class_folder(tmp_path, ["anna", "bob"], [LAB])
    return cml_batch(monkeypatch, folder, tmp_path / "out", "--lab", "1", "--stop-after", "0.01", sleep=2)


def the_grader_failed(tmp_path, monkeypatch) -> int:
    folder = class_folder(tmp_path, ["anna"], [LAB, "07_constant_memory"])
    return cml_batch(monkeypatch, folder, tmp_path / "out", "--lab", "1", "--lab", "7", status=Exit.INTERNAL)


def stopped_by_a_signal(tmp_path, monkeypatch) -> int:
    folder = class_folder(tmp_path, ["anna", "bob"], [LAB])
    return cml_batch(monkeypatch, folder, tmp_path / "out", "--lab", "1", signal_batch=True, sleep=60)


def another_batch_holds_the_folder(tmp_path, monkeypatch) -> int:
    folder, out = class_folder(tmp_path, ["anna"], [LAB]), tmp_path / "out"
    with output_lock.OutputLock(out).hold():
        return cml_batch(monkeypatch, folder, out, "--lab", "1")


CASES = {
    Exit.PASSED: [every_graded, failed_students_are_results_not_a_status],
    Exit.USAGE: [bad_arguments],
    Exit.INCOMPLETE: [stopped_by_stop_after],
    Exit.INTERNAL: [the_grader_failed],
    Exit.STOPPED: [stopped_by_a_signal],  # a full disk: test_atomic_writes.py
    Exit.BUSY: [another_batch_holds_the_folder],
}


def test_the_help_lists_each_status_batch_ends_with_and_no_other():
    listed = {int(number) for number in re.findall(r"(?:^exit status: |; )(\d) ", Exit.describe_batch())}
    assert listed == {int(status) for status in CASES}


@pytest.mark.parametrize(
    ("status", "case"),
    [(status, case) for status, cases in CASES.items() for case in cases],
    ids=lambda value: value.__name__ if callable(value) else str(int(value)),
)
def test_batch_ends_with_the_status_its_help_gives(tmp_path, monkeypatch, status, case):
    assert case(tmp_path, monkeypatch) == status
    assert not proc.stopping()  # a stop is the command's: the process may run programs again
