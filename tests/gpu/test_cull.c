/* SPDX-License-Identifier: MIT */
/*
 * CULLIDE and FAR: FAR must never cull a pair the exact oracle finds
 * (triangle pairs, object pairs, and pairs within --distance), on the
 * two-bunny00 scene and on 1,200 random scenes; the cost in draw calls and
 * GPU->CPU syncs must not grow with the scene. CULLIDE's misses are counted
 * and printed, not hidden.
 */
#include "helpers/tests.h"

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
                      "no headless EGL context: CULLIDE/FAR tests need one");
}

static glcollide_query_result query(const test_scene *scene, glcollide_method method,
                                    glcollide_level level, int resolution, double distance)
{
    return test_run_query(scene, context, method, level, resolution, distance);
}

/* Pairs of exact missing from candidates (both sorted). */
static size_t missed_triangle_pairs(const glcollide_query_result *exact,
                                    const glcollide_query_result *candidates)
{
    size_t missed = 0;
    for (size_t i = 0; i < exact->triangle_pair_count; i++)
        missed += candidates->triangle_pair_count == 0 || /* bsearch wants a real array */
                  !bsearch(&exact->triangle_pairs[i], candidates->triangle_pairs,
                           candidates->triangle_pair_count, sizeof *candidates->triangle_pairs,
                           glcollide_triangle_pair_compare);
    return missed;
}

/*
 * Object pairs of exact missing from candidates. At triangle level the
 * culling methods report the pairs that have candidate triangle pairs, so
 * only exact pairs with intersecting triangles count there; at object level
 * every exact pair (containment included) must be kept.
 */
static size_t missed_object_pairs(const glcollide_query_result *exact,
                                  const glcollide_query_result *candidates, glcollide_level level)
{
    size_t missed = 0;
    for (size_t i = 0; i < exact->pair_count; i++) {
        const glcollide_index_pair *p = &exact->pairs[i];
        int has_triangles = 0;
        for (size_t k = 0; k < exact->triangle_pair_count && !has_triangles; k++)
            has_triangles = exact->triangle_pairs[k].object_a == p->a &&
                            exact->triangle_pairs[k].object_b == p->b;
        if (level == GLCOLLIDE_LEVEL_TRIANGLES && !has_triangles)
            continue;
        missed += candidates->pair_count == 0 ||
                  !bsearch(p, candidates->pairs, candidates->pair_count, sizeof *candidates->pairs,
                           glcollide_index_pair_compare);
    }
    return missed;
}

static test_scene *bunny_scene(void)
{
    test_data_mesh("bunny00.off");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/scenes/bunnies.scene", GLCOLLIDE_SRCDIR);
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_load(path, &scene), GLCOLLIDE_OK);
    return scene;
}

/* The two-bunny00 scene: FAR keeps all ~1,700 intersecting pairs at every
 * resolution; CULLIDE's misses at 1400x1400 (FAR's Fig. 7 point) are printed. */
