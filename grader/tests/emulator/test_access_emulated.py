"""The requests the CPU emulator records for the pictures of accesses, from the planted kernels themselves (slow: each
is built for the emulator and by nvcc, and its benchmark run at its checks' size): the lanes' addresses against
hand-worked cases, and the recorded samples the quick tests draw from (grader/tests/support/access_samples.py),
which must be what the emulator and nvcc record today. CML_REFRESH_ACCESS_SAMPLES=1 writes them instead."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.core.access import LineAccess
from grader.core.config import REPO_ROOT, Config
from grader.grading.evidence import from_data
from grader.grading.plan import counted_groups
from grader.steps import access, profile, resources, sass_lines
from grader.steps.build_tree import BuildTree
from grader.steps.student_steps import StudentWork
from grader.tests.support import access_samples
from grader.tests.support.grading import built_programs, student_work
from grader.tests.support.kernels import FIXTURES_DIR, load_expect, planted_kernel, write_labs

REFRESH = os.environ.get("CML_REFRESH_ACCESS_SAMPLES") == "1"


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> StudentWork:
    """Every planted kernel of the samples, in place of its lab's skeleton."""
    root = tmp_path_factory.mktemp("planted")
    kernels = {}
    for fixture in access_samples.FIXTURES:
        expect = load_expect(FIXTURES_DIR / fixture)
        kernels[expect["lab"]] = planted_kernel(expect)
    return student_work(write_labs(root / "labs", kernels), root / "steps")


def recorded(tree: BuildTree, config: Config, lab_name: str, work: StudentWork, fixture: str) -> dict:
    """A sample, as a grade on the emulator records it: the emulator's lines of each memory group at its size,
    the solution's at the same size, nvcc's resource report and each source line's machine code."""
    lab = config.lab(lab_name)
    limit = config.timeouts["profile"]
    groups = {}
    sizes: dict[str, int] = {}
    for mechanism in lab.mechanisms:
        counted = access.counted_by(mechanism)
        if counted and counted.space != "local" and not mechanism.stretch:
            sizes[mechanism.group] = max(sizes.get(mechanism.group, 0), mechanism.profile_size)
    if sizes:
        student = built_programs(tree, config, lab_name, "student", emulated=True, work=work)["bench"]
        solution = built_programs(tree, config, lab_name, "solution", emulated=True)["bench"]
    for group, size in sizes.items():
        roles, metrics = counted_groups(lab)[group]
        runs = profile.read_emulated_counters(student, metrics, access.drawn_roles(roles), group, size, limit)
        outcome, data = profile.run_emulator_profile(solution, ("--profile", "--size", str(size)), limit)
        assert outcome.ok and data, outcome.tail(20)
        groups[group] = access_samples.GroupSample(
            size,
            {role: access_samples.RoleRun(run.totals, run.kernels, run.lines) for role, run in runs.items()},
            access.reference_lines(data, group),
        )
    built_programs(tree, config, lab_name, "student", emulated=False, work=work)
    folders = [folder for _, folder in tree.compilers()]
    obj = work.steps(tree, lab_name).object
    sample = access_samples.Sample(
        lab_name,
        fixture,
        groups,
        resources.read_report(obj, resources.find_tool(folders)),
        sass_lines.read_lines(obj, folders),
    )
    return access_samples.sample_data(sample)


def as_recorded(name: str, fresh: dict) -> None:
    """The sample in the repository is the one made today (or is written, with CML_REFRESH_ACCESS_SAMPLES=1)."""
    if REFRESH or not access_samples.path_of(name).is_file():
        access_samples.write(name, fresh)
    assert access_samples.load(name) == fresh, (
        f"{access_samples.path_of(name)} is not what the emulator and nvcc record today: "
        "CML_REFRESH_ACCESS_SAMPLES=1 ./cml test --slow grader/tests/emulator/test_access_emulated.py writes it again"
    )


def only_line(sample: dict, group: str, role: str, space: str, op: str) -> LineAccess:
    lines = [
        line for line in sample["groups"][group]["roles"][role]["lines"] if line["space"] == space and line["op"] == op
    ]
    assert len(lines) == 1, lines
    return from_data(LineAccess, lines[0])


@pytest.mark.needs_solutions
@pytest.mark.slow
@pytest.mark.parametrize("fixture", list(access_samples.FIXTURES))
def test_the_planted_kernels_requests_are_recorded_as_the_samples_hold_them(emulator, config, planted, fixture):
    lab = load_expect(FIXTURES_DIR / fixture)["lab"]
    fresh = recorded(emulator, config, lab, planted, fixture)
    if fixture == "05_no_padding":
        # The unpadded tile read down a column: lane i reads tile[i][c], 32 floats (128 bytes) apart, every lane
        # in bank c: one request of 32 wavefronts.
        read = only_line(fresh, "", "student", "shared", "load")
        assert read.worst is not None
        column = (read.worst.lanes[0] or 0) // 4
        assert read.worst.lanes == [128 * lane + 4 * column for lane in range(32)]
        assert (read.worst.units, read.worst.ideal, read.worst.max_ways) == (32, 1, 32)
    if fixture == "01_lanes_32_apart":
        # Lanes 32 floats apart: each lane's float in a sector of its own, 32 sectors for 128 bytes.
        read = only_line(fresh, "", "student", "global", "load")
        assert read.worst is not None
        assert read.worst.lanes == [128 * lane for lane in range(32)] and read.worst.units == 32
    as_recorded(fixture, fresh)


@pytest.mark.slow
def test_the_lab_8_skeleton_s_machine_code_is_recorded_as_its_sample_holds_it(emulator, config, tmp_path):
    """Lab 8's window in local memory, which the emulator cannot see: nvcc's machine code says where it goes."""
    work = student_work(REPO_ROOT / "labs", tmp_path / "steps")
    fresh = recorded(emulator, config, "08_registers_local_memory", work, access_samples.LOCAL_SAMPLE)
    codes = fresh["machine_lines"]["lines"]
    assert any(sass_lines.opcode(i) in ("LDL", "STL") for code in codes for i in code["memory"])
    as_recorded(access_samples.LOCAL_SAMPLE, fresh)


def test_the_samples_are_the_fixtures_this_file_records():
    names = {path.stem for path in Path(access_samples.SAMPLES).glob("*.json")}
    assert names == {*access_samples.FIXTURES, access_samples.LOCAL_SAMPLE}
