#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's first command, on Debian 12: installs what glcollide needs
# (apt, with sudo when not root), extracts the libcgal-demo meshes, bootstraps,
# configures, builds, and runs the main demo headless. Idempotent: steps that
# are already done are skipped. Run from the top of the source tree.
set -eu

cd "$(dirname "$0")/.."

packages="build-essential autoconf automake libtool pkg-config libode-dev libepoxy-dev
 libegl-dev libegl-mesa0 libgl1-mesa-dri mesa-vulkan-drivers libglfw3-dev check libcgal-demo
 gnuplot-nox libfcl-dev python3-dev python3-numpy python3-pytest"

missing=
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done
if [ -n "$missing" ]; then
    sudo=
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    echo "== installing:$missing"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

echo "== meshes"
sh tests/cgal-meshes.sh

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
    echo "== autoreconf"
    autoreconf -fi
fi
if [ ! -f Makefile ] || [ configure -nt Makefile ]; then
    echo "== configure"
    ./configure --enable-silent-rules
fi
echo "== build"
make -j"$(nproc)"
echo "== main demo (headless)"
make demo
