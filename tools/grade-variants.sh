#!/usr/bin/env bash
# Grades every kernel of variants/variants.toml as a submission, on whatever this machine is: on a GPU with
# its speed checks, without one on the CPU emulator (speed 'not run'); then a table of whether each variant got
# the grade it should (grader/calibration/variants.py, judge): a correct one passes every check that ran, a wrong one fails
# the check its lesson names.
#   tools/grade-variants.sh [--lab N] [--only NAME[,NAME...]] [--seed S] [--out DIR] [--resume] [--rotate [K/N]] [-- GRADE OPTIONS]
# The variants are graded in rounds: round k is one submission holding the k-th variant of every lab, graded as
# a student's labs are (all at once where there is a GPU). Each round's grade goes to DIR/rounds/round-K.json
# and .log, and is filed as DIR/<lab>/<name>.json for each of its variants (DIR: $OUT, else .results/variants);
# the table goes to DIR/table.md. --resume skips a round whose variants were all graded after their files
# changed (the lent GPU allows 10 minutes per call). --rotate (with --seed) takes the rounds from the one the seed
# picks, then on around, so that repeated runs cut short by a time limit reach every round; --rotate K/N, from
# the K-th N-th of the rounds instead: N runs at once, K = 0 to N - 1, start evenly apart, whatever their seeds.
# Build folder: build-variants. Exit status 0: every variant graded as it should.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
lab="" only="" seed="" out=${OUT:-.results/variants} resume=0 rotate=0 grade_options=()
while [ $# -gt 0 ]; do
    case "$1" in
        --lab) lab=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --rotate)
            rotate=1
            if [[ "${2:-}" =~ ^[0-9]+/[1-9][0-9]*$ ]]; then rotate=$2; shift; fi
            shift ;;
        --seed) seed=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --resume) resume=1; shift ;;
        --) shift; grade_options=("$@"); break ;;
        *) echo "usage: tools/grade-variants.sh [--lab N] [--only NAME[,NAME...]] [--seed S] [--out DIR] [--resume] [--rotate [K/N]] [-- GRADE OPTIONS]" >&2
           exit 2 ;;
    esac
done
./cml list >/dev/null || exit 3  # installs the environment
mkdir -p "$out/rounds"
out=$(cd "$out" && pwd)
[ -n "$seed" ] && grade_options+=(--seed "$seed")
# lab, name, file and round (the variant's place among its lab's), tab-separated
listing=$(.venv/bin/python -m grader.calibration.variants list ${lab:+--lab "$lab"} ${only:+--only "$only"} |
    awk -F'\t' '{ print $0 "\t" ++seen[$1] }')
# Whether a variant file of the round (MEMBERS, lines as in $listing) changed after GRADE was written.
changed_since() {
    local file
    while IFS=$'\t' read -r _ _ file _; do [ "$file" -nt "$1" ] && return 0; done <<<"$2"
    return 1
}
rounds=$(cut -f4 <<<"$listing" | sort -n | uniq)
count=$(wc -l <<<"$rounds")
first=""
if [[ "$rotate" == */* ]]; then
    # The K-th of N runs at once starts K N-ths of the way round: together they reach every round soonest.
    first=$((${rotate%/*} * count / ${rotate#*/} % count))
elif [ "$rotate" = 1 ] && [ -n "$seed" ]; then
    first=$((seed % count))  # from the round the seed picks: runs cut short by a time limit reach different variants
fi
if [ -n "$first" ]; then
    rounds=$( (tail -n +$((first + 1)) <<<"$rounds"; head -n "$first" <<<"$rounds") )
fi
started=$SECONDS
for round in $rounds; do
    members=$(awk -F'\t' -v r="$round" '$4 == r' <<<"$listing")
    submission="$out/rounds/round-$round" grade="$out/rounds/round-$round.json"
    if [ "$resume" = 1 ] && [ -f "$grade" ] && ! changed_since "$grade" "$members"; then
        echo "= round $round: graded already"
        continue
    fi
    rm -rf "$submission" "$grade"
    labs=()
    while IFS=$'\t' read -r variant_lab _ file _; do
        mkdir -p "$submission/$variant_lab"
        cp "$file" "$submission/$variant_lab/kernel.cu"
        labs+=(--lab "$variant_lab")
    done <<<"$members"
    begun=$SECONDS
    ./cml grade --submission "$submission" "${labs[@]}" --build-dir build-variants --json "$grade" \
        "${grade_options[@]}" >"$out/rounds/round-$round.log" 2>&1
    status=$?
    echo "= round $round ($(cut -f2 <<<"$members" | paste -sd' ')): exit status $status in $((SECONDS - begun)) s"
    while IFS=$'\t' read -r variant_lab name _ _; do
        mkdir -p "$out/$variant_lab"
        cp "$grade" "$out/$variant_lab/$name.json" 2>/dev/null
    done <<<"$members"
done
echo "= graded in $((SECONDS - started)) s"
.venv/bin/python -m grader.calibration.variants table "$out" ${lab:+--lab "$lab"} ${only:+--only "$only"} >"$out/table.md"
status=$?
cat "$out/table.md"
exit $status
