"""Files each variant's grade as DIR/<lab>/<name>.json from DIR/rounds/round-K.json, for a run of
tools/grade-variants.sh whose tarball kept only its rounds (the H200's seed 21). A lab's kernel in a round is
matched to its variant by the kernel's SHA-256, which the grade records, so the variants' order on that day does
not matter; a kernel no variant file matches any more is reported and left out.

    PYTHONPATH=. .venv/bin/python tools/variant_files_from_rounds.py DIR
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

from grader.variants import load_variants


def main(run_dir: Path) -> int:
    by_sha = {hashlib.sha256(v.path.read_bytes()).hexdigest(): v for v in load_variants()}
    unmatched = 0
    for round_json in sorted((run_dir / "rounds").glob("round-*.json")):
        for lab, sha in json.loads(round_json.read_text())["kernel_sha256"].items():
            if not sha:  # a lab this round did not submit (rounds 9 and 10 hold fewer labs)
                continue
            variant = by_sha.get(sha)
            if variant is None or variant.lab != lab:
                print(f"{round_json.name}: no variant of {lab} has this kernel now ({sha[:12]})", file=sys.stderr)
                unmatched += 1
                continue
            (run_dir / lab).mkdir(exist_ok=True)
            shutil.copy(round_json, run_dir / lab / f"{variant.name}.json")
    return 1 if unmatched else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
