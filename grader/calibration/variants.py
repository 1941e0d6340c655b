"""Kernels written elsewhere, adapted to the labs' interfaces (variants/variants.toml): correct ones with
other block sizes, tile shapes and tricks than the reference solution's, and known-wrong ones that each break one
lesson. Calibrate measures both kinds on a GPU and sets each threshold between them; on any machine,
tools/grade-variants.sh grades every one as a submission and `judge` says whether its grade is what it should be.

    python -m grader.calibration.variants list                 # lab, name and file of each variant, tab-separated
    python -m grader.calibration.variants table GRADES_DIR     # a Markdown table from GRADES_DIR/<lab>/<name>.json
    python -m grader.calibration.variants repeats DIR DIR ...  # the same variants graded again: do the verdicts hold?
    ... table|repeats --target T.toml ...          # the same, the speed checks judged against other thresholds
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.core.config import GRADER_DIR, Config, Target, load_config, load_target
from grader.core.model import Category, Check, Status
from grader.core.recorded import RecordedCheck, RecordedRun, load_grade
from grader.grading.rejudge import rejudged_checks

VARIANTS_DIR = GRADER_DIR.parent / "variants"
MANIFEST = VARIANTS_DIR / "variants.toml"
KINDS = ("correct", "wrong")
SHOWS_IN = ("time", "counter", "racecheck", "occupancy", "resources", "machine code", "schedule", "stretch")
# must_fail names a mechanism check of labs.toml, or one of these, optionally followed by " (group)" for a lab
# timed at several settings; the grader's performance checks begin with the matching text.
PERFORMANCE = {"speedup": "speedup over ", "copy fraction": "fraction of this GPU's copy bandwidth"}
TESTS_DIR = GRADER_DIR.parent / "tests"
# A doctest case's name, one string literal or several side by side; and where the stretch's suites begin (they
# come last in every test.cpp: grader/steps/sanitize.py).
CASE = re.compile(r'TEST_CASE\(\s*((?:"[^"\n]*"\s*)+)')
STRETCH_SUITE = re.compile(r'TEST_SUITE\("stretch')


@dataclass
class Variant:
    lab: str  # "05_padded_transpose"
    name: str  # the file's stem: "padded_32x32_threads"
    path: Path
    kind: str  # "correct" or "wrong"
    description: str
    idea: str  # the published idea it follows, "" where there is none
    lesson: str = ""  # wrong only: the lesson it breaks
    must_fail: str = ""  # wrong only: the check that must fail for it
    lesson_shows_in: str = ""  # wrong only: one of SHOWS_IN


def load_variants(manifest: Path = MANIFEST) -> list[Variant]:
    variants = []
    for entry in tomllib.loads(manifest.read_text())["variant"]:
        path = manifest.parent / entry["file"]
        variants.append(
            Variant(
                lab=entry["lab"],
                name=path.stem,
                path=path,
                kind=entry["kind"],
                description=entry["description"],
                idea=entry.get("idea", ""),
                lesson=entry.get("lesson", ""),
                must_fail=entry.get("must_fail", ""),
                lesson_shows_in=entry.get("lesson_shows_in", ""),
            )
        )
    return variants


def split_group(must_fail: str) -> tuple[str, str]:
    """'speedup (R = 32)' -> ('speedup', 'R = 32'); a name without a group -> (name, '')."""
    if must_fail.endswith(")") and " (" in must_fail:
        head, _, group = must_fail[:-1].rpartition(" (")
        if head in PERFORMANCE:
            return head, group
    return must_fail, ""


def stretch_cases(lab: str) -> set[str]:
    """The names of the test cases of the lab's stretch (tests/<lab>/test.cpp): a wrong variant of the stretch
    fails one of them, since the mechanism checks leave the stretch out."""
    text = (TESTS_DIR / lab / "test.cpp").read_text()
    start = STRETCH_SUITE.search(text)
    if start is None:
        return set()
    return {"".join(re.findall(r'"([^"]*)"', m.group(1))) for m in CASE.finditer(text, start.start())}


def names_a_check(must_fail: str, lab: str, config: Config, groups: set[str]) -> bool:
    """Whether must_fail is a mechanism check of the lab in labs.toml, a performance check of a known group, or a
    test case of the lab's stretch."""
    head, group = split_group(must_fail)
    if head in PERFORMANCE:
        return group == "" or group in groups
    mechanisms = next(known for known in config.labs if known.name == lab).mechanisms
    return any(m.name == must_fail for m in mechanisms) or must_fail in stretch_cases(lab)


