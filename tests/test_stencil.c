/* SPDX-License-Identifier: MIT */
/*
 * The stencil method (Knott's CInDeR) against the exact oracle: false
 * positives must stay within the stated tolerance (a reported pair is
 * always closer than result.tolerance), false negatives are counted by
 * resolution and printed; containment, the 8-bit stencil's limit, open
 * meshes and the cost structure are checked on purpose-built scenes.
 */
#include "tests.h"

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
                      "no headless EGL context: the stencil tests need one");
}

static void context_teardown(void)
{
    glcollide_context_destroy(&context);
}

static glcollide_query_result exact_pairs(const glcollide_scene *scene, double distance)
{
    glcollide_query_options options = glcollide_query_default_options();
    options.distance = distance;
    glcollide_query_result result;
    ck_assert_int_eq(glcollide_query_run(scene, NULL, &options, &result), GLCOLLIDE_OK);
    return result;
}

static glcollide_stencil_result stencil(const glcollide_scene *scene, int resolution,
                                        glcollide_stencil_counter counter)
{
    glcollide_stencil_options options = glcollide_stencil_default_options();
    options.resolution = resolution;
    options.counter = counter;
    glcollide_stencil_result result;
    int status = glcollide_stencil_run(scene, context, &options, &result);
    ck_assert_msg(status == GLCOLLIDE_OK, "stencil failed: %s", glcollide_status_string(status));
    return result;
}

static int has_pair(const glcollide_object_pair *pairs, size_t count, uint32_t a, uint32_t b)
{
    glcollide_object_pair key = {a, b};
    return count > 0 && /* bsearch wants a real array */
           bsearch(&key, pairs, count, sizeof key, glcollide_object_pair_compare) != NULL;
}

/* test_random_mesh, redrawn until it is a closed solid (its sliver fan is
 * not: the stencil method requires solids and says so, see test_open_mesh). */
static glcollide_mesh *closed_mesh(test_rng *rng, double s)
{
    for (;;) {
        glcollide_mesh *mesh = test_random_mesh(rng, s);
        glcollide_mesh_report report;
        ck_assert_int_eq(glcollide_mesh_validate(mesh, &report), GLCOLLIDE_OK);
        if (report.closed)
            return mesh;
        glcollide_mesh_destroy(&mesh);
    }
}

/* Real closed meshes scaled to about unit size. */
static glcollide_mesh *real_meshes[6];
static const char *const real_names[6] = {"bunny00.off", "armadillo.off", "elephant.off",
                                          "knot1.off",   "knot2.off",     "dino.off"};

