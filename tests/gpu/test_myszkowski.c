/* SPDX-License-Identifier: MIT */
/*
 * Myszkowski's pairwise test against the exact oracle (BVH + exact triangle
 * tests + point-in-mesh, through glcollide_query_run METHOD_EXACT), and its
 * distance map against CPU ray casting through the same pixel centres:
 * - 1,000 random pairs (convex, pi-convex and concave generated solids and
 *   real meshes) at 64^2..512^2: false alarms must be within the stated
 *   tolerance (the oracle at that distance agrees), misses counted per
 *   resolution and shape class and printed;
 * - the guarantee: overlaps holding a ball of one pixel are never missed
 *   (sphere/sphere and sphere/torus pairs of known geometry);
 * - distance maps within a per-pixel bound derived from float precision;
 * - bad input, cost structure, and method convex as a query.
 */
#include "gpu/gl_internal.h"     /* white box: the GL state saved and restored */
#include "methods/myszkowski_rays.h" /* white box: the CPU ray casting of the maps */
#include "helpers/tests.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static glcollide_context *context;
static glcollide_myszkowski *tester;

static void setup(void)
{
    if (!context)
        ck_assert_msg(glcollide_context_create_egl(&context) == GLCOLLIDE_OK,
                      "no headless EGL context: the myszkowski tests need one");
    if (!tester)
        ck_assert_int_eq(glcollide_myszkowski_create(context, &tester), GLCOLLIDE_OK);
}

static void teardown(void)
{
    glcollide_myszkowski_destroy(&tester);
    glcollide_context_destroy(&context);
}

/* Exact answer for objects 0 and 1 of a two-object scene: do they touch,
 * or come closer than distance? */
static int exact_touch(const glcollide_scene *scene, double distance)
{
    glcollide_query_options options = glcollide_query_default_options();
    options.distance = distance;
    glcollide_query_result result;
    ck_assert_int_eq(glcollide_query_run(scene, NULL, &options, &result), GLCOLLIDE_OK);
    int touch = result.pair_count > 0;
    glcollide_query_result_clear(&result);
    return touch;
}

static glcollide_myszkowski_result run_with(const glcollide_scene *scene, int resolution,
                                            int full_map, int refine)
{
    glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
    options.resolution = resolution;
    options.full_map = full_map;
    options.refine = refine;
    options.check_solids = 0; /* the meshes are checked once where they are made */
    glcollide_myszkowski_result result;
    int status = glcollide_myszkowski_test(tester, scene, 0, 1, &options, &result);
    ck_assert_msg(status == GLCOLLIDE_OK, "myszkowski failed: %s", glcollide_status_string(status));
    return result;
}

static glcollide_myszkowski_result run(const glcollide_scene *scene, int resolution, int full_map)
{
    return run_with(scene, resolution, full_map, 0);
}

/* ------------------------------------------------------------ shapes */

enum { SHAPE_BOX, SHAPE_SPHERE, SHAPE_CAPSULE, SHAPE_TORUS, SHAPE_KNOT, SHAPE_REAL, SHAPE_KINDS };
static const char *const shape_names[SHAPE_KINDS] = {"box",   "sphere", "capsule",
                                                     "torus", "knot",   "real"};

static glcollide_mesh *real_meshes[5];
static const char *const real_names[5] = {"elephant.off", "knot1.off", "knot2.off", "dino.off",
                                          "bunny00.off"};

static glcollide_mesh *real_mesh(uint32_t k, double size)
{
    if (!real_meshes[k]) {
        ck_assert_int_eq(glcollide_mesh_load(test_data_mesh(real_names[k]), 1.0, &real_meshes[k]),
                         GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_require_solid(real_meshes[k], NULL), GLCOLLIDE_OK);
    }
    const glcollide_mesh *m = real_meshes[k];
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_create(m->positions, m->vertex_count, m->triangles,
                                           m->triangle_count, real_names[k], &mesh),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_fit(mesh, size), GLCOLLIDE_OK);
    return mesh;
}

/* A closed solid of about size s: convex (box, sphere, capsule) or concave
 * (torus, knot, real mesh; bunny00 only when allow_large). */
static glcollide_mesh *make_shape(test_rng *rng, int kind, double s, int allow_large)
{
    glcollide_mesh *mesh = NULL;
    int status = GLCOLLIDE_OK;
    switch (kind) {
    case SHAPE_BOX:
        status =
            glcollide_mesh_generate_box(0.5 * s * test_rng_uniform(rng, 0.2, 1),
                                        0.5 * s * test_rng_uniform(rng, 0.2, 1), 0.5 * s, &mesh);
        break;
    case SHAPE_SPHERE: status = glcollide_mesh_generate_sphere(0.5 * s, 16, 10, &mesh); break;
    case SHAPE_CAPSULE:
        status = glcollide_mesh_generate_capsule(0.2 * s, 0.3 * s, 12, 3, &mesh);
        break;
    case SHAPE_TORUS:
        status = glcollide_mesh_generate_torus(0.35 * s, 0.12 * s, 24, 10, &mesh);
        break;
    case SHAPE_KNOT:
        status = glcollide_mesh_generate_knot(2, 3, 0.3 * s, 0.07 * s, 96, 8, &mesh);
        break;
    default: mesh = real_mesh(allow_large ? 4 : test_rng_below(rng, 4), s); break;
    }
    ck_assert_int_eq(status, GLCOLLIDE_OK);
    return mesh;
}

/* Two solids: the first at the origin, the second at a random direction
 * and a distance that makes about half of the pairs touch. */
static glcollide_scene *random_pair(uint64_t seed, int kinds[2])
{
    test_rng rng = {seed};
    glcollide_scene *scene = NULL;
    ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
    double origin = (seed % 11 == 0) ? 1e4 : 0; /* far from the world origin now and then */
    for (int f = 0; f < 2; f++) {
        kinds[f] = (int)test_rng_below(&rng, SHAPE_KINDS);
        uint32_t m = test_scene_add_mesh(
            scene, make_shape(&rng, kinds[f], test_rng_uniform(&rng, 0.5, 1.0), seed % 97 == 5));
        double q[4], t[3] = {origin, origin, origin};
        test_rng_quaternion(&rng, q);
        if (f == 1) {
            double d[3], n2 = 0;
            for (int k = 0; k < 3; k++) {
                d[k] = test_rng_uniform(&rng, -1, 1);
                n2 += d[k] * d[k];
            }
            double r = test_rng_uniform(&rng, 0.15, 0.9) / sqrt(n2);
            for (int k = 0; k < 3; k++)
                t[k] += d[k] * r;
        }
        test_scene_add_object(scene, m, t, q);
    }
    return scene;
}

static int concave(int kind)
{
    return kind >= SHAPE_TORUS;
}

/*
 * 1,000 random pairs (seeds 0x3A5C0000 + i; GLCOLLIDE_MYSZKOWSKI_PAIRS and
 * GLCOLLIDE_MYSZKOWSKI_SEED change both), resolution 64, 128, 256, 512 in
 * turn: every reported pair is within the result's tolerance of touching;
 * misses counted per resolution and class and printed (and re-run at
 * 4096^2, where they are found: overlaps thinner than the coarse pixels);
 * every 5th pair again with every pixel classified (the same answer as the
 * early exit), every 5th with the refined direction (scored the same way).
 */
