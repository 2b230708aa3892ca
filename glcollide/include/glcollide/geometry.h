/* SPDX-License-Identifier: MIT */
/*
 * Exact CPU geometry: the oracle every GPU stage is checked against, and the
 * fallback when no GL context can be had. Public so that it can be used and
 * tested on its own. All functions are thread-safe (no shared state).
 *
 * A triangle is passed as three points, each const double[3]. Triangles are
 * closed sets: touching at a point counts as intersecting.
 */
/* The umbrella header first, outside the guard: it includes every public
 * header, this one too, in an order that puts each after those it needs,
 * whichever of them a program includes first. */
#include <glcollide/glcollide.h>

#ifndef GLCOLLIDE_GEOMETRY_H
#define GLCOLLIDE_GEOMETRY_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- predicates */

/*
 * Sign of the orientation of d relative to the plane through a, b, c: +1 when
 * d lies below the plane (a, b, c appear counter-clockwise seen from above,
 * i.e. det[a-d, b-d, c-d] > 0), -1 above, 0 coplanar. Exact for all finite
 * double inputs (floating-point filter, then exact expansion arithmetic).
 */
GLCOLLIDE_API int glcollide_orient3d(const double a[3], const double b[3], const double c[3],
                                     const double d[3]);

/* Sign of det[a-c, b-c] in 2D: +1 when a, b, c turn counter-clockwise. Exact. */
GLCOLLIDE_API int glcollide_orient2d(const double a[2], const double b[2], const double c[2]);

/* ---------------------------------------------------------------- triangles */

/*
 * Exact boolean: do closed triangles a0a1a2 and b0b1b2 share a point? Handles
 * coplanar, touching and degenerate (segment or point) triangles exactly;
 * decisions use only exact orientation signs (Guigue-Devillers).
 */
GLCOLLIDE_API int glcollide_tri_tri_overlap(const double a0[3], const double a1[3],
                                            const double a2[3], const double b0[3],
                                            const double b1[3], const double b2[3]);

/*
 * Intersection of two triangles. Returns 0 if disjoint (same decision as
 * glcollide_tri_tri_overlap), 1 if they cross in a segment or point written to
 * seg0, seg1 (computed in floating point from the exact decision), 2 if they
 * are coplanar and overlap (seg0, seg1 then span the overlap's extent along
 * its longest direction). seg0/seg1 may be NULL.
 */
GLCOLLIDE_API int glcollide_tri_tri_intersection(const double a0[3], const double a1[3],
                                                 const double a2[3], const double b0[3],
                                                 const double b1[3], const double b2[3],
                                                 double seg0[3], double seg1[3]);

/*
 * Euclidean distance between two closed triangles (0 when they intersect),
 * with the closest points written to pa and pb (either may be NULL).
 */
GLCOLLIDE_API double glcollide_tri_tri_distance(const double a0[3], const double a1[3],
                                                const double a2[3], const double b0[3],
                                                const double b1[3], const double b2[3],
                                                double pa[3], double pb[3]);

/* ---------------------------------------------------------------- scratch */

/*
 * Scratch memory kept between calls, so that a simulation step allocates
 * nothing once warm: grown when a call needs more, never shrunk. Every call
 * that can keep memory between calls takes one, last (sweep-and-prune, the
 * contact generators); NULL there means the call allocates and frees its
 * own. One scratch serves all of them; it must not be used by two threads
 * at once. destroy accepts NULL and a pointer to NULL, and clears the
 * handle. Errors: INVALID_ARGUMENT, OUT_OF_MEMORY.
 */
typedef struct glcollide_scratch glcollide_scratch;
GLCOLLIDE_API int glcollide_scratch_create(glcollide_scratch **out);
GLCOLLIDE_API void glcollide_scratch_destroy(glcollide_scratch **scratch);

/* ---------------------------------------------------------------- boxes */

typedef struct glcollide_aabb {
    double min[3], max[3];
} glcollide_aabb;

/* Inclusive overlap (touching boxes overlap), as ODE's spaces test. */
static inline int glcollide_aabb_overlap(const glcollide_aabb *a, const glcollide_aabb *b)
{
    return a->min[0] <= b->max[0] && b->min[0] <= a->max[0] && a->min[1] <= b->max[1] &&
           b->min[1] <= a->max[1] && a->min[2] <= b->max[2] && b->min[2] <= a->max[2];
}

