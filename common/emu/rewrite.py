#!/usr/bin/env python3
"""Rewrites a .cu file into C++ for the CPU emulator, keeping every line where it was.

Three constructs of CUDA C++ are not C++, and only these change:
  kernel<<<grid, block[, shared[, stream]]>>>(args)
      -> ::cml_emu::launch(::cml_emu::config(grid, block[, ...]), kernel, args)
  [extern] __shared__ T name[dims];     (inside a function)
      -> a reference to the block's own copy, in the emulated shared memory of the block
  __device__ T name...;                 (a variable, not a function)
      -> CML_EMU_DEVICE_VARIABLE T name...;  (placed where the emulator knows it is global memory)
Everything else (__global__, __constant__, threadIdx, __syncthreads, ...) is left to the headers in include/.

Usage: rewrite.py INPUT.cu OUTPUT.cpp
"""

from __future__ import annotations

import re
import sys
from itertools import pairwise
from pathlib import Path

IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# What the emulator says of what it cannot run, as its headers say it (cml_emu/device.hpp: CML_EMU_LIMIT).
LIMIT = "cml_emu limit:"
LIMIT_WHY = (
    " on the CPU emulator (a limit of the grader's CPU emulator, not a mistake in the kernel: grade it on a GPU)"
)
OPENERS = {"(": ")", "[": "]", "{": "}"}
CLOSERS = {v: k for k, v in OPENERS.items()}


class RewriteError(Exception):
    pass


def mask_comments_and_strings(text: str) -> str:
    """The text with comments and string/char literals replaced by spaces (newlines kept), so that the
    searches below see only code and every offset still points at the same character."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def match_forward(code: str, start: int) -> int:
    """Index of the bracket closing the one at `start` (parentheses, brackets and braces)."""
    stack = []
    for i in range(start, len(code)):
        c = code[i]
        if c in OPENERS:
            stack.append(OPENERS[c])
        elif c in CLOSERS:
            if not stack or stack.pop() != c:
                raise RewriteError(f"unbalanced '{c}' at offset {i}")
            if not stack:
                return i
    raise RewriteError(f"no closing bracket for '{code[start]}' at offset {start}")


def split_top_level(code: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of the comma-separated parts of code[start:end] (commas inside brackets do not split)."""
    parts, depth, begin = [], 0, start
    for i in range(start, end):
        c = code[i]
        if c in OPENERS:
            depth += 1
        elif c in CLOSERS:
            depth -= 1
        elif c == "," and depth == 0:
            parts.append((begin, i))
            begin = i + 1
    parts.append((begin, end))
    return parts


def skip_space_back(code: str, i: int) -> int:
    while i > 0 and code[i - 1].isspace():
        i -= 1
    return i


def matching_open_back(code: str, close: int) -> int:
    """Index of the bracket that opens the one closing at `close`: ), ] or the > of template arguments."""
    closer = code[close]
    opener = {")": "(", "]": "[", ">": "<"}[closer]
    depth = 0
    for i in range(close, -1, -1):
        if code[i] == closer:
            depth += 1
        elif code[i] == opener:
            depth -= 1
            if depth == 0:
                return i
    raise RewriteError(f"no opening bracket for '{closer}' at offset {close}")


# Words that end the expression before them: `if (c) (*k)<<<...>>>()` launches (*k), not c called.
IDENTIFIER_BEFORE = re.compile(r"([A-Za-z_]\w*)\s*$")
KEYWORDS = frozenset({"if", "while", "for", "switch", "return", "else", "do", "case", "throw", "new", "delete"})


def callee_start(code: str, end: int) -> int:
    """Start of the kernel expression that ends just before `end`: a postfix expression, as nvcc takes it
    before <<<: a name, qualified (a::b) or with template arguments (k<true>), an element of an array of
    kernels (kernels[which]), a member (s.kernel, p->kernel), a call that returns a kernel (pick(n)), or a
    parenthesised expression ((*pointer))."""
    i = start = skip_space_back(code, end)
    while i > 0:
        if code[i - 1] in ")]>":  # a call, a subscript, template arguments, or a parenthesised expression
            opened = matching_open_back(code, i - 1)
            word = IDENTIFIER_BEFORE.search(code[max(0, opened - 40) : opened])
            if word and word.group(1) in KEYWORDS and start != skip_space_back(code, end):
                return start  # `if (c)` before the kernel expression, not a call of it
            i = start = opened
            i = skip_space_back(code, i)
            if i and (code[i - 1].isalnum() or code[i - 1] in "_)]>"):
                continue
            return start
        name_end = i
        while i > 0 and (code[i - 1].isalnum() or code[i - 1] == "_"):
            i -= 1
        if i == name_end or code[i:name_end] in KEYWORDS:
            return start
        start = i
        i = skip_space_back(code, i)
        joint = next((j for j in ("::", ".", "->") if code[max(0, i - len(j)) : i] == j), "")
        if not joint:
            return start
        i = skip_space_back(code, i - len(joint))
    return start


def rewrite_launches(text: str, code: str) -> list[tuple[int, int, str]]:
    edits = []
    for m in re.finditer(r"<<<", code):
        open_at = m.start()
        close_at = code.find(">>>", open_at)
        if close_at < 0:
            raise RewriteError(f"'<<<' without '>>>' at offset {open_at}")
        start = callee_start(code, open_at)
        paren = close_at + 3
        while paren < len(code) and code[paren].isspace():
            paren += 1
        if paren >= len(code) or code[paren] != "(":
            raise RewriteError(f"a launch without its argument list at offset {open_at}")
        end = match_forward(code, paren)
        kernel = text[start:open_at].strip()
        config = text[open_at + 3 : close_at]
        arguments = text[paren + 1 : end]
        separator = ", " if arguments.strip() else ""
        edits.append(
            (start, end + 1, f"::cml_emu::launch(::cml_emu::config({config}), {kernel}{separator}{arguments})")
        )
    return edits


