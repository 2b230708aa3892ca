/* SPDX-License-Identifier: MIT */
/*
 * Benchmark (not a test): "do these two solids interfere?" for pairs of
 * real meshes (libcgal-demo, each fitted to unit size) and generated
 * spheres of growing triangle count, medians of --repeat runs (5):
 *
 *   exact:  glcollide_query_run, METHOD_EXACT on the two-object scene (BVHs
 *           built per query, exact triangle tests, containment);
 *   convex: glcollide_myszkowski_test at 256^2, 512^2 and 1024^2 (early
 *           exit; check_solids off, the meshes are checked once up front),
 *           and with every pixel classified (full_map) at 512^2;
 *   map:    glcollide_myszkowski_distance_map at 512^2, margin 0.05.
 *
 * Two placements per pair: B 0.6 along x from A and turned 30 degrees about
 * z ("deep"), and B moved out in steps of 0.01 until the oracle says apart
 * ("near": the boxes still overlap, so every pass runs). The answers are
 * printed next to the oracle's.
 *
 *   bench-myszkowski [--repeat N]
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static glcollide_mesh *data_mesh(const char *name)
{
    char path[4096];
    glcollide_mesh *mesh = NULL;
    if (glcollide_mesh_find_data(name, path, sizeof path) != GLCOLLIDE_OK ||
        glcollide_mesh_load(path, 1.0, &mesh) != GLCOLLIDE_OK ||
        glcollide_mesh_fit(mesh, 1.0) != GLCOLLIDE_OK) {
        fprintf(stderr, "bench-myszkowski: cannot load %s (make meshes)\n", name);
        exit(1);
    }
    return mesh;
}

static glcollide_mesh *sphere(int slices)
{
    glcollide_mesh *mesh = NULL;
    if (glcollide_mesh_generate_sphere(0.5, slices, slices / 2, &mesh) != GLCOLLIDE_OK)
        exit(1);
    return mesh;
}

static glcollide_mesh *copy(const glcollide_mesh *m)
{
    glcollide_mesh *mesh = NULL;
    if (glcollide_mesh_create(m->positions, m->vertex_count, m->triangles, m->triangle_count,
                              m->name, &mesh) != GLCOLLIDE_OK)
        exit(1);
    return mesh;
}

static glcollide_scene *pair_scene(glcollide_mesh *a, glcollide_mesh *b, double offset)
{
    glcollide_scene *scene = NULL;
    const double t0[3] = {0, 0, 0}, t1[3] = {offset, 0, 0};
    const double q0[4] = {1, 0, 0, 0}, q1[4] = {0.96592583, 0, 0, 0.25881905};
    if (glcollide_scene_create(&scene) != GLCOLLIDE_OK ||
        glcollide_scene_add_mesh(scene, copy(a), NULL) != GLCOLLIDE_OK ||
        glcollide_scene_add_mesh(scene, copy(b), NULL) != GLCOLLIDE_OK ||
        glcollide_scene_add_object(scene, 0, t0, q0, NULL) != GLCOLLIDE_OK ||
        glcollide_scene_add_object(scene, 1, t1, q1, NULL) != GLCOLLIDE_OK)
        exit(1);
    return scene;
}

static int exact_answer(const glcollide_scene *scene, double *ms)
{
    glcollide_query_options options = glcollide_query_default_options();
    glcollide_query_result result;
    if (glcollide_query_run(scene, NULL, &options, &result) != GLCOLLIDE_OK)
        exit(1);
    int touch = result.pair_count > 0;
    if (ms)
        *ms = result.stats.time_ms;
    glcollide_query_result_clear(&result);
    return touch;
}

int main(int argc, char **argv)
{
    int repeat = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench-myszkowski [--repeat N]\n");
            return 2;
        }
    }
    if (repeat < 1 || repeat > 1000)
        repeat = 5;
    glcollide_context *context = NULL;
    glcollide_myszkowski *tester = NULL;
    if (glcollide_context_create_egl(&context) != GLCOLLIDE_OK ||
        glcollide_myszkowski_create(context, &tester) != GLCOLLIDE_OK)
        return 1;
    const glcollide_gl_caps *caps = glcollide_context_caps(context);
    printf("bench-myszkowski: %s, median of %d runs, times in ms\n", caps->renderer, repeat);
    printf("%-22s %-5s %8s %5s | %6s %8s %8s %8s %9s | %6s %6s %5s | %8s\n", "pair", "place",
           "tris", "exact", "exact", "256^2", "512^2", "1024^2", "full 512", "convex", "passes",
           "syncs", "map 512");
    struct {
        const char *name;
        glcollide_mesh *a, *b;
    } pairs[6];
    pairs[0].name = "knot1/knot2";
    pairs[0].a = data_mesh("knot1.off");
    pairs[0].b = data_mesh("knot2.off");
    pairs[1].name = "elephant/dino";
    pairs[1].a = data_mesh("elephant.off");
    pairs[1].b = data_mesh("dino.off");
    pairs[2].name = "bunny00/bunny00";
    pairs[2].a = data_mesh("bunny00.off");
    pairs[2].b = copy(pairs[2].a);
    pairs[3].name = "sphere 1K/sphere 1K";
    pairs[3].a = sphere(32);
    pairs[3].b = copy(pairs[3].a);
    pairs[4].name = "sphere 10K/sphere 10K";
    pairs[4].a = sphere(100);
    pairs[4].b = copy(pairs[4].a);
    pairs[5].name = "sphere 100K/100K";
    pairs[5].a = sphere(316);
    pairs[5].b = copy(pairs[5].a);
    static const int resolutions[3] = {256, 512, 1024};
    double *samples = malloc((size_t)repeat * sizeof *samples);
    if (!samples)
        return 1;
    for (int p = 0; p < 6; p++) {
        if (glcollide_mesh_require_solid(pairs[p].a, NULL) != GLCOLLIDE_OK ||
            glcollide_mesh_require_solid(pairs[p].b, NULL) != GLCOLLIDE_OK)
            return 1;
        double near = 0.6;
        for (;;) { /* the nearest placement the oracle calls apart */
            glcollide_scene *scene = pair_scene(pairs[p].a, pairs[p].b, near);
            int touch = exact_answer(scene, NULL);
            glcollide_scene_destroy(&scene);
            if (!touch)
                break;
            near += 0.01;
        }
        for (int place = 0; place < 2; place++) {
            glcollide_scene *scene = pair_scene(pairs[p].a, pairs[p].b, place ? near : 0.6);
            double exact_ms = 0;
            for (int r = 0; r < repeat; r++) {
                exact_answer(scene, &samples[r]);
            }
            exact_ms = bench_median(samples, repeat);
            int exact = exact_answer(scene, NULL);
            double times[4];
            glcollide_myszkowski_result last = {0};
            for (int k = 0; k < 4; k++) {
                glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
                options.check_solids = 0;
                options.resolution = k < 3 ? resolutions[k] : 512;
                options.full_map = k == 3;
                for (int r = 0; r < repeat; r++) {
                    glcollide_myszkowski_result found;
                    if (glcollide_myszkowski_test(tester, scene, 0, 1, &options, &found) !=
                        GLCOLLIDE_OK)
                        return 1;
                    samples[r] = found.stats.time_ms;
                    if (k == 1)
                        last = found;
                }
                times[k] = bench_median(samples, repeat);
            }
            glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
            options.check_solids = 0;
            options.margin = 0.05;
            for (int r = 0; r < repeat; r++) {
                glcollide_myszkowski_map map;
                if (glcollide_myszkowski_distance_map(tester, scene, 0, 1, &options, &map) !=
                    GLCOLLIDE_OK)
                    return 1;
                samples[r] = map.stats.time_ms;
                glcollide_myszkowski_map_clear(&map);
            }
            double map_ms = bench_median(samples, repeat);
            size_t triangles = pairs[p].a->triangle_count + pairs[p].b->triangle_count;
            printf("%-22s %-5s %8zu %5d | %6.1f %8.1f %8.1f %8.1f %9.1f | %6d %6d %5llu | %8.1f\n",
                   pairs[p].name, place ? "near" : "deep", triangles, exact, exact_ms, times[0],
                   times[1], times[2], times[3], last.interference, last.passes,
                   (unsigned long long)last.stats.gpu_syncs, map_ms);
            fflush(stdout);
            glcollide_scene_destroy(&scene);
        }
        glcollide_mesh_destroy(&pairs[p].a);
        glcollide_mesh_destroy(&pairs[p].b);
    }
    free(samples);
    glcollide_myszkowski_destroy(&tester);
    glcollide_context_destroy(&context);
    return 0;
}
