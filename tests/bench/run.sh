#!/bin/sh
# SPDX-License-Identifier: MIT
# The benchmark driver (`make bench` runs it from the build directory):
# every scene in its own process, glcollide and ODE's native path in the same
# run; rows appended to tests/bench/results/<machine>-<date>.csv; then the
# Markdown tables, the fitted slopes and the gnuplot plots written into
# tests/bench/BENCHMARKS.md between its marker comments.
#
#   BENCH_QUICK=1        small sizes, 1 repetition: a smoke test of a few
#                        minutes; rows go to results/<machine>-<date>-quick.csv
#                        and the report to tests/bench/BENCHMARKS-quick.md
#                        (neither committed)
#   BENCH_MACHINE=NAME   machine name in the file name and rows (hostname)
#   BENCH_REPORT_ONLY=1  no runs: tables and plots from the CSVs there are
#   BENCH_RESOLUTION=R   culling/stencil viewport (1024)
#   BENCH_GROUPS="..."   groups to run (default all): bunnies static-pile
#                        stencil myszkowski hail cloud pile pile-gpu small
#                        contacts
#
# Rows (one CSV schema for all programs, see tests/bench/bench.h):
#   machine,date,device,bench,scene,method,size,size_unit,triangles,repeats,
#   median_ms,min_ms,max_ms,candidates,contacts,pairs,draw_calls,gpu_syncs,
#   readback_bytes,triangles_rasterized,peak_rss_mb,gpu_buffer_mb
# device is the GL renderer the programs got (ODE rows: the same process, on
# the CPU); ratios are only ever taken between rows of one device and machine.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${BENCH_BUILD:-$PWD}
machine=${BENCH_MACHINE:-$(hostname)}
machine=$(printf %s "$machine" | tr -c 'A-Za-z0-9._-' '-')
date=$(date -u +%Y-%m-%d)
quick=${BENCH_QUICK:-0}
resolution=${BENCH_RESOLUTION:-1024}
results=$src/tests/bench/results
header=machine,date,device,bench,scene,method,size,size_unit,triangles,repeats,median_ms,min_ms,max_ms,candidates,contacts,pairs,draw_calls,gpu_syncs,readback_bytes,triangles_rasterized,peak_rss_mb,gpu_buffer_mb
if [ "$quick" = 1 ]; then
    csv=$results/$machine-$date-quick.csv
    doc=$src/tests/bench/BENCHMARKS-quick.md
else
    csv=$results/$machine-$date.csv
    doc=$src/tests/bench/BENCHMARKS.md
fi
log=${csv%.csv}.log
mkdir -p "$results/plots"

groups=" ${BENCH_GROUPS:-bunnies static-pile stencil myszkowski hail cloud pile pile-gpu small contacts} "
want() { case $groups in *" $1 "*) return 0 ;; esac; return 1; }

device=
# run_scene PROGRAM ARGS...: one scene in one process; its rows (prefixed with
# machine and date) go to the CSV, its '#' lines and errors to the log.
run_scene() {
    prog=$1
    shift
    echo "== $prog $*" | tee -a "$log"
    start=$(date +%s)
    case $prog in
    bench-pile.sh) out=$(GLCOLLIDE_PILE=$build/demos/pile sh "$src/tests/bench/bench-pile.sh" --rows "$device" "$@" 2>>"$log") ;;
    bench-cull | bench-stencil) out=$("$build/tests/bench/$prog" --csv --resolution "$resolution" "$@" 2>>"$log") ;;
    *) out=$("$build/tests/bench/$prog" --csv "$@" 2>>"$log") ;;
    esac
    status=$?
    printf '%s\n' "$out" | grep '^#' >>"$log"
    printf '%s\n' "$out" | grep -v '^#' | grep , | sed "s/^/$machine,$date,/" | tee -a "$csv"
    [ $status -eq 0 ] || echo "   exit status $status (see $log)" | tee -a "$log"
    echo "   $(($(date +%s) - start)) s" | tee -a "$log"
}

