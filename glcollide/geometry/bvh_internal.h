/* SPDX-License-Identifier: MIT */
/* Private to the BVH's files (bvh.c builds and traverses for overlap,
 * bvh_distance.c searches for the closest pair): the tree's layout, its
 * boxes, and the placement of one tree's frame in another's. */
#ifndef GLCOLLIDE_BVH_INTERNAL_H
#define GLCOLLIDE_BVH_INTERNAL_H

#include "geometry/geometry_internal.h"

#include <math.h>

#define GLCOLLIDE_BVH_LEAF_SIZE 8
/* Deepest tree accepted; a balanced tree over < 2^31 triangles is at most
 * 31 deep, so this is never reached and only bounds the traversal stacks. */
#define GLCOLLIDE_BVH_MAX_DEPTH 60
/* The build splits by area down to this depth, at the median below: the
 * median needs at most 31 more levels, within GLCOLLIDE_BVH_MAX_DEPTH. */
#define GLCOLLIDE_BVH_SAH_DEPTH 24

/*
 * A box as its centre and half extents, which the tests of placed boxes use
 * directly (no conversion per test). Made from an exact min/max box and
 * grown by enough to cover its own rounding and that of c -/+ h: the box it
 * encloses is always inside [c - h, c + h] as computed, so tests on it are
 * conservative (at most a few ulps wider than the exact box).
 */
typedef struct bvh_box {
    double c[3], h[3];
} bvh_box;

/*
 * A triangle's box in its leaf: the corners as 16-bit steps across the
 * leaf's box (2 h / 65535 each), rounded outward (12 bytes against 48 for a
 * bvh_box; bvh.c decodes a leaf's slots to bvh_boxes where it tests them).
 * A box is a step or two wider than the triangle's, which only lets a few
 * more pairs reach the exact tests.
 */
typedef struct bvh_slot_box {
    uint16_t lo[3], hi[3];
} bvh_slot_box;

typedef struct bvh_node {
    bvh_box box;
    uint32_t first; /* leaf: first slot; inner: first child */
    uint32_t count; /* leaf: number of slots (> 0); inner: 0 */
} bvh_node;

struct glcollide_bvh {
    size_t vertex_count;
    size_t triangle_count;
    uint32_t *triangles; /* 3 vertex indices per slot, in leaf order */
    uint32_t *ids;       /* the caller's triangle index of each slot */
    bvh_slot_box *slot_boxes; /* box of each slot's triangle, in its leaf's */
    bvh_node *nodes;
    size_t node_count;
    glcollide_aabb bounds; /* the exact box of all triangles */
    int depth;             /* edges on the longest root-leaf path */
};

/* Each pop pushes at most two entries one level deeper, so a depth-first
 * stack never holds more than (depth a + depth b + 1) entries. */
#define GLCOLLIDE_BVH_STACK (2 * GLCOLLIDE_BVH_MAX_DEPTH + 2)

static inline double glcollide_bvh_box_size(const bvh_box *box)
{
    return 2.0 * (box->h[0] + box->h[1] + box->h[2]);
}

/*
 * Both frames of two posed trees in each other: x_a = r x_b + t places b's
 * frame in a's, r_ba and t_ba (r^T, -r^T t) a's in b's, with |r| kept for
 * the box projections. extent: the sum of the poses' |translation|
 * components, for the slack against rounding (the world positions the
 * exact tests use are rounded differently from this relative placement).
 */
typedef struct glcollide_bvh_frames {
    double ra[9], rb[9]; /* each pose's rotation (glcollide_pose_rotation_matrix) */
    double r[9], abs_r[9], t[3];
    double r_ba[9], abs_r_ba[9], t_ba[3];
    double extent;
} glcollide_bvh_frames;

void glcollide_bvh_frames_set(const glcollide_pose *pose_a, const glcollide_pose *pose_b,
                              glcollide_bvh_frames *frames);

/* A box of one tree seen from the other's frame: its centre there and the
 * half extents of its oriented box along that frame's axes. */
typedef struct placed_box {
    double c[3], h[3];
} placed_box;

/* Box x (its own frame, grown by grow) placed through rotation r (row
 * major, |r| in abs_r) and translation t: c = r centre + t, h = |r| half. */
static inline void glcollide_bvh_place(const bvh_box *x, double grow, const double r[9],
                                       const double abs_r[9], const double t[3], placed_box *out)
{
    const double *c = x->c;
    double h[3];
    for (int k = 0; k < 3; k++)
        h[k] = x->h[k] + grow;
    for (int k = 0; k < 3; k++) {
        out->c[k] = r[3 * k] * c[0] + r[3 * k + 1] * c[1] + r[3 * k + 2] * c[2] + t[k];
        out->h[k] = abs_r[3 * k] * h[0] + abs_r[3 * k + 1] * h[1] + abs_r[3 * k + 2] * h[2];
    }
}

#endif /* GLCOLLIDE_BVH_INTERNAL_H */