START_TEST(test_random_pairs)
{
    setup();
    static const int resolutions[] = {64, 128, 256, 512};
    enum { R = 4 };
    size_t touching[R][2] = {{0}}, missed[R][2] = {{0}}, alarms[R][2] = {{0}}, pairs[R][2] = {{0}};
    size_t decided[4] = {0}, full_runs = 0, full_second = 0, full_concave = 0;
    size_t refined_runs = 0, refined_missed = 0, refined_alarms = 0, misses_found_fine = 0;
    double worst_alarm = 0, ms = 0;
    const char *env_pairs = getenv("GLCOLLIDE_MYSZKOWSKI_PAIRS");
    const char *env_seed = getenv("GLCOLLIDE_MYSZKOWSKI_SEED");
    int count = env_pairs ? atoi(env_pairs) : 1000;
    uint64_t base = env_seed ? strtoull(env_seed, NULL, 0) : 0x3A5C0000u;
    for (int i = 0; i < count; i++) {
        uint64_t seed = base + (uint64_t)i;
        int kinds[2];
        glcollide_scene *scene = random_pair(seed, kinds);
        int r = i % R, c = concave(kinds[0]) || concave(kinds[1]);
        int exact = exact_touch(scene, 0);
        glcollide_myszkowski_result found = run(scene, resolutions[r], 0);
        ms += found.stats.time_ms;
        decided[found.passes]++;
        TEST_REQUIRE(found.stats.gpu_syncs <= 4 && found.stats.draw_calls <= 12,
                     "seed 0x%llx: %llu syncs, %llu draw calls", (unsigned long long)seed,
                     (unsigned long long)found.stats.gpu_syncs,
                     (unsigned long long)found.stats.draw_calls);
        pairs[r][c]++;
        touching[r][c] += exact;
        if (exact && !found.interference) {
            /* A miss must be an overlap thinner than a pixel: finer rays find it. */
            missed[r][c]++;
            glcollide_myszkowski_result fine = run(scene, 4096, 0);
            misses_found_fine += fine.interference;
            printf("myszkowski miss: seed 0x%llx (%s/%s) at %d^2 (pixel %.3g): %s at 4096^2 "
                   "(pixel %.3g)\n",
                   (unsigned long long)seed, shape_names[kinds[0]], shape_names[kinds[1]],
                   resolutions[r], found.pixel_size, fine.interference ? "found" : "missed too",
                   fine.pixel_size);
        }
        if (!exact && found.interference) {
            alarms[r][c]++;
            TEST_REQUIRE(exact_touch(scene, found.tolerance),
                         "seed 0x%llx (%s/%s, %d^2): interference reported, solids farther apart "
                         "than the tolerance %g",
                         (unsigned long long)seed, shape_names[kinds[0]], shape_names[kinds[1]],
                         resolutions[r], found.tolerance);
            worst_alarm = fmax(worst_alarm, found.tolerance);
        }
        if (i % 5 == 0) { /* every pixel classified: the same answer */
            glcollide_myszkowski_result full = run(scene, resolutions[r], 1);
            TEST_REQUIRE(full.interference == found.interference,
                         "seed 0x%llx: full map says %d, early exit %d", (unsigned long long)seed,
                         full.interference, found.interference);
            full_runs++;
            full_second += full.passes >= 2;
            full_concave += full.passes == 3;
        }
        if (i % 5 == 2) { /* the refined direction: scored the same way */
            glcollide_myszkowski_result refined = run_with(scene, resolutions[r], 0, 1);
            refined_runs++;
            refined_missed += exact && !refined.interference;
            if (!exact && refined.interference) {
                refined_alarms++;
                TEST_REQUIRE(exact_touch(scene, refined.tolerance),
                             "seed 0x%llx (refined): interference beyond the tolerance %g",
                             (unsigned long long)seed, refined.tolerance);
            }
        }
        glcollide_scene_destroy(&scene);
    }
    for (int r = 0; r < R; r++)
        for (int c = 0; c < 2; c++)
            printf(
                "myszkowski vs exact at %d^2, %s pairs: %zu pairs, %zu touching, %zu missed, %zu "
                "false alarms (all within the tolerance)\n",
                resolutions[r], c ? "with a concave solid" : "convex", pairs[r][c], touching[r][c],
                missed[r][c], alarms[r][c]);
    printf("myszkowski: decided after 0/1/2/3 passes: %zu/%zu/%zu/%zu; %.2f ms per pair; with "
           "every pixel classified (%zu pairs) %zu needed pass 2, %zu pass 3; refined direction "
           "(%zu pairs): %zu missed, %zu false alarms (within the tolerance)\n",
           decided[0], decided[1], decided[2], decided[3], ms / count, full_runs, full_second,
           full_concave, refined_runs, refined_missed, refined_alarms);
    (void)worst_alarm;
    for (int k = 0; k < 5; k++)
        glcollide_mesh_destroy(&real_meshes[k]);
}
END_TEST

/*
 * The guarantee: when A and B overlap in a region holding a ball of radius
 * pixel_size, the interference is found. Sphere pairs (radii 0.2..0.6,
 * random rotations and directions) with an overlap of the inscribed
 * polyhedra of at least 2 pixels + 2 depth steps, and spheres crossing a
 * torus's tube (concave: two layers of the torus on most rays), at 64^2 and
 * 128^2. The overlap of two convex solids whose inscribed balls overlap by
 * depth delta holds a ball of radius delta / 2. And no false alarm: the
 * same pairs 2 to 50 tolerances apart are never reported.
 */
START_TEST(test_guarantee)
{
    setup();
    test_rng rng = {0x6A4A0000u};
    int tested = 0, found_count = 0, near_misses = 0;
    for (int i = 0; i < 160; i++) {
        glcollide_scene *scene = NULL;
        ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
        int torus = i % 2;
        int slices = 24, stacks = 16;
        double ra = test_rng_uniform(&rng, 0.2, 0.6), rb = test_rng_uniform(&rng, 0.1, 0.4);
        double major = 0.6, minor = 0.2;
        glcollide_mesh *a = NULL, *b = NULL;
        if (torus)
            ck_assert_int_eq(glcollide_mesh_generate_torus(major, minor, 48, 24, &a), GLCOLLIDE_OK);
        else
            ck_assert_int_eq(glcollide_mesh_generate_sphere(ra, slices, stacks, &a), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_generate_sphere(rb, slices, stacks, &b), GLCOLLIDE_OK);
        /* inscribed radii: the polyhedra contain these balls (tube) */
        double in_b = rb * cos(PI / slices) * cos(PI / stacks);
        double in_a = torus ? minor * cos(PI / 24) * cos(PI / 48) - major * (1 - cos(PI / 48))
                            : ra * cos(PI / slices) * cos(PI / stacks);
        double q[4] = {1, 0, 0, 0}, qa[4], t0[3] = {0, 0, 0}, t[3];
        test_rng_quaternion(&rng, qa);
        /* Centre of B: at depth `depth` into A's inscribed surface. */
        double resolution = i % 4 < 2 ? 64 : 128;
        double pixel_guess = 2.5 * fmax(ra, rb) / resolution;
        double depth = test_rng_uniform(&rng, 3 * pixel_guess, 0.5 * in_b);
        double dir[3] = {test_rng_uniform(&rng, -1, 1), test_rng_uniform(&rng, -1, 1),
                         test_rng_uniform(&rng, -1, 1)};
        double n = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        double centre_a[3] = {0, 0, 0};
        if (torus) { /* a point of the tube's centre circle, in the torus's frame (z up) */
            double phi = test_rng_uniform(&rng, 0, 2 * PI);
            double c[3] = {major * cos(phi), major * sin(phi), 0}, moved[3];
            glcollide_object pose = {0, {0, 0, 0}, {qa[0], qa[1], qa[2], qa[3]}};
            glcollide_object_transform_points(&pose, c, 1, moved);
            memcpy(centre_a, moved, sizeof moved);
            /* move along the tube's normal plane: use the radial direction */
            double radial[3] = {cos(phi), sin(phi), 0}, turned[3], origin[3] = {0, 0, 0}, o2[3];
            glcollide_object_transform_points(&pose, radial, 1, turned);
            glcollide_object_transform_points(&pose, origin, 1, o2);
            for (int k = 0; k < 3; k++)
                dir[k] = turned[k] - o2[k];
            n = 1;
            if (i % 4 == 1)
                for (int k = 0; k < 3; k++)
                    dir[k] = -dir[k]; /* into the hole side */
        }
        for (int k = 0; k < 3; k++)
            t[k] = centre_a[k] + dir[k] / n * (in_a + in_b - depth);
        test_scene_add_object(scene, test_scene_add_mesh(scene, a), t0, qa);
        test_scene_add_object(scene, test_scene_add_mesh(scene, b), t, q);
        glcollide_myszkowski_result found = run(scene, (int)resolution, 0);
        /* The overlap of the inscribed solids holds a ball of radius depth / 2. */
        if (depth / 2 >= found.pixel_size + 2 * found.depth_range * 0x1p-24) {
            tested++;
            found_count += found.interference;
            TEST_REQUIRE(found.interference,
                         "pair %d (%s, %g^2): overlap depth %g (pixel %g) not found", i,
                         torus ? "torus" : "sphere", resolution, depth, found.pixel_size);
        }
        /* The other side of the tolerance: B moved out to a gap of 2 to 50
         * tolerances (far below a pixel) is never reported once the oracle
         * says the solids are farther apart than the tolerance. */
        double out_a = torus ? minor : ra;
        double gap = found.tolerance * test_rng_uniform(&rng, 2, 50);
        double moved[3];
        for (int k = 0; k < 3; k++)
            moved[k] = centre_a[k] + dir[k] / n * (out_a + rb + gap);
        memcpy(scene->objects[1].translation, moved, sizeof moved);
        glcollide_myszkowski_result apart = run(scene, (int)resolution, 1);
        if (!exact_touch(scene, apart.tolerance)) {
            near_misses++;
            TEST_REQUIRE(!apart.interference,
                         "pair %d (%s, %g^2): reported at a gap of %g (tolerance %g)", i,
                         torus ? "torus" : "sphere", resolution, gap, apart.tolerance);
        }
        glcollide_scene_destroy(&scene);
    }
    printf("myszkowski guarantee: %d pairs overlapping by a ball of >= 1 pixel, %d found; %d pairs "
           "apart by 2..50 tolerances, none reported\n",
           tested, found_count, near_misses);
    ck_assert_int_ge(tested, 100);
    ck_assert_int_ge(near_misses, 100);
}
END_TEST

/* ------------------------------------------------------------ distance map */

typedef struct map_check {
    size_t pixels, compared, ambiguous, coverage_mismatch, beyond;
    double worst_steps, sum_sq_steps, worst_ratio;
} map_check;

/* Ray casts every pixel centre of map through objects 0 and 1 of scene
 * (the library's CPU ray casting, the CPU twin's map) and compares coverage
 * and distance. */