/*
 * A world box holding the box local of an object's own space once placed by
 * pose (translation and unit rotation): the local box turned, widened by a
 * relative 1e-12 so that it holds every point of local as
 * glcollide_pose_transform_points rounds it. O(1): no vertex is touched.
 */
GLCOLLIDE_API void glcollide_aabb_place(const glcollide_aabb *local, const glcollide_pose *pose,
                                        glcollide_aabb *box);

/* A growable array of index pairs (glcollide_index_pair), as produced by
 * SAP and the BVH. */
typedef struct glcollide_pair_list {
    glcollide_index_pair *pairs;
    size_t count;
    size_t capacity;
} glcollide_pair_list;

/* Appends (a, b). Errors: OUT_OF_MEMORY (the list is unchanged). */
GLCOLLIDE_API int glcollide_pair_list_push(glcollide_pair_list *list, uint32_t a, uint32_t b);
/* Sorts by (a, b) and removes duplicates. */
GLCOLLIDE_API void glcollide_pair_list_sort_unique(glcollide_pair_list *list);
/* Frees the array and zeroes the list. */
GLCOLLIDE_API void glcollide_pair_list_clear(glcollide_pair_list *list);

/*
 * Sweep-and-prune: appends to pairs every (i, j), i < j, whose boxes overlap
 * inclusively after each box is grown by margin on every side (margin >= 0),
 * sorted by (i, j). Boxes with a NaN coordinate never pair. O(n log n + k).
 * scratch may be NULL. Errors: INVALID_ARGUMENT, OUT_OF_MEMORY.
 */
GLCOLLIDE_API int glcollide_sap_pairs(const glcollide_aabb *boxes, size_t count, double margin,
                                      glcollide_pair_list *pairs, glcollide_scratch *scratch);

/*
 * Sweep-and-prune between two sets: appends every (i, j), i indexing
 * boxes_a and j boxes_b, whose boxes overlap as for glcollide_sap_pairs
 * (inclusive, each grown by margin, NaN boxes never pair): the pairs across
 * of glcollide_sap_pairs over the two sets together, with none within a set
 * tested, sorted by (i, j). O((n_a + n_b) log(n_a + n_b) + k + the pairs
 * that overlap along the sweep axis).
 * scratch may be NULL. Errors: INVALID_ARGUMENT, OUT_OF_MEMORY (the list as
 * it was).
 */
GLCOLLIDE_API int glcollide_sap_pairs_across(const glcollide_aabb *boxes_a, size_t count_a,
                                             const glcollide_aabb *boxes_b, size_t count_b,
                                             double margin, glcollide_pair_list *pairs,
                                             glcollide_scratch *scratch);

/* ---------------------------------------------------------------- BVH */

/*
 * A bounding-volume hierarchy of axis-aligned boxes over a triangle mesh. The
 * topology is built once (splits chosen by the surface-area heuristic, the
 * same tree for the mesh scaled by any power of two); glcollide_bvh_refit
 * recomputes the boxes for new positions of the same vertices (a moved or
 * deformed instance) in O(n). The BVH keeps its own copy of the triangle
 * indices, not of the positions. Each triangle's box is kept in 12 bytes,
 * as 16-bit steps across its leaf's box rounded outward, so the queries below
 * test it up to a step or two (1/65535 of a leaf's box, of 4 to 8
 * triangles) wider than the triangle's exact box: they report every triangle
 * or pair the exact boxes would, and may report a few that only come within
 * such a step. What they report are candidates for exact tests.
 */
typedef struct glcollide_bvh glcollide_bvh;

/* The BVH of mesh (borrowed for the call). Errors: INVALID_ARGUMENT (NULL,
 * an index out of range), OUT_OF_MEMORY. Zero triangles is allowed. */
GLCOLLIDE_API int glcollide_bvh_create(const glcollide_mesh *mesh, glcollide_bvh **out);
/* The boxes again for mesh's positions now: the mesh the BVH was made on,
 * or one of the same topology. A mesh of 8,192 triangles or more is refit
 * on up to threads threads (0: glcollide_workers_count; 1: the calling
 * thread alone); the boxes are the same whatever the count. */
GLCOLLIDE_API void glcollide_bvh_refit(glcollide_bvh *bvh, const glcollide_mesh *mesh, int threads);
/* 1 when mesh has the BVH's triangles (the same vertex indices, in the same
 * order, and as many vertices), so that glcollide_bvh_refit serves it; 0
 * otherwise (a rebuild is needed) and for NULL arguments. O(n). */
