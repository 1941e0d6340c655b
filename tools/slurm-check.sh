#!/usr/bin/env bash
# ./cml slurm and collect on a real Slurm: brings up a single-node cluster from Debian's packages (slurm-wlm,
# munge; its daemons started by hand, with their configuration, state and sockets under WORK_DIR, so nothing of
# the system's is touched), grades a small generated class of Lab 1 as a job array, and checks that collect says
# "not finished" (exit 4) while the tasks run, then that every verdict is the one the class must get. The node
# has no GPU: the array asks for none (--gpus 0), the checks run on the CPU emulator, and a correct kernel is
# "incomplete" (its speed is not graded). Needs root. Output: .results/slurm-check.log.
#
#   sudo tools/slurm-check.sh [WORK_DIR]      (default /var/tmp/cml-slurm-check)
set -euo pipefail
CML_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${1:-/var/tmp/cml-slurm-check}
LOG="$CML_ROOT/.results/slurm-check.log"
STUDENTS="alice_correct bob_correct_tarball frank_out_of_bounds heidi_does_not_compile nick_includes_the_solution wendy_symlink_to_solution xavier_corrupt_zip"
[ "$(id -u)" = 0 ] || { echo "run as root: the Slurm and munge daemons need it" >&2; exit 2; }
export SLURM_CONF="$WORK/etc/slurm.conf"

DAEMONS=()
stop_daemons() {
    local pid
    for pid in "${DAEMONS[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_daemons EXIT

start_cluster() {
    if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
        echo "installing Debian's slurm-wlm and munge"
        apt-get install -y -qq slurm-wlm munge >/dev/null
    fi
    rm -rf "$WORK" && mkdir -p "$WORK"/{etc,state,spool,munge,log}
    chmod 700 "$WORK/munge"
    dd if=/dev/urandom of="$WORK/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$WORK/munge/munge.key"
    munged --key-file="$WORK/munge/munge.key" --socket="$WORK/munge/munge.socket" --pid-file="$WORK/munge/munged.pid" \
        --log-file="$WORK/log/munged.log" --seed-file="$WORK/munge/munged.seed" --force
    DAEMONS+=("$(cat "$WORK/munge/munged.pid")")
    local node
    node=$(hostname -s)
    # The node as slurmd measures it (CPUs, sockets, memory), less its UpTime line.
    local measured
    measured=$(slurmd -C | grep '^NodeName=' | sed "s/^NodeName=[^ ]*/NodeName=$node/")
    cat >"$SLURM_CONF" <<EOF
ClusterName=cmlcheck
SlurmctldHost=$node
SlurmctldPort=6917
SlurmdPort=6918
AuthType=auth/munge
AuthInfo=socket=$WORK/munge/munge.socket
CredType=cred/munge
SlurmUser=root
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
$measured State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    slurmctld -i
    slurmd
    local _
    for _ in $(seq 60); do
        [ -f "$WORK/slurmctld.pid" ] && [ -f "$WORK/slurmd.pid" ] && sinfo --noheader -o %T 2>/dev/null | grep -q idle && break
        sleep 1
    done
    DAEMONS+=("$(cat "$WORK/slurmd.pid")" "$(cat "$WORK/slurmctld.pid")")
    echo "== a single-node Slurm $(sinfo --version | cut -d' ' -f2): $measured"
    sinfo
}

main() {
    echo "# tools/slurm-check.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$CML_ROOT" describe --always --dirty)"
    start_cluster
    echo "== what the old default asked for: 8 CPUs per task"
    sbatch --test-only --cpus-per-task=8 --wrap=true 2>&1 | sed 's/^/    /' || true

    echo "== a class of $(wc -w <<<"$STUDENTS"), Lab 1"
    (cd "$CML_ROOT" && .venv/bin/python -c "import sys; from pathlib import Path; from grader.tests.support import classes as c; \
c.make(Path(sys.argv[1]), sys.argv[2].split())" "$WORK/class" "$STUDENTS")
    ls "$WORK/class/submissions"

    echo "== ./cml slurm --submit"
    (cd "$CML_ROOT" && ./cml slurm "$WORK/class/submissions" --out "$WORK/class/results" --lab 1 --tasks 2 --gpus 0 \
        --time 01:00:00 --submit)
    grep '^#SBATCH\|^cd\|^exec' "$WORK/class/results/grade.sbatch" | sed 's/^/    /'
    sleep 5
    squeue
    echo "== ./cml collect while the tasks run"
    local status=0 said
    said=$(cd "$CML_ROOT" && ./cml collect "$WORK/class/results" 2>&1) || status=$?
    grep -E -A1 'Not finished|Written' <<<"$said" | sed 's/^/    /'
    echo "collect exited $status (4: not finished)"
    [ "$status" = 4 ] || { echo "FAILED: collect did not say the tasks were running"; return 1; }

    echo "== waiting for the array"
    local waited=0
    while [ -n "$(squeue --noheader)" ]; do
        sleep 20
        waited=$((waited + 20))
        [ "$waited" -lt 3600 ] || { echo "FAILED: the array still runs after an hour"; squeue; return 1; }
    done
    echo "every task ended after about $waited s"
    sacct >/dev/null 2>&1 || true
    for log in "$WORK"/class/results/slurm/*.log; do
        echo "-- $(basename "$log"): $(grep -c . "$log") lines; the last:"
        tail -n 2 "$log" | sed 's/^/    /'
    done

    echo "== ./cml collect after the array"
    (cd "$CML_ROOT" && ./cml collect "$WORK/class/results") || { echo "FAILED: collect exited $?"; return 1; }
    column -s, -t <"$WORK/class/results/results.csv" | cut -c1-150

    echo "== every verdict against the class's (without a GPU a correct kernel is 'incomplete')"
    (cd "$CML_ROOT" && .venv/bin/python - "$WORK/class" <<'PYTHON'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
expected = json.loads((out / "expected.json").read_text())
got = {row["student"]: row for row in json.loads((out / "results" / "results.json").read_text())}
wrong = []
for student, labs in expected.items():
    row = got[student]
    if not labs and "unreadable" not in row["notes"]:
        wrong.append(f"{student}: should be unreadable: {row}")
    for lab, (verdict, _) in labs.items():
        want = "incomplete" if verdict == "passed" else verdict
        if row[f"{lab}_verdict"] != want:  # a lab's cells: {lab}_points and {lab}_verdict
            wrong.append(f"{student} {lab}: want {want}, got {row[f'{lab}_verdict']!r}")
print("\n".join(wrong) or f"all {len(expected)} students as they must be")
sys.exit(1 if wrong else 0)
PYTHON
    )
}

mkdir -p "$(dirname "$LOG")"
exec > >(tee "$LOG") 2>&1
main
