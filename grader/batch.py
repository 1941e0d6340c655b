"""Grading a class: every submission in a folder, one grader process per lab per submission, one worker
per GPU. Resumable: a task whose result exists for the same kernel.cu is not graded again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from queue import Empty, Queue

from grader import gpu
from grader.config import REPO_ROOT, Config, Lab
from grader.exits import Exit
from grader.submission import SubmissionError, read_submission

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".tar", ".zip")


@dataclass
class Task:
    student: str
    entry: Path  # the submission: a folder or an archive
    lab: Lab
    digest: str  # sha256 of the lab's kernel.cu in the submission


def student_name(entry: Path) -> str:
    name = entry.name
    for suffix in ARCHIVE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def submissions_in(folder: Path) -> list[Path]:
    """Each folder and archive directly in `folder` is one student's submission."""
    return sorted(p for p in folder.iterdir() if p.is_dir() or p.name.endswith(ARCHIVE_SUFFIXES))


def plan(folder: Path, labs: list[Lab], config: Config) -> tuple[list[Task], list[str], dict[str, str]]:
    """The tasks, every student, and the submissions that cannot be read at all (student -> why)."""
    tasks, students, unreadable = [], [], {}
    for entry in submissions_in(folder):
        students.append(student_name(entry))
        try:
            submission = read_submission(entry, [lab.name for lab in config.labs])
        except SubmissionError as error:
            unreadable[student_name(entry)] = str(error)
            continue
        # A lab the submission has no kernel.cu for is "not submitted": nothing to build or run.
        tasks += [
            Task(student_name(entry), entry, lab, submission.digest(lab.name))
            for lab in labs
            if lab.name in submission.kernels
        ]
    return tasks, students, unreadable


def write_plan(folder: Path, labs: list[Lab], config: Config, out: Path) -> tuple[list[Task], dict[str, str]]:
    """Plans the batch and writes OUT/plan.json (what collect reads): the tasks, and the unreadable submissions."""
    tasks, students, unreadable = plan(folder, labs, config)
    out.mkdir(parents=True, exist_ok=True)
    submitted: dict[str, list[str]] = {}
    for task in tasks:
        submitted.setdefault(task.student, []).append(task.lab.name)
    record = {
        "labs": [lab.name for lab in labs],
        "students": students,
        "unreadable": unreadable,
        "submitted": submitted,
    }
    (out / "plan.json").write_text(json.dumps(record, indent=2) + "\n")
    return tasks, unreadable


def read_plan(out: Path) -> dict | None:
    """The plan write_plan wrote; None where OUT holds no batch."""
    path = out / "plan.json"
    return json.loads(path.read_text()) if path.exists() else None


def regrade(out: Path, tasks: list[Task], students: list[str], plan: dict) -> list[Task]:
    """The tasks of the named students, their earlier results removed so that they are graded again; the
    others' results stay as they are. Raises KeyError for a name that is not a submission of the batch."""
    unknown = sorted(set(students) - set(plan.get("students", [])))
    if unknown:
        raise KeyError(
            f"--student {', '.join(unknown)}: no such submission in this batch "
            f"(names: {', '.join(plan.get('students', [])[:10])}{', ...' if len(plan.get('students', [])) > 10 else ''})"
        )
    for student in students:  # every planned lab, so that one no longer submitted loses its old result too
        for lab in plan.get("labs", []):
            for suffix in (".json", ".error"):
                (out / "students" / student / f"{lab}{suffix}").unlink(missing_ok=True)
    return [task for task in tasks if task.student in students]


def worker_gpus(workers: int | None) -> list[str | None]:
    """The GPU of each worker: one worker per GPU by default; more workers than GPUs share them round-robin (their
    timings then disturb each other); without a GPU, `workers` (default 1) workers with none."""
    present = gpu.gpu_count()
    count = workers or max(1, present)
    return [str(i % present) for i in range(count)] if present else [None] * count


def result_path(out: Path, task: Task) -> Path:
    return out / "students" / task.student / f"{task.lab.name}.json"


def error_path(out: Path, task: Task) -> Path:
    return out / "students" / task.student / f"{task.lab.name}.error"


def already_graded(out: Path, task: Task) -> bool:
    path = result_path(out, task)
    try:
        return json.loads(path.read_text()).get("kernel_sha256", {}).get(task.lab.name, "") == task.digest
    except (OSError, ValueError):
        return False


def task_timeout(config: Config) -> float:
    """Every step's limit, the re-measured benchmark twice more, and a margin: past this the grader itself hangs."""
    return sum(config.timeouts.values()) + 2 * config.timeouts["bench"] + 300


def grade_task(task: Task, out: Path, worker: str, gpu: str | None, options: list[str], timeout_s: float) -> str:
    """Grades one lab of one submission in a process of its own; '' on success, else what went wrong."""
    final = result_path(out, task)
    final.parent.mkdir(parents=True, exist_ok=True)
    partial = final.with_suffix(".json.partial")
    command = [
        sys.executable,
        "-m",
        "grader",
        "grade",
        "--submission",
        str(task.entry),
        "--lab",
        task.lab.name,
        "--build-dir",
        str(out / "work" / f"build-{worker}"),
        "--json",
        str(partial),
        *options,
    ]
    env = {**os.environ, **({"CUDA_VISIBLE_DEVICES": gpu} if gpu is not None else {})}
    log = final.with_suffix(".log")
    try:
        with log.open("w") as output:
            finished = subprocess.run(
                command, cwd=REPO_ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, timeout=timeout_s, check=False
            )
    except subprocess.TimeoutExpired:
        return f"the grader did not finish within {timeout_s:g} s (see {log})"
    if not Exit.graded(finished.returncode) or not partial.exists():
        return f"{grader_failure(log, finished.returncode)} (see {log})"
    partial.replace(final)  # only a finished grade counts as done: a re-run redoes anything else
    error_path(out, task).unlink(missing_ok=True)
    return ""


def grader_failure(log: Path, status: int) -> str:
    """Why a grader process graded nothing, in one line: its own 'grader error:' line where it printed one."""
    said = [
        line for line in log.read_text(errors="replace").splitlines() if line.startswith(("grader error:", "error:"))
    ]
    return said[-1] if said else f"the grader exited with status {status}"


def run_tasks(
    tasks: list[Task],
    out: Path,
    gpus: list[str | None],
    options: list[str],
    timeout_s: float,
    on_done=lambda task, error: None,
    worker_prefix: str = "w",
    deadline: float | None = None,
) -> dict[tuple[str, str], str]:
    """Runs the tasks on one worker thread per entry of `gpus` (None: the GPUs this process was given);
    each worker keeps a build folder of its own, named after worker_prefix, so rebuilds are incremental.
    Past `deadline` (time.monotonic()) no task starts; a later run resumes with the rest."""
    queue: Queue[Task] = Queue()
    for task in tasks:
        queue.put(task)
    failures: dict[tuple[str, str], str] = {}

    def worker(name: str, gpu: str | None) -> None:
        while deadline is None or time.monotonic() < deadline:
            try:
                task = queue.get_nowait()
            except Empty:
                return
            error = grade_task(task, out, name, gpu, options, timeout_s)
            if error:
                failures[(task.student, task.lab.name)] = error
                error_path(out, task).write_text(error + "\n")
            on_done(task, error)

    threads = [threading.Thread(target=worker, args=(f"{worker_prefix}{i}", gpu)) for i, gpu in enumerate(gpus)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures
