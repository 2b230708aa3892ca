#!/bin/sh
# SPDX-License-Identifier: MIT
# The GPU suite on a second OpenGL implementation: Mesa's zink (OpenGL over
# Vulkan) on lavapipe (Debian's mesa-vulkan-drivers), so that code working
# only on llvmpipe shows here before it meets a real GPU. The whole suite
# takes about 10 minutes there; this runs a part that reaches every GPU
# method and the context's handling: the context suite, particles, the
# tetra-tree, bad input (extreme scales through every method, far groups,
# self-intersecting solids, resolution limits) and, with fewer random scenes
# (GLCOLLIDE_ZINK_SCENES, default 40, in place of 1,200 and 1,000), the
# culling and stencil suites. About 200 s of CPU (stencil's fixed tests
# half of it); under 4 minutes on 2 cores.
# Skips (77) only where zink cannot be had; under CI=true that fails.
set -u
bin=${GLCOLLIDE_TEST_BIN:-tests}
query=${GLCOLLIDE_QUERY:-./glcollide-query}
runtime=$(mktemp -d "${TMPDIR:-/tmp}/glcollide-zink.XXXXXX")
trap 'rm -rf "$runtime"' EXIT
chmod 700 "$runtime"
LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=zink XDG_RUNTIME_DIR=$runtime
export LIBGL_ALWAYS_SOFTWARE GALLIUM_DRIVER XDG_RUNTIME_DIR

# Is it zink that glcollide gets? Its info line names the renderer.
cat >"$runtime/cube.off" <<'EOF'
OFF
8 12 0
-1 -1 -1
1 -1 -1
1 1 -1
-1 1 -1
-1 -1 1
1 -1 1
1 1 1
-1 1 1
3 0 2 1
3 0 3 2
3 4 5 6
3 4 6 7
3 0 1 5
3 0 5 4
3 1 2 6
3 1 6 5
3 2 3 7
3 2 7 6
3 3 0 4
3 3 4 7
EOF
printf 'mesh cube.off\nobject 0 0 0 0 1 0 0 0\nobject 0 1.5 0 0 1 0 0 0\n' >"$runtime/two.scene"
renderer=$(GLCOLLIDE_LOG=info "$query" --method far --resolution 32 "$runtime/two.scene" 2>&1 |
    sed -n 's/^glcollide: info: GL [0-9.]* core, GLSL [0-9]*, //p')
case $renderer in
zink*) echo "zink: $renderer" ;;
*)
    echo "no zink here (renderer: ${renderer:-none}): install mesa-vulkan-drivers"
    if [ "${CI:-}" = true ]; then
        echo "FAIL: CI must run the GPU suite on zink"
        exit 1
    fi
    exit 77
    ;;
esac

scenes=${GLCOLLIDE_ZINK_SCENES:-40}
status=0
for suite in context particles tetra_tree bad_input cull stencil; do
    start=$(date +%s)
    GLCOLLIDE_SOAK_SCENES=$scenes CK_RUN_SUITE=$suite "$bin/glcollide-gpu-tests" || status=1
    echo "zink: $suite in $(($(date +%s) - start)) s"
done
exit $status
