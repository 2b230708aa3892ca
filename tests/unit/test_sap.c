/* SPDX-License-Identifier: MIT */
/* Pair lists and sweep-and-prune, checked against brute force on random scenes. */
#include "helpers/tests.h"

#include <glcollide/geometry.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The definition: grow each box by margin, then glcollide_aabb_overlap; i < j. */
static void brute_force_pairs(const glcollide_aabb *boxes, size_t n, double margin,
                              glcollide_pair_list *out)
{
    for (size_t i = 0; i < n; i++) {
        glcollide_aabb a = boxes[i];
        for (int k = 0; k < 3; k++) {
            a.min[k] -= margin;
            a.max[k] += margin;
        }
        for (size_t j = i + 1; j < n; j++) {
            glcollide_aabb b = boxes[j];
            for (int k = 0; k < 3; k++) {
                b.min[k] -= margin;
                b.max[k] += margin;
            }
            if (glcollide_aabb_overlap(&a, &b))
                TEST_REQUIRE(glcollide_pair_list_push(out, (uint32_t)i, (uint32_t)j) ==
                                 GLCOLLIDE_OK,
                             "push failed");
        }
    }
}

static void assert_same_pairs(const glcollide_pair_list *got, size_t got_from,
                              const glcollide_pair_list *want, const char *what, uint64_t seed)
{
    ck_assert_msg(got->count - got_from == want->count, "%s (seed %llu): %zu pairs, want %zu", what,
                  (unsigned long long)seed, got->count - got_from, want->count);
    for (size_t i = 0; i < want->count; i++) {
        const glcollide_index_pair *g = &got->pairs[got_from + i], *w = &want->pairs[i];
        TEST_REQUIRE(g->a == w->a && g->b == w->b,
                     "%s (seed %llu): pair %zu is (%u, %u), want (%u, %u)", what,
                     (unsigned long long)seed, i, g->a, g->b, w->a, w->b);
    }
}

static void random_box(test_rng *rng, glcollide_aabb *box, double lo, double hi, double size)
{
    for (int k = 0; k < 3; k++) {
        box->min[k] = test_rng_uniform(rng, lo, hi);
        box->max[k] = box->min[k] + test_rng_uniform(rng, 0.0, size);
    }
}

/* One random scene of a given kind, n boxes. */
enum scene_kind {
    SCENE_UNIFORM,    /* real coordinates, varied sizes */
    SCENE_INTEGER,    /* small integers: touching, zero-size and identical boxes */
    SCENE_SAME_MIN_X, /* all boxes start at one of two x values, x the widest axis */
    SCENE_FLOOR,      /* a thin layer: z spread much less than x and y */
    SCENE_TOWER,      /* a column: z spread most, so the sweep runs along z */
    SCENE_FAR,        /* 1e6 offsets, fractional sizes */
    SCENE_SPECIAL,    /* NaN, infinite and inverted boxes among integer ones */
    SCENE_KINDS
};

static void make_scene(test_rng *rng, enum scene_kind kind, glcollide_aabb *boxes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        glcollide_aabb *box = &boxes[i];
        switch (kind) {
        case SCENE_UNIFORM:
            random_box(rng, box, 0.0, 100.0, test_rng_uniform(rng, 0.0, 1.0) < 0.1 ? 40.0 : 8.0);
            break;
        case SCENE_INTEGER:
        case SCENE_SPECIAL:
            for (int k = 0; k < 3; k++) {
                box->min[k] = (double)test_rng_below(rng, 8);
                box->max[k] = box->min[k] + (double)test_rng_below(rng, 3);
            }
            if (i > 0 && test_rng_below(rng, 8) == 0)
                *box = boxes[test_rng_below(rng, (uint32_t)i)]; /* identical */
            if (kind == SCENE_SPECIAL) {
                uint32_t r = test_rng_below(rng, 16);
                int k = (int)test_rng_below(rng, 3);
                if (r == 0)
                    box->min[k] = NAN;
                else if (r == 1)
                    box->max[k] = NAN;
                else if (r == 2)
                    box->min[k] = -INFINITY;
                else if (r == 3)
                    box->max[k] = INFINITY;
                else if (r == 4) { /* inverted: never overlaps along k unless grown */
                    double t = box->min[k];
                    box->min[k] = box->max[k] + 0.5;
                    box->max[k] = t;
                }
            }
            break;
        case SCENE_SAME_MIN_X:
            random_box(rng, box, 0.0, 20.0, 5.0);
            box->min[0] = test_rng_below(rng, 2) ? 0.0 : 60.0;
            box->max[0] = box->min[0] + test_rng_uniform(rng, 0.0, 70.0);
            break;
        case SCENE_FLOOR:
            random_box(rng, box, 0.0, 60.0, 4.0);
            box->min[2] = test_rng_uniform(rng, 0.0, 1.0);
            box->max[2] = box->min[2] + test_rng_uniform(rng, 0.0, 0.5);
            break;
        case SCENE_TOWER:
            random_box(rng, box, 0.0, 6.0, 2.0);
            box->min[2] = test_rng_uniform(rng, 0.0, 80.0);
            box->max[2] = box->min[2] + test_rng_uniform(rng, 0.0, 3.0);
            break;
        case SCENE_FAR:
            random_box(rng, box, 1e6, 1e6 + 50.0, 4.0);
            if (test_rng_below(rng, 4) == 0) /* and some mirrored to -1e6 */
                for (int k = 0; k < 3; k++) {
                    double t = box->min[k];
                    box->min[k] = -box->max[k];
                    box->max[k] = -t;
                }
            break;
        case SCENE_KINDS: break;
        }
    }
}

