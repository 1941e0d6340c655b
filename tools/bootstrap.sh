# shellcheck shell=bash
# Sourced by ./cml: installs what the project needs, once, into folders of its own, and says so.
#   .venv/             Python packages of grader/requirements.txt (Meson, Ninja, rich, the exports'), and for
#                      ./cml test only those of grader/requirements-test.txt (pytest) and slides/requirements.txt
#   .deps/include/     the doctest header, from Debian's doctest-dev package
#   .deps/bubblewrap/  Debian's bubblewrap (bwrap), unpacked, where none is installed: the grader's sandbox
# and, system-wide through apt without recommends, Debian's ccache (the cache of the grader's own compiles) and
# clang and libboost-context-dev (the CPU emulator, common/emu: for ./cml test, and for grading without a GPU). Debian's chromium is installed only when a
# browser test runs (the root conftest.py calls ensure_chromium), never by ./cml grade or ./cml test itself.
# Offline machines: set PIP_NO_INDEX=1 PIP_FIND_LINKS=<folder of wheels> and carry .deps/.

say() { printf '[setup] %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian packages, system-wide, without their recommends (chromium's alone are over 200 packages); the
# package lists are refreshed only when the first try fails. Returns non-zero if apt cannot install them.
apt_install() {
    local install=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@")
    as_root "${install[@]}" >/dev/null 2>&1 && return
    say "refreshing the package lists (apt-get update)"
    as_root apt-get update -qq && as_root "${install[@]}" >/dev/null
}

ensure_nvcc() {
    command -v nvcc >/dev/null && return
    [ -x /usr/local/cuda/bin/nvcc ] || die "nvcc not found: install the CUDA 13 toolkit (or put its bin/ on PATH)"
    export PATH="/usr/local/cuda/bin:$PATH"
}

# The packages of a requirements file into .venv (which must exist), once per version of the file (a stamp in
# .venv). Returns non-zero if pip fails.
install_requirements_once() {  # file stamp-name what
    local venv="$CML_ROOT/.venv" requirements=$1 wanted
    local stamp="$venv/.$2.sha256"
    wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
    [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ] && return
    local pip=("$venv/bin/python" -m pip)
    "$venv/bin/python" -m pip --version >/dev/null 2>&1 || pip=(python3 -m pip --python "$venv/bin/python")
    say "installing $3 (${requirements#"$CML_ROOT"/}) into .venv"
    "${pip[@]}" install --quiet --disable-pip-version-check -r "$requirements" || return 1
    echo "$wanted" >"$stamp"
}

