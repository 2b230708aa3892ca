/* SPDX-License-Identifier: MIT */
/*
 * Bounding-volume hierarchy of axis-aligned boxes over a triangle mesh.
 *
 * Layout: one flat array of nodes. A node is a leaf when count > 0 (it owns
 * the leaf slots [first, first + count)), otherwise its children are the
 * nodes first and first + 1. Children are always allocated after their
 * parent, so a reverse sweep over the array is a bottom-up order (refit).
 *
 * Leaves hold up to GLCOLLIDE_BVH_LEAF_SIZE = 8 triangles (splits leave 4
 * to 8): the answer is decided on per-triangle boxes anyway (stored
 * contiguously per leaf, as 16-bit steps across the leaf's box: 12 bytes a
 * triangle, not 48; see "slot boxes"), so small leaves buy nothing in precision,
 * while fewer nodes mean less memory, less refit work and fewer node-node
 * tests in the simultaneous descent; a leaf-leaf visit costs at most 64 box
 * tests on contiguous data, cheaper than the nodes and stack traffic it
 * replaces (the descent of two bunnies: 1.66 ms with leaves of up to 4,
 * 1.42 ms with 8, 1.41 ms with 12, 1.48 ms with 16).
 *
 * The split is chosen by the surface-area heuristic (binned, on all three
 * axes: sah_split), which makes the boxes a descent meets smaller than the
 * median's balanced split did: on two interpenetrating knots, bunnies, or an
 * armadillo and an elephant, 13-15% fewer instructions for the same pairs,
 * for a build about twice as long. It
 * splits by area down to GLCOLLIDE_BVH_SAH_DEPTH levels and at the median
 * of the centroids along their largest extent below (and wherever no split
 * by area qualifies), so whatever the geometry the depth is at most
 * GLCOLLIDE_BVH_SAH_DEPTH + ceil(log2(n)): traversals use a small fixed
 * stack and no recursion.
 */
#include "geometry/bvh_internal.h"
#include "geometry/predicates.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- boxes */

static inline void box_union(glcollide_aabb *box, const glcollide_aabb *other)
{
    for (int k = 0; k < 3; k++) {
        if (other->min[k] < box->min[k])
            box->min[k] = other->min[k];
        if (other->max[k] > box->max[k])
            box->max[k] = other->max[k];
    }
}

/* The same arithmetic as glcollide_aabb_empty + glcollide_aabb_add_point
 * (point_in_mesh relies on it), inlined: it is most of refit's work. */
static inline void triangle_box(const double *positions, const uint32_t *triangle,
                                glcollide_aabb *box)
{
    const double *a = positions + 3 * (size_t)triangle[0];
    const double *b = positions + 3 * (size_t)triangle[1];
    const double *c = positions + 3 * (size_t)triangle[2];
    for (int k = 0; k < 3; k++) {
        double lo = INFINITY, hi = -INFINITY;
        if (a[k] < lo)
            lo = a[k];
        if (a[k] > hi)
            hi = a[k];
        if (b[k] < lo)
            lo = b[k];
        if (b[k] > hi)
            hi = b[k];
        if (c[k] < lo)
            lo = c[k];
        if (c[k] > hi)
            hi = c[k];
        box->min[k] = lo;
        box->max[k] = hi;
    }
}

/* The centre and half extents enclosing box. The halves (0.5 x is exact
 * but for subnormals) keep the sum from overflowing; each computed c and h,
 * and c -/+ h later, is off by at most (|c| + h) 2^-53 plus 2^-1075, so
 * growing h by (|c| + h) 2^-50 + 2^-1070 covers all three and leaves as
 * much again for the roundings of the tests that compare such boxes. */
static inline void box_encode(const glcollide_aabb *box, bvh_box *out)
{
    for (int k = 0; k < 3; k++) {
        double c = 0.5 * box->min[k] + 0.5 * box->max[k];
        double h = 0.5 * box->max[k] - 0.5 * box->min[k];
        out->c[k] = c;
        out->h[k] = h + ((fabs(c) + h) * 0x1p-50 + 0x1p-1070);
    }
}

/* The min/max box of an encoded one (enclosing the box it was made from). */
static inline void box_decode(const bvh_box *box, glcollide_aabb *out)
{
    for (int k = 0; k < 3; k++) {
        out->min[k] = box->c[k] - box->h[k];
        out->max[k] = box->c[k] + box->h[k];
    }
}

/* ---------------------------------------------------------------- slot boxes
 *
 * A slot's box is stored as steps across its leaf's box (bvh_slot_box): a
 * corner at step u in [0, 65535] lies at c + (2 u - 65535) s, with s =
 * (h - g) / 65535, so a decoded box has centre (c - 65535 s) + (lo + hi) s
 * and half extent (hi - lo) s + g. g = (|c| + h) 2^-48 (h at most) covers the
 * rounding of those sums and leaves room for the tests' own, as
 * box_encode's growth does; at full width a slot box is its leaf's box, so a
 * leaf still encloses its slots' boxes up to a few ulps. slot_encode rounds
 * the corners outward and then checks the box as decoded against the
 * triangle's, widening it a step at a time until it encloses it: whatever
 * the rounding, a test on a decoded box never rejects what the triangle's
 * exact box would meet.
 */
#define SLOT_STEPS 65535

/* A leaf's box as the decoding of its slots uses it: the centre of a slot
 * box at steps 0 and 0 (c - 65535 s), the step s and the growth g. */
typedef struct slot_scale {
    double base[3], step[3], grow[3];
} slot_scale;

static inline void slot_scale_set(const bvh_box *leaf, slot_scale *out)
{
    for (int k = 0; k < 3; k++) {
        double h = leaf->h[k], g = (fabs(leaf->c[k]) + h) * 0x1p-48 + 0x1p-1070;
        out->grow[k] = g < h ? g : h;
        out->step[k] = (h - out->grow[k]) * (1.0 / SLOT_STEPS);
        out->base[k] = leaf->c[k] - SLOT_STEPS * out->step[k];
    }
}

static inline void slot_decode(const slot_scale *scale, const bvh_slot_box *slot, bvh_box *out)
{
    for (int k = 0; k < 3; k++) {
        double lo = slot->lo[k], hi = slot->hi[k];
        out->c[k] = scale->base[k] + (lo + hi) * scale->step[k];
        out->h[k] = (hi - lo) * scale->step[k] + scale->grow[k];
    }
}

/* The steps of a leaf's slot enclosing box (a triangle's exact box);
 * per_step: 1 / (2 s) on each axis (0 where s is 0). The first guess only
 * needs to be near: the check below makes it enclose. */
static void slot_encode(const slot_scale *scale, const double per_step[3],
                        const glcollide_aabb *box, bvh_slot_box *out)
{
    for (int k = 0; k < 3; k++) {
        uint32_t lo = 0, hi = SLOT_STEPS;
        if (per_step[k] > 0.0) { /* NaN or out of range: clamped, to the whole leaf at worst */
            double l = (box->min[k] - scale->base[k]) * per_step[k],
                   h = (box->max[k] - scale->base[k]) * per_step[k];
            lo = l > 0.0 ? (l < SLOT_STEPS ? (uint32_t)l : SLOT_STEPS) : 0; /* floor */
            if (h < SLOT_STEPS) {
                hi = h > 0.0 ? (uint32_t)h : 0;
                hi += hi < h; /* ceil */
                hi = hi > lo ? hi : lo;
            }
        }
        out->lo[k] = (uint16_t)lo;
        out->hi[k] = (uint16_t)hi;
    }
    for (int widened = 1; widened;) {
        bvh_box decoded;
        slot_decode(scale, out, &decoded);
        widened = 0;
        for (int k = 0; k < 3; k++) {
            if (decoded.c[k] - decoded.h[k] > box->min[k] && out->lo[k] > 0) {
                out->lo[k]--;
                widened = 1;
            }
            if (decoded.c[k] + decoded.h[k] < box->max[k] && out->hi[k] < SLOT_STEPS) {
                out->hi[k]++;
                widened = 1;
            }
        }
    }
}

/* The boxes of a leaf's slots, decoded (out[i]: slot leaf->first + i). */
static inline void leaf_boxes(const glcollide_bvh *bvh, const bvh_node *leaf,
                              bvh_box out[GLCOLLIDE_BVH_LEAF_SIZE])
{
    slot_scale scale;
    slot_scale_set(&leaf->box, &scale);
    for (uint32_t i = 0; i < leaf->count; i++)
        slot_decode(&scale, &bvh->slot_boxes[leaf->first + i], &out[i]);
}

/* Inclusive overlap of a and b after growing each by margin on every side:
 * monotone, so a node test never rejects what a contained triangle box
 * would accept. */
static inline int overlap_margin(const bvh_box *a, const bvh_box *b, double margin)
{
    for (int k = 0; k < 3; k++)
        if (!(fabs(a->c[k] - b->c[k]) <= a->h[k] + b->h[k] + 2.0 * margin))
            return 0;
    return 1;
}

/* Does encoded box a meet the min/max box b? */
static inline int meets_aabb(const bvh_box *a, const glcollide_aabb *b)
{
    glcollide_aabb box;
    box_decode(a, &box);
    return glcollide_aabb_overlap(&box, b);
}

/* ---------------------------------------------------------------- build */

/* A triangle during the build: its box, in single precision (it only
 * chooses the splits), about the mesh's centre and scaled by a power of
 * two to within 1, kept next to its index so that the splits scan and swap
 * contiguous memory (28 bytes). */
typedef struct build_ref {
    float lo[3], hi[3];
    uint32_t triangle;
} build_ref;

/* Twice the centre of a triangle's box along axis: where the splits place it. */
static inline double ref_centre(const build_ref *ref, int axis)
{
    return (double)ref->lo[axis] + (double)ref->hi[axis];
}

/*
 * Rearranges refs[0..n) so that refs[kth] holds the element of rank kth along
 * axis, lower ranks before it and higher after (quickselect, median-of-three
 * pivot, Hoare partition: runs of equal centroids, common in meshes, are
 * split evenly, so they cost linear time too). A NaN centroid compares false
 * both ways and stops both scans, like an equal key: it cannot loop.
 */
static void select_kth(build_ref *refs, size_t n, size_t kth, int axis)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double x = ref_centre(&refs[lo], axis), y = ref_centre(&refs[lo + (hi - lo) / 2], axis);
        double z = ref_centre(&refs[hi], axis);
        double pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        size_t i = lo, j = hi;
        /* The pivot's own element bounds both scans in the first round, the
         * swapped elements in later ones. */
        while (i <= j) {
            while (ref_centre(&refs[i], axis) < pivot)
                i++;
            while (ref_centre(&refs[j], axis) > pivot)
                j--;
            if (i <= j) {
                build_ref swap = refs[i];
                refs[i] = refs[j];
                refs[j] = swap;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (kth <= j && j < hi)
            hi = j;
        else if (kth >= i)
            lo = i;
        else
            return;
    }
}

/*
 * The split by the surface-area heuristic, binned: the centroids of
 * refs[0..n) sorted into SAH_BINS bins along each axis of their extent, and
 * the boundary between bins chosen that makes the two parts' boxes' areas,
 * each times its triangles, smallest (the cost of descending into them
 * when the other tree's box lands somewhere in this one's). Each part must
 * hold at least SAH_MIN_PART triangles, so leaves stay as full as the
 * median's. Returns the triangles of the first part, refs partitioned
 * accordingly; 0 where no boundary qualifies (centroids in one bin, or
 * boxes without an area: NaN, infinite), and the median decides.
 */
