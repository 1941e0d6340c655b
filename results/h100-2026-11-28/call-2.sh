#!/bin/bash
# x1 H100: the whole set (twelve solutions as a submission), each checkout in turn on the same machine:
# clean build folders (this, .mid, .old), then kept (this, .old). this = side-by-side test runs + printed-only;
# .mid = printed-only (bc73cf4); .old = 19a49f3.
set -u
export PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.deps/wheels CML_SKIP_BROWSER=1 PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R
pack() { tar czf $OUT/c2.tgz -C $OUT r 2>/dev/null; }
git log --oneline -1 > $R/tree.txt; nvidia-smi -L > $R/gpus.txt; nproc >> $R/gpus.txt
./cml list > $R/list.txt 2>&1
for c in .mid .old; do cp -r .deps $c/ && (cd $c && ./cml list > $R/list$c.txt 2>&1); done
echo "setup $SECONDS s" >> $R/speed.log
for round in clean kept; do
  for c in . .mid .old; do
    [ $round = kept ] && [ $c = .mid ] && continue
    [ $SECONDS -gt 470 ] && { echo "skipped $c $round at $SECONDS s" >> $R/speed.log; continue; }
    n=$([ $c = . ] && echo this || echo ${c#.})
    [ $round = clean ] && rm -rf $c/build-speed
    s=$SECONDS
    (cd $c && ./cml grade --submission solutions --build-dir build-speed --json $R/speed-$n-$round.json > $R/speed-$n-$round.log 2>&1)
    echo "$n $round: exit $?, $((SECONDS - s)) s" >> $R/speed.log
    pack
  done
done
PYTHONPATH=. .venv/bin/python tools/step_times.py $R/speed-*.json > $R/step-times.md 2>&1
echo "end $SECONDS s" >> $R/speed.log
pack
