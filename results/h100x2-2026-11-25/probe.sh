#!/usr/bin/env bash
# The CPUs' load while 4 seven-lab students are graded on both GPUs, then 2 on GPU 0; run with OUT set (where
# the samples go), from any folder.
set -u
cd "$(dirname "$0")/../.." || exit 1
if [ -d .deps/wheels ]; then export PIP_NO_INDEX=1 PIP_FIND_LINKS="$PWD/.deps/wheels"; fi  # offline machines
./cml --help >/dev/null
nvidia-smi --id 1 --query-gpu=index,name,uuid --format=csv,noheader
CUDA_VISIBLE_DEVICES=1 .venv/bin/python -c "from grader import gpu; print('chosen', gpu.chosen_gpu(), gpu.detect_gpu())"
w=.results/probe; rm -rf $w; .venv/bin/python -m grader.tests.class_submissions make $w --seven-lab 4 --only-seven-lab >/dev/null
python3 results/h100x2-2026-11-25/cpu_sampler.py > "$OUT/cpu-all.log" & s=$!
CUDA_VISIBLE_DEVICES=0,1 ./cml batch $w/submissions --out $w/all 2>&1 | grep -E "^w[0-9]|Wall"
kill $s
mkdir -p $w/one && cp -r $w/submissions $w/one-sub && rm -rf $w/one-sub/full_03* $w/one-sub/full_04*
python3 results/h100x2-2026-11-25/cpu_sampler.py > "$OUT/cpu-one.log" & s=$!
timeout 200 env CUDA_VISIBLE_DEVICES=0 ./cml batch $w/one-sub --out $w/one 2>&1 | grep -E "^w[0-9]|Wall"
kill $s
python3 - <<'P'
import json,os
for run in ("all","one"):
    d=f".results/probe/{run}/students"
    for s in sorted(os.listdir(d)):
        g=json.load(open(f"{d}/{s}/grade.json")); print(run, s, g.get("seconds"), g.get("device"))
P
