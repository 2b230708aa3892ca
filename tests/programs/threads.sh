#!/bin/sh
# SPDX-License-Identifier: MIT
# Every core, the same answers: a 300-step pile, a pile of meshes deforming
# every step (refit on the threads) and the stacking scenes, run
# with 1 thread (no worker at all), 2, 3 and 8, hash every contact they make
# (geoms, position, normal, depth, sides, bit for bit): one hash each. The
# runs with workers must also have taken contacts computed ahead (else this
# would compare the serial path with itself).
set -u
test_name=threads
. "$(dirname "$0")/check.sh"
pile=${GLCOLLIDE_PILE:-demos/pile}
stacks=${GLCOLLIDE_TEST_BIN:-tests}/ode-stacks

for n in 1 2 3 8; do
    (cd "$tmp" && GLCOLLIDE_THREADS=$n "$pile" --objects 40 --steps 300 --report 300 \
        --output pile-$n.png) >"$tmp/pile-$n" 2>&1
    check "pile with $n threads" $?
    tail -n 1 "$tmp/pile-$n" | sed -n 's/.* contacts=\([0-9]*\) .* min_z=\([-0-9.]*\) .* contact_hash=\([0-9a-f]*\) .*/contacts \1 min_z \2 hash \3/p' >"$tmp/pile-$n.key"
    [ -s "$tmp/pile-$n.key" ]
    check "pile with $n threads printed its contact hash" $?
    # meshes breathing every step: their refits are shared among the threads
    (cd "$tmp" && GLCOLLIDE_THREADS=$n "$pile" --objects 40 --steps 60 --deform refit \
        --report 60 --output deform-$n.png) >"$tmp/deform-$n" 2>&1
    check "deforming pile with $n threads" $?
    tail -n 1 "$tmp/deform-$n" | sed -n 's/.* contacts=\([0-9]*\) .* contact_hash=\([0-9a-f]*\) .*/contacts \1 hash \2/p' >"$tmp/deform-$n.key"
    [ -s "$tmp/deform-$n.key" ]
    check "deforming pile with $n threads printed its contact hash" $?
    GLCOLLIDE_THREADS=$n "$stacks" --flavours g --steps 300 --hash >"$tmp/stacks-$n" 2>&1
    check "stacking scenes with $n threads" $?
    grep '^contact-hash ' "$tmp/stacks-$n" >"$tmp/stacks-$n.key"
    [ "$(wc -l <"$tmp/stacks-$n.key")" -ge 10 ]
    check "stacking scenes with $n threads hashed (at least 10 scenes)" $?
done
echo "pile, 1 thread: $(cat "$tmp/pile-1.key")"
for n in 2 3 8; do
    cmp -s "$tmp/pile-1.key" "$tmp/pile-$n.key"
    check "pile: the contacts with $n threads are those with 1 ($(cat "$tmp/pile-$n.key"))" $?
    cmp -s "$tmp/deform-1.key" "$tmp/deform-$n.key"
    check "deforming pile: the contacts with $n threads are those with 1 ($(cat "$tmp/deform-$n.key"))" $?
    diff "$tmp/stacks-1.key" "$tmp/stacks-$n.key"
    check "stacking scenes: the contacts with $n threads are those with 1" $?
    served=$(sed -n 's/.* ahead_served=\([0-9]*\).*/\1/p' "$tmp/pile-$n")
    [ "${served:-0}" -gt 0 ]
    check "pile with $n threads: dCollide took contacts computed ahead ($served calls)" $?
done
finish
