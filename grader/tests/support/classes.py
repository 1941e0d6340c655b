"""A generated class: submissions that are correct, slow, racy, out of bounds, hanging, crashing, not
compiling, hard-coded for the public sizes, tampering, or unreadable, each with the verdict it must get; and
students who submit all seven labs, each lab a correct kernel in one of many published styles or a mistake that
a counter or a sanitizer shows (variants/), as most of a real class does.

    python -m grader.tests.support.classes make OUT      # OUT/submissions/ and OUT/expected.json
    ... make OUT --seven-lab N --only-seven-lab             # N seven-lab students (40 by default), alone
    python -m grader.tests.support.classes check OUT     # compares OUT/results/ (./cml batch) with it
    ... check OUT --results DIR                             # compares DIR (another batch of the same class)
"""

from __future__ import annotations

import argparse
import io
import json
import os
import tarfile
import zipfile
from pathlib import Path

from grader.calibration.variants import load_variants
from grader.core.config import REPO_ROOT, load_config
from grader.tests.support.kernels import FIXTURES_DIR, load_expect, planted_kernel

LAUNCH = "    vector_add_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(a, b, c, n);\n"


def solution(lab: str) -> str:
    return (REPO_ROOT / "solutions" / lab / "kernel.cu").read_text()


def skeleton(lab: str) -> str:
    return (REPO_ROOT / "labs" / lab / "kernel.cu").read_text()


def fixture(name: str) -> str:
    return planted_kernel(load_expect(FIXTURES_DIR / name))


def edited(lab: str, old: str, new: str) -> str:
    text = solution(lab)
    assert text.count(old) == 1, old
    return text.replace(old, new)


def hard_coded_for_public_sizes() -> str:
    """Right at every size the public tests use, silent at any other."""
    public = "0, 1, 31, 32, 33, 255, 257, 1000, 4097, 1000003, 1 << 24, (1 << 24) + 1, 1 << 20, 1 << 26"
    guard = f"    for (int size : {{{public}}})\n        if (n == size) {{\n    " + LAUNCH + "        }\n"
    return edited("01_vector_add", LAUNCH, guard)


