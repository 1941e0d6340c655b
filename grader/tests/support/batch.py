"""What the tests of a batch share: a class folder of small submissions, a batch's setup, and a stand-in for the
grader process (`./cml grade`), so that a batch's own logic (turns, resuming, stops, locks, writes) is tested in
seconds, where a whole grade on the CPU emulator takes 30 s or more.

The stand-in grades nothing: it writes the run ./cml grade would write for the labs it is given (each worth 10
points of 100, its kernel.cu's real sha256), as told by a `behaviour` of its own: record the process, sleep, exit
with a status, leave a lab out, send the batch a signal, start a child of its own."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

from grader.cohort import batch, current
from grader.core.config import Config

LABS = ["01_vector_add", "02_dot_product", "06_warp_reduction"]

STAND_IN = r"""
import hashlib, json, os, signal, subprocess, sys, time
from pathlib import Path
from grader.core.model import LabGrade
from grader.reporting.report import run_dict
path, entry, build, behaviour, labs = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), json.loads(sys.argv[4]), sys.argv[5:]
if behaviour.get("log"):
    line = {"device": os.environ.get("CUDA_VISIBLE_DEVICES"), "build": str(build), "student": entry.name,
            "labs": [entry.name + "/" + lab for lab in labs], "pid": os.getpid()}
    with open(behaviour["log"], "a") as record:  # one short append: lines of processes at once never interleave
        record.write(json.dumps(line) + "\n")
if behaviour.get("broken_build") and (build.parent / "build" / "damaged").exists():  # the shared build folder
    print("grader error: the build folder cannot be used (a damaged .ninja_deps)")
    sys.exit(5)
build.mkdir(parents=True, exist_ok=True)
if behaviour.get("child"):  # a program of its own, in its process group, as the grader's builds are
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    Path(behaviour["child"]).write_text(str(child.pid))
if behaviour.get("signal_batch"):
    os.kill(os.getppid(), signal.SIGTERM)
time.sleep(behaviour.get("sleep", 0))
status = behaviour.get("status", 0)
if status == 5:  # the grader's own error, on Lab 7 alone; the others graded
    if "07_constant_memory" in labs:
        print("grader error: something broke (RuntimeError; the traceback is in x.log)")
        sys.exit(status)
    status = 0
points = behaviour.get("points", 10)
grades = [LabGrade(lab=l, title=l, variant="student", kernel_path="k", points=points, max_points=100) for l in labs]
digests = {l: hashlib.sha256((entry / l / "kernel.cu").read_bytes()).hexdigest() for l in labs}
context = {"device": None, "files_used": {l: "sub" for l in labs}, "kernel_sha256": digests}
kept = [g for g in grades if g.lab != behaviour.get("leave_out")]
open(path, "w").write(json.dumps(run_dict(kept, context)))
sys.exit(status)
"""


def stand_in_command(behaviour: dict):
    """A batch.grade_command that starts the stand-in, behaving as told, in place of ./cml grade."""

    def command(tasks, json_path, build_dir, options):
        labs = [task.lab.name for task in tasks]
        where = [str(json_path), str(tasks[0].entry), str(build_dir)]
        return [sys.executable, "-c", STAND_IN, *where, json.dumps(behaviour), *labs]

    return command


def stand_in(monkeypatch, **behaviour) -> None:
    """Every grader process a batch starts is the stand-in, behaving as told."""
    monkeypatch.setattr(batch, "grade_command", stand_in_command(behaviour))


def kernel_text(student: str, lab: str, version: int = 1) -> str:
    return f"// {student}'s {lab}, version {version}\n"


def class_folder(root: Path, students: list[str], labs: list[str] = LABS) -> Path:
    """A folder of one submission per student, each a folder of the labs' kernel.cu."""
    folder = root / "submissions"
    for student in students:
        for lab in labs:
            resubmit(folder, student, lab, 1)
    return folder


def resubmit(folder: Path, student: str, lab: str, version: int) -> None:
    kernel = folder / student / lab / "kernel.cu"
    kernel.parent.mkdir(parents=True, exist_ok=True)
    kernel.write_text(kernel_text(student, lab, version))


def digest(folder: Path, student: str, lab: str) -> str:
    return hashlib.sha256((folder / student / lab / "kernel.cu").read_bytes()).hexdigest()


def setup(out: Path, config: Config, labs: list[str] = LABS, options: list[str] | None = None) -> batch.Batch:
    """A batch of `labs`, with what ./cml batch passes its grader processes (`options`), on no GPU."""
    options = options or []
    return batch.Batch(out, [config.lab(lab) for lab in labs], config, options, current.grading_key(options), [None])


def processes(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def cml_batch(monkeypatch, submissions: Path, out: Path, *options: str, **behaviour) -> int:
    """./cml batch on the stand-in, in this process (its signal handlers too): its exit status. The stand-in runs
    nothing of a submission's, so the batch is let start where no sandbox can be made, without --no-sandbox: that
    option would turn the sandbox off for every later test of this process (sandbox.unavailable is cached)."""
    from grader import cli
    from grader.execution import sandbox

    stand_in(monkeypatch, **behaviour)
    monkeypatch.setattr(sandbox, "unavailable", lambda: "")
    return cli.main(["batch", str(submissions), "--out", str(out), *options])


# ./cml batch in a process of its own, on the stand-in: one a test can kill outright, as the out-of-memory
# killer would.
BATCH_PROCESS = """
import json, sys
from grader import cli
from grader.cohort import batch
from grader.tests.support import batch as batch_support
batch.grade_command = batch_support.stand_in_command(json.loads(sys.argv[1]))
sys.exit(cli.main(["batch", *sys.argv[2:], "--no-sandbox"]))
"""


def batch_process(submissions: Path, out: Path, *options: str, **behaviour) -> subprocess.Popen:
    from grader.core.config import REPO_ROOT

    command = [sys.executable, "-c", BATCH_PROCESS, json.dumps(behaviour), str(submissions), "--out", str(out)]
    return subprocess.Popen(
        [*command, *options], cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def wait_for(condition, seconds: float = 60.0) -> None:
    """Waits until condition() holds; fails the test past `seconds`."""
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, f"waited {seconds} s for {condition}"
        time.sleep(0.05)


def alive(pid: int) -> bool:
    """Whether a process of that pid runs (a zombie, ended but not reaped by its parent, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"