static void check_map(const glcollide_scene *scene, const glcollide_myszkowski_map *map,
                      map_check *out, const char *what)
{
    double *world[2];
    const glcollide_mesh *mesh[2];
    for (int f = 0; f < 2; f++) {
        mesh[f] = scene->meshes[scene->objects[f].mesh];
        world[f] = malloc(3 * mesh[f]->vertex_count * sizeof(double) + 1);
        ck_assert_ptr_nonnull(world[f]);
        glcollide_object_transform_points(&scene->objects[f], mesh[f]->positions,
                                          mesh[f]->vertex_count, world[f]);
    }
    glcollide_map_rays rays = {0};
    const double *const positions[2] = {world[0], world[1]};
    ck_assert_int_eq(glcollide_map_rays_prepare(&rays, mesh, positions, map->corner, map->axis_u,
                                                map->axis_v, map->direction),
                     GLCOLLIDE_OK);
    /* Float positions (relative to an origin within extent) and float
     * depths: a surface's depth is off by at most a few ulps of the depth
     * range, plus its slope times a few ulps of the coordinates. */
    double ulp_depth = map->depth_step, ulp_xy = fmax(rays.extent * 0x1p-24, map->position_step);
    double near_edge = 2 * map->position_step; /* vertices may snap by half of it */
    for (int y = 0; y < map->height; y++)
        for (int x = 0; x < map->width; x++) {
            size_t p = (size_t)y * map->width + x;
            glcollide_map_ray ray;
            ck_assert_int_eq(glcollide_map_rays_cast(&rays, (x + 0.5) * map->pixel_size,
                                                     (y + 0.5) * map->pixel_size, near_edge, &ray),
                             GLCOLLIDE_OK);
            out->pixels++;
            if (ray.ambiguous || (map->coverage[p] & GLCOLLIDE_MYSZKOWSKI_UNRESOLVED)) {
                out->ambiguous++;
                continue;
            }
            if (ray.coverage != (map->coverage[p] & 3)) {
                out->coverage_mismatch++;
                continue;
            }
            if (ray.coverage != 3)
                continue;
            double bound = (double)ray.surfaces * 4 * (ulp_depth + ray.slope * ulp_xy);
            double error = fabs(map->distance[p] - ray.distance);
            out->compared++;
            out->worst_steps = fmax(out->worst_steps, error / map->depth_step);
            out->sum_sq_steps += (error / map->depth_step) * (error / map->depth_step);
            out->worst_ratio = fmax(out->worst_ratio, error / bound);
            if (!(error <= bound) && out->beyond++ < 3)
                printf("  %s: pixel %d %d: gpu %.9g cpu %.9g (bound %g, %zu surfaces, slope %g)\n",
                       what, x, y, map->distance[p], ray.distance, bound, ray.surfaces, ray.slope);
        }
    glcollide_map_rays_release(&rays);
    for (int f = 0; f < 2; f++)
        free(world[f]);
}

/* Distance maps of random pairs (convex, concave, real) against ray
 * casting: every unambiguous pixel has the same coverage and a distance
 * within its bound; pixels whose centre is within 2 position steps (the
 * rasterizer's vertex snapping, 1/128 pixel on llvmpipe) of a projected
 * edge are counted as ambiguous and skipped. */
START_TEST(test_distance_map)
{
    setup();
    map_check total = {0};
    size_t maps = 0;
    for (int i = 0; i < 36; i++) {
        uint64_t seed = 0x3D150000u + (uint64_t)i;
        int kinds[2];
        glcollide_scene *scene = random_pair(seed, kinds);
        glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
        options.resolution = i % 2 ? 96 : 64;
        options.check_solids = 0;
        options.margin = 0.05;
        glcollide_myszkowski_map map;
        ck_assert_int_eq(glcollide_myszkowski_distance_map(tester, scene, 0, 1, &options, &map),
                         GLCOLLIDE_OK);
        TEST_REQUIRE(map.stats.gpu_syncs <= 3 && map.stats.draw_calls <= 10,
                     "map: %llu syncs, %llu draw calls", (unsigned long long)map.stats.gpu_syncs,
                     (unsigned long long)map.stats.draw_calls);
        if (map.width) {
            char what[64];
            snprintf(what, sizeof what, "seed 0x%llx %s/%s", (unsigned long long)seed,
                     shape_names[kinds[0]], shape_names[kinds[1]]);
            map_check check = {0};
            check_map(scene, &map, &check, what);
            TEST_REQUIRE(check.coverage_mismatch == 0 && check.beyond == 0,
                         "%s: %zu coverage mismatches, %zu distances beyond the bound", what,
                         check.coverage_mismatch, check.beyond);
            total.pixels += check.pixels;
            total.compared += check.compared;
            total.ambiguous += check.ambiguous;
            total.sum_sq_steps += check.sum_sq_steps;
            total.worst_steps = fmax(total.worst_steps, check.worst_steps);
            total.worst_ratio = fmax(total.worst_ratio, check.worst_ratio);
            maps++;
        }
        glcollide_myszkowski_map_clear(&map);
        glcollide_scene_destroy(&scene);
    }
    printf("myszkowski distance maps: %zu maps, %zu pixels, %zu compared with ray casting, %zu "
           "ambiguous; error: RMS %.2f, max %.2f depth steps (max %.3f of the per-pixel bound)\n",
           maps, total.pixels, total.compared, total.ambiguous,
           total.compared ? sqrt(total.sum_sq_steps / total.compared) : 0.0, total.worst_steps,
           total.worst_ratio);
    ck_assert_uint_gt(total.compared, 10000);
    for (int k = 0; k < 5; k++)
        glcollide_mesh_destroy(&real_meshes[k]);
}
END_TEST

/*
 * Section 7's refinement on sphere pairs (random rotations, B's centre along
 * a random unit c, overlapping by 0.02..0.1): the contact zone's polygons
 * average to the centre line, so the refined direction is within 10 degrees
 * of c; the initial guess (box walls) generally is not. The maps' errors
 * against ray casting are printed for both directions (the paper's Fig. 7).
 */
START_TEST(test_refine)
{
    setup();
    test_rng rng = {0x7EF10000u};
    double angle_initial = 0, angle_refined = 0;
    map_check checks[2] = {{0}, {0}};
    enum { PAIRS = 24 };
    for (int i = 0; i < PAIRS; i++) {
        glcollide_scene *scene = NULL;
        ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
        glcollide_mesh *a = NULL, *b = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 32, 16, &a), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_generate_sphere(0.3, 32, 16, &b), GLCOLLIDE_OK);
        double qa[4], qb[4], c[3], n2 = 0, t0[3] = {0, 0, 0}, t[3];
        test_rng_quaternion(&rng, qa);
        test_rng_quaternion(&rng, qb);
        do {
            n2 = 0;
            for (int k = 0; k < 3; k++) {
                c[k] = test_rng_uniform(&rng, -1, 1);
                n2 += c[k] * c[k];
            }
        } while (n2 < 0.1 || n2 > 1);
        double overlap = test_rng_uniform(&rng, 0.02, 0.1);
        for (int k = 0; k < 3; k++) {
            c[k] /= sqrt(n2);
            t[k] = c[k] * (0.8 - overlap);
        }
        test_scene_add_object(scene, test_scene_add_mesh(scene, a), t0, qa);
        test_scene_add_object(scene, test_scene_add_mesh(scene, b), t, qb);
        glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
        options.resolution = 96;
        options.margin = 0.02;
        options.check_solids = 0;
        for (int refine = 0; refine < 2; refine++) {
            options.refine = refine;
            glcollide_myszkowski_map map;
            ck_assert_int_eq(glcollide_myszkowski_distance_map(tester, scene, 0, 1, &options, &map),
                             GLCOLLIDE_OK);
            ck_assert_int_eq(map.refined, refine);
            double cosine =
                fabs(map.direction[0] * c[0] + map.direction[1] * c[1] + map.direction[2] * c[2]);
            double angle = acos(fmin(1.0, cosine)) * 180 / PI;
            if (refine) {
                TEST_REQUIRE(angle < 10,
                             "pair %d: refined direction %g degrees off the centre line", i, angle);
                angle_refined += angle / PAIRS;
            } else {
                angle_initial += angle / PAIRS;
            }
            check_map(scene, &map, &checks[refine], refine ? "refined" : "initial");
            TEST_REQUIRE(checks[refine].coverage_mismatch == 0 && checks[refine].beyond == 0,
                         "pair %d: map disagrees with ray casting", i);
            glcollide_myszkowski_map_clear(&map);
        }
        /* The test's answer does not depend on the refinement. */
        glcollide_myszkowski_result plain = run(scene, 96, 0), refined;
        options.refine = 1;
        ck_assert_int_eq(glcollide_myszkowski_test(tester, scene, 0, 1, &options, &refined),
                         GLCOLLIDE_OK);
        ck_assert_int_eq(plain.interference, 1);
        ck_assert_int_eq(refined.interference, 1);
        ck_assert_int_eq(refined.refined, 1);
        TEST_REQUIRE(refined.stats.draw_calls <= 17 && refined.stats.gpu_syncs <= 5,
                     "refined test: %llu draw calls, %llu syncs",
                     (unsigned long long)refined.stats.draw_calls,
                     (unsigned long long)refined.stats.gpu_syncs);
        glcollide_scene_destroy(&scene);
    }
    printf(
        "myszkowski refinement on %d sphere pairs: direction off the centre line by %.1f degrees "
        "(initial guess) and %.2f (refined); map error RMS %.2f / %.2f depth steps, max %.1f / "
        "%.1f (initial / refined)\n",
        PAIRS, angle_initial, angle_refined,
        sqrt(checks[0].sum_sq_steps / fmax(1, checks[0].compared)),
        sqrt(checks[1].sum_sq_steps / fmax(1, checks[1].compared)), checks[0].worst_steps,
        checks[1].worst_steps);
}
END_TEST

