#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's minimal ODE program is tests/programs/example_minimal.c, which make
# check builds and runs (tests/example-minimal): the copy printed in the
# README, the indented block after the line that names the file, must be
# the same, line for line.
set -u
test_name=readme-example
. "$(dirname "$0")/check.sh"
src=${GLCOLLIDE_SRCDIR:-$(dirname "$0")/../..}
awk 'block && /^[^ ]/ { exit }
     block { sub(/^    /, ""); print }
     /\(tests\/programs\/example_minimal\.c[^)]*\):$/ { block = 1; getline }' "$src/README" |
    sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/readme.c"
[ -s "$tmp/readme.c" ]
check "the README prints the minimal program" $?
diff -u "$src/tests/programs/example_minimal.c" "$tmp/readme.c"
check "the README's program is tests/programs/example_minimal.c" $?
finish
