/* SPDX-License-Identifier: MIT */
/*
 * Myszkowski's pairwise test against the exact oracle (BVH + exact triangle
 * tests + point-in-mesh, through the world query, METHOD_EXACT):
 * - 1,000 random pairs (convex, pi-convex and concave generated solids and
 *   real meshes) at 64^2..512^2: false alarms must be within the stated
 *   tolerance (the oracle at that distance agrees), misses counted per
 *   resolution and shape class and printed;
 * - the guarantee: overlaps holding a ball of one pixel are never missed
 *   (sphere/sphere and sphere/torus pairs of known geometry);
 * - analytic cases, bad input, cost structure, method convex as a query,
 *   the caller's GL state.
 * The distance maps are in test_myszkowski_map.c, the CPU twin in
 * tests/unit/test_myszkowski_cpu.c; the pairs in helpers/myszkowski_pairs.c.
 */
#include "gpu/gl_internal.h" /* white box: the GL state saved and restored */
#include "helpers/myszkowski_pairs.h"
#include "helpers/tests.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        test_scene *scene = random_pair(seed, kinds);
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
        scene_destroy(&scene);
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
        test_scene *scene = NULL;
        ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
            glcollide_pose pose = {{0, 0, 0}, {qa[0], qa[1], qa[2], qa[3]}};
            glcollide_pose_transform_points(&pose, c, 1, moved);
            memcpy(centre_a, moved, sizeof moved);
            /* move along the tube's normal plane: use the radial direction */
            double radial[3] = {cos(phi), sin(phi), 0}, turned[3], origin[3] = {0, 0, 0}, o2[3];
            glcollide_pose_transform_points(&pose, radial, 1, turned);
            glcollide_pose_transform_points(&pose, origin, 1, o2);
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
        memcpy(scene->objects[1].pose.translation, moved, sizeof moved);
        glcollide_myszkowski_result apart = run(scene, (int)resolution, 1);
        if (!exact_touch(scene, apart.tolerance)) {
            near_misses++;
            TEST_REQUIRE(!apart.interference,
                         "pair %d (%s, %g^2): reported at a gap of %g (tolerance %g)", i,
                         torus ? "torus" : "sphere", resolution, gap, apart.tolerance);
        }
        scene_destroy(&scene);
    }
    printf("myszkowski guarantee: %d pairs overlapping by a ball of >= 1 pixel, %d found; %d pairs "
           "apart by 2..50 tolerances, none reported\n",
           tested, found_count, near_misses);
    ck_assert_int_ge(tested, 100);
    ck_assert_int_ge(near_misses, 100);
}
END_TEST

/* ------------------------------------------------------------ analytic cases */

