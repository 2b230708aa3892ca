/* SPDX-License-Identifier: MIT */
/*
 * Queries: the exact oracle against brute force (all triangle pairs, and the
 * winding number for containment) on random scenes of generated meshes and on
 * the two-bunny00 scene; sweep-and-prune against brute-force box overlap.
 */
#include "helpers/tests.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double identity[4] = {1, 0, 0, 0};

static test_scene *new_scene(void)
{
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
    return scene;
}

static void add_object(test_scene *scene, uint32_t mesh, double x, double y, double z,
                       const double rotation[4])
{
    const double t[3] = {x, y, z};
    ck_assert_int_eq(scene_add_object(scene, mesh, t, rotation, NULL), GLCOLLIDE_OK);
}

static glcollide_query_result run(const test_scene *scene, glcollide_method method,
                                  glcollide_level level, double distance)
{
    glcollide_query_options options = glcollide_query_default_options();
    options.method = method;
    options.level = level;
    options.distance = distance;
    glcollide_query_result result;
    ck_assert_int_eq(scene_query(scene, NULL, &options, &result), GLCOLLIDE_OK);
    return result;
}

static glcollide_mesh *box(double h)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(h, h, h, &mesh), GLCOLLIDE_OK);
    return mesh;
}

static glcollide_mesh *sphere(double r, int slices, int stacks)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(r, slices, stacks, &mesh), GLCOLLIDE_OK);
    return mesh;
}

/* Two unit cubes along x: touching faces pair; a gap of 1e-9 does not,
 * unless the distance covers it. */
