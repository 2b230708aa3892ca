/* SPDX-License-Identifier: MIT */
/*
 * The persistent world: frame after frame of moved objects, meshes deformed
 * in place and meshes replaced, each frame's answer (exact and sap, objects
 * and triangles, with and without a distance) equal to a one-shot query on
 * the same meshes and poses, whose world is made afresh (scene_query,
 * itself held to brute force by the query suite). A stale box, BVH,
 * solidity or world position shows as a difference. Also: the grouping of
 * triangle pairs by object pair, the argument checks word for word, and
 * memory that does not grow with the number of instances.
 */
#include "helpers/tests.h"
/* White box: the world's per-mesh checks. */
#include "world/world.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double identity[4] = {1, 0, 0, 0};

/* The world's meshes and poses as a scene (the meshes copied). */
static test_scene *scene_of(const glcollide_world *world, glcollide_mesh *const *meshes)
{
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
    for (size_t m = 0; m < glcollide_world_mesh_count(world); m++) {
        glcollide_mesh *copy = NULL;
        ck_assert_int_eq(glcollide_mesh_create(meshes[m]->positions, meshes[m]->vertex_count,
                                               meshes[m]->triangles, meshes[m]->triangle_count,
                                               meshes[m]->name, &copy),
                         GLCOLLIDE_OK);
        test_scene_add_mesh(scene, copy);
    }
    for (uint32_t o = 0; o < glcollide_world_object_count(world); o++) {
        const glcollide_object *object = glcollide_world_object(world, o);
        test_scene_add_object(scene, object->mesh, object->pose.translation, object->pose.rotation);
    }
    return scene;
}

/* Every triangle pair sits in its pair's group, the groups in the order of
 * the pairs, and both answers hold the same pairs (as sets). */
static void check_same(const glcollide_query_result *world_result,
                       const glcollide_query_result *fresh, const char *what, int frame)
{
    TEST_REQUIRE(world_result->pair_count == fresh->pair_count, "%s frame %d: %zu pairs, fresh %zu",
                 what, frame, world_result->pair_count, fresh->pair_count);
    for (size_t k = 0; k < fresh->pair_count; k++)
        TEST_REQUIRE(world_result->pairs[k].a == fresh->pairs[k].a &&
                         world_result->pairs[k].b == fresh->pairs[k].b,
                     "%s frame %d: pair %zu differs", what, frame, k);
    TEST_REQUIRE(world_result->triangle_pair_count == fresh->triangle_pair_count,
                 "%s frame %d: %zu triangle pairs, fresh %zu", what, frame,
                 world_result->triangle_pair_count, fresh->triangle_pair_count);
    const size_t *first = world_result->pair_first;
    TEST_REQUIRE(first && first[0] == 0 &&
                     first[world_result->pair_count] == world_result->triangle_pair_count,
                 "%s frame %d: offsets do not cover the triangle pairs", what, frame);
    for (size_t k = 0; k < world_result->pair_count; k++)
        for (size_t c = first[k]; c < first[k + 1]; c++) {
            const glcollide_triangle_pair *t = &world_result->triangle_pairs[c];
            TEST_REQUIRE(t->object_a == world_result->pairs[k].a &&
                             t->object_b == world_result->pairs[k].b,
                         "%s frame %d: triangle pair %zu outside its group", what, frame, c);
            TEST_REQUIRE(bsearch(t, fresh->triangle_pairs, fresh->triangle_pair_count, sizeof *t,
                                 glcollide_triangle_pair_compare),
                         "%s frame %d: triangle pair %zu not in the fresh answer", what, frame, c);
        }
}

/* Scales vertices [first, first + count) of mesh about the origin. */
static void deform(glcollide_mesh *mesh, size_t first, size_t count, double factor)
{
    for (size_t v = first; v < first + count; v++)
        for (int k = 0; k < 3; k++)
            mesh->positions[3 * v + k] *= factor;
}

/*
 * 3 seeds (0x3071D000 + seed) x 24 frames, 30 objects of 4 random closed
 * meshes in a 3-unit cube: each frame a third of the objects move, every
 * fifth frame a mesh is deformed in place (a range of its vertices scaled),
 * every seventh a mesh is replaced by another; each frame is asked with
 * exact and sap at both levels, with distance 0 and 0.05, against a fresh
 * one-shot query.
 */
