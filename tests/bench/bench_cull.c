/* SPDX-License-Identifier: MIT */
/*
 * Benchmark (not a test): CULLIDE and FAR against ODE's OPCODE trimesh-
 * trimesh collider, in one process, on the two-bunny00 scene; and culling
 * efficiency on a pile of 200 mixed objects. Medians of --repeat runs.
 *
 *   ODE rigid:   dCollide on prebuilt OPCODE trees (64 contacts asked)
 *   ODE refit:   dGeomTriMeshDataUpdate, then dCollide (deforming mesh)
 *   ODE rebuild: dGeomTriMeshDataBuild*, then dCollide (topology change)
 *   glcollide exact:   CPU BVH built per query + exact triangle tests
 *   glcollide far:     GPU FAR candidates + exact triangle tests on them
 *   glcollide cullide: GPU CULLIDE candidates + exact tests (may miss pairs)
 * glcollide keeps no trees between queries, so its rigid, refit and rebuild
 * cases are one and the same.
 *
 * --scene bunnies|pile runs one scene only (default: both); --csv prints the
 * rows of tests/bench/run.sh instead (bench.h): min, median and max over the
 * repetitions, peak memory per row. "contacts" of a glcollide row are the
 * intersecting triangle pairs found; ODE's are its contacts (64 asked).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "helpers/test_scene.h"
#include "bench_ode.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>
#include <ode/ode.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ ODE side */

enum { ODE_RIGID, ODE_REFIT, ODE_REBUILD };

static int csv;
static const char *device = "";

static double ode_collide(ode_mesh *a, ode_mesh *b, int mode, int *contacts)
{
    dContactGeom geoms[64];
    double start = bench_now_ms();
    if (mode == ODE_REFIT) {
        dGeomTriMeshDataUpdate(a->data);
        dGeomTriMeshDataUpdate(b->data);
    } else if (mode == ODE_REBUILD) {
        ode_build(a);
        ode_build(b);
        dGeomTriMeshSetData(a->geom, a->data);
        dGeomTriMeshSetData(b->geom, b->data);
    }
    *contacts = dCollide(a->geom, b->geom, 64, geoms, sizeof geoms[0]);
    return bench_now_ms() - start;
}

/* ------------------------------------------------------------ glcollide side */

/* Exact triangle tests on a query's candidate triangle pairs. */
static size_t exact_tests(const test_scene *scene, const glcollide_query_result *candidates,
                          double **world)
{
    size_t hits = 0;
    for (size_t i = 0; i < candidates->triangle_pair_count; i++) {
        const glcollide_triangle_pair *p = &candidates->triangle_pairs[i];
        const uint32_t *ta = scene->meshes[scene->objects[p->object_a].mesh]->triangles + 3 * (size_t)p->triangle_a;
        const uint32_t *tb = scene->meshes[scene->objects[p->object_b].mesh]->triangles + 3 * (size_t)p->triangle_b;
        const double *wa = world[p->object_a], *wb = world[p->object_b];
        hits += glcollide_tri_tri_overlap(wa + 3 * ta[0], wa + 3 * ta[1], wa + 3 * ta[2],
                                          wb + 3 * tb[0], wb + 3 * tb[1], wb + 3 * tb[2]);
    }
    return hits;
}

typedef struct run_result {
    double ms;
    size_t candidates, hits;
    glcollide_query_stats stats;
} run_result;

