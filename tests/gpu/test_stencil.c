/* SPDX-License-Identifier: MIT */
/*
 * The stencil method (Knott's CInDeR) against the exact oracle: false
 * positives must stay within the stated tolerance (a reported pair is
 * always closer than result.tolerance), false negatives are counted by
 * resolution and printed; containment, the 8-bit stencil's limit, open
 * meshes and the cost structure are checked on purpose-built scenes. On
 * the persistent world, over frames of random poses, its flags are checked
 * against the exact twin on the same world, and a warm frame against what
 * it may upload and check again.
 */
#include "helpers/tests.h"
/* White box: the method on a world (its tolerance), the world's checks. */
#include "methods/stencil.h"

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

static glcollide_query_result exact_pairs(const test_scene *scene, double distance)
{
    glcollide_query_options options = glcollide_query_default_options();
    options.distance = distance;
    glcollide_query_result result;
    ck_assert_int_eq(scene_query(scene, NULL, &options, &result), GLCOLLIDE_OK);
    return result;
}

static glcollide_stencil_result stencil(const test_scene *scene, int resolution,
                                        glcollide_stencil_counter counter)
{
    glcollide_stencil_options options = glcollide_stencil_default_options();
    options.resolution = resolution;
    options.counter = counter;
    glcollide_stencil_result result;
    int status = scene_stencil(scene, context, &options, &result);
    ck_assert_msg(status == GLCOLLIDE_OK, "stencil failed: %s", glcollide_status_string(status));
    return result;
}

static int has_pair(const glcollide_index_pair *pairs, size_t count, uint32_t a, uint32_t b)
{
    glcollide_index_pair key = {a, b};
    return count > 0 && /* bsearch wants a real array */
           bsearch(&key, pairs, count, sizeof key, glcollide_index_pair_compare) != NULL;
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
static test_scene *random_scene(uint64_t seed)
{
    test_rng rng = {seed};
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
        test_scene *scene = random_scene(seed);
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
        scene_destroy(&scene);
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
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
    scene_destroy(&scene);
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
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
    int status = scene_stencil(scene, context, &options, &found);
    test_log_capture_stop();
    ck_assert_int_eq(status, GLCOLLIDE_ERROR_INVALID_MESH);
    ck_assert_int_eq(test_log_count(), 1);
    ck_assert_msg(strstr(test_log_last(), "object 1 (open box) is not a closed solid: 4 boundary"),
                  "%s", test_log_last());
    options.check_solids = 0;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = scene_stencil(scene, context, &options, &found);
    test_log_capture_stop();
    ck_assert_int_eq(status, GLCOLLIDE_OK);
    ck_assert_uint_gt(found.negative_samples, 0);
    ck_assert_msg(strstr(test_log_all(), "not closed"), "%s", test_log_all());
    glcollide_stencil_result_clear(&found);
    scene_destroy(&scene);
}
END_TEST

/* Containment and localisation: a small box inside a large one is paired;
 * samples lie on the inner box's edges, inside the outer. A tiny box (well
 * under a pixel) inside is found through its vertex samples. */
START_TEST(test_containment_localisation)
{
    context_setup();
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
    ck_assert_int_eq(scene_stencil(scene, context, &options, &found), GLCOLLIDE_OK);
    ck_assert_int_eq(found.interference, 1);
    ck_assert_uint_eq(found.stats.gpu_syncs, 1);
    ck_assert_uint_eq(found.stats.readback_bytes, 4);
    glcollide_stencil_result_clear(&found);
    scene_destroy(&scene);
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
        test_scene *scene = NULL;
        ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
        ck_assert_uint_eq(found.stats.draw_calls, 25); /* 4 a view and the draw commands */
        ck_assert_uint_le(found.stats.gpu_syncs, 2);
        /* sample, owner, depth (4 bytes a texel) and depth-stencil (8) */
        ck_assert_uint_ge(glcollide_gl_storage_allocated(), 256u * 256u * 20u);
        ck_assert_uint_ge(glcollide_gl_storage_allocated(), storage);
        storage = glcollide_gl_storage_allocated();
        glcollide_query_result_clear(&exact);
        glcollide_stencil_result_clear(&found);
        scene_destroy(&scene);
    }
}
END_TEST