enum { SAH_BINS = 16, SAH_MIN_PART = GLCOLLIDE_BVH_LEAF_SIZE / 2 };

typedef struct sah_bin {
    float lo[3], hi[3];
    uint32_t count;
} sah_bin;

static inline int sah_bin_of(double centre, double lo, double scale)
{
    double x = (centre - lo) * scale;
    return x >= 1.0 ? (x < SAH_BINS ? (int)x : SAH_BINS - 1) : 0; /* NaN: bin 0 */
}

/* A NaN corner is left out of the bin's box. */
static inline void sah_grow(sah_bin *into, const float lo[3], const float hi[3])
{
    for (int k = 0; k < 3; k++) {
        into->lo[k] = lo[k] < into->lo[k] ? lo[k] : into->lo[k];
        into->hi[k] = hi[k] > into->hi[k] ? hi[k] : into->hi[k];
    }
}

/* Half the area of a box, times the triangles in it. */
static inline double sah_cost(const sah_bin *part)
{
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = (double)part->hi[k] - (double)part->lo[k];
    return (d[0] * d[1] + d[1] * d[2] + d[2] * d[0]) * part->count;
}

static uint32_t sah_split(build_ref *refs, uint32_t n, const double lo[3], const double hi[3])
{
    const sah_bin none = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0};
    double best = INFINITY, best_scale = 0.0;
    int best_axis = -1, best_bin = 0;
    for (int axis = 0; axis < 3; axis++) {
        double extent = hi[axis] - lo[axis];
        if (!(extent > 0.0) || !isfinite(extent))
            continue;
        double scale = SAH_BINS / extent;
        sah_bin bins[SAH_BINS], after[SAH_BINS];
        for (int b = 0; b < SAH_BINS; b++)
            bins[b] = none;
        for (uint32_t i = 0; i < n; i++) {
            sah_bin *bin = &bins[sah_bin_of(ref_centre(&refs[i], axis), lo[axis], scale)];
            sah_grow(bin, refs[i].lo, refs[i].hi);
            bin->count++;
        }
        /* after[b]: bins b.. together; then the parts ..b and b + 1.. */
        after[SAH_BINS - 1] = bins[SAH_BINS - 1];
        for (int b = SAH_BINS - 1; b-- > 0;) {
            after[b] = after[b + 1];
            sah_grow(&after[b], bins[b].lo, bins[b].hi);
            after[b].count += bins[b].count;
        }
        sah_bin before = none;
        for (int b = 0; b + 1 < SAH_BINS; b++) {
            sah_grow(&before, bins[b].lo, bins[b].hi);
            before.count += bins[b].count;
            if (before.count < SAH_MIN_PART || after[b + 1].count < SAH_MIN_PART)
                continue;
            double cost = sah_cost(&before) + sah_cost(&after[b + 1]);
            if (cost < best) { /* NaN never is */
                best = cost;
                best_axis = axis;
                best_bin = b;
                best_scale = scale;
            }
        }
    }
    if (best_axis < 0)
        return 0;
    uint32_t i = 0, j = n;
    while (i < j) {
        if (sah_bin_of(ref_centre(&refs[i], best_axis), lo[best_axis], best_scale) <= best_bin) {
            i++;
        } else {
            build_ref swap = refs[i];
            refs[i] = refs[--j];
            refs[j] = swap;
        }
    }
    return i;
}

typedef struct build_item {
    uint32_t node, begin, end, depth;
} build_item;

int glcollide_bvh_build(const double *positions, size_t vertex_count, const uint32_t *triangles,
                        size_t triangle_count, glcollide_bvh **out)
{
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "BVH: out is NULL");
    if ((vertex_count && !positions) || (triangle_count && !triangles))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "BVH: NULL %s",
                              triangle_count && !triangles ? "triangles" : "positions");
    if (triangle_count > UINT32_MAX / 2)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "BVH: %zu triangles, at most %u",
                              triangle_count, UINT32_MAX / 2);
    for (size_t t = 0; t < triangle_count; t++)
        for (int v = 0; v < 3; v++)
            if (triangles[3 * t + v] >= vertex_count)
                return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                                      "BVH: triangle %zu: vertex index %u >= vertex count %zu", t,
                                      triangles[3 * t + v], vertex_count);

    glcollide_bvh *bvh = calloc(1, sizeof *bvh);
    if (!bvh)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "BVH: out of memory");
    bvh->vertex_count = vertex_count;
    bvh->triangle_count = triangle_count;
    if (triangle_count == 0) {
        *out = bvh;
        return GLCOLLIDE_OK;
    }

    size_t n = triangle_count;
    /* Splits of ranges larger than a leaf give parts of >= 2 triangles,
     * so there are at most n - 1 nodes (2n - 1 bounds it in every case). */
    size_t max_nodes = 2 * n - 1;
    build_ref *refs = glcollide_alloc_array(n, sizeof *refs);
    build_item *stack = glcollide_alloc_array(GLCOLLIDE_BVH_MAX_DEPTH + 2, sizeof *stack);
    bvh->triangles = glcollide_alloc_array(n, 3 * sizeof *bvh->triangles);
    bvh->ids = glcollide_alloc_array(n, sizeof *bvh->ids);
    bvh->slot_boxes = glcollide_alloc_array(n, sizeof *bvh->slot_boxes);
    bvh->nodes = glcollide_alloc_array(max_nodes, sizeof *bvh->nodes);
    int status = GLCOLLIDE_OK;
    if (!refs || !stack || !bvh->triangles || !bvh->ids || !bvh->slot_boxes || !bvh->nodes) {
        status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                                "BVH: out of memory for %zu triangles", n);
        goto done;
    }

    /* The boxes in single precision are the mesh's about its centre, scaled
     * by a power of two to within 1: as fine as the mesh is large wherever
     * it lies (a part at 500 km from the origin keeps its millimetres), and
     * the same tree for the mesh at any power-of-two scale (at 2^600 or
     * 2^-600 a float would be infinite or 0). NaN and infinite coordinates
     * are left out of the centre and the scale. */
    glcollide_aabb bounds;
    glcollide_aabb_empty(&bounds);
    for (size_t t = 0; t < n; t++)
        for (int v = 0; v < 3; v++) {
            const double *p = positions + 3 * (size_t)triangles[3 * t + v];
            if (isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))
                glcollide_aabb_add_point(&bounds, p);
        }
    for (int k = 0; k < 3; k++)
        if (!(bounds.min[k] <= bounds.max[k])) /* no finite vertex */
            bounds.min[k] = bounds.max[k] = 0.0;
    double centre[3], unit;
    glcollide_frame_fit(&bounds, centre, &unit);
    for (size_t t = 0; t < n; t++) {
        glcollide_aabb box;
        triangle_box(positions, triangles + 3 * t, &box);
        for (int k = 0; k < 3; k++) {
            refs[t].lo[k] = (float)((box.min[k] - centre[k]) * unit);
            refs[t].hi[k] = (float)((box.max[k] - centre[k]) * unit);
        }
        refs[t].triangle = (uint32_t)t;
    }

    /* Depth-first with an explicit stack: one pending sibling per level. */
    size_t top = 0;
    bvh->node_count = 1;
    stack[top++] = (build_item){0, 0, (uint32_t)n, 0};
    while (top > 0) {
        build_item item = stack[--top];
        bvh_node *node = &bvh->nodes[item.node];
        uint32_t count = item.end - item.begin;
        if ((int)item.depth > bvh->depth)
            bvh->depth = (int)item.depth;
        if (count <= GLCOLLIDE_BVH_LEAF_SIZE) {
            node->first = item.begin;
            node->count = count;
            continue;
        }
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t i = item.begin; i < item.end; i++)
            for (int k = 0; k < 3; k++) {
                double c = ref_centre(&refs[i], k);
                if (c < lo[k])
                    lo[k] = c;
                if (c > hi[k])
                    hi[k] = c;
            }
        uint32_t split =
            item.depth < GLCOLLIDE_BVH_SAH_DEPTH ? sah_split(refs + item.begin, count, lo, hi) : 0;
        uint32_t mid = item.begin + (split ? split : count / 2);
        if (!split) {
            int axis = 0;
            for (int k = 1; k < 3; k++)
                if (hi[k] - lo[k] > hi[axis] - lo[axis])
                    axis = k;
            select_kth(refs + item.begin, count, mid - item.begin, axis);
        }
        if (item.depth + 1 > GLCOLLIDE_BVH_MAX_DEPTH || top + 2 > GLCOLLIDE_BVH_MAX_DEPTH + 2) {
            status = glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "BVH: tree deeper than %d",
                                    GLCOLLIDE_BVH_MAX_DEPTH);
            goto done;
        }
        uint32_t left = (uint32_t)bvh->node_count;
        bvh->node_count += 2;
        node->first = left;
        node->count = 0;
        stack[top++] = (build_item){left + 1, mid, item.end, item.depth + 1};
        stack[top++] = (build_item){left, item.begin, mid, item.depth + 1};
    }

    /* The build reserved the bound 2n - 1; the tree has about n / 3. */
    bvh_node *nodes = glcollide_realloc_array(bvh->nodes, bvh->node_count, sizeof *nodes);
    if (nodes)
        bvh->nodes = nodes;
    for (size_t s = 0; s < n; s++) {
        bvh->ids[s] = refs[s].triangle;
        memcpy(bvh->triangles + 3 * s, triangles + 3 * (size_t)refs[s].triangle,
               3 * sizeof *triangles);
    }
    glcollide_bvh_refit_positions(bvh, positions, 0);

done:
    free(refs);
    free(stack);
    if (status != GLCOLLIDE_OK)
        glcollide_bvh_destroy(&bvh);
    *out = bvh;
    return status;
}

/* An inner node's box: its children's (each level grows by a few ulps). */
static inline void refit_inner(glcollide_bvh *bvh, bvh_node *node)
{
    glcollide_aabb box, part;
    box_decode(&bvh->nodes[node->first].box, &box);
    box_decode(&bvh->nodes[node->first + 1].box, &part);
    box_union(&box, &part);
    box_encode(&box, &node->box);
}

/* A leaf's box, enclosing its triangles' exact boxes, and its slots stored
 * in it; that exact box joins bounds. Inlined into its loop: GCC keeps it
 * a call, and a call per leaf made a refit 8-10% slower. */
static inline __attribute__((always_inline)) void
refit_leaf(glcollide_bvh *bvh, const double *positions, bvh_node *node, glcollide_aabb *bounds)
{
    glcollide_aabb box, boxes[GLCOLLIDE_BVH_LEAF_SIZE];
    for (uint32_t j = 0; j < node->count; j++) {
        triangle_box(positions, bvh->triangles + 3 * (size_t)(node->first + j), &boxes[j]);
        if (j)
            box_union(&box, &boxes[j]);
        else
            box = boxes[0];
    }
    box_union(bounds, &box);
    box_encode(&box, &node->box);
    slot_scale scale;
    slot_scale_set(&node->box, &scale);
    double per_step[3];
    for (int k = 0; k < 3; k++)
        per_step[k] = scale.step[k] > 0.0 ? 0.5 / scale.step[k] : 0.0;
    for (uint32_t j = 0; j < node->count; j++)
        slot_encode(&scale, per_step, &boxes[j], &bvh->slot_boxes[node->first + j]);
}

