"""One warp's memory request as the CPU emulator saw it, and what a report draws of it: a source line's worst
request, its 32 lanes' addresses, beside the reference's on the matching line (grader/grading/access_pictures.py
chooses them; grader/reporting/access_text.py and export/access_svg.py draw them).

Addresses are offsets from the 128-byte boundary at or below the request's lowest address (the emulator writes
them so: common/emu/src/worst_request.hpp): that keeps each lane's 32-byte sector and 4-byte bank, and no
address of the machine that ran it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

LANES = 32
SPACES = ("global", "shared", "constant")
OPS = ("load", "store", "atomic")
MAX_FILE_CHARS = 200  # a source's name as kept: its folder and file name
MAX_NAME_CHARS = 200  # a kernel's name as kept
MAX_LINES = 256  # lines of a kernel's profile kept: a lab's kernel.cu has a few dozen at most
MAX_INSTRUCTIONS = 12  # machine-code instructions kept per source line
MAX_TEXT_CHARS = 400  # of a text of ours that may quote the student's names


@dataclass
class Request:
    """One execution of one memory instruction by one warp."""

    block: list[int]  # blockIdx (x, y, z)
    warp: int  # within the block
    execution: int  # which execution of the instruction by that warp, from 0
    bytes_per_lane: int
    units: int  # sectors (global), wavefronts (shared) or distinct addresses (constant) of this request
    ideal: int  # shared memory: its wavefronts with no conflict (one per phase of lanes)
    max_ways: int  # shared memory: the most distinct words one bank held in a phase
    lanes: list[int | None]  # each lane's byte offset (module help); None: the lane made no access


@dataclass
class LineAccess:
    """One source line's accesses in one memory space and direction, over a checked launch."""

    file: str  # as "NN_name/kernel.cu": the last two parts of the path the emulator named
    line: int
    space: str  # one of SPACES
    op: str  # one of OPS
    requests: int
    units: int  # sectors, wavefronts or distinct addresses, summed over the requests
    conflicts: int  # shared memory: wavefronts beyond the conflict-free ones; 0 elsewhere
    worst: Request | None
    kernel: str = ""  # the kernel's name, without its parameters or namespaces

    @property
    def place(self) -> str:
        return f"{self.file.rsplit('/', 1)[-1]}:{self.line}"


@dataclass
class KernelFacts:
    """What a student would otherwise need a profiler for, of the kernel the line is in: the compiler's resources,
    the occupancy they allow on the graded GPU (or the H100 without one), and the line's machine code."""

    kernel: str = ""
    registers: int | None = None
    shared_bytes: int | None = None  # static, per block
    stack_bytes: int | None = None
    local_bytes: int | None = None
    occupancy: str = ""  # blocks per SM and what limits them, in words
    machine_code: list[str] = field(default_factory=list)  # the source line's memory instructions (SASS)
    other_instructions: int = 0  # the line's instructions not shown


@dataclass
class AccessPicture:
    """What a memory counter check draws: the worst request of the student's worst line for the check's
    counter, beside the reference's on its matching line."""

    counted: str  # what the check counts, in words: "sectors", "bank conflicts", "requests", "addresses"
    space: str
    op: str
    yours: LineAccess | None
    reference: LineAccess | None
    reference_name: str  # "the reference solution", or "the lab's baseline" where the kit has no solutions
    source: str  # where the picture comes from: the CPU emulator, and at which size
    beside: str = ""  # on a GPU grade: the emulator's count beside the GPU's counter
    facts: KernelFacts = field(default_factory=KernelFacts)
    problem: str = ""  # why there is no picture of yours

    @property
    def drawn(self) -> bool:
        return self.yours is not None and self.yours.worst is not None


class AccessDataError(ValueError):
    """Recorded access data that is not of the shape written here."""


def _get(data: dict, key: str, kinds: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise AccessDataError(f"{where}.{key} is missing")
    value = data[key]
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _as_tuple(kinds)):
        raise AccessDataError(f"{where}.{key} is not of the right kind: {str(value)[:40]}")
    return value


