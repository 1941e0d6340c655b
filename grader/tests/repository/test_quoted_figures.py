"""Figures that READMEs, handouts, skeletons and slides quote in prose agree with the files that measured them:
the shipped thresholds files (grader/targets/h100.toml), the graded runs (results/h100-grade*.json) and the
calibration's textbook kernels (results/calibration/h100-textbook-kernels.md). The handouts' threshold tables
are generated (tools/handout_thresholds.py); these are the figures around them, written by hand, so each is
listed here with its source and fails this test when a new measurement leaves it stale.

A quoted figure agrees when it is within one unit of its last shown digit: "x18" for 17.86, "~1040" for 1039,
"0.9" for 0.912. Trailing zeros of a whole number are not digits shown: "~1000" agrees with 998."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import pytest

from grader.core.config import REPO_ROOT, TARGETS_DIR, load_target

NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def agrees(quoted: str, true: float) -> bool:
    """Whether a figure as written ("x17.94", "~2,950", "0.9") is the true one rounded to the digits it shows."""
    digits = NUMBER.search(quoted)
    assert digits, f"no number in {quoted!r}"
    text = digits[0].replace(",", "")
    if "." in text:
        unit = 10.0 ** -len(text.split(".")[1])
    else:
        unit = 10.0 ** (len(text) - len(text.rstrip("0"))) if text.strip("0") else 1.0
    return abs(float(text) - true) < unit


# --- the sources -----------------------------------------------------------------------------------------


@cache
def h100_target():
    return load_target(TARGETS_DIR / "h100.toml")


def target(lab: str, field: str, group: str = "") -> Callable[[], float]:
    """A reference_* figure of the H100's thresholds file."""
    return lambda: getattr(h100_target().for_lab(lab)[group], field)


def baseline(lab: str, field: str, group: str = "") -> Callable[[], float]:
    """What the baseline reached, as the thresholds file's *_from text records it ("the baseline, 0.05")."""

    def read() -> float:
        text = getattr(h100_target().for_lab(lab)[group], field)
        found = re.search(r"the baseline, x?([\d.]+)", text)
        assert found, f"{lab}: {field} names no baseline figure: {text!r}"
        return float(found[1])

    return read


@cache
def textbook_tables() -> dict[str, list[list[str]]]:
    """The rows (cells) of each '## Lab: ...' or '## ...' section of the calibration's textbook kernels."""
    path = REPO_ROOT / "results" / "calibration" / "h100-textbook-kernels.md"
    sections: dict[str, list[list[str]]] = {}
    rows: list[list[str]] = []
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            rows = sections.setdefault(line[3:], [])
        elif line.startswith("|") and not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return sections


def textbook(section: str, row: str, column: int = 1, nth: int = 0) -> Callable[[], float]:
    """The nth number in a cell of the textbook kernels' table: the section whose title starts with `section`,
    the row whose first cell starts with `row`."""

    def read() -> float:
        titles = [title for title in textbook_tables() if title.startswith(section)]
        assert len(titles) == 1, f"h100-textbook-kernels.md: {len(titles)} sections start with {section!r}"
        table = textbook_tables()[titles[0]]
        cells = next((r for r in table if r[0] == row), None) or next((r for r in table if r[0].startswith(row)), None)
        assert cells, f"h100-textbook-kernels.md, {titles[0]}: no row starts with {row!r}"
        return float(NUMBER.findall(cells[column])[nth].replace(",", ""))

    return read


def ratio(top: Callable[[], float], bottom: Callable[[], float]) -> Callable[[], float]:
    return lambda: top() / bottom()


@cache
def graded_report() -> dict:
    """The graded runs of the reference solutions, their labs in one list: Labs 1 to 7 in one run, Labs 8
    and 9, which came later, in another, and Labs 10 to 12 in a third."""
    runs = [json.loads((REPO_ROOT / path).read_text()) for path in GRADED_RUNS]
    return {"labs": [lab for run in runs for lab in run["labs"]]}


