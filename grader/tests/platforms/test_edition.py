"""The student edition (./cml edition student OUT): what it leaves out and why, the proof that no solution's text
is left in it, and, slow, an edition made from a fresh clone that grades a skeleton on the CPU emulator."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grader import cli
from grader.core.config import REPO_ROOT
from grader.core.exits import Exit, GraderError
from grader.platforms import edition

SOLUTION = """// Lab 1 reference solution
#include "vector_add.hpp"
__global__ void vector_add_kernel(const float* a, const float* b, float* c, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    c[i] = a[i] + b[i] * 1.0f;  // the line only the solution has
}
"""
SKELETON = """// Lab 1
#include "vector_add.hpp"
__global__ void vector_add_kernel(const float* a, const float* b, float* c, int n)
{
    // TODO 1: c[i] = a[i] + b[i] * 1.0f;
}
"""
DECK = """# Lab 1

## The idea

- neighbouring lanes, neighbouring floats

## The code

```{literalinclude} code/01_vector_add.cu
:start-at: const int i
```

## Pitfalls

```text
## not a heading: inside a code block
```
"""


@pytest.mark.parametrize(
    "path, action",
    [
        ("solutions/01_vector_add/kernel.cu", edition.DROP),
        ("variants/04_tiled_gemm/tiled_a_and_b_32x32.cu", edition.DROP),
        ("grader/tests/attacks/01_floods_the_output/attack.toml", edition.DROP),
        ("grader/tests/fixtures/02_no_reset/expect.toml", edition.DROP),
        ("grader/tests/kernels/02_dot_product_cooperative_groups.cu", edition.DROP),
        ("results/h100-2026-11-25b/variants-43.tar.xz", edition.DROP),
        ("results/h100-grade.json", edition.KEEP),
        ("results/h100.md", edition.KEEP),
        ("results/calibration/h200-variants.md", edition.KEEP),
        ("results/calibration/h100-calibrate.log", edition.DROP),
        ("results/access/lab05-unpadded-tile.png", edition.KEEP),
        ("slides/decks/02_dot_product.md", edition.STRIP_CODE_SLIDES),
    ],
)
def test_each_path_meets_its_rule(path, action):
    rule = edition.action_for(path)
    assert rule is not None and rule.action == action and rule.why


@pytest.mark.parametrize(
    "path",
    ["labs/01_vector_add/kernel.cu", "tests/01_vector_add/baseline.cu", "grader/tests/attacks/lto.py", "cml"],
)
def test_what_a_student_grades_with_is_kept(path):
    assert edition.action_for(path) is None


# A path under results/ as a document names it (not .results/, the grader's own output folder).
CITED_RESULT = re.compile(r"(?<![\w./-])results/[\w./-]*[\w/]")
STUDENTS_DOCUMENTS = ["README.md", *(str(p.relative_to(REPO_ROOT)) for p in sorted(REPO_ROOT.glob("labs/*/README.md")))]
STUDENTS_DOCUMENTS += [str(p.relative_to(REPO_ROOT)) for p in sorted(REPO_ROOT.glob("slides/decks/*.md"))]


def shipped(path: Path) -> bool:
    """The student edition holds this file of the repository."""
    rule = edition.action_for(str(path.relative_to(REPO_ROOT)))
    return path.is_file() and (rule is None or rule.action != edition.DROP)


@pytest.mark.parametrize("document", STUDENTS_DOCUMENTS)
def test_every_results_page_a_students_document_cites_ships_in_the_student_edition(document):
    for cited in sorted(set(CITED_RESULT.findall((REPO_ROOT / document).read_text()))):
        where = REPO_ROOT / cited
        files = list(where.rglob("*")) if where.is_dir() else [where]
        assert any(shipped(f) for f in files), f"{document} cites {cited}, which the student edition does not hold"


def test_code_slides_are_taken_out_and_every_other_slide_kept():
    kept = edition.strip_code_slides(DECK)
    assert "literalinclude" not in kept and "## The code\n" not in kept
    assert "## The idea" in kept and "## Pitfalls" in kept and "## not a heading" in kept


def test_a_solutions_distinctive_line_is_found_and_its_shared_lines_are_not(tmp_path):
    (tmp_path / "notes.md").write_text("    c[i] = a[i] + b[i] * 1.0f;\n")
    (tmp_path / "baseline.cu").write_text("const int i = blockIdx.x * blockDim.x + threadIdx.x;\n}\n")
    (tmp_path / "old.tar.xz").write_bytes(b"\xfd7zXZ")
    found = edition.solution_lines_in(tmp_path, [SOLUTION], [SKELETON])
    assert found == {
        "notes.md": ["c[i] = a[i] + b[i] * 1.0f;"],  # the trailing comment is no part of the line's code
        "old.tar.xz": ["(compressed: its text cannot be checked)"],
    }


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def small_kit(root: Path, extra: dict[str, str] | None = None) -> Path:
    """A git repository with the kit's shape in miniature: a skeleton, its solution, a record, a deck."""
    files = {
        "labs/01_vector_add/kernel.cu": SKELETON,
        "solutions/01_vector_add/kernel.cu": SOLUTION,
        "results/h100-2026-11-25b/grade.json": json.dumps({"source": SOLUTION}),
        "slides/decks/01_vector_add.md": DECK,
        **(extra or {}),
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "kit")
    return root


