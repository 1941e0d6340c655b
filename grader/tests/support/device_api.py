"""The list of what device code may call, as tools/emu_device_api.py read it off the CUDA toolkit's headers
(common/emu/device_api.txt), and a C++ file that names each entry once, so that one compile with the CPU
emulator's headers tells which the emulator declares: a function with its parameter types (the call must
resolve as it does on a GPU), a template or a member by its name."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from grader.core.config import REPO_ROOT

LIST = REPO_ROOT / "common" / "emu" / "device_api.txt"
CG = "cooperative_groups::"
# The toolkit's classes of cooperative groups, by the public type through which a kernel reaches their members
# (its base classes are the toolkit's own), with what stands for their template parameters.
CLASSES = {
    "thread_group": "cooperative_groups::thread_group",
    "thread_group_base": "cooperative_groups::thread_group",
    "thread_block": "cooperative_groups::thread_block",
    "grid_group": "cooperative_groups::grid_group",
    "cluster_group": "cooperative_groups::cluster_group",
    "coalesced_group": "cooperative_groups::coalesced_group",
    "thread_block_tile": "cooperative_groups::thread_block_tile<32, cooperative_groups::thread_block>",
    "__static_size_tile_base": "cooperative_groups::thread_block_tile<16, cooperative_groups::thread_block>",
    "__static_size_thread_block_tile_base": "cooperative_groups::thread_block_tile<8, cooperative_groups::thread_block>",
    "__single_warp_thread_block_tile": "cooperative_groups::thread_block_tile<32, cooperative_groups::thread_block>",
    "__static_parent_thread_block_tile_base": "cooperative_groups::thread_block_tile<4, cooperative_groups::thread_block>",
    "__static_size_multi_warp_tile_base": "cooperative_groups::thread_block_tile<64, cooperative_groups::thread_block>",
    "__multi_warp_thread_block_tile": "cooperative_groups::thread_block_tile<128, cooperative_groups::thread_block>",
    "greater": "cooperative_groups::greater<int>",
    "less": "cooperative_groups::less<int>",
}
CLASS_PARAMETERS = {"Ty": "int", "Size": "32"}
INCLUDES = (
    "cuda_runtime.h",
    "cooperative_groups.h",
    "cooperative_groups/reduce.h",
    "cooperative_groups/scan.h",
    "cooperative_groups/memcpy_async.h",
    "cuda_fp16.h",
    "cuda_bf16.h",
)


@dataclass(frozen=True)
class Entry:
    header: str
    text: str  # as the list has it: "float __fmul_rn(float, float)"
    template: bool
    returns: str  # "float"; "" for a conversion operator
    name: str  # qualified: "__fmul_rn", "cooperative_groups::grid_group::sync"
    parameters: tuple[str, ...]

    @property
    def member_of(self) -> str:
        """The class the entry is a member of ('cooperative_groups::grid_group', '__half'), or ''."""
        scope, _, _ = self.name.rpartition("::")
        return "" if scope in ("", "std", "cooperative_groups") else scope

    @property
    def short_name(self) -> str:
        return self.name.rsplit("::", 1)[-1]


def split_top(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += (c in "(<[") - (c in ")>]")
        if c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def template_prefix_end(text: str) -> int:
    """Where the declaration begins after its `template <...> ` heads (0 when it has none)."""
    at = 0
    while text.startswith("template <", at):
        depth, i = 0, at + len("template ")
        for i in range(at + len("template "), len(text)):
            depth += (text[i] == "<") - (text[i] == ">")
            if depth == 0:
                break
        at = i + 2
    return at


def parse(line: str, header: str) -> Entry:
    body_at = template_prefix_end(line)
    body = re.sub(r"\s*(const|volatile|&|&&)?\s*$", "", line[body_at:])
    close = body.rindex(")")
    depth, opened = 0, close
    for opened in range(close, -1, -1):
        depth += (body[opened] == ")") - (body[opened] == "(")
        if depth == 0:
            break
    before = body[:opened]
    if "operator" in before:
        at = before.rindex("operator")
        start = re.search(r"[\w:]*$", before[:at])
        name = before[start.start() if start else at :]
    else:
        found = re.search(r"[\w:~]+$", before)
        if not found:
            raise ValueError(f"cannot read {line!r}")
        name = found.group()
    returns = before[: len(before) - len(name)].strip()
    return Entry(header, line, body_at > 0, returns, name.strip(), tuple(split_top(body[opened + 1 : close])))


def entries(path: Path = LIST) -> list[Entry]:
    found, header = [], ""
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("["):
            header = line.strip("[]")
            continue
        found.append(parse(line, header))
    return found


def concrete(parameter: str) -> str:
    for name, value in CLASS_PARAMETERS.items():
        parameter = re.sub(rf"\b{name}\b", value, parameter)
    return parameter


QUALIFIERS = re.compile(r"\)[^()]*$")


def probe(entry: Entry, index: int) -> str:
    """One line of C++ that compiles only where the emulator declares the entry as the toolkit does: its call
    resolves, with the same type back (cospi of a float is a float on a GPU, not the C function's double)."""
    public = CLASSES.get(entry.member_of.removeprefix(CG), entry.member_of)

    def typed(text: str) -> str:
        return concrete(text).replace("arrival_token", f"{public}::arrival_token")

    arguments = ", ".join(f"std::declval<{typed(p)}>()" for p in entry.parameters)
    if entry.member_of:
        if entry.short_name.startswith("operator thread_block_tile"):  # the conversion to a tile of no parent
            return f"static_assert(std::is_convertible<{public}, cooperative_groups::thread_block_tile<32>>::value);"
        if entry.template:
            return f"struct probe_{index} : {public} {{ using {public}::{entry.short_name}; }};"
        tail = QUALIFIERS.search(entry.text)
        qualifiers = " ".join(w for w in ("const", "volatile") if tail and re.search(rf"\b{w}\b", tail.group()))
        call = f"std::declval<{public} {qualifiers}&>().{entry.short_name}({arguments})"
    else:
        qualified = entry.name if "::" in entry.name else f"::{entry.name}"
        if entry.template:
            return f"namespace probe_{index} {{ using {qualified}; }}"
        call = f"{qualified}({arguments})"
    if not entry.returns:
        return f"using probe_{index} = decltype({call});"
    return f'static_assert(std::is_same<decltype({call}), {typed(entry.returns)}>::value, "the same type back");'


def probe_source(listed: list[Entry]) -> tuple[str, dict[int, Entry]]:
    """The probe file, and which entry each of its lines names (by line number)."""
    lines = [f"#include <{header}>" for header in INCLUDES] + ["#include <type_traits>", "#include <utility>", ""]
    lines.append("namespace probes {")
    lines.append("using namespace cooperative_groups;  // the toolkit's declarations name its types unqualified")
    by_line = {}
    for index, entry in enumerate(listed):
        lines.append(probe(entry, index))
        by_line[len(lines)] = entry
    lines.append("}  // namespace probes")
    return "\n".join(lines) + "\n", by_line
