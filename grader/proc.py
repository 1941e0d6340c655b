"""Running one step of grading as a subprocess, with a time limit, and naming how it ended."""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

EXIT_SKIPPED = 77  # the test mains' and benchmarks' "no GPU here"


@dataclass
class Outcome:
    command: list[str]
    returncode: int | None  # None when it timed out
    stdout: str
    stderr: str
    timeout_s: float

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def how_it_ended(self) -> str:
        """'exited 1', 'killed by SIGSEGV', 'timed out after 60 s' — for reports."""
        if self.timed_out:
            return f"timed out after {self.timeout_s:g} s and was stopped (a kernel that never returns?)"
        if self.returncode < 0:
            return f"crashed: killed by {signal.Signals(-self.returncode).name}"
        return f"exited with status {self.returncode}"

    def tail(self, lines: int = 20) -> str:
        text = (self.stdout + "\n" + self.stderr).strip().splitlines()
        return "\n".join(text[-lines:])


def run(command: list[str], timeout_s: float, cwd: Path | None = None, env: dict | None = None) -> Outcome:
    """Runs `command`; on timeout kills its whole process group, so a hung GPU program goes too."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
        return Outcome(command, process.returncode, stdout, stderr, timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        return Outcome(command, None, stdout, stderr, timeout_s)
