"""The exports of a saved run (grader/reporting/export): Gradescope's results.json, JUnit XML and the HTML report,
made from the runs in data/ (data/make_runs.py says where they come from). The browser check opens the page
in Debian's Chromium with Playwright (the root conftest.py installs it for this test); CML_SKIP_BROWSER=1 skips it."""

from __future__ import annotations

import copy
import io
import json
import os
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest
from junitparser import Failure, JUnitXml, Skipped

from grader.core.recorded import read_grade
from grader.reporting import report
from grader.reporting.causes import ordered
from grader.reporting.export import write_exports
from grader.reporting.export.gradescope import SCHEMA, elsewhere_points, gradescope_results, write_gradescope
from grader.reporting.export.html import render_html, write_html
from grader.reporting.export.junit import write_junit
from grader.reporting.export.run import group_rates
from grader.tests.support.classic_bugs import BUGS

DATA = Path(__file__).resolve().parents[1] / "data"
RUNS = ["h100-run.json", "no-gpu-run.json"]
NOT_PASSED = ("not run", "skipped", "withheld")
INJECTED = "<script>document.title = 'pwned'</script><img src=x onerror=alert(1)>"


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text())


@pytest.fixture(params=RUNS)
def run(request) -> dict:
    return load(request.param)


def checks(run: dict) -> list[dict]:
    return [check for lab in run["labs"] for check in lab["checks"]]


def with_student_text(run: dict) -> dict:
    """The run with markup where students and compilers put text: a check's name, detail and hint, a title."""
    run = copy.deepcopy(run)
    check = run["labs"][0]["checks"][1]
    check["name"] += INJECTED
    check["detail"] = f"kernel.cu(3): error: {INJECTED}\n\x1b[31mcolour\x1b[0m and a bell\x07"
    check["hint"] = INJECTED
    run["labs"][0]["title"] += INJECTED
    run["student"] = INJECTED
    return run


def old_run() -> dict:
    """A run saved before checks had points, labs their seconds and thresholds, plus keys nobody knows yet."""
    run = load("h100-run.json")
    for lab in run["labs"]:
        for key in ("seconds", "thresholds", "seed", "grader_sizes"):
            lab.pop(key, None)
        for check in lab["checks"]:
            check.pop("points"), check.pop("max_points")
    run.update(files_used=["a.cu", "b.cu"], extra={"nested": [1, 2]}, timestamp="2026-11-23T12:00:00")
    return run


# Gradescope


def test_gradescope_results_follow_the_documented_format(run, tmp_path):
    path = tmp_path / "results.json"
    write_gradescope(read_grade(run), path)
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads(path.read_text()), schema, cls=jsonschema.Draft202012Validator)


def test_the_gradescope_schema_refuses_a_misspelt_field():
    schema = json.loads(SCHEMA.read_text())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"score": 1, "tests": [{"score": 1, "stauts": "passed"}]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"tests": [{"name": "no score anywhere"}]}, schema)


def test_gradescope_test_scores_add_up_to_the_score_of_the_run(run):
    """The tests' points add up to the run's; their maxima, with the speed points a GPU grades elsewhere (no test
    here), to its maximum."""
    results = gradescope_results(read_grade(run))
    assert results["score"] == pytest.approx(run["score"], abs=0.01)
    assert sum(t["score"] for t in results["tests"]) == pytest.approx(run["score"], abs=0.01)
    elsewhere = elsewhere_points(read_grade(run))
    assert (elsewhere > 0) == (run.get("device") is None)
    assert sum(t["max_score"] for t in results["tests"]) + elsewhere == pytest.approx(run["max_score"], abs=0.01)
    assert results["execution_time"] >= sum(lab["seconds"] for lab in run["labs"])  # saved before runs had seconds
    assert (
        gradescope_results(read_grade({**run, "seconds": 12.3}))["execution_time"] == 13
    )  # labs graded at once: the wall time


