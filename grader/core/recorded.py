"""A grade read back from its JSON (grade.json: `./cml grade --json`, and each student's in a batch): the one
place that knows the file's layout. It checks every field it reads and says where a file is wrong, so that a
malformed file, or one written by a grader too old to hold what is asked of it, fails with its path and field
named instead of a KeyError deep inside an export.

A field that later graders added reads as its default where an older file lacks it; a field that a reader
must tell absent from empty (a lab's seed, a check's `measured`) is None or flagged. Each entry keeps the JSON
it was read from (`source`), for the commands that cut or merge grades and write them back unchanged."""

from __future__ import annotations

import json
import re
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any

from grader.core.access import AccessDataError, AccessPicture, picture_from
from grader.core.config import Thresholds
from grader.core.model import BenchResult, Category, Check, GroupRates, KernelResources, KernelTiming, Status

REQUIRED: Any = MISSING  # no default: the field must be there
NUMBER = (int, float)  # kept as written: an integer stays one, as the exports print it
# How a speed check's detail begins ('x3.55 (threshold x2.90): ...'): where a grade written before checks
# carried `measured` and `threshold` holds them.
MEASURED_IN_DETAIL = re.compile(r"^x?([0-9.]+) \(threshold x?([0-9.]+)\)")


class GradeFileError(ValueError):
    """A grade's JSON that cannot be read as one: where, and what is wrong."""


def _where(where: str, key: str | int) -> str:
    return f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}" if where else key


class _Entry:
    """One JSON object of the file, read field by field; every error names the file and the field's path."""

    def __init__(self, data: Any, where: str, source: str) -> None:
        if not isinstance(data, dict):
            raise GradeFileError(f"{source}: {where or 'the file'} is not a JSON object: {_shown(data)}")
        self.data, self.where, self.source = data, where, source

    def error(self, key: str, what: str) -> GradeFileError:
        return GradeFileError(f"{self.source}: {_where(self.where, key)} {what}")

    def get(self, key: str, kinds: type | tuple[type, ...], default: Any = REQUIRED, optional: bool = False) -> Any:
        """The field, checked to be of `kinds` (or null where `optional`); `default` where it is absent."""
        if key not in self.data:
            if default is REQUIRED:
                raise self.error(key, "is missing: not a grade the grader wrote, or one too old to read; grade again")
            return default
        value = self.data[key]
        if value is None and optional:
            return None
        if not _is_of(value, kinds):
            raise self.error(key, f"is {_shown(value)}, not {_kind_words(kinds)}")
        return value

    def entries(self, key: str, default: Any = REQUIRED) -> list[_Entry]:
        """A list of JSON objects, each as an _Entry; none where it is null and may be absent."""
        items = self.get(key, list, default, optional=default is not REQUIRED) or []
        where = _where(self.where, key)
        return [_Entry(item, _where(where, index), self.source) for index, item in enumerate(items)]

    def by_name(self, key: str, values: type | tuple[type, ...] = str) -> dict[str, Any]:
        """A JSON object of names to `values`, empty where absent."""
        found = self.get(key, dict, {}, optional=True) or {}
        for name, value in found.items():
            if not _is_of(value, values):
                raise self.error(f"{key}.{name}", f"is {_shown(value)}, not {_kind_words(values)}")
        return found

    def strings(self, key: str) -> list[str]:
        found = self.get(key, list, [], optional=True) or []
        if not all(isinstance(item, str) for item in found):
            raise self.error(key, "is not a list of texts")
        return found


def _is_of(value: Any, kinds: type | tuple[type, ...]) -> bool:
    """Whether a JSON value is of `kinds`, where a float may be written as an integer and true is no number."""
    kinds = NUMBER if kinds is float else kinds
    return isinstance(value, kinds) and not (isinstance(value, bool) and bool not in _as_tuple(kinds))


def _as_tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _kind_words(kinds: type | tuple[type, ...]) -> str:
    names = {
        str: "a text",
        bool: "true or false",
        int: "a number",
        float: "a number",
        list: "a list",
        dict: "an object",
    }
    return " or ".join(dict.fromkeys(names[kind] for kind in _as_tuple(kinds)))


# A model field's annotation (a string: the model's modules defer them) -> the JSON kinds it takes, and whether
# null is one of them.
ANNOTATIONS: dict[Any, tuple[type, bool]] = {
    "str": (str, False),
    "bool": (bool, False),
    "int": (int, False),
    "float": (float, False),
    "float | None": (float, True),
    "list[str]": (list, False),
}


