"""The measured numbers the pictures are drawn from: the H100 calibration (a Markdown file of tables) and the
grader's JSON results (the reference solutions' run in results/, and the learner's own in .results/)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.recorded import load_grade

Row = dict[str, str]


def number(cell: str) -> float:
    """The first number in a table cell: '1039 (x225 over atomics)' -> 1039.0, '~6100' -> 6100.0."""
    match = re.search(r"-?\d[\d,]*(\.\d+)?", cell)
    if not match:
        raise ValueError(f"no number in {cell!r}")
    return float(match.group(0).replace(",", ""))


@dataclass
class Calibration:
    path: Path
    sms: int
    clock_ghz: float
    sections: dict[str, list[list[Row]]] = field(default_factory=dict)  # heading -> its tables

    def table(self, heading_start: str, index: int = 0) -> list[Row]:
        for heading, tables in self.sections.items():
            if heading.startswith(heading_start):
                return tables[index]
        raise KeyError(f"{self.path}: no section starting with {heading_start!r}")

    def row(self, heading_start: str, first_cell_start: str, index: int = 0) -> Row:
        for row in self.table(heading_start, index):
            if next(iter(row.values())).startswith(first_cell_start):
                return row
        raise KeyError(f"{self.path}: no row {first_cell_start!r} under {heading_start!r}")

    @property
    def copy_gbps(self) -> float:
        return number(self.row("Physical limit", "cudaMemcpy")["GB/s"])

    @property
    def fp32_peak_gflops(self) -> float:
        """132 SMs x 128 FP32 lanes x 2 flops per FMA x the SM clock: derived, not measured."""
        return self.sms * 128 * 2 * self.clock_ghz


def read_calibration(path: Path) -> Calibration:
    text = path.read_text()
    sms = int(re.search(r"(\d+) SMs", text).group(1))
    clock = number(re.search(r"SM clock (\d+) MHz", text).group(1)) / 1000
    calibration = Calibration(path, sms, clock)
    heading, header, rows = "", None, None
    for line in text.splitlines() + [""]:
        if line.startswith("## "):
            heading = line[3:].strip()
            calibration.sections.setdefault(heading, [])
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header, rows = cells, []
            elif not set("".join(cells)) <= set("-: "):
                rows.append(dict(zip(header, cells, strict=False)))
        elif header is not None:
            calibration.sections[heading].append(rows)
            header = None
    return calibration


@dataclass
class Kernel:
    name: str
    role: str
    group: str
    gbps: float
    gflops: float
    spread: float
    correct: bool


@dataclass
class Bench:
    lab: str
    copy_gbps: float
    kernels: list[Kernel]

    def kernel(self, name: str, group: str = "") -> Kernel:
        for k in self.kernels:
            if k.name == name and k.group == group:
                return k
        raise KeyError(f"lab {self.lab}: no kernel {name!r} in group {group!r}")


def read_grade(path: Path, variant: str) -> dict[str, Bench]:
    """Lab -> its benchmark, for one variant ('solution' or 'student'); labs that were not timed are left out."""
    benches = {}
    for lab in load_grade(path).labs:
        if lab.variant != variant or not lab.bench or not lab.bench.kernels:
            continue
        kernels = [
            Kernel(k.name, k.role, k.group, k.gbps, k.gflops, k.spread, k.correct and k.attempted)
            for k in lab.bench.kernels
        ]
        benches[lab.lab] = Bench(lab.lab, lab.bench.copy_gbps, kernels)
    return benches
