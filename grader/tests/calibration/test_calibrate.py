"""Calibrate's thresholds: between the slowest correct kernel and the fastest wrong one, a margin away from
both, or not graded where no such threshold exists; each with what it was derived from."""

import json

import pytest

from grader.calibration.calibrate import MIN_MARGIN, Kernel, group_thresholds, separate
from grader.core.config import REPO_ROOT, Lab
from grader.core.exits import GraderError
from grader.grading.context import Context
from grader.tests.support.grading import load_tool

LAB = Lab("05_padded_transpose", "Transpose", {"correctness": 50, "mechanism": 25, "performance": 25}, "naive")


def test_the_threshold_lies_between_the_slowest_correct_and_the_fastest_wrong():
    found = separate({"solution": 6.6, "padded 32x32": 3.55}, {"the baseline": 1.0}, noise=0.01, unit="x{:.2f}")
    assert found.threshold is not None and 1.0 * (1 + MIN_MARGIN) < found.threshold < 3.55 * (1 - MIN_MARGIN)
    assert "padded 32x32" in found.why and "x3.55" in found.why and "the baseline" in found.why


def test_no_threshold_where_the_margin_cannot_be_kept():
    found = separate({"tile": 0.96}, {"the baseline": 1.0}, noise=0.005, unit="x{:.2f}")
    assert found.threshold is None and "cannot separate" in found.why


def test_the_margin_grows_with_the_noise_measured():
    quiet = separate({"tile": 1.2}, {"the baseline": 1.0}, noise=0.0, unit="x{:.2f}")
    noisy = separate({"tile": 1.2}, {"the baseline": 1.0}, noise=0.06, unit="x{:.2f}")
    assert quiet.threshold is not None and noisy.threshold is None


def kernel(name, kind, speedup, fraction, must_fail="") -> Kernel:
    found = Kernel(name, kind, must_fail)
    found.values[("", "speedup")] = [speedup, speedup * 1.01]
    found.values[("", "copy fraction")] = [fraction, fraction]
    return found


def test_a_wrong_kernel_counts_only_against_the_check_of_its_lesson():
    kernels = [
        kernel("the solution", "correct", 6.6, 0.94),
        kernel("slow padded", "correct", 3.5, 0.5),
        kernel("the baseline", "wrong", 1.0, 0.14),
        kernel("no padding", "wrong", 3.7, 0.54, must_fail="ncu: shared-memory bank conflicts"),
        kernel("strided writes", "wrong", 1.1, 0.15, must_fail="speedup"),
    ]
    entries = group_thresholds(LAB, "", kernels)
    numbers = {key: value for key, value in entries.items() if isinstance(value, float)}
    said = {key: value for key, value in entries.items() if isinstance(value, str)}
    assert 1.1 < numbers["min_speedup"] < 3.5  # the unpadded tile is a counter's business, not time's
    assert "strided writes" in said["speedup_from"] and "slow padded" in said["speedup_from"]
    assert 0.14 < numbers["min_copy_fraction"] < 0.5 and entries["reference_speedup"] == round(6.6 * 1.005, 3)
    assert "not_graded" not in entries


