#!/usr/bin/env bash
# Everything a GPU machine must show, in one go (what we run on the lent H100):
#   1. the project's tests, GPU cases included (solutions pass, skeletons and planted bugs fail);
#   2. ./cml grade --compare: labs/ and the solutions side by side, with the H100 thresholds.
# Logs and JSON go to $OUT (the device tool's folder) or .results/. Offline machines: carry .deps/
# (the doctest header and a wheelhouse in .deps/wheels, which pip then installs from).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-.results}
mkdir -p "$out"
if [ -d .deps/wheels ]; then
    export PIP_NO_INDEX=1 PIP_FIND_LINKS="$PWD/.deps/wheels"
fi
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu \
    --format=csv | tee "$out/gpu.txt"
./cml test -v "$@" 2>&1 | tee "$out/test.log"
./cml grade --compare --json "$out/grade.json" 2>&1 | tee "$out/grade.log"
