/* SPDX-License-Identifier: MIT */
/* Private declarations shared by the modules of libglcollide. */
#ifndef GLCOLLIDE_INTERNAL_H
#define GLCOLLIDE_INTERNAL_H

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define GLCOLLIDE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GLCOLLIDE_PRINTF(f, a)
#endif

/* Logging (glcollide_log is public: the ODE plugin logs through it too). */
#define glcollide_log_error(...) glcollide_log(GLCOLLIDE_LOG_ERROR, __VA_ARGS__)
#define glcollide_log_warning(...) glcollide_log(GLCOLLIDE_LOG_WARNING, __VA_ARGS__)
#define glcollide_log_info(...) glcollide_log(GLCOLLIDE_LOG_INFO, __VA_ARGS__)
#define glcollide_log_debug(...) glcollide_log(GLCOLLIDE_LOG_DEBUG, __VA_ARGS__)

/* Text put before every message this thread logs until it is set back
 * (NULL: none); the string must outlive that. Returns the previous one. */
const char *glcollide_log_set_prefix(const char *prefix);

/* Logs the message at error level and returns status, for `return glcollide_fail(...)`. */
int glcollide_fail(int status, const char *format, ...) GLCOLLIDE_PRINTF(2, 3);

/* glcollide_mesh_find_data without the message when nothing is found (IO):
 * tried receives the directories looked in, for the caller's own message.
 * Other failures (OUT_OF_MEMORY, LIMIT) are logged. */
int glcollide_mesh_find_data_quiet(const char *file_name, char *buf, size_t size, char *tried,
                                   size_t tried_size);

/*
 * Loads the mesh of a scene line "mesh PATH [scale S]", PATH as written in
 * the scene at scene_path; logs one message on failure (the parser puts the
 * scene's file:line before it).
 */
typedef int (*glcollide_scene_mesh_loader)(const char *scene_path, const char *mesh_path,
                                           double scale, glcollide_mesh **out, void *user);

/* The scene file format (glcollide_scene_load) on a buffer, adding meshes
 * (through load_mesh) and objects to scene. For glcollide_scene_load and the
 * fuzz harness, which loads no files. */
int glcollide_scene_parse(const char *data, size_t size, const char *path,
                          glcollide_scene_mesh_loader load_mesh, void *user,
                          glcollide_scene *scene);

/*
 * Makes a mesh that takes ownership of positions and triangles (freed on
 * failure too). No checks: for loaders and generators that produce valid data.
 */
int glcollide_mesh_adopt(double *positions, size_t vertex_count, uint32_t *triangles,
                         size_t triangle_count, const char *name, glcollide_mesh **out);

/* Monotonic clock in milliseconds. */
double glcollide_now_ms(void);

/* Overflow-checked allocation of count * size bytes; NULL on overflow or failure. */
void *glcollide_alloc_array(size_t count, size_t size);
void *glcollide_realloc_array(void *ptr, size_t count, size_t size);
char *glcollide_strdup(const char *s);

/*
 * Grows *array (room for *capacity items of size bytes) to hold at least
 * count items, geometrically, so that repeated growth is amortised and a
 * warm caller allocates nothing. On failure logs "<what>: out of memory for
 * N items" and returns GLCOLLIDE_ERROR_OUT_OF_MEMORY, leaving the array as
 * it was.
 */
int glcollide_array_reserve(void **array, size_t *capacity, size_t count, size_t size,
                            const char *what);

/* Scratch of bytes: the workspace's block (grown) or, without a workspace, a
 * block of its own in *own that the caller frees. NULL when out of memory. */
/* qsort's contract without its heap use (glibc's qsort mallocs a merge
 * buffer above 1 KiB): heapsort, not stable, deterministic, O(n log n). For
 * the paths that must not allocate once warm. */
void glcollide_sort(void *base, size_t count, size_t size,
                    int (*compare)(const void *, const void *));
void *glcollide_workspace_get(glcollide_workspace *workspace, size_t bytes, void **own);

/* Counting sort: turns counts[0..n) per bucket into each bucket's first slot. */
static inline void glcollide_counts_to_offsets(size_t *counts, size_t n)
{
    size_t sum = 0;
    for (size_t d = 0; d < n; d++) {
        size_t count = counts[d];
        counts[d] = sum;
        sum += count;
    }
}

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

/* Vector helpers on double[3]. */
static inline void glcollide_vec3_sub(double out[3], const double a[3], const double b[3])
{
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
}
static inline double glcollide_vec3_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void glcollide_vec3_cross(double out[3], const double a[3], const double b[3])
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

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

/* Closest points of segments u1v1 and u2v2, on the first to c1, on the
 * second to c2 (parallel segments: any closest pair); tritri.c's, shared
 * with the primitive contacts. */
void glcollide_closest_segments(const double *u1, const double *v1, const double *u2,
                                const double *v2, double c1[3], double c2[3]);

/* The point of triangle abc nearest to p (a triangle without area: the
 * nearest of its corners); bvh.c's, shared with the primitive contacts. */
void glcollide_closest_point_on_triangle(const double p[3], const double a[3], const double b[3],
                                         const double c[3], double out[3]);

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
 * (rotation m), computed as glcollide_object_transform_points does: the
 * methods that test world positions exactly see the same numbers however
 * they get them.
 */
static inline void glcollide_place_point(const glcollide_object *pose, const double m[9],
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
 * glcollide_object_rotation_matrix) made once by the caller. */
void glcollide_aabb_place_with(const glcollide_aabb *local, const double m[9],
                               const double translation[3], glcollide_aabb *box);

/* The union of count boxes given as centres and half extents in six rows of
 * stride doubles (cx, cy, cz, hx, hy, hz), each placed by pose as
 * glcollide_aabb_place places a box; empty when count is 0. */
void glcollide_boxes_place_union(const double *boxes, size_t stride, size_t count,
                                 const glcollide_object *pose, glcollide_aabb *out);

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
void glcollide_bvh_placed_bounds(const glcollide_bvh *bvh, const glcollide_object *pose, int depth,
                                 glcollide_aabb *out);

int glcollide_point_in_posed_mesh(const glcollide_mesh *mesh, const glcollide_bvh *bvh,
                                  const glcollide_object *pose, const glcollide_aabb *world_box,
                                  const double p[3]);

#endif /* GLCOLLIDE_INTERNAL_H */
