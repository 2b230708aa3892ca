/* SPDX-License-Identifier: MIT */
/*
 * Benchmark (not a test): "which of these N closed trimeshes interpenetrate?"
 * for N = 10, 100, 1000 in one process, medians of --repeat runs (3):
 *
 *   ode:     N trimesh geoms in a dSimpleSpace (every pair of boxes is
 *            tested; ODE's dHashSpace misses some overlapping pairs),
 *            dSpaceCollide, and in the callback dCollide(o1, o2,
 *            1 | CONTACTS_UNIMPORTANT): a pair interpenetrates when it
 *            returns a contact. OPCODE trees are built once (rigid meshes).
 *            OPCODE's trimesh-trimesh test finds crossing surfaces only: a
 *            solid wholly inside another is not a contact for ODE.
 *   stencil: glcollide_stencil_run (Knott's CInDeR, default options:
 *            1024^2, 6 views, checks on: closed and not self-intersecting,
 *            each mesh once per query); "stencil-nocheck" is the same with
 *            check_solids = 0 (one run), to show what the CPU checks cost.
 *   exact:   glcollide_query_run, METHOD_EXACT at object level: the CPU
 *            oracle (BVH per object per query, exact triangle tests and
 *            containment), against which both are scored.
 *
 * Meshes: generated spheres, tori, (2,3) knots, capsules, boxes, and four
 * real closed meshes of libcgal-demo scaled to unit size (elephant, knot1,
 * knot2, dino; not cow.off, which intersects itself and which the stencil
 * method therefore refuses). N = 1000 uses generated meshes of ~100-500
 * triangles only, so that `make bench` stays within minutes on llvmpipe.
 * Objects are placed at random (fixed seeds, random rotations) in a cube
 * sized so that each object touches about two others on average (printed).
 * Then, for N = 100 and the same placements, stencil time against triangle
 * count (generated meshes of ~100, ~1,000 and ~10,000 triangles).
 *
 * --csv --scene mixed|light|detail [--size N] [--detail T] runs one scene in
 * the process and prints the rows of tests/bench/run.sh (bench.h) for ode,
 * stencil, stencil-nocheck and exact, then '#' lines with the scores against
 * the oracle. mixed and light are the N-object scenes above (either mesh
 * set at any N); detail is N objects (default 100) of sphere, torus and knot
 * at ~T triangles each (100, 1000 or 10000). Counters: ode candidates = box
 * pairs handed to dCollide; stencil candidates = edge samples found inside
 * (read back); exact candidates = triangle pairs tested.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "helpers/test_scene.h"

#include <glcollide/glcollide.h>
#include <ode/ode.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A growable sorted list of pairs. */
typedef struct pair_set {
    glcollide_index_pair *pairs;
    size_t count, capacity;
} pair_set;

static void pair_set_add(pair_set *set, uint32_t a, uint32_t b)
{
    if (set->count == set->capacity) {
        set->capacity = set->capacity ? 2 * set->capacity : 64;
        set->pairs = realloc(set->pairs, set->capacity * sizeof *set->pairs);
        if (!set->pairs) {
            fprintf(stderr, "bench-stencil: out of memory\n");
            exit(1);
        }
    }
    set->pairs[set->count++] = (glcollide_index_pair){a < b ? a : b, a < b ? b : a};
}

static void pair_set_copy(pair_set *set, const glcollide_index_pair *pairs, size_t count)
{
    set->count = 0;
    for (size_t i = 0; i < count; i++)
        pair_set_add(set, pairs[i].a, pairs[i].b);
}

static void pair_set_sort(pair_set *set)
{
    if (set->count)
        qsort(set->pairs, set->count, sizeof *set->pairs, glcollide_index_pair_compare);
}

static int pair_set_has(const pair_set *set, glcollide_index_pair key)
{
    return set->count && bsearch(&key, set->pairs, set->count, sizeof key,
                                 glcollide_index_pair_compare) != NULL;
}

