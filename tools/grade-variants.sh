#!/usr/bin/env bash
# Grades every kernel of grader/variants/variants.toml as a submission, on whatever this machine is: on a GPU with
# its speed checks, without one on the CPU emulator (speed 'not run'); then a table of whether each variant got
# the grade it should (grader/variants.py, judge): a correct one passes every check that ran, a wrong one fails
# the check its lesson names.
#   tools/grade-variants.sh [--lab N] [--only NAME] [--seed S] [--out DIR] [--resume] [-- GRADE OPTIONS]
# Each grade goes to DIR/<lab>/<name>.json and .log (DIR: $OUT, else .results/variants), the table to DIR/table.md.
# --resume skips a variant whose grade is newer than its file (the lent GPU allows 10 minutes per call).
# One variant at a time, in the build folder build-variants. Exit status 0: every variant graded as it should.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
lab="" only="" seed="" out=${OUT:-.results/variants} resume=0 grade_options=()
while [ $# -gt 0 ]; do
    case "$1" in
        --lab) lab=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --resume) resume=1; shift ;;
        --) shift; grade_options=("$@"); break ;;
        *) echo "usage: tools/grade-variants.sh [--lab N] [--only NAME] [--seed S] [--out DIR] [--resume] [-- GRADE OPTIONS]" >&2
           exit 2 ;;
    esac
done
./cml list >/dev/null || exit 3  # installs the environment
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -n "$seed" ] && grade_options+=(--seed "$seed")
submissions="$out/submissions"
started=$SECONDS
while IFS=$'\t' read -r variant_lab name file; do
    grade="$out/$variant_lab/$name.json"
    if [ "$resume" = 1 ] && [ "$grade" -nt "$file" ]; then
        echo "= $variant_lab $name: graded already"
        continue
    fi
    mkdir -p "$out/$variant_lab" "$submissions/$name/$variant_lab"
    cp "$file" "$submissions/$name/$variant_lab/kernel.cu"
    rm -f "$grade"
    begun=$SECONDS
    ./cml grade --submission "$submissions/$name" --lab "$variant_lab" --build-dir build-variants --json "$grade" \
        "${grade_options[@]}" >"$out/$variant_lab/$name.log" 2>&1
    echo "= $variant_lab $name: exit status $? in $((SECONDS - begun)) s"
done < <(.venv/bin/python -m grader.variants list ${lab:+--lab "$lab"} ${only:+--only "$only"})
echo "= graded in $((SECONDS - started)) s"
.venv/bin/python -m grader.variants table "$out" ${lab:+--lab "$lab"} ${only:+--only "$only"} >"$out/table.md"
status=$?
cat "$out/table.md"
exit $status
