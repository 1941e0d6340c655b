"""What device code may call, read off the CUDA toolkit's own headers rather than off the kernels seen so far,
into common/emu/device_api.txt, which grader/tests/emulator/test_emulator_device_api.py holds the CPU emulator to: the
CUDA Math API, the intrinsics, the warp functions, the atomics in every scope, the texture fetches, cooperative
groups, and half and bfloat16 precision. nvcc's own preprocessor reads the headers, for the device and the
architecture the labs build for (meson.options: gpu_arch), so the list holds what nvcc would compile there.
--check changes nothing and exits 1 where the list is stale for the toolkit found.

    PYTHONPATH=. .venv/bin/python tools/emu_device_api.py [--check] [--nvcc PATH]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
LIST = REPO_ROOT / "common" / "emu" / "device_api.txt"
ARCH = "sm_90"
# The headers a kernel.cu includes for these: nvcc includes cuda_runtime.h, and with it the math functions,
# intrinsics, atomics, warp functions and texture fetches, by itself.
INCLUDES = (
    "cooperative_groups.h",
    "cooperative_groups/reduce.h",
    "cooperative_groups/scan.h",
    "cooperative_groups/memcpy_async.h",
    "cuda_fp16.h",
    "cuda_bf16.h",
)
# The toolkit's headers whose device functions are listed (relative to its include folder; a .hpp counts as its
# .h). Cooperative groups are listed by namespace instead, since their public functions live in details/ too.
HEADERS = (
    "crt/math_functions.h",
    "crt/device_functions.h",
    "crt/device_double_functions.h",
    "device_atomic_functions.h",
    "sm_20_atomic_functions.h",
    "sm_32_atomic_functions.h",
    "sm_35_atomic_functions.h",
    "sm_60_atomic_functions.h",
    "sm_20_intrinsics.h",
    "sm_30_intrinsics.h",
    "sm_32_intrinsics.h",
    "sm_35_intrinsics.h",
    "sm_61_intrinsics.h",
    "crt/sm_70_rt.h",
    "crt/sm_80_rt.h",
    "crt/sm_90_rt.h",
    "texture_indirect_functions.h",
    "cuda_fp16.h",
    "cuda_bf16.h",
)
COOPERATIVE_GROUPS = "cooperative_groups"
# The toolkit's own helpers, which no kernel calls by name.
INTERNAL = re.compile(
    r"^(__internal|__nv_|__cuda|_Z|__[a-z0-9]+Atomic|__u128|__half_|__bfloat16_|__float_simpl)|_(impl|internal)$"
    r"|::(__v1::)?details::|^std::__"
)

# Declared, yet no kernel for the labs' GPU builds with them: ptxas refuses a vote without .sync on sm_70 and later,
# and thread_group::num_threads is declared and never defined (ptxas: an unresolved extern function).
NOT_BUILT = frozenset(
    {"__all", "__any", "all", "any", "__ballot", "ballot", "cooperative_groups::thread_group::num_threads"}
)

MARKER = re.compile(r'^# \d+ "(?P<file>[^"]*)"[^\n]*$', re.MULTILINE)
# Operators of two or three characters are one token (a >= inside template arguments closes nothing), but >>
# is two, as C++ reads it at the end of nested template arguments.
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|[A-Za-z_]\w*|::|->|\.\.\.|[<>=!]=|&&|\|\||\d[\w.]*|\S')
IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")
TYPE_WORDS = frozenset({"int", "long", "short", "char", "float", "double", "bool", "signed", "unsigned", "void"})
SPECIFIERS = frozenset(
    {"static", "inline", "__inline__", "extern", "constexpr", "virtual", "explicit", "__forceinline__", "friend"}
)
DEVICE = ("__attribute__", "(", "(", "device", ")", ")")


@dataclass(frozen=True, order=True)
class Declaration:
    header: str
    text: str  # "float sinf(float x)", "unsigned int cooperative_groups::grid_group::thread_rank()"


@dataclass
class Token:
    text: str
    file: str


def preprocess(nvcc: str) -> str:
    """The device pass's view of the headers, as nvcc's preprocessor writes it."""
    source = "".join(f"#include <{header}>\n" for header in INCLUDES)
    done = subprocess.run(
        [nvcc, "-E", f"-arch={ARCH}", "-x", "cu", "-", "-o", "-"],
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"nvcc -E failed: {done.stderr.strip()[-500:]}")
    return done.stdout


def tokens_of(text: str) -> list[Token]:
    tokens, file, position = [], "", 0
    for marker in [*MARKER.finditer(text), None]:
        end = marker.start() if marker else len(text)
        tokens += [Token(t, file) for t in TOKEN.findall(text, position, end)]
        if marker:
            file, position = marker["file"], marker.end()
    return tokens


def matching(words: list[str], start: int, opener: str, closer: str) -> int:
    depth = 0
    for i in range(start, len(words)):
        depth += (words[i] == opener) - (words[i] == closer)
        if depth == 0:
            return i
    return len(words) - 1


def without_attributes(words: list[str]) -> list[str]:
    """The words of a declaration less its attributes (__attribute__((...)), alignas, __declspec)."""
    out, i = [], 0
    while i < len(words):
        if words[i] in ("__attribute__", "alignas", "__declspec", "__asm__", "asm") and words[i + 1 : i + 2] == ["("]:
            i = matching(words, i + 1, "(", ")") + 1
        elif words[i] == "[" and words[i + 1 : i + 2] == ["["]:
            i = matching(words, i, "[", "]") + 1
        else:
            out.append(words[i])
            i += 1
    return out


def template_head(words: list[str]) -> tuple[list[str], list[str]]:
    """(the template <...> heads, the rest)."""
    heads: list[str] = []
    while words[:2] == ["template", "<"]:
        end = matching(words, 1, "<", ">")
        heads += words[: end + 1]
        words = words[end + 1 :]
    return heads, words


def joined(words: list[str]) -> str:
    text = " ".join(words)
    for before, after in ((" ::", "::"), (":: ", "::"), (" (", "("), ("( ", "("), (" )", ")"), (" ,", ","),
                          ("< ", "<"), (" >", ">"), (" *", "*"), (" &", "&"), (" [", "["), ("[ ", "["), (" ]", "]")):  # fmt: skip
        text = text.replace(before, after)
    text = re.sub(
        r"operator ((?:[-+*/%^&|~!=<>]|\[|\]|\(|\))(?: ?(?:[-+*/%^&|=<>]|\]|\)))?) ?\(",
        lambda m: "operator" + m.group(1).replace(" ", "") + "(",
        text,
    )
    return text.replace("operator(()", "operator()(")


NOT_A_NAME = frozenset({"sizeof", "alignof", "__alignof", "__alignof__", "decltype", "noexcept", "requires"})


def function_paren(words: list[str]) -> int:
    """Where the parameter list opens: the first ( outside template arguments that follows a name (or an
    operator), or -1."""
    angles = parens = 0
    for i, word in enumerate(words):
        if word == "operator":
            return i + 3 if words[i + 1 : i + 3] == ["(", ")"] else words.index("(", i + 2)
        if parens == 0 and word == "<" and i and IDENTIFIER.match(words[i - 1]):
            angles += 1
        elif parens == 0 and word == ">" and angles:
            angles -= 1
        elif word == "(":
            if angles == 0 and parens == 0 and i and IDENTIFIER.match(words[i - 1]) and words[i - 1] not in NOT_A_NAME:
                return i
            parens += 1
        elif word == ")":
            parens -= 1
    return -1


def split_parameters(words: list[str], paren: int, close: int) -> list[tuple[int, int]]:
    """The spans of the parameters between words[paren] and words[close] (commas in brackets do not split)."""
    spans, depth, begin = [], 0, paren + 1
    for i in range(paren + 1, close):
        if words[i] in ("(", "[", "{") or (words[i] == "<" and IDENTIFIER.match(words[i - 1])):
            depth += 1
        elif words[i] in (")", "]", "}", ">") and depth:
            depth -= 1
        elif words[i] == "," and depth == 0:
            spans.append((begin, i))
            begin = i + 1
    return [*spans, (begin, close)] if close > paren + 1 else []


def parameter_type(words: list[str]) -> list[str]:
    """A parameter's type: without its name and default value (two declarations of one function spell those
    differently)."""
    if "=" in words:
        words = words[: words.index("=")]
    if words == ["void"]:
        return []
    if len(words) > 1 and IDENTIFIER.match(words[-1]) and words[-1] not in TYPE_WORDS | {"__restrict__", "const"}:
        words = words[:-1]
    return words


def function_of(words: list[str], scope: str) -> tuple[str, str]:
    """(its qualified name, the declaration as one line: 'ret name(params)', templates with their heads), or
    ('', '') when `words` do not declare a function."""
    heads, words = template_head(without_attributes(words))
    words = [w for w in words if w not in SPECIFIERS and w not in ('"C"', '"C++"')]
    paren = function_paren(words)
    if paren < 0 or "typedef" in words or "using" in words or "=" in words[:paren]:
        return "", ""
    if "operator" in words[:paren]:
        name_start = words.index("operator")
    else:
        name_start = paren - 1
        while name_start > 1 and words[name_start - 1] == "::":
            name_start -= 2
    close = matching(words, paren, "(", ")")
    name = " ".join(words[name_start:paren]) if "operator" in words[:paren] else "".join(words[name_start:paren])
    qualified = f"{scope}::{name}" if scope else name
    if scope and name == scope.rsplit("::", 1)[-1]:
        return "", ""  # a constructor: made by the types' users, never called by name
    returned = words[:name_start]
    tail = [w for w in words[close + 1 :] if w in ("const", "volatile", "&", "&&")]
    parameters = [parameter_type(words[a:b]) for a, b in split_parameters(words, paren, close)]
    line = joined([*returned, qualified, "(", *", ".join(joined(p) for p in parameters if p).split(" "), ")", *tail])
    return qualified, (joined(heads) + " " if heads else "") + line


def declarations(tokens: list[Token]) -> list[tuple[str, str, str]]:
    """(file, qualified name, declaration) of every function declared with __device__, at namespace or class scope."""
    found = []
    scopes: list[tuple[str, str]] = []  # (kind, name): namespace, class (public or not), other
    head: list[Token] = []
    i = 0
    while i < len(tokens):
        word = tokens[i].text
        if word in ("public", "private", "protected") and tokens[i + 1].text == ":" and scopes:
            scopes[-1] = ("class" if word == "public" else "hidden", scopes[-1][1])
            head, i = [], i + 2
            continue
        if word not in (";", "{", "}"):
            head.append(tokens[i])
            i += 1
            continue
        words = [t.text for t in head]
        scope = "::".join(name for kind, name in scopes if kind != "other" and name)
        visible = all(kind in ("namespace", "class") for kind, _ in scopes)
        device = any(words[k : k + len(DEVICE)] == list(DEVICE) for k in range(len(words)))
        name, declared = function_of(words, scope) if device and visible and "friend" not in words else ("", "")
        if declared:
            found.append((head[0].file, name, declared))
        if word == "{":
            bare = without_attributes(words)
            _, bare = template_head(bare)
            if "namespace" in bare:
                after = bare[bare.index("namespace") + 1 :]
                scopes.append(("namespace", after[0] if after else ""))
            elif bare[:1] == ["extern"] and len(bare) == 2:
                scopes.append(("namespace", ""))
            elif not declared and "(" not in bare and any(k in bare for k in ("class", "struct", "union")):
                key = next(k for k in bare if k in ("class", "struct", "union"))
                after = bare[bare.index(key) + 1 :]
                name = after[0] if after and IDENTIFIER.match(after[0]) else ""
                scopes.append(("class" if key != "class" else "hidden", name))
            else:  # a function's body, an enum, an initializer: skip it whole
                depth = 1
                while depth:
                    i += 1
                    depth += (tokens[i].text == "{") - (tokens[i].text == "}")
        elif word == "}" and scopes:
            scopes.pop()
        head = []
        i += 1
    return found


def header_of(file: str, include: Path) -> str:
    try:
        relative = Path(file).resolve().relative_to(include.resolve()).as_posix()
    except ValueError:
        return ""
    return relative[: -len("pp")] if relative.endswith(".hpp") else relative


def listed(found: list[tuple[str, str, str]], include: Path) -> list[Declaration]:
    out = set()
    for file, name, text in found:
        header = header_of(file, include)
        name = name.replace("::__v1::", "::")
        parts = name.split("::")
        constructor = len(parts) > 1 and parts[-1] == parts[-2]  # defined outside its class
        if INTERNAL.search(parts[-1]) or INTERNAL.search(name) or name in NOT_BUILT or constructor:
            continue
        if header in HEADERS and not name.startswith(COOPERATIVE_GROUPS):
            out.add(Declaration(header, normalised(text)))
        elif header.startswith(COOPERATIVE_GROUPS) and name.startswith(COOPERATIVE_GROUPS):
            out.add(Declaration("cooperative_groups.h", normalised(text).replace("::__v1::", "::")))
    return sorted(out)


def normalised(text: str) -> str:
    """One spelling per declaration: the names of parameters and their defaults stay, as the headers wrote them."""
    return re.sub(r"\s+", " ", text).strip()


def toolkit_version(nvcc: str) -> str:
    done = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=True)
    match = re.search(r"release [\d.]+, V([\d.]+)", done.stdout)
    return match.group(1) if match else "unknown"


def render(declared: list[Declaration], version: str) -> str:
    lines = [
        "# What device code may call, by the CUDA toolkit's own headers: written by tools/emu_device_api.py",
        f"# from CUDA {version} (nvcc -E -arch={ARCH}); do not edit. The CPU emulator declares each (a limit of it",
        "# says so where it is used), and grader/tests/emulator/test_emulator_device_api.py holds it to that.",
    ]
    header = ""
    for d in declared:
        if d.header != header:
            header = d.header
            lines += ["", f"[{header}]"]
        lines.append(d.text)
    return "\n".join(lines) + "\n"


def written_version(text: str) -> str:
    match = re.search(r"from CUDA ([\d.]+)", text)
    return match.group(1) if match else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 where the list is stale")
    parser.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    args = parser.parse_args(argv)
    include = Path(args.nvcc).resolve().parent.parent / "include"
    version = toolkit_version(args.nvcc)
    text = render(listed(declarations(tokens_of(preprocess(args.nvcc))), include), version)
    if args.check:
        if LIST.read_text() != text:
            print(
                f"{LIST.relative_to(REPO_ROOT)} is stale for CUDA {version}: run tools/emu_device_api.py",
                file=sys.stderr,
            )
            return 1
        return 0
    LIST.write_text(text)
    print(f"wrote {LIST.relative_to(REPO_ROOT)}: {text.count(chr(10))} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
