"""The pictures of a student's own accesses (grader/grading/access_pictures.py and what draws them), from requests
the CPU emulator recorded of planted kernels (grader/tests/support/access_samples.py): the worst request of the
worst line against hand-worked lanes, beside the reference solution's; the text figure in 80 columns, the SVG of
the HTML report (and in Chromium), Gradescope's text, --show-access, a GPU grade's picture, and what a recorded
grade and recorded evidence keep of them."""

from __future__ import annotations

import copy
import io
import itertools
import json
import os
import xml.etree.ElementTree as ET
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from grader.cli import parse_args
from grader.core.access import AccessPicture, LineAccess, Request, kernel_name, picture_from
from grader.core.config import load_config
from grader.core.model import Status
from grader.core.recorded import read_grade
from grader.grading import access_pictures
from grader.grading.evidence import LabEvidence, from_data, to_data
from grader.reporting import access_text, report
from grader.reporting.access_units import lane_marks, lane_units
from grader.reporting.export.access_svg import access_svg
from grader.reporting.export.gradescope import gradescope_results
from grader.reporting.export.html import render_html, write_html
from grader.steps import access, profile, sass_lines
from grader.tests.support import access_samples

BANK_LOAD = "ncu: shared-memory bank conflicts per shared load (padding)"
COALESCING = "ncu: global load sectors against the lanes-32-apart kernel (coalescing)"
LOCAL = "ncu: local-memory load sectors, against the window in local memory"
H100 = "NVIDIA H100 80GB HBM3"
# Lab 8 on the H100 (results/h100-grade-08-09.json): the window in local memory, the skeleton's kernel as shipped
# and the lab's baseline, loads 528,482,304 local sectors at 32 taps; the skeleton, that kernel, as many.
LAB8_ON_THE_H100 = {
    "": {
        role: {
            "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum": 528482304.0,
            "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 1048576.0,
        }
        for role in ("student", "baseline")
    }
}


def check_of(name: str, fixture: str, **gpu) -> AccessPicture:
    grade = access_samples.grade(fixture, **gpu)
    (check,) = [c for c in grade.checks if c.name == name]
    assert check.access is not None, check
    return check.access


def drawn(picture: AccessPicture) -> tuple[Request, Request]:
    assert picture.yours is not None and picture.yours.worst is not None
    assert picture.reference is not None and picture.reference.worst is not None
    return picture.yours.worst, picture.reference.worst


# ---- the worst request, against hand-worked cases ----


def test_lab_5s_unpadded_tile_is_drawn_as_one_warp_reading_a_column_all_in_one_bank():
    grade = access_samples.grade("05_no_padding")
    (check,) = [c for c in grade.checks if c.name == BANK_LOAD]
    assert check.status is Status.FAILED and check.access is not None
    yours, theirs = drawn(check.access)
    # lane i reads tile[i][c] of a float tile[32][32]: 32 floats, 128 bytes, apart, every one in bank c
    column = (yours.lanes[0] or 0) // 4
    assert yours.lanes == [128 * lane + 4 * column for lane in range(32)]
    assert lane_units(yours, "shared").units == [[column]] * 32
    assert (yours.units, yours.ideal, yours.max_ways) == (32, 1, 32)  # a 32-way conflict: 32 wavefronts for 1
    assert check.access.yours is not None
    assert check.access.yours.place == "kernel.cu:31" and check.access.yours.conflicts == 63488
    # the solution's padded tile[32][33]: rows 33 floats apart, the same column in 32 banks
    assert theirs.lanes == [132 * lane + (theirs.lanes[0] or 0) for lane in range(32)]
    assert sorted(bank for (bank,) in lane_units(theirs, "shared").units) == list(range(32))
    assert (theirs.units, theirs.max_ways) == (1, 1)


