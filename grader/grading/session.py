"""One grading run, decided once: which labs and variants, on which device, against which thresholds, with
which seed and sizes, from which submission, in which build tree. Then the labs are graded (grade.grade_lab),
several at once where the run has the workers for it (--jobs), and the run's facts head its JSON. The CLI asks
for a run and shows it; it grades nothing."""

from __future__ import annotations

import functools
import json
import os
import secrets
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from grader.core.config import REPO_ROOT, Config, Lab, Target, find_target, load_config, load_target
from grader.core.exits import CannotGrade, GraderError, UsageError
from grader.core.model import LabGrade
from grader.execution import gpu, gpu_lock_files, sandbox
from grader.grading.context import Context
from grader.grading.evidence import LabEvidence
from grader.grading.grade import graded_lab
from grader.grading.lab_runs import WAITING_FOR_THE_GPU, WAITING_TO_BUILD
from grader.grading.sizes import lab_sizes, load_instructor_sizes
from grader.grading.submission import SubmissionError, read_submission
from grader.grading.workspace import assemble_student_dir, not_submitted
from grader.steps import build
from grader.steps.build_tree import BuildTree
from grader.steps.student_steps import StudentWork, checkout_work

SHIPPED_LABS = REPO_ROOT / "labs"
BUILDING_AHEAD = "building, every lab at once"


@dataclass
class GradeRequest:
    """What the caller asks for (./cml grade's options, or a batch task's)."""

    labs: list[str] = field(default_factory=list)  # numbers or names; [] = every lab
    variants: tuple[str, ...] = ("student",)  # "student" and/or "solution"
    submission: Path = SHIPPED_LABS  # a folder, tarball or zip of NN_name/kernel.cu files
    build_dir: Path = REPO_ROOT / "build"
    arch: str = "auto"  # nvcc -arch: auto = native with a GPU, sm_90 without
    seed: int | None = None  # None: a fresh one
    instructor_sizes: Path | None = None
    target: Path | None = None  # None: the targets/*.toml matching the GPU
    mechanisms: bool = True
    bench: bool = True
    step_timeout: float | None = None  # caps every step's time limit but the build's
    calibration_kernels: bool = False  # also build the kernels of variants/ (./cml calibrate)
    jobs: int | None = None  # labs graded at once; None: default_jobs()
    # The folder of this grade's own work (the submission's kernel.cu files and their steps), for a grader that
    # shares the build folder with others at the same time (a batch worker, a test); None: beside the build
    # folder, or inside it for the checkout's own labs/.
    work_dir: Path | None = None


