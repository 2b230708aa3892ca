/* SPDX-License-Identifier: MIT */
/*
 * The tetra-tree (Jimenez et al.) against the exact point-in-mesh oracle
 * (glcollide_point_in_mesh, ray parity with exact predicates; on the surface
 * = inside): every particle, on the CPU and on the GPU, must get the
 * oracle's answer. Point sets mix mesh vertices, edge midpoints, points on
 * faces, points on the shared features of the covering (the origin, the
 * inner edges origin-vertex, the inner faces), points on the octant planes,
 * the inner edges at vertices whose fan has both signs (where the paper's
 * feature sets would be wrong), points on the planes of the tetra-cones, points 1e-12 off vertices,
 * and random points in the box and in a box 20% larger. Real meshes are quantised to a 2^-20 grid
 * (after fitting to size 2) so that those feature points are exactly on their features.
 * GLCOLLIDE_TETRA_PARTICLES sets the particles per real mesh (default 50000;
 * the verification run uses 100000). The CPU twin and the world entry without
 * GL are in tests/unit/test_tetra_tree_cpu.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "helpers/tests.h"
#include "helpers/tetra_shapes.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>
#include <glcollide/tetra_tree.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static glcollide_context *context;

/* GLCOLLIDE_TEST_SKIP_GL=1: this machine has no EGL (never set in CI); the
 * CPU checks still run. */
static int gl_skipped(void)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    return skip && strcmp(skip, "1") == 0;
}

static void context_setup(void)
{
    if (!context)
        ck_assert_msg(glcollide_context_create_egl(&context) == GLCOLLIDE_OK,
                      "no headless EGL context: the tetra-tree GPU tests need one");
}

static void context_teardown(void)
{
    glcollide_context_destroy(&context);
}

typedef struct point_set {
    double *p;
    size_t count, capacity;
} point_set;

static void add_point(point_set *set, double x, double y, double z)
{
    if (set->count == set->capacity) {
        set->capacity = set->capacity ? 2 * set->capacity : 1024;
        set->p = realloc(set->p, 3 * set->capacity * sizeof(double));
        ck_assert_ptr_nonnull(set->p);
    }
    set->p[3 * set->count] = x;
    set->p[3 * set->count + 1] = y;
    set->p[3 * set->count + 2] = z;
    set->count++;
}

