"""What a lab's steps made of a submission, before anything is judged: the build and its integrity, the
compiler's resource report and machine code, the test program's run, each sanitizer's and the schedule's, the
counters, the benchmark's runs, and what the machine had to make them with. The checks decide from this alone
(grader/grading/judge.py), so the same evidence can be judged again, in milliseconds, against other thresholds or
by a changed check, and recorded evidence stands in for a grade wherever what made it has not changed
(grader/grading/recorded_evidence.py).

Evidence goes to and from JSON here, typed: every field is read back as the dataclass that wrote it. A program's
output is kept as its last lines only, all that a check ever shows of it."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.core import atomic
from grader.execution import proc
from grader.steps.access import AccessRuns
from grader.steps.bench import BenchRun
from grader.steps.profile import CounterRun
from grader.steps.resources import ResourceReport
from grader.steps.sanitize import SanitizerRun
from grader.steps.sass import SassReport
from grader.steps.sass_lines import MachineLines
from grader.steps.suite import SuiteRun

OUTPUT_LINES_KEPT = 60  # of a program's output: a check shows at most its last 20 lines
OUTPUT_CHARS_KEPT = 64 << 10


@dataclass
class Facts:
    """What the machine and the run had for a lab's grade: they decide what could run, and say why not."""

    emulator: bool = False  # no GPU: the CPU emulator ran the tests, sanitizers and counters
    gpu_present: bool = False
    gpu_reason: str = ""  # why there is no GPU
    gpu_name: str = ""
    sanitizer: bool = False  # compute-sanitizer was found
    ncu: bool = False
    schedule_recorder: bool = False  # the build has the schedule check's recorder for a GPU
    counters_recorder: bool = False  # the build has the counter checks' recorder for a GPU
    run_mechanisms: bool = True
    run_bench: bool = True
    static_checks: bool = True  # False only in the project's own tests of the defences behind them


@dataclass
class BuildEvidence:
    """The kernel.cu's builds: nvcc's, which decides the build's verdict, and on a machine with no GPU the
    emulator's of the same file."""

    compiled: bool = False  # nvcc made an object of it
    ok: bool = False  # ... and the test and benchmark programs linked
    errors: str = ""  # the compiler's or linker's errors about kernel.cu, where not ok
    integrity: str = ""  # the problems integrity found, one a line; '' where none (or not looked for)
    emulator_ok: bool | None = None  # None: no emulator build was made
    emulator_errors: str = ""
    emulator_integrity: str = ""


@dataclass
class Timing:
    """How long the lab's steps took: seconds per step, and per program run (the longest of each)."""

    steps: dict[str, float] = field(default_factory=dict)
    program_seconds: dict[str, float] = field(default_factory=dict)
    gpu_alone_seconds: float = 0.0
    seconds: float = 0.0  # the lab's whole grade, its waits included


@dataclass
class LabEvidence:
    lab: str
    variant: str
    kernel_path: str  # the graded file as the student knows it
    shown_path: str  # how the graded kernel.cu's path is shown in details
    seed: int
    grader_sizes: list[str]
    facts: Facts
    empty: str = ""  # why the kernel.cu defines nothing the lab's test calls; '' where it names any
    build: BuildEvidence = field(default_factory=BuildEvidence)
    report: ResourceReport | None = None  # None: the build did not get that far
    code: SassReport | None = None
    tests: SuiteRun | None = None  # None: not run
    replay: str = ""  # the command that runs a case again, but for its -tc filter
    runs: dict[str, SanitizerRun] = field(default_factory=dict)  # tool (a sanitizer, or "schedule") -> its run
    counters: dict[str, dict[str, CounterRun]] = field(default_factory=dict)  # group -> role -> its counters
    bench: list[BenchRun] = field(default_factory=list)  # the benchmark's runs: one, or three near a threshold
    timing: Timing = field(default_factory=Timing)
    # What draws a memory counter check's accesses (grader/grading/access_runs.py): per group, the emulator's runs
    # the counters' own did not make; and the machine code of each source line of nvcc's object.
    access: dict[str, AccessRuns] = field(default_factory=dict)
    machine_lines: MachineLines | None = None  # None: not read (no check of the lab is about memory)


# ---- to and from JSON ----

SKIPPED_FIELDS = {(BenchRun, "counters")}  # what the counters recorder said is kept in `counters`, by group


def kept_output(outcome: proc.Outcome) -> proc.Outcome:
    """The outcome with only its last lines of output, all that a check shows of it (Outcome.tail), and no
    command line, which no check reads (it names the folders of the machine that ran it)."""
    text = (outcome.stdout + "\n" + outcome.stderr).strip().splitlines()
    last = proc.bounded("\n".join(text[-OUTPUT_LINES_KEPT:]), OUTPUT_CHARS_KEPT, keep_end=True)
    return dataclasses.replace(outcome, command=[], stdout=last, stderr="")


def to_data(value: Any) -> Any:
    """A plain JSON value of evidence (dataclasses as objects, by field)."""
    if isinstance(value, proc.Outcome):
        value = kept_output(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value)
        return {
            f.name: to_data(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if (kind, f.name) not in SKIPPED_FIELDS
        }
    if isinstance(value, list | tuple):
        return [to_data(item) for item in value]
    if isinstance(value, dict):
        return {str(key): to_data(item) for key, item in value.items()}
    return value


class EvidenceError(ValueError):
    """Recorded evidence that is not of the shape this grader writes."""


def from_data(kind: Any, data: Any, where: str = "evidence") -> Any:
    """`data` read back as `kind` (a dataclass, or list[...], dict[str, ...], X | None, a plain type)."""
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = [option for option in typing.get_args(kind) if option is not type(None)]
        if data is None:
            return None
        return from_data(options[0], data, where)
    if origin is list:
        (item,) = typing.get_args(kind)
        _expect(isinstance(data, list), where, "a list", data)
        return [from_data(item, value, f"{where}[{i}]") for i, value in enumerate(data)]
    if origin is dict:
        _, item = typing.get_args(kind)
        _expect(isinstance(data, dict), where, "an object", data)
        return {key: from_data(item, value, f"{where}.{key}") for key, value in data.items()}
    if dataclasses.is_dataclass(kind):
        _expect(isinstance(data, dict), where, "an object", data)
        hints = typing.get_type_hints(kind)
        values = {
            f.name: from_data(hints[f.name], data[f.name], f"{where}.{f.name}")
            for f in dataclasses.fields(kind)
            if f.name in data and (kind, f.name) not in SKIPPED_FIELDS
        }
        try:
            return typing.cast(Any, kind)(**values)
        except TypeError as error:
            raise EvidenceError(f"{where}: {error}") from error
    if kind is float:
        _expect(isinstance(data, int | float) and not isinstance(data, bool), where, "a number", data)
        return float(data)
    if kind in (int, str, bool):
        _expect(isinstance(data, kind) and (kind is bool or not isinstance(data, bool)), where, kind.__name__, data)
        return data
    return data


def _expect(holds: bool, where: str, what: str, data: Any) -> None:
    if not holds:
        raise EvidenceError(f"{where} is not {what}: {str(data)[:60]}")


def read_evidence(data: Any) -> LabEvidence:
    evidence: LabEvidence = from_data(LabEvidence, data)
    return evidence


def write_evidence(path: Path, labs: list[LabEvidence]) -> None:
    """Each lab's evidence, in a JSON file of its own."""
    atomic.write_text(path, json.dumps({"labs": [to_data(lab) for lab in labs]}, indent=1) + "\n")
