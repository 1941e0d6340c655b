"""The learner's own accesses, for the decks that teach coalescing (Lab 1) and banks (Lab 5): the picture their
grade drew of one warp's worst request beside the reference's (a memory counter check's, kept in their
.results/grade.json), drawn by the grader's own SVG (grader/reporting/export/access_svg.py) as the HTML report
draws it. A grade without one (none yet, or one from a GPU build folder with no emulator) gets a slide that says
how to get it."""

from __future__ import annotations

from pathlib import Path

from grader.core.access import AccessPicture
from grader.core.model import Status
from grader.core.recorded import load_grade
from grader.reporting.export.access_svg import access_svg

from .svg import GRID, Svg

# deck -> the memory space its lesson is about, and the picture's file
DECKS = {
    "01_vector_add": ("global", "lab1-accesses.svg"),
    "05_padded_transpose": ("shared", "lab5-accesses.svg"),
}


def learner_pictures(learner: Path | None) -> dict[str, AccessPicture]:
    """lab -> the picture to show of the deck's space: a failed check's first, else any check's drawn one."""
    if not learner or not learner.is_file():
        return {}
    found: dict[str, AccessPicture] = {}
    for lab in load_grade(learner).labs:
        if lab.variant != "student" or lab.lab not in DECKS:
            continue
        space = DECKS[lab.lab][0]
        drawn = [c for c in lab.checks if c.access is not None and c.access.drawn and c.access.space == space]
        drawn.sort(key=lambda check: check.status is not Status.FAILED)  # stable: the grade's order otherwise
        if drawn and drawn[0].access is not None:
            found[lab.lab] = drawn[0].access
    return found


def placeholder(lab: str) -> Svg:
    number = int(lab[:2])
    svg = Svg(1100, 300)
    svg.rect(20, 20, 1060, 260, fill="#fafafa", stroke=GRID, rx=12, dash="8,6")
    svg.text(550, 120, f"No picture of your own accesses for lab {number} yet", size=26, weight="bold")
    svg.text(
        550,
        170,
        "your grade draws one warp's request of your kernel (the CPU emulator's, GPU or not)",
        size=18,
        fill=GRID,
    )
    svg.text(550, 215, f"./cml grade --lab {number}, then ./cml slides", size=20, mono=True)
    return svg


def write(out: Path, learner: Path | None) -> list[Path]:
    """Each deck's picture of the learner's accesses (or the placeholder) in out/; their paths."""
    pictures = learner_pictures(learner)
    written = []
    for lab, (_, name) in DECKS.items():
        path = out / name
        if lab in pictures:
            path.write_text(access_svg(pictures[lab]) + "\n")
        else:
            placeholder(lab).save(path)
        written.append(path)
    return written
