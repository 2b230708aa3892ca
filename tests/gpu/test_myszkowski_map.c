/* SPDX-License-Identifier: MIT */
/*
 * Myszkowski's distance map against CPU ray casting through the same pixel
 * centres (within a per-pixel bound derived from float precision), the
 * refined direction, and the GPU beside the CPU twin and the exact world
 * method on the same poses; the world entries beside the scene entries.
 */
#include "helpers/myszkowski_pairs.h"
#include "helpers/tests.h"
#include "methods/myszkowski_rays.h" /* white box: the CPU ray casting of the maps */

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ distance map */

typedef struct map_check {
    size_t pixels, compared, ambiguous, coverage_mismatch, beyond;
    double worst_steps, sum_sq_steps, worst_ratio;
} map_check;

/* Ray casts every pixel centre of map through objects 0 and 1 of scene
 * (the library's CPU ray casting, the CPU twin's map) and compares coverage
 * and distance. */
static void check_map(const test_scene *scene, const glcollide_myszkowski_map *map,
                      map_check *out, const char *what)
{
    double *world[2];
    const glcollide_mesh *mesh[2];
    for (int f = 0; f < 2; f++) {
        mesh[f] = scene->meshes[scene->objects[f].mesh];
        world[f] = malloc(3 * mesh[f]->vertex_count * sizeof(double) + 1);
        ck_assert_ptr_nonnull(world[f]);
        glcollide_pose_transform_points(&scene->objects[f].pose, mesh[f]->positions,
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
        test_scene *scene = random_pair(seed, kinds);
        glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
        options.resolution = i % 2 ? 96 : 64;
        options.check_solids = 0;
        options.margin = 0.05;
        glcollide_myszkowski_map map;
        ck_assert_int_eq(scene_myszkowski_map(tester, scene, 0, 1, &options, &map),
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
        scene_destroy(&scene);
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
        test_scene *scene = NULL;
        ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
            ck_assert_int_eq(scene_myszkowski_map(tester, scene, 0, 1, &options, &map),
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
        ck_assert_int_eq(scene_myszkowski_test(tester, scene, 0, 1, &options, &refined),
                         GLCOLLIDE_OK);
        ck_assert_int_eq(plain.interference, 1);
        ck_assert_int_eq(refined.interference, 1);
        ck_assert_int_eq(refined.refined, 1);
        TEST_REQUIRE(refined.stats.draw_calls <= 17 && refined.stats.gpu_syncs <= 5,
                     "refined test: %llu draw calls, %llu syncs",
                     (unsigned long long)refined.stats.draw_calls,
                     (unsigned long long)refined.stats.gpu_syncs);
        scene_destroy(&scene);
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
            test_scene *scene = shape_scene(kind, seed);
            glcollide_world *world = world_of_scene(scene);
            glcollide_myszkowski_options options = shape_options(256);
            glcollide_myszkowski_result gpu, on_scene, cpu;
            ck_assert_int_eq(glcollide_myszkowski_test(tester, world, 0, 1, &options, &gpu),
                             GLCOLLIDE_OK);
            ck_assert_int_eq(scene_myszkowski_test(tester, scene, 0, 1, &options, &on_scene),
                             GLCOLLIDE_OK);
            ck_assert_int_eq(glcollide_myszkowski_test(twin, world, 0, 1, &options, &cpu),
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
            scene_destroy(&scene);
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
        test_scene *scene = random_pair(seed, kinds);
        glcollide_world *world = world_of_scene(scene);
        glcollide_myszkowski_options options = shape_options(64);
        options.margin = 0.05;
        glcollide_myszkowski_map gpu, on_scene, cpu;
        ck_assert_int_eq(
            glcollide_myszkowski_distance_map(tester, world, 0, 1, &options, &gpu),
            GLCOLLIDE_OK);
        ck_assert_int_eq(
            scene_myszkowski_map(tester, scene, 0, 1, &options, &on_scene),
            GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_myszkowski_distance_map(twin, world, 0, 1, &options, &cpu),
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
        scene_destroy(&scene);
    }
    ck_assert_uint_gt(compared, 1000);
    glcollide_myszkowski_destroy(&twin);
    for (int k = 0; k < 5; k++)
        glcollide_mesh_destroy(&real_meshes[k]);
}

Suite *suite_myszkowski_map(void)
{
    Suite *suite = suite_create("myszkowski");
    TCase *tc = tcase_create("myszkowski");
    tcase_set_timeout(tc, 900);
    tcase_add_unchecked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, test_distance_map);
    tcase_add_test(tc, test_refine);
    tcase_add_test(tc, test_cpu_twin_gpu);
    tcase_add_test(tc, test_world_maps);
    suite_add_tcase(suite, tc);
    return suite;
}
