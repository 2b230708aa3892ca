#!/bin/sh
# SPDX-License-Identifier: MIT
# demos/hail, small and headless: hail on the analytic colliders of the
# hail scene; every impact the step counts reaches the impact map, each
# frame's records match the map's count, the hailstones hit every collider,
# a PNG is written; the CPU reference path (--cpu) counts the same impacts
# to within the GPU's float disagreements.
set -u
test_name=hail
. "$(dirname "$0")/check.sh"
hail=${GLCOLLIDE_HAIL:-demos/hail}
field() { echo "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
(cd "$tmp" && "$hail" --particles 4000 --frames 30 --report 10 --records) >"$tmp/out" 2>&1
check "hail runs (exit 0)" $?
cat "$tmp/out"
summary=$(tail -n 1 "$tmp/out")
echo "$summary" | grep -q '^hail: particles=4000 frames=30 impacts=[0-9]* mapped=[0-9]* '
check "summary line" $?
impacts=$(field "$summary" impacts)
mapped=$(field "$summary" mapped)
[ -n "$impacts" ] && [ "$impacts" -gt 100 ]
check "hail hits something ($impacts impacts)" $?
[ "$impacts" = "$mapped" ]
check "every impact reaches the impact map ($mapped mapped)" $?
[ "$(field "$summary" record_mismatch)" = "0" ]
check "each frame's records match the map" $?
[ "$(field "$summary" path)" = "gpu" ]
check "the GPU path ran" $?
grep '^impacts per collider' "$tmp/out" | grep -qv '=0\b'
check "every collider is hit" $?
[ "$(head -c 4 "$tmp/hail.png" | od -An -c | tr -d ' ')" = "211PNG" ]
check "hail.png written" $?
(cd "$tmp" && "$hail" --particles 4000 --frames 30 --report 30 --cpu --output cpu.png) >"$tmp/cpu" 2>&1
check "hail --cpu runs" $?
cpu_impacts=$(field "$(tail -n 1 "$tmp/cpu")" impacts)
echo "gpu impacts $impacts, cpu reference impacts $cpu_impacts"
awk -v a="$impacts" -v b="$cpu_impacts" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.002 * b + 2) }'
check "GPU and CPU reference count the same impacts (within 0.2%)" $?
finish
