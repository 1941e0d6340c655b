#!/usr/bin/env bash
# The repeated grades of the variants that judge the thresholds, several to one call of the lent GPU (10 minutes),
# resumable on a warm machine: a stage finished in an earlier call is skipped, one stopped by the time box goes on
# where it stopped (the rounds graded stay in .results/).
#   STAGES="all:36 lab6:38 only:NAME,NAME:40" BUDGET=570 tools/gpu-stages.sh
#     all:SEED             every variant: tools/gpu-check.sh variants SEED (.results/variants-SEED)
#     lab6:SEED            Lab 6's variants: tools/grade-variants.sh --lab 06 (.results/variants6-SEED)
#     only:NAMES:SEED      the variants named: tools/grade-variants.sh --only NAMES (.results/only-SEED)
# BUDGET: seconds for all the stages of this call. Logs, tables and tarballs go to $OUT (the device tool's
# folder), else .results/; the log of every call so far is .results/stages/calls.log.
set -u
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-.results}
mkdir -p "$out" .results/stages
out=$(cd "$out" && pwd)
export OUT=$out
if [ -d .deps/wheels ]; then
    export PIP_NO_INDEX=1 PIP_FIND_LINKS="$PWD/.deps/wheels"
fi
export CML_SKIP_BROWSER=1 PYTHONPATH=. PYTHONUNBUFFERED=1
state=.results/stages
stages=${STAGES:?which stages, e.g. STAGES=\"all:36 lab6:37\"}
for stage in $stages; do
    [[ $stage =~ ^(all|lab6):[0-9]+$|^only:[A-Za-z0-9_,]+:[0-9]+$ ]] || { echo "not a stage: $stage" >&2; exit 2; }
done
start=$SECONDS
for stage in $stages; do
    kind=${stage%%:*} seed=${stage##*:}
    done_mark="$state/done-$(printf '%s' "$stage" | tr -c 'A-Za-z0-9_-' '_')"
    if [ -f "$done_mark" ]; then
        echo "$stage: finished in an earlier call" | tee -a "$state/calls.log"
        continue
    fi
    left=$((${BUDGET:?seconds for this call} - (SECONDS - start)))
    if [ "$left" -le 90 ]; then
        echo "$stage: not begun, $left s left" | tee -a "$state/calls.log"
        break
    fi
    begun=$SECONDS
    case "$kind" in
        all)
            VARIANTS_SECONDS=$left tools/gpu-check.sh variants "$seed" >/dev/null
            log="$out/variants-$seed.log" ;;
        lab6|only)
            if [ "$kind" = lab6 ]; then
                name=variants6-$seed choice=(--lab 06)
            else
                names=${stage#only:}
                name=only-$seed choice=(--only "${names%:*}")
            fi
            log="$out/$name.log"
            timeout "$left" tools/grade-variants.sh "${choice[@]}" --seed "$seed" --out ".results/$name" --resume \
                >"$log" 2>&1
            tar czf "$out/$name.tar.gz" -C ".results/$name" . ;;
    esac
    grep -q "= graded in" "$log" && touch "$done_mark"
    echo "$stage: $([ -f "$done_mark" ] && echo finished || echo stopped) after $((SECONDS - begun)) s" |
        tee -a "$state/calls.log"
done
cp "$state/calls.log" "$out/"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt"
fi