START_TEST(test_bunnies)
{
    context_setup();
    test_scene *scene = bunny_scene();
    glcollide_query_result exact = query(scene, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_TRIANGLES, 1024, 0);
    glcollide_query_result sap = query(scene, GLCOLLIDE_METHOD_SAP, GLCOLLIDE_LEVEL_TRIANGLES, 1024, 0);
    ck_assert_uint_gt(exact.triangle_pair_count, 1400);
    static const int resolutions[] = {256, 1400};
    for (size_t r = 0; r < sizeof resolutions / sizeof resolutions[0]; r++) {
        glcollide_query_result far =
            query(scene, GLCOLLIDE_METHOD_FAR, GLCOLLIDE_LEVEL_TRIANGLES, resolutions[r], 0);
        glcollide_query_result cullide =
            query(scene, GLCOLLIDE_METHOD_CULLIDE, GLCOLLIDE_LEVEL_TRIANGLES, resolutions[r], 0);
        size_t far_missed = missed_triangle_pairs(&exact, &far);
        size_t cullide_missed = missed_triangle_pairs(&exact, &cullide);
        printf("bunnies at %d^2: exact %zu pairs; sap %zu candidates; far %zu candidates "
               "(%.2fx fewer than sap), missed %zu; cullide %zu candidates, missed %zu "
               "(%.1f%%); far draw_calls=%llu gpu_syncs=%llu readback_bytes=%llu\n",
               resolutions[r], exact.triangle_pair_count, sap.triangle_pair_count,
               far.triangle_pair_count, (double)sap.triangle_pair_count / far.triangle_pair_count,
               far_missed, cullide.triangle_pair_count, cullide_missed,
               100.0 * cullide_missed / exact.triangle_pair_count,
               (unsigned long long)far.stats.draw_calls, (unsigned long long)far.stats.gpu_syncs,
               (unsigned long long)far.stats.readback_bytes);
        ck_assert_uint_eq(far_missed, 0);
        ck_assert_uint_lt(far.triangle_pair_count, sap.triangle_pair_count);
        ck_assert_uint_eq(far.pair_count, 1);
        glcollide_query_result_clear(&far);
        glcollide_query_result_clear(&cullide);
    }
    glcollide_query_result_clear(&exact);
    glcollide_query_result_clear(&sap);
    scene_destroy(&scene);
}
END_TEST

/* ------------------------------------------------------------ random scenes */

/* Real meshes, loaded once and scaled to about unit size in each scene. */
static glcollide_mesh *real_meshes[4];
static const char *const real_names[4] = {"knot1.off", "elephant.off", "cow.off", "knot2.off"};

static glcollide_mesh *real_mesh(test_rng *rng, double s)
{
    uint32_t k = test_rng_below(rng, 4);
    if (!real_meshes[k])
        ck_assert_int_eq(glcollide_mesh_load(test_data_mesh(real_names[k]), 1.0, &real_meshes[k]),
                         GLCOLLIDE_OK);
    const glcollide_mesh *m = real_meshes[k];
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_create(m->positions, m->vertex_count, m->triangles,
                                           m->triangle_count, real_names[k], &mesh),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_fit(mesh, 2 * s), GLCOLLIDE_OK);
    return mesh;
}

/*
 * Scene kinds, by seed % 6: 0 generated meshes in a cube; 1 the same 1e4 from
 * the origin; 2 a solid inside another; 3 exact face contact of two boxes
 * (touching, distance 0) plus a box 1e-6 away; 4 real meshes (knot1,
 * elephant, cow, knot2); 5 slivers and thin plates in a tight cluster.
 */
