"""The sandbox every program built from a submission runs in, and every submission is compiled in: bubblewrap
(Debian's bubblewrap; ./cml installs it) with an allow-list view of the machine.

A program sees, read-only, the system's programs and libraries (/usr and the links into it), the few /etc files the
dynamic loader and the CUDA tools read, Nsight Compute's folder, /sys, the GPU's device nodes, and its own binary at
/cml/program (and, for Lab 10's schedule check on a GPU, the grader's recorder beside it); it may write only a
private, size-limited /tmp and /dev/shm and the one file the grader gave it, /cml/record. It has no network, its own
process, IPC and host-name namespaces, a new session, and an environment of a few variables; it dies with the
grader, and nothing it started outlives it (it is PID 1's child in its own PID namespace). Where the grader runs as
root, the program runs as nobody: root inside a sandbox could still write the host's /proc/sys. The checkout
(solutions, grader, results), the submissions and every other build folder are not there at all. A build step that
reads a submission's bytes (step_command: a compile, a link, a tool reading its object) sees the same system view
without its linker plugins, the headers and the build folder read-only, and writes only its own folder, within
limits. What the programs do to themselves (no fork, no ptrace) is common/cml/confine.cpp. SECURITY.md says what
this defends and what it does not."""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
UNPACKED_BWRAP = REPO_ROOT / ".deps" / "bubblewrap" / "usr" / "bin" / "bwrap"  # tools/bootstrap.sh
INSIDE = Path("/cml")
PROGRAM = INSIDE / "program"  # the binary, at the same path in every run: nothing tells the runs apart
RECORD = INSIDE / "record"  # the one file a program may write: its report to the grader
GPU_TURN = INSIDE / "gpu-turn"  # a benchmark's socket to ask for the GPU alone through (grader/execution/gpu_turn.py)
TMP_BYTES = 512 << 20  # each of /tmp and /dev/shm
NOBODY = "65534"  # who a program runs as where the grader is root
# The system, read-only: where programs, libraries and the CUDA toolkit live (a merged /usr has the rest as links).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Of /etc, what the dynamic loader, the compilers and the CUDA tools read; nothing with secrets.
ETC_FILES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "passwd",
    "group",
    "nsswitch.conf",
    "localtime",
)
TOOL_DIRS = ("/opt/nvidia",)  # Nsight Compute
# Variables a program keeps: where the driver's libraries are on some machines, which GPU a batch worker has,
# and how that GPU is numbered (grader/execution/gpu.py).
PASSED_VARIABLES = ("LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER")
NO_SANDBOX = "CML_NO_SANDBOX"  # set by --no-sandbox for the processes the grader starts


def bwrap() -> str | None:
    return shutil.which("bwrap") or (str(UNPACKED_BWRAP) if UNPACKED_BWRAP.is_file() else None)


def found_bwrap() -> str:
    """bwrap(), where unavailable() has said '' (which it says only where bwrap() found one)."""
    program = bwrap()
    assert program is not None, "a sandbox was asked for where unavailable() says bubblewrap is missing"
    return program


