/* SPDX-License-Identifier: MIT */
/*
 * The GPU methods on a persistent world, frame after frame: FAR never
 * misses a triangle pair or object pair the exact oracle finds on the same
 * world (moved objects, meshes deformed in place and replaced, so that a
 * mesh left stale on the GPU shows); what travels per frame once warm is
 * one 64-byte record per object taking part and a constant of uniforms,
 * a deformation adds only its range; draw calls, dispatches and syncs do
 * not grow with the objects; the methods that still draw world positions
 * (cullide, stencil, convex) answer as a fresh one-shot query does.
 */
#include "helpers/tests.h"

#include "world/world.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static glcollide_context *context;

static void context_setup(void)
{
    if (!context)
        ck_assert_msg(glcollide_context_create_egl(&context) == GLCOLLIDE_OK,
                      "no headless EGL context");
}

static void context_teardown(void)
{
    glcollide_context_destroy(&context);
}

static void query(glcollide_world *world, glcollide_method method, glcollide_level level,
                  double distance, glcollide_query_result *result)
{
    glcollide_query_options options = glcollide_query_default_options();
    options.method = method;
    options.level = level;
    options.distance = distance;
    options.resolution = 256;
    int status = glcollide_world_query(world, method <= GLCOLLIDE_METHOD_SAP ? NULL : context,
                                       &options, result);
    ck_assert_msg(status == GLCOLLIDE_OK, "%s query failed: %s", glcollide_method_name(method),
                  test_log_last());
}

/* Every pair of inner is in outer (both sorted as glcollide_world_query
 * sorts them); returns the number missing. At triangle level each group of
 * inner's triangle pairs must be within the same group of outer; a pair
 * without triangle pairs there (a solid inside another) is the object
 * level's to report. */
static size_t missing(const glcollide_query_result *inner, const glcollide_query_result *outer)
{
    size_t missed = 0;
    for (size_t k = 0, g = 0; k < inner->pair_count; k++) {
        size_t first = inner->pair_first ? inner->pair_first[k] : 0;
        size_t end = inner->pair_first ? inner->pair_first[k + 1] : 0;
        if (inner->pair_first && first == end)
            continue;
        while (g < outer->pair_count &&
               glcollide_index_pair_compare(&outer->pairs[g], &inner->pairs[k]) < 0)
            g++;
        if (g == outer->pair_count ||
            glcollide_index_pair_compare(&outer->pairs[g], &inner->pairs[k]) != 0) {
            missed += inner->pair_first ? end - first : 1;
            continue;
        }
        for (size_t c = first; c < end; c++) {
            const glcollide_triangle_pair *t = &inner->triangle_pairs[c];
            int found = 0;
            for (size_t d = outer->pair_first[g]; d < outer->pair_first[g + 1] && !found; d++)
                found = outer->triangle_pairs[d].triangle_a == t->triangle_a &&
                        outer->triangle_pairs[d].triangle_b == t->triangle_b;
            missed += !found;
        }
    }
    return missed;
}

static void random_pose(test_rng *rng, double side, double t[3], double q[4])
{
    for (int k = 0; k < 3; k++)
        t[k] = test_rng_uniform(rng, 0, side);
    test_rng_quaternion(rng, q);
}

/*
 * 2 seeds (0xFA2D0000 + seed) x 12 frames of 24 objects of 3 random closed
 * meshes: FAR (triangles, distance 0 and 0.02; objects) against exact each
 * frame; a mesh deformed every fourth frame (a third of its vertices), one
 * replaced at frame 7; the bytes uploaded per warm frame.
 */
