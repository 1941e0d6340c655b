"""The audit of each lab's mistakes (variants/audit.toml) against the variants, and its table of verdicts."""

from __future__ import annotations

import json
from pathlib import Path

from grader.calibration.audit import REQUIRED_KINDS, Mistake, audit_table, load_audit, problems
from grader.calibration.variants import VARIANTS_DIR, Variant, load_variants
from grader.core.config import load_config
from grader.tests.support.grading import graded as a_grade
from grader.tests.support.grading import lab_entry

RACECHECK = "racecheck: no hazard in shared memory, warnings included (the lanes of the last warp)"
LAB = "06_warp_reduction"


def test_the_shipped_audit_answers_every_kind_for_every_lab_and_lists_every_wrong_variant():
    labs = [lab.name for lab in load_config().labs]
    assert problems(load_audit(), load_variants(), labs) == []


def wrong(name: str) -> Variant:
    return Variant(LAB, name, VARIANTS_DIR / f"{name}.cu", "wrong", "d", "", "l", RACECHECK, "racecheck")


def mistake(kind: str, variants: list[str] | None = None, not_made: str = "") -> Mistake:
    return Mistake(LAB, kind, "m", variants or [], not_made)


def complete() -> list[Mistake]:
    return [mistake(kind, not_made="why") for kind in REQUIRED_KINDS] + [mistake("race", ["racy"])]


def test_a_lab_missing_a_kind_a_wrong_variant_no_mistake_lists_or_an_unknown_name_is_a_problem():
    assert problems(complete(), [wrong("racy")], [LAB]) == []
    assert problems(complete()[1:], [wrong("racy")], [LAB]) == [f"{LAB}: no 'half done' mistake in the audit"]
    assert problems(complete(), [wrong("racy"), wrong("other")], [LAB]) == [
        f"{LAB}/other: a wrong variant no mistake lists"
    ]
    unknown = problems([*complete(), mistake("slip", ["nowhere"])], [wrong("racy")], [LAB])
    assert unknown == [f"{LAB} (slip: m): no variant 'nowhere' in variants.toml"]


def test_a_mistake_gives_either_variants_or_the_reason_none_was_made():
    both = mistake("slip", ["racy"], "and a reason")
    neither = mistake("slip")
    found = problems([*complete(), both, neither], [wrong("racy")], [LAB])
    assert found == [f"{LAB} (slip: m): give either variants or not_made"] * 2


def test_a_correct_variant_cannot_stand_for_a_mistake():
    correct = Variant(LAB, "fine", VARIANTS_DIR / "fine.cu", "correct", "d", "")
    found = problems([*complete(), mistake("slip", ["fine"])], [wrong("racy"), correct], [LAB])
    assert found == [f"{LAB} (slip: m): fine is a correct variant"]


def graded(folder: Path, name: str, race: str) -> Path:
    (folder / LAB).mkdir(parents=True)
    checks = [{"name": RACECHECK, "status": race, "category": "mechanism"}]
    (folder / LAB / f"{name}.json").write_text(json.dumps(a_grade([lab_entry(LAB, checks)])))
    return folder


def test_the_table_shows_each_run_s_verdict_and_fails_when_a_run_did_not_catch_a_mistake(tmp_path):
    caught, missed = graded(tmp_path / "h100", "racy", "failed"), graded(tmp_path / "h200", "racy", "passed")
    text, all_ok = audit_table(complete(), [wrong("racy")], [caught, missed])
    row = next(line for line in text.splitlines() if "| racy |" in line)
    assert "| fails it: fails as it should |" in row and "**NOT CAUGHT**" in row
    assert not all_ok
    assert audit_table(complete(), [wrong("racy")], [caught])[1]
    unseen = audit_table(complete(), [wrong("racy")], [tmp_path / "empty"])[0]
    assert "| racy |" in unseen and "not graded" in unseen