static glcollide_mesh *real_mesh(test_rng *rng, double s, int allow_large)
{
    uint32_t k = allow_large ? test_rng_below(rng, 6) : 2 + test_rng_below(rng, 4);
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
 * Scene kinds, by seed % 5: 0 generated meshes (test_random_mesh) in a cube;
 * 1 the same 1e4 from the origin; 2 a solid inside another (sometimes a
 * tiny one, 1e-3 of the outer); 3 real meshes (elephant, knots, dino; bunny00
 * and armadillo in one scene of 25); 4 a tight cluster of generated meshes.
 */
static glcollide_scene *random_scene(uint64_t seed)
{
    test_rng rng = {seed};
    glcollide_scene *scene = NULL;
    ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
    int kind = (int)(seed % 5);
    double origin = kind == 1 ? 1e4 : 0;
    double q[4], t[3];
    if (kind == 2) {
        uint32_t outer = test_scene_add_mesh(scene, closed_mesh(&rng, 1.0));
        double inner_size = (seed & 8) ? 1e-3 : 0.05;
        uint32_t inner = test_scene_add_mesh(scene, closed_mesh(&rng, inner_size));
        test_rng_quaternion(&rng, q);
        t[0] = t[1] = t[2] = 0;
        test_scene_add_object(scene, outer, t, q);
        test_rng_quaternion(&rng, q);
        for (int k = 0; k < 3; k++)
            t[k] = test_rng_uniform(&rng, -0.1, 0.1);
        test_scene_add_object(scene, inner, t, q);
    }
    int count = kind == 2 ? (int)test_rng_below(&rng, 2) : 2 + (int)test_rng_below(&rng, 4);
    double spread = kind == 4 ? 0.6 : 2.0;
    for (int i = 0; i < count; i++) {
        glcollide_mesh *mesh = kind == 3 ? real_mesh(&rng, test_rng_uniform(&rng, 0.4, 1.0), seed % 25 == 3)
                                         : closed_mesh(&rng, test_rng_uniform(&rng, 0.3, 1.0));
        uint32_t m = test_scene_add_mesh(scene, mesh);
        test_rng_quaternion(&rng, q);
        for (int k = 0; k < 3; k++)
            t[k] = origin + test_rng_uniform(&rng, 0, spread);
        test_scene_add_object(scene, m, t, q);
    }
    return scene;
}

/*
 * 1,000 random scenes (seeds 0x57E0C000 + i; GLCOLLIDE_SOAK_SCENES and
 * GLCOLLIDE_SOAK_SEED change both) at resolutions 64..512:
 * - no false positive beyond the tolerance: every reported pair is within
 *   result.tolerance of touching (exact oracle with that distance);
 * - false negatives (exact pairs not reported) counted per resolution and
 *   printed; the pairs whose samples were all hidden behind other edges.
 */
START_TEST(test_random_scenes)
{
    context_setup();
    static const int resolutions[] = {64, 128, 256, 512};
    enum { R = 4 };
    size_t exact_total[R] = {0}, missed[R] = {0}, false_positive[R] = {0}, within_tolerance[R] = {0};
    size_t scenes[R] = {0};
    const char *env_scenes = getenv("GLCOLLIDE_SOAK_SCENES"), *env_seed = getenv("GLCOLLIDE_SOAK_SEED");
    int scene_count = env_scenes ? atoi(env_scenes) : 1000;
    uint64_t base_seed = env_seed ? strtoull(env_seed, NULL, 0) : 0x57E0C000u;
    for (int i = 0; i < scene_count; i++) {
        uint64_t seed = base_seed + (uint64_t)i;
        glcollide_scene *scene = random_scene(seed);
        int r = (i / 5) % R;
        glcollide_query_result exact = exact_pairs(scene, 0);
        glcollide_stencil_counter counter =
            i % 7 == 0 ? GLCOLLIDE_STENCIL_COUNTER_ATOMIC : GLCOLLIDE_STENCIL_COUNTER_AUTO;
        glcollide_stencil_result found = stencil(scene, resolutions[r], counter);
        TEST_REQUIRE(found.negative_samples == 0, "seed 0x%llx: %llu negative samples on closed meshes",
                     (unsigned long long)seed, (unsigned long long)found.negative_samples);
        for (size_t k = 0; k < exact.pair_count; k++)
            missed[r] += !has_pair(found.pairs, found.pair_count, exact.pairs[k].a, exact.pairs[k].b);
        size_t extra = 0;
        for (size_t k = 0; k < found.pair_count; k++)
            extra += !has_pair(exact.pairs, exact.pair_count, found.pairs[k].a, found.pairs[k].b);
        if (extra) {
            /* Reported but not touching: must be closer than the tolerance. */
            glcollide_query_result near = exact_pairs(scene, found.tolerance);
            for (size_t k = 0; k < found.pair_count; k++)
                TEST_REQUIRE(has_pair(near.pairs, near.pair_count, found.pairs[k].a, found.pairs[k].b),
                             "seed 0x%llx (kind %d, resolution %d): pair %u %u reported but "
                             "farther apart than the tolerance %g",
                             (unsigned long long)seed, (int)(seed % 5), resolutions[r],
                             found.pairs[k].a, found.pairs[k].b, found.tolerance);
            glcollide_query_result_clear(&near);
            false_positive[r] += extra;
            within_tolerance[r] += extra;
        }
        /* Every sample names a pair that was reported. */
        for (size_t k = 0; k < found.sample_count; k++) {
            const glcollide_stencil_sample *s = &found.samples[k];
            uint32_t a = s->object < s->inside ? s->object : s->inside;
            uint32_t b = s->object < s->inside ? s->inside : s->object;
            TEST_REQUIRE(s->object != s->inside && has_pair(found.pairs, found.pair_count, a, b),
                         "seed 0x%llx: sample of %u inside %u without its pair",
                         (unsigned long long)seed, s->object, s->inside);
        }
        exact_total[r] += exact.pair_count;
        scenes[r]++;
        glcollide_query_result_clear(&exact);
        glcollide_stencil_result_clear(&found);
        glcollide_scene_destroy(&scene);
    }
    for (int r = 0; r < R; r++)
        printf("stencil vs exact at %d^2: %zu scenes, %zu exact pairs, %zu missed (%.1f%%), %zu "
               "false positives (all within the tolerance: %zu)\n",
               resolutions[r], scenes[r], exact_total[r], missed[r],
               exact_total[r] ? 100.0 * missed[r] / exact_total[r] : 0.0, false_positive[r],
               within_tolerance[r]);
    for (int k = 0; k < 6; k++)
        glcollide_mesh_destroy(&real_meshes[k]);
}
END_TEST

/* A small box inside 130 nested cubes: its samples are inside 130 solids,
 * beyond the 8-bit stencil. AUTO must switch to the atomic counter (boxes
 * overlap 129 others) and pair the small box with every cube; the forced
 * stencil wraps to a negative count, and says so. The small box sits off
 * the cubes' face diagonals in every view, so its samples are not hidden. */
START_TEST(test_deep_nesting)
{
    context_setup();
    glcollide_scene *scene = NULL;
    ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
    enum { N = 130 };
    const double origin[3] = {0, 0, 0}, q[4] = {1, 0, 0, 0}, inner[3] = {0.3, 0.1, 0.2};
    for (int i = 0; i < N; i++) {
        glcollide_mesh *cube = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_box(1.0 + 0.01 * i, 1.0 + 0.01 * i, 1.0 + 0.01 * i, &cube),
                         GLCOLLIDE_OK);
        test_scene_add_object(scene, test_scene_add_mesh(scene, cube), origin, q);
    }
    glcollide_mesh *small = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(0.01, 0.01, 0.01, &small), GLCOLLIDE_OK);
    test_scene_add_object(scene, test_scene_add_mesh(scene, small), inner, q);
    for (int forced = 0; forced < 2; forced++) {
        test_log_capture_start(GLCOLLIDE_LOG_WARNING);
        glcollide_stencil_result found = stencil(scene, 256, forced ? GLCOLLIDE_STENCIL_COUNTER_STENCIL
                                                                    : GLCOLLIDE_STENCIL_COUNTER_AUTO);
        test_log_capture_stop();
        size_t with_small = 0;
        for (uint32_t i = 0; i < N; i++)
            with_small += has_pair(found.pairs, found.pair_count, i, N);
        printf("small box in %d nested cubes, %s counter: paired with %zu cubes, %llu negative "
               "samples, %zu pairs in all\n",
               N, forced ? "8-bit stencil" : "auto (atomic)", with_small,
               (unsigned long long)found.negative_samples, found.pair_count);
        if (!forced) {
            ck_assert_uint_eq(with_small, N);
            ck_assert_uint_eq(found.negative_samples, 0);
            ck_assert_int_eq(test_log_count(), 0);
        } else {
            ck_assert_uint_lt(with_small, N);
            ck_assert_uint_gt(found.negative_samples, 0);
            ck_assert_int_ge(test_log_count(), 2); /* the overlap warning and the negative counts */
        }
        glcollide_stencil_result_clear(&found);
    }
    glcollide_scene_destroy(&scene);
}
END_TEST