if [ "${BENCH_REPORT_ONLY:-0}" != 1 ]; then
    [ -f "$csv" ] || echo "$header" >"$csv"
    # The device label for the pile's rows (demos/pile prints none): the
    # renderer a bench program gets on this machine.
    device=$("$build/tests/bench/bench-cull" --device 2>/dev/null | sed -n 's/^device: //p')
    [ -n "$device" ] || device=unknown
    echo "== $machine $date, device: $device, rows to $csv"
    if [ "$quick" = 1 ]; then
        r=1
        run_scene bench-cull --scene bunnies --repeat $r
        run_scene bench-stencil --scene light --size 10 --repeat $r
        run_scene bench-stencil --scene light --size 100 --repeat $r
        run_scene bench-stencil --scene detail --size 100 --detail 100 --repeat $r
        run_scene bench-stencil --scene detail --size 100 --detail 1000 --repeat $r
        run_scene bench-particles --size 10000 --repeat $r
        run_scene bench-particles --size 100000 --repeat $r
        run_scene bench-tetra-tree --size 10000 --repeat $r
        run_scene bench-tetra-tree --size 100000 --repeat $r
        run_scene bench-myszkowski --scene knot1-knot2 --repeat $r
        for space in glcollide glcollide-gpu ode-sap ode-simple; do
            run_scene bench-pile.sh 100 10 none $space
            run_scene bench-pile.sh 300 5 none $space
            run_scene bench-pile.sh 100 10 refit $space
        done
        for scene in basket moving-trimesh sparse; do
            run_scene bench-small --scene $scene --size 1 --steps 200 --repeat 1
        done
        run_scene bench-contacts --scene cylinders-rest --repeat 5
        run_scene bench-contacts --scene stack-cylinders --repeat 1 --steps 200
    else
        # Scenes, one line each (a new program: --csv, bench.h rows, one
        # line here and one in bench_programs of Makefile.am).
        if want bunnies; then run_scene bench-cull --scene bunnies --repeat 7; fi
        if want static-pile; then run_scene bench-cull --scene pile --repeat 1; fi
        if want stencil; then
            for n in 10 100 1000; do run_scene bench-stencil --scene light --size $n --repeat 3; done
            for n in 10 100; do run_scene bench-stencil --scene mixed --size $n --repeat 3; done
            for t in 100 1000 10000; do run_scene bench-stencil --scene detail --size 100 --detail $t --repeat 3; done
        fi
        if want myszkowski; then
            for pair in knot1-knot2 elephant-dino bunny; do run_scene bench-myszkowski --scene $pair --repeat 5; done
            for t in 1000 10000 100000; do run_scene bench-myszkowski --scene spheres --detail $t --repeat 5; done
        fi
        if want hail; then
            for n in 10000 100000 1000000; do run_scene bench-particles --size $n --repeat 5; done
        fi
        if want cloud; then
            for n in 10000 100000 1000000; do run_scene bench-tetra-tree --size $n --repeat 5; done
        fi
        # small scenes in the style of ODE's demo_basket and demo_moving_trimesh,
        # ODE's space and glcollide's in one process: the space's fixed cost
        if want small; then
            for scene in basket moving-trimesh sparse; do
                for n in 1 8; do run_scene bench-small --scene $scene --size $n --steps 1000 --repeat 5; done
            done
        fi
        # rigid mesh-mesh and mesh-primitive contacts beside ODE's colliders:
        # pairs (one call) and the resting stacks and the gripper stepped whole
        if want contacts; then
            for scene in bunnies knots cylinders-rest cubes-rest slab-bunny-46 slab-bunny-up \
                         small-slab-bunny-10 slab-elephant-30 armadillo-elephant \
                         bunny-plane cube-plane rotor-finger; do
                run_scene bench-contacts --scene $scene --repeat 51
            done
            for scene in stack-cylinders stack-fine stack-cube primitives-on-fine-table gripper-rotor; do
                run_scene bench-contacts --scene $scene --repeat 3 --steps 1000
            done
        fi
        # the pile: steps are the repetitions (few at 5000: ODE's SAP space
        # takes seconds per step there). glcollide = the plugin's defaults
        # (GPU culling off on software renderers); glcollide-gpu forces it on.
        spaces=
        want pile && spaces="glcollide ode-sap ode-simple"
        want pile-gpu && spaces="$spaces glcollide-gpu"
        for space in $spaces; do
            for size in 100:200 1000:40 5000:4; do
                run_scene bench-pile.sh "${size%%:*}" "${size##*:}" none $space
            done
            for mode in refit rebuild; do run_scene bench-pile.sh 100 100 $mode $space; done
        done
    fi