/* ------------------------------------------------------------ analytic cases */

/* Boxes and containment: the passes the paper predicts. */
START_TEST(test_boxes)
{
    setup();
    const double q[4] = {1, 0, 0, 0};
    for (int c = 0; c < 4; c++) {
        glcollide_scene *scene = NULL;
        ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
        glcollide_mesh *big = NULL, *small = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_box(1, 1, 1, &big), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_generate_box(0.25, 0.25, 0.25, &small), GLCOLLIDE_OK);
        /* 0: apart (gap 0.1 along x), 1: crossing, 2: small inside big,
         * 3: turned 45 degrees about z off the big box's edge: boxes
         * overlap, solids 0.1 apart */
        const double places[4][3] = {
            {1.35, 0, 0}, {1.1, 0.2, 0.3}, {0.2, -0.3, 0.1}, {1.25, 1.25, 0}};
        const double t0[3] = {0, 0, 0}, turned[4] = {0.92387953251, 0, 0, 0.38268343236};
        test_scene_add_object(scene, test_scene_add_mesh(scene, big), t0, q);
        test_scene_add_object(scene, test_scene_add_mesh(scene, small), places[c],
                              c == 3 ? turned : q);
        glcollide_myszkowski_result found = run(scene, 128, 1);
        ck_assert_int_eq(found.interference, exact_touch(scene, 0));
        ck_assert_int_eq(found.interference, c == 1 || c == 2);
        ck_assert_uint_eq(found.concave_pixels, 0); /* boxes are convex in every direction */
        ck_assert_uint_eq(found.not_pi_convex, 0);
        glcollide_scene_destroy(&scene);
    }
}
END_TEST

/* A sphere in a torus's hole touches nothing; moved into the tube it
 * interferes. The convex sphere is drawn as A, so no pixel needs the lists
 * even seen side-on (4 torus surfaces per ray); the lists are exercised by
 * test_deep_stack and the random pairs. */
START_TEST(test_torus_hole)
{
    setup();
    const double q[4] = {1, 0, 0, 0}, t0[3] = {0, 0, 0};
    for (int c = 0; c < 3; c++) {
        glcollide_scene *scene = NULL;
        ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
        glcollide_mesh *torus = NULL, *sphere = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_torus(1, 0.3, 48, 16, &torus), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 24, 12, &sphere), GLCOLLIDE_OK);
        const double places[3][3] = {{0, 0, 0.0}, {0.4, 0, 0.2}, {0.9, 0, 0.5}};
        test_scene_add_object(scene, test_scene_add_mesh(scene, torus), t0, q);
        test_scene_add_object(scene, test_scene_add_mesh(scene, sphere), places[c], q);
        glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
        options.resolution = 256;
        options.full_map = 1;
        const double along[3][3] = {{0, 0, 1}, {0, 0, 1}, {1, 0, 0}};
        memcpy(options.direction, along[c], sizeof options.direction);
        glcollide_myszkowski_result found;
        ck_assert_int_eq(glcollide_myszkowski_test(tester, scene, 0, 1, &options, &found),
                         GLCOLLIDE_OK);
        int exact = exact_touch(scene, 0);
        printf("torus/sphere %d: exact %d, found %d, passes %d, concave pixels %llu, not "
               "pi-convex %llu, A is %s\n",
               c, exact, found.interference, found.passes, (unsigned long long)found.concave_pixels,
               (unsigned long long)found.not_pi_convex, found.swapped ? "the sphere" : "the torus");
        ck_assert_int_eq(found.interference, exact);
        ck_assert_int_eq(exact, c != 0);
        /* The sphere is convex, so it is A: passes 1 and 2 decide every
         * pixel, though the torus has 4 surfaces on many rays (section 5). */
        ck_assert_int_eq(found.swapped, 1);
        ck_assert_int_le(found.passes, 2);
        ck_assert_uint_eq(found.concave_pixels, 0);
        ck_assert_uint_eq(found.not_pi_convex, 0);
        glcollide_scene_destroy(&scene);
    }
}
END_TEST

/* One closed mesh of n boxes of half sizes (half_xy, half_xy, half_z)
 * stacked along z, pitch apart from z = 0 (disjoint). */
static glcollide_mesh *plate_stack(int n, double pitch, double half_xy, double half_z)
{
    glcollide_mesh *plate = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(half_xy, half_xy, half_z, &plate), GLCOLLIDE_OK);
    size_t nv = plate->vertex_count, nt = plate->triangle_count;
    double *positions = malloc((size_t)n * nv * 3 * sizeof(double));
    uint32_t *triangles = malloc((size_t)n * nt * 3 * sizeof(uint32_t));
    ck_assert(positions && triangles);
    for (int k = 0; k < n; k++) {
        for (size_t i = 0; i < nv; i++) {
            positions[3 * (k * nv + i)] = plate->positions[3 * i];
            positions[3 * (k * nv + i) + 1] = plate->positions[3 * i + 1];
            positions[3 * (k * nv + i) + 2] = plate->positions[3 * i + 2] + pitch * k;
        }
        for (size_t i = 0; i < 3 * nt; i++)
            triangles[3 * k * nt + i] = (uint32_t)(k * nv + plate->triangles[i]);
    }
    glcollide_mesh *stack = NULL;
    ck_assert_int_eq(glcollide_mesh_create(positions, (size_t)n * nv, triangles, (size_t)n * nt,
                                           "plate stack", &stack),
                     GLCOLLIDE_OK);
    free(positions);
    free(triangles);
    glcollide_mesh_destroy(&plate);
    return stack;
}

/* More surfaces than the 7-bit stencil counter holds: 80 plates (160
 * surfaces per ray) between the two boxes of one solid A (one far in front,
 * so that A is the nearer object and is drawn first; one just behind the
 * last plate), seen along z. B's count in front of A's Zmax saturates at
 * 127, those pixels go to the lists (up to 256 surfaces), which decide
 * exactly: 0.002 apart, and 0.002 into the last plate. */
START_TEST(test_deep_stack)
{
    setup();
    const double q[4] = {1, 0, 0, 0}, t0[3] = {0, 0, 0};
    for (int c = 0; c < 2; c++) {
        glcollide_scene *scene = NULL;
        ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
        enum { PLATES = 80 };
        double pitch = 0.02, last = pitch * (PLATES - 1) + 0.005; /* far face of the last plate */
        double back = last + 0.003 + (c ? -0.002 : 0.002);        /* centre of A's back box */
        test_scene_add_object(
            scene, test_scene_add_mesh(scene, plate_stack(PLATES, pitch, 0.5, 0.005)), t0, q);
        const double t[3] = {0.1, 0.1, -1.0};
        test_scene_add_object(
            scene, test_scene_add_mesh(scene, plate_stack(2, back + 1.0, 0.2, 0.003)), t, q);
        ck_assert_int_eq(glcollide_mesh_require_solid(scene->meshes[0], NULL), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_require_solid(scene->meshes[1], NULL), GLCOLLIDE_OK);
        glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
        options.resolution = 64;
        options.full_map = 1;
        options.direction[2] = 1;
        glcollide_myszkowski_result found;
        ck_assert_int_eq(glcollide_myszkowski_test(tester, scene, 0, 1, &options, &found),
                         GLCOLLIDE_OK);
        int exact = exact_touch(scene, 0);
        printf("deep stack %d: exact %d, found %d, passes %d, A is the %s, concave pixels %llu, "
               "unresolved %llu\n",
               c, exact, found.interference, found.passes, found.swapped ? "two boxes" : "stack",
               (unsigned long long)found.concave_pixels,
               (unsigned long long)found.unresolved_pixels);
        ck_assert_int_eq(exact, c);
        ck_assert_int_eq(found.interference, exact);
        ck_assert_int_eq(found.swapped, 1);
        ck_assert_int_eq(found.passes, 3);
        ck_assert_uint_eq(found.unresolved_pixels, 0);
        ck_assert_uint_gt(found.concave_pixels, 0);
        glcollide_scene_destroy(&scene);
    }
}
END_TEST

/* ------------------------------------------------------------ errors, cost, query */

/* Object 0 a closed box at the origin, object 1 the same box without its
 * last two triangles ("open box"), 0.3 along x: the errors' scene. */
static glcollide_scene *box_and_open_box(void)
{
    glcollide_scene *scene = NULL;
    ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *box = NULL, *open = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.5, 0.5, &box), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_create(box->positions, box->vertex_count, box->triangles,
                                           box->triangle_count - 2, "open box", &open),
                     GLCOLLIDE_OK);
    const double q[4] = {1, 0, 0, 0}, t0[3] = {0, 0, 0}, t1[3] = {0.3, 0, 0};
    test_scene_add_object(scene, test_scene_add_mesh(scene, box), t0, q);
    test_scene_add_object(scene, test_scene_add_mesh(scene, open), t1, q);
    return scene;
}

