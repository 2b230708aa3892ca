/* SPDX-License-Identifier: MIT */
/*
 * Myszkowski's CPU twin (a tester made without a context) and the world
 * entries without GL: the exact world method's answer on random, nested
 * and disjoint pairs, its distance map on two boxes, and the world entries'
 * refusals. In tests/glcollide-tests; the GPU beside it is in
 * tests/gpu/test_myszkowski_map.c.
 */
#include "helpers/myszkowski_pairs.h"
#include "helpers/tests.h"

#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
            test_scene *scene = shape_scene(kind, seed);
            glcollide_world *world = world_of_scene(scene);
            glcollide_myszkowski_options options = shape_options(256);
            glcollide_myszkowski_result on_world, on_scene;
            ck_assert_int_eq(
                glcollide_myszkowski_test(twin, world, 0, 1, &options, &on_world),
                GLCOLLIDE_OK);
            ck_assert_int_eq(scene_myszkowski_test(twin, scene, 0, 1, &options, &on_scene),
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
            scene_destroy(&scene);
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
        test_scene *scene = NULL;
        ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
        ck_assert_int_eq(glcollide_myszkowski_distance_map(twin, world, 0, 1, &options, &map),
                         GLCOLLIDE_OK);
        ck_assert_int_eq(scene_myszkowski_map(twin, scene, 0, 1, &options, &on_scene),
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
        scene_destroy(&scene);
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
    test_scene *scene = box_and_open_box();
    glcollide_world *world = world_of_scene(scene);
    glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
    glcollide_myszkowski_result result;
    glcollide_myszkowski_map map;
    memset(&result, 0xff, sizeof result);
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(twin, world, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "myszkowski: object 1 (open box) is not a closed solid: 4 boundary, 0 "
                       "non-manifold, 0 misoriented edges, 0 degenerate triangles, signed volume "
                       "0.833333");
    ck_assert_int_eq(result.interference, 0);
    ck_assert_int_eq(result.width, 0);
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = scene_myszkowski_test(twin, scene, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "myszkowski: object 1 (open box) is not a closed solid: 4 boundary, 0 "
                       "non-manifold, 0 misoriented edges, 0 degenerate triangles, signed volume "
                       "0.833333");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(twin, world, 1, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: objects 1 and 1: need two distinct objects of 2");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(twin, world, 0, 7, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: objects 0 and 7: need two distinct objects of 2");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_distance_map(twin, world, 9, 0, &options, &map);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: objects 9 and 0: need two distinct objects of 2");
    ck_assert_ptr_null(map.distance);
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(NULL, world, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: tester, world or options is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(twin, NULL, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: tester, world or options is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(twin, world, 0, 1, NULL, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: tester, world or options is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(twin, world, 0, 1, &options, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "myszkowski: result is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_distance_map(twin, world, 0, 1, &options, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "myszkowski: map is NULL");
    options.resolution = 8;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_myszkowski_test(twin, world, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: resolution 8 outside 16..4096");
    test_log_capture_stop();
    /* Nothing lost: the same tester and world, without the solid check. */
    options = glcollide_myszkowski_default_options();
    options.check_solids = 0;
    ck_assert_int_eq(glcollide_myszkowski_test(twin, world, 0, 1, &options, &result),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(result.interference, 1);
    ck_assert_int_eq(glcollide_myszkowski_distance_map(twin, world, 0, 1, &options, &map),
                     GLCOLLIDE_OK);
    ck_assert_int_gt(map.width, 0);
    glcollide_myszkowski_map_clear(&map);
    glcollide_world_destroy(&world);
    scene_destroy(&scene);
    glcollide_myszkowski_destroy(&twin);
    glcollide_myszkowski_destroy(&twin); /* NULL is fine */
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
