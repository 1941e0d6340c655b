"""Builds every deck: the pictures first (SVG, from the measured numbers), then Markdown -> reveal.js HTML.

    python slides/build.py [--out DIR]        (./cml slides does this in the project's environment)

The decks (slides/decks/*.md), conf.py, _static/, the reference solutions' kernel.cu files (which the code
slides include) and the generated pictures are staged in DIR/src, which
sphinx-build turns into DIR/html: one self-contained HTML page per deck, reveal.js included. Open
DIR/html/index.html. Warnings are errors: a missing picture fails the build.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

SLIDES = Path(__file__).resolve().parent
ROOT = SLIDES.parent
DEFAULT_CALIBRATION = ROOT / "results" / "calibration" / "h100-textbook-kernels.md"  # a copy of ../shared/calibration


def parse_args(argv):
    parser = argparse.ArgumentParser(description="Build the lecture decks to static reveal.js HTML.")
    parser.add_argument("--out", type=Path, default=SLIDES / "build", help="output folder (default: slides/build)")
    parser.add_argument(
        "--calibration",
        type=Path,
        default=DEFAULT_CALIBRATION,
        help="the H100 calibration tables (default: results/calibration/h100-textbook-kernels.md, the copy of the course calibration)",
    )
    parser.add_argument(
        "--solutions",
        type=Path,
        default=ROOT / "results" / "h100-grade.json",
        help="the reference solutions' graded run (default: results/h100-grade.json)",
    )
    parser.add_argument(
        "--learner",
        type=Path,
        default=ROOT / ".results" / "grade.json",
        help="your own grader results, if any (default: .results/grade.json)",
    )
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    for name, path in (("calibration", args.calibration), ("solutions' results", args.solutions)):
        if not path.is_file():
            print(f"slides: the {name} file {path} is missing (see --help)", file=sys.stderr)
            return 2
    sys.path.insert(0, str(SLIDES))
    sys.path.insert(1, str(ROOT))  # the occupancy picture counts blocks with the grader's own arithmetic
    import figures  # noqa: E402 (after the path is set; needs matplotlib from slides/requirements.txt)
    from sphinx.cmd.build import build_main  # noqa: E402

    src, html = args.out / "src", args.out / "html"
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(SLIDES / "decks", src)
    shutil.copytree(SLIDES / "_static", src / "_static")
    shutil.copy(SLIDES / "conf.py", src / "conf.py")
    # The code slides include the reference solutions themselves, so they cannot drift from them.
    (src / "code").mkdir()
    for kernel in sorted((ROOT / "solutions").glob("*/kernel.cu")):
        shutil.copy(kernel, src / "code" / f"{kernel.parent.name}.cu")
    pictures = figures.write_all(src / "figures", args.calibration, args.solutions, args.learner)
    print(f"slides: {len(pictures)} pictures in {src / 'figures'}")
    status = build_main(["-b", "revealjs", "-q", "-W", "--keep-going", "-E", str(src), str(html)])
    if status == 0:
        print(f"slides: {len(list(html.glob('*.html')))} pages; open {html / 'index.html'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