static test_scene *random_scene(uint64_t seed, double *distance)
{
    test_rng rng = {seed};
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
    int kind = (int)(seed % 6);
    *distance = (seed % 5 == 0) ? test_rng_uniform(&rng, 0, 0.02) : 0;
    double origin = kind == 1 ? 1e4 : 0;
    double q[4], t[3];
    if (kind == 2) {
        uint32_t outer = test_scene_add_mesh(scene, test_random_mesh(&rng, 1.0));
        uint32_t inner = test_scene_add_mesh(scene, test_random_mesh(&rng, 0.05));
        test_rng_quaternion(&rng, q);
        t[0] = t[1] = t[2] = 0;
        test_scene_add_object(scene, outer, t, q);
        test_rng_quaternion(&rng, q);
        for (int k = 0; k < 3; k++)
            t[k] = test_rng_uniform(&rng, -0.1, 0.1);
        test_scene_add_object(scene, inner, t, q);
    }
    if (kind == 3) {
        glcollide_mesh *box = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.5, 0.5, &box), GLCOLLIDE_OK);
        uint32_t b = test_scene_add_mesh(scene, box);
        const double identity[4] = {1, 0, 0, 0};
        double shift = test_rng_uniform(&rng, -0.4, 0.4);
        const double t0[3] = {0, 0, 0}, t1[3] = {1.0, shift, 0}, t2[3] = {-1.0 - 1e-6, 0, shift};
        test_scene_add_object(scene, b, t0, identity); /* touches 1 along a face */
        test_scene_add_object(scene, b, t1, identity);
        test_scene_add_object(scene, b, t2, identity); /* 1e-6 from 0 */
        if (*distance == 0 && (seed & 8))
            *distance = 2e-6;
    }
    int count = kind == 2 ? (int)test_rng_below(&rng, 2) : kind == 3 ? 1 : 2 + (int)test_rng_below(&rng, 4);
    double spread = kind == 5 ? 0.6 : 2.0;
    for (int i = 0; i < count; i++) {
        glcollide_mesh *mesh = kind == 4 ? real_mesh(&rng, test_rng_uniform(&rng, 0.4, 1.0))
                                         : test_random_mesh(&rng, test_rng_uniform(&rng, 0.3, 1.0));
        uint32_t m = test_scene_add_mesh(scene, mesh);
        test_rng_quaternion(&rng, q);
        for (int k = 0; k < 3; k++)
            t[k] = origin + test_rng_uniform(&rng, 0, spread);
        test_scene_add_object(scene, m, t, q);
    }
    return scene;
}

/*
 * 1,200 random scenes (seeds 0xFA500000 + i; GLCOLLIDE_SOAK_SCENES and
 * GLCOLLIDE_SOAK_SEED change both), at resolutions 32..512, a
 * third of them at object level: FAR's candidate triangle pairs contain every
 * exact intersecting pair (or pair within the distance), and its object pairs
 * every touching object pair (at object level, containment included).
 */
START_TEST(test_far_random_scenes)
{
    context_setup();
    static const int resolutions[] = {32, 64, 128, 256, 512};
    size_t scenes = 0, exact_triangle_pairs = 0, candidates = 0, sap_candidates = 0,
           cullide_missed = 0, exact_object_pairs = 0;
    /* `make soak` runs more scenes from another base seed. */
    const char *env_scenes = getenv("GLCOLLIDE_SOAK_SCENES"), *env_seed = getenv("GLCOLLIDE_SOAK_SEED");
    int scene_count = env_scenes ? atoi(env_scenes) : 1200;
    uint64_t base_seed = env_seed ? strtoull(env_seed, NULL, 0) : 0xFA500000u;
    for (int i = 0; i < scene_count; i++) {
        uint64_t seed = base_seed + (uint64_t)i;
        double distance;
        test_scene *scene = random_scene(seed, &distance);
        int resolution = resolutions[i % 5];
        glcollide_level level = (i % 3 == 2) ? GLCOLLIDE_LEVEL_OBJECTS : GLCOLLIDE_LEVEL_TRIANGLES;
        glcollide_query_result exact = query(scene, GLCOLLIDE_METHOD_EXACT, level, resolution, distance);
        glcollide_query_result far = query(scene, GLCOLLIDE_METHOD_FAR, level, resolution, distance);
        size_t missed = missed_triangle_pairs(&exact, &far);
        size_t missed_objects = missed_object_pairs(&exact, &far, level);
        if (missed || missed_objects)
            ck_abort_msg("seed 0x%llx (kind %d, resolution %d, distance %g): FAR missed %zu of %zu "
                         "triangle pairs and %zu of %zu object pairs",
                         (unsigned long long)seed, (int)(seed % 6), resolution, distance, missed,
                         exact.triangle_pair_count, missed_objects, exact.pair_count);
        if (level == GLCOLLIDE_LEVEL_TRIANGLES && i % 10 == 0) {
            glcollide_query_result cullide =
                query(scene, GLCOLLIDE_METHOD_CULLIDE, level, resolution, distance);
            glcollide_query_result sap = query(scene, GLCOLLIDE_METHOD_SAP, level, resolution, distance);
            cullide_missed += missed_triangle_pairs(&exact, &cullide);
            sap_candidates += sap.triangle_pair_count;
            candidates += far.triangle_pair_count;
            glcollide_query_result_clear(&cullide);
            glcollide_query_result_clear(&sap);
        }
        exact_triangle_pairs += exact.triangle_pair_count;
        exact_object_pairs += exact.pair_count;
        scenes++;
        glcollide_query_result_clear(&exact);
        glcollide_query_result_clear(&far);
        scene_destroy(&scene);
    }
    printf("far vs exact: %zu random scenes, %zu exact object pairs and %zu exact triangle pairs, "
           "none missed; on the sampled scenes far handed on %zu candidates where sap handed "
           "%zu, and cullide missed %zu pairs\n",
           scenes, exact_object_pairs, exact_triangle_pairs, candidates, sap_candidates,
           cullide_missed);
    ck_assert_uint_gt(exact_object_pairs, (size_t)scene_count / 4);
    ck_assert_uint_gt(exact_triangle_pairs, (size_t)scene_count * 4);
    for (int k = 0; k < 4; k++)
        glcollide_mesh_destroy(&real_meshes[k]);
}
END_TEST