def _matches(check: Check, must_fail: str) -> bool:
    head, group = split_group(must_fail)
    if head not in PERFORMANCE:
        return check.name == must_fail
    return check.name.startswith(PERFORMANCE[head]) and (not group or check.name.endswith(f"({group})"))


def judge(variant: Variant, checks: Sequence[Check], unseen: frozenset[str] = frozenset()) -> tuple[bool, str]:
    """Whether a grade (the checks of grade.json for the variant's lab) is what the variant should get, and why.
    `unseen`: the checks this grade could not run by design (a counter only a GPU counts, graded on the CPU
    emulator: unseen_checks), 'not run' by rights.
    Correct: every build, correctness, mechanism and attempted stretch check passes; speed passes, is not run, or
    is not graded on this GPU (measured, worth nothing: grader/targets); an unseen check is not run.
    Wrong: its must_fail check fails; where that is a speed check that did not run (no GPU, or --no-bench), or
    an unseen one, everything else must pass, since its lesson cannot show here. One whose lesson is a speed
    check this GPU does not grade is not caught here, and the verdict says so."""
    failed = [c.name for c in checks if c.status is Status.FAILED]

    def excused(c: Check) -> bool:  # not run, and rightly so
        return c.status is Status.NOT_RUN and (c.category is Category.PERFORMANCE or c.name in unseen)

    if variant.kind == "correct":
        bad = [
            c.name
            for c in checks
            if not (c.status in (Status.PASSED, Status.SKIPPED) or excused(c))
            and not (c.status is Status.NOT_GRADED and c.category is Category.PERFORMANCE)
        ]
        return (not bad, "every check as it should be" if not bad else "not passed: " + "; ".join(bad))
    target = [c for c in checks if _matches(c, variant.must_fail)]
    head, _ = split_group(variant.must_fail)
    if not target and head in PERFORMANCE:
        # Without thresholds (no GPU, or none for this one) the grade has a single speed check, 'not run'.
        target = [c for c in checks if c.name.startswith(PERFORMANCE[head]) and c.status is Status.NOT_RUN]
    if not target:
        return False, f"no check named {variant.must_fail!r} in the grade"
    if any(c.status is Status.FAILED for c in target):
        others = [name for name in failed if name not in {c.name for c in target}]
        return True, "fails as it should" + (f" (and {len(others)} other checks fail)" if others else "")
    if all(excused(c) for c in target):  # its lesson cannot show in this grade: a time, or a GPU-only counter
        where = (
            "only in time, not measured in this grade"
            if variant.lesson_shows_in == "time"
            else "in a counter that only a GPU counts"
        )
        if failed:
            return False, f"its lesson shows {where}, and it failed: " + "; ".join(failed)
        return True, f"passes everything else: its lesson shows {where}"
    if all(c.status is Status.NOT_GRADED for c in target):
        return False, f"not caught: {variant.must_fail!r} is not graded on this GPU, and no other check fails it"
    return False, f"{variant.must_fail!r} did not fail ({', '.join(c.status.value for c in target)})"


def _grade_json(grades_dir: Path, variant: Variant) -> Path:
    """Where tools/grade-variants.sh files a variant's grade."""
    return grades_dir / variant.lab / f"{variant.name}.json"


def unseen_checks(grade: RecordedRun, lab: str, config: Config) -> frozenset[str]:
    """The lab's checks that a grade could not run by design: on the CPU emulator, those only a GPU counts."""
    if not grade.cpu_emulator:
        return frozenset()
    return frozenset(m.name for m in config.lab(lab).mechanisms if m.gpu_only)


