#!/usr/bin/env bash
# Gradescope's setup step, written by ./cml gradescope: Gradescope runs it once, as root, when it builds the
# autograder's image, from /autograder/source (this zip, unpacked). It installs what the grader needs
# (tools/install-system.sh: compilers, Python, the CPU emulator's clang, bubblewrap, the CUDA toolkit), the
# grader's Python packages and doctest (./cml), and builds the grader's own parts of each lab, so that a
# submission's run_autograder builds only the student's kernel.cu. No submission is here yet: nothing of a
# student's runs in this step.
#
# Last, it makes the user run_autograder grades as ($GRADER_USER: an ordinary user, so that a submission's
# code cannot change the grader, its scripts or the results, as it could as root), gives the checkout to
# root with no one else allowed to write it, and gives that user the two folders a grade writes: the build
# folder and .results (where a grader error's traceback goes).
set -euo pipefail
GRADER_USER=cml-grader  # the same name as in run_autograder
cd "$(dirname "$0")"
bash tools/install-system.sh
export PATH="$PWD/.deps/python:/usr/local/cuda/bin:$PATH"
./cml gradescope-prepare @LABS@
id -u "$GRADER_USER" >/dev/null 2>&1 ||
    useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$GRADER_USER"
chown -R root:root .
chmod -R go-w .
mkdir -p .results
chown -R "$GRADER_USER:" build .results