ensure_python_env() {
    local venv="$CML_ROOT/.venv" requirements="$CML_ROOT/grader/requirements.txt"
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
        die "Python 3.11 or newer is needed (found $(python3 --version 2>&1))"
    if [ ! -x "$venv/bin/python" ]; then
        say "creating the Python environment .venv"
        if ! python3 -m venv "$venv" 2>/dev/null; then
            # Some interpreters ship without ensurepip: make the venv bare and install into it from outside.
            rm -rf "$venv"
            python3 -m venv --without-pip "$venv" || die "python3 -m venv failed"
        fi
    fi
    install_requirements_once "$requirements" requirements "the grader's Python packages" ||
        die "pip could not install grader/requirements.txt"
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

# Debian's bubblewrap, for the sandbox every program built from a submission runs in (grader/execution/sandbox.py):
# the system's bwrap where there is one, else the package unpacked into .deps/bubblewrap (no root needed).
ensure_bubblewrap() {
    command -v bwrap >/dev/null && return
    [ -x "$CML_ROOT/.deps/bubblewrap/usr/bin/bwrap" ] && return
    say "installing bubblewrap into .deps/bubblewrap (from Debian's bubblewrap package)"
    local scratch
    scratch=$(mktemp -d)
    if ! (cd "$scratch" && apt-get download bubblewrap >/dev/null 2>&1); then
        # shellcheck disable=SC2015  # intended: give up where the update or the second download fails
        as_root apt-get update -qq && (cd "$scratch" && apt-get download bubblewrap >/dev/null) ||
            { rm -rf "$scratch"; say "could not download bubblewrap: grading will say it has no sandbox"; return; }
    fi
    dpkg -x "$scratch"/bubblewrap_*.deb "$CML_ROOT/.deps/bubblewrap" || say "could not unpack bubblewrap"
    rm -rf "$scratch"
}

# Debian's ccache, the cache of the grader's own compiles (the harness of every lab, the same in every build
# folder and every clone): Meson puts it in front of the compilers where it finds it. A student's kernel.cu is
# never compiled through it (grader/steps/student_steps.py). Paths under the checkout are cached relative to it,
# so that a second clone, or a second build folder, finds the first one's objects. Without it, everything still
# builds, only slower.
ensure_compile_cache() {
    export CCACHE_BASEDIR="$CML_ROOT"
    command -v ccache >/dev/null && return
    say "installing Debian's ccache (the cache of the grader's own compiles)"
    apt_install ccache || say "apt could not install ccache: the grader's own parts are compiled without a cache"
}

ensure_env() {
    ensure_nvcc
    ensure_python_env
    ensure_doctest
    ensure_bubblewrap
    ensure_compile_cache
}

# The slides' packages go into the same .venv, and only when slides are built or tested (./cml slides,
# ./cml test).
ensure_slides_env() {
    install_requirements_once "$CML_ROOT/slides/requirements.txt" slides-requirements "the slides' Python packages"
}

# The linters of tools/lint.sh (./cml lint), pinned in grader/requirements-lint.txt.
ensure_lint_env() {
    install_requirements_once "$CML_ROOT/grader/requirements-lint.txt" lint-requirements "the linters" ||
        die "pip could not install grader/requirements-lint.txt"
}

# The test runner's own packages (pytest, jsonschema), for ./cml test alone: ./cml grade never imports them.
ensure_test_env() {
    install_requirements_once "$CML_ROOT/grader/requirements-test.txt" test-requirements "the test runner" ||
        die "pip could not install grader/requirements-test.txt"
}

# Debian's chromium, which the browser tests drive through Playwright (Playwright's own browser download is
# not used). Called by the browser tests' fixture (conftest.py), so that only a run of those tests installs it.
# Returns non-zero if apt cannot install it.
ensure_chromium() {
    command -v chromium >/dev/null && return
    say "installing Debian's chromium (for the slides' browser test)"
    apt_install chromium
}

# What the slides' tests need from pip (chromium comes later, from the browser tests themselves). Where it
# cannot be installed, an offline machine (PIP_NO_INDEX set, see the top of this file) runs the other tests
# and the slides' tests say why they were skipped; anywhere else that is an error.
ensure_slides_test_env() {
    local reason=""
    ensure_slides_env || reason="pip could not install slides/requirements.txt"
    [ -z "$reason" ] && return
    [ -n "${PIP_NO_INDEX:-}" ] || die "$reason"
    say "offline: $reason; the slides' tests will be skipped"
    export CML_SLIDES_UNAVAILABLE="offline machine: $reason"
}

# The CPU emulator (common/emu) builds where clang++ and Boost.Context are found (meson.build). Returns
# non-zero if apt cannot install them. Reports name source lines with llvm-symbolizer, or binutils' addr2line.
has_emulator_tools() {
    command -v clang++ >/dev/null && compgen -G "/usr/lib/*/libboost_context.so" >/dev/null
}

ensure_emulator_tools() {
    has_emulator_tools && return
    say "installing Debian's clang and libboost-context-dev (for the CPU emulator, common/emu)"
    apt_install clang libboost-context-dev
}

has_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }

# ./cml test runs every lab's suite under the emulator. As for the slides: where apt cannot install its
# tools, an offline machine (PIP_NO_INDEX set) runs the other tests and the emulator's say why they were
# skipped; anywhere else that is an error.
ensure_emulator_test_env() {
    ensure_emulator_tools && return
    local reason="apt could not install clang and libboost-context-dev"
    [ -n "${PIP_NO_INDEX:-}" ] || die "$reason (the CPU emulator's tests need them)"
    say "offline: $reason; the CPU emulator's tests will be skipped"
    export CML_EMU_UNAVAILABLE="offline machine: $reason"
}

# Grading with no GPU uses the emulator when it can; without it the checks are 'not run', never passed.
ensure_emulator_for_grading() {
    has_gpu && return
    ensure_emulator_tools ||
        say "apt could not install clang and libboost-context-dev: without a GPU or the CPU emulator, the checks will be 'not run'"
}