/* About target points on and around mesh m for origin o (see the header). */
static void make_points(const glcollide_mesh *m, const double o[3], size_t target, uint64_t seed,
                        point_set *set)
{
    test_rng rng = {seed};
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < m->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], vertex(m, (uint32_t)v)[k]);
            hi[k] = fmax(hi[k], vertex(m, (uint32_t)v)[k]);
        }
    size_t part = target / 32 ? target / 32 : 1;
    add_point(set, o[0], o[1], o[2]);
    for (size_t i = 0; i < 2 * part; i++) { /* vertices */
        const double *a = vertex(m, test_rng_below(&rng, (uint32_t)m->vertex_count));
        add_point(set, a[0], a[1], a[2]);
    }
    for (size_t i = 0; i < 2 * part; i++) { /* edge midpoints, face points, centroids */
        const uint32_t *t =
            m->triangles + 3 * (size_t)test_rng_below(&rng, (uint32_t)m->triangle_count);
        int r = (int)test_rng_below(&rng, 3);
        const double *a = vertex(m, t[r]), *b = vertex(m, t[(r + 1) % 3]),
                     *c = vertex(m, t[(r + 2) % 3]);
        add_point(set, 0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2]));
        add_point(set, 0.25 * (a[0] + b[0] + 2 * c[0]), 0.25 * (a[1] + b[1] + 2 * c[1]),
                  0.25 * (a[2] + b[2] + 2 * c[2]));
        if (i % 2 == 0)
            add_point(set, (a[0] + b[0] + c[0]) / 3, (a[1] + b[1] + c[1]) / 3,
                      (a[2] + b[2] + c[2]) / 3);
    }
    for (size_t i = 0; i < part; i++) { /* inner edges origin-vertex and inner faces origin-a-b */
        const uint32_t *t =
            m->triangles + 3 * (size_t)test_rng_below(&rng, (uint32_t)m->triangle_count);
        const double *a = vertex(m, t[0]), *b = vertex(m, t[1]);
        double f = (i & 1) ? 0.5 : 0.25;
        add_point(set, o[0] + f * (a[0] - o[0]), o[1] + f * (a[1] - o[1]),
                  o[2] + f * (a[2] - o[2]));
        add_point(set, o[0] + 0.25 * ((a[0] - o[0]) + (b[0] - o[0])),
                  o[1] + 0.25 * ((a[1] - o[1]) + (b[1] - o[1])),
                  o[2] + 0.25 * ((a[2] - o[2]) + (b[2] - o[2])));
    }
    /* Inner edges origin-vertex at vertices whose fan of tetrahedra has
     * both signs (the surface folds over as seen from the origin): where
     * the paper's +-feature sets would add 0 instead of the fan's winding. */
    unsigned char *fan = calloc(m->vertex_count, 1);
    ck_assert_ptr_nonnull(fan);
    for (size_t t = 0; t < m->triangle_count; t++) {
        const uint32_t *v = m->triangles + 3 * t;
        int s = glcollide_orient3d(vertex(m, v[0]), vertex(m, v[1]), vertex(m, v[2]), o);
        for (int k = 0; k < 3; k++)
            fan[v[k]] |= s > 0 ? 1 : s < 0 ? 2 : 4;
    }
    for (size_t v = 0, added = 0; v < m->vertex_count && added < part; v++)
        if (fan[v] & 2 && fan[v] & 1) {
            const double *a = vertex(m, (uint32_t)v);
            add_point(set, o[0] + 0.5 * (a[0] - o[0]), o[1] + 0.5 * (a[1] - o[1]),
                      o[2] + 0.5 * (a[2] - o[2]));
            added++;
        }
    free(fan);
    for (size_t i = 0; i < part; i++) { /* near vertices, and on the octant planes */
        const double *a = vertex(m, test_rng_below(&rng, (uint32_t)m->vertex_count));
        double span = hi[0] - lo[0];
        add_point(set, a[0] + test_rng_uniform(&rng, -1e-12, 1e-12) * span,
                  a[1] + test_rng_uniform(&rng, -1e-12, 1e-12) * span,
                  a[2] + test_rng_uniform(&rng, -1e-12, 1e-12) * span);
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = test_rng_uniform(&rng, lo[k], hi[k]);
        p[i % 3] = o[i % 3];
        add_point(set, p[0], p[1], p[2]);
    }
    /* On planes through the origin spanned by small integer vectors: the
     * tetra-tree's cone planes are such planes (generators are sums of
     * +-x, +-y, +-z), so many of these lie exactly on cone boundaries. */
    double span = 0;
    for (int k = 0; k < 3; k++)
        span = fmax(span, hi[k] - lo[k]);
    int e;
    frexp(span, &e);
    for (size_t i = 0; i < part; i++) {
        int d[2][3];
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 3; k++)
                d[j][k] = (int)test_rng_below(&rng, 5) - 2;
        double a = (double)test_rng_below(&rng, 9) / 8, b = (double)test_rng_below(&rng, 9) / 8;
        double scale = ldexp(1.0, e - 3 - (int)test_rng_below(&rng, 3));
        add_point(set, o[0] + scale * (a * d[0][0] + b * d[1][0]),
                  o[1] + scale * (a * d[0][1] + b * d[1][1]),
                  o[2] + scale * (a * d[0][2] + b * d[1][2]));
    }
    while (set->count < target) { /* the box, and 20% larger */
        double grow = set->count % 2 ? 0.1 : 0.0, p[3];
        for (int k = 0; k < 3; k++) {
            double pad = grow * (hi[k] - lo[k]);
            p[k] = test_rng_uniform(&rng, lo[k] - pad, hi[k] + pad);
        }
        add_point(set, p[0], p[1], p[2]);
    }
}

static uint8_t *oracle(const glcollide_mesh *m, const point_set *set, double *ms)
{
    glcollide_bvh *bvh = NULL;
    ck_assert_int_eq(glcollide_bvh_create(m, &bvh), GLCOLLIDE_OK);
    uint8_t *answer = malloc(set->count ? set->count : 1);
    ck_assert_ptr_nonnull(answer);
    double start = test_now_ms();
    for (size_t i = 0; i < set->count; i++)
        answer[i] = (uint8_t)glcollide_point_in_mesh(m, bvh, set->p + 3 * i);
    *ms = test_now_ms() - start;
    glcollide_bvh_destroy(&bvh);
    return answer;
}

/* Number of answers differing from the oracle; the first printed. */
static size_t disagreements(const char *what, const point_set *set, const uint8_t *expected,
                            const uint8_t *got)
{
    size_t bad = 0;
    for (size_t i = 0; i < set->count; i++)
        if (expected[i] != got[i]) {
            if (!bad)
                fprintf(stderr, "tetra-tree: %s: point %zu (%.17g, %.17g, %.17g): %d, oracle %d\n",
                        what, i, set->p[3 * i], set->p[3 * i + 1], set->p[3 * i + 2], got[i],
                        expected[i]);
            bad++;
        }
    return bad;
}