def test_lab_1s_strided_read_is_drawn_as_lanes_32_floats_apart_in_32_sectors():
    picture = check_of(COALESCING, "01_lanes_32_apart")
    yours, theirs = drawn(picture)
    assert yours.lanes == [128 * lane for lane in range(32)]  # lanes 32 floats apart
    assert [sectors for sectors in lane_units(yours, "global").units] == [[4 * lane] for lane in range(32)]
    assert yours.units == 32 and theirs.units == 4
    assert theirs.lanes == [4 * lane for lane in range(32)]  # the solution: 32 neighbouring floats, 4 sectors
    assert lane_marks(lane_units(theirs, "global"), "global") == "0" * 8 + "1" * 8 + "2" * 8 + "3" * 8


@pytest.mark.parametrize("fixture", ["03_naive_from_global", "07_coefficients_in_global"])
def test_labs_3_and_7_failing_counter_checks_draw_the_student_s_worst_line_beside_the_solution_s(fixture):
    grade = access_samples.grade(fixture)
    failed = [check for check in grade.checks if check.status is Status.FAILED]
    assert failed, [c.detail for c in grade.checks]
    for check in failed:
        assert check.access is not None and check.access.drawn, check.name
        assert check.access.reference is not None and check.access.reference_name == access.SOLUTION
        yours = check.access.yours
        assert yours is not None and yours.file == f"labs/{grade.lab}/kernel.cu"
        assert check.access.facts.machine_code, "the line's machine code is shown beside it"
    if fixture == "07_coefficients_in_global":
        (picture,) = [check.access for check in failed if check.access and check.access.counted == "requests"]
        assert picture.yours is not None and picture.yours.worst is not None
        assert set(picture.yours.worst.lanes) == {picture.yours.worst.lanes[0]}  # a coefficient: one address for all


def test_a_line_with_the_most_of_what_is_counted_is_the_worst_then_the_most_requests_then_the_first():
    def line(number: int, requests: int, units: int, space: str = "global") -> LineAccess:
        return LineAccess("01_vector_add/kernel.cu", number, space, "load", requests, units, 0, None)

    counted = access.Counted("global", "load", "sectors")
    lines = [line(9, 10, 40), line(7, 20, 40), line(5, 20, 40), line(3, 99, 99, "shared")]
    assert access_pictures.worst_line(lines, counted) == lines[2]
    assert access_pictures.worst_line(lines, access.Counted("global", "store", "sectors")) is None


def test_every_counter_check_about_memory_says_what_it_counts():
    config = load_config()
    counted = {
        (lab.name, m.name): access.counted_by(m)
        for lab in config.labs
        for m in lab.mechanisms
        if m.tool == "ncu" and m.numerator.endswith(("_ld.sum", "_st.sum"))
    }
    assert all(counted.values()), [name for name, found in counted.items() if found is None]
    assert counted[("05_padded_transpose", BANK_LOAD)] == access.Counted("shared", "load", "bank conflicts")
    assert counted[("08_registers_local_memory", LOCAL)] == access.Counted("local", "load", "sectors")
    atomics = config.lab("11_histogram_atomics").mechanisms
    assert all(access.counted_by(m) is None for m in atomics if "red" in m.numerator)


# ---- the text figure ----


@pytest.mark.parametrize("fixture", list(access_samples.FIXTURES))
def test_the_text_figure_fits_80_columns(fixture):
    for check in access_samples.grade(fixture).checks:
        if check.access is not None:
            lines = access_text.plain(check.access).splitlines()
            assert lines and max(len(line) for line in lines) <= 80, "\n".join(lines)


def test_the_text_figure_of_the_unpadded_tile_shows_32_lanes_in_one_bank_and_each_marked():
    text = access_text.plain(check_of(BANK_LOAD, "05_no_padding"))
    yours = next(line for line in text.splitlines() if line.startswith("  yours"))
    lanes = yours.split()[1]
    assert len(lanes) == 32 and len(set(lanes)) == 1 and "32-way: 32 wavefronts for 1" in yours
    marks = text.splitlines()[text.splitlines().index(yours) + 1]
    assert marks.strip() == "^" * 32
    solution = next(line for line in text.splitlines() if line.startswith("  solution"))
    assert len(set(solution.split()[1])) == 32 and "no conflict" in solution
    assert "LDS" in text, "the line's shared loads in machine code"
    assert "registers" in text and "per SM" in text, "the kernel's resources and occupancy"