/* A refit is shared among threads from this many triangles (below, waking
 * the workers costs more than it saves), in at most REFIT_TASKS runs of
 * nodes, each at least REFIT_TASK_NODES long. */
enum { REFIT_PARALLEL_TRIANGLES = 8192, REFIT_TASK_NODES = 1024 };
#define REFIT_TASKS 64

typedef struct refit_job {
    glcollide_bvh *bvh;
    const double *positions;
    size_t task_nodes;
    glcollide_aabb bounds[REFIT_TASKS]; /* each task's leaves' */
} refit_job;

/* Task: the leaves of one run of nodes, from its last. */
static void refit_task(void *user, size_t task, int worker)
{
    (void)worker;
    refit_job *job = user;
    size_t first = task * job->task_nodes, end = first + job->task_nodes;
    if (end > job->bvh->node_count)
        end = job->bvh->node_count;
    glcollide_aabb_empty(&job->bounds[task]);
    for (size_t i = end; i-- > first;)
        if (job->bvh->nodes[i].count)
            refit_leaf(job->bvh, job->positions, &job->bvh->nodes[i], &job->bounds[task]);
}

void glcollide_bvh_refit_positions(glcollide_bvh *bvh, const double *positions, int threads)
{
    if (!bvh || !positions || bvh->node_count == 0)
        return;
    glcollide_aabb_empty(&bvh->bounds);
    if (threads <= 0)
        threads = glcollide_workers_count();
    /* Bottom-up: a node's children come after it. The leaves first, in
     * runs of nodes (on several threads: each leaf's work is its own; on
     * one, a single run), then the inner nodes from the last: the same
     * boxes whatever the threads, and bounds joined in the same order (from
     * the last leaf). */
    refit_job job = {.bvh = bvh, .positions = positions, .task_nodes = bvh->node_count};
    if (threads > 1 && bvh->triangle_count >= REFIT_PARALLEL_TRIANGLES) {
        job.task_nodes = REFIT_TASK_NODES;
        if (bvh->node_count > REFIT_TASKS * job.task_nodes)
            job.task_nodes = (bvh->node_count + REFIT_TASKS - 1) / REFIT_TASKS;
    }
    size_t tasks = (bvh->node_count + job.task_nodes - 1) / job.task_nodes;
    glcollide_workers_run(tasks, threads, refit_task, &job);
    for (size_t k = tasks; k-- > 0;)
        box_union(&bvh->bounds, &job.bounds[k]);
    for (size_t i = bvh->node_count; i-- > 0;)
        if (!bvh->nodes[i].count)
            refit_inner(bvh, &bvh->nodes[i]);
}

void glcollide_bvh_destroy(glcollide_bvh **bvh)
{
    if (!bvh || !*bvh)
        return;
    free((*bvh)->triangles);
    free((*bvh)->ids);
    free((*bvh)->slot_boxes);
    free((*bvh)->nodes);
    free(*bvh);
    *bvh = NULL;
}

int glcollide_bvh_same_triangles(const glcollide_bvh *bvh, const glcollide_mesh *mesh)
{
    if (!bvh || !mesh || mesh->triangle_count != bvh->triangle_count ||
        mesh->vertex_count != bvh->vertex_count || (bvh->triangle_count && !mesh->triangles))
        return 0;
    for (size_t s = 0; s < bvh->triangle_count; s++)
        if (memcmp(bvh->triangles + 3 * s, mesh->triangles + 3 * (size_t)bvh->ids[s],
                   3 * sizeof *bvh->triangles) != 0)
            return 0;
    return 1;
}

glcollide_aabb glcollide_bvh_bounds(const glcollide_bvh *bvh)
{
    glcollide_aabb box;
    if (bvh && bvh->node_count)
        return bvh->bounds;
    glcollide_aabb_empty(&box);
    return box;
}

/* Walks the nodes depth levels below the root (leaves where shallower), left
 * to right, handing each node's box to visit; with triangles, a leaf above
 * that depth hands its triangles' boxes instead when they fit in its share
 * of the 2^depth places. */
typedef void (*frontier_visit)(void *data, const bvh_box *box);

static void visit_frontier(const glcollide_bvh *bvh, int depth, int triangles, frontier_visit visit,
                           void *data)
{
    if (!bvh || !bvh->node_count)
        return;
    struct {
        uint32_t node;
        int depth;
    } stack[GLCOLLIDE_BVH_MAX_DEPTH + 2];
    int top = 0;
    stack[top].node = 0;
    stack[top++].depth = 0;
    while (top) {
        uint32_t n = stack[--top].node;
        int d = stack[top].depth;
        const bvh_node *node = &bvh->nodes[n];
        if (node->count == 0 && d < depth && top + 2 <= GLCOLLIDE_BVH_MAX_DEPTH + 2) {
            stack[top].node = node->first + 1;
            stack[top++].depth = d + 1;
            stack[top].node = node->first;
            stack[top++].depth = d + 1;
            continue;
        }
        /* A leaf above that depth has room for its triangles' own boxes
         * (2^(depth - d) of the frontier's places are its share): tighter
         * than the leaf's box, and exact for a small mesh. */
        if (triangles && node->count && d < depth &&
            (depth - d >= 31 || node->count <= (uint32_t)1 << (depth - d))) {
            bvh_box boxes[GLCOLLIDE_BVH_LEAF_SIZE];
            leaf_boxes(bvh, node, boxes);
            for (uint32_t s = 0; s < node->count; s++)
                visit(data, &boxes[s]);
            continue;
        }
        visit(data, &node->box);
    }
}

/* A frontier being gathered: SoA rows of stride entries, count so far. */
typedef struct frontier_out {
    double *boxes;
    size_t stride, count;
} frontier_out;

static void gather_box(void *data, const bvh_box *box)
{
    frontier_out *out = data;
    if (out->count < out->stride)
        for (int k = 0; k < 3; k++) {
            out->boxes[k * out->stride + out->count] = box->c[k];
            out->boxes[(3 + k) * out->stride + out->count] = box->h[k];
        }
    out->count++;
}

size_t glcollide_bvh_frontier(const glcollide_bvh *bvh, int depth, double *boxes, size_t capacity)
{
    frontier_out out = {boxes, capacity, 0};
    visit_frontier(bvh, depth, 1, gather_box, &out);
    return out.count;
}

/* placed_bounds in chunks of a frontier: each chunk placed as one union. */
enum { PLACED_CHUNK = 64 };
typedef struct placed_chunks {
    double boxes[6 * PLACED_CHUNK];
    size_t count;
    const glcollide_pose *pose;
    glcollide_aabb *out;
} placed_chunks;

static void placed_flush(placed_chunks *chunks)
{
    glcollide_aabb part;
    glcollide_boxes_place_union(chunks->boxes, PLACED_CHUNK, chunks->count, chunks->pose, &part);
    box_union(chunks->out, &part);
    chunks->count = 0;
}

static void chunk_add(void *data, const bvh_box *box)
{
    placed_chunks *chunks = data;
    for (int k = 0; k < 3; k++) {
        chunks->boxes[k * PLACED_CHUNK + chunks->count] = box->c[k];
        chunks->boxes[(3 + k) * PLACED_CHUNK + chunks->count] = box->h[k];
    }
    if (++chunks->count == PLACED_CHUNK)
        placed_flush(chunks);
}

void glcollide_bvh_placed_bounds(const glcollide_bvh *bvh, const glcollide_pose *pose, int depth,
                                 glcollide_aabb *out)
{
    glcollide_aabb_empty(out);
    placed_chunks chunks = {.count = 0, .pose = pose, .out = out};
    visit_frontier(bvh, depth, 0, chunk_add, &chunks);
    if (chunks.count)
        placed_flush(&chunks);
}

size_t glcollide_bvh_triangle_count(const glcollide_bvh *bvh)
{
    return bvh ? bvh->triangle_count : 0;
}

/* ---------------------------------------------------------------- traversal */

/* Can box x (grown by grow) and a placed box be separated along one of x's
 * own axes? 0 when they can. */
static inline int meets_placed(const bvh_box *x, double grow, const placed_box *p)
{
    int meets = 1;
    for (int k = 0; k < 3; k++)
        meets &= !(fabs(p->c[k] - x->c[k]) > x->h[k] + grow + p->h[k]);
    return meets;
}

/* The axis along which a box is thinnest: the likeliest to separate it from
 * a box tilted against it, so tested first. */
static inline int thinnest_axis(const bvh_box *box)
{
    int k = box->h[1] < box->h[0];
    return box->h[2] < box->h[k] ? 2 : k;
}

/*
 * Box x (grown by grow_x) placed as glcollide_bvh_place places it, one axis of the
 * target frame at a time from axis first on, each tested against box y of
 * that frame (grown by grow_y) as meets_placed tests it: 0 as soon as an
 * axis separates them (out then partly written), 1 when none does (out then
 * holds exactly what glcollide_bvh_place gives). A box far from a thin one costs one
 * row of the placement, not three.
 */
static inline int place_meeting(const bvh_box *x, double grow_x, const double r[9],
                                const double abs_r[9], const double t[3], const bvh_box *y,
                                double grow_y, int first, placed_box *out)
{
    const double *c = x->c;
    double h[3];
    for (int k = 0; k < 3; k++)
        h[k] = x->h[k] + grow_x;
    for (int i = 0, k = first; i < 3; i++, k = k == 2 ? 0 : k + 1) {
        out->c[k] = r[3 * k] * c[0] + r[3 * k + 1] * c[1] + r[3 * k + 2] * c[2] + t[k];
        out->h[k] = abs_r[3 * k] * h[0] + abs_r[3 * k + 1] * h[1] + abs_r[3 * k + 2] * h[2];
        if (fabs(out->c[k] - y->c[k]) > y->h[k] + grow_y + out->h[k])
            return 0;
    }
    return 1;
}

/*
 * The object-space traversal: both frames' relative placements, so that a
 * box of either tree can be placed in the other's frame. Two boxes (each
 * grown by the margin, a's also by the slack) are apart when they separate
 * along a face normal of either (the separating-axis test on the boxes'
 * own axes: finding none answers "maybe", which is conservative). A test
 * places the other box once and then costs only comparisons, so the
 * traversal places the node it keeps (the one not descended) once for both
 * children and tests them on their own axes only: the other three axes cost
 * a placement per child and, measured on deeply interpenetrating bunnies
 * and resting cylinders, prune too little to pay for it. Triangle boxes at
 * the leaves get all six axes: each is placed once for the whole leaf pair,
 * and every pair they let through costs an exact test.
 *
 * Which pairs are reported is decided by that leaf test alone: every test
 * above it (nodes, and a leaf's triangles against the other leaf's box)
 * only skips pairs it would reject. A node encloses its triangles' boxes
 * up to the few ulps box_encode adds, and placements round by a few ulps of
 * the scene's extent, so each such test grows the boxes by the slack (1e-12
 * of that extent) once more than the leaf test does (node_grow_a,
 * node_grow_b): it can never cut a pair the leaf test, as computed, keeps.
 * The order of the pairs is the traversal's; callers must not depend on it.
 */
