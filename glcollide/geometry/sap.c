/* SPDX-License-Identifier: MIT */
/*
 * Sweep-and-prune over axis-aligned boxes: sort by min along the sweep axis,
 * then each box is compared with the boxes that start before it ends along
 * that axis (the active interval of the sweep), and only those are tested on
 * the two other axes. The sweep axis is the one along which the box centres
 * spread most (x, y or z), so that a pile of objects on a floor is swept
 * along the floor, not across it; below, "x" names the sweep axis.
 */
#include "geometry/geometry_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct sap_key {
    uint64_t key; /* min x as an order-preserving integer */
    uint32_t entry;
} sap_key;

/*
 * The grown boxes in sweep order, split so that the inner loop streams
 * through x intervals and reads y and z only for boxes that start within.
 */
typedef struct sap_sweep {
    double *x;       /* min x, max x per box (x: the sweep axis) */
    double *yz;      /* min y, max y, min z, max z per box */
    sap_key *keys;   /* two per box: the keys and their sort's scratch */
    uint32_t *index; /* the caller's index */
} sap_sweep;

/* Maps a double to an unsigned integer with the same order (no NaN here). */
static uint64_t sortable_bits(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (bits >> 63) ? ~bits : bits | (UINT64_C(1) << 63);
}

/* LSD radix sort of the keys (11-bit digits): O(n), no comparison callbacks,
 * and stable, so boxes with the same min x keep their input order. */
static void sort_keys(sap_key *keys, size_t count, sap_key *scratch)
{
    enum { DIGIT_BITS = 11, BUCKETS = 1 << DIGIT_BITS, SMALL = 48 };
    if (count <= SMALL) {
        /* Insertion sort (stable too): six passes over 2,048 counters cost
         * more than the sort itself for the few boxes of a triangle pair's
         * sweep. */
        for (size_t i = 1; i < count; i++) {
            sap_key x = keys[i];
            size_t j = i;
            for (; j > 0 && keys[j - 1].key > x.key; j--)
                keys[j] = keys[j - 1];
            keys[j] = x;
        }
        return;
    }
    size_t offsets[BUCKETS];
    sap_key *from = keys, *to = scratch;
    for (int shift = 0; shift < 64; shift += DIGIT_BITS) {
        memset(offsets, 0, sizeof offsets);
        for (size_t i = 0; i < count; i++)
            offsets[(from[i].key >> shift) & (BUCKETS - 1)]++;
        if (offsets[(from[0].key >> shift) & (BUCKETS - 1)] == count)
            continue;
        glcollide_counts_to_offsets(offsets, BUCKETS);
        for (size_t i = 0; i < count; i++)
            to[offsets[(from[i].key >> shift) & (BUCKETS - 1)]++] = from[i];
        sap_key *swap = from;
        from = to;
        to = swap;
    }
    if (from != keys)
        memcpy(keys, from, count * sizeof *keys);
}

/*
 * Sorts pairs[0..k) by (a, b), all indices < n, with two stable counting
 * passes (by b, then by a): O(n + k), so the whole query stays
 * O(n log n + k) even when the boxes overlap a lot.
 */
static void sort_pairs(glcollide_index_pair *pairs, size_t k, size_t n,
                       glcollide_index_pair *scratch, size_t *offsets)
{
    for (int pass = 0; pass < 2; pass++) {
        glcollide_index_pair *from = pass == 0 ? pairs : scratch;
        glcollide_index_pair *to = pass == 0 ? scratch : pairs;
        memset(offsets, 0, (n + 1) * sizeof *offsets);
        for (size_t i = 0; i < k; i++)
            offsets[pass == 0 ? from[i].b : from[i].a]++;
        glcollide_counts_to_offsets(offsets, n + 1);
        for (size_t i = 0; i < k; i++)
            to[offsets[pass == 0 ? from[i].b : from[i].a]++] = from[i];
    }
}

/*
 * Sorts the pairs appended from start on, indices below n, by sort_pairs.
 * The sweep's arrays are done with: *own (the sweep's block when there is no
 * workspace) is freed and the block serves the sort. On failure the pairs
 * appended are dropped.
 */
static int sort_new_pairs(glcollide_pair_list *pairs, size_t start, size_t n,
                          glcollide_workspace *workspace, void **own)
{
    size_t k = pairs->count - start;
    if (k < 2)
        return GLCOLLIDE_OK;
    free(*own);
    *own = NULL;
    size_t bytes = k * sizeof(glcollide_index_pair) + (n + 1) * sizeof(size_t);
    char *block = k <= SIZE_MAX / 2 / sizeof(glcollide_index_pair)
                      ? glcollide_workspace_get(workspace, bytes, own)
                      : NULL;
    if (!block) {
        pairs->count = start;
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "SAP: out of memory sorting pairs");
    }
    /* size_t offsets first: the block is aligned for them, pairs need 4. */
    sort_pairs(pairs->pairs + start, k, n,
               (glcollide_index_pair *)(block + (n + 1) * sizeof(size_t)), (size_t *)block);
    return GLCOLLIDE_OK;
}

