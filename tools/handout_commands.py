"""The commands each handout shows under "Run it", written from tools/handout_commands.toml into the block between
the markers below in labs/NN_name/README.md, so that no handout names a program the build does not make: each is
./cml grade, or ./cml run, which builds the student's own programs as a grade does and runs one. --check changes
nothing and exits 1 where a block is missing or stale. The block is replaced as the thresholds' is
(tools/handout_thresholds.py: updated).

    PYTHONPATH=. .venv/bin/python tools/handout_commands.py [--check]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling, however this file was loaded

from handout_thresholds import updated  # noqa: E402

from grader.core.config import REPO_ROOT, Lab, load_config  # noqa: E402

SOURCE = REPO_ROOT / "tools" / "handout_commands.toml"
BEGIN = "<!-- commands: written by tools/handout_commands.py from tools/handout_commands.toml; edit that, not this -->"
END = "<!-- commands: end -->"
LINE = 100  # a command longer than this is continued on the next line, at an option
COMMENT_AT = 48  # where the comments of short commands line up


def intro(lab: Lab) -> list[str]:
    shape = lab.grader_sizes.format if lab.grader_sizes else "n"
    return [
        "Your own programs, built from your `kernel.cu` as the grade builds them and run alone (`./cml run --help`):",
        "on the GPU, or on the CPU emulator where there is none (`--emulator` asks for it). `--seed` gives them a",
        'grade\'s inputs (its `"seed"` in `.results/grade.json`) and the sizes it drew, `--sizes` sizes of your own',
        f"(each as {shape}); the program's own options go after `--`. A line run under ncu needs a GPU.",
    ]


def continued(command: str) -> list[str]:
    """The command on one line, or, past LINE characters, on several joined by backslashes, each break before
    an option."""
    if len(command) <= LINE:
        return [command]
    pipe = ""
    if " | " in command:
        command, rest = command.split(" | ", 1)
        pipe = f" | {rest}"
    parts: list[list[str]] = []
    for word in shlex.split(command):
        if not parts or word.startswith("-") and parts[-1][-1] != "--":
            parts.append([word])
        else:
            parts[-1].append(word)
    lines = [""]
    for part in (shlex.join(words) for words in parts):
        if lines[-1] and len(lines[-1]) + 1 + len(part) > LINE:
            lines.append(part)
        else:
            lines[-1] = f"{lines[-1]} {part}".strip()
    return [f"{line} \\" for line in lines[:-1]] + [lines[-1] + pipe]


def code_lines(entries: list[list[str]], lab: Lab) -> list[str]:
    """A code block's lines: each command with what it shows, as a shell comment beside it or, for a command of
    several lines, above it."""
    lines = []
    for command, says in entries:
        text = continued(command.replace("{lab}", str(int(lab.number))))
        if len(text) == 1 and len(text[0]) < COMMENT_AT:
            lines.append(f"    {text[0]:<{COMMENT_AT}}# {says}")
        elif len(text) == 1:
            lines.append(f"    {text[0]}   # {says}")
        else:
            lines += [f"    # {says}", *(f"    {line}" if i == 0 else f"        {line}" for i, line in enumerate(text))]
    return lines


def block(lab: Lab, source: dict) -> str:
    entries = source["lab"][lab.name]["run"]
    lines = [BEGIN, "", *code_lines(source["every"], lab), "", *intro(lab), "", *code_lines(entries, lab), "", END]
    return "\n".join(lines)


def shown_commands(text: str) -> list[list[str]]:
    """The commands of a handout's block, as the shell reads them: each its words (a pipe's "|" among them),
    continued lines joined, comments left out."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return []
    commands, pending = [], ""
    for line in text[start:end].splitlines()[1:]:
        if not line.startswith("    "):
            continue
        pending += line.strip()
        if pending.endswith("\\"):
            pending = pending[:-1]
            continue
        words = shlex.split(pending, comments=True)
        commands += [words] if words else []
        pending = ""
    return commands


def read_source(path: Path = SOURCE) -> dict:
    return tomllib.loads(path.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 where a handout is stale")
    args = parser.parse_args(argv)
    source = read_source()
    problems = []
    for lab in load_config().labs:
        page = f"labs/{lab.name}/README.md"
        if lab.name not in source["lab"]:
            problems.append(f"{SOURCE.name}: no commands for {lab.name}")
            continue
        text = (REPO_ROOT / page).read_text()
        new = updated(text, block(lab, source), BEGIN, END)
        if new is None:
            problems.append(f"{page}: no commands block (its markers are missing)")
        elif new != text:
            if args.check:
                problems.append(f"{page}: its commands differ from {SOURCE.name}")
            else:
                (REPO_ROOT / page).write_text(new)
                print(f"wrote {page}")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems and args.check:
        print("run: PYTHONPATH=. .venv/bin/python tools/handout_commands.py", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
