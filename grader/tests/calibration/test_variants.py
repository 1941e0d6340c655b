"""The manifest of variant kernels (variants/variants.toml) and how a grade is judged against it. Grading the
variants themselves is slow and belongs to tools/grade-variants.sh, not here."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from grader.calibration.variants import (
    KINDS,
    SHOWS_IN,
    VARIANTS_DIR,
    Variant,
    judge,
    load_variants,
    main,
    names_a_check,
    repeats,
    split_group,
    stretch_cases,
    unseen_checks,
)
from grader.core.config import TARGETS_DIR, load_target
from grader.core.recorded import RecordedCheck, read_grade
from grader.tests.support.grading import graded, lab_entry


@pytest.fixture(scope="module")
def variants() -> list[Variant]:
    return load_variants()


def lab_groups(config, lab: str) -> set[str]:
    """The benchmark groups a lab is timed at: in labs.toml, or in any target file's thresholds."""
    groups = set(next(known for known in config.labs if known.name == lab).graded_groups)
    for path in TARGETS_DIR.glob("*.toml"):
        groups |= set(load_target(path).thresholds.get(lab, {})) - {""}
    return groups


@pytest.mark.needs_solutions
def test_every_listed_file_exists_and_every_file_is_listed(variants):
    listed = Counter(v.path.resolve() for v in variants)
    assert [p for p, n in listed.items() if n > 1] == [], "a file listed twice"
    assert [p for p in listed if not p.is_file()] == [], "listed but missing"
    on_disk = {p.resolve() for p in VARIANTS_DIR.glob("*/*.cu")}
    assert sorted(on_disk - set(listed)) == [], "a kernel file not in variants.toml"


@pytest.mark.needs_solutions
def test_each_variant_names_its_lab_its_kind_and_what_it_does(variants, config):
    labs = {lab.name for lab in config.labs}
    for v in variants:
        assert v.lab in labs, v.name
        assert v.path.parent.name == v.lab, f"{v.name}: the file lies in another lab's folder"
        assert v.kind in KINDS, v.name
        assert v.description.strip(), v.name


@pytest.mark.needs_solutions
def test_every_lab_has_at_least_4_correct_and_1_wrong_variant(variants, config):
    for lab in config.labs:
        kinds = Counter(v.kind for v in variants if v.lab == lab.name)
        assert kinds["correct"] >= 4 and kinds["wrong"] >= 1, f"{lab.name}: {dict(kinds)}"


@pytest.mark.needs_solutions
def test_a_wrong_variant_names_its_lesson_and_a_real_check_that_must_fail(variants, config):
    for v in (v for v in variants if v.kind == "wrong"):
        assert v.lesson.strip(), v.name
        assert names_a_check(v.must_fail, v.lab, config, lab_groups(config, v.lab)), f"{v.name}: {v.must_fail!r}"
        assert v.lesson_shows_in in SHOWS_IN, v.name
        head, _ = split_group(v.must_fail)
        expected = "time" if head in ("speedup", "copy fraction") else head.split(":")[0].replace("ncu", "counter")
        expected = "stretch" if v.must_fail in stretch_cases(v.lab) else expected
        assert v.lesson_shows_in == expected, f"{v.name}: must_fail {v.must_fail!r} shows in {expected}"


def test_the_stretch_cases_are_read_whole_and_only_from_the_stretch_suites():
    cases = stretch_cases("10_host_memory")
    assert "zero-copy: each call computes its own inputs, none from the call before" in cases
    # A name written as string literals side by side is one name.
    assert any(
        name.startswith("zero-copy: 1 and 2 passes match") and name.endswith("nothing left pinned") for name in cases
    )
    assert not any(name.startswith(("pinned:", "overlapped:", "managed:")) for name in cases)


@pytest.mark.needs_solutions
def test_a_correct_variant_has_no_lesson_to_break(variants):
    for v in (v for v in variants if v.kind == "correct"):
        assert not (v.lesson or v.must_fail or v.lesson_shows_in), v.name


def check(name: str, status: str, category: str = "mechanism") -> dict:
    return {"name": name, "status": status, "category": category}


def typed(checks: list[dict]) -> list[RecordedCheck]:
    """The checks as the grade's reader gives them to judge()."""
    return read_grade(graded([lab_entry("06_warp_reduction", checks)])).labs[0].checks


def variant(kind: str, must_fail: str = "", shows_in: str = "") -> Variant:
    return Variant(
        "06_warp_reduction", "v", VARIANTS_DIR / "v.cu", kind, "d", "", "l" if must_fail else "", must_fail, shows_in
    )


RACECHECK = "racecheck: no hazard in shared memory, warnings included (the lanes of the last warp)"