def neutral(run: dict, check: dict) -> bool:
    """Neither passed nor failed: a stretch not attempted, time not graded on this GPU, or speed a run without a
    GPU could not measure (a GPU grades it)."""
    return (
        (check["category"] == "stretch" and check["status"] == "skipped")
        or check["status"] == "not graded"
        or (not run.get("device") and check["status"] == "not run" and check["category"] in ("performance", "stretch"))
    )


def test_gradescope_lists_every_check_that_passed_or_failed_in_the_order_of_its_causes(run):
    """A test per check worth points, failed, or a stretch goal attempted, each lab's in the order of its causes;
    no test for what is neither passed nor failed."""
    tests = gradescope_results(read_grade(run))["tests"]
    shown = [
        check
        for lab in read_grade(run).labs
        for check in ordered(lab.checks)
        if not neutral(run, {"category": check.category.value, "status": check.status.value})
        and (check.max_points > 0 or check.status.value != "passed" or check.category.value == "stretch")
    ]
    assert any(neutral(run, check) for check in checks(run))  # each run has some, to be left out
    assert len(tests) == len(shown) and len({t["number"] for t in tests}) == len(tests)
    for test, check in zip(tests, shown, strict=True):
        assert test["name"].endswith(check.name) and test["name"].split(" · ")[0][:2].isdigit()
        assert test["status"] == ("passed" if check.status.value == "passed" else "failed")
        assert test["tags"][1] == check.category.value
        if check.category.value == "stretch":
            assert test["max_score"] == 0
        if check.status.value in NOT_PASSED:
            assert test["output"].startswith("NOT PASSED")


def test_gradescope_shows_instructor_only_checks_after_publishing():
    run = load("h100-run.json")
    hidden = run["labs"][0]["checks"][1]["name"]
    tests = gradescope_results(read_grade(run), instructor_only={hidden})["tests"]
    assert {t["visibility"] for t in tests if t["name"].endswith(hidden)} == {"after_published"}
    assert {t["visibility"] for t in tests if not t["name"].endswith(hidden)} == {"visible"}
    with pytest.raises(ValueError, match="visibility"):
        gradescope_results(read_grade(run), visibility="students only")


# JUnit


def test_junit_has_a_suite_per_lab_and_counts_failures_and_skips(run, tmp_path):
    path = tmp_path / "junit.xml"
    write_junit(read_grade(run), path)
    xml = JUnitXml.fromfile(str(path))
    suites = list(xml)
    assert [s.name for s in suites] == [lab.label for lab in read_grade(run).labs]
    assert suites[0].name == run["labs"][0]["lab"]
    for suite, lab in zip(suites, run["labs"], strict=True):
        statuses = [c["status"] for c in lab["checks"]]
        assert suite.tests == len(statuses) == len(list(suite))
        assert suite.failures == statuses.count("failed")
        assert suite.skipped == sum(statuses.count(s) for s in NOT_PASSED)
        assert suite.errors == 0
        assert suite.time == pytest.approx(lab["seconds"])
        in_order = ordered(next(r for r in read_grade(run).labs if r.label == suite.name).checks)
        for case, check in zip(suite, ({"name": c.name, "status": c.status.value} for c in in_order), strict=True):
            assert case.name == check["name"]
            kinds = {type(r) for r in case.result}
            if check["status"] == "failed":
                assert kinds == {Failure}
            elif check["status"] in NOT_PASSED:
                assert kinds == {Skipped} and case.result[0].message.startswith("NOT PASSED")
            else:
                assert case.is_passed
    assert xml.tests == len(checks(run))
    assert xml.failures == sum(c["status"] == "failed" for c in checks(run))


def test_junit_stays_well_formed_with_colour_codes_and_markup_in_a_detail(tmp_path):
    path = tmp_path / "junit.xml"
    write_junit(read_grade(with_student_text(load("h100-run.json"))), path)
    root = ET.parse(path).getroot()  # raises on a control character
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None and failure.text is not None
    assert "<script>" in failure.text and "\x1b" not in failure.text and "\x07" not in failure.text