START_TEST(test_errors)
{
    setup();
    glcollide_scene *scene = box_and_open_box();
    glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
    glcollide_myszkowski_result result;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    int status = glcollide_myszkowski_test(tester, scene, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "myszkowski: object 1 (open box) is not a closed solid: 4 boundary, 0 "
                       "non-manifold, 0 misoriented edges, 0 degenerate triangles, signed volume "
                       "0.833333");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(tester, scene, 0, 0, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: objects 0 and 0: need two distinct objects of 2");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(tester, scene, 0, 7, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: objects 0 and 7: need two distinct objects of 2");
    options.resolution = 8;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(tester, scene, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: resolution 8 outside 16..4096");
    options = glcollide_myszkowski_default_options();
    options.direction[1] = NAN;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(tester, scene, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: direction must be finite");
    options = glcollide_myszkowski_default_options();
    options.margin = -1;
    glcollide_myszkowski_map map;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_distance_map(tester, scene, 0, 1, &options, &map);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: margin must be finite and >= 0, got -1");
    ck_assert_ptr_null(map.distance);
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(NULL, scene, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: tester, scene or options is NULL");
    status = glcollide_myszkowski_create(NULL, NULL);
    ck_assert_int_eq(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    test_log_capture_stop();
    /* Non-finite coordinates (a deforming mesh rewritten in place). */
    scene->meshes[0]->positions[4] = INFINITY;
    options = glcollide_myszkowski_default_options();
    options.check_solids = 0;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(tester, scene, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "myszkowski: object 0 (box) has non-finite coordinates");
    test_log_capture_stop();
    glcollide_scene_destroy(&scene);
    /* An empty mesh interferes with nothing, and is no error. */
    ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *empty = NULL, *cube = NULL;
    ck_assert_int_eq(glcollide_mesh_create(NULL, 0, NULL, 0, "empty", &empty), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.5, 0.5, &cube), GLCOLLIDE_OK);
    const double q[4] = {1, 0, 0, 0}, t0[3] = {0, 0, 0};
    test_scene_add_object(scene, test_scene_add_mesh(scene, empty), t0, q);
    test_scene_add_object(scene, test_scene_add_mesh(scene, cube), t0, q);
    options = glcollide_myszkowski_default_options();
    options.check_solids = 0;
    ck_assert_int_eq(glcollide_myszkowski_test(tester, scene, 0, 1, &options, &result),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(result.interference, 0);
    ck_assert_int_eq(result.passes, 0);
    glcollide_scene_destroy(&scene);
    glcollide_myszkowski_destroy(NULL);
}
END_TEST

/* Method convex as a query: the same pairs as the exact oracle on a row of
 * spheres and a knot threaded through a torus; draw calls and syncs per
 * candidate pair bounded. */
START_TEST(test_query)
{
    setup();
    glcollide_scene *scene = NULL;
    ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *sphere = NULL, *torus = NULL, *knot = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 16, 10, &sphere), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_torus(1, 0.25, 48, 12, &torus), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_knot(2, 3, 0.8, 0.15, 120, 8, &knot), GLCOLLIDE_OK);
    uint32_t ms = test_scene_add_mesh(scene, sphere), mt = test_scene_add_mesh(scene, torus),
             mk = test_scene_add_mesh(scene, knot);
    const double q[4] = {1, 0, 0, 0}, tilted[4] = {0.9238795, 0.3826834, 0, 0};
    for (int i = 0; i < 6; i++) {
        double t[3] = {0.95 * i, 5, 0};
        test_scene_add_object(scene, ms, t, q);
    }
    const double tt[3] = {0, -3, 0}, tk[3] = {0.2, -3, 0.1}, tk2[3] = {5, -3, 0},
                 tt2[3] = {5, -3.4, 1.6};
    test_scene_add_object(scene, mt, tt, tilted);
    test_scene_add_object(scene, mk, tk, q);
    test_scene_add_object(scene, mk, tk2, q);
    test_scene_add_object(scene, mt, tt2, q); /* boxes overlap, solids do not */
    glcollide_query_options options = glcollide_query_default_options();
    glcollide_query_result exact, convex;
    ck_assert_int_eq(glcollide_query_run(scene, NULL, &options, &exact), GLCOLLIDE_OK);
    options.method = GLCOLLIDE_METHOD_CONVEX;
    options.resolution = 256;
    ck_assert_int_eq(glcollide_query_run(scene, context, &options, &convex), GLCOLLIDE_OK);
    printf("convex query: %zu pairs (exact %zu), %llu candidates, %llu draw calls, %llu syncs, "
           "%.1f ms\n",
           convex.pair_count, exact.pair_count, (unsigned long long)convex.stats.candidates,
           (unsigned long long)convex.stats.draw_calls, (unsigned long long)convex.stats.gpu_syncs,
           convex.stats.time_ms);
    ck_assert_uint_eq(convex.pair_count, exact.pair_count);
    for (size_t k = 0; k < exact.pair_count; k++)
        ck_assert(exact.pairs[k].a == convex.pairs[k].a && exact.pairs[k].b == convex.pairs[k].b);
    ck_assert_uint_eq(convex.stats.candidates, convex.stats.aabb_pairs);
    ck_assert_uint_le(convex.stats.draw_calls, 12 * convex.stats.candidates);
    ck_assert_uint_le(convex.stats.gpu_syncs, 4 * convex.stats.candidates);
    glcollide_query_result_clear(&exact);
    glcollide_query_result_clear(&convex);
    /* No context, a distance: clear errors. */
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    int status = glcollide_query_run(scene, NULL, &options, &convex);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "query: method 'convex' runs on the GPU and needs a context");
    options.distance = 0.1;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_query_run(scene, context, &options, &convex);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "query: method 'convex' answers interference only (no --distance)");
    test_log_capture_stop();
    glcollide_scene_destroy(&scene);
}
END_TEST

/* Method convex on 40 random scenes of 3 to 6 generated solids (seeds
 * 0x5CE70000 + i) at 256^2: the same pairs as the exact oracle, except
 * misses (counted) and extra pairs, which must be closer than 1e-3 (the
 * tolerance here is about 1e-4). */
START_TEST(test_query_scenes)
{
    setup();
    size_t exact_pairs = 0, missed = 0, extra = 0, candidates = 0, draws = 0, syncs = 0;
    for (int i = 0; i < 40; i++) {
        test_rng rng = {0x5CE70000u + (uint64_t)i};
        glcollide_scene *scene = NULL;
        ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
        int n = 3 + (int)test_rng_below(&rng, 4);
        for (int k = 0; k < n; k++) {
            int kind = (int)test_rng_below(&rng, SHAPE_REAL);
            uint32_t m = test_scene_add_mesh(
                scene, make_shape(&rng, kind, test_rng_uniform(&rng, 0.5, 1), 0));
            double q[4], t[3];
            test_rng_quaternion(&rng, q);
            for (int c = 0; c < 3; c++)
                t[c] = test_rng_uniform(&rng, 0, 1.5);
            test_scene_add_object(scene, m, t, q);
        }
        glcollide_query_options options = glcollide_query_default_options();
        glcollide_query_result exact, near, convex;
        ck_assert_int_eq(glcollide_query_run(scene, NULL, &options, &exact), GLCOLLIDE_OK);
        options.distance = 1e-3;
        ck_assert_int_eq(glcollide_query_run(scene, NULL, &options, &near), GLCOLLIDE_OK);
        options = glcollide_query_default_options();
        options.method = GLCOLLIDE_METHOD_CONVEX;
        options.resolution = 256;
        ck_assert_int_eq(glcollide_query_run(scene, context, &options, &convex), GLCOLLIDE_OK);
        for (size_t k = 0; k < exact.pair_count; k++)
            missed += !bsearch(&exact.pairs[k], convex.pairs, convex.pair_count,
                               sizeof *convex.pairs, glcollide_object_pair_compare);
        for (size_t k = 0; k < convex.pair_count; k++) {
            int is_exact = bsearch(&convex.pairs[k], exact.pairs, exact.pair_count,
                                   sizeof *exact.pairs, glcollide_object_pair_compare) != NULL;
            extra += !is_exact;
            TEST_REQUIRE(is_exact || bsearch(&convex.pairs[k], near.pairs, near.pair_count,
                                             sizeof *near.pairs, glcollide_object_pair_compare),
                         "scene %d: pair %u %u reported, farther apart than 1e-3", i,
                         convex.pairs[k].a, convex.pairs[k].b);
        }
        TEST_REQUIRE(convex.stats.draw_calls <= 12 * convex.stats.candidates &&
                         convex.stats.gpu_syncs <= 4 * convex.stats.candidates,
                     "scene %d: %llu draw calls, %llu syncs for %llu pairs", i,
                     (unsigned long long)convex.stats.draw_calls,
                     (unsigned long long)convex.stats.gpu_syncs,
                     (unsigned long long)convex.stats.candidates);
        exact_pairs += exact.pair_count;
        candidates += convex.stats.candidates;
        draws += convex.stats.draw_calls;
        syncs += convex.stats.gpu_syncs;
        glcollide_query_result_clear(&exact);
        glcollide_query_result_clear(&near);
        glcollide_query_result_clear(&convex);
        glcollide_scene_destroy(&scene);
    }
    printf("convex query on 40 random scenes at 256^2: %zu exact pairs, %zu missed, %zu extra "
           "(closer than 1e-3); %zu pairs tested, %zu draw calls, %zu syncs\n",
           exact_pairs, missed, extra, candidates, draws, syncs);
    ck_assert_uint_gt(exact_pairs, 20);
}
END_TEST

