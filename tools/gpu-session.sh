#!/usr/bin/env bash
# Several parts of tools/gpu-check.sh in one call of a lent GPU machine, one after another, each time-boxed:
#   tools/gpu-session.sh SECONDS:PART[:ARGUMENT] ...     e.g. 300:solutions 240:attacks:'11_ or 12_'
# The device tool brings back at most eight files of $OUT, none deeper than two folders, and what a call stopped at
# its limit had written there. So every part writes to a scratch folder, and once a minute (and at the end) that
# folder, with the evidence the suite's cases recorded on this GPU so far, is tarred into $OUT/session.tar.gz.
# The evidence lies in the tarball under evidence/, at its path in the checkout: unpacked elsewhere, its
# evidence/grader folder copied over the checkout's puts each file where the suite reads it, and a later call
# then judges those cases from them rather than grading them again.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
final=${OUT:-.results}
mkdir -p "$final"
final=$(cd "$final" && pwd)
scratch=$(mktemp -d)
mkdir -p "$scratch/logs" "$scratch/evidence"
started=$(mktemp)  # evidence newer than this was recorded by this call

snapshot() {
    find grader/tests/evidence -name '*.json' ! -name '*.cpu-emulator.json' -newer "$started" \
        -exec cp --parents {} "$scratch/evidence/" \;
    tar czf "$final/session.tar.gz.part" -C "$scratch" logs evidence && mv "$final/session.tar.gz.part" "$final/session.tar.gz"
}
(while sleep 60; do snapshot; done) &
snapshotting=$!
trap 'kill $snapshotting 2>/dev/null; snapshot; exit 143' TERM INT

# The environment first (from the carried wheels, .deps/wheels), so that no part's time holds the install.
if [ -d .deps/wheels ]; then
    export PIP_NO_INDEX=1 PIP_FIND_LINKS="$PWD/.deps/wheels"
fi
begin=$SECONDS
./cml list >"$scratch/logs/install.log" 2>&1
echo "install: exit $? after $((SECONDS - begin)) s" | tee -a "$scratch/logs/session.log"
for spec in "$@"; do
    seconds=${spec%%:*} rest=${spec#*:}
    part=${rest%%:*} argument=""
    [ "$rest" != "$part" ] && argument=${rest#*:}
    mkdir -p "$scratch/logs/$part"
    begin=$SECONDS
    OUT="$scratch/logs/$part" timeout "$seconds" tools/gpu-check.sh "$part" ${argument:+"$argument"} \
        >"$scratch/logs/$part/console.log" 2>&1
    echo "$part ${argument:+($argument) }exit $? after $((SECONDS - begin)) s" | tee -a "$scratch/logs/session.log"
    tail -n 5 "$scratch/logs/$part/console.log"
done
kill $snapshotting 2>/dev/null
snapshot
