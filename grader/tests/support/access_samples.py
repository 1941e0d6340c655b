"""Recorded pictures of accesses, for the tests of what draws them: for a planted kernel of grader/tests/fixtures,
what its grade's steps record to draw its memory counter checks (the CPU emulator's lines of its checked launches,
with each line's worst request, and the reference solution's at the same size; nvcc's resource report and the
machine code of each source line), in grader/tests/data/access/FIXTURE.json. Judged here into checks as a grade
judges them, in milliseconds.

test_access_emulated.py (slow tier) records each sample anew from the emulator and nvcc and compares it with the
file; CML_REFRESH_ACCESS_SAMPLES=1 writes it instead."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from grader.core.access import LineAccess
from grader.core.config import Lab, load_config
from grader.core.model import Check, LabGrade
from grader.execution import proc
from grader.grading import judge
from grader.grading.evidence import Facts, LabEvidence, from_data, to_data
from grader.reporting.score import score
from grader.steps import access
from grader.steps.profile import CounterRun
from grader.steps.resources import ResourceReport
from grader.steps.sass_lines import MachineLines

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "access"
# fixture -> what it plants; the first four are the issue's hand-worked cases and the other labs' counters
FIXTURES = {
    "01_lanes_32_apart": "Lab 1's lanes 32 floats apart: each lane its own sector",
    "03_naive_from_global": "Lab 3's window read from global memory: no reuse through a tile",
    "05_no_padding": "Lab 5's unpadded tile, read down a column: all 32 lanes in one bank",
    "07_coefficients_in_global": "Lab 7's coefficients behind a global pointer: a load request per coefficient",
}
LOCAL_SAMPLE = "08_skeleton"  # Lab 8's skeleton as shipped: its window in local memory (machine code only)
OK = proc.Outcome(["recorded"], 0, "", "", 60.0)


@dataclasses.dataclass
class RoleRun:
    totals: dict[str, float]
    kernels: int
    lines: list[LineAccess]


@dataclasses.dataclass
class GroupSample:
    size: int
    roles: dict[str, RoleRun]
    reference: list[LineAccess]  # the solution's, at the same size


@dataclasses.dataclass
class Sample:
    lab: str
    fixture: str
    groups: dict[str, GroupSample]
    report: ResourceReport
    machine_lines: MachineLines


def path_of(name: str) -> Path:
    return SAMPLES / f"{name}.json"


def load(name: str) -> dict:
    return json.loads(path_of(name).read_text())


def write(name: str, sample: dict) -> None:
    SAMPLES.mkdir(parents=True, exist_ok=True)
    path_of(name).write_text(json.dumps(sample, indent=1, sort_keys=True) + "\n")


def evidence(data: dict, gpu: str = "", gpu_totals: dict | None = None) -> LabEvidence:
    """A lab's evidence holding what the sample recorded, as a grade on the CPU emulator records it; with `gpu`,
    as a grade on that GPU records it: the counters the GPU's (`gpu_totals`: group -> role -> its totals; by default
    the emulator's, which Nsight Compute's equal at these sizes, results/emulator.md), the emulator's run of its own
    beside them."""
    sample = from_data(Sample, data)
    found = LabEvidence(
        sample.lab, "student", f"labs/{sample.lab}/kernel.cu", f"labs/{sample.lab}/kernel.cu", 1, [], Facts()
    )
    found.facts = Facts(emulator=not gpu, gpu_present=bool(gpu), gpu_name=gpu, ncu=bool(gpu))
    found.report, found.machine_lines = sample.report, sample.machine_lines
    for group, recorded in sample.groups.items():
        runs = {
            role: CounterRun(OK, dict(run.totals), run.kernels, "the CPU emulator", lines=[*run.lines])
            for role, run in recorded.roles.items()
        }
        drawn = access.AccessRuns(size=recorded.size, reference=recorded.reference, reference_name=access.SOLUTION)
        if gpu:
            drawn.emulated = runs
            runs = {role: dataclasses.replace(run, tool="CUPTI", lines=[]) for role, run in runs.items()}
        found.counters[group] = runs
        found.access[group] = drawn
    for group, roles in (gpu_totals or {}).items():
        found.counters[group] = {role: CounterRun(OK, totals, 1, "CUPTI") for role, totals in roles.items()}
    return found


def memory_checks(lab: Lab, found: LabEvidence) -> list[Check]:
    """The lab's counter checks about memory, judged from the evidence as a grade judges them."""
    report = found.report or ResourceReport(problem="not read")
    return [
        judge.mechanism_check(lab, mechanism, True, found, report)
        for mechanism in lab.mechanisms
        if access.counted_by(mechanism) and not mechanism.stretch
    ]


def grade(name: str, gpu: str = "", gpu_totals: dict | None = None) -> LabGrade:
    """The sample's memory counter checks, judged, as the lab's grade (its other checks left out)."""
    found = evidence(load(name), gpu, gpu_totals)
    lab = load_config().lab(found.lab)
    checks = memory_checks(lab, found)
    for check in checks:  # as judge.judge shows the graded file's paths to the student
        check.detail = judge.student_paths(check.detail, lab, found.shown_path)
    result = LabGrade(lab.name, lab.title, "student", found.kernel_path, checks=checks, seed=20261123)
    return score(result, lab.points)


def sample_data(sample: Sample) -> dict:
    return to_data(sample)
