"""Numbers where students read first agree with what the grader checks. A skeleton's comments state no speedup
(the bars and the reference's figures move with each calibration; the handout's generated table,
tools/handout_thresholds.py, states them), and each deck's slide of what the grade checks gives the counter
bounds of grader/labs.toml, its speed bars on the generated slide that follows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.core.config import REPO_ROOT, load_config

# "x1.30", "×2", "x2.3 slower", "18x slower", "225 times slower": a speed ratio, not algebra such as "5x^2".
SPEEDUP = re.compile(
    r"(?<![\w.])[x×]\d+(?:\.\d+)?(?![\w^])|\b\d+(?:\.\d+)?x (?:slower|faster|over)\b|\b\d+ times (?:slower|faster)\b"
)
GRADE_SLIDE = re.compile(r"^## What the grade (?:measured|checks)")
COUNTER_ROW = re.compile(r"^(?:\w+: )?ncu")  # "ncu: ...", or in a lab with parts "A: ncu ..."
BOUND = re.compile(r"^(<=|>=) ([0-9.]+)$")
BETWEEN = re.compile(r"^([0-9.]+) to ([0-9.]+)$")  # a check bounded on both sides
LABS = [lab.name for lab in load_config().labs]


def comments(path: Path) -> list[tuple[int, str]]:
    """(line number, the text after //) of every line of a C++ file with a comment."""
    return [(n, line.split("//", 1)[1]) for n, line in enumerate(path.read_text().splitlines(), 1) if "//" in line]


def grade_slide_rows(deck: Path) -> list[list[str]]:
    """The table rows (cells, stripped) of the deck's slide of what the grade checks, header rows left out."""
    rows, inside = [], False
    for line in deck.read_text().splitlines():
        if line.startswith("## "):
            inside = bool(GRADE_SLIDE.match(line))
        elif inside and line.startswith("|") and not line.startswith(("| check", "|---")):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def test_the_speedup_pattern_finds_ratios_and_not_algebra():
    for text in ("on an H100, x1.30 over", "serialises: x2.3 slower", "~18x slower", "225 times slower", "(×2)"):
        assert SPEEDUP.search(text), text
    for text in ("2 + 3x + 5x^2 = (5x + 3)x + 2", "32 x 32 tiles", "0.9 of copy bandwidth", "2R + 1 times:"):
        assert not SPEEDUP.search(text), text


@pytest.mark.parametrize("lab", LABS)
def test_a_skeletons_comments_state_no_speedup(lab):
    skeleton = REPO_ROOT / "labs" / lab / "kernel.cu"
    found = [f"{skeleton.relative_to(REPO_ROOT)}:{n}: {text.strip()}" for n, text in comments(skeleton)]
    assert [line for line in found if SPEEDUP.search(line.split(": ", 1)[1])] == []


@pytest.mark.parametrize("lab", LABS)
def test_the_grade_slide_gives_the_counter_bounds_of_labs_toml(lab):
    deck = REPO_ROOT / "slides" / "decks" / f"{lab}.md"
    rows = grade_slide_rows(deck) if deck.is_file() else []
    if not rows:
        pytest.skip(f"{deck.relative_to(REPO_ROOT)} has no slide of what the grade checks")
    mechanisms = next(entry for entry in load_config().labs if entry.name == lab).mechanisms
    shipped = sorted(
        f"{m.min:g} to {m.max:g}"
        if m.min is not None and m.max is not None
        else f"{'<=' if m.max is not None else '>='} {m.max if m.max is not None else m.min:g}"
        for m in mechanisms
        if m.tool == "ncu"
    )
    shown = []
    for cells in rows:
        check, bound = cells[0], cells[-1]
        if COUNTER_ROW.match(check):
            matched, between = BOUND.match(bound), BETWEEN.match(bound)
            assert matched or between, f"{deck.name}: {check!r} should give its bound as '<= N', '>= N' or 'N to M'"
            if between:
                shown.append(f"{float(between[1]):g} to {float(between[2]):g}")
            elif matched:
                shown.append(f"{matched[1]} {float(matched[2]):g}")
        else:  # a speed bar belongs on the generated slide; a sanitizer's bound is 0
            assert bound in ("next slide", "0", ""), f"{deck.name}: {check!r} states {bound!r}"
    assert sorted(shown) == shipped, f"{deck.name}: the counter bounds shown are not those of grader/labs.toml"