START_TEST(test_exact_cubes_touching)
{
    static const struct {
        double offset, distance;
        int pair;
    } cases[] = {{0.5, 0, 1}, {1.0, 0, 1}, {1.0 + 1e-9, 0, 0}, {1.0 + 1e-9, 2e-9, 1},
                 {1.5, 0.49, 0}, {1.5, 0.5, 1}, {3.0, 0, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        test_scene *scene = new_scene();
        uint32_t cube = test_scene_add_mesh(scene, box(0.5));
        add_object(scene, cube, 0, 0, 0, identity);
        add_object(scene, cube, cases[c].offset, 0, 0, identity);
        glcollide_query_result result =
            run(scene, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_TRIANGLES, cases[c].distance);
        ck_assert_msg(result.pair_count == (size_t)cases[c].pair, "case %zu: %zu pairs", c,
                      result.pair_count);
        ck_assert(cases[c].pair ? result.triangle_pair_count > 0 : result.triangle_pair_count == 0);
        if (cases[c].pair)
            ck_assert(result.pairs[0].a == 0 && result.pairs[0].b == 1);
        glcollide_query_result_clear(&result);
        scene_destroy(&scene);
    }
}
END_TEST

/* A solid inside another pairs although no triangles meet; an open mesh
 * inside does not (it bounds no volume). */
START_TEST(test_exact_containment)
{
    test_scene *scene = new_scene();
    uint32_t big = test_scene_add_mesh(scene, sphere(2, 24, 12));
    uint32_t small = test_scene_add_mesh(scene, sphere(0.5, 12, 6));
    add_object(scene, big, 10, 0, 0, identity);
    add_object(scene, small, 10.3, 0.2, -0.1, identity); /* inside object 0 */
    add_object(scene, small, 11.9, 0, 0, identity);      /* crosses the surface of 0 */
    add_object(scene, small, 20, 0, 0, identity);        /* alone */
    add_object(scene, big, 20, 0, 0, identity);          /* contains object 3 */
    glcollide_query_result result = run(scene, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_TRIANGLES, 0);
    ck_assert_uint_eq(result.pair_count, 3);
    ck_assert(result.pairs[0].a == 0 && result.pairs[0].b == 1);
    ck_assert(result.pairs[1].a == 0 && result.pairs[1].b == 2);
    ck_assert(result.pairs[2].a == 3 && result.pairs[2].b == 4);
    for (size_t i = 0; i < result.triangle_pair_count; i++)
        ck_assert(result.triangle_pairs[i].object_a == 0 && result.triangle_pairs[i].object_b == 2);
    glcollide_query_result_clear(&result);

    /* The big sphere with one triangle removed: containment no longer applies. */
    const glcollide_mesh *closed = scene->meshes[big];
    glcollide_mesh *open = NULL;
    ck_assert_int_eq(glcollide_mesh_create(closed->positions, closed->vertex_count,
                                           closed->triangles, closed->triangle_count - 1, "open",
                                           &open),
                     GLCOLLIDE_OK);
    test_scene *open_scene = new_scene();
    uint32_t open_big = test_scene_add_mesh(open_scene, open);
    uint32_t open_small = test_scene_add_mesh(open_scene, sphere(0.5, 12, 6));
    for (size_t i = 0; i < scene->object_count; i++)
        add_object(open_scene, scene->objects[i].mesh == big ? open_big : open_small,
                   scene->objects[i].pose.translation[0], scene->objects[i].pose.translation[1],
                   scene->objects[i].pose.translation[2], identity);
    result = run(open_scene, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_OBJECTS, 0);
    ck_assert_uint_eq(result.pair_count, 1);
    ck_assert(result.pairs[0].a == 0 && result.pairs[0].b == 2);
    glcollide_query_result_clear(&result);
    scene_destroy(&open_scene);
    scene_destroy(&scene);
}
END_TEST

/* ------------------------------------------------------------ brute force */

typedef struct brute_world {
    double *positions[64];
    const glcollide_mesh *meshes[64];
    size_t count;
} brute_world;

static void brute_build(const test_scene *scene, brute_world *w)
{
    ck_assert_uint_le(scene->object_count, 64);
    w->count = scene->object_count;
    for (size_t i = 0; i < w->count; i++) {
        const glcollide_mesh *mesh = scene->meshes[scene->objects[i].mesh];
        w->meshes[i] = mesh;
        w->positions[i] = malloc(3 * mesh->vertex_count * sizeof(double));
        glcollide_pose_transform_points(&scene->objects[i].pose, mesh->positions,
                                        mesh->vertex_count, w->positions[i]);
    }
}

static void brute_release(brute_world *w)
{
    for (size_t i = 0; i < w->count; i++)
        free(w->positions[i]);
}

static const double *corner(const brute_world *w, size_t object, size_t triangle, int k)
{
    return w->positions[object] + 3 * (size_t)w->meshes[object]->triangles[3 * triangle + k];
}

static int brute_triangles(const brute_world *w, size_t i, size_t ti, size_t j, size_t tj)
{
    return glcollide_tri_tri_overlap(corner(w, i, ti, 0), corner(w, i, ti, 1), corner(w, i, ti, 2),
                                     corner(w, j, tj, 0), corner(w, j, tj, 1), corner(w, j, tj, 2));
}

static int contains(const brute_world *w, size_t outer, size_t inner)
{
    const glcollide_mesh *m = w->meshes[outer];
    const glcollide_mesh placed = {w->positions[outer], m->triangles, m->vertex_count,
                                   m->triangle_count, NULL};
    double winding = glcollide_winding_number(&placed, corner(w, inner, 0, 0));
    return winding > 0.5;
}

/*
 * 120 random scenes (seed 0x5EED0001 + scene), 2-5 objects of generated meshes
 * in a 2.5-unit cube, half of them 1e4 away from the origin: every triangle
 * pair across objects is tested by brute force, containment by the winding
 * number; the exact query must give the same triangle pairs and object pairs.
 */
START_TEST(test_exact_random_scenes_vs_brute_force)
{
    size_t total_pairs = 0, total_contained = 0, total_triangle_pairs = 0;
    for (int s = 0; s < 120; s++) {
        test_rng rng = {0x5EED0001u + (uint64_t)s};
        test_scene *scene = new_scene();
        size_t n = 2 + test_rng_below(&rng, 4);
        double origin = (s % 2) ? 1e4 : 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t mesh = test_scene_add_mesh(
                scene, test_random_mesh(&rng, test_rng_uniform(&rng, 0.3, 1.0)));
            double q[4];
            test_rng_quaternion(&rng, q);
            add_object(scene, mesh, origin + test_rng_uniform(&rng, 0, 2.5),
                       origin + test_rng_uniform(&rng, 0, 2.5), test_rng_uniform(&rng, 0, 2.5), q);
        }
        glcollide_query_result result =
            run(scene, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_TRIANGLES, 0);
        brute_world w;
        brute_build(scene, &w);
        /* Brute force visits (i, j, ti, tj), the results' order too (grouped by
         * object pair): each expected pair is found by binary search. */
        size_t expected_triangle_pairs = 0, next_pair = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++) {
                int touching = 0;
                for (size_t ti = 0; ti < w.meshes[i]->triangle_count; ti++)
                    for (size_t tj = 0; tj < w.meshes[j]->triangle_count; tj++) {
                        if (!brute_triangles(&w, i, ti, j, tj))
                            continue;
                        touching = 1;
                        expected_triangle_pairs++;
                        glcollide_triangle_pair key = {(uint32_t)i, (uint32_t)ti, (uint32_t)j,
                                                       (uint32_t)tj};
                        ck_assert_msg(bsearch(&key, result.triangle_pairs,
                                              result.triangle_pair_count, sizeof key,
                                              glcollide_triangle_pair_compare),
                                      "seed %d: missing tri %zu %zu %zu %zu", s, i, ti, j, tj);
                    }
                int contained = !touching && (contains(&w, i, j) || contains(&w, j, i));
                total_contained += contained;
                if (touching || contained) {
                    ck_assert_msg(next_pair < result.pair_count, "seed %d: missing pair %zu %zu", s,
                                  i, j);
                    ck_assert_msg(result.pairs[next_pair].a == i && result.pairs[next_pair].b == j,
                                  "seed %d: expected pair %zu %zu", s, i, j);
                    next_pair++;
                }
            }
        ck_assert_uint_eq(next_pair, result.pair_count);
        ck_assert_uint_eq(expected_triangle_pairs, result.triangle_pair_count);
        total_pairs += result.pair_count;
        total_triangle_pairs += result.triangle_pair_count;
        brute_release(&w);
        glcollide_query_result_clear(&result);
        scene_destroy(&scene);
    }
    /* The scenes must exercise what they claim to. */
    ck_assert_uint_gt(total_pairs, 60);
    ck_assert_uint_gt(total_triangle_pairs, 1000);
    printf("exact vs brute force: 120 scenes, %zu object pairs (%zu by containment), "
           "%zu triangle pairs, all equal\n",
           total_pairs, total_contained, total_triangle_pairs);
}
END_TEST