/* Open meshes: named on the CPU; without the CPU check the GPU sees
 * negative counts and says so. */
START_TEST(test_open_mesh)
{
    context_setup();
    glcollide_mesh *box = NULL, *open = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.5, 0.5, &box), GLCOLLIDE_OK);
    /* the box without its last two triangles (one face missing) */
    ck_assert_int_eq(glcollide_mesh_create(box->positions, box->vertex_count, box->triangles,
                                           box->triangle_count - 2, "open box", &open),
                     GLCOLLIDE_OK);
    glcollide_scene *scene = NULL;
    ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
    /* the open box inside a large closed one, turned: the large box's far
     * edges behind the open box see its back face but not the missing front */
    glcollide_mesh *large = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(2, 2, 2, &large), GLCOLLIDE_OK);
    glcollide_mesh_destroy(&box);
    const double t0[3] = {0, 0, 0}, t1[3] = {0.3, 0.2, 0.1};
    const double norm = sqrt(0.95), turned[4] = {0.9 / norm, 0.3 / norm, 0.2 / norm, 0.1 / norm};
    const double tilted[4] = {0.8 / sqrt(0.9), 0.1 / sqrt(0.9), -0.4 / sqrt(0.9), 0.3 / sqrt(0.9)};
    test_scene_add_object(scene, test_scene_add_mesh(scene, large), t0, tilted);
    test_scene_add_object(scene, test_scene_add_mesh(scene, open), t1, turned);
    glcollide_stencil_options options = glcollide_stencil_default_options();
    options.resolution = 128;
    glcollide_stencil_result found;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    int status = glcollide_stencil_run(scene, context, &options, &found);
    test_log_capture_stop();
    ck_assert_int_eq(status, GLCOLLIDE_ERROR_INVALID_MESH);
    ck_assert_int_eq(test_log_count(), 1);
    ck_assert_msg(strstr(test_log_last(), "object 1 (open box) is not a closed solid: 4 boundary"),
                  "%s", test_log_last());
    options.check_solids = 0;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_stencil_run(scene, context, &options, &found);
    test_log_capture_stop();
    ck_assert_int_eq(status, GLCOLLIDE_OK);
    ck_assert_uint_gt(found.negative_samples, 0);
    ck_assert_msg(strstr(test_log_all(), "not closed"), "%s", test_log_all());
    glcollide_stencil_result_clear(&found);
    glcollide_scene_destroy(&scene);
}
END_TEST

