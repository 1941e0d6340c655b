#!/usr/bin/env bash
# Gradescope's setup step, written by ./cml gradescope: Gradescope runs it once, as root, when it builds the
# autograder's image, from /autograder/source (this zip, unpacked). It installs what the grader needs
# (tools/install-system.sh: compilers, Python, the CPU emulator's clang, bubblewrap, the CUDA toolkit), the
# grader's Python packages and doctest (./cml), and builds the grader's own parts of each lab, so that a
# submission's run_autograder builds only the student's kernel.cu.
set -euo pipefail
cd "$(dirname "$0")"
bash tools/install-system.sh
export PATH="$PWD/.deps/python:/usr/local/cuda/bin:$PATH"
./cml gradescope-prepare @LABS@
