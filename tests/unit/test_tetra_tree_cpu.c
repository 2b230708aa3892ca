/* SPDX-License-Identifier: MIT */
/*
 * The tetra-tree's CPU twin (a tetra_gpu made without a context) against
 * glcollide_tetra_tree_classify with frame coherence, and the world entry
 * (glcollide_tetra_gpu_classify on a world) without GL: answers for posed
 * meshes, refusals word for word. In tests/glcollide-tests; the GPU's are in
 * tests/gpu/test_tetra_tree.c.
 */
#include "helpers/tests.h"
#include "helpers/tetra_shapes.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>
#include <glcollide/tetra_tree.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The CPU twin (no context) against glcollide_tetra_tree_classify on 4
 * meshes, 20,000 points each (seeds 0x0E5A0000 + mesh): three frames with
 * frame coherence (the points moved by 1e-3 between frames; the third frame
 * with fewer points, so no coherence), every answer the tree's, and the
 * second frame mostly found in last frame's cones.
 */
START_TEST(test_cpu_twin)
{
    const size_t count = 20000;
    for (int k = 0; k < SHAPE_MESHES; k++) {
        glcollide_mesh *m = shape_mesh(k);
        glcollide_tetra_tree *tree = build(m, NULL);
        glcollide_tetra_gpu *twin = NULL;
        ck_assert_int_eq(glcollide_tetra_gpu_create(NULL, tree, &twin), GLCOLLIDE_OK);
        const double t[3] = {0, 0, 0}, q[4] = {1, 0, 0, 0};
        uint64_t seed = 0x0E5A0000u + (uint64_t)k;
        double *p = posed_points(m, t, q, count, seed);
        uint8_t *expected = malloc(count), *got = malloc(count);
        ck_assert(expected && got);
        test_rng rng = {seed ^ 0xF00Du};
        for (int frame = 0; frame < 3; frame++) {
            size_t n = frame == 2 ? count / 2 : count;
            glcollide_tetra_stats stats, tree_stats;
            ck_assert_int_eq(
                tetra_classify(twin, m, p, n, GLCOLLIDE_TETRA_FRAME_COHERENCE, got, &stats),
                GLCOLLIDE_OK);
            ck_assert_int_eq(glcollide_tetra_tree_classify(tree, p, n, expected, NULL, &tree_stats),
                             GLCOLLIDE_OK);
            ck_assert_msg(memcmp(expected, got, n) == 0,
                          "%s frame %d (seed 0x%llx): CPU twin "
                          "differs from the tree",
                          m->name, frame, (unsigned long long)seed);
            ck_assert_uint_eq(stats.particles, n);
            ck_assert_uint_eq(stats.inside, tree_stats.inside);
            ck_assert_uint_eq(stats.gpu_syncs + stats.draw_calls, 0);
            if (frame == 1)
                ck_assert_uint_gt(stats.coherent, n / 2);
            else
                ck_assert_uint_eq(stats.coherent, 0);
            for (size_t i = 0; i < 3 * count; i++)
                p[i] += test_rng_uniform(&rng, -1e-3, 1e-3);
        }
        free(expected);
        free(got);
        free(p);
        glcollide_tetra_gpu_destroy(&twin);
        ck_assert_ptr_null(twin);
        glcollide_tetra_tree_destroy(&tree);
        glcollide_mesh_destroy(&m);
    }
}

START_TEST(test_world_entry_cpu)
{
    world_entries(NULL);
}

/* Refusals with one message each, and the object usable afterwards: NULL
 * arguments, an object out of range, an object of another mesh (the same
 * counts but moved vertices too). */
START_TEST(test_world_entry_errors)
{
    glcollide_mesh *box = NULL, *torus = shape_mesh(0), *moved = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 1, 1, &box), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_create(torus->positions, torus->vertex_count, torus->triangles,
                                           torus->triangle_count, "moved torus", &moved),
                     GLCOLLIDE_OK);
    moved->positions[0] += 0x1p-30;
    glcollide_tetra_tree *tree = build(torus, NULL);
    glcollide_tetra_gpu *twin = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    int status = glcollide_tetra_gpu_create(NULL, NULL, &twin);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "tetra-tree GPU: tree is NULL");
    ck_assert_ptr_null(twin);
    test_log_capture_stop();
    ck_assert_int_eq(glcollide_tetra_gpu_create(NULL, tree, &twin), GLCOLLIDE_OK);
    const double t[3] = {1, 2, 3}, q[4] = {0.5, 0.5, 0.5, 0.5};
    glcollide_world *world = world_with(box, torus, t, q);
    double point[3] = {1, 2, 3};
    uint8_t inside = 7;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_tetra_gpu_classify(twin, NULL, 1, point, 1, 0, &inside, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "tetra-tree world classify: gpu, world, points or inside is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_tetra_gpu_classify(NULL, world, 1, point, 1, 0, &inside, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "tetra-tree world classify: gpu, world, points or inside is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_tetra_gpu_classify(twin, world, 1, NULL, 1, 0, &inside, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "tetra-tree world classify: gpu, world, points or inside is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_tetra_gpu_classify(twin, world, 2, point, 1, 0, &inside, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "tetra-tree world classify: no object 2 (the world has 2)");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_tetra_gpu_classify(twin, world, 0, point, 1, 0, &inside, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "tetra-tree: object 0's mesh (box, 12 triangles) is not the one the tree "
                       "was built from (torus, 384 triangles)");
    ck_assert_int_eq(inside, 7); /* untouched */
    /* The same counts, one vertex moved: refused too, once the world says so. */
    ck_assert_int_eq(glcollide_tetra_gpu_classify(twin, world, 1, point, 1, 0, &inside, NULL),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_replace_mesh(world, 1, moved), GLCOLLIDE_OK);
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_tetra_gpu_classify(twin, world, 1, point, 1, 0, &inside, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "tetra-tree: object 1's mesh (moved torus, 384 triangles) is not the one "
                       "the tree was built from (torus, 384 triangles)");
    test_log_capture_stop();
    ck_assert_int_eq(glcollide_world_replace_mesh(world, 1, torus), GLCOLLIDE_OK);
    /* Nothing lost: the torus's centre (the hole) is outside. */
    inside = 7;
    ck_assert_int_eq(glcollide_tetra_gpu_classify(twin, world, 1, point, 1, 0, &inside, NULL),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(inside, 0);
    glcollide_world_destroy(&world);
    glcollide_tetra_gpu_destroy(&twin);
    glcollide_tetra_tree_destroy(&tree);
    glcollide_mesh_destroy(&moved);
    glcollide_mesh_destroy(&torus);
    glcollide_mesh_destroy(&box);
}

/* The checks that need no context, in tests/glcollide-tests: the CPU twin
 * and the world entry without GL. */
Suite *suite_tetra_tree_cpu(void)
{
    Suite *suite = suite_create("tetra_tree_cpu");
    TCase *tc = tcase_create("one shape");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_cpu_twin);
    tcase_add_test(tc, test_world_entry_cpu);
    tcase_add_test(tc, test_world_entry_errors);
    suite_add_tcase(suite, tc);
    return suite;
}
