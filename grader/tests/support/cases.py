"""The suite's cases (attacks, planted fixtures, variants, the emulator's own kernels): each a kernel.cu graded as
a submission, either end to end or judged from the evidence a grade of it recorded, wherever what made that
evidence has not changed (grader/grading/evidence_key.py). A case whose key changed is graded again end to end,
and its evidence file is written anew, to be committed with the change that moved it: a stale verdict is never
judged. A case marked end to end is always graded, whatever its evidence: the suite's sample of whole grades.

Evidence recorded on a GPU is judged the same way, against that GPU's thresholds, and says so; where it is older
than the kernel, the harness or the grader's code, it is stale, and the case says that it needs a GPU again."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

from grader.core.config import REPO_ROOT, find_target, load_config
from grader.core.model import LabGrade
from grader.core.recorded import RecordedLab, read_grade
from grader.execution.gpu import Gpu
from grader.grading.evidence import LabEvidence, read_evidence, to_data
from grader.grading.evidence_key import KeyInputs, key_inputs
from grader.grading.judge import judge
from grader.grading.session import GradeRequest, start
from grader.reporting import report

EVIDENCE_DIR = Path(__file__).resolve().parents[1] / "evidence"
EMULATOR = "CPU emulator"


@dataclass
class Case:
    """A submission of one kernel.cu, graded with these options."""

    suite: str  # "attacks", "fixtures", "variants", "kernels": the folder of its evidence
    name: str
    lab: str
    kernel: bytes
    seed: int
    static_checks: bool = True
    mechanisms: bool = True
    variants: tuple[str, ...] = ("student",)  # ("solution", "student"): the solution built first
    step_timeout: float | None = None
    end_to_end: bool = False  # always graded whole, never judged from evidence
    # False for a kernel.cu made anew on each machine and in each run (compiler IR from this machine's gcc):
    # there is no evidence of it to keep.
    recorded: bool = True
    # False where two grades of the same bytes may differ: a kernel that writes past its arrays corrupts what
    # lies there, and whether a run survives that may move from one grade to the next.
    repeatable: bool = True

    def options(self) -> dict[str, object]:
        return {
            "seed": self.seed,
            "static_checks": self.static_checks,
            "mechanisms": self.mechanisms,
            "step_timeout": self.step_timeout,
        }


@dataclass
class Judged:
    """A case's lab entries (as the grade's JSON holds them: the student's last), and how they were made."""

    labs: list[dict]
    how: str  # "graded end to end", or "judged from evidence recorded on MACHINE at COMMIT"
    changed: list[str] = field(default_factory=list)  # why it was graded again: the parts of its key that moved

    @property
    def student(self) -> dict:
        return next(lab for lab in self.labs if lab["variant"] == "student")


def recorded_lab(entry: dict) -> RecordedLab:
    """A lab's entry of a grade's JSON, read as the grader's tools read it (its checks typed)."""
    (lab,) = read_grade({"labs": [entry], "score": 0, "max_score": 0}).labs
    return lab


def machine_name(device: Gpu) -> str:
    return device.name if device.present else EMULATOR


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def evidence_file(case: Case, machine: str) -> Path:
    return EVIDENCE_DIR / case.suite / f"{case.name}.{slug(machine)}.json"


def current_inputs(case: Case, machine: str) -> KeyInputs:
    return key_inputs(case.lab, case.kernel, case.variants, machine, case.options())


def commit() -> str:
    """The commit the evidence is recorded at, and '+changes' where the checkout differs from it. A copy of the
    checkout (a lent GPU machine's) is named by CML_SOURCE_COMMIT, set where it was copied: its own history, where
    it has one, may be older than its files."""
    if os.environ.get("CML_SOURCE_COMMIT"):
        return os.environ["CML_SOURCE_COMMIT"]
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True)
    # The evidence files a run writes are no part of any key: they do not make the checkout differ.
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", ".", ":!grader/tests/evidence"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "") if head.returncode == 0 else "unknown"