@dataclass
class Session:
    """A run whose arguments have been checked; build() then sets up what it grades."""

    request: GradeRequest
    config: Config
    labs: list[Lab]
    device: gpu.Gpu
    target: Target | None
    seed: int
    instructor_sizes: dict[str, list[str]]
    notes: list[str] = field(default_factory=list)  # said on the terminal and in every report
    files_used: dict[str, str] | None = None  # lab -> where its kernel.cu came from, for a submission
    not_submitted: list[str] = field(default_factory=list)  # labs the submission has no kernel.cu for
    files_ignored: list[str] = field(default_factory=list)
    kernel_sha256: dict[str, str] = field(default_factory=dict)
    context: Context | None = None  # once built
    evidence: list[LabEvidence] = field(default_factory=list)  # each lab's, once graded, in the order of the grades
    finished: list[LabGrade] = field(default_factory=list)  # each lab graded so far: what a stopped run keeps
    started: float = field(default_factory=time.monotonic)  # when start() decided the run
    seconds: float | None = None  # the run's wall time, once graded: from start() to the last lab's end
    built_ahead_seconds: float | None = None  # of that, compiling every lab at once before grading them

    @property
    def max_points(self) -> float:
        """What the labs are worth: the score out of which a run that graded nothing gets 0."""
        return sum(lab.max_points for lab in self.labs)

    @property
    def jobs(self) -> int:
        return self.request.jobs or default_jobs(self.device, len(self.labs) * len(self.request.variants))

    def facts(self) -> dict:
        """The run's header in its JSON and every export."""
        return {
            "device": self.device.name or None,
            "gpu_reason": self.device.reason or None,
            "target": self.target.shown_path() if self.target else None,
            "submission": shown_submission(self.request.submission),
            "seed": self.seed,
            "graded_at": datetime.now().astimezone().isoformat(timespec="seconds"),  # the date a report shows
            "notes": self.notes,
            "cpu_emulator": bool(self.context and self.context.emulator),
            "files_used": self.files_used,
            "files_ignored": self.files_ignored,
            "kernel_sha256": self.kernel_sha256,
            "jobs": self.jobs,
            "seconds": self.seconds,
            "built_ahead_seconds": self.built_ahead_seconds,
        }

    def build(self, say: Callable[[str], None] = lambda _: None) -> Context:
        """Reads the submission, configures the build tree, and finds the tools: the context every lab is
        graded in. Raises CannotGrade when the submission cannot be read or the build cannot be set up."""
        tree, work = self._prepare_tree(say)
        emulator = not self.device.present and tree.has_emulator()
        if emulator:
            self.notes.append(
                f"No GPU ({self.device.reason}): the tests, sanitizers and counters ran on the CPU "
                "emulator (common/emu), each such check marked '(CPU emulator)'; the speed checks are "
                "'not run'."
            )
        elif not self.device.present:
            self.notes.append(
                f"GPU checks were not run: {self.device.reason}; {build.EMULATOR_MISSING}. They are "
                "reported as 'not run', not as passed."
            )
        sanitizer, ncu = gpu.find_tool("compute-sanitizer"), gpu.find_tool("ncu")
        for tool, path, what in (("compute-sanitizer", sanitizer, "sanitizer"), ("ncu", ncu, "profiler-counter")):
            if self.device.present and path is None and self.request.mechanisms:
                self.notes.append(
                    f"{tool} was not found (it comes with the CUDA toolkit): the {what} checks are 'not run'."
                )
        self.context = Context(
            config=self.config,
            tree=tree,
            gpu=self.device,
            target=self.target,
            sanitizer=sanitizer,
            ncu=ncu,
            run_mechanisms=self.request.mechanisms,
            run_bench=self.request.bench,
            kernel_sources=self.files_used,
            seed=self.seed,
            instructor_sizes=self.instructor_sizes,
            emulator=emulator,
            work=work,
        )
        locks = self._gpu_locks(say)
        if locks is not None:
            self.context.gpu_lock, self.context.counters_lock = locks.gpu, locks.counters
        return self.context

    def _gpu_locks(self, say: Callable[[str], None]) -> gpu_lock_files.GpuLocks | None:
        """The GPU's locks as every grader on the card holds them (grader/execution/gpu_lock_files.py); None, for
        this process's own, where there is no card, or no safe folder for their files."""
        if not (self.device.present and self.device.uuid):
            return None
        try:
            return gpu_lock_files.gpu_locks(self.device.uuid)
        except gpu_lock_files.UnsafeFolder as error:
            say(f"The GPU's lock files cannot be used ({error}): other graders on this GPU will not wait for this one")
            return None

    def grade(self, progress: Callable[[str, str, str], None] = lambda lab, variant, step: None) -> list[LabGrade]:
        """Every lab of the run and each of its variants, in that order, `jobs` of them at once; progress(lab,
        variant, step) as each goes, from the thread grading it. The labs graded at once share the build folder
        and the GPU through the context's locks (grade.Steps)."""
        context = self.context
        if context is None:
            raise RuntimeError("Session.build() first")
        todo = [(lab, variant) for lab in self.labs for variant in self.request.variants]
        if self.jobs > 1:
            for lab, variant in todo:
                progress(lab.name, variant, BUILDING_AHEAD)
            self._build_ahead(context)

        def graded(lab: Lab, variant: str) -> LabGrade:
            if variant == "student" and lab.name in self.not_submitted and self.files_used:
                grade = not_submitted(lab, self.files_used[lab.name])  # nothing of it to build or run
            else:
                grade, evidence = graded_lab(context, lab, variant, functools.partial(progress, lab.name, variant))
                self.evidence.append(evidence)
            self.finished.append(grade)
            return grade

        if self.jobs == 1:
            grades = [graded(lab, variant) for lab, variant in todo]
        else:
            reference = context.target.reference_seconds if context.target else {}
            last_seconds = LabSeconds(context.tree.directory, reference)
            with ThreadPoolExecutor(self.jobs, thread_name_prefix="grade") as pool:
                futures = {at: pool.submit(graded, *todo[at]) for at in last_seconds.longest_first(todo)}
                try:
                    grades = [futures[at].result() for at in range(len(todo))]
                finally:
                    for future in futures.values():
                        future.cancel()  # after a grader error: start no other lab (those running end first)
            last_seconds.save(grades)
        self.seconds = round(time.monotonic() - self.started, 1)
        return grades

    def _build_ahead(self, context: Context) -> None:
        """The grader's own parts of every lab built, then every student's kernel.cu compiled at once, before the
        labs are graded at once; its time is the run's (`built_ahead_seconds`), and each lab's own build step
        then finds its part built."""
        started = time.monotonic()
        labs, timeout = [lab.name for lab in self.labs], self.config.timeouts["build"]
        submitted = [lab for lab in labs if lab not in self.not_submitted]
        students = "student" in self.request.variants
        for emulated in (False, True) if context.emulator else (False,):
            for variant in self.request.variants:
                if variant != "student":
                    targets = [f"{lab}_{variant}{'_emu' if emulated else ''}" for lab in labs]
                    build.compile_targets(context.tree, targets, timeout, keep_going=True)
            if students and submitted:
                try:
                    build.prepare_student(context.tree, submitted, timeout, emulated)
                except GraderError:
                    continue  # each lab meets the failure itself, as the grader's
                steps = [context.student(lab, emulated) for lab in submitted]
                context.compiled_ahead |= build.compile_ahead(steps, min(timeout, build.AHEAD_LIMIT_S))
        self.built_ahead_seconds = round(time.monotonic() - started, 1)

    # BuildTree, not build.BuildTree: in the class's body, `build` is the method above.
    def _prepare_tree(self, say: Callable[[str], None]) -> tuple[BuildTree, StudentWork]:
        request = self.request
        labs = [lab.name for lab in self.config.labs]
        tree = build.BuildTree(request.build_dir, choose_arch(request.arch, self.device), request.calibration_kernels)
        submitted = request.submission.resolve()
        if submitted == SHIPPED_LABS.resolve() and request.work_dir is None:
            work = checkout_work(tree, SHIPPED_LABS, labs)
        else:
            # A submission: only its kernel.cu files are built, copied into the grade's own folder.
            try:
                submission = read_submission(submitted, labs)
            except SubmissionError as error:
                raise CannotGrade(f"cannot grade this submission: {error}") from error
            root = (request.work_dir or request.build_dir.with_name(request.build_dir.name + "-student")).resolve()
            self.files_used = assemble_student_dir(self.config, submission, root / "submission")
            self.files_ignored = submission.ignored
            self.not_submitted = [lab for lab in labs if lab not in submission.kernels]
            self.kernel_sha256 = {lab: submission.digest(lab) for lab in labs}
            work = StudentWork(root / "steps", {lab: root / "submission" / lab / "kernel.cu" for lab in labs})
        say(f"Configuring the build in {tree.directory} (nvcc -arch={tree.gpu_arch})")
        # The build tree as it was set up, where nothing changed (build.configure).
        outcome = build.configure(tree, self.config.timeouts["build"], reuse=True, emulated=not self.device.present)
        if not outcome.ok:
            raise CannotGrade(f"the build could not be set up ({outcome.how_it_ended()}):\n{outcome.tail(15)}")
        # What an earlier grade's steps left in this work folder goes before this one's first step.
        shutil.rmtree(work.root, ignore_errors=True)
        return tree, work