/* Containment and localisation: a small box inside a large one is paired;
 * samples lie on the inner box's edges, inside the outer. A tiny box (well
 * under a pixel) inside is found through its vertex samples. */
START_TEST(test_containment_localisation)
{
    context_setup();
    glcollide_scene *scene = NULL;
    ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *big = NULL, *small = NULL, *tiny = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 1, 1, &big), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.2, 0.2, 0.2, &small), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(1e-4, 1e-4, 1e-4, &tiny), GLCOLLIDE_OK);
    const double q[4] = {1, 0, 0, 0}, t0[3] = {0, 0, 0}, t1[3] = {0.3, -0.2, 0.1},
                 t2[3] = {-0.5, 0.5, 0.4}, t3[3] = {5, 0, 0};
    test_scene_add_object(scene, test_scene_add_mesh(scene, big), t0, q);
    test_scene_add_object(scene, test_scene_add_mesh(scene, small), t1, q);
    test_scene_add_object(scene, test_scene_add_mesh(scene, tiny), t2, q);
    test_scene_add_object(scene, 0, t3, q); /* far away: pairs with nothing */
    glcollide_stencil_result found = stencil(scene, 128, GLCOLLIDE_STENCIL_COUNTER_AUTO);
    ck_assert_uint_eq(found.pair_count, 2);
    ck_assert(has_pair(found.pairs, found.pair_count, 0, 1));
    ck_assert(has_pair(found.pairs, found.pair_count, 0, 2));
    ck_assert_uint_gt(found.sample_count, 0);
    for (size_t k = 0; k < found.sample_count; k++) {
        const glcollide_stencil_sample *s = &found.samples[k];
        ck_assert_uint_eq(s->inside, 0);
        const double *c = s->object == 1 ? t1 : t2, h = s->object == 1 ? 0.2 : 1e-4;
        /* on the inner box's boundary, within the tolerance */
        double outside = 0, inside = INFINITY;
        for (int i = 0; i < 3; i++) {
            double d = fabs(s->position[i] - c[i]) - h;
            outside = fmax(outside, d);
            inside = fmin(inside, -d);
        }
        ck_assert_double_le(outside, found.tolerance);
        ck_assert_double_le(fmax(inside, 0), found.tolerance);
        for (int i = 0; i < 3; i++)
            ck_assert_double_lt(fabs(s->position[i]), 1.0);
    }
    glcollide_stencil_result_clear(&found);
    /* detect_only: the early answer with one 4-byte readback */
    glcollide_stencil_options options = glcollide_stencil_default_options();
    options.detect_only = 1;
    options.resolution = 128;
    ck_assert_int_eq(glcollide_stencil_run(scene, context, &options, &found), GLCOLLIDE_OK);
    ck_assert_int_eq(found.interference, 1);
    ck_assert_uint_eq(found.stats.gpu_syncs, 1);
    ck_assert_uint_eq(found.stats.readback_bytes, 4);
    glcollide_stencil_result_clear(&found);
    glcollide_scene_destroy(&scene);
}
END_TEST

