"""Theoretical occupancy: how many blocks of a kernel one SM holds at once, from what each block uses (threads,
registers per thread, shared memory) and the GPU's limits (gpu_limits.toml, or a GPU's own cudaDeviceProp). The
rules are those of the CUDA occupancy calculator (cuda_occupancy.h), so that a grade without a GPU says what
cudaOccupancyMaxActiveBlocksPerMultiprocessor would say on one; grader/tests/steps/test_occupancy.py holds the two
side by side."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from grader.core.config import GRADER_DIR, names_device

GPU_LIMITS = GRADER_DIR / "gpu_limits.toml"
WARP = 32

# What stops more blocks from fitting, in the words ncu's launch__occupancy_limit_* metrics use.
LIMITERS = ("warps", "registers", "shared_mem", "blocks")


@dataclass(frozen=True)
class SmLimits:
    """One GPU's limits per SM and per block (gpu_limits.toml names the source of each figure)."""

    key: str
    name: str
    match: list[str]
    arch: str
    multiprocessors: int
    max_threads_per_block: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    registers_per_sm: int
    registers_per_block: int
    max_registers_per_thread: int
    register_unit: int  # registers are given to a warp in multiples of this
    sub_partitions: int  # each holds a quarter of the registers, and whole warps
    shared_per_sm: int
    shared_per_block_optin: int  # the most a block may have, once cudaFuncSetAttribute allows it
    shared_per_block: int  # the most without
    reserved_shared_per_block: int  # the driver's share of each block's shared memory
    shared_unit: int  # shared memory is given to a block in multiples of this


@dataclass(frozen=True)
class BlockUse:
    """What one block of a launch uses: its threads, each thread's registers (the compiler's report) and its
    shared memory, static (the compiler's report) and dynamic (the launch's third parameter)."""

    threads: int
    registers: int
    static_shared: int = 0
    dynamic_shared: int = 0


@dataclass(frozen=True)
class Occupancy:
    blocks: int  # resident blocks per SM: the least of `by_limit`
    by_limit: dict[str, int]  # limiter (LIMITERS) -> the blocks it alone would allow
    warps_per_block: int
    max_warps_per_sm: int
    why_none: str = ""  # why not even one block fits; "" where one does

    @property
    def limiters(self) -> list[str]:
        """The limits that hold the count where it is (several may tie)."""
        return [name for name in LIMITERS if self.by_limit[name] == self.blocks]

    @property
    def fraction(self) -> float:
        """Theoretical occupancy: resident warps over the most an SM holds."""
        return self.blocks * self.warps_per_block / self.max_warps_per_sm

    def describe(self) -> str:
        if self.why_none:
            return f"no block fits on an SM: {self.why_none}"
        limits = ", ".join(f"{name} {self.by_limit[name]}" for name in LIMITERS)
        return (
            f"{self.blocks} block(s) per SM, {self.fraction:.0%} of its warps, limited by "
            f"{' and '.join(self.limiters)} (blocks each limit allows: {limits})"
        )


def round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def resident_blocks(use: BlockUse, sm: SmLimits) -> Occupancy:
    """How many blocks of `use` fit on one SM of `sm`, and which limit decides (cuda_occupancy.h's rules)."""
    warps = -(-use.threads // WARP)
    by_limit = {
        "warps": sm.max_warps_per_sm // warps if warps else 0,
        "registers": register_limit(use, sm, warps),
        "shared_mem": shared_limit(use, sm),
        "blocks": sm.max_blocks_per_sm,
    }
    why = ""
    if use.threads <= 0 or use.threads > sm.max_threads_per_block:
        why = f"{use.threads} threads per block (1 to {sm.max_threads_per_block} allowed)"
    elif by_limit["registers"] == 0:
        why = f"{use.registers} registers per thread over {use.threads} threads exceed what a block may hold"
    elif by_limit["shared_mem"] == 0:
        why = f"{use.static_shared + use.dynamic_shared} bytes of shared memory exceed a block's share"
    blocks = 0 if why else min(by_limit.values())
    return Occupancy(blocks, by_limit, warps, sm.max_warps_per_sm, why)


def register_limit(use: BlockUse, sm: SmLimits, warps: int) -> int:
    """Registers go to warps in units of register_unit, and each of the SM's sub-partitions holds whole warps of
    its quarter of the register file; a block must also fit the per-block limit, checked as if its warps were
    spread over all sub-partitions (the hardware's check)."""
    if use.registers > sm.max_registers_per_thread:
        return 0
    per_warp = round_up(use.registers * WARP, sm.register_unit)
    if per_warp == 0:
        return sm.max_blocks_per_sm
    if max(per_warp * warps, per_warp * round_up(warps, sm.sub_partitions)) > sm.registers_per_block:
        return 0
    warps_per_sub_partition = sm.registers_per_sm // sm.sub_partitions // per_warp
    return warps_per_sub_partition * sm.sub_partitions // warps


def shared_limit(use: BlockUse, sm: SmLimits) -> int:
    """Each block takes its static and dynamic shared memory plus the driver's reserve, rounded up to
    shared_unit; no block may take more than shared_per_block_optin plus that reserve."""
    used = use.static_shared + use.dynamic_shared
    allocated = round_up(used + sm.reserved_shared_per_block, sm.shared_unit)
    if used > sm.shared_per_block_optin:
        return 0
    return sm.shared_per_sm // allocated if allocated else sm.max_blocks_per_sm


def load_limits(path: Path = GPU_LIMITS) -> dict[str, SmLimits]:
    data = tomllib.loads(path.read_text())
    names = {f.name for f in fields(SmLimits)}
    return {
        key: SmLimits(key=key, **{k: v for k, v in entry.items() if k in names}) for key, entry in data["gpu"].items()
    }


def limits_for(device_name: str, path: Path = GPU_LIMITS) -> SmLimits | None:
    """The limits of the GPU whose `match` names this device; None for a GPU the file does not list."""
    for limits in load_limits(path).values():
        if names_device(limits.match, device_name):
            return limits
    return None
