"""Grading a class: every submission in a folder, one worker per GPU. A task is one lab of one submission; the
labs of a submission still to grade are graded together in one grader process, as ./cml grade grades a whole
submission (on a GPU, all its labs at once: one start, one configure, one build of them all), and its JSON is
cut into a result file per lab. Resumable: a lab whose result exists for the same kernel.cu is not graded again."""

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

from grader.core.config import REPO_ROOT, Config, Lab
from grader.core.exits import Exit
from grader.core.recorded import GradeFileError, RecordedRun, load_grade
from grader.execution import gpu
from grader.grading.submission import SubmissionError, read_submission

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


def name_problem(student: str) -> str | None:
    """Why a student's name cannot name their results folder (OUT/students/<name>/), or None where it can."""
    if student in ("", ".", ".."):
        return f"its name, {student!r} without the archive's suffix, is no folder name"
    if "/" in student or "\\" in student:
        return "its name has a path separator"
    if not all(character.isprintable() for character in student):
        return "its name has a control character"
    return None


def shown(name: str) -> str:
    """A file's name as it can be printed: its control characters written as \\xNN."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in name)


def submissions_in(folder: Path) -> list[Path]:
    """Each folder and archive directly in `folder` is one student's submission."""
    return sorted(p for p in folder.iterdir() if p.is_dir() or p.name.endswith(ARCHIVE_SUFFIXES))


def entries_of(folder: Path) -> tuple[dict[str, Path], dict[str, str], dict[str, str]]:
    """The submissions in `folder`, checked before anything is read: (student -> their entry, for every name
    that is one student's; student -> why, for a name two entries share, such as bob/ and bob.zip, of which none
    is graded: which one is the student's is for the instructor to say; entry -> why, for an entry whose name
    cannot be a student's, by its name as shown())."""
    named: dict[str, list[Path]] = {}
    refused = {}
    for entry in submissions_in(folder):
        problem = name_problem(student_name(entry))
        if problem:
            refused[shown(entry.name)] = f"{problem}; rename it"
        else:
            named.setdefault(student_name(entry), []).append(entry)
    shared = {
        student: f"{len(found)} submissions have this name ({', '.join(shown(e.name) for e in found)}): "
        "none is graded; remove or rename all but one"
        for student, found in named.items()
        if len(found) > 1
    }
    unique = {student: found[0] for student, found in named.items() if len(found) == 1}
    return unique, shared, refused


@dataclass
class Plan:
    tasks: list[Task]
    students: list[str]  # every student with a row: graded, unreadable, or sharing a name
    unreadable: dict[str, str]  # student -> why their submission cannot be read
    shared: dict[str, str]  # student -> why: two submissions have the name, and neither is graded
    refused: dict[str, str]  # an entry's name, as shown() -> why it is no student's name


def plan(folder: Path, labs: list[Lab], config: Config) -> Plan:
    """What a batch grades: the tasks, and every submission it cannot grade, with why."""
    entries, shared, refused = entries_of(folder)
    tasks: list[Task] = []
    unreadable = {}
    for student, entry in entries.items():
        try:
            submission = read_submission(entry, [lab.name for lab in config.labs])
        except SubmissionError as error:
            unreadable[student] = str(error)
            continue
        # A lab the submission has no kernel.cu for is "not submitted": nothing to build or run.
        tasks += [
            Task(student, entry, lab, submission.digest(lab.name)) for lab in labs if lab.name in submission.kernels
        ]
    return Plan(tasks, sorted([*entries, *shared]), unreadable, shared, refused)


def write_plan(folder: Path, labs: list[Lab], config: Config, out: Path) -> tuple[list[Task], dict[str, str]]:
    """Plans the batch and writes OUT/plan.json (what collect reads): the tasks, and every submission that cannot
    be graded (by student, or by its entry's name where that is refused) with why."""
    planned = plan(folder, labs, config)
    out.mkdir(parents=True, exist_ok=True)
    submitted: dict[str, list[str]] = {}
    for task in planned.tasks:
        submitted.setdefault(task.student, []).append(task.lab.name)
    record = {
        "labs": [lab.name for lab in labs],
        "students": planned.students,
        "unreadable": planned.unreadable,
        "shared": planned.shared,
        "refused": planned.refused,
        "submitted": submitted,
    }
    (out / "plan.json").write_text(json.dumps(record, indent=2) + "\n")
    return planned.tasks, {**planned.unreadable, **planned.shared, **planned.refused}


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


def visible_gpus() -> list[str]:
    """The GPUs this batch may use, each as CUDA_VISIBLE_DEVICES names it for one worker's grader: the entries of
    CUDA_VISIBLE_DEVICES where it is set (the instructor's or the scheduler's choice: a worker must never be
    sent to a GPU outside it), else every GPU nvidia-smi lists, by index; none without a GPU."""
    present = gpu.gpu_count()
    if not present:
        return []
    chosen = os.environ.get("CUDA_VISIBLE_DEVICES")
    if chosen is None:
        return [str(i) for i in range(present)]
    entries = [entry.strip() for entry in chosen.split(",")]
    # CUDA stops at the first entry that names no GPU ("-1" is the usual way to hide them all).
    valid = []
    for entry in entries:
        if not entry or entry.startswith("-"):
            break
        valid.append(entry)
    return valid


