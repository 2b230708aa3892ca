/* SPDX-License-Identifier: MIT */
/*
 * Benchmark (not a test): "do these two solids interfere?" for pairs of
 * real meshes (libcgal-demo, each fitted to unit size) and generated
 * spheres of growing triangle count, medians of --repeat runs (5):
 *
 *   exact:  glcollide_world_query, METHOD_EXACT on a world of the pair (exact
 *           triangle tests, containment);
 *   convex: glcollide_myszkowski_test at 256^2, 512^2 and 1024^2 (early
 *           exit; check_solids off, the meshes are checked once up front),
 *           and with every pixel classified (full_map) at 512^2;
 *   map:    glcollide_myszkowski_distance_map at 512^2, margin 0.05;
 *   ode:    ODE's own answer: two trimesh geoms, OPCODE trees built once
 *           (rigid meshes), dCollide(a, b, 1 | CONTACTS_UNIMPORTANT): they
 *           interfere when it returns a contact (crossing surfaces only:
 *           OPCODE cannot see one solid inside the other).
 *
 * Each placement's world is made once and kept across the repetitions of
 * every method, after one untimed call of each, as a simulation keeps its
 * world and ODE its trees (what a mesh needs once - its BVH, whether it is
 * a solid, whether it is convex - is not in the times).
 *
 * Two placements per pair, B turned 30 degrees about z and moved along x
 * from A: "deep", at 0.6 or, where the pair does not touch there, the first
 * of 0.55, 0.5, ... that it does; and "near", moved out from there in steps
 * of 0.01 until the oracle says apart (the boxes still overlap, so every pass
 * runs). The answers are printed next to the oracle's.
 *
 *   bench-myszkowski [--repeat N]
 *   bench-myszkowski --csv --scene knot1-knot2|elephant-dino|bunny|spheres
 *                    [--detail T] [--repeat N]
 *
 * Without --csv: every pair (spheres at ~1,000, 10,000 and 100,000 triangles
 * each) as one table. With --csv: one pair (spheres at ~T triangles each,
 * default 1000) as the rows of tests/bench/run.sh (bench.h), scenes
 * "<pair>-deep" and "<pair>-near", methods ode, exact, convex-256,
 * convex-512, convex-1024, convex-full-512 and map-512; pairs = the answer
 * (1: interfere), contacts = ODE's contacts; then '#' lines comparing each
 * answer with the oracle's.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "helpers/test_scene.h"
#include "bench_ode.h"

#include <glcollide/glcollide.h>
#include <ode/ode.h>

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

static test_scene *pair_scene(glcollide_mesh *a, glcollide_mesh *b, double offset)
{
    test_scene *scene = NULL;
    const double t0[3] = {0, 0, 0}, t1[3] = {offset, 0, 0};
    const double q0[4] = {1, 0, 0, 0}, q1[4] = {0.96592583, 0, 0, 0.25881905};
    if (scene_create(&scene) != GLCOLLIDE_OK ||
        scene_add_mesh(scene, copy(a), NULL) != GLCOLLIDE_OK ||
        scene_add_mesh(scene, copy(b), NULL) != GLCOLLIDE_OK ||
        scene_add_object(scene, 0, t0, q0, NULL) != GLCOLLIDE_OK ||
        scene_add_object(scene, 1, t1, q1, NULL) != GLCOLLIDE_OK)
        exit(1);
    return scene;
}

/* The exact method's answer on world (NULL: a world made of scene for
 * this call). */
static int exact_answer(const test_scene *scene, glcollide_world *world,
                        glcollide_query_stats *stats)
{
    glcollide_query_options options = glcollide_query_default_options();
    glcollide_query_result result = {0};
    if ((world ? glcollide_world_query(world, NULL, &options, &result)
               : scene_query(scene, NULL, &options, &result)) != GLCOLLIDE_OK)
        exit(1);
    int touch = result.pair_count > 0;
    if (stats)
        *stats = result.stats;
    glcollide_query_result_clear(&result);
    return touch;
}


/* The methods, in table and CSV order. */
enum { M_ODE, M_EXACT, M_CONVEX_256, M_CONVEX_512, M_CONVEX_1024, M_CONVEX_FULL, M_MAP, M_COUNT };
static const char *const method_names[M_COUNT] = {
    "ode", "exact", "convex-256", "convex-512", "convex-1024", "convex-full-512", "map-512"};

