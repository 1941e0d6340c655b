"""Grading a class: every submission in a folder, one worker per GPU, one student at a time per worker. A
student's turn reads their submission (reading.py, in a process of its own under limits), then grades the labs
still to grade together in one grader process, as ./cml grade grades a whole submission (on a GPU, all its labs
at once: one start, one configure, one build of them all), and cuts its JSON into a result file per lab.
Resumable: a lab whose result grades the same kernel.cu with the same grader and options is not graded again
(current.py); a batch stopped (a signal, --stop-after, a full disk) keeps every student it finished."""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty, Queue

from grader.cohort import current, grader_process, reading
from grader.core import atomic
from grader.core.config import Config, Lab
from grader.core.exits import Exit
from grader.core.recorded import GradeFileError, RecordedRun, load_grade
from grader.execution import folder_lock, gpu, proc
from grader.execution.stopping import Stop


@dataclass
class Task:
    student: str
    entry: Path  # the submission: a folder or an archive
    lab: Lab
    digest: str  # sha256 of the lab's kernel.cu in the submission


@dataclass
class Batch:
    """What every turn of a batch shares: where it writes, what it grades and with what, and its stop."""

    out: Path
    labs: list[Lab]  # the labs graded
    config: Config
    options: list[str]  # passed to each grader process
    key: dict  # what a result must have been graded with to count (current.grading_key)
    devices: list[str | None] | None  # the devices a result may have been graded on (None: any)
    stop: Stop = field(default_factory=Stop)
    inherited: tuple[int, ...] = ()  # the output folder's lock, held by every grader process as long as it runs
    deadline: float | None = None  # time.monotonic() past which no turn starts (--stop-after)
    reading_limits: reading.Limits = field(default_factory=reading.Limits)


def regrade(out: Path, students: list[str], plan: dict) -> list[str]:
    """The named students, their earlier results removed so that they are graded again; the others' results stay
    as they are. Raises KeyError for a name that is not a submission of the batch."""
    named = plan.get("students", [])
    unknown = sorted(set(students) - set(named))
    if unknown:
        raise KeyError(
            f"--student {', '.join(unknown)}: no such submission in this batch "
            f"(names: {', '.join(named[:10])}{', ...' if len(named) > 10 else ''})"
        )
    for student in students:  # every planned lab, so that one no longer submitted loses its old result too
        for lab in plan.get("labs", []):
            for suffix in (".json", ".error"):
                (out / "students" / student / f"{lab}{suffix}").unlink(missing_ok=True)
        reading.record_path(out, student).unlink(missing_ok=True)
    return students


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


def devices_of(gpus: list[str | None]) -> list[str | None]:
    """The names of the workers' GPUs (worker_gpus; None: the one this process would use), as each grade records
    its device: None where there is none, and the CPU emulator grades."""
    return sorted({gpu.detect_gpu(chosen).name or None for chosen in gpus}, key=str)


def result_path(out: Path, task: Task) -> Path:
    return out / "students" / task.student / f"{task.lab.name}.json"


def error_path(out: Path, task: Task) -> Path:
    return out / "students" / task.student / f"{task.lab.name}.error"


def log_path(out: Path, student: str, lab: str = "") -> Path:
    """The output of a grader process: grade.log for the submission's, all its labs together; NN_name.log for one
    lab graded again alone, after that process failed."""
    return out / "students" / student / (f"{lab}.log" if lab else "grade.log")


def already_graded(batch: Batch, task: Task) -> bool:
    try:
        result = load_grade(result_path(batch.out, task))
    except GradeFileError:
        return False
    return current.is_current(result, task.lab.name, task.digest, batch.key, batch.devices)


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


# In OUT/work: the build folder every worker grades in (the harness of each lab built there once, under its lock),
# beside each worker's own folder for its students' steps.
SHARED_BUILD = "build"


def grade_command(tasks: list[Task], json_path: Path, folder: Path, options: list[str]) -> list[str]:
    """`./cml grade` on the tasks' labs of their submission, all in one run, its steps in the worker's `folder` and
    its harness in the build folder every worker shares."""
    labs = [arg for task in tasks for arg in ("--lab", task.lab.name)]
    grade = [sys.executable, "-m", "grader", "grade", "--submission", str(tasks[0].entry), *labs]
    shared = ["--build-dir", str(folder.parent / SHARED_BUILD), "--work-dir", str(folder)]
    return [*grade, *shared, "--json", str(json_path), *options]


@dataclass
class Worker:
    """One worker of a batch: its GPU, its own folder (its students' steps), and its part of the class and of the
    wall time."""

    name: str
    gpu: str | None
    folder: Path
    submissions: int = 0
    labs: int = 0
    busy_s: float = 0.0  # its students' turns' wall time, summed
    last_end_s: float = 0.0  # when its last turn ended, from the batch's start
    rebuilt: str = ""  # why its build folder was made anew, once, where it could not be used

    def as_dict(self) -> dict:
        return {
            "worker": self.name,
            "gpu": self.gpu,
            "submissions": self.submissions,
            "labs": self.labs,
            "busy_s": round(self.busy_s, 1),
            "last_end_s": round(self.last_end_s, 1),
        }

    def build_folders(self) -> list[Path]:
        """The folders its grader processes build in: its own, and the one every worker shares."""
        return [self.folder, self.folder.parent / SHARED_BUILD]