static run_result glcollide_run(const test_scene *scene, glcollide_context *context,
                                glcollide_method method, int resolution)
{
    run_result r = {0};
    glcollide_query_options options = glcollide_query_default_options();
    options.method = method;
    options.level = GLCOLLIDE_LEVEL_TRIANGLES;
    options.resolution = resolution;
    double start = bench_now_ms();
    glcollide_query_result result;
    if (scene_query(scene, context, &options, &result) != GLCOLLIDE_OK) {
        r.ms = NAN;
        return r;
    }
    r.candidates = result.triangle_pair_count;
    if (method == GLCOLLIDE_METHOD_EXACT) {
        r.hits = result.triangle_pair_count;
    } else {
        double *world[64] = {0};
        for (size_t o = 0; o < scene->object_count && o < 64; o++) {
            const glcollide_mesh *m = scene->meshes[scene->objects[o].mesh];
            world[o] = malloc(3 * m->vertex_count * sizeof(double));
            glcollide_pose_transform_points(&scene->objects[o].pose, m->positions, m->vertex_count,
                                            world[o]);
        }
        r.hits = exact_tests(scene, &result, world);
        for (size_t o = 0; o < 64; o++)
            free(world[o]);
    }
    r.ms = bench_now_ms() - start;
    r.stats = result.stats;
    glcollide_query_result_clear(&result);
    return r;
}

static void bench_bunnies(glcollide_context *context, int repeat, int resolution)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/scenes/bunnies.scene", GLCOLLIDE_SRCDIR);
    test_scene *scene = NULL;
    if (scene_load(path, &scene) != GLCOLLIDE_OK)
        return;
    ode_mesh a, b;
    ode_mesh_make(&a, scene->meshes[0], &scene->objects[0].pose);
    ode_mesh_make(&b, scene->meshes[0], &scene->objects[1].pose);
    double *times = malloc((size_t)repeat * sizeof *times);
    static const char *const ode_names[] = {"ode-rigid", "ode-refit", "ode-rebuild"};
    double ode_ms[3];
    int contacts = 0;
    ode_collide(&a, &b, ODE_RIGID, &contacts); /* warm caches */
    double triangles = (double)(2 * scene->meshes[0]->triangle_count);
    for (int mode = 0; mode < 3; mode++) {
        bench_peak_reset();
        for (int i = 0; i < repeat; i++)
            times[i] = ode_collide(&a, &b, mode, &contacts);
        bench_row row = bench_row_empty();
        bench_row_times(&row, times, repeat);
        ode_ms[mode] = row.median_ms;
        if (csv) {
            row.device = device, row.bench = "cull", row.scene = "bunnies";
            row.method = ode_names[mode], row.size = 2, row.size_unit = "objects";
            row.triangles = triangles, row.pairs = 1, row.contacts = contacts;
            row.peak_rss_mb = bench_peak_rss_mb();
            bench_row_print(&row);
        } else {
            printf("bunnies %-18s median %9.2f ms  contacts=%d\n", ode_names[mode], ode_ms[mode],
                   contacts);
        }
    }
    static const glcollide_method methods[] = {GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_METHOD_FAR,
                                               GLCOLLIDE_METHOD_CULLIDE};
    for (size_t m = 0; m < 3; m++) {
        bench_peak_reset();
        run_result r = glcollide_run(scene, context, methods[m], resolution); /* warm: shaders */
        for (int i = 0; i < repeat; i++) {
            r = glcollide_run(scene, context, methods[m], resolution);
            times[i] = r.ms;
        }
        bench_row row = bench_row_empty();
        bench_row_times(&row, times, repeat);
        double ms = row.median_ms;
        char name[64];
        snprintf(name, sizeof name, "glcollide-%s", glcollide_method_name(methods[m]));
        if (csv) {
            row.device = device, row.bench = "cull", row.scene = "bunnies", row.method = name;
            row.size = 2, row.size_unit = "objects", row.triangles = triangles;
            /* exact: BVH leaf pairs tested; GPU methods: the candidates tested here */
            row.candidates = (double)(methods[m] == GLCOLLIDE_METHOD_EXACT ? r.stats.candidates
                                                                           : r.candidates);
            row.contacts = (double)r.hits, row.pairs = r.hits > 0;
            if (methods[m] != GLCOLLIDE_METHOD_EXACT) {
                row.draw_calls = (double)r.stats.draw_calls, row.gpu_syncs = (double)r.stats.gpu_syncs;
                row.readback_bytes = (double)r.stats.readback_bytes;
                row.triangles_rasterized = (double)r.stats.triangles_rasterized;
                row.gpu_buffer_mb = BENCH_GPU_MB();
            }
            row.peak_rss_mb = bench_peak_rss_mb();
            bench_row_print(&row);
            continue;
        }
        printf("bunnies %-18s median %9.2f ms  candidates=%zu intersecting=%zu draw_calls=%llu "
               "gpu_syncs=%llu readback_bytes=%llu | vs ode rigid %.2fx, refit %.2fx, rebuild %.2fx "
               "(>1: glcollide slower)\n",
               name, ms, r.candidates, r.hits, (unsigned long long)r.stats.draw_calls,
               (unsigned long long)r.stats.gpu_syncs, (unsigned long long)r.stats.readback_bytes,
               ms / ode_ms[0], ms / ode_ms[1], ms / ode_ms[2]);
    }
    free(times);
    ode_mesh_free(&a);
    ode_mesh_free(&b);
    scene_destroy(&scene);
}

