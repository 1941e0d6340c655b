"""What each lane of a recorded request touched, as the pictures draw it: the 32-byte sectors of global memory, the
banks of shared memory (and which lanes wait on a conflict), the distinct addresses of __constant__. The counts of
a request are the emulator's (Request.units); this only says which lane went where, by the same rules
(common/emu/src/profile.cpp: count_request)."""

from __future__ import annotations

from dataclasses import dataclass

from grader.core.access import Request

SECTOR_BYTES = 32
WORD_BYTES = 4
BANKS = 32
DIGITS = "0123456789abcdefghijklmnopqrstuv"  # a bank, or the rank of a sector or address, as one character


@dataclass(frozen=True)
class LaneUnits:
    """Where each lane of a request went: `units[lane]` the sectors (global), banks (shared) or addresses
    (constant) it touched, in order (empty for an idle lane); `slow` the lanes that cost more than one unit's share
    (global: a sector it shares with less than a sector's worth of other lanes' bytes; shared: a bank that holds
    another word in its phase too; constant: one of several addresses)."""

    units: list[list[int]]
    slow: set[int]
    distinct: list[int]  # every unit touched, in order: sectors and addresses by address, banks 0 to 31
    # per unit: the bytes the warp asked of a sector, the distinct words asked of a bank at once (the most of any
    # phase: the passes it takes), the lanes reading an address
    load: dict[int, int]


def lane_units(request: Request, space: str) -> LaneUnits:
    if space == "shared":
        return _banks(request)
    if space == "constant":
        return _addresses(request)
    return _sectors(request)


def phase_lanes(bytes_per_lane: int) -> int:
    """Lanes a shared-memory wavefront serves at once: 128 bytes, 32 lanes of 4 bytes, 16 of 8 or 8 of 16."""
    return 32 if bytes_per_lane <= 4 else 16 if bytes_per_lane == 8 else 8


def _touched(offset: int, size: int, unit: int) -> list[int]:
    return list(range(offset // unit, (offset + max(size, 1) - 1) // unit + 1))


def _sectors(request: Request) -> LaneUnits:
    units = [[] if o is None else _touched(o, request.bytes_per_lane, SECTOR_BYTES) for o in request.lanes]
    used: dict[int, int] = {}
    for offset, sectors in zip(request.lanes, units, strict=True):
        for sector in sectors:
            assert offset is not None  # an idle lane touches no sector
            start, end = (
                max(offset, sector * SECTOR_BYTES),
                min(offset + request.bytes_per_lane, (sector + 1) * SECTOR_BYTES),
            )
            used[sector] = used.get(sector, 0) + max(end - start, 0)
    slow = {lane for lane, sectors in enumerate(units) if any(used[s] < SECTOR_BYTES for s in sectors)}
    return LaneUnits(units, slow, sorted(used), used)


def _banks(request: Request) -> LaneUnits:
    words = [[] if o is None else _touched(o, request.bytes_per_lane, WORD_BYTES) for o in request.lanes]
    per_phase = phase_lanes(request.bytes_per_lane)
    slow: set[int] = set()
    passes: dict[int, int] = {}
    for phase in range(0, len(words), per_phase):
        held: dict[int, set[int]] = {}
        for lane in range(phase, phase + per_phase):
            for word in words[lane]:
                held.setdefault(word % BANKS, set()).add(word)
        for bank, distinct in held.items():
            passes[bank] = max(passes.get(bank, 0), len(distinct))
        slow |= {
            lane for lane in range(phase, phase + per_phase) if any(len(held[word % BANKS]) > 1 for word in words[lane])
        }
    banks = [[word % BANKS for word in lane] for lane in words]
    return LaneUnits(banks, slow, sorted(passes), passes)


def _addresses(request: Request) -> LaneUnits:
    units = [[] if o is None else [o // WORD_BYTES] for o in request.lanes]
    distinct = sorted({word for lane in units for word in lane})
    slow = {lane for lane, words in enumerate(units) if words} if len(distinct) > 1 else set()
    readers = {word: sum(words == [word] for words in units) for word in distinct}
    return LaneUnits(units, slow, distinct, readers)


def lane_marks(found: LaneUnits, space: str) -> str:
    """One character a lane: its bank (shared) or the rank of its first sector or address among the request's
    ('0' the lowest), '+' past 32 of them, '.' for an idle lane."""
    rank = {unit: index for index, unit in enumerate(found.distinct)}
    marks = ""
    for units in found.units:
        if not units:
            marks += "."
            continue
        index = units[0] if space == "shared" else rank[units[0]]
        marks += DIGITS[index] if index < len(DIGITS) else "+"
    return marks


def ideal_sectors(request: Request) -> int:
    """The fewest sectors the request's bytes fit in: its active lanes' bytes, 32 at a time."""
    active = sum(offset is not None for offset in request.lanes)
    return max(1, -(-active * request.bytes_per_lane // SECTOR_BYTES)) if active else 0
