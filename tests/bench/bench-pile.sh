#!/bin/sh
# SPDX-License-Identifier: MIT
# The falling-pile benchmark (part of `make bench`): demos/pile with
# glcollide's space and with ODE's SAP and simple spaces (ODE's colliders,
# OPCODE for trimeshes), the same scene, one process per run, run one after
# the other. Rigid piles at several sizes, then a deforming pile whose meshes
# change every step (ODE refits OPCODE's trees, or rebuilds them). Each run's
# times are medians over its steps (collision = space collide + near
# callbacks + dCollide; step = that + dWorldQuickStep).
#
# Output: one CSV line per run after a header, then the ratios.
#   PILE_BENCH_RIGID   "objects:steps ..."   (default "100:200 1000:60 5000:12")
#   PILE_BENCH_DEFORM  "objects:steps ..."   (default "100:100")
#   PILE_BENCH_SPACES  spaces to compare     (default "glcollide ode-sap ode-simple")
set -u
pile=${GLCOLLIDE_PILE:-demos/pile}
case $pile in /*) ;; *) pile=$PWD/$pile ;; esac # the runs happen in a temporary directory
rigid=${PILE_BENCH_RIGID:-"100:200 1000:60 5000:12"}
deform=${PILE_BENCH_DEFORM:-"100:100"}
spaces=${PILE_BENCH_SPACES:-"glcollide ode-sap ode-simple"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

echo "bench,scene,space,objects,steps,deform,collide_ms_median,step_ms_median,pairs,contacts,peak_rss_mb"
run() { # objects steps deform space
    (cd "$tmp" && "$pile" --objects "$1" --steps "$2" --report 100000 --deform "$3" --space "$4" \
        --output /dev/null) >"$tmp/out" 2>&1
    line=$(grep '^pile: ' "$tmp/out" | tail -n 1)
    if [ -z "$line" ]; then
        echo "pile,pile,$4,$1,$2,$3,error,,,," && tail -n 3 "$tmp/out" >&2
        return
    fi
    echo "pile,pile,$4,$1,$2,$3,$(field "$line" collide_ms_median),$(field "$line" step_ms_median),$(field "$line" pairs),$(field "$line" contacts),$(field "$line" peak_rss_mb)"
}
{
    for size in $rigid; do
        for space in $spaces; do run "${size%%:*}" "${size##*:}" none "$space"; done
    done
    for size in $deform; do
        for mode in refit rebuild; do
            for space in $spaces; do run "${size%%:*}" "${size##*:}" "$mode" "$space"; done
        done
    done
} | tee "$tmp/csv"
echo "# ratios glcollide / ODE (same objects and deformation; < 1: glcollide faster)"
awk -F, '
    { key = $4 "," $6; t[$3 "," key] = $7; s[$3 "," key] = $8; keys[key] = 1 }
    END {
        for (k in keys) for (o = 1; o <= 2; o++) {
            other = o == 1 ? "ode-sap" : "ode-simple"
            g = "glcollide," k; x = other "," k
            if ((g in t) && (x in t) && t[x] > 0 && s[x] > 0)
                printf "objects,deform=%s vs %s: collision %.3f, step %.3f\n", k, other, t[g] / t[x], s[g] / s[x]
        }
    }' "$tmp/csv" | sort -t, -k1,1n