/* Every entry point leaves the GL state as it found it: defaults in the
 * owned context, and a caller's odd state in a wrapped one (all passes,
 * lists, refinement and the map run). */
START_TEST(test_gl_state)
{
    setup();
    glcollide_scene *scene = NULL;
    ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *torus = NULL, *sphere = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_torus(1, 0.3, 32, 12, &torus), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 16, 8, &sphere), GLCOLLIDE_OK);
    const double q[4] = {1, 0, 0, 0}, t0[3] = {0, 0, 0}, t1[3] = {0.9, 0, 0.5};
    test_scene_add_object(scene, test_scene_add_mesh(scene, torus), t0, q);
    test_scene_add_object(scene, test_scene_add_mesh(scene, sphere), t1, q);
    glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
    options.resolution = 64;
    options.full_map = 1;
    options.refine = 1;
    options.margin = 0.05;
    for (int wrapped = 0; wrapped < 2; wrapped++) {
        glcollide_context *caller = NULL;
        glcollide_myszkowski *own = tester;
        GLuint buffer = 0;
        if (wrapped) {
            ck_assert_int_eq(glcollide_context_make_current(context), GLCOLLIDE_OK);
            glGenBuffers(1, &buffer);
            glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer);
            glBufferData(GL_SHADER_STORAGE_BUFFER, 64, NULL, GL_STATIC_DRAW);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, buffer);
            glViewport(1, 2, 30, 40);
            glEnable(GL_DEPTH_TEST);
            glEnable(GL_STENCIL_TEST);
            glDepthFunc(GL_GEQUAL);
            glFrontFace(GL_CW);
            glStencilMask(0x0f);
            glStencilOpSeparate(GL_FRONT, GL_INCR, GL_DECR, GL_INVERT);
            ck_assert_int_eq(glcollide_context_wrap_current(&caller), GLCOLLIDE_OK);
            own = NULL;
            ck_assert_int_eq(glcollide_myszkowski_create(caller, &own), GLCOLLIDE_OK);
        }
        glcollide_gl_state before, after;
        glcollide_gl_state_save(&before);
        glcollide_myszkowski_result result;
        glcollide_myszkowski_map map;
        ck_assert_int_eq(glcollide_myszkowski_test(own, scene, 0, 1, &options, &result),
                         GLCOLLIDE_OK);
        ck_assert_int_eq(result.interference, 1);
        ck_assert_int_eq(glcollide_myszkowski_distance_map(own, scene, 0, 1, &options, &map),
                         GLCOLLIDE_OK);
        glcollide_myszkowski_map_clear(&map);
        glcollide_gl_state_save(&after);
        ck_assert_int_eq(glGetError(), GL_NO_ERROR);
        ck_assert_msg(memcmp(&before, &after, sizeof before) == 0,
                      "the GL state changed (%s context)", wrapped ? "wrapped" : "owned");
        if (wrapped) {
            ck_assert_int_eq(after.viewport[2], 30);
            ck_assert_int_eq(after.front_face, GL_CW);
            ck_assert_int_eq(after.ssbo_binding[2], (GLint)buffer);
            glcollide_myszkowski_destroy(&own);
            glcollide_context_destroy(&caller);
            glDeleteBuffers(1, &buffer);
            glcollide_gl_state_reset();
            glViewport(0, 0, 1, 1);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, 0);
            glDepthFunc(GL_LESS);
            glStencilOpSeparate(GL_FRONT, GL_KEEP, GL_KEEP, GL_KEEP);
        }
    }
    glcollide_scene_destroy(&scene);
}
END_TEST

/* ------------------------------------------------------------ one shape */

/* A world of scene's meshes (borrowed) and objects; the scene's poses are
 * then set to the world's (normalised), so that both hold the same poses. */
static glcollide_world *world_of_scene(glcollide_scene *scene)
{
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    for (size_t m = 0; m < scene->mesh_count; m++)
        ck_assert_int_eq(glcollide_world_add_mesh(world, scene->meshes[m], NULL), GLCOLLIDE_OK);
    for (size_t o = 0; o < scene->object_count; o++) {
        const glcollide_object *pose = &scene->objects[o];
        ck_assert_int_eq(
            glcollide_world_add_object(world, pose->mesh, pose->translation, pose->rotation, NULL),
            GLCOLLIDE_OK);
        scene->objects[o] = *glcollide_world_object(world, (uint32_t)o);
    }
    return world;
}

/* The exact method on world (objects 0 and 1): do they touch, or come
 * within distance? */
static int world_exact(glcollide_world *world, double distance)
{
    glcollide_query_options options = glcollide_query_default_options();
    options.method = GLCOLLIDE_METHOD_EXACT;
    options.distance = distance;
    glcollide_query_result result = {0};
    ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &result), GLCOLLIDE_OK);
    int touch = result.pair_count > 0;
    glcollide_query_result_clear(&result);
    return touch;
}

/* Object 1 a shape of size 0.5 near the centre of object 0, a sphere of
 * radius 1.5 (inside it), or the other way round when swap; random poses
 * from seed, far from the world origin now and then. */
static glcollide_scene *nested_pair(uint64_t seed, int swap)
{
    test_rng rng = {seed};
    glcollide_scene *scene = NULL;
    ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *big = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(1.5, 16, 10, &big), GLCOLLIDE_OK);
    glcollide_mesh *small =
        make_shape(&rng, (int)test_rng_below(&rng, SHAPE_KINDS), 0.5, seed % 7 == 3);
    double centre[3], q[2][4], offset[2][3] = {{0, 0, 0}, {0, 0, 0}};
    double far = seed % 5 == 0 ? 1e4 : 1;
    for (int k = 0; k < 3; k++) {
        centre[k] = test_rng_uniform(&rng, -far, far);
        offset[1][k] = centre[k] + test_rng_uniform(&rng, -0.1, 0.1);
        offset[0][k] = centre[k];
    }
    test_rng_quaternion(&rng, q[0]);
    test_rng_quaternion(&rng, q[1]);
    uint32_t mesh[2] = {test_scene_add_mesh(scene, big), test_scene_add_mesh(scene, small)};
    for (int f = 0; f < 2; f++) {
        int g = swap ? 1 - f : f;
        test_scene_add_object(scene, mesh[g], offset[g], q[g]);
    }
    return scene;
}

/* A torus (tube radius 0.24 on a circle of 0.7) and a sphere of radius 0.3
 * in its hole, off centre by up to 0.1: disjoint, their boxes nested. */
static glcollide_scene *hole_pair(uint64_t seed)
{
    test_rng rng = {seed};
    glcollide_scene *scene = NULL;
    ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *torus = NULL, *ball = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_torus(0.7, 0.24, 24, 10, &torus), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.3, 16, 10, &ball), GLCOLLIDE_OK);
    double q[4], t[3], b[3];
    test_rng_quaternion(&rng, q);
    for (int k = 0; k < 3; k++) {
        t[k] = test_rng_uniform(&rng, -10, 10);
        b[k] = t[k] + test_rng_uniform(&rng, -0.05, 0.05);
    }
    test_scene_add_object(scene, test_scene_add_mesh(scene, torus), t, q);
    test_scene_add_object(scene, test_scene_add_mesh(scene, ball), b, q);
    return scene;
}

/* The scenes of the one-shape tests: kind 0 random_pair (generated and
 * real meshes, about half touching), 1 and 2 nested (containment, each
 * order), 3 disjoint with nested boxes. */
static glcollide_scene *shape_scene(int kind, uint64_t seed)
{
    int kinds[2];
    return kind == 0   ? random_pair(seed, kinds)
           : kind == 3 ? hole_pair(seed)
                       : nested_pair(seed, kind == 2);
}

static const char *const scene_kinds[4] = {"random", "nested", "nested (swapped)", "disjoint"};

static glcollide_myszkowski_options shape_options(int resolution)
{
    glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
    options.resolution = resolution;
    options.check_solids = 0; /* the meshes are closed solids as made */
    return options;
}

/* The fields of a result that describe the answer and its view. */
static void require_same_result(const glcollide_myszkowski_result *x,
                                const glcollide_myszkowski_result *y, const char *what)
{
    TEST_REQUIRE(
        x->interference == y->interference && x->passes == y->passes && x->swapped == y->swapped &&
            x->width == y->width && x->height == y->height &&
            !memcmp(x->direction, y->direction, sizeof x->direction) &&
            x->pixel_size == y->pixel_size && x->depth_range == y->depth_range &&
            x->tolerance == y->tolerance && x->covered_pixels == y->covered_pixels &&
            x->collision_pass1 == y->collision_pass1 && x->concave_pixels == y->concave_pixels &&
            x->stats.draw_calls == y->stats.draw_calls && x->stats.gpu_syncs == y->stats.gpu_syncs,
        "%s: world and scene entries differ (interference %d/%d, passes %d/%d, %dx%d / "
        "%dx%d)",
        what, x->interference, y->interference, x->passes, y->passes, x->width, x->height, y->width,
        y->height);
}