typedef struct object_frames {
    glcollide_bvh_frames fr;
    double grow_a, grow_b;           /* the leaf test's growth of a's, b's boxes */
    double node_grow_a, node_grow_b; /* that plus the slack, for every other test */
    /* The exact variants' vertices (NULL: boxes only) and the poses that
     * put them where the exact tests see them (rotations: fr.ra, fr.rb). */
    const double *positions_a, *positions_b;
    const glcollide_pose *pose_a, *pose_b;
    double world_extent; /* no two world vertices differ by more on any axis */
} object_frames;

static inline void place_b(const object_frames *f, const bvh_box *x, placed_box *out)
{
    glcollide_bvh_place(x, f->grow_b, f->fr.r, f->fr.abs_r, f->fr.t, out);
}

static inline void place_a(const object_frames *f, const bvh_box *x, placed_box *out)
{
    glcollide_bvh_place(x, f->grow_a, f->fr.r_ba, f->fr.abs_r_ba, f->fr.t_ba, out);
}

static int leaf_pairs(const glcollide_bvh *a, const bvh_node *na, const glcollide_bvh *b,
                      const bvh_node *nb, double margin, glcollide_bvh_pair_fn fn, void *user)
{
    bvh_box boxes_a[GLCOLLIDE_BVH_LEAF_SIZE], boxes_b[GLCOLLIDE_BVH_LEAF_SIZE];
    leaf_boxes(a, na, boxes_a);
    leaf_boxes(b, nb, boxes_b);
    for (uint32_t i = 0; i < na->count; i++) {
        if (!overlap_margin(&boxes_a[i], &nb->box, margin))
            continue;
        for (uint32_t j = 0; j < nb->count; j++)
            if (overlap_margin(&boxes_a[i], &boxes_b[j], margin) &&
                fn(a->ids[na->first + i], b->ids[nb->first + j], user))
                return 1;
    }
    return 0;
}

/* The decoded triangle boxes of one leaf, kept from one leaf pair to the
 * next: consecutive leaf pairs often share a leaf (a leaf of one tree beside
 * the leaf children of a node of the other). */
typedef struct decoded_leaf {
    const bvh_node *leaf; /* NULL: none yet */
    bvh_box own[GLCOLLIDE_BVH_LEAF_SIZE];
} decoded_leaf;

/* Holds leaf n of bvh decoded; 1 when it was decoded now, 0 when held already. */
static inline int hold_leaf(decoded_leaf *held, const glcollide_bvh *bvh, const bvh_node *n)
{
    if (held->leaf == n)
        return 0;
    leaf_boxes(bvh, n, held->own);
    held->leaf = n;
    return 1;
}

/* A leaf of b held decoded and, with it, placed in a's frame. */
typedef struct placed_leaf {
    decoded_leaf held;
    placed_box boxes[GLCOLLIDE_BVH_LEAF_SIZE];
} placed_leaf;

/* Leaves of a and b in their own frames: every triangle box of each placed
 * in the other's frame once, then each pair costs comparisons. */