def _as_tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def request_from(data: Any, where: str = "worst") -> Request:
    """A Request from the JSON that wrote it (dataclasses.asdict, or the emulator's "worst"); AccessDataError
    where it is not one."""
    if not isinstance(data, dict):
        raise AccessDataError(f"{where} is not an object")
    lanes = _get(data, "lanes", list, where)
    block = _get(data, "block", list, where)
    if len(lanes) != LANES or not all(lane is None or _is_count(lane) for lane in lanes):
        raise AccessDataError(f"{where}.lanes is not {LANES} offsets")
    if len(block) != 3 or not all(_is_count(axis) for axis in block):
        raise AccessDataError(f"{where}.block is not three indices")
    counts = {key: _count(data, key, where) for key in ("warp", "execution", "bytes_per_lane", "units", "ideal")}
    return Request(block=block, lanes=lanes, max_ways=_count(data, "max_ways", where, 0), **counts)


def line_from(data: Any, where: str = "line") -> LineAccess:
    if not isinstance(data, dict):
        raise AccessDataError(f"{where} is not an object")
    worst = data.get("worst")
    space, op = _get(data, "space", str, where), _get(data, "op", str, where)
    if space not in SPACES or op not in OPS:
        raise AccessDataError(f"{where}: {space!r} {op!r} is no memory space and direction")
    return LineAccess(
        file=_get(data, "file", str, where)[-MAX_FILE_CHARS:],
        line=_count(data, "line", where),
        space=space,
        op=op,
        requests=_count(data, "requests", where),
        units=_count(data, "units", where),
        conflicts=_count(data, "conflicts", where, 0),
        worst=None if worst is None else request_from(worst, f"{where}.worst"),
        kernel=str(data.get("kernel", ""))[:MAX_NAME_CHARS],
    )


def facts_from(data: Any, where: str = "facts") -> KernelFacts:
    if not isinstance(data, dict):
        raise AccessDataError(f"{where} is not an object")
    numbers = {}
    for key in ("registers", "shared_bytes", "stack_bytes", "local_bytes"):
        value = data.get(key)
        if value is not None and not _is_count(value):
            raise AccessDataError(f"{where}.{key} is not a count")
        numbers[key] = value
    code = data.get("machine_code", [])
    if not isinstance(code, list) or not all(isinstance(text, str) for text in code):
        raise AccessDataError(f"{where}.machine_code is not a list of texts")
    return KernelFacts(
        kernel=str(data.get("kernel", ""))[:MAX_NAME_CHARS],
        occupancy=str(data.get("occupancy", ""))[:MAX_TEXT_CHARS],
        machine_code=[text[:MAX_TEXT_CHARS] for text in code[:MAX_INSTRUCTIONS]],
        other_instructions=_count(data, "other_instructions", where, 0),
        **numbers,
    )


def picture_from(data: Any, where: str = "access") -> AccessPicture:
    """An AccessPicture read back from a grade's JSON; AccessDataError where it is not one."""
    if not isinstance(data, dict):
        raise AccessDataError(f"{where} is not an object")

    def side(key: str) -> LineAccess | None:
        value = data.get(key)
        return None if value is None else line_from(value, f"{where}.{key}")

    def text(key: str) -> str:
        return str(data.get(key, ""))[:MAX_TEXT_CHARS]

    return AccessPicture(
        counted=_get(data, "counted", str, where),
        space=_get(data, "space", str, where),
        op=_get(data, "op", str, where),
        yours=side("yours"),
        reference=side("reference"),
        reference_name=_get(data, "reference_name", str, where),
        source=_get(data, "source", str, where),
        beside=text("beside"),
        facts=facts_from(data.get("facts", {}), f"{where}.facts"),
        problem=text("problem"),
    )


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _count(data: dict, key: str, where: str, default: int | None = None) -> int:
    if key not in data and default is not None:
        return default
    value = _get(data, key, int, where)
    if value < 0:
        raise AccessDataError(f"{where}.{key} is negative")
    return value


def kernel_name(signature: str) -> str:
    """A kernel's name as a person calls it: 'transpose_kernel' of '(anonymous namespace)::transpose_kernel(const
    float *, float *, int, int)' or of 'void ns::k<float>(float*)'."""
    head = signature.split("(", 1)[0] if not signature.startswith("(") else signature.split(")::", 1)[-1]
    head = head.split("(", 1)[0].split("<", 1)[0].strip()
    return head.rsplit("::", 1)[-1].rsplit(" ", 1)[-1][:MAX_NAME_CHARS]
