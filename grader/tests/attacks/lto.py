"""Compiler IR for the attacks that hide code from every check in an object's LTO sections: made at test time by
the gcc of the machine the tests run on (gcc reads only IR of its own version), and carried into a kernel.cu as
inline assembly that emits the same sections with the same bytes."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

# What the IR defines: nothing that matters. Its harm is in the options gcc records with it, which the linker
# plugin hands back to gcc, and so to the assembler, at link time.
IR_SOURCE = "int cml_attack_probe(void) { return 1; }\n"


def ir_sections(assembler_option: str) -> dict[str, bytes]:
    """The .gnu.lto_* sections of IR compiled with `assembler_option` recorded for the assembler. The compile that
    makes the IR runs the assembler too, so it is given a harmless option of the same kind, which the recorded
    options (plain text) then name in place of the real one."""
    with tempfile.TemporaryDirectory(prefix="cml-lto-") as folder:
        source, obj = Path(folder) / "ir.c", Path(folder) / "ir.o"
        source.write_text(IR_SOURCE)
        stand_in = f"--MD={folder}/stand-in.d"
        subprocess.run(["gcc", "-O1", "-flto", "-Xassembler", stand_in, "-c", str(source), "-o", str(obj)], check=True)
        listed = subprocess.run(["readelf", "-S", "-W", str(obj)], capture_output=True, text=True, check=True)
        names = [field for line in listed.stdout.splitlines() for field in line.split() if field.startswith(".gnu.lto")]
        found = {}
        for index, name in enumerate(names):
            dump = Path(folder) / f"{index}.bin"
            subprocess.run(["objcopy", f"--dump-section={name}={dump}", str(obj)], check=True)
            found[name] = dump.read_bytes()
        assert stand_in.encode() in found[".gnu.lto_.opts"], "gcc no longer records assembler options as text"
        found[".gnu.lto_.opts"] = found[".gnu.lto_.opts"].replace(stand_in.encode(), assembler_option.encode())
        return found


def as_inline_assembly(sections: dict[str, bytes]) -> str:
    """A top-level asm statement that emits `sections`, each marked SHF_EXCLUDE as gcc marks them."""
    lines = []
    for name, data in sections.items():
        lines.append(f'.pushsection {name},\\"e\\",@progbits')
        lines += [".byte " + ",".join(str(b) for b in data[at : at + 64]) for at in range(0, len(data), 64)]
        lines.append(".popsection")
    return 'asm("' + "\\n".join(lines) + '\\n");\n'