static int leaf_pairs_objects(const glcollide_bvh *a, const bvh_node *na, const glcollide_bvh *b,
                              const bvh_node *nb, const object_frames *f, decoded_leaf *last_a,
                              placed_leaf *last_b,
                              glcollide_bvh_pair_fn fn, void *user)
{
    placed_box a_in_b[GLCOLLIDE_BVH_LEAF_SIZE], *b_in_a = last_b->boxes;
    placed_box nb_in_a;
    place_b(f, &nb->box, &nb_in_a);
    hold_leaf(last_a, a, na);
    const bvh_box *boxes_a = last_a->own, *boxes_b = last_b->held.own;
    /* The outcomes of these tests follow no pattern a branch predictor can
     * learn: they are counted and masked rather than branched on. */
    uint32_t keep[GLCOLLIDE_BVH_LEAF_SIZE], kept = 0;
    for (uint32_t i = 0; i < na->count; i++) { /* a's boxes that can meet b's leaf at all */
        keep[kept] = i;
        kept += (uint32_t)meets_placed(&boxes_a[i], f->node_grow_a, &nb_in_a);
    }
    if (!kept)
        return 0;
    for (uint32_t k = 0; k < kept; k++)
        place_a(f, &boxes_a[keep[k]], &a_in_b[k]);
    if (hold_leaf(&last_b->held, b, nb))
        for (uint32_t j = 0; j < nb->count; j++)
            place_b(f, &boxes_b[j], &b_in_a[j]);
    for (uint32_t k = 0; k < kept; k++) {
        uint32_t i = keep[k], pairs = 0; /* bit j: the pair (i, j) meets on a's axes */
        for (uint32_t j = 0; j < nb->count; j++)
            pairs |= (uint32_t)meets_placed(&boxes_a[i], f->grow_a, &b_in_a[j]) << j;
        for (; pairs; pairs &= pairs - 1) {
            uint32_t j = (uint32_t)__builtin_ctz(pairs);
            if (meets_placed(&boxes_b[j], f->grow_b, &a_in_b[k]) &&
                fn(a->ids[na->first + i], b->ids[nb->first + j], user))
                return 1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- large parts
 *
 * A few large triangles against a detailed mesh (a part resting on a mesh
 * table or floor, a box mesh of 12 triangles): the descent keeps the large
 * side's small subtree (a leaf, or a node of two leaves) while it walks the
 * detailed tree, and placed along the detailed tree's axes a tilted slab's
 * box covers the whole part: every node would pass. So below such a pair
 * the large part is held fixed, its triangles placed in the detailed tree's
 * frame once, and every node of the detailed tree is tested on the large
 * part's axes too (its thinnest first: a slab's normal), and the large
 * part's triangles are matched against each leaf once rather than once per
 * leaf of the small subtree.
 *
 * There every detailed triangle whose box reaches a large triangle's box
 * is a pair: a part resting on a tilted slab gives 232 pairs of which 15
 * meet. The exact variants (glcollide_bvh_overlap_posed_exact, for the
 * contact stage, which gives these vertices) test each such pair against
 * the large triangle's plane and walls on the world positions the exact
 * tests will see, and report only those that may meet.
 */

/* How much larger (box_size) the small subtree must be than the node it
 * meets before it is held fixed: 4 keeps similar meshes on the path above
 * (holding a part fixed there descends the smaller tree). */
#define GLCOLLIDE_BVH_LARGE_PART 4.0
/* Is a small subtree at node index node, of size larger, to be held fixed
 * against a node of size smaller? Where it is much larger; or, where it
 * is its tree's root (the whole mesh a few triangles: no similar mesh on
 * the path above to keep), where it is larger at all. */
static inline int holds_part(uint32_t node, double larger, double smaller)
{
    return larger > GLCOLLIDE_BVH_LARGE_PART * smaller || (node == 0 && larger > smaller);
}

/* The slots of a leaf or of a node of two leaves. */
#define GLCOLLIDE_BVH_PART_SLOTS (2 * GLCOLLIDE_BVH_LEAF_SIZE)

/* One tree as the traversal sees it: its boxes' growths and the placement
 * of its frame in the other tree's. */
typedef struct tree_side {
    const glcollide_bvh *tree;
    double grow, node_grow;
    const double *r, *abs_r, *t; /* this frame in the other's */
    const double *positions;     /* the exact variants' vertices, or NULL */
    const glcollide_pose *pose;  /* and their placement in the world */
    const double *m;
    double world_extent; /* object_frames' */
} tree_side;

static tree_side side_a(const glcollide_bvh *a, const object_frames *f)
{
    return (tree_side){a,          f->grow_a,      f->node_grow_a, f->fr.r_ba, f->fr.abs_r_ba,
                       f->fr.t_ba, f->positions_a, f->pose_a,      f->fr.ra,   f->world_extent};
}

static tree_side side_b(const glcollide_bvh *b, const object_frames *f)
{
    return (tree_side){b,       f->grow_b,      f->node_grow_b, f->fr.r,  f->fr.abs_r,
                       f->fr.t, f->positions_b, f->pose_b,      f->fr.rb, f->world_extent};
}

/* Slot s's triangle as the exact tests see it: its vertices placed in the
 * world by glcollide_place_point (as glcollide_pose_transform_points). */
static inline void slot_world(const tree_side *side, uint32_t s, double out[3][3])
{
    const uint32_t *v = side->tree->triangles + 3 * (size_t)s;
    for (int c = 0; c < 3; c++)
        glcollide_place_point(side->pose, side->m, side->positions + 3 * (size_t)v[c], out[c]);
}

/* Does the plane of a triangle leave all three vertices t strictly on one
 * side (exact orientations)? Then the triangles cannot meet. */
static inline int strictly_beside(const glcollide_plane_filter *plane, const double t[3][3])
{
    int s0 = glcollide_plane_side(plane, t[0]);
    return s0 != 0 && glcollide_plane_side(plane, t[1]) == s0 &&
           glcollide_plane_side(plane, t[2]) == s0;
}

/* A triangle's walls: for each edge, a plane through it (and through a
 * point off the triangle's plane, about an edge's length along its normal),
 * and the side its third vertex is on (0: no wall, the triangle
 * degenerate). The triangle lies on that closed side: a triangle strictly
 * on the other side of any wall cannot meet it. Whatever the rounding of
 * the point off the plane, each wall holds its edge exactly, so the test
 * is exact. Its points' extent: glcollide_plane_filter_set_extent's. */
typedef struct part_walls {
    double off[3][3];
    glcollide_plane_filter wall[3];
    int inner[3];
} part_walls;

static void walls_init(part_walls *w, const double t[3][3], const glcollide_plane_filter *plane,
                       double world_extent)
{
    const double *n = plane->normal;
    double length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int e = 0; e < 3; e++) {
        const double *p = t[e], *q = t[(e + 1) % 3];
        double edge = fabs(q[0] - p[0]) + fabs(q[1] - p[1]) + fabs(q[2] - p[2]);
        double scale = length > 0.0 ? edge / length : 0.0;
        int finite = length > 0.0;
        for (int k = 0; k < 3; k++) {
            w->off[e][k] = p[k] + scale * n[k];
            finite &= isfinite(w->off[e][k]);
        }
        glcollide_plane_filter_init(&w->wall[e], p, q, w->off[e]);
        glcollide_plane_filter_set_extent(&w->wall[e], world_extent);
        w->inner[e] = finite ? glcollide_plane_side(&w->wall[e], t[(e + 2) % 3]) : 0;
    }
}

/*
 * A part triangle's plane read on the detailed mesh's own vertices:
 * normal . v + offset is the plane filter's determinant at v placed in
 * the world (M v + T, glcollide_place_point), up to bound. With u the unit
 * roundoff, E the world extent (every world coordinate, T's and the
 * part's vertices within E / 2) and S the sum of the filter's magnitudes:
 * the rounded normal is off the exact one by under 6u of its magnitudes
 * (times E), the placement by under 4u E / 2 (times the normal), and this
 * sum's own rounding (normal and offset made here, then the sum) under
 * 12u S E: under 20u S E in all, and bound is 64u S E. No orthonormality of
 * M is assumed. Where the value of each of a triangle's three vertices is
 * beyond bound on one side, the exact test on the placed vertices finds
 * the same side: the pair is left out without placing them.
 */
typedef struct local_plane {
    double normal[3], offset, bound;
} local_plane;

static void local_plane_init(local_plane *l, const glcollide_plane_filter *plane,
                             const tree_side *detail)
{
    const double *n = plane->normal, *m = detail->m, *t = detail->pose->translation;
    const double *p0 = plane->t[0];
    for (int j = 0; j < 3; j++)
        l->normal[j] = m[j] * n[0] + m[3 + j] * n[1] + m[6 + j] * n[2];
    l->offset = (t[0] - p0[0]) * n[0] + (t[1] - p0[1]) * n[1] + (t[2] - p0[2]) * n[2];
    double e = detail->world_extent;
    double sum = (plane->magnitude[0] + plane->magnitude[1]) + plane->magnitude[2];
    double bound = 0x1p-47 * (e * sum);
    l->bound = PREDICATES_FLOAT_STAGES && bound >= 0x1p-960 * (e + 1.0) ? bound * (1.0 + 0x1p-50)
                                                                        : INFINITY;
}

/* Are the three vertices v (the detailed mesh's own) beyond the bound, all
 * on one side? (NaN: no.) */
static inline int beside_local(const local_plane *l, const double *const v[3])
{
    double g[3];
    for (int c = 0; c < 3; c++)
        g[c] =
            (l->normal[0] * v[c][0] + l->normal[1] * v[c][1]) + l->normal[2] * v[c][2] + l->offset;
    return (g[0] > l->bound && g[1] > l->bound && g[2] > l->bound) ||
           (g[0] < -l->bound && g[1] < -l->bound && g[2] < -l->bound);
}

/* A large part's triangles as the exact tests see them: in the world, with
 * their planes (also read on the detailed mesh's vertices) and walls, each
 * made when a pair first asks (bit j of ready) and kept while the descent
 * meets the same part again (a slab's leaf meets many subtrees of the
 * detailed mesh). */
typedef struct part_exact {
    /* The part: its tree (NULL: none yet), its side (b's, else a's: one
     * tree may be both, two instances of one mesh, each with its own pose)
     * and its first slot. */
    const glcollide_bvh *tree;
    int large_b;
    uint32_t first;
    uint32_t ready;
    double world[GLCOLLIDE_BVH_PART_SLOTS][3][3];
    glcollide_plane_filter planes[GLCOLLIDE_BVH_PART_SLOTS];
    local_plane local[GLCOLLIDE_BVH_PART_SLOTS];
    part_walls walls[GLCOLLIDE_BVH_PART_SLOTS];
} part_exact;

/* Slot j of the part from slot first of side's tree, made ready for the
 * detailed side detail. */
static void exact_slot(part_exact *x, const tree_side *side, const tree_side *detail,
                       uint32_t first, uint32_t j)
{
    slot_world(side, first + j, x->world[j]);
    glcollide_plane_filter_init(&x->planes[j], x->world[j][0], x->world[j][1], x->world[j][2]);
    glcollide_plane_filter_set_extent(&x->planes[j], side->world_extent);
    local_plane_init(&x->local[j], &x->planes[j], detail);
    walls_init(&x->walls[j], x->world[j], &x->planes[j], side->world_extent);
    x->ready |= (uint32_t)1 << j;
}

/* Is triangle t strictly outside one of the walls? */
static inline int outside_walls(const part_walls *w, const double t[3][3])
{
    for (int e = 0; e < 3; e++) {
        int out = -w->inner[e];
        if (out != 0 && glcollide_plane_side(&w->wall[e], t[0]) == out &&
            glcollide_plane_side(&w->wall[e], t[1]) == out &&
            glcollide_plane_side(&w->wall[e], t[2]) == out)
            return 1;
    }
    return 0;
}

/* The large part: its box, its slots and their boxes placed in the detailed
 * tree's frame (as the leaf test places them). */
typedef struct large_part {
    tree_side side;
    const bvh_box *box;
    placed_box box_in_detail;
    int first_axis; /* the box's thinnest */
    uint32_t first, count;
    bvh_box slots[GLCOLLIDE_BVH_PART_SLOTS]; /* decoded, in the part's frame */
    placed_box slots_in_detail[GLCOLLIDE_BVH_PART_SLOTS];
    part_exact *exact; /* the exact variants (both sides' vertices given), else NULL */
    /* The slots that meet the root of the detailed subtree descended (both
     * frames, grown as every node test): the only ones its leaves can meet. */
    uint32_t live[GLCOLLIDE_BVH_PART_SLOTS], live_count;
} large_part;

/* The slots under node n if it is a leaf or a node of two leaves (a
 * subtree's slots are contiguous, its left child's first); 0 otherwise. */
static int small_subtree(const glcollide_bvh *tree, const bvh_node *n, uint32_t *first,
                         uint32_t *count)
{
    if (n->count) {
        *first = n->first;
        *count = n->count;
        return 1;
    }
    const bvh_node *left = &tree->nodes[n->first], *right = left + 1;
    if (!left->count || !right->count)
        return 0;
    *first = left->first;
    *count = left->count + right->count;
    return 1;
}

/* Does a node or triangle box x of the detailed tree meet the large part's
 * box on both frames' axes? */
static inline int meets_part(const tree_side *detail, const large_part *part, const bvh_box *x)
{
    placed_box x_in_part;
    return meets_placed(x, detail->node_grow, &part->box_in_detail) &&
           place_meeting(x, detail->grow, detail->r, detail->abs_r, detail->t, part->box,
                         part->side.node_grow, part->first_axis, &x_in_part);
}

/* Leaf n of the detailed tree against the large part: its triangles that
 * meet the part's box (both frames), the part's that meet n's box (both
 * frames), then the leaf test on every pair of those. In the exact
 * variants a pair it passes is left out where the detailed triangle, as
 * the exact tests see it, lies strictly on one side of the part
 * triangle's plane or strictly outside one of its walls: the two cannot
 * meet, and the exact tests, on the same world positions, would find them
 * apart. A detailed triangle is placed once, when a pair first asks. */
static int part_leaf_pairs(const tree_side *detail, int detail_is_a, const large_part *part,
                           const bvh_node *n, glcollide_bvh_pair_fn fn, void *user)
{
    const glcollide_bvh *t = detail->tree, *p = part->side.tree;
    bvh_box boxes[GLCOLLIDE_BVH_LEAF_SIZE];
    leaf_boxes(t, n, boxes);
    uint32_t keep[GLCOLLIDE_BVH_LEAF_SIZE], kept = 0;
    placed_box in_part[GLCOLLIDE_BVH_LEAF_SIZE];
    for (uint32_t i = 0; i < n->count; i++)
        if (place_meeting(&boxes[i], detail->grow, detail->r, detail->abs_r, detail->t, part->box,
                          part->side.node_grow, part->first_axis, &in_part[kept]))
            keep[kept++] = i;
    if (!kept)
        return 0;
    placed_box n_in_part;
    glcollide_bvh_place(&n->box, detail->grow, detail->r, detail->abs_r, detail->t, &n_in_part);
    uint32_t part_keep[GLCOLLIDE_BVH_PART_SLOTS], part_kept = 0;
    for (uint32_t l = 0; l < part->live_count; l++) {
        uint32_t j = part->live[l];
        part_keep[part_kept] = j;
        part_kept +=
            (uint32_t)(meets_placed(&n->box, detail->node_grow, &part->slots_in_detail[j]) &
                       meets_placed(&part->slots[j], part->side.node_grow, &n_in_part));
    }
    for (uint32_t k = 0; k < kept; k++) {
        uint32_t i = keep[k];
        const double *own[3] = {NULL, NULL, NULL}; /* the exact variants' vertices */
        double world[3][3];
        int placed = 0;
        if (part->exact) {
            const uint32_t *corners = t->triangles + 3 * (size_t)(n->first + i);
            for (int c = 0; c < 3; c++)
                own[c] = detail->positions + 3 * (size_t)corners[c];
        }
        for (uint32_t m = 0; m < part_kept; m++) {
            uint32_t j = part_keep[m];
            if (!(meets_placed(&boxes[i], detail->grow, &part->slots_in_detail[j]) &
                  meets_placed(&part->slots[j], part->side.grow, &in_part[k])))
                continue;
            if (part->exact) {
                part_exact *x = part->exact;
                if (!(x->ready >> j & 1))
                    exact_slot(x, &part->side, detail, part->first, j);
                if (beside_local(&x->local[j], own))
                    continue;
                if (!placed) {
                    slot_world(detail, n->first + i, world);
                    placed = 1;
                }
                if (strictly_beside(&x->planes[j], world) || outside_walls(&x->walls[j], world))
                    continue;
            }
            uint32_t id = t->ids[n->first + i], part_id = p->ids[part->first + j];
            if (detail_is_a ? fn(id, part_id, user) : fn(part_id, id, user))
                return 1;
        }
    }
    return 0;
}

/* The detailed tree's subtree at node start against the large part. */
static int part_descent(const tree_side *detail, int detail_is_a, large_part *part, uint32_t start,
                        glcollide_bvh_pair_fn fn, void *user)
{
    const tree_side *ps = &part->side;
    for (uint32_t j = 0; j < part->count; j++)
        glcollide_bvh_place(&part->slots[j], ps->grow, ps->r, ps->abs_r, ps->t,
                            &part->slots_in_detail[j]);
    glcollide_bvh_place(part->box, ps->grow, ps->r, ps->abs_r, ps->t, &part->box_in_detail);
    part->first_axis = thinnest_axis(part->box);
    /* The part's slots that can meet anything below start (part->live). */
    const bvh_box *root = &detail->tree->nodes[start].box;
    placed_box root_in_part;
    glcollide_bvh_place(root, detail->grow, detail->r, detail->abs_r, detail->t, &root_in_part);
    part->live_count = 0;
    for (uint32_t j = 0; j < part->count; j++) {
        part->live[part->live_count] = j;
        part->live_count +=
            (uint32_t)(meets_placed(root, detail->node_grow, &part->slots_in_detail[j]) &
                       meets_placed(&part->slots[j], ps->node_grow, &root_in_part));
    }
    uint32_t stack[GLCOLLIDE_BVH_MAX_DEPTH + 2];
    size_t top = 0;
    stack[top++] = start;
    while (top > 0) {
        const bvh_node *n = &detail->tree->nodes[stack[--top]];
        if (n->count) {
            if (part_leaf_pairs(detail, detail_is_a, part, n, fn, user))
                return 1;
            continue;
        }
        for (uint32_t c = 0; c < 2; c++)
            if (meets_part(detail, part, &detail->tree->nodes[n->first + c].box))
                stack[top++] = n->first + c;
    }
    return 0;
}

/* Pair (ia, ib), where b's node (large_b) or a's is a small subtree much
 * larger than the other node: the other's subtree against it (1 when fn
 * stopped it, else 0). */
static int large_part_pairs(const glcollide_bvh *a, const glcollide_bvh *b, const object_frames *f,
                            uint32_t ia, uint32_t ib, int large_b, part_exact *exact,
                            glcollide_bvh_pair_fn fn, void *user)
{
    large_part part;
    const glcollide_bvh *tree = large_b ? b : a;
    const bvh_node *large = large_b ? &b->nodes[ib] : &a->nodes[ia];
    part.first = part.count = 0;
    small_subtree(tree, large, &part.first, &part.count); /* node_children checked it */
    if (large->count) {
        leaf_boxes(tree, large, part.slots);
    } else {
        const bvh_node *left = &tree->nodes[large->first];
        leaf_boxes(tree, left, part.slots);
        leaf_boxes(tree, left + 1, part.slots + left->count);
    }
    tree_side detail = large_b ? side_a(a, f) : side_b(b, f);
    part.side = large_b ? side_b(b, f) : side_a(a, f);
    part.box = &large->box;
    part.exact = NULL;
    if (f->positions_a && f->positions_b) {
        if (exact->tree != tree || exact->large_b != large_b || exact->first != part.first) {
            exact->tree = tree;
            exact->large_b = large_b;
            exact->first = part.first;
            exact->ready = 0;
        }
        part.exact = exact;
    }
    return part_descent(&detail, large_b, &part, large_b ? ia : ib, fn, user);
}

/* Do the roots of a and b meet (same frame: f NULL; or b placed by f)? */
static int roots_meet(const glcollide_bvh *a, const glcollide_bvh *b, const object_frames *f,
                      double margin)
{
    if (!f)
        return overlap_margin(&a->nodes[0].box, &b->nodes[0].box, margin);
    placed_box root_b, root_a;
    place_b(f, &b->nodes[0].box, &root_b);
    place_a(f, &a->nodes[0].box, &root_a);
    return meets_placed(&a->nodes[0].box, f->node_grow_a, &root_b) &&
           meets_placed(&b->nodes[0].box, f->node_grow_b, &root_a);
}

/* The children of node pair (ia, ib), not both leaves, that meet, into
 * out in order; returns how many, or -1 when the pair is a large part's
 * (large_part_pairs takes it whole; *large_b: b's node is the part). The
 * larger box is descended (or the only inner node): its children are the
 * likeliest to separate from the other box. The node kept is placed in the
 * descended tree's frame once. The serial and the split descents both
 * decide here, so they cut the same pairs. */
static int node_children(const glcollide_bvh *a, const glcollide_bvh *b, const object_frames *f,
                         double margin, uint32_t ia, uint32_t ib, uint32_t (*out)[2], int *large_b)
{
    const bvh_node *na = &a->nodes[ia], *nb = &b->nodes[ib];
    int descend_a;
    if (na->count || nb->count) {
        descend_a = nb->count != 0;
    } else {
        double size_a = glcollide_bvh_box_size(&na->box), size_b = glcollide_bvh_box_size(&nb->box);
        descend_a = size_a >= size_b;
        /* Few large triangles (a node of two leaves) against a much
         * smaller subtree, or a whole mesh of so few (a box, a slab)
         * against any smaller one: held fixed below. */
        uint32_t first, count;
        double larger = descend_a ? size_a : size_b, smaller = descend_a ? size_b : size_a;
        if (f && holds_part(descend_a ? ia : ib, larger, smaller) &&
            small_subtree(descend_a ? a : b, descend_a ? na : nb, &first, &count)) {
            *large_b = !descend_a;
            return -1;
        }
    }
    placed_box kept;
    if (f) {
        if (descend_a)
            place_b(f, &nb->box, &kept);
        else
            place_a(f, &na->box, &kept);
        /* A leaf kept whose box, placed in the descended tree's frame, is
         * much larger than the node descended: held fixed below. */
        const bvh_box *descended = descend_a ? &na->box : &nb->box;
        if ((na->count || nb->count) &&
            holds_part(descend_a ? ib : ia, kept.h[0] + kept.h[1] + kept.h[2],
                       descended->h[0] + descended->h[1] + descended->h[2])) {
            *large_b = descend_a;
            return -1;
        }
    } else {
        memset(&kept, 0, sizeof kept); /* unused: the boxes share a frame */
    }
    int n = 0;
    for (uint32_t c = 0; c < 2; c++) {
        uint32_t ca = descend_a ? na->first + c : ia;
        uint32_t cb = descend_a ? ib : nb->first + c;
        const bvh_box *box_a = &a->nodes[ca].box, *box_b = &b->nodes[cb].box;
        int meet = !f          ? overlap_margin(box_a, box_b, margin)
                   : descend_a ? meets_placed(box_a, f->node_grow_a, &kept)
                               : meets_placed(box_b, f->node_grow_b, &kept);
        if (meet) {
            out[n][0] = ca;
            out[n][1] = cb;
            n++;
        }
    }
    return n;
}

/* The simultaneous descent of both trees shared by the overlap queries, from
 * node pair (ia, ib), which meets: same frame (f NULL) or b placed by f. */
static int overlap_descent_from(const glcollide_bvh *a, const glcollide_bvh *b,
                                const object_frames *f, double margin, uint32_t ia, uint32_t ib,
                                glcollide_bvh_pair_fn fn, void *user)
{
    uint32_t stack[GLCOLLIDE_BVH_STACK][2];
    size_t top = 1;
    stack[0][0] = ia;
    stack[0][1] = ib;
    decoded_leaf last_a;
    placed_leaf last_b;
    part_exact exact; /* the exact variants' part, kept from one meeting to the next */
    last_a.leaf = NULL;
    last_b.held.leaf = NULL;
    exact.tree = NULL;
    exact.large_b = 0;
    while (top > 0) {
        top--;
        ia = stack[top][0];
        ib = stack[top][1];
        const bvh_node *na = &a->nodes[ia];
        const bvh_node *nb = &b->nodes[ib];
        if (na->count && nb->count) {
            int stop = f ? leaf_pairs_objects(a, na, b, nb, f, &last_a, &last_b, fn, user)
                         : leaf_pairs(a, na, b, nb, margin, fn, user);
            if (stop)
                return 1;
            continue;
        }
        int large_b = 0;
        int n = node_children(a, b, f, margin, ia, ib, &stack[top], &large_b);
        if (n < 0) {
            if (large_part_pairs(a, b, f, ia, ib, large_b, &exact, fn, user))
                return 1;
            continue;
        }
        top += (size_t)n;
    }
    return 0;
}

static int overlap_descent(const glcollide_bvh *a, const glcollide_bvh *b, const object_frames *f,
                           double margin, glcollide_bvh_pair_fn fn, void *user)
{
    return roots_meet(a, b, f, margin) && overlap_descent_from(a, b, f, margin, 0, 0, fn, user);
}

int glcollide_bvh_overlap(const glcollide_bvh *a, const glcollide_bvh *b, double margin,
                          glcollide_bvh_pair_fn fn, void *user)
{
    if (!a || !b || !fn || !a->node_count || !b->node_count)
        return 0;
    return overlap_descent(a, b, NULL, margin, fn, user);
}

void glcollide_bvh_frames_set(const glcollide_pose *pose_a, const glcollide_pose *pose_b,
                              glcollide_bvh_frames *f)
{
    double *ra = f->ra, *rb = f->rb, dt[3];
    glcollide_pose_rotation_matrix(pose_a, ra);
    glcollide_pose_rotation_matrix(pose_b, rb);
    f->extent = 0.0;
    for (int k = 0; k < 3; k++)
        dt[k] = pose_b->translation[k] - pose_a->translation[k];
    for (int i = 0; i < 3; i++) {
        /* r = ra^T rb, t = ra^T (tb - ta) */
        for (int j = 0; j < 3; j++) {
            f->r[3 * i + j] = ra[i] * rb[j] + ra[3 + i] * rb[3 + j] + ra[6 + i] * rb[6 + j];
            f->abs_r[3 * i + j] = fabs(f->r[3 * i + j]);
        }
        f->t[i] = ra[i] * dt[0] + ra[3 + i] * dt[1] + ra[6 + i] * dt[2];
        f->extent += fabs(pose_a->translation[i]) + fabs(pose_b->translation[i]);
    }
    for (int i = 0; i < 3; i++) { /* a in b's frame: r^T, -r^T t */
        for (int j = 0; j < 3; j++) {
            f->r_ba[3 * i + j] = f->r[3 * j + i];
            f->abs_r_ba[3 * i + j] = f->abs_r[3 * j + i];
        }
        f->t_ba[i] = -(f->r[i] * f->t[0] + f->r[3 + i] * f->t[1] + f->r[6 + i] * f->t[2]);
    }
}

/* The placements of a BVH pair for glcollide_bvh_overlap_posed; 0 when
 * they are not finite (nothing can be decided). */
static int make_frames(const glcollide_bvh *a, const glcollide_pose *pose_a, const glcollide_bvh *b,
                       const glcollide_pose *pose_b, double margin, object_frames *f)
{
    glcollide_bvh_frames_set(pose_a, pose_b, &f->fr);
    f->positions_a = f->positions_b = NULL;
    f->pose_a = pose_a;
    f->pose_b = pose_b;
    double scale = f->fr.extent + (glcollide_bvh_box_size(&a->nodes[0].box) +
                                   glcollide_bvh_box_size(&b->nodes[0].box));
    /* The world positions the exact tests use are rounded differently from
     * this relative placement; 1e-12 of the scene's extent covers both. */
    double slack = 1e-12 * scale;
    if (!(slack < INFINITY))
        return 0; /* non-finite placement: nothing can be decided, nothing reported */
    f->grow_a = margin + slack;
    f->grow_b = margin;
    f->node_grow_a = f->grow_a + slack;
    f->node_grow_b = f->grow_b + slack;
    return 1;
}

int glcollide_bvh_overlap_posed(const glcollide_bvh *a, const glcollide_pose *pose_a,
                                const glcollide_bvh *b, const glcollide_pose *pose_b, double margin,
                                glcollide_bvh_pair_fn fn, void *user)
{
    if (!a || !b || !pose_a || !pose_b || !fn || !a->node_count || !b->node_count)
        return 0;
    object_frames f;
    if (!make_frames(a, pose_a, b, pose_b, margin, &f))
        return 0;
    return overlap_descent(a, b, &f, margin, fn, user);
}

/* A bound on every world coordinate of bvh's vertices placed by rotation m
 * and pose's translation (glcollide_place_point): on each axis, the
 * translation's plus each rotation entry's magnitude times the farthest
 * the exact bounds reach along that local axis, grown against the
 * rounding of the placement and of this sum (m need not be orthonormal: a
 * quaternion not quite of unit length). Not glcollide_aabb_place_with's
 * box: its growth is relative to the placed box, which a translation can
 * cancel, while a vertex rounds relative to the terms summed here. Twice
 * the larger of two such bounds is an extent
 * (glcollide_plane_filter_set_extent) for the planes through one mesh's
 * world vertices asked about the other's. */
static double world_reach(const glcollide_bvh *bvh, const glcollide_pose *pose, const double m[9])
{
    double reach = 0.0, local[3];
    for (int j = 0; j < 3; j++)
        local[j] = glcollide_larger(fabs(bvh->bounds.min[j]), fabs(bvh->bounds.max[j]));
    for (int k = 0; k < 3; k++) {
        double r = fabs(pose->translation[k]);
        for (int j = 0; j < 3; j++)
            r += fabs(m[3 * k + j]) * local[j];
        reach = glcollide_larger(reach, r);
    }
    return reach * (1.0 + 1e-12);
}

/* The exact variants' vertices into frames made by make_frames. */
static void frames_exact(object_frames *f, const glcollide_bvh *a, const double *positions_a,
                         const glcollide_bvh *b, const double *positions_b)
{
    f->positions_a = positions_a;
    f->positions_b = positions_b;
    f->world_extent = 2.0 * glcollide_larger(world_reach(a, f->pose_a, f->fr.ra),
                                             world_reach(b, f->pose_b, f->fr.rb));
}

int glcollide_bvh_overlap_posed_exact(const glcollide_bvh *a, const double *positions_a,
                                      const glcollide_pose *pose_a, const glcollide_bvh *b,
                                      const double *positions_b, const glcollide_pose *pose_b,
                                      glcollide_bvh_pair_fn fn, void *user)
{
    if (!a || !b || !positions_a || !positions_b || !pose_a || !pose_b || !fn || !a->node_count ||
        !b->node_count)
        return 0;
    object_frames f;
    if (!make_frames(a, pose_a, b, pose_b, 0.0, &f))
        return 0;
    frames_exact(&f, a, positions_a, b, positions_b);
    return overlap_descent(a, b, &f, 0.0, fn, user);
}

/* Every slot's box, decoded (slot order); NULL when out of memory. */
static bvh_box *all_slot_boxes(const glcollide_bvh *bvh)
{
    bvh_box *boxes = glcollide_alloc_array(bvh->triangle_count, sizeof *boxes);
    if (boxes)
        for (size_t i = 0; i < bvh->node_count; i++)
            if (bvh->nodes[i].count)
                leaf_boxes(bvh, &bvh->nodes[i], boxes + bvh->nodes[i].first);
    return boxes;
}

int glcollide_bvh_overlap_posed_all(const glcollide_bvh *a, const glcollide_pose *pose_a,
                                    const glcollide_bvh *b, const glcollide_pose *pose_b,
                                    double margin, glcollide_bvh_pair_fn fn, void *user)
{
    object_frames f;
    if (!a || !b || !pose_a || !pose_b || !fn || !a->node_count || !b->node_count ||
        !make_frames(a, pose_a, b, pose_b, margin, &f))
        return 0;
    bvh_box *boxes_a = all_slot_boxes(a), *boxes_b = all_slot_boxes(b);
    placed_box *b_in_a = glcollide_alloc_array(b->triangle_count, sizeof *b_in_a);
    int stop = 0;
    if (boxes_a && boxes_b && b_in_a) {
        for (size_t j = 0; j < b->triangle_count; j++)
            place_b(&f, &boxes_b[j], &b_in_a[j]);
        for (size_t i = 0; i < a->triangle_count && !stop; i++) {
            placed_box a_in_b;
            place_a(&f, &boxes_a[i], &a_in_b);
            for (size_t j = 0; j < b->triangle_count && !stop; j++)
                stop = meets_placed(&boxes_a[i], f.grow_a, &b_in_a[j]) &&
                       meets_placed(&boxes_b[j], f.grow_b, &a_in_b) &&
                       fn(a->ids[i], b->ids[j], user);
        }
    }
    free(boxes_a);
    free(boxes_b);
    free(b_in_a);
    return stop;
}

/* ------------------------------------------------------------- split descent */

/* The parts are taken on the calling thread alone for this long before the
 * workers are woken for the rest: waking them costs more than a small
 * descent (a detailed mesh resting on a few large triangles, a few hundred
 * nodes, a few microseconds) that the triangle counts alone cannot tell
 * from two interpenetrating detailed meshes. */
#define SPLIT_SERIAL_MS 0.02
/* Node pairs still to cut or final from which a descent is wide enough to
 * rouse the workers (glcollide_workers_rouse) while the rest of the cut is
 * made, and to share its parts at once: a descent held on a few large
 * triangles ends its cut with a few. */
#define SPLIT_ROUSE_PARTS 32

typedef struct split_job {
    const glcollide_bvh *a, *b;
    const object_frames *f;
    double margin;
    uint32_t (*seeds)[2];
    glcollide_pair_list *parts;
    int status[GLCOLLIDE_BVH_PARTS];
} split_job;

typedef struct split_part {
    glcollide_pair_list *list;
    int *status;
} split_part;

static int add_to_part(uint32_t ta, uint32_t tb, void *user)
{
    split_part *part = user;
    *part->status = glcollide_pair_list_push(part->list, ta, tb);
    return *part->status != GLCOLLIDE_OK;
}

static void split_task(void *user, size_t k, int worker)
{
    (void)worker;
    split_job *job = user;
    split_part part = {&job->parts[k], &job->status[k]};
    part.list->count = 0;
    job->status[k] = GLCOLLIDE_OK;
    overlap_descent_from(job->a, job->b, job->f, job->margin, job->seeds[k][0], job->seeds[k][1],
                         add_to_part, &part);
}

/* The split descent of both trees placed by f (made by make_frames, with
 * margin), from their roots, which meet. */
static int split_descent(const glcollide_bvh *a, const glcollide_bvh *b, const object_frames *f,
                         double margin, int threads, glcollide_pair_list parts[GLCOLLIDE_BVH_PARTS],
                         glcollide_pair_list *pairs)
{
    /* The node pairs that meet, breadth first from the roots until there
     * are enough to share (a pair of leaves, or a large part's pair, is
     * final as it is): the same cut whatever the number of threads, so the
     * same list. A ring of pairs still to cut; the finals in front of
     * seeds, the ring's pairs after them. */
    enum { RING = GLCOLLIDE_BVH_PARTS + 2 };
    uint32_t seeds[GLCOLLIDE_BVH_PARTS + 1][2], ring[RING][2];
    ring[0][0] = ring[0][1] = 0; /* the roots */
    size_t finals = 0, head = 0, queued = 1;
    int roused = 0;
    while (finals + queued < GLCOLLIDE_BVH_PARTS && queued > 0) {
        if (!roused && finals + queued >= SPLIT_ROUSE_PARTS) {
            /* a wide descent: the workers woken while the rest is cut */
            glcollide_workers_rouse(threads);
            roused = 1;
        }
        uint32_t ia = ring[head][0], ib = ring[head][1];
        head = (head + 1) % RING;
        queued--;
        uint32_t children[2][2];
        int large_b = 0, n = -1;
        if (!(a->nodes[ia].count && b->nodes[ib].count))
            n = node_children(a, b, f, margin, ia, ib, children, &large_b);
        if (n < 0) { /* a pair of leaves, or a large part's pair taken whole */
            seeds[finals][0] = ia;
            seeds[finals++][1] = ib;
            continue;
        }
        for (int c = 0; c < n; c++) {
            size_t tail = (head + queued++) % RING;
            ring[tail][0] = children[c][0];
            ring[tail][1] = children[c][1];
        }
    }
    size_t count = finals;
    for (size_t q = 0; q < queued; q++, count++) {
        seeds[count][0] = ring[(head + q) % RING][0];
        seeds[count][1] = ring[(head + q) % RING][1];
    }
    split_job job = {a, b, f, margin, seeds, parts, {0}};
    glcollide_workers_run_chain(count, threads, roused ? 0.0 : SPLIT_SERIAL_MS, split_task, &job);
    for (size_t k = 0; k < count; k++)
        if (job.status[k] != GLCOLLIDE_OK)
            return glcollide_fail(job.status[k], "bvh: out of memory for candidate pairs");
    size_t total = pairs->count;
    for (size_t k = 0; k < count; k++)
        total += parts[k].count;
    int status = glcollide_array_reserve((void **)&pairs->pairs, &pairs->capacity, total,
                                         sizeof *pairs->pairs, "bvh");
    for (size_t k = 0; k < count && status == GLCOLLIDE_OK; k++) {
        memcpy(pairs->pairs + pairs->count, parts[k].pairs, parts[k].count * sizeof *pairs->pairs);
        pairs->count += parts[k].count;
    }
    return status;
}

int glcollide_bvh_overlap_posed_split(const glcollide_bvh *a, const glcollide_pose *pose_a,
                                      const glcollide_bvh *b, const glcollide_pose *pose_b,
                                      double margin, int threads,
                                      glcollide_pair_list parts[GLCOLLIDE_BVH_PARTS],
                                      glcollide_pair_list *pairs)
{
    if (!a || !b || !pose_a || !pose_b || !parts || !pairs)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "bvh: split overlap with a NULL tree, placement or list");
    object_frames f;
    if (!a->node_count || !b->node_count || !make_frames(a, pose_a, b, pose_b, margin, &f) ||
        !roots_meet(a, b, &f, margin))
        return GLCOLLIDE_OK;
    return split_descent(a, b, &f, margin, threads, parts, pairs);
}