START_TEST(test_far_world_frames)
{
    context_setup();
    size_t exact_pairs = 0, exact_triangle_pairs = 0, far_candidates = 0;
    for (int seed = 0; seed < 2; seed++) {
        test_rng rng = {0xFA2D0000u + (uint64_t)seed};
        glcollide_mesh *meshes[3], *retired = NULL;
        glcollide_world *world = NULL;
        ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
        for (int m = 0; m < 3; m++) {
            meshes[m] = test_random_mesh(&rng, test_rng_uniform(&rng, 0.4, 1.0));
            ck_assert_int_eq(glcollide_world_add_mesh(world, meshes[m], NULL), GLCOLLIDE_OK);
        }
        const size_t objects = 24;
        for (size_t o = 0; o < objects; o++) {
            double t[3], q[4];
            random_pose(&rng, 2.5, t, q);
            ck_assert_int_eq(glcollide_world_add_object(world, (uint32_t)(o % 3), t, q, NULL),
                             GLCOLLIDE_OK);
        }
        glcollide_query_result exact = {0}, far = {0}, far_near = {0}, exact_near = {0},
                               far_objects = {0}, exact_objects = {0};
        for (int frame = 0; frame < 12; frame++) {
            size_t deformed = 0;
            for (uint32_t o = 0; o < objects; o++) {
                double t[3], q[4];
                random_pose(&rng, 2.5, t, q);
                ck_assert_int_eq(glcollide_world_set_pose(world, o, t, q), GLCOLLIDE_OK);
            }
            if (frame % 4 == 3) {
                glcollide_mesh *mesh = meshes[frame % 3];
                size_t first = mesh->vertex_count / 3, count = mesh->vertex_count / 3;
                for (size_t v = first; v < first + count; v++)
                    for (int k = 0; k < 3; k++)
                        mesh->positions[3 * v + k] *= 1.2;
                ck_assert_int_eq(
                    glcollide_world_mesh_changed(world, (uint32_t)(frame % 3), first, count),
                    GLCOLLIDE_OK);
                deformed = count;
            }
            if (frame == 7) {
                retired = meshes[1];
                meshes[1] = test_random_mesh(&rng, 0.8);
                ck_assert_int_eq(glcollide_world_replace_mesh(world, 1, meshes[1]), GLCOLLIDE_OK);
            }
            query(world, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_TRIANGLES, 0, &exact);
            query(world, GLCOLLIDE_METHOD_FAR, GLCOLLIDE_LEVEL_TRIANGLES, 0, &far);
            query(world, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_TRIANGLES, 0.02, &exact_near);
            query(world, GLCOLLIDE_METHOD_FAR, GLCOLLIDE_LEVEL_TRIANGLES, 0.02, &far_near);
            query(world, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_OBJECTS, 0, &exact_objects);
            query(world, GLCOLLIDE_METHOD_FAR, GLCOLLIDE_LEVEL_OBJECTS, 0, &far_objects);
            TEST_REQUIRE(missing(&exact, &far) == 0, "seed %d frame %d: far missed %zu", seed,
                         frame, missing(&exact, &far));
            TEST_REQUIRE(missing(&exact_near, &far_near) == 0,
                         "seed %d frame %d: far (distance) missed %zu", seed, frame,
                         missing(&exact_near, &far_near));
            for (size_t k = 0; k < exact_objects.pair_count; k++)
                TEST_REQUIRE(bsearch(&exact_objects.pairs[k], far_objects.pairs,
                                     far_objects.pair_count, sizeof *far_objects.pairs,
                                     glcollide_index_pair_compare),
                             "seed %d frame %d: far objects missed a pair", seed, frame);
            /* Warm (past the first frame and the replacement): the records of
             * the objects taking part, uniforms, and a deformed range. */
            if (frame > 0 && frame != 7) {
                uint64_t allowed = 64 * objects + 4096 + 16 * deformed;
                TEST_REQUIRE(far.stats.upload_bytes <= allowed,
                             "seed %d frame %d: %llu bytes uploaded, at most %llu", seed, frame,
                             (unsigned long long)far.stats.upload_bytes,
                             (unsigned long long)allowed);
                TEST_REQUIRE(far_near.stats.upload_bytes <= 64 * objects + 4096,
                             "seed %d frame %d: %llu bytes uploaded (distance)", seed, frame,
                             (unsigned long long)far_near.stats.upload_bytes);
            }
            exact_pairs += exact.pair_count;
            exact_triangle_pairs += exact.triangle_pair_count;
            far_candidates += far.triangle_pair_count;
        }
        glcollide_query_result *all[] = {&exact,      &far,         &far_near,
                                         &exact_near, &far_objects, &exact_objects};
        for (size_t r = 0; r < sizeof all / sizeof all[0]; r++)
            glcollide_query_result_clear(all[r]);
        glcollide_world_destroy(&world);
        for (int m = 0; m < 3; m++)
            glcollide_mesh_destroy(&meshes[m]);
        glcollide_mesh_destroy(&retired);
    }
    ck_assert_uint_gt(exact_pairs, 50);
    ck_assert_uint_gt(exact_triangle_pairs, 500);
    printf("far on a world: 24 frames, %zu exact pairs, %zu exact triangle pairs, %zu far "
           "candidates, none missed\n",
           exact_pairs, exact_triangle_pairs, far_candidates);
}
END_TEST