typedef struct placement {
    bench_row rows[M_COUNT];
    int answer[M_COUNT]; /* 1: interfere; -1: no yes/no answer (the map) */
    int passes;          /* convex-512's renderings */
    double min_distance; /* the map's deepest overlap (negative) or smallest gap */
} placement;

static void gl_counters(bench_row *row, const glcollide_query_stats *stats)
{
    row->draw_calls = (double)stats->draw_calls;
    row->gpu_syncs = (double)stats->gpu_syncs;
    row->readback_bytes = (double)stats->readback_bytes;
    row->triangles_rasterized = (double)stats->triangles_rasterized;
    row->gpu_buffer_mb = BENCH_GPU_MB();
}

/* Every method on objects 0 and 1 of scene, repeat times each. */
static placement measure(glcollide_myszkowski *tester, const test_scene *scene, int repeat,
                         double *samples)
{
    placement p;
    for (int m = 0; m < M_COUNT; m++) {
        p.rows[m] = bench_row_empty();
        p.rows[m].method = method_names[m];
        p.answer[m] = -1;
    }

    bench_peak_reset();
    ode_mesh a, b;
    ode_mesh_make(&a, scene->meshes[scene->objects[0].mesh], &scene->objects[0].pose);
    ode_mesh_make(&b, scene->meshes[scene->objects[1].mesh], &scene->objects[1].pose);
    dContactGeom contact;
    int contacts = dCollide(a.geom, b.geom, 1 | CONTACTS_UNIMPORTANT, &contact, sizeof contact);
    for (int r = 0; r < repeat; r++) { /* (warmed by the call above) */
        double start = bench_now_ms();
        contacts = dCollide(a.geom, b.geom, 1 | CONTACTS_UNIMPORTANT, &contact, sizeof contact);
        samples[r] = bench_now_ms() - start;
    }
    bench_row_times(&p.rows[M_ODE], samples, repeat);
    p.rows[M_ODE].peak_rss_mb = bench_peak_rss_mb();
    p.rows[M_ODE].contacts = contacts;
    p.answer[M_ODE] = contacts > 0;
    ode_mesh_free(&a);
    ode_mesh_free(&b);

    glcollide_world *world = NULL;
    if (scene_world(scene, &world) != GLCOLLIDE_OK)
        exit(1);
    bench_peak_reset();
    glcollide_query_stats stats = {0};
    exact_answer(scene, world, &stats);
    for (int r = 0; r < repeat; r++) {
        p.answer[M_EXACT] = exact_answer(scene, world, &stats);
        samples[r] = stats.time_ms;
    }
    bench_row_times(&p.rows[M_EXACT], samples, repeat);
    p.rows[M_EXACT].peak_rss_mb = bench_peak_rss_mb();
    p.rows[M_EXACT].candidates = (double)stats.candidates;

    static const int resolutions[3] = {256, 512, 1024};
    for (int m = M_CONVEX_256; m <= M_CONVEX_FULL; m++) {
        glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
        options.check_solids = 0;
        options.resolution = m == M_CONVEX_FULL ? 512 : resolutions[m - M_CONVEX_256];
        options.full_map = m == M_CONVEX_FULL;
        glcollide_myszkowski_result found = {0};
        bench_peak_reset();
        for (int r = -1; r < repeat; r++) { /* r = -1: untimed */
            if (glcollide_myszkowski_test(tester, world, 0, 1, &options, &found) != GLCOLLIDE_OK)
                exit(1);
            if (r >= 0)
                samples[r] = found.stats.time_ms;
        }
        bench_row_times(&p.rows[m], samples, repeat);
        p.rows[m].peak_rss_mb = bench_peak_rss_mb();
        gl_counters(&p.rows[m], &found.stats);
        p.answer[m] = found.interference;
        if (m == M_CONVEX_512)
            p.passes = found.passes;
    }

    glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
    options.check_solids = 0;
    options.margin = 0.05;
    bench_peak_reset();
    for (int r = -1; r < repeat; r++) { /* r = -1: untimed */
        glcollide_myszkowski_map map;
        if (glcollide_myszkowski_distance_map(tester, world, 0, 1, &options, &map) != GLCOLLIDE_OK)
            exit(1);
        if (r < 0) {
            glcollide_myszkowski_map_clear(&map);
            continue;
        }
        samples[r] = map.stats.time_ms;
        p.min_distance = map.min_distance;
        stats = map.stats;
        glcollide_myszkowski_map_clear(&map);
    }
    bench_row_times(&p.rows[M_MAP], samples, repeat);
    p.rows[M_MAP].peak_rss_mb = bench_peak_rss_mb();
    gl_counters(&p.rows[M_MAP], &stats);
    glcollide_world_destroy(&world);
    for (int m = 0; m < M_COUNT; m++)
        if (p.answer[m] >= 0)
            p.rows[m].pairs = p.answer[m];
    return p;
}

