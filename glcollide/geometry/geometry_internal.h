/* SPDX-License-Identifier: MIT */
/* Private declarations of the geometry layer (glcollide/geometry): exact
 * triangle tests, closest points, boxes, poses, the BVH's frontier and
 * point-in-solid on a placed mesh. Builds on the core only. */
#ifndef GLCOLLIDE_GEOMETRY_INTERNAL_H
#define GLCOLLIDE_GEOMETRY_INTERNAL_H

#include "core/internal.h"

/*
 * glcollide_tri_tri_intersection, also giving the exact sides of each
 * triangle's vertices relative to the other's plane when the triangles meet:
 * side_a[i] = glcollide_orient3d(b0, b1, b2, a_i) (+1: a_i behind B's
 * face, i.e. inside B near it), side_b[i] = glcollide_orient3d(a0, a1, a2,
 * b_i). Either may be NULL (then neither is written).
 */
int glcollide_tri_tri_intersection_sides(const double a0[3], const double a1[3], const double a2[3],
                                         const double b0[3], const double b1[3], const double b2[3],
                                         double seg0[3], double seg1[3], int side_a[3],
                                         int side_b[3]);

/* The same on two prepared planes (predicates.h), which hold the triangles:
 * the vertices' sides are decided by the planes' filters, several times
 * faster than orient3d where a triangle meets many others. */
struct glcollide_plane_filter;
int glcollide_tri_tri_intersection_planes(const struct glcollide_plane_filter *a,
                                          const struct glcollide_plane_filter *b, double seg0[3],
                                          double seg1[3], int side_a[3], int side_b[3]);

/* Vector area of a planar polygon: 1/2 sum (p_i - p_0) x (p_i+1 - p_0). */
static inline void glcollide_polygon_vector_area(const double poly[][3], int n, double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    for (int i = 1; i + 1 < n; i++) {
        double a[3], b[3], c[3];
        glcollide_vec3_sub(a, poly[i], poly[0]);
        glcollide_vec3_sub(b, poly[i + 1], poly[0]);
        glcollide_vec3_cross(c, a, b);
        for (int k = 0; k < 3; k++)
            out[k] += 0.5 * c[k];
    }
}

/* The parameters s, t in [0, 1] of the closest points u1 + s d1 and
 * u2 + t d2 of two segments, given with their squared lengths a = d1.d1
 * and e = d2.d2 (parallel segments: any closest pair; none without length:
 * 0). The convex quadratic |u1 + s d1 - u2 - t d2|^2 minimised over the
 * unit square: the free optimum in s, clamped, then the best t for it,
 * clamped, then s again. */
static inline void glcollide_segment_parameters(const double *u1, const double d1[3], double a,
                                                const double *u2, const double d2[3], double e,
                                                double *s_out, double *t_out)
{
    double r[3];
    glcollide_vec3_sub(r, u1, u2);
    double f = glcollide_vec3_dot(d2, r);
    double s = 0.0, t = 0.0;
    if (!(a > 0.0) && !(e > 0.0)) {
        s = t = 0.0;
    } else if (!(a > 0.0)) {
        t = f / e;
    } else {
        double c = glcollide_vec3_dot(d1, r);
        if (!(e > 0.0)) {
            s = -c / a;
        } else {
            double b = glcollide_vec3_dot(d1, d2);
            double denom = a * e - b * b;
            s = denom > 0.0 ? glcollide_clamp01((b * f - c * e) / denom) : 0.0;
            t = (b * s + f) / e;
            if (t < 0.0) {
                t = 0.0;
                s = -c / a;
            } else if (t > 1.0) {
                t = 1.0;
                s = (b - c) / a;
            } else if (!(t == t)) {
                t = 0.0;
            }
        }
    }
    /* Clamped (NaN -> 0) where not clamped above. */
    *s_out = glcollide_clamp01(s);
    *t_out = glcollide_clamp01(t);
}

/* Closest points of segments u1v1 and u2v2, on the first to c1, on the
 * second to c2 (parallel segments: any closest pair); tritri.c's, shared
 * with the primitive contacts. */
void glcollide_closest_segments(const double *u1, const double *v1, const double *u2,
                                const double *v2, double c1[3], double c2[3]);

/* The point of triangle abc nearest to p (a triangle without area: the
 * nearest of its corners); bvh.c's, shared with the primitive contacts. */
void glcollide_closest_point_on_triangle(const double p[3], const double a[3], const double b[3],
                                         const double c[3], double out[3]);

/* A triangle made ready for distance tests (triangle_distance.c): its
 * corners, normal n = (p1 - p0) x (p2 - p0), n.n (0: no area) and box. */
typedef struct glcollide_prepared_triangle {
    double p[3][3];
    double n[3], nn;
    double lo[3], hi[3];
} glcollide_prepared_triangle;

void glcollide_triangle_prepare(glcollide_prepared_triangle *t, const double *a, const double *b,
                                const double *c);