/* A pile of 200 objects, 150 generated and 50 real meshes, packed so that
 * neighbours interpenetrate slightly. */
static test_scene *pile_scene(void)
{
    test_scene *scene = NULL;
    scene_create(&scene);
    glcollide_mesh *mesh;
    const char *const real[] = {"cow.off", "elephant.off", "knot1.off", "knot2.off", "armadillo.off"};
    size_t first_real = 0;
    glcollide_mesh_generate_sphere(0.5, 16, 8, &mesh), scene_add_mesh(scene, mesh, NULL);
    glcollide_mesh_generate_box(0.45, 0.3, 0.2, &mesh), scene_add_mesh(scene, mesh, NULL);
    glcollide_mesh_generate_torus(0.4, 0.12, 24, 12, &mesh), scene_add_mesh(scene, mesh, NULL);
    glcollide_mesh_generate_capsule(0.2, 0.3, 16, 4, &mesh), scene_add_mesh(scene, mesh, NULL);
    glcollide_mesh_generate_knot(2, 3, 0.5, 0.08, 96, 8, &mesh), scene_add_mesh(scene, mesh, NULL);
    first_real = scene->mesh_count;
    for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
        char path[4096];
        if (glcollide_mesh_find_data(real[i], path, sizeof path) || glcollide_mesh_load(path, 1, &mesh))
            continue;
        glcollide_mesh_fit(mesh, 1.0); /* a unit box around the origin */
        scene_add_mesh(scene, mesh, NULL);
    }
    uint64_t state = 0x9113u;
    for (int i = 0; i < 200; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t m = i % 4 == 3 && scene->mesh_count > first_real
                         ? (uint32_t)(first_real + (state >> 33) % (scene->mesh_count - first_real))
                         : (uint32_t)((state >> 40) % first_real);
        double t[3] = {(i % 6) * 0.85, ((i / 6) % 6) * 0.85, (i / 36) * 0.85};
        double q[4] = {1, 0, 0, 0};
        for (int k = 0; k < 4; k++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            q[k] = (double)(state >> 11) / 9007199254740992.0 - 0.5;
        }
        double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int k = 0; k < 4; k++)
            q[k] /= n;
        scene_add_object(scene, m, t, q, NULL);
    }
    return scene;
}

