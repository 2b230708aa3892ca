/* SPDX-License-Identifier: MIT */
/*
 * Sweep-and-prune over axis-aligned boxes: sort by min along the sweep axis,
 * then each box is compared with the boxes that start before it ends along
 * that axis (the active interval of the sweep), and only those are tested on
 * the two other axes. The sweep axis is the one along which the box centres
 * spread most (x, y or z), so that a pile of objects on a floor is swept
 * along the floor, not across it; below, "x" names the sweep axis.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The grown boxes in sweep order, split so that the inner loop streams
 * through x intervals and reads y and z only for boxes that start within.
 */
typedef struct sap_sweep {
    double *x;       /* min x, max x per box (x: the sweep axis) */
    double *yz;      /* min y, max y, min z, max z per box */
    uint32_t *index; /* the caller's index */
} sap_sweep;

typedef struct sap_key {
    uint64_t key; /* min x as an order-preserving integer */
    uint32_t entry;
} sap_key;

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
    enum { DIGIT_BITS = 11, BUCKETS = 1 << DIGIT_BITS };
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


/* The axis of largest variance of the finite box centres (0 when in doubt). */
static int sweep_axis(const glcollide_aabb *boxes, size_t count)
{
    double sum[3] = {0, 0, 0}, sum2[3] = {0, 0, 0}, n[3] = {0, 0, 0};
    for (size_t i = 0; i < count; i++)
        for (int k = 0; k < 3; k++) {
            double c = 0.5 * boxes[i].min[k] + 0.5 * boxes[i].max[k];
            if (isfinite(c)) {
                sum[k] += c;
                sum2[k] += c * c;
                n[k] += 1.0;
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

int glcollide_sap_pairs(const glcollide_aabb *boxes, size_t count, double margin,
                        glcollide_pair_list *pairs)
{
    return glcollide_sap_pairs_with(boxes, count, margin, pairs, NULL);
}

int glcollide_sap_pairs_with(const glcollide_aabb *boxes, size_t count, double margin,
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

    /* One scratch block: x, yz (doubles), keys and their sort scratch, index. */
    sap_sweep sweep;
    size_t per_box = 6 * sizeof(double) + 2 * sizeof(sap_key) + sizeof(uint32_t);
    void *own = NULL;
    char *block = count <= SIZE_MAX / per_box ? glcollide_workspace_get(workspace, count * per_box, &own) : NULL;
    if (!block)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "SAP: out of memory for %zu boxes",
                              count);
    sweep.x = (double *)block;
    sweep.yz = sweep.x + 2 * count;
    sap_key *keys = (sap_key *)(sweep.yz + 4 * count);
    sap_key *key_scratch = keys + count;
    sweep.index = (uint32_t *)(key_scratch + count);
    /* Growing first and then testing the grown boxes makes the answer exactly
     * "overlap after growing by margin", with the same rounding as a
     * brute-force test of the grown boxes. A NaN box would break the sort's
     * order and compares false anyway: it is left out. */
    const int x = sweep_axis(boxes, count), y = (x + 1) % 3, z = (x + 2) % 3;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        if (has_nan(&boxes[i]))
            continue;
        keys[n].key = sortable_bits(boxes[i].min[x] - margin);
        keys[n].entry = (uint32_t)i;
        n++;
    }
    int status = GLCOLLIDE_OK;
    if (n > 1)
        sort_keys(keys, n, key_scratch);
    for (size_t s = 0; s < n; s++) {
        const glcollide_aabb *box = &boxes[keys[s].entry];
        sweep.x[2 * s] = box->min[x] - margin;
        sweep.x[2 * s + 1] = box->max[x] + margin;
        sweep.yz[4 * s] = box->min[y] - margin;
        sweep.yz[4 * s + 1] = box->max[y] + margin;
        sweep.yz[4 * s + 2] = box->min[z] - margin;
        sweep.yz[4 * s + 3] = box->max[z] + margin;
        sweep.index[s] = keys[s].entry;
    }

    size_t start = pairs->count;
    for (size_t s = 0; s < n; s++) {
        const double min_x = sweep.x[2 * s], max_x = sweep.x[2 * s + 1];
        const double *yz = sweep.yz + 4 * s;
        /* Every later box starts at or after this one along x; the sweep
         * stops at the first that starts beyond its end. The explicit test
         * of min_x against the other's max keeps inverted (min > max) boxes
         * exact. */
        for (size_t t = s + 1; t < n && sweep.x[2 * t] <= max_x; t++) {
            const double *other = sweep.yz + 4 * t;
            /* & rather than &&: one hard-to-predict branch instead of five. */
            if ((min_x <= sweep.x[2 * t + 1]) & (yz[0] <= other[1]) & (other[0] <= yz[1]) &
                (yz[2] <= other[3]) & (other[2] <= yz[3])) {
                uint32_t i = sweep.index[s], j = sweep.index[t];
                status = glcollide_pair_list_push(pairs, i < j ? i : j, i < j ? j : i);
                if (status != GLCOLLIDE_OK) {
                    pairs->count = start;
                    goto done;
                }
            }
        }
    }
    size_t k = pairs->count - start;
    if (k > 1) {
        /* The sweep's arrays are done with: the block serves the pair sort. */
        free(own);
        own = NULL;
        size_t bytes = k * sizeof(glcollide_index_pair) + (count + 1) * sizeof(size_t);
        char *sort_block = k <= SIZE_MAX / 2 / sizeof(glcollide_index_pair)
                               ? glcollide_workspace_get(workspace, bytes, &own)
                               : NULL;
        if (!sort_block) {
            pairs->count = start;
            status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "SAP: out of memory sorting pairs");
            goto done;
        }
        /* size_t offsets first: the block is aligned for them, pairs need 4. */
        sort_pairs(pairs->pairs + start, k, count,
                   (glcollide_index_pair *)(sort_block + (count + 1) * sizeof(size_t)),
                   (size_t *)sort_block);
    }
done:
    free(own);
    return status;
}
