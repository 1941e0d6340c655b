"""The CPU emulator builds what nvcc builds of device code: every function the CUDA toolkit's headers give a
kernel (common/emu/device_api.txt, which tools/emu_device_api.py reads off them: the Math API, the intrinsics,
the warp functions, the atomics in every scope, the texture fetches, cooperative groups, half and bfloat16).
The emulator declares each with the toolkit's types; the programs of kernels/device_api/ call each in kernels
and compare what it computes with a host reference, built and run on the emulator, and compiled by nvcc as the
grader compiles a kernel.cu, so each is a kernel a GPU builds. What the emulator cannot run fails its build
with words that say the limit is the emulator's (LIMIT_MARKER), so that the grader can tell it from a kernel's
own mistake. No GPU is needed."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest

from grader.core.config import REPO_ROOT, load_config
from grader.execution import proc
from grader.steps import build, sanitize
from grader.steps.build_commands import without_cache
from grader.steps.integrity import elf, harness_definitions, symbols
from grader.steps.integrity import emulator as emulator_object
from grader.tests.support import device_api
from grader.tests.support.emulator_builds import (
    built_on_the_emulator,
    kernel_compile_command,
    lab_tests_on_the_emulator,
)

PROGRAMS_DIR = Path(__file__).parents[1] / "kernels" / "device_api"
# One test process builds each program once (on_the_emulator): the math program alone takes half a minute, and two
# processes would each build it.
pytestmark = pytest.mark.xdist_group("the device API's programs on the emulator")
PROGRAMS = sorted(PROGRAMS_DIR.glob("*.cu"))
# Correct kernels of the labs, written with what these programs test (a grid.sync(), a table of kernels, matches,
# scoped atomics, textures' Lod forms, ...): each file's name starts with its lab's.
LAB_KERNELS = sorted((Path(__file__).parents[1] / "kernels" / "device_api_labs").glob("*.cu"))
LABS = [lab.name for lab in load_config().labs]
# What a build of the emulator's prints where a kernel uses what it cannot run (cml_emu/device.hpp).
LIMIT_MARKER = "cml_emu limit:"
# The functions of the list the emulator declares and cannot run: each names why in its message. 3D, layered and
# cubemap textures need cudaMalloc3DArray, which no lab allows; a cluster of more than one block needs
# __cluster_dims__ (a multicast to several), which the emulator refuses; the cuda::atomic forms of cooperative
# groups and the nvcuda pipeline forms of memcpy_async are libcu++'s and the old pipeline's, neither emulated.
LIMITS = frozenset({
    "__cluster_map_shared_multicast",
    *(f"tex{shape}{kind}" for shape in ("3D", "1DLayered", "2DLayered", "Cubemap", "CubemapLayered")
      for kind in ("", "Lod", "Grad")),
    "cooperative_groups::reduce_update_async", "cooperative_groups::inclusive_scan_update",
    "cooperative_groups::exclusive_scan_update",
})  # fmt: skip
# A use of each limit that nvcc builds; the emulator must refuse each, with its marker.
LIMIT_KERNEL = """
#include <cuda_runtime.h>
__global__ void multicast(const float* in, uint2* out) { out[0] = __cluster_map_shared_multicast(in, 1u); }
__global__ void volume(cudaTextureObject_t t, float* out) { out[0] = tex3D<float>(t, 0.5f, 0.5f, 0.5f); }
__global__ void __cluster_dims__(2, 1, 1) pair(float* out) { out[0] = 1.0f; }
int main() { float* p = nullptr; pair<<<2, 32>>>(p); return 0; }
"""


def load_tool():
    path = REPO_ROOT / "tools" / "emu_device_api.py"
    spec = importlib.util.spec_from_file_location("emu_device_api", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def nvcc_or_skip() -> str:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not Path(nvcc).is_file():
        pytest.skip("the list is read off the CUDA toolkit's headers, and no nvcc is installed here")
    return nvcc


def test_the_list_is_what_the_installed_toolkit_declares():
    tool, nvcc = load_tool(), nvcc_or_skip()
    written = tool.written_version(tool.LIST.read_text())
    if tool.toolkit_version(nvcc) != written:
        pytest.skip(f"the list was written from CUDA {written}, and this machine has {tool.toolkit_version(nvcc)}")
    assert tool.main(["--check", "--nvcc", nvcc]) == 0, "run tools/emu_device_api.py"


def test_the_list_is_read_off_every_header_that_gives_device_code_its_functions():
    headers = {entry.header for entry in device_api.entries()}
    assert headers == {*load_tool().HEADERS, "cooperative_groups.h"} - {
        "sm_35_atomic_functions.h",
        "sm_35_intrinsics.h",
    }
    assert len(device_api.entries()) > 1900


def probe_errors(emulator_tree: build.BuildTree, folder: Path) -> tuple[dict[int, str], dict[int, device_api.Entry]]:
    """The errors of a compile of the probe file with the emulator's flags, by line; and each line's entry."""
    source, by_line = device_api.probe_source(device_api.entries())
    probe = folder / "probe.cpp"
    probe.write_text(source)
    command = kernel_compile_command(emulator_tree, probe, folder / "probe.o", passes=False)
    command = [arg for arg in command if arg not in ("-c", "-o", str(folder / "probe.o"))]
    done = subprocess.run([*command, "-fsyntax-only", "-ferror-limit=0"], capture_output=True, text=True)
    errors: dict[int, str] = {}
    for match in re.finditer(rf"^{re.escape(str(probe))}:(\d+):\d+: error: (.*)$", done.stderr, re.MULTILINE):
        errors.setdefault(int(match[1]), match[2])
    assert done.returncode == 0 or errors, done.stderr[-3000:]
    return errors, by_line


def test_the_emulator_declares_every_function_of_the_list_with_its_types(emulator, tmp_path):
    errors, by_line = probe_errors(emulator, tmp_path)
    missing = [f"{by_line[line].text}: {error}" for line, error in errors.items() if LIMIT_MARKER not in error]
    assert not missing, "\n".join(missing)
    refused = {by_line[line].name for line, error in errors.items() if LIMIT_MARKER in error}
    assert refused <= LIMITS


def test_every_limit_is_a_function_of_the_list():
    assert LIMITS <= {entry.name for entry in device_api.entries()}


def called(entry: device_api.Entry, text: str) -> bool:
    """Whether the programs call the entry: by its name, or as a member (.name(...)); an operator, used."""
    name = entry.short_name
    if name.startswith("operator"):
        return True  # the types' own operators: every use of the types calls them
    if entry.member_of:
        return re.search(rf"\.\s*{re.escape(name)}\s*(<[^;()]*>)?\s*\(", text) is not None
    qualified = entry.name if "::" in entry.name else name
    spelled = re.escape(qualified).replace("cooperative_groups::", "(cooperative_groups::|cg::)")
    return re.search(rf"(?<![\w:]){spelled}\s*(<[^;()]*>)?\s*\(", text) is not None


MARKER_LINE = re.compile(r'^# \d+ "(?P<file>[^"]*)"')


def expanded(emulator_tree: build.BuildTree, program: Path, folder: Path) -> str:
    """The program's own text with its macros expanded (half.cu pastes each name from `half` or `bfloat16`): its
    lines of clang's preprocessed output, less those of the headers it includes."""
    command = kernel_compile_command(emulator_tree, program, folder / "unused.o", passes=False)
    command = [arg for arg in command if arg not in ("-c", "-o", str(folder / "unused.o"), str(program))]
    done = subprocess.run([*command, f"-I{PROGRAMS_DIR}", "-x", "c++", "-E", str(program)], capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    own, lines = False, []
    for line in done.stdout.splitlines():
        if match := MARKER_LINE.match(line):
            own = Path(match["file"]) == program
        elif own:
            lines.append(line)
    return "\n".join(lines)


def test_each_function_of_the_list_is_called_by_a_test_program(emulator, tmp_path):
    text = "\n".join(expanded(emulator, program, tmp_path) for program in PROGRAMS)
    uncalled = sorted({e.name for e in device_api.entries() if e.name not in LIMITS and not called(e, text)})
    assert not uncalled, f"{len(uncalled)} functions no program calls: {', '.join(uncalled)}"


@pytest.fixture(scope="module")
def on_the_emulator(emulator, config, tmp_path_factory):
    """Builds a program of PROGRAMS_DIR on the emulator, once for this module's tests."""
    built: dict[Path, Path] = {}

    def build_once(program: Path) -> Path:
        if program not in built:
            folder = tmp_path_factory.mktemp(program.stem)
            built[program] = built_on_the_emulator(emulator, config, program, folder, include=(PROGRAMS_DIR,))
        return built[program]

    return build_once


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_each_program_builds_and_its_checks_pass_on_the_emulator_and_its_sanitizers_find_nothing(
    on_the_emulator, config, program
):
    built = on_the_emulator(program)
    run = proc.run([str(built)], config.timeouts["tests"])
    assert run.ok and "0 checks failed" in run.stdout, run.tail(60)
    checks = {"CML_EMU_CHECK": "all", "CML_EMU_ERROR_EXITCODE": str(sanitize.SANITIZER_FOUND)}
    checked = proc.run([str(built)], config.timeouts["sanitizer"], env=checks)
    assert checked.ok and "0 checks failed" in checked.stdout, checked.tail(60)
    assert "ERROR SUMMARY: 0 errors" in checked.stderr, checked.tail(60)


def test_a_kernel_that_traps_fails_its_launch_as_on_a_gpu(on_the_emulator, config):
    run = proc.run([str(on_the_emulator(PROGRAMS_DIR / "intrinsics.cu")), "trap"], config.timeouts["tests"])
    assert run.ok, run.tail(20)  # it exits 0 when the synchronise after the launch says cudaErrorLaunchFailure


# Slow (the Math API's program alone takes nvcc half a minute): it says the programs are CUDA that a GPU builds,
# which only a change to them can alter.
@pytest.mark.slow
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_each_program_is_a_kernel_nvcc_builds(built_tree, config, tmp_path, program):
    # Compiled as the grader compiles a kernel.cu (Lab 1's command, with the program in and its object out).
    step = without_cache(built_tree.kernel_compile("01_vector_add", "student").command)
    replaced = {"-c": str(program), "-o": str(tmp_path / "program.o"), "-MF": str(tmp_path / "program.d")}
    command = step[:1] + [f"-I{PROGRAMS_DIR}"] + [replaced.get(flag, arg) for flag, arg in pairwise(step)]
    compiled = proc.run(
        command, config.timeouts["build"], cwd=built_tree.directory, env={"PATH": built_tree.tool_path()}
    )
    assert compiled.ok, compiled.tail(30)


def test_what_the_emulator_cannot_run_fails_its_build_as_a_limit_of_the_emulator_where_nvcc_builds_it(
    built_tree, emulator, config, tmp_path
):
    source = tmp_path / "limits.cu"
    source.write_text(LIMIT_KERNEL)
    nvcc = subprocess.run(
        [shutil.which("nvcc", path=built_tree.tool_path()) or "nvcc", "-arch=sm_90", "-c", str(source), "-o",
         str(tmp_path / "nvcc.o")], capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert nvcc.returncode == 0, nvcc.stderr
    with pytest.raises(AssertionError) as refused:
        built_on_the_emulator(emulator, config, source, tmp_path)
    words = str(refused.value)
    for what in ("__cluster_map_shared_multicast", "tex3D", "__cluster_dims__"):
        assert re.search(rf"{LIMIT_MARKER} [^\n]*{re.escape(what)}[^\n]*a limit of the grader's CPU emulator", words), (
            words
        )


def test_the_math_program_calls_nothing_the_integrity_check_refuses(emulator, on_the_emulator):
    """Every function of the Math API, as the emulator builds it, calls only the C library's math functions or the
    emulator's own: a kernel.cu that calls one passes the integrity check of its emulator object."""
    program = on_the_emulator(PROGRAMS_DIR / "math.cu")
    runtime = harness_definitions([emulator.directory / "libcml_emu.a"])
    obj = emulator_object.without_the_emulators_own(elf.read_object(program.with_suffix(".o")), runtime)
    refused = symbols.calls(obj)
    assert not refused, "\n".join(refused)


def lab_of(kernel: Path) -> str:
    (lab,) = [lab for lab in LABS if kernel.stem.startswith(lab)]
    return lab


@pytest.mark.parametrize("kernel", LAB_KERNELS, ids=lambda p: p.stem)
def test_a_labs_correct_kernel_written_with_these_functions_passes_its_tests_on_the_emulator(
    emulator, config, tmp_path, kernel
):
    program = lab_tests_on_the_emulator(emulator, config, lab_of(kernel), kernel, tmp_path)
    run = proc.run([str(program)], config.timeouts["tests"])
    assert run.ok and "Status: SUCCESS" in run.stdout, run.tail(60)


@pytest.mark.parametrize("kernel", LAB_KERNELS, ids=lambda p: p.stem)
def test_a_labs_correct_kernel_written_with_these_functions_is_one_nvcc_builds(built_tree, config, tmp_path, kernel):
    step = built_tree.kernel_compile(lab_of(kernel), "student")
    replaced = {"-c": str(kernel), "-o": str(tmp_path / "kernel.o"), "-MF": str(tmp_path / "kernel.d")}
    command = step.command[:1] + [replaced.get(flag, arg) for flag, arg in pairwise(step.command)]
    compiled = proc.run(
        command, config.timeouts["build"], cwd=built_tree.directory, env={"PATH": built_tree.tool_path()}
    )
    assert compiled.ok, compiled.tail(30)


@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("a grid.sync() that waits for a block that returned*", "3 blocks wait at grid.sync() for 1 that returned"),
        ("grid.sync() in a launch that is not cooperative*", "grid.sync() in a launch that is not cooperative"),
    ],
)
def test_a_grid_sync_a_gpu_would_never_pass_fails_the_launch_and_says_why(emulator, config, case, words):
    # The self-test's own run skips these cases: each leaves the runtime failed, as a fault would on a GPU.
    built = build.compile_targets(emulator, ["cml_emu_selftest"], config.timeouts["build"])
    assert built.ok, built.tail(30)
    run = proc.run([str(emulator.directory / "cml_emu_selftest"), "--no-skip", f"--test-case={case}"], 60)
    assert run.ok and "1 passed" in run.stdout, run.tail()
    assert "Barrier error detected" in run.stderr and words in run.stderr, run.stderr