/* Pairs of `found` not in `reference` (extra) and of `reference` not in `found` (missed). */
static void score(const pair_set *found, const pair_set *reference, size_t *missed, size_t *extra)
{
    *missed = *extra = 0;
    for (size_t i = 0; i < reference->count; i++)
        *missed += !pair_set_has(found, reference->pairs[i]);
    for (size_t i = 0; i < found->count; i++)
        *extra += !pair_set_has(reference, found->pairs[i]);
}

/* ------------------------------------------------------------ meshes */


static void add(test_scene *scene, int status, glcollide_mesh **mesh)
{
    if (status != GLCOLLIDE_OK || scene_add_mesh(scene, *mesh, NULL) != GLCOLLIDE_OK) {
        fprintf(stderr, "bench-stencil: cannot make a mesh\n");
        exit(1);
    }
}

enum { DETAIL_LIGHT, DETAIL_MIXED, DETAIL_100, DETAIL_1000, DETAIL_10000 };

/* The mesh set of a scene, each ~unit size. */
static void add_meshes(test_scene *scene, int detail)
{
    glcollide_mesh *m = NULL;
    switch (detail) {
    case DETAIL_LIGHT: /* ~100-500 triangles */
        add(scene, glcollide_mesh_generate_sphere(0.5, 16, 8, &m), &m);
        add(scene, glcollide_mesh_generate_torus(0.35, 0.12, 20, 8, &m), &m);
        add(scene, glcollide_mesh_generate_knot(2, 3, 0.3, 0.08, 48, 5, &m), &m);
        add(scene, glcollide_mesh_generate_capsule(0.2, 0.3, 16, 4, &m), &m);
        add(scene, glcollide_mesh_generate_box(0.45, 0.3, 0.2, &m), &m);
        break;
    case DETAIL_MIXED: { /* generated 12-2,000 triangles and real 5,500-11,500 */
        add(scene, glcollide_mesh_generate_sphere(0.5, 32, 16, &m), &m);
        add(scene, glcollide_mesh_generate_torus(0.35, 0.12, 32, 16, &m), &m);
        add(scene, glcollide_mesh_generate_knot(2, 3, 0.3, 0.08, 128, 8, &m), &m);
        add(scene, glcollide_mesh_generate_capsule(0.2, 0.3, 24, 6, &m), &m);
        add(scene, glcollide_mesh_generate_box(0.45, 0.3, 0.2, &m), &m);
        static const char *const real[] = {"elephant.off", "knot1.off", "knot2.off", "dino.off"};
        for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
            char path[4096];
            if (glcollide_mesh_find_data(real[i], path, sizeof path) != GLCOLLIDE_OK ||
                glcollide_mesh_load(path, 1, &m) != GLCOLLIDE_OK) {
                fprintf(stderr, "bench-stencil: %s missing (make meshes)\n", real[i]);
                exit(1);
            }
            glcollide_mesh_fit(m, 1.0); /* a unit box around the origin */
            add(scene, GLCOLLIDE_OK, &m);
        }
        break;
    }
    default: { /* sphere, torus, knot at ~100, ~1,000 or ~10,000 triangles */
        int k = detail - DETAIL_100;
        static const int sphere[3][2] = {{10, 6}, {32, 16}, {100, 51}};
        static const int torus[3][2] = {{10, 5}, {32, 16}, {100, 50}};
        static const int knot[3][2] = {{12, 4}, {64, 8}, {250, 20}};
        add(scene, glcollide_mesh_generate_sphere(0.5, sphere[k][0], sphere[k][1], &m), &m);
        add(scene, glcollide_mesh_generate_torus(0.35, 0.12, torus[k][0], torus[k][1], &m), &m);
        add(scene, glcollide_mesh_generate_knot(2, 3, 0.3, 0.08, knot[k][0], knot[k][1], &m), &m);
        break;
    }
    }
}