def read_recorded(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def judged_grades(recorded: dict, machine: str) -> list[LabGrade]:
    """The lab grades of recorded evidence, judged now (against the thresholds of the GPU it was recorded on)."""
    config = load_config()
    target = find_target(machine) if machine != EMULATOR else None
    device = f"{machine} in {target.shown_path()}" if target else machine
    grades = []
    for data in recorded["labs"]:
        evidence: LabEvidence = read_evidence(data)
        lab = config.lab(evidence.lab)
        grades.append(judge(lab, evidence, target.for_lab(lab.name) if target else {}, device))
    return grades


def judged(recorded: dict, machine: str) -> list[dict]:
    """The lab entries of recorded evidence, judged now, as a grade's JSON holds them."""
    target = find_target(machine) if machine != EMULATOR else None
    return run_labs(report.run_dict(judged_grades(recorded, machine), {}, target))


def run_labs(run: dict) -> list[dict]:
    """Every lab entry of a run's JSON: the student's, and the solution's where both were graded."""
    return [*run.get("solution", {}).get("labs", []), *run["labs"]]


def graded(case: Case, build_dir: Path, work_dir: Path, device: Gpu) -> tuple[list[dict], list[LabEvidence]]:
    """The case graded end to end as a submission, in the build folder the tests share."""
    submission = work_dir / "submission"
    (submission / case.lab).mkdir(parents=True, exist_ok=True)
    (submission / case.lab / "kernel.cu").write_bytes(case.kernel)
    request = GradeRequest(
        labs=[case.lab],
        submission=submission,
        build_dir=build_dir,
        seed=case.seed,
        mechanisms=case.mechanisms,
        bench=True,  # on a GPU, timed; without one, said not to be
        variants=case.variants,
        jobs=1,  # one variant after the other: the solution is built before the submission
        step_timeout=case.step_timeout,
        work_dir=work_dir / "work",
    )
    session = start(request)
    context = session.build()
    context.static_checks = case.static_checks
    grades = session.grade()
    return run_labs(report.run_dict(grades, session.facts())), session.evidence


def judge_case(case: Case, build_dir: Path, work_dir: Path, device: Gpu) -> Judged:
    """The case's lab entries: judged from its recorded evidence where its key is today's, else graded end to
    end, its evidence written anew."""
    machine = machine_name(device)
    inputs = current_inputs(case, machine)
    path = evidence_file(case, machine)
    recorded = read_recorded(path)
    if recorded and not case.end_to_end and recorded.get("key") == inputs.key():
        return Judged(judged(recorded, machine), f"judged from evidence recorded on {machine} at {recorded['commit']}")
    labs, made = graded(case, build_dir, work_dir, device)
    if recorded and recorded.get("key") == inputs.key() and machine == EMULATOR and case.repeatable:
        # A sample graded whole beside the judgement of its recorded evidence: the split into evidence and
        # judgement is proven in every run where both exist. (On a GPU, timings move between runs.)
        assert_same_checks(labs, judged(recorded, machine))
    changed = inputs.changed(recorded["inputs"]) if recorded else ["no evidence recorded"]
    if case.recorded and not (recorded and recorded.get("key") == inputs.key()):
        # Evidence of the same key stays as it was recorded.
        record(path, inputs, machine, made, {"work": work_dir, "build": build_dir})
    return Judged(labs, "graded end to end", [] if case.end_to_end else changed)


def assert_same_checks(whole: list[dict], from_evidence: list[dict]) -> None:
    """The lab entries of a whole grade and of its recorded evidence judged now give each check the same status,
    and each lab the same verdict."""

    def statuses(labs: list[dict]) -> dict[str, tuple[str, dict[str, str]]]:
        return {
            f"{lab['variant']} {lab['lab']}": (lab["verdict"], {c["name"]: c["status"] for c in lab["checks"]})
            for lab in labs
        }

    now, recorded = statuses(whole), statuses(from_evidence)
    moved = [
        f"{lab}: {name}: {now[lab][1].get(name, '-')} whole, {recorded[lab][1].get(name, '-')} from evidence"
        for lab in now.keys() & recorded.keys()
        for name in now[lab][1].keys() | recorded[lab][1].keys()
        if now[lab][1].get(name) != recorded[lab][1].get(name)
    ]
    assert now == recorded, f"the whole grade and its recorded evidence, judged, differ: {moved}"


# What a recorded file names of the machine that made it, in the programs' own words (a sanitizer's report quotes
# the kernel.cu it ran; a compiler's error, its headers): each folder as a word, never as the machine's path.
FOLDERS = (("<work>", "work"), ("<build>", "build"), ("<checkout>", "checkout"))
ANY_TMP = re.compile(r"/tmp/[^\s\"':]+")


def record(
    path: Path, inputs: KeyInputs, machine: str, made: list[LabEvidence], folders: dict[str, Path] | None = None
) -> None:
    """Writes the evidence a grade made, with its key and what went into it; the machine's folders (`folders`:
    work, build) as words."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "key": inputs.key(),
        "recorded_on": machine,
        "commit": commit(),
        "inputs": asdict(inputs),
        "labs": [to_data(evidence) for evidence in made],
    }
    text = json.dumps(data, indent=1, sort_keys=False)
    places = {**(folders or {}), "checkout": REPO_ROOT}
    for word, name in FOLDERS:
        if name in places:
            text = text.replace(str(places[name].resolve()), word).replace(str(places[name]), word)
    path.write_text(ANY_TMP.sub("<tmp>", text) + "\n")


def gpu_evidence(case: Case) -> list[tuple[str, Judged | str]]:
    """Each GPU's recorded evidence of the case: its judged entries, or why it is stale. The GPU's own tools and
    machine are taken as recorded; every other part of the key must be today's."""
    found: list[tuple[str, Judged | str]] = []
    for path in sorted(EVIDENCE_DIR.glob(f"{case.suite}/{case.name}.*.json")):
        recorded = read_recorded(path)
        if not recorded or recorded.get("recorded_on", EMULATOR) == EMULATOR:
            continue
        machine = recorded["recorded_on"]
        now = current_inputs(case, machine)
        as_recorded = KeyInputs(**{**now.__dict__, "tools": recorded["inputs"]["tools"]})
        if recorded.get("key") != as_recorded.key():
            moved = ", ".join(as_recorded.changed(recorded["inputs"]))
            found.append((machine, f"the evidence recorded on {machine} at {recorded['commit']} is stale ({moved})"))
            continue
        how = f"judged from evidence recorded on {machine} at {recorded['commit']}"
        found.append((machine, Judged(judged(recorded, machine), how)))
    return found
