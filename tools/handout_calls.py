"""The calls a lab alone may make, written from grader/labs.toml (`allowed_calls`, the list the integrity check
reads: grader/steps/integrity/symbols.py) into the block between the markers below in that lab's handout,
labs/NN_name/README.md, so that the handout and the check hold one list. --check changes nothing and exits 1
where a block is missing or stale.

    PYTHONPATH=. .venv/bin/python tools/handout_calls.py [--check]
"""

from __future__ import annotations

import argparse
import sys
import textwrap

from grader.core.config import REPO_ROOT, Lab, load_config

BEGIN = "<!-- allowed calls: written by tools/handout_calls.py from grader/labs.toml; edit that, not this -->"
END = "<!-- allowed calls: end -->"
WIDTH = 110  # the handouts' line length


def block(lab: Lab) -> str:
    """The lab's own calls, in alphabetical order, as a sentence a student reads before the build refuses one."""
    calls = ", ".join(f"`{name}`" for name in sorted(lab.allowed_calls)) + "."
    lines = [
        "Besides what every lab may call, this lab alone may call, and the grader refuses in every other lab:",
        *textwrap.wrap(calls, WIDTH, break_long_words=False, break_on_hyphens=False),
    ]
    return "\n".join([BEGIN, *lines, END])


def updated(text: str, new_block: str) -> str | None:
    """The handout with its block replaced; None where it has no block."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return None
    return text[:start] + new_block + text[end + len(END) :]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 where a handout is stale")
    args = parser.parse_args(argv)
    problems = []
    for lab in load_config().labs:
        if not lab.allowed_calls:
            continue
        page = f"labs/{lab.name}/README.md"
        text = (REPO_ROOT / page).read_text()
        new = updated(text, block(lab))
        if new is None:
            problems.append(f"{page}: no allowed-calls block (its markers are missing)")
        elif new != text:
            if args.check:
                problems.append(f"{page}: its allowed calls differ from grader/labs.toml")
            else:
                (REPO_ROOT / page).write_text(new)
                print(f"wrote {page}")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems and args.check:
        print("run: PYTHONPATH=. .venv/bin/python tools/handout_calls.py", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
