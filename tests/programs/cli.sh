#!/bin/sh
# SPDX-License-Identifier: MIT
# glcollide-query as a user runs it: output format, sorting, stats, and the
# exit status and one-line message of each kind of bad input.
set -u
test_name=cli
. "$(dirname "$0")/check.sh"
query=${GLCOLLIDE_QUERY:-./glcollide-query}
scenes=${GLCOLLIDE_TEST_SCENES:-tests/scenes}

# expect_error NAME EXIT_CODE PATTERN ARGS...: exits with EXIT_CODE, stderr matches PATTERN
expect_error() {
    name=$1 code=$2 pattern=$3
    shift 3
    "$query" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" -eq "$code" ] && grep -q -- "$pattern" "$tmp/err" && [ ! -s "$tmp/out" ]
    r=$?
    [ $r -eq 0 ] || { echo "  exit $got, stderr: $(cat "$tmp/err")"; }
    check "$name" $r
}

# expect_message NAME EXIT_CODE MESSAGE ARGS...: exits with EXIT_CODE within 60 s,
# prints nothing, and stderr is exactly the one line "glcollide: error: MESSAGE".
expect_message() {
    name=$1 code=$2 message=$3
    shift 3
    timeout 60 "$query" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    printf 'glcollide: error: %s\n' "$message" | cmp -s - "$tmp/err" && [ "$got" -eq "$code" ] &&
        [ ! -s "$tmp/out" ]
    r=$?
    [ $r -eq 0 ] || { echo "  exit $got, stderr: $(cat "$tmp/err")"; }
    check "$name" $r
}

cat >"$tmp/cube.off" <<'END_OFF'
OFF
8 12 0
-0.5 -0.5 -0.5
0.5 -0.5 -0.5
0.5 0.5 -0.5
-0.5 0.5 -0.5
-0.5 -0.5 0.5
0.5 -0.5 0.5
0.5 0.5 0.5
-0.5 0.5 0.5
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
END_OFF
cat >"$tmp/row.scene" <<'SCENE'
# four cubes in a row, 0.9 apart: neighbours overlap; a fifth far away
mesh cube.off
object 0 2.7 0 0 1 0 0 0
object 0 0 0 0 1 0 0 0
object 0 0.9 0 0 1 0 0 0
object 0 1.8 0 0 1 0 0 0
object 0 50 0 0 1 0 0 0
SCENE

"$query" --method exact "$tmp/row.scene" >"$tmp/out" 2>"$tmp/err"
check "exact exit 0" $?
printf 'pair 0 3\npair 1 2\npair 2 3\n' | cmp -s - "$tmp/out"
check "exact pairs sorted" $?
[ ! -s "$tmp/err" ]
check "exact is silent on stderr" $?

"$query" --method sap --stats "$tmp/row.scene" >"$tmp/out"
head -n 3 "$tmp/out" | cmp -s - "$(printf 'pair 0 3\npair 1 2\npair 2 3\n' >"$tmp/want"; echo "$tmp/want")"
check "sap pairs" $?
tail -n 1 "$tmp/out" | grep -q '^stats method=sap objects=5 .*time_ms=[0-9.]* .*aabb_pairs=3 candidates=3 .*draw_calls=0 gpu_syncs=0 readback_bytes=0'
check "sap stats line" $?

"$query" --level triangles "$tmp/row.scene" >"$tmp/out"
grep -q '^tri 0 [0-9]* 3 [0-9]*$' "$tmp/out" && [ "$(head -n 1 "$tmp/out")" = "pair 0 3" ]
check "triangle level lines" $?
sort -k1,1 -k2,2n -k3,3n -k4,4n -k5,5n "$tmp/out" | cmp -s - "$tmp/out"
check "triangle level sorted" $?

"$query" --distance 10 "$tmp/row.scene" | grep -c '^pair' | grep -qx 6
check "distance widens pairs" $?

# With the exact method, a distance line per pair (sorted, after the pairs):
# 0 for the overlapping neighbours, 0.8 for the cubes one apart.
"$query" --method exact --distance 1 "$tmp/row.scene" >"$tmp/out"
grep '^distance' "$tmp/out" | awk '{ print $2, $3 }' >"$tmp/got"
printf '0 2\n0 3\n1 2\n1 3\n2 3\n' | cmp -s - "$tmp/got"
check "distance lines, one per pair, sorted" $?
[ "$(grep -c '^pair' "$tmp/out")" = 5 ] &&
    awk '/^distance/ { d = ($2 == 0 && $3 == 2) || ($2 == 1 && $3 == 3) ? 0.8 : 0;
                       if ($4 - d > 1e-12 || d - $4 > 1e-12) bad = 1 } END { exit bad }' "$tmp/out"
