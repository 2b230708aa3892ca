/* SPDX-License-Identifier: MIT */
/*
 * "How far apart are these two meshes, and where?", as a motion planner asks
 * it: glcollide_world_distance (exact, nearest points) on real meshes, each
 * fitted to a unit box, at poses set up by bisection on the distance itself:
 *
 *   bunny 1%:      two bunny00 (75,408 triangles each) 1% of their size apart
 *                  (0.01), B turned and moved along a direction;
 *   bunny touch:   the same, moved to where they just touch (the bisection's
 *                  last pose still apart: about 1e-12);
 *   bunny overlap: moved 5% further in (distance 0);
 *   armadillo-elephant and armadillo-armadillo at 1% and 10%, touching.
 *
 *   fcl: (bench-distance-fcl, built from this file and
 *        bench_distance_fcl.cc where configure finds FCL) FCL 0.7's
 *        fcl::distance on BVHModel<OBBRSS> meshes with nearest points, in the
 *        same process, call by call in turn with glcollide's (the order
 *        alternating), so a drift of the machine's speed hits both.
 *
 * For each pose: the median time of a call (thread CPU time, so that the
 * machine's other load does not count; the meshes' trees built before,
 * untimed, in both libraries), the ratio, and the distances: glcollide's
 * must equal FCL's within 1e-9 (FCL reports no distance for meshes that
 * overlap: a negative min_distance, which counts as 0), and glcollide's
 * points must lie that far apart. Exit status 1 when a check fails.
 *
 *   bench-distance [--repeat N] [--csv]
 *   bench-distance-fcl [--repeat N] [--csv]
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <glcollide/glcollide.h>

#include <math.h>

#ifdef BENCH_DISTANCE_FCL
#include "bench_distance_fcl.h"
#define BENCH_DISTANCE_NAME "bench-distance-fcl"
#else
#define BENCH_DISTANCE_NAME "bench-distance"
#endif

enum { BUNNY, ARMADILLO, ELEPHANT, MESHES };
static const char *const mesh_files[MESHES] = {"bunny00.off", "armadillo.off",
                                               "refined_elephant.off"};

/* A pose to set up: B's mesh turned by angle about axis, moved along
 * direction until the distance is gap (0: just touching; < 0: that much
 * further in than touching). */
typedef struct pose_case {
    const char *name;
    int mesh_a, mesh_b;
    double axis[3], angle, direction[3], gap;
} pose_case;

static const pose_case cases[] = {
    {"bunny 1%", BUNNY, BUNNY, {0, 1, 0}, 0.5, {1, 0, 0}, 0.01},
    {"bunny 1% (2)", BUNNY, BUNNY, {1, 1, 0}, 2.0, {0.3, 1, 0.2}, 0.01},
    {"bunny 1% (3)", BUNNY, BUNNY, {0, 0, 1}, 3.0, {-0.5, 0.1, 1}, 0.01},
    {"bunny touch", BUNNY, BUNNY, {0, 1, 0}, 0.5, {1, 0, 0}, 0.0},
    {"bunny overlap", BUNNY, BUNNY, {0, 1, 0}, 0.5, {1, 0, 0}, -0.05},
    {"armadillo-elephant 1%", ARMADILLO, ELEPHANT, {1, 0, 0}, 1.0, {1, 0.2, 0}, 0.01},
    {"armadillo-elephant 10%", ARMADILLO, ELEPHANT, {0, 1, 1}, 2.5, {0, 1, 0.3}, 0.1},
    {"armadillo-elephant touch", ARMADILLO, ELEPHANT, {1, 0, 0}, 1.0, {1, 0.2, 0}, 0.0},
    {"armadillo-armadillo 1%", ARMADILLO, ARMADILLO, {0, 0, 1}, 3.14159, {1, 0, 0}, 0.01},
};
enum { CASES = sizeof cases / sizeof cases[0] };

typedef struct bench {
    glcollide_mesh *meshes[MESHES];
    glcollide_world *world;
} bench;

static double distance_at(bench *b, const pose_case *c, double along, glcollide_object *pose)
{
    double n = sqrt(c->direction[0] * c->direction[0] + c->direction[1] * c->direction[1] +
                    c->direction[2] * c->direction[2]);
    double t[3];
    for (int k = 0; k < 3; k++)
        t[k] = c->direction[k] / n * along;
    double a = sqrt(c->axis[0] * c->axis[0] + c->axis[1] * c->axis[1] + c->axis[2] * c->axis[2]);
    double s = sin(c->angle / 2) / a;
    double q[4] = {cos(c->angle / 2), c->axis[0] * s, c->axis[1] * s, c->axis[2] * s};
    glcollide_world_set_pose(b->world, 1, t, q);
    *pose = *glcollide_world_object(b->world, 1);
    glcollide_distance_result r;
    glcollide_world_distance(b->world, 0, 1, INFINITY, &r);
    return r.distance;
}

/* B's pose for case c: bisection along the direction (the meshes are
 * fitted to unit boxes about the origin: 0 overlaps, 3 is apart). */
static void set_up(bench *b, const pose_case *c, glcollide_object *pose)
{
    static const double identity[4] = {1, 0, 0, 0}, origin[3] = {0, 0, 0};
    glcollide_world_clear_objects(b->world);
    glcollide_world_add_object(b->world, (uint32_t)c->mesh_a, origin, identity, NULL);
    glcollide_world_add_object(b->world, (uint32_t)c->mesh_b, origin, identity, NULL);
    double lo = 0.0, hi = 3.0, target = c->gap > 0 ? c->gap : 0.0;
    for (int i = 0; i < 80; i++) { /* distance(lo) <= target < distance(hi) */
        double mid = 0.5 * (lo + hi);
        if (distance_at(b, c, mid, pose) <= target)
            lo = mid;
        else
            hi = mid;
    }
    distance_at(b, c, c->gap >= 0 ? hi : hi + c->gap, pose);
}

