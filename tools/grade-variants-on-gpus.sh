#!/usr/bin/env bash
# Grades variants on every GPU of the machine at once, a grader per GPU (tools/grade-variants.sh, each with its own
# build folder), for a machine with several GPUs and a time limit per call:
#   tools/grade-variants-on-gpus.sh split SEED [--only NAMES] [--out DIR]
#       every variant (or NAMES) once, dealt out over the GPUs; the grades of all of them filed in DIR as
#       tools/grade-variants.sh files them, and DIR/table.md
#   tools/grade-variants-on-gpus.sh repeat "SEED SEED ..." --only NAMES [--out DIR]
#       NAMES graded once per seed, the seeds dealt out over the GPUs; each seed's grades in DIR/seed-SEED, for
#       python -m grader.calibration.variants repeats DIR/seed-* (and a split run's DIR beside them)
# Resumable: run again with the same arguments and each grader goes on from its last finished round.
# VARIANTS_SECONDS (default 540) stops every grader at that many seconds. DIR: $OUT, else .results/variants-gpus.
# VARIANTS_GPUS ("0 1", default every GPU nvidia-smi lists) leaves the others free for other work.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
mode=${1:?usage: tools/grade-variants-on-gpus.sh split SEED | repeat "SEEDS" [--only NAMES] [--out DIR]}
seeds=${2:?a seed, or the seeds in quotes}
shift 2
only="" out=${OUT:-.results/variants-gpus}
while [ $# -gt 0 ]; do
    case "$1" in
        --only) only=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done
./cml list >/dev/null || exit 3  # installs the environment once, before the graders share it
mkdir -p "$out"
out=$(cd "$out" && pwd)
listed=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$listed" -gt 0 ] || listed=1  # no GPU: one grader, on the CPU emulator
read -r -a gpu_ids <<<"${VARIANTS_GPUS:-$(seq -s ' ' 0 $((listed - 1)))}"
gpus=${#gpu_ids[@]}
stop=$((SECONDS + ${VARIANTS_SECONDS:-540}))

grade_on() {  # GPU, seed, names, folder
    local limit=$((stop - SECONDS))
    [ "$limit" -gt 0 ] || return 0
    CUDA_VISIBLE_DEVICES=$1 timeout "$limit" tools/grade-variants.sh --only "$3" --seed "$2" --out "$4" --resume \
        -- --build-dir "build-gpu$1" >"$4.log" 2>&1
    echo "GPU $1, seed $2: exit status $? at ${SECONDS} s"
}

case "$mode" in
    split)
        # Every name once (a name two labs share is graded in both), dealt out in the listing's order.
        names=$(.venv/bin/python -m grader.calibration.variants list ${only:+--only "$only"} | cut -f2 | awk '!seen[$0]++')
        for i in "${!gpu_ids[@]}"; do
            share=$(awk -v i="$i" -v n="$gpus" '(NR - 1) % n == i' <<<"$names" | paste -sd,)
            [ -n "$share" ] && grade_on "${gpu_ids[$i]}" "$seeds" "$share" "$out/gpu-${gpu_ids[$i]}" &
        done
        wait
        # One folder of grades, as a single tools/grade-variants.sh run would have filed them.
        for g in "${gpu_ids[@]}"; do
            [ -d "$out/gpu-$g" ] && (cd "$out/gpu-$g" && find . -path './[0-9]*' -name '*.json' -exec cp --parents {} "$out" \;)
        done
        .venv/bin/python -m grader.calibration.variants table "$out" ${only:+--only "$only"} >"$out/table.md"
        echo "table: $out/table.md (exit status $?)" ;;
    repeat)
        [ -n "$only" ] || { echo "repeat needs --only NAMES" >&2; exit 2; }
        read -r -a list <<<"$seeds"
        for i in "${!gpu_ids[@]}"; do
            (for k in "${!list[@]}"; do
                [ $((k % gpus)) -eq "$i" ] && grade_on "${gpu_ids[$i]}" "${list[$k]}" "$only" "$out/seed-${list[$k]}"
            done) &
        done
        wait ;;
    *) echo "unknown mode: $mode (split or repeat)" >&2; exit 2 ;;
esac
