/* SPDX-License-Identifier: MIT */
/*
 * The closest pair of triangles of two posed meshes: branch and bound over
 * both object-space BVHs (bvh.c's trees, each node with a slab kept beside
 * it), placed by the poses' relative transform.
 *
 * Order: best first. The node pair of least lower bound is opened next,
 * diving from it to a pair of leaves along the nearer child each time (the
 * other child waits in a binary heap), so that the first leaves are
 * reached at once, no pair is opened whose bound is not below the best
 * distance found so far, and the search ends when the least bound left is
 * not below it. Depth first (nearest child first) opened five times as many
 * node pairs on two bunnies 1% apart: the first close pair it reached was
 * far from the closest, and its distance pruned little.
 *
 * Bounds of a node pair (the larger box is split; the node kept is placed
 * once for both children): the gap between each box and the other's box
 * turned into its frame (centre r c + t, half extents |r| h: the overlap
 * traversal's placed box), and the gap between each node's slab (the
 * direction of its triangles' summed normals, and the heights of its
 * corners along it) and the other's box projected on that direction. A box
 * turned with the pose is thick where a patch of surface is thin; the slab
 * is thin there, and took a third of the node pairs off on the poses
 * measured. At the leaves the triangles are placed in the world, exactly
 * as the exact methods place them, and a triangle pair is measured only
 * when its world boxes, each triangle's plane and the line through their
 * centroids all fail to show it farther than the best: the last of these
 * takes most of the pairs the others let through.
 *
 * Exact to double rounding: every pair left is measured by
 * glcollide_triangle_closest on the world positions (scaled by a power of
 * two only beyond 2^+-240: glcollide_distance_scale); the bounds are made
 * smaller by a slack of 1e-12 of the scene's extent, which covers both the
 * rounding of the relative placement and that of the triangle distances,
 * so a pair is pruned only when it cannot be nearer than the best. A
 * triangle pair that meets ends the search at 0.
 *
 * With a bound (the caller's upper bound: only whether the distance is
 * within it, and then which it is), pairs whose bound is beyond it are
 * pruned too; when nothing lies within it, the least bound pruned (or
 * distance found) is a lower bound of the distance above the bound.
 *
 * Placed leaves are kept in a small direct-mapped cache per tree, stamped
 * with the search that placed them: a leaf is met against several leaves
 * of the other tree.
 */
#include "geometry/bvh_internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* Leaves kept placed per tree (direct-mapped by node index). */
enum { LEAF_CACHE = 128 };

/* A leaf's triangles, placed and prepared, and their box. */
typedef struct placed_leaf_triangles {
    uint64_t search; /* the search that placed it (0: none) */
    uint32_t node;
    uint32_t count;
    double lo[3], hi[3];
    glcollide_prepared_triangle t[GLCOLLIDE_BVH_LEAF_SIZE];
} placed_leaf_triangles;

/* A node pair waiting in the queue, by its bound (squared, scaled). */
typedef struct pair_entry {
    double bound2;
    uint32_t a, b;
} pair_entry;

typedef struct closest_search {
    const glcollide_posed_mesh *a, *b;
    glcollide_bvh_frames frames;
    double ma[9], mb[9];
    double scale, slack; /* slack in the BVHs' (unscaled) units */
    double slack_scaled; /* the same, scaled */
    double best, best2;  /* scaled: the nearest pair's distance, squared */
    double cut, cut2;    /* scaled: the caller's bound, squared */
    double lower;        /* scaled: the least bound pruned above the cut */
    double pa[3], pb[3]; /* scaled */
    uint32_t ta, tb;
    uint64_t node_pairs, triangle_pairs;
    placed_leaf_triangles *cache_a, *cache_b;
    glcollide_distance_scratch *scratch;
    size_t queued;
} closest_search;

void glcollide_distance_scratch_release(glcollide_distance_scratch *scratch)
{
    if (!scratch)
        return;
    free(scratch->queue);
    free(scratch->leaves);
    memset(scratch, 0, sizeof *scratch);
}

