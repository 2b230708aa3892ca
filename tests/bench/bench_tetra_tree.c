/* SPDX-License-Identifier: MIT */
/*
 * Benchmark (not a test): which particles of a cloud are inside the
 * armadillo (libcgal-demo's armadillo.off, 52,000 triangles), for 10^4,
 * 10^5 and 10^6 particles uniform in its box grown by 10% on each side, in
 * one process, medians of --repeat runs (5; 3 at 10^6):
 *
 *   gpu:          glcollide_tetra_gpu_classify, no frame coherence: the
 *                 points uploaded as floats, one dispatch, one readback of
 *                 2 bits per particle, uncertain particles finished on the
 *                 CPU (all of it timed);
 *   gpu-coherent: the same with GLCOLLIDE_TETRA_FRAME_COHERENCE, particles
 *                 moving 1/1000 of the box per frame (moves not timed);
 *   cpu:          glcollide_tetra_tree_classify (one core);
 *   cpu-coherent: the same with a cones array, moving particles;
 *   pim:          glcollide_point_in_mesh with a BVH (glcollide's exact
 *                 point-in-mesh, the oracle), one core.
 * Every method's answers are compared with pim's on the same positions
 * (mismatches must be 0). One CSV line per row:
 *   method,particles,ms_median,particles_per_s,dispatches,syncs,readback_bytes,uncertain,coherent
 * Options: --repeat N, --max-particles N, --depth D, --min-tetrahedra M.
 * --csv --size N: N particles only, rows of tests/bench/run.sh (bench.h):
 * contacts = particles inside, candidates = particles the GPU left to the
 * CPU; the methods alternate within each repetition (to compare answers),
 * so peak memory is the process's, the same on every row.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>
#include <glcollide/tetra_tree.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *must(void *p)
{
    if (!p) {
        fprintf(stderr, "bench-tetra-tree: out of memory\n");
        exit(1);
    }
    return p;
}

typedef struct row {
    const char *method;
    double ms[16];
    int runs;
    glcollide_tetra_stats last;
    size_t mismatches;
} row;

static int csv;
static const char *device = "";
static size_t mesh_triangles;

static void print_row(row *r, size_t n)
{
    if (csv) {
        bench_row out = bench_row_empty();
        bench_row_times(&out, r->ms, r->runs);
        out.device = device, out.bench = "tetra-tree", out.scene = "cloud-armadillo";
        out.method = r->method, out.size = (double)n, out.size_unit = "particles";
        out.triangles = (double)mesh_triangles;
        if (strcmp(r->method, "pim")) /* pim keeps no counters */
            out.contacts = (double)r->last.inside;
        if (!strncmp(r->method, "gpu", 3)) {
            out.candidates = (double)r->last.uncertain;
            out.draw_calls = (double)r->last.draw_calls, out.gpu_syncs = (double)r->last.gpu_syncs;
            out.readback_bytes = (double)r->last.readback_bytes;
            out.gpu_buffer_mb = BENCH_GPU_MB();
        }
        out.peak_rss_mb = bench_peak_rss_mb();
        bench_row_print(&out);
        return;
    }
    double ms = bench_median(r->ms, r->runs);
    printf("%s,%zu,%.3f,%.0f,%llu,%llu,%llu,%llu,%llu\n", r->method, n, ms, (double)n / (ms * 1e-3),
           (unsigned long long)r->last.draw_calls, (unsigned long long)r->last.gpu_syncs,
           (unsigned long long)r->last.readback_bytes, (unsigned long long)r->last.uncertain,
           (unsigned long long)r->last.coherent);
    fflush(stdout);
}

static size_t mismatches(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += a[i] != b[i];
    return bad;
}