@pytest.mark.needs_solutions
def test_calibrate_writes_a_thresholds_file_the_grader_reads_back(tmp_path, monkeypatch):
    """Every lab, measured by stand-in benchmarks: correct kernels at x3 or more, wrong ones at x1.1, the same in
    every run; what calibrate writes loads as a target, each number with its derivation."""
    from grader.calibration import calibrate as module
    from grader.calibration.variants import load_variants
    from grader.core.config import load_config, load_target
    from grader.core.model import BenchResult, KernelTiming
    from grader.execution.gpu import Gpu
    from grader.execution.proc import Outcome
    from grader.steps.bench import BenchRun
    from grader.steps.build import BuildTree

    config = load_config()
    kinds = {v.name: v.kind for v in load_variants()}

    def fake_bench(program, timeout_s):
        name = program.name.split("__")[-1].removesuffix("_bench") if "variant_" in program.name else "solution"
        lab = config.lab(program.name.removeprefix("variant_")[:2])
        speedup = 1.1 if kinds.get(name) == "wrong" else 3.0 if name != "solution" else 5.0
        kernels = []
        for group in lab.graded_groups or [""]:
            kernels += [
                KernelTiming("base", "baseline", group, True, True, "ok", 10.0, 0.01, 10.0, 0.0, bytes=1e8),
                KernelTiming(
                    "mine", "student", group, True, True, "ok", 10.0 / speedup, 0.01, 10.0 * speedup, 0.0, bytes=1e8
                ),
            ]
        return BenchRun(Outcome(["x"], 0, "", "", 1.0), BenchResult("GPU", 100.0, "n", kernels))

    ok = Outcome(["meson"], 0, "", "", 1.0)
    monkeypatch.setattr(module, "compile_targets", lambda *args, **kwargs: ok)
    monkeypatch.setattr(module, "run_bench", fake_bench)
    tree = BuildTree(tmp_path, "sm_90", variants=True)
    gpu = Gpu(True, "Test GPU", "9.0")
    kept = tmp_path / "measured.json"
    first, second = config.labs[:3], config.labs[3:]  # in two calls, as a GPU's time limit may ask
    module.calibrate(config, tree, gpu, 2, first, kept, tmp_path / "t.toml", lambda _: None)
    assert "Not measured yet" in (tmp_path / "t.toml").read_text()
    path, measured = module.calibrate(config, tree, gpu, 2, second, kept, tmp_path / "t.toml", lambda _: None)
    assert "Not measured yet" not in path.read_text()
    target = load_target(path)
    for lab in config.labs:
        for group, limits in target.for_lab(lab.name).items():
            assert limits.min_speedup is not None and 1.1 < limits.min_speedup < 3.0, (lab.name, group, limits)
            assert "slowest correct" in limits.speedup_from and limits.reference_speedup == 5.0
    assert set(measured) == {lab.name for lab in config.labs}
    assert "# Runs of each kernel, by lab: 01: 2, 02: 2, 03: 2" in path.read_text()
    again = module.rewrite(config, kept, tmp_path / "again.toml")  # from the measurements alone, no GPU
    assert again.read_text() == path.read_text()


def test_one_run_measures_no_spread_and_the_derivation_says_so():
    once = Kernel("the solution", "correct")
    once.values[("", "speedup")] = [1.4]
    baseline = Kernel("the baseline", "wrong")
    baseline.values[("", "speedup")] = [1.0, 1.0, 1.0]  # 1 by definition: no measurement of noise
    assert once.spread("", "speedup") is None and baseline.spread("", "speedup") is None
    found = separate({"tile": 1.4}, {"the baseline": 1.0}, noise=None, unit="x{:.2f}")
    assert found.threshold is not None and "not measured: one run" in found.why
    lab = Lab("04_tiled_gemm", "SGEMM", {"correctness": 50, "mechanism": 25, "performance": 25}, "naive")
    entries = group_thresholds(lab, "", [once, baseline])
    assert "not measured: one run" in str(entries["speedup_from"])


def test_a_spread_measured_on_the_baseline_alone_is_named_so():
    kernels = [kernel("the baseline", "wrong", 1.0, 0.14), kernel("the solution", "correct", 6.6, 0.94)]
    for k in kernels[1:]:
        for key in k.values:
            k.values[key] = k.values[key][:1]  # one run of every kernel but the baseline
    entries = group_thresholds(LAB, "", kernels)
    assert "of the baseline alone" in str(entries["copy_fraction_from"])
    twice = [kernel("the baseline", "wrong", 1.0, 0.14), kernel("the solution", "correct", 6.6, 0.9)]
    both = group_thresholds(LAB, "", twice)
    assert "baseline alone" not in str(both["speedup_from"])


@pytest.mark.needs_solutions
def test_the_shipped_thresholds_are_what_their_measurements_give(tmp_path):
    """grader/targets/h100.toml and h200.toml, written again from results/calibration/*-measurements.json by
    `./cml calibrate --rewrite`, come out the same: every number they hold comes from the recorded figures."""
    from grader.calibration.calibrate import rewrite
    from grader.core.config import TARGETS_DIR, load_config

    for gpu in ("h100", "h200"):
        measurements = REPO_ROOT / "results" / "calibration" / f"{gpu}-measurements.json"
        written = rewrite(load_config(), measurements, tmp_path / f"{gpu}.toml")
        assert written.read_text() == (TARGETS_DIR / f"{gpu}.toml").read_text(), gpu