static placed_leaf_triangles *placed_leaf(closest_search *s, const glcollide_posed_mesh *m,
                                          const double rot[9], placed_leaf_triangles *cache,
                                          uint32_t n)
{
    placed_leaf_triangles *entry = &cache[n % LEAF_CACHE];
    if (entry->node == n && entry->search == s->scratch->searches)
        return entry;
    const bvh_node *node = &m->bvh->nodes[n];
    entry->search = s->scratch->searches;
    entry->node = n;
    entry->count = node->count;
    for (int k = 0; k < 3; k++) {
        entry->lo[k] = INFINITY;
        entry->hi[k] = -INFINITY;
    }
    for (uint32_t i = 0; i < node->count; i++) {
        const uint32_t *corners = m->bvh->triangles + 3 * (size_t)(node->first + i);
        double p[3][3];
        for (int c = 0; c < 3; c++) {
            glcollide_place_point(m->pose, rot, m->positions + 3 * (size_t)corners[c], p[c]);
            for (int k = 0; k < 3; k++)
                p[c][k] *= s->scale;
        }
        glcollide_prepared_triangle *t = &entry->t[i];
        glcollide_triangle_prepare(t, p[0], p[1], p[2]);
        for (int k = 0; k < 3; k++) {
            entry->lo[k] = glcollide_smaller(t->lo[k], entry->lo[k]);
            entry->hi[k] = glcollide_larger(t->hi[k], entry->hi[k]);
        }
    }
    return entry;
}

/* Squared gap of two boxes given as the gaps along three axes, each less
 * the slack and scaled. */
static inline double gap2(const double gap[3], double slack, double scale)
{
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double g = (gap[k] - slack) * scale;
        if (g > 0.0)
            d2 += g * g;
    }
    return d2;
}

/* Squared gap of two world boxes (scaled), less the slack. */
static inline double world_gap2(const closest_search *s, const double lo_a[3], const double hi_a[3],
                                const double lo_b[3], const double hi_b[3])
{
    double gap[3];
    for (int k = 0; k < 3; k++)
        gap[k] = glcollide_larger(lo_a[k] - hi_b[k], lo_b[k] - hi_a[k]);
    return gap2(gap, s->slack_scaled, 1.0);
}

/* Squared lower bound of box x (own frame) and a box of the other tree
 * placed in x's frame. */
static inline double bound_placed(const closest_search *s, const bvh_box *x, const placed_box *p)
{
    double gap[3];
    for (int k = 0; k < 3; k++)
        gap[k] = fabs(p->c[k] - x->c[k]) - x->h[k] - p->h[k];
    return gap2(gap, s->slack, s->scale);
}

/* Is a bound (squared, scaled) no use: not below the best, or beyond the
 * cut? The latter are remembered for the lower bound. */
static inline int pruned(closest_search *s, double bound2)
{
    if (bound2 >= s->best2)
        return 1;
    if (bound2 > s->cut2) {
        double bound = sqrt(bound2);
        if (bound < s->lower)
            s->lower = bound;
        return 1;
    }
    return 0;
}

/* pruned for a triangle pair's gap (squared, scaled), less the slack as
 * the boxes' (it is rounded as the distance is). */
static inline int pruned_gap(closest_search *s, double gap2)
{
    double gap = sqrt(gap2);
    gap = gap > s->slack_scaled ? gap - s->slack_scaled : 0.0;
    return pruned(s, gap * gap);
}

/* A lower bound of the distance of triangle t from triangle u, squared:
 * where all of t lies on one side of u's plane, its nearest corner's
 * height over that plane. 0 when t crosses it or u has no area. */
static inline double plane_gap2(const glcollide_prepared_triangle *t,
                                const glcollide_prepared_triangle *u)
{
    if (!(u->nn > 0.0))
        return 0.0;
    double h[3];
    for (int i = 0; i < 3; i++) {
        double w[3];
        glcollide_vec3_sub(w, t->p[i], u->p[0]);
        h[i] = glcollide_vec3_dot(w, u->n);
    }
    double low = glcollide_smaller(glcollide_smaller(h[2], h[1]), h[0]);
    double high = glcollide_larger(glcollide_larger(h[2], h[1]), h[0]);
    double gap = low > 0.0 ? low : (high < 0.0 ? -high : 0.0);
    return gap * gap / u->nn;
}

/* A lower bound of the distance of triangles t and u, squared: their gap
 * along the line through their centroids (0 where they overlap along it). */