START_TEST(test_world_frames_vs_fresh)
{
    size_t compared = 0, pairs_seen = 0, triangle_pairs_seen = 0;
    for (int seed = 0; seed < 3; seed++) {
        test_rng rng = {0x3071D000u + (uint64_t)seed};
        glcollide_mesh *meshes[4];
        glcollide_mesh *retired[8];
        size_t retired_count = 0;
        glcollide_world *world = NULL;
        ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
        for (int m = 0; m < 4; m++) {
            meshes[m] = test_random_mesh(&rng, test_rng_uniform(&rng, 0.4, 1.0));
            ck_assert_int_eq(glcollide_world_add_mesh(world, meshes[m], NULL), GLCOLLIDE_OK);
        }
        for (int o = 0; o < 30; o++) {
            double t[3] = {test_rng_uniform(&rng, 0, 3), test_rng_uniform(&rng, 0, 3),
                           test_rng_uniform(&rng, 0, 3)},
                   q[4];
            test_rng_quaternion(&rng, q);
            ck_assert_int_eq(glcollide_world_add_object(world, test_rng_below(&rng, 4), t, q, NULL),
                             GLCOLLIDE_OK);
        }
        glcollide_query_result kept[8];
        memset(kept, 0, sizeof kept);
        for (int frame = 0; frame < 24; frame++) {
            for (uint32_t o = 0; o < 30; o++) {
                if (test_rng_below(&rng, 3) != 0)
                    continue;
                double t[3] = {test_rng_uniform(&rng, 0, 3), test_rng_uniform(&rng, 0, 3),
                               test_rng_uniform(&rng, 0, 3)},
                       q[4];
                test_rng_quaternion(&rng, q);
                ck_assert_int_eq(glcollide_world_set_pose(world, o, t, q), GLCOLLIDE_OK);
            }
            if (frame % 5 == 4) {
                uint32_t m = test_rng_below(&rng, 4);
                size_t first = meshes[m]->vertex_count / 3, count = meshes[m]->vertex_count / 2;
                deform(meshes[m], first, count, frame % 10 == 4 ? 1.3 : 0.8);
                ck_assert_int_eq(glcollide_world_mesh_changed(world, m, first, count),
                                 GLCOLLIDE_OK);
            }
            if (frame % 7 == 6 && retired_count < 8) {
                uint32_t m = test_rng_below(&rng, 4);
                glcollide_mesh *next = test_random_mesh(&rng, test_rng_uniform(&rng, 0.4, 1.0));
                ck_assert_int_eq(glcollide_world_replace_mesh(world, m, next), GLCOLLIDE_OK);
                retired[retired_count++] = meshes[m]; /* borrowed until replaced */
                meshes[m] = next;
            }
            test_scene *scene = scene_of(world, meshes);
            int slot = 0;
            for (int method = GLCOLLIDE_METHOD_EXACT; method <= GLCOLLIDE_METHOD_SAP; method++)
                for (int level = 0; level < 2; level++)
                    for (int d = 0; d < 2; d++, slot++) {
                        glcollide_query_options options = glcollide_query_default_options();
                        options.method = (glcollide_method)method;
                        options.level = (glcollide_level)level;
                        options.distance = d ? 0.05 : 0.0;
                        ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &kept[slot]),
                                         GLCOLLIDE_OK);
                        glcollide_query_result fresh;
                        ck_assert_int_eq(scene_query(scene, NULL, &options, &fresh), GLCOLLIDE_OK);
                        char what[64];
                        snprintf(what, sizeof what, "seed %d %s level %d distance %d", seed,
                                 glcollide_method_name(options.method), level, d);
                        check_same(&kept[slot], &fresh, what, frame);
                        pairs_seen += fresh.pair_count;
                        triangle_pairs_seen += fresh.triangle_pair_count;
                        compared++;
                        glcollide_query_result_clear(&fresh);
                    }
            scene_destroy(&scene);
        }
        for (int slot = 0; slot < 8; slot++)
            glcollide_query_result_clear(&kept[slot]);
        glcollide_world_destroy(&world);
        ck_assert_ptr_null(world);
        for (int m = 0; m < 4; m++)
            glcollide_mesh_destroy(&meshes[m]);
        for (size_t r = 0; r < retired_count; r++)
            glcollide_mesh_destroy(&retired[r]);
    }
    /* The frames must exercise what they claim to. */
    ck_assert_uint_gt(pairs_seen, 1000);
    ck_assert_uint_gt(triangle_pairs_seen, 10000);
    printf("world frames: %zu answers equal to fresh queries (%zu pairs, %zu triangle pairs)\n",
           compared, pairs_seen, triangle_pairs_seen);
}
END_TEST

/* A solid moved inside another and out again: containment follows the
 * poses, and a mesh deformed so that the inner one pokes out turns the
 * answer into surface contact. */
