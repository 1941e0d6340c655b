"""The classic bugs of the labs, graded, for the tests of what a student reads first: a missing bounds check, a
missing barrier, a race, an uninitialised shared value. Most are judged from evidence a grade recorded (the
planted fixtures, the suite's kernels and variants: grader/tests/evidence/), the rest built by hand in the
grader's own words, where no recorded case has the bug: each with the check that is its cause and the place in
kernel.cu that check points to.

Nothing here grades end to end: judging recorded evidence takes milliseconds, with today's checks."""

from __future__ import annotations

import json
from dataclasses import dataclass

from grader.core.config import load_config
from grader.core.model import Category, Check, LabGrade, Status
from grader.reporting.score import score
from grader.tests.support.cases import EMULATOR, EVIDENCE_DIR, judged_grades


@dataclass(frozen=True)
class Bug:
    """A classic bug: how its grade is had, the check that is its cause, and where that check points."""

    name: str
    cause: str  # the start of the cause's check name
    place: str | None  # the end of the file:line it points to; None where no check of the lab can say (below)
    recorded: str = ""  # SUITE/CASE of its recorded evidence; "" for one built by hand

    def grade(self) -> LabGrade:
        if self.recorded:
            data = json.loads((EVIDENCE_DIR / f"{self.recorded}.cpu-emulator.json").read_text())
            return next(g for g in judged_grades(data, EMULATOR) if g.variant == "student")
        return BUILT[self.name]()


def lab_grade(lab: str, checks: list[Check], kernel: str) -> LabGrade:
    """A lab's grade from its checks, scored as the grader scores it."""
    config = load_config().lab(lab)
    grade = LabGrade(config.name, config.title, "student", kernel, checks=checks, seed=20261123)
    return score(grade, config.points)


def barrier_missing_in_the_tree() -> LabGrade:
    """Lab 2's tree without its __syncthreads(): on the emulator the tests read NaN, and racecheck names the
    write and the read that race."""
    kernel = "labs/02_dot_product/kernel.cu"
    wrong = "1 of 1 elements wrong; first at index 0: got nan, want 117 (with n = 257) (CPU emulator)"
    replay = "replay: ./cml run --lab 2 --seed 20261123 -- -tc='adds every product*'"
    race = (
        "RACECHECK SUMMARY: 24 hazards displayed (24 errors, 0 warnings) (CPU emulator)\n"
        f"Error: Race reported between Write access at block_sums_kernel(float const*, float const*, float*, int) in "
        f"{kernel}:34\nand Read access at block_sums_kernel(float const*, float const*, float*, int) in {kernel}:31"
    )
    checks = [
        Check("build", Category.BUILD, Status.PASSED),
        Check(
            "adds every product exactly once at sizes around a warp and a block",
            Category.CORRECTNESS,
            Status.FAILED,
            wrong,
            f"see labs/02_dot_product/README.md\n{replay}",
        ),
        Check("n = 0 gives 0, and n = 1 gives a[0] * b[0]", Category.CORRECTNESS, Status.PASSED),
        Check(
            "racecheck: each step of the tree reads slots the step before has written",
            Category.MECHANISM,
            Status.FAILED,
            race,
            "call __syncthreads() before every step of the tree (TODO 2)",
        ),
        Check("memcheck: no access outside the arrays", Category.MECHANISM, Status.WITHHELD, "clean"),
        Check("speedup over one atomicAdd per element", Category.PERFORMANCE, Status.NOT_RUN, "no GPU"),
    ]
    return lab_grade("02_dot_product", checks, kernel)