/* N objects at random in a cube of side (N / density)^(1/3). */
static test_scene *make_scene(size_t n, int detail, double density, uint64_t seed)
{
    test_scene *scene = NULL;
    if (scene_create(&scene) != GLCOLLIDE_OK)
        exit(1);
    add_meshes(scene, detail);
    double side = cbrt((double)n / density);
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++) {
        uint32_t mesh = (uint32_t)(splitmix64_next(&state) % scene->mesh_count);
        double t[3], q[4], norm = 0;
        for (int k = 0; k < 3; k++)
            t[k] = splitmix64_uniform(&state, 0, side);
        do {
            norm = 0;
            for (int k = 0; k < 4; k++) {
                q[k] = splitmix64_uniform(&state, -1, 1);
                norm += q[k] * q[k];
            }
        } while (norm > 1 || norm < 1e-6);
        for (int k = 0; k < 4; k++)
            q[k] /= sqrt(norm);
        if (scene_add_object(scene, mesh, t, q, NULL) != GLCOLLIDE_OK)
            exit(1);
    }
    return scene;
}

static size_t scene_triangles(const test_scene *scene)
{
    size_t total = 0;
    for (size_t o = 0; o < scene->object_count; o++)
        total += scene->meshes[scene->objects[o].mesh]->triangle_count;
    return total;
}

/* ------------------------------------------------------------ ODE */

typedef struct ode_scene {
    dSpaceID space;
    dTriMeshDataID *data; /* one per mesh, shared by its geoms */
    dTriIndex **indices;  /* kept alive: ODE keeps the pointers (positions: the glcollide meshes') */
    dGeomID *geoms;
    size_t mesh_count, object_count;
} ode_scene;

static ode_scene ode_make(const test_scene *scene)
{
    ode_scene s = {0};
    s.mesh_count = scene->mesh_count;
    s.object_count = scene->object_count;
    s.space = dSimpleSpaceCreate(0);
    s.data = calloc(s.mesh_count, sizeof *s.data);
    s.indices = calloc(s.mesh_count, sizeof *s.indices);
    s.geoms = calloc(s.object_count, sizeof *s.geoms);
    if (!s.data || !s.indices || !s.geoms)
        exit(1);
    for (size_t m = 0; m < s.mesh_count; m++) {
        const glcollide_mesh *mesh = scene->meshes[m];
        s.indices[m] = malloc(3 * mesh->triangle_count * sizeof(dTriIndex));
        if (!s.indices[m])
            exit(1);
        for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
            s.indices[m][i] = (dTriIndex)mesh->triangles[i];
        s.data[m] = dGeomTriMeshDataCreate();
        /* glcollide's positions are double[3]: ODE reads them in place. */
        dGeomTriMeshDataBuildDouble(s.data[m], mesh->positions, 3 * sizeof(double),
                                    (int)mesh->vertex_count, s.indices[m],
                                    (int)(3 * mesh->triangle_count), 3 * sizeof(dTriIndex));
        dGeomTriMeshDataPreprocess2(s.data[m], 0, NULL);
    }
    for (size_t o = 0; o < s.object_count; o++) {
        const glcollide_object *object = &scene->objects[o];
        s.geoms[o] = dCreateTriMesh(s.space, s.data[object->mesh], NULL, NULL, NULL);
        dGeomSetData(s.geoms[o], (void *)(uintptr_t)o);
        dGeomSetPosition(s.geoms[o], object->pose.translation[0], object->pose.translation[1],
                         object->pose.translation[2]);
        dQuaternion q = {object->pose.rotation[0], object->pose.rotation[1],
                         object->pose.rotation[2], object->pose.rotation[3]};
        dGeomSetQuaternion(s.geoms[o], q);
    }
    return s;
}

static void ode_free(ode_scene *s)
{
    for (size_t o = 0; o < s->object_count; o++)
        dGeomDestroy(s->geoms[o]);
    dSpaceDestroy(s->space);
    for (size_t m = 0; m < s->mesh_count; m++) {
        dGeomTriMeshDataDestroy(s->data[m]);
        free(s->indices[m]);
    }
    free(s->data);
    free(s->indices);
    free(s->geoms);
}

