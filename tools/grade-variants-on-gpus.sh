#!/usr/bin/env bash
# Grades variants on every GPU of the machine at once, a grader per GPU or more (tools/grade-variants.sh, each with
# its own build folder), for a machine with several GPUs and a time limit per call:
#   tools/grade-variants-on-gpus.sh split SEED [--only NAMES] [--out DIR]
#       every variant (or NAMES) once, dealt out over the graders; the grades of all of them filed in DIR as
#       tools/grade-variants.sh files them, and DIR/table.md
#   tools/grade-variants-on-gpus.sh repeat "SEED SEED ..." --only NAMES [--out DIR]
#       NAMES graded once per seed, the seeds dealt out over the graders, the seeds' first rounds evenly apart
#       (tools/grade-variants.sh --rotate K/N), so that a call cut short still reaches every round; each seed's
#       grades in DIR/seed-SEED, for
#       python -m grader.calibration.variants repeats DIR/seed-* (and a split run's DIR beside them)
# Resumable: run again with the same arguments and each grader goes on from its last finished round.
# VARIANTS_SECONDS (default 540) stops every grader at that many seconds. DIR: $OUT, else .results/variants-gpus.
# VARIANTS_GPUS ("0 1", default every GPU nvidia-smi lists) leaves the others free for other work.
# GRADERS_PER_GPU (default 1): graders on each GPU at once. They take turns on it through its lock files as the labs
# inside one grader do (grader/execution/gpu_lock.py), so a round of a few labs leaves the GPU idle less.
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
per_gpu=${GRADERS_PER_GPU:-1}
[[ "$per_gpu" =~ ^[1-9][0-9]*$ ]] || { echo "GRADERS_PER_GPU must be 1 or more, not '$per_gpu'" >&2; exit 2; }
# Each grader named "G" (GPU G's first, with the build folder a grader per GPU has always had) or "G-J" (its J-th
# more); every GPU's first grader comes before any GPU's second, so that the first shares go to every GPU.
graders=()
for ((j = 0; j < per_gpu; j++)); do
    for g in "${gpu_ids[@]}"; do
        if [ "$j" -eq 0 ]; then graders+=("$g"); else graders+=("$g-$j"); fi
    done
done
count=${#graders[@]}
stop=$((SECONDS + ${VARIANTS_SECONDS:-540}))

grade_on() {  # grader ("G" or "G-J"), seed, names, folder, options of tools/grade-variants.sh
    local limit=$((stop - SECONDS))
    [ "$limit" -gt 0 ] || return 0
    CUDA_VISIBLE_DEVICES=${1%%-*} timeout "$limit" tools/grade-variants.sh --only "$3" --seed "$2" --out "$4" \
        --resume "${@:5}" -- --build-dir "build-gpu$1" >"$4.log" 2>&1
    echo "GPU $1, seed $2: exit status $? at ${SECONDS} s"
}

case "$mode" in
    split)
        # Every name once (a name two labs share is graded in both), dealt out in the listing's order.
        names=$(.venv/bin/python -m grader.calibration.variants list ${only:+--only "$only"} | cut -f2 | awk '!seen[$0]++')
        for i in "${!graders[@]}"; do
            share=$(awk -v i="$i" -v n="$count" '(NR - 1) % n == i' <<<"$names" | paste -sd,)
            [ -n "$share" ] && grade_on "${graders[$i]}" "$seeds" "$share" "$out/gpu-${graders[$i]}" &
        done
        wait
        # One folder of grades, as a single tools/grade-variants.sh run would have filed them.
        for g in "${graders[@]}"; do
            [ -d "$out/gpu-$g" ] && (cd "$out/gpu-$g" && find . -path './[0-9]*' -name '*.json' -exec cp --parents {} "$out" \;)
        done
        .venv/bin/python -m grader.calibration.variants table "$out" ${only:+--only "$only"} >"$out/table.md"
        echo "table: $out/table.md (exit status $?)" ;;
    repeat)
        [ -n "$only" ] || { echo "repeat needs --only NAMES" >&2; exit 2; }
        read -r -a list <<<"$seeds"
        for i in "${!graders[@]}"; do
            (for k in "${!list[@]}"; do
                [ $((k % count)) -eq "$i" ] &&
                    grade_on "${graders[$i]}" "${list[$k]}" "$only" "$out/seed-${list[$k]}" --rotate "$k/${#list[@]}"
            done) &
        done
        wait ;;
    *) echo "unknown mode: $mode (split or repeat)" >&2; exit 2 ;;
esac
