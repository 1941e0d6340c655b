"""The attack submissions (one folder each, with attack.toml): kernels written to cheat the grader or harm the
machine that grades them, each with the verdict it must get. grader/tests/cases/test_attacks.py grades them; what
each defends against, and what is left, is in SECURITY.md."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.core.config import REPO_ROOT
from grader.tests.attacks import lto

ATTACKS_DIR = Path(__file__).resolve().parent
VICTIMS = Path("/tmp/cml-attack")  # what the attacks aim at, planted by the tests (never the checkout itself)


@dataclass
class Attack:
    name: str
    spec: dict  # attack.toml

    @property
    def lab(self) -> str:
        return self.spec["lab"]

    def kernel(self) -> str:
        """The attack's kernel.cu: the lab's solution with the edits of attack.toml, or a whole file of its own."""
        if "whole" in self.spec:
            return "".join(part["text"] for part in self.spec["whole"]).replace("@REPO@", str(REPO_ROOT))
        text = (REPO_ROOT / "solutions" / self.lab / "kernel.cu").read_text()
        for edit in self.spec.get("replace", []):
            if text.count(edit["old"]) != 1:
                raise ValueError(f"{self.name}: an edit must match the solution once:\n{edit['old']}")
            text = text.replace(edit["old"], edit["new"])
        before = "".join(part["text"] for part in self.spec.get("prepend", []))
        after = "".join(part["text"] for part in self.spec.get("append", []))
        if "lto_assembler_option" in self.spec:  # compiler IR, made by this machine's gcc (lto.py)
            after += lto.as_inline_assembly(lto.ir_sections(self.spec["lto_assembler_option"]))
        return before + text + after

    def write_submission(self, folder: Path) -> Path:
        kernel = folder / self.lab / "kernel.cu"
        kernel.parent.mkdir(parents=True, exist_ok=True)
        kernel.write_text(self.kernel())
        return folder


# The tools of the checks that run only with the mechanisms on, as their names begin.
MECHANISM_TOOLS = ("racecheck", "memcheck", "ncu", "synccheck", "initcheck", "resources", "schedule", "machine code")


def needs_mechanisms(patterns: list[str]) -> bool:
    """Whether an attack expecting these checks' names must be graded with the mechanisms on."""
    return any(pattern.startswith(MECHANISM_TOOLS) for pattern in patterns)


def load_attacks() -> list[Attack]:
    return [
        Attack(path.parent.name, tomllib.loads(path.read_text())) for path in sorted(ATTACKS_DIR.glob("*/attack.toml"))
    ]