typedef struct ode_found {
    pair_set *pairs;
    size_t box_pairs;
} ode_found;

static void near_callback(void *user, dGeomID o1, dGeomID o2)
{
    ode_found *found = user;
    dContactGeom contact;
    found->box_pairs++;
    if (dCollide(o1, o2, 1 | CONTACTS_UNIMPORTANT, &contact, sizeof contact) > 0)
        pair_set_add(found->pairs, (uint32_t)(uintptr_t)dGeomGetData(o1),
                     (uint32_t)(uintptr_t)dGeomGetData(o2));
}

static double ode_run(ode_scene *s, pair_set *pairs, size_t *box_pairs)
{
    ode_found found = {pairs, 0};
    pairs->count = 0;
    double start = bench_now_ms();
    dSpaceCollide(s->space, &found, near_callback);
    double ms = bench_now_ms() - start;
    pair_set_sort(pairs);
    *box_pairs = found.box_pairs;
    return ms;
}

/* ------------------------------------------------------------ glcollide */

static double stencil_run(const test_scene *scene, glcollide_context *context, int resolution,
                          int check, pair_set *pairs, glcollide_stencil_result *kept)
{
    glcollide_stencil_options options = glcollide_stencil_default_options();
    options.resolution = resolution;
    options.check_solids = check;
    glcollide_stencil_result result;
    double start = bench_now_ms();
    int status = scene_stencil(scene, context, &options, &result);
    double ms = bench_now_ms() - start;
    if (status != GLCOLLIDE_OK) {
        fprintf(stderr, "bench-stencil: stencil failed: %s\n", glcollide_status_string(status));
        exit(1);
    }
    pair_set_copy(pairs, result.pairs, result.pair_count);
    if (kept) {
        glcollide_stencil_result_clear(kept);
        *kept = result;
    } else {
        glcollide_stencil_result_clear(&result);
    }
    return ms;
}

static double exact_run(const test_scene *scene, glcollide_level level, pair_set *pairs,
                        glcollide_query_stats *stats)
{
    glcollide_query_options options = glcollide_query_default_options();
    options.level = level;
    glcollide_query_result result;
    double start = bench_now_ms();
    if (scene_query(scene, NULL, &options, &result) != GLCOLLIDE_OK)
        exit(1);
    double ms = bench_now_ms() - start;
    pair_set_copy(pairs, result.pairs, result.pair_count);
    if (stats)
        *stats = result.stats;
    glcollide_query_result_clear(&result);
    return ms;
}

typedef struct bench_line {
    double ode_ms, stencil_ms, nocheck_ms, exact_ms;
    /* for --csv: each method's spread and peak memory */
    bench_row ode_row, stencil_row, nocheck_row, exact_row;
    glcollide_query_stats exact_stats, nocheck_stats;
    size_t exact_pairs, surface_pairs, ode_pairs, stencil_pairs;
    size_t ode_missed, ode_extra, stencil_missed, stencil_extra, box_pairs;
    glcollide_stencil_result stencil;
} bench_line;