def test_a_student_s_long_and_odd_names_still_fit_80_columns_and_reach_the_terminal_as_text():
    picture = check_of(BANK_LOAD, "05_no_padding")
    assert picture.yours is not None
    odd = "[bold red]k" + "_" * 300 + "\x1b[2J"
    picture = replace(
        picture,
        yours=replace(picture.yours, file=f"{odd}/kernel.cu"),
        facts=replace(picture.facts, kernel=odd, machine_code=[odd] * 3),
    )
    lines = access_text.figure(picture)
    assert max(len(line.plain) for line in lines) <= 80
    assert all("\x1b" not in line.plain for line in lines)


def test_the_terminal_brief_draws_the_cause_s_picture_under_it():
    from grader.reporting.lab_brief import lab_brief

    shown = "\n".join(line.plain for line, _ in lab_brief(access_samples.grade("05_no_padding")))
    assert "cause: " + BANK_LOAD in shown
    assert "the worst shared load request, yours: kernel.cu:31" in shown and "^" * 32 in shown


# ---- the SVG and the HTML report ----


def test_the_svg_is_well_formed_draws_32_lanes_a_side_and_escapes_what_the_student_named():
    picture = check_of(BANK_LOAD, "05_no_padding")
    assert picture.yours is not None
    picture = replace(picture, yours=replace(picture.yours, file="<script>alert(1)</script>/kernel.cu"))
    svg = access_svg(picture)
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "<script>" not in svg and any("kernel.cu" in (t or "") for t in texts)
    lane_labels = [t for t in texts if t in {str(lane) for lane in range(32)}]
    assert len(lane_labels) >= 4 * 32  # each side: its lanes and its banks
    red = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("fill") == "#c44e52"]
    assert len(red) == 1, "one bank of yours holds the 32 words: the one red column"


def test_the_offsets_under_32_sectors_do_not_run_into_each_other():
    """Lab 1's lanes 32 floats apart: 32 sectors, 24 pixels apart, offsets up to "+3968". DejaVu Sans at 9 pixels
    draws a digit 5.7 pixels wide and "+" 7.5: each offset written lies clear of the next one written."""
    svg = access_svg(check_of(COALESCING, "01_lanes_32_apart"))
    labels = [
        (float(t.get("x") or 0), t.text or "")
        for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")
        if (t.text or "").startswith("+")
    ]
    yours = labels[: next(i for i, (_, text) in enumerate(labels[1:], 1) if text == "+0")]
    assert yours[0][1] == "+0" and yours[-1][1].startswith("+3")  # the first and near the last of 32 sectors
    for (x1, left), (x2, right) in itertools.pairwise(yours):
        width = 7.5 + 5.7 * (len(left) - 1), 7.5 + 5.7 * (len(right) - 1)
        assert x2 - x1 > (width[0] + width[1]) / 2, (left, right, x2 - x1)


def failing_run(fixture: str) -> dict:
    grade = access_samples.grade(fixture)
    return report.run_dict([grade], {"seed": grade.seed, "cpu_emulator": True})


def test_the_html_report_holds_the_picture_inline_and_loads_nothing_else():
    page = render_html(read_grade(failing_run("05_no_padding")))
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="access"') >= 2  # the cause, and its row
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page and "<script" not in page


def test_a_recorded_grade_and_recorded_evidence_keep_the_picture_as_it_was_drawn():
    run = failing_run("05_no_padding")
    (check,) = [c for c in read_grade(run).labs[0].checks if c.name == BANK_LOAD]
    (original,) = [c for c in access_samples.grade("05_no_padding").checks if c.name == BANK_LOAD]
    assert check.access == original.access
    found = access_samples.evidence(access_samples.load("05_no_padding"))
    again = from_data(LabEvidence, json.loads(json.dumps(to_data(found))))
    assert again.access == found.access
    assert {role: (run.totals, run.lines) for role, run in again.counters[""].items()} == {
        role: (run.totals, run.lines) for role, run in found.counters[""].items()
    }
    assert again.machine_lines == found.machine_lines


