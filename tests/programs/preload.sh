#!/bin/sh
# SPDX-License-Identifier: MIT
# The zero-code drop-in: tests/ode-falling, a plain ODE program linked to
# libode only, run without and with LD_PRELOAD=libglcollide-ode-preload.so.
# With the preload glcollide must serve its space (its statistics show the
# callbacks it made, equal to the pairs the program saw), the same pairs must
# reach the program as with ODE's simple space, and the pile must settle.
# The statistics line comes once however the program ends (dCloseODE, exit
# without it, killed by SIGTERM or SIGINT, its own handler, SIGTERM ignored),
# and the preload changes neither what the signal does nor the exit status.
set -u
test_name=preload
. "$(dirname "$0")/check.sh"
program=${GLCOLLIDE_ODE_FALLING:-tests/ode-falling}
preload=${GLCOLLIDE_PRELOAD_LIB:-.libs/libglcollide-ode-preload.so}

"$program" 30 300 simple >"$tmp/plain" 2>"$tmp/plain.err"
check "plain run" $?
GLCOLLIDE_PRELOAD_STATS=1 LD_PRELOAD="$preload" "$program" 30 300 simple >"$tmp/preload" 2>"$tmp/preload.err"
check "preloaded run" $?
cat "$tmp/preload.err"

[ "$(grep -c '^glcollide-preload: ' "$tmp/preload.err")" -eq 1 ]
check "glcollide served the preloaded run (one statistics line)" $?
! grep -q '^glcollide-preload: ' "$tmp/plain.err"
check "not the plain run" $?

plain_pairs=$(sed -n 's/^pairs \([0-9]*\) .*/\1/p' "$tmp/plain")
preload_pairs=$(sed -n 's/^pairs \([0-9]*\) .*/\1/p' "$tmp/preload")
callbacks=$(sed -n 's/.* callbacks=\([0-9]*\).*/\1/p' "$tmp/preload.err")
echo "pairs: plain $plain_pairs, preloaded $preload_pairs (glcollide callbacks $callbacks)"
[ -n "$preload_pairs" ] && [ "$preload_pairs" = "$callbacks" ]
check "every pair the program saw came from glcollide's space" $?

# Both piles settle inside the bin: nothing below the floor or outside the walls.
for run in plain preload; do
    awk '/^body/ { if ($5 < -0.01 || $3 < -1.6 || $3 > 1.6 || $4 < -1.6 || $4 > 1.6) bad++ }
         END { exit bad > 0 }' "$tmp/$run"
    check "$run pile stays in the bin" $?
done
grep '^settled' "$tmp/plain" "$tmp/preload"

# How the program ends: the status it ends with, the same without and with
# the preload (statistics on), and exactly one statistics line with them,
# written when the program's last dInitODE is closed (nested: after the
# steps, with every counter of the run).
for ending in close exit term int handled ignored nested; do
    "$program" 10 50 simple "$ending" >"$tmp/$ending.plain" 2>&1
    plain_status=$?
    GLCOLLIDE_PRELOAD_STATS=1 LD_PRELOAD="$preload" "$program" 10 50 simple "$ending" \
        >"$tmp/$ending.out" 2>"$tmp/$ending.err"
    status=$?
    lines=$(grep -c '^glcollide-preload: ' "$tmp/$ending.err")
    echo "ending $ending: status $plain_status plain, $status preloaded; statistics lines $lines"
    [ "$status" -eq "$plain_status" ]
    check "$ending: the same exit status as without the preload" $?
    [ "$lines" -eq 1 ]
    check "$ending: one statistics line" $?
    LD_PRELOAD="$preload" "$program" 10 50 simple "$ending" >/dev/null 2>"$tmp/$ending.quiet"
    [ $? -eq "$plain_status" ] && ! grep -q '^glcollide-preload: ' "$tmp/$ending.quiet"
    check "$ending: no line and the same status without GLCOLLIDE_PRELOAD_STATS" $?
done
grep -q '^glcollide-preload: .* space_collides=50 ' "$tmp/nested.err"
check "nested: the line comes at the last dCloseODE, with the run's 50 steps" $?
grep -q '^handled SIGTERM' "$tmp/handled.out"
check "the program's own SIGTERM handler ran (it found the default, as SDL looks)" $?
grep -q '^survived SIGTERM' "$tmp/ignored.out"
check "an ignored SIGTERM stays ignored" $?

finish
