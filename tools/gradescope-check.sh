#!/usr/bin/env bash
# The Gradescope autograder, tried as Gradescope runs it, in a clean root file system made by debootstrap:
# ./cml gradescope writes the zip; it is unpacked into /autograder/source and setup.sh runs there once, as
# root (Gradescope's image build); then each submission is graded by /autograder/run_autograder in a fresh
# copy of that root (an overlay: Gradescope's fresh container per submission), and its results.json is
# checked against Gradescope's documented format (grader/reporting/export/gradescope_schema.json) and for what it
# must say. Needs root (debootstrap, chroot, mounts). Output: .results/gradescope-check.log.
#
#   sudo tools/gradescope-check.sh [WORK_DIR]      (default /var/tmp/cml-gradescope-check)
#
# What differs from Gradescope (tools/clean-root.sh): the root is Debian 12, not Ubuntu, and the CUDA
# toolkit is this machine's, mounted read-only, where setup.sh would install it from NVIDIA's repository.
set -euo pipefail
CML_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${1:-/var/tmp/cml-gradescope-check}
LOG="$CML_ROOT/.results/gradescope-check.log"
# shellcheck source=tools/clean-root.sh
source "$CML_ROOT/tools/clean-root.sh"
[ "$(id -u)" = 0 ] || { echo "run as root: debootstrap, chroot and mounts need it" >&2; exit 2; }

IMAGE="$WORK/image"
CONTAINERS=()
cleanup() {
    for container in "${CONTAINERS[@]}"; do remove_container "$container" || true; done
    remove_clean_root "$IMAGE" || true
}
trap cleanup EXIT

# A fresh container of the image: an overlay on it, so that one submission's grading leaves nothing for the next.
make_container() {
    local container=$1
    mkdir -p "$container"/{upper,work,root}
    mount -t overlay overlay -o "lowerdir=$IMAGE,upperdir=$container/upper,workdir=$container/work" "$container/root"
    mount -t proc proc "$container/root/proc"
    mount --rbind /dev "$container/root/dev" && mount --make-rslave "$container/root/dev"
    mount -t sysfs sysfs "$container/root/sys"
    mount --bind "$CML_CUDA" "$container/root$CML_CUDA" && mount -o remount,bind,ro "$container/root$CML_CUDA"
    CONTAINERS+=("$container")
}

remove_container() {
    local container=$1
    [ -n "$container" ] && [ -d "$container/root" ] || return 0
    if mountpoint -q "$container/root$CML_CUDA"; then umount "$container/root$CML_CUDA"; fi
    for mount in sys dev proc; do
        if mountpoint -q "$container/root/$mount"; then umount -R "$container/root/$mount" || umount -lR "$container/root/$mount"; fi
    done
    umount "$container/root"
    rm -rf --one-file-system "$container"
}

# grade NAME SUBMISSION_DIR CREATED_AT: runs run_autograder in a fresh container, keeps its results in $WORK/NAME.
grade() {
    local name=$1 submission=$2 created=$3 container="$WORK/container-$1"
    make_container "$container"
    local root="$container/root"
    mkdir -p "$root/autograder/submission" "$root/autograder/results"
    cp -r "$submission"/. "$root/autograder/submission/"
    cat >"$root/autograder/submission_metadata.json" <<EOF
{"id": 1, "created_at": "$created", "assignment": {"due_date": "2026-03-01T23:59:00.000000-05:00",
 "late_due_date": null, "title": "Lab 1", "total_points": "100.0"},
 "users": [{"email": "$name@example.edu", "id": 1, "name": "$name"}], "previous_submissions": []}
EOF
    echo "== run_autograder: $name (submitted $created; due 2026-03-01T23:59-05:00)"
    local started=$SECONDS status=0
    in_root "$root" bash -c 'cd /autograder && ./run_autograder' >"$root/autograder/results/stdout" 2>&1 || status=$?
    echo "run_autograder exited $status after $((SECONDS - started)) s; the last lines of its output:"
    tail -n 4 "$root/autograder/results/stdout" | sed 's/^/    /'
    rm -rf "${WORK:?}/$name" && cp -r "$root/autograder/results" "$WORK/$name"
    remove_container "$container"
    [ "$status" = 0 ]
}