def _fields(entry: _Entry, model: type, older: dict[str, Any] | None = None, skip: tuple[str, ...] = ()) -> dict:
    """The fields of one of the model's dataclasses, each checked against its annotation: a field without a default
    must be there, unless `older` gives what a grade written before the field existed reads as."""
    found = {}
    for spec in fields(model):
        if spec.name in skip:
            continue
        kinds, optional = ANNOTATIONS[spec.type]
        default = spec.default if spec.default_factory is MISSING else spec.default_factory()
        default = (older or {}).get(spec.name, default)
        if kinds is list:
            found[spec.name] = entry.strings(spec.name)
        else:
            found[spec.name] = entry.get(spec.name, kinds, default, optional=optional)
    return found


def _enum(entry: _Entry, key: str, kind: type[Status] | type[Category]) -> Any:
    value = entry.get(key, str)
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(repr(member.value) for member in kind)
        raise entry.error(key, f"is {value!r}, none of {allowed}") from None


@dataclass
class RecordedCheck(Check):
    """A check as the file holds it. `figures_recorded` is False in a grade written before checks carried
    `measured` and `threshold`: such a grade holds its figures only in the detail's text."""

    figures_recorded: bool = True

    def figures(self) -> tuple[float, float] | None:
        """A speed check's measured ratio and the threshold it was graded against; None where it had none (not
        graded on this GPU, not measured, not a speed check). An older grade's are read from its detail."""
        if self.category is not Category.PERFORMANCE:
            return None
        if self.figures_recorded:
            return None if self.measured is None or self.threshold is None else (self.measured, self.threshold)
        match = MEASURED_IN_DETAIL.match(self.detail)
        return (float(match[1]), float(match[2])) if match else None


def _check(entry: _Entry) -> RecordedCheck:
    return RecordedCheck(
        category=_enum(entry, "category", Category),
        status=_enum(entry, "status", Status),
        **_fields(entry, Check, skip=("category", "status", "access")),
        access=_access(entry),
        figures_recorded="measured" in entry.data,
    )


def _access(entry: _Entry) -> AccessPicture | None:
    """A check's picture of its accesses; None in a grade written before checks had one."""
    data = entry.get("access", dict, None, optional=True)
    try:
        return None if data is None else picture_from(data, _where(entry.where, "access"))
    except AccessDataError as error:
        raise GradeFileError(f"{entry.source}: {error}") from error


def _timing(entry: _Entry) -> KernelTiming:
    # A lab timed at one setting, in a grade written before benchmarks had groups: its one group is "".
    return KernelTiming(**_fields(entry, KernelTiming, older={"group": ""}))


def _bench(entry: _Entry) -> BenchResult:
    return BenchResult(
        device=entry.get("device", str),
        copy_gbps=entry.get("copy_gbps", float),
        problem=entry.get("problem", str),
        kernels=[_timing(kernel) for kernel in entry.entries("kernels")],
    )


def _rates(entry: _Entry) -> GroupRates:
    return GroupRates(**_fields(entry, GroupRates, older={"roofline_fraction": None}))


def _thresholds(entry: _Entry) -> Thresholds:
    return Thresholds(**_fields(entry, Thresholds))


def _resources(entry: _Entry) -> KernelResources:
    return KernelResources(**_fields(entry, KernelResources))


@dataclass
class RecordedLab:
    """One lab's entry: a LabGrade as the grader wrote it, with its verdict and the thresholds it was graded
    against. Fields a grader added after the first are optional."""

    lab: str
    title: str
    variant: str  # "student" or "solution"
    kernel_path: str
    verdict: str  # "passed", "failed", "incomplete", "emulator limit" or "not submitted"
    points: float
    max_points: float
    checks: list[RecordedCheck]
    bench: BenchResult | None = None
    rates: list[GroupRates] = field(default_factory=list)
    thresholds: dict[str, Thresholds] = field(default_factory=dict)  # by benchmark group
    ungraded_points: float = 0.0
    seconds: float | None = None  # None in a grade written before labs recorded how long they took
    steps: dict[str, float] = field(default_factory=dict)
    program_seconds: dict[str, float] = field(default_factory=dict)
    gpu_alone_seconds: float = 0.0
    seed: int | None = None  # None in a grade written before labs recorded their seed
    grader_sizes: list[str] = field(default_factory=list)
    resources: list[KernelResources] = field(default_factory=list)
    resources_problem: str = ""
    source: dict = field(default_factory=dict, repr=False, compare=False)  # the entry as read

    @property
    def label(self) -> str:
        """'01_vector_add', or '01_vector_add (solution)' when the reference solution was graded."""
        return self.lab if self.variant == "student" else f"{self.lab} ({self.variant})"


