"""The audit of each lab (variants/audit.toml): the mistakes that keep a lab's results right, the wrong
variants that make each one, and, beside them, the verdict each variant got in recorded grades.

    python -m grader.calibration.audit                      # the audit alone, as a Markdown table
    python -m grader.calibration.audit GRADES_DIR ...       # a column per grading run (grade-variants.sh --out)
    python -m grader.calibration.audit --target T.toml ...  # their speed checks judged against other thresholds
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.calibration.variants import VARIANTS_DIR, Variant, judged_grade, load_variants
from grader.core.config import Config, Target, load_config, load_target

AUDIT = VARIANTS_DIR / "audit.toml"
# Every lab answers these: the ways of reaching the right answer without the lesson.
REQUIRED_KINDS = ("half done", "side-stepped", "faster wrong idea")
OTHER_KINDS = ("the baseline", "slip", "habit", "race", "overused")


@dataclass
class Mistake:
    lab: str
    kind: str
    what: str
    variants: list[str]  # names of wrong variants that make it, or empty with not_made
    not_made: str


def load_audit(path: Path = AUDIT) -> list[Mistake]:
    return [
        Mistake(
            lab=entry["lab"],
            kind=entry["kind"],
            what=entry["what"],
            variants=list(entry.get("variants", [])),
            not_made=entry.get("not_made", ""),
        )
        for entry in tomllib.loads(path.read_text())["mistake"]
    ]


def problems(mistakes: list[Mistake], variants: list[Variant], labs: list[str]) -> list[str]:
    """What makes the audit incomplete or inconsistent with variants.toml; empty when it holds."""
    found = []
    by_name = {(v.lab, v.name): v for v in variants}
    for m in mistakes:
        where = f"{m.lab} ({m.kind}: {m.what})"
        if m.kind not in REQUIRED_KINDS + OTHER_KINDS:
            found.append(f"{where}: unknown kind")
        if bool(m.variants) == bool(m.not_made):
            found.append(f"{where}: give either variants or not_made")
        for name in m.variants:
            variant = by_name.get((m.lab, name))
            if variant is None:
                found.append(f"{where}: no variant {name!r} in variants.toml")
            elif variant.kind != "wrong":
                found.append(f"{where}: {name} is a correct variant")
    for lab in labs:
        answered = {m.kind for m in mistakes if m.lab == lab}
        found += [f"{lab}: no {kind!r} mistake in the audit" for kind in REQUIRED_KINDS if kind not in answered]
    listed = {(m.lab, name) for m in mistakes for name in m.variants}
    found += [
        f"{v.lab}/{v.name}: a wrong variant no mistake lists"
        for v in variants
        if v.kind == "wrong" and (v.lab, v.name) not in listed
    ]
    return found


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "/") for cell in cells) + " |"


def _verdict(variant: Variant, grades_dir: Path, config: Config, target: Target | None) -> str:
    judged = judged_grade(grades_dir, variant, config, target)
    if judged is None:
        return "not graded"
    ok, why = judged
    return ("fails it" if ok else "**NOT CAUGHT**") + f": {why}"


def audit_table(
    mistakes: list[Mistake],
    variants: list[Variant],
    grades_dirs: list[Path],
    config: Config | None = None,
    target: Target | None = None,
) -> tuple[str, bool]:
    """The audit as a Markdown table, a column per grading run; and whether every variant graded got what it
    should in every run (with `target`: its speed checks judged again against those thresholds)."""
    config = config or load_config()
    by_name = {(v.lab, v.name): v for v in variants}
    header = ["lab", "kind", "mistake", "variant", "the check that must fail it", *(d.name for d in grades_dirs)]
    rows = [_row(header), "|" + "---|" * len(header)]
    all_ok = True
    for m in mistakes:
        if not m.variants:
            rows.append(_row([m.lab[:2], m.kind, m.what, "-", f"none made: {m.not_made}", *("-" for _ in grades_dirs)]))
            continue
        for name in m.variants:
            variant = by_name[(m.lab, name)]
            verdicts = [_verdict(variant, d, config, target) for d in grades_dirs]
            all_ok &= not any(v.startswith("**NOT") for v in verdicts)
            cells = [m.lab[:2], m.kind, m.what, name, variant.must_fail, *verdicts]
            rows.append(_row(cells))
    return "\n".join(rows) + "\n", all_ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader.calibration.audit",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("grades_dirs", type=Path, nargs="*", help="grading runs of the variants, a column each")
    parser.add_argument("--target", type=Path, help="judge the runs' speed checks again against this thresholds file")
    args = parser.parse_args(argv)
    mistakes, variants = load_audit(), load_variants()
    config = load_config()
    wrong = problems(mistakes, variants, [lab.name for lab in config.labs])
    if wrong:
        sys.stderr.write("the audit does not hold:\n" + "".join(f"  {line}\n" for line in wrong))
        return 2
    target = load_target(args.target) if args.target else None
    text, all_ok = audit_table(mistakes, variants, args.grades_dirs, config, target)
    sys.stdout.write(text)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
