"""What this machine has: a GPU (and which), compute-sanitizer, ncu."""

from __future__ import annotations

import glob
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from grader.execution import proc

CUDA_HOME = Path("/usr/local/cuda")
# __syncwarp, the *_sync shuffles and independent thread scheduling (Lab 6) need Volta or later; CUDA 13
# itself builds for nothing older than Turing (7.5).
MIN_COMPUTE_CAPABILITY = (7, 5)


@dataclass
class Gpu:
    present: bool
    name: str = ""
    compute_capability: str = ""  # "9.0"
    uuid: str = ""  # the card itself, however CUDA_VISIBLE_DEVICES names it: its lock files' name (gpu_lock_files.py)
    reason: str = ""  # why none is usable, when not present


# CUDA numbers the GPUs fastest first unless told otherwise, nvidia-smi by their PCI bus: the grader and every
# program it starts number them by the bus, so that CUDA_VISIBLE_DEVICES=1 is the same card to both.
DEVICE_ORDER = ("CUDA_DEVICE_ORDER", "PCI_BUS_ID")


def use_bus_order() -> None:
    """Numbers the GPUs by PCI bus in this process and those it starts, unless the user chose an order."""
    os.environ.setdefault(*DEVICE_ORDER)


def chosen_gpu() -> str | None:
    """The GPU CUDA uses first here, as CUDA_VISIBLE_DEVICES names it (an index, a UUID), where it names one."""
    first = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return first if first and not first.startswith("-") else None


def detect_gpu(visible: str | None = None) -> Gpu:
    """The GPU the labs run on: the first that CUDA_VISIBLE_DEVICES names where it is set (a batch worker's,
    which need not be the machine's first, nor of the same kind), else the machine's first. `visible`: the GPU
    that a CUDA_VISIBLE_DEVICES of that value would give, in place of this process's own (a batch's workers)."""
    nvidia_smi = shutil.which("nvidia-smi")
    if not nvidia_smi:
        return Gpu(False, reason="nvidia-smi not found: this machine has no NVIDIA driver")
    chosen = visible.split(",")[0].strip() if visible else chosen_gpu()
    which = ["--id", chosen] if chosen else []
    outcome = proc.run([nvidia_smi, *which, "--query-gpu=name,compute_cap,uuid", "--format=csv,noheader"], timeout_s=60)
    lines = [line for line in outcome.stdout.splitlines() if line.strip()]
    if not outcome.ok or not lines:
        return Gpu(False, reason=f"nvidia-smi found no usable GPU ({outcome.how_it_ended()}: {outcome.tail(2)})")
    name, capability, *rest = (part.strip() for part in lines[0].split(",", 2))
    uuid = rest[0] if rest else ""
    if tuple(int(part) for part in capability.split(".")) < MIN_COMPUTE_CAPABILITY:
        wanted = ".".join(map(str, MIN_COMPUTE_CAPABILITY))
        return Gpu(
            False,
            name=name,
            compute_capability=capability,
            reason=f"{name} has compute capability {capability}; CUDA 13 and these labs need {wanted} or newer",
        )
    return Gpu(True, name=name, compute_capability=capability, uuid=uuid)


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
