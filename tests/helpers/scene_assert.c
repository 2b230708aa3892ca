/* SPDX-License-Identifier: MIT */
/* Scenes built and queried in tests, failing the test on any error
 * (declared in tests.h; the scenes are test_scene.h's). */
#include "helpers/tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t test_scene_add_mesh(test_scene *scene, glcollide_mesh *mesh)
{
    uint32_t index;
    ck_assert_ptr_nonnull(mesh);
    ck_assert_int_eq(scene_add_mesh(scene, mesh, &index), GLCOLLIDE_OK);
    return index;
}

/* Result r's group of object pair k. */
static size_t group_of(const glcollide_query_result *r, size_t k, size_t *first)
{
    *first = r->pair_first ? r->pair_first[k] : 0;
    return r->pair_first ? r->pair_first[k + 1] - *first : 0;
}

/* Is every pair of inner (and every triangle pair of each) in outer? Both
 * sorted, groups sorted (glcollide_world_query's order). */
static void require_within(const glcollide_query_result *inner, const glcollide_query_result *outer,
                           const char *what)
{
    size_t o = 0;
    for (size_t k = 0; k < inner->pair_count; k++) {
        glcollide_index_pair p = inner->pairs[k];
        while (o < outer->pair_count && glcollide_index_pair_compare(&outer->pairs[o], &p) < 0)
            o++;
        TEST_REQUIRE(o < outer->pair_count && outer->pairs[o].a == p.a && outer->pairs[o].b == p.b,
                     "%s: pair (%u, %u) is not among the other's", what, p.a, p.b);
        size_t fi, fo, ni = group_of(inner, k, &fi), no = group_of(outer, o, &fo), t = 0;
        for (size_t c = 0; c < ni; c++) {
            const glcollide_triangle_pair *x = &inner->triangle_pairs[fi + c];
            while (t < no && glcollide_triangle_pair_compare(&outer->triangle_pairs[fo + t], x) < 0)
                t++;
            TEST_REQUIRE(
                t < no && glcollide_triangle_pair_compare(&outer->triangle_pairs[fo + t], x) == 0,
                "%s: pair (%u, %u): triangles (%u, %u) not among the other's", what, p.a, p.b,
                x->triangle_a, x->triangle_b);
        }
    }
}

/* r's pairs that are given (every third), into out (pairs and groups). */
static void keep_given(const glcollide_query_result *r, glcollide_query_result *out)
{
    memset(out, 0, sizeof *out);
    out->pairs = malloc((r->pair_count + 1) * sizeof *out->pairs);
    out->pair_first = malloc((r->pair_count + 1) * sizeof *out->pair_first);
    out->triangle_pairs = malloc((r->triangle_pair_count + 1) * sizeof *out->triangle_pairs);
    ck_assert(out->pairs && out->pair_first && out->triangle_pairs);
    out->pair_first[0] = 0;
    for (size_t k = 0; k < r->pair_count; k++) {
        if ((r->pairs[k].a * 7 + r->pairs[k].b) % 3 != 0)
            continue;
        size_t first, n = group_of(r, k, &first);
        memcpy(out->triangle_pairs + out->triangle_pair_count, r->triangle_pairs + first,
               n * sizeof *r->triangle_pairs);
        out->triangle_pair_count += n;
        out->pairs[out->pair_count++] = r->pairs[k];
        out->pair_first[out->pair_count] = out->triangle_pair_count;
    }
}

size_t test_query_given_pairs(glcollide_world *world, glcollide_context *context,
                              const glcollide_query_options *options)
{
    const char *method = glcollide_method_name(options->method);
    glcollide_query_result swept = {0}, given = {0};
    ck_assert_int_eq(glcollide_world_query(world, context, options, &swept), GLCOLLIDE_OK);
    size_t n = glcollide_world_object_count(world), count = 0;
    glcollide_index_pair *pairs = malloc((n * n / 2 + 1) * sizeof *pairs);
    ck_assert_ptr_nonnull(pairs);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n; b++)
            if ((a * 7 + b) % 3 == 0)
                pairs[count++] = (glcollide_index_pair){a, b};
    glcollide_query_options with = *options;
    with.pairs = pairs;
    with.pair_count = count;
    ck_assert_int_eq(glcollide_world_query(world, context, &with, &given), GLCOLLIDE_OK);
    glcollide_query_result expected;
    keep_given(&swept, &expected);
    char what[96];
    snprintf(what, sizeof what, "%s, level %d, pairs given", method, (int)options->level);
    int culled =
        options->method == GLCOLLIDE_METHOD_CULLIDE || options->method == GLCOLLIDE_METHOD_FAR;
    if (culled) {
        /* views of fewer objects cull otherwise: the pairs among those
         * given, and (FAR) every exact answer among them */
        for (size_t k = 0; k < given.pair_count; k++)
            TEST_REQUIRE((given.pairs[k].a * 7 + given.pairs[k].b) % 3 == 0,
                         "%s: pair (%u, %u) was not given", what, given.pairs[k].a,
                         given.pairs[k].b);
        glcollide_query_options exact = with;
        exact.method = GLCOLLIDE_METHOD_EXACT;
        glcollide_query_result touching = {0};
        ck_assert_int_eq(glcollide_world_query(world, NULL, &exact, &touching), GLCOLLIDE_OK);
        snprintf(what, sizeof what, "exact, level %d, pairs given, in %s's", (int)options->level,
                 method);
        if (options->method == GLCOLLIDE_METHOD_FAR)
            require_within(&touching, &given, what);
        glcollide_query_result_clear(&touching);
    } else {
        require_within(&given, &expected, what);
        snprintf(what, sizeof what, "%s, level %d, swept", method, (int)options->level);
        require_within(&expected, &given, what);
    }
    size_t found = expected.pair_count;
    free(expected.pairs);
    free(expected.pair_first);
    free(expected.triangle_pairs);
    /* refused: unsorted, a >= b, beyond the objects, NULL with a count */
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    glcollide_index_pair bad[3][2] = {
        {{1, 3}, {0, 2}}, {{0, 1}, {2, 2}}, {{0, 1}, {1, (uint32_t)n}}};
    with.pair_count = 2;
    for (int b = 0; b < 3 && n >= 4; b++) {
        with.pairs = bad[b];
        ck_assert_int_eq(glcollide_world_query(world, context, &with, &given),
                         GLCOLLIDE_ERROR_INVALID_ARGUMENT);
        ck_assert_uint_eq(given.pair_count, 0);
    }
    with.pairs = NULL;
    ck_assert_int_eq(glcollide_world_query(world, context, &with, &given),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    test_log_capture_stop();
    free(pairs);
    glcollide_query_result_clear(&swept);
    glcollide_query_result_clear(&given);
    return found;
}

glcollide_query_result test_run_query(const test_scene *scene, glcollide_context *context,
                                      glcollide_method method, glcollide_level level,
                                      int resolution, double distance)
{
    glcollide_query_options options = glcollide_query_default_options();
    options.method = method;
    options.level = level;
    options.resolution = resolution;
    options.distance = distance;
    glcollide_query_result result;
    int status =
        scene_query(scene, method == GLCOLLIDE_METHOD_EXACT ? NULL : context, &options, &result);
    ck_assert_msg(status == GLCOLLIDE_OK, "%s query failed: %s", glcollide_method_name(method),
                  glcollide_status_string(status));
    return result;
}

void test_scene_add_object(test_scene *scene, uint32_t mesh, const double t[3], const double q[4])
{
    ck_assert_int_eq(scene_add_object(scene, mesh, t, q, NULL), GLCOLLIDE_OK);
}