static inline double centroid_gap2(const glcollide_prepared_triangle *t,
                                   const glcollide_prepared_triangle *u)
{
    double v[3];
    for (int k = 0; k < 3; k++)
        v[k] = (u->p[0][k] + u->p[1][k] + u->p[2][k]) - (t->p[0][k] + t->p[1][k] + t->p[2][k]);
    double top = -INFINITY, bottom = INFINITY;
    for (int i = 0; i < 3; i++) {
        top = glcollide_larger(glcollide_vec3_dot(v, t->p[i]), top);
        bottom = glcollide_smaller(glcollide_vec3_dot(v, u->p[i]), bottom);
    }
    double gap = bottom - top, vv = glcollide_vec3_dot(v, v);
    return gap > 0.0 && vv > 0.0 ? gap * gap / vv : 0.0;
}

/* Every triangle pair of two leaves; 1 when a pair meets (the search is
 * over). */
static int leaf_pairs(closest_search *s, uint32_t ia, uint32_t ib)
{
    placed_leaf_triangles *la = placed_leaf(s, s->a, s->ma, s->cache_a, ia);
    placed_leaf_triangles *lb = placed_leaf(s, s->b, s->mb, s->cache_b, ib);
    const bvh_node *na = &s->a->bvh->nodes[ia], *nb = &s->b->bvh->nodes[ib];
    for (uint32_t i = 0; i < la->count; i++) {
        const glcollide_prepared_triangle *ta = &la->t[i];
        if (pruned(s, world_gap2(s, ta->lo, ta->hi, lb->lo, lb->hi)))
            continue;
        for (uint32_t j = 0; j < lb->count; j++) {
            const glcollide_prepared_triangle *tb = &lb->t[j];
            if (pruned(s, world_gap2(s, ta->lo, ta->hi, tb->lo, tb->hi)))
                continue;
            /* Along either normal, then along the centroids' line: most
             * pairs that come this far end here. */
            if (pruned_gap(s, glcollide_larger(plane_gap2(tb, ta), plane_gap2(ta, tb))) ||
                pruned_gap(s, centroid_gap2(ta, tb)))
                continue;
            double pa[3], pb[3];
            s->triangle_pairs++;
            double d = glcollide_triangle_closest(ta, tb, s->best, pa, pb);
            if (d < s->best) {
                s->best = d;
                /* A square that underflows still prunes every bound above 0. */
                s->best2 = d > 0.0 ? glcollide_larger(DBL_TRUE_MIN, d * d) : 0.0;
                memcpy(s->pa, pa, sizeof pa);
                memcpy(s->pb, pb, sizeof pb);
                s->ta = s->a->bvh->ids[na->first + i];
                s->tb = s->b->bvh->ids[nb->first + j];
                if (d == 0.0)
                    return 1;
            }
        }
    }
    return 0;
}

/* The queue: a binary heap of node pairs, least bound on top. */
static int queue_push(closest_search *s, uint32_t ia, uint32_t ib, double bound2)
{
    glcollide_distance_scratch *q = s->scratch;
    if (glcollide_array_reserve(&q->queue, &q->queue_capacity, s->queued + 1, sizeof(pair_entry),
                                "distance") != GLCOLLIDE_OK)
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    pair_entry *heap = q->queue;
    size_t at = s->queued++;
    while (at > 0) {
        size_t parent = (at - 1) / 2;
        if (heap[parent].bound2 <= bound2)
            break;
        heap[at] = heap[parent];
        at = parent;
    }
    heap[at] = (pair_entry){bound2, ia, ib};
    return GLCOLLIDE_OK;
}

static pair_entry queue_pop(closest_search *s)
{
    pair_entry *heap = s->scratch->queue;
    pair_entry top = heap[0], last = heap[--s->queued];
    size_t at = 0, n = s->queued;
    for (;;) {
        size_t child = 2 * at + 1;
        if (child >= n)
            break;
        if (child + 1 < n && heap[child + 1].bound2 < heap[child].bound2)
            child++;
        if (heap[child].bound2 >= last.bound2)
            break;
        heap[at] = heap[child];
        at = child;
    }
    if (n)
        heap[at] = last;
    return top;
}

/* A rigid map between the trees' frames: x_to = r x_from + t. */
typedef struct frame_map {
    const double *r, *abs_r, *t;
} frame_map;