/* SAP pairs are exactly the inclusive box overlaps (grown by D/2). */
START_TEST(test_sap_method_vs_brute_force)
{
    for (int s = 0; s < 40; s++) {
        test_rng rng = {0x5A900000u + (uint64_t)s};
        test_scene *scene = new_scene();
        uint32_t mesh =
            test_scene_add_mesh(scene, test_random_mesh(&rng, test_rng_uniform(&rng, 0.3, 1.0)));
        size_t n = 30;
        for (size_t i = 0; i < n; i++) {
            double q[4];
            test_rng_quaternion(&rng, q);
            add_object(scene, mesh, test_rng_uniform(&rng, 0, 6), test_rng_uniform(&rng, 0, 6),
                       test_rng_uniform(&rng, 0, 6), q);
        }
        double distance = (s % 3) * 0.1;
        glcollide_query_result result =
            run(scene, GLCOLLIDE_METHOD_SAP, GLCOLLIDE_LEVEL_OBJECTS, distance);
        brute_world w;
        brute_build(scene, &w);
        glcollide_aabb boxes[30];
        for (size_t i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++) {
                boxes[i].min[k] = INFINITY;
                boxes[i].max[k] = -INFINITY;
            }
            for (size_t v = 0; v < w.meshes[i]->vertex_count; v++)
                for (int k = 0; k < 3; k++) {
                    boxes[i].min[k] = fmin(boxes[i].min[k], w.positions[i][3 * v + k] - distance / 2);
                    boxes[i].max[k] = fmax(boxes[i].max[k], w.positions[i][3 * v + k] + distance / 2);
                }
        }
        size_t next = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                if (glcollide_aabb_overlap(&boxes[i], &boxes[j])) {
                    ck_assert_msg(next < result.pair_count && result.pairs[next].a == i &&
                                      result.pairs[next].b == j,
                                  "seed %d: pair %zu %zu", s, i, j);
                    next++;
                }
        ck_assert_uint_eq(next, result.pair_count);
        ck_assert_uint_eq(result.stats.aabb_pairs, result.pair_count);
        brute_release(&w);
        glcollide_query_result_clear(&result);
        scene_destroy(&scene);
    }
}
END_TEST

