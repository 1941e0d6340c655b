#!/usr/bin/env bash
# What a fresh Debian or Ubuntu machine needs before ./cml can grade on it, installed system-wide through apt:
# a C++ compiler, Python 3.11 or newer with venv, the CPU emulator's clang and Boost.Context, bubblewrap and
# setpriv for the sandbox, and the CUDA toolkit (nvcc, the runtime's headers, cuBLAS) where there is no nvcc
# yet. ./cml installs the rest into the checkout itself (tools/bootstrap.sh). Used by the Gradescope
# autograder's setup.sh, the GitHub Classroom workflow and the project's own CI workflow.
#
#   tools/install-system.sh            as root, or a user with sudo
#
# Where the steps differ: Ubuntu 22.04 (Gradescope's default image) ships Python 3.10, so python3.11 is
# installed beside it and linked as .deps/python/python3, which the callers put first on PATH. The CUDA
# toolkit comes from NVIDIA's apt repository for this distribution (ubuntu2204, ubuntu2404, debian12);
# CML_CUDA_VERSION picks the release (default 13-0). Where nvcc is already on PATH or in /usr/local/cuda,
# nothing is installed for CUDA.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CUDA_VERSION=${CML_CUDA_VERSION:-13-0}

say() { printf '[install-system] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_get() { as_root env DEBIAN_FRONTEND=noninteractive apt-get "$@"; }

# shellcheck source=/dev/null
. /etc/os-release
say "on $PRETTY_NAME"
apt_get update -qq
say "installing the compilers, Python, the CPU emulator's clang and Boost.Context, bubblewrap"
apt_get install -y -qq --no-install-recommends ca-certificates wget gnupg build-essential python3 python3-venv \
    python3-pip clang libboost-context-dev bubblewrap util-linux git >/dev/null

if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    say "python3 is $(python3 --version 2>&1 | cut -d' ' -f2); installing python3.11 beside it as .deps/python/python3"
    apt_get install -y -qq --no-install-recommends python3.11 python3.11-venv >/dev/null
    mkdir -p "$ROOT/.deps/python"
    ln -sfn "$(command -v python3.11)" "$ROOT/.deps/python/python3"
fi

if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
    say "CUDA toolkit: found $(command -v nvcc || echo /usr/local/cuda/bin/nvcc); nothing to install"
else
    case "$ID$VERSION_ID" in
        ubuntu22.04) repo=ubuntu2204 ;;
        ubuntu24.04) repo=ubuntu2404 ;;
        debian12) repo=debian12 ;;
        *) say "no NVIDIA repository known for $ID $VERSION_ID: install the CUDA toolkit yourself"; exit 1 ;;
    esac
    arch=$(uname -m)
    [ "$arch" = aarch64 ] && arch=sbsa
    say "installing the CUDA toolkit ($CUDA_VERSION: nvcc, runtime, cuBLAS) from NVIDIA's $repo repository"
    keyring=$(mktemp -d)
    wget -q -O "$keyring/cuda-keyring.deb" \
        "https://developer.download.nvidia.com/compute/cuda/repos/$repo/$arch/cuda-keyring_1.1-1_all.deb"
    as_root dpkg -i "$keyring/cuda-keyring.deb" >/dev/null
    rm -rf "$keyring"
    apt_get update -qq
    apt_get install -y -qq --no-install-recommends "cuda-minimal-build-$CUDA_VERSION" "libcublas-dev-$CUDA_VERSION" \
        >/dev/null
fi
say "done"