@cache
def graded_solution_figures() -> dict[str, list[float]]:
    """Per lab, the figures the graded run of the reference solution reports first in each speed check's
    detail: "x17.94 (threshold x11.1): ..." gives 17.94, "0.91 (threshold 0.55): ..." gives 0.91."""
    figures: dict[str, list[float]] = {}
    for lab in graded_report()["labs"]:
        if lab["variant"] != "solution":
            continue
        for check in lab["checks"]:
            first = re.match(r"x?(\d+(?:\.\d+)?) \(", check["detail"])
            if check["category"] in ("performance", "mechanism") and first:
                figures.setdefault(lab["lab"], []).append(float(first[1]))
    return figures


def graded(lab: str, check: str, nth: int = 0) -> Callable[[], float]:
    """The nth number in the detail of the graded run's check of the reference solution whose name contains
    `check`: "x17.94 (threshold x11.1): 0.298 ms against 5.340 ms" gives 17.94, 11.1, 0.298, 5.340."""

    def read() -> float:
        solution = next(
            entry for entry in graded_report()["labs"] if (entry["lab"], entry["variant"]) == (lab, "solution")
        )
        details = [entry["detail"] for entry in solution["checks"] if check in entry["name"]]
        assert len(details) == 1, f"the graded runs, {lab}: {len(details)} checks are named {check!r}"
        return float(NUMBER.findall(details[0])[nth].replace(",", ""))

    return read


# --- what quotes what -------------------------------------------------------------------------------------

H100 = "grader/targets/h100.toml"
BOOK = "results/calibration/h100-textbook-kernels.md"
GRADED = "results/h100-grade.json"
GRADED_LATER = "results/h100-grade-08-09.json"
GRADED_NEWEST = "results/h100-grade-10-12.json"
GRADED_RUNS = (GRADED, GRADED_LATER, GRADED_NEWEST)
COPY = textbook("Physical limit", "cudaMemcpy device-to-device")
ADD, DOT, WARP = "Lab: vector add", "Lab: dot product", "Lab: warp-synchronous"
TRANSPOSE, CONSTANT = "Lab: transpose", "Lab: constant memory"
TREE, ATOMICS, STRIDE = "shared-memory tree per block", "one atomicAdd per element", "grid-stride loop"
SMOOTHING, SGEMM = "Lab: 1D smoothing", "Lab: SGEMM"
NAIVE, UNPADDED, PADDED = "naive", "shared tile, no padding", "shared tile [32][33]"


@dataclass(frozen=True)
class Quote:
    path: str
    phrase: str  # a regular expression; its group "n" is the figure
    source: Callable[[], float]
    where: str  # the source's file, for the failure message


def on(path: str, where: str, *quotes: tuple[str, Callable[[], float]]) -> list[Quote]:
    """The quotes of one file from one source."""
    return [Quote(path, phrase, source, where) for phrase, source in quotes]


def speedup(lab: str) -> Callable[[], float]:
    return target(lab, "reference_speedup")