def test_a_grade_whose_picture_is_not_of_this_shape_is_refused_with_its_field_named():
    run = failing_run("05_no_padding")
    broken = copy.deepcopy(run)
    check = next(c for c in broken["labs"][0]["checks"] if c["name"] == BANK_LOAD)
    check["access"]["yours"]["worst"]["lanes"] = [0] * 31
    with pytest.raises(ValueError, match="lanes"):
        read_grade(broken)
    assert picture_from(check["access"] | {"yours": None}).yours is None


def test_gradescope_shows_the_figure_under_the_failing_check():
    results = gradescope_results(read_grade(failing_run("05_no_padding")))
    (test,) = [t for t in results["tests"] if t["name"].endswith(BANK_LOAD)]
    assert "the worst shared load request, yours" in test["output"] and "^" * 32 in test["output"]


@pytest.fixture(scope="module")
def browser(chromium):  # chromium: the root conftest.py's, installed only when a browser test runs
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        pytest.fail(f"Playwright for Python is not installed ({error}): ./cml test installs it", pytrace=False)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.mark.parametrize(("fixture", "name"), [("05_no_padding", BANK_LOAD), ("01_lanes_32_apart", COALESCING)])
def test_the_picture_shows_in_chromium_at_the_top_of_the_report(browser, tmp_path, fixture, name):
    """The page of a failing Lab 5 (unpadded tile) and Lab 1 (strided read) in Chromium: no error, and the cause's
    picture drawn, its red where the lanes pay. CML_ACCESS_SCREENSHOTS=DIR saves each picture as a PNG."""
    path = tmp_path / "report.html"
    write_html(read_grade(failing_run(fixture)), path)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri(), wait_until="load")
    picture = page.locator("section.causes svg.access").first
    box = picture.bounding_box()
    assert errors == [] and box is not None and box["width"] > 700 and box["height"] > 300, (errors, box)
    assert page.locator("section.causes").inner_text().count(name) == 1
    png = picture.screenshot()
    from PIL import Image  # Pillow comes with matplotlib

    pixels = Image.open(io.BytesIO(png)).convert("RGB").tobytes()
    red = sum(
        1 for r, g, b in zip(pixels[::3], pixels[1::3], pixels[2::3], strict=True) if r > 180 and g < 110 and b < 110
    )
    assert red > 200, "the lanes' cost is drawn in red"
    if os.environ.get("CML_ACCESS_SCREENSHOTS"):
        folder = Path(os.environ["CML_ACCESS_SCREENSHOTS"])
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"access-{fixture}.png").write_bytes(png)
    page.close()


# ---- a GPU grade, local memory, and a line asked for ----


def test_on_a_gpu_the_picture_comes_from_the_emulator_and_says_so_with_its_count_beside_the_gpu_s():
    picture = check_of(BANK_LOAD, "05_no_padding", gpu=H100)
    assert picture.drawn and "no GPU draws one warp's request" in picture.source
    assert "--size 256" in picture.source
    assert picture.beside.startswith("the CPU emulator counts 31 at --size 256")
    assert "NVIDIA H100" in picture.facts.occupancy
    assert "counts 31 at --size 256" in access_text.plain(picture)


