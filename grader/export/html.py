"""One self-contained HTML page of a run: a summary, then per lab its plot and its checks. Nothing is loaded
from elsewhere (inline CSS, plots as data: URIs, a Content-Security-Policy that forbids the rest), and
everything from the run is escaped by Jinja2's autoescape: details hold compiler and sanitizer output."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from grader.export.plots import lab_plot
from grader.export.run import GroupRate, group_rates, lab_label, lab_seconds, not_measured_reason, plain

TEMPLATES = Path(__file__).resolve().parent / "templates"
# Run keys the page names in words; any other key with a plain value is shown under its own name.
RUN_FIELDS = {
    "student": "student",
    "device": "GPU",
    "gpu_reason": "no GPU",
    "cpu_emulator": "on the CPU emulator",
    "target": "thresholds",
    "seed": "seed",
    "timestamp": "graded at",
}
NOT_SHOWN = {"labs", "score", "max_score"}
STATUS_MEANING = {
    "passed": "earned its points",
    "failed": "earned nothing: see the detail and the hint",
    "not run": "could not run here (no GPU, no tool, an earlier step failed): earned nothing here",
    "skipped": "an optional stretch goal, not attempted: worth nothing either way",
    "withheld": "came out clean, but counts only once every correctness test passes",
    "not graded": "measured and shown, worth nothing on this GPU: time cannot separate the lesson here",
}


def _value(value) -> str | None:
    if isinstance(value, (str, int, float, bool)):
        return str(value)
    if isinstance(value, list) and all(isinstance(v, (str, int, float, bool)) for v in value):
        return ", ".join(map(str, value))
    return None  # nested data: the JSON holds it, the page does not


def _run_facts(run: dict) -> list[tuple[str, str]]:
    keys = [k for k in RUN_FIELDS if k in run] + [k for k in run if k not in RUN_FIELDS and k not in NOT_SHOWN]
    facts = [(RUN_FIELDS.get(key, key.replace("_", " ")), _value(run[key])) for key in keys if run[key] is not None]
    return [(name, plain(value)) for name, value in facts if value]


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
        labs=[_lab_view(run, lab) for lab in run.get("labs", [])],
        meanings=STATUS_MEANING,
    )


def write_html(run: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(run), encoding="utf-8")