/* ------------------------------------------------------------ the world */

static glcollide_query_result world_exact(glcollide_world *world, double distance)
{
    glcollide_query_options options = glcollide_query_default_options();
    options.distance = distance;
    glcollide_query_result result;
    memset(&result, 0, sizeof result);
    ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &result), GLCOLLIDE_OK);
    return result;
}

/*
 * The stencil flags of world against the exact twin on the same world
 * (exact triangle intersection and point-in-solid): every flagged pair
 * touches or is closer than the tolerance; the pairs of must (one solid
 * wholly inside another, or deep overlaps) are all flagged. Returns the
 * exact pairs missed (shallow overlaps below a pixel may be).
 */
static size_t check_twin(glcollide_world *world, int resolution, const glcollide_index_pair *must,
                         size_t must_count, const char *what)
{
    glcollide_stencil_options options = glcollide_stencil_default_options();
    options.resolution = resolution;
    glcollide_stencil_result found;
    memset(&found, 0, sizeof found);
    int status = glcollide_stencil_world(world, context, &options, &found);
    ck_assert_msg(status == GLCOLLIDE_OK, "%s: stencil failed: %s", what,
                  glcollide_status_string(status));
    glcollide_query_result exact = world_exact(world, 0);
    glcollide_query_result near = world_exact(world, found.tolerance);
    TEST_REQUIRE(found.negative_samples == 0, "%s: %llu negative samples on closed meshes", what,
                 (unsigned long long)found.negative_samples);
    for (size_t k = 0; k < found.pair_count; k++)
        TEST_REQUIRE(has_pair(near.pairs, near.pair_count, found.pairs[k].a, found.pairs[k].b),
                     "%s: pair %u %u flagged but farther apart than the tolerance %g", what,
                     found.pairs[k].a, found.pairs[k].b, found.tolerance);
    for (size_t k = 0; k < must_count; k++) {
        TEST_REQUIRE(has_pair(exact.pairs, exact.pair_count, must[k].a, must[k].b),
                     "%s: the exact twin misses contained pair %u %u", what, must[k].a, must[k].b);
        TEST_REQUIRE(has_pair(found.pairs, found.pair_count, must[k].a, must[k].b),
                     "%s: contained pair %u %u not flagged", what, must[k].a, must[k].b);
    }
    size_t missed = 0;
    for (size_t k = 0; k < exact.pair_count; k++)
        missed += !has_pair(found.pairs, found.pair_count, exact.pairs[k].a, exact.pairs[k].b);
    glcollide_query_result_clear(&exact);
    glcollide_query_result_clear(&near);
    glcollide_stencil_result_clear(&found);
    return missed;
}

/*
 * A world of closed meshes over frames of random poses: a sphere of radius
 * 0.5 (container) holding a small box of half side 0.03 within 0.3 of its
 * centre (contained: the pair must be flagged), and others of meshes at
 * random in a cube of side `side`. Poses change every frame (set_pose), so
 * frames after the first run warm on the world.
 */
static size_t world_frames(uint64_t seed, glcollide_mesh **meshes, size_t mesh_count, int objects,
                           double side, int frames, int resolution, size_t *exact_pairs)
{
    test_rng rng = {seed};
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    uint32_t first = 0;
    for (size_t m = 0; m < mesh_count; m++)
        ck_assert_int_eq(glcollide_world_add_mesh(world, meshes[m], m ? NULL : &first),
                         GLCOLLIDE_OK);
    size_t missed = 0;
    for (int f = 0; f < frames; f++) {
        for (int i = 0; i < objects; i++) {
            double t[3], q[4];
            test_rng_quaternion(&rng, q);
            for (int k = 0; k < 3; k++)
                t[k] = test_rng_uniform(&rng, 0, side);
            /* object 1 (mesh 1, the small box) inside object 0 (mesh 0, the sphere) */
            uint32_t m = i < 2 ? (uint32_t)i : 2 + test_rng_below(&rng, (uint32_t)mesh_count - 2);
            if (i == 1) {
                const double *centre = glcollide_world_object(world, 0)->pose.translation;
                for (int k = 0; k < 3; k++)
                    t[k] = centre[k] + test_rng_uniform(&rng, -0.17, 0.17);
            }
            if (f == 0)
                ck_assert_int_eq(glcollide_world_add_object(world, m, t, q, NULL), GLCOLLIDE_OK);
            else
                ck_assert_int_eq(glcollide_world_set_pose(world, (uint32_t)i, t, q), GLCOLLIDE_OK);
        }
        char what[96];
        snprintf(what, sizeof what, "seed 0x%llx frame %d", (unsigned long long)seed, f);
        const glcollide_index_pair contained = {0, 1};
        missed += check_twin(world, resolution, &contained, 1, what);
        glcollide_query_result exact = world_exact(world, 0);
        *exact_pairs += exact.pair_count;
        glcollide_query_result_clear(&exact);
    }
    glcollide_world_destroy(&world);
    return missed;
}