static double point_gap(const double p[3], const double q[3])
{
    return sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                (p[2] - q[2]) * (p[2] - q[2]));
}

int main(int argc, char **argv)
{
    int repeat = 31, csv = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else {
            fprintf(stderr, "usage: " BENCH_DISTANCE_NAME " [--repeat N] [--csv]\n");
            return 2;
        }
    }
    if (repeat < 1)
        repeat = 1;
    bench b = {0};
    if (glcollide_world_create(&b.world) != GLCOLLIDE_OK)
        return 1;
    for (int m = 0; m < MESHES; m++) {
        char path[4096];
        if (glcollide_mesh_find_data(mesh_files[m], path, sizeof path) != GLCOLLIDE_OK ||
            glcollide_mesh_load(path, 1.0, &b.meshes[m]) != GLCOLLIDE_OK ||
            glcollide_mesh_fit(b.meshes[m], 1.0) != GLCOLLIDE_OK ||
            glcollide_world_add_mesh(b.world, b.meshes[m], NULL) != GLCOLLIDE_OK) {
            fprintf(stderr, BENCH_DISTANCE_NAME ": %s missing (make meshes)\n", mesh_files[m]);
            return 77;
        }
    }
#ifdef BENCH_DISTANCE_FCL
    bench_fcl_distance *fcl = bench_fcl_distance_create(b.meshes, MESHES);
    if (!fcl)
        return 1;
#endif
    double *times = malloc(2 * (size_t)repeat * sizeof *times);
    if (!times)
        return 1;
    int failed = 0;
    printf("# %-26s %12s %12s %8s %14s %10s\n", "pose", "glcollide ms", "fcl ms", "ratio",
           "distance", "|gl - fcl|");
    for (int c = 0; c < CASES; c++) {
        glcollide_object pose_b;
        set_up(&b, &cases[c], &pose_b);
        const glcollide_object *pose_a = glcollide_world_object(b.world, 0);
        glcollide_distance_result r;
        double fcl_d = NAN, fcl_pa[3], fcl_pb[3];
#ifdef BENCH_DISTANCE_FCL
        bench_fcl_distance_pose(fcl, pose_a, &pose_b);
#endif
        (void)pose_a;
        double *gl_ms = times, *fcl_ms = times + repeat;
        for (int i = 0; i < repeat; i++) {
            for (int turn = 0; turn < 2; turn++) {
                int gl_turn = (i + turn) % 2 == 0;
                double t0 = bench_thread_ms();
                if (gl_turn) {
                    glcollide_world_distance(b.world, 0, 1, INFINITY, &r);
                    gl_ms[i] = bench_thread_ms() - t0;
                } else {
#ifdef BENCH_DISTANCE_FCL
                    fcl_d = bench_fcl_distance_run(fcl, fcl_pa, fcl_pb);
                    fcl_ms[i] = bench_thread_ms() - t0;
#else
                    fcl_ms[i] = NAN;
#endif
                }
            }
        }
        double gl = bench_median(gl_ms, repeat);
        double fc = isnan(fcl_ms[0]) ? NAN : bench_median(fcl_ms, repeat);
        double separation = point_gap(r.point_a, r.point_b);
        int points_ok = fabs(separation - r.distance) <= 1e-12;
        double fcl_zeroed = fcl_d < 0 ? 0.0 : fcl_d;
        double diff = fabs(r.distance - fcl_zeroed);
        int equal = isnan(fcl_d) || diff <= 1e-9;
        failed |= !points_ok || !equal;
        if (isnan(fc)) /* no FCL in this build */
            printf("  %-26s %12.3f %12s %8s %14.9g %10s%s\n", cases[c].name, gl, "-", "-",
                   r.distance, "-", points_ok ? "" : "  POINTS");
        else
            printf("  %-26s %12.3f %12.3f %8.2f %14.9g %10.2g%s%s\n", cases[c].name, gl, fc,
                   gl / fc, r.distance, diff, equal ? "" : "  DIFFERENT",
                   points_ok ? "" : "  POINTS");
        if (!isnan(fcl_d))
            printf("#   fcl: %.12g, points %.6g apart\n", fcl_d, point_gap(fcl_pa, fcl_pb));
        if (csv) {
            bench_row row = bench_row_empty();
            row.device = "cpu";
            row.bench = "distance";
            row.scene = cases[c].name;
            row.size_unit = "objects";
            row.size = 2;
            row.triangles = (double)(b.meshes[cases[c].mesh_a]->triangle_count +
                                     b.meshes[cases[c].mesh_b]->triangle_count);
            row.method = "glcollide";
            bench_row_times(&row, gl_ms, repeat);
            bench_row_print(&row);
            if (!isnan(fc)) {
                row.method = "fcl";
                bench_row_times(&row, fcl_ms, repeat);
                bench_row_print(&row);
            }
        }
    }
    free(times);
#ifdef BENCH_DISTANCE_FCL
    bench_fcl_distance_destroy(fcl);
#endif
    glcollide_world_destroy(&b.world);
    for (int m = 0; m < MESHES; m++)
        glcollide_mesh_destroy(&b.meshes[m]);
    return failed ? 1 : 0;
}
