"""Every relative link in the kit's Markdown leads somewhere: to a tracked file or folder of the repository, and
where it names a heading of a Markdown file, to a heading that file has. The documents are split by audience
and link to each other for every fact they do not repeat, so a file moved or a heading renamed must not leave
a reader at a dead end. The measuring sessions' own records are on another branch, so results/ is held to this
too."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import PurePosixPath
from urllib.parse import unquote

import pytest

from grader.core.config import REPO_ROOT
from grader.platforms.edition import DROP, action_for, has_solutions

# The decks' pictures are drawn when the decks are built (slides/build.py), into the build's copy of the decks;
# Sphinx, run there with warnings as errors, fails on a picture that is not drawn.
DRAWN_AT_BUILD = "slides/decks/figures/"
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+).*?\1")
# [text](target) and ![alt](target), the target optionally in <...> and followed by a "title".
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def tracked() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [name for name in listed.stdout.decode().split("\0") if name and (REPO_ROOT / name).is_file()]


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def link_targets(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every link, inline or by reference; a link shown as code is an example."""
    found = []
    for number, line in prose_lines(text):
        line = CODE_SPAN.sub("", line)
        found += [(number, target) for target in INLINE_LINK.findall(line)]
        found += [(number, target) for target in REFERENCE_LINK.findall(line)]
    return found


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: the text of its links, lower case, punctuation dropped, spaces as
    hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's anchor; a repeated heading's gets -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(text):
        heading = HEADING.match(line)
        if heading:
            base = slug(heading[1])
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(f"{base}-{count}" if count else base)
    return found


def broken_links(name: str, text: str, files: set[str], read: Callable[[str], str]) -> list[str]:
    """What is wrong with each relative link of the Markdown file `name` (its text), as 'name:line: target: why';
    `files` are the repository's, and `read` gives a Markdown file's text by its name there."""
    folders = {str(parent) for file in files for parent in PurePosixPath(file).parents}
    broken = []
    for number, target in link_targets(text):
        if not target or SCHEME.match(target):
            continue  # a web address, mailto: and the like: not this repository's to check
        path, _, anchor = unquote(target).partition("#")
        resolved = PurePosixPath(name).parent / path if path else PurePosixPath(name)
        parts: list[str] = []
        for part in resolved.parts:  # .. and . resolved by hand: a link must not leave the repository
            if part == "..":
                if not parts:
                    broken.append(f"{name}:{number}: {target}: leads out of the repository")
                    break
                parts.pop()
            elif part != ".":
                parts.append(part)
        else:
            where = "/".join(parts)
            if where.startswith(DRAWN_AT_BUILD):
                continue
            rule = action_for(where)
            if not has_solutions() and rule and rule.action == DROP:
                continue  # the student edition leaves it out on purpose (grader/platforms/edition.py)
            if where not in files and where not in folders:
                broken.append(f"{name}:{number}: {target}: no such tracked file or folder")
            elif anchor and where.endswith(".md") and where in files:
                if anchor not in anchors(read(where)):
                    broken.append(f"{name}:{number}: {target}: {where} has no heading #{anchor}")
    return broken


def test_the_link_reader_finds_links_and_their_faults():
    files = {"README.md", "docs/guide.md", "docs/img.png", "labs/01/README.md"}
    text = "\n".join(
        [
            "# Title",
            "See [the guide](docs/guide.md), [a picture](docs/img.png) and ![alt](docs/img.png).",
            "[lab 1](labs/01/README.md#title) [web](https://example.org/x.md) [here](#title) [folder](docs/)",
            "`[not a link](nowhere.md)` is code.",
            "```",
            "[nor is this](nowhere.md)",
            "```",
            "[gone](docs/gone.md) [out](../outside.md) [no heading](README.md#missing)",
            "[ref]: docs/missing.md",
        ]
    )
    pages = {"README.md": text, "labs/01/README.md": "# Title\n"}
    broken = broken_links("README.md", text, files, pages.__getitem__)
    assert [line.split(": ", 1)[1] for line in broken] == [
        "docs/gone.md: no such tracked file or folder",
        "../outside.md: leads out of the repository",
        "README.md#missing: README.md has no heading #missing",
        "docs/missing.md: no such tracked file or folder",
    ], broken


def test_headings_get_the_anchors_github_gives_them():
    text = "# No GPU?\n## Thresholds and calibration\n### `--late-limit`, days\n## Notes\n## Notes\n"
    assert anchors(text) == {"no-gpu", "thresholds-and-calibration", "--late-limit-days", "notes", "notes-1"}


def read(name: str) -> str:
    return (REPO_ROOT / name).read_text(encoding="utf-8")


def test_every_relative_link_in_the_kits_markdown_resolves():
    files = tracked()
    documents = [name for name in files if name.endswith(".md")]
    assert "README.md" in documents
    broken = []
    for name in documents:
        broken += broken_links(name, read(name), set(files), read)
    assert broken == [], "\n".join(broken)