# student -> (how it is packed, {path inside: contents}, {lab: (verdict, a check that must fail or "")})
CLASS = {
    "alice_correct": (
        "folder",
        {"01_vector_add/kernel.cu": solution("01_vector_add")},
        {"01_vector_add": ("passed", "")},
    ),
    "bob_correct_tarball": (
        "tar.gz",
        {"bob/labs/01_vector_add/kernel.cu": solution("01_vector_add")},
        {"01_vector_add": ("passed", "")},
    ),
    "carol_two_labs_zip": (
        "zip",
        {
            "01_vector_add/kernel.cu": solution("01_vector_add"),
            "06_warp_reduction/kernel.cu": solution("06_warp_reduction"),
        },
        {"01_vector_add": ("passed", ""), "06_warp_reduction": ("passed", "")},
    ),
    "dan_untouched_skeleton": (
        "folder",
        {"01_vector_add/kernel.cu": skeleton("01_vector_add")},
        {"01_vector_add": ("failed", "matches the CPU reference*")},
    ),
    "erin_slow_strided": (
        "folder",
        {"01_vector_add/kernel.cu": fixture("01_lanes_32_apart")},
        {"01_vector_add": ("failed", "speedup over lanes 32 apart")},
    ),
    "frank_out_of_bounds": (
        "folder",
        {"01_vector_add/kernel.cu": fixture("01_no_bounds_check")},
        {"01_vector_add": ("failed", "memcheck: *")},
    ),
    "grace_hangs": (
        "folder",
        {"01_vector_add/kernel.cu": fixture("01_never_returns")},
        {"01_vector_add": ("failed", "matches the CPU reference at sizes around a warp*")},
    ),
    "heidi_does_not_compile": (
        "folder",
        {"01_vector_add/kernel.cu": fixture("01_compile_error")},
        {"01_vector_add": ("failed", "build")},
    ),
    "ivan_racy_warp": (
        "folder",
        {"06_warp_reduction/kernel.cu": fixture("06_legacy_warp_unroll")},
        {"06_warp_reduction": ("failed", "racecheck: *")},
    ),
    "judy_racy_tree": (
        "folder",
        {"02_dot_product/kernel.cu": fixture("02_no_syncthreads")},
        {"02_dot_product": ("failed", "racecheck: *")},
    ),
    "ken_atomic_per_element": (
        "folder",
        {"02_dot_product/kernel.cu": fixture("02_atomic_per_element")},
        {"02_dot_product": ("failed", "speedup over one atomicAdd per element")},
    ),
    "leo_edits_tests_and_thresholds": (
        "folder",
        {
            "01_vector_add/kernel.cu": fixture("01_lanes_32_apart"),
            "tests/01_vector_add/test.cpp": "int main() { return 0; }  // every test passes now\n",
            "grader/targets/h100.toml": '[device]\ndescription = "H100"\nmatch = ["H100"]\n[lab.01_vector_add]\nmin_speedup = 0.1\n',
        },
        {"01_vector_add": ("failed", "speedup over lanes 32 apart")},
    ),
    "mia_redefines_compare": (
        "folder",
        {
            "01_vector_add/kernel.cu": solution("01_vector_add")
            + (
                '\n#include "cml/compare.hpp"\nnamespace cml {\n'
                "Comparison compare(const std::vector<float>&, const std::vector<double>&, Tolerance) { return {true}; }\n}\n"
            )
        },
        {"01_vector_add": ("failed", "integrity: *")},
    ),
    # The include names no file the compile can read (its sandbox has no solutions/), so the build fails; a
    # file that is found is named by the integrity check (grader/tests/steps/test_integrity.py).
    "nick_includes_the_solution": (
        "folder",
        {"01_vector_add/kernel.cu": '#include "../../solutions/01_vector_add/kernel.cu"\n'},
        {"01_vector_add": ("failed", "build")},
    ),
    "olivia_calls_cublas": (
        "folder",
        {"04_tiled_gemm/kernel.cu": "#include <cublas_v2.h>\n" + solution("04_tiled_gemm")},
        {"04_tiled_gemm": ("failed", "integrity: *")},
    ),
    "pat_uses_thrust": (
        "folder",
        {"02_dot_product/kernel.cu": "#include <thrust/inner_product.h>\n" + solution("02_dot_product")},
        {"02_dot_product": ("failed", "integrity: *")},
    ),
    "quinn_hard_codes_public_sizes": (
        "folder",
        {"01_vector_add/kernel.cu": hard_coded_for_public_sizes()},
        {"01_vector_add": ("failed", "matches the CPU reference at the sizes the grader drew*")},
    ),
    "rita_crashes": (
        "folder",
        {"01_vector_add/kernel.cu": edited("01_vector_add", LAUNCH, "    *(volatile int*)nullptr = n;\n" + LAUNCH)},
        {"01_vector_add": ("failed", "matches the CPU reference*")},
    ),
    "sam_two_copies": (
        "folder",
        {
            "01_vector_add/kernel.cu": solution("01_vector_add"),
            "old/attempt/01_vector_add/kernel.cu": skeleton("01_vector_add"),
        },
        {"01_vector_add": ("passed", "")},
    ),
    "uma_unpadded_tile": (
        "folder",
        {"05_padded_transpose/kernel.cu": fixture("05_no_padding")},
        {"05_padded_transpose": ("failed", "ncu: shared-memory bank conflicts*")},
    ),
    "victor_correct_warp": (
        "folder",
        {"06_warp_reduction/kernel.cu": solution("06_warp_reduction")},
        {"06_warp_reduction": ("passed", "")},
    ),
    "wendy_symlink_to_solution": (
        "symlink",
        {"01_vector_add/kernel.cu": str(REPO_ROOT / "solutions/01_vector_add/kernel.cu")},
        {"01_vector_add": ("not submitted", "")},
    ),
    "xavier_corrupt_zip": ("bytes.zip", {"": "PK\x03\x04 this is not really a zip"}, {}),
}


SEVEN_LAB_STUDENTS = 40
PACKINGS = ("folder", "zip", "tar.gz")


def lab_choices(lab: str) -> list[tuple[str, tuple[str, str]]]:
    """What a seven-lab student may hand in for `lab`, with the verdict it must get: the reference solution, every
    correct variant, and every wrong one whose lesson a counter, racecheck or the compiler's report shows (on every GPU
    and the emulator alike; a lesson that only time shows is graded on some GPUs and not others, and the variants' own
    survey judges those)."""
    choices = [(solution(lab), ("passed", ""))]
    for variant in load_variants():
        if variant.lab != lab:
            continue
        if variant.kind == "correct":
            choices.append((variant.path.read_text(), ("passed", "")))
        elif variant.lesson_shows_in in ("counter", "racecheck", "resources", "machine code"):
            choices.append((variant.path.read_text(), ("failed", variant.must_fail)))
    return choices


