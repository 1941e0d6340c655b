"""How a grader command ends: one exit status for each kind of ending, and the errors that choose them.

A student's failure (1) and the grader's own failure (5) are never the same status, so that `batch`, the
fixture tests and any CI can tell a crash of the grader from a failed lab, as pytest keeps INTERNAL_ERROR and
USAGE_ERROR apart from TESTS_FAILED."""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    PASSED = 0  # every lab graded passed
    FAILED = 1  # a lab failed: the student's work
    USAGE = 2  # the caller's arguments or files are wrong (no such lab, a missing thresholds file)
    NOT_GRADABLE = 3  # the submission cannot be read, or the build cannot be set up: 0 points, with the reason
    INCOMPLETE = 4  # nothing failed, but some checks could not run here (no GPU: the speed checks)
    INTERNAL = 5  # the grader itself failed (a bug, a broken installation): never the student's fault
    STOPPED = 6  # stopped before the end (SIGTERM, SIGINT, a full disk): what was finished is kept
    BUSY = 7  # batch: another batch holds the output folder
    # Nothing failed, but the CPU emulator could not build a kernel.cu that nvcc built: the grader's limit, not the
    # student's failure, and not a pass either; a GPU grades it.
    EMULATOR_LIMIT = 8

    @classmethod
    def describe(cls) -> str:
        """The statuses, for --help."""
        return (
            "exit status: 0 every lab passed; 1 a lab failed; 2 bad arguments; 3 the submission cannot be read "
            "or the build cannot be set up; 4 nothing failed, but some checks could not run here (no GPU: the "
            "speed checks; no sanitizer); 5 the grader itself failed (see the log it names); 6 stopped before the "
            "end (SIGTERM, SIGINT, or a full disk): the labs finished are in the JSON, and the others are named as "
            "not graded; 8 nothing failed, but the CPU emulator could not build a kernel.cu that nvcc built: a "
            "limit of the grader, not a mistake in the kernel (grade that lab on a GPU)."
        )

    @classmethod
    def describe_batch(cls) -> str:
        """batch's statuses, for its --help: a class graded is a success whatever its students' verdicts."""
        return (
            "exit status: 0 every submission was graded, whatever its verdicts (results.csv holds them); 2 bad "
            "arguments; 4 some submissions have no result yet (--stop-after ended the batch first, or a stopped run "
            "left them: run it again to resume); 5 the grader itself failed on some lab (each is listed, and its "
            "grade.log kept); 6 stopped before the end (SIGTERM, SIGINT, a Slurm time limit, or a full disk): the "
            "students finished are kept, the others read 'not graded yet', and running it again resumes; 7 another "
            "batch holds the output folder (it is named): nothing was done. A student's failed lab, or a "
            "submission that cannot be read, is a result in results.csv, not a status."
        )

    @classmethod
    def graded(cls, status: int) -> bool:
        """Whether a grader process with this status graded what it was given (passed, failed, incomplete, or as
        far as the CPU emulator could)."""
        return status in (cls.PASSED, cls.FAILED, cls.INCOMPLETE, cls.EMULATOR_LIMIT)


class UsageError(Exception):
    """The caller asked for something that does not exist or cannot be read: said in one line, exit 2."""


class CannotGrade(Exception):
    """Nothing can be graded: the submission cannot be read, or the build cannot be set up (exit 3)."""


class GraderError(Exception):
    """The grader cannot do its own part (its reference solution fails, a tool it ships is broken): exit 5."""