QUOTES = [
    # The labs tables of the README and of the intro deck: the reference solution's speedup on an H100.
    *on(
        "README.md",
        H100,
        (r"\[01 vector add\].*time \((?P<n>x[\d.]+)\)", speedup("01_vector_add")),
        (r"\[02 dot product\].*time \((?P<n>x[\d.]+)\)", speedup("02_dot_product")),
    ),
    *on(
        "slides/decks/00_intro.md",
        H100,
        (r"\| 01 vector add .*time (?P<n>x[\d.]+)", speedup("01_vector_add")),
        (r"\| 02 dot product .*time (?P<n>x[\d.]+)", speedup("02_dot_product")),
        (r"\| 04 tiled GEMM .*time (?P<n>x[\d.]+)", speedup("04_tiled_gemm")),
        (r"\| 05 padded transpose .*time (?P<n>x[\d.]+)", speedup("05_padded_transpose")),
        (r"vector add sits on it \((?P<n>[\d.]+) of copy\)", target("01_vector_add", "reference_copy_fraction")),
    ),
    *on("slides/decks/00_intro.md", BOOK, (r"a device-to-device copy moves \*\*(?P<n>\d+) GB/s", COPY)),
    # Skeletons: what the generated table does not say (the baseline, the figures in GB/s).
    *on(
        "labs/01_vector_add/kernel.cu",
        H100,
        (r"lanes 32 floats apart: ~(?P<n>[\d.]+) of copy", baseline("01_vector_add", "copy_fraction_from")),
    ),
    *on(
        "labs/02_dot_product/kernel.cu",
        BOOK,
        (r"one atomicAdd per block: ~(?P<n>\d+) GB/s", textbook(DOT, TREE)),
        (r"one address: ~(?P<n>[\d.]+) GB/s", textbook(DOT, ATOMICS)),
        (r"this reaches ~(?P<n>[\d.]+) of copy", textbook(DOT, STRIDE, 1, 1)),
    ),
    *on(
        "labs/05_padded_transpose/kernel.cu",
        BOOK,
        (r"naive (?P<n>\d+) GB/s", textbook(TRANSPOSE, NAIVE)),
        (r"tile without padding (?P<n>\d+)", textbook(TRANSPOSE, UNPADDED)),
        (r"one column of padding (?P<n>\d+)", textbook(TRANSPOSE, PADDED)),
    ),
    # The handouts' tables and prose of measured figures.
    *on(
        "labs/01_vector_add/README.md",
        BOOK,
        (r"at ~(?P<n>[\d,]+) GB/s \(an H100's device-to-device copy\)", COPY),
        (r"\| lanes 32 apart \(the baseline\) \| ~(?P<n>[\d,]+) \|", textbook(ADD, "lanes 32 apart")),
        (r"\(the solution\) \| ~(?P<n>[\d,]+) \|", textbook(ADD, "coalesced, 1 float/thread")),
        (r"\(the solution\) \| ~[\d,]+ \| (?P<n>[\d.]+) \|", textbook(ADD, "coalesced, 1 float/thread", 2)),
    ),
    *on(
        "labs/01_vector_add/README.md",
        H100,
        (r"\(the baseline\) \| ~[\d,]+ \| (?P<n>[\d.]+) \|", baseline("01_vector_add", "copy_fraction_from")),
    ),
    *on(
        "labs/02_dot_product/README.md",
        BOOK,
        (r"copy speed \((?P<n>\d+) GB/s\)", COPY),
        (r"The tree is ~(?P<n>\d+) times faster", textbook(DOT, TREE, 1, 1)),
        (r"\| one atomicAdd per element \| 16M \| (?P<n>[\d.]+) \|", textbook(DOT, ATOMICS)),
        (r"\+ one atomicAdd per block \| 16M \| (?P<n>\d+)", textbook(DOT, TREE)),
        (r"\+ one atomicAdd per block \| 16M \| \d+ \((?P<n>x\d+)\)", textbook(DOT, TREE, 1, 1)),
        (r"\| same \| 64M \| (?P<n>\d+) \|", textbook(DOT, "same at 64M")),
        (r"\| grid-stride \+ warp shuffles, 132 x 8 blocks \| 64M \| (?P<n>\d+) \|", textbook(DOT, STRIDE)),
        (r"this reaches \*\*(?P<n>\d+) GB/s", textbook(DOT, STRIDE)),
        (r"this reaches \*\*\d+ GB/s, (?P<n>[\d.]+) of copy", textbook(DOT, STRIDE, 1, 1)),
    ),
    *on(
        "labs/05_padded_transpose/README.md",
        BOOK,
        (r"\| naive \(writes strided\) \| (?P<n>\d+) \|", textbook(TRANSPOSE, NAIVE)),
        (r"\| shared tile, no padding \| (?P<n>\d+) \|", textbook(TRANSPOSE, UNPADDED)),
        (r"\| shared tile `\[32\]\[33\]` \| (?P<n>\d+) \|", textbook(TRANSPOSE, PADDED)),
        (r"\| copy kernel, same launch shape \| (?P<n>\d+) \|", textbook(TRANSPOSE, "copy kernel")),
        (
            r"\| shared tile `\[32\]\[33\]` \| \d+ \| [\d.]+ \| (?P<n>x[\d.]+) over naive",
            ratio(textbook(TRANSPOSE, PADDED), textbook(TRANSPOSE, NAIVE)),
        ),
        (
            r"(?P<n>x[\d.]+) over unpadded; 0 conflicts",
            ratio(textbook(TRANSPOSE, PADDED), textbook(TRANSPOSE, UNPADDED)),
        ),
        (r"0 conflicts, (?P<n>\d+) GB/s, [\d.]+ of copy", textbook(TRANSPOSE, PADDED)),
        (r"0 conflicts, \d+ GB/s, (?P<n>[\d.]+) of copy", ratio(textbook(TRANSPOSE, PADDED), COPY)),
    ),
    *on(
        "labs/06_warp_reduction/README.md",
        BOOK,
        (r"\| full tree \(baseline\) \| 9 \| (?P<n>\d+) GB/s", textbook(WARP, "sequential-addressing tree")),
        (r"\| unrolled last warp \|.*?\| (?P<n>\d+) GB/s", textbook(WARP, "last warp unrolled, volatile")),
        (
            r"\| unrolled last warp \|.*?\| \d+ GB/s \((?P<n>x[\d.]+)\)",
            textbook(WARP, "last warp unrolled, volatile", 2),
        ),
        (r"\| warp shuffles \| 1 \| (?P<n>\d+) GB/s", textbook(WARP, "warp shuffles, 1 elem")),
        (r"\| warp shuffles \| 1 \| \d+ GB/s \((?P<n>x[\d.]+)\)", textbook(WARP, "warp shuffles, 1 elem", 2)),
    ),
    *on(  # the course's first calibration, which the handout quotes beside the graded run
        "labs/07_constant_memory/README.md",
        BOOK,
        (r"\| same, coefficients in `__constant__` \| (?P<n>\d+) \|", textbook(CONSTANT, "same, coefficients in")),
        (r"\| same, coefficients in `__constant__` \| \d+ \| (?P<n>x[\d.]+) \|", textbook(CONSTANT, "same, coeff", 2)),
        (r"\| same table in global memory \| (?P<n>\d+) \|", textbook(CONSTANT, "same table in global")),
        (r"\| same, weights in `__constant__` \| (?P<n>\d+) \|", textbook(CONSTANT, "same, weights in")),
    ),
    # The graded run of the reference solutions, as the slides and handouts quote it beside the generated table.
    *on(
        "slides/decks/01_vector_add.md",
        GRADED,
        (r"\*\*x17.94\*\* \((?P<n>[\d.]+) ms against", graded("01_vector_add", "speedup", 2)),
        (r"ms against (?P<n>[\d.]+) ms\) \| next slide", graded("01_vector_add", "speedup", 3)),
        (r"\*\*[\d.]+\*\* \((?P<n>\d+) of \d+ GB/s\)", graded("01_vector_add", "fraction", 2)),
        (r"\*\*[\d.]+\*\* \(\d+ of (?P<n>\d+) GB/s\)", graded("01_vector_add", "fraction", 3)),
        (r"\*\*(?P<n>\d+) GB/s, [\d.]+ of copy\*\*", graded("01_vector_add", "stretch")),
        (r"\*\*\d+ GB/s, (?P<n>[\d.]+) of copy\*\*", graded("01_vector_add", "stretch", 1)),
        (r"coalescing is worth (?P<n>x\d+) in time", graded("01_vector_add", "speedup")),
    ),
    *on(
        "slides/decks/02_dot_product.md",
        GRADED,
        (r"\*\*x[\d.]+\*\* \((?P<n>[\d.]+) ms against", graded("02_dot_product", "speedup", 2)),
        (r"ms against (?P<n>[\d.]+) ms\) \| next slide", graded("02_dot_product", "speedup", 3)),
        (r"\*\*[\d.]+\*\* \((?P<n>\d+) of \d+ GB/s\)", graded("02_dot_product", "fraction", 2)),
        (r"(?P<n>\d+) at 16M in the graded run", graded("02_dot_product", "stretch")),
        (r"The tree is ~(?P<n>\d+) times faster", graded("02_dot_product", "speedup")),
    ),
    *on(
        "slides/decks/03_smoothing_halo.md",
        GRADED,
        (r"\| 1 \| \d+ \| (?P<n>\d+) \| \*\*x", graded("03_smoothing_halo", "fraction", 2)),
        (r"\| 1 \| \d+ \| \d+ \| \*\*(?P<n>x[\d.]+)\*\*", graded("03_smoothing_halo", "speedup over naive (R = 1)")),
        (r"\| 32 \| \d+ \| \d+ \| \*\*(?P<n>x[\d.]+)\*\*", graded("03_smoothing_halo", "speedup over naive (R = 32)")),
        (r"the solution: \*\*(?P<n>[\d.]+)\*\*", graded("03_smoothing_halo", "ncu")),
    ),
    *on(
        "slides/decks/04_tiled_gemm.md",
        GRADED,
        (r"\*\*x[\d.]+\*\* \((?P<n>[\d.]+) ms against", graded("04_tiled_gemm", "speedup", 2)),
        (r"ms against (?P<n>[\d.]+) ms\) \| next slide", graded("04_tiled_gemm", "speedup", 3)),
        (r"\| 32 x 32 tiles \(the lab\) \| \d+ \| \*\*(?P<n>x[\d.]+)\*\*", graded("04_tiled_gemm", "speedup")),
        (r"per thread \(stretch\) \| (?P<n>\d+) \|", graded("04_tiled_gemm", "stretch")),
    ),
    *on(
        "slides/decks/05_padded_transpose.md",
        GRADED,
        (r"\| tile `\[32\]\[33\]` \| \*\*(?P<n>\d+)\*\*", graded("05_padded_transpose", "fraction", 2)),
        (r"\| tile `\[32\]\[33\]` \| \*\*\d+\*\* \| (?P<n>[\d.]+) \|", graded("05_padded_transpose", "fraction")),
        (r"\| XOR swizzle \(stretch\) \| (?P<n>\d+) \| [\d.]+ \|", graded("05_padded_transpose", "stretch")),
        (r"\| XOR swizzle \(stretch\) \| \d+ \| (?P<n>[\d.]+) \|", graded("05_padded_transpose", "stretch", 1)),
    ),
    *on(
        "slides/decks/07_constant_memory.md",
        GRADED,
        (
            r"\| A: degree-31 polynomial \(graded\) \| \d+ GB/s \| (?P<n>\d+) GB/s",
            graded("07_constant_memory", "fraction of this GPU's copy bandwidth (A", 2),
        ),
        (
            r"\| A: degree-31 polynomial \(graded\) \| (?P<n>\d+) GB/s",
            ratio(
                graded("07_constant_memory", "fraction of this GPU's copy bandwidth (A", 2),
                graded("07_constant_memory", "speedup over the other memory space (A"),
            ),
        ),
        (
            r"\| B: 1024-entry look-up \(graded\) \| (?P<n>\d+) GB/s",
            graded("07_constant_memory", "fraction of this GPU's copy bandwidth (B", 2),
        ),
        (
            r"\| B: 1024-entry look-up \(graded\) \| \d+ GB/s \| (?P<n>\d+) GB/s",
            ratio(
                graded("07_constant_memory", "fraction of this GPU's copy bandwidth (B", 2),
                graded("07_constant_memory", "speedup over the other memory space (B"),
            ),
        ),
        (
            r"`__constant__` \*\*(?P<n>x[\d.]+) slower\*\*",
            graded("07_constant_memory", "speedup over the other memory space (B"),
        ),
        (r"ncu counts \*\*(?P<n>[\d.]+)\*\* of the requests", graded("07_constant_memory", "ncu")),
    ),
    *on(
        "labs/07_constant_memory/README.md",
        GRADED,
        (
            r"global pointer\n(?P<n>\d+) GB/s",
            ratio(
                graded("07_constant_memory", "fraction of this GPU's copy bandwidth (A", 2),
                graded("07_constant_memory", "speedup over the other memory space (A"),
            ),
        ),
        (
            r"`__constant__` (?P<n>\d+) GB/s \(x[\d.]+\); Part B",
            graded("07_constant_memory", "fraction of this GPU's copy bandwidth (A", 2),
        ),
        (
            r"`__constant__` \d+ GB/s \((?P<n>x[\d.]+)\); Part B",
            graded("07_constant_memory", "speedup over the other memory space (A"),
        ),
        (
            r"table in `__constant__` (?P<n>\d+) GB/s, in global",
            ratio(
                graded("07_constant_memory", "fraction of this GPU's copy bandwidth (B", 2),
                graded("07_constant_memory", "speedup over the other memory space (B"),
            ),
        ),
        (
            r"in global memory\n(?P<n>\d+) GB/s \(x[\d.]+\)",
            graded("07_constant_memory", "fraction of this GPU's copy bandwidth (B", 2),
        ),
        (
            r"in global memory\n\d+ GB/s \((?P<n>x[\d.]+)\)",
            graded("07_constant_memory", "speedup over the other memory space (B"),
        ),
    ),
    *on(
        "README.md",
        GRADED_LATER,
        (r"\[08 registers and local memory\].*time \((?P<n>x[\d.]+)\)", graded("08_registers_local_memory", "speedup")),
        (r"\[09 occupancy\].*time \((?P<n>x[\d.]+)\)", graded("09_occupancy", "speedup")),
    ),
    *on(
        "README.md",
        GRADED_NEWEST,
        (r"\[11 histogram and atomics\].*time \((?P<n>x[\d.]+)\)", graded("11_histogram_atomics", "speedup")),
        (r"\[12 read-only data and textures\].*resample \((?P<n>x[\d.]+)\)", graded("12_readonly_texture", "speedup")),
    ),
    *on(
        "slides/decks/12_readonly_texture.md",
        GRADED_NEWEST,
        (r"request \(Part B\) \| (?P<n>\d+) on the H100", graded("12_readonly_texture", "texture requests")),
    ),
    *on(
        "labs/12_readonly_texture/README.md",
        GRADED_NEWEST,
        (r"per pixel measures (?P<n>\d+) on the H100", graded("12_readonly_texture", "texture requests")),
    ),
    *on(
        "slides/decks/08_registers_local_memory.md",
        GRADED_LATER,
        (
            r"\| speedup over the window in local memory \| \*\*(?P<n>x[\d.]+)\*\*",
            graded("08_registers_local_memory", "speedup"),
        ),
        (r"\| fraction of copy bandwidth \| \*\*(?P<n>[\d.]+)\*\*", graded("08_registers_local_memory", "fraction")),
    ),
    *on(
        "slides/decks/09_occupancy.md",
        GRADED_LATER,
        (r"`launch__occupancy_limit_shared_mem` \| \*\*(?P<n>\d+)\*\*", graded("09_occupancy", "occupancy limiter")),
        (r"one block per SM \| \*\*(?P<n>[\d.]+)\*\*", graded("09_occupancy", "achieved occupancy")),
        (r"\| speedup over one block per SM \| \*\*(?P<n>x[\d.]+)\*\*", graded("09_occupancy", "speedup")),
        (r"\| fraction of copy bandwidth \| \*\*(?P<n>[\d.]+)\*\*", graded("09_occupancy", "fraction")),
    ),
    # Lab 3's handout: the textbook kernels' table, cell by cell, and the counters of its ncu run.
    *on(
        "labs/03_smoothing_halo/README.md",
        BOOK,
        *[
            (rf"\n\| {r} \|" + r" [\d.]+ \|" * column + r" (?P<n>[\d.]+) \|", textbook(SMOOTHING, str(r), column + 1))
            for r in (1, 2, 4, 8, 16, 32)
            for column in range(3)
        ],
        (r"the tiled kernel asks for (?P<n>[\d,]+) sectors", textbook(SMOOTHING, "shared R=1", 2)),
        (r"the naive one for (?P<n>[\d,]+): [\d.]+\.", textbook(SMOOTHING, "naive R=1", 2)),
        (
            r"the naive one for [\d,]+: (?P<n>[\d.]+)\.",
            ratio(textbook(SMOOTHING, "shared R=1", 2), textbook(SMOOTHING, "naive R=1", 2)),
        ),
    ),
    # Lab 4's handout: the textbook kernels' SGEMM table at N = 4096.
    *on(
        "labs/04_tiled_gemm/README.md",
        BOOK,
        (r"walks rows \(uncoalesced\) \| \| \| \| (?P<n>\d+) \|", textbook(SGEMM, "naive, threadIdx.x walks rows", 4)),
        (r"\(the baseline\) \|.*\| (?P<n>\d+) \|\n", textbook(SGEMM, "naive, threadIdx.x walks columns", 4)),
        (r"\| shared tiles 16 x 16 \|.*\| (?P<n>\d+) \(x", textbook(SGEMM, "shared tiles 16x16", 4)),
        (r"\| shared tiles 16 x 16 \|.*\| \d+ \((?P<n>x[\d.]+)\)", textbook(SGEMM, "shared tiles 16x16", 4, 1)),
        (r"\| shared tiles 32 x 32 \(this lab\) \|.*\| (?P<n>\d+) \(x", textbook(SGEMM, "shared tiles 32x32", 4)),
        (
            r"\| shared tiles 32 x 32 \(this lab\) \|.*\| \d+ \((?P<n>x[\d.]+)\)",
            textbook(SGEMM, "shared tiles 32x32", 4, 1),
        ),
        (r"per thread in registers \|.*\| (?P<n>\d+) \(x", textbook(SGEMM, "128x128 block tile", 4)),
        (r"per thread in registers \|.*\| \d+ \((?P<n>x[\d.]+)\)", textbook(SGEMM, "128x128 block tile", 4, 1)),
        (r"\| cuBLAS sgemm, pedantic fp32 \|.*\| (?P<n>\d+) \|", textbook(SGEMM, "cuBLAS sgemm, pedantic", 4)),
    ),
]