/* Placements: A at the origin, B turned 30 degrees about z and moved along
 * x. "deep": the first of 0.6, 0.55, ... 0 that the oracle calls touching;
 * "near": the first multiple of 0.01 beyond it that the oracle calls apart
 * (the boxes still overlap there, so every pass runs). */
static int touching_at(glcollide_mesh *a, glcollide_mesh *b, double offset)
{
    test_scene *scene = pair_scene(a, b, offset);
    int touch = exact_answer(scene, NULL, NULL);
    scene_destroy(&scene);
    return touch;
}

static void placements(glcollide_mesh *a, glcollide_mesh *b, double offsets[2])
{
    int step = 12;
    while (step > 0 && !touching_at(a, b, 0.05 * step))
        step--;
    offsets[0] = 0.05 * step;
    for (int k = 1;; k++) {
        offsets[1] = offsets[0] + 0.01 * k;
        if (!touching_at(a, b, offsets[1]))
            break;
    }
}

/* The pair of meshes named by a scene; spheres get ~detail triangles each. */
static int load_pair(const char *name, int detail, glcollide_mesh **a, glcollide_mesh **b)
{
    if (strcmp(name, "knot1-knot2") == 0) {
        *a = data_mesh("knot1.off");
        *b = data_mesh("knot2.off");
    } else if (strcmp(name, "elephant-dino") == 0) {
        *a = data_mesh("elephant.off");
        *b = data_mesh("dino.off");
    } else if (strcmp(name, "bunny") == 0) {
        *a = data_mesh("bunny00.off");
        *b = copy(*a);
    } else if (strcmp(name, "spheres") == 0) {
        int slices = 2 * (int)(0.5 * sqrt((double)detail) + 0.5); /* ~slices^2 triangles */
        *a = sphere(slices < 8 ? 8 : slices);
        *b = copy(*a);
    } else {
        return 0;
    }
    if (glcollide_mesh_require_solid(*a, NULL) != GLCOLLIDE_OK ||
        glcollide_mesh_require_solid(*b, NULL) != GLCOLLIDE_OK) {
        fprintf(stderr, "bench-myszkowski: %s: the meshes are not closed solids\n", name);
        exit(1);
    }
    return 1;
}

static void print_csv(const char *device, const char *pair, const char *place, double offset,
                      size_t triangles, const placement *p)
{
    char scene[64];
    snprintf(scene, sizeof scene, "%s-%s", pair, place);
    int disagree = 0;
    for (int m = 0; m < M_COUNT; m++) {
        bench_row row = p->rows[m];
        row.device = device;
        row.bench = "myszkowski";
        row.scene = scene;
        row.size = 2;
        row.size_unit = "objects";
        row.triangles = (double)triangles;
        bench_row_print(&row);
        if (p->answer[m] >= 0 && m != M_EXACT && p->answer[m] != p->answer[M_EXACT]) {
            printf("# %s %s: %s says %s, the exact oracle %s\n", scene, method_names[m],
                   method_names[m], p->answer[m] ? "interfere" : "apart",
                   p->answer[M_EXACT] ? "interfere" : "apart");
            disagree++;
        }
    }
    printf("# %s (B at %.2f): exact oracle %s; %d answers differ from it; convex-512 took %d "
           "passes; map min distance %.4g\n",
           scene, offset, p->answer[M_EXACT] ? "interfere" : "apart", disagree, p->passes,
           p->min_distance);
    fflush(stdout);
}