def test_drift_sets_a_later_grade_s_measured_ratio_beside_calibrate_s_median(tmp_path):
    drift = load_tool("calibration_drift")
    record = {"kind": "correct", "must_fail": "", "wrong_results": [], "values": {"R = 32 / speedup": [2.0, 2.2]}}
    measurements = {"device": "GPU", "labs": {"03_smoothing_halo": {"tiled": record}}}
    for run, value in (("a", 2.31), ("b", 2.2)):
        checks = [
            {"name": "speedup over naive (R = 32)", "category": "performance", "status": "passed", "measured": value},
            {
                "name": "speedup over naive (R = 1)",
                "category": "performance",
                "status": "not graded",
                "detail": "x0.73",
            },
        ]
        (tmp_path / run / "03_smoothing_halo").mkdir(parents=True)
        facts = {"title": "t", "variant": "solution", "kernel_path": "k", "verdict": "passed", "points": 0}
        lab = {"lab": "03_smoothing_halo", **facts, "max_points": 0, "checks": checks}
        grade = {"labs": [lab], "score": 0, "max_score": 0}
        (tmp_path / run / "03_smoothing_halo" / "tiled.json").write_text(json.dumps(grade))
    table, largest = drift.drift_table(measurements, [tmp_path / "a", tmp_path / "b"])
    # The median of 2.31 and 2.2, 2.255, against 2.1: +7.4%. R = 1 carries no measured field, so it has no row.
    assert "| 03 | tiled | R = 32 | speedup | x2.10 (2) | x2.20 to x2.31 (2) | +7.4% |" in table
    assert "R = 1" not in table and abs(largest - 0.07381) < 1e-4


@pytest.mark.needs_solutions
def test_the_handouts_and_slides_state_the_shipped_thresholds(capsys):
    """Every lab's handout and slide deck holds the thresholds block, written from grader/targets/ as it is now
    (tools/handout_thresholds.py), so neither quotes a number a new calibration has replaced."""
    assert load_tool("handout_thresholds").main(["--check"]) == 0, capsys.readouterr().err


def test_a_handout_quoting_an_old_threshold_is_stale():
    tool = load_tool("handout_thresholds")
    from grader.core.config import TARGETS_DIR, load_config, load_target

    lab = load_config().lab("05")
    current = tool.block(lab, [load_target(TARGETS_DIR / "h100.toml")], handout=True)
    assert "at least x1.87" in current  # the H100's threshold since 2026-11-25's calibration
    stale = f"intro\n{current.replace('at least x1.87', 'at least x4.38')}\nmore\n"
    assert tool.updated(stale, current) == f"intro\n{current}\nmore\n" != stale
    assert tool.updated("a handout without the markers", current) is None


@pytest.mark.needs_solutions
def test_calibrate_times_the_reference_solution_s_steps_and_the_grader_derives_their_limits(tmp_path, monkeypatch):
    """--times-only: two timings of Lab 1's reference solution (stand-ins), added to the kernels' measurements of
    an earlier calibration, which are kept as they were; the file records the longest run of each step."""
    from grader.calibration import calibrate as module
    from grader.core.config import TARGETS_DIR, load_config, load_target
    from grader.execution.gpu import Gpu
    from grader.steps.build import BuildTree
    from grader.steps.time_limits import MARGIN_S, step_limit

    def not_measured_again(*args, **kwargs):
        raise AssertionError("--times-only benchmarks no kernel")

    monkeypatch.setattr(module, "run_bench", not_measured_again)
    monkeypatch.setattr(module, "compile_targets", not_measured_again)
    shipped = json.loads((REPO_ROOT / "results" / "calibration" / "h100-measurements.json").read_text())
    earlier = {key: value for key, value in shipped.items() if key != "step_seconds"}  # no lab timed yet
    kept = tmp_path / "measured.json"
    kept.write_text(json.dumps(earlier | {"device": "Test GPU"}))
    config = load_config()
    timings = iter([{"tests": 3.0, "memcheck": 9.0}, {"tests": 4.46, "memcheck": 8.0}])
    gpu = Gpu(True, "Test GPU", "9.0")
    path, _ = module.calibrate(
        config, BuildTree(tmp_path, "sm_90"), gpu, 2, [config.lab("01")], kept, tmp_path / "t.toml", lambda _: None, lambda lab: next(timings),
        times_only=True,
    )  # fmt: skip
    written = load_target(path)
    assert written.reference_seconds == {"01_vector_add": {"tests": 4.5, "memcheck": 9.0}}
    assert written.thresholds == load_target(TARGETS_DIR / "h100.toml").thresholds  # the kernels' figures kept
    assert json.loads(kept.read_text())["step_seconds"] == {
        "01_vector_add": {"tests": [3.0, 4.46], "memcheck": [9.0, 8.0]}
    }
    limit = step_limit(config, written, "01_vector_add", "tests", "Test GPU")
    assert (limit.seconds, limit.why) == (35, "the reference solution takes 4.5 s here") and 35 == 5 + MARGIN_S
    assert "No reference_seconds" not in path.read_text()
    assert module.rewrite(config, kept, tmp_path / "again.toml").read_text() == path.read_text()


