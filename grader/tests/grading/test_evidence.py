"""A grade is evidence judged: the evidence a grade made, written to JSON and read back, is judged to the same
grade; the key of recorded evidence moves with every byte that made it, and with nothing that only judges it;
and a case whose key moved is graded again, never judged from what was recorded before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.core.config import REPO_ROOT, load_config
from grader.grading import evidence_key, judge
from grader.grading.evidence import BuildEvidence, Facts, LabEvidence, read_evidence, to_data
from grader.grading.grade import device_label, graded_lab
from grader.reporting import report
from grader.tests.support import cases
from grader.tests.support.grading import emulator_context, student_work

SEED = 20261205


def test_a_grade_s_evidence_read_back_from_json_is_judged_to_the_same_grade(emulator, config, tmp_path):
    """Lab 1's skeleton on the emulator (failed tests, memcheck, a counter check, replay commands): the grade made
    live and the grade judged from its evidence, through JSON, are the same, check by check."""
    ctx = emulator_context(emulator, config, student_work(REPO_ROOT / "labs", tmp_path), seed=SEED)
    lab = config.lab("01")
    live, made = graded_lab(ctx, lab, "student")
    again = judge.judge(lab, read_evidence(json.loads(json.dumps(to_data(made)))), {}, device_label(ctx))
    assert report.run_dict([again], {}) == report.run_dict([live], {})
    assert any(check.status.value == "failed" for check in live.checks)  # a grade with something to show


def a_root(folder: Path) -> Path:
    """A stand-in checkout: a file in each part the key reads, and in what only judges."""
    files = {
        "common/cml/check.cpp": "harness",
        "tests/01_vector_add/test.cpp": "the lab's tests",
        "tests/02_dot_product/test.cpp": "another lab's tests",
        "labs/01_vector_add/kernel.cu": "skeleton",
        "solutions/01_vector_add/kernel.cu": "solution",
        "meson.build": "build",
        "grader/labs.toml": "labs",
        "grader/steps/suite.py": "a step",
        "grader/grading/gather.py": "what runs the steps",
        "grader/grading/judge.py": "what judges",
        "grader/grading/checks.py": "the checks",
        "grader/reporting/report.py": "the report",
        "grader/targets/h100.toml": "thresholds",
    }
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def key(root: Path, kernel: bytes = b"kernel", seed: int = 1, machine: str = "CPU emulator") -> str:
    inputs = evidence_key.key_inputs("01_vector_add", kernel, ("student",), machine, {"seed": seed}, root=root)
    return inputs.key()


@pytest.mark.parametrize(
    "changed",
    [
        "common/cml/check.cpp",
        "tests/01_vector_add/test.cpp",
        "labs/01_vector_add/kernel.cu",
        "solutions/01_vector_add/kernel.cu",
        "meson.build",
        "grader/labs.toml",
        "grader/steps/suite.py",
        "grader/grading/gather.py",
    ],
)
def test_one_byte_changed_in_what_made_the_evidence_changes_its_key(tmp_path, changed):
    root = a_root(tmp_path)
    before = key(root)
    path = root / changed
    path.write_bytes(path.read_bytes()[:-1] + bytes([path.read_bytes()[-1] ^ 1]))
    assert key(root) != before


def test_the_kernel_the_seed_the_machine_and_a_tool_s_version_each_change_the_key(tmp_path, monkeypatch):
    root = a_root(tmp_path)
    before = key(root)
    assert key(root, kernel=b"kernEl") != before
    assert key(root, seed=2) != before
    assert key(root, machine="NVIDIA H200") != before
    versions = dict(evidence_key.tool_versions(""))
    monkeypatch.setattr(evidence_key, "tool_versions", lambda path="": {**versions, "nvcc": "another nvcc"})
    assert key(root) != before


@pytest.mark.parametrize(
    "judging",
    [
        "grader/grading/judge.py",
        "grader/grading/checks.py",
        "grader/reporting/report.py",
        "grader/targets/h100.toml",
        "tests/02_dot_product/test.cpp",
    ],
)
def test_what_only_judges_evidence_or_another_lab_leaves_the_key_as_it_was(tmp_path, judging):
    root = a_root(tmp_path)
    before = key(root)
    (root / judging).write_text("changed")
    assert key(root) == before


def failed_build(lab: str) -> LabEvidence:
    """Evidence of a build that failed: judged in microseconds, with one check that says why."""
    return LabEvidence(lab, "student", "k", "k", SEED, [], Facts(emulator=True), build=BuildEvidence(errors="boom"))


def test_a_case_is_graded_once_then_judged_and_graded_again_where_its_key_moved(tmp_path, monkeypatch, device):
    monkeypatch.setattr(cases, "EVIDENCE_DIR", tmp_path / "evidence")
    graded: list[bytes] = []

    def grade(case, build_dir, work_dir, device):
        graded.append(case.kernel)
        made = failed_build(case.lab)
        grade = judge.judge(case_lab(case.lab), made, {}, "here")
        return cases.run_labs(report.run_dict([grade], {})), [made]

    monkeypatch.setattr(cases, "graded", grade)
    case = cases.Case("attacks", "a", "01_vector_add", b"one", SEED)
    first = cases.judge_case(case, tmp_path, tmp_path, device)
    assert first.how == "graded end to end" and graded == [b"one"]
    second = cases.judge_case(case, tmp_path, tmp_path, device)
    assert second.how.startswith("judged from evidence recorded on ") and graded == [b"one"]
    assert second.labs == first.labs
    changed = cases.Case("attacks", "a", "01_vector_add", b"two", SEED)
    third = cases.judge_case(changed, tmp_path, tmp_path, device)
    assert third.how == "graded end to end" and third.changed == ["kernel"] and graded == [b"one", b"two"]
    whole = cases.Case("attacks", "a", "01_vector_add", b"two", SEED, end_to_end=True)
    assert cases.judge_case(whole, tmp_path, tmp_path, device).how == "graded end to end" and len(graded) == 3


def case_lab(name: str):
    return load_config().lab(name)


def test_recorded_evidence_of_a_gpu_that_is_stale_says_so_and_is_not_judged(tmp_path, monkeypatch):
    monkeypatch.setattr(cases, "EVIDENCE_DIR", tmp_path / "evidence")
    case = cases.Case("attacks", "a", "01_vector_add", b"one", SEED)
    machine = "NVIDIA H200"
    inputs = cases.current_inputs(case, machine)
    cases.record(cases.evidence_file(case, machine), inputs, machine, [failed_build(case.lab)])
    ((found_on, judged),) = cases.gpu_evidence(case)
    assert found_on == machine and isinstance(judged, cases.Judged)
    assert judged.how.startswith(f"judged from evidence recorded on {machine} at ")
    newer = cases.Case("attacks", "a", "01_vector_add", b"changed since", SEED)
    ((_, stale),) = cases.gpu_evidence(newer)
    assert isinstance(stale, str) and "is stale (kernel)" in stale


def test_every_recorded_counted_run_drew_the_inputs_of_its_grades_seed():
    """The counters' run of the benchmark gets the grade's CML_SEED, as the test program's runs do: a case's
    evidence is made again from the same inputs, whatever its kernel does to memory."""
    counted = 0
    for path in sorted(cases.EVIDENCE_DIR.glob("*/*.cpu-emulator.json")):
        for lab in json.loads(path.read_text())["labs"]:
            for group in lab.get("counters", {}).values():
                for role, run in group.items():
                    said = (run["outcome"]["stdout"] + "\n" + run["outcome"]["stderr"]).splitlines()
                    # The benchmark's first line, where the output kept holds it: a long output is kept by its end.
                    seeds = {line.split()[1] for line in said if line.startswith("seed ") and "CML_SEED" in line}
                    assert seeds <= {str(lab["seed"])}, f"{path.name}: {role}: seeds {seeds}"
                    counted += bool(seeds)
    assert counted > 100, "too few counted runs whose seed the output kept to say anything"