def shown_submission(submission: Path) -> str:
    """A submission as its reports name it: inside the checkout, its path there (labs); else its own name
    (carol.zip), never the folders of the machine that graded it."""
    resolved = submission.resolve()
    return str(resolved.relative_to(REPO_ROOT)) if resolved.is_relative_to(REPO_ROOT) else submission.name


class LabSeconds:
    """How long each lab worked in this build folder's last run, its waits for the build folder and the GPU left
    out. The labs graded at once start longest first: they take turns to build (one Ninja at a time), and the
    one with the longest way through its steps (Lab 4, its racecheck about 20 s on the H100; Lab 10, its tests
    and its benchmark) ends the run, so it should not wait for the others' builds. A lab this folder has not
    graded yet counts its reference solution's steps on this GPU, one after another (the thresholds file's
    [reference_seconds]); with neither, the labs start in their order."""

    def __init__(self, build_dir: Path, reference: dict[str, dict[str, float]] | None = None) -> None:
        self.path = build_dir / "lab-seconds.json"
        self.reference = {lab: sum(steps.values()) for lab, steps in (reference or {}).items()}
        try:
            self.seconds: dict[str, float] = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.seconds = {}

    def longest_first(self, jobs: list[tuple[Lab, str]]) -> list[int]:
        """The positions in `jobs` of its (lab, variant) pairs, in the order they should start."""

        def last_time(at: int) -> float:
            lab, variant = jobs[at]
            return float(self.seconds.get(f"{lab.name} {variant}", self.reference.get(lab.name, 0.0)))

        return sorted(range(len(jobs)), key=last_time, reverse=True)  # stable: the labs' own order among equals

    def save(self, grades: list[LabGrade]) -> None:
        for grade in grades:
            waits = grade.steps.get(WAITING_TO_BUILD, 0.0) + grade.steps.get(WAITING_FOR_THE_GPU, 0.0)
            self.seconds[f"{grade.lab} {grade.variant}"] = round(grade.seconds - waits, 1)
        try:
            self.path.write_text(json.dumps(self.seconds, indent=1, sort_keys=True))
        except OSError:
            pass  # only an order for the next run