/* The axis of largest variance of the finite centres of both sets of boxes
 * (0 when in doubt). */
static int sweep_axis(const glcollide_aabb *boxes, size_t count, const glcollide_aabb *more,
                      size_t more_count)
{
    double sum[3] = {0, 0, 0}, sum2[3] = {0, 0, 0}, n[3] = {0, 0, 0};
    for (size_t i = 0; i < count + more_count; i++) {
        const glcollide_aabb *box = i < count ? &boxes[i] : &more[i - count];
        for (int k = 0; k < 3; k++) {
            double c = 0.5 * box->min[k] + 0.5 * box->max[k];
            if (isfinite(c)) {
                sum[k] += c;
                sum2[k] += c * c;
                n[k] += 1.0;
            }
        }
    }
    int axis = 0;
    double best = -1.0;
    for (int k = 0; k < 3; k++) {
        double variance = n[k] > 0 ? sum2[k] / n[k] - (sum[k] / n[k]) * (sum[k] / n[k]) : 0.0;
        if (variance > best) {
            best = variance;
            axis = k;
        }
    }
    return axis;
}

static int has_nan(const glcollide_aabb *box)
{
    for (int k = 0; k < 3; k++)
        if (isnan(box->min[k]) || isnan(box->max[k]))
            return 1;
    return 0;
}

/* One scratch block for count boxes: x, yz (doubles), keys and their sort
 * scratch, index. NULL when out of memory. */
static void *sweep_alloc(sap_sweep *sweep, size_t count, glcollide_workspace *workspace, void **own)
{
    size_t per_box = 6 * sizeof(double) + 2 * sizeof(sap_key) + sizeof(uint32_t);
    char *block = count <= SIZE_MAX / per_box
                      ? glcollide_workspace_get(workspace, count * per_box, own)
                      : NULL;
    if (!block)
        return NULL;
    sweep->x = (double *)block;
    sweep->yz = sweep->x + 2 * count;
    sweep->keys = (sap_key *)(sweep->yz + 4 * count);
    sweep->index = (uint32_t *)(sweep->keys + 2 * count);
    return block;
}

/*
 * Puts the boxes, grown by margin, in the sweep from its slot first on, in
 * order of min along axis x; each keeps its index. Returns how many (boxes
 * with a NaN coordinate are left out: they would break the sort's order and
 * compare false anyway). Growing first and then testing the grown boxes makes
 * the answer exactly "overlap after growing by margin", with the same
 * rounding as a brute-force test of the grown boxes.
 */
static size_t sweep_fill(sap_sweep *sweep, size_t first, const glcollide_aabb *boxes, size_t count,
                         double margin, int x)
{
    const int y = (x + 1) % 3, z = (x + 2) % 3;
    sap_key *keys = sweep->keys + 2 * first, *key_scratch = keys + count;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        if (has_nan(&boxes[i]))
            continue;
        keys[n].key = sortable_bits(boxes[i].min[x] - margin);
        keys[n].entry = (uint32_t)i;
        n++;
    }
    if (n > 1)
        sort_keys(keys, n, key_scratch);
    double *xs = sweep->x + 2 * first, *yz = sweep->yz + 4 * first;
    for (size_t s = 0; s < n; s++) {
        const glcollide_aabb *box = &boxes[keys[s].entry];
        xs[2 * s] = box->min[x] - margin;
        xs[2 * s + 1] = box->max[x] + margin;
        yz[4 * s] = box->min[y] - margin;
        yz[4 * s + 1] = box->max[y] + margin;
        yz[4 * s + 2] = box->min[z] - margin;
        yz[4 * s + 3] = box->max[z] + margin;
        sweep->index[first + s] = keys[s].entry;
    }
    return n;
}

/* Do grown boxes s and t of the sweep overlap? & rather than &&: one
 * hard-to-predict branch instead of five. The test of s's min x against t's
 * max keeps inverted (min > max) boxes exact. */
static inline int sweep_overlap(const sap_sweep *sweep, size_t s, size_t t)
{
    const double *a = sweep->yz + 4 * s, *b = sweep->yz + 4 * t;
    return (sweep->x[2 * s] <= sweep->x[2 * t + 1]) & (sweep->x[2 * t] <= sweep->x[2 * s + 1]) &
           (a[0] <= b[1]) & (b[0] <= a[1]) & (a[2] <= b[3]) & (b[2] <= a[3]);
}

int glcollide_sap_pairs(const glcollide_aabb *boxes, size_t count, double margin,
                        glcollide_pair_list *pairs, glcollide_scratch *scratch)
{
    return glcollide_sap_pairs_ws(boxes, count, margin, pairs,
                                  glcollide_scratch_workspace(scratch));
}

