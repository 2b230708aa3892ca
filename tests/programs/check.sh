# SPDX-License-Identifier: MIT
# Sourced by the shell tests after setting test_name: a temporary directory
# $tmp (removed on exit), check NAME STATUS (counts passes, prints failures)
# and finish (the last line and the exit status).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcollide-$test_name.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
passes=0 failures=0
check() {
    if [ "$2" -eq 0 ]; then passes=$((passes + 1)); else failures=$((failures + 1)); echo "FAIL: $1"; fi
}
finish() {
    echo "$test_name: $passes passed, $failures failed"
    [ "$failures" -eq 0 ]
}
