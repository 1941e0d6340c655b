"""What this machine has: a GPU (and which), compute-sanitizer, ncu."""

from __future__ import annotations

import glob
import shutil
from dataclasses import dataclass
from pathlib import Path

from grader import proc

CUDA_HOME = Path("/usr/local/cuda")


@dataclass
class Gpu:
    present: bool
    name: str = ""
    compute_capability: str = ""  # "9.0"
    reason: str = ""  # why none is usable, when not present


def detect_gpu() -> Gpu:
    nvidia_smi = shutil.which("nvidia-smi")
    if not nvidia_smi:
        return Gpu(False, reason="nvidia-smi not found: this machine has no NVIDIA driver")
    outcome = proc.run([nvidia_smi, "--query-gpu=name,compute_cap", "--format=csv,noheader"], timeout_s=60)
    lines = [line for line in outcome.stdout.splitlines() if line.strip()]
    if not outcome.ok or not lines:
        return Gpu(False, reason=f"nvidia-smi found no usable GPU ({outcome.how_it_ended()}: {outcome.tail(2)})")
    name, capability = (part.strip() for part in lines[0].split(",", 1))
    return Gpu(True, name=name, compute_capability=capability)


def find_tool(name: str) -> Path | None:
    """compute-sanitizer or ncu: on PATH, or where the CUDA toolkit and Nsight Compute install them."""
    found = shutil.which(name)
    if found:
        return Path(found)
    candidates = [CUDA_HOME / "bin" / name, CUDA_HOME / "compute-sanitizer" / name]
    candidates += [Path(p) for p in sorted(glob.glob(f"/opt/nvidia/nsight-compute/*/{name}"), reverse=True)]
    return next((c for c in candidates if c.is_file()), None)