/* Draw calls and syncs per query do not grow with the number of objects. */
START_TEST(test_cost_structure)
{
    context_setup();
    static const int counts[] = {2, 40, 400};
    uint64_t draw_calls[3], syncs[3];
    for (int c = 0; c < 3; c++) {
        test_scene *scene = NULL;
        ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
        glcollide_mesh *sphere = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 8, 5, &sphere), GLCOLLIDE_OK);
        uint32_t m = test_scene_add_mesh(scene, sphere);
        test_rng rng = {0xC057u + (uint64_t)c};
        double side = cbrt((double)counts[c]) * 1.2;
        for (int i = 0; i < counts[c]; i++) {
            double t[3] = {test_rng_uniform(&rng, 0, side), test_rng_uniform(&rng, 0, side),
                           test_rng_uniform(&rng, 0, side)},
                   q[4];
            test_rng_quaternion(&rng, q);
            test_scene_add_object(scene, m, t, q);
        }
        glcollide_query_result far = query(scene, GLCOLLIDE_METHOD_FAR, GLCOLLIDE_LEVEL_TRIANGLES, 256, 0);
        draw_calls[c] = far.stats.draw_calls;
        syncs[c] = far.stats.gpu_syncs;
        printf("far with %d spheres: %llu draw calls, %llu syncs, %llu bytes read back, %.1f ms\n",
               counts[c], (unsigned long long)far.stats.draw_calls,
               (unsigned long long)far.stats.gpu_syncs,
               (unsigned long long)far.stats.readback_bytes, far.stats.time_ms);
        /* two rounds of three views, three passes, points and quads */
        ck_assert_uint_le(far.stats.draw_calls, 36);
        ck_assert_uint_le(far.stats.gpu_syncs, 6);
        glcollide_query_result_clear(&far);
        scene_destroy(&scene);
    }
    /* 2 and 400 objects: the same passes (the 2-sphere scene may end early). */
    ck_assert_uint_eq(draw_calls[1], draw_calls[2]);
    ck_assert_uint_eq(syncs[1], syncs[2]);
}
END_TEST

static void context_teardown(void)
{
    glcollide_context_destroy(&context);
}

Suite *suite_cull(void)
{
    Suite *suite = suite_create("cull");
    TCase *tc = tcase_create("far");
    tcase_set_timeout(tc, 900);
    tcase_add_unchecked_fixture(tc, NULL, context_teardown);
    tcase_add_test(tc, test_bunnies);
    tcase_add_test(tc, test_far_random_scenes);
    tcase_add_test(tc, test_cost_structure);
    suite_add_tcase(suite, tc);
    return suite;
}
