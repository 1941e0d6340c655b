"""The attack submissions (grader/tests/attacks) get the verdicts they must. Graded as a class would be, the
first defence each meets fails it, with a reason. With the static checks off, the next defence holds: the
checker, the sandbox, the confinement, the limits, the bounded reader. And with no defence at all (the test
program run directly) each attack does what it was written to do, so that no test here passes for want of a
working attack. The verdicts that only a GPU can give are checked on one (tools/gpu-check.sh attacks)."""

from __future__ import annotations

import fcntl
import os
import resource
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from grader.core.config import REPO_ROOT
from grader.grading import gather
from grader.grading.session import GradeRequest, start
from grader.platforms.edition import NO_SOLUTIONS, has_solutions
from grader.reporting import report

if not has_solutions():  # read as the module is imported, which no marker can skip
    pytest.skip(NO_SOLUTIONS, allow_module_level=True)

from grader.tests.attacks import VICTIMS, Attack, load_attacks

SEED = 20261123
ATTACKS = load_attacks()
# Where its grades build: tools/gpu-check.sh gives each of the processes it runs at once a folder of its own.
BUILDS = REPO_ROOT / os.environ.get("CML_TEST_BUILDS", "build-attacks")
MECHANISM_TOOLS = ("racecheck", "memcheck", "ncu", "synccheck", "initcheck", "resources", "schedule")
pytestmark = pytest.mark.slow


def expectations(attack: Attack, *keys: str) -> list[str]:
    return [pattern for key in keys for pattern in attack.spec.get(key, [])]


def matches(name: str, pattern: str) -> bool:
    return name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern


def statuses(lab: dict, pattern: str) -> set[str]:
    found = {check["status"] for check in lab["checks"] if matches(check["name"], pattern)}
    seen = [f"{check['name']}: {check['status']}: {check['detail'][:300]}" for check in lab["checks"]]
    assert found, f"no check named {pattern!r}: {seen}"
    return found


def request(attack: Attack, folder, device) -> GradeRequest:
    """The attack's grade as a submission."""
    wanted = expectations(
        attack, "fail", "pass", "unguarded_fail", "unguarded_pass", "gpu_fail", "gpu_unguarded_fail",
        "emulator_fail", "emulator_unguarded_pass", "emulator_unguarded_fail",
    )  # fmt: skip
    return GradeRequest(
        labs=[attack.lab],
        submission=attack.write_submission(folder / "submission"),
        build_dir=BUILDS / attack.lab,
        seed=SEED,
        mechanisms=any(p.startswith(MECHANISM_TOOLS) for p in wanted),
        bench=device.present,
        variants=("solution", "student") if attack.spec.get("solution_first") else ("student",),
        jobs=1,  # one variant after the other: solution_first means the solution is built before the attack
        work_dir=folder / "work",
    )


def grade(attack: Attack, folder, device, static_checks: bool = True) -> dict:
    """The attack graded as a submission (in-process), its lab's entry of the run's JSON."""
    session = start(request(attack, folder, device))
    context = session.build()
    context.static_checks = static_checks
    labs = report.run_dict(session.grade(), session.facts())["labs"]
    return next(lab for lab in labs if lab["variant"] == "student")


def built(attack: Attack, folder, device) -> Path:
    """The attack's programs built as its grade builds them with the static checks off, in the same order, and
    nothing run: whether the build fails is for its grade to tell. Its test program."""
    session = start(request(attack, folder, device))
    context = session.build()
    context.static_checks = False
    lab = context.config.lab(attack.lab)
    for variant in session.request.variants:
        for emulated in (False, True) if context.emulator else (False,):
            gather.built(context, lab, variant, emulated=emulated)
    return context.program(attack.lab, "student", "test", emulated=not device.present)