START_TEST(test_world_containment_follows_poses)
{
    glcollide_mesh *outer = NULL, *inner = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 1, 1, &outer), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.3, 12, 8, &inner), GLCOLLIDE_OK);
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    uint32_t mo, mi, a, b;
    ck_assert_int_eq(glcollide_world_add_mesh(world, outer, &mo), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, inner, &mi), GLCOLLIDE_OK);
    const double zero[3] = {0, 0, 0}, far[3] = {5, 0, 0};
    ck_assert_int_eq(glcollide_world_add_object(world, mo, zero, identity, &a), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_object(world, mi, far, identity, &b), GLCOLLIDE_OK);
    glcollide_query_options options = glcollide_query_default_options();
    options.level = GLCOLLIDE_LEVEL_TRIANGLES;
    glcollide_query_result result = {0};
    ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &result), GLCOLLIDE_OK);
    ck_assert_uint_eq(result.pair_count, 0);
    ck_assert_int_eq(glcollide_world_set_pose(world, b, zero, identity), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &result), GLCOLLIDE_OK);
    ck_assert_uint_eq(result.pair_count, 1); /* contained: no triangle pair */
    ck_assert_uint_eq(result.triangle_pair_count, 0);
    ck_assert_uint_eq(result.pair_first[0], 0);
    ck_assert_uint_eq(result.pair_first[1], 0);
    deform(inner, 0, inner->vertex_count, 4.0); /* radius 1.2: pokes out of the box */
    ck_assert_int_eq(glcollide_world_mesh_changed(world, mi, 0, inner->vertex_count), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &result), GLCOLLIDE_OK);
    ck_assert_uint_eq(result.pair_count, 1);
    ck_assert_uint_gt(result.triangle_pair_count, 0);
    ck_assert_uint_eq(result.pair_first[1], result.triangle_pair_count);
    ck_assert_int_eq(glcollide_world_set_pose(world, b, far, identity), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &result), GLCOLLIDE_OK);
    ck_assert_uint_eq(result.pair_count, 0);
    glcollide_query_result_clear(&result);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&outer);
    glcollide_mesh_destroy(&inner);
}
END_TEST

/*
 * A mesh registered with the caller's BVH: the same answers as the world's
 * own tree, frame after frame (seed 0xB0B, 8 objects of a sphere and a
 * box, 6 frames, triangles then objects), also after the caller refits its
 * tree for a deformation; a BVH of another mesh refused in one line; the
 * tree still the caller's after the world is gone.
 */
START_TEST(test_world_borrowed_bvh)
{
    glcollide_mesh *meshes[2] = {NULL, NULL};
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.4, 16, 8, &meshes[0]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.6, 0.3, 0.5, &meshes[1]), GLCOLLIDE_OK);
    glcollide_bvh *trees[2] = {NULL, NULL};
    glcollide_world *own = NULL, *borrowing = NULL;
    ck_assert_int_eq(glcollide_world_create(&own), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_create(&borrowing), GLCOLLIDE_OK);
    for (int m = 0; m < 2; m++) {
        ck_assert_int_eq(glcollide_bvh_create(meshes[m], &trees[m]), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_world_add_mesh(own, meshes[m], NULL), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_world_add_mesh_with_bvh(borrowing, meshes[m], trees[m], NULL),
                         GLCOLLIDE_OK);
    }
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_world_add_mesh_with_bvh(borrowing, meshes[0], trees[1], NULL);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "world: sphere has 224 triangles, the BVH given with it 12");
    ck_assert_uint_eq(glcollide_world_mesh_count(borrowing), 2);
    test_rng rng = {0xB0B};
    for (uint32_t o = 0; o < 8; o++) {
        double t[3], q[4];
        for (int k = 0; k < 3; k++)
            t[k] = test_rng_uniform(&rng, 0, 1.5);
        test_rng_quaternion(&rng, q);
        ck_assert_int_eq(glcollide_world_add_object(own, o % 2, t, q, NULL), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_world_add_object(borrowing, o % 2, t, q, NULL), GLCOLLIDE_OK);
    }
    glcollide_query_options options = glcollide_query_default_options();
    glcollide_query_result a = {0}, b = {0};
    for (int frame = 0; frame < 6; frame++) {
        if (frame == 3) { /* the sphere grows in place: the caller refits its tree */
            deform(meshes[0], 0, meshes[0]->vertex_count, 1.3);
            glcollide_bvh_refit(trees[0], meshes[0], 0);
            ck_assert_int_eq(glcollide_world_mesh_changed(own, 0, 0, meshes[0]->vertex_count),
                             GLCOLLIDE_OK);
            ck_assert_int_eq(glcollide_world_mesh_changed(borrowing, 0, 0, meshes[0]->vertex_count),
                             GLCOLLIDE_OK);
        }
        for (uint32_t o = 0; o < 8; o++) {
            double t[3], q[4];
            for (int k = 0; k < 3; k++)
                t[k] = test_rng_uniform(&rng, 0, 1.5);
            test_rng_quaternion(&rng, q);
            ck_assert_int_eq(glcollide_world_set_pose(own, o, t, q), GLCOLLIDE_OK);
            ck_assert_int_eq(glcollide_world_set_pose(borrowing, o, t, q), GLCOLLIDE_OK);
        }
        for (int level = 0; level < 2; level++) {
            options.level = level ? GLCOLLIDE_LEVEL_OBJECTS : GLCOLLIDE_LEVEL_TRIANGLES;
            ck_assert_int_eq(glcollide_world_query(own, NULL, &options, &a), GLCOLLIDE_OK);
            ck_assert_int_eq(glcollide_world_query(borrowing, NULL, &options, &b), GLCOLLIDE_OK);
            ck_assert_uint_gt(a.pair_count, 0);
            /* the same code on the same tree: the very same answer */
            ck_assert_msg(a.pair_count == b.pair_count &&
                              a.triangle_pair_count == b.triangle_pair_count &&
                              !memcmp(a.pairs, b.pairs, a.pair_count * sizeof *a.pairs) &&
                              (!a.triangle_pair_count ||
                               !memcmp(a.triangle_pairs, b.triangle_pairs,
                                       a.triangle_pair_count * sizeof *a.triangle_pairs)),
                          "frame %d, level %d: %zu pairs and %zu triangle pairs with the "
                          "caller's BVH, %zu and %zu with the world's",
                          frame, level, b.pair_count, b.triangle_pair_count, a.pair_count,
                          a.triangle_pair_count);
        }
    }
    glcollide_query_result_clear(&a);
    glcollide_query_result_clear(&b);
    glcollide_world_destroy(&own);
    glcollide_world_destroy(&borrowing);
    for (int m = 0; m < 2; m++) { /* still the caller's */
        ck_assert_uint_eq(glcollide_bvh_triangle_count(trees[m]), meshes[m]->triangle_count);
        glcollide_bvh_destroy(&trees[m]);
        glcollide_mesh_destroy(&meshes[m]);
    }
}
END_TEST