static bench_line bench_scene(const test_scene *scene, glcollide_context *context, int repeat,
                              int resolution)
{
    bench_line line = {0};
    double *times = malloc((size_t)repeat * sizeof *times);
    pair_set exact = {0}, surface = {0}, ode = {0}, stencil = {0};
    if (!times)
        exit(1);
    /* the oracle, and (once, untimed) the pairs whose surfaces touch:
     * the others are containments, which OPCODE cannot see */
    line.exact_row = line.ode_row = line.stencil_row = line.nocheck_row = bench_row_empty();
    bench_peak_reset();
    for (int i = 0; i < repeat; i++)
        times[i] = exact_run(scene, GLCOLLIDE_LEVEL_OBJECTS, &exact, &line.exact_stats);
    bench_row_times(&line.exact_row, times, repeat);
    line.exact_row.peak_rss_mb = bench_peak_rss_mb();
    line.exact_ms = line.exact_row.median_ms;
    glcollide_query_options options = glcollide_query_default_options();
    options.level = GLCOLLIDE_LEVEL_TRIANGLES;
    glcollide_query_result tri;
    if (scene_query(scene, NULL, &options, &tri) != GLCOLLIDE_OK)
        exit(1);
    for (size_t i = 0; i < tri.triangle_pair_count; i++) {
        glcollide_index_pair key = {tri.triangle_pairs[i].object_a, tri.triangle_pairs[i].object_b};
        if (!pair_set_has(&surface, key)) {
            pair_set_add(&surface, key.a, key.b);
            pair_set_sort(&surface);
        }
    }
    glcollide_query_result_clear(&tri);

    bench_peak_reset();
    ode_scene s = ode_make(scene);
    ode_run(&s, &ode, &line.box_pairs); /* warm: OPCODE caches */
    for (int i = 0; i < repeat; i++)
        times[i] = ode_run(&s, &ode, &line.box_pairs);
    bench_row_times(&line.ode_row, times, repeat);
    line.ode_row.peak_rss_mb = bench_peak_rss_mb();
    line.ode_ms = line.ode_row.median_ms;
    ode_free(&s);

    /* (the first scene is preceded by a warm-up run: shaders) */
    bench_peak_reset();
    for (int i = 0; i < repeat; i++)
        times[i] = stencil_run(scene, context, resolution, 1, &stencil, &line.stencil);
    bench_row_times(&line.stencil_row, times, repeat);
    line.stencil_row.peak_rss_mb = bench_peak_rss_mb();
    line.stencil_ms = line.stencil_row.median_ms;
    /* one run: on llvmpipe the checks are within the runs' spread */
    {
        glcollide_stencil_result nocheck = {0};
        bench_peak_reset();
        line.nocheck_ms = stencil_run(scene, context, resolution, 0, &stencil, &nocheck);
        line.nocheck_stats = nocheck.stats;
        glcollide_stencil_result_clear(&nocheck);
        bench_row_times(&line.nocheck_row, &line.nocheck_ms, 1);
        line.nocheck_row.peak_rss_mb = bench_peak_rss_mb();
    }

    line.exact_pairs = exact.count;
    line.surface_pairs = surface.count;
    line.ode_pairs = ode.count;
    line.stencil_pairs = stencil.count;
    score(&ode, &exact, &line.ode_missed, &line.ode_extra);
    score(&stencil, &exact, &line.stencil_missed, &line.stencil_extra);
    free(times);
    free(exact.pairs);
    free(surface.pairs);
    free(ode.pairs);
    free(stencil.pairs);
    return line;
}

static void stencil_counters(bench_row *row, const glcollide_query_stats *stats)
{
    row->candidates = (double)stats->candidates;
    row->draw_calls = (double)stats->draw_calls;
    row->gpu_syncs = (double)stats->gpu_syncs;
    row->readback_bytes = (double)stats->readback_bytes;
    row->triangles_rasterized = (double)stats->triangles_rasterized;
    row->gpu_buffer_mb = BENCH_GPU_MB();
}