static void container_meshes(glcollide_mesh **meshes)
{
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 16, 10, &meshes[0]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.03, 0.03, 0.03, &meshes[1]), GLCOLLIDE_OK);
}

/*
 * Generated meshes: 30 worlds (seeds 0x57E0D000 + i), 8 objects each (the
 * container, the contained box, 6 of 4 random closed meshes) in a cube of
 * side 1.5, 3 frames each at 512^2: 90 scenes.
 */
START_TEST(test_world_generated)
{
    context_setup();
    size_t missed = 0, exact = 0;
    for (int i = 0; i < 30; i++) {
        test_rng rng = {0x57E0D000u + (uint64_t)i};
        glcollide_mesh *meshes[6] = {NULL};
        container_meshes(meshes);
        for (int m = 2; m < 6; m++)
            meshes[m] = closed_mesh(&rng, test_rng_uniform(&rng, 0.3, 0.8));
        missed += world_frames(0x57E0D000u + (uint64_t)i, meshes, 6, 8, 1.5, 3, 512, &exact);
        for (int m = 0; m < 6; m++)
            glcollide_mesh_destroy(&meshes[m]);
    }
    printf("stencil on the world, generated meshes: 90 scenes at 512^2, %zu exact pairs, %zu "
           "missed, every contained pair flagged\n",
           exact, missed);
}
END_TEST

/*
 * Real meshes (bunny00, knot1, knot2, elephant, dino, scaled to 0.8): 8
 * worlds (seeds 0x57E0E000 + i), 8 objects each (the container, the
 * contained box, 6 real ones) in a cube of side 1.5, 2 frames each at
 * 512^2: 16 scenes; and a bunny of size 0.5 inside a sphere of radius 2.
 */
START_TEST(test_world_real)
{
    context_setup();
    static const char *const names[5] = {"bunny00.off", "knot1.off", "knot2.off", "elephant.off",
                                         "dino.off"};
    glcollide_mesh *meshes[7] = {NULL};
    container_meshes(meshes);
    for (int m = 0; m < 5; m++) {
        ck_assert_int_eq(glcollide_mesh_load(test_data_mesh(names[m]), 1.0, &meshes[2 + m]),
                         GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_fit(meshes[2 + m], 0.8), GLCOLLIDE_OK);
    }
    size_t missed = 0, exact = 0;
    for (int i = 0; i < 8; i++)
        missed += world_frames(0x57E0E000u + (uint64_t)i, meshes, 7, 8, 1.5, 2, 512, &exact);
    printf("stencil on the world, real meshes: 16 scenes at 512^2, %zu exact pairs, %zu missed, "
           "every contained pair flagged\n",
           exact, missed);
    /* The bunny wholly inside a big sphere. */
    glcollide_mesh *big = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(2.0, 24, 16, &big), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_fit(meshes[2], 0.5), GLCOLLIDE_OK);
    glcollide_world *world = NULL;
    uint32_t mb = 0, mbunny = 0;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, big, &mb), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, meshes[2], &mbunny), GLCOLLIDE_OK);
    const double t0[3] = {5, 5, 5}, t1[3] = {5.2, 4.9, 5.1}, q0[4] = {1, 0, 0, 0},
                 q1[4] = {0.5, 0.5, 0.5, 0.5};
    ck_assert_int_eq(glcollide_world_add_object(world, mb, t0, q0, NULL), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_object(world, mbunny, t1, q1, NULL), GLCOLLIDE_OK);
    const glcollide_index_pair contained = {0, 1};
    ck_assert_uint_eq(check_twin(world, 256, &contained, 1, "bunny in a sphere"), 0);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&big);
    for (int m = 0; m < 7; m++)
        glcollide_mesh_destroy(&meshes[m]);
}
END_TEST

