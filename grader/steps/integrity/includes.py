"""Which files a kernel.cu may include, judged on the compiler's own list of the files it read (its dependency
output), whatever spelling brought them in: a digraph `%:include`, a comment inside the directive, a line splice,
a macro. A kernel.cu may read its lab's interface header, the cml/ headers, and the headers of the CUDA toolkit
and of the system, but not those of a library that would do the lab's work."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from grader.core.config import REPO_ROOT

# Headers of libraries that would do a lab's work: CUB, Thrust, CUTLASS and CuTe by folder (in the toolkit's
# cccl/ or anywhere on the search list), the rest by the file names their packages use.
LIBRARY_FOLDERS = {"cub": "CUB", "thrust": "Thrust", "cutlass": "CUTLASS", "cute": "CuTe"}
LIBRARY_FILES = {
    "cublas": "cuBLAS",
    "cudnn": "cuDNN",
    "cufft": "cuFFT",
    "cusolver": "cuSOLVER",
    "cusparse": "cuSPARSE",
    "cutensor": "cuTENSOR",
    "nccl": "NCCL",
    "npp": "NPP",
    "nvblas": "NVBLAS",
    "cudss": "cuDSS",
}
LIBRARY_FILE = re.compile(rf"^(?P<name>{'|'.join(LIBRARY_FILES)})\w*\.(h|hpp|cuh)$")
# The toolkit's occupancy calculator, header-only, so no symbol shows it: it is the answer to Lab 9's first TODO,
# and no other lab needs it (the runtime's occupancy API is another header, and allowed).
CALCULATOR = "cuda_occupancy.h"
CALCULATOR_REASON = "the toolkit's occupancy calculator, which does Lab 9's arithmetic; write it yourself"
CML_HEADERS = REPO_ROOT / "common" / "cml"
SYSTEM_HEADERS = ("/usr/include", "/usr/local/include", "/usr/lib/gcc", "/usr/lib64/gcc", "/usr/local/cuda/include")
MARKER = re.compile(r'^# (?P<line>\d{1,10}) "(?P<file>(?:[^"\\]|\\.)*+)"(?P<flags>( \d)*)\s*$')


@dataclass(frozen=True)
class Rules:
    """What may be included: the lab's interface header(s), and the folders of the compiler's <...> search list
    (the CUDA toolkit's and the system's), found before any -I of the build."""

    interface_headers: frozenset[Path]
    search_roots: tuple[Path, ...]


def search_roots(nvcc: str, env_path: str | None = None) -> tuple[Path, ...]:
    """The folders nvcc's preprocessor searches for <...> when no -I is given (the host compiler's -v)."""
    env = {**os.environ, "PATH": env_path} if env_path else None
    done = subprocess.run(
        [nvcc, "-E", "-Xcompiler", "-v", "-x", "cu", os.devnull, "-o", os.devnull],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    listing = done.stderr.split("#include <...> search starts here:", 1)[-1].split("End of search list.", 1)[0]
    roots = [Path(line.strip()).resolve() for line in listing.splitlines() if line.strip().startswith("/")]
    if done.returncode != 0 or not roots:
        raise RuntimeError(f"could not read nvcc's include search list: {done.stderr.strip()[-300:]}")
    # And the system's own folders of headers: a host compiler installed elsewhere (the H100 image's /opt/gcc)
    # lists its own, yet its headers go on to the system's (#include_next).
    system = [Path(folder).resolve() for folder in SYSTEM_HEADERS if Path(folder).is_dir()]
    return tuple(dict.fromkeys(roots + system))


def library(path: Path, roots: tuple[Path, ...]) -> str:
    """The name of the library that `path` is a header of, or ''."""
    for root in roots:
        if path.is_relative_to(root):
            parts = path.relative_to(root).parts
            folders = [LIBRARY_FOLDERS[part] for part in parts[:-1] if part in LIBRARY_FOLDERS]
            if folders:
                return folders[0]
            if match := LIBRARY_FILE.match(parts[-1]):
                return LIBRARY_FILES[match["name"]]
    return ""


def why_not(path: Path, rules: Rules) -> str:
    """'' when a kernel.cu may include `path`; else why not, in words."""
    if path in rules.interface_headers or (path.parent == CML_HEADERS and path.suffix == ".hpp"):
        return ""
    if not path.is_relative_to(REPO_ROOT) and any(path.is_relative_to(root) for root in rules.search_roots):
        if path.name == CALCULATOR:
            return CALCULATOR_REASON
        name = library(path, rules.search_roots)
        return f"a header of {name}, a library that does the lab's work; write the kernel yourself" if name else ""
    allowed = ", ".join(sorted(p.name for p in rules.interface_headers))
    return f"a kernel.cu includes only its lab's header ({allowed}), the cml/ headers, and CUDA and system headers"


def shown(path: Path, rules: Rules) -> str:
    """A file as a person would name it: from the checkout's root, or <as/included> from the search list."""
    if path.is_relative_to(REPO_ROOT):
        return str(path.relative_to(REPO_ROOT))
    roots = [root for root in rules.search_roots if path.is_relative_to(root)]
    return f"<{path.relative_to(max(roots, key=lambda r: len(r.parts)))}>" if roots else str(path)


def forbidden(dependencies: list[Path], source: Path, rules: Rules) -> dict[Path, str]:
    """Each file the compile read that a kernel.cu may not include -> why not, in the order it was read."""
    found = {}
    for path in dict.fromkeys(dependencies):
        reason = why_not(path, rules) if path != source.resolve() else ""
        if reason:
            found[path] = reason
    return found


def including_lines(preprocessed: str, source: Path, directory: Path) -> dict[Path, int]:
    """Each file in the preprocessor's output -> the line of `source` whose #include brought it in (directly
    or through other headers), read from the output's line markers (`# 12 "file" 1` enters a file)."""
    source = source.resolve()
    found: dict[Path, int] = {}
    current, line, origin = None, 0, None
    for text in preprocessed.splitlines():
        marker = MARKER.match(text)
        if not marker:
            line += 1
            continue
        name = re.sub(r"\\(.)", r"\1", marker["file"])  # the preprocessor escapes \\ and " in names
        path = None if name.startswith("<") else (directory / name).resolve()
        flags = marker["flags"].split()
        if "1" in flags:
            if current == source:
                origin = line
            if origin is not None and path is not None:
                found.setdefault(path, origin)
        elif path == source:
            origin = None
        current, line = path, int(marker["line"])
    return found


def describe(problems: dict[Path, str], lines: dict[Path, int], source_name: str, rules: Rules) -> list[str]:
    """One sentence for each line of kernel.cu that brought in a forbidden file (the first such file it read;
    the files whose line was not found count as one line)."""
    said, sentences = set(), []
    for path, reason in problems.items():
        line = lines.get(path)
        if line in said:
            continue
        said.add(line)
        where = f"{source_name} line {line}" if line is not None else source_name
        sentences.append(f"{where} includes {shown(path, rules)}: {reason}")
    return sentences
