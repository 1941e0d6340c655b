#!/usr/bin/env bash
# Nsight Compute and compute-sanitizer on the planted kernels whose counters the CPU emulator reports
# (results/emulator.md sets the two side by side). Run on a GPU machine: tools/ncu-planted.sh OUT
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${1:?usage: tools/ncu-planted.sh OUT}
planted=.results/planted
build="build-planted"
./cml list >/dev/null  # installs the environment and doctest
.venv/bin/python -c 'import sys; from pathlib import Path; from grader.tests.support.kernels import write_measured_labs
write_measured_labs(Path(sys.argv[1]))' "$planted"
export PATH="$PWD/.venv/bin:$PATH"
tool() { python -c "from grader.execution.gpu import find_tool; print(find_tool('$1') or '$1')"; }
ncu=$(tool ncu) sanitizer=$(tool compute-sanitizer)
[ -d "$build/meson-private" ] && reconfigure=--reconfigure || reconfigure=
# shellcheck disable=SC2086  # unquoted: an empty $reconfigure must add no argument
meson setup $reconfigure "$build" -Dgpu_arch=sm_90 -Dstudent_dir="$PWD/$planted" >/dev/null || exit 1
for lab in 01_vector_add 03_smoothing_halo 05_padded_transpose 06_warp_reduction 07_constant_memory; do
    meson compile -C "$build" "${lab}_student" "${lab}_solution" >/dev/null || { echo "build of $lab failed"; exit 1; }
done

sectors=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
conflicts=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
totals() {  # an ncu CSV on stdin: each metric summed over the launches
    .venv/bin/python -c 'import sys; from grader.steps.profile import parse_csv
t, n = parse_csv(sys.stdin.read()); print(f"   {n} launch(es)"); [print(f"   {m} = {v:,.0f}") for m, v in sorted(t.items())]'
}
profile() {  # variant lab metrics size: the counters of the student role's launches, as the grader reads them
    echo "== ncu, $2 $1, --size $4"
    "$ncu" --csv --clock-control none --nvtx --nvtx-include student/ --metrics "$3" \
        "$build/$2_$1_bench" --profile --size "$4" | totals
}
profile student 01_vector_add "$sectors" 1048576    # planted: lanes 32 apart
profile solution 01_vector_add "$sectors" 1048576
profile student 05_padded_transpose "$conflicts" 256  # planted: no padding
profile solution 05_padded_transpose "$conflicts" 256

# The constant cache: every metric of it, for the look-up kernel over the test cases the emulator counts.
"$ncu" --query-metrics --chip gh100 | grep -iE '^(idc|smsp__inst_executed_op_ldc)' >"$out/ncu-idc-metrics.txt"
for variant in student solution; do  # student: table in __constant__ (planted); solution: table in global
    echo "== ncu, 07_constant_memory $variant, lookup_kernel, test cases \"returns the table entry*\""
    CML_SEED=1 "$ncu" --csv --kernel-name regex:lookup --metrics 'regex:^idc__' \
        "$build/07_constant_memory_${variant}_test" --test-case='returns the table entry*' |
        tee "$out/ncu-07-$variant.csv" | totals
done

for lab in 03_smoothing_halo 06_warp_reduction; do  # the whole log to OUT; here the summary, then the hazards by line
    echo "== compute-sanitizer racecheck, $lab student (planted)"
    timeout 300 "$sanitizer" --tool racecheck --print-limit 10 "$build/student/${lab}/test/${lab}_student_test" --no-version \
        >"$out/racecheck-$lab.log" 2>&1
    grep -E 'RACECHECK SUMMARY' "$out/racecheck-$lab.log"
    grep -E 'hazard' "$out/racecheck-$lab.log" | grep -v SUMMARY | sed 's/+0x[0-9a-f]*//' | sort | uniq -c | head -20
done