def _judged(
    grade_json: Path, variant: Variant, config: Config, target: Target | None = None
) -> tuple[bool, str, list[RecordedCheck]]:
    """judge() of the variant's grade in grade_json, and the checks it judged; with `target`, its speed checks
    judged again against those thresholds from the figures the grade recorded (grader/grading/rejudge.py)."""
    grade = load_grade(grade_json)
    entry = next((entry for entry in grade.labs if entry.lab == variant.lab), None)
    checks = entry.checks if entry else []
    if entry and target:
        checks = rejudged_checks(entry, config.lab(variant.lab), target)
    if not checks:
        return False, "no checks for this lab in grade.json", []
    return (*judge(variant, checks, unseen_checks(grade, variant.lab, config)), checks)


def judged_grade(
    grades_dir: Path, variant: Variant, config: Config, target: Target | None = None
) -> tuple[bool, str] | None:
    """judge() of the variant's grade filed in grades_dir by tools/grade-variants.sh (with `target`, its speed
    checks judged again against those thresholds); None where it has none."""
    grade_json = _grade_json(grades_dir, variant)
    if not grade_json.is_file():
        return None
    ok, why, _ = _judged(grade_json, variant, config, target)
    return ok, why


def _summary(checks: list[RecordedCheck], category: Category) -> str:
    mine = [c for c in checks if c.category is category]
    if not mine:
        return "-"
    statuses = (Status.PASSED, Status.FAILED, Status.NOT_RUN, Status.WITHHELD)
    counts = {s.value: sum(c.status is s for c in mine) for s in statuses}
    return ", ".join(f"{n} {s}" for s, n in counts.items() if n)


def _counters(checks: list[RecordedCheck]) -> str:
    """The measured ratio of each counter check that counted, in labs.toml's order: its `measured` field, or in a
    grade written before checks carried one, the start of its detail ('4 (must be <= 4.5): ...' -> '4')."""
    values = [
        f"{c.measured:.3g}" if c.measured is not None else c.detail.split(" ", 1)[0]
        for c in checks
        if c.name.startswith("ncu:") and (c.measured is not None or c.detail[:1].isdigit())
    ]
    return "; ".join(values) or "-"


