/* SPDX-License-Identifier: MIT */
/*
 * "Which of these N objects collide?" frame after frame, as a motion planner
 * asks it: N random instances of three real meshes (bunny00, armadillo,
 * refined_elephant, each fitted to a unit box) in a cube sized so that an
 * object meets about two others, every object moved each frame.
 *
 *   world:    glcollide_world_query (method exact, objects) on one persistent
 *             world, only poses set per frame;
 *   composed: the same answer composed from the library's public pieces:
 *             glcollide_sap_pairs on boxes of the rotated mesh boxes,
 *             glcollide_bvh_overlap_posed with exact triangle tests, and
 *             glcollide_point_in_mesh in the mesh's frame for containment.
 *
 *   fcl:      (bench-world-fcl, built from this file and bench_world_fcl.cc
 *             where configure finds FCL) FCL 0.7's
 *             DynamicAABBTreeCollisionManager over BVHModel<OBBRSS> meshes,
 *             its tree built again each frame (--fcl-refit: refitted by its
 *             update()), fcl::collide on each of its candidate pairs (first
 *             contact).
 *
 * All run in one process, frame by frame in turn (so a drift of the
 * machine's speed hits all), world and composed must give the same pairs
 * each frame. FCL tests surfaces only: its pairs are compared with the
 * composed pairs whose triangles intersect (a contained object is no FCL
 * pair), and disagreements are counted and printed, not fatal (FCL's
 * triangle test is in floating point, glcollide's exact). The medians per
 * frame and their ratios are printed; --only world|composed|fcl runs one of
 * them, for whole-process timings and peak memory side by side.
 *
 *   bench-world [--objects N] [--frames F] [--only world|composed] [--csv]
 *   bench-world-fcl [--objects N] [--frames F] [--only world|composed|fcl] [--csv]
 *                   [--fcl-refit]
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "helpers/test_scene.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <math.h>

#ifdef BENCH_WORLD_FCL
#include "bench_world_fcl.h"
#define BENCH_WORLD_NAME "bench-world-fcl"
#define BENCH_WORLD_ONLY "world|composed|fcl"
#define BENCH_WORLD_FCL_USAGE " [--fcl-refit]"
#else
#define BENCH_WORLD_NAME "bench-world"
#define BENCH_WORLD_ONLY "world|composed"
#define BENCH_WORLD_FCL_USAGE ""
#endif

enum { MESHES = 3 };

typedef struct composed {
    glcollide_bvh *bvh[MESHES];
    int closed[MESHES];
    glcollide_aabb *boxes;
    glcollide_pair_list pairs;
    glcollide_scratch *workspace;
    glcollide_pair_list found;
    glcollide_pair_list contained; /* of found: by containment alone */
} composed;

typedef struct triangle_test {
    const glcollide_mesh *a, *b;
    const glcollide_object *pa, *pb;
    int hit;
} triangle_test;

static void place(const glcollide_object *pose, const glcollide_mesh *mesh, uint32_t t,
                  double out[3][3])
{
    for (int c = 0; c < 3; c++)
        glcollide_pose_transform_points(
            &pose->pose, mesh->positions + 3 * (size_t)mesh->triangles[3 * t + c], 1, out[c]);
}

static int exact_test(uint32_t ta, uint32_t tb, void *user)
{
    triangle_test *test = user;
    double a[3][3], b[3][3];
    place(test->pa, test->a, ta, a);
    place(test->pb, test->b, tb, b);
    test->hit = glcollide_tri_tri_overlap(a[0], a[1], a[2], b[0], b[1], b[2]);
    return test->hit;
}

/* Is a vertex of inner (its first) inside the closed mesh of outer? */
static int contains(const composed *c, const test_scene *scene, uint32_t outer, uint32_t inner)
{
    const glcollide_object *po = &scene->objects[outer], *pi = &scene->objects[inner];
    if (!c->closed[po->mesh])
        return 0;
    const glcollide_mesh *mo = scene->meshes[po->mesh], *mi = scene->meshes[pi->mesh];
    double p[3], d[3], local[3], m[9];
    glcollide_pose_transform_points(&pi->pose, mi->positions + 3 * (size_t)mi->triangles[0], 1, p);
    glcollide_pose_rotation_matrix(&po->pose, m);
    for (int k = 0; k < 3; k++)
        d[k] = p[k] - po->pose.translation[k];
    for (int k = 0; k < 3; k++)
        local[k] = m[k] * d[0] + m[3 + k] * d[1] + m[6 + k] * d[2];
    return glcollide_point_in_mesh(mo, c->bvh[po->mesh], local);
}