/* --csv: one scene, its four rows and its scores. */
static int csv_scene(glcollide_context *context, const char *name, size_t n, int detail_tris,
                     int repeat, int resolution)
{
    int detail;
    double density;
    uint64_t seed;
    if (!strcmp(name, "mixed"))
        detail = DETAIL_MIXED, density = 0.9, seed = 0x5EC0000u + n;
    else if (!strcmp(name, "light"))
        detail = DETAIL_LIGHT, density = 1.6, seed = 0x5EC0000u + n;
    else if (!strcmp(name, "detail") && (detail_tris == 100 || detail_tris == 1000 ||
                                         detail_tris == 10000))
        detail = detail_tris == 100 ? DETAIL_100 : detail_tris == 1000 ? DETAIL_1000 : DETAIL_10000,
        density = 0.9, seed = 0x5EC1000u;
    else
        return 2;
    const char *device = glcollide_context_caps(context)->renderer;
    { /* warm-up: shaders */
        test_scene *warm = make_scene(10, DETAIL_LIGHT, 1, 1);
        pair_set pairs = {0};
        stencil_run(warm, context, resolution, 1, &pairs, NULL);
        free(pairs.pairs);
        scene_destroy(&warm);
    }
    test_scene *scene = make_scene(n, detail, density, seed);
    bench_line l = bench_scene(scene, context, repeat, resolution);
    char scene_name[64];
    snprintf(scene_name, sizeof scene_name, "interpenetrate-%s", name);
    bench_row *rows[4] = {&l.ode_row, &l.stencil_row, &l.nocheck_row, &l.exact_row};
    static const char *const methods[4] = {"ode", "glcollide-stencil", "glcollide-stencil-nocheck",
                                           "glcollide-exact"};
    l.ode_row.candidates = (double)l.box_pairs, l.ode_row.pairs = (double)l.ode_pairs;
    stencil_counters(&l.stencil_row, &l.stencil.stats);
    l.stencil_row.pairs = (double)l.stencil_pairs;
    stencil_counters(&l.nocheck_row, &l.nocheck_stats);
    l.nocheck_row.pairs = (double)l.stencil_pairs;
    l.exact_row.candidates = (double)l.exact_stats.triangle_tests;
    l.exact_row.pairs = (double)l.exact_pairs;
    for (int i = 0; i < 4; i++) {
        rows[i]->device = device, rows[i]->bench = "stencil", rows[i]->scene = scene_name;
        rows[i]->method = methods[i], rows[i]->size = (double)n, rows[i]->size_unit = "objects";
        rows[i]->triangles = (double)scene_triangles(scene);
        bench_row_print(rows[i]);
    }
    printf("# %s N=%zu: exact pairs %zu (%zu contained: one solid inside the other); ode missed "
           "%zu extra %zu; stencil missed %zu extra %zu\n",
           scene_name, n, l.exact_pairs, l.exact_pairs - l.surface_pairs, l.ode_missed,
           l.ode_extra, l.stencil_missed, l.stencil_extra);
    glcollide_stencil_result_clear(&l.stencil);
    scene_destroy(&scene);
    return 0;
}