@pytest.fixture
def victims(attack):
    """What the host-harm attacks aim at: a file of the grader's, a classmate's kernel.cu. Remade for each attack
    that names them, one such attack at a time across pytest processes (tools/gpu-check.sh runs several at
    once, and each remaking would wipe another's files); left alone for the others."""
    if str(VICTIMS) not in repr(attack.spec):
        yield VICTIMS
        return
    with open(f"{VICTIMS}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(VICTIMS, ignore_errors=True)
        (VICTIMS / "classmate").mkdir(parents=True)
        (VICTIMS / "victim.txt").write_text("pristine")
        (VICTIMS / "classmate" / "kernel.cu").write_text("// CLASSMATE-SECRET-7781: another student's work\n")
        VICTIMS.chmod(0o777)  # as writable as a careless instructor's files: only the sandbox is between
        for path in VICTIMS.rglob("*"):
            path.chmod(0o777 if path.is_dir() else 0o666)
        yield VICTIMS
        shutil.rmtree(VICTIMS, ignore_errors=True)


class Listener:
    """A TCP listener on 127.0.0.1 that keeps whatever arrives."""

    def __init__(self, port: int) -> None:
        self.server = socket.create_server(("127.0.0.1", port), reuse_port=True)
        self.server.settimeout(0.2)
        self.received = b""
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while not self.stop.is_set():
            try:
                connection, _ = self.server.accept()
            except TimeoutError:
                continue
            with connection:
                self.received += connection.recv(64)

    def close(self) -> bytes:
        self.stop.set()
        self.thread.join()
        self.server.close()
        return self.received


def test_every_attack_is_of_a_family_and_builds_from_the_solution():
    assert ATTACKS and all(attack.spec["family"] and attack.kernel() for attack in ATTACKS)


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_graded_as_a_class_would_be_the_first_defence_fails_it(attack, device, tmp_path):
    lab = grade(attack, tmp_path, device)
    # emulator_*: what only the CPU emulator's build shows, where it grades (no GPU)
    failing = expectations(attack, "fail", "gpu_fail" if device.present else "emulator_fail")
    for pattern in failing:
        assert "failed" in statuses(lab, pattern), f"{pattern} should have failed: {lab['checks']}"
    for pattern in expectations(attack, "pass"):
        assert statuses(lab, pattern) == {"passed"}, f"{pattern} should have passed: {lab['checks']}"
    if not attack.spec.get("fail") and (device.present or not attack.spec.get("emulator_fail")):
        # nothing static to see: the grade must get as far as the tests
        assert all(c["status"] != "failed" for c in lab["checks"] if c["category"] == "build"), lab["checks"]
    if "not_in_report" in attack.spec:
        assert attack.spec["not_in_report"] not in str(lab)
    if "fail_says" in attack.spec:
        details = " ".join(c["detail"] for c in lab["checks"] if c["status"] == "failed")
        assert attack.spec["fail_says"] in details, f"no failure says {attack.spec['fail_says']!r}: {lab['checks']}"
    if "in_report" in attack.spec:
        assert attack.spec["in_report"] in str(lab), lab["checks"]


UNGUARDED = [
    a for a in ATTACKS if any(key.startswith(("unguarded_", "gpu_unguarded_", "emulator_unguarded_")) for key in a.spec)
]


@pytest.mark.parametrize("attack", UNGUARDED, ids=lambda a: a.name)
def test_with_the_static_checks_off_the_next_defence_holds(attack, device, victims, tmp_path):
    spec = attack.spec
    listener = Listener(spec["unguarded_port"]) if "unguarded_port" in spec else None
    memory_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    lab = grade(attack, tmp_path, device, static_checks=False)
    memory_grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - memory_before) / 1024
    time.sleep(spec.get("unguarded_linger_s", 0))
    unguarded_fail = ["gpu_unguarded_fail"] if device.present else ["emulator_unguarded_fail"]
    for pattern in expectations(attack, "unguarded_fail", *unguarded_fail):
        assert "failed" in statuses(lab, pattern), f"{pattern} should have failed: {lab['checks']}"
    if "unguarded_says" in spec and not device.present:
        details = " ".join(c["detail"] for c in lab["checks"] if c["status"] == "failed")
        assert spec["unguarded_says"] in details, f"no failure says {spec['unguarded_says']!r}: {lab['checks']}"
    for pattern in expectations(attack, "unguarded_pass", *([] if device.present else ["emulator_unguarded_pass"])):
        assert statuses(lab, pattern) == {"passed"}, f"{pattern} should have passed: {lab['checks']}"
    for name in spec.get("unguarded_untouched", []):
        assert (victims / name).read_text() in ("pristine", "// CLASSMATE-SECRET-7781: another student's work\n")
    for name in spec.get("unguarded_absent", []):
        assert not (victims / name).exists(), f"{name} was written outside the sandbox"
    if "unguarded_secret" in spec:
        assert spec["unguarded_secret"] not in str(lab)
    if listener:
        assert listener.close() == b"", "the submission reached a port of the grading machine"
    if "flood_bytes" in spec:
        assert memory_grown_mb < spec["flood_bytes"] / 10 / 1e6, f"the grader grew by {memory_grown_mb:.0f} MB"