def seven_lab_students(count: int) -> dict[str, tuple[str, dict[str, str], dict[str, tuple[str, str]]]]:
    """`count` students who each submit every lab, in the layout CLASS uses. Student i hands in choice
    (i + 3 * lab's index) of each lab's choices, so that the class goes through every choice of every lab and no
    two neighbours hand in the same set; they come as folders, zips and tarballs in turn."""
    labs = [lab.name for lab in load_config().labs]
    choices = {lab: lab_choices(lab) for lab in labs}
    students = {}
    for i in range(count):
        files, wanted = {}, {}
        for index, lab in enumerate(labs):
            text, verdict = choices[lab][(i + 3 * index) % len(choices[lab])]
            files[f"{lab}/kernel.cu"] = text
            wanted[lab] = verdict
        students[f"full_{i + 1:02d}"] = (PACKINGS[i % len(PACKINGS)], files, wanted)
    return students


def write(student: str, packing: str, files: dict[str, str], folder: Path) -> None:
    if packing in ("folder", "symlink"):
        for name, text in files.items():
            path = folder / student / name
            path.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(text, path) if packing == "symlink" else path.write_text(text)
    elif packing == "tar.gz":
        with tarfile.open(folder / f"{student}.tar.gz", "w:gz") as archive:
            for name, text in files.items():
                data = text.encode()
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    elif packing == "zip":
        with zipfile.ZipFile(folder / f"{student}.zip", "w") as archive:
            for name, text in files.items():
                archive.writestr(name, text)
    else:  # raw bytes under an archive's name
        (folder / f"{student}.zip").write_text(files[""])


def make(
    out: Path, students: list[str] | None = None, seven_lab: int = SEVEN_LAB_STUDENTS, only_seven_lab: bool = False
) -> Path:
    """OUT/submissions/ and OUT/expected.json: the students named (all by default) of CLASS and of `seven_lab`
    seven-lab students; with only_seven_lab, those alone."""
    folder = out / "submissions"
    folder.mkdir(parents=True, exist_ok=True)
    everyone = {**({} if only_seven_lab else CLASS), **(seven_lab_students(seven_lab) if seven_lab else {})}
    chosen = {k: v for k, v in everyone.items() if students is None or k in students}
    for student, (packing, files, _) in chosen.items():
        write(student, packing, files, folder)
    expected = {student: wanted for student, (_, _, wanted) in chosen.items()}
    (out / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    return folder


def mismatches(out: Path, results: Path | None = None) -> list[str]:
    """Every student whose batch result differs from what it must be; [] when all are right. `results`: the
    batch's folder (OUT/results by default)."""
    results = results or out / "results"
    expected = json.loads((out / "expected.json").read_text())
    rows = {row["student"]: row for row in json.loads((results / "results.json").read_text())}
    wrong = []
    for student, labs in expected.items():
        row = rows.get(student)
        if row is None:
            wrong.append(f"{student}: no row")
        elif not labs and "unreadable" not in row.get("notes", ""):
            wrong.append(f"{student}: should be unreadable, got {row}")
        for lab, (verdict, check) in labs.items():
            cell = row.get(f"{lab}_verdict", "") if row else ""  # results.json's row: a lab's verdict cell
            if cell != verdict:
                wrong.append(f"{student} {lab}: want {verdict}, got {cell!r}")
            elif check:
                grade = json.loads((results / "students" / student / "grade.json").read_text())
                checks = [c for entry in grade["labs"] if entry["lab"] == lab for c in entry["checks"]]
                names = [c["name"] for c in checks if c["status"] == "failed"]
                if not any(n == check or (check.endswith("*") and n.startswith(check[:-1])) for n in names):
                    wrong.append(f"{student} {lab}: want {check!r} failed; failed: {names}")
    return wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("make", "check"))
    parser.add_argument("where", type=Path, help="the class's folder")
    parser.add_argument("--seven-lab", type=int, default=SEVEN_LAB_STUDENTS, help="seven-lab students to make")
    parser.add_argument("--only-seven-lab", action="store_true", help="make the seven-lab students alone")
    parser.add_argument("--results", type=Path, help="check: the batch's folder (default: WHERE/results)")
    args = parser.parse_args()
    if args.command == "make":
        print(make(args.where, seven_lab=args.seven_lab, only_seven_lab=args.only_seven_lab))
        return 0
    problems = mismatches(args.where, args.results)
    print(
        "\n".join(problems) or f"all {len(json.loads((args.where / 'expected.json').read_text()))} verdicts as expected"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