int main(int argc, char **argv)
{
    int repeat = 3, resolution = 1024, csv = 0, usage = 0, detail_tris = 1000;
    size_t size = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0)
            csv = 1;
        else if (i + 1 == argc)
            usage = 1;
        else if (strcmp(argv[i], "--repeat") == 0)
            repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--resolution") == 0)
            resolution = atoi(argv[++i]);
        else if (strcmp(argv[i], "--scene") == 0)
            only = argv[++i];
        else if (strcmp(argv[i], "--size") == 0)
            size = (size_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--detail") == 0)
            detail_tris = atoi(argv[++i]);
        else
            usage = 1;
    }
    if (usage || repeat < 1 || resolution < 16 || (csv && !only) || (only && !csv)) {
        fprintf(stderr, "usage: bench-stencil [--repeat N] [--resolution R]\n"
                        "       bench-stencil --csv --scene mixed|light|detail [--size N] "
                        "[--detail 100|1000|10000] [--repeat N] [--resolution R]\n");
        return 2;
    }
    dInitODE2(0);
    glcollide_context *context = NULL;
    if (glcollide_context_create_egl(&context) != GLCOLLIDE_OK)
        return 1;
    if (csv) {
        int status = csv_scene(context, only, size ? size : 100, detail_tris, repeat, resolution);
        if (status == 2)
            fprintf(stderr, "bench-stencil: unknown scene '%s' or detail %d\n", only, detail_tris);
        glcollide_context_destroy(&context);
        dCloseODE();
        return status;
    }
    printf("renderer: %s; stencil resolution %d; medians of %d runs (nocheck: one run)\n",
           glcollide_context_caps(context)->renderer, resolution, repeat);
    printf("ode: dSimpleSpace + dCollide(1 | CONTACTS_UNIMPORTANT), OPCODE trees prebuilt; "
           "exact: glcollide METHOD_EXACT objects (the oracle)\n");
    printf("contained = exact pairs whose surfaces do not touch (one solid inside the other): "
           "OPCODE cannot report them\n\n");
    printf("%5s %8s %6s | %9s %9s %9s %9s | %7s %7s | %5s %9s %5s %7s %7s | %13s %13s | %5s %5s "
           "%9s\n",
           "N", "tris", "mix", "ode ms", "stencil", "nocheck", "exact", "st/ode", "st/ex", "exact",
           "contained", "ode", "stencil", "boxes", "ode miss/xtra", "st miss/xtra", "draws",
           "syncs", "readback");
    {
        test_scene *warm = make_scene(10, DETAIL_LIGHT, 1, 1);
        pair_set pairs = {0};
        stencil_run(warm, context, resolution, 1, &pairs, NULL);
        free(pairs.pairs);
        scene_destroy(&warm);
    }
    static const size_t sizes[] = {10, 100, 1000};
    for (size_t k = 0; k < 3; k++) {
        size_t n = sizes[k];
        int detail = n >= 1000 ? DETAIL_LIGHT : DETAIL_MIXED;
        test_scene *scene = make_scene(n, detail, detail == DETAIL_LIGHT ? 1.6 : 0.9,
                                            0x5EC0000u + n);
        bench_line l = bench_scene(scene, context, repeat, resolution);
        printf("%5zu %8zu %6s | %9.2f %9.2f %9.2f %9.2f | %7.2f %7.2f | %5zu %9zu %5zu %7zu "
               "%7zu | %6zu/%-6zu %6zu/%-6zu | %5llu %5llu %9llu\n",
               n, scene_triangles(scene), detail == DETAIL_LIGHT ? "light" : "mixed", l.ode_ms,
               l.stencil_ms, l.nocheck_ms, l.exact_ms, l.stencil_ms / l.ode_ms,
               l.stencil_ms / l.exact_ms, l.exact_pairs, l.exact_pairs - l.surface_pairs,
               l.ode_pairs, l.stencil_pairs, l.box_pairs, l.ode_missed, l.ode_extra,
               l.stencil_missed, l.stencil_extra, (unsigned long long)l.stencil.stats.draw_calls,
               (unsigned long long)l.stencil.stats.gpu_syncs,
               (unsigned long long)l.stencil.stats.readback_bytes);
        fflush(stdout);
        glcollide_stencil_result_clear(&l.stencil);
        scene_destroy(&scene);
    }
    printf("\nN = 100, same placements, meshes of ~100 / ~1,000 / ~10,000 triangles (sphere, "
           "torus, knot)\n");
    printf("%8s | %9s %9s %9s %9s | %12s %12s | %5s %5s %5s\n", "tris", "ode ms", "stencil",
           "nocheck", "exact", "st us/tri", "nocheck/tri", "exact", "ode", "st");
    for (int detail = DETAIL_100; detail <= DETAIL_10000; detail++) {
        test_scene *scene = make_scene(100, detail, 0.9, 0x5EC1000u);
        size_t tris = scene_triangles(scene);
        bench_line l = bench_scene(scene, context, repeat, resolution);
        printf("%8zu | %9.2f %9.2f %9.2f %9.2f | %12.3f %12.3f | %5zu %5zu %5zu\n", tris, l.ode_ms,
               l.stencil_ms, l.nocheck_ms, l.exact_ms, 1e3 * l.stencil_ms / (double)tris,
               1e3 * l.nocheck_ms / (double)tris, l.exact_pairs, l.ode_pairs, l.stencil_pairs);
        fflush(stdout);
        glcollide_stencil_result_clear(&l.stencil);
        scene_destroy(&scene);
    }
    glcollide_context_destroy(&context);
    dCloseODE();
    return 0;
}