/* The CPU tree (with and without frame coherence) against the oracle. */
static void check_cpu(const glcollide_mesh *m, const glcollide_tetra_tree_options *options,
                      size_t target, uint64_t seed)
{
    glcollide_tetra_tree *tree = build(m, options);
    glcollide_tetra_tree_info info;
    ck_assert_int_eq(glcollide_tetra_tree_get_info(tree, &info), GLCOLLIDE_OK);
    point_set set = {0};
    make_points(m, info.origin, target, seed, &set);
    double oracle_ms;
    uint8_t *expected = oracle(m, &set, &oracle_ms);
    uint8_t *got = malloc(set.count);
    uint32_t *cones = malloc(set.count * sizeof *cones);
    ck_assert(got && cones);
    for (size_t i = 0; i < set.count; i++)
        cones[i] = GLCOLLIDE_TETRA_CONE_NONE;
    glcollide_tetra_stats stats;
    ck_assert_int_eq(glcollide_tetra_tree_classify(tree, set.p, set.count, got, cones, &stats),
                     GLCOLLIDE_OK);
    size_t bad = disagreements(m->name, &set, expected, got);
    ck_assert_msg(bad == 0,
                  "%s (depth %d, min %u, seed 0x%llx): %zu of %zu points disagree with the oracle",
                  m->name, options ? options->max_depth : -1, options ? options->min_tetrahedra : 0,
                  (unsigned long long)seed, bad, set.count);
    ck_assert_uint_eq(stats.particles, set.count);
    ck_assert_uint_gt(stats.special_cases, 0); /* the feature points reached Algorithm 1's cases */
    /* Frame coherence: the same points again start from their cones. */
    glcollide_tetra_stats again;
    ck_assert_int_eq(glcollide_tetra_tree_classify(tree, set.p, set.count, got, cones, &again),
                     GLCOLLIDE_OK);
    ck_assert_uint_eq(disagreements(m->name, &set, expected, got), 0);
    ck_assert_uint_ge(again.coherent, set.count - again.special_cases - 1);
    free(expected);
    free(got);
    free(cones);
    free(set.p);
    glcollide_tetra_tree_destroy(&tree);
}

/* Generated meshes with the origin at the centre (symmetric: many points
 * exactly on shared features), on a face plane, at a vertex, outside. */