def test_judge_a_correct_variant_passes_everything_that_ran():
    speed = check("speedup over full tree (unrolled, 1/thread)", "not run", "performance")
    assert judge(variant("correct"), typed([check(RACECHECK, "passed"), speed]))[0]
    assert not judge(variant("correct"), typed([check(RACECHECK, "failed"), speed]))[0]
    assert not judge(variant("correct"), typed([check(RACECHECK, "not run"), speed]))[0]
    # A speed check this GPU does not grade (grader/targets) is worth nothing either way.
    assert judge(variant("correct"), typed([check(RACECHECK, "passed"), {**speed, "status": "not graded"}]))[0]
    assert not judge(variant("correct"), typed([check(RACECHECK, "not graded"), speed]))[0]


def test_judge_a_wrong_variant_fails_its_check_or_passes_all_where_its_speed_cannot_be_seen():
    racy = variant("wrong", RACECHECK, "racecheck")
    assert judge(racy, typed([check(RACECHECK, "failed"), check("sums", "failed", "correctness")]))[0]
    assert not judge(racy, typed([check(RACECHECK, "passed")]))[0]
    slow = variant("wrong", "speedup (unrolled, 1/thread)", "time")
    unrolled = "speedup over full tree (unrolled, 1/thread)"
    assert judge(slow, typed([check(RACECHECK, "passed"), check(unrolled, "not run", "performance")]))[0]
    assert judge(slow, typed([check(unrolled, "failed", "performance")]))[0]
    assert not judge(slow, typed([check(unrolled, "passed", "performance")]))[0]
    assert not judge(slow, typed([check(RACECHECK, "failed"), check(unrolled, "not run", "performance")]))[0]
    # Its lesson's check not graded on this GPU, and nothing else fails it: not caught, and said so.
    caught, why = judge(slow, typed([check(RACECHECK, "passed"), check(unrolled, "not graded", "performance")]))
    assert not caught and why.startswith("not caught")
    # Without a GPU there are no thresholds, so no groups: one speed check, 'not run'.
    one_speed_check = typed([check(RACECHECK, "passed"), check("speedup over full tree", "not run", "performance")])
    assert judge(slow, one_speed_check)[0]


def test_judge_a_counter_only_a_gpu_counts_is_not_run_by_rights_where_it_is_unseen():
    unrolled = "ncu: the unrolled version's loads"
    unseen = frozenset({unrolled})
    correct, wrong = variant("correct"), variant("wrong", unrolled, "counter")
    not_run = [check(RACECHECK, "passed"), check(unrolled, "not run")]
    assert judge(correct, typed(not_run), unseen)[0] and not judge(correct, typed(not_run))[0]
    caught, why = judge(wrong, typed(not_run), unseen)
    assert caught and "only a GPU counts" in why
    assert not judge(wrong, typed(not_run))[0]  # on a GPU, not run is no verdict
    assert not judge(wrong, typed([check(RACECHECK, "failed"), check(unrolled, "not run")]), unseen)[0]
    assert judge(wrong, typed([check(RACECHECK, "passed"), check(unrolled, "failed")]), unseen)[0]


def test_unseen_checks_are_the_gpu_only_counters_of_a_grade_on_the_emulator(config):
    lab = config.lab("06_warp_reduction")
    gpu_only = {m.name for m in lab.mechanisms if m.gpu_only}
    assert gpu_only, "Lab 6 counts its unrolled version's loads on a GPU only"
    for emulator, expected in ((True, gpu_only), (False, set())):
        assert unseen_checks(read_grade(graded([], cpu_emulator=emulator)), lab.name, config) == expected


SPEED = "speedup over full tree (unrolled, 1/thread)"
SHUFFLE_SPEED = "speedup over full tree (shuffle, 1/thread)"
UNROLLED_LOADS = "ncu: shared-memory loads the unrolled version's warps issue"


def speed(name: str, ratio: str) -> dict:
    return {**check(name, "passed", "performance"), "detail": f"x{ratio} (threshold x1.2)"}


def graded_run(folder: Path, lab: str, checks: list[dict]) -> Path:
    """A GRADES_DIR holding the grade of the variant 'v' with these checks."""
    (folder / lab).mkdir(parents=True)
    (folder / lab / "v.json").write_text(json.dumps(graded([lab_entry(lab, checks)])))
    return folder


def row(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("| 06 | v |"))


