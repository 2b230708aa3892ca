/* SPDX-License-Identifier: MIT */
/* Query results: arrays kept between frames, grouped by object pair. */
#include "world/world.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int glcollide_result_add_pair(glcollide_query_result *result, uint32_t a, uint32_t b)
{
    int status = glcollide_array_reserve((void **)&result->pairs, &result->pair_capacity,
                                         result->pair_count + 1, sizeof *result->pairs, "query");
    if (status != GLCOLLIDE_OK)
        return status;
    result->pairs[result->pair_count++] = (glcollide_index_pair){a < b ? a : b, a < b ? b : a};
    return GLCOLLIDE_OK;
}

int glcollide_result_add_triangle_pair(glcollide_query_result *result, uint32_t object_a,
                                       uint32_t triangle_a, uint32_t object_b, uint32_t triangle_b)
{
    int status = glcollide_array_reserve(
        (void **)&result->triangle_pairs, &result->triangle_pair_capacity,
        result->triangle_pair_count + 1, sizeof *result->triangle_pairs, "query");
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_triangle_pair pair = {object_a, triangle_a, object_b, triangle_b};
    if (object_a > object_b)
        pair = (glcollide_triangle_pair){object_b, triangle_b, object_a, triangle_a};
    result->triangle_pairs[result->triangle_pair_count++] = pair;
    return GLCOLLIDE_OK;
}

void glcollide_result_reset(glcollide_query_result *result)
{
    result->pair_count = result->triangle_pair_count = 0;
    memset(&result->stats, 0, sizeof result->stats);
}

int glcollide_index_pair_compare(const void *x, const void *y)
{
    const glcollide_index_pair *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static int compare_keys(const uint32_t ka[4], const uint32_t kb[4])
{
    for (int k = 0; k < 4; k++)
        if (ka[k] != kb[k])
            return ka[k] < kb[k] ? -1 : 1;
    return 0;
}

/* Grouped order: object pair first, then the triangles. */
int glcollide_triangle_pair_compare(const void *x, const void *y)
{
    const glcollide_triangle_pair *a = x, *b = y;
    const uint32_t ka[4] = {a->object_a, a->object_b, a->triangle_a, a->triangle_b};
    const uint32_t kb[4] = {b->object_a, b->object_b, b->triangle_a, b->triangle_b};
    return compare_keys(ka, kb);
}

/* glcollide_triangle_pair_compare's order, inline: a before b? */
static inline int grouped_before(const glcollide_triangle_pair *a, const glcollide_triangle_pair *b)
{
    uint64_t ha = (uint64_t)a->object_a << 32 | a->object_b;
    uint64_t hb = (uint64_t)b->object_a << 32 | b->object_b;
    if (ha != hb)
        return ha < hb;
    return ((uint64_t)a->triangle_a << 32 | a->triangle_b) <
           ((uint64_t)b->triangle_a << 32 | b->triangle_b);
}

/*
 * Sorts triangle pairs in grouped order: quicksort (median of three, Hoare
 * partition) down to runs of 16, then insertion sort; past 2 log2(n) levels
 * the generic heapsort takes over, so the worst case stays n log n. Its
 * compare inlined, it is several times faster than the generic sort, whose
 * calls through a pointer were ~1.5 ms of every step of the 300-object pile
 * with GPU culling.
 */
static void sort_grouped(glcollide_triangle_pair *t, size_t n, int depth)
{
    while (n > 16) {
        if (depth-- == 0) {
            glcollide_sort(t, n, sizeof *t, glcollide_triangle_pair_compare);
            return;
        }
        glcollide_triangle_pair a = t[0], b = t[n / 2], c = t[n - 1], pivot;
        if (grouped_before(&a, &b))
            pivot = grouped_before(&b, &c) ? b : grouped_before(&a, &c) ? c : a;
        else
            pivot = grouped_before(&a, &c) ? a : grouped_before(&b, &c) ? c : b;
        ptrdiff_t i = -1, j = (ptrdiff_t)n;
        for (;;) {
            do
                i++;
            while (grouped_before(&t[i], &pivot));
            do
                j--;
            while (grouped_before(&pivot, &t[j]));
            if (i >= j)
                break;
            glcollide_triangle_pair swap = t[i];
            t[i] = t[j];
            t[j] = swap;
        }
        size_t left = (size_t)j + 1; /* [0, left) and [left, n) */
        if (left < n - left) {
            sort_grouped(t, left, depth);
            t += left;
            n -= left;
        } else {
            sort_grouped(t + left, n - left, depth);
            n = left;
        }
    }
    for (size_t i = 1; i < n; i++) {
        glcollide_triangle_pair x = t[i];
        size_t j = i;
        for (; j > 0 && grouped_before(&x, &t[j - 1]); j--)
            t[j] = t[j - 1];
        t[j] = x;
    }
}

static void sort_grouped_all(glcollide_triangle_pair *t, size_t n)
{
    size_t sorted = 1; /* methods that find a pair's triangles in order: nothing to do */
    while (sorted < n && !grouped_before(&t[sorted], &t[sorted - 1]))
        sorted++;
    if (sorted >= n)
        return;
    int depth = 0;
    for (size_t m = n; m > 1; m >>= 1)
        depth += 2;
    sort_grouped(t, n, depth);
}

static int pair_before(const glcollide_triangle_pair *t, const glcollide_index_pair *p)
{
    return t->object_a < p->a || (t->object_a == p->a && t->object_b < p->b);
}

int glcollide_result_group(glcollide_query_result *result)
{
    if (result->pair_count > 1)
        glcollide_sort(result->pairs, result->pair_count, sizeof *result->pairs,
                       glcollide_index_pair_compare);
    /* The methods append each pair's triangle pairs together, pairs in
     * order: then only each group is sorted. */
    size_t n = result->triangle_pair_count, start = 0;
    const glcollide_triangle_pair *t = result->triangle_pairs;
    int grouped = 1;
    for (size_t i = 1; i < n && grouped; i++)
        grouped = !(t[i].object_a < t[i - 1].object_a ||
                    (t[i].object_a == t[i - 1].object_a && t[i].object_b < t[i - 1].object_b));
    if (!grouped) {
        sort_grouped_all(result->triangle_pairs, n);
    } else {
        for (size_t i = 1; i <= n; i++)
            if (i == n || t[i].object_a != t[start].object_a ||
                t[i].object_b != t[start].object_b) {
                sort_grouped_all(result->triangle_pairs + start, i - start);
                start = i;
            }
    }
    int status =
        glcollide_array_reserve((void **)&result->pair_first, &result->pair_first_capacity,
                                result->pair_count + 1, sizeof *result->pair_first, "query");
    if (status != GLCOLLIDE_OK)
        return status;
    size_t i = 0;
    for (size_t k = 0; k < result->pair_count; k++) {
        while (i < n && pair_before(&t[i], &result->pairs[k]))
            i++; /* none when every group has its pair, as the methods make them */
        result->pair_first[k] = i;
        while (i < n && t[i].object_a == result->pairs[k].a && t[i].object_b == result->pairs[k].b)
            i++;
    }
    result->pair_first[result->pair_count] = i;
    return GLCOLLIDE_OK;
}

void glcollide_query_result_clear(glcollide_query_result *result)
{
    if (!result)
        return;
    free(result->pairs);
    free(result->triangle_pairs);
    free(result->pair_first);
    memset(result, 0, sizeof *result);
}