# HTML


class Links(HTMLParser):
    """Every src and href of a page, and the text of its <script> elements."""

    def __init__(self):
        super().__init__()
        self.links, self.scripts = [], 0

    def handle_starttag(self, tag, attrs):
        self.scripts += tag == "script"
        self.links += [value or "" for name, value in attrs if name in ("src", "href")]


def test_the_html_report_loads_nothing_from_elsewhere_and_is_the_same_each_time(run):
    page = render_html(read_grade(run))
    assert render_html(read_grade(run)) == page
    parser = Links()
    parser.feed(page)
    assert parser.links, "expected the lab links at least"
    assert all(link.startswith(("#", "data:image/")) for link in parser.links), parser.links
    assert "http://" not in page and "https://" not in page
    assert parser.scripts == 0


def test_the_html_report_escapes_what_students_and_compilers_wrote():
    page = render_html(read_grade(with_student_text(load("h100-run.json"))))
    parser = Links()
    parser.feed(page)
    assert parser.scripts == 0 and "x" not in parser.links
    assert "<script>" not in page and "<img src=x" not in page
    assert "&lt;script&gt;document.title = &#39;pwned&#39;&lt;/script&gt;" in page
    assert "\x1b" not in page and "\x07" not in page


def header_facts(page: str) -> dict[str, str]:
    """The page's header facts, <dt>name</dt><dd>value</dd>, as text."""
    header = page[page.index('<dl class="facts">') : page.index("</dl>")]
    names = [name.strip() for name in header.split("<dt>")[1:]]
    return {name.split("</dt>")[0]: name.split("<dd>")[1].split("</dd>")[0] for name in names}


def test_the_html_header_shows_what_a_student_needs_and_nothing_internal():
    run = {
        **load("no-gpu-run.json"),
        "cpu_emulator": True,
        "jobs": 1,
        "seconds": 41.5,
        "built_ahead_seconds": 12.0,
        "kernel_sha256": {"01_vector_add": "ab" * 32},
        "target": "grader/targets/h100.toml",
        "graded_at": "2026-11-25T14:03:59+01:00",
        "files_ignored": [f"notes{n}.txt" for n in range(12)],
    }
    page = render_html(read_grade(run))
    facts = header_facts(page)
    assert facts["graded on"].startswith("CPU emulator") and facts["graded"] == "2026-11-25 14:03"
    assert facts["seed"] == "20261123" and facts["files ignored"].endswith("notes9.txt and 2 more")
    assert set(facts) == {"graded on", "graded", "seed", "files ignored"}
    assert not any(word in page for word in ("jobs", "True", "built ahead", "h100.toml", "ab" * 32))
    assert '<div class="score">0.0' in page  # the score, beside the facts
    on_gpu = header_facts(render_html(read_grade({**load("h100-run.json"), "student": "carol"})))
    assert on_gpu["graded on"].endswith("(GPU)") and on_gpu["student"] == "carol"


def test_the_html_report_has_a_plot_for_each_measured_lab_and_says_which_were_not_measured(run):
    page = render_html(read_grade(run))
    measured = [lab for lab in read_grade(run).labs if group_rates(lab)]
    assert page.count('<img class="plot"') == len(measured)
    assert page.count("Performance not measured") == len(run["labs"]) - len(measured)


def test_the_h100_run_measured_every_lab_that_built():
    run = load("h100-run.json")
    broken = {
        lab["lab"] for lab in run["labs"] for c in lab["checks"] if (c["category"], c["status"]) == ("build", "failed")
    }
    built = [lab for lab in run["labs"] if lab["lab"] not in broken]
    recorded = read_grade(run).labs
    assert [lab.lab for lab in recorded if group_rates(lab)] == [lab["lab"] for lab in built]
    halo = next(lab for lab in recorded if lab.lab == "03_smoothing_halo")
    rates = {rate.group: rate for rate in group_rates(halo)}
    assert rates["R = 32"].speedup == pytest.approx(1.698 / 0.6525, rel=1e-3)
    assert rates["R = 32"].min_speedup == 1.38 and rates["R = 2"].min_speedup is None
    gemm = next(lab for lab in recorded if lab.lab == "04_tiled_gemm")
    (rate,) = group_rates(gemm)
    assert not rate.correct and rate.speedup is None and not rate.memory_bound