def test_the_edition_is_the_commit_less_the_solutions_in_one_fresh_commit(tmp_path):
    kit = small_kit(tmp_path / "kit")
    (kit / "labs/01_vector_add/kernel.cu").write_text(SOLUTION)  # uncommitted: a solution typed into the skeleton
    (kit / "draft.cu").write_text(SOLUTION)
    out = tmp_path / "edition"
    made = edition.write_student_edition(out, kit, make_git=True)
    assert sorted(made.kept) == ["labs/01_vector_add/kernel.cu", "slides/decks/01_vector_add.md"]
    assert set(made.dropped) == {"solutions/01_vector_add/kernel.cu", "results/h100-2026-11-25b/grade.json"}
    assert made.stripped == ["slides/decks/01_vector_add.md"]
    assert made.uncommitted == [" M labs/01_vector_add/kernel.cu", "?? draft.cu"]
    assert (out / "labs/01_vector_add/kernel.cu").read_text() == SKELETON
    assert not (out / "solutions").exists() and not (out / "results").exists() and not (out / "draft.cu").exists()
    assert len(git(out, "log", "--format=%H").split()) == 1 and git(out, "status", "--porcelain") == ""
    with pytest.raises(ValueError, match="not an empty folder"):
        edition.write_student_edition(out, kit)


def test_an_edition_still_holding_a_solutions_line_is_refused_before_any_commit(tmp_path):
    kit = small_kit(tmp_path / "kit", {"docs/answers.md": "The trick: `c[i] = a[i] + b[i] * 1.0f;`\n\n" + SOLUTION})
    out = tmp_path / "edition"
    with pytest.raises(GraderError, match="docs/answers.md"):
        edition.write_student_edition(out, kit, make_git=True)
    assert not (out / ".git").exists()


@pytest.mark.parametrize("flag", ["--solutions", "--compare"])
def test_grading_the_solutions_of_an_edition_without_them_is_a_usage_error_in_one_line(flag, monkeypatch, capsys):
    monkeypatch.setattr(edition, "has_solutions", lambda root=REPO_ROOT: False)
    assert cli.main(["grade", flag, "--lab", "1"]) == Exit.USAGE
    said = capsys.readouterr().err.strip()
    assert len(said.splitlines()) == 1 and edition.NO_SOLUTIONS in said


@pytest.mark.slow
@pytest.mark.needs_solutions
def test_an_edition_of_a_fresh_clone_grades_the_skeleton_and_holds_no_solution_text(tmp_path):
    clone, out = tmp_path / "clone", tmp_path / "student"
    subprocess.run(["git", "clone", "-q", str(REPO_ROOT), str(clone)], check=True)
    git(clone, "checkout", "-q", "--detach", git(REPO_ROOT, "rev-parse", "HEAD").strip())
    # Each command runs in its own checkout: ./cml's CML_ROOT, naming this one, is not passed on.
    env = {k: v for k, v in os.environ.items() if not k.startswith("CML_")}
    made = subprocess.run(
        [sys.executable, "-m", "grader", "edition", "student", str(out), "--git"],
        cwd=clone,
        capture_output=True,
        text=True,
        env=env,
    )
    assert made.returncode == Exit.PASSED, made.stdout + made.stderr
    assert "differs from HEAD" not in made.stdout  # a fresh clone has no uncommitted change
    assert not (out / "solutions").exists() and not (out / "variants").exists()
    assert git(out, "status", "--porcelain") == "" and len(git(out, "log", "--format=%H").split()) == 1

    solutions = [p.read_text() for p in sorted((REPO_ROOT / "solutions").rglob("*")) if p.is_file()]
    skeletons = [p.read_text() for p in sorted((REPO_ROOT / "labs").glob("*/kernel.cu"))]
    assert solutions and edition.solution_lines_in(out, solutions, skeletons) == {}

    # What ./cml installs, shared with this checkout's rather than downloaded again (both are git-ignored).
    for installed in (".venv", ".deps"):
        (out / installed).symlink_to(REPO_ROOT / installed)
    refused = subprocess.run(["./cml", "grade", "--solutions"], cwd=out, capture_output=True, text=True, env=env)
    assert refused.returncode == Exit.USAGE and edition.NO_SOLUTIONS in refused.stderr, refused.stderr
    graded = subprocess.run(["./cml", "grade", "--lab", "1"], cwd=out, capture_output=True, text=True, env=env)
    # The skeleton computes nothing: its correctness checks fail on the emulator, and a failed lab exits 1.
    assert graded.returncode == Exit.FAILED, graded.stdout[-3000:] + graded.stderr[-3000:]
    (lab,) = json.loads((out / ".results" / "grade.json").read_text())["labs"]
    statuses = {check["name"]: check["status"] for check in lab["checks"]}
    assert statuses["build"] == "passed" and lab["variant"] == "student"
    assert any(name.startswith("matches the CPU reference") and status == "failed" for name, status in statuses.items())
    assert "(CPU emulator)" in graded.stdout
