"""The kit as an instructor adopts it: no tracked file cites an issue number, which means nothing outside this
project's tracker, or a path on a development machine, which exists nowhere else. A comment gives the reason
itself. The one exception is the output the grader and calibrate recorded under results/ (JSON, logs), kept as
they wrote it; the pages written about it there are held to the rule."""

from __future__ import annotations

import re
import subprocess

import pytest

from grader.core.config import REPO_ROOT

# The word and a number (after a '#' too), but not a fraction: "the warps issue 0.302 of the loads". A comment
# wrapped between the two is one citation: "(issue" at a line's end, "# 17)" on the next.
ISSUE = re.compile(r"\bissue(?:\s*(?:#|//|\*)?\s*\n\s*(?:#|//|\*|>)*)?\s*#?\d+(?!\.\d)", re.IGNORECASE)
# An absolute path on a development machine: not a folder of that name inside another path ("$container/root/").
# After a placeholder of the recorded evidence ("<work>/work/submission/...") a path is relative to it.
MACHINE_PATH = re.compile(r"(?<![\w$}./>-])/(?:work|root|home)/")
RECORDED = "results/"  # a program's output, as written: it names the paths of the machine it ran on


def tracked_text_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [name for name in listed.stdout.decode().split("\0") if name and not is_recorded_output(name)]


def is_recorded_output(name: str) -> bool:
    return name.startswith(RECORDED) and not name.endswith(".md")


def findings(pattern: re.Pattern) -> list[str]:
    found = []
    for name in tracked_text_files():
        try:
            text = (REPO_ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # a binary file, or one deleted in the working tree
        for match in pattern.finditer(text):  # over the whole text: a citation may wrap onto the next line
            number = text.count("\n", 0, match.start()) + 1
            line = text.splitlines()[number - 1]
            found.append(f"{name}:{number}: {line.strip()[:100]}")
    return found


def test_the_patterns_find_what_they_are_for():
    assert ISSUE.search("linked once (iss" + "ue 17).") and ISSUE.search("Iss" + "ue #19: the tile")
    assert ISSUE.search("waiting as well (iss" + "ue\n17).") and ISSUE.search("the tile (iss" + "ue\n    # 17)")
    assert not ISSUE.search("the warps issue 0.302 of the loads") and not ISSUE.search("issues 4 FMAs per clock")
    # Split, so that this file holds no such path itself.
    assert MACHINE_PATH.search("see /wo" + "rk/shared/notes.md") and MACHINE_PATH.search('"/ho' + 'me/ann/x"')
    assert not MACHINE_PATH.search('mount -t proc proc "$container/root/proc"')


def test_no_tracked_file_cites_an_issue_number():
    assert findings(ISSUE) == []


def test_no_tracked_file_names_a_path_on_a_development_machine():
    assert findings(MACHINE_PATH) == []