int glcollide_bvh_overlap_posed_exact_split(const glcollide_bvh *a, const double *positions_a,
                                            const glcollide_pose *pose_a, const glcollide_bvh *b,
                                            const double *positions_b, const glcollide_pose *pose_b,
                                            int threads,
                                            glcollide_pair_list parts[GLCOLLIDE_BVH_PARTS],
                                            glcollide_pair_list *pairs)
{
    if (!a || !b || !positions_a || !positions_b || !pose_a || !pose_b || !parts || !pairs)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "bvh: exact split overlap with a NULL tree, vertex array, "
                              "placement or list");
    object_frames f;
    if (!a->node_count || !b->node_count || !make_frames(a, pose_a, b, pose_b, 0.0, &f) ||
        !roots_meet(a, b, &f, 0.0))
        return GLCOLLIDE_OK;
    frames_exact(&f, a, positions_a, b, positions_b);
    return split_descent(a, b, &f, 0.0, threads, parts, pairs);
}

int glcollide_bvh_query_box(const glcollide_bvh *bvh, const glcollide_aabb *box,
                            glcollide_bvh_triangle_fn fn, void *user)
{
    if (!bvh || !box || !fn || !bvh->node_count)
        return 0;
    uint32_t stack[GLCOLLIDE_BVH_MAX_DEPTH + 2];
    size_t top = 0;
    if (meets_aabb(&bvh->nodes[0].box, box))
        stack[top++] = 0;
    while (top > 0) {
        const bvh_node *node = &bvh->nodes[stack[--top]];
        if (node->count) {
            bvh_box boxes[GLCOLLIDE_BVH_LEAF_SIZE];
            leaf_boxes(bvh, node, boxes);
            for (uint32_t s = 0; s < node->count; s++)
                if (meets_aabb(&boxes[s], box) && fn(bvh->ids[node->first + s], user))
                    return 1;
            continue;
        }
        for (uint32_t c = 0; c < 2; c++)
            if (meets_aabb(&bvh->nodes[node->first + c].box, box))
                stack[top++] = node->first + c;
    }
    return 0;
}