static int reference_grouped(const void *x, const void *y)
{
    const glcollide_triangle_pair *a = x, *b = y;
    const uint32_t ka[4] = {a->object_a, a->object_b, a->triangle_a, a->triangle_b};
    const uint32_t kb[4] = {b->object_a, b->object_b, b->triangle_a, b->triangle_b};
    for (int k = 0; k < 4; k++)
        if (ka[k] != kb[k])
            return ka[k] < kb[k] ? -1 : 1;
    return 0;
}

/*
 * Results grouped: pairs sorted, triangle pairs in (object pair, triangles)
 * order with each pair's offsets, as qsort orders them; for appended groups
 * (the methods' way) and for shuffled ones, over sizes 0..3000 and key
 * spreads from all-equal to distinct, sorted and reversed input (seed
 * 0x50A7, 60 cases).
 */
START_TEST(test_result_group_order)
{
    test_rng rng = {0x50A7};
    glcollide_triangle_pair *expected = malloc(3000 * sizeof *expected);
    ck_assert_ptr_nonnull(expected);
    for (int c = 0; c < 60; c++) {
        size_t n = c < 3 ? (size_t)c : test_rng_below(&rng, 3000);
        uint32_t spread = c % 4 == 0 ? 1 : c % 4 == 1 ? 4 : c % 4 == 2 ? 64 : 1u << 30;
        uint32_t objects = 1 + c % 5;
        glcollide_query_result result = {0};
        for (size_t i = 0; i < n; i++) {
            uint32_t a = test_rng_below(&rng, objects), b = a + 1 + test_rng_below(&rng, 3);
            if (c % 3 == 0) /* appended group by group, as the methods do */
                a = (uint32_t)(i * objects / (n ? n : 1)), b = a + 1;
            ck_assert_int_eq(glcollide_result_add_triangle_pair(&result, a,
                                                                test_rng_below(&rng, spread), b,
                                                                test_rng_below(&rng, spread)),
                             GLCOLLIDE_OK);
        }
        if (c % 7 == 1) /* sorted or reversed input */
            qsort(result.triangle_pairs, n, sizeof *expected, reference_grouped);
        if (c % 7 == 2)
            for (size_t i = 0; i < n / 2; i++) {
                glcollide_triangle_pair t = result.triangle_pairs[i];
                result.triangle_pairs[i] = result.triangle_pairs[n - 1 - i];
                result.triangle_pairs[n - 1 - i] = t;
            }
        for (size_t i = 0; i < n; i++) {
            expected[i] = result.triangle_pairs[i];
            const glcollide_triangle_pair *t = &result.triangle_pairs[i];
            if (i == 0 || t->object_a != t[-1].object_a || t->object_b != t[-1].object_b)
                ck_assert_int_eq(glcollide_result_add_pair(&result, t->object_a, t->object_b),
                                 GLCOLLIDE_OK);
        }
        qsort(expected, n, sizeof *expected, reference_grouped);
        /* one pair per object pair: drop repeats the shuffle made */
        size_t pairs = 0;
        for (size_t k = 0; k < result.pair_count; k++) {
            int seen = 0;
            for (size_t m = 0; m < pairs && !seen; m++)
                seen = result.pairs[m].a == result.pairs[k].a &&
                       result.pairs[m].b == result.pairs[k].b;
            if (!seen)
                result.pairs[pairs++] = result.pairs[k];
        }
        result.pair_count = pairs;
        ck_assert_int_eq(glcollide_result_group(&result), GLCOLLIDE_OK);
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(!reference_grouped(&result.triangle_pairs[i], &expected[i]),
                          "case %d (%zu pairs, spread %u): triangle pair %zu out of order", c, n,
                          spread, i);
        for (size_t k = 0; k < result.pair_count; k++) {
            ck_assert(k == 0 ||
                      glcollide_index_pair_compare(&result.pairs[k - 1], &result.pairs[k]) < 0);
            for (size_t i = result.pair_first[k]; i < result.pair_first[k + 1]; i++)
                ck_assert(result.triangle_pairs[i].object_a == result.pairs[k].a &&
                          result.triangle_pairs[i].object_b == result.pairs[k].b);
        }
        ck_assert_uint_eq(result.pair_first[result.pair_count], n);
        glcollide_query_result_clear(&result);
    }
    free(expected);
}
END_TEST

