"""A class on a machine with several GPUs: each batch worker grades on a GPU of its own, within the GPUs the
instructor (or the scheduler) chose through CUDA_VISIBLE_DEVICES, and no lab is graded twice. The GPUs are
stand-ins (nvidia-smi's count), and so is the grader process: it records the device it was given and grades
nothing, so that the workers' sharing of the class is all that is tested. The real class on real GPUs is
tools/gpu-check.sh class-gpus."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter

import pytest

from grader.cohort import batch
from grader.core.config import REPO_ROOT
from grader.execution import gpu, sandbox

# Stands in for `./cml grade`: notes the device and build folder it was given and its labs, one JSON line per
# process (a single short append, so lines from processes running at once never interleave), takes a moment so
# that the workers overlap, and writes a run of its labs.
RECORDING_GRADER = """
import json, os, sys, time
from grader.core.model import LabGrade
from grader.reporting.report import run_dict
path, log, build, student, labs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
line = {"device": os.environ.get("CUDA_VISIBLE_DEVICES"), "build": build, "labs": [student + "/" + l for l in labs]}
with open(log, "a") as record:
    record.write(json.dumps(line) + "\\n")
time.sleep(0.3)
grades = [LabGrade(lab=l, title=l, variant="student", kernel_path="k", points=10, max_points=100) for l in labs]
context = {"files_used": {l: "sub" for l in labs}, "kernel_sha256": {l: "digest-" + l for l in labs}}
open(path, "w").write(json.dumps(run_dict(grades, context)))
"""

LABS = ["01_vector_add", "02_dot_product", "06_warp_reduction"]


@pytest.fixture
def recording(monkeypatch, tmp_path):
    """The grader process replaced by RECORDING_GRADER; returns the file its processes write to."""
    log = tmp_path / "processes.jsonl"

    def command(tasks, json_path, build_dir, options):
        student = tasks[0].student
        return [sys.executable, "-c", RECORDING_GRADER, str(json_path), str(log), str(build_dir), student] + [
            t.lab.name for t in tasks
        ]

    monkeypatch.setattr(batch, "grade_command", command)
    return log


def fake_gpus(monkeypatch, count: int, visible: str | None = None) -> None:
    monkeypatch.setattr(gpu, "gpu_count", lambda: count)
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)


def class_of(config, students: int) -> list[batch.Task]:
    """Each student submits LABS (the stand-in grader reads no file)."""
    labs = [config.lab(lab) for lab in LABS]
    return [
        batch.Task(f"student{i:02d}", REPO_ROOT / "labs", lab, f"digest-{lab.name}")
        for i in range(students)
        for lab in labs
    ]


def processes(log) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_one_worker_per_gpu_each_on_its_own_and_no_lab_graded_twice(config, tmp_path, monkeypatch, recording):
    fake_gpus(monkeypatch, 4)
    gpus = batch.worker_gpus(None)
    assert gpus == ["0", "1", "2", "3"]
    tasks = class_of(config, 10)
    run = batch.run_tasks(tasks, tmp_path / "out", gpus, [], config)
    assert run.failures == {}
    seen = processes(recording)
    devices_of_build: dict[str, set[str]] = {}
    for process in seen:
        devices_of_build.setdefault(process["build"], set()).add(process["device"])
    assert len(devices_of_build) == 4  # one build folder per worker
    assert all(len(devices) == 1 for devices in devices_of_build.values()), devices_of_build
    assert sorted(d for devices in devices_of_build.values() for d in devices) == gpus  # each worker its own
    graded = Counter(lab for process in seen for lab in process["labs"])
    assert set(graded) == {f"student{i:02d}/{lab}" for i in range(10) for lab in LABS}
    assert max(graded.values()) == 1  # never twice
    assert len(seen) == 10  # one process per submission, its labs together
    for task in tasks:
        assert batch.already_graded(tmp_path / "out", task)
    # Each worker's share: together, every submission and lab, each worker's device as the process saw it.
    assert sum(share.submissions for share in run.workers) == 10
    assert sum(share.labs for share in run.workers) == 30
    for share in run.workers:
        assert share.submissions >= 1 and 0 < share.busy_s <= run.wall_s and share.last_end_s <= run.wall_s
        assert devices_of_build[str(tmp_path / "out" / "work" / f"build-{share.name}")] == {share.gpu}
    written = json.loads(batch.write_shares(tmp_path / "out", run).read_text())
    assert [w["gpu"] for w in written["workers"]] == gpus and written["wall_s"] == round(run.wall_s, 1)


def test_the_gpus_the_instructor_chose_are_the_only_ones_used(config, tmp_path, monkeypatch, recording):
    fake_gpus(monkeypatch, 4, visible="2,3")
    gpus = batch.worker_gpus(None)
    assert gpus == ["2", "3"]  # never GPU 0 or 1, which another course may be using
    batch.run_tasks(class_of(config, 4), tmp_path, gpus, [], config)
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
    run = batch.run_tasks(class_of(config, 8), tmp_path, gpus, [], config)
    graded = Counter(lab for process in processes(recording) for lab in process["labs"])
    assert len(graded) == 24 and max(graded.values()) == 1
    assert [share.gpu for share in run.workers] == gpus


def test_without_a_gpu_the_workers_set_no_device(config, tmp_path, monkeypatch, recording):
    fake_gpus(monkeypatch, 0, visible="0,1")  # a variable left set on a machine with no GPU
    gpus = batch.worker_gpus(3)
    assert gpus == [None, None, None]
    batch.run_tasks(class_of(config, 3), tmp_path, gpus, [], config)
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
