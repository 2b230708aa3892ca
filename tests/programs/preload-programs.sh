#!/bin/sh
# SPDX-License-Identifier: MIT
# Plain ODE programs (tests/ode_*.c, linked to libode only) with and without
# LD_PRELOAD=libglcollide-ode-preload.so:
#  - ode-spaces on every kind of ODE space (simple, hash, sweep-and-prune,
#    quadtree): ODE's contract holds (no pair with a zero-sized geom, none a
#    custom class's aabb_test rejects), the pile settles, glcollide served it
#    (its trimesh-primitive colliders too, or ODE's with GLCOLLIDE_PRIMITIVES=0);
#  - the same without trimeshes: the preloaded run on a simple space, and on
#    a hash space built alike, equals the plain simple-space run to the last
#    digit (same pairs in the same order), and no GL context is made even
#    with GLCOLLIDE_GPU=always;
#  - ode-threads: worlds on two threads, each equal to the world run alone,
#    on the CPU and with GPU culling forced on;
#  - ode-set-data: contacts after a trimesh's mesh changed equal those of
#    geoms no space has seen, with GPU culling forced on.
set -u
test_name=preload-programs
. "$(dirname "$0")/check.sh"
bin=${GLCOLLIDE_TEST_BIN:-tests}
preload=${GLCOLLIDE_PRELOAD_LIB:-.libs/libglcollide-ode-preload.so}
# counter NAME FILE: a counter of the preload's statistics line
counter() { sed -n "s/^glcollide-preload: .* $1=\([0-9.]*\).*/\1/p" "$2"; }
preloaded() { GLCOLLIDE_PRELOAD_STATS=1 LD_PRELOAD="$preload" "$@"; }
settled() { # every body above the floor and inside the walls
    awk '/^body/ { if ($5 < -0.01 || $3 < -1.6 || $3 > 1.6 || $4 < -1.6 || $4 > 1.6) bad++ }
         /^settled/ { seen = 1 } END { exit bad > 0 || !seen }' "$1"
}

for kind in simple hash sap quadtree; do
    "$bin/ode-spaces" $kind 300 >"$tmp/plain-$kind" 2>&1
    check "ode-spaces $kind without the preload keeps ODE's contract" $?
    preloaded "$bin/ode-spaces" $kind 300 >"$tmp/$kind" 2>"$tmp/$kind.err"
    check "ode-spaces $kind with the preload keeps ODE's contract ($(head -n 1 "$tmp/$kind"))" $?
    [ "$(counter space_collides "$tmp/$kind.err")" = 300 ]
    check "glcollide served the $kind space" $?
    [ "$(counter space_collide2s "$tmp/$kind.err")" -gt 0 ]
    check "glcollide served the near callback's dSpaceCollide2 calls on the $kind space" $?
    settled "$tmp/$kind"
    check "the $kind pile settles with the preload" $?
    grep '^settled' "$tmp/$kind" | sed "s/^/$kind: /"
done

# trimeshes against ODE's boxes and spheres: glcollide's colliders, or ODE's
# with GLCOLLIDE_PRIMITIVES=0
[ "$(counter primitive_collides "$tmp/simple.err")" -gt 0 ] 2>/dev/null
check "glcollide's trimesh-primitive colliders served the simple space's pairs" $?
GLCOLLIDE_PRIMITIVES=0 preloaded "$bin/ode-spaces" simple 300 >"$tmp/ode-primitives" \
    2>"$tmp/ode-primitives.err"
check "ode-spaces with GLCOLLIDE_PRIMITIVES=0 keeps ODE's contract" $?
[ "$(counter primitive_collides "$tmp/ode-primitives.err")" = 0 ] &&
    [ "$(counter trimesh_collides "$tmp/ode-primitives.err")" -gt 0 ] && settled "$tmp/ode-primitives"
check "GLCOLLIDE_PRIMITIVES=0: ODE's trimesh-primitive colliders, the pile settles" $?

"$bin/ode-spaces" simple 300 primitives >"$tmp/plain-primitives" 2>&1
for kind in simple hash; do
    GLCOLLIDE_GPU=always preloaded "$bin/ode-spaces" $kind 300 primitives \
        >"$tmp/primitives-$kind" 2>"$tmp/primitives-$kind.err"
    cmp -s "$tmp/plain-primitives" "$tmp/primitives-$kind"
    check "without trimeshes, the preloaded $kind space gives the simple space's run" $?
    [ "$(counter gl_contexts "$tmp/primitives-$kind.err")" = 0 ]
    check "no GL context without trimeshes ($kind, GLCOLLIDE_GPU=always)" $?
done

"$bin/ode-threads" 0 300 >"$tmp/threads-plain" 2>&1
check "ode-threads alone without the preload" $?
for gpu in never always; do
    steps=300
    [ $gpu = always ] && steps=5 # a GPU query per step and thread: ~0.3 s each on llvmpipe
    GLCOLLIDE_GPU=$gpu preloaded "$bin/ode-threads" 0 $steps >"$tmp/alone-$gpu" 2>"$tmp/alone-$gpu.err"
    check "ode-threads alone, preloaded, GLCOLLIDE_GPU=$gpu" $?
    GLCOLLIDE_GPU=$gpu preloaded "$bin/ode-threads" 2 $steps >"$tmp/threads-$gpu" 2>"$tmp/threads-$gpu.err"
    check "ode-threads with two threads, preloaded, GLCOLLIDE_GPU=$gpu" $?
    sed -n '/^world 0/,$p' "$tmp/alone-$gpu" | tail -n +2 >"$tmp/alone-$gpu.world"
    for t in 0 1; do
        sed -n "/^world $t\$/,/^world /p" "$tmp/threads-$gpu" | grep -v '^world' >"$tmp/thread-$t"
        cmp -s "$tmp/alone-$gpu.world" "$tmp/thread-$t"
        check "thread $t's world equals the world run alone (GLCOLLIDE_GPU=$gpu)" $?
    done
    queries=$(counter gpu_queries "$tmp/threads-$gpu.err")
    if [ $gpu = always ]; then [ "${queries:-0}" -gt 0 ]; else [ "${queries:-1}" = 0 ]; fi
    check "GPU queries ($queries) as GLCOLLIDE_GPU=$gpu asks" $?
    head -n 1 "$tmp/threads-$gpu" "$tmp/alone-$gpu.world" 2>/dev/null | grep pairs | sed "s/^/threads ($gpu): /"
done

"$bin/ode-set-data" >"$tmp/set-data-plain" 2>&1
check "ode-set-data without the preload" $?
GLCOLLIDE_GPU=always preloaded "$bin/ode-set-data" >"$tmp/set-data" 2>"$tmp/set-data.err"
check "ode-set-data with the preload and GPU culling" $?
cat "$tmp/set-data"
[ "$(counter gpu_queries "$tmp/set-data.err")" -gt 0 ] 2>/dev/null
check "ode-set-data's space ran GPU culling" $?

finish