static int compare_keys(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

START_TEST(test_pair_list_push_sort_unique)
{
    static const size_t sizes[] = {0, 1, 2, 100, 4095, 4096, 100000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        uint64_t seed = 1000 + s;
        test_rng rng = {seed};
        glcollide_pair_list list = {0};
        size_t n = sizes[s];
        /* Small ranges give many duplicates; a few huge indices exercise the high digits. */
        uint32_t range = n < 1000 ? 20 : 3000;
        uint64_t *reference = malloc((n + 1) * sizeof *reference);
        for (size_t i = 0; i < n; i++) {
            uint32_t a = test_rng_below(&rng, range), b = test_rng_below(&rng, range);
            if (i % 97 == 5)
                a = (uint32_t)test_rng_next(&rng);
            if (i % 89 == 7)
                b = UINT32_MAX - b;
            TEST_REQUIRE(glcollide_pair_list_push(&list, a, b) == GLCOLLIDE_OK, "push %zu failed",
                         i);
            reference[i] = (uint64_t)a << 32 | b;
        }
        ck_assert_uint_eq(list.count, n);
        ck_assert(list.capacity >= list.count);
        qsort(reference, n, sizeof *reference, compare_keys);
        size_t unique = 0;
        for (size_t i = 0; i < n; i++)
            if (unique == 0 || reference[unique - 1] != reference[i])
                reference[unique++] = reference[i];
        glcollide_pair_list_sort_unique(&list);
        ck_assert_msg(list.count == unique, "n=%zu: %zu unique pairs, want %zu", n, list.count,
                      unique);
        for (size_t i = 0; i < unique; i++)
            TEST_REQUIRE(((uint64_t)list.pairs[i].a << 32 | list.pairs[i].b) == reference[i],
                         "n=%zu seed %llu: pair %zu wrong", n, (unsigned long long)seed, i);
        glcollide_pair_list_clear(&list);
        ck_assert_ptr_null(list.pairs);
        ck_assert_uint_eq(list.count, 0);
        ck_assert_uint_eq(list.capacity, 0);
        free(reference);
    }
    glcollide_pair_list_sort_unique(NULL);
    glcollide_pair_list_clear(NULL);
}
END_TEST

START_TEST(test_sap_random_scenes)
{
    static const double margins[] = {0.0, 0.25, 1.0, 3.0};
    glcollide_aabb *boxes = malloc(400 * sizeof *boxes);
    size_t scenes = 0, total_pairs = 0;
    /* One scratch across all scenes (sizes up and down): same answers. */
    glcollide_scratch *workspace = NULL;
    ck_assert_int_eq(glcollide_scratch_create(&workspace), GLCOLLIDE_OK);
    for (uint64_t seed = 1; seed <= 420; seed++) {
        test_rng rng = {seed * 7919};
        enum scene_kind kind = (enum scene_kind)(seed % SCENE_KINDS);
        size_t n = test_rng_below(&rng, 400);
        make_scene(&rng, kind, boxes, n);
        double margin = margins[seed % 4];
        glcollide_pair_list got = {0}, want = {0};
        ck_assert_int_eq(glcollide_sap_pairs(boxes, n, margin, &got, NULL), GLCOLLIDE_OK);
        brute_force_pairs(boxes, n, margin, &want);
        char what[64];
        snprintf(what, sizeof what, "kind %d, %zu boxes, margin %g", (int)kind, n, margin);
        assert_same_pairs(&got, 0, &want, what, seed);
        glcollide_pair_list with = {0};
        ck_assert_int_eq(glcollide_sap_pairs(boxes, n, margin, &with, workspace), GLCOLLIDE_OK);
        assert_same_pairs(&with, 0, &want, what, seed);
        glcollide_pair_list_clear(&with);
        total_pairs += want.count;
        scenes++;
        glcollide_pair_list_clear(&got);
        glcollide_pair_list_clear(&want);
    }
    ck_assert_uint_gt(total_pairs, 10000); /* the scenes are not trivially empty */
    glcollide_scratch_destroy(&workspace);
    glcollide_scratch_destroy(&workspace); /* twice: harmless */
    free(boxes);
}
END_TEST

/* Between two sets: the pairs across of the brute force over both, each met
 * once (no duplicates), after what the list held. Sizes from 0 to 399 on
 * each side, so both the small-set sort and the radix sort run. */
START_TEST(test_sap_across_random_scenes)
{
    static const double margins[] = {0.0, 0.25, 1.0, 3.0};
    glcollide_aabb *boxes = malloc(800 * sizeof *boxes);
    size_t total_pairs = 0;
    glcollide_scratch *workspace = NULL;
    ck_assert_int_eq(glcollide_scratch_create(&workspace), GLCOLLIDE_OK);
    for (uint64_t seed = 1; seed <= 420; seed++) {
        test_rng rng = {seed * 104729};
        enum scene_kind kind = (enum scene_kind)(seed % SCENE_KINDS);
        size_t na = test_rng_below(&rng, seed % 3 ? 60 : 400);
        size_t nb = test_rng_below(&rng, seed % 2 ? 60 : 400);
        make_scene(&rng, kind, boxes, na + nb);
        double margin = margins[seed % 4];
        glcollide_pair_list all = {0}, want = {0}, got = {0};
        brute_force_pairs(boxes, na + nb, margin, &all);
        for (size_t k = 0; k < all.count; k++)
            if (all.pairs[k].a < na && all.pairs[k].b >= na)
                TEST_REQUIRE(glcollide_pair_list_push(&want, all.pairs[k].a,
                                                      all.pairs[k].b - (uint32_t)na) ==
                                 GLCOLLIDE_OK,
                             "push failed");
        TEST_REQUIRE(glcollide_pair_list_push(&got, 7, 7) == GLCOLLIDE_OK, "push failed");
        ck_assert_int_eq(glcollide_sap_pairs_across(boxes, na, boxes + na, nb, margin, &got,
                                                    seed % 2 ? workspace : NULL),
                         GLCOLLIDE_OK);
        ck_assert(got.pairs[0].a == 7 && got.pairs[0].b == 7); /* appended after */
        size_t found = got.count - 1;
        memmove(got.pairs, got.pairs + 1, found * sizeof *got.pairs);
        got.count = found;
        glcollide_pair_list_sort_unique(&got);
        char what[80];
        snprintf(what, sizeof what, "across: kind %d, %zu and %zu boxes, margin %g", (int)kind, na,
                 nb, margin);
        TEST_REQUIRE(got.count == found, "%s (seed %llu): a pair met twice", what,
                     (unsigned long long)seed);
        assert_same_pairs(&got, 0, &want, what, seed);
        total_pairs += want.count;
        glcollide_pair_list_clear(&all);
        glcollide_pair_list_clear(&want);
        glcollide_pair_list_clear(&got);
    }
    ck_assert_uint_gt(total_pairs, 10000);
    glcollide_scratch_destroy(&workspace);
    free(boxes);
}
END_TEST

START_TEST(test_sap_special_cases)
{
    glcollide_pair_list pairs = {0};
    glcollide_aabb boxes[6] = {
        {{0, 0, 0}, {1, 1, 1}},     {{1, 1, 1}, {2, 2, 2}}, /* touches box 0 at a corner */
        {{2, 1, 1}, {2, 1, 1}},                             /* a point: box 1's corner */
        {{0, 0, 0}, {1, 1, 1}},                             /* identical to box 0 */
        {{NAN, 0, 0}, {1, 1, 1}},                           /* never pairs */
        {{1.5, 3, 0}, {1.5, 3, 0}},                         /* a point 1 above box 1 */
    };
    /* No box: nothing, even with NULL boxes; one box: nothing. */
    ck_assert_int_eq(glcollide_sap_pairs(NULL, 0, 0.0, &pairs, NULL), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_sap_pairs(boxes, 1, 0.0, &pairs, NULL), GLCOLLIDE_OK);
    ck_assert_uint_eq(pairs.count, 0);

    ck_assert_int_eq(glcollide_sap_pairs(boxes, 6, 0.0, &pairs, NULL), GLCOLLIDE_OK);
    static const uint32_t want0[][2] = {{0, 1}, {0, 3}, {1, 2}, {1, 3}};
    ck_assert_uint_eq(pairs.count, 4);
    for (size_t i = 0; i < 4; i++)
        ck_assert(pairs.pairs[i].a == want0[i][0] && pairs.pairs[i].b == want0[i][1]);

    /* Appends after what is there, sorted on its own; margin 0.5 reaches box 5. */
    ck_assert_int_eq(glcollide_sap_pairs(boxes, 6, 0.5, &pairs, NULL), GLCOLLIDE_OK);
    static const uint32_t want1[][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {1, 5}, {2, 3}};
    ck_assert_uint_eq(pairs.count, 4 + 7);
    for (size_t i = 0; i < 7; i++)
        ck_assert_msg(pairs.pairs[4 + i].a == want1[i][0] && pairs.pairs[4 + i].b == want1[i][1],
                      "margin 0.5: pair %zu is (%u, %u)", i, pairs.pairs[4 + i].a,
                      pairs.pairs[4 + i].b);
    glcollide_pair_list_clear(&pairs);

    /* Many identical boxes: all n(n-1)/2 pairs. */
    glcollide_aabb same[200];
    for (size_t i = 0; i < 200; i++)
        same[i] = (glcollide_aabb){{5, 5, 5}, {5, 5, 5}};
    ck_assert_int_eq(glcollide_sap_pairs(same, 200, 0.0, &pairs, NULL), GLCOLLIDE_OK);
    ck_assert_uint_eq(pairs.count, 200 * 199 / 2);
    size_t k = 0;
    for (uint32_t i = 0; i < 200; i++)
        for (uint32_t j = i + 1; j < 200; j++, k++)
            TEST_REQUIRE(pairs.pairs[k].a == i && pairs.pairs[k].b == j, "pair %zu", k);
    glcollide_pair_list_clear(&pairs);

    /* All NaN: nothing. */
    for (size_t i = 0; i < 200; i++)
        same[i].max[1] = NAN;
    ck_assert_int_eq(glcollide_sap_pairs(same, 200, 1.0, &pairs, NULL), GLCOLLIDE_OK);
    ck_assert_uint_eq(pairs.count, 0);
    glcollide_pair_list_clear(&pairs);
}
END_TEST

START_TEST(test_sap_invalid_arguments)
{
    glcollide_aabb boxes[2] = {{{0, 0, 0}, {1, 1, 1}}, {{0, 0, 0}, {1, 1, 1}}};
    glcollide_pair_list pairs = {0};
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    ck_assert_int_eq(glcollide_sap_pairs(boxes, 2, -1.0, &pairs, NULL),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_sap_pairs(boxes, 2, NAN, &pairs, NULL),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_sap_pairs(boxes, 2, INFINITY, &pairs, NULL),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_sap_pairs(NULL, 2, 0.0, &pairs, NULL),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_sap_pairs(boxes, 2, 0.0, NULL, NULL),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_pair_list_push(NULL, 0, 1), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_sap_pairs_across(boxes, 1, boxes + 1, 1, -1.0, &pairs, NULL),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_sap_pairs_across(NULL, 1, boxes, 1, 0.0, &pairs, NULL),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_sap_pairs_across(boxes, 1, boxes, 1, 0.0, NULL, NULL),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(test_log_count(), 9); /* one message per failure */
    ck_assert_int_eq(glcollide_sap_pairs_across(NULL, 0, boxes, 2, 0.0, &pairs, NULL),
                     GLCOLLIDE_OK);
    test_log_capture_stop();
    ck_assert_uint_eq(pairs.count, 0);
}
END_TEST

/* 10,000 boxes: the same answer as brute force, and the time printed. */
START_TEST(test_sap_scale)
{
    const size_t n = 10000;
    uint64_t seed = 424242;
    test_rng rng = {seed};
    glcollide_aabb *boxes = malloc(n * sizeof *boxes);
    for (size_t i = 0; i < n; i++)
        random_box(&rng, &boxes[i], 0.0, 1000.0, 20.0);
    glcollide_pair_list got = {0}, want = {0};
    double t0 = test_now_ms();
    ck_assert_int_eq(glcollide_sap_pairs(boxes, n, 0.0, &got, NULL), GLCOLLIDE_OK);
    double t1 = test_now_ms();
    brute_force_pairs(boxes, n, 0.0, &want);
    double t2 = test_now_ms();
    assert_same_pairs(&got, 0, &want, "10000 boxes", seed);
    printf("sap: %zu boxes, %zu pairs: %.2f ms (brute force %.1f ms)\n", n, got.count, t1 - t0,
           t2 - t1);
    glcollide_pair_list_clear(&got);
    glcollide_pair_list_clear(&want);
    free(boxes);
}
END_TEST

Suite *suite_sap(void)
{
    Suite *suite = suite_create("sap");
    TCase *tc = tcase_create("sap");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_pair_list_push_sort_unique);
    tcase_add_test(tc, test_sap_random_scenes);
    tcase_add_test(tc, test_sap_across_random_scenes);
    tcase_add_test(tc, test_sap_special_cases);
    tcase_add_test(tc, test_sap_invalid_arguments);
    tcase_add_test(tc, test_sap_scale);
    suite_add_tcase(suite, tc);
    return suite;
}