static void require_same_map(const glcollide_myszkowski_map *x, const glcollide_myszkowski_map *y,
                             const char *what)
{
    size_t pixels = (size_t)x->width * (size_t)x->height;
    TEST_REQUIRE(x->width == y->width && x->height == y->height &&
                     !memcmp(x->corner, y->corner, sizeof x->corner) &&
                     !memcmp(x->direction, y->direction, sizeof x->direction) &&
                     x->pixel_size == y->pixel_size &&
                     (!pixels || (!memcmp(x->distance, y->distance, pixels * sizeof(float)) &&
                                  !memcmp(x->coverage, y->coverage, pixels))),
                 "%s: world and scene maps differ", what);
}

/*
 * The CPU twin (no context) on 160 random pairs (seeds 0x7C150000 + i,
 * generated and real meshes, random poses), 24 nested pairs (seeds
 * 0x7C160000 + i: one solid inside the other, both orders) and 8 disjoint
 * pairs with nested boxes (seeds 0x7C170000 + i): its answer is the exact
 * world method's for the pair; the world entry and the scene entry give
 * the same result; passes and tolerance 0.
 */
START_TEST(test_cpu_twin_exact)
{
    glcollide_myszkowski *twin = NULL;
    ck_assert_int_eq(glcollide_myszkowski_create(NULL, &twin), GLCOLLIDE_OK);
    static const int counts[4] = {160, 12, 12, 8};
    static const uint64_t bases[4] = {0x7C150000u, 0x7C160000u, 0x7C160100u, 0x7C170000u};
    size_t touching[4] = {0, 0, 0, 0};
    for (int kind = 0; kind < 4; kind++)
        for (int i = 0; i < counts[kind]; i++) {
            uint64_t seed = bases[kind] + (uint64_t)i;
            glcollide_scene *scene = shape_scene(kind, seed);
            glcollide_world *world = world_of_scene(scene);
            glcollide_myszkowski_options options = shape_options(256);
            glcollide_myszkowski_result on_world, on_scene;
            ck_assert_int_eq(
                glcollide_myszkowski_test_world(twin, world, 0, 1, &options, &on_world),
                GLCOLLIDE_OK);
            ck_assert_int_eq(glcollide_myszkowski_test(twin, scene, 0, 1, &options, &on_scene),
                             GLCOLLIDE_OK);
            int exact = world_exact(world, 0);
            char what[80];
            snprintf(what, sizeof what, "%s pair, seed 0x%llx", scene_kinds[kind],
                     (unsigned long long)seed);
            TEST_REQUIRE(on_world.interference == exact, "%s: CPU twin says %d, exact %d", what,
                         on_world.interference, exact);
            require_same_result(&on_world, &on_scene, what);
            TEST_REQUIRE(on_world.passes == 0 && on_world.tolerance == 0 &&
                             on_world.stats.draw_calls == 0 && on_world.stats.gpu_syncs == 0,
                         "%s: the CPU twin ran passes", what);
            if (kind == 1 || kind == 2)
                TEST_REQUIRE(exact, "%s: not nested", what);
            if (kind == 3)
                TEST_REQUIRE(!exact && on_world.width > 0, "%s: not disjoint in nested boxes",
                             what);
            touching[kind] += (size_t)exact;
            glcollide_world_destroy(&world);
            glcollide_scene_destroy(&scene);
        }
    printf("myszkowski CPU twin: %d random pairs (%zu touching), %d nested, %d disjoint: all the "
           "exact method's answer\n",
           counts[0], touching[0], counts[1] + counts[2], counts[3]);
    ck_assert_uint_gt(touching[0], counts[0] / 5);
    ck_assert_uint_lt(touching[0], counts[0] - counts[0] / 5);
    glcollide_myszkowski_destroy(&twin);
    ck_assert_ptr_null(twin);
    for (int k = 0; k < 5; k++)
        glcollide_mesh_destroy(&real_meshes[k]);
}
END_TEST

/*
 * The CPU twin's distance map of two boxes seen along x (faces split along
 * their diagonals, which pass through pixel centres: the top-left rule must
 * count each surface once): B a gap of 0.125 beyond A, then overlapping it
 * by 0.125. Every pixel both cover has that distance (to 1e-12), B's shadow
 * is all covered, world and scene maps equal.
 */
START_TEST(test_cpu_twin_map)
{
    glcollide_myszkowski *twin = NULL;
    ck_assert_int_eq(glcollide_myszkowski_create(NULL, &twin), GLCOLLIDE_OK);
    static const double shifts[2] = {1.0, 0.75}, expected[2] = {0.125, -0.125};
    for (int c = 0; c < 2; c++) {
        glcollide_scene *scene = NULL;
        ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
        glcollide_mesh *a = NULL, *b = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.5, 0.5, &a), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_generate_box(0.375, 0.1875, 0.1875, &b), GLCOLLIDE_OK);
        const double q[4] = {1, 0, 0, 0}, ta[3] = {0, 0, 0}, tb[3] = {shifts[c], 0, 0};
        test_scene_add_object(scene, test_scene_add_mesh(scene, a), ta, q);
        test_scene_add_object(scene, test_scene_add_mesh(scene, b), tb, q);
        glcollide_world *world = world_of_scene(scene);
        /* The window is B's shadow grown by the margin, 0.5 wide: 16 pixels
         * of 1/32 inside (and one free on each side), so that pixel centres
         * lie exactly on the faces' diagonals. */
        glcollide_myszkowski_options options = shape_options(18);
        options.direction[0] = 1;
        options.margin = 0.0625;
        glcollide_myszkowski_map map, on_scene;
        ck_assert_int_eq(glcollide_myszkowski_distance_map_world(twin, world, 0, 1, &options, &map),
                         GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_myszkowski_distance_map(twin, scene, 0, 1, &options, &on_scene),
                         GLCOLLIDE_OK);
        require_same_map(&map, &on_scene, "boxes");
        ck_assert_int_gt(map.width, 0);
        size_t both = 0, shadow = 0;
        for (int y = 0; y < map.height; y++)
            for (int x = 0; x < map.width; x++) {
                size_t p = (size_t)y * map.width + x;
                double u = (x + 0.5) * map.pixel_size, v = (y + 0.5) * map.pixel_size, centre[3];
                for (int k = 0; k < 3; k++)
                    centre[k] = map.corner[k] + u * map.axis_u[k] + v * map.axis_v[k];
                int in_b = fabs(centre[1]) < 0.1875 && fabs(centre[2]) < 0.1875;
                shadow += (size_t)in_b;
                if (map.coverage[p] == 3) {
                    both++;
                    ck_assert_msg(fabs(map.distance[p] - expected[c]) < 1e-12,
                                  "pixel %d %d: distance %.17g, expected %g", x, y, map.distance[p],
                                  expected[c]);
                } else {
                    ck_assert_msg(!in_b, "pixel %d %d in B's shadow: coverage %d", x, y,
                                  map.coverage[p]);
                    ck_assert(isnan(map.distance[p]));
                }
            }
        ck_assert_uint_ge(both, shadow);
        ck_assert_int_eq(map.width, 18);
        ck_assert_double_eq(map.pixel_size, 1.0 / 32);
        ck_assert_uint_eq(shadow, 144); /* 12 x 12 centres strictly inside */
        ck_assert_double_eq_tol(map.min_distance, expected[c], 1e-12);
        glcollide_myszkowski_map_clear(&map);
        glcollide_myszkowski_map_clear(&on_scene);
        glcollide_world_destroy(&world);
        glcollide_scene_destroy(&scene);
    }
    glcollide_myszkowski_destroy(&twin);
}
END_TEST

/* The world entries' refusals, one message each, with result and map
 * emptied and the tester still usable (CPU twin; the GPU's checks are the
 * same code). */