START_TEST(test_generated_meshes)
{
    glcollide_mesh *meshes[6] = {NULL};
    ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.25, 0.125, &meshes[0]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 16, 8, &meshes[1]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_torus(0.5, 0.125, 24, 8, &meshes[2]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_capsule(0.25, 0.5, 12, 3, &meshes[3]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_knot(2, 3, 0.5, 0.125, 96, 8, &meshes[4]),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_knot(3, 2, 0.5, 0.0625, 72, 6, &meshes[5]),
                     GLCOLLIDE_OK);
    for (int i = 0; i < 6; i++) {
        const glcollide_mesh *m = meshes[i];
        glcollide_tetra_tree_options options = glcollide_tetra_tree_default_options();
        options.use_origin = 1;
        /* centre, then: a vertex, a point of a face's plane, far outside */
        const double *v = vertex(m, 0);
        const uint32_t *t = m->triangles;
        const double *a = vertex(m, t[0]), *b = vertex(m, t[1]), *c = vertex(m, t[2]);
        const double origins[4][3] = {{0, 0, 0},
                                      {v[0], v[1], v[2]},
                                      {0.25 * (a[0] + b[0] + 2 * c[0]),
                                       0.25 * (a[1] + b[1] + 2 * c[1]),
                                       0.25 * (a[2] + b[2] + 2 * c[2])},
                                      {3, -2, 1}};
        static const int depths[4] = {6, 3, 0, 10};
        static const uint32_t minimum[4] = {32, 1, 1, 8};
        for (int k = 0; k < 4; k++) {
            memcpy(options.origin, origins[k], sizeof options.origin);
            options.max_depth = depths[k];
            options.min_tetrahedra = minimum[k];
            check_cpu(m, &options, 6000, 0x7E7A0000u + (uint64_t)(16 * i + k));
        }
        check_cpu(m, NULL, 6000, 0x7E7A1000u + (uint64_t)i); /* default: centroid */
    }
    for (int i = 0; i < 6; i++)
        glcollide_mesh_destroy(&meshes[i]);
}
END_TEST

/* Closed meshes that pass through themselves, CPU and GPU against the
 * oracle: inside is a nonzero winding number (the paper's parity would say
 * outside where two boxes overlap, and in a hole's rim the other way). */
START_TEST(test_self_intersecting)
{
    const double overlap[3] = {0.5, 0.25, 0.125}, beside[3] = {1, 0, 0};
    glcollide_mesh *meshes[2] = {test_two_boxes(overlap, 1, 0, "two boxes"),
                                 test_two_boxes(beside, 0.5, 1, "box with a hole")};
    /* winding 2 in the overlap; -1 beyond the cube in the inverted box,
     * 0 in the hole; 1 elsewhere in the cube */
    static const double points[2][3][3] = {{{0.75, 0.5, 0.5}, {-0.5, -0.5, -0.5}, {2, 2, 2}},
                                           {{1.25, 0.1, 0.1}, {0.75, 0.1, 0.1}, {-0.5, 0, 0}}};
    static const uint8_t inside[2][3] = {{1, 1, 0}, {1, 0, 1}};
    int gl = !gl_skipped();
    if (gl)
        context_setup();
    for (int i = 0; i < 2; i++) {
        check_cpu(meshes[i], NULL, 6000, 0x7E7A5000u + (uint64_t)i);
        glcollide_tetra_tree *tree = build(meshes[i], NULL);
        uint8_t got[3];
        ck_assert_int_eq(glcollide_tetra_tree_classify(tree, points[i][0], 3, got, NULL, NULL),
                         GLCOLLIDE_OK);
        ck_assert_mem_eq(got, inside[i], 3);
        if (gl) {
            glcollide_tetra_gpu *gpu = NULL;
            ck_assert_int_eq(glcollide_tetra_gpu_create(context, tree, &gpu), GLCOLLIDE_OK);
            ck_assert_int_eq(tetra_classify(gpu, meshes[i], points[i][0], 3, 0, got, NULL),
                             GLCOLLIDE_OK);
            ck_assert_mem_eq(got, inside[i], 3);
            glcollide_tetra_gpu_destroy(&gpu);
        }
        glcollide_tetra_tree_destroy(&tree);
        glcollide_mesh_destroy(&meshes[i]);
    }
}
END_TEST

/* camel.off passes through itself (20 triangle pairs): winding 2 there. */
static const char *const real_files[] = {"armadillo.off", "elephant.off", "bunny00.off",
                                         "knot1.off",     "knot2.off",    "camel.off"};
enum { REAL_COUNT = sizeof real_files / sizeof real_files[0] };

static size_t particles_per_mesh(void)
{
    const char *env = getenv("GLCOLLIDE_TETRA_PARTICLES");
    long n = env ? atol(env) : 0;
    return n > 0 ? (size_t)n : 50000;
}

/* Real meshes, CPU and GPU (with and without frame coherence) against the
 * oracle; counts printed for the report. */
START_TEST(test_real_meshes)
{
    int gl = !gl_skipped();
    if (gl)
        context_setup();
    size_t target = particles_per_mesh();
    for (int r = 0; r < REAL_COUNT; r++) {
        glcollide_mesh *m = real_mesh(real_files[r]);
        double start = test_now_ms();
        glcollide_tetra_tree *tree = build(m, NULL);
        double build_ms = test_now_ms() - start;
        glcollide_tetra_tree_info info;
        glcollide_tetra_tree_get_info(tree, &info);
        point_set set = {0};
        uint64_t seed = 0x7E7A2000u + (uint64_t)r;
        make_points(m, info.origin, target, seed, &set);
        double oracle_ms;
        uint8_t *expected = oracle(m, &set, &oracle_ms);
        uint8_t *cpu = malloc(set.count), *gpu_answer = malloc(set.count);
        ck_assert(cpu && gpu_answer);
        glcollide_tetra_stats cpu_stats, gpu_stats, coherent_stats;
        ck_assert_int_eq(
            glcollide_tetra_tree_classify(tree, set.p, set.count, cpu, NULL, &cpu_stats),
            GLCOLLIDE_OK);
        size_t cpu_bad = disagreements("cpu", &set, expected, cpu);
        glcollide_tetra_gpu *gpu = NULL;
        memset(&gpu_stats, 0, sizeof gpu_stats);
        memset(&coherent_stats, 0, sizeof coherent_stats);
        if (gl) {
            ck_assert_int_eq(glcollide_tetra_gpu_create(context, tree, &gpu), GLCOLLIDE_OK);
            ck_assert_int_eq(
                tetra_classify(gpu, m, set.p, set.count, 0, gpu_answer, &gpu_stats),
                GLCOLLIDE_OK);
        } else {
            memcpy(gpu_answer, expected, set.count);
        }
        size_t gpu_bad = disagreements("gpu", &set, expected, gpu_answer);
        /* A second frame: every point moved a little; coherence on. */
        test_rng rng = {seed ^ 0xC0FFEEu};
        for (size_t i = 0; i < 3 * set.count; i++)
            set.p[i] += test_rng_uniform(&rng, -1e-3, 1e-3);
        double moved_ms;
        uint8_t *moved = oracle(m, &set, &moved_ms);
        if (gl)
            ck_assert_int_eq(tetra_classify(gpu, m, set.p, set.count,
                                                          GLCOLLIDE_TETRA_FRAME_COHERENCE,
                                                          gpu_answer, &coherent_stats),
                             GLCOLLIDE_OK);
        else
            memcpy(gpu_answer, moved, set.count);
        size_t coherent_bad = disagreements("gpu coherent", &set, moved, gpu_answer);
        size_t inside = 0;
        for (size_t i = 0; i < set.count; i++)
            inside += expected[i];
        printf("tetra-tree %s: %zu triangles, origin %s, %zu leaves (max %zu, mean %.1f), build "
               "%.0f ms; "
               "%zu particles, %zu inside; disagreements cpu %zu gpu %zu gpu-coherent %zu; special "
               "cases "
               "%llu; gpu uncertain %llu and %llu (coherent %llu); oracle %.0f ms, cpu %.0f ms, "
               "gpu %.0f ms\n",
               m->name, m->triangle_count, info.origin_inside ? "inside" : "outside", info.leaves,
               info.max_leaf_tetrahedra, info.mean_leaf_tetrahedra, build_ms, set.count, inside,
               cpu_bad, gpu_bad, coherent_bad, (unsigned long long)cpu_stats.special_cases,
               (unsigned long long)gpu_stats.uncertain,
               (unsigned long long)coherent_stats.uncertain,
               (unsigned long long)coherent_stats.coherent, oracle_ms, cpu_stats.time_ms,
               gpu_stats.time_ms);
        fflush(stdout);
        ck_assert_msg(cpu_bad == 0 && gpu_bad == 0 && coherent_bad == 0,
                      "%s (seed 0x%llx): disagreements cpu %zu, gpu %zu, gpu coherent %zu of %zu",
                      m->name, (unsigned long long)seed, cpu_bad, gpu_bad, coherent_bad, set.count);
        /* The GPU leaves the points on features (about a third of the
         * first set, by construction) and a thin band around the planes of
         * the tetrahedra to the CPU: under 2% of the moved set. */
        if (gl) {
            ck_assert_uint_lt(gpu_stats.uncertain, set.count / 2);
            ck_assert_uint_lt(coherent_stats.uncertain, set.count / 50);
            ck_assert_uint_gt(coherent_stats.coherent, set.count / 2);
            ck_assert_uint_eq(gpu_stats.draw_calls, 1);
            ck_assert_uint_eq(gpu_stats.gpu_syncs, 1);
            ck_assert_uint_eq(gpu_stats.readback_bytes, 16 + 8 * ((set.count + 31) / 32));
        }
        glcollide_tetra_gpu_destroy(&gpu);
        glcollide_tetra_tree_destroy(&tree);
        glcollide_mesh_destroy(&m);
        free(set.p);
        free(expected);
        free(moved);
        free(cpu);
        free(gpu_answer);
    }
}
END_TEST

/* The meshes as loaded (decimal coordinates, no quantisation, unit
 * scale): vertices and random points, CPU and GPU. */
START_TEST(test_raw_meshes)
{
    if (gl_skipped())
        return;
    context_setup();
    for (int r = 0; r < REAL_COUNT; r += 2) {
        glcollide_mesh *m = NULL;
        ck_assert_int_eq(glcollide_mesh_load(test_data_mesh(real_files[r]), 1.0, &m), GLCOLLIDE_OK);
        glcollide_tetra_tree_options options = glcollide_tetra_tree_default_options();
        options.check_self_intersections = 0; /* checked in test_real_meshes */
        glcollide_tetra_tree *tree = build(m, &options);
        glcollide_tetra_tree_info info;
        glcollide_tetra_tree_get_info(tree, &info);
        point_set set = {0};
        make_points(m, info.origin, 4000, 0x7E7A3000u + (uint64_t)r, &set);
        double oracle_ms;
        uint8_t *expected = oracle(m, &set, &oracle_ms), *got = malloc(set.count);
        ck_assert_ptr_nonnull(got);
        ck_assert_int_eq(glcollide_tetra_tree_classify(tree, set.p, set.count, got, NULL, NULL),
                         GLCOLLIDE_OK);
        ck_assert_uint_eq(disagreements(real_files[r], &set, expected, got), 0);
        glcollide_tetra_gpu *gpu = NULL;
        ck_assert_int_eq(glcollide_tetra_gpu_create(context, tree, &gpu), GLCOLLIDE_OK);
        ck_assert_int_eq(tetra_classify(gpu, m, set.p, set.count, 0, got, NULL),
                         GLCOLLIDE_OK);
        ck_assert_uint_eq(disagreements(real_files[r], &set, expected, got), 0);
        glcollide_tetra_gpu_destroy(&gpu);
        glcollide_tetra_tree_destroy(&tree);
        glcollide_mesh_destroy(&m);
        free(set.p);
        free(expected);
        free(got);
    }
}
END_TEST

/* Generated meshes on the GPU, origin at the centre (symmetric), and a
 * knot 1e-2 in size placed 3e5 from the world origin (float GPU data is
 * relative to V0 and scaled by a power of two). Frames: the same points
 * twice with frame coherence, then in reverse order (every particle
 * somewhere else: coherence must not change an answer). */
START_TEST(test_gpu_generated)
{
    if (gl_skipped())
        return;
    context_setup();
    glcollide_mesh *meshes[4] = {NULL};
    ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.25, 0.125, &meshes[0]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_torus(0.5, 0.125, 24, 8, &meshes[1]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_knot(2, 3, 0.5, 0.125, 96, 8, &meshes[2]),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_knot(3, 2, 0.005, 0.00125, 96, 8, &meshes[3]),
                     GLCOLLIDE_OK);
    for (size_t v = 0; v < meshes[3]->vertex_count; v++) {
        meshes[3]->positions[3 * v] += 1e5;
        meshes[3]->positions[3 * v + 1] -= 2e5;
        meshes[3]->positions[3 * v + 2] += 3e5;
    }
    for (int i = 0; i < 4; i++) {
        glcollide_tetra_tree_options options = glcollide_tetra_tree_default_options();
        options.use_origin = i < 2; /* the knots: their centroids */
        glcollide_tetra_tree *tree = build(meshes[i], &options);
        glcollide_tetra_tree_info info;
        glcollide_tetra_tree_get_info(tree, &info);
        point_set set = {0};
        make_points(meshes[i], info.origin, 8000, 0x7E7A4000u + (uint64_t)i, &set);
        double oracle_ms;
        uint8_t *expected = oracle(meshes[i], &set, &oracle_ms), *got = malloc(set.count);
        ck_assert_ptr_nonnull(got);
        glcollide_tetra_gpu *gpu = NULL;
        glcollide_tetra_stats stats;
        ck_assert_int_eq(glcollide_tetra_gpu_create(context, tree, &gpu), GLCOLLIDE_OK);
        for (int frame = 0; frame < 2; frame++) {
            ck_assert_int_eq(tetra_classify(gpu, meshes[i], set.p, set.count,
                                                          GLCOLLIDE_TETRA_FRAME_COHERENCE, got,
                                                          &stats),
                             GLCOLLIDE_OK);
            ck_assert_uint_eq(disagreements(meshes[i]->name, &set, expected, got), 0);
        }
        ck_assert_uint_gt(stats.coherent, set.count / 2); /* the second frame reused the cones */
        for (size_t a = 0, b = set.count - 1; a < b; a++, b--) {
            double swap[3];
            memcpy(swap, set.p + 3 * a, sizeof swap);
            memcpy(set.p + 3 * a, set.p + 3 * b, sizeof swap);
            memcpy(set.p + 3 * b, swap, sizeof swap);
            uint8_t e = expected[a];
            expected[a] = expected[b];
            expected[b] = e;
        }
        ck_assert_int_eq(tetra_classify(gpu, meshes[i], set.p, set.count,
                                                      GLCOLLIDE_TETRA_FRAME_COHERENCE, got, &stats),
                         GLCOLLIDE_OK);
        ck_assert_uint_eq(disagreements(meshes[i]->name, &set, expected, got), 0);
        uint8_t *cpu = malloc(set.count);
        uint32_t *cones = malloc(set.count * sizeof *cones);
        ck_assert(cpu && cones);
        for (size_t k = 0; k < set.count; k++)
            cones[k] = (uint32_t)k; /* arbitrary, some not even leaves: only a hint */
        ck_assert_int_eq(glcollide_tetra_tree_classify(tree, set.p, set.count, cpu, cones, NULL),
                         GLCOLLIDE_OK);
        ck_assert_uint_eq(disagreements(meshes[i]->name, &set, expected, cpu), 0);
        free(cpu);
        free(cones);
        glcollide_tetra_gpu_destroy(&gpu);
        glcollide_tetra_tree_destroy(&tree);
        free(set.p);
        free(expected);
        free(got);
        glcollide_mesh_destroy(&meshes[i]);
    }
}
END_TEST

static void expect_refused(const glcollide_mesh *m, const char *words)
{
    glcollide_tetra_tree *tree = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_tetra_tree_create(m, NULL, &tree);
    test_log_capture_stop();
    ck_assert_int_eq(status, GLCOLLIDE_ERROR_INVALID_MESH);
    ck_assert_ptr_null(tree);
    ck_assert_int_eq(test_log_count(), 1);
    ck_assert_msg(strstr(test_log_last(), words) != NULL, "message \"%s\" lacks \"%s\"",
                  test_log_last(), words);
}

/* Open, non-manifold, empty, NaN, inside-out and self-intersecting meshes. */
START_TEST(test_bad_meshes)
{
    glcollide_mesh *box = NULL, *m = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 1, 1, &box), GLCOLLIDE_OK);
    /* open: one triangle fewer */
    ck_assert_int_eq(glcollide_mesh_create(box->positions, box->vertex_count, box->triangles,
                                           box->triangle_count - 1, "open box", &m),
                     GLCOLLIDE_OK);
    expect_refused(m, "open box: not a closed solid: 3 boundary edges");
    glcollide_mesh_destroy(&m);
    /* non-manifold: a triangle repeated */
    uint32_t *triangles = malloc(3 * (box->triangle_count + 2) * sizeof *triangles);
    ck_assert_ptr_nonnull(triangles);
    memcpy(triangles, box->triangles, 3 * box->triangle_count * sizeof *triangles);
    memcpy(triangles + 3 * box->triangle_count, box->triangles, 6 * sizeof *triangles);
    for (int k = 0; k < 6; k += 3) { /* reversed, so that the edges stay oriented pairs */
        uint32_t *t = triangles + 3 * box->triangle_count + k, swap = t[1];
        t[1] = t[2];
        t[2] = swap;
    }
    ck_assert_int_eq(glcollide_mesh_create(box->positions, box->vertex_count, triangles,
                                           box->triangle_count + 2, "doubled box", &m),
                     GLCOLLIDE_OK);
    expect_refused(m, "non-manifold edge");
    glcollide_mesh_destroy(&m);
    free(triangles);
    /* empty */
    ck_assert_int_eq(glcollide_mesh_create(NULL, 0, NULL, 0, "empty", &m), GLCOLLIDE_OK);
    expect_refused(m, "empty: not a closed solid: no triangles");
    glcollide_mesh_destroy(&m);
    /* NaN written into a valid mesh (positions may be rewritten in place) */
    ck_assert_int_eq(glcollide_mesh_generate_sphere(1, 8, 4, &m), GLCOLLIDE_OK);
    m->positions[4] = NAN;
    expect_refused(m, "non-finite vert");
    glcollide_mesh_destroy(&m);
    /* inside out */
    ck_assert_int_eq(glcollide_mesh_create(box->positions, box->vertex_count, box->triangles,
                                           box->triangle_count, "inverted box", &m),
                     GLCOLLIDE_OK);
    for (size_t t = 0; t < m->triangle_count; t++) {
        uint32_t swap = m->triangles[3 * t + 1];
        m->triangles[3 * t + 1] = m->triangles[3 * t + 2];
        m->triangles[3 * t + 2] = swap;
    }
    expect_refused(m, "inverted box: not a closed solid: signed volume");
    glcollide_mesh_destroy(&m);
    /* two boxes through each other, in one closed mesh: a solid by its
     * winding number, refused only when asked */
    const double offset[3] = {0.5, 0, 0};
    m = test_two_boxes(offset, 1, 0, "two boxes");
    glcollide_tetra_tree_options options = glcollide_tetra_tree_default_options();
    options.check_self_intersections = 1;
    glcollide_tetra_tree *tree = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_tetra_tree_create(m, &options, &tree);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "tetra-tree: two boxes intersects itself: 52 triangle pairs (first: "
                       "triangles 2 and 16), refused as asked (check_self_intersections)");
    tree = build(m, NULL);
    glcollide_tetra_tree_destroy(&tree);
    glcollide_mesh_destroy(&m);
    glcollide_mesh_destroy(&box);
}
END_TEST

