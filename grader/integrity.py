"""What a kernel.cu may not do: bring in a library that does the lab's work (cuBLAS, CUB, Thrust, ...),
include files other than its lab's interface (the reference solution, say), or define a symbol of the
grader's harness (cml::compare, doctest, main) to change what the tests see. Checked on the source before
the build and on the built student object after it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from grader.config import REPO_ROOT

# Header-only libraries leave no symbol in the host object (their device code is inlined): the source
# check is what catches them. cuBLAS and friends are host calls: the object check sees those too.
LIBRARY_HEADERS = re.compile(r"^(cublas|cub/|thrust/|cutlass/|cute/|cudnn|cusparse|cufft|cusolver|cutensor|nccl)")
LIBRARY_SYMBOLS = re.compile(r"\b(cublas\w*|cub::\w+|thrust::\w+|cutlass::\w+|cudnn\w*|cusparse\w*|cufft\w*|cusolver\w*)")
INCLUDE = re.compile(r"^\s*#\s*include\s*(.*?)\s*(?://.*|/\*.*)?$", re.MULTILINE)
HARNESS_NAMESPACES = ("_ZN3cml", "_ZN7doctest")  # cml::, doctest:: (mangled)


def allowed_quoted_includes(lab: str) -> set[str]:
    """What the shipped skeleton and solution include, and the common headers: nothing else of the repo."""
    shipped = set()
    for kernel in (REPO_ROOT / "labs" / lab / "kernel.cu", REPO_ROOT / "solutions" / lab / "kernel.cu"):
        shipped |= {m.group(1)[1:-1] for m in INCLUDE.finditer(kernel.read_text()) if m.group(1).startswith('"')}
    return shipped | {f"cml/{header.name}" for header in (REPO_ROOT / "common" / "cml").glob("*.hpp")}


def check_source(lab: str, source: str) -> str:
    """'' when the includes are fine, else what is wrong, in words."""
    allowed = allowed_quoted_includes(lab)
    for match in INCLUDE.finditer(source):
        target = match.group(1)
        line = source.count("\n", 0, match.start()) + 1
        if re.fullmatch(r"<[^<>]+>", target):
            name = target[1:-1]
            if LIBRARY_HEADERS.match(name):
                return f"line {line}: #include {target}: a library that does the lab's work; write the kernel yourself"
            if ".." in name or name.startswith("/"):
                return f"line {line}: #include {target}: only the lab's own headers and system headers may be included"
        elif re.fullmatch(r'"[^"]+"', target):
            if target[1:-1] not in allowed:
                names = ", ".join(sorted(f'"{a}"' for a in allowed if not a.startswith("cml/")))
                return f"line {line}: #include {target}: a kernel.cu may include {names}, cml/ headers and system headers"
        else:
            return f"line {line}: #include {target}: a computed #include is not allowed"
    return ""


def _symbols(archive: Path, strong_definitions: bool = False, demangle: bool = True) -> set[str]:
    """Every symbol name in the archive, or only its strong external definitions (the ones a link takes
    over the harness's; weak ones are inline functions of shared headers)."""
    flags = ["--defined-only", "--extern-only"] if strong_definitions else []
    flags += ["-C"] if demangle else []
    listed = subprocess.run(["nm", *flags, str(archive)], capture_output=True, text=True, check=False)
    names = set()
    for line in listed.stdout.splitlines():
        fields = line.split(maxsplit=2) if line[:1] in "0123456789abcdef" else ["", *line.split(maxsplit=1)]
        if len(fields) == 3 and (not strong_definitions or fields[1] in "TDBRG"):
            names.add(fields[2])
    return names


def check_object(student_lib: Path, harness_libs: list[Path]) -> str:
    """'' when the built student library is fine, else what is wrong, in words."""
    if not student_lib.exists():
        return ""
    every = _symbols(student_lib)
    libraries = sorted({m.group(1) for s in every for m in [LIBRARY_SYMBOLS.search(s)] if m})
    if libraries:
        return f"calls a library that does the lab's work ({', '.join(libraries[:3])}); write the kernel yourself"
    defined = _symbols(student_lib, strong_definitions=True, demangle=False)
    harness = set().union(*(_symbols(lib, True, demangle=False) for lib in harness_libs if lib.exists()))
    stolen = sorted(s for s in defined if s in harness or s.startswith(HARNESS_NAMESPACES) or s == "main")
    if stolen:
        readable = subprocess.run(["c++filt", *stolen[:3]], capture_output=True, text=True, check=False).stdout
        return (f"defines {', '.join(readable.split(chr(10))[:3]).strip(', ')}, which belong to the grader's test harness; "
                "a kernel.cu defines only its lab's functions")
    return ""