/*
 * Distance of two closed triangles whose corners lie within 2^+-240 (scale
 * them by glcollide_distance_scale of their largest), with a closest
 * pair written to pa and pb: 0 exactly when they meet (exact predicates;
 * then pa = pb, a point of their intersection), otherwise at least the
 * smallest positive double. Below limit (INFINITY: always) the answer is
 * that, the same number whatever the limit; at or above it, only some
 * pair's distance, at least limit: the candidates that cannot come below
 * the limit are not measured. See triangle_distance.c.
 */
double glcollide_triangle_closest(const glcollide_prepared_triangle *a,
                                  const glcollide_prepared_triangle *b, double limit, double pa[3],
                                  double pb[3]);

/* The factor distances are computed at, for coordinates up to largest in
 * magnitude: 1 within 2^+-240 (squares and their products stay in range
 * there), else the power of two s with largest * s in [1/2, 1): exact,
 * but where it scales down it may drop bits below 2^-834 of a coordinate
 * (as far below the scene's rounding as can be). */
double glcollide_distance_scale(double largest);

/* A slab bounding the triangles of one BVH node: lo <= n.x <= hi for each
 * of their corners x (object space), n a unit vector. */
typedef struct glcollide_bvh_slab {
    double n[3], lo, hi;
} glcollide_bvh_slab;

/* The slab of each node of bvh (built on positions), along the node's
 * summed triangle normals: thin where its triangles are nearly flat, which
 * a box turned with the pose is not. *out (free it) gets node count
 * entries; NULL for an empty BVH. Errors: OUT_OF_MEMORY. */
int glcollide_bvh_slabs_build(const glcollide_bvh *bvh, const double *positions,
                              glcollide_bvh_slab **out);

/* A mesh placed in the world: its object-space BVH, the positions it was
 * built (or refit) on, the pose, and its nodes' slabs. */
typedef struct glcollide_posed_mesh {
    const glcollide_bvh *bvh;
    const double *positions;
    const glcollide_pose *pose;
    const glcollide_bvh_slab *slabs; /* glcollide_bvh_slabs_build's, or NULL */
} glcollide_posed_mesh;

/* The closest pair of triangles of two posed meshes (bvh_distance.c). */
typedef struct glcollide_closest_pair {
    int within; /* 1: distance, points and triangles are those of a closest pair */
    /* within: the distance (0 when a triangle pair meets); otherwise a lower
     * bound above the caller's bound (INFINITY for an empty mesh). */
    double distance;
    double point_a[3], point_b[3];       /* world; NaN unless within */
    uint32_t triangle_a, triangle_b;     /* UINT32_MAX unless within */
    uint64_t node_pairs, triangle_pairs; /* work done */
} glcollide_closest_pair;

/* Memory of the closest-pair search kept between calls (zero it first):
 * its queue and its placed leaves. */
typedef struct glcollide_distance_scratch {
    void *queue;
    size_t queue_capacity;
    void *leaves;
    uint64_t searches; /* searches run: tells the leaves of this one apart */
} glcollide_distance_scratch;

void glcollide_distance_scratch_release(glcollide_distance_scratch *scratch);

/*
 * The closest pair of triangles of a and b (world positions as
 * glcollide_place_point places them, multiplied by scale:
 * glcollide_distance_scale of their largest coordinate), searched no
 * farther than bound (>= 0; INFINITY: the exact distance always). scratch
 * (may be NULL) keeps the search's memory between calls. Errors:
 * OUT_OF_MEMORY.
 */
int glcollide_bvh_closest_objects(const glcollide_posed_mesh *a, const glcollide_posed_mesh *b,
                                  double scale, double bound, glcollide_distance_scratch *scratch,
                                  glcollide_closest_pair *out);

/* An empty box (min = +inf, max = -inf) and growing it. */
void glcollide_aabb_empty(glcollide_aabb *box);
void glcollide_aabb_add_point(glcollide_aabb *box, const double p[3]);

/*
 * A per-query frame for float buffers: origin, the centre of box (finite,
 * not empty), and scale, the power of two that takes box's half extent
 * into [1/2, 1). (p - origin) * scale then lies in [-1, 1] for every p of
 * the box, whatever its size and place (exact scaling: no rounding beyond
 * the subtraction's).
 */
void glcollide_frame_fit(const glcollide_aabb *box, double origin[3], double *scale);

/*
 * The world position of local point `local` of an object placed by pose
 * (rotation m), computed as glcollide_pose_transform_points does: the
 * methods that test world positions exactly see the same numbers however
 * they get them.
 */
static inline void glcollide_place_point(const glcollide_pose *pose, const double m[9],
                                         const double *local, double out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = m[3 * r] * local[0] + m[3 * r + 1] * local[1] + m[3 * r + 2] * local[2] +
                 pose->translation[r];
}

/* The inverse of glcollide_place_point: local = m^T (world - translation),
 * m the pose's rotation matrix (an orthonormal one: a unit quaternion's). */
static inline void glcollide_unplace_point(const double translation[3], const double m[9],
                                           const double *world, double out[3])
{
    double d[3] = {world[0] - translation[0], world[1] - translation[1], world[2] - translation[2]};
    for (int k = 0; k < 3; k++)
        out[k] = m[k] * d[0] + m[3 + k] * d[1] + m[6 + k] * d[2];
}

