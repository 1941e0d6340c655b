"""The one reader of a grade's JSON (grader/core/recorded.py): it reads back what report.write_json writes, reads
the grades recorded before later fields existed, and names the file and the field where a file is not a grade."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import pytest

from grader.core.config import REPO_ROOT, Thresholds
from grader.core.model import BenchResult, Category, Check, GroupRates, KernelResources, KernelTiming, LabGrade, Status
from grader.core.recorded import GradeFileError, load_grade, read_grade
from grader.reporting.report import run_dict

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDED = [REPO_ROOT / "results" / "h100-grade.json", DATA / "h100-run.json", DATA / "no-gpu-run.json"]


def a_lab_grade() -> LabGrade:
    """A LabGrade with every field set, none of them to its default."""
    timing = KernelTiming("tiled", "student", "R = 32", True, True, "all match", 0.5, 0.01, 900.0, 0.0, 4e6, 0.0)
    timing.problems, timing.timed_launches_verified, timing.host_median_ms = ["L2 settings changed"], 3, 0.6
    bench = BenchResult("H100", 3000.0, "n = 2^24", [timing, dataclasses.replace(timing, role="baseline")])
    speed = Check("speedup over naive (R = 32)", Category.PERFORMANCE, Status.FAILED, "x1.1", "tile it", 0, 10)
    speed.credit, speed.measured, speed.threshold = 0.25, 1.1, 1.4
    return LabGrade(
        lab="03_smoothing_halo",
        title="1D smoothing",
        variant="student",
        kernel_path="labs/03_smoothing_halo/kernel.cu",
        checks=[Check("build", Category.BUILD, Status.PASSED), speed],
        bench=bench,
        rates=[GroupRates("R = 32", "naive", True, True, 1.1, 0.4, 0.35)],
        points=42.5,
        max_points=100,
        ungraded_points=5.0,
        seconds=12.5,
        steps={"build": 3.0, "tests": 4.5},
        program_seconds={"tests": 2.0},
        gpu_alone_seconds=1.5,
        seed=20261123,
        grader_sizes=["4099"],
        resources=[KernelResources("smooth(float const*)", "sm_90", 32, 0, 1024, 0, 392)],
        resources_problem="",
    )


def test_a_grade_reads_back_as_the_lab_grade_that_was_written():
    grade = a_lab_grade()
    run = run_dict([grade], {"device": "H100", "seed": 7, "notes": ["a note"], "files_ignored": ["x.txt"]})
    recorded = read_grade(run)
    (lab,) = recorded.labs
    for spec in dataclasses.fields(LabGrade):
        if spec.name != "checks":
            assert getattr(lab, spec.name) == getattr(grade, spec.name), spec.name
    as_written = [Check(**{f.name: getattr(c, f.name) for f in dataclasses.fields(Check)}) for c in lab.checks]
    assert as_written == grade.checks
    assert lab.verdict == "failed" and lab.label == "03_smoothing_halo" and lab.thresholds == {}
    assert lab.checks[1].figures() == (1.1, 1.4) and lab.source is run["labs"][0]
    assert (recorded.device, recorded.seed, recorded.notes) == ("H100", 7, ["a note"])
    assert recorded.files_ignored == ["x.txt"]
    assert (recorded.score, recorded.max_score, recorded.source) == (42.5, 100, run)


@pytest.mark.parametrize("path", RECORDED, ids=lambda path: path.name)
def test_every_recorded_grade_reads(path):
    recorded = load_grade(path)
    raw = json.loads(path.read_text())
    assert [lab.lab for lab in recorded.labs] == [lab["lab"] for lab in raw["labs"]]
    assert sum(len(lab.checks) for lab in recorded.labs) == sum(len(lab["checks"]) for lab in raw["labs"])
    assert all(isinstance(check.status, Status) for lab in recorded.labs for check in lab.checks)


def a_run() -> dict:
    return json.loads((DATA / "h100-run.json").read_text())


def broken(change) -> dict:
    run = copy.deepcopy(a_run())
    change(run)
    return run


def test_an_older_grade_reads_with_what_it_lacks_marked_as_absent():
    """The H100's recorded run predates the labs' seeds and times and the checks' measured figures."""
    recorded = load_grade(REPO_ROOT / "results" / "h100-grade.json")
    lab = recorded.labs[0]
    assert lab.seed is None and lab.seconds is None and lab.rates == [] and lab.thresholds == {}
    speeds = [c for lab in recorded.labs for c in lab.checks if c.category is Category.PERFORMANCE]
    assert speeds and not any(c.figures_recorded or c.measured is not None for c in speeds)
    # Their figures are read from the detail, as it begins: 'x17.94 (threshold x11.1): 0.298 ms ...'
    assert [c.figures() for c in speeds if c.detail.startswith("x17.94 ")] == [(17.94, 11.1)]
    assert [c.figures() for c in speeds if c.detail.startswith("0.91 ")] == [(0.91, 0.55)]
    assert not any(c.figures() for c in speeds if c.detail.startswith("the benchmarked result was wrong"))
    ungrouped = broken(lambda run: run["labs"][0]["bench"]["kernels"][0].pop("group"))  # before benchmark groups
    assert read_grade(ungrouped).labs[0].bench.kernels[0].group == ""  # type: ignore[union-attr]
    halo = next(lab for lab in load_grade(DATA / "h100-run.json").labs if lab.lab == "03_smoothing_halo")
    assert halo.thresholds["R = 32"] == Thresholds(min_speedup=1.38)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda run: run.pop("labs"), "grade.json: labs is missing"),
        (lambda run: run.update(score="ten"), 'grade.json: score is "ten", not a number'),
        (lambda run: run["labs"][1].pop("variant"), "labs[1].variant is missing"),
        (lambda run: run["labs"][0]["checks"][2].update(status="ok"), "labs[0].checks[2].status is 'ok', none of"),
        (lambda run: run["labs"][0]["checks"][0].update(points=True), "labs[0].checks[0].points is true, not a number"),
        (lambda run: run["labs"][0]["bench"]["kernels"][0].pop("median_ms"), "labs[0].bench.kernels[0].median_ms"),
        (lambda run: run["labs"][0]["bench"]["kernels"][1].update(timed_launches_checked=True), "is true, not a num"),
        (lambda run: run["labs"][2].update(thresholds={"R = 1": {"min_speedup": "x1.2"}}), "thresholds.R = 1.min_"),
        (lambda run: run["labs"].append("03_smoothing_halo"), "labs[7] is not a JSON object"),
        (lambda run: run.update(notes="no GPU"), 'notes is "no GPU", not a list'),
    ],
)
def test_a_malformed_grade_is_refused_with_its_file_and_field_named(change, says):
    with pytest.raises(GradeFileError, match="^grade.json: ") as refused:
        read_grade(broken(change))
    assert says in str(refused.value)


def test_a_file_that_is_no_json_or_no_object_is_refused_with_its_path(tmp_path):
    path = tmp_path / "grade.json"
    path.write_text('{"labs": [')
    with pytest.raises(GradeFileError, match=f"^{path}: not a grade's JSON"):
        load_grade(path)
    path.write_text("[]")
    with pytest.raises(GradeFileError, match="the file is not a JSON object"):
        load_grade(path)
    with pytest.raises(GradeFileError, match="not a grade's JSON"):
        load_grade(tmp_path / "missing.json")