START_TEST(test_query_arguments)
{
    test_scene *scene = new_scene();
    glcollide_query_options options = glcollide_query_default_options();
    glcollide_query_result result;
    /* An empty scene answers nothing, successfully. */
    ck_assert_int_eq(scene_query(scene, NULL, &options, &result), GLCOLLIDE_OK);
    ck_assert_uint_eq(result.pair_count, 0);
    glcollide_query_result_clear(&result);
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG); /* the errors below are expected */
    options.method = GLCOLLIDE_METHOD_CONVEX; /* GPU methods without a context */
    ck_assert_int_eq(scene_query(scene, NULL, &options, &result),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    options.method = GLCOLLIDE_METHOD_FAR;
    ck_assert_int_eq(scene_query(scene, NULL, &options, &result),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    options = glcollide_query_default_options();
    options.distance = -1;
    ck_assert_int_eq(scene_query(scene, NULL, &options, &result),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    options.distance = NAN;
    ck_assert_int_eq(scene_query(scene, NULL, &options, &result),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(scene_query(NULL, NULL, &options, &result),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    test_log_capture_stop();
    glcollide_method method = GLCOLLIDE_METHOD_EXACT;
    ck_assert_int_eq(glcollide_method_from_name("far", &method), GLCOLLIDE_OK);
    ck_assert_int_eq(method, GLCOLLIDE_METHOD_FAR);
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_method_from_name("nope", &method);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "query: unknown method 'nope' (exact, sap, cullide, far, stencil, convex)");
    test_log_capture_stop();
    ck_assert_int_eq(method, GLCOLLIDE_METHOD_FAR); /* untouched */
    ck_assert_str_eq(glcollide_method_name(GLCOLLIDE_METHOD_STENCIL), "stencil");
    scene_destroy(&scene);
}
END_TEST

/*
 * The two-bunny00 scene (tests/scenes/bunnies.scene): ~1,700 intersecting
 * triangle pairs. For 300 triangles of the first bunny (those of the first
 * 100 reported pairs and 200 random ones, seed 0xB0B0), every triangle of the
 * second is tested by brute force; the reported pairs must match exactly.
 */
START_TEST(test_exact_bunnies)
{
    test_data_mesh("bunny00.off");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/scenes/bunnies.scene", GLCOLLIDE_SRCDIR);
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_load(path, &scene), GLCOLLIDE_OK);
    glcollide_query_result result = run(scene, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_TRIANGLES, 0);
    printf("bunnies: %zu intersecting triangle pairs, %llu candidates, %.1f ms\n",
           result.triangle_pair_count, (unsigned long long)result.stats.candidates,
           result.stats.time_ms);
    ck_assert_uint_eq(result.pair_count, 1);
    ck_assert_uint_ge(result.triangle_pair_count, 1400);
    ck_assert_uint_le(result.triangle_pair_count, 2100);
    ck_assert_msg(result.stats.time_ms < 20000, "exact bunny query took %.0f ms",
                  result.stats.time_ms);

    brute_world w;
    brute_build(scene, &w);
    size_t triangles = w.meshes[0]->triangle_count;
    unsigned char *chosen = calloc(triangles, 1);
    for (size_t i = 0; i < 100 && i < result.triangle_pair_count; i++)
        chosen[result.triangle_pairs[i * (result.triangle_pair_count / 100)].triangle_a] = 1;
    test_rng rng = {0xB0B0};
    for (int i = 0; i < 200; i++)
        chosen[test_rng_below(&rng, (uint32_t)triangles)] = 1;
    size_t checked = 0;
    for (size_t ta = 0; ta < triangles; ta++) {
        if (!chosen[ta])
            continue;
        size_t expected = 0, reported = 0;
        for (size_t tb = 0; tb < w.meshes[1]->triangle_count; tb++)
            expected += brute_triangles(&w, 0, ta, 1, tb);
        for (size_t k = 0; k < result.triangle_pair_count; k++)
            if (result.triangle_pairs[k].triangle_a == ta) {
                reported++;
                ck_assert(brute_triangles(&w, 0, ta, 1, result.triangle_pairs[k].triangle_b));
            }
        ck_assert_msg(expected == reported, "triangle %zu: brute force %zu, query %zu", ta,
                      expected, reported);
        checked++;
    }
    ck_assert_uint_ge(checked, 250);
    free(chosen);
    brute_release(&w);
    glcollide_query_result_clear(&result);
    scene_destroy(&scene);
}
END_TEST

Suite *suite_query(void)
{
    Suite *suite = suite_create("query");
    TCase *tc = tcase_create("exact");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_exact_cubes_touching);
    tcase_add_test(tc, test_exact_containment);
    tcase_add_test(tc, test_exact_random_scenes_vs_brute_force);
    tcase_add_test(tc, test_sap_method_vs_brute_force);
    tcase_add_test(tc, test_query_arguments);
    tcase_add_test(tc, test_exact_bunnies);
    suite_add_tcase(suite, tc);
    return suite;
}
