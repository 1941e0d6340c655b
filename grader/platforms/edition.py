"""The student edition of the kit: the committed tree (`git archive HEAD`) less the reference solutions and every
file made from them, for a graded course to hand its students (./cml edition student OUT [--git]).

What is left out is decided per path by RULES, first match wins; every other file of the commit is kept as it is,
so a student still grades their own work locally: correctness, sanitizers, counters and speed against the
labs' baselines. solution_lines_in() is the proof: no distinctive line of a solution is in any file written."""

from __future__ import annotations

import fnmatch
import io
import re
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader.core.config import REPO_ROOT
from grader.core.exits import GraderError

KEEP, DROP, STRIP_CODE_SLIDES = "keep", "drop", "strip code slides"
# Said by every command and test that needs the reference solutions, where this edition has none.
NO_SOLUTIONS = "this edition of the kit has no reference solutions, nor the files made from them (no solutions/)"


@dataclass(frozen=True)
class Rule:
    pattern: str  # fnmatch pattern on the path in the repository ('*' spans folders)
    action: str
    why: str


RULES = (
    Rule("solutions/*", DROP, "the reference solutions"),
    Rule("variants/*", DROP, "the calibration's kernels: complete kernels, the correct ones solutions"),
    Rule("grader/tests/attacks/*/attack.toml", DROP, "each attack is a solution with a change"),
    Rule("grader/tests/fixtures/*/expect.toml", DROP, "each planted bug quotes the solution's lines it changes"),
    Rule("grader/tests/kernels/02_dot_product_cooperative_groups.cu", DROP, "Lab 2's solution in cooperative groups"),
    Rule("grader/tests/kernels/device_api_labs/*", DROP, "labs' correct kernels, written with the device API"),
    Rule("grader/tests/kernels/device_api/*", DROP, "the emulator's device API programs: lines of the solutions"),
    Rule(
        "tests/08_registers_local_memory/capped_window.cuh",
        DROP,
        "Lab 8's capped kernel: TODOs 1 and 2's window under a register cap (its benchmark then shows the others)",
    ),
    Rule("results/h100-grade*.json", KEEP, "the solutions' graded figures, no code: slides and plots quote them"),
    Rule("results/calibration/h100-textbook-kernels.md", KEEP, "figures of textbook kernels the slides plot"),
    Rule("results/access/*.png", KEEP, "screenshots of planted kernels' reports, which the README shows: no code"),
    Rule("results/*.md", KEEP, "the measured evidence the handouts and slides cite: tables and commands, no code"),
    Rule("results/calibration/*.md", KEEP, "each kernel the thresholds were set from, with its figures: no code"),
    Rule("results/*", DROP, "grade records and archives of the solutions' and variants' runs, quoting their text"),
    Rule("slides/decks/*.md", STRIP_CODE_SLIDES, "the code slides include the solutions' kernel.cu"),
)


def action_for(path: str) -> Rule | None:
    """The first rule whose pattern matches `path`; None keeps the file unchanged."""
    return next((rule for rule in RULES if fnmatch.fnmatchcase(path, rule.pattern)), None)


def has_solutions(root: Path = REPO_ROOT) -> bool:
    return (root / "solutions").is_dir()


# ---- The code slides ----

CODE_SLIDE = re.compile(r"```\{literalinclude\}\s+code/")  # the decks' include of a solution's kernel.cu


def strip_code_slides(deck: str) -> str:
    """The deck without its slides (a '## ' heading and what follows, outside code fences) that include code/."""
    slides: list[list[str]] = [[]]
    fenced = False
    for line in deck.splitlines(keepends=True):
        if line.startswith("## ") and not fenced:
            slides.append([])
        if line.lstrip().startswith("```"):
            fenced = not fenced
        slides[-1].append(line)
    return "".join("".join(slide) for slide in slides if not CODE_SLIDE.search("".join(slide)))


# ---- Writing the edition ----


@dataclass
class Edition:
    out: Path
    commit: str  # the commit it was made from
    kept: list[str] = field(default_factory=list)
    dropped: dict[str, str] = field(default_factory=dict)  # path -> why
    stripped: list[str] = field(default_factory=list)  # decks whose code slides were taken out
    uncommitted: list[str] = field(default_factory=list)  # working-tree changes left out (git status lines)


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout


def write_student_edition(out: Path, repo: Path = REPO_ROOT, make_git: bool = False) -> Edition:
    """The student edition of `repo`'s HEAD in `out` (which must be new or empty); with make_git, a fresh git
    repository holding it in one commit. Raises GraderError, before any commit, where a solution's line is in it."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"{out} exists and is not an empty folder")
    edition = Edition(out, git(repo, "rev-parse", "HEAD").decode().strip())
    # The committed tree only: an instructor's uncommitted work (a solution being written) is never shipped.
    edition.uncommitted = git(repo, "status", "--porcelain").decode().splitlines()
    archive = tarfile.open(fileobj=io.BytesIO(git(repo, "archive", "--format=tar", "HEAD")))
    members, solutions, skeletons = [], [], []
    for member in archive.getmembers():
        rule = action_for(member.name)
        if member.isfile() and fnmatch.fnmatchcase(member.name, "solutions/*"):
            solutions.append(read_member(archive, member))
        if member.isfile() and fnmatch.fnmatchcase(member.name, "labs/*/kernel.cu"):
            skeletons.append(read_member(archive, member))
        if member.isdir():
            continue  # made as the files in it are written: a folder left with none (solutions/) is not made
        if rule and rule.action == DROP:
            edition.dropped[member.name] = rule.why
            continue
        members.append(member)
        edition.kept.append(member.name)
        if rule and rule.action == STRIP_CODE_SLIDES:
            edition.stripped.append(member.name)
    out.mkdir(parents=True, exist_ok=True)
    for member in members:
        write_member(archive, member, out)
    edition.stripped = [name for name in edition.stripped if stripped_in_place(out / name)]
    leaks = solution_lines_in(out, solutions, skeletons)
    if leaks:
        listed = "; ".join(f"{path}: {lines[0]!r}" for path, lines in list(leaks.items())[:5])
        raise GraderError(f"the edition in {out} still holds solution code ({len(leaks)} files: {listed})")
    if make_git:
        commit_edition(out, repo, edition.commit)
    return edition


def stripped_in_place(deck: Path) -> bool:
    """Whether the deck had code slides, which are now taken out."""
    text = deck.read_text()
    kept = strip_code_slides(text)
    deck.write_text(kept)
    return kept != text


def write_member(archive: tarfile.TarFile, member: tarfile.TarInfo, out: Path) -> None:
    """A file of the commit into `out`, with its executable bit; anything else (a link, a device) is refused,
    as is a name that leaves `out`. By hand, as tarfile's own filters exist only from Python 3.11.4 on."""
    path = PurePosixPath(member.name)
    if not member.isfile() or path.is_absolute() or ".." in path.parts:
        raise GraderError(f"the commit holds {member.name!r}, which is no plain file inside the kit")
    data = archive.extractfile(member)
    target = out.joinpath(*path.parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data.read() if data else b"")
    target.chmod(0o755 if member.mode & 0o100 else 0o644)


def read_member(archive: tarfile.TarFile, member: tarfile.TarInfo) -> str:
    data = archive.extractfile(member)
    return data.read().decode(errors="replace") if data else ""


def commit_edition(out: Path, repo: Path, source_commit: str) -> None:
    """One commit holding the whole edition, under the instructor's git identity where one is set."""
    identity = ["-c", "user.name=cuda-memory-labs", "-c", "user.email=edition@cuda-memory-labs.invalid"]
    named = subprocess.run(["git", "-C", str(repo), "config", "user.email"], capture_output=True).returncode == 0
    git(out, "init", "-q", "-b", "main")
    git(out, "add", "-A")
    message = f"cuda-memory-labs, student edition (from {source_commit[:12]})"
    git(out, *([] if named else identity), "commit", "-q", "-m", message)


# ---- The proof: no solution's text in the edition ----