def test_the_steps_are_timed_with_the_fixed_limits_at_the_largest_sizes_and_only_from_a_passing_run(
    tmp_path, monkeypatch
):
    from grader.calibration import calibrate as module
    from grader.core.config import Target, load_config
    from grader.core.model import Category, Check, LabGrade, Status
    from grader.execution.gpu import Gpu
    from grader.steps.build import BuildTree

    config = load_config()
    lab = config.lab("03")
    seen: dict[str, object] = {}

    def graded(ctx, lab, variant):
        seen.update(target=ctx.target, sizes=ctx.instructor_sizes, variant=variant)
        grade = LabGrade(lab.name, lab.title, variant, "kernel.cu", program_seconds={"tests": 2.5})
        grade.checks = [Check("memcheck", Category.MECHANISM, verdict) for verdict in statuses]
        return grade

    monkeypatch.setattr(module, "grade_lab", graded)
    earlier = Target("h100", "an earlier calibration", ["Test GPU"], {}, reference_seconds={lab.name: {"tests": 0.1}})
    ctx = Context(config, BuildTree(tmp_path, "sm_90"), Gpu(True, "Test GPU", "9.0"), earlier, None, None)
    statuses = [Status.PASSED, Status.NOT_RUN]
    assert module.time_steps(ctx, lab) == {"tests": 2.5}
    assert seen == {"target": None, "sizes": {lab.name: ["300000x64"] * 3}, "variant": "solution"}
    statuses = [Status.FAILED]
    with pytest.raises(GraderError, match="failed memcheck"):
        module.time_steps(ctx, lab)


def test_each_benchmark_has_the_card_to_itself_while_it_runs(monkeypatch, tmp_path):
    """A grader on the same card holds its lock file shared for its tests: while calibrate's benchmark runs, no
    shared hold of that file is granted."""
    import fcntl
    import os

    from grader.calibration import calibrate as module
    from grader.core.config import load_config
    from grader.core.model import BenchResult, KernelTiming
    from grader.execution.gpu_lock import GpuLock
    from grader.execution.proc import Outcome
    from grader.steps.bench import BenchRun
    from grader.steps.build import BuildTree

    card = tmp_path / "card.gpu.lock"
    refused = []

    def bench_while_a_grader_asks(program, timeout_s):
        handle = os.open(card, os.O_RDWR)
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            refused.append(program.name)
        finally:
            os.close(handle)
        kernels = [
            KernelTiming("base", "baseline", "", True, True, "ok", 10.0, 0.01, 10.0, 0.0, bytes=1e8),
            KernelTiming("mine", "student", "", True, True, "ok", 5.0, 0.01, 20.0, 0.0, bytes=1e8),
        ]
        return BenchRun(Outcome(["x"], 0, "", "", 1.0), BenchResult("GPU", 100.0, "n", kernels))

    monkeypatch.setattr(module, "run_bench", bench_while_a_grader_asks)
    lab = load_config().lab("01")
    module.measure(load_config(), BuildTree(tmp_path, "sm_90"), lab, [], 2, lambda _: None, GpuLock(card))
    assert len(refused) == 2  # the solution's benchmark, in each of the two runs
