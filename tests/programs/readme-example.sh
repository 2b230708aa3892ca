#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's minimal ODE program is tests/programs/example_minimal.c and its
# minimal library program tests/programs/example_library.c, which make check
# builds and runs (tests/example-minimal, tests/example-library): the copy
# printed in the README, the indented block after the line that names the
# file, must be the same, line for line.
set -u
test_name=readme-example
. "$(dirname "$0")/check.sh"
src=${GLCOLLIDE_SRCDIR:-$(dirname "$0")/../..}
for example in example_minimal example_library; do
    awk -v name="$example" 'block && /^[^ ]/ { exit }
         block { sub(/^    /, ""); print }
         index($0, "(tests/programs/" name ".c") && /\):$/ { block = 1; getline }' "$src/README" |
        sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/$example.c"
    [ -s "$tmp/$example.c" ]
    check "the README prints tests/programs/$example.c" $?
    diff -u "$src/tests/programs/$example.c" "$tmp/$example.c"
    check "the README's program is tests/programs/$example.c" $?
done
finish