def test_local_memory_which_the_emulator_cannot_see_is_shown_by_the_machine_code_that_touches_it():
    grade = access_samples.grade(access_samples.LOCAL_SAMPLE, gpu=H100, gpu_totals=LAB8_ON_THE_H100)
    (check,) = [c for c in grade.checks if c.name == LOCAL]
    assert check.status is Status.FAILED and check.access is not None
    picture = check.access
    assert not picture.drawn and "local memory" in picture.problem
    assert picture.facts.machine_code and all(
        sass_lines.opcode(text.split(": ", 1)[1]) in ("LDL", "STL") for text in picture.facts.machine_code
    )
    assert picture.facts.stack_bytes, "the kernel's stack frame, where the window lives"
    text = access_text.plain(picture)
    assert "LDL" in text and max(len(line) for line in text.splitlines()) <= 80


def test_show_access_draws_each_space_a_line_touches_and_names_the_lines_that_touch_any():
    assert parse_args(["grade", "--lab", "5", "--show-access", "kernel.cu:27"]).show_access == ("kernel.cu", 27)
    with pytest.raises(SystemExit):
        parse_args(["grade", "--show-access", "kernel.cu"])
    found = [access_samples.evidence(access_samples.load("05_no_padding"))]
    at_31 = "\n".join(line.plain for line in access_pictures.shown(found, "kernel.cu", 31))
    assert "the worst global store request" in at_31 and "the worst shared load request" in at_31
    at_27 = "\n".join(line.plain for line in access_pictures.shown(found, "labs/05_padded_transpose/kernel.cu", 27))
    assert "no access at kernel.cu:27" in at_27 and "23, 31" in at_27


# ---- reading what the emulator and nvcc wrote ----


def test_lines_of_an_emulator_s_file_not_of_its_shape_are_left_out():
    data = json.loads(json.dumps({"kernels": [{"name": "k(float*)", "nvtx_range": "student", "lines": []}]}))
    worst: dict = asdict(Request([0, 0, 0], 0, 0, 4, 32, 1, 32, [128 * lane for lane in range(32)]))
    good = {"file": "/somewhere/05_padded_transpose/kernel.cu", "line": 31, "space": "shared", "op": "load"}
    good |= {"requests": 1, "wavefronts": 32, "bank_conflicts": 31, "worst": worst}
    data["kernels"][0]["lines"] = [
        good,
        {**good, "line": "31"},
        {**good, "space": "texture"},
        {**good, "worst": {**worst, "lanes": [0] * 33}},
        {**good, "file": "x" * 100_000},
    ]
    (line, long_name) = profile.emulated_lines(data, "student")
    assert line.file == "05_padded_transpose/kernel.cu" and line.kernel == "k" and line.conflicts == 31
    assert len(long_name.file) <= 200


def test_the_machine_code_of_each_source_line_is_read_from_nvdisasm_s_listing():
    listing = "\n".join(
        [
            "        .type           _Z1kPf,@function",
            '\t//## File "/tmp/x/05_padded_transpose/kernel.cu", line 31',
            "        /*0010*/                   LDS R5, [R17] ;",
            "        /*0020*/              @!P0 STG.E desc[UR6][R8.64], R5 ;",
            "        /*0030*/                   IMAD R1, R2, R3, R4 ;",
            '\t//## File "/tmp/x/05_padded_transpose/kernel.cu", line 23',
            "        /*0040*/                   FFMA R1, R2, c[0x3][0x4], R1 ;",
        ]
    )
    found = sass_lines.parse(listing)
    code = found.at("kernel.cu", 31)
    assert code is not None and code.memory == ["LDS R5, [R17]", "@!P0 STG.E desc[UR6][R8.64], R5"]
    assert code.others == 1 and sass_lines.of_kind(code.memory, "shared", "load") == ["LDS R5, [R17]"]
    constant = found.at("kernel.cu", 23)
    assert constant is not None and sass_lines.of_kind(constant.memory, "constant", "load") == constant.memory


def test_a_kernel_s_name_is_read_as_a_person_calls_it():
    assert kernel_name("(anonymous namespace)::transpose_kernel(float const*, float*, int, int)") == "transpose_kernel"
    assert kernel_name("transpose_kernel(const float *, float *, int, int)") == "transpose_kernel"
    assert kernel_name("void ns::k<float>(float*)") == "k"