/* Bad input: one message each, word for word, and the world as it was. */
/* The tight boxes the culling methods pair objects by (a BVH's nodes some
 * levels down, placed): every vertex placed as the methods place them lies
 * inside at every depth, deeper is never looser, and depth 0 is the placed
 * mesh box. Generated and real meshes, 40 random poses each (seed 0x71B0),
 * some far from the origin. */
START_TEST(test_placed_bounds_hold_vertices)
{
    glcollide_mesh *meshes[4] = {0};
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.1, 16, 8, &meshes[0]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.3, 0.1, 0.05, &meshes[1]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_knot(2, 3, 1.0, 0.25, 96, 8, &meshes[2]),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("knot1.off"), 1.0, &meshes[3]),
                     GLCOLLIDE_OK);
    test_rng rng = {0x71B0};
    size_t tighter = 0;
    for (int i = 0; i < 4; i++) {
        const glcollide_mesh *mesh = meshes[i];
        glcollide_bvh *bvh = NULL;
        ck_assert_int_eq(glcollide_bvh_create(mesh, &bvh), GLCOLLIDE_OK);
        double *placed = malloc(3 * mesh->vertex_count * sizeof *placed);
        glcollide_aabb bounds = glcollide_bvh_bounds(bvh);
        for (int p = 0; p < 40; p++) {
            glcollide_object pose = {.mesh = 0};
            double far = p % 4 == 3 ? 1e4 : 2.0;
            for (int k = 0; k < 3; k++)
                pose.pose.translation[k] = test_rng_uniform(&rng, -far, far);
            test_rng_quaternion(&rng, pose.pose.rotation);
            glcollide_pose_transform_points(&pose.pose, mesh->positions, mesh->vertex_count,
                                            placed);
            glcollide_aabb root, previous;
            glcollide_aabb_place(&bounds, &pose.pose, &root);
            static const int depths[] = {0, 1, 3, 6, 8, 30};
            for (int d = 0; d < 6; d++) {
                glcollide_aabb box;
                glcollide_bvh_placed_bounds(bvh, &pose.pose, depths[d], &box);
                for (size_t v = 0; v < mesh->vertex_count; v++)
                    for (int k = 0; k < 3; k++)
                        TEST_REQUIRE(placed[3 * v + k] >= box.min[k] &&
                                         placed[3 * v + k] <= box.max[k],
                                     "%s pose %d depth %d: vertex %zu outside on axis %d",
                                     mesh->name, p, depths[d], v, k);
                for (int k = 0; k < 3; k++) {
                    double slack = 1e-9 * (fabs(root.min[k]) + fabs(root.max[k]));
                    const glcollide_aabb *outer = d ? &previous : &root;
                    TEST_REQUIRE(box.min[k] >= outer->min[k] - slack &&
                                     box.max[k] <= outer->max[k] + slack,
                                 "%s pose %d depth %d: looser than depth %d on axis %d", mesh->name,
                                 p, depths[d], d ? depths[d - 1] : 0, k);
                }
                if (depths[d] == 8)
                    tighter += box.max[0] - box.min[0] < 0.99 * (root.max[0] - root.min[0]);
                previous = box;
            }
        }
        free(placed);
        glcollide_bvh_destroy(&bvh);
    }
    ck_assert_uint_gt(tighter, 80); /* deeper boxes are tighter, not only as tight */
    for (int i = 0; i < 4; i++)
        glcollide_mesh_destroy(&meshes[i]);
}
END_TEST

