"""The speed thresholds each handout and slide deck states, written from the shipped thresholds files
(grader/targets/*.toml) into the block between the markers below in labs/NN_name/README.md and
slides/decks/NN_name.md, so neither quotes a number that a new calibration has replaced. --check
changes nothing and exits 1 where a block is missing or stale.

    PYTHONPATH=. .venv/bin/python tools/handout_thresholds.py [--check]
"""

from __future__ import annotations

import argparse
import sys

from grader.calibration.calibrate import METRICS
from grader.core.config import REPO_ROOT, TARGETS_DIR, Lab, Target, Thresholds, load_config, load_target

BEGIN = "<!-- thresholds: written by tools/handout_thresholds.py from grader/targets/; edit those, not this -->"
END = "<!-- thresholds: end -->"


def cell(threshold: float | None, reference: float | None, unit: str, not_graded: str) -> str:
    """'at least x2.90 (the solution: x17.86)', or 'not graded' where this GPU shows the check but grades it by
    nothing."""
    solution = f" (the solution: {unit.format(reference)})" if reference is not None else ""
    if threshold is None:
        return f"not graded{solution}" if not_graded else "-"
    return f"at least {unit.format(threshold)}{solution}"


def rows(lab: Lab, group: str, by_gpu: list[Thresholds | None]) -> list[str]:
    """A row per speed check of the group, a cell per GPU, in the units and names the reports use."""
    checks = {"speedup": lab.speedup_check(group)}
    if lab.memory_bound:
        checks["copy fraction"] = lab.copy_fraction_check(group)
    lines = []
    for metric, name in checks.items():
        unit, threshold, _, reference = METRICS[metric]
        cells = [cell(getattr(t, threshold), getattr(t, reference), unit, t.not_graded) if t else "-" for t in by_gpu]
        lines.append(f"| {name} | {' | '.join(cells)} |")
    return lines


HOW_SET = [
    "Each threshold is set by `./cml calibrate` on that GPU, between the slowest correct kernel and the fastest",
    "wrong one it measured, the baseline included (`grader/targets/<gpu>.toml` names them and the margins).",
    "Below a threshold, the check's points rise from none at the baseline's figure to full at the threshold.",
    '"Not graded": time cannot separate correct kernels from wrong ones on that GPU; the points go to the',
    "mechanism checks, and the report says why. On another GPU, `./cml calibrate` sets them.",
    "",
]
HOW_SET_SHORT = [
    "",
    "Set by `./cml calibrate` on each GPU, between the slowest correct kernel and the fastest wrong one it",
    "measured; below one, the points rise from the baseline's figure.",
]


def not_yet_measured(lab: Lab, targets: list[Target]) -> list[str]:
    """What a handout says of a lab none of the shipped GPUs has thresholds for: an empty table would read as a
    lab that is not timed, and the grade says "not run" for its speed checks there."""
    gpus = " and ".join(target.name.upper() for target in targets) or "any GPU"
    return [
        f"Not yet measured on {gpus}: no thresholds file holds this lab, so on those GPUs its speed checks are",
        '"not run", with the reason, and the verdict is at best "incomplete". Your benchmark still prints your',
        f"numbers. `./cml calibrate --lab {int(lab.number)}` on a GPU sets the thresholds.",
    ]


def block(lab: Lab, targets: list[Target], handout: bool) -> str:
    """The block for a handout (the rule spelled out first) or a slide (the table, then the rule in short)."""
    groups = list(dict.fromkeys(group for target in targets for group in target.for_lab(lab.name)))
    if not groups:  # a lab newer than every calibration: its speed checks say so, and are not run
        waiting = [
            f"No GPU has thresholds for this lab yet: `./cml calibrate --lab {int(lab.number)}` measures it on one.",
            "Until then its speed checks are reported as not run, never as passed.",
        ]
        return "\n".join([BEGIN, *waiting, END])
    table = [
        "| speed check | " + " | ".join(target.name.upper() for target in targets) + " |",
        "|---|" + "---|" * len(targets),
    ]
    for group in groups:
        table += rows(lab, group, [target.for_lab(lab.name).get(group) for target in targets])
    lines = HOW_SET + table if handout else table + HOW_SET_SHORT
    return "\n".join([BEGIN, *lines, END])


def updated(text: str, new_block: str, begin: str = BEGIN, end_marker: str = END) -> str | None:
    """The page with its block (from `begin` to `end_marker`, the markers included) replaced; None where it has
    no block. tools/handout_commands.py writes its block with it too."""
    start, end = text.find(begin), text.find(end_marker)
    if start < 0 or end < start:
        return None
    return text[:start] + new_block + text[end + len(end_marker) :]


def shipped_targets() -> list[Target]:
    """The thresholds files the project ships: those whose measurements results/calibration/ keeps. A file an
    instructor's ./cml calibrate adds for another GPU is not in the handouts, so it leaves them up to date."""
    kept = REPO_ROOT / "results" / "calibration"
    paths = sorted(TARGETS_DIR.glob("*.toml"))
    return [load_target(path) for path in paths if (kept / f"{path.stem}-measurements.json").is_file()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 where a handout is stale")
    args = parser.parse_args(argv)
    targets = shipped_targets()
    problems = []
    for lab in load_config().labs:
        for page, handout in ((f"labs/{lab.name}/README.md", True), (f"slides/decks/{lab.name}.md", False)):
            text = (REPO_ROOT / page).read_text()
            new = updated(text, block(lab, targets, handout))
            if new is None:
                problems.append(f"{page}: no thresholds block (its markers are missing)")
            elif new != text:
                if args.check:
                    problems.append(f"{page}: its thresholds differ from grader/targets/")
                else:
                    (REPO_ROOT / page).write_text(new)
                    print(f"wrote {page}")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems and args.check:
        print("run: PYTHONPATH=. .venv/bin/python tools/handout_thresholds.py", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