/*
 * A warm frame: 40 objects (spheres, boxes, a bunny) queried, moved, queried
 * again. The second query uploads only the objects' records (48 bytes each)
 * and a few uniforms: at most 64 bytes per object; the world's solid checks
 * are not run again. A deformation then sends its vertex range (16 bytes a
 * vertex) and checks that mesh alone again.
 */
START_TEST(test_world_warm_frame)
{
    context_setup();
    glcollide_mesh *meshes[3] = {NULL};
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.4, 16, 10, &meshes[0]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.3, 0.2, 0.25, &meshes[1]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("bunny00.off"), 1.0, &meshes[2]),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_fit(meshes[2], 0.8), GLCOLLIDE_OK);
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    for (int m = 0; m < 3; m++)
        ck_assert_int_eq(glcollide_world_add_mesh(world, meshes[m], NULL), GLCOLLIDE_OK);
    enum { N = 40 };
    test_rng rng = {0x57E0F000u};
    for (int i = 0; i < N; i++) {
        double t[3], q[4];
        test_rng_quaternion(&rng, q);
        for (int k = 0; k < 3; k++)
            t[k] = test_rng_uniform(&rng, 0, 3.0);
        ck_assert_int_eq(glcollide_world_add_object(world, (uint32_t)(i % 3), t, q, NULL),
                         GLCOLLIDE_OK);
    }
    glcollide_query_options options = glcollide_query_default_options();
    options.method = GLCOLLIDE_METHOD_STENCIL;
    options.resolution = 256;
    glcollide_query_result result;
    memset(&result, 0, sizeof result);
    ck_assert_int_eq(glcollide_world_query(world, context, &options, &result), GLCOLLIDE_OK);
    uint64_t cold = result.stats.upload_bytes, checks = world->solid_checks;
    ck_assert_uint_eq(checks, 3);
    for (int i = 0; i < N; i++) {
        const glcollide_object *pose = glcollide_world_object(world, (uint32_t)i);
        double t[3] = {pose->pose.translation[0] + 0.05, pose->pose.translation[1],
                       pose->pose.translation[2]};
        ck_assert_int_eq(glcollide_world_set_pose(world, (uint32_t)i, t, pose->pose.rotation),
                         GLCOLLIDE_OK);
    }
    ck_assert_int_eq(glcollide_world_query(world, context, &options, &result), GLCOLLIDE_OK);
    uint64_t warm = result.stats.upload_bytes;
    printf("stencil warm frame, %d objects: %llu bytes uploaded cold, %llu warm (<= %d)\n", N,
           (unsigned long long)cold, (unsigned long long)warm, 64 * N);
    TEST_REQUIRE(warm <= 64 * N, "warm frame uploaded %llu bytes, more than 64 per object",
                 (unsigned long long)warm);
    ck_assert_uint_eq(world->solid_checks, checks);
    ck_assert_uint_eq(check_twin(world, 256, NULL, 0, "warm frame") <= 2, 1);
    /* The sphere's first 20 vertices pushed out by 1%: they alone travel. */
    double *positions = (double *)meshes[0]->positions;
    for (size_t v = 0; v < 3 * 20; v++)
        positions[v] *= 1.01;
    ck_assert_int_eq(glcollide_world_mesh_changed(world, 0, 0, 20), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_query(world, context, &options, &result), GLCOLLIDE_OK);
    TEST_REQUIRE(result.stats.upload_bytes <= 64 * N + 16 * 20,
                 "deformed frame uploaded %llu bytes",
                 (unsigned long long)result.stats.upload_bytes);
    ck_assert_uint_eq(world->solid_checks, checks + 1);
    glcollide_query_result_clear(&result);
    glcollide_world_destroy(&world);
    for (int m = 0; m < 3; m++)
        glcollide_mesh_destroy(&meshes[m]);
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
    tcase_add_test(tc, test_world_warm_frame);
    tcase_add_test(tc, test_world_generated);
    tcase_add_test(tc, test_world_real);
    suite_add_tcase(suite, tc);
    return suite;
}
