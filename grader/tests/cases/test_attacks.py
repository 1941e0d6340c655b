"""The attack submissions (grader/tests/attacks) get the verdicts they must. Graded as a class would be, the
first defence each meets fails it, with a reason. With the static checks off, the next defence holds: the
checker, the sandbox, the confinement, the limits, the bounded reader. And with no defence at all (the test
program run directly) each attack does what it was written to do, so that no test here passes for want of a
working attack. The verdicts that only a GPU can give are checked on one (tools/gpu-check.sh attacks)."""

from __future__ import annotations

import fcntl
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

if not has_solutions():  # read as the module is imported, which no marker can skip
    pytest.skip(NO_SOLUTIONS, allow_module_level=True)

from grader.tests.attacks import VICTIMS, Attack, load_attacks, needs_mechanisms
from grader.tests.support.cases import Case, gpu_evidence, judge_case

SEED = 20261123
ATTACKS = load_attacks()


def expectations(attack: Attack, *keys: str) -> list[str]:
    return [pattern for key in keys for pattern in attack.spec.get(key, [])]


def matches(name: str, pattern: str) -> bool:
    return name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern


def statuses(lab: dict, pattern: str) -> set[str]:
    found = {check["status"] for check in lab["checks"] if matches(check["name"], pattern)}
    seen = [f"{check['name']}: {check['status']}: {check['detail'][:300]}" for check in lab["checks"]]
    assert found, f"no check named {pattern!r}: {seen}"
    return found


def assert_expected(lab: dict, failing: list[str], passing: list[str], how: str = "") -> None:
    """Every check each of `failing` names failed, and every one each of `passing` names passed; `how` the lab's
    grade was judged, for the message."""
    said = f" ({how})" if how else ""
    for pattern in failing:
        assert "failed" in statuses(lab, pattern), f"{pattern} should have failed{said}: {lab['checks']}"
    for pattern in passing:
        assert statuses(lab, pattern) == {"passed"}, f"{pattern} should have passed{said}: {lab['checks']}"


# What an attack does to the machine, which only a grade run here can show: such a grade is never judged from
# evidence recorded earlier.
OBSERVED_ON_THE_HOST = ("unguarded_untouched", "unguarded_absent", "unguarded_port", "unguarded_secret", "flood_bytes")


def observed_on_the_host(attack: Attack) -> bool:
    return any(key in attack.spec for key in OBSERVED_ON_THE_HOST)


def case(attack: Attack, whole: bool, static_checks: bool = True) -> Case:
    """The attack as a case of the suite: graded with the static checks, or without them (`.unguarded`). `whole`:
    the slow tier, where the sample of each defence layer (attack.toml: end_to_end) is graded end to end."""
    wanted = expectations(
        attack, "fail", "pass", "unguarded_fail", "unguarded_pass", "gpu_fail", "gpu_unguarded_fail",
        "emulator_fail", "emulator_unguarded_pass", "emulator_unguarded_fail",
    )  # fmt: skip
    observed = not static_checks and observed_on_the_host(attack)
    return Case(
        suite="attacks",
        name=attack.name if static_checks else f"{attack.name}.unguarded",
        lab=attack.lab,
        kernel=attack.kernel().encode(),
        seed=SEED,
        static_checks=static_checks,
        mechanisms=needs_mechanisms(wanted),
        variants=("solution", "student") if attack.spec.get("solution_first") else ("student",),
        end_to_end=observed or (whole and static_checks and attack.spec.get("end_to_end", False)),
        recorded="lto_assembler_option" not in attack.spec,  # its compiler IR is this machine's gcc's, made anew
    )


def grade(attack: Attack, tree, folder, device, record_property, whole: bool, static_checks: bool = True) -> dict:
    """The attack's grade as a class would get it, its lab's entry of the run's JSON: judged from its recorded
    evidence, or graded end to end in the tests' build folder."""
    judged = judge_case(case(attack, whole, static_checks), tree.directory, folder, device)
    record_property("evidence", judged.how)
    return judged.student


def built(attack: Attack, tree, folder, device) -> Path:
    """The attack's programs built as its grade builds them with the static checks off, in the same order, and
    nothing run: whether the build fails is for its grade to tell. Its test program."""
    submission = attack.write_submission(folder / "submission")
    request = GradeRequest(
        labs=[attack.lab], submission=submission, build_dir=tree.directory, seed=SEED, work_dir=folder / "work",
        variants=("solution", "student") if attack.spec.get("solution_first") else ("student",),
    )  # fmt: skip
    session = start(request)
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
def test_graded_as_a_class_would_be_the_first_defence_fails_it(
    attack, device, built_tree, whole_grades, tmp_path, record_property
):
    lab = grade(attack, built_tree, tmp_path, device, record_property, whole_grades)
    # emulator_*: what only the CPU emulator's build shows, where it grades (no GPU)
    failing = expectations(attack, "fail", "gpu_fail" if device.present else "emulator_fail")
    assert_expected(lab, failing, expectations(attack, "pass"))
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
    pytest.param(a, marks=[pytest.mark.slow] if observed_on_the_host(a) else [], id=a.name)
    for a in ATTACKS
    if any(key.startswith(("unguarded_", "gpu_unguarded_", "emulator_unguarded_")) for key in a.spec)
]