def worker_gpus(workers: int | None) -> list[str | None]:
    """The GPU of each worker: one worker per GPU by default; more workers than GPUs share them round-robin, their
    graders taking turns on each card as the labs of one grader do (its lock files: grader/execution/gpu_lock.py);
    without a GPU, `workers` (default 1) workers with none."""
    gpus = visible_gpus()
    count = workers or max(1, len(gpus))
    return [gpus[i % len(gpus)] for i in range(count)] if gpus else [None] * count


def result_path(out: Path, task: Task) -> Path:
    return out / "students" / task.student / f"{task.lab.name}.json"


def error_path(out: Path, task: Task) -> Path:
    return out / "students" / task.student / f"{task.lab.name}.error"


def log_path(out: Path, student: str, lab: str = "") -> Path:
    """The output of a grader process: grade.log for the submission's, all its labs together; NN_name.log for one
    lab graded again alone, after that process failed."""
    return out / "students" / student / (f"{lab}.log" if lab else "grade.log")


def already_graded(out: Path, task: Task) -> bool:
    try:
        return load_grade(result_path(out, task)).kernel_sha256.get(task.lab.name, "") == task.digest
    except GradeFileError:
        return False


def by_submission(tasks: list[Task]) -> list[list[Task]]:
    """The tasks grouped per submission, in the plan's order: each group is graded by one grader process."""
    groups: dict[str, list[Task]] = {}
    for task in tasks:
        groups.setdefault(task.student, []).append(task)
    return list(groups.values())


def share(tasks: list[Task], index: int, count: int) -> list[Task]:
    """The tasks of every count-th submission from the index-th (a Slurm array task's share): a submission's labs
    stay together, for one process to grade."""
    return [task for group in by_submission(tasks)[index::count] for task in group]


def lab_limit(config: Config) -> float:
    """One lab at worst: every step's limit, and the benchmark re-measured twice more."""
    return sum(config.timeouts.values()) + 2 * config.timeouts["bench"]


def task_timeout(config: Config, labs: int = 1) -> float:
    """How long a grader process grading `labs` labs may take; past this the grader itself hangs. One lab's limit
    and a margin for the process, and each lab past the first its own limit again: the labs of one process may take
    turns (one at a time on the CPU emulator; on a GPU, each benchmark and ncu run alone), and one lab that takes
    every step's full time must not cost the others theirs."""
    return labs * lab_limit(config) + 300


def lab_run(run: RecordedRun, lab: str) -> dict | None:
    """What a grader process grading `lab` alone would have written, cut from `run`, its JSON for several labs:
    that lab's entries, its files_used and kernel_sha256, its score; the rest (device, seed, notes, ...) as the
    run wrote it. None when the run holds no result for the lab."""
    entries = [entry for entry in run.labs if entry.lab == lab]
    if not entries:
        return None

    def only(key: str):
        value = run.source.get(key)
        return {k: v for k, v in value.items() if k == lab} if isinstance(value, dict) else value

    return {
        **run.source,
        "labs": [entry.source for entry in entries],
        "files_used": only("files_used"),
        "kernel_sha256": only("kernel_sha256"),
        "score": sum(entry.points for entry in entries),
        "max_score": sum(entry.max_points for entry in entries),
    }


def grade_command(tasks: list[Task], json_path: Path, build_dir: Path, options: list[str]) -> list[str]:
    """`./cml grade` on the tasks' labs of their submission, all in one run."""
    labs = [arg for task in tasks for arg in ("--lab", task.lab.name)]
    grade = [sys.executable, "-m", "grader", "grade", "--submission", str(tasks[0].entry), *labs]
    return [*grade, "--build-dir", str(build_dir), "--json", str(json_path), *options]


