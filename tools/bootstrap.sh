# Sourced by ./cml: installs what the project needs, once, into folders of its own, and says so.
#   .venv/             Python packages of grader/requirements.txt (Meson, Ninja, rich, pytest)
#   .deps/include/     the doctest header, from Debian's doctest-dev package
# Offline machines: set PIP_NO_INDEX=1 PIP_FIND_LINKS=<folder of wheels> and carry .deps/.

say() { printf '[setup] %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

ensure_nvcc() {
    command -v nvcc >/dev/null && return
    [ -x /usr/local/cuda/bin/nvcc ] || die "nvcc not found: install the CUDA 13 toolkit (or put its bin/ on PATH)"
    export PATH="/usr/local/cuda/bin:$PATH"
}

ensure_python_env() {
    local venv="$CML_ROOT/.venv" requirements="$CML_ROOT/grader/requirements.txt"
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
        die "Python 3.11 or newer is needed (found $(python3 --version 2>&1))"
    local pip=("$venv/bin/python" -m pip)
    if [ ! -x "$venv/bin/python" ]; then
        say "creating the Python environment .venv"
        if ! python3 -m venv "$venv" 2>/dev/null; then
            # Some interpreters ship without ensurepip: make the venv bare and install into it from outside.
            rm -rf "$venv"
            python3 -m venv --without-pip "$venv" || die "python3 -m venv failed"
        fi
    fi
    "$venv/bin/python" -m pip --version >/dev/null 2>&1 || pip=(python3 -m pip --python "$venv/bin/python")
    local wanted stamp="$venv/.requirements.sha256"
    wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
    if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
        say "installing the grader's Python packages (grader/requirements.txt) into .venv"
        "${pip[@]}" install --quiet --disable-pip-version-check -r "$requirements" ||
            die "pip could not install grader/requirements.txt"
        echo "$wanted" >"$stamp"
    fi
    export PATH="$venv/bin:$PATH"
}

ensure_doctest() {
    local include="$CML_ROOT/.deps/include"
    [ -f "$include/doctest/doctest.h" ] && return
    say "installing the doctest header into .deps/include (from Debian's doctest-dev)"
    local scratch
    scratch=$(mktemp -d)
    if ! (cd "$scratch" && apt-get download doctest-dev >/dev/null 2>&1); then
        say "refreshing the package lists (apt-get update)"
        as_root apt-get update -qq || die "apt-get update failed"
        (cd "$scratch" && apt-get download doctest-dev >/dev/null) || die "apt-get download doctest-dev failed"
    fi
    dpkg -x "$scratch"/doctest-dev_*.deb "$scratch/root" || die "could not unpack doctest-dev"
    mkdir -p "$include"
    cp -r "$scratch/root/usr/include/doctest" "$include/"
    rm -rf "$scratch"
}

ensure_env() {
    ensure_nvcc
    ensure_python_env
    ensure_doctest
}

# The slides' packages (slides/requirements.txt) go into the same .venv, and only when slides are built or
# tested (./cml slides, ./cml test). Call after ensure_python_env. Returns non-zero if pip fails.
ensure_slides_env() {
    local venv="$CML_ROOT/.venv" requirements="$CML_ROOT/slides/requirements.txt"
    local wanted stamp="$venv/.slides-requirements.sha256"
    wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
    [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ] && return
    local pip=("$venv/bin/python" -m pip)
    "$venv/bin/python" -m pip --version >/dev/null 2>&1 || pip=(python3 -m pip --python "$venv/bin/python")
    say "installing the slides' Python packages (slides/requirements.txt) into .venv"
    "${pip[@]}" install --quiet --disable-pip-version-check -r "$requirements" || return 1
    echo "$wanted" >"$stamp"
}

# Debian's chromium, which the slides' browser test drives through Playwright (Playwright's own browser
# download is not used). Returns non-zero if apt cannot install it.
ensure_chromium() {
    command -v chromium >/dev/null && return
    say "installing Debian's chromium (for the slides' browser test)"
    local install=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
    as_root "${install[@]}" >/dev/null 2>&1 && return
    say "refreshing the package lists (apt-get update)"
    as_root apt-get update -qq && as_root "${install[@]}" >/dev/null
}

# What the slides' tests need. Where it cannot be installed, an offline machine (PIP_NO_INDEX set, see the
# top of this file) runs the other tests and the slides' tests say why they were skipped; anywhere else that
# is an error. CML_SKIP_BROWSER=1: build the decks but do not open them (no chromium needed).
ensure_slides_test_env() {
    local reason=""
    ensure_slides_env || reason="pip could not install slides/requirements.txt"
    if [ -z "$reason" ] && [ "${CML_SKIP_BROWSER:-0}" != 1 ]; then
        ensure_chromium || reason="apt could not install chromium (CML_SKIP_BROWSER=1 skips the browser test)"
    fi
    [ -z "$reason" ] && return
    [ -n "${PIP_NO_INDEX:-}" ] || die "$reason"
    say "offline: $reason; the slides' tests will be skipped"
    export CML_SLIDES_UNAVAILABLE="offline machine: $reason"
}