GLCOLLIDE_API int glcollide_bvh_same_triangles(const glcollide_bvh *bvh,
                                               const glcollide_mesh *mesh);
GLCOLLIDE_API void glcollide_bvh_destroy(glcollide_bvh **bvh);
/* Box of the whole mesh (empty mesh: min > max). */
GLCOLLIDE_API glcollide_aabb glcollide_bvh_bounds(const glcollide_bvh *bvh);
GLCOLLIDE_API size_t glcollide_bvh_triangle_count(const glcollide_bvh *bvh);

/*
 * As glcollide_world_add_mesh, with the mesh's object-space BVH the caller
 * already has (glcollide_bvh_create of mesh), which the world then uses
 * instead of building its own: one tree per mesh for a program that keeps
 * one (the ODE plugin). Borrowed: it must outlive the world (or the mesh's
 * replacement), and after glcollide_world_mesh_changed the caller refits it
 * (glcollide_bvh_refit) before the next query. bvh NULL: as
 * glcollide_world_add_mesh. Errors as glcollide_world_add_mesh, and
 * INVALID_ARGUMENT where the BVH's triangle count is not the mesh's.
 */
GLCOLLIDE_API int glcollide_world_add_mesh_with_bvh(glcollide_world *world,
                                                    const glcollide_mesh *mesh, glcollide_bvh *bvh,
                                                    uint32_t *index);

/* Called for each candidate; return non-zero to stop the traversal. */
typedef int (*glcollide_bvh_pair_fn)(uint32_t triangle_a, uint32_t triangle_b, void *user);
typedef int (*glcollide_bvh_triangle_fn)(uint32_t triangle, void *user);

/*
 * Calls fn once for every pair of triangles (of a, of b) whose boxes overlap
 * inclusively after growing each by margin (>= 0) on every side (and for a
 * few whose boxes only come within a step: see glcollide_bvh). Order is
 * unspecified. Returns 1 if fn stopped the traversal, 0 otherwise.
 * a and b may be the same BVH (then pairs (i, j) and (j, i) both appear and
 * (i, i) too; the caller filters).
 */
GLCOLLIDE_API int glcollide_bvh_overlap(const glcollide_bvh *a, const glcollide_bvh *b,
                                        double margin, glcollide_bvh_pair_fn fn, void *user);

/*
 * glcollide_bvh_overlap for two BVHs built in object space and placed in the
 * world by pose_a and pose_b: a rigid motion needs no refit. Boxes of
 * different frames are compared as oriented boxes on the six face axes of
 * both frames, each box grown by
 * margin in its own frame (plus a relative 1e-12 of the scene's size against
 * rounding), so every pair of triangles whose world positions (object
 * positions transformed by glcollide_pose_transform_points) come within
 * margin of each other is reported; a few farther pairs may be too. Each pair
 * at most once; a and b may be the same BVH (self-pairs not filtered).
 * Returns 1 if fn stopped the traversal, 0 otherwise.
 */
GLCOLLIDE_API int glcollide_bvh_overlap_posed(const glcollide_bvh *a, const glcollide_pose *pose_a,
                                              const glcollide_bvh *b, const glcollide_pose *pose_b,
                                              double margin, glcollide_bvh_pair_fn fn, void *user);

/*
 * The pairs glcollide_bvh_overlap_posed reports, appended to pairs, with
 * the descent shared among up to threads threads (0: glcollide_workers_count):
 * the node pairs that meet are cut breadth first into at most
 * GLCOLLIDE_BVH_PARTS subtrees (enough that on 16 threads no one part
 * holds the others up), each task lists its own in parts[k] (kept by the
 * caller between calls, so that a warm call allocates nothing; release
 * each with glcollide_pair_list_clear), and the parts are appended in
 * that order. The list is the same for any number of threads; its order is
 * not the callback's. Errors: INVALID_ARGUMENT, OUT_OF_MEMORY.
 */
#define GLCOLLIDE_BVH_PARTS 256
GLCOLLIDE_API int glcollide_bvh_overlap_posed_split(
    const glcollide_bvh *a, const glcollide_pose *pose_a, const glcollide_bvh *b,
    const glcollide_pose *pose_b, double margin, int threads,
    glcollide_pair_list parts[GLCOLLIDE_BVH_PARTS], glcollide_pair_list *pairs);

