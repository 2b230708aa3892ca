/* SPDX-License-Identifier: MIT */
/* Private: the scene in world space for one query, result building, and the
 * entry of each query method. */
#ifndef GLCOLLIDE_QUERY_H
#define GLCOLLIDE_QUERY_H

#include "internal.h"

/* Every object of a scene in world space. */
typedef struct glcollide_world {
    const glcollide_scene *scene;
    glcollide_world_mesh *objects; /* object_count entries */
    size_t object_count;
    glcollide_aabb *bounds;        /* object_count world boxes */
    uint32_t **shells;             /* per mesh (GLCOLLIDE_WORLD_SOLIDS): see glcollide_world_mesh */
    size_t mesh_count;
} glcollide_world;

/* What glcollide_world_build prepares beyond world positions and boxes. */
enum {
    GLCOLLIDE_WORLD_BVH = 1,    /* a BVH per object */
    GLCOLLIDE_WORLD_SOLIDS = 2, /* closed: whether each mesh is a solid, and its parts */
};

/* Transforms every object (INVALID_MESH for non-finite coordinates). */
int glcollide_world_build(const glcollide_scene *scene, unsigned what, glcollide_world *world);
void glcollide_world_release(glcollide_world *world);

/* Result building: appends (OUT_OF_MEMORY on failure), then sorts. */
int glcollide_result_add_pair(glcollide_query_result *result, size_t *capacity, uint32_t a,
                              uint32_t b);
int glcollide_result_add_triangle_pair(glcollide_query_result *result, size_t *capacity,
                                       uint32_t object_a, uint32_t triangle_a, uint32_t object_b,
                                       uint32_t triangle_b);
void glcollide_result_sort(glcollide_query_result *result);

/* The methods; world is built by the caller, result zeroed. */
int glcollide_query_exact(const glcollide_world *world, const glcollide_query_options *options,
                          glcollide_query_result *result);
int glcollide_query_sap(const glcollide_world *world, const glcollide_query_options *options,
                        glcollide_query_result *result);

/* CULLIDE (reliable = 0) and FAR (reliable = 1) on the GPU; see query_cull.c. */
int glcollide_query_cull(const glcollide_world *world, glcollide_context *context,
                         const glcollide_query_options *options, int reliable,
                         glcollide_query_result *result);

#endif