/* ---------------------------------------------------------------- nearest point */

/* Squared distance from p to box (0 inside). */
static inline double box_distance2(const bvh_box *encoded, const double p[3])
{
    glcollide_aabb box;
    box_decode(encoded, &box);
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double d =
            p[k] < box.min[k] ? box.min[k] - p[k] : (p[k] > box.max[k] ? p[k] - box.max[k] : 0.0);
        d2 += d * d;
    }
    return d2;
}

/* The point of triangle abc nearest to p (Voronoi regions of the vertices,
 * edges and face, tested in turn). */
static void closest_on_triangle(const double p[3], const double a[3], const double b[3],
                                const double c[3], double out[3])
{
    double ab[3], ac[3], ap[3];
    glcollide_vec3_sub(ab, b, a);
    glcollide_vec3_sub(ac, c, a);
    glcollide_vec3_sub(ap, p, a);
    double d1 = glcollide_vec3_dot(ab, ap), d2 = glcollide_vec3_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        memcpy(out, a, 3 * sizeof *out);
        return;
    }
    double bp[3];
    glcollide_vec3_sub(bp, p, b);
    double d3 = glcollide_vec3_dot(ab, bp), d4 = glcollide_vec3_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        memcpy(out, b, 3 * sizeof *out);
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++)
            out[k] = a[k] + v * ab[k];
        return;
    }
    double cp[3];
    glcollide_vec3_sub(cp, p, c);
    double d5 = glcollide_vec3_dot(ab, cp), d6 = glcollide_vec3_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        memcpy(out, c, 3 * sizeof *out);
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++)
            out[k] = a[k] + w * ac[k];
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            out[k] = b[k] + w * (c[k] - b[k]);
        return;
    }
    double denom = va + vb + vc;
    if (!(denom > 0.0) || !isfinite(denom)) { /* no area: the nearest of its corners */
        const double *best = a;
        double da = 0, db = 0, dc = 0;
        for (int k = 0; k < 3; k++) {
            da += (p[k] - a[k]) * (p[k] - a[k]);
            db += (p[k] - b[k]) * (p[k] - b[k]);
            dc += (p[k] - c[k]) * (p[k] - c[k]);
        }
        best = db < da ? (dc < db ? c : b) : (dc < da ? c : a);
        memcpy(out, best, 3 * sizeof *out);
        return;
    }
    double v = vb / denom, w = vc / denom;
    for (int k = 0; k < 3; k++)
        out[k] = a[k] + ab[k] * v + ac[k] * w;
}