/* The node a step of the descent keeps (the other is split): what every
 * bound of it against a child costs once, in the child's frame: its box
 * placed there, its slab's direction there and offset (n.x_kept = n'.x +
 * offset; not set for a node without slab). */
typedef struct kept_node {
    const bvh_box *box;
    const glcollide_bvh_slab *slab;
    placed_box in_child;
    double n[3], offset;
} kept_node;

static void keep(kept_node *k, const bvh_box *box, const glcollide_bvh_slab *slab,
                 frame_map to_child, frame_map to_kept)
{
    k->box = box;
    k->slab = slab;
    glcollide_bvh_place(box, 0.0, to_child.r, to_child.abs_r, to_child.t, &k->in_child);
    if (!slab)
        return;
    /* n.(r_to_kept x + t_to_kept) = (r_to_child n).x + n.t_to_kept */
    for (int i = 0; i < 3; i++)
        k->n[i] = to_child.r[3 * i] * slab->n[0] + to_child.r[3 * i + 1] * slab->n[1] +
                  to_child.r[3 * i + 2] * slab->n[2];
    k->offset = glcollide_vec3_dot(slab->n, to_kept.t);
}

/* The gap between a slab (direction n, offset, heights lo..hi) and a box
 * in the slab's frame after the map n.x + offset: the box's interval along
 * n is centred at n.c + offset with radius |n|.h. */
static inline double slab_gap(const glcollide_bvh_slab *slab, const double n[3], double offset,
                              const bvh_box *box)
{
    double centre = offset, radius = 0.0;
    for (int j = 0; j < 3; j++) {
        centre += n[j] * box->c[j];
        radius += fabs(n[j]) * box->h[j];
    }
    return glcollide_larger((centre - radius) - slab->hi, slab->lo - (centre + radius));
}

/* The lower bound of the kept node and a child (squared, scaled): the
 * largest of the gaps between each box and the other placed in its frame,
 * and between each slab and the other's box. */
static double child_bound2(const closest_search *s, const kept_node *k, const bvh_box *box,
                           const glcollide_bvh_slab *slab, frame_map to_kept, frame_map to_child)
{
    placed_box in_kept;
    glcollide_bvh_place(box, 0.0, to_kept.r, to_kept.abs_r, to_kept.t, &in_kept);
    double bound2 =
        glcollide_larger(bound_placed(s, k->box, &in_kept), bound_placed(s, box, &k->in_child));
    if (!slab || !k->slab)
        return bound2;
    double n[3];
    for (int i = 0; i < 3; i++)
        n[i] = to_kept.r[3 * i] * slab->n[0] + to_kept.r[3 * i + 1] * slab->n[1] +
               to_kept.r[3 * i + 2] * slab->n[2];
    double gap =
        glcollide_larger(slab_gap(slab, n, glcollide_vec3_dot(slab->n, to_child.t), k->box),
                         slab_gap(k->slab, k->n, k->offset, box));
    gap = (gap - s->slack) * s->scale;
    return gap > 0.0 ? glcollide_larger(gap * gap, bound2) : bound2;
}

static const glcollide_bvh_slab *slab_of(const glcollide_posed_mesh *m, uint32_t node)
{
    return m->slabs ? &m->slabs[node] : NULL;
}

/* Best first: the node pair of least bound is opened next, so that no pair
 * is opened whose bound is not below the distance (with these bounds, the
 * least work any order can do), and the search ends when the least bound
 * left is not below the best pair found. */
