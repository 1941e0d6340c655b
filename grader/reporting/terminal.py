"""What the grader prints on a terminal holds the student's text (file names in a submission, compiler messages,
what their programs printed, the details of checks), and a terminal obeys the control characters in what it is
sent: ESC starts sequences that colour, move the cursor, clear the screen, set the window's title or write the
reader's clipboard (OSC 52); a carriage return or a backspace writes over a line; Unicode's bidirectional overrides
and invisible format characters change or hide what is read. So every character of those kinds is shown as its
escape (ESC as `\\x1b`, U+202E as `\\u202e`), never sent.

Terminal, the console every command prints through, does that to every piece of text it renders, whatever built
it (markup, rich's Text, tables, progress bars): its own colours and cursor moves are rich's control segments,
which hold no text of anyone's. A newline is a line break there; where a name must stay on its line, one_line()
shows its newlines as escapes too, before rich lays it out."""

from __future__ import annotations

import functools
import os
import sys
import unicodedata
from collections.abc import Iterable

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment

# Columns where there is no terminal to measure and COLUMNS says nothing (logs, CI): what a person reads there too.
UNMEASURED_WIDTH = 100
# Unicode's control characters, its format characters (the bidirectional marks and overrides, zero-width characters,
# tag characters), line and paragraph separators, and the halves of surrogate pairs, which no terminal can encode.
HIDDEN = ("Cc", "Cf", "Zl", "Zp", "Cs")
KEPT = "\n\t"  # a line break and a tab are text's own
NAMED = {"\n": "\\n", "\r": "\\r"}


@functools.cache
def escapes(newlines: bool) -> dict[int, str]:
    """Every character of HIDDEN (about 2,300 of them, read once from unicodedata) but a tab, and a newline where
    `newlines` keeps it: its code point, and its escape."""
    if not newlines:
        return {**escapes(True), ord("\n"): escaped("\n")}
    hidden = (chr(code) for code in range(sys.maxunicode + 1))
    return {ord(c): escaped(c) for c in hidden if unicodedata.category(c) in HIDDEN and c not in KEPT}


def escaped(character: str) -> str:
    """A character as Python writes it in a string: \\n, \\r, \\x1b, \\u202e."""
    if character in NAMED:
        return NAMED[character]
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str, newlines: bool = True) -> str:
    """`text` with every control or invisible format character shown as its escape; newlines kept where `newlines`."""
    return text.translate(escapes(newlines))


def one_line(text: str) -> str:
    """`text` as one line: its newlines shown as escapes too, so that nothing in it starts a line of its own."""
    return visible(text, newlines=False)


class Terminal(Console):
    """A rich Console on which no text can act as a control sequence: every segment of text it renders, at any depth
    of a table, is made visible; rich's own control segments (colours are styles, cursor moves are controls) are
    left as they are."""

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            yield segment if segment.control else Segment(visible(segment.text), segment.style)


def terminal_width(stream) -> int:
    """The columns to lay the output out in: COLUMNS where it is set, whether or not the output is a terminal
    (`COLUMNS=80 ./cml grade | less`), else the terminal's own, else UNMEASURED_WIDTH."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if stream.isatty():
        try:
            return os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError):
            pass
    return UNMEASURED_WIDTH
