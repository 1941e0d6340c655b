"""The decks build from one command and open in headless Chromium (Debian's, driven by Playwright): each loads
without console errors or missing assets, has one slide per heading of its Markdown, fits every slide in
1280 x 720, and shows a first slide that is not blank.

Chromium missing is a failure, not a skip, unless CML_SKIP_BROWSER=1 says so. CML_SLIDES_SCREENSHOTS=DIR
also saves a PNG of every slide there, to look at."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

SLIDES = Path(__file__).resolve().parents[1]
ROOT = SLIDES.parent
DECKS = sorted(p.stem for p in (SLIDES / "decks").glob("[0-9][0-9]_*.md"))
WIDTH, HEIGHT = 1280, 720

if os.environ.get("CML_SLIDES_UNAVAILABLE"):
    pytest.skip(os.environ["CML_SLIDES_UNAVAILABLE"], allow_module_level=True)


def expected_slides(deck: str) -> int:
    """One slide per level-1 or level-2 heading outside code blocks."""
    count, fenced = 0, False
    for line in (SLIDES / "decks" / f"{deck}.md").read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,2} ", line):
            count += 1
    return count


def _build(out: Path, learner: Path) -> Path:
    proc = subprocess.run(
        [sys.executable, str(SLIDES / "build.py"), "--out", str(out), "--learner", str(learner)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, f"slides/build.py failed:\n{proc.stdout}\n{proc.stderr}"
    return out / "html"


def planted_grades() -> dict:
    """The grade, as .results/grade.json holds it, of Lab 1 with lanes 32 floats apart and Lab 5 with an unpadded
    tile: their memory checks, judged from what the CPU emulator recorded of those kernels."""
    from grader.reporting import report
    from grader.tests.support import access_samples

    grades = [access_samples.grade(fixture) for fixture in ("01_lanes_32_apart", "05_no_padding")]
    return report.run_dict(grades, {"seed": grades[0].seed, "cpu_emulator": True})


@pytest.fixture(scope="session")
def learner_results(tmp_path_factory) -> Path:
    """A learner's .results/grade.json whose kernels are the reference solutions', as if graded on an H100; Labs 1
    and 5 also carry the memory checks of planted kernels' grades, with their pictures of accesses."""
    results = json.loads((ROOT / "results" / "h100-grade.json").read_text())
    results["labs"] = [dict(lab, variant="student") for lab in results["labs"] if lab["variant"] == "solution"]
    for planted in planted_grades()["labs"]:
        lab = next(lab for lab in results["labs"] if lab["lab"] == planted["lab"])
        lab["checks"] = [*lab["checks"], *planted["checks"]]
    path = tmp_path_factory.mktemp("learner") / "grade.json"
    path.write_text(json.dumps(results))
    return path


@pytest.fixture(scope="session")
def site(tmp_path_factory, learner_results) -> Path:
    return _build(tmp_path_factory.mktemp("slides"), learner_results)


def test_one_command_builds_every_deck_and_the_index(site):
    labs = tomllib.loads((ROOT / "grader" / "labs.toml").read_text())["lab"]
    assert DECKS == ["00_intro", *sorted(labs)], "one deck per lab of grader/labs.toml, and the introduction"
    for page in DECKS + ["index"]:
        assert (site / f"{page}.html").is_file(), page
    assert (site / "_static" / "revealjs" / "dist" / "reveal.js").is_file(), "reveal.js is not bundled"


def test_no_page_loads_anything_from_the_network(site):
    for page in site.glob("*.html"):
        assert not re.search(r'(src|href)="(https?:)?//', page.read_text()), page.name


def test_plots_are_the_learners_own_when_there_are_results(site):
    picture = (site / "_images" / "lab4-yours.svg").read_text()
    assert "gemm_register_blocked" in picture and "No timed results" not in picture


def test_without_learner_results_the_slide_says_how_to_get_them(tmp_path):
    html = _build(tmp_path, tmp_path / "no-such-grade.json")
    assert "No timed results of yours" in (html / "_images" / "lab1-yours.svg").read_text()
    assert "No picture of your own accesses for lab 5" in (html / "_images" / "lab5-accesses.svg").read_text()


def test_the_accesses_slides_draw_the_learners_own_warp(tmp_path, monkeypatch):
    """Labs 1 and 5 graded with lanes 32 floats apart and an unpadded tile: the slides draw those grades' own
    pictures, the lanes' 32 sectors and the 32-way conflict, as the HTML report does."""
    learner = tmp_path / "grade.json"
    learner.write_text(json.dumps(planted_grades()))
    monkeypatch.syspath_prepend(str(SLIDES))
    from figures import accesses

    lab1, lab5 = (path.read_text() for path in accesses.write(tmp_path, learner))
    assert "kernel.cu:17, global load" in lab1 and "32 sectors for 128 B: 4 would do" in lab1
    assert "kernel.cu:31, shared load" in lab5 and "32-way: 32 wavefronts for 1" in lab5
    assert "No picture" not in lab1 + lab5


@pytest.fixture(scope="session")
def browser(chromium):  # chromium: the root conftest.py's, installed only when this test runs
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        args = ["--no-sandbox"] if os.geteuid() == 0 else []  # Chromium refuses root without it
        browser = playwright.chromium.launch(executable_path=chromium, args=args)
        yield browser
        browser.close()


def _not_blank(png: bytes) -> bool:
    from PIL import Image, ImageStat

    image = Image.open(io.BytesIO(png)).convert("L")
    return ImageStat.Stat(image).stddev[0] > 10 and len(image.getcolors(maxcolors=1 << 16) or range(1 << 16)) > 8


@pytest.mark.parametrize("deck", DECKS)
def test_deck_opens_cleanly_in_chromium(site, browser, deck):
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    problems = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"missing: {r.url} ({r.failure})"))
    page.goto((site / f"{deck}.html").as_uri())
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    page.wait_for_load_state("load")

    assert page.evaluate("Reveal.getTotalSlides()") == expected_slides(deck)
    broken = page.evaluate("[...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)")
    assert not broken, f"pictures that did not load: {broken}"
    first = page.screenshot()
    assert _not_blank(first), "the first slide's screenshot is blank"

    shots = os.environ.get("CML_SLIDES_SCREENSHOTS")
    overflowing = []
    for n in range(expected_slides(deck)):
        page.evaluate(f"Reveal.slide({n})")
        if page.evaluate(f"(s => s.scrollHeight > {HEIGHT} || s.scrollWidth > {WIDTH})(Reveal.getCurrentSlide())"):
            overflowing.append(page.evaluate("Reveal.getCurrentSlide().querySelector('h1, h2').textContent"))
        if shots:
            Path(shots).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=f"{shots}/{deck}-{n:02d}.png")
    page.close()
    assert not overflowing, f"slides larger than {WIDTH} x {HEIGHT}: {overflowing}"
    assert not problems, problems