START_TEST(test_world_arguments)
{
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    glcollide_mesh *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 1, 1, &box), GLCOLLIDE_OK);
    uint32_t m = 0, o = 0;
    ck_assert_int_eq(glcollide_world_add_mesh(world, box, &m), GLCOLLIDE_OK);
    const double t[3] = {0, 0, 0}, half_turn[4] = {0.5, 0, 0, 0};
    ck_assert_int_eq(glcollide_world_add_object(world, m, t, identity, &o), GLCOLLIDE_OK);

    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    TEST_ASSERT_FAILED(glcollide_world_add_object(world, 3, t, identity, NULL),
                       GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "world: object refers to mesh 3, only 1 meshes");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    TEST_ASSERT_FAILED(glcollide_world_set_pose(world, o, t, half_turn),
                       GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "world: object rotation (0.5 0 0 0) is not a unit quaternion");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    TEST_ASSERT_FAILED(glcollide_world_set_pose(world, 7, t, identity),
                       GLCOLLIDE_ERROR_INVALID_ARGUMENT, "world: set_pose: no object 7");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    TEST_ASSERT_FAILED(glcollide_world_mesh_changed(world, m, 4, 5),
                       GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "world: mesh_changed: vertices 4..+5 of box, which has 8");
    double saved = box->positions[3];
    box->positions[3] = NAN;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    TEST_ASSERT_FAILED(glcollide_world_mesh_changed(world, m, 0, 8), GLCOLLIDE_ERROR_INVALID_MESH,
                       "world: box: vertex 1 has a non-finite coordinate");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    TEST_ASSERT_FAILED(glcollide_world_add_mesh(world, box, NULL), GLCOLLIDE_ERROR_INVALID_MESH,
                       "world: box: vertex 1 has a non-finite coordinate");
    box->positions[3] = saved;
    box->triangles[5] = 8;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    TEST_ASSERT_FAILED(glcollide_world_replace_mesh(world, m, box), GLCOLLIDE_ERROR_INVALID_MESH,
                       "world: box: triangle 1 uses vertex 8 of 8");
    test_log_capture_stop();
    ck_assert_uint_eq(glcollide_world_mesh_count(world), 1);
    ck_assert_uint_eq(glcollide_world_object_count(world), 1);
    ck_assert_double_eq(glcollide_world_object(world, o)->pose.rotation[0], 1.0);
    ck_assert_ptr_null(glcollide_world_object(world, 1));
    glcollide_world_destroy(&world);
    glcollide_world_destroy(&world); /* cleared handle: a no-op */
    glcollide_world_destroy(NULL);
    glcollide_mesh_destroy(&box);
}
END_TEST

/*
 * Memory linear in meshes + objects: 2,000 instances of a 5,120-triangle
 * sphere, asked "which collide" at both levels, take less heap than one
 * world copy of the mesh per instance would (2,000 x 2,562 vertices x 24
 * bytes = 123 MB); the bound, 1 KiB per object, leaves room only for
 * per-object records.
 */
START_TEST(test_world_memory_linear)
{
    glcollide_mesh *sphere = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 64, 41, &sphere), GLCOLLIDE_OK);
    struct mallinfo2 before = mallinfo2();
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    uint32_t m;
    ck_assert_int_eq(glcollide_world_add_mesh(world, sphere, &m), GLCOLLIDE_OK);
    test_rng rng = {0x3E3E0001u};
    for (int o = 0; o < 2000; o++) {
        double t[3] = {test_rng_uniform(&rng, 0, 30), test_rng_uniform(&rng, 0, 30),
                       test_rng_uniform(&rng, 0, 30)},
               q[4];
        test_rng_quaternion(&rng, q);
        ck_assert_int_eq(glcollide_world_add_object(world, m, t, q, NULL), GLCOLLIDE_OK);
    }
    glcollide_query_options options = glcollide_query_default_options();
    glcollide_query_result result = {0};
    ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &result), GLCOLLIDE_OK);
    options.level = GLCOLLIDE_LEVEL_TRIANGLES;
    ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &result), GLCOLLIDE_OK);
    struct mallinfo2 after = mallinfo2();
    size_t grown = after.uordblks > before.uordblks ? after.uordblks - before.uordblks : 0;
    size_t mesh_bytes = sphere->vertex_count * 24 + sphere->triangle_count * 200;
    printf("world memory: %zu objects, %zu pairs, %zu triangle pairs: %zu bytes of heap "
           "(%zu per object beyond the mesh's BVH)\n",
           (size_t)2000, result.pair_count, result.triangle_pair_count, grown,
           grown > mesh_bytes ? (grown - mesh_bytes) / 2000 : 0);
    ck_assert_uint_gt(result.pair_count, 10);
    ck_assert_uint_lt(grown, mesh_bytes + 2000 * 1024 + result.triangle_pair_capacity * 16);
    glcollide_query_result_clear(&result);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&sphere);
}
END_TEST

