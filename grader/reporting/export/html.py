"""One self-contained HTML page of a run: what to mend first in each failed lab (its cause, where, the hint and
the command that runs the failed case again), a summary, then per lab its checks, in the order of their causes
(grader/reporting/causes.py, as every output has them), its plot and its resources. Nothing is loaded
from elsewhere (inline CSS, plots as data: URIs, a Content-Security-Policy that forbids the rest), and
everything from the run is escaped by Jinja2's autoescape: details hold compiler and sanitizer output."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from grader.core import atomic
from grader.core.access import AccessPicture
from grader.core.recorded import RecordedCheck, RecordedLab, RecordedRun
from grader.reporting import access_text, causes
from grader.reporting.export.access_svg import access_svg
from grader.reporting.export.plots import lab_plot
from grader.reporting.export.run import GroupRate, group_rates, lab_seconds, not_measured_reason, plain

TEMPLATES = Path(__file__).resolve().parent / "templates"
# How many of a submission's ignored files the page names; the rest are counted.
IGNORED_SHOWN = 10
STATUS_MEANING = {
    "passed": "earned its points",
    "failed": "earned nothing: see the detail and the hint",
    "not run": "could not run here (no GPU, no tool, an earlier step failed): earned nothing here",
    "skipped": "an optional stretch goal, not attempted: worth nothing either way",
    "withheld": (
        "came out clean, but counts only once every correctness test passes (and, where the untouched skeleton "
        "passes it too, once the lesson's own check does)"
    ),
    "not graded": "measured and shown, worth nothing on this GPU: time cannot separate the lesson here",
}


def device_words(run: RecordedRun) -> str:
    """Where the run was graded, as a student says it: the GPU's name, or the CPU emulator."""
    if run.device:
        return f"{plain(run.device)} (GPU)"
    if run.cpu_emulator:
        return "CPU emulator (no GPU here: the speed checks are graded on a GPU)"
    return "no GPU and no CPU emulator: the checks that need one were not run"


def graded_date(run: RecordedRun) -> str | None:
    """The day and time the run was graded, to the minute, as written in the run ('2026-11-23 12:00')."""
    when = run.graded_at or run.timestamp
    return plain(when)[:16].replace("T", " ") if when else None


def ignored_files(run: RecordedRun) -> str | None:
    """The submission's ignored files, the first IGNORED_SHOWN of them named, the rest counted."""
    ignored = [plain(name) for name in run.files_ignored]
    if not ignored:
        return None
    more = len(ignored) - IGNORED_SHOWN
    return ", ".join(ignored[:IGNORED_SHOWN]) + (f" and {more} more" if more > 0 else "")


def _run_facts(run: RecordedRun) -> list[tuple[str, str]]:
    """What a student needs at the top of the page: who, where, when, the seed that replays the run, how late,
    and which files were ignored. The grader's own fields (jobs, seconds, build times, digests, thresholds'
    file) stay in the JSON."""
    late = run.late or {}
    facts = [
        ("student", plain(run.name or run.student or "")),
        ("graded on", device_words(run)),
        ("graded", graded_date(run)),
        ("seed", str(run.seed) if run.seed is not None else None),
        ("days late", str(late["days"]) if late.get("days") else None),
        ("files ignored", ignored_files(run)),
    ]
    return [(name, value) for name, value in facts if value]


def _rate_row(rate: GroupRate) -> dict:
    def number(value: float | None, form: str) -> str:
        return "-" if value is None else form.format(value)

    return {
        "group": rate.group or "-",
        "speedup": number(rate.speedup, "×{:.2f}") if rate.correct else "wrong result",
        "min_speedup": number(rate.min_speedup, "≥ ×{:g}") if rate.min_speedup is not None else "not graded",
        "copy_fraction": number(rate.copy_fraction, "{:.2f}"),
        "min_copy_fraction": number(rate.min_copy_fraction, "≥ {:g}"),
    }


# What the page shows of each kernel of the compiler's resource report (grade.json: resources).
RESOURCE_COLUMNS = ("name", "registers", "stack_bytes", "local_bytes", "shared_bytes", "constant_bytes")


def access_view(picture: AccessPicture | None) -> dict | None:
    """A check's picture of its accesses: the SVG (made and escaped by access_svg, so marked safe here), the
    kernel's resources, the line's machine code and where it all comes from; None where it has none."""
    if picture is None or (not picture.drawn and not picture.facts.machine_code and not picture.problem):
        return None
    return {
        "svg": Markup(access_svg(picture)) if picture.drawn else None,
        "problem": plain(picture.problem),
        "resources": plain(access_text.resource_words(picture)),
        "machine_code": [plain(text) for text in picture.facts.machine_code],
        "other_instructions": picture.facts.other_instructions,
        "place": plain(picture.yours.place) if picture.yours else "",
        "source": plain(picture.source + (f"; {picture.beside}" if picture.beside else "")),
    }


def _cause_view(lab: RecordedLab) -> dict | None:
    """The failure to mend first, as the top of the page shows it; None where nothing failed."""
    cause: RecordedCheck | None = causes.cause(lab.checks)
    if cause is None:
        return None
    replay = causes.replay(lab.checks, lab.lab, lab.seed)
    return {
        "name": plain(cause.name),
        "location": plain(causes.location(cause)),
        "seen": plain("\n".join(causes.seen(cause))),
        "hint": plain(causes.split_hint(cause.hint)[0]),
        "replay": plain(replay),
        "access": access_view(cause.access),
    }


def _lab_view(run: RecordedRun, lab: RecordedLab) -> dict:
    rates = group_rates(lab)
    return {
        "id": f"lab-{lab.lab}-{lab.variant}",
        "label": lab.label,
        "title": lab.title,
        "verdict": lab.verdict,
        "points": lab.points,
        "max_points": lab.max_points,
        "ungraded_points": lab.ungraded_points,
        "seconds": lab_seconds(lab),
        "steps": {plain(step): float(seconds) for step, seconds in lab.steps.items()},
        "kernel_path": lab.kernel_path,
        "problem": plain(lab.bench.problem if lab.bench else ""),
        "copy_gbps": (lab.bench.copy_gbps if lab.bench else 0.0) or 0.0,
        "plot": lab_plot(rates) if rates else None,
        "not_measured": None if rates else not_measured_reason(run, lab),
        "rates": [_rate_row(rate) for rate in rates],
        "memory_bound": any(rate.memory_bound for rate in rates),
        "resources": [{key: plain(str(getattr(kernel, key))) for key in RESOURCE_COLUMNS} for kernel in lab.resources],
        "resources_problem": plain(lab.resources_problem),
        "cause": _cause_view(lab),
        "checks": [
            {
                "name": plain(check.name),
                "category": check.category.value,
                "status": check.status.value,
                "points": check.points,
                "max_points": check.max_points,
                "detail": plain(check.detail).strip(),
                "hint": plain(check.hint).strip(),
                "access": access_view(check.access),
            }
            for check in causes.ordered(lab.checks)
        ],
    }


def render_html(run: RecordedRun) -> str:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template("report.html.j2").render(
        score=run.score,
        max_score=run.max_score,
        facts=_run_facts(run),
        notes=[plain(note) for note in run.notes],
        labs=[_lab_view(run, lab) for lab in run.labs],
        meanings=STATUS_MEANING,
    )


def write_html(run: RecordedRun, path: Path) -> None:
    atomic.write_text(path, render_html(run))