/*
 * glcollide_bvh_overlap_posed and glcollide_bvh_overlap_posed_split at
 * margin 0, for callers that test the pairs exactly next (contacts):
 * positions_a and positions_b are the vertices each BVH was built or last
 * refit from. Where the descent pairs a few large triangles (a mesh floor,
 * table or box) with a detailed mesh, a pair is also left out when the
 * detailed triangle lies strictly on one side of the large triangle's
 * plane, or strictly outside a plane through one of its edges, decided
 * exactly on the vertices as glcollide_pose_transform_points places them:
 * every pair whose placed triangles meet
 * (glcollide_tri_tri_overlap on those positions) is still reported, and
 * far fewer that do not. a and b may be one BVH (two instances of one
 * mesh, each with its own pose). The split form lists the same whatever
 * the threads. NULL positions: nothing (the callback form),
 * INVALID_ARGUMENT (the split form).
 */
GLCOLLIDE_API int
glcollide_bvh_overlap_posed_exact(const glcollide_bvh *a, const double *positions_a,
                                  const glcollide_pose *pose_a, const glcollide_bvh *b,
                                  const double *positions_b, const glcollide_pose *pose_b,
                                  glcollide_bvh_pair_fn fn, void *user);
GLCOLLIDE_API int glcollide_bvh_overlap_posed_exact_split(
    const glcollide_bvh *a, const double *positions_a, const glcollide_pose *pose_a,
    const glcollide_bvh *b, const double *positions_b, const glcollide_pose *pose_b, int threads,
    glcollide_pair_list parts[GLCOLLIDE_BVH_PARTS], glcollide_pair_list *pairs);

/* Calls fn for every triangle whose box overlaps box. Returns 1 if stopped. */
GLCOLLIDE_API int glcollide_bvh_query_box(const glcollide_bvh *bvh, const glcollide_aabb *box,
                                          glcollide_bvh_triangle_fn fn, void *user);

/*
 * The point of mesh's surface nearest to p (mesh: the one the BVH was made
 * or refit on): depth-first, nearer child first, pruned by box
 * distance. Writes that point to closest and its triangle to triangle (either
 * may be NULL) and returns the distance; INFINITY for an empty BVH or NULL
 * arguments (nothing written). Ties go to the triangle met first.
 */
GLCOLLIDE_API double glcollide_bvh_nearest(const glcollide_bvh *bvh, const glcollide_mesh *mesh,
                                           const double p[3], double closest[3],
                                           uint32_t *triangle);

/*
 * Traversals against a shape given in the BVH's own frame (a primitive
 * brought into a mesh's object space), for contacts with analytic shapes.
 * Each calls fn for every triangle whose box meets the shape (inclusive;
 * order unspecified) and returns 1 if fn stopped it, 0 otherwise (also for
 * NULL arguments or an empty BVH). Cost: the nodes whose boxes meet the shape.
 *
 * half_space: the triangles whose boxes reach {x : normal . x <= offset}
 * (normal need not be unit): a mesh resting on a plane costs in proportion
 * to the triangles near it, not to the mesh.
 * oriented_box: the box centred at centre with unit axes the rows of axes
 * (row-major 3x3) and half extents half; separating axes are the six face
 * normals, so a few boxes that only come close may be reported too.
 * ray: the segment origin + t * direction, t in [0, *t_max] (direction
 * non-zero, not necessarily unit); *t_max is read again after every call of
 * fn, which may lower it (through its user pointer) to prune a closest-hit
 * search; nearer boxes are visited first.
 */
GLCOLLIDE_API int glcollide_bvh_query_half_space(const glcollide_bvh *bvh, const double normal[3],
                                                 double offset, glcollide_bvh_triangle_fn fn,
                                                 void *user);
GLCOLLIDE_API int glcollide_bvh_query_oriented_box(const glcollide_bvh *bvh, const double centre[3],
                                                   const double axes[9], const double half[3],
                                                   glcollide_bvh_triangle_fn fn, void *user);
GLCOLLIDE_API int glcollide_bvh_query_ray(const glcollide_bvh *bvh, const double origin[3],
                                          const double direction[3], const double *t_max,
                                          glcollide_bvh_triangle_fn fn, void *user);

/* ---------------------------------------------------------------- solids */

