"""What a kernel.cu's text names, read in linear time: the functions it calls or defines (a name before a
parenthesis) and the headers it includes. Its text is the student's, up to a MiB of it, read in the grader's own
process before anything is built, so no pattern here is ever tried twice over the same characters: a comment or
string literal is passed over whole from where it starts, and every repetition is possessive."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Where a comment or a literal starts; what ends each (an unclosed one runs to the end of its line, or of the file).
OPENERS = re.compile(r"//|/\*|\"|'")
LITERAL_ENDS = {
    '"': re.compile(r'[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"?', re.S),
    "'": re.compile(r"[^'\\\n]*+(?:\\.[^'\\\n]*+)*+'?", re.S),
}
CALL = re.compile(r"\b([A-Za-z_]\w*+)\s*+\(")
INCLUDE = re.compile(r'#[ \t]*+include[ \t]*+[<"]([^">\n]{1,256}+)[">]')
MAX_INCLUDE_FOLDERS = 200  # characters of folders before an included header's name that still count as naming it


def without_comments(text: str) -> str:
    """`text` with each comment replaced by a space; string and character literals kept whole, so that a `/*` or
    `//` inside one starts nothing."""
    kept: list[str] = []
    at = 0
    while found := OPENERS.search(text, at):
        start, opener = found.start(), found[0]
        if opener in LITERAL_ENDS:
            literal = LITERAL_ENDS[opener].match(text, found.end())
            end = literal.end() if literal else found.end()
            kept.append(text[at:end])
        else:
            closer = "\n" if opener == "//" else "*/"
            end = text.find(closer, found.end())
            end = len(text) if end < 0 else end + (0 if opener == "//" else len(closer))
            kept.append(text[at:start] + " ")
        at = end
    kept.append(text[at:])
    return "".join(kept)


@dataclass(frozen=True)
class Names:
    called: frozenset[str]  # every identifier followed by "(": a call, a definition or a declaration
    included: frozenset[str]  # the file name of every header an #include names, from any folder

    def mentions(self, name: str) -> bool:
        """Whether the text includes this header (NAME.hpp) or names this function."""
        return name in (self.included if name.endswith(".hpp") else self.called)


def names_in(text: str) -> Names:
    called = frozenset(CALL.findall(text))
    included = set()
    for path in INCLUDE.findall(text):
        folders, _, name = path.rpartition("/")
        if len(folders) <= MAX_INCLUDE_FOLDERS:
            included.add(name)
    return Names(called, frozenset(included))