def test_exports_read_a_run_without_points_times_or_thresholds(tmp_path):
    paths = write_exports(
        read_grade(old_run()), gradescope=tmp_path / "g.json", junit=tmp_path / "j.xml", html=tmp_path / "r.html"
    )
    assert [p.name for p in paths] == ["g.json", "j.xml", "r.html"] and all(p.stat().st_size for p in paths)
    page = (tmp_path / "r.html").read_text()
    assert "2026-11-23 12:00" in page and "nested" not in page and "not graded" in page
    assert write_exports(read_grade(old_run())) == []


# The page in a browser


@pytest.fixture(scope="module")
def browser(chromium):  # chromium: the root conftest.py's, installed only when a browser test runs
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        if os.environ.get("CML_SKIP_BROWSER") == "1":
            pytest.skip(f"Playwright for Python is not installed ({error}); skipped as CML_SKIP_BROWSER=1 asks")
        pytest.fail(f"Playwright for Python is not installed ({error}): ./cml test installs it", pytrace=False)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield launched
        launched.close()


def not_blank(png: bytes) -> bool:
    from PIL import Image  # Pillow comes with matplotlib

    image = Image.open(io.BytesIO(png)).convert("L")
    inked = sum(count for level, count in enumerate(image.histogram()) if level < 200)
    return inked > 0.01 * image.width * image.height


@pytest.mark.parametrize("name", RUNS)
def test_the_html_report_shows_in_chromium_without_errors(browser, tmp_path, name):
    run = with_student_text(load(name))
    path = tmp_path / "report.html"
    write_html(read_grade(run), path)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors, requests = [], []

    def on_console(message) -> None:
        if message.type == "error":
            errors.append(message.text)

    def on_dialog(dialog) -> None:
        errors.append(f"a dialog opened: {dialog.message}")
        dialog.dismiss()

    page.on("console", on_console)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("dialog", on_dialog)
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri(), wait_until="load")

    assert errors == []
    assert all(url == path.as_uri() or url.startswith("data:") for url in requests), requests
    assert page.title().startswith("cuda-memory-labs")
    assert page.locator("section.lab").count() == len(run["labs"])
    measured = [lab for lab in read_grade(run).labs if group_rates(lab)]
    plots = page.locator("section.lab img.plot")
    assert plots.count() == len(measured)
    for index in range(plots.count()):
        assert plots.nth(index).evaluate("img => img.complete && img.naturalWidth > 0"), f"plot {index} did not load"
    assert not_blank(page.screenshot(full_page=True))
    page.close()


def test_the_cause_is_at_the_top_of_the_page_at_1280_pixels(browser, tmp_path):
    """The page of one failing lab, as a student's laptop shows it: the cause, its line, its hint and the command
    that shows it again are on the first screen, above the summary and every lab's table."""
    grade = BUGS[0].grade()
    path = tmp_path / "report.html"
    write_html(read_grade(report.run_dict([grade], {"seed": grade.seed, "cpu_emulator": True})), path)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(path.as_uri(), wait_until="load")
    block = page.locator("section.causes")
    box = block.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800, box
    text = block.inner_text()
    assert "memcheck: no access outside the arrays" in text and "01_vector_add/kernel.cu:16" in text
    assert "hint: a thread past the end" in text and "./cml run --lab 1 --seed 20261123 --check memcheck" in text
    summary = page.locator("table.summary").bounding_box()
    assert summary is not None and box["y"] < summary["y"]
    page.close()