/*
 * Is point p inside or on the boundary of the closed mesh (positions,
 * triangles)? Inside means a nonzero winding number: the signed count of
 * the times the surface wraps around p. For a closed mesh that does not
 * pass through itself that is the usual inside (winding 1; inside-out
 * meshes wind -1); where a closed mesh passes through itself, the parts
 * wound twice (or -1 times) are inside too, as the stencil and convex
 * methods, which count front minus back faces, see them. Exact: a segment
 * from p to a far point is tested against each triangle with exact
 * orientation signs and each crossing counted +1 or -1 by the side p is on;
 * a ray grazing an edge or vertex is cast again in another direction; p on
 * the surface counts as inside. The mesh must be closed
 * (glcollide_mesh_require_solid), otherwise the answer depends on the ray
 * and is meaningless. bvh (made on the same positions) may be NULL; with
 * it, only triangles along the ray are tested. Returns 1 inside or on the
 * boundary, 0 outside.
 */
GLCOLLIDE_API int glcollide_point_in_mesh(const glcollide_mesh *mesh, const glcollide_bvh *bvh,
                                          const double p[3]);

/*
 * Generalised winding number of the surface around p (solid-angle sum / 4pi):
 * ~1 inside a closed outward-oriented mesh, ~0 outside, undefined on it.
 * A second, independent formulation, used to cross-check point_in_mesh.
 */
GLCOLLIDE_API double glcollide_winding_number(const glcollide_mesh *mesh, const double p[3]);

/* ---------------------------------------------------------------- contacts */

/* One contact point between meshes A and B, in ODE's convention (dContactGeom). */
typedef struct glcollide_contact {
    double position[3]; /* a point of both solids' overlap (or touching set) */
    double normal[3];   /* unit, from B toward A: moving A along it separates the region */
    double depth;       /* >= 0, finite, at most the region's overlap along normal */
    uint32_t triangle_a, triangle_b; /* a pair of triangles of the region, meeting */
    uint32_t region;                 /* 0, 1, ...: contacts of one region share its normal */
} glcollide_contact;

typedef struct glcollide_contact_options {
    /* Manifold size per contact region (0: the default, 4). */
    size_t points_per_region;
    /* Contacts in rank order instead of grouped by region: every region's
     * first pick (regions by importance: deeper, then larger), then every
     * region's second, and so on. The first max of them, given to
     * glcollide_contacts_select, are exactly what the same call without
     * ranked returns for max_contacts = max: one ranked call at a large
     * max_contacts serves every smaller buffer (the ODE plugin computes a
     * step's contacts ahead on worker threads this way). */
    int ranked;
    /* Threads the exact tests of many candidates may use (0: the library's
     * count, glcollide_workers_count; 1: the calling thread alone). The
     * contacts are the same for any count. */
    int threads;
} glcollide_contact_options;

/* Which generator made a ranked list: their outputs are finished alike,
 * except that a region of a mesh-primitive pair turns around its normal. */
typedef enum glcollide_contact_kind {
    GLCOLLIDE_CONTACTS_MESH_MESH = 0,       /* glcollide_contacts_generate, _containment */
    GLCOLLIDE_CONTACTS_MESH_PRIMITIVE = 1, /* glcollide_contacts_mesh_primitive */
} glcollide_contact_kind;

/*
 * The contacts a buffer of max gets, from count ranked ones (options.ranked)
 * of kind: the first max of them, in place, in the order the unranked call
 * returns them; returns how many (at most max). A ranked list that filled
 * its buffer may have been cut: a larger max needs a larger ranked call.
 */
GLCOLLIDE_API size_t glcollide_contacts_select(glcollide_contact *contacts, size_t count,
                                               size_t max, glcollide_contact_kind kind);

/* points_per_region 4, not ranked, threads 0. */
GLCOLLIDE_API glcollide_contact_options glcollide_contact_default_options(void);

/*
 * Contacts between meshes A and B, whose positions are world positions (a
 * glcollide_mesh pointing at the caller's placed arrays is such a mesh;
 * counter-clockwise = outward), from candidate triangle pairs
 * (a of A, b of B), e.g. glcollide_bvh_overlap's or GPU culling's output;
 * the candidates must include every pair that meets (they are decided
 * exactly, so extra ones cost only time; repeats count once).
 *
 * Contacts are made per contact region, a connected part of the curve where
 * the two surfaces cross (or touch): one normal per region, from the vector
 * area enclosed by that curve (the gradient of the overlap volume: vertical
 * for a box resting on a box, whatever the tessellation), the region's
 * overlap width along it as depth scale (a contact never reports more depth
 * than the solids overlap along its normal), and up to points_per_region
 * points spread over the region, the deepest first. Regions take turns when
 * max_contacts is smaller than regions x points_per_region; the count never
 * grows with max_contacts beyond that. Faces touching without overlap give
 * depth 0 and the face normal. See glcollide/contacts/contacts.c for the model.
 * A solid wholly inside another has no crossing curve: see
 * glcollide_contacts_containment.
 *
 * Output: deterministic and independent of the order of candidates, grouped
 * by region (region 0 the deepest), each region's points in order of
 * choice; *count receives the number written (0 on error).
 * Indices are trusted: candidates must name triangles of A and B whose vertex
 * indices are valid for the positions. options may be NULL (the defaults),
 * scratch too (memory allocated and freed within the call). Thread-safe
 * with distinct scratches. Errors: INVALID_ARGUMENT (count NULL; NULL meshes
 * with candidates; contacts NULL with max_contacts > 0), OUT_OF_MEMORY.
 */