/*
 * The per-mesh solid checks the stencil method reads are the world's: made
 * once (a second prepare runs none), with the exact answers (a sphere: closed
 * and simple; camel.off: closed, passing through itself, 20 triangle pairs),
 * and made again for a mesh that changed, alone.
 */
START_TEST(test_world_solid_checks_cached)
{
    glcollide_mesh *sphere = NULL, *camel = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 12, 8, &sphere), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("camel.off"), 1.0, &camel), GLCOLLIDE_OK);
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    uint32_t ms = 0, mc = 0;
    ck_assert_int_eq(glcollide_world_add_mesh(world, sphere, &ms), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, camel, &mc), GLCOLLIDE_OK);
    const double t[3] = {0, 0, 0}, q[4] = {1, 0, 0, 0};
    ck_assert_int_eq(glcollide_world_add_object(world, ms, t, q, NULL), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_object(world, mc, t, q, NULL), GLCOLLIDE_OK);
    const unsigned what = GLCOLLIDE_WORLD_SOLIDS | GLCOLLIDE_WORLD_CROSSING;
    ck_assert_int_eq(glcollide_world_prepare(world, what), GLCOLLIDE_OK);
    ck_assert_uint_eq(world->solid_checks, 2);
    size_t crossings = 0;
    ck_assert_int_eq(glcollide_mesh_self_intersections(camel, &crossings, NULL), GLCOLLIDE_OK);
    ck_assert_uint_eq(crossings, 20);
    ck_assert_int_eq(world->meshes[ms].solid, 1);
    ck_assert_int_eq(world->meshes[ms].crossing, 0);
    ck_assert_int_eq(world->meshes[mc].solid, 1);
    ck_assert_int_eq(world->meshes[mc].crossing, 1);
    ck_assert_int_eq(glcollide_world_prepare(world, what), GLCOLLIDE_OK);
    ck_assert_uint_eq(world->solid_checks, 2);
    ck_assert_int_eq(glcollide_world_mesh_changed(world, ms, 0, 4), GLCOLLIDE_OK);
    ck_assert_int_eq(world->meshes[ms].crossing, -1);
    ck_assert_int_eq(glcollide_world_prepare(world, what), GLCOLLIDE_OK);
    ck_assert_uint_eq(world->solid_checks, 3);
    ck_assert_int_eq(world->meshes[ms].crossing, 0);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&sphere);
    glcollide_mesh_destroy(&camel);
}
END_TEST

/* A world of objects random poses in a cube of side side, on 3 random
 * meshes (into meshes, destroyed by the caller after the world). */
static glcollide_world *random_world(uint64_t seed, int objects, double side,
                                     glcollide_mesh *meshes[3])
{
    test_rng rng = {seed};
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    for (int m = 0; m < 3; m++) {
        meshes[m] = test_random_mesh(&rng, test_rng_uniform(&rng, 0.4, 1.0));
        ck_assert_int_eq(glcollide_world_add_mesh(world, meshes[m], NULL), GLCOLLIDE_OK);
    }
    for (int o = 0; o < objects; o++) {
        double t[3] = {test_rng_uniform(&rng, 0, side), test_rng_uniform(&rng, 0, side),
                       test_rng_uniform(&rng, 0, side)},
               q[4];
        test_rng_quaternion(&rng, q);
        ck_assert_int_eq(glcollide_world_add_object(world, test_rng_below(&rng, 3), t, q, NULL),
                         GLCOLLIDE_OK);
    }
    return world;
}

/* The exact method's object pairs on the workers: the same pairs and
 * triangle pairs, in the same order, with 1, 2, 3 and 8 threads, at both
 * levels, with and without a distance; bad thread counts refused. */