int glcollide_sap_pairs_across(const glcollide_aabb *boxes_a, size_t count_a,
                               const glcollide_aabb *boxes_b, size_t count_b, double margin,
                               glcollide_pair_list *pairs, glcollide_scratch *scratch)
{
    return glcollide_sap_pairs_across_ws(boxes_a, count_a, boxes_b, count_b, margin, pairs,
                                         glcollide_scratch_workspace(scratch));
}

int glcollide_sap_pairs_ws(const glcollide_aabb *boxes, size_t count, double margin,
                           glcollide_pair_list *pairs, glcollide_workspace *workspace)
{
    if (!pairs || (count && !boxes))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "SAP: NULL %s",
                              pairs ? "boxes" : "pair list");
    if (!(margin >= 0.0) || !isfinite(margin))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "SAP: margin %g is not finite and >= 0", margin);
    if (count > (size_t)UINT32_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "SAP: %zu boxes, indices are 32-bit", count);
    if (count < 2)
        return GLCOLLIDE_OK;

    sap_sweep sweep;
    void *own = NULL;
    if (!sweep_alloc(&sweep, count, workspace, &own))
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "SAP: out of memory for %zu boxes",
                              count);
    const int x = sweep_axis(boxes, count, NULL, 0);
    size_t n = sweep_fill(&sweep, 0, boxes, count, margin, x);
    int status = GLCOLLIDE_OK;

    size_t start = pairs->count;
    for (size_t s = 0; s < n; s++) {
        /* Every later box starts at or after this one along x; the sweep
         * stops at the first that starts beyond its end. */
        for (size_t t = s + 1; t < n && sweep.x[2 * t] <= sweep.x[2 * s + 1]; t++)
            if (sweep_overlap(&sweep, s, t)) {
                uint32_t i = sweep.index[s], j = sweep.index[t];
                status = glcollide_pair_list_push(pairs, i < j ? i : j, i < j ? j : i);
                if (status != GLCOLLIDE_OK) {
                    pairs->count = start;
                    goto done;
                }
            }
    }
    status = sort_new_pairs(pairs, start, count, workspace, &own);
done:
    free(own);
    return status;
}

int glcollide_sap_pairs_across_ws(const glcollide_aabb *boxes_a, size_t count_a,
                                  const glcollide_aabb *boxes_b, size_t count_b, double margin,
                                  glcollide_pair_list *pairs, glcollide_workspace *workspace)
{
    if (!pairs || (count_a && !boxes_a) || (count_b && !boxes_b))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "SAP: NULL %s",
                              pairs ? "boxes" : "pair list");
    if (!(margin >= 0.0) || !isfinite(margin))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "SAP: margin %g is not finite and >= 0", margin);
    if (count_a > (size_t)UINT32_MAX || count_b > (size_t)UINT32_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "SAP: %zu and %zu boxes, indices are 32-bit", count_a, count_b);
    if (!count_a || !count_b)
        return GLCOLLIDE_OK;
    sap_sweep sweep;
    void *own = NULL;
    size_t count = count_a + count_b;
    if (count < count_a || !sweep_alloc(&sweep, count, workspace, &own))
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "SAP: out of memory for %zu boxes",
                              count);
    /* Each side sorted on its own (a in slots [0, na), b in [count_a,
     * count_a + nb)); then the two runs are merged in order of min x, and
     * each box, as it comes, is tested against the boxes of the other side
     * that start from it until its end: every pair overlapping along x is
     * met once, by the box of the two that starts first (a's on ties). */
    const int x = sweep_axis(boxes_a, count_a, boxes_b, count_b);
    size_t na = sweep_fill(&sweep, 0, boxes_a, count_a, margin, x);
    size_t nb = sweep_fill(&sweep, count_a, boxes_b, count_b, margin, x);
    size_t start = pairs->count, i = 0, j = 0;
    int status = GLCOLLIDE_OK;
    while (i < na && j < nb && status == GLCOLLIDE_OK) {
        int from_a = sweep.x[2 * i] <= sweep.x[2 * (count_a + j)];
        size_t s = from_a ? i++ : count_a + j++;
        size_t t = from_a ? count_a + j : i, end = from_a ? count_a + nb : na;
        for (; t < end && sweep.x[2 * t] <= sweep.x[2 * s + 1]; t++)
            if (sweep_overlap(&sweep, s, t)) {
                uint32_t ia = sweep.index[from_a ? s : t], ib = sweep.index[from_a ? t : s];
                status = glcollide_pair_list_push(pairs, ia, ib);
                if (status != GLCOLLIDE_OK) {
                    pairs->count = start;
                    break;
                }
            }
    }
    /* In the order of (i, j), as the sets' own orders. */
    if (status == GLCOLLIDE_OK)
        status =
            sort_new_pairs(pairs, start, count_a > count_b ? count_a : count_b, workspace, &own);
    free(own);
    return status;
}