static int search(closest_search *s)
{
    const glcollide_bvh *a = s->a->bvh, *b = s->b->bvh;
    const glcollide_bvh_frames *f = &s->frames;
    const frame_map b_to_a = {f->r, f->abs_r, f->t}, a_to_b = {f->r_ba, f->abs_r_ba, f->t_ba};
    kept_node kept;
    keep(&kept, &b->nodes[0].box, slab_of(s->b, 0), b_to_a, a_to_b);
    double root2 = child_bound2(s, &kept, &a->nodes[0].box, slab_of(s->a, 0), a_to_b, b_to_a);
    if (pruned(s, root2))
        return GLCOLLIDE_OK;
    int status = queue_push(s, 0, 0, root2);
    while (status == GLCOLLIDE_OK && s->queued > 0) {
        pair_entry top = queue_pop(s);
        uint32_t ia = top.a, ib = top.b;
        double bound2 = top.bound2;
        /* Down from there to a pair of leaves, the nearer child each time
         * (the other waits in the queue): the queue holds what is left
         * aside, and the first leaves are reached in one dive. */
        while (status == GLCOLLIDE_OK && !pruned(s, bound2)) {
            s->node_pairs++;
            const bvh_node *na = &a->nodes[ia], *nb = &b->nodes[ib];
            if (na->count && nb->count) {
                if (leaf_pairs(s, ia, ib))
                    return GLCOLLIDE_OK;
                break;
            }
            int descend_a = nb->count || (!na->count && glcollide_bvh_box_size(&na->box) >=
                                                            glcollide_bvh_box_size(&nb->box));
            uint32_t ca[2], cb[2];
            double child2[2];
            if (descend_a)
                keep(&kept, &nb->box, slab_of(s->b, ib), b_to_a, a_to_b);
            else
                keep(&kept, &na->box, slab_of(s->a, ia), a_to_b, b_to_a);
            for (uint32_t c = 0; c < 2; c++) {
                ca[c] = descend_a ? na->first + c : ia;
                cb[c] = descend_a ? ib : nb->first + c;
                child2[c] = descend_a ? child_bound2(s, &kept, &a->nodes[ca[c]].box,
                                                     slab_of(s->a, ca[c]), a_to_b, b_to_a)
                                      : child_bound2(s, &kept, &b->nodes[cb[c]].box,
                                                     slab_of(s->b, cb[c]), b_to_a, a_to_b);
            }
            int near = child2[1] < child2[0];
            if (!pruned(s, child2[!near]))
                status = queue_push(s, ca[!near], cb[!near], child2[!near]);
            ia = ca[near];
            ib = cb[near];
            bound2 = child2[near];
        }
        /* The queue's least bound is no use: neither is anything after it. */
        if (s->queued && pruned(s, ((const pair_entry *)s->scratch->queue)[0].bound2))
            break;
    }
    return status;
}

/* Each node's slab: the direction of its triangles' summed (area-weighted)
 * normals, and the least and greatest height of their corners along it.
 * Bottom-up over the node array (children come after their parents), each
 * node scanning its own slots: O(n log n). */
int glcollide_bvh_slabs_build(const glcollide_bvh *bvh, const double *positions,
                              glcollide_bvh_slab **out)
{
    *out = NULL;
    if (!bvh->node_count)
        return GLCOLLIDE_OK;
    glcollide_bvh_slab *slabs = glcollide_alloc_array(bvh->node_count, sizeof *slabs);
    uint32_t *range = glcollide_alloc_array(bvh->node_count, 2 * sizeof *range);
    if (!slabs || !range) {
        free(slabs);
        free(range);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                              "distance: out of memory for %zu node slabs", bvh->node_count);
    }
    for (size_t i = bvh->node_count; i-- > 0;) {
        const bvh_node *node = &bvh->nodes[i];
        glcollide_bvh_slab *slab = &slabs[i];
        if (node->count) {
            range[2 * i] = node->first;
            range[2 * i + 1] = node->first + node->count;
            slab->n[0] = slab->n[1] = slab->n[2] = 0.0;
            for (uint32_t t = node->first; t < node->first + node->count; t++) {
                const uint32_t *v = bvh->triangles + 3 * (size_t)t;
                double e1[3], e2[3], n[3];
                glcollide_vec3_sub(e1, positions + 3 * (size_t)v[1], positions + 3 * (size_t)v[0]);
                glcollide_vec3_sub(e2, positions + 3 * (size_t)v[2], positions + 3 * (size_t)v[0]);
                glcollide_vec3_cross(n, e1, e2);
                for (int k = 0; k < 3; k++)
                    slab->n[k] += n[k];
            }
        } else {
            const uint32_t c = node->first;
            range[2 * i] = range[2 * c];
            range[2 * i + 1] = range[2 * (c + 1) + 1];
            for (int k = 0; k < 3; k++)
                slab->n[k] = slabs[c].n[k] + slabs[c + 1].n[k];
        }
    }
    /* The sums are needed bottom-up first; the unit directions and heights
     * then, each node on its own range of slots. */
    for (size_t i = 0; i < bvh->node_count; i++) {
        glcollide_bvh_slab *slab = &slabs[i];
        double length = sqrt(glcollide_vec3_dot(slab->n, slab->n));
        if (length > 0.0 && isfinite(length)) {
            for (int k = 0; k < 3; k++)
                slab->n[k] /= length;
        } else { /* no area (or overflow): any direction bounds as well */
            slab->n[0] = 1.0;
            slab->n[1] = slab->n[2] = 0.0;
        }
        slab->lo = INFINITY;
        slab->hi = -INFINITY;
        for (uint32_t t = range[2 * i]; t < range[2 * i + 1]; t++)
            for (int c = 0; c < 3; c++) {
                double h = glcollide_vec3_dot(
                    slab->n, positions + 3 * (size_t)bvh->triangles[3 * (size_t)t + c]);
                slab->lo = glcollide_smaller(h, slab->lo);
                slab->hi = glcollide_larger(h, slab->hi);
            }
    }
    free(range);
    *out = slabs;
    return GLCOLLIDE_OK;
}