def test_repeats_counts_the_runs_with_the_right_verdict_and_the_same_statuses(tmp_path):
    racy = variant("wrong", RACECHECK, "racecheck")
    runs = [
        graded_run(tmp_path / run, racy.lab, [check(RACECHECK, race), speed(SPEED, ratio)])
        for run, race, ratio in (("1", "failed", "1.50"), ("2", "failed", "1.40"), ("3", "passed", "1.45"))
    ]
    text, all_ok = repeats([racy], runs)
    assert not all_ok  # the third run missed the race
    assert row(text) == "| 06 | v | wrong | 3 | 2 of 3 | 2 of 3 | 0 of 3 | x1.40 to x1.50 (threshold x1.20) |"
    assert repeats([racy], runs[:2])[1]


def test_repeats_tells_a_check_added_between_runs_from_a_status_that_moved(tmp_path):
    racy = variant("wrong", RACECHECK, "racecheck")
    before = [check(RACECHECK, "failed")]
    after = [check(RACECHECK, "failed"), check(UNROLLED_LOADS, "failed")]
    moved = [check(RACECHECK, "passed"), check(UNROLLED_LOADS, "failed")]
    runs = [graded_run(tmp_path / str(i), racy.lab, checks) for i, checks in enumerate([before, after, after])]
    # The new counter check is no status that moved: the statuses are the same, and the checks differ in 2 runs.
    assert row(repeats([racy], runs)[0]) == "| 06 | v | wrong | 3 | 3 of 3 | 3 of 3 | 2 of 3 | - |"
    # A status that really moved still shows, beside the added check.
    runs.append(graded_run(tmp_path / "3", racy.lab, moved))
    assert row(repeats([racy], runs)[0]) == "| 06 | v | wrong | 4 | 3 of 4 | 3 of 4 | 3 of 4 | - |"


def test_repeats_pairs_each_speedup_with_the_same_check_in_every_run(tmp_path):
    fast = variant("correct")
    # The first run measured only the shuffle version: by position its x3.00 would pair with the unrolled x1.50.
    runs = [
        graded_run(tmp_path / "1", fast.lab, [speed(SHUFFLE_SPEED, "3.00")]),
        graded_run(tmp_path / "2", fast.lab, [speed(SPEED, "1.50"), speed(SHUFFLE_SPEED, "3.10")]),
        graded_run(tmp_path / "3", fast.lab, [speed(SPEED, "1.60"), speed(SHUFFLE_SPEED, "2.90")]),
    ]
    assert row(repeats([fast], runs)[0]).endswith(
        "| 2 of 3 | x2.90 to x3.10 (threshold x1.20); x1.50 to x1.60 (threshold x1.20) |"
    )


def test_repeats_reads_a_speedup_from_its_measured_field_where_the_grade_has_one(tmp_path):
    fast = variant("correct")
    # The detail rounds to 2 decimals; the field holds the figure itself, and the table shows that one.
    checks = [{**speed(SPEED, "1.50"), "measured": 1.456, "threshold": 1.25}]
    runs = [graded_run(tmp_path / "1", fast.lab, checks), graded_run(tmp_path / "2", fast.lab, [speed(SPEED, "1.60")])]
    # The threshold moved between the runs (a new calibration): the table shows both.
    assert row(repeats([fast], runs)[0]).endswith("| x1.46 to x1.60 (threshold x1.20 to x1.25) |")
    # Not graded on this GPU: measured, but against no threshold, so no speedup to range over.
    ungraded = [
        {**check(SPEED, "not graded", "performance"), "detail": "x1.45; ...", "measured": 1.45, "threshold": None}
    ]
    runs = [graded_run(tmp_path / "3", fast.lab, ungraded)]
    assert row(repeats([fast], runs)[0]).endswith("| - |")


@pytest.mark.needs_solutions
def test_only_takes_several_names_so_a_few_variants_can_be_graded_in_one_round(capsys):
    assert main(["list", "--only", "padded_by_two,table_in_constant"]) == 0
    listed = [line.split("\t")[:2] for line in capsys.readouterr().out.splitlines()]
    assert listed == [["05_padded_transpose", "padded_by_two"], ["07_constant_memory", "table_in_constant"]]


def test_counters_come_from_the_measured_field_or_an_old_grade_s_detail():
    from grader.calibration.variants import _counters

    new = {**check(UNROLLED_LOADS, "passed"), "detail": "0.05 ...", "measured": 0.054321}
    old = {**check("ncu: shared-memory loads of the shuffle version", "passed"), "detail": "0.00775 (must be ...)"}
    unread = {**check("ncu: not counted", "not run"), "detail": "ncu timed out"}
    assert _counters(typed([new, old, unread])) == "0.0543; 0.00775"


@pytest.mark.needs_solutions
def test_a_target_that_is_no_thresholds_file_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["repeats", "--target", str(tmp_path / "missing.toml"), str(tmp_path)])
    assert stopped.value.code == 2 and "not a thresholds file" in capsys.readouterr().err
