/* SPDX-License-Identifier: MIT */
/*
 * A particle cloud against a complex closed solid: the tetra-tree of Jimenez,
 * Ogayar, Segura and Feito ("Collision detection between a complex solid and
 * a particle cloud assisted by programmable GPU").
 *
 * The solid is covered by signed tetrahedra, one per triangle, from a common
 * origin V0 (a simplicial covering): a point is inside the solid when the
 * signs of the tetrahedra containing it add up to 1. The tetrahedra are
 * classified in a tetra-tree: 8 tetra-cones from V0 (the octants), each split
 * in 4 recursively, down to a depth limit or until a tetra-cone holds fewer
 * tetrahedra than a minimum. A particle is located in its tetra-cone, then
 * tested against the tetrahedra there with barycentric signs (the paper's
 * Algorithm 1, sums doubled so that they stay integers).
 *
 * Inside means a nonzero winding number (the covering sum over 2), as for
 * glcollide_point_in_mesh: a closed mesh that passes through itself (parts
 * of a scan overlapping, libcgal-demo's camel.off) is inside wherever it
 * winds, twice in the overlaps included; the paper's parity would call
 * those outside. On the surface = inside, as glcollide_point_in_mesh: every answer here is
 * exactly that of glcollide_point_in_mesh (exact predicates on the CPU; see
 * glcollide/methods/tetra_tree.c for how points on shared features are counted and
 * why the answer is exact). The GPU classifies in float and certifies each
 * sign against an error bound; particles whose signs it cannot certify (a
 * thin band around the planes of the tetrahedra) are flagged and finished
 * exactly on the CPU, so GPU answers are exact too.
 */
/* The umbrella header first, outside the guard: it includes every public
 * header, this one too, in an order that puts each after those it needs,
 * whichever of them a program includes first. */
#include <glcollide/glcollide.h>

#ifndef GLCOLLIDE_TETRA_TREE_H
#define GLCOLLIDE_TETRA_TREE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct glcollide_tetra_tree glcollide_tetra_tree;

typedef struct glcollide_tetra_tree_options {
    int max_depth;           /* levels of splitting below the 8 initial tetra-cones, 0..10 */
    uint32_t min_tetrahedra; /* a tetra-cone holding fewer tetrahedra is not split (>= 1) */
    int use_origin;          /* 1: origin below is V0; 0: the solid's centroid (rounded) */
    double origin[3];
    int check_self_intersections; /* 1: refuse a closed mesh that passes through itself */
} glcollide_tetra_tree_options;

/* Defaults: max_depth 8, min_tetrahedra 16, centroid origin, self-intersection check off (a
 * closed mesh that passes through itself is classified by its winding number, see above). */
GLCOLLIDE_API glcollide_tetra_tree_options glcollide_tetra_tree_default_options(void);

/*
 * Builds the covering and the tree of mesh (object space; the tree keeps
 * copies, mesh may be destroyed afterwards). options NULL: defaults. The mesh
 * must be a closed solid (glcollide_mesh_require_solid: open, non-manifold,
 * degenerate, inside-out, empty or non-finite meshes are refused); a mesh
 * that passes through itself is refused only with check_self_intersections. Errors:
 * INVALID_ARGUMENT (NULL, options out of range, non-finite origin),
 * INVALID_MESH (one message naming the mesh and its defects), LIMIT (more
 * than 2^31 triangles or tree entries), OUT_OF_MEMORY.
 */
GLCOLLIDE_API int glcollide_tetra_tree_create(const glcollide_mesh *mesh,
                                              const glcollide_tetra_tree_options *options,
                                              glcollide_tetra_tree **out);

GLCOLLIDE_API void glcollide_tetra_tree_destroy(glcollide_tetra_tree **tree);

typedef struct glcollide_tetra_tree_info {
    double origin[3];          /* V0 */
    int origin_inside;         /* V0 is inside (or on) the solid */
    size_t tetrahedra;         /* = triangles */
    size_t positive, negative; /* signs of the tetrahedra */
    size_t degenerate;         /* flat: V0 in the plane of their triangle */
    size_t nodes, leaves, empty_leaves;
    size_t leaf_entries; /* tetrahedra listed in leaves (one may be in several) */
    size_t max_leaf_tetrahedra;
    double mean_leaf_tetrahedra; /* per non-empty leaf */
    int depth;                   /* deepest leaf */
    size_t mixed_fans;           /* vertices whose fan of tetrahedra has both signs */
    double build_ms;
} glcollide_tetra_tree_info;

GLCOLLIDE_API int glcollide_tetra_tree_get_info(const glcollide_tetra_tree *tree,
                                                glcollide_tetra_tree_info *info);

/* No tetra-cone yet (initial value of a frame-coherence entry). */
#define GLCOLLIDE_TETRA_CONE_NONE 0xffffffffu

