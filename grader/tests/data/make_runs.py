"""Makes the saved runs the export tests read, with the grader's own write_json and score (run it again when
either changes the shape of a run):  .venv/bin/python -m grader.tests.data.make_runs

h100-run.json: labs measured on a lent H100 (results/h100-grade.json), scored again with today's labs.toml,
plus a Lab 2 whose build failed (made up: compiler output with <, > and & in it). no-gpu-run.json: two labs
graded on a machine without a GPU (made up), so nothing was measured. The seconds are made up as well: the
H100 run predates LabGrade.seconds."""

from __future__ import annotations

import json
from pathlib import Path

from grader.core.config import REPO_ROOT, load_config, load_target
from grader.core.model import BenchResult, Category, Check, KernelTiming, LabGrade, Status
from grader.reporting.report import write_json
from grader.reporting.score import score

DATA = Path(__file__).resolve().parent
H100_RUN = REPO_ROOT / "results" / "h100-grade.json"
KEEP = [  # (lab, variant, made-up seconds): a failing skeleton, partial points, stretch goals, groups, GFLOP/s
    ("01_vector_add", "student", 38.2),
    ("01_vector_add", "solution", 41.7),
    ("03_smoothing_halo", "solution", 96.4),
    ("04_tiled_gemm", "student", 71.9),
    ("05_padded_transpose", "solution", 64.0),
    ("07_constant_memory", "solution", 58.3),
]
SEED = 20261123
COMPILER_OUTPUT = """kernel.cu(31): error: expected a ";"
      float sum = a[i] * b[i]
                             ^
kernel.cu(44): error: no instance of function template "std::max<T>" matches the argument list
            argument types are: (float, double) && (int)

2 errors detected in the compilation of "kernel.cu"."""


def lab_grade(entry: dict, lab) -> LabGrade:
    grade = LabGrade(entry["lab"], entry["title"], entry["variant"], entry["kernel_path"])
    grade.checks = [
        Check(c["name"], Category(c["category"]), Status(c["status"]), c["detail"], c["hint"]) for c in entry["checks"]
    ]
    if entry["bench"]:
        bench = entry["bench"]
        kernels = [KernelTiming(**k) for k in bench["kernels"]]
        grade.bench = BenchResult(bench["device"], bench["copy_gbps"], bench["problem"], kernels)
        grade.rates = grade.bench.rates(lab.memory_bound)
    return grade


def broken_build() -> LabGrade:
    grade = LabGrade(
        "02_dot_product",
        "Dot product: a tree in shared memory, and the cost of atomics",
        "student",
        "submission/02_dot_product/kernel.cu",
    )
    hint = "fix submission/02_dot_product/kernel.cu until it compiles; the other labs are graded anyway"
    grade.checks = [Check("build", Category.BUILD, Status.FAILED, COMPILER_OUTPUT, hint)]
    return grade


def without_gpu(lab, reason: str) -> LabGrade:
    grade = LabGrade(lab.name, lab.title, "student", f"submission/{lab.name}/kernel.cu")
    grade.checks = [Check("build", Category.BUILD, Status.PASSED)]
    grade.checks += [Check(f"correctness tests of {lab.name}", Category.CORRECTNESS, Status.NOT_RUN, reason)]
    grade.checks += [Check(m.name, Category.MECHANISM, Status.NOT_RUN, reason) for m in lab.mechanisms]
    grade.checks += [Check(lab.speedup_check(), Category.PERFORMANCE, Status.NOT_RUN, reason)]
    return grade


def finish(grade: LabGrade, lab, seconds: float) -> LabGrade:
    grade.seconds, grade.seed = seconds, SEED
    return score(grade, lab.points)


def main() -> None:
    config = load_config()
    saved = json.loads(H100_RUN.read_text())
    entries = {(e["lab"], e["variant"]): e for e in saved["labs"]}
    grades = [finish(lab_grade(entries[lab, variant], config.lab(lab)), config.lab(lab), s) for lab, variant, s in KEEP]
    grades.insert(2, finish(broken_build(), config.lab("02"), 12.6))
    target = load_target(REPO_ROOT / "grader" / "targets" / "h100.toml")
    context = {
        "device": saved["device"],
        "gpu_reason": None,
        "target": "grader/targets/h100.toml",
        "student": "ada.lovelace",
        "seed": SEED,
    }
    write_json(DATA / "h100-run.json", grades, context, target)

    reason = "no NVIDIA GPU here: nvidia-smi not found"
    labs = [(config.lab("01"), 9.8), (config.lab("03"), 11.2)]
    grades = [finish(without_gpu(lab, reason), lab, seconds) for lab, seconds in labs]
    context = {"device": None, "gpu_reason": reason, "target": None, "seed": SEED}
    write_json(DATA / "no-gpu-run.json", grades, context)


if __name__ == "__main__":
    main()