main() {
    echo "# tools/gradescope-check.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$CML_ROOT" describe --always --dirty)"
    rm -rf "$WORK" && mkdir -p "$WORK"
    "$CML_ROOT/cml" gradescope --out "$WORK/autograder.zip" --lab 1 --late-penalty 10 --late-limit 3
    make_clean_root "$IMAGE"
    mkdir -p "$IMAGE/autograder/source"
    unzip -q "$WORK/autograder.zip" -d "$IMAGE/autograder/source"
    cp "$IMAGE/autograder/source/run_autograder" "$IMAGE/autograder/run_autograder"
    echo "== setup.sh (Gradescope's image build), as root in /autograder/source"
    local started=$SECONDS
    in_root "$IMAGE" bash -c 'cd /autograder/source && bash ./setup.sh' >"$WORK/setup.log" 2>&1 ||
        { tail -n 30 "$WORK/setup.log"; echo "setup.sh FAILED"; return 1; }
    grep -E '^\[(install-system|setup|clean-root)\]|^Building' "$WORK/setup.log" | sed 's/^/    /'
    echo "setup.sh finished in $((SECONDS - started)) s"
    # Unmount the image's own mounts: from here on it is only the lower layer of the containers.
    for mount in sys dev proc; do umount -R "$IMAGE/$mount"; done
    umount "$IMAGE$CML_CUDA"

    local subs="$WORK/submissions"
    mkdir -p "$subs/solution/labs/01_vector_add" "$subs/skeleton/01_vector_add"
    cp "$CML_ROOT/solutions/01_vector_add/kernel.cu" "$subs/solution/labs/01_vector_add/"
    cp "$CML_ROOT/labs/01_vector_add/kernel.cu" "$subs/skeleton/01_vector_add/"
    local failed=0
    grade solution "$subs/solution" "2026-03-01T20:00:00.000000-05:00" || failed=1
    grade skeleton_late "$subs/skeleton" "2026-03-03T09:00:00.000000-05:00" || failed=1
    [ "$failed" = 0 ] || { echo "run_autograder FAILED"; return 1; }

    echo "== results.json against Gradescope's format, and what each must say"
    # jsonschema is the test runner's (grader/requirements-test.txt), which a grade alone never installs.
    "$CML_ROOT/.venv/bin/python" -m pip install -q --disable-pip-version-check -r "$CML_ROOT/grader/requirements-test.txt"
    "$CML_ROOT/.venv/bin/python" - "$WORK" "$CML_ROOT/grader/reporting/export/gradescope_schema.json" <<'PYTHON'
import json, sys
from pathlib import Path
import jsonschema
work, schema = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
problems = []
for name in ("solution", "skeleton_late"):
    results = json.loads((work / name / "results.json").read_text())
    jsonschema.validate(results, schema)
    print(f"{name}: valid; score {results['score']}; {len(results['tests'])} tests")
    print("    " + results["output"].splitlines()[0])
    for test in results["tests"]:
        print(f"    {test['number']:>5} {test['status']:<6} {test['score']:g}/{test['max_score']:g}  {test['name']}")
    speed = [t for t in results["tests"] if "performance" in t["tags"]]
    if speed or "graded on a GPU, not here" not in results["output"] or not results["extra_data"]["graded_elsewhere"]:
        problems.append(f"{name}: speed is not 'graded on a GPU, not here', no test and worth 0")
    if any("stretch" in t["tags"] and "not attempted" in t["output"] for t in results["tests"]):
        problems.append(f"{name}: a stretch not attempted is a test, where it is neither passed nor failed")
    if name == "solution" and not any(t["status"] == "passed" and t["max_score"] > 0 and "performance" not in t["tags"]
                                      for t in results["tests"]):
        problems.append("solution: no check passed")
    if name == "skeleton_late":
        late = results["extra_data"].get("late") or {}
        if late.get("days") != 2 or late.get("kept") != 0.8:
            problems.append(f"skeleton_late: want 2 days late, 80% kept; got {late}")
        if not any(t["status"] == "failed" and "correctness" in t["tags"] for t in results["tests"]):
            problems.append("skeleton_late: no correctness test failed")
print("\n".join(problems) or "every results.json as it must be")
sys.exit(1 if problems else 0)
PYTHON
}

mkdir -p "$(dirname "$LOG")"
exec > >(tee "$LOG") 2>&1
main