START_TEST(test_world_query_threads)
{
    glcollide_mesh *meshes[3];
    glcollide_world *world = random_world(0x7E4D5000u, 120, 5, meshes);
    const int threads[] = {1, 2, 3, 8, 0};
    for (int level = 0; level < 2; level++)
        for (int d = 0; d < 2; d++) {
            glcollide_query_options options = glcollide_query_default_options();
            options.level = level ? GLCOLLIDE_LEVEL_TRIANGLES : GLCOLLIDE_LEVEL_OBJECTS;
            options.distance = d ? 0.05 : 0.0;
            glcollide_query_result alone = {0};
            options.threads = 1;
            ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &alone), GLCOLLIDE_OK);
            ck_assert_uint_gt(alone.pair_count, 10);
            for (size_t k = 1; k < sizeof threads / sizeof threads[0]; k++) {
                glcollide_query_result r = {0};
                options.threads = threads[k];
                ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &r), GLCOLLIDE_OK);
                TEST_REQUIRE(r.pair_count == alone.pair_count &&
                                 r.triangle_pair_count == alone.triangle_pair_count,
                             "%d threads, level %d, distance %d: %zu pairs, %zu triangle pairs; "
                             "alone %zu, %zu",
                             threads[k], level, d, r.pair_count, r.triangle_pair_count,
                             alone.pair_count, alone.triangle_pair_count);
                ck_assert_mem_eq(r.pairs, alone.pairs, r.pair_count * sizeof *r.pairs);
                if (r.triangle_pair_count)
                    ck_assert_mem_eq(r.triangle_pairs, alone.triangle_pairs,
                                     r.triangle_pair_count * sizeof *r.triangle_pairs);
                ck_assert_uint_eq(r.stats.triangle_tests, alone.stats.triangle_tests);
                ck_assert_uint_eq(r.stats.candidates, alone.stats.candidates);
                glcollide_query_result_clear(&r);
            }
            glcollide_query_result_clear(&alone);
        }
    glcollide_query_options options = glcollide_query_default_options();
    options.threads = -1;
    glcollide_query_result r = {0};
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    TEST_ASSERT_FAILED(glcollide_world_query(world, NULL, &options, &r),
                       GLCOLLIDE_ERROR_INVALID_ARGUMENT, "query: threads -1 outside 0..256");
    test_log_capture_stop();
    glcollide_query_result_clear(&r);
    glcollide_world_destroy(&world);
    for (int m = 0; m < 3; m++)
        glcollide_mesh_destroy(&meshes[m]);
}
END_TEST

/* Pairs given in place of the sweep (an ODE space's own): exact and sap,
 * both levels, with and without a distance, the swept answer among them. */
START_TEST(test_world_query_given_pairs)
{
    glcollide_mesh *meshes[3];
    glcollide_world *world = random_world(0x61E3A000u, 60, 4, meshes);
    for (int m = 0; m < 2; m++)
        for (int level = 0; level < 2; level++)
            for (int d = 0; d < 2; d++) {
                glcollide_query_options options = glcollide_query_default_options();
                options.method = m ? GLCOLLIDE_METHOD_SAP : GLCOLLIDE_METHOD_EXACT;
                options.level = level ? GLCOLLIDE_LEVEL_TRIANGLES : GLCOLLIDE_LEVEL_OBJECTS;
                options.distance = d ? 0.05 : 0.0;
                ck_assert_uint_gt(test_query_given_pairs(world, NULL, &options), 3);
            }
    /* an empty list: no pair to consider (not the sweep) */
    glcollide_index_pair none = {0, 1};
    glcollide_query_options options = glcollide_query_default_options();
    options.pairs = &none;
    options.pair_count = 0;
    glcollide_query_result r = {0};
    ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &r), GLCOLLIDE_OK);
    ck_assert_uint_eq(r.pair_count, 0);
    ck_assert_uint_eq(r.stats.aabb_pairs, 0);
    glcollide_query_result_clear(&r);
    glcollide_world_destroy(&world);
    for (int m = 0; m < 3; m++)
        glcollide_mesh_destroy(&meshes[m]);
}
END_TEST

Suite *suite_world(void)
{
    Suite *s = suite_create("world");
    TCase *tc = tcase_create("world");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_world_frames_vs_fresh);
    tcase_add_test(tc, test_world_containment_follows_poses);
    tcase_add_test(tc, test_world_borrowed_bvh);
    tcase_add_test(tc, test_result_group_order);
    tcase_add_test(tc, test_placed_bounds_hold_vertices);
    tcase_add_test(tc, test_world_arguments);
    tcase_add_test(tc, test_world_memory_linear);
    tcase_add_test(tc, test_world_solid_checks_cached);
    tcase_add_test(tc, test_world_query_threads);
    tcase_add_test(tc, test_world_query_given_pairs);
    suite_add_tcase(s, tc);
    return s;
}
