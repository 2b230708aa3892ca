#!/bin/sh
# SPDX-License-Identifier: MIT
# The pile soak (`make soak-pile`, not part of make check): a long run of
# demos/pile with glcollide's space, checking that memory does not grow once
# the pile is warm. Resident memory is read at each report; growth from the
# first report after warm-up (a fifth of the run) to the last must stay under
# 1 MiB (the kept buffers only grow when a step needs more than any before).
# PILE_SOAK_OBJECTS (300) and PILE_SOAK_STEPS (10000) size it: about 45
# minutes on llvmpipe's 2 cores (1000 objects: about 3 hours there).
set -u
pile=${GLCOLLIDE_PILE:-demos/pile}
case $pile in /*) ;; *) pile=$PWD/$pile ;; esac # the runs happen in a temporary directory
objects=${PILE_SOAK_OBJECTS:-300}
steps=${PILE_SOAK_STEPS:-10000}
report=$((steps / 20))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && "$pile" --objects "$objects" --steps "$steps" --report "$report") >"$tmp/out" 2>&1
status=$?
cat "$tmp/out"
[ "$status" -eq 0 ] || { echo "FAIL: pile exited with $status"; exit 1; }
warm=$((steps / 5))
awk -v warm="$warm" '
    /^step [0-9]+:/ {
        step = $2; sub(":", "", step)
        for (i = 1; i <= NF; i++) if ($i == "rss") rss = $(i + 1)
        if (step + 0 >= warm && first == "") first = rss
        last = rss
    }
    END {
        growth = last - first
        printf "resident memory: %.1f MB at step >= %d, %.1f MB at the end: growth %.1f MB\n", first, warm, last, growth
        exit !(first != "" && growth < 1.0)
    }' "$tmp/out" || { echo "FAIL: memory grew"; exit 1; }
tail -n 1 "$tmp/out" | grep -q ' outside=0 ' || { echo "FAIL: objects left the bin"; exit 1; }
echo "PASS: pile soak, $objects objects, $steps steps"
