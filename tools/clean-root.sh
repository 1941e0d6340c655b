# shellcheck shell=bash
# Sourced by tools/gradescope-check.sh and tools/classroom-check.sh: a fresh Debian root file system, made by
# debootstrap, standing in for the clean container a platform grades in (Gradescope's and GitHub's hosted
# runners are Ubuntu; this machine reaches only Debian's archive, so the root is Debian 12, minbase).
#
#   make_clean_root DIR     a new root in DIR (the base is downloaded once, then unpacked from a cache)
#   in_root DIR CMD...      runs CMD in it as root, with a clean environment
#   remove_clean_root DIR   unmounts what make_clean_root mounted and deletes DIR
#
# The CUDA toolkit: NVIDIA's repository, where setup installs it from on Ubuntu, is out of reach here, so
# this machine's toolkit is mounted read-only at the same path in the root (CML_CUDA, default the folder
# /usr/local/cuda points to) and /usr/local/cuda made a link to it. That is the one thing the root does
# not install itself, and the scripts say so.

CLEAN_ROOT_SUITE=${CLEAN_ROOT_SUITE:-bookworm}
CLEAN_ROOT_MIRROR=${CLEAN_ROOT_MIRROR:-http://deb.debian.org/debian}
CLEAN_ROOT_CACHE=${CLEAN_ROOT_CACHE:-/var/cache/cml-clean-root}
CML_CUDA=${CML_CUDA:-$(readlink -f /usr/local/cuda)}

say() { printf '[clean-root] %s\n' "$*" >&2; }

make_clean_root() {
    local root=$1 tarball="$CLEAN_ROOT_CACHE/$CLEAN_ROOT_SUITE-minbase.tgz"
    command -v debootstrap >/dev/null || { say "installing debootstrap"; apt-get install -y -qq debootstrap >/dev/null; }
    mkdir -p "$CLEAN_ROOT_CACHE"
    if [ ! -f "$tarball" ]; then
        say "downloading Debian $CLEAN_ROOT_SUITE (minbase) once, into $tarball"
        local scratch
        scratch=$(mktemp -d)
        debootstrap --variant=minbase --make-tarball="$tarball" "$CLEAN_ROOT_SUITE" "$scratch" "$CLEAN_ROOT_MIRROR" \
            >/dev/null || { rm -rf "$scratch"; return 1; }
        rm -rf "$scratch"
    fi
    say "unpacking a fresh Debian $CLEAN_ROOT_SUITE root into $root"
    debootstrap --variant=minbase --unpack-tarball="$tarball" "$CLEAN_ROOT_SUITE" "$root" "$CLEAN_ROOT_MIRROR" \
        >/dev/null || return 1
    # What any container has: name resolution, and this machine's TLS trust (PyPI is reached through it here).
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
        cp /etc/ssl/certs/ca-certificates.crt "$root/etc/host-ca-certificates.crt"
    fi
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
    mount -t sysfs sysfs "$root/sys"
    if [ -d "$CML_CUDA" ]; then
        say "stand-in for NVIDIA's repository: this machine's $CML_CUDA, mounted read-only in the root"
        mkdir -p "$root$CML_CUDA"
        mount --bind "$CML_CUDA" "$root$CML_CUDA" && mount -o remount,bind,ro "$root$CML_CUDA"
        ln -sfn "$CML_CUDA" "$root/usr/local/cuda"
    fi
}

in_root() {
    local root=$1
    shift
    chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        PIP_CERT=/etc/host-ca-certificates.crt REQUESTS_CA_BUNDLE=/etc/host-ca-certificates.crt "$@"
}

remove_clean_root() {
    local root=$1
    [ -d "$root" ] || return 0
    if [ -n "$CML_CUDA" ] && mountpoint -q "$root$CML_CUDA"; then umount "$root$CML_CUDA"; fi
    for mount in sys dev proc; do
        if mountpoint -q "$root/$mount"; then umount -R "$root/$mount" || umount -lR "$root/$mount"; fi
    done
    # Nothing may still be mounted below it before it is deleted: the toolkit and /dev are the host's.
    if grep -q " $root/" /proc/mounts; then say "still mounted under $root: not deleted"; return 1; fi
    rm -rf --one-file-system "$root"
}
