#!/bin/bash
# x2 H200: GPU 0 the twelve solutions as a submission (every mechanism, the counters recorder), then the recorder's
# GPU test beside ncu; GPU 1 (then 0) repeated grades of Labs 8 to 12's variants.
set -u
export PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.deps/wheels CML_SKIP_BROWSER=1 PYTHONUNBUFFERED=1
LIMIT=${LIMIT:-500}
R=$OUT/r; mkdir -p $R
pack() { tar czf $OUT/c3.tgz -C $OUT r 2>/dev/null; }
git log --oneline -1 > $R/tree.txt; nvidia-smi -L > $R/gpus.txt; nproc >> $R/gpus.txt
./cml list > $R/list.txt 2>&1
NAMES=$(cat .probe/names-8-12)
n=$(nvidia-smi -L | wc -l)
if [ "$n" -ge 2 ]; then
  VARIANTS_SECONDS=$((LIMIT - SECONDS - 25)) VARIANTS_GPUS="1" GRADERS_PER_GPU=2 \
    tools/grade-variants-on-gpus.sh repeat "1201 1205" --only "$NAMES" --out $R/rep > $R/rep.log 2>&1 &
fi
(
  export CUDA_VISIBLE_DEVICES=0
  s=$SECONDS; ./cml grade --submission solutions --build-dir build-set --json $R/set.json > $R/set.log 2>&1; echo "set rc=$? $((SECONDS-s)) s" >> $R/times.txt
  pack
  s=$SECONDS; timeout 200 ./cml test -v grader/tests/test_counters_recorder.py -k "nsight_compute_counts" > $R/rec.log 2>&1; echo "recorder test rc=$? $((SECONDS-s)) s" >> $R/times.txt
  pack
  VARIANTS_SECONDS=$((LIMIT - SECONDS - 25)) VARIANTS_GPUS="0" GRADERS_PER_GPU=2 \
    tools/grade-variants-on-gpus.sh repeat "1209 1213" --only "$NAMES" --out $R/rep0 > $R/rep0.log 2>&1
) &
while [ $SECONDS -lt $((LIMIT - 10)) ]; do sleep 30; pack; done
wait
for d in $R/rep $R/rep0; do [ -d $d ] && PYTHONPATH=. .venv/bin/python -m grader.calibration.variants repeats --only "$NAMES" --target grader/targets/h200.toml $d/seed-* > $d-repeats.md 2>&1; done
PYTHONPATH=. .venv/bin/python tools/step_times.py $R/set.json > $R/set-steps.md 2>&1
echo "end $SECONDS" >> $R/times.txt
pack
