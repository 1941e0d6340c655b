#!/usr/bin/env bash
# Recompresses the GPU calls' tarballs under results/ (FILE.tar.gz, written by tools/gpu-check.sh and
# tools/gpu-stages.sh) as FILE.tar.xz, the same tar inside, and renames them in results' READMEs. Their
# grade.json files repeat each other, which xz's window finds and gzip's does not (about 12 times smaller):
# the working tree travels to the GPU with every call, within 64 MiB.
#   tools/results-xz.sh [FILE.tar.gz ...]     (none named: every one under results/)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
    mapfile -t found < <(find results -name '*.tar.gz')
    [ ${#found[@]} -gt 0 ] || { echo "no .tar.gz under results/"; exit 0; }
    set -- "${found[@]}"
fi
renames=(-e 's/tar xzf /tar xf /g')
for gz in "$@"; do
    xzfile=${gz%.gz}.xz
    gzip -dc "$gz" | xz -9 >"$xzfile"
    rm "$gz"
    echo "$gz -> $xzfile ($(stat -c %s "$xzfile") bytes)"
    # Only the names of the files recompressed: results/README.md says what the GPU calls write (.tar.gz).
    name=$(basename "$gz" .tar.gz)
    renames+=(-e "s/\b${name//./\\.}\.tar\.gz\b/$name.tar.xz/g")
done
find results -name README.md -exec sed -i "${renames[@]}" {} +