def unprivileged() -> list[str]:
    """What runs a sandbox as nobody where the grader is root ([] where it is not)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")  # util-linux
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"] if setpriv else []


@functools.cache
def unavailable() -> str:
    """'' when sandboxes can be made here; else why not, in words."""
    if os.environ.get(NO_SANDBOX) == "1":
        return "turned off (--no-sandbox)"
    program = bwrap()
    if program is None:
        return "bubblewrap (bwrap) is not installed"
    if os.geteuid() == 0 and not unprivileged():
        return "the grader runs as root and setpriv (util-linux) is missing, so programs would run as root"
    probe = [*unprivileged(), program, *base_options(), "--", "/bin/true"]
    tried = subprocess.run(probe, capture_output=True, text=True, check=False)
    if tried.returncode != 0:
        return (
            f"bubblewrap cannot make a sandbox here ({tried.stderr.strip() or tried.returncode}): user namespaces off?"
        )
    return ""


def system_view(python: bool = False) -> list[str]:
    """The system, read-only; with `python`, also the interpreter the build runs Meson with."""
    options: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            options += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            options += ["--ro-bind", path, path]
    for name in ETC_FILES:
        options += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    for path in TOOL_DIRS:
        options += ["--ro-bind-try", path, path]
    # An interpreter installed outside /usr (pyenv, conda): the build runs Meson with it.
    prefix = Path(sys.base_prefix).resolve()
    if python and not any(prefix.is_relative_to(path) for path in SYSTEM_DIRS):
        options += ["--ro-bind", str(prefix), str(prefix)]
    return options


def base_options(python: bool = False) -> list[str]:
    return [
        "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
        "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys",
        "--dev", "/dev", "--size", str(TMP_BYTES), "--tmpfs", "/dev/shm", "--size", str(TMP_BYTES), "--tmpfs", "/tmp",
        *system_view(python),
        "--setenv", "PATH", "/usr/local/cuda/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp",
    ]  # fmt: skip


def gpu_devices() -> list[str]:
    """The NVIDIA device nodes, for a program that runs on the GPU."""
    options = ["--ro-bind", "/sys", "/sys"]
    for node in sorted(glob.glob("/dev/nvidia*")):
        options += ["--dev-bind", node, node]
    return options


def passed_variables(env: dict[str, str]) -> list[str]:
    options = []
    for name in PASSED_VARIABLES:
        if name in os.environ:
            options += ["--setenv", name, os.environ[name]]
    for name, value in env.items():
        options += ["--setenv", name, value]
    return options


@dataclass
class ProgramRun:
    """What one sandboxed run of a program may see and write. The binary is copied into `scratch` (a folder of
    the grader's own for this run), so that nobody can read it where the grader is root."""

    binary: Path  # seen at /cml/program
    scratch: Path  # holds the copy of the binary and the record
    env: dict[str, str] = field(default_factory=dict)
    gpu: bool = True
    record_writable: bool = True  # False for the checker, which only reads a record
    gpu_turn: Path | None = None  # the socket of the run's turn on the GPU, for a benchmark the grader times
    # Files of the grader's own the program may read, each copied into `scratch` and seen read-only where the
    # key says (inside /cml): the schedule check's recorder, which CUDA loads into the program.
    files: dict[Path, Path] = field(default_factory=dict)

    @property
    def record(self) -> Path:
        """The file seen at /cml/record: the program's report to the grader."""
        return self.scratch / "record"

    def command(self, argv_inside: list[str]) -> list[str]:
        """The command line that runs argv_inside (which names the program as /cml/program) in the sandbox;
        argv_inside as it is where sandboxes are turned off, with the paths outside."""
        self.record.touch()  # the program opens it, never creates it
        if unavailable():
            outside = {str(PROGRAM): str(self.binary), str(RECORD): str(self.record)}
            return [outside.get(arg, arg) for arg in argv_inside]
        copy = self.scratch / "program"
        if not copy.exists():
            shutil.copy2(self.binary, copy)
        self.scratch.chmod(0o711)
        self.record.chmod(0o666 if self.record_writable else 0o644)
        options = [
            *unprivileged(),
            found_bwrap(),
            *base_options(),
            "--ro-bind",
            str(copy),
            str(PROGRAM),
            "--bind" if self.record_writable else "--ro-bind",
            str(self.record),
            str(RECORD),
        ]
        if self.gpu:
            options += gpu_devices()
        if self.gpu_turn is not None:
            options += ["--bind", str(self.gpu_turn), str(GPU_TURN)]
        for inside, source in self.files.items():
            readable = self.scratch / inside.name
            if not readable.exists():
                shutil.copy2(source, readable)
            readable.chmod(0o644)
            options += ["--ro-bind", str(readable), str(inside)]
        options += passed_variables(self._variables(str(GPU_TURN)))
        return [*options, "--remount-ro", "/", "--chdir", str(INSIDE), "--", *argv_inside]

    def record_as_seen(self) -> str:
        """The record's path as the program sees it: /cml/record, or the file itself without a sandbox."""
        return str(self.record) if unavailable() else str(RECORD)

    def environment(self) -> dict[str, str]:
        """The variables to add where the sandbox is off (inside it, command() sets them); a value that names one
        of `files` as the program sees it names the file itself."""
        if unavailable():
            outside = {str(inside): str(path) for inside, path in self.files.items()}
            variables = {name: outside.get(value, value) for name, value in self._variables(str(self.gpu_turn)).items()}
            return {**variables, "CML_RECORD": str(self.record)}
        return dict(self.env)

    def _variables(self, gpu_turn: str) -> dict[str, str]:
        """`env`, and the turn's socket as the program sees it."""
        return {**self.env, "CML_GPU_TURN": gpu_turn} if self.gpu_turn is not None else dict(self.env)


# What a step that reads a student's bytes may never load: the linker plugins (GNU ld and binutils load any they
# find in bfd-plugins, and gcc hands ld its LTO plugin) and the LTO compilers they start. An object can carry
# compiler IR in its sections, which they would compile and run outside every check of the object's own code.
LINKER_PLUGINS = (
    "/usr/lib/bfd-plugins",
    "/usr/lib/gcc/*/*/liblto_plugin.so*",
    "/usr/lib/gcc/*/*/lto1",
    "/usr/lib/gcc/*/*/lto-wrapper",
    "/usr/libexec/gcc/*/*/liblto_plugin.so*",
    "/usr/libexec/gcc/*/*/lto1",
    "/usr/libexec/gcc/*/*/lto-wrapper",
    "/usr/lib/llvm-*/lib/LLVMgold.so",
)


@dataclass(frozen=True)
class Limits:
    """What one step (a compile, a link, a tool reading an object) may take, per process (prlimit)."""

    memory: int  # bytes of address space
    file_size: int  # bytes of any one file it writes
    cpu_s: int
    processes: int  # processes and threads of its user, all of them on the machine (the kernel exempts root)

    def prefix(self) -> list[str]:
        program = shutil.which("prlimit")  # util-linux
        if program is None:
            raise RuntimeError("prlimit (util-linux) is missing: no step that reads a submission runs without limits")
        return [
            program, f"--as={self.memory}", f"--fsize={self.file_size}", f"--cpu={self.cpu_s}",
            f"--nproc={self.processes}", "--core=0", "--",
        ]  # fmt: skip


# nvcc's compiler passes reserve far more address space than they use; 0.94 GB was seen compiling a 64 MB
# initialised array. Objects and programs of the labs are a few MB: a larger one is refused after the step. The
# process count is nobody's on the whole machine (the labs' programs run as nobody too, with their threads), so it
# stops a runaway, not a step's ordinary work.
STEP_LIMITS = Limits(memory=8 << 30, file_size=64 << 20, cpu_s=300, processes=4096)
TOOL_LIMITS = Limits(memory=2 << 30, file_size=64 << 20, cpu_s=60, processes=4096)


def plugin_mounts() -> list[str]:
    """bwrap options that empty every LINKER_PLUGINS path there is on this machine."""
    options: list[str] = []
    for pattern in LINKER_PLUGINS:
        for found in sorted(glob.glob(pattern)):
            if os.path.isdir(found):
                options += ["--tmpfs", found]
            else:
                options += ["--ro-bind", str(empty_file()), found]
    return options


@functools.cache
def nobody_reads(paths: tuple[str, ...]) -> bool:
    """Whether nobody can read `paths` (and reach them), which a step needs to run as nobody."""
    setpriv = unprivileged()
    if not setpriv or not paths:
        return False
    test = shutil.which("test") or "/usr/bin/test"
    condition = [arg for path in paths for arg in ("-r", path, "-a")][:-1]
    return subprocess.run([*setpriv, test, *condition], capture_output=True, check=False).returncode == 0


def step_command(
    command: list[str],
    readable: Sequence[Path],
    writable: Path | None,
    cwd: Path,
    hidden: Sequence[Path] = (),
    limits: Limits = STEP_LIMITS,
    python: bool = False,
    own: Sequence[Path] = (),
    empty: Sequence[Path] = (),
) -> list[str]:
    """A step that reads a submission's bytes (a compile, a link, a tool reading its object), with `limits`, in a
    sandbox that sees the system without its linker plugins, `readable` read-only and `hidden` (inside those)
    emptied, then `own` read-only (the step's earlier outputs, which may lie inside a hidden folder), and writes
    only `writable`, the step's own folder; with `python`, also the interpreter the grader runs on. `empty`:
    folders seen empty but for what `readable`, `own` and `writable` put in them (a build folder of which a step
    reads a few files). As nobody where the grader is root and nobody can read what the step reads. Where
    sandboxes are off, the command with its limits alone."""
    if unavailable():
        return [*limits.prefix(), *command]
    reached = [*readable, *own, cwd, *([writable.parent] if writable is not None else [])]
    reached += [Path(sys.base_prefix).resolve()] if python else []
    as_nobody = nobody_reads(tuple(str(path) for path in reached))
    if writable is not None and as_nobody:
        os.chown(writable, int(NOBODY), int(NOBODY))
    options = [*limits.prefix(), *(unprivileged() if as_nobody else []), found_bwrap(), *base_options(python)]
    options += plugin_mounts()
    for folder in empty:
        options += ["--tmpfs", str(folder)]
    for folder in readable:
        options += ["--ro-bind", str(folder), str(folder)]
    for place in hidden:
        options += ["--tmpfs", str(place)] if place.is_dir() else ["--ro-bind", str(empty_file()), str(place)]
    for folder in own:
        options += ["--ro-bind", str(folder), str(folder)]
    if writable is not None:
        options += ["--bind", str(writable), str(writable)]
    return [*options, "--remount-ro", "/", "--chdir", str(cwd), "--", *command]


@functools.cache
def empty_file() -> Path:
    """An empty regular file, to stand where a compile must not read (the assembler refuses a device node)."""
    handle, name = tempfile.mkstemp(prefix="cml-empty-")
    os.close(handle)
    os.chmod(name, 0o444)
    return Path(name)
