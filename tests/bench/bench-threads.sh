#!/bin/sh
# SPDX-License-Identifier: MIT
# Thread scaling (make bench-threads): the pile's collision time per step
# with glcollide's space on 1, 2, ... threads (GLCOLLIDE_THREADS) beside
# ODE's simple and SAP spaces, and one dCollide of two interpenetrating
# bunny00 (75k triangles each) on 1, 2, ... threads. Runs alternate between
# the settings (A B C A B C ...), one process each (the bunnies: the
# thread counts alternate call by call within each run's process); a run's
# figure is its median over steps (or calls); the table gives the median of
# the runs, the smallest and largest in brackets, and each thread count's
# ratio to 1 thread. Prints a Markdown table for tests/bench/BENCHMARKS.md.
#   BENCH_THREADS   thread counts          (default 1, 2, 4, 8, 16 up to the
#                                           CPUs this process may use; 1 and 2
#                                           always)
#   BENCH_PILES     "objects:steps ..."    (default "100:150 200:120 300:100")
#   BENCH_RUNS      runs of each setting   (default 5)
#   BENCH_ODE       1: ODE's spaces beside (default 1)
set -u
pile=${GLCOLLIDE_PILE:-demos/pile}
contacts=${GLCOLLIDE_BENCH_CONTACTS:-tests/bench/bench-contacts}
cpus=$(nproc 2>/dev/null || echo 2)
threads=${BENCH_THREADS:-$(for t in 1 2 4 8 16; do [ "$t" -le 2 ] || [ "$t" -le "$cpus" ] && printf '%s ' "$t"; done)}
piles=${BENCH_PILES:-100:150 200:120 300:100}
runs=${BENCH_RUNS:-5}
ode=${BENCH_ODE:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# median, min and max of the numbers in file $1: "MEDIAN (MIN-MAX)"
spread() {
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "-"; exit }
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.2f (%.2f-%.2f)", m, v[1], v[NR] }'
}
median() {
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print 0; exit }
        print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

pile_run() { # objects steps space threads -> collide_ms_median peak_rss_mb
    GLCOLLIDE_THREADS=$4 "$pile" --objects "$1" --steps "$2" --report 100000 --space "$3" \
        --output /dev/null 2>/dev/null | tail -n 1 |
        sed -n 's/.* collide_ms_median=\([0-9.]*\) .* peak_rss_mb=\([0-9.]*\) .*/\1 \2/p'
}

echo "Thread scaling on $(nproc) CPUs ($(uname -m)), $runs alternating runs per setting, medians (min-max)."
echo
header="| scene |"
rule="|---|"
for t in $threads; do header="$header glcollide, $t thread(s), ms |"; rule="$rule---|"; done
for t in $threads; do [ "$t" = 1 ] || { header="$header $t / 1 |"; rule="$rule---|"; }; done
[ "$ode" = 1 ] && { header="$header ODE simple, ms | ODE SAP, ms |"; rule="$rule---|---|"; }
header="$header peak MB (glcollide by threads; ODE simple) |"
rule="$rule---|"
echo "$header"
echo "$rule"
for spec in $piles; do
    objects=${spec%%:*} steps=${spec##*:}
    for r in $(seq "$runs"); do
        for t in $threads; do
            set -- $(pile_run "$objects" "$steps" glcollide "$t")
            echo "${1:-}" >>"$tmp/pile-$objects-$t"
            echo "${2:-}" >>"$tmp/rss-$objects-$t"
        done
        if [ "$ode" = 1 ]; then
            for space in ode-simple ode-sap; do
                set -- $(pile_run "$objects" "$steps" "$space" 1)
                echo "${1:-}" >>"$tmp/pile-$objects-$space"
                echo "${2:-}" >>"$tmp/rss-$objects-$space"
            done
        fi
    done
    row="| pile, $objects objects, collision per step |"
    for t in $threads; do row="$row $(spread "$tmp/pile-$objects-$t") |"; done
    one=$(median "$tmp/pile-$objects-1")
    for t in $threads; do
        [ "$t" = 1 ] && continue
        row="$row $(awk -v a="$(median "$tmp/pile-$objects-$t")" -v b="$one" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') |"
    done
    [ "$ode" = 1 ] && row="$row $(spread "$tmp/pile-$objects-ode-simple") | $(spread "$tmp/pile-$objects-ode-sap") |"
    rss=""
    for t in $threads; do rss="$rss$(median "$tmp/rss-$objects-$t") "; done
    [ "$ode" = 1 ] && rss="$rss; $(median "$tmp/rss-$objects-ode-simple")"
    echo "$row $rss |"
done

# One large pair: bench-contacts' bunnies, the glcollide call's median. A
# run is one process in which the call alternates between the thread counts
# round by round (--threads), ODE's call after them, so that the machine's
# noise falls on every count alike.
list=$(echo $threads | tr ' ' ',')
for r in $(seq "$runs"); do
    "$contacts" --scene bunnies --repeat 31 --threads "$list" >"$tmp/bunnies-run" 2>/dev/null
    for t in $threads; do
        sed -n "s/^contacts *bunnies *glcollide-t$t *median *\([0-9.]*\) .*/\1/p" \
            "$tmp/bunnies-run" >>"$tmp/bunnies-$t"
    done
    sed -n 's/^contacts *bunnies *ode *median *\([0-9.]*\) .*/\1/p' "$tmp/bunnies-run" \
        >>"$tmp/bunnies-ode"
done
row="| two bunny00 interpenetrating, one dCollide |"
for t in $threads; do row="$row $(spread "$tmp/bunnies-$t") |"; done
one=$(median "$tmp/bunnies-1")
for t in $threads; do
    [ "$t" = 1 ] && continue
    row="$row $(awk -v a="$(median "$tmp/bunnies-$t")" -v b="$one" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') |"
done
[ "$ode" = 1 ] && row="$row ODE's collider: $(spread "$tmp/bunnies-ode") | - |"
echo "$row - |"
