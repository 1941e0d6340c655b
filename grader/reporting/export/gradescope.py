"""Gradescope: the autograder's results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/).

One Gradescope test per check of the run, each lab's in the order of its causes (grader/reporting/causes.py: test
N.1 is the failure to mend first), but for a passed build or integrity check, worth nothing by itself, and the
checks that are neither passed nor failed. Gradescope documents two looks for a test, passing (green) and
failing (red), chosen by "status" where it is set (specs: "Test case status"), and no neutral one; so what is
neither is no test, and the summary above the tests names it, lab by lab:
- a stretch goal not attempted: optional, worth nothing either way;
- a speed check a machine without a GPU could not measure: graded elsewhere, on a GPU, and worth nothing here
  (the summary gives its points, which the instructor adds from a GPU's grade: grader/platforms/gradescope.py);
- a speed check measured but graded by nothing on this GPU (time cannot separate the lesson there).
gradescope_schema.json beside this file is the documented format, checked by the tests."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Collection
from pathlib import Path

from grader.core import atomic
from grader.core.model import Category, Status
from grader.core.recorded import RecordedCheck, RecordedLab, RecordedRun
from grader.reporting.causes import cause, ordered, replay, summary
from grader.reporting.export.run import check_text, lab_number, lab_seconds, plain

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
SCHEMA = Path(__file__).resolve().parent / "gradescope_schema.json"
ELSEWHERE = "graded on a GPU, not here"
# The neutral states, each as the summary names it.
NOT_ATTEMPTED = "optional, not attempted (worth no points either way)"
NOT_GRADED_HERE = "measured, not graded on this GPU (time cannot separate the lesson here)"


def _visible(value: str) -> str:
    if value not in VISIBILITIES:
        raise ValueError(f"Gradescope visibility {value!r}: one of {', '.join(VISIBILITIES)}")
    return value


def elsewhere(run: RecordedRun, check: RecordedCheck) -> bool:
    """A speed check this run could not measure, having no GPU: a GPU's grade gives its points."""
    return (
        not run.device and check.status is Status.NOT_RUN and check.category in (Category.PERFORMANCE, Category.STRETCH)
    )


def neutral(run: RecordedRun, check: RecordedCheck) -> str | None:
    """Why a check is neither passed nor failed (the module's help), or None where it is one of them."""
    if elsewhere(run, check):
        return ELSEWHERE
    if check.category is Category.STRETCH and check.status is Status.SKIPPED:
        return NOT_ATTEMPTED
    if check.status is Status.NOT_GRADED:
        return NOT_GRADED_HERE
    return None


def listed(run: RecordedRun, check: RecordedCheck) -> bool:
    """Whether a check is a test: neither neutral, nor a passed check worth nothing of the build."""
    if neutral(run, check):
        return False
    return check.max_points > 0 or check.status is not Status.PASSED or check.category is Category.STRETCH


def elsewhere_points(run: RecordedRun) -> float:
    return sum(check.max_points for lab in run.labs for check in lab.checks if elsewhere(run, check))


def _lab_line(run: RecordedRun, lab: RecordedLab) -> list[str]:
    """The lab's verdict and points, the cause of its failure, and its checks that are no test, by why."""
    lines = [
        f"{lab.label}: {lab.verdict}, {lab.points:.1f} / {lab.max_points:g}"
        + (f" ({lab.ungraded_points:.1f} not graded here)" if lab.ungraded_points else "")
    ]
    first = cause(lab.checks)
    if first is not None:
        lines.append(f"  to mend first: {plain(summary(first))}")
        command = replay(lab.checks, lab.lab, lab.seed)
        lines += [f"  see it again, on the same inputs: {plain(command)}"] if command else []
    by_why: dict[str, list[str]] = {}
    for check in lab.checks:
        why = neutral(run, check)
        if why:
            by_why.setdefault(why, []).append(plain(check.name))
    lines += [f"  {why}: {'; '.join(names)}" for why, names in by_why.items()]
    return lines


def _summary(run: RecordedRun) -> str:
    later = elsewhere_points(run)
    lines = [f"Score: {run.score:.1f} / {run.max_score:g}"]
    if later:
        lines[0] = (
            f"Score here: {run.score:.1f} / {run.max_score - later:g}; the other {later:g} points are for speed, {ELSEWHERE}"
        )
    if run.device:
        lines[0] += f" on {run.device}"
    elif run.cpu_emulator:
        lines.append(
            f"No GPU: {plain(run.gpu_reason) or 'none found'}. The tests, sanitizers and counters ran "
            "on the CPU emulator; the speed checks are graded on a GPU."
        )
    else:
        lines.append(f"No GPU: {plain(run.gpu_reason) or 'none found'}. Checks that need one were not run.")
    for lab in run.labs:
        lines += _lab_line(run, lab)
    lines += [f"Note: {plain(note)}" for note in run.notes]
    lines += [f"{lab}: not graded, the grader failed: {plain(why)}" for lab, why in run.grader_errors.items()]
    lines.append(
        "Each test below is one check, each lab's in the order to mend them; a test that is not 'passed' earned "
        "no points. What is neither passed nor failed is named above, and is no test."
    )
    if later:
        lines.append(
            f"Speed ({ELSEWHERE}): this machine has no GPU, and timings on a CPU mean nothing, so those "
            f"{later:g} points are not in the score here; a grade on a GPU gives them."
        )
    return "\n".join(lines)


def gradescope_results(
    run: RecordedRun,
    *,
    visibility: str = "visible",
    stdout_visibility: str = "hidden",
    instructor_only: Collection[str] = (),
    instructor_visibility: str = "after_published",
) -> dict:
    """results.json as a dict. `visibility` applies to the whole result and each test, except the checks
    named in `instructor_only`, which get `instructor_visibility`."""
    tests = []
    counted: Counter[int] = Counter()  # tests so far per lab number: a lab graded twice (student, solution) numbers on
    for position, lab in enumerate(run.labs, start=1):
        label, number = lab.label, lab_number(lab, position)
        for check in ordered([check for check in lab.checks if listed(run, check)]):
            counted[number] += 1
            hidden = check.name in instructor_only
            tests.append(
                {
                    "name": f"{label} · {plain(check.name)}",
                    "name_format": "text",
                    "number": f"{number}.{counted[number]}",
                    "score": round(check.points, 4),
                    "max_score": round(check.max_points, 4),
                    "status": "passed" if check.status is Status.PASSED else "failed",
                    "output": check_text(check) or "passed",
                    "output_format": "text",
                    "tags": [lab.lab, check.category.value],
                    "visibility": _visible(instructor_visibility if hidden else visibility),
                }
            )
    return {
        "score": round(run.score, 4),
        # The run's wall time; a run saved before it had one: its labs' times, which were one after another.
        "execution_time": math.ceil(run.seconds or sum(lab_seconds(lab) for lab in run.labs)),
        "output": _summary(run),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": _visible(visibility),
        "stdout_visibility": _visible(stdout_visibility),
        "extra_data": {
            "max_score": run.max_score,
            "graded_elsewhere": elsewhere_points(run),
            "device": run.device,
            "target": run.target,
            "submitted_at": run.submitted_at,
            "late": run.late,
        },
        "tests": tests,
    }


def write_gradescope(run: RecordedRun, path: Path, **options) -> None:
    """Writes results.json (Gradescope reads /autograder/results/results.json); options: gradescope_results."""
    text = json.dumps(gradescope_results(run, **options), indent=2, ensure_ascii=False)
    atomic.write_text(path, text + "\n")
