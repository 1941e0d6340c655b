#!/bin/bash
# x4 H100: GPU 0 the attack's GPU verdict, the recorder's GPU test, Lab 10's benchmark log; every GPU then repeats.
set -u
export PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.deps/wheels CML_SKIP_BROWSER=1 PYTHONUNBUFFERED=1
LIMIT=${LIMIT:-560}
R=$OUT/r; mkdir -p $R
pack() { tar czf $OUT/c1.tgz -C $OUT r 2>/dev/null; }
git log --oneline -1 > $R/tree.txt; nvidia-smi -L > $R/gpus.txt; nproc >> $R/gpus.txt
./cml list > $R/list.txt 2>&1
echo "bootstrap done $SECONDS" >> $R/times.txt
NAMES=$(cat .probe/names-8-12)
VARIANTS_SECONDS=$((LIMIT - SECONDS - 25)) VARIANTS_GPUS="1 2 3" GRADERS_PER_GPU=2 \
  tools/grade-variants-on-gpus.sh repeat "1101 1102 1103 1104 1105 1106" --only "$NAMES" --out $R/rep > $R/rep.log 2>&1 &
(
  export CUDA_VISIBLE_DEVICES=0
  s=$SECONDS; OUT=$R/att tools/gpu-check.sh attacks forges_the_counters > $R/att.log 2>&1; echo "attack rc=$? $((SECONDS-s)) s" >> $R/times.txt
  s=$SECONDS; ./cml test -v grader/tests/test_counters_recorder.py > $R/rec.log 2>&1; echo "recorder test rc=$? $((SECONDS-s)) s" >> $R/times.txt
  s=$SECONDS; ./cml grade --solutions --lab 10 --build-dir build-l10 --json $R/l10.json > $R/l10-grade.log 2>&1; echo "lab10 grade rc=$? $((SECONDS-s)) s" >> $R/times.txt
  b=$(find build-l10 -type f -perm -u+x -name '*10_host_memory*bench*' | grep -v emu | head -3); echo "$b" > $R/l10-bins.txt
  for x in $b; do s=$SECONDS; "$x" --json $R/l10-bench-$(basename $x).json > $R/l10-bench-$(basename $x).out 2>&1; echo "bench $x rc=$? $((SECONDS-s)) s" >> $R/times.txt; done
  pack
  VARIANTS_SECONDS=$((LIMIT - SECONDS - 25)) VARIANTS_GPUS="0" GRADERS_PER_GPU=2 \
    tools/grade-variants-on-gpus.sh repeat "1107 1108" --only "$NAMES" --out $R/rep0 > $R/rep0.log 2>&1
) &
while [ $SECONDS -lt $((LIMIT - 10)) ]; do sleep 30; pack; done
wait
for d in $R/rep $R/rep0; do PYTHONPATH=. .venv/bin/python -m grader.calibration.variants repeats --only "$NAMES" --target grader/targets/h100.toml $d/seed-* > $d-repeats.md 2>&1; done
echo "end $SECONDS" >> $R/times.txt
pack