static void print_human(const char *pair, const char *place, size_t triangles, const placement *p)
{
    printf("%-22s %-5s %8zu %5d %4d | %6.2f %6.1f %8.1f %8.1f %8.1f %9.1f | %6d %6d %5.0f | %8.1f\n",
           pair, place, triangles, p->answer[M_EXACT], p->answer[M_ODE], p->rows[M_ODE].median_ms,
           p->rows[M_EXACT].median_ms, p->rows[M_CONVEX_256].median_ms,
           p->rows[M_CONVEX_512].median_ms, p->rows[M_CONVEX_1024].median_ms,
           p->rows[M_CONVEX_FULL].median_ms, p->answer[M_CONVEX_512], p->passes,
           p->rows[M_CONVEX_512].gpu_syncs, p->rows[M_MAP].median_ms);
    fflush(stdout);
}

/* Both placements of one pair. */
static void run_pair(glcollide_myszkowski *tester, const char *device, int csv, const char *name,
                     const char *label, glcollide_mesh *a, glcollide_mesh *b, int repeat,
                     double *samples)
{
    double offsets[2];
    placements(a, b, offsets);
    static const char *const places[2] = {"deep", "near"};
    size_t triangles = a->triangle_count + b->triangle_count;
    for (int place = 0; place < 2; place++) {
        test_scene *scene = pair_scene(a, b, offsets[place]);
        placement p = measure(tester, scene, repeat, samples);
        if (csv)
            print_csv(device, name, places[place], offsets[place], triangles, &p);
        else
            print_human(label, places[place], triangles, &p);
        scene_destroy(&scene);
    }
}

static int usage(void)
{
    fprintf(stderr, "usage: bench-myszkowski [--repeat N]\n"
                    "       bench-myszkowski --csv --scene knot1-knot2|elephant-dino|bunny|spheres "
                    "[--detail T] [--repeat N]\n");
    return 2;
}

int main(int argc, char **argv)
{
    int repeat = 5, csv = 0, detail = 1000;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0)
            csv = 1;
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--detail") == 0 && i + 1 < argc)
            detail = atoi(argv[++i]);
        else
            return usage();
    }
    if (repeat < 1 || repeat > 1000 || detail < 64 || detail > 4000000 || (csv && !only) ||
        (!csv && only))
        return usage();
    glcollide_mesh *a = NULL, *b = NULL;
    if (csv && !load_pair(only, detail, &a, &b))
        return usage();
    glcollide_context *context = NULL;
    glcollide_myszkowski *tester = NULL;
    int status = glcollide_context_create_egl(&context);
    if (status == GLCOLLIDE_OK)
        status = glcollide_myszkowski_create(context, &tester);
    if (status != GLCOLLIDE_OK) {
        fprintf(stderr, "bench-myszkowski: %s\n", glcollide_status_string(status));
        return 1;
    }
    dInitODE2(0);
    const char *device = glcollide_context_caps(context)->renderer;
    double *samples = malloc((size_t)repeat * sizeof *samples);
    if (!samples)
        return 1;
    if (csv) {
        run_pair(tester, device, 1, only, only, a, b, repeat, samples);
        glcollide_mesh_destroy(&a);
        glcollide_mesh_destroy(&b);
    } else {
        printf("bench-myszkowski: %s, median of %d runs, times in ms\n", device, repeat);
        printf("%-22s %-5s %8s %5s %4s | %6s %6s %8s %8s %8s %9s | %6s %6s %5s | %8s\n", "pair",
               "place", "tris", "exact", "ode", "ode", "exact", "256^2", "512^2", "1024^2",
               "full 512", "convex", "passes", "syncs", "map 512");
        static const struct {
            const char *scene, *label;
            int detail;
        } pairs[6] = {{"knot1-knot2", "knot1/knot2", 0},
                      {"elephant-dino", "elephant/dino", 0},
                      {"bunny", "bunny00/bunny00", 0},
                      {"spheres", "sphere 1K/sphere 1K", 1000},
                      {"spheres", "sphere 10K/sphere 10K", 10000},
                      {"spheres", "sphere 100K/100K", 100000}};
        for (int k = 0; k < 6; k++) {
            load_pair(pairs[k].scene, pairs[k].detail ? pairs[k].detail : detail, &a, &b);
            run_pair(tester, device, 0, pairs[k].scene, pairs[k].label, a, b, repeat, samples);
            glcollide_mesh_destroy(&a);
            glcollide_mesh_destroy(&b);
        }
    }
    free(samples);
    dCloseODE();
    glcollide_myszkowski_destroy(&tester);
    glcollide_context_destroy(&context);
    return 0;
}
