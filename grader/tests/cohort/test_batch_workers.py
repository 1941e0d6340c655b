"""A class on a machine with several GPUs: each batch worker grades on a GPU of its own, within the GPUs the
instructor (or the scheduler) chose through CUDA_VISIBLE_DEVICES, and no lab is graded twice. The GPUs are
stand-ins (nvidia-smi's count), and so is the grader process: it records the device it was given and grades
nothing, so that the workers' sharing of the class is all that is tested. The real class on real GPUs is
tools/gpu-check.sh class-gpus."""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest

from grader.cohort import batch
from grader.execution import gpu, sandbox
from grader.tests.support.batch import LABS, class_folder, processes, setup, stand_in


@pytest.fixture
def recording(monkeypatch, tmp_path):
    """The grader process replaced by the stand-in, which notes the device and build folder it was given and its
    labs, and takes a moment so that the workers overlap; returns the file its processes write to."""
    log = tmp_path / "processes.jsonl"
    stand_in(monkeypatch, log=str(log), sleep=0.3)
    return log


def fake_gpus(monkeypatch, count: int, visible: str | None = None) -> None:
    monkeypatch.setattr(gpu, "gpu_count", lambda: count)
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)


def class_of(tmp_path, students: int) -> dict:
    """student -> their submission: each submits LABS."""
    names = [f"student{i:02d}" for i in range(students)]
    folder = class_folder(tmp_path, names)
    return {name: folder / name for name in names}


def test_one_worker_per_gpu_each_on_its_own_and_no_lab_graded_twice(config, tmp_path, monkeypatch, recording):
    fake_gpus(monkeypatch, 4)
    gpus = batch.worker_gpus(None)
    assert gpus == ["0", "1", "2", "3"]
    students = class_of(tmp_path, 10)
    work = setup(tmp_path / "out", config)
    run = batch.run_students(work, students, gpus)
    assert run.failures == {} and run.left == []
    seen = processes(recording)
    devices_of_build: dict[str, set[str]] = {}
    for process in seen:
        devices_of_build.setdefault(process["build"], set()).add(process["device"])
    assert len(devices_of_build) == 4  # one folder per worker for its students' steps, beside the shared build
    assert all(len(devices) == 1 for devices in devices_of_build.values()), devices_of_build
    assert sorted(d for devices in devices_of_build.values() for d in devices) == gpus  # each worker its own
    graded = Counter(lab for process in seen for lab in process["labs"])
    assert set(graded) == {f"student{i:02d}/{lab}" for i in range(10) for lab in LABS}
    assert max(graded.values()) == 1  # never twice
    assert len(seen) == 10  # one process per submission, its labs together
    for student in students:
        (record,) = [turn for turn in run.turns if turn.student == student]
        assert sorted(record.graded) == sorted(LABS) and record.kept == []
    # Each worker's share: together, every submission and lab, each worker's device as the process saw it.
    assert sum(worker.submissions for worker in run.workers) == 10
    assert sum(worker.labs for worker in run.workers) == 30
    for worker in run.workers:
        assert worker.submissions >= 1 and 0 < worker.busy_s <= run.wall_s and worker.last_end_s <= run.wall_s
        assert devices_of_build[str(worker.folder)] == {worker.gpu}
    written = json.loads(batch.write_shares(tmp_path / "out", run).read_text())
    assert [w["gpu"] for w in written["workers"]] == gpus and written["wall_s"] == round(run.wall_s, 1)
    again = batch.run_students(work, students, gpus)  # resumed: every lab is graded already
    assert len(processes(recording)) == 10 and sum(len(turn.kept) for turn in again.turns) == 30


def test_the_gpus_the_instructor_chose_are_the_only_ones_used(config, tmp_path, monkeypatch, recording):
    fake_gpus(monkeypatch, 4, visible="2,3")
    gpus = batch.worker_gpus(None)
    assert gpus == ["2", "3"]  # never GPU 0 or 1, which another course may be using
    batch.run_students(setup(tmp_path / "out", config), class_of(tmp_path, 4), gpus)
    assert {process["device"] for process in processes(recording)} == {"2", "3"}


