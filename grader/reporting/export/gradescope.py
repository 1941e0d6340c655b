"""Gradescope: the autograder's results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/).

One Gradescope test per check that is worth points, did not pass, or is a stretch goal (shown at 0 points);
a passed build or integrity check, worth nothing by itself, is left out. gradescope_schema.json beside this
file is the documented format, checked by the tests.

With speed_later (the autograder's containers have no GPU), a speed check that could not run is a test
"graded later on a GPU": worth 0 here, and given the status "passed". Gradescope documents two looks for a
test, passing (green) and failing (red), chosen by "status" where it is set (specs: "Test case status");
there is no neutral one, so the test's name and output say that nothing was measured and nothing earned."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Collection
from pathlib import Path

from grader.core import atomic
from grader.core.model import Category, Status
from grader.core.recorded import RecordedCheck, RecordedRun
from grader.reporting.export.run import check_text, lab_number, lab_seconds, plain

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
SCHEMA = Path(__file__).resolve().parent / "gradescope_schema.json"


def _listed(check: RecordedCheck) -> bool:
    return check.max_points > 0 or check.status is not Status.PASSED or check.category is Category.STRETCH


def _visible(value: str) -> str:
    if value not in VISIBILITIES:
        raise ValueError(f"Gradescope visibility {value!r}: one of {', '.join(VISIBILITIES)}")
    return value


LATER = "graded later on a GPU"


def _later(run: RecordedRun, check: RecordedCheck, speed_later: bool) -> bool:
    """Whether a check is a speed check this run could not measure and a GPU run will grade."""
    return (
        speed_later
        and not run.device
        and check.status is Status.NOT_RUN
        and check.category in (Category.PERFORMANCE, Category.STRETCH)
    )


def _later_points(run: RecordedRun, speed_later: bool) -> float:
    return sum(check.max_points for lab in run.labs for check in lab.checks if _later(run, check, speed_later))


def _summary(run: RecordedRun, speed_later: bool = False) -> str:
    later = _later_points(run, speed_later)
    lines = [f"Score: {run.score:.1f} / {run.max_score:g}"]
    if later:
        lines[0] = (
            f"Score here: {run.score:.1f} / {run.max_score - later:g}; the other "
            f"{later:g} points are for speed, {LATER}"
        )
    if run.device:
        lines[0] += f" on {run.device}"
    elif run.cpu_emulator:
        lines.append(
            f"No GPU: {plain(run.gpu_reason) or 'none found'}. The tests, sanitizers and counters ran "
            "on the CPU emulator; the speed checks were not run."
        )
    else:
        lines.append(f"No GPU: {plain(run.gpu_reason) or 'none found'}. Checks that need one were not run.")
    for lab in run.labs:
        lines.append(
            f"{lab.label}: {lab.verdict}, {lab.points:.1f} / {lab.max_points:g}"
            + (f" ({lab.ungraded_points:.1f} not graded here)" if lab.ungraded_points else "")
        )
    lines += [f"Note: {plain(note)}" for note in run.notes]
    lines += [f"{lab}: not graded, the grader failed: {plain(why)}" for lab, why in run.grader_errors.items()]
    lines.append("Each test below is one check; a test that is not 'passed' earned no points.")
    if later:
        lines.append(
            f"A test marked '{LATER}' was not measured here and earned nothing yet: it shows as passed "
            "only so that it does not show as a failure. Your instructor measures it on a GPU after the "
            "due date and adds those points separately."
        )
    return "\n".join(lines)


def gradescope_results(
    run: RecordedRun,
    *,
    visibility: str = "visible",
    stdout_visibility: str = "hidden",
    instructor_only: Collection[str] = (),
    instructor_visibility: str = "after_published",
    speed_later: bool = False,
) -> dict:
    """results.json as a dict. `visibility` applies to the whole result and each test, except the checks
    named in `instructor_only`, which get `instructor_visibility`. speed_later: see the module's help."""
    tests = []
    counted: Counter[int] = Counter()  # tests so far per lab number: a lab graded twice (student, solution) numbers on
    for position, lab in enumerate(run.labs, start=1):
        label, number = lab.label, lab_number(lab, position)
        for check in filter(_listed, lab.checks):
            counted[number] += 1
            passed = check.status is Status.PASSED
            hidden = check.name in instructor_only
            if _later(run, check, speed_later):
                tests.append(
                    _later_test(
                        check,
                        label,
                        f"{number}.{counted[number]}",
                        lab.lab,
                        _visible(instructor_visibility if hidden else visibility),
                    )
                )
                continue
            tests.append(
                {
                    "name": f"{label} · {plain(check.name)}",
                    "name_format": "text",
                    "number": f"{number}.{counted[number]}",
                    "score": round(check.points, 4),
                    "max_score": round(check.max_points, 4),
                    "status": "passed" if passed else "failed",
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
        "output": _summary(run, speed_later),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": _visible(visibility),
        "stdout_visibility": _visible(stdout_visibility),
        "extra_data": {
            "max_score": run.max_score,
            "device": run.device,
            "target": run.target,
            "submitted_at": run.submitted_at,
            "late": run.late,
        },
        "tests": tests,
    }


def _later_test(check: RecordedCheck, label: str, number: str, lab: str, visibility: str) -> dict:
    worth = check.max_points
    return {
        "name": f"{label} · {plain(check.name)}: {LATER}",
        "name_format": "text",
        "number": number,
        "score": 0.0,
        "max_score": 0.0,
        "status": "passed",
        "output": f"Not measured here: this autograder has no GPU, and timings on a CPU mean nothing. Worth 0 "
        f"points here. Your instructor grades it on a GPU after the due date ({worth:g} points there) and adds "
        "those points separately." + (f"\n\n{plain(check.detail).strip()}" if check.detail else ""),
        "output_format": "text",
        "tags": [lab, check.category.value, "graded-later"],
        "visibility": visibility,
    }


def write_gradescope(run: RecordedRun, path: Path, **options) -> None:
    """Writes results.json (Gradescope reads /autograder/results/results.json); options: gradescope_results."""
    text = json.dumps(gradescope_results(run, **options), indent=2, ensure_ascii=False)
    atomic.write_text(path, text + "\n")
