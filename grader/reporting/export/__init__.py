"""A graded run for the platforms people use: Gradescope's results.json, JUnit XML for CI tools and GitHub
Classroom, and a self-contained HTML page. Each export reads the run as report.write_json writes it, read back
by grader/core/recorded.py, so it can also be made later from a saved JSON file without grading again."""

from __future__ import annotations

from pathlib import Path

from grader.core.recorded import RecordedRun
from grader.reporting.export.gradescope import write_gradescope
from grader.reporting.export.html import write_html
from grader.reporting.export.junit import write_junit

__all__ = ["write_exports", "write_gradescope", "write_html", "write_junit"]


def write_exports(
    run: RecordedRun, *, gradescope: Path | None = None, junit: Path | None = None, html: Path | None = None
) -> list[Path]:
    """Writes each export whose path is given; returns the paths written."""
    written = []
    for path, write in ((gradescope, write_gradescope), (junit, write_junit), (html, write_html)):
        if path is not None:
            write(run, Path(path))
            written.append(Path(path))
    return written