/*
 * Objects at rest keep what was placed for them (set again to the same pose,
 * they do not change), and a change of their mesh still reaches them: a
 * sphere at rest, turned 45 degrees (its placed box wider than its placed
 * BVH nodes, so the pair is tightened before they meet), a box stepping
 * towards it, the sphere grown in place at frame 8 so that the box meets it
 * at once; FAR (triangles and objects) misses nothing the exact method
 * finds, every frame.
 */
START_TEST(test_far_world_rest_and_change)
{
    context_setup();
    glcollide_mesh *sphere = NULL, *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 16, 8, &sphere), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.4, 0.4, 0.4, &box), GLCOLLIDE_OK);
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    uint32_t ms, mb;
    ck_assert_int_eq(glcollide_world_add_mesh(world, sphere, &ms), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, box, &mb), GLCOLLIDE_OK);
    const double at_rest[3] = {0, 0, 0}, q[4] = {1, 0, 0, 0};
    const double turned[4] = {0.92387953251128674, 0, 0, 0.38268343236508978};
    double t[3] = {1.5, 0.05, 0};
    ck_assert_int_eq(glcollide_world_add_object(world, ms, at_rest, turned, NULL), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_object(world, mb, t, q, NULL), GLCOLLIDE_OK);
    glcollide_query_result exact = {0}, far = {0};
    size_t met = 0;
    for (int frame = 0; frame < 12; frame++) {
        ck_assert_int_eq(glcollide_world_set_pose(world, 0, at_rest, turned), GLCOLLIDE_OK);
        t[0] = 1.5 - 0.07 * frame;
        ck_assert_int_eq(glcollide_world_set_pose(world, 1, t, q), GLCOLLIDE_OK);
        if (frame == 8) {
            for (size_t v = 0; v < sphere->vertex_count; v++)
                for (int k = 0; k < 3; k++)
                    sphere->positions[3 * v + k] *= 1.5;
            ck_assert_int_eq(glcollide_world_mesh_changed(world, ms, 0, sphere->vertex_count),
                             GLCOLLIDE_OK);
        }
        for (int level = 0; level < 2; level++) {
            glcollide_level l = level ? GLCOLLIDE_LEVEL_OBJECTS : GLCOLLIDE_LEVEL_TRIANGLES;
            query(world, GLCOLLIDE_METHOD_EXACT, l, 0, &exact);
            query(world, GLCOLLIDE_METHOD_FAR, l, 0, &far);
            ck_assert_msg(missing(&exact, &far) == 0, "frame %d, level %d: FAR missed %zu", frame,
                          level, missing(&exact, &far));
            met += level && exact.pair_count;
        }
    }
    ck_assert_msg(met == 4, "the box met the sphere in %zu frames, not 8..11", met);
    glcollide_query_result_clear(&exact);
    glcollide_query_result_clear(&far);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&sphere);
    glcollide_mesh_destroy(&box);
}
END_TEST

/* Draw calls, dispatches and syncs of a FAR frame do not depend on the
 * number of objects; the bytes uploaded grow by 64 per object. */