def run_grader(
    batch: Batch, tasks: list[Task], worker: Worker, log: Path
) -> tuple[RecordedRun | None, str, int | None]:
    """Runs one grader process on the tasks' labs, its output in `log`: (its JSON, '', its status) when it graded
    them, else (None, why not in one line, its status: None where it did not end by itself). Raises proc.Stopped
    where it was stopped before it ended."""
    partial = log.with_name("grade-run.json.partial")  # never read by collect: only the per-lab files count
    partial.unlink(missing_ok=True)  # one left by a stopped run must not pass for this run's
    command = grade_command(tasks, partial, worker.folder, batch.options)
    env = {**os.environ, **({"CUDA_VISIBLE_DEVICES": worker.gpu} if worker.gpu is not None else {})}
    timeout = task_timeout(batch.config, len(tasks))
    try:
        ended = grader_process.run(command, env, log, timeout, batch.stop, batch.inherited)
        if ended.stopped:
            raise proc.Stopped(ended.why or "the grader process was stopped")
        if ended.status is None or not Exit.graded(ended.status) or not partial.exists():
            return None, f"{grader_process.failure(log, ended)} (see {log})", ended.status
        return load_grade(partial), "", ended.status
    except GradeFileError as error:
        return None, f"the grader's JSON cannot be read: {error} (see {log})", ended.status
    finally:
        partial.unlink(missing_ok=True)  # cut into the labs' own files, which alone are results


def write_result(batch: Batch, task: Task, result: dict) -> None:
    """The lab's result, with what it was graded with, written whole or not at all: a file half written by a
    stopped batch never counts as done."""
    atomic.write_text(result_path(batch.out, task), json.dumps({**result, current.KEY: batch.key}, indent=2) + "\n")
    error_path(batch.out, task).unlink(missing_ok=True)


# How a grader process ends where it cannot set up or use its build folder: "cannot be set up" (3), or an
# error of its own (5), as a damaged .ninja_deps raises.
BUILD_FOLDER_FAILURES = (Exit.NOT_GRADABLE, Exit.INTERNAL)


def make_anew(worker: Worker, why: str) -> None:
    """The worker's folders emptied, so that its next grader process builds them from nothing: its own, and the
    shared build folder, under that folder's lock (no other worker builds there meanwhile)."""
    shutil.rmtree(worker.folder, ignore_errors=True)
    shared = worker.folder.parent / SHARED_BUILD
    if shared.is_dir():
        with folder_lock.held(shared):
            folder_lock.empty(shared)
    worker.rebuilt = why


def grade_submission(batch: Batch, tasks: list[Task], worker: Worker, again: bool = False) -> dict[str, str]:
    """Grades the labs of one submission (`tasks`) in one grader process, its labs at once where it has a GPU as
    ./cml grade does, and writes each lab's result, or its .error with the reason; returns lab -> that reason.
    `again`: one lab graded again alone, after its submission's process failed."""
    log = log_path(batch.out, tasks[0].student, tasks[0].lab.name if again else "")
    run, failure, status = run_grader(batch, tasks, worker, log)
    if run is None and status in BUILD_FOLDER_FAILURES and not again and not worker.rebuilt:
        # Where the build folder cannot be used (left damaged by a process killed in it), every process of this
        # worker would fail: it is made anew once, and the submission graded again.
        make_anew(worker, f"{tasks[0].student}'s grader process failed: {failure}")
        run, failure, status = run_grader(batch, tasks, worker, log)
    if run is None and len(tasks) > 1:
        # The process failed as a whole (the grader's error, or a hang): each lab alone, so that one lab's
        # trouble costs no other lab its grade.
        errors = {}
        for task in tasks:
            errors.update(grade_submission(batch, [task], worker, again=True))
        return errors
    errors = {}
    for task in tasks:
        result = lab_run(run, task.lab.name) if run is not None else None
        if result is not None:
            write_result(batch, task, result)
            continue
        errors[task.lab.name] = failure or f"the grader wrote no result for this lab (see {log})"
        atomic.write_text(error_path(batch.out, task), errors[task.lab.name] + "\n")
    return errors


@dataclass
class Turn:
    """What one student's turn did."""

    student: str
    graded: list[str] = field(default_factory=list)  # labs graded in this turn
    kept: list[str] = field(default_factory=list)  # labs already graded, kept
    errors: dict[str, str] = field(default_factory=dict)  # lab -> why the grader could not grade it
    unreadable: str | None = None