check "distance lines give the distances" $?
"$query" --method sap --distance 1 "$tmp/row.scene" | grep -q '^distance'
[ $? -ne 0 ]
check "no distance lines but for the exact method" $?
"$query" "$tmp/row.scene" | grep -q '^distance'
[ $? -ne 0 ]
check "no distance lines without --distance" $?

"$query" --help | grep -q '^usage: glcollide-query'
check "help" $?

expect_error "no scene" 2 "no scene given"
expect_error "unknown option" 2 "unknown option '--frobnicate'" --frobnicate "$tmp/row.scene"
expect_error "unknown method" 2 "unknown method 'magic'" --method magic "$tmp/row.scene"
expect_error "missing value" 2 "--method needs a value" --method
expect_error "bad level" 2 "unknown level 'pixels'" --level pixels "$tmp/row.scene"
expect_error "bad resolution" 2 "--resolution '12.5'" --resolution 12.5 "$tmp/row.scene"
expect_error "bad distance" 2 "--distance '-1'" --distance -1 "$tmp/row.scene"
expect_error "two scenes" 2 "more than one scene" "$tmp/row.scene" "$tmp/row.scene"
expect_error "missing scene file" 1 "cannot open" "$tmp/none.scene"
expect_error "convex with a distance" 1 "method 'convex' answers interference only" --method convex --distance 1 "$tmp/row.scene"

# The stencil method: the same pairs as exact on the row of cubes; at
# triangle level, "edge I A B J X Y Z" lines after the pairs.
"$query" --method stencil --resolution 256 "$tmp/row.scene" >"$tmp/out" 2>"$tmp/err"
printf 'pair 0 3\npair 1 2\npair 2 3\n' | cmp -s - "$tmp/out"
check "stencil pairs" $?
"$query" --method stencil --level triangles --resolution 256 "$tmp/row.scene" >"$tmp/out"
grep -q '^edge 1 [0-9]* [0-9]* 2 [-0-9.e]* [-0-9.e]* [-0-9.e]*$' "$tmp/out" && [ "$(head -n 1 "$tmp/out")" = "pair 0 3" ]
check "stencil edge lines" $?

# Myszkowski's pairwise test: the same pairs as exact, one test per pair of
# overlapping boxes, at most 12 draw calls and 4 syncs each.
"$query" --method convex --stats --resolution 128 "$tmp/row.scene" >"$tmp/out" 2>"$tmp/err"
check "convex exit 0" $?
head -n 3 "$tmp/out" | cmp -s - "$tmp/want"
check "convex pairs" $?
tail -n 1 "$tmp/out" | awk '/^stats method=convex objects=5 / {
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    exit !(v["aabb_pairs"] == 3 && v["candidates"] == 3 && v["pairs"] == 3 &&
           v["draw_calls"] > 0 && v["draw_calls"] <= 36 && v["gpu_syncs"] > 0 && v["gpu_syncs"] <= 12) }
    !/^stats method=convex/ { exit 1 }'
check "convex stats line" $?
printf 'mesh cube.off\nobject 0 0 0 0 1 0 0 0\nobject 0 0.5 0.5 0.5 1 0 0 0\nobject 0 0.1 0.1 0.1 1 0 0 0\nobject 0 1.2 1.2 0 0.9238795 0 0 0.3826834\n' >"$tmp/convex.scene"
"$query" --method convex --resolution 256 "$tmp/convex.scene" >"$tmp/out" 2>"$tmp/err"
"$query" --method exact "$tmp/convex.scene" | cmp -s - "$tmp/out"
check "convex agrees with exact (containment, a turned cube apart)" $?

printf 'mesh cube.off\nobject 0 0 0 0 1 0 0 0\nobject 3 0 0 0 1 0 0 0\n' >"$tmp/bad.scene"
expect_error "bad scene line" 1 "bad.scene:3: object refers to mesh 3" "$tmp/bad.scene"
printf 'OFF\n8 12 0\n0 0 0\n1 0 0\n' >"$tmp/short.off"
printf 'mesh short.off\n' >"$tmp/short.scene"
expect_error "truncated mesh" 1 "short.off:" "$tmp/short.scene"

# Bad input: refused in one line naming the limit, never a hang, a flood of
# memory or a silent answer.
expect_message "/dev/zero as the scene" 1 \
    "scene /dev/zero: is a character device; only regular files are read" /dev/zero