/* Work counters of one classification. Counters a path does not use stay 0. */
typedef struct glcollide_tetra_stats {
    double time_ms;
    uint64_t particles;
    uint64_t inside;           /* particles inside or on the solid */
    uint64_t coherent;         /* found in last frame's tetra-cone (no descent) */
    uint64_t bounding_rejects; /* beyond the bounding tetrahedron of their tetra-cone */
    uint64_t tetrahedra_tests; /* CPU: tetrahedra tested */
    uint64_t exact_signs;      /* CPU: signs the double filter left to exact predicates */
    uint64_t special_cases;    /* CPU: particles on a face, edge or vertex of a tetrahedron */
    uint64_t uncertain;        /* GPU: particles flagged for the CPU to finish */
    uint64_t draw_calls;       /* GPU: dispatches */
    uint64_t gpu_syncs;        /* GPU->CPU synchronisations */
    uint64_t readback_bytes;
    uint64_t upload_bytes;
    double upload_ms; /* GPU: points to floats, uploaded */
    double gpu_ms;    /* GPU: dispatch until the results are read back */
    double finish_ms; /* GPU: results unpacked, uncertain particles classified */
} glcollide_tetra_stats;

/*
 * Classifies count points (x y z each, in the mesh's space) on the CPU:
 * inside[i] = 1 inside or on the surface, 0 outside (non-finite points are
 * outside). cones (may be NULL) is frame coherence: on entry each entry is
 * the tetra-cone a point was found in last frame (or
 * GLCOLLIDE_TETRA_CONE_NONE), tried first; on return, this frame's. It never
 * changes an answer, only the work. stats may be NULL. Thread-safe on one
 * tree (read only). Errors: INVALID_ARGUMENT.
 */
GLCOLLIDE_API int glcollide_tetra_tree_classify(const glcollide_tetra_tree *tree,
                                                const double *points, size_t count, uint8_t *inside,
                                                uint32_t *cones, glcollide_tetra_stats *stats);

/* ---------------------------------------------------------------- GPU */

/* The tree in GL buffers, a compute program and per-particle state; or,
 * made without a context, its CPU twin. */
typedef struct glcollide_tetra_gpu glcollide_tetra_gpu;

/*
 * Uploads tree to context (made current) for GPU classification. context
 * NULL: the CPU twin, which classifies with glcollide_tetra_tree_classify
 * (the same answers), keeping each particle's tetra-cone in the object for
 * GLCOLLIDE_TETRA_FRAME_COHERENCE as the GPU keeps it in a buffer; no GL is
 * touched. tree must outlive the returned object (flagged particles are
 * finished with it); destroy the object before the context. Errors:
 * INVALID_ARGUMENT (out or tree NULL), LIMIT (tree larger than a GL
 * buffer), OUT_OF_MEMORY, GL (the compute program does not build: the
 * message says why).
 */
GLCOLLIDE_API int glcollide_tetra_gpu_create(glcollide_context *context,
                                             const glcollide_tetra_tree *tree,
                                             glcollide_tetra_gpu **out);

/* Makes the context current and deletes the GL objects. NULL is fine. */
GLCOLLIDE_API void glcollide_tetra_gpu_destroy(glcollide_tetra_gpu **gpu);

/* Flags of glcollide_tetra_gpu_classify. */
#define GLCOLLIDE_TETRA_FRAME_COHERENCE 1u

/*
 * Classifies count points given in world space against object of world,
 * whose mesh must be the one the tree was built from (the same vertices and
 * triangles: compared once per change of the world's mesh; another mesh is
 * refused with INVALID_ARGUMENT), as glcollide_tetra_tree_classify would
 * (the same answers). Each point is taken into the mesh's space by the
 * inverse of the object's current pose, local = R^T (p - t) in double (R
 * from glcollide_pose_rotation_matrix; an object at the identity pose
 * gives local = p), and that double point is classified: the answer is
 * exact for the transformed point, which may differ from the world point by
 * the rounding of the transform (a point within a few ulps of the posed
 * surface may fall on either side of it). The points in the mesh's space
 * are kept in the object (grown, so a warm call allocates nothing).
 * On the GPU: one upload (points as floats relative to V0), one dispatch
 * (locate each particle in the tetra-tree and test its tetrahedra with
 * certified float signs), one readback of two bits per particle (inside,
 * uncertain); uncertain particles are then classified exactly on the CPU.
 * The CPU twin classifies with glcollide_tetra_tree_classify.
 * With GLCOLLIDE_TETRA_FRAME_COHERENCE, particle i starts from the
 * tetra-cone particle i was found in by the previous call (kept on the GPU,
 * never read back); the flag is ignored when count changed. stats may be
 * NULL. Touches: the GL state of glcollide_context_wrap_current, restored
 * on return. Errors: INVALID_ARGUMENT (NULL, no such object, another mesh),
 * LIMIT (count above 2^31), OUT_OF_MEMORY, GL.
 */
GLCOLLIDE_API int glcollide_tetra_gpu_classify(glcollide_tetra_gpu *gpu,
                                               const glcollide_world *world, uint32_t object,
                                               const double *points, size_t count, unsigned flags,
                                               uint8_t *inside, glcollide_tetra_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* GLCOLLIDE_TETRA_TREE_H */