static void bench_pile(glcollide_context *context, int repeat, int resolution)
{
    test_scene *scene = pile_scene();
    size_t triangles = 0;
    for (size_t o = 0; o < scene->object_count; o++)
        triangles += scene->meshes[scene->objects[o].mesh]->triangle_count;
    glcollide_query_options options = glcollide_query_default_options();
    options.resolution = resolution;
    static const glcollide_method methods[] = {GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_METHOD_SAP,
                                               GLCOLLIDE_METHOD_FAR, GLCOLLIDE_METHOD_CULLIDE};
    for (int level = 0; level < 2; level++)
        for (size_t m = 0; m < 4; m++) {
            options.method = methods[m];
            options.level = (glcollide_level)level;
            glcollide_query_result result;
            if (csv) {
                double *times = malloc((size_t)repeat * sizeof *times);
                int ok = 1;
                bench_peak_reset();
                for (int i = 0; i < repeat && ok; i++) {
                    ok = scene_query(scene, context, &options, &result) == GLCOLLIDE_OK;
                    times[i] = result.stats.time_ms;
                    if (ok && i + 1 < repeat)
                        glcollide_query_result_clear(&result);
                }
                if (ok) {
                    bench_row row = bench_row_empty();
                    bench_row_times(&row, times, repeat);
                    row.device = device, row.bench = "cull";
                    row.scene = level ? "static-pile-triangles" : "static-pile-objects";
                    row.method = glcollide_method_name(methods[m]);
                    row.size = (double)scene->object_count, row.size_unit = "objects";
                    row.triangles = (double)triangles;
                    row.candidates = (double)result.stats.candidates;
                    row.pairs = (double)(level ? result.triangle_pair_count : result.pair_count);
                    if (methods[m] == GLCOLLIDE_METHOD_FAR || methods[m] == GLCOLLIDE_METHOD_CULLIDE) {
                        row.draw_calls = (double)result.stats.draw_calls;
                        row.gpu_syncs = (double)result.stats.gpu_syncs;
                        row.readback_bytes = (double)result.stats.readback_bytes;
                        row.triangles_rasterized = (double)result.stats.triangles_rasterized;
                        row.gpu_buffer_mb = BENCH_GPU_MB();
                    }
                    row.peak_rss_mb = bench_peak_rss_mb();
                    bench_row_print(&row);
                    glcollide_query_result_clear(&result);
                }
                free(times);
                continue;
            }
            if (scene_query(scene, context, &options, &result) != GLCOLLIDE_OK)
                continue;
            printf("pile of %zu objects (%zu triangles) %-9s %-7s %8.1f ms  aabb_pairs=%llu "
                   "candidates=%llu pairs=%zu draw_calls=%llu gpu_syncs=%llu readback_bytes=%llu\n",
                   scene->object_count, triangles, level ? "triangles" : "objects",
                   glcollide_method_name(methods[m]), result.stats.time_ms,
                   (unsigned long long)result.stats.aabb_pairs,
                   (unsigned long long)result.stats.candidates,
                   level ? result.triangle_pair_count : result.pair_count,
                   (unsigned long long)result.stats.draw_calls,
                   (unsigned long long)result.stats.gpu_syncs,
                   (unsigned long long)result.stats.readback_bytes);
            glcollide_query_result_clear(&result);
        }
    scene_destroy(&scene);
}

int main(int argc, char **argv)
{
    int repeat = 7, resolution = 1024, usage = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0)
            csv = 1;
        else if (strcmp(argv[i], "--device") == 0)
            only = "device";
        else if (i + 1 == argc)
            usage = 1;
        else if (strcmp(argv[i], "--repeat") == 0)
            repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--resolution") == 0)
            resolution = atoi(argv[++i]);
        else if (strcmp(argv[i], "--scene") == 0)
            only = argv[++i];
        else
            usage = 1;
    }
    if (usage || repeat < 1 || resolution < 16 ||
        (only && strcmp(only, "bunnies") && strcmp(only, "pile") && strcmp(only, "device"))) {
        fprintf(stderr, "usage: bench-cull [--repeat N] [--resolution R] [--scene bunnies|pile] "
                        "[--csv] [--device]\n");
        return 2;
    }
    dInitODE2(0);
    glcollide_context *context = NULL;
    if (glcollide_context_create_egl(&context) != GLCOLLIDE_OK)
        return 1;
    device = glcollide_context_caps(context)->renderer;
    if (only && !strcmp(only, "device")) /* --device: the renderer's name, for run.sh */
        printf("device: %s\n", device);
    else if (!csv)
        printf("renderer: %s; resolution %d; %d repetitions, medians\n", device, resolution, repeat);
    if (!only || !strcmp(only, "bunnies"))
        bench_bunnies(context, repeat, resolution);
    if (!only || !strcmp(only, "pile"))
        bench_pile(context, repeat, resolution);
    glcollide_context_destroy(&context);
    dCloseODE();
    return 0;
}