printf 'mesh /dev/zero\n' >"$tmp/zero.scene"
expect_message "/dev/zero as a mesh" 1 \
    "$tmp/zero.scene:1: /dev/zero: is a character device; only regular files are read" "$tmp/zero.scene"
mkfifo "$tmp/fifo"
expect_message "a FIFO as the scene" 1 "scene $tmp/fifo: is a FIFO; only regular files are read" "$tmp/fifo"
printf 'mesh %s\n' "$tmp/fifo" >"$tmp/fifo.scene"
expect_message "a FIFO as an absolute mesh path" 1 \
    "$tmp/fifo.scene:1: $tmp/fifo: is a FIFO; only regular files are read" "$tmp/fifo.scene"
expect_message "a directory as the scene" 1 "scene $tmp: is a directory; only regular files are read" "$tmp"
printf 'mesh cube.off\nobject 0 0 0 0 1 0 0 0\000 junk\nobject 0 5 0 0 1 0 0 0\n' >"$tmp/nul.scene"
expect_message "a NUL byte in a scene line" 1 "$tmp/nul.scene:2: NUL byte (a scene file is text)" "$tmp/nul.scene"
printf 'mesh cube.off scale 1e-320\nobject 0 0 0 0 1 0 0 0\n' >"$tmp/subnormal.scene"
expect_message "a subnormal scale" 1 \
    "$tmp/subnormal.scene:1: $tmp/cube.off:3: coordinate -0.5 underflows when scaled (below the normal double range)" \
    "$tmp/subnormal.scene"
expect_message "a mesh error is one line" 1 "$tmp/short.scene:1: $tmp/short.off:4: file ends after 2 of 8 vertices" \
    "$tmp/short.scene"
export GLCOLLIDE_GL_MEMORY=1024 # a budget the same on every machine
expect_message "a resolution beyond the GL memory budget" 1 \
    "stencil: resolution 16384 needs 8.0 GiB of GL memory (32 bytes per pixel), over the budget of 1.0 GiB (GLCOLLIDE_GL_MEMORY); at most 5792" \
    --method stencil --resolution 16384 "$tmp/row.scene"
unset GLCOLLIDE_GL_MEMORY
printf '\357\273\277mesh cube.off\nobject 0 0 0 0 1 0 0 0\nobject 0 0.5 0 0 1 0 0 0\n' >"$tmp/bom.scene"
"$query" "$tmp/bom.scene" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && printf 'pair 0 1\n' | cmp -s - "$tmp/out" && [ ! -s "$tmp/err" ]
check "a UTF-8 byte order mark starts a scene" $?

# Past float's range (and --distance past it): every method as exact.
printf 'mesh cube.off scale 1e39\nobject 0 2.7e39 0 0 1 0 0 0\nobject 0 0 0 0 1 0 0 0\nobject 0 0.9e39 0 0 1 0 0 0\nobject 0 1.8e39 0 0 1 0 0 0\nobject 0 50e39 0 0 1 0 0 0\n' >"$tmp/huge.scene"
for method in exact sap far cullide stencil convex; do
    "$query" --method $method --resolution 256 "$tmp/huge.scene" 2>"$tmp/err" | cmp -s "$tmp/want" -
    check "$method at scale 1e39" $?
done
"$query" --method far --distance 1e39 "$tmp/row.scene" | grep -c '^pair' | grep -qx 10
check "far --distance 1e39 keeps every pair" $?

# Closed meshes that pass through themselves (camel 20 triangle pairs, cow
# 101): solids where they wind, for every method.
printf 'mesh camel.off\nmesh cow.off\nobject 0 0 0 0 1 0 0 0\nobject 0 0.2 0.1 0.05 0.9238795 0 0 0.3826834\nobject 1 0.5 0 0 1 0 0 0\nobject 1 3 0 0 1 0 0 0\n' >"$tmp/camel.scene"
"$query" "$tmp/camel.scene" >"$tmp/want-camel"
printf 'pair 0 1\npair 0 2\npair 1 2\n' | cmp -s - "$tmp/want-camel"
check "camel and cow: exact" $?
for method in stencil convex; do
    "$query" --method $method --resolution 256 "$tmp/camel.scene" 2>"$tmp/err" | cmp -s "$tmp/want-camel" -
    check "camel and cow: $method as exact" $?
done

# The bundled real-mesh scene (needs the libcgal-demo meshes).
"$query" --stats "$scenes/bunnies.scene" >"$tmp/out" 2>"$tmp/err"
check "bunnies scene runs" $?
head -n 1 "$tmp/out" | grep -qx 'pair 0 1'
check "bunnies intersect" $?

finish