START_TEST(test_far_world_cost)
{
    context_setup();
    uint64_t draw_calls[2], dispatches[2], syncs[2], uploads[2];
    const size_t counts[2] = {50, 400};
    for (int c = 0; c < 2; c++) {
        glcollide_mesh *sphere = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 8, 5, &sphere), GLCOLLIDE_OK);
        glcollide_world *world = NULL;
        ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_world_add_mesh(world, sphere, NULL), GLCOLLIDE_OK);
        for (size_t o = 0; o < counts[c]; o++) {
            /* a row of touching pairs: every object takes part */
            const double t[3] = {(double)(o / 2) * 3.0 + (double)(o % 2) * 0.9, 0, 0},
                         q[4] = {1, 0, 0, 0};
            ck_assert_int_eq(glcollide_world_add_object(world, 0, t, q, NULL), GLCOLLIDE_OK);
        }
        glcollide_query_result far = {0};
        query(world, GLCOLLIDE_METHOD_FAR, GLCOLLIDE_LEVEL_TRIANGLES, 0, &far); /* warms up */
        ck_assert_uint_eq(far.pair_count, counts[c] / 2);
        query(world, GLCOLLIDE_METHOD_FAR, GLCOLLIDE_LEVEL_TRIANGLES, 0, &far);
        draw_calls[c] = far.stats.draw_calls;
        dispatches[c] = far.stats.compute_dispatches;
        syncs[c] = far.stats.gpu_syncs;
        uploads[c] = far.stats.upload_bytes;
        printf("far on a world of %zu spheres: %llu draw calls, %llu dispatches, %llu syncs, "
               "%llu bytes uploaded, %llu read back\n",
               counts[c], (unsigned long long)draw_calls[c], (unsigned long long)dispatches[c],
               (unsigned long long)syncs[c], (unsigned long long)uploads[c],
               (unsigned long long)far.stats.readback_bytes);
        glcollide_query_result_clear(&far);
        glcollide_world_destroy(&world);
        glcollide_mesh_destroy(&sphere);
    }
    ck_assert_uint_eq(draw_calls[0], draw_calls[1]);
    ck_assert_uint_eq(dispatches[0], dispatches[1]);
    ck_assert_uint_eq(syncs[0], syncs[1]);
    ck_assert_uint_le(syncs[1], 2);
    ck_assert_uint_eq(uploads[1] - uploads[0], 64 * (counts[1] - counts[0]));
}
END_TEST

/* A mesh registered in a world already on the GPU uploads that mesh alone
 * (its vertices, indices and row of the mesh table) beside the frame's
 * poses, not every mesh again; FAR still misses no exact triangle pair. */
START_TEST(test_far_world_new_mesh_upload)
{
    context_setup();
    glcollide_mesh *meshes[3];
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 24, 12, &meshes[0]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.4, 20, 10, &meshes[1]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.6, 0.5, 0.4, &meshes[2]), GLCOLLIDE_OK);
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    const double q[4] = {1, 0, 0, 0};
    glcollide_query_result far = {0}, exact = {0};
    uint64_t before = 0;
    for (uint32_t m = 0; m < 3; m++) {
        ck_assert_int_eq(glcollide_world_add_mesh(world, meshes[m], NULL), GLCOLLIDE_OK);
        /* two objects of the new mesh, touching each other and the last */
        for (int k = 0; k < 2; k++) {
            const double t[3] = {0.8 * (2 * m + (uint32_t)k), 0.05 * k, 0};
            ck_assert_int_eq(glcollide_world_add_object(world, m, t, q, NULL), GLCOLLIDE_OK);
        }
        query(world, GLCOLLIDE_METHOD_FAR, GLCOLLIDE_LEVEL_TRIANGLES, 0, &far);
        query(world, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_TRIANGLES, 0, &exact);
        ck_assert_uint_gt(exact.triangle_pair_count, 0);
        ck_assert_uint_eq(missing(&exact, &far), 0);
        uint64_t mesh_bytes = 16 * meshes[m]->vertex_count + 12 * meshes[m]->triangle_count + 16;
        uint64_t all_bytes = 0;
        for (uint32_t n = 0; n <= m; n++)
            all_bytes += 16 * meshes[n]->vertex_count + 12 * meshes[n]->triangle_count + 16;
        uint64_t uploaded = far.stats.upload_bytes;
        /* the frame before uploaded no mesh: its bytes are the poses and
         * uniforms, which grow by 64 per object */
        query(world, GLCOLLIDE_METHOD_FAR, GLCOLLIDE_LEVEL_TRIANGLES, 0, &far);
        uint64_t warm = far.stats.upload_bytes;
        printf("far: mesh %u registered (%zu vertices, %zu triangles): %llu bytes uploaded, "
               "%llu on the next frame\n",
               m, meshes[m]->vertex_count, meshes[m]->triangle_count, (unsigned long long)uploaded,
               (unsigned long long)warm);
        ck_assert_uint_le(uploaded, warm + mesh_bytes);
        if (m > 0) {
            ck_assert_uint_eq(warm, before + 2 * 64);
            ck_assert_uint_lt(uploaded, warm + all_bytes - 16 * meshes[0]->vertex_count);
        }
        before = warm;
    }
    glcollide_query_result_clear(&far);
    glcollide_query_result_clear(&exact);
    glcollide_world_destroy(&world);
    for (int m = 0; m < 3; m++)
        glcollide_mesh_destroy(&meshes[m]);
}
END_TEST