def quote_id(quote: Quote) -> str:
    return f"{quote.path}: {quote.phrase[:40]}"


@pytest.mark.parametrize("quote", QUOTES, ids=quote_id)
def test_a_quoted_figure_agrees_with_its_source(quote):
    text = (REPO_ROOT / quote.path).read_text()
    found = re.search(quote.phrase, text)
    assert found, f"{quote.path} no longer says {quote.phrase!r}: update QUOTES to the new wording"
    true = quote.source()
    assert agrees(found["n"], true), f"{quote.path} quotes {found['n']} where {quote.where} now says {true:g}"


def test_agreement_is_rounding_to_the_digits_shown():
    for quoted, true in (("x18", 17.857), ("~1040", 1039), ("0.9", 0.912), ("~1000", 998), ("~2,950", 2955)):
        assert agrees(quoted, true), quoted
    for quoted, true in (("x225", 237.78), ("0.94", 0.92), ("x17.94", 17.857), ("2769", 2771)):
        assert not agrees(quoted, true), quoted


# --- the grade slides --------------------------------------------------------------------------------------

GRADE_SLIDE = re.compile(r"^## What the grade (?:measured|checks)")
BOLD = re.compile(r"\*\*([^*]+)\*\*")
DECKS = sorted(
    path.name for path in (REPO_ROOT / "slides" / "decks").glob("[0-9][0-9]_*.md") if not path.name.startswith("00_")
)


