#!/bin/sh
# SPDX-License-Identifier: MIT
# Extracts the real meshes of Debian's libcgal-demo package (data/meshes/*.off
# inside its data.tar.gz) into the cache directory that glcollide_mesh_find_data
# searches: $GLCOLLIDE_MESH_DIR, else ${XDG_CACHE_HOME:-~/.cache}/glcollide/meshes.
# Idempotent: does nothing when the meshes are already there. Prints the directory.
set -eu

dir=${GLCOLLIDE_MESH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/glcollide/meshes}
if [ -f "$dir/.complete" ]; then
    echo "$dir"
    exit 0
fi

archive=
if command -v dpkg >/dev/null 2>&1; then
    archive=$(dpkg -L libcgal-demo 2>/dev/null | grep '/data\.tar\.gz$' | head -n 1 || true)
fi
if [ -z "$archive" ] || [ ! -f "$archive" ]; then
    echo "cgal-meshes.sh: libcgal-demo's data.tar.gz not found; install it: apt-get install libcgal-demo" >&2
    exit 1
fi

mkdir -p "$dir"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcollide-meshes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$archive" -C "$tmp" --wildcards 'data/meshes/*.off'
cp "$tmp"/data/meshes/*.off "$dir"/
for m in bunny00 armadillo elephant knot1; do
    if [ ! -s "$dir/$m.off" ]; then
        echo "cgal-meshes.sh: $m.off missing from $archive" >&2
        exit 1
    fi
done
touch "$dir/.complete"
echo "$dir"