static void composed_frame(composed *c, const test_scene *scene)
{
    size_t n = scene->object_count;
    for (size_t o = 0; o < n; o++) {
        glcollide_aabb local = glcollide_bvh_bounds(c->bvh[scene->objects[o].mesh]);
        glcollide_aabb_place(&local, &scene->objects[o].pose, &c->boxes[o]);
    }
    c->pairs.count = 0;
    glcollide_sap_pairs(c->boxes, n, 0, &c->pairs, c->workspace);
    c->found.count = 0;
    c->contained.count = 0;
    for (size_t k = 0; k < c->pairs.count; k++) {
        uint32_t i = c->pairs.pairs[k].a, j = c->pairs.pairs[k].b;
        const glcollide_object *pi = &scene->objects[i], *pj = &scene->objects[j];
        triangle_test test = {scene->meshes[pi->mesh], scene->meshes[pj->mesh], pi, pj, 0};
        glcollide_bvh_overlap_posed(c->bvh[pi->mesh], &pi->pose, c->bvh[pj->mesh], &pj->pose, 0,
                                    exact_test, &test);
        int inside = !test.hit && (contains(c, scene, i, j) || contains(c, scene, j, i));
        if (test.hit || inside)
            glcollide_pair_list_push(&c->found, i, j);
        if (inside)
            glcollide_pair_list_push(&c->contained, i, j);
    }
}

#ifdef BENCH_WORLD_FCL
static int compare_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* list's pairs as sorted keys (smaller index << 32 | larger) in *keys, grown
 * to fit; 0, or -1 out of memory. */
static int pair_keys(const glcollide_pair_list *list, uint64_t **keys)
{
    uint64_t *k = realloc(*keys, (list->count + 1) * sizeof *k);
    if (!k)
        return -1;
    *keys = k;
    for (size_t i = 0; i < list->count; i++) {
        uint64_t a = list->pairs[i].a, b = list->pairs[i].b;
        k[i] = a < b ? a << 32 | b : b << 32 | a;
    }
    qsort(k, list->count, sizeof *k, compare_key);
    return 0;
}

/* How many keys of a[0..na) are not in b[0..nb) (all sorted). */
static size_t keys_missing(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    size_t missing = 0;
    for (size_t i = 0, j = 0; i < na; i++) {
        while (j < nb && b[j] < a[i])
            j++;
        missing += !(j < nb && b[j] == a[i]);
    }
    return missing;
}

/* FCL's pairs against the composed ones, totals over the frames: the
 * triangle pairs FCL misses, its pairs the composed path does not have, its
 * pairs that the composed path has by containment alone, and those
 * containment pairs; the frames where FCL agrees. */
typedef struct fcl_check {
    uint64_t *found, *contained, *fcl;
    size_t missed, extra, on_contained, contained_pairs;
    int frames_agreeing;
} fcl_check;

/* Adds this frame's pairs to k: 0, or -1 out of memory. */
static int fcl_compare(fcl_check *k, const composed *c, const glcollide_pair_list *fcl)
{
    if (pair_keys(&c->found, &k->found) || pair_keys(&c->contained, &k->contained) ||
        pair_keys(fcl, &k->fcl))
        return -1;
    size_t nf = c->found.count, nc = c->contained.count, nl = fcl->count;
    size_t on_contained = nl - keys_missing(k->fcl, nl, k->contained, nc);
    /* found = triangle pairs + contained ones: the triangle pairs FCL lacks. */
    size_t missed = keys_missing(k->found, nf, k->fcl, nl) - (nc - on_contained);
    size_t extra = keys_missing(k->fcl, nl, k->found, nf);
    k->missed += missed;
    k->extra += extra;
    k->on_contained += on_contained;
    k->contained_pairs += nc;
    k->frames_agreeing += !missed && !extra && !on_contained;
    return 0;
}
#endif

static void random_pose(uint64_t *rng, double side, double t[3], double q[4])
{
    for (int k = 0; k < 3; k++)
        t[k] = splitmix64_uniform(rng, 0, side);
    double n = 0;
    for (int k = 0; k < 4; k++) {
        q[k] = splitmix64_uniform(rng, -1, 1);
        n += q[k] * q[k];
    }
    n = sqrt(n);
    for (int k = 0; k < 4; k++)
        q[k] /= n;
}

