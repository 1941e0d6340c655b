#!/usr/bin/env bash
# The project's linters, as pyproject.toml configures them: ruff check, ruff format --check and mypy
# on the Python tree, and shellcheck on the repository's own shell scripts (the tracked *.sh files and the
# tracked files whose first line runs sh or bash: ./cml, .ci/run, run_autograder, ...; never build*/, .venv/,
# .deps/). Every linter runs, so one run shows every finding; the exit status is 1 if any found anything (or
# is not installed), else 0.
#   ./cml lint   (or tools/lint.sh, with the linters on PATH)
# The tools come from PATH: ./cml lint installs the versions pinned in grader/requirements-lint.txt, with the
# grader's dependencies that mypy reads the types of, and a shellcheck (or apt-get install shellcheck).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

failed=0
run() {  # name command...: the command's findings, and failed=1 if it exits non-zero
    echo "== $1"
    shift
    "$@" || failed=1
}
needs() {  # tool: whether it is on PATH; says so and sets failed=1 where it is not
    command -v "$1" >/dev/null && return 0
    echo "== $1: not installed (./cml lint installs it)" >&2
    failed=1
    return 1
}

# The repository's shell scripts: tracked files (every file where this is no git checkout).
shell_scripts() {
    local file
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -z
    else
        find . -type f -not -path './.git/*' -printf '%P\0'
    fi | while IFS= read -r -d '' file; do
        case "$file" in build*/* | .venv/* | .deps/* | slides/build/*) continue ;; esac
        [ -f "$file" ] || continue  # tracked, but deleted in the work tree
        case "$file" in
            *.sh) printf '%s\n' "$file" ;;
            *) head -n 1 -- "$file" | grep -qE '^#!.*[/ ](ba)?sh([[:space:]]|$)' && printf '%s\n' "$file" ;;
        esac
    done
}

if needs ruff; then
    run "ruff check ($(ruff --version))" ruff check --no-fix .
    run "ruff format --check ($(ruff --version))" ruff format --check .
fi
if needs mypy; then
    run "mypy ($(mypy --version))" mypy
fi
if needs shellcheck; then
    mapfile -t scripts < <(shell_scripts)
    version=$(shellcheck --version | sed -n 's/^version: //p')
    # -x: follow the files the scripts source (their "# shellcheck source=" paths are from the repository root).
    run "shellcheck $version (${#scripts[@]} scripts)" shellcheck -x "${scripts[@]}"
fi
if [ "$failed" -ne 0 ]; then
    echo "tools/lint.sh: findings above (or a linter missing)" >&2
else
    echo "tools/lint.sh: clean"
fi
exit "$failed"