def tile_read_before_written() -> LabGrade:
    """Lab 3's tile read before every thread wrote it, on a GPU whose warps happened to finish in time: every
    test passes, and racecheck alone fails it."""
    kernel = "labs/03_smoothing_halo/kernel.cu"
    race = (
        "RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)\n"
        f"Error: Race reported between Write access at smooth_kernel(float const*, float*, int, int) in {kernel}:27\n"
        f"and Read access at smooth_kernel(float const*, float*, int, int) in {kernel}:35"
    )
    checks = [
        Check("build", Category.BUILD, Status.PASSED),
        Check("matches the CPU reference at every radius", Category.CORRECTNESS, Status.PASSED),
        Check(
            "racecheck: the tile is complete before anyone reads it",
            Category.MECHANISM,
            Status.FAILED,
            race,
            "__syncthreads() between writing the tile and reading it (TODO 3)",
        ),
        Check("memcheck: no access outside the arrays", Category.MECHANISM, Status.PASSED, "clean"),
        Check(
            "speedup over naive (R = 32)",
            Category.PERFORMANCE,
            Status.FAILED,
            "x0.91 (threshold x1.38)",
            credit=0.0,
            measured=0.91,
            threshold=1.38,
        ),
    ]
    return lab_grade("03_smoothing_halo", checks, kernel)


def slots_never_written() -> LabGrade:
    """Lab 2's threads past n returning before they write their slot: the tree adds shared values no thread
    wrote (NaN on the emulator, whatever was there on a GPU). No check of the lab runs initcheck, the tool that
    would name the read, so what fails first is the test that reads the wrong sum: it is the cause, with no line."""
    kernel = "labs/02_dot_product/kernel.cu"
    wrong = "1 of 1 elements wrong; first at index 0: got nan, want 12 (with n = 33) (CPU emulator)"
    checks = [
        Check("build", Category.BUILD, Status.PASSED),
        Check(
            "adds every product exactly once at sizes around a warp and a block",
            Category.CORRECTNESS,
            Status.FAILED,
            wrong,
            "see labs/02_dot_product/README.md\nreplay: ./cml run --lab 2 --seed 20261123",
        ),
        Check(
            "racecheck: each step of the tree reads slots the step before has written",
            Category.MECHANISM,
            Status.WITHHELD,
            "clean",
        ),
        Check("memcheck: no access outside the arrays", Category.MECHANISM, Status.WITHHELD, "clean"),
        Check("speedup over one atomicAdd per element", Category.PERFORMANCE, Status.NOT_RUN, "no GPU"),
    ]
    return lab_grade("02_dot_product", checks, kernel)


BUILT = {
    "a barrier missing in Lab 2's tree": barrier_missing_in_the_tree,
    "Lab 3's tile read before it is written": tile_read_before_written,
    "Lab 2's slots never written": slots_never_written,
}

BUGS = [
    Bug(
        "Lab 1 writes past n (no bounds check)",
        "memcheck",
        "01_vector_add/kernel.cu:16",
        "kernels/01_writes_64_kb_past",
    ),
    Bug(
        "Lab 8 reads past the last row",
        "memcheck",
        "08_registers_local_memory/kernel.cu:29",
        "fixtures/08_strip_past_the_last_row",
    ),
    Bug(
        "Lab 11 indexes its bins by a signed byte",
        "memcheck",
        "11_histogram_atomics/kernel.cu:21",
        "fixtures/11_signed_byte_index",
    ),
    Bug(
        "Lab 11 merges its bins with no barrier before",
        "racecheck",
        "11_histogram_atomics/kernel.cu:20",
        "fixtures/11_no_sync_before_merge",
    ),
    Bug(
        "Lab 4 reads the tiles before the copies land",
        "racecheck",
        "04_tiled_gemm/kernel.cu:44",
        "variants/04_tiled_gemm__cp_async_no_barrier_after_wait",
    ),
    Bug("a barrier missing in Lab 2's tree", "racecheck", "02_dot_product/kernel.cu:34"),
    Bug("Lab 3's tile read before it is written", "racecheck", "03_smoothing_halo/kernel.cu:27"),
    Bug("Lab 2's slots never written", "adds every product", None),
]
