"""The grader's layers, as docs/maintainer.md's table lists them: every module of the grader belongs to a layer of
the table, and imports nothing of a layer that the table does not let it import, so that no layer reaches up
into one above it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from grader.core.config import GRADER_DIR, REPO_ROOT

TABLE_HEADING = "## The grader's layers"
# A row: | `grader/NAME/` or `grader/NAME.py` | what it holds | the layers it may import, or "nothing else ..." |
ROW = re.compile(r"^\| `grader/(\w+)(?:/|\.py)` \|[^|]*\| ([^|]*) \|$")
NOTHING = "nothing else of the grader"
# The package's own face and the way in, neither of them a layer: __main__ only starts the command line.
NOT_LAYERS = {"__init__", "__main__"}


def documented_layers() -> dict[str, set[str]]:
    text = (REPO_ROOT / "docs" / "maintainer.md").read_text()
    section = text.split(TABLE_HEADING, 1)[1].split("\n## ", 1)[0]
    layers = {}
    for line in section.splitlines():
        if row := ROW.match(line):
            name, may_import = row.groups()
            layers[name] = set() if may_import == NOTHING else {part.strip() for part in may_import.split(",")}
    return layers


def grader_modules() -> dict[Path, str]:
    """Each Python file of the grader (its tests aside) and the layer it lies in: its first folder, or its name."""
    modules = {}
    for path in sorted(GRADER_DIR.rglob("*.py")):
        parts = path.relative_to(GRADER_DIR).with_suffix("").parts
        if parts[0] != "tests":
            modules[path] = parts[0]
    return modules


def imported_layers(path: Path) -> set[str]:
    """The layers a file imports, at its top or inside a function: grader.LAYER... or `from grader import LAYER`."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module == "grader":
            names += [f"grader.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return {name.split(".")[1] for name in names if name.startswith("grader.")}


def test_the_table_lists_each_layer_once_and_only_layers_beneath_to_import():
    layers = documented_layers()
    assert len(layers) >= 2, f"no table of layers under '{TABLE_HEADING}' in docs/maintainer.md"
    order = list(layers)  # from the top down
    for name, may_import in layers.items():
        above = set(order[: order.index(name) + 1])
        assert may_import <= set(order), f"{name} may import {sorted(may_import - set(order))}: no such layer"
        assert not may_import & above, f"{name} may import {sorted(may_import & above)}: itself or a layer above"


def test_every_module_of_the_grader_lies_in_a_layer_of_the_table():
    layers = documented_layers()
    outside = sorted(
        str(path.relative_to(REPO_ROOT))
        for path, layer in grader_modules().items()
        if layer not in layers and layer not in NOT_LAYERS
    )
    assert not outside, f"in no layer of docs/maintainer.md's table: {outside}"


def test_no_module_imports_a_layer_its_own_may_not():
    layers = documented_layers()
    wrong = []
    for path, layer in grader_modules().items():
        if layer in NOT_LAYERS:
            continue
        for other in sorted(imported_layers(path) - {layer} - NOT_LAYERS):
            if other not in layers.get(layer, set()):
                wrong.append(f"{path.relative_to(REPO_ROOT)} imports {other}")
    assert not wrong, "imports that docs/maintainer.md's table of layers does not allow:\n" + "\n".join(wrong)


def test_the_check_sees_an_import_that_reaches_up(tmp_path):
    module = tmp_path / "upward.py"
    module.write_text("from grader import cli\ndef late():\n    from grader.grading.grade import grade_lab\n")
    assert imported_layers(module) == {"cli", "grading"}


def test_no_test_module_imports_another_and_each_lies_in_a_layers_folder():
    """The test wing's shape: each test file in the folder of the layer it tests (or of its kind of case, or of
    the repository), and what tests share in support/ or conftest, never in another test module."""
    tests = GRADER_DIR / "tests"
    modules = sorted(tests.rglob("test_*.py"))
    assert modules, "no test modules found"
    at_top = [path.name for path in modules if path.parent == tests]
    assert not at_top, f"test modules outside a layer's folder: {at_top}"
    importing = []
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text())):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            if any(name.split(".")[-1].startswith("test_") for name in names if name.startswith("grader.tests")):
                importing.append(str(path.relative_to(REPO_ROOT)))
    assert not importing, f"test modules that import another test module: {sorted(set(importing))}"