int main(int argc, char **argv)
{
    int objects = 1000, frames = 15, csv = 0;
#ifdef BENCH_WORLD_FCL
    int fcl_refit = 0;
#endif
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--objects") && i + 1 < argc)
            objects = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--csv"))
            csv = 1;
#ifdef BENCH_WORLD_FCL
        else if (!strcmp(argv[i], "--fcl-refit"))
            fcl_refit = 1;
#endif
        else {
            fprintf(stderr, "usage: " BENCH_WORLD_NAME " [--objects N] [--frames F] "
                            "[--only " BENCH_WORLD_ONLY "] [--csv]" BENCH_WORLD_FCL_USAGE "\n");
            return 2;
        }
    }
    int run_world = !only || !strcmp(only, "world");
    int run_composed = !only || !strcmp(only, "composed");
    int run_fcl = 0;
#ifdef BENCH_WORLD_FCL
    run_fcl = !only || !strcmp(only, "fcl");
    bench_fcl *fcl = NULL;
    glcollide_pair_list fcl_found = {0};
    fcl_check check = {0};
    size_t fcl_candidates = 0, sap_candidates = 0;
#endif
    if (objects < 2 || frames < 1 || frames > 1000 || !(run_world || run_composed || run_fcl)) {
        fprintf(stderr, BENCH_WORLD_NAME
                ": --objects >= 2, --frames 1..1000, --only " BENCH_WORLD_ONLY "\n");
        return 2;
    }
    static const char *const names[MESHES] = {"bunny00.off", "armadillo.off",
                                              "refined_elephant.off"};
    test_scene *scene = NULL;
    glcollide_world *world = NULL;
    composed c = {0};
    if (glcollide_scratch_create(&c.workspace) != GLCOLLIDE_OK)
        return 1;
    if (scene_create(&scene) || glcollide_world_create(&world))
        return 1;
    for (int m = 0; m < MESHES; m++) {
        char path[4096];
        glcollide_mesh *mesh = NULL;
        if (glcollide_mesh_find_data(names[m], path, sizeof path) ||
            glcollide_mesh_load(path, 1.0, &mesh) || glcollide_mesh_fit(mesh, 1.0)) {
            fprintf(stderr, "bench-world: %s: no such data mesh (make meshes)\n", names[m]);
            return 1;
        }
        glcollide_mesh_report report;
        glcollide_mesh_validate(mesh, &report);
        c.closed[m] = report.closed;
        if ((run_composed && glcollide_bvh_create(mesh, &c.bvh[m])) ||
            scene_add_mesh(scene, mesh, NULL) ||
            glcollide_world_add_mesh(world, scene->meshes[m], NULL))
            return 1;
    }
    /* Unit-box meshes in a cube of 1.5 units^3 per object: about one
     * colliding pair per object, as in a dense configuration space. */
    double side = cbrt((double)objects * 1.5);
    uint64_t rng = 0xB0A1D000u + (uint64_t)objects;
    for (int o = 0; o < objects; o++) {
        double t[3], q[4];
        random_pose(&rng, side, t, q);
        if (scene_add_object(scene, (uint32_t)(o % MESHES), t, q, NULL) ||
            glcollide_world_add_object(world, (uint32_t)(o % MESHES), t, q, NULL))
            return 1;
    }
    c.boxes = malloc((size_t)objects * sizeof *c.boxes);
    if (!c.boxes)
        return 1;
#ifdef BENCH_WORLD_FCL
    if (run_fcl && !(fcl = bench_fcl_create(scene, fcl_refit)))
        return 1;