/* A world of count spheres of radius 0.5 (one mesh, made into *sphere)
 * along x, spacing apart. */
static glcollide_world *sphere_row(int count, double spacing, glcollide_mesh **sphere)
{
    *sphere = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 10, 6, sphere), GLCOLLIDE_OK);
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, *sphere, NULL), GLCOLLIDE_OK);
    const double q[4] = {1, 0, 0, 0};
    for (int o = 0; o < count; o++) {
        const double t[3] = {spacing * o, 0, 0};
        ck_assert_int_eq(glcollide_world_add_object(world, 0, t, q, NULL), GLCOLLIDE_OK);
    }
    return world;
}

/* cullide, stencil and convex on a world over frames: the answers of fresh
 * one-shot queries on the same meshes and poses. */
/* convex on a world checks each mesh's solidity through the world, once, not
 * on every query (a self-intersection search per mesh per frame before). */
START_TEST(test_convex_world_checks_solids_once)
{
    context_setup();
    glcollide_mesh *sphere;
    glcollide_world *world = sphere_row(3, 0.6, &sphere);
    const double q[4] = {1, 0, 0, 0};
    glcollide_query_result result = {0};
    for (int frame = 0; frame < 3; frame++) {
        const double t[3] = {0.6 + 0.01 * frame, 0, 0};
        ck_assert_int_eq(glcollide_world_set_pose(world, 1, t, q), GLCOLLIDE_OK);
        query(world, GLCOLLIDE_METHOD_CONVEX, GLCOLLIDE_LEVEL_OBJECTS, 0, &result);
        ck_assert_uint_eq(result.pair_count, 2); /* 0-1 and 1-2 overlap, 0-2 apart */
        ck_assert_uint_eq(world->solid_checks, 1);
    }
    glcollide_query_result_clear(&result);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&sphere);
}
END_TEST

/* Myszkowski's test asks once per mesh whether it bounds a convex solid (an
 * O(n log n) sort of its edges, every test before), and again after the mesh
 * changes: a sphere is convex, the same sphere with a vertex pushed in is
 * not. The answers do not depend on it (the passes check per pixel). */
START_TEST(test_convex_world_convexity_once)
{
    context_setup();
    glcollide_mesh *sphere;
    glcollide_world *world = sphere_row(2, 0.9, &sphere);
    glcollide_query_result result = {0};
    const glcollide_world_mesh_entry *entry = &world->meshes[0];
    query(world, GLCOLLIDE_METHOD_CONVEX, GLCOLLIDE_LEVEL_OBJECTS, 0, &result);
    ck_assert_uint_eq(result.pair_count, 1);
    ck_assert_int_eq(entry->convex, 1);
    ck_assert_uint_eq(entry->convex_at, 1 + entry->changed_at);
    uint64_t found_at = entry->convex_at;
    query(world, GLCOLLIDE_METHOD_CONVEX, GLCOLLIDE_LEVEL_OBJECTS, 0, &result);
    ck_assert_uint_eq(entry->convex_at, found_at); /* not found again */
    /* A dent: vertex 7 a third of the way to the centre. */
    double *p = (double *)sphere->positions + 3 * 7;
    for (int k = 0; k < 3; k++)
        p[k] *= 0.66;
    ck_assert_int_eq(glcollide_world_mesh_changed(world, 0, 7, 1), GLCOLLIDE_OK);
    query(world, GLCOLLIDE_METHOD_CONVEX, GLCOLLIDE_LEVEL_OBJECTS, 0, &result);
    ck_assert_uint_eq(result.pair_count, 1);
    ck_assert_int_eq(entry->convex, 0);
    ck_assert_uint_eq(entry->convex_at, 1 + entry->changed_at);
    glcollide_query_result_clear(&result);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&sphere);
}
END_TEST

