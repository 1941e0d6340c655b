"""Each case of the suite graded by two checkouts of the grader, side by side: its verdict and every check's
status in each, and whether they agree. For the verdicts before and after a change to how a grade is made.

Usage:
    PYTHONPATH=. .venv/bin/python tools/verdict_table.py BEFORE AFTER [--only attacks,fixtures,...] > table.md

BEFORE and AFTER are checkouts that have each run ./cml once (their install). The cases are those of this
checkout's suite that a grade of a submission makes on the CPU emulator: the attacks (with every defence on),
the planted fixtures that need no GPU, the variants graded on the emulator, every solution and every skeleton;
each is graded as a submission, with its suite's seed, by `./cml grade` of each checkout in turn."""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.core.config import REPO_ROOT, load_config

SEED = 20261123  # the suite's: grader/tests/cases/test_attacks.py, test_fixtures.py, test_variants_emulator.py


@dataclass
class Case:
    suite: str
    name: str
    lab: str
    kernel: bytes
    mechanisms: bool = True


def attacks() -> list[Case]:
    from grader.tests.attacks import load_attacks, needs_mechanisms

    found = []
    for attack in load_attacks():
        wanted = [p for key in ("fail", "pass", "emulator_fail") for p in attack.spec.get(key, [])]
        mechanisms = needs_mechanisms(wanted)
        if "lto_assembler_option" in attack.spec or attack.spec.get("solution_first"):
            continue  # made anew by this machine's gcc, or graded beside the solution: not a plain submission
        found.append(Case("attacks", attack.name, attack.lab, attack.kernel().encode(), mechanisms))
    return found


def fixtures() -> list[Case]:
    from grader.tests.support.kernels import fixture_dirs, load_expect, planted_kernel

    found = []
    for folder in fixture_dirs():
        expect = load_expect(folder)
        if not expect.get("needs_gpu", True):
            found.append(Case("fixtures", folder.name, expect["lab"], planted_kernel(expect).encode()))
    return found


def variants() -> list[Case]:
    graded = graded_variants()
    listed = tomllib.loads((REPO_ROOT / "variants" / "variants.toml").read_text())["variant"]
    found = []
    for entry in listed:
        name = Path(entry["file"]).stem
        if name in graded.get(entry["lab"], []):
            kernel = (REPO_ROOT / "variants" / entry["file"]).read_bytes()
            found.append(Case("variants", f"{entry['lab']}__{name}", entry["lab"], kernel))
    return found


def graded_variants() -> dict[str, list[str]]:
    """GRADED of grader/tests/cases/test_variants_emulator.py, read as data (the test module is not imported)."""
    module = ast.parse((REPO_ROOT / "grader" / "tests" / "cases" / "test_variants_emulator.py").read_text())
    for node in module.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "GRADED" for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit("test_variants_emulator.py has no GRADED")


def labs_of(folder: str) -> list[Case]:
    return [
        Case(folder, lab.name, lab.name, (REPO_ROOT / folder / lab.name / "kernel.cu").read_bytes())
        for lab in load_config().labs
    ]


SUITES = {
    "attacks": attacks,
    "fixtures": fixtures,
    "variants": variants,
    "solutions": lambda: labs_of("solutions"),
    "skeletons": lambda: labs_of("labs"),
}


def graded(checkout: Path, case: Case, scratch: Path) -> dict | None:
    """The case's lab entry as `checkout` grades it; None where it made no grade."""
    submission = scratch / "submission"
    (submission / case.lab).mkdir(parents=True, exist_ok=True)
    (submission / case.lab / "kernel.cu").write_bytes(case.kernel)
    results = scratch / "grade.json"
    results.unlink(missing_ok=True)
    command = ["./cml", "grade", "--submission", str(submission), "--lab", case.lab, "--seed", str(SEED)]
    command += ["--json", str(results)] + ([] if case.mechanisms else ["--no-mechanisms"])
    subprocess.run(command, cwd=checkout, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    try:
        return next(lab for lab in json.loads(results.read_text())["labs"] if lab["variant"] == "student")
    except (OSError, ValueError, StopIteration):
        return None


def statuses(lab: dict | None) -> tuple[str, dict[str, str]]:
    if lab is None:
        return "no grade", {}
    return lab["verdict"], {check["name"]: check["status"] for check in lab["checks"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--only", default=",".join(SUITES))
    args = parser.parse_args()
    print("| suite | case | before | after | every check's status |")
    print("|---|---|---|---|---|")
    differing = 0
    for suite in args.only.split(","):
        for case in SUITES[suite]():
            with tempfile.TemporaryDirectory(prefix="cml-verdicts-") as scratch:
                before = statuses(graded(args.before, case, Path(scratch) / "before"))
                after = statuses(graded(args.after, case, Path(scratch) / "after"))
            moved = {name for name in before[1].keys() | after[1].keys() if before[1].get(name) != after[1].get(name)}
            same = (
                "the same"
                if not moved and before[0] == after[0]
                else "moved: "
                + "; ".join(
                    f"{name}: {before[1].get(name, '-')} -> {after[1].get(name, '-')}" for name in sorted(moved)
                )
            )
            differing += same != "the same"
            print(f"| {suite} | {case.name} | {before[0]} | {after[0]} | {same} |")
            sys.stdout.flush()
    print(f"\n{differing} case(s) differ.")


if __name__ == "__main__":
    main()
