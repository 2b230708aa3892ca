/* SPDX-License-Identifier: MIT */
/*
 * Private: GPU visibility culling of triangles (CULLIDE, and FAR's reliable
 * variant), the potentially colliding set at triangle level. See cull.c.
 */
#ifndef GLCOLLIDE_CULL_H
#define GLCOLLIDE_CULL_H

#include "gl_internal.h"
#include "query.h"

typedef struct glcollide_cull_options {
    int reliable;       /* FAR: conservative rasterisation and depth; 0: CULLIDE */
    int resolution;     /* viewport side in pixels */
    double distance;    /* keep triangles closer than this to another object */
    int rounds;         /* rounds of the three axis views (>= 1) */
} glcollide_cull_options;

/*
 * Flags, per object and triangle, the triangles that are not fully visible
 * against the other objects in all of the views: flags[o][t] = 1 for the
 * potentially colliding set. With reliable set, every triangle that
 * intersects (or comes within distance of) a triangle of another object is
 * flagged. flags[o] arrays are allocated by the caller (triangle_count bytes
 * each). Counts draw calls, syncs and bytes read back into stats.
 */
int glcollide_cull_triangles(glcollide_context *context, const glcollide_world *world,
                             const glcollide_cull_options *options, unsigned char **flags,
                             glcollide_query_stats *stats);

/* Releases the programs and buffers cached on the context. */
void glcollide_cull_release(glcollide_context *context);

#endif