START_TEST(test_bad_arguments)
{
    glcollide_mesh *box = NULL;
    glcollide_tetra_tree *tree = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 1, 1, &box), GLCOLLIDE_OK);
    glcollide_tetra_tree_options options = glcollide_tetra_tree_default_options();
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    options.max_depth = 11;
    ck_assert_int_eq(glcollide_tetra_tree_create(box, &options, &tree),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_str_eq(test_log_last(), "tetra-tree: max_depth 11 outside 0..10");
    options.max_depth = 4;
    options.use_origin = 1;
    options.origin[1] = INFINITY;
    ck_assert_int_eq(glcollide_tetra_tree_create(box, &options, &tree),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_str_eq(test_log_last(), "tetra-tree: origin is not finite");
    ck_assert_int_eq(glcollide_tetra_tree_create(NULL, NULL, &tree),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_null(tree);
    ck_assert_int_eq(glcollide_tetra_tree_create(box, NULL, &tree), GLCOLLIDE_OK);
    uint8_t inside[3];
    ck_assert_int_eq(glcollide_tetra_tree_classify(tree, NULL, 3, inside, NULL, NULL),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_tetra_gpu_create(NULL, tree, NULL),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    test_log_capture_stop();
    /* Non-finite and huge points are outside, as for the oracle. */
    const double points[18] = {NAN,   0,      0,     0,        INFINITY, 0, 0.25, 0.5,  -0.75,
                               1e300, -1e300, 1e300, -DBL_MAX, DBL_MAX,  0, 0.5,  1e30, 0};
    uint8_t answers[6];
    ck_assert_int_eq(glcollide_tetra_tree_classify(tree, points, 6, answers, NULL, NULL),
                     GLCOLLIDE_OK);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(answers[i], i == 2);
    if (!gl_skipped()) {
        context_setup();
        glcollide_tetra_gpu *gpu = NULL;
        ck_assert_int_eq(glcollide_tetra_gpu_create(context, tree, &gpu), GLCOLLIDE_OK);
        ck_assert_int_eq(tetra_classify(gpu, box, points, 6, 0, answers, NULL),
                         GLCOLLIDE_OK);
        for (int i = 0; i < 6; i++)
            ck_assert_int_eq(answers[i], i == 2);
        ck_assert_int_eq(tetra_classify(gpu, box, NULL, 0, 0, NULL, NULL), GLCOLLIDE_OK);
        glcollide_tetra_gpu_destroy(&gpu);
        glcollide_tetra_gpu_destroy(&gpu); /* NULL is fine */
    }
    glcollide_tetra_tree_destroy(&tree);
    glcollide_tetra_tree_destroy(&tree); /* NULL is fine */
    glcollide_mesh_destroy(&box);
}
END_TEST

START_TEST(test_world_entry_gpu)
{
    if (gl_skipped())
        return;
    context_setup();
    world_entries(context);
}

Suite *suite_tetra_tree(void)
{
    Suite *suite = suite_create("tetra_tree");
    TCase *cpu = tcase_create("cpu"); /* and bad arguments on the GPU */
    tcase_set_timeout(cpu, 300);
    tcase_add_unchecked_fixture(cpu, NULL, context_teardown);
    tcase_add_test(cpu, test_bad_arguments);
    tcase_add_test(cpu, test_bad_meshes);
    tcase_add_test(cpu, test_generated_meshes);
    suite_add_tcase(suite, cpu);
    TCase *world = tcase_create("world");
    tcase_set_timeout(world, 300);
    tcase_add_unchecked_fixture(world, NULL, context_teardown);
    tcase_add_test(world, test_world_entry_gpu);
    suite_add_tcase(suite, world);
    TCase *gpu = tcase_create("gpu"); /* and real meshes on the CPU */
    tcase_set_timeout(gpu, 600);
    tcase_add_unchecked_fixture(gpu, NULL, context_teardown);
    tcase_add_test(gpu, test_gpu_generated);
    tcase_add_test(gpu, test_raw_meshes);
    tcase_add_test(gpu, test_real_meshes);
    tcase_add_test(gpu, test_self_intersecting);
    suite_add_tcase(suite, gpu);
    return suite;
}