fi

# ------------------------------------------------------------------ report
if [ "$quick" = 1 ]; then
    inputs=$csv
    plots=$results/plots/quick
else
    inputs=$(ls "$results"/*.csv 2>/dev/null | grep -v -- '-quick\.csv$')
    plots=$results/plots
fi
[ -n "$inputs" ] || { echo "no results in $results" >&2; exit 1; }
mkdir -p "$plots"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The latest row of each (machine, device, scene, method, size, triangles):
# files in date order, later rows replace earlier ones.
for f in $inputs; do tail -n +2 "$f"; done | grep , | awk -F, '
    { key = $1 FS $3 FS $4 FS $5 FS $6 FS $7 FS $9
      if (!(key in row)) order[++n] = key
      row[key] = $0 }
    END { for (i = 1; i <= n; i++) print row[order[i]] }' >"$work/rows.csv"

# Tables: per machine and device, per bench, every row, with the ratio to
# the fastest ODE row of the same scene and size (or, where ODE has no such
# path, to glcollide's CPU twin "cpu", or to "pim" for the cloud).
awk -F, -v OFS=' | ' '
    function fmt(v, d) { return v == "" ? "" : sprintf("%." d "f", v) }
    function big(v) { return v == "" ? "" : v >= 1e6 ? sprintf("%.2fM", v / 1e6) : v >= 1e4 ? sprintf("%.0fk", v / 1e3) : sprintf("%g", v) }
    {
        r[NR] = $0
        g = $1 FS $3 FS $5 FS $7 FS $9
        if ($6 ~ /^ode/ && (!(g in best) || $11 < best[g])) { best[g] = $11; bestname[g] = $6 }
        if ($6 == "cpu") twin[g] = $11
        if ($6 == "pim") pim[g] = $11
        dev = $1 " / " $3
        if (!(dev in seen)) { seen[dev] = 1; devs[++nd] = dev }
        b = dev FS $4
        if (!(b in seenb)) { seenb[b] = 1; benches[dev, ++nb[dev]] = $4 }
    }
    END {
        for (d = 1; d <= nd; d++) {
            printf "\n### %s\n", devs[d]
            for (k = 1; k <= nb[devs[d]]; k++) {
                bench = benches[devs[d], k]
                printf "\n**%s**\n\n", bench
                print "| scene | size | triangles | method | median ms | min–max ms | ratio | vs | candidates | contacts | pairs | draws | syncs | readback B | tris rasterized | peak RSS MB | GPU MB |"
                print "|---|---:|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
                for (i = 1; i <= NR; i++) {
                    split(r[i], f, FS)
                    if (f[1] " / " f[3] != devs[d] || f[4] != bench) continue
                    g = f[1] FS f[3] FS f[5] FS f[7] FS f[9]
                    ratio = ""; vs = ""
                    if ((g in best) && f[6] !~ /^ode/) { ratio = f[11] / best[g]; vs = bestname[g] }
                    else if ((g in twin) && f[6] != "cpu") { ratio = f[11] / twin[g]; vs = "cpu" }
                    else if ((g in pim) && f[6] != "pim") { ratio = f[11] / pim[g]; vs = "pim" }
                    print "| " f[5], f[7] " " f[8], big(f[9]), f[6], fmt(f[11], f[11] < 10 ? 3 : 1),
                        fmt(f[12], f[12] < 10 ? 3 : 1) "–" fmt(f[13], f[13] < 10 ? 3 : 1),
                        ratio == "" ? "" : sprintf("%.2f", ratio), vs, big(f[14]), big(f[15]), big(f[16]),
                        f[17], f[18], big(f[19]), big(f[20]), f[21], fmt(f[22], 1) " |"
                }
            }
        }
    }' "$work/rows.csv" >"$work/tables.md"

# Slopes: least squares of log(time) on log(size) for every (device, scene,
# method) measured at several sizes, and on log(triangles) where those vary.
awk -F, '
    {
        k = $1 FS $3 FS $5 FS $6
        if (!(k in n)) keys[++nk] = k
        i = ++n[k]; x[k, i] = $7; t[k, i] = $9; y[k, i] = $11; unit[k] = $8
        # the pile: steps of a falling scene; other step counts are other phases
        if (i == 1) rep[k] = $10; else if (rep[k] != $10 && $4 == "pile") mixed[k] = 1
    }
    function slope(k, xs,    i, sx, sy, sxx, sxy, m, lx, ly, lo, hi) {
        m = n[k]; sx = sy = sxx = sxy = 0; lo = hi = ""
        for (i = 1; i <= m; i++) {
            v = xs == "size" ? x[k, i] : t[k, i]
            if (v <= 0 || y[k, i] <= 0) return ""
            if (lo == "" || v < lo) lo = v
            if (hi == "" || v > hi) hi = v
            lx = log(v); ly = log(y[k, i])
            sx += lx; sy += ly; sxx += lx * lx; sxy += lx * ly
        }
        if (hi <= lo * 1.5 || m * sxx - sx * sx <= 0) return ""
        range[k] = lo "–" hi
        return (m * sxy - sx * sy) / (m * sxx - sx * sx)
    }
    END {
        print "| machine / device | scene | method | time vs | points | range | slope |"
        print "|---|---|---|---|---:|---|---:|"
        for (j = 1; j <= nk; j++) {
            k = keys[j]; split(k, f, FS)
            if (n[k] < 2) continue
            if (k in mixed) { skipped = skipped (skipped == "" ? "" : ", ") f[3] " " f[4]; continue }
            s = slope(k, "size")
            if (s != "") printf "| %s / %s | %s | %s | %s | %d | %s | %.2f |\n", f[1], f[2], f[3], f[4], unit[k], n[k], range[k], s
            s = slope(k, "triangles")
            if (s != "") printf "| %s / %s | %s | %s | triangles | %d | %s | %.2f |\n", f[1], f[2], f[3], f[4], n[k], range[k], s
        }
        if (skipped != "")
            printf "\nNot fitted: %s (their sizes ran for different numbers of steps of a falling pile,\nso they measure different phases, not scaling).\n", skipped
    }' "$work/rows.csv" >"$work/slopes.md"

# Plots: per machine and device, time against objects/particles and against
# triangles, log-log, one panel per scene, the slope in each legend.
plots_md=
if command -v gnuplot >/dev/null 2>&1; then
    cut -d, -f1,3 "$work/rows.csv" | sort -u >"$work/devices"
    while IFS= read -r md; do
        title=$(printf %s "$md" | sed 's|,| / |')
        slug=$(printf %s "$md" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9' '-' | tr -s '-' | sed 's/-$//')
        for axis in size triangles; do
            col=7
            [ $axis = triangles ] && col=9
            # scenes where this axis varies: one data block per method
            awk -F, -v md="$md" -v col=$col -v dir="$work" -v axis=$axis '
                $1 FS $3 != md || $col == "" || $col <= 0 { next }
                {
                    s = $5; m = $6
                    if (!(s in lo) || $col < lo[s]) lo[s] = $col
                    if (!(s in hi) || $col > hi[s]) hi[s] = $col
                    k = s SUBSEP m
                    if (!(k in cnt)) { methods[s] = methods[s] " " m }
                    cnt[k]++; px[k, cnt[k]] = $col; py[k, cnt[k]] = $11; unit[s] = axis == "size" ? $8 : "triangles"
                    if (cnt[k] == 1) rep[k] = $10; else if (rep[k] != $10 && $4 == "pile") mixed[k] = 1
                }
                END {
                    for (s in lo) {
                        if (hi[s] <= lo[s] * 1.5) continue
                        nm = split(methods[s], ms, " ")
                        plot = ""
                        for (j = 1; j <= nm; j++) {
                            k = s SUBSEP ms[j]
                            if (cnt[k] < 2) continue
                            file = dir "/" s "-" ms[j] "-" axis ".dat"
                            sx = sy = sxx = sxy = 0
                            for (i = 1; i <= cnt[k]; i++) {
                                print px[k, i], py[k, i] > file
                                lx = log(px[k, i]); ly = log(py[k, i])
                                sx += lx; sy += ly; sxx += lx * lx; sxy += lx * ly
                            }
                            close(file)
                            c = cnt[k]; d = c * sxx - sx * sx
                            sl = d > 0 ? sprintf("slope %.2f", (c * sxy - sx * sy) / d) : "no fit"
                            if (k in mixed) sl = "steps differ: no fit"
                            plot = plot (plot == "" ? "" : ", ") "\"" file "\" using 1:2 with linespoints title \"" ms[j] " (" sl ")\""
                        }
                        if (plot != "") printf "set title \"%s\"; set xlabel \"%s\"; plot %s\n", s, unit[s], plot
                    }
                }' "$work/rows.csv" | sort >"$work/panels-$axis"
            panels=$(wc -l <"$work/panels-$axis")
            [ "$panels" -gt 0 ] || continue
            cols=3
            [ "$panels" -lt 3 ] && cols=$panels
            rows=$(((panels + cols - 1) / cols))
            plot_file=$plots/$slug-$axis.svg
            {
                echo "set terminal svg size $((cols * 520)),$((rows * 380)) font 'sans,9' noenhanced"
                echo "set output '$plot_file'"
                echo "set logscale xy; set grid; set key below; set ylabel 'median ms'"
                echo "set multiplot layout $rows,$cols title '$title: time against $(echo $axis | sed 's|size|objects or particles|') (log-log; legend: least-squares slope)'"
                sed "s/_/-/g" "$work/panels-$axis"
                echo "unset multiplot"
            } >"$work/plot.gp"
            if gnuplot "$work/plot.gp" 2>>"$work/gnuplot.err"; then
                rel=${plot_file#"$src"/tests/bench/}
                what=objects
                [ $axis = triangles ] && what=triangles
                plots_md="$plots_md
![$title: time against $what]($rel)
"
            else
                echo "gnuplot failed for $plot_file:" >&2
                cat "$work/gnuplot.err" >&2
            fi
        done
    done <"$work/devices"
else
    plots_md="
(gnuplot not installed: no plots; apt-get install gnuplot-nox)
"
fi

{
    echo "<!-- bench:begin (generated by tests/bench/run.sh from $(echo $inputs | tr ' ' '\n' | sed 's|.*/tests/bench/||' | tr '\n' ' ' | sed 's/ $//'); do not edit by hand) -->"
    echo
    echo "Ratio = median time / median of the fastest ODE row of the same scene and size"
    echo "(\"vs\" names it), or of glcollide's CPU twin (cpu, pim) where ODE has no such"
    echo "path; < 1: faster than it. Rows of one machine and device only. Medians and"
    echo "spreads (min–max) over the repetitions; empty cells: not applicable or not counted."
    cat "$work/tables.md"
    echo
    echo "#### Scaling: least-squares slopes of log(time) against log(size)"
    echo
    cat "$work/slopes.md"
    echo "$plots_md"
    echo "<!-- bench:end -->"
} >"$work/generated.md"

if [ ! -f "$doc" ]; then
    printf '# glcollide benchmarks (generated)\n\n<!-- bench:begin -->\n<!-- bench:end -->\n' >"$doc"
fi
awk -v gen="$work/generated.md" '
    /^<!-- bench:begin/ { while ((getline line < gen) > 0) print line; skip = 1; next }
    /^<!-- bench:end -->/ { skip = 0; next }
    !skip { print }' "$doc" >"$work/doc.md" && cat "$work/doc.md" >"$doc"
echo "== report: $doc (plots in $plots)"
