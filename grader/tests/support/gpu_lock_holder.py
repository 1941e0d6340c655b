"""A grader process's hold of the GPU's lock files, for grader/tests/execution/test_gpu_lock_files.py:
    python -m grader.tests.support.gpu_lock_holder FOLDER shared|exclusive|staged|ncu
It says on stdout "waiting" (where it must wait), then "in"; a staged hold then waits for a line "take" on stdin
and says "waiting" again where it must, then "alone". Any other line, or the end of stdin, lets go and ends it."""

from __future__ import annotations

import sys
from pathlib import Path

from grader.execution.gpu_lock_files import gpu_locks

CARD = "GPU-00000000-test"


def say(word: str) -> None:
    print(word, flush=True)


def main(folder: str, kind: str) -> None:
    locks = gpu_locks(CARD, Path(folder))
    if kind == "ncu":
        if not locks.counters.acquire(blocking=False):
            say("waiting")
            locks.counters.acquire()
        say("in")
        sys.stdin.readline()
        locks.counters.release()
    elif kind == "staged":
        with locks.gpu.shared_then_exclusive(lambda: say("waiting")) as hold:
            say("in")
            if sys.stdin.readline().strip() == "take":
                hold.take()
                say("alone")
                sys.stdin.readline()
    else:
        take = locks.gpu.exclusive if kind == "exclusive" else locks.gpu.shared
        with take(lambda: say("waiting")):
            say("in")
            sys.stdin.readline()
    say("out")


if __name__ == "__main__":
    main(*sys.argv[1:3])