START_TEST(test_world_errors)
{
    glcollide_myszkowski *twin = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    int status = glcollide_myszkowski_create(NULL, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "myszkowski: out is NULL");
    test_log_capture_stop();
    ck_assert_int_eq(glcollide_myszkowski_create(NULL, &twin), GLCOLLIDE_OK);
    glcollide_scene *scene = box_and_open_box();
    glcollide_world *world = world_of_scene(scene);
    glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
    glcollide_myszkowski_result result;
    glcollide_myszkowski_map map;
    memset(&result, 0xff, sizeof result);
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test_world(twin, world, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "myszkowski: object 1 (open box) is not a closed solid: 4 boundary, 0 "
                       "non-manifold, 0 misoriented edges, 0 degenerate triangles, signed volume "
                       "0.833333");
    ck_assert_int_eq(result.interference, 0);
    ck_assert_int_eq(result.width, 0);
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(twin, scene, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "myszkowski: object 1 (open box) is not a closed solid: 4 boundary, 0 "
                       "non-manifold, 0 misoriented edges, 0 degenerate triangles, signed volume "
                       "0.833333");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test_world(twin, world, 1, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: objects 1 and 1: need two distinct objects of 2");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test_world(twin, world, 0, 7, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: objects 0 and 7: need two distinct objects of 2");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_distance_map_world(twin, world, 9, 0, &options, &map);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: objects 9 and 0: need two distinct objects of 2");
    ck_assert_ptr_null(map.distance);
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test_world(NULL, world, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: tester, world or options is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test_world(twin, NULL, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: tester, world or options is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test_world(twin, world, 0, 1, NULL, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: tester, world or options is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test_world(twin, world, 0, 1, &options, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "myszkowski: result is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_distance_map_world(twin, world, 0, 1, &options, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "myszkowski: map is NULL");
    options.resolution = 8;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test_world(twin, world, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: resolution 8 outside 16..4096");
    test_log_capture_stop();
    /* Nothing lost: the same tester and world, without the solid check. */
    options = glcollide_myszkowski_default_options();
    options.check_solids = 0;
    ck_assert_int_eq(glcollide_myszkowski_test_world(twin, world, 0, 1, &options, &result),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(result.interference, 1);
    ck_assert_int_eq(glcollide_myszkowski_distance_map_world(twin, world, 0, 1, &options, &map),
                     GLCOLLIDE_OK);
    ck_assert_int_gt(map.width, 0);
    glcollide_myszkowski_map_clear(&map);
    glcollide_world_destroy(&world);
    glcollide_scene_destroy(&scene);
    glcollide_myszkowski_destroy(&twin);
    glcollide_myszkowski_destroy(&twin); /* NULL is fine */
}
END_TEST

/*
 * GPU, CPU twin and the exact world method on the same poses: 100 random
 * pairs (seeds 0x7C1D0000 + i, generated and real meshes), 16 nested (seeds
 * 0x7C1E0000 + i, both orders) and 8 disjoint with nested boxes (seeds
 * 0x7C1F0000 + i), at 256^2. The twin always gives the exact answer; the GPU
 * the same but where its stated limits allow (a false alarm within the
 * result's tolerance, a miss of an overlap thinner than a pixel: counted and
 * printed, at most 1 in 20), and on every nested and disjoint pair. The
 * GPU's world entry equals its scene entry.
 */
START_TEST(test_cpu_twin_gpu)
{
    setup();
    glcollide_myszkowski *twin = NULL;
    ck_assert_int_eq(glcollide_myszkowski_create(NULL, &twin), GLCOLLIDE_OK);
    static const int counts[4] = {100, 8, 8, 8};
    static const uint64_t bases[4] = {0x7C1D0000u, 0x7C1E0000u, 0x7C1E0100u, 0x7C1F0000u};
    size_t misses = 0, false_alarms = 0, touching = 0;
    for (int kind = 0; kind < 4; kind++)
        for (int i = 0; i < counts[kind]; i++) {
            uint64_t seed = bases[kind] + (uint64_t)i;
            glcollide_scene *scene = shape_scene(kind, seed);
            glcollide_world *world = world_of_scene(scene);
            glcollide_myszkowski_options options = shape_options(256);
            glcollide_myszkowski_result gpu, on_scene, cpu;
            ck_assert_int_eq(glcollide_myszkowski_test_world(tester, world, 0, 1, &options, &gpu),
                             GLCOLLIDE_OK);
            ck_assert_int_eq(glcollide_myszkowski_test(tester, scene, 0, 1, &options, &on_scene),
                             GLCOLLIDE_OK);
            ck_assert_int_eq(glcollide_myszkowski_test_world(twin, world, 0, 1, &options, &cpu),
                             GLCOLLIDE_OK);
            int exact = world_exact(world, 0);
            char what[80];
            snprintf(what, sizeof what, "%s pair, seed 0x%llx", scene_kinds[kind],
                     (unsigned long long)seed);
            require_same_result(&gpu, &on_scene, what);
            TEST_REQUIRE(cpu.interference == exact, "%s: CPU twin %d, exact %d", what,
                         cpu.interference, exact);
            TEST_REQUIRE(!memcmp(cpu.direction, gpu.direction, sizeof cpu.direction) &&
                             cpu.width == gpu.width && cpu.height == gpu.height,
                         "%s: the CPU twin's view is not the GPU's", what);
            touching += (size_t)exact;
            if (gpu.interference != exact) {
                TEST_REQUIRE(kind == 0, "%s: GPU %d, CPU twin and exact %d", what, gpu.interference,
                             exact);
                if (gpu.interference) {
                    TEST_REQUIRE(world_exact(world, gpu.tolerance),
                                 "%s: GPU reports interference beyond its tolerance %g", what,
                                 gpu.tolerance);
                    false_alarms++;
                } else {
                    misses++;
                }
                printf("myszkowski GPU/CPU twin: %s: GPU %d, exact %d (tolerance %g, pixel %g)\n",
                       what, gpu.interference, exact, gpu.tolerance, gpu.pixel_size);
            }
            glcollide_world_destroy(&world);
            glcollide_scene_destroy(&scene);
        }
    printf("myszkowski GPU vs CPU twin: %d pairs (%zu touching): %zu misses (thin overlaps), %zu "
           "false alarms within the tolerance\n",
           counts[0] + counts[1] + counts[2] + counts[3], touching, misses, false_alarms);
    ck_assert_uint_le(misses, (size_t)counts[0] / 20);
    glcollide_myszkowski_destroy(&twin);
    for (int k = 0; k < 5; k++)
        glcollide_mesh_destroy(&real_meshes[k]);
}
END_TEST

/* Distance maps: the GPU's world entry equals its scene entry, and the CPU
 * twin's map has the GPU's view, equal to the CPU ray casting the GPU's
 * map is checked against (check_map), on 12 random pairs (seeds 0x7C1A0000
 * + i). */
START_TEST(test_world_maps)
{
    setup();
    glcollide_myszkowski *twin = NULL;
    ck_assert_int_eq(glcollide_myszkowski_create(NULL, &twin), GLCOLLIDE_OK);
    size_t compared = 0;
    for (int i = 0; i < 12; i++) {
        uint64_t seed = 0x7C1A0000u + (uint64_t)i;
        int kinds[2];
        glcollide_scene *scene = random_pair(seed, kinds);
        glcollide_world *world = world_of_scene(scene);
        glcollide_myszkowski_options options = shape_options(64);
        options.margin = 0.05;
        glcollide_myszkowski_map gpu, on_scene, cpu;
        ck_assert_int_eq(
            glcollide_myszkowski_distance_map_world(tester, world, 0, 1, &options, &gpu),
            GLCOLLIDE_OK);
        ck_assert_int_eq(
            glcollide_myszkowski_distance_map(tester, scene, 0, 1, &options, &on_scene),
            GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_myszkowski_distance_map_world(twin, world, 0, 1, &options, &cpu),
                         GLCOLLIDE_OK);
        char what[64];
        snprintf(what, sizeof what, "seed 0x%llx", (unsigned long long)seed);
        require_same_map(&gpu, &on_scene, what);
        TEST_REQUIRE(cpu.width == gpu.width && cpu.height == gpu.height &&
                         !memcmp(cpu.corner, gpu.corner, sizeof cpu.corner) &&
                         !memcmp(cpu.direction, gpu.direction, sizeof cpu.direction) &&
                         cpu.pixel_size == gpu.pixel_size,
                     "%s: the CPU twin's map has another view", what);
        if (gpu.width) {
            map_check check = {0};
            check_map(scene, &cpu, &check, what);
            /* The same rays; distances rounded to float (|d| <= depth_range). */
            TEST_REQUIRE(check.coverage_mismatch == 0 && check.ambiguous == 0 &&
                             check.worst_steps <= 1,
                         "%s: the CPU twin's map is not the ray casting's (%zu coverage "
                         "mismatches, %zu ambiguous, %g depth steps)",
                         what, check.coverage_mismatch, check.ambiguous, check.worst_steps);
            memset(&check, 0, sizeof check);
            check_map(scene, &gpu, &check, what);
            TEST_REQUIRE(check.coverage_mismatch == 0 && check.beyond == 0,
                         "%s: GPU map beyond its bound of the CPU twin's", what);
            compared += check.compared;
        }
        glcollide_myszkowski_map_clear(&gpu);
        glcollide_myszkowski_map_clear(&on_scene);
        glcollide_myszkowski_map_clear(&cpu);
        glcollide_world_destroy(&world);
        glcollide_scene_destroy(&scene);
    }
    ck_assert_uint_gt(compared, 1000);
    glcollide_myszkowski_destroy(&twin);
    for (int k = 0; k < 5; k++)
        glcollide_mesh_destroy(&real_meshes[k]);
}
END_TEST

Suite *suite_myszkowski(void)
{
    Suite *suite = suite_create("myszkowski");
    TCase *tc = tcase_create("myszkowski");
    tcase_set_timeout(tc, 900);
    tcase_add_unchecked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_gl_state);
    tcase_add_test(tc, test_boxes);
    tcase_add_test(tc, test_torus_hole);
    tcase_add_test(tc, test_deep_stack);
    tcase_add_test(tc, test_query);
    tcase_add_test(tc, test_query_scenes);
    tcase_add_test(tc, test_guarantee);
    tcase_add_test(tc, test_distance_map);
    tcase_add_test(tc, test_refine);
    tcase_add_test(tc, test_random_pairs);
    tcase_add_test(tc, test_cpu_twin_gpu);
    tcase_add_test(tc, test_world_maps);
    suite_add_tcase(suite, tc);
    return suite;
}

/* The CPU twin and the world entries without GL, in tests/glcollide-tests. */
Suite *suite_myszkowski_cpu(void)
{
    Suite *suite = suite_create("myszkowski_cpu");
    TCase *tc = tcase_create("one shape");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_world_errors);
    tcase_add_test(tc, test_cpu_twin_map);
    tcase_add_test(tc, test_cpu_twin_exact);
    suite_add_tcase(suite, tc);
    return suite;
}