def table(
    variants: list[Variant], grades_dir: Path, config: Config | None = None, target: Target | None = None
) -> tuple[str, bool]:
    """A Markdown table of every variant's grade, and whether all of them got what they should (with `target`:
    its speed checks judged again against those thresholds)."""
    config = config or load_config()
    rows = [
        "| lab | variant | kind | must fail | correctness | mechanism | counters | speed | as expected | why |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    all_ok = True
    for v in variants:
        grade_json = _grade_json(grades_dir, v)
        checks: list[RecordedCheck] = []
        if not grade_json.is_file():
            ok, why = False, "not graded (no grade.json)"
        else:
            ok, why, checks = _judged(grade_json, v, config, target)
        all_ok &= ok
        cells = [
            v.lab[:2],
            v.name,
            v.kind,
            v.must_fail or "-",
            _summary(checks, Category.CORRECTNESS),
            _summary(checks, Category.MECHANISM),
            _counters(checks),
            _summary(checks, Category.PERFORMANCE),
            "yes" if ok else "**NO**",
            why,
        ]
        rows.append("| " + " | ".join(cell.replace("|", "/") for cell in cells) + " |")
    return "\n".join(rows) + "\n", all_ok


def _speedups(checks: list[RecordedCheck]) -> dict[str, tuple[float, float]]:
    """The measured speedup of each speed check graded against a threshold, and that threshold, by the check's
    name."""
    found = {}
    for c in checks:
        figures = c.figures()
        if figures and c.name.startswith(PERFORMANCE["speedup"]):
            found[c.name] = figures
    return found


def _speedup_range(figures: list[tuple[float, float]]) -> str:
    """'x1.38 to x1.39 (threshold x1.18)': how far the runs' speedups moved, beside what they were graded
    against (a range where the threshold itself differed between runs)."""
    values = [value for value, _ in figures]
    # Shown as rounded: an older grade's threshold, read from its detail text, is the exact one rounded.
    thresholds = list(dict.fromkeys(f"x{threshold:.2f}" for threshold in sorted(t for _, t in figures)))
    against = thresholds[0] if len(thresholds) == 1 else f"{thresholds[0]} to {thresholds[-1]}"
    return f"x{min(values):.2f} to x{max(values):.2f} (threshold {against})"


def repeats(
    variants: list[Variant], runs: list[Path], config: Config | None = None, target: Target | None = None
) -> tuple[str, bool]:
    """Every variant over several grading runs (each a GRADES_DIR of `table`): in how many it got what it should,
    in how many every check got the status the first run gave it, in how many the checks themselves differ from
    the first run's (the grader gained or lost one between runs), and how far each speedup moved. True when
    every variant graded got what it should in every run that graded it."""
    rows = [
        "| lab | variant | kind | runs | as expected | every check's status as in the first run, where both have it "
        "| checks differ from the first run's | speedups, lowest to highest (threshold) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    config = config or load_config()
    all_ok = True
    for v in variants:
        judged = [_judged(_grade_json(run, v), v, config, target) for run in runs if _grade_json(run, v).is_file()]
        grades = [checks for _, _, checks in judged]
        expected = sum(ok for ok, _, _ in judged)
        # Checks are paired by name: a check the grader gained or lost between runs is not a status that moved,
        # so statuses are compared over the checks both runs have, and the runs whose checks differ counted apart.
        statuses = [{c.name: c.status for c in checks} for checks in grades]
        first = statuses[0] if statuses else {}
        same = sum(all(run[name] == first[name] for name in run.keys() & first.keys()) for run in statuses)
        differ = sum(run.keys() != first.keys() for run in statuses)
        per_check: dict[str, list[tuple[float, float]]] = {}
        for checks in grades:
            for name, figures in _speedups(checks).items():
                per_check.setdefault(name, []).append(figures)
        ranges = "; ".join(_speedup_range(figures) for figures in per_check.values()) or "-"
        all_ok &= expected == len(grades)
        cells = [
            v.lab[:2],
            v.name,
            v.kind,
            str(len(grades)),
            f"{expected} of {len(grades)}",
            f"{same} of {len(grades)}",
            f"{differ} of {len(grades)}",
            ranges,
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n", all_ok


def _is_lab(variant: Variant, lab: str | None) -> bool:
    return not lab or variant.lab == lab or variant.lab.split("_")[0].lstrip("0") == lab.lstrip("0")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader.calibration.variants",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="lab, name and file of each variant, tab-separated")
    tabulate = sub.add_parser("table", help="a Markdown table of the grades in GRADES_DIR/<lab>/<name>.json")
    tabulate.add_argument("grades_dir", type=Path)
    again = sub.add_parser("repeats", help="the same variants graded in several runs: each a GRADES_DIR of table")
    again.add_argument("runs", type=Path, nargs="+")
    for command in (listing, tabulate, again):
        command.add_argument("--lab", help="only this lab (number or name)")
        command.add_argument("--only", help="only the variants of these names (comma-separated)")
    for command in (tabulate, again):
        command.add_argument(
            "--target",
            type=Path,
            help="judge the speed checks again against this thresholds file, from the figures each grade recorded",
        )
    args = parser.parse_args(argv)
    names = set(args.only.split(",")) if args.only else None
    variants = [v for v in load_variants() if _is_lab(v, args.lab) and (names is None or v.name in names)]
    if args.command == "list":
        for v in variants:
            print(f"{v.lab}\t{v.name}\t{v.path}")
        return 0
    try:
        target = load_target(args.target) if args.target else None
    except (OSError, tomllib.TOMLDecodeError, KeyError) as error:
        parser.error(f"--target {args.target}: not a thresholds file ({error})")
    if args.command == "repeats":
        text, all_ok = repeats(variants, args.runs, target=target)
    else:
        text, all_ok = table(variants, args.grades_dir, target=target)
    sys.stdout.write(text)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