int main(int argc, char **argv)
{
    int repeat = 5;
    size_t max_particles = 1000000, only = 0;
    glcollide_tetra_tree_options options = glcollide_tetra_tree_default_options();
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else if (!strcmp(argv[i], "--size") && i + 1 < argc)
            only = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-particles") && i + 1 < argc)
            max_particles = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--depth") && i + 1 < argc)
            options.max_depth = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--min-tetrahedra") && i + 1 < argc)
            options.min_tetrahedra = (uint32_t)atol(argv[++i]);
        else {
            fprintf(stderr, "usage: bench-tetra-tree [--repeat N] [--max-particles N] [--depth D] "
                            "[--min-tetrahedra M] [--csv --size N]\n");
            return 2;
        }
    }
    if (repeat < 1 || repeat > 16)
        repeat = 5;
    char path[4096];
    glcollide_mesh *mesh = NULL;
    if (glcollide_mesh_find_data("armadillo.off", path, sizeof path) != GLCOLLIDE_OK ||
        glcollide_mesh_load(path, 1.0, &mesh) != GLCOLLIDE_OK) {
        fprintf(stderr, "bench-tetra-tree: armadillo.off missing (make meshes)\n");
        return 1;
    }
    glcollide_tetra_tree *tree = NULL;
    double start = bench_now_ms();
    if (glcollide_tetra_tree_create(mesh, &options, &tree) != GLCOLLIDE_OK)
        return 1;
    double build_ms = bench_now_ms() - start;
    glcollide_tetra_tree_info info;
    glcollide_tetra_tree_get_info(tree, &info);
    glcollide_bvh *bvh = NULL;
    if (glcollide_bvh_create(mesh, &bvh) != GLCOLLIDE_OK)
        return 1;
    glcollide_context *context = NULL;
    glcollide_tetra_gpu *gpu = NULL;
    if (glcollide_context_create_egl(&context) != GLCOLLIDE_OK ||
        glcollide_tetra_gpu_create(context, tree, &gpu) != GLCOLLIDE_OK) {
        fprintf(stderr, "bench-tetra-tree: no GL context or GPU tree\n");
        return 1;
    }
    printf("# armadillo.off: %zu triangles; tetra-tree depth <= %d, min %u: %zu nodes, %zu leaves "
           "(%zu "
           "empty), %zu entries, mean %.1f, max %zu per leaf, %zu mixed fans; build %.0f ms "
           "(incl. closed-solid and self-intersection checks)\n",
           mesh->triangle_count, options.max_depth, options.min_tetrahedra, info.nodes, info.leaves,
           info.empty_leaves, info.leaf_entries, info.mean_leaf_tetrahedra,
           info.max_leaf_tetrahedra, info.mixed_fans, build_ms);
    printf("# GL: %s\n", glcollide_context_caps(context)->renderer);
    device = glcollide_context_caps(context)->renderer;
    mesh_triangles = mesh->triangle_count;
    if (!csv)
        printf("method,particles,ms_median,particles_per_s,dispatches,syncs,readback_bytes,uncertain,"
           "coherent\n");

    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (size_t v = 0; v < mesh->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], mesh->positions[3 * v + k]);
            hi[k] = fmax(hi[k], mesh->positions[3 * v + k]);
        }
    /* The solid as the one object of a world, at the identity pose: the
     * particles' world positions are then its own space's. */
    glcollide_world *world = NULL;
    const double origin[3] = {0, 0, 0}, identity[4] = {1, 0, 0, 0};
    if (glcollide_world_create(&world) != GLCOLLIDE_OK ||
        glcollide_world_add_mesh(world, mesh, NULL) != GLCOLLIDE_OK ||
        glcollide_world_add_object(world, 0, origin, identity, NULL) != GLCOLLIDE_OK)
        return 1;
    size_t total_mismatches = 0;
    for (size_t n = only ? only : 10000; n <= (only ? only : max_particles); n *= 10) {
        int runs = n >= 1000000 && repeat > 3 ? 3 : repeat;
        double *points = must(malloc(3 * n * sizeof(double)));
        double *velocity = must(malloc(3 * n * sizeof(double)));
        uint8_t *expected = must(malloc(n)), *got = must(malloc(n));
        uint32_t *cones = must(malloc(n * sizeof(uint32_t)));
        uint64_t state = 0xBE7C0000u + n;
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) {
                double pad = 0.1 * (hi[k] - lo[k]);
                points[3 * i + k] = splitmix64_uniform(&state, lo[k] - pad, hi[k] + pad);
                velocity[3 * i + k] = splitmix64_uniform(&state, -1e-3, 1e-3) * (hi[k] - lo[k]);
            }
        row rows[5] = {{.method = "gpu"},
                       {.method = "gpu-coherent"},
                       {.method = "cpu"},
                       {.method = "cpu-coherent"},
                       {.method = "pim"}};
        /* Static cloud: pim (also the reference), cpu, gpu. */
        for (int r = 0; r < runs; r++) {
            start = bench_now_ms();
            for (size_t i = 0; i < n; i++)
                expected[i] = (uint8_t)glcollide_point_in_mesh(mesh, bvh, points + 3 * i);
            rows[4].ms[rows[4].runs++] = bench_now_ms() - start;
            start = bench_now_ms();
            glcollide_tetra_tree_classify(tree, points, n, got, NULL, &rows[2].last);
            rows[2].ms[rows[2].runs++] = bench_now_ms() - start;
            rows[2].mismatches += mismatches(expected, got, n);
            start = bench_now_ms();
            if (glcollide_tetra_gpu_classify(gpu, world, 0, points, n, 0, got, &rows[0].last) != GLCOLLIDE_OK)
                return 1;
            rows[0].ms[rows[0].runs++] = bench_now_ms() - start;
            rows[0].mismatches += mismatches(expected, got, n);
        }
        /* Moving cloud, frame coherence: a first frame primes the cones. */
        for (size_t i = 0; i < n; i++)
            cones[i] = GLCOLLIDE_TETRA_CONE_NONE;
        glcollide_tetra_tree_classify(tree, points, n, got, cones, NULL);
        glcollide_tetra_gpu_classify(gpu, world, 0, points, n, GLCOLLIDE_TETRA_FRAME_COHERENCE,
                                     got, NULL);
        for (int r = 0; r < runs; r++) {
            for (size_t i = 0; i < 3 * n; i++)
                points[i] += velocity[i];
            for (size_t i = 0; i < n; i++)
                expected[i] = (uint8_t)glcollide_point_in_mesh(mesh, bvh, points + 3 * i);
            start = bench_now_ms();
            if (glcollide_tetra_gpu_classify(gpu, world, 0, points, n,
                                             GLCOLLIDE_TETRA_FRAME_COHERENCE, got,
                                             &rows[1].last) != GLCOLLIDE_OK)
                return 1;
            rows[1].ms[rows[1].runs++] = bench_now_ms() - start;
            rows[1].mismatches += mismatches(expected, got, n);
            start = bench_now_ms();
            glcollide_tetra_tree_classify(tree, points, n, got, cones, &rows[3].last);
            rows[3].ms[rows[3].runs++] = bench_now_ms() - start;
            rows[3].mismatches += mismatches(expected, got, n);
        }
        printf(
            "# %zu particles: cpu tested %.1f tetrahedra per particle, %.2f%% beyond the bounding "
            "tetrahedron, %.3f%% exact signs per particle\n",
            n, (double)rows[2].last.tetrahedra_tests / (double)n,
            100.0 * (double)rows[2].last.bounding_rejects / (double)n,
            100.0 * (double)rows[2].last.exact_signs / (double)n);
        for (int m = 0; m < 2; m++)
            printf("# %zu particles, %s, last run: upload %.1f ms, dispatch to readback %.1f ms, "
                   "unpack and CPU finish %.1f ms\n",
                   n, rows[m].method, rows[m].last.upload_ms, rows[m].last.gpu_ms,
                   rows[m].last.finish_ms);
        for (int m = 0; m < 5; m++) {
            print_row(&rows[m], n);
            total_mismatches += rows[m].mismatches;
            if (rows[m].mismatches)
                fprintf(stderr,
                        "bench-tetra-tree: %s at %zu particles: %zu answers differ from pim\n",
                        rows[m].method, n, rows[m].mismatches);
        }
        free(points);
        free(velocity);
        free(expected);
        free(got);
        free(cones);
    }
    printf("# mismatches against pim: %zu\n", total_mismatches);
    glcollide_tetra_gpu_destroy(&gpu);
    glcollide_world_destroy(&world);
    glcollide_context_destroy(&context);
    glcollide_tetra_tree_destroy(&tree);
    glcollide_bvh_destroy(&bvh);
    glcollide_mesh_destroy(&mesh);
    return total_mismatches ? 1 : 0;
}