@pytest.mark.parametrize(
    ("visible", "expected"),
    [
        ("GPU-5f1c,GPU-77aa", ["GPU-5f1c", "GPU-77aa"]),  # by UUID, as Slurm may set it
        ("1, 0", ["1", "0"]),
        ("0,-1,1", ["0"]),  # CUDA stops at the first entry that names no GPU
        ("-1", [None]),  # every GPU hidden: one worker, with none
        ("", [None]),
    ],
)
def test_cuda_visible_devices_is_read_as_cuda_reads_it(monkeypatch, visible, expected):
    fake_gpus(monkeypatch, 4, visible)
    assert batch.worker_gpus(None) == expected


def test_more_workers_than_gpus_share_them_evenly_and_still_grade_each_lab_once(
    config, tmp_path, monkeypatch, recording
):
    fake_gpus(monkeypatch, 2)
    gpus = batch.worker_gpus(5)
    assert gpus == ["0", "1", "0", "1", "0"]
    run = batch.run_students(setup(tmp_path / "out", config), class_of(tmp_path, 8), gpus)
    graded = Counter(lab for process in processes(recording) for lab in process["labs"])
    assert len(graded) == 24 and max(graded.values()) == 1
    assert [worker.gpu for worker in run.workers] == gpus


def test_without_a_gpu_the_workers_set_no_device(config, tmp_path, monkeypatch, recording):
    fake_gpus(monkeypatch, 0, visible="0,1")  # a variable left set on a machine with no GPU
    gpus = batch.worker_gpus(3)
    assert gpus == [None, None, None]
    batch.run_students(setup(tmp_path / "out", config), class_of(tmp_path, 3), gpus)
    assert {process["device"] for process in processes(recording)} == {"0,1"}  # as inherited, not chosen


FAKE_NVIDIA_SMI = """#!/bin/sh
# Two GPUs of different kinds: GPU 0 an A100, GPU 1 an H100 (nvidia-smi's numbering, by PCI bus).
case "$*" in
    *"--id 1"*|*"--id GPU-h100"*) echo "NVIDIA H100 80GB HBM3, 9.0, GPU-h100" ;;
    *"--id 0"*) echo "NVIDIA A100-SXM4-80GB, 8.0, GPU-a100" ;;
    *) echo "NVIDIA A100-SXM4-80GB, 8.0, GPU-a100"; echo "NVIDIA H100 80GB HBM3, 9.0, GPU-h100" ;;
esac
"""


@pytest.mark.parametrize(
    ("visible", "name"),
    [(None, "NVIDIA A100-SXM4-80GB"), ("1", "NVIDIA H100 80GB HBM3"), ("GPU-h100,0", "NVIDIA H100 80GB HBM3")],
)
def test_a_worker_is_graded_against_the_gpu_it_was_given(tmp_path, monkeypatch, visible, name):
    """On a machine with two kinds of GPU, the worker on GPU 1 must be judged by GPU 1's thresholds, not GPU 0's."""
    (tmp_path / "nvidia-smi").write_text(FAKE_NVIDIA_SMI)
    (tmp_path / "nvidia-smi").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    fake_gpus(monkeypatch, 2, visible)
    assert gpu.detect_gpu().name == name


@pytest.mark.parametrize("visible", ["1", "GPU-h100,0"])
def test_a_card_is_known_by_its_uuid_however_cuda_visible_devices_names_it(tmp_path, monkeypatch, visible):
    """Graders that share a card share its lock files, named by its UUID (grader/execution/gpu_lock_files.py)."""
    (tmp_path / "nvidia-smi").write_text(FAKE_NVIDIA_SMI)
    (tmp_path / "nvidia-smi").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    fake_gpus(monkeypatch, 2, visible)
    assert gpu.detect_gpu().uuid == "GPU-h100"


def test_cuda_numbers_the_gpus_as_nvidia_smi_does_in_the_grader_and_its_sandbox(monkeypatch):
    monkeypatch.delenv("CUDA_DEVICE_ORDER", raising=False)
    gpu.use_bus_order()
    assert os.environ["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID"
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    options = sandbox.passed_variables({})  # --setenv NAME VALUE, for each
    passed = dict(zip(options[1::3], options[2::3], strict=True))
    assert passed["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID" and passed["CUDA_VISIBLE_DEVICES"] == "1"
    monkeypatch.setenv("CUDA_DEVICE_ORDER", "FASTEST_FIRST")  # the user's own choice stays
    gpu.use_bus_order()
    assert os.environ["CUDA_DEVICE_ORDER"] == "FASTEST_FIRST"