COMPRESSED = {".xz", ".gz", ".bz2", ".zip", ".zst"}  # what a line-by-line search cannot read
COMMENT = re.compile(r"^\s*(//|/\*|\*)")
TRAILING_COMMENT = re.compile(r"\s*//.*$")
# A line of nothing but braces, punctuation and keywords, returning a name or naming a case, tells nothing of a
# solution ("};", "else", "return;", "return count;", "case 16:").
NO_CODE_OF_ITS_OWN = re.compile(
    r"^(?:[\s{}();,]|\b(?:else|return|break|continue|namespace|do)\b|#pragma unroll)*$|^return \w+;$|^(case \w+|default):$"
)
# Lines a solution shares with the grader's own harness, which the edition must ship (reviewed one by one: each is
# an idiom of every kernel, or the same line in a baseline kernel or a CPU reference, never a solution's method).
SHARED_WITH_THE_HARNESS = frozenset(
    {
        "const int i = blockIdx.x * blockDim.x + threadIdx.x;",  # every one-thread-per-element kernel
        "if (i >= n) return;",  # and its bounds check
        "CML_CHECK(cudaGetDevice(&device));",  # the harness's device queries
        "CML_CHECK(cudaDeviceSynchronize());",  # the harness's wait for the GPU (and Lab 10's zero-copy stretch's)
        "static const int count = [] {",  # a device query asked once (the integrity tests' allowed calls)
        # The checker's stand-ins mark every stretch as attempted, as a solution does.
        "const bool vector_add_float4_attempted = true;",
        "const bool dot_product_grid_stride_attempted = true;",
        "const bool gemm_register_blocked_attempted = true;",
        "const bool transpose_swizzled_attempted = true;",
        "const bool reverse_in_flight_attempted = true;",
        "const bool histogram_per_warp_attempted = true;",
        "const bool pipeline_zero_copy_attempted = true;",
        "c[i] = a[i] + b[i];",  # Lab 1's CPU reference and baseline compute the same sum
        "CML_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));",  # Lab 2's atomic baseline resets its result too
        "out[i] = sum / float(2 * radius + 1);",  # Lab 3's CPU reference and baseline average the same window
        "if (m == 0 || n == 0) return;",  # Lab 4's CPU reference
        # Lab 5's baselines launch their naive kernels over the same tiles as the solution.
        "void launch_per_tile(void (*kernel)(const float*, float*, int, int), const float* in, float* out, int rows, "
        "int cols)",
        "kernel<<<grid, dim3(kTile, kBlockRows)>>>(in, out, rows, cols);",
        "const dim3 grid(cml::ceil_div(cols, kTile), cml::ceil_div(rows, kTile));",
        # Lab 6's baseline is the shared-memory tree the lab starts from (its handout shows it).
        "for (int stride = kBlock / 2; stride > 0; stride /= 2) {",
        "if (t < stride) cache[t] += cache[t + stride];",
        "__syncwarp();",  # and the barrier its handout teaches
        # Lab 7's baselines: the same Horner loop with its coefficients in global memory, so that only the memory
        # space differs; and the table look-up its CPU reference and handout spell out.
        "const float xi = x[i];",
        "float p = coefficients[count - 1];",
        "for (int k = kMaxCoefficients - 2; k >= 0; --k)",
        "if (k < count - 1) p = p * xi + coefficients[k];",
        "y[i] = p;",
        "out[i] = table[index[i]];",
        # Lab 8's baseline refuses a filter length it cannot run with the same error as the solution.
        "CML_CHECK(cudaErrorInvalidValue);",
        # Lab 9: the occupancy API's out-parameter, declared so in the emulator's test of every allowed call; the
        # CUDA limit of threads per block, which the emulator's runtime names too; and an endless loop, an idiom.
        "int blocks = 0;",
        "constexpr int kMaxThreadsPerBlock = 1024;",
        "for (;;) {",
        # Lab 12's baselines do the same work by the ordinary path: the gather's sum, and the resample's pixel, its
        # bounds and its source point (the header's function, which the skeleton's hint names).
        "float sum = 0.0f;",
        "out[i] = sum;",
        "const int x = blockIdx.x * blockDim.x + threadIdx.x;",
        "const int y = blockIdx.y * blockDim.y + threadIdx.y;",
        "if (x >= out_width || y >= out_height) return;",
        "const float2 p = source_point(t, x, y, width, height, out_width, out_height);",
    }
)


def code_of(line: str) -> str:
    return TRAILING_COMMENT.sub("", line).strip()


def code_lines(text: str) -> set[str]:
    """The lines of a source file that hold code, trailing comments cut off."""
    return {code_of(line) for line in text.splitlines() if not COMMENT.match(line) and code_of(line)}


def distinctive_lines(solution: str, skeletons: set[str]) -> set[str]:
    """A solution's lines that only a solution has: code, in no skeleton, shared with no part of the harness."""
    return {
        line
        for line in code_lines(solution) - skeletons
        if not NO_CODE_OF_ITS_OWN.match(line) and line not in SHARED_WITH_THE_HARNESS
    }


def solution_lines_in(folder: Path, solutions: list[str], skeletons: list[str]) -> dict[str, list[str]]:
    """Every file of `folder` holding a distinctive line of one of `solutions` (their texts; `skeletons`, the
    skeletons' texts): path -> those lines. A compressed file, whose lines cannot be read, is listed too."""
    shipped = set().union(*(code_lines(text) for text in skeletons))
    wanted = set().union(*(distinctive_lines(text, shipped) for text in solutions))
    found: dict[str, list[str]] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and ".git" not in p.relative_to(folder).parts):
        if path.suffix in COMPRESSED:
            found[str(path.relative_to(folder))] = ["(compressed: its text cannot be checked)"]
            continue
        lines = {code_of(line) for line in path.read_text(errors="replace").splitlines()} & wanted
        if lines:
            found[str(path.relative_to(folder))] = sorted(lines)
    return found