/* Draw calls and syncs do not grow with the number of objects; no
 * interference costs one 4-byte readback. The GL storage counter covers at
 * least the four viewport-sized targets and never decreases. */
START_TEST(test_cost_structure)
{
    context_setup();
    static const int counts[] = {2, 40, 400};
    uint64_t storage = 0;
    for (int c = 0; c < 3; c++) {
        glcollide_scene *scene = NULL;
        ck_assert_int_eq(glcollide_scene_create(&scene), GLCOLLIDE_OK);
        glcollide_mesh *sphere = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 8, 5, &sphere), GLCOLLIDE_OK);
        uint32_t m = test_scene_add_mesh(scene, sphere);
        double side = cbrt((double)counts[c]) * 1.2;
        test_rng rng = {0x57C0u + (uint64_t)c};
        for (int i = 0; i < counts[c]; i++) {
            double t[3] = {test_rng_uniform(&rng, 0, side), test_rng_uniform(&rng, 0, side),
                           test_rng_uniform(&rng, 0, side)},
                   q[4];
            test_rng_quaternion(&rng, q);
            test_scene_add_object(scene, m, t, q);
        }
        glcollide_stencil_result found = stencil(scene, 256, GLCOLLIDE_STENCIL_COUNTER_AUTO);
        glcollide_query_result exact = exact_pairs(scene, 0);
        printf("stencil with %d spheres: %zu pairs (exact %zu), %llu draw calls, %llu syncs, %llu "
               "bytes read back, %.1f ms\n",
               counts[c], found.pair_count, exact.pair_count,
               (unsigned long long)found.stats.draw_calls, (unsigned long long)found.stats.gpu_syncs,
               (unsigned long long)found.stats.readback_bytes, found.stats.time_ms);
        ck_assert_uint_eq(found.stats.draw_calls, 24);
        ck_assert_uint_le(found.stats.gpu_syncs, 2);
        /* sample, owner, depth (4 bytes a texel) and depth-stencil (8) */
        ck_assert_uint_ge(glcollide_gl_storage_allocated(), 256u * 256u * 20u);
        ck_assert_uint_ge(glcollide_gl_storage_allocated(), storage);
        storage = glcollide_gl_storage_allocated();
        glcollide_query_result_clear(&exact);
        glcollide_stencil_result_clear(&found);
        glcollide_scene_destroy(&scene);
    }
}
END_TEST

Suite *suite_stencil(void)
{
    Suite *suite = suite_create("stencil");
    TCase *tc = tcase_create("stencil");
    tcase_set_timeout(tc, 900);
    tcase_add_unchecked_fixture(tc, NULL, context_teardown);
    tcase_add_test(tc, test_containment_localisation);
    tcase_add_test(tc, test_open_mesh);
    tcase_add_test(tc, test_deep_nesting);
    tcase_add_test(tc, test_cost_structure);
    tcase_add_test(tc, test_random_scenes);
    suite_add_tcase(suite, tc);
    return suite;
}