GLCOLLIDE_API int glcollide_contacts_generate(const glcollide_mesh *a, const glcollide_mesh *b,
                                              const glcollide_index_pair *candidates,
                                              size_t candidate_count,
                                              const glcollide_contact_options *options,
                                              glcollide_contact *contacts, size_t max_contacts,
                                              size_t *count, glcollide_scratch *scratch);

/* A triangle mesh placed in the world: for glcollide_contacts_containment,
 * glcollide_contacts_mesh_primitive and glcollide_ray_mesh. */
typedef struct glcollide_contact_solid {
    const glcollide_mesh *mesh; /* object space, counter-clockwise = outward */
    const glcollide_bvh *bvh;   /* made on mesh (required) */
    glcollide_pose pose;        /* translation and unit rotation */
    int closed;                 /* a closed solid (glcollide_mesh_require_solid): an inside */
} glcollide_contact_solid;

/*
 * Contacts for a solid wholly inside another, which have no crossing curve
 * and get nothing from glcollide_contacts_generate: call it when that found
 * no contact (the surfaces do not meet; then one vertex decides, with exact
 * point-in-solid, whether A lies inside a closed B or B inside a closed A).
 * The contained solid is pushed out the shortest way: toward the point of the
 * other's surface nearest to its centroid, by the depth its last vertex must
 * travel to pass the plane there (one region, that depth for every point);
 * the points are its vertices, the trailing one first, then spread over its
 * extent (up to points_per_region, at most max_contacts). Normals point from
 * B toward A, as in glcollide_contacts_generate. *count is 0 when neither
 * contains the other, or for an open solid. Cost: O(vertices) plus a
 * point-in-solid and a nearest-point query; deterministic.
 * Errors: INVALID_ARGUMENT (count NULL; NULL solids or arrays; contacts NULL
 * with max_contacts > 0).
 */
GLCOLLIDE_API int glcollide_contacts_containment(const glcollide_contact_solid *a,
                                                 const glcollide_contact_solid *b,
                                                 const glcollide_contact_options *options,
                                                 glcollide_contact *contacts, size_t max_contacts,
                                                 size_t *count);

/*
 * Contacts between objects a and b of world (a != b), made as the ODE plugin
 * makes them for a pair of trimeshes: candidate triangle pairs from the two
 * meshes' object-space BVHs placed by the objects' poses
 * (glcollide_bvh_overlap_posed, margin 0), glcollide_contacts_generate on
 * those triangles alone placed in world space (as
 * glcollide_pose_transform_points places them), and, when the surfaces do
 * not meet, glcollide_contacts_containment for a solid inside a closed other.
 * The same contacts as glcollide_contacts_generate (default options) on the
 * two whole meshes placed in world space with those candidates. Normals point from b toward a (moving a along one separates
 * the pair); triangle_a and triangle_b are triangles of a's and b's meshes;
 * depths are >= 0 (0 where faces only touch). Up to max_contacts are written,
 * grouped by region; the count never grows with max_contacts beyond regions
 * x 4 points. *count receives how many (0: the solids do not touch). The
 * meshes' BVHs and solidity are made on first need, as for
 * glcollide_world_query; the world keeps the scratch, so a warm call
 * allocates nothing. Errors: INVALID_ARGUMENT (NULL world or count, unknown
 * objects, a == b, contacts NULL with max_contacts > 0), INVALID_MESH,
 * OUT_OF_MEMORY; *count is 0 on error.
 */
GLCOLLIDE_API int glcollide_world_contacts(glcollide_world *world, uint32_t a, uint32_t b,
                                           size_t max_contacts, glcollide_contact *contacts,
                                           size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* GLCOLLIDE_GEOMETRY_H */