#endif
    double *world_ms = calloc((size_t)frames, sizeof(double));
    double *composed_ms = calloc((size_t)frames, sizeof(double));
    double *fcl_ms = calloc((size_t)frames, sizeof(double));
    glcollide_query_options options = glcollide_query_default_options();
    glcollide_query_result result = {0};
    size_t pairs = 0;
    for (int f = 0; f < frames; f++) {
        for (int o = 0; o < objects; o++) {
            double t[3], q[4];
            random_pose(&rng, side, t, q);
            if (glcollide_world_set_pose(world, (uint32_t)o, t, q))
                return 1;
            memcpy(scene->objects[o].pose.translation, t, sizeof t);
            memcpy(scene->objects[o].pose.rotation,
                   glcollide_world_object(world, (uint32_t)o)->pose.rotation, sizeof q);
        }
        if (run_world) {
            double start = bench_now_ms();
            if (glcollide_world_query(world, NULL, &options, &result))
                return 1;
            world_ms[f] = bench_now_ms() - start;
            pairs += result.pair_count;
        }
        if (run_composed) {
            double start = bench_now_ms();
            composed_frame(&c, scene);
            composed_ms[f] = bench_now_ms() - start;
            if (!run_world)
                pairs += c.found.count;
        }
        if (run_world && run_composed) {
            int same = c.found.count == result.pair_count;
            for (size_t k = 0; same && k < c.found.count; k++)
                same = c.found.pairs[k].a == result.pairs[k].a &&
                       c.found.pairs[k].b == result.pairs[k].b;
            if (!same) {
                fprintf(stderr, "bench-world: frame %d: world %zu pairs, composed %zu: differ\n", f,
                        result.pair_count, c.found.count);
                return 1;
            }
        }
#ifdef BENCH_WORLD_FCL
        if (run_fcl) {
            bench_fcl_pose(fcl, scene);
            double start = bench_now_ms();
            if (bench_fcl_collide(fcl, &fcl_found, &fcl_candidates))
                return 1;
            fcl_ms[f] = bench_now_ms() - start;
            if (!run_world && !run_composed)
                pairs += fcl_found.count;
            if (run_composed && fcl_compare(&check, &c, &fcl_found))
                return 1;
            sap_candidates += c.pairs.count;
        }
#endif
    }
    double world_median = run_world ? bench_median(world_ms, frames) : 0;
    double composed_median = run_composed ? bench_median(composed_ms, frames) : 0;
    double peak_mib = bench_status_kib("VmHWM") / 1024.0;
    double ratio = run_world && run_composed ? world_median / composed_median : 0;
    if (csv)
        printf("world,%d,%d,%.3f,%.3f,%.3f,%.1f", objects, frames, world_median, composed_median,
               ratio, peak_mib);
    else
        printf(BENCH_WORLD_NAME ": %d objects, %d frames, %.1f pairs per frame: world %.3f ms, "
                                "composed %.3f ms per frame (medians), ratio %.3f",
               objects, frames, (double)pairs / frames, world_median, composed_median, ratio);
#ifdef BENCH_WORLD_FCL
    double fcl_median = run_fcl ? bench_median(fcl_ms, frames) : 0;
    double fcl_ratio = run_fcl && run_composed ? fcl_median / composed_median : 0;
    double world_fcl = run_world && run_fcl ? world_median / fcl_median : 0;
    if (csv)
        printf(",%.3f,%.3f,%.3f,%.1f,%.1f,%d,%zu,%zu,%zu,%zu", fcl_median, fcl_ratio, world_fcl,
               (double)sap_candidates / frames, (double)fcl_candidates / frames,
               check.frames_agreeing, check.missed, check.extra, check.on_contained,
               check.contained_pairs);
    else if (run_fcl) {
        printf("; fcl %.3f ms, world/fcl %.3f", fcl_median, world_fcl);
        if (run_composed)
            printf(", fcl/composed %.3f; candidate pairs per frame: sap %.1f, fcl %.1f; fcl "
                   "agrees on %d of %d frames (%zu triangle pairs missed, %zu extra, %zu of the "
                   "%zu pairs found by containment alone)",
                   fcl_ratio, (double)sap_candidates / frames, (double)fcl_candidates / frames,
                   check.frames_agreeing, frames, check.missed, check.extra, check.on_contained,
                   check.contained_pairs);
    }
    bench_fcl_destroy(fcl);
    glcollide_pair_list_clear(&fcl_found);
    free(check.found);
    free(check.contained);
    free(check.fcl);
#endif
    if (csv)
        printf("\n");
    else
        printf("; peak memory %.0f MiB\n", peak_mib);
    glcollide_query_result_clear(&result);
    glcollide_world_destroy(&world);
    scene_destroy(&scene);
    for (int m = 0; m < MESHES; m++)
        glcollide_bvh_destroy(&c.bvh[m]);
    glcollide_pair_list_clear(&c.pairs);
    glcollide_scratch_destroy(&c.workspace);
    free(c.boxes);
    glcollide_pair_list_clear(&c.found);
    glcollide_pair_list_clear(&c.contained);
    free(world_ms);
    free(fcl_ms);
    free(composed_ms);
    return 0;
}