def _lab(entry: _Entry) -> RecordedLab:
    bench = entry.get("bench", dict, None, optional=True)
    thresholds = entry.get("thresholds", dict, {}, optional=True) or {}
    where = _where(entry.where, "thresholds")
    return RecordedLab(
        lab=entry.get("lab", str),
        title=entry.get("title", str),
        variant=entry.get("variant", str),
        kernel_path=entry.get("kernel_path", str),
        verdict=entry.get("verdict", str),
        points=entry.get("points", float),
        max_points=entry.get("max_points", float),
        checks=[_check(check) for check in entry.entries("checks")],
        bench=_bench(_Entry(bench, _where(entry.where, "bench"), entry.source)) if bench else None,
        rates=[_rates(rates) for rates in entry.entries("rates", [])],
        thresholds={
            group: _thresholds(_Entry(values, _where(where, group), entry.source))
            for group, values in thresholds.items()
        },
        ungraded_points=entry.get("ungraded_points", float, 0.0),
        seconds=entry.get("seconds", float, None, optional=True),
        steps=entry.by_name("steps", NUMBER),
        program_seconds=entry.by_name("program_seconds", NUMBER),
        gpu_alone_seconds=entry.get("gpu_alone_seconds", float, 0.0),
        seed=entry.get("seed", int, None, optional=True),
        grader_sizes=entry.strings("grader_sizes"),
        resources=[_resources(kernel) for kernel in entry.entries("resources", [])],
        resources_problem=entry.get("resources_problem", str, "", optional=True) or "",
        source=entry.data,
    )


@dataclass
class RecordedRun:
    """A whole grade: its labs, its score, and the run's facts (session.facts, and what a batch adds: the
    student, the roster's columns, lateness, why a submission was not graded). A fact the file lacks is None,
    or empty."""

    labs: list[RecordedLab]
    score: float
    max_score: float
    device: str | None = None  # the GPU's name; None on a machine without one
    gpu_reason: str | None = None  # why there is no GPU
    target: str | None = None  # the thresholds file
    cpu_emulator: bool = False
    seed: int | None = None
    graded_at: str | None = None
    timestamp: str | None = None  # what a run written before graded_at holds instead
    seconds: float | None = None  # the run's wall time
    built_ahead_seconds: float | None = None
    jobs: int | None = None
    notes: list[str] = field(default_factory=list)
    files_ignored: list[str] = field(default_factory=list)
    kernel_sha256: dict[str, str] = field(default_factory=dict)
    student: str | None = None  # a batch's student, and the roster's columns for them
    name: str | None = None
    sid: str | None = None
    email: str | None = None
    submitted_at: str | None = None
    late: dict | None = None  # late.apply's record: due, days, kept, score_before, policy
    grader_errors: dict[str, str] = field(default_factory=dict)  # a batch's labs the grader failed on, and why
    refused: str | None = None  # why a batch refused the submission
    unreadable: str | None = None  # why the submission could not be read
    source: dict = field(default_factory=dict, repr=False, compare=False)  # the run as read


TEXTS = ("device", "gpu_reason", "target", "graded_at", "student", "name", "sid", "email", "submitted_at")


def read_grade(data: Any, source: str = "grade.json") -> RecordedRun:
    """The grade in `data` (a grade's JSON, loaded), checked; GradeFileError names the file (`source`) and the
    field where it is not one."""
    run = _Entry(data, "", source)
    return RecordedRun(
        labs=[_lab(lab) for lab in run.entries("labs")],
        score=run.get("score", float),
        max_score=run.get("max_score", float),
        **{key: run.get(key, str, None, optional=True) for key in TEXTS},
        cpu_emulator=bool(run.get("cpu_emulator", bool, False, optional=True)),
        seed=run.get("seed", int, None, optional=True),
        timestamp=_text_or_none(run.data.get("timestamp")),
        seconds=run.get("seconds", float, None, optional=True),
        built_ahead_seconds=run.get("built_ahead_seconds", float, None, optional=True),
        jobs=run.get("jobs", int, None, optional=True),
        notes=run.strings("notes"),
        files_ignored=[str(name) for name in run.get("files_ignored", list, [], optional=True) or []],
        kernel_sha256=run.by_name("kernel_sha256"),
        late=run.get("late", dict, None, optional=True),
        grader_errors=run.by_name("grader_errors"),
        refused=run.get("refused", str, None, optional=True),
        unreadable=run.get("unreadable", str, None, optional=True),
        source=data,
    )


def _text_or_none(value: Any) -> str | None:
    return str(value) if value else None


def load_grade(path: Path) -> RecordedRun:
    """read_grade of a file; GradeFileError also where it is no JSON at all."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise GradeFileError(f"{path}: not a grade's JSON: {error}") from error
    return read_grade(data, str(path))
