/* SPDX-License-Identifier: MIT */
/* A growable array of index pairs: the output of SAP and of BVH traversals. */
#include "core/internal.h"

#include <stdlib.h>
#include <string.h>

int glcollide_pair_list_push(glcollide_pair_list *list, uint32_t a, uint32_t b)
{
    if (!list)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "pair list: list is NULL");
    if (list->count == list->capacity) {
        /* Doubling keeps pushes amortised O(1); the checked reallocation
         * catches capacity * sizeof(pair) overflowing size_t. */
        size_t capacity = list->capacity ? list->capacity : 16;
        if (list->capacity) {
            if (capacity > SIZE_MAX / 2)
                return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                                      "pair list: cannot grow beyond %zu pairs", list->capacity);
            capacity *= 2;
        }
        glcollide_index_pair *pairs =
            glcollide_realloc_array(list->pairs, capacity, sizeof *pairs);
        if (!pairs)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                                  "pair list: out of memory growing to %zu pairs", capacity);
        list->pairs = pairs;
        list->capacity = capacity;
    }
    list->pairs[list->count].a = a;
    list->pairs[list->count].b = b;
    list->count++;
    return GLCOLLIDE_OK;
}

static uint64_t pair_key(glcollide_index_pair pair)
{
    return (uint64_t)pair.a << 32 | pair.b;
}

static int compare_pairs(const void *x, const void *y)
{
    uint64_t kx = pair_key(*(const glcollide_index_pair *)x);
    uint64_t ky = pair_key(*(const glcollide_index_pair *)y);
    return (kx > ky) - (kx < ky);
}

/*
 * LSD radix sort on the 64-bit key (a, b) with 16-bit digits: linear in the
 * count, which matters for the millions of candidate pairs a BVH self-overlap
 * can produce. Digits that are the same for every pair (typically the high
 * bits of small indices) are skipped. Returns 0 when no scratch memory could
 * be had, and the caller falls back to glcollide_sort.
 */
static int radix_sort_pairs(glcollide_index_pair *pairs, size_t count)
{
    enum { DIGIT_BITS = 16, BUCKETS = 1 << DIGIT_BITS };
    glcollide_index_pair *scratch = glcollide_alloc_array(count, sizeof *scratch);
    size_t *offsets = glcollide_alloc_array(BUCKETS, sizeof *offsets);
    if (!scratch || !offsets) {
        free(scratch);
        free(offsets);
        return 0;
    }
    glcollide_index_pair *from = pairs, *to = scratch;
    for (int shift = 0; shift < 64; shift += DIGIT_BITS) {
        memset(offsets, 0, BUCKETS * sizeof *offsets);
        for (size_t i = 0; i < count; i++)
            offsets[(pair_key(from[i]) >> shift) & (BUCKETS - 1)]++;
        if (offsets[(pair_key(from[0]) >> shift) & (BUCKETS - 1)] == count)
            continue; /* one digit value for all: this pass would not move anything */
        glcollide_counts_to_offsets(offsets, BUCKETS);
        for (size_t i = 0; i < count; i++)
            to[offsets[(pair_key(from[i]) >> shift) & (BUCKETS - 1)]++] = from[i];
        glcollide_index_pair *swap = from;
        from = to;
        to = swap;
    }
    if (from != pairs)
        memcpy(pairs, from, count * sizeof *pairs);
    free(scratch);
    free(offsets);
    return 1;
}

void glcollide_pair_list_sort_unique(glcollide_pair_list *list)
{
    if (!list || list->count < 2)
        return;
    /* Below a few thousand pairs the 64K-bucket passes cost more than a heapsort. */
    if (list->count < 4096 || !radix_sort_pairs(list->pairs, list->count))
        glcollide_sort(list->pairs, list->count, sizeof *list->pairs, compare_pairs);
    size_t kept = 1;
    for (size_t i = 1; i < list->count; i++)
        if (list->pairs[i].a != list->pairs[kept - 1].a || list->pairs[i].b != list->pairs[kept - 1].b)
            list->pairs[kept++] = list->pairs[i];
    list->count = kept;
}

void glcollide_pair_list_clear(glcollide_pair_list *list)
{
    if (!list)
        return;
    free(list->pairs);
    list->pairs = NULL;
    list->count = 0;
    list->capacity = 0;
}