def default_jobs(device: gpu.Gpu, labs: int) -> int:
    """Labs graded at once: with a GPU, every lab (and variant) of the run, up to one per CPU core; they wait
    for each other only for the build folder, where the GPU must be theirs alone (a benchmark's launches) and
    for the GPU's performance monitors (one ncu run at a time). On the
    CPU emulator, which keeps the cores busy by itself, one."""
    return max(1, min(labs, os.cpu_count() or 1)) if device.present else 1


def choose_arch(requested: str, device: gpu.Gpu) -> str:
    """nvcc's -arch. "native" is named here as the GPU's own sm_XY: a student's kernel.cu compiles in the sandbox,
    where nvcc sees no GPU, and there its native quietly falls back to its oldest target (sm_75), whose code the
    driver then compiles again at load, and whose resource report is not the GPU's."""
    if requested not in ("auto", "native"):
        return requested
    if device.present:
        return "sm_" + device.compute_capability.replace(".", "")
    if requested == "native":
        raise UsageError(f"--arch native needs a GPU here: {device.reason}")
    return "sm_90"


def select_labs(config: Config, keys: list[str]) -> list[Lab]:
    """The labs named (by number or name), or every lab; an unknown one is a usage error."""
    try:
        return [config.lab(key) for key in keys] if keys else config.labs
    except KeyError as error:
        raise UsageError(error.args[0]) from error


def read_target(path: Path) -> Target:
    try:
        return load_target(path)
    except (OSError, ValueError, KeyError) as error:
        raise UsageError(f"--target {path}: cannot be read as a thresholds file ({error})") from error


def start(request: GradeRequest) -> Session:
    """Checks the request and decides the run's device, thresholds, seed and sizes. Raises UsageError for
    anything the caller named that does not exist or cannot be read."""
    config = load_config()
    config.step_cap = request.step_timeout or None
    labs = select_labs(config, request.labs)
    if request.jobs is not None and request.jobs < 1:
        raise UsageError(f"--jobs {request.jobs}: at least 1 lab must be graded at a time")
    device = gpu.detect_gpu()
    target = read_target(request.target) if request.target else find_target(device.name) if device.present else None
    notes = []
    if sandbox.unavailable():
        notes.append(
            f"No sandbox: {sandbox.unavailable()}. The submission's programs ran with this user's rights, "
            "able to read and change what it can (SECURITY.md)."
        )
    if device.present and target is None:
        notes.append(f"No thresholds for {device.name}: performance is not graded. Run ./cml calibrate first.")
    try:
        instructor_sizes = load_instructor_sizes(request.instructor_sizes) if request.instructor_sizes else {}
        seed = request.seed if request.seed is not None else secrets.randbits(48)
        for lab in labs:
            lab_sizes(lab, seed, instructor_sizes)  # a malformed instructor size is a usage error, up front
    except (OSError, ValueError) as error:
        raise UsageError(f"--instructor-sizes: {error}") from error
    return Session(request, config, labs, device, target, seed, instructor_sizes, notes)