def enclosing_scope_is_function(code: str, at: int) -> bool:
    """True when `at` lies inside a function body (not at namespace or class scope)."""
    stack: list[bool] = []  # per open brace: is it a function body (or a block inside one)?
    for m in re.finditer(r"[{}]", code[:at]):
        if m.group() == "}":
            if stack:
                stack.pop()
            continue
        head = code[max(0, m.start() - 200) : m.start()]
        in_function = bool(stack and stack[-1])
        opens_namespace = re.search(
            r"(namespace(\s+[\w:]+)?|extern\s+\"C\"|(class|struct|union|enum)\b[^;{}()]*)\s*$", head
        )
        stack.append(in_function or not opens_namespace)
    return bool(stack and stack[-1])


def rewrite_shared(text: str, code: str) -> list[tuple[int, int, str]]:
    edits = []
    for m in re.finditer(r"\b__shared__\b", code):
        end = code.find(";", m.end())
        if end < 0:
            raise RewriteError(f"__shared__ declaration without ';' at offset {m.start()}")
        start = m.start()
        before = code[max(0, start - 40) : start]
        prefix = re.search(r"\b(extern|static)\s+$", before)
        is_extern = bool(prefix and prefix.group(1) == "extern")
        if prefix:
            start -= len(prefix.group(0))
        line = text.count("\n", 0, m.start()) + 1
        if not enclosing_scope_is_function(code, m.start()):
            edits.append(
                (
                    start,
                    end + 1,
                    f'static_assert(false, "{LIMIT} __shared__ at namespace scope (line {line}) is not emulated'
                    f'{LIMIT_WHY}; inside the kernel it is");',
                )
            )
            continue
        declaration = text[m.end() : end]
        alignment = "0"
        found = re.search(r"(__align__|alignas)\s*\(\s*([^)]*)\)", declaration)
        if found:
            alignment = found.group(2)
            declaration = declaration[: found.start()] + declaration[found.end() :]
        parts = split_top_level(declaration, 0, len(declaration))
        first = declaration[parts[0][0] : parts[0][1]]
        name_match = list(IDENTIFIER.finditer(first.split("[")[0].split("=")[0]))
        if not name_match:
            raise RewriteError(f"cannot read the __shared__ declaration at line {line}")
        first_type = first[: name_match[-1].start()].strip()
        base_type = re.sub(r"[*\s]+$", "", first_type)
        statements = []
        for k, (a, b) in enumerate(parts):
            declarator = declaration[a:b] if k else first
            if "=" in declarator:
                raise RewriteError(f"a __shared__ variable cannot have an initializer (line {line})")
            names = list(IDENTIFIER.finditer(declarator.split("[")[0]))
            name = names[-1].group()
            pointer = first_type[len(base_type) :] if k == 0 else declarator[: names[-1].start()]
            dims = declarator[declarator.find("[") :] if "[" in declarator else ""
            if is_extern:
                statements.append(f"auto* const {name} = ::cml_emu::dynamic_shared<{base_type}{pointer.strip()}>();")
            else:
                kind = f"{base_type}{pointer.strip()}{dims.strip()}"
                statements.append(
                    f"static ::cml_emu::SharedSlot {name}__cml_emu_slot; "
                    f"auto& {name} = ::cml_emu::shared_variable<{kind}>({name}__cml_emu_slot, {alignment});"
                )
        replacement = " ".join(statements)
        replacement += "\n" * text.count("\n", start, end + 1)  # keep the line numbers that follow
        edits.append((start, end + 1, replacement))
    return edits


def rewrite_device_variables(code: str) -> list[tuple[int, int, str]]:
    """__device__ in front of a variable (the first of ( ; = [ { after it is not '(')."""
    edits = []
    for m in re.finditer(r"\b__device__\b", code):
        rest = re.search(r"[(;=\[{]", code[m.end() :])
        if rest and rest.group() != "(":
            edits.append((m.start(), m.end(), "CML_EMU_DEVICE_VARIABLE"))
    return edits


def rewrite(text: str) -> str:
    code = mask_comments_and_strings(text)
    edits = rewrite_launches(text, code) + rewrite_shared(text, code) + rewrite_device_variables(code)
    edits.sort()
    for (a, b, _), (c, _, _) in pairwise(edits):
        if c < b:
            raise RewriteError(f"overlapping rewrites at offsets {a} and {c}")
    out, last = [], 0
    for start, end, replacement in edits:
        out.append(text[last:start])
        out.append(replacement)
        last = end
    out.append(text[last:])
    return "".join(out)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source, target = Path(argv[1]), Path(argv[2])
    try:
        # A byte that is not UTF-8 (a Latin-1 comment, say) is carried through as it is: the compiler, not
        # this script, judges the file's characters.
        body = rewrite(source.read_text(encoding="utf-8", errors="surrogateescape"))
    except RewriteError as error:
        # nvcc built the file (the grader builds it with nvcc first), so what rewrite.py cannot read is its limit.
        print(f"{source}: {LIMIT} rewrite.py cannot read this file ({error}){LIMIT_WHY}", file=sys.stderr)
        return 1
    # nvcc includes cuda_runtime.h before the file, and with it what device code may call; debug information and
    # diagnostics name the original file and its lines.
    target.write_text(
        f'#include <cuda_runtime.h>\n#line 1 "{source.resolve()}"\n{body}', encoding="utf-8", errors="surrogateescape"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
