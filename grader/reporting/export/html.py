"""One self-contained HTML page of a run: a summary, then per lab its plot and its checks. Nothing is loaded
from elsewhere (inline CSS, plots as data: URIs, a Content-Security-Policy that forbids the rest), and
everything from the run is escaped by Jinja2's autoescape: details hold compiler and sanitizer output."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from grader.reporting.export.plots import lab_plot
from grader.reporting.export.run import GroupRate, group_rates, lab_label, lab_seconds, not_measured_reason, plain

TEMPLATES = Path(__file__).resolve().parent / "templates"
# How many of a submission's ignored files the page names; the rest are counted.
IGNORED_SHOWN = 10
STATUS_MEANING = {
    "passed": "earned its points",
    "failed": "earned nothing: see the detail and the hint",
    "not run": "could not run here (no GPU, no tool, an earlier step failed): earned nothing here",
    "skipped": "an optional stretch goal, not attempted: worth nothing either way",
    "withheld": "came out clean, but counts only once every correctness test passes",
    "not graded": "measured and shown, worth nothing on this GPU: time cannot separate the lesson here",
}


def device_words(run: dict) -> str:
    """Where the run was graded, as a student says it: the GPU's name, or the CPU emulator."""
    if run.get("device"):
        return f"{plain(run['device'])} (GPU)"
    if run.get("cpu_emulator"):
        return "CPU emulator (no GPU here: the speed checks are graded on a GPU)"
    return "no GPU and no CPU emulator: the checks that need one were not run"


def graded_date(run: dict) -> str | None:
    """The day and time the run was graded, to the minute, as written in the run ('2026-11-23 12:00')."""
    when = run.get("graded_at") or run.get("timestamp")
    return plain(str(when))[:16].replace("T", " ") if when else None


def ignored_files(run: dict) -> str | None:
    """The submission's ignored files, the first IGNORED_SHOWN of them named, the rest counted."""
    ignored = [plain(str(name)) for name in run.get("files_ignored") or []]
    if not ignored:
        return None
    more = len(ignored) - IGNORED_SHOWN
    return ", ".join(ignored[:IGNORED_SHOWN]) + (f" and {more} more" if more > 0 else "")


def _run_facts(run: dict) -> list[tuple[str, str]]:
    """What a student needs at the top of the page: who, where, when, the seed that replays the run, how late,
    and which files were ignored. The grader's own fields (jobs, seconds, build times, digests, thresholds'
    file) stay in the JSON."""
    late = run.get("late") or {}
    facts = [
        ("student", plain(str(run.get("name") or run.get("student") or ""))),
        ("graded on", device_words(run)),
        ("graded", graded_date(run)),
        ("seed", str(run["seed"]) if run.get("seed") is not None else None),
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


def _lab_view(run: dict, lab: dict) -> dict:
    rates = group_rates(lab)
    bench = lab.get("bench") or {}
    return {
        "id": f"lab-{lab['lab']}-{lab.get('variant', 'student')}",
        "label": lab_label(lab),
        "title": lab.get("title", ""),
        "verdict": lab.get("verdict", "?"),
        "points": lab.get("points", 0.0),
        "max_points": lab.get("max_points", 0.0),
        "ungraded_points": lab.get("ungraded_points", 0.0),
        "seconds": lab_seconds(lab),
        "steps": {plain(step): float(seconds) for step, seconds in (lab.get("steps") or {}).items()},
        "kernel_path": lab.get("kernel_path", ""),
        "problem": plain(bench.get("problem", "")),
        "copy_gbps": bench.get("copy_gbps") or 0.0,
        "plot": lab_plot(rates) if rates else None,
        "not_measured": None if rates else not_measured_reason(run, lab),
        "rates": [_rate_row(rate) for rate in rates],
        "memory_bound": any(rate.memory_bound for rate in rates),
        "resources": [
            {key: plain(str(kernel.get(key, ""))) for key in RESOURCE_COLUMNS} for kernel in lab.get("resources") or []
        ],
        "resources_problem": plain(lab.get("resources_problem")),
        "checks": [
            {
                "name": plain(check["name"]),
                "category": check["category"],
                "status": check["status"],
                "points": check.get("points", 0.0),
                "max_points": check.get("max_points", 0.0),
                "detail": plain(check.get("detail")).strip(),
                "hint": plain(check.get("hint")).strip(),
            }
            for check in lab.get("checks", [])
        ],
    }


def render_html(run: dict) -> str:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template("report.html.j2").render(
        score=run.get("score", 0.0),
        max_score=run.get("max_score", 0.0),
        facts=_run_facts(run),
        notes=[plain(str(note)) for note in run.get("notes") or []],
        labs=[_lab_view(run, lab) for lab in run.get("labs", [])],
        meanings=STATUS_MEANING,
    )


def write_html(run: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(run), encoding="utf-8")
