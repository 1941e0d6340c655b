"""The repeated grades of the variants on one GPU, tabulated from the tarballs kept in results/: every
run that results/repeat-runs.toml lists for the GPU, unpacked newest first, then `python -m grader.variants
repeats` over all of them (variant-repeats-all-seeds.md) and over Lab 6 in the runs that had today's counter
checks (variant-repeats-lab6-current-checks.md). Exit status 0 when every variant got what it should in every run
of both tables.

    PYTHONPATH=. .venv/bin/python tools/repeat_tables.py h100 OUT_DIR [--target T.toml]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from variant_files_from_rounds import main as file_rounds_by_kernel

from grader.config import REPO_ROOT, load_target
from grader.variants import load_variants, repeats

RESULTS = REPO_ROOT / "results"
MANIFEST = RESULTS / "repeat-runs.toml"


def unpack(runs: list[dict], into: Path) -> list[Path]:
    """Each run's tarball unpacked into its own folder, in the manifest's order (newest first). A run whose
    tarball kept only its rounds gets its per-variant files from them."""
    folders = []
    for run in runs:
        folder = into / f"seed-{run['seed']}"
        folder.mkdir()
        subprocess.run(["tar", "xf", str(RESULTS / run["tarball"]), "-C", str(folder)], check=True)
        if not any(path.name[:2].isdigit() for path in folder.iterdir()) and file_rounds_by_kernel(folder):
            sys.exit(f"{run['tarball']}: some of its rounds' kernels match no variant file")
        folders.append(folder)
    return folders


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gpu", help="a GPU of results/repeat-runs.toml: h100 or h200")
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--target", type=Path, help="judge the speed checks against this thresholds file instead")
    args = parser.parse_args()
    runs = tomllib.loads(MANIFEST.read_text()).get(args.gpu)
    if not runs:
        parser.error(f"results/repeat-runs.toml lists no runs for {args.gpu!r}")
    target = load_target(args.target) if args.target else None
    variants = load_variants()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        folders = unpack(runs, Path(scratch))
        every, _ = repeats(variants, folders, target=target)  # Lab 6's older runs in it lack today's checks
        others = [v for v in variants if not v.lab.startswith("06")]
        _, others_ok = repeats(others, folders, target=target)
        current = [folder for folder, run in zip(folders, runs, strict=True) if run["lab6_current"]]
        lab6 = [v for v in variants if v.lab.startswith("06")]
        lab6_table, lab6_ok = repeats(lab6, current, target=target)
    (args.out_dir / "variant-repeats-all-seeds.md").write_text(every)
    (args.out_dir / "variant-repeats-lab6-current-checks.md").write_text(lab6_table)
    print(f"{args.gpu}: {len(folders)} runs, {len(current)} with Lab 6's current checks; tables in {args.out_dir}")
    return 0 if others_ok and lab6_ok else 1


if __name__ == "__main__":
    sys.exit(main())