/* Boxes and containment: the passes the paper predicts. */
START_TEST(test_boxes)
{
    setup();
    const double q[4] = {1, 0, 0, 0};
    for (int c = 0; c < 4; c++) {
        test_scene *scene = NULL;
        ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
        scene_destroy(&scene);
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
        test_scene *scene = NULL;
        ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
        ck_assert_int_eq(scene_myszkowski_test(tester, scene, 0, 1, &options, &found),
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
        scene_destroy(&scene);
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
        test_scene *scene = NULL;
        ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
        ck_assert_int_eq(scene_myszkowski_test(tester, scene, 0, 1, &options, &found),
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
        scene_destroy(&scene);
    }
}
END_TEST

/* ------------------------------------------------------------ errors, cost, query */

START_TEST(test_errors)
{
    setup();
    test_scene *scene = box_and_open_box();
    glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
    glcollide_myszkowski_result result;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    int status = scene_myszkowski_test(tester, scene, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "myszkowski: object 1 (open box) is not a closed solid: 4 boundary, 0 "
                       "non-manifold, 0 misoriented edges, 0 degenerate triangles, signed volume "
                       "0.833333");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = scene_myszkowski_test(tester, scene, 0, 0, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: objects 0 and 0: need two distinct objects of 2");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = scene_myszkowski_test(tester, scene, 0, 7, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: objects 0 and 7: need two distinct objects of 2");
    options.resolution = 8;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = scene_myszkowski_test(tester, scene, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: resolution 8 outside 16..4096");
    options = glcollide_myszkowski_default_options();
    options.direction[1] = NAN;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = scene_myszkowski_test(tester, scene, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: direction must be finite");
    options = glcollide_myszkowski_default_options();
    options.margin = -1;
    glcollide_myszkowski_map map;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = scene_myszkowski_map(tester, scene, 0, 1, &options, &map);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: margin must be finite and >= 0, got -1");
    ck_assert_ptr_null(map.distance);
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = scene_myszkowski_test(NULL, scene, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "myszkowski: tester, world or options is NULL");
    status = glcollide_myszkowski_create(NULL, NULL);
    ck_assert_int_eq(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    test_log_capture_stop();
    /* Non-finite coordinates (a deforming mesh rewritten in place). */
    scene->meshes[0]->positions[4] = INFINITY;
    options = glcollide_myszkowski_default_options();
    options.check_solids = 0;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = scene_myszkowski_test(tester, scene, 0, 1, &options, &result);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "world: box: vertex 1 has a non-finite coordinate");
    test_log_capture_stop();
    scene_destroy(&scene);
    /* An empty mesh interferes with nothing, and is no error. */
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *empty = NULL, *cube = NULL;
    ck_assert_int_eq(glcollide_mesh_create(NULL, 0, NULL, 0, "empty", &empty), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.5, 0.5, &cube), GLCOLLIDE_OK);
    const double q[4] = {1, 0, 0, 0}, t0[3] = {0, 0, 0};
    test_scene_add_object(scene, test_scene_add_mesh(scene, empty), t0, q);
    test_scene_add_object(scene, test_scene_add_mesh(scene, cube), t0, q);
    options = glcollide_myszkowski_default_options();
    options.check_solids = 0;
    ck_assert_int_eq(scene_myszkowski_test(tester, scene, 0, 1, &options, &result),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(result.interference, 0);
    ck_assert_int_eq(result.passes, 0);
    scene_destroy(&scene);
    glcollide_myszkowski_destroy(NULL);
}
END_TEST

/* Method convex as a query: the same pairs as the exact oracle on a row of
 * spheres and a knot threaded through a torus; draw calls and syncs per
 * candidate pair bounded. */
START_TEST(test_query)
{
    setup();
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
    ck_assert_int_eq(scene_query(scene, NULL, &options, &exact), GLCOLLIDE_OK);
    options.method = GLCOLLIDE_METHOD_CONVEX;
    options.resolution = 256;
    ck_assert_int_eq(scene_query(scene, context, &options, &convex), GLCOLLIDE_OK);
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
    int status = scene_query(scene, NULL, &options, &convex);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "query: method 'convex' runs on the GPU and needs a context");
    options.distance = 0.1;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = scene_query(scene, context, &options, &convex);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "query: method 'convex' answers interference only (no --distance)");
    test_log_capture_stop();
    scene_destroy(&scene);
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
        test_scene *scene = NULL;
        ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
        ck_assert_int_eq(scene_query(scene, NULL, &options, &exact), GLCOLLIDE_OK);
        options.distance = 1e-3;
        ck_assert_int_eq(scene_query(scene, NULL, &options, &near), GLCOLLIDE_OK);
        options = glcollide_query_default_options();
        options.method = GLCOLLIDE_METHOD_CONVEX;
        options.resolution = 256;
        ck_assert_int_eq(scene_query(scene, context, &options, &convex), GLCOLLIDE_OK);
        for (size_t k = 0; k < exact.pair_count; k++)
            missed += !bsearch(&exact.pairs[k], convex.pairs, convex.pair_count,
                               sizeof *convex.pairs, glcollide_index_pair_compare);
        for (size_t k = 0; k < convex.pair_count; k++) {
            int is_exact = bsearch(&convex.pairs[k], exact.pairs, exact.pair_count,
                                   sizeof *exact.pairs, glcollide_index_pair_compare) != NULL;
            extra += !is_exact;
            TEST_REQUIRE(is_exact || bsearch(&convex.pairs[k], near.pairs, near.pair_count,
                                             sizeof *near.pairs, glcollide_index_pair_compare),
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
        scene_destroy(&scene);
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
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
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
        ck_assert_int_eq(scene_myszkowski_test(own, scene, 0, 1, &options, &result),
                         GLCOLLIDE_OK);
        ck_assert_int_eq(result.interference, 1);
        ck_assert_int_eq(scene_myszkowski_map(own, scene, 0, 1, &options, &map),
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
    scene_destroy(&scene);
}

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
    tcase_add_test(tc, test_random_pairs);
    suite_add_tcase(suite, tc);
    return suite;
}