@pytest.mark.parametrize("attack", UNGUARDED)
def test_with_the_static_checks_off_the_next_defence_holds(
    attack, device, victims, built_tree, whole_grades, tmp_path, record_property
):
    spec = attack.spec
    listener = Listener(spec["unguarded_port"]) if "unguarded_port" in spec else None
    memory_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    lab = grade(attack, built_tree, tmp_path, device, record_property, whole_grades, static_checks=False)
    memory_grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - memory_before) / 1024
    time.sleep(spec.get("unguarded_linger_s", 0))
    unguarded_fail = ["gpu_unguarded_fail"] if device.present else ["emulator_unguarded_fail"]
    unguarded_pass = [] if device.present else ["emulator_unguarded_pass"]
    failing = expectations(attack, "unguarded_fail", *unguarded_fail)
    assert_expected(lab, failing, expectations(attack, "unguarded_pass", *unguarded_pass))
    if "unguarded_says" in spec and not device.present:
        details = " ".join(c["detail"] for c in lab["checks"] if c["status"] == "failed")
        assert spec["unguarded_says"] in details, f"no failure says {spec['unguarded_says']!r}: {lab['checks']}"
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


# An attack's grade on a GPU, as its evidence recorded there shows it: with the static checks on, and off where the
# attack is graded so too. What only a GPU shows (a timed launch, ncu's counters, the sanitizers, the timeline
# that CUPTI records) is named by gpu_fail and gpu_unguarded_fail.
ON_A_GPU = [
    pytest.param(attack, guarded, id=attack.name if guarded else f"{attack.name}.unguarded")
    for attack in ATTACKS
    for guarded in (True, False)
    if guarded or any(key.startswith(("unguarded_", "gpu_unguarded_")) for key in attack.spec)
]


@pytest.mark.parametrize(("attack", "guarded"), ON_A_GPU)
def test_without_a_gpu_its_grade_on_a_gpu_is_judged_from_evidence_recorded_on_one(
    attack, guarded, device, record_property
):
    """A machine without a GPU judges an attack's GPU verdict from the evidence a GPU recorded of it, against that
    GPU's thresholds, and says so; with none recorded, or none recorded since the attack, the harness or the
    grader's code changed, it says that the case needs a GPU again, and skips it."""
    if device.present:
        pytest.skip("graded on this GPU by the tests above")
    found = gpu_evidence(case(attack, whole=False, static_checks=guarded))
    if not found:
        wanted = "gpu_fail" if guarded else "gpu_unguarded_fail"
        what = "what only a GPU shows" if wanted in attack.spec else "its grade on a GPU"
        pytest.skip(f"{what} needs a GPU: {device.reason}; and no evidence recorded on one")
    prefix = "" if guarded else "unguarded_"
    for _, judged in found:
        if isinstance(judged, str):
            pytest.skip(f"needs a GPU: {device.reason}; {judged}")
        record_property("evidence", judged.how)
        failing = expectations(attack, f"{prefix}fail", f"gpu_{prefix}fail")
        assert_expected(judged.student, failing, expectations(attack, f"{prefix}pass"), judged.how)


def compiled_alone(attack: Attack, tree, folder) -> Path:
    """The attack's kernel.cu compiled with nvcc in the build folder, with no sandbox: its object."""
    source = folder / "attack.cu"
    source.write_text(attack.kernel())
    include = ["-I", str(REPO_ROOT / "common"), "-I", str(REPO_ROOT / "tests" / attack.lab)]
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    subprocess.run([nvcc, "-c", *include, str(source), "-o", str(folder / "attack.o")], cwd=tree.directory, check=True)
    return folder / "attack.o"


def embedded_bytes(attack: Attack, tree, folder) -> int:
    """The size of what the attack's .incbin took in, compiled with nvcc in the build folder with no sandbox."""
    compiled_alone(attack, tree, folder)
    listed = subprocess.run(["nm", str(folder / "attack.o")], capture_output=True, text=True, check=True).stdout
    address = {line.split()[-1]: int(line.split()[0], 16) for line in listed.splitlines() if "solution_" in line}
    return address["solution_end"] - address["solution_start"]


CONTROLLED = [
    a for a in ATTACKS if any(key.startswith(("unguarded_", "control_")) for key in a.spec) or "flood_bytes" in a.spec
]


@pytest.mark.slow
@pytest.mark.parametrize("attack", CONTROLLED, ids=lambda a: a.name)
def test_without_any_defence_the_attack_works(attack, device, victims, built_tree, tmp_path):
    """The attack's own test program, run directly (no sandbox, no confinement, no checker): the harm it is
    written to do happens, so the tests above can fail."""
    spec = attack.spec
    program = built(attack, built_tree, tmp_path, device)  # what a grade of it does is checked above
    if spec.get("control_embeds"):
        assert embedded_bytes(attack, built_tree, tmp_path) > 0, (
            "compiled outside the sandbox, it should embed the library"
        )
        return
    if spec.get("control_links_with_the_plugin"):
        main = tmp_path / "main.c"
        main.write_text("int main(void) { return 0; }\n")
        link = ["g++", str(main), str(compiled_alone(attack, built_tree, tmp_path)), "-o", str(tmp_path / "linked")]
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