int glcollide_bvh_closest_objects(const glcollide_posed_mesh *a, const glcollide_posed_mesh *b,
                                  double scale, double bound, glcollide_distance_scratch *scratch,
                                  glcollide_closest_pair *out)
{
    memset(out, 0, sizeof *out);
    out->distance = INFINITY;
    out->triangle_a = out->triangle_b = UINT32_MAX;
    for (int k = 0; k < 3; k++)
        out->point_a[k] = out->point_b[k] = NAN;
    if (!a->bvh->node_count || !b->bvh->node_count)
        return GLCOLLIDE_OK;
    glcollide_distance_scratch own = {0};
    if (!scratch)
        scratch = &own;
    if (!scratch->leaves) {
        /* Zeroed: no entry belongs to a search yet. */
        scratch->leaves = calloc(2 * LEAF_CACHE, sizeof(placed_leaf_triangles));
        if (!scratch->leaves)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "distance: out of memory");
    }
    scratch->searches++; /* entries of earlier searches are stale */
    placed_leaf_triangles *cache = scratch->leaves;
    closest_search s = {
        .a = a,
        .b = b,
        .scale = scale,
        .best = INFINITY,
        .best2 = INFINITY,
        .cut = bound * scale,
        .cut2 = bound * scale * (bound * scale),
        .lower = INFINITY,
        .ta = UINT32_MAX,
        .tb = UINT32_MAX,
        .cache_a = cache,
        .cache_b = cache + LEAF_CACHE,
        .scratch = scratch,
    };
    glcollide_bvh_frames_set(a->pose, b->pose, &s.frames);
    glcollide_pose_rotation_matrix(a->pose, s.ma);
    glcollide_pose_rotation_matrix(b->pose, s.mb);
    /* As the overlap traversal's slack: 1e-12 of the scene's extent. */
    s.slack = 1e-12 * (s.frames.extent + (glcollide_bvh_box_size(&a->bvh->nodes[0].box) +
                                          glcollide_bvh_box_size(&b->bvh->nodes[0].box)));
    s.slack_scaled = s.slack * scale;
    int status = search(&s);
    glcollide_distance_scratch_release(&own);
    if (status != GLCOLLIDE_OK)
        return status;
    out->node_pairs = s.node_pairs;
    out->triangle_pairs = s.triangle_pairs;
    if (s.best <= s.cut) {
        out->distance = s.best == 0.0 ? 0.0 : glcollide_larger(DBL_TRUE_MIN, s.best / scale);
        for (int k = 0; k < 3; k++) {
            out->point_a[k] = s.pa[k] / scale;
            out->point_b[k] = s.pb[k] / scale;
        }
        out->triangle_a = s.ta;
        out->triangle_b = s.tb;
        out->within = 1;
    } else {
        /* Nothing within the bound: the least of what was pruned or found
         * beyond it, all above the bound. */
        out->distance = glcollide_smaller(s.lower, s.best) / scale;
        if (!(out->distance > bound))
            out->distance = nextafter(bound, INFINITY);
    }
    return GLCOLLIDE_OK;
}
