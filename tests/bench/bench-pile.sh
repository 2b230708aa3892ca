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
#
# bench-pile.sh --rows DEVICE OBJECTS STEPS DEFORM SPACE: one run only, as
# (SPACE: glcollide, glcollide-gpu (GPU culling forced on), ode-sap, ...)
# two rows of tests/bench/run.sh (bench.h): the collision and the whole step,
# medians, min and max over the steps; pairs, contacts and glcollide's
# counters are means per step; peak memory is the run's (VmHWM); GPU memory
# is glcollide's GL storage (glcollide_gl_storage_allocated).
set -u
pile=${GLCOLLIDE_PILE:-demos/pile}
case $pile in /*) ;; *) pile=$PWD/$pile ;; esac # the runs happen in a temporary directory
if [ "${1:-}" = --rows ]; then
    [ $# -eq 6 ] || { echo "usage: bench-pile.sh --rows DEVICE OBJECTS STEPS DEFORM SPACE" >&2; exit 2; }
    device=$(printf %s "$2" | tr ',"' ';;')
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    space=$6 gpu=auto
    # glcollide-gpu: GPU culling forced on (auto leaves it off on software
    # renderers such as llvmpipe, where trimesh pairs go to the CPU BVH)
    [ "$6" = glcollide-gpu ] && space=glcollide gpu=always
    (cd "$tmp" && "$pile" --objects "$3" --steps "$4" --report 100000 --deform "$5" --space "$space" \
        --gpu "$gpu" --output /dev/null) >"$tmp/out" 2>&1
    line="$(grep '^pile: ' "$tmp/out" | tail -n 1) $(grep '^pile-work: ' "$tmp/out" | tail -n 1)"
    if ! grep -q '^pile-work: ' "$tmp/out"; then
        echo "# pile $3 objects $5 $6: failed:" && sed 's/^/# /' "$tmp/out" | tail -n 3
        exit 1
    fi
    scene=pile
    [ "$5" = none ] || scene=pile-deform-$5
    echo "$line" | tr ' ' '\n' | awk -F= -v device="$device" -v scene="$scene" -v space="$6" '
        NF == 2 { v[$1] = $2 }
        END {
            steps = v["steps"]; glc = space ~ /^glcollide/
            for (k = 1; k <= 2; k++) {
                what = k == 1 ? "collide" : "step"
                printf "%s,pile,%s-%s,%s,%d,objects,%d,%d,%.4f,%.4f,%.4f,%s,%.1f,%.1f,%s,%s,%s,,%.1f,%s\n",
                    device, scene, what, space, v["objects"], v["triangles"], steps,
                    v[what "_ms_median"], v[what "_ms_min"], v[what "_ms_max"],
                    glc ? sprintf("%.1f", v["candidates"] / steps) : "",
                    v["contacts"] / steps, v["pairs"] / steps,
                    glc ? sprintf("%.1f", v["draw_calls"] / steps) : "",
                    glc ? sprintf("%.1f", v["gpu_syncs"] / steps) : "",
                    glc ? sprintf("%.0f", v["readback_bytes"] / steps) : "", v["peak_rss_mb"],
                    glc ? sprintf("%.3f", v["gl_storage_bytes"] / 1048576) : ""
            }
        }'
    exit 0
fi
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