double glcollide_bvh_nearest_positions(const glcollide_bvh *bvh, const double *positions,
                                       const double p[3], double closest[3], uint32_t *triangle)
{
    if (!bvh || !positions || !p || !bvh->node_count)
        return INFINITY;
    double best2 = INFINITY;
    uint32_t stack[GLCOLLIDE_BVH_MAX_DEPTH + 2];
    size_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const bvh_node *node = &bvh->nodes[stack[--top]];
        if (box_distance2(&node->box, p) >= best2)
            continue;
        if (node->count) {
            bvh_box boxes[GLCOLLIDE_BVH_LEAF_SIZE];
            leaf_boxes(bvh, node, boxes);
            for (uint32_t s = node->first; s < node->first + node->count; s++) {
                if (box_distance2(&boxes[s - node->first], p) >= best2)
                    continue;
                const uint32_t *t = bvh->triangles + 3 * (size_t)s;
                double q[3];
                closest_on_triangle(p, positions + 3 * (size_t)t[0], positions + 3 * (size_t)t[1],
                                    positions + 3 * (size_t)t[2], q);
                double d2 = 0.0;
                for (int k = 0; k < 3; k++)
                    d2 += (q[k] - p[k]) * (q[k] - p[k]);
                if (d2 < best2) {
                    best2 = d2;
                    if (closest)
                        memcpy(closest, q, sizeof q);
                    if (triangle)
                        *triangle = bvh->ids[s];
                }
            }
            continue;
        }
        /* The nearer child last on the stack, so it is searched first. */
        uint32_t near = node->first, far = node->first + 1;
        if (box_distance2(&bvh->nodes[far].box, p) < box_distance2(&bvh->nodes[near].box, p)) {
            uint32_t t = near;
            near = far;
            far = t;
        }
        stack[top++] = far;
        stack[top++] = near;
    }
    return sqrt(best2);
}

/* ================================================================ primitives
 *
 * Traversals against an analytic shape placed in the BVH's own (object)
 * space, for contacts between a mesh and ODE's primitives: the caller brings
 * the primitive into the mesh's frame (one transform) instead of the mesh
 * into the world, so a rigid motion of the mesh costs nothing here. Each
 * visits only the nodes whose boxes meet the shape: a mesh resting on a
 * plane costs in proportion to the triangles near the plane.
 */

/* Does box reach the half-space normal . x <= offset? (Its lowest point
 * along normal; the box's halves already cover the rounding.) */
static inline int box_reaches_half_space(const bvh_box *box, const double normal[3], double offset)
{
    double low = 0.0;
    for (int k = 0; k < 3; k++)
        low += normal[k] * box->c[k] - fabs(normal[k]) * box->h[k];
    return low <= offset;
}

int glcollide_bvh_query_half_space(const glcollide_bvh *bvh, const double normal[3], double offset,
                                   glcollide_bvh_triangle_fn fn, void *user)
{
    if (!bvh || !normal || !fn || !bvh->node_count)
        return 0;
    uint32_t stack[GLCOLLIDE_BVH_MAX_DEPTH + 2];
    size_t top = 0;
    if (box_reaches_half_space(&bvh->nodes[0].box, normal, offset))
        stack[top++] = 0;
    while (top > 0) {
        const bvh_node *node = &bvh->nodes[stack[--top]];
        if (node->count) {
            bvh_box boxes[GLCOLLIDE_BVH_LEAF_SIZE];
            leaf_boxes(bvh, node, boxes);
            for (uint32_t s = 0; s < node->count; s++)
                if (box_reaches_half_space(&boxes[s], normal, offset) &&
                    fn(bvh->ids[node->first + s], user))
                    return 1;
            continue;
        }
        for (uint32_t c = 0; c < 2; c++)
            if (box_reaches_half_space(&bvh->nodes[node->first + c].box, normal, offset))
                stack[top++] = node->first + c;
    }
    return 0;
}

/* An oriented box in the BVH's frame: centre, unit axes (rows), their
 * absolute values, half extents. */
typedef struct oriented_box {
    double centre[3], axes[9], abs_axes[9], half[3];
} oriented_box;

/* Can an axis-aligned box and an oriented one be separated along one of the
 * six face normals? Conservative as obb_overlap: "maybe" when none does. */
static int box_meets_oriented(const bvh_box *box, const oriented_box *o)
{
    const double *h = box->h;
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = o->centre[k] - box->c[k];
    for (int k = 0; k < 3; k++) { /* the box's axes */
        double extent = h[k] + o->abs_axes[k] * o->half[0] + o->abs_axes[3 + k] * o->half[1] +
                        o->abs_axes[6 + k] * o->half[2];
        if (fabs(d[k]) > extent)
            return 0;
    }
    for (int j = 0; j < 3; j++) { /* the oriented box's axes */
        const double *a = o->axes + 3 * j, *abs_a = o->abs_axes + 3 * j;
        double distance = a[0] * d[0] + a[1] * d[1] + a[2] * d[2];
        double extent = o->half[j] + abs_a[0] * h[0] + abs_a[1] * h[1] + abs_a[2] * h[2];
        if (fabs(distance) > extent)
            return 0;
    }
    return 1;
}

int glcollide_bvh_query_oriented_box(const glcollide_bvh *bvh, const double centre[3],
                                     const double axes[9], const double half[3],
                                     glcollide_bvh_triangle_fn fn, void *user)
{
    if (!bvh || !centre || !axes || !half || !fn || !bvh->node_count)
        return 0;
    oriented_box o;
    for (int k = 0; k < 3; k++) {
        o.centre[k] = centre[k];
        o.half[k] = half[k];
    }
    for (int k = 0; k < 9; k++) {
        o.axes[k] = axes[k];
        o.abs_axes[k] = fabs(axes[k]);
    }
    uint32_t stack[GLCOLLIDE_BVH_MAX_DEPTH + 2];
    size_t top = 0;
    if (box_meets_oriented(&bvh->nodes[0].box, &o))
        stack[top++] = 0;
    while (top > 0) {
        const bvh_node *node = &bvh->nodes[stack[--top]];
        if (node->count) {
            bvh_box boxes[GLCOLLIDE_BVH_LEAF_SIZE];
            leaf_boxes(bvh, node, boxes);
            for (uint32_t s = 0; s < node->count; s++)
                if (box_meets_oriented(&boxes[s], &o) && fn(bvh->ids[node->first + s], user))
                    return 1;
            continue;
        }
        for (uint32_t c = 0; c < 2; c++)
            if (box_meets_oriented(&bvh->nodes[node->first + c].box, &o))
                stack[top++] = node->first + c;
    }
    return 0;
}

/* The parameter at which the ray origin + t * direction enters box, if it
 * meets it for some t in [0, t_max] (slabs; inclusive); INFINITY if not. */
static double ray_enters_box(const bvh_box *box, const double origin[3], const double inverse[3],
                             double t_max)
{
    double t0 = 0.0, t1 = t_max;
    for (int k = 0; k < 3; k++) {
        double lo = box->c[k] - box->h[k], hi = box->c[k] + box->h[k];
        double a = (lo - origin[k]) * inverse[k];
        double b = (hi - origin[k]) * inverse[k];
        if (isnan(a) || isnan(b)) { /* parallel and on a slab's plane: 0 * inf */
            if (origin[k] < lo || origin[k] > hi)
                return INFINITY;
            continue;
        }
        if (a > b) {
            double t = a;
            a = b;
            b = t;
        }
        t0 = a > t0 ? a : t0;
        t1 = b < t1 ? b : t1;
        if (t0 > t1)
            return INFINITY;
    }
    return t0;
}

int glcollide_bvh_query_ray(const glcollide_bvh *bvh, const double origin[3],
                            const double direction[3], const double *t_max,
                            glcollide_bvh_triangle_fn fn, void *user)
{
    if (!bvh || !origin || !direction || !t_max || !fn || !bvh->node_count)
        return 0;
    double inverse[3];
    for (int k = 0; k < 3; k++)
        inverse[k] = 1.0 / direction[k]; /* +-inf along an axis the ray does not move on */
    uint32_t stack[GLCOLLIDE_BVH_MAX_DEPTH + 2];
    size_t top = 0;
    if (ray_enters_box(&bvh->nodes[0].box, origin, inverse, *t_max) < INFINITY)
        stack[top++] = 0;
    while (top > 0) {
        const bvh_node *node = &bvh->nodes[stack[--top]];
        /* *t_max may have dropped since the node was pushed. */
        if (ray_enters_box(&node->box, origin, inverse, *t_max) == INFINITY)
            continue;
        if (node->count) {
            bvh_box boxes[GLCOLLIDE_BVH_LEAF_SIZE];
            leaf_boxes(bvh, node, boxes);
            for (uint32_t s = 0; s < node->count; s++)
                if (ray_enters_box(&boxes[s], origin, inverse, *t_max) < INFINITY &&
                    fn(bvh->ids[node->first + s], user))
                    return 1;
            continue;
        }
        /* The nearer child last on the stack, so it is searched first. */
        uint32_t near = node->first, far = node->first + 1;
        double t_near = ray_enters_box(&bvh->nodes[near].box, origin, inverse, *t_max);
        double t_far = ray_enters_box(&bvh->nodes[far].box, origin, inverse, *t_max);
        if (t_far < t_near) {
            uint32_t t = near;
            near = far;
            far = t;
            double d = t_near;
            t_near = t_far;
            t_far = d;
        }
        if (t_far < INFINITY)
            stack[top++] = far;
        if (t_near < INFINITY)
            stack[top++] = near;
    }
    return 0;
}

void glcollide_closest_point_on_triangle(const double p[3], const double a[3], const double b[3],
                                         const double c[3], double out[3])
{
    closest_on_triangle(p, a, b, c, out);
}