def grade_slide_figures(deck: str) -> list[tuple[str, str]]:
    """(check, bold figure) of each row of the deck's slide of what the grade measured that gives one."""
    figures, inside = [], False
    for line in (REPO_ROOT / "slides" / "decks" / deck).read_text().splitlines():
        if line.startswith("## "):
            inside = bool(GRADE_SLIDE.match(line))
        elif inside and line.startswith("|") and not line.startswith(("| check", "|---")):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            bold = BOLD.search(cells[1]) if len(cells) > 1 else None
            if bold and NUMBER.search(bold[1]):
                figures.append((cells[0], bold[1]))
    return figures


@pytest.mark.parametrize("deck", DECKS)
def test_the_grade_slide_quotes_the_graded_run(deck):
    """Each bold speed figure on the slide of what the grade measured is one the graded run of the reference
    solution reported; a counter's ratio is checked where the run reports it as the slide does."""
    rows = [(check, figure) for check, figure in grade_slide_figures(deck) if "speedup" in check or "fraction" in check]
    if not rows:
        pytest.skip(f"{deck} quotes no speed figure on a slide of what the grade measured")
    measured = graded_solution_figures()[deck.removesuffix(".md")]
    stale = [f"{check}: {figure}" for check, figure in rows if not any(agrees(figure, true) for true in measured)]
    assert stale == [], f"{deck}: {stale} are figures the graded run (results/h100-grade.json) did not report"
