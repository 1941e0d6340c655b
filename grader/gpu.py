"""What this machine has: a GPU (and which), compute-sanitizer, ncu."""

from __future__ import annotations

import glob
import shutil
from dataclasses import dataclass
from pathlib import Path

from grader import proc

CUDA_HOME = Path("/usr/local/cuda")
# __syncwarp, the *_sync shuffles and independent thread scheduling (Lab 6) need Volta or later; CUDA 13
# itself builds for nothing older than Turing (7.5).
MIN_COMPUTE_CAPABILITY = (7, 5)


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
    if tuple(int(part) for part in capability.split(".")) < MIN_COMPUTE_CAPABILITY:
        wanted = ".".join(map(str, MIN_COMPUTE_CAPABILITY))
        return Gpu(
            False,
            name=name,
            compute_capability=capability,
            reason=f"{name} has compute capability {capability}; CUDA 13 and these labs need {wanted} or newer",
        )
    return Gpu(True, name=name, compute_capability=capability)


def gpu_count() -> int:
    """How many GPUs nvidia-smi lists (0 without a driver)."""
    nvidia_smi = shutil.which("nvidia-smi")
    if not nvidia_smi:
        return 0
    outcome = proc.run([nvidia_smi, "-L"], timeout_s=60)
    return sum(line.startswith("GPU ") for line in outcome.stdout.splitlines()) if outcome.ok else 0


def find_tool(name: str) -> Path | None:
    """compute-sanitizer or ncu: on PATH, or where the CUDA toolkit and Nsight Compute install them."""
    found = shutil.which(name)
    if found:
        return Path(found)
    candidates = [CUDA_HOME / "bin" / name, CUDA_HOME / "compute-sanitizer" / name]
    candidates += [Path(p) for p in sorted(glob.glob(f"/opt/nvidia/nsight-compute/*/{name}"), reverse=True)]
    return next((c for c in candidates if c.is_file()), None)