def compiled_alone(attack: Attack, folder) -> Path:
    """The attack's kernel.cu compiled with nvcc in the build folder, with no sandbox: its object."""
    source = folder / "attack.cu"
    source.write_text(attack.kernel())
    include = ["-I", str(REPO_ROOT / "common"), "-I", str(REPO_ROOT / "tests" / attack.lab)]
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    subprocess.run(
        [nvcc, "-c", *include, str(source), "-o", str(folder / "attack.o")], cwd=BUILDS / attack.lab, check=True
    )
    return folder / "attack.o"


def embedded_bytes(attack: Attack, folder) -> int:
    """The size of what the attack's .incbin took in, compiled with nvcc in the build folder with no sandbox."""
    compiled_alone(attack, folder)
    listed = subprocess.run(["nm", str(folder / "attack.o")], capture_output=True, text=True, check=True).stdout
    address = {line.split()[-1]: int(line.split()[0], 16) for line in listed.splitlines() if "solution_" in line}
    return address["solution_end"] - address["solution_start"]


CONTROLLED = [
    a for a in ATTACKS if any(key.startswith(("unguarded_", "control_")) for key in a.spec) or "flood_bytes" in a.spec
]


@pytest.mark.parametrize("attack", CONTROLLED, ids=lambda a: a.name)
def test_without_any_defence_the_attack_works(attack, device, victims, tmp_path):
    """The attack's own test program, run directly (no sandbox, no confinement, no checker): the harm it is
    written to do happens, so the tests above can fail."""
    spec = attack.spec
    program = built(attack, tmp_path, device)  # what a grade of it does is checked above
    if spec.get("control_embeds"):
        assert embedded_bytes(attack, tmp_path) > 0, "compiled outside the sandbox, it should embed the library"
        return
    if spec.get("control_links_with_the_plugin"):
        main = tmp_path / "main.c"
        main.write_text("int main(void) { return 0; }\n")
        link = ["g++", str(main), str(compiled_alone(attack, tmp_path)), "-o", str(tmp_path / "linked")]
        subprocess.run(link, cwd=tmp_path, capture_output=True, check=False)  # whether or not it links
        for name in spec.get("unguarded_absent", []):
            assert (victims / name).exists(), f"{name}: linking it as usual did not write it"
        return
    listener = Listener(spec["unguarded_port"]) if "unguarded_port" in spec else None
    output = tmp_path / "output.txt"
    with output.open("w") as sink:
        ran = subprocess.run(
            [str(program)],
            cwd=tmp_path,
            stdout=sink,
            stderr=subprocess.STDOUT,
            timeout=600,
            env={"CML_SEED": str(SEED), "PATH": "/usr/bin:/bin"},
        )
    time.sleep(spec.get("unguarded_linger_s", 0))
    said = output.read_text(errors="replace")[:100_000]
    if spec.get("control_passes_its_own_tests"):
        assert ran.returncode == 0, f"its own tests should pass undefended: {said[-2000:]}"
    if "unguarded_untouched" in spec:
        assert (victims / "victim.txt").read_text() == "owned"
    for name in spec.get("unguarded_absent", []):
        assert (victims / name).exists(), f"{name}: the attack did not write it even undefended"
    if "unguarded_secret" in spec:
        assert spec["unguarded_secret"] in said
    if listener:
        assert b"stolen" in listener.close()
    if "control_says" in spec:
        assert spec["control_says"] in said
    if "flood_bytes" in spec:
        assert output.stat().st_size >= spec["flood_bytes"]