def run_grader(
    tasks: list[Task], out: Path, worker: str, gpu: str | None, options: list[str], timeout_s: float, log: Path
):
    """Runs one grader process on the tasks' labs, its output in `log`: (its JSON, '') when it graded them, else
    (None, why not, in one line)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    partial = log.with_name("grade-run.json.partial")  # never read by collect: only the per-lab files count
    partial.unlink(missing_ok=True)  # one left by a stopped run must not pass for this run's
    command = grade_command(tasks, partial, out / "work" / f"build-{worker}", options)
    env = {**os.environ, **({"CUDA_VISIBLE_DEVICES": gpu} if gpu is not None else {})}
    try:
        with log.open("w") as output:
            finished = subprocess.run(
                command, cwd=REPO_ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, timeout=timeout_s, check=False
            )
        if not Exit.graded(finished.returncode) or not partial.exists():
            return None, f"{grader_failure(log, finished.returncode)} (see {log})"
        return load_grade(partial), ""
    except subprocess.TimeoutExpired:
        return None, f"the grader did not finish within {timeout_s:g} s (see {log})"
    except GradeFileError as error:
        return None, f"the grader's JSON cannot be read: {error} (see {log})"
    finally:
        partial.unlink(missing_ok=True)  # cut into the labs' own files, which alone are results


def write_result(out: Path, task: Task, result: dict) -> None:
    """The lab's result, written whole or not at all: a file half written by a stopped batch never counts as done
    (a re-run grades the lab again)."""
    final = result_path(out, task)
    partial = final.with_suffix(".json.partial")
    partial.write_text(json.dumps(result, indent=2) + "\n")
    partial.replace(final)
    error_path(out, task).unlink(missing_ok=True)


def grade_submission(
    tasks: list[Task], out: Path, worker: str, gpu: str | None, options: list[str], config: Config, again: bool = False
) -> dict[str, str]:
    """Grades the labs of one submission (`tasks`) in one grader process, its labs at once where it has a GPU as
    ./cml grade does, and writes each lab's result, or its .error with the reason; returns lab -> that reason.
    `again`: one lab graded again alone, after its submission's process failed."""
    log = log_path(out, tasks[0].student, tasks[0].lab.name if again else "")
    run, failure = run_grader(tasks, out, worker, gpu, options, task_timeout(config, len(tasks)), log)
    if run is None and len(tasks) > 1:
        # The process failed as a whole (the grader's error, or a hang): each lab alone, so that one lab's
        # trouble costs no other lab its grade.
        errors = {}
        for task in tasks:
            errors.update(grade_submission([task], out, worker, gpu, options, config, again=True))
        return errors
    errors = {}
    for task in tasks:
        result = lab_run(run, task.lab.name) if run is not None else None
        if result is not None:
            write_result(out, task, result)
            continue
        errors[task.lab.name] = failure or f"the grader wrote no result for this lab (see {log})"
        error_path(out, task).write_text(errors[task.lab.name] + "\n")
    return errors


def grader_failure(log: Path, status: int) -> str:
    """Why a grader process graded nothing, in one line: its own 'grader error:' line where it printed one."""
    said = [
        line for line in log.read_text(errors="replace").splitlines() if line.startswith(("grader error:", "error:"))
    ]
    return said[-1] if said else f"the grader exited with status {status}"


@dataclass
class WorkerShare:
    """What one worker of a batch did: its part of the class and of the batch's wall time."""

    name: str
    gpu: str | None
    submissions: int = 0
    labs: int = 0
    busy_s: float = 0.0  # its grader processes' wall time, summed
    last_end_s: float = 0.0  # when its last process ended, from the batch's start

    def as_dict(self) -> dict:
        return {
            "worker": self.name,
            "gpu": self.gpu,
            "submissions": self.submissions,
            "labs": self.labs,
            "busy_s": round(self.busy_s, 1),
            "last_end_s": round(self.last_end_s, 1),
        }


@dataclass
class BatchRun:
    failures: dict[tuple[str, str], str]  # (student, lab) -> why the grader could not grade it
    workers: list[WorkerShare]
    wall_s: float


def run_tasks(
    tasks: list[Task],
    out: Path,
    gpus: list[str | None],
    options: list[str],
    config: Config,
    on_done=lambda tasks, errors: None,
    worker_prefix: str = "w",
    deadline: float | None = None,
) -> BatchRun:
    """Grades the tasks, one grader process per submission (by_submission), on one worker thread per entry of
    `gpus` (None: the GPUs this process was given); each worker keeps a build folder of its own, named after
    worker_prefix, so rebuilds are incremental. on_done(tasks, errors) as each process ends. Past `deadline`
    (time.monotonic()) no process starts; a later run resumes with the rest."""
    queue: Queue[list[Task]] = Queue()
    for group in by_submission(tasks):
        queue.put(group)
    failures: dict[tuple[str, str], str] = {}
    shares = [WorkerShare(f"{worker_prefix}{i}", gpu) for i, gpu in enumerate(gpus)]
    started = time.monotonic()

    def worker(share: WorkerShare) -> None:
        while deadline is None or time.monotonic() < deadline:
            try:
                group = queue.get_nowait()
            except Empty:
                return
            began = time.monotonic()
            errors = grade_submission(group, out, share.name, share.gpu, options, config)
            ended = time.monotonic()
            share.submissions, share.labs = share.submissions + 1, share.labs + len(group)
            share.busy_s += ended - began
            share.last_end_s = ended - started
            failures.update({(group[0].student, lab): why for lab, why in errors.items()})
            on_done(group, errors)

    threads = [threading.Thread(target=worker, args=(share,)) for share in shares]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return BatchRun(failures, shares, time.monotonic() - started)


def write_shares(out: Path, run: BatchRun) -> Path:
    """OUT/workers.json: the batch's wall time and each worker's share of it, for planning the next class."""
    path = out / "workers.json"
    record = {"wall_s": round(run.wall_s, 1), "workers": [share.as_dict() for share in run.workers]}
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path
