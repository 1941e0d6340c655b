#!/usr/bin/env bash
# The CPU emulator's side of tools/ncu-planted.sh: the same planted kernels, sizes and test cases, counted and
# race-checked on the CPU (results/emulator.md sets the two side by side). Needs no GPU:
#   tools/emu-planted.sh [OUT]     the counters files go to OUT (default .results/emu-planted)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${1:-.results/emu-planted}
planted=.results/planted
build="build-emu-planted"
./cml list >/dev/null  # installs the environment and doctest
.venv/bin/python -c 'import sys; from pathlib import Path; from grader.tests.support.kernels import write_measured_labs
write_measured_labs(Path(sys.argv[1]))' "$planted"
export PATH="$PWD/.venv/bin:$PATH"
mkdir -p "$out"
[ -d "$build/meson-private" ] && reconfigure=--reconfigure || reconfigure=
# shellcheck disable=SC2086  # unquoted: an empty $reconfigure must add no argument
meson setup $reconfigure "$build" -Demulator=enabled -Dstudent_dir="$PWD/$planted" >/dev/null || exit 1
labs="01_vector_add 03_smoothing_halo 05_padded_transpose 06_warp_reduction 07_constant_memory"
for lab in $labs; do
    meson compile -C "$build" "${lab}_student_emu" "${lab}_solution_emu" >/dev/null || { echo "build of $lab failed"; exit 1; }
done

sectors=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
conflicts=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
totals() {  # file role metrics: each metric summed over the role's launches, as the grader reads them
    python -c 'import json, sys; from grader.steps.profile import parse_emulator_json
t, n = parse_emulator_json(json.load(open(sys.argv[1])), sys.argv[3].split(","), sys.argv[2])
print(f"   {sys.argv[2]}: {n} launch(es)"); [print(f"   {m} = {v:,.0f}") for m, v in sorted(t.items())]' "$@"
}
profile() {  # variant lab metrics size [roles]: the per-line table of the emulator, then the roles' totals
    echo "== CPU emulator, $2 $1, --size $4"
    CML_EMU_PROFILE="$out/$2-$1.json" "$build/$2_$1_emu_bench" --profile --size "$4" 2>&1 >/dev/null | grep '^========='
    for role in ${5:-student}; do totals "$out/$2-$1.json" "$role" "$3"; done
}
profile student 01_vector_add "$sectors" 1048576    # planted: lanes 32 apart
profile solution 01_vector_add "$sectors" 1048576
profile solution 03_smoothing_halo l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum 1048576 "student baseline"
profile student 05_padded_transpose "$conflicts" 256  # planted: no padding
profile solution 05_padded_transpose "$conflicts" 256
profile solution 07_constant_memory l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum 1048576 "student baseline"

# The constant cache: the look-up kernel over the test cases ncu-planted.sh profiles.
for variant in student solution; do  # student: table in __constant__ (planted); solution: table in global
    echo "== CPU emulator, 07_constant_memory $variant, lookup_kernel, test cases \"returns the table entry*\""
    CML_SEED=1 CML_EMU_PROFILE="$out/07-lookup-$variant.json" "$build/07_constant_memory_${variant}_emu_test" \
        --test-case='returns the table entry*' 2>&1 >/dev/null | grep -E '^=========' | sed -n '/lookup_kernel/,/^=========$/p'
done

for lab in 03_smoothing_halo 06_warp_reduction; do
    for variant in student solution; do
        echo "== CPU emulator racecheck, $lab $variant$([ $variant = student ] && echo ' (planted)')"
        CML_EMU_CHECK=racecheck "$build/${lab}_${variant}_emu_test" --no-version 2>&1 >/dev/null |
            grep -E 'RACECHECK SUMMARY|Race reported|hazards\]' | sed 's/ \[[0-9]* hazards\]//' | sort | uniq -c | head -20
    done
done