START_TEST(test_other_gpu_methods_world_vs_fresh)
{
    context_setup();
    test_rng rng = {0x0B1E0000u};
    glcollide_mesh *meshes[2];
    glcollide_world *world = NULL;
    test_scene *scene = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
    for (int m = 0; m < 2; m++) {
        ck_assert_int_eq(glcollide_mesh_generate_sphere(0.4 + 0.2 * m, 10, 6, &meshes[m]),
                         GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_world_add_mesh(world, meshes[m], NULL), GLCOLLIDE_OK);
        glcollide_mesh *copy = NULL;
        ck_assert_int_eq(glcollide_mesh_create(meshes[m]->positions, meshes[m]->vertex_count,
                                               meshes[m]->triangles, meshes[m]->triangle_count,
                                               NULL, &copy),
                         GLCOLLIDE_OK);
        test_scene_add_mesh(scene, copy);
    }
    for (size_t o = 0; o < 8; o++) {
        double t[3], q[4];
        random_pose(&rng, 2.0, t, q);
        ck_assert_int_eq(glcollide_world_add_object(world, (uint32_t)(o % 2), t, q, NULL),
                         GLCOLLIDE_OK);
        test_scene_add_object(scene, (uint32_t)(o % 2), t, q);
    }
    static const glcollide_method methods[] = {GLCOLLIDE_METHOD_CULLIDE, GLCOLLIDE_METHOD_STENCIL,
                                               GLCOLLIDE_METHOD_CONVEX};
    glcollide_query_result kept = {0};
    for (int frame = 0; frame < 4; frame++) {
        for (uint32_t o = 0; o < 8; o++) {
            double t[3], q[4];
            random_pose(&rng, 2.0, t, q);
            ck_assert_int_eq(glcollide_world_set_pose(world, o, t, q), GLCOLLIDE_OK);
            scene->objects[o] = *glcollide_world_object(world, o);
        }
        for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
            query(world, methods[m], GLCOLLIDE_LEVEL_OBJECTS, 0, &kept);
            glcollide_query_result fresh =
                test_run_query(scene, context, methods[m], GLCOLLIDE_LEVEL_OBJECTS, 256, 0);
            ck_assert_msg(kept.pair_count == fresh.pair_count, "%s frame %d: %zu pairs, fresh %zu",
                          glcollide_method_name(methods[m]), frame, kept.pair_count,
                          fresh.pair_count);
            for (size_t k = 0; k < kept.pair_count; k++)
                ck_assert(kept.pairs[k].a == fresh.pairs[k].a &&
                          kept.pairs[k].b == fresh.pairs[k].b);
            glcollide_query_result_clear(&fresh);
        }
        /* pairs given in place of the sweep: the swept answer among them */
        static const glcollide_method given[] = {GLCOLLIDE_METHOD_CULLIDE, GLCOLLIDE_METHOD_FAR,
                                                 GLCOLLIDE_METHOD_STENCIL, GLCOLLIDE_METHOD_CONVEX};
        for (size_t m = 0; m < sizeof given / sizeof given[0]; m++)
            for (int level = 0; level < (given[m] <= GLCOLLIDE_METHOD_FAR ? 2 : 1); level++) {
                glcollide_query_options options = glcollide_query_default_options();
                options.method = given[m];
                options.level = level ? GLCOLLIDE_LEVEL_TRIANGLES : GLCOLLIDE_LEVEL_OBJECTS;
                options.resolution = 256;
                test_query_given_pairs(world, context, &options);
            }
    }
    glcollide_query_result_clear(&kept);
    glcollide_world_destroy(&world);
    scene_destroy(&scene);
    for (int m = 0; m < 2; m++)
        glcollide_mesh_destroy(&meshes[m]);
}
END_TEST

Suite *suite_world_gpu(void)
{
    Suite *s = suite_create("world_gpu");
    TCase *tc = tcase_create("world_gpu");
    tcase_add_unchecked_fixture(tc, NULL, context_teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_far_world_frames);
    tcase_add_test(tc, test_far_world_rest_and_change);
    tcase_add_test(tc, test_far_world_cost);
    tcase_add_test(tc, test_far_world_new_mesh_upload);
    tcase_add_test(tc, test_other_gpu_methods_world_vs_fresh);
    tcase_add_test(tc, test_convex_world_checks_solids_once);
    tcase_add_test(tc, test_convex_world_convexity_once);
    suite_add_tcase(s, tc);
    return s;
}
