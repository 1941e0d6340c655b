"""Screenshots of the HTML report's access pictures in Chromium, 1280 pixels wide: Lab 5 with an unpadded tile
(all 32 lanes of the tile's column read in one bank, a 32-way conflict) and Lab 1 with lanes 32 floats apart (32
sectors for one warp's read). Each report is the grade of a planted kernel of grader/tests/fixtures, judged from what
the CPU emulator and nvcc recorded of it (grader/tests/support/access_samples.py, which the slow tier records anew
and compares), written by the grader's own HTML export and opened by Chromium's headless screenshot. The samples
hold the lab's memory counter checks alone, so the report's score counts those checks only.

Usage:
    PYTHONPATH=. .venv/bin/python tools/access_screenshots.py [--out results/access] [--height 1100]

Needs Chromium (Debian: apt-get install chromium)."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.core.recorded import read_grade
from grader.reporting import report
from grader.reporting.export.html import write_html
from grader.tests.support import access_samples

REPO = Path(__file__).resolve().parent.parent
SHOTS = {  # planted kernel -> the PNG's name
    "05_no_padding": "lab05-unpadded-tile.png",
    "01_lanes_32_apart": "lab01-strided-read.png",
}
WIDTH = 1280


def report_page(fixture: str, path: Path) -> None:
    """The HTML report of the planted kernel's grade, as `./cml grade --html` writes it on the CPU emulator."""
    grade = access_samples.grade(fixture)
    write_html(read_grade(report.run_dict([grade], {"seed": grade.seed, "cpu_emulator": True})), path)


def screenshot(browser: str, page: Path, png: Path, height: int) -> None:
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",  # as root in a container, Chromium's sandbox cannot start
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--window-size={WIDTH},{height}",
            f"--screenshot={png}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "results" / "access")
    parser.add_argument("--height", type=int, default=1100)
    args = parser.parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        sys.exit("no Chromium on PATH (Debian: apt-get install chromium)")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cml-access-shots-") as scratch:
        for fixture, name in SHOTS.items():
            page = Path(scratch) / f"{fixture}.html"
            report_page(fixture, page)
            png = args.out / name
            screenshot(browser, page, png, args.height)
            if not png.is_file() or png.stat().st_size == 0:
                sys.exit(f"Chromium wrote no screenshot of {fixture}'s report")
            print(png)


if __name__ == "__main__":
    main()