/*
 * Exact point-in-solid for a mesh placed by pose: the ray is cast in world
 * space against the world positions of the triangles (computed as
 * glcollide_place_point does), the candidates found in the object-space
 * BVH. Same answer as glcollide_point_in_mesh on the world positions.
 * world_box bounds the placed mesh.
 */
/* glcollide_aabb_place with the pose's rotation matrix (row major, from
 * glcollide_pose_rotation_matrix) made once by the caller. */
void glcollide_aabb_place_with(const glcollide_aabb *local, const double m[9],
                               const double translation[3], glcollide_aabb *box);

/* The union of count boxes given as centres and half extents in six rows of
 * stride doubles (cx, cy, cz, hx, hy, hz), each placed by pose as
 * glcollide_aabb_place places a box; empty when count is 0. */
void glcollide_boxes_place_union(const double *boxes, size_t stride, size_t count,
                                 const glcollide_pose *pose, glcollide_aabb *out);

/* The boxes of bvh's nodes depth levels below the root, left to right (a
 * leaf above that depth gives its triangles' boxes where they fit in its
 * share, 2^(depth - its depth), else its own box: at most 2^depth boxes), in
 * glcollide_boxes_place_union's rows of stride capacity; returns how many
 * there are (only the first capacity are written). 0 for an empty or NULL
 * BVH. */
size_t glcollide_bvh_frontier(const glcollide_bvh *bvh, int depth, double *boxes, size_t capacity);

/* A world box of the mesh of bvh placed by pose: the union of its nodes
 * depth levels below the root (or leaves where shallower: not their
 * triangles, unlike glcollide_bvh_frontier; the stencil's views are fitted
 * to these boxes and its tests' miss rates measured with them), each placed
 * as glcollide_aabb_place places a box. Tighter than the placed root box as
 * depth grows, at 2^depth boxes' cost; empty for an empty BVH. */
void glcollide_bvh_placed_bounds(const glcollide_bvh *bvh, const glcollide_pose *pose, int depth,
                                 glcollide_aabb *out);

/* glcollide_bvh_overlap_posed without its tree: the test that decides
 * each pair of triangles (their boxes, on both frames' axes) on every pair,
 * O(n m). For tests: the traversal must report exactly these pairs. */
int glcollide_bvh_overlap_posed_all(const glcollide_bvh *a, const glcollide_pose *pose_a,
                                    const glcollide_bvh *b, const glcollide_pose *pose_b,
                                    double margin, glcollide_bvh_pair_fn fn, void *user);

int glcollide_point_in_posed_mesh(const glcollide_mesh *mesh, const glcollide_bvh *bvh,
                                  const glcollide_pose *pose, const glcollide_aabb *world_box,
                                  const double p[3]);

/* ------------------------------------------------ the array forms of the mesh entries */

/* The array forms behind the public calls that take a glcollide_mesh
 * (geometry/mesh_entries.c), for the library's own arrays that are no
 * mesh: projected or placed positions, a mesh's triangles in another
 * order. Same contracts, arrays for the mesh. */
int glcollide_bvh_build(const double *positions, size_t vertex_count, const uint32_t *triangles,
                        size_t triangle_count, glcollide_bvh **out);
/* threads as glcollide_bvh_refit's. */
void glcollide_bvh_refit_positions(glcollide_bvh *bvh, const double *positions, int threads);
double glcollide_bvh_nearest_positions(const glcollide_bvh *bvh, const double *positions,
                                       const double p[3], double closest[3], uint32_t *triangle);
int glcollide_point_in_mesh_arrays(const double *positions, const uint32_t *triangles,
                                   size_t triangle_count, const glcollide_bvh *bvh,
                                   const double p[3]);
double glcollide_winding_number_arrays(const double *positions, const uint32_t *triangles,
                                       size_t triangle_count, const double p[3]);

/* Do a and b overlap once each is grown by margin on every side? The
 * inequalities the sweep tests (each box grown, then compared), so pairs
 * filtered with it are exactly those the sweep finds among them. */
static inline int glcollide_aabb_overlap_grown(const glcollide_aabb *a, const glcollide_aabb *b,
                                               double margin)
{
    int overlap = 1;
    for (int c = 0; c < 3; c++)
        overlap &=
            (a->min[c] - margin <= b->max[c] + margin) & (b->min[c] - margin <= a->max[c] + margin);
    return overlap;
}

/* Sweep-and-prune with scratch bytes from workspace (NULL: allocates), for
 * the world and the methods, which keep workspaces of their own. */
int glcollide_sap_pairs_ws(const glcollide_aabb *boxes, size_t count, double margin,
                           glcollide_pair_list *pairs, glcollide_workspace *workspace);
int glcollide_sap_pairs_across_ws(const glcollide_aabb *boxes_a, size_t count_a,
                                  const glcollide_aabb *boxes_b, size_t count_b, double margin,
                                  glcollide_pair_list *pairs, glcollide_workspace *workspace);

#endif /* GLCOLLIDE_GEOMETRY_INTERNAL_H */