def take_turn(batch: Batch, student: str, entry: Path, worker: Worker) -> Turn:
    """Reads the student's submission and grades what of it is not graded yet; the student's record
    (reading.py) says what was read, for collect. Raises proc.Stopped where a stop ended the turn."""
    read = reading.read_in_turn(entry, [lab.name for lab in batch.config.labs], batch.key, batch.reading_limits)
    reading.write_record(batch.out, student, read)
    turn = Turn(student, unreadable=read.unreadable)
    if read.failed:
        turn.errors = {lab.name: read.failed for lab in batch.labs}
        write_errors(batch, student, turn.errors)
        return turn
    if read.unreadable:
        return turn
    tasks = [Task(student, entry, lab, read.kernels[lab.name]) for lab in batch.labs if lab.name in read.kernels]
    todo = [task for task in tasks if not already_graded(batch, task)]
    for task in todo:  # no longer this submission's grade: gone before it is graded, whatever stops the turn
        result_path(batch.out, task).unlink(missing_ok=True)
        error_path(batch.out, task).unlink(missing_ok=True)
    turn.kept = [task.lab.name for task in tasks if task not in todo]
    if todo:
        turn.errors = grade_submission(batch, todo, worker)
        turn.graded = [task.lab.name for task in todo]
    return turn


def write_errors(batch: Batch, student: str, errors: dict[str, str]) -> None:
    """Each lab's .error, as far as they can be written (the failure may be the disk's)."""
    for lab, why in errors.items():
        try:
            atomic.write_text(batch.out / "students" / student / f"{lab}.error", why + "\n")
        except OSError:
            continue


@dataclass
class BatchRun:
    failures: dict[tuple[str, str], str]  # (student, lab) -> why the grader could not grade it
    workers: list[Worker]
    wall_s: float
    turns: list[Turn] = field(default_factory=list)  # each student's turn that ended
    left: list[str] = field(default_factory=list)  # students whose turn did not start or did not end

    @property
    def unreadable(self) -> dict[str, str]:
        return {turn.student: turn.unreadable for turn in self.turns if turn.unreadable}


def run_students(
    batch: Batch,
    students: dict[str, Path],
    gpus: list[str | None],
    on_done: Callable[[Turn], None] = lambda turn: None,
    worker_prefix: str = "w",
) -> BatchRun:
    """Gives each student (student -> their submission) a turn, on one worker thread per entry of `gpus` (None:
    the GPUs this process was given); each worker keeps a folder of its own for its students' steps, named after
    worker_prefix, and every worker builds in one shared build folder, whose harness is built once. on_done(turn) as each turn ends. Past batch.deadline, or once batch.stop is asked,
    no turn starts; the students left are named, and a later run resumes with them."""
    queue: Queue[tuple[str, Path]] = Queue()
    for student in sorted(students):
        queue.put((student, students[student]))
    run = BatchRun({}, [], 0.0)
    run.workers = [
        Worker(f"{worker_prefix}{i}", gpu, batch.out / "work" / f"{worker_prefix}{i}") for i, gpu in enumerate(gpus)
    ]
    record = threading.Lock()
    started = time.monotonic()

    def give_turns(worker: Worker) -> None:
        while not batch.stop.asked and (batch.deadline is None or time.monotonic() < batch.deadline):
            try:
                student, entry = queue.get_nowait()
            except Empty:
                return
            began = time.monotonic()
            try:
                turn = take_turn(batch, student, entry, worker)
            except proc.Stopped:
                with record:
                    run.left.append(student)
                continue  # a stop of its grader process alone (a signal sent to it) costs no other student
            except atomic.DiskFull as error:
                batch.stop.ask(str(error))
                with record:
                    run.left.append(student)
                return
            except Exception as error:  # the batch's own failure on this student: theirs alone, and said
                why = proc.bounded(f"the batch failed on this student: {type(error).__name__}: {error}")
                turn = Turn(student, errors={lab.name: why for lab in batch.labs})
                write_errors(batch, student, turn.errors)
            ended = time.monotonic()
            with record:
                worker.submissions += 1
                worker.labs += len(turn.graded)
                worker.busy_s += ended - began
                worker.last_end_s = ended - started
                run.failures.update({(student, lab): why for lab, why in turn.errors.items()})
                run.turns.append(turn)
            on_done(turn)

    threads = [threading.Thread(target=give_turns, args=(worker,)) for worker in run.workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    while not queue.empty():
        run.left.append(queue.get_nowait()[0])
    run.left.sort()
    run.wall_s = time.monotonic() - started
    return run


def write_shares(out: Path, run: BatchRun) -> Path:
    """OUT/workers.json: the batch's wall time and each worker's share of it, for planning the next class."""
    path = out / "workers.json"
    record = {"wall_s": round(run.wall_s, 1), "workers": [worker.as_dict() for worker in run.workers]}
    atomic.write_text(path, json.dumps(record, indent=2) + "\n")
    return path
