/* SPDX-License-Identifier: MIT */
/*
 * Private: GPU visibility culling of triangles (CULLIDE, and FAR's reliable
 * variant), the potentially colliding set at triangle level. See cull.c.
 */
#ifndef GLCOLLIDE_CULL_H
#define GLCOLLIDE_CULL_H

#include "gl_internal.h"
#include "world.h"

typedef struct glcollide_cull_options {
    int reliable;       /* FAR: conservative rasterisation and depth; 0: CULLIDE */
    int resolution;     /* viewport side in pixels */
    double distance;    /* keep triangles closer than this to another object */
    int object_round;    /* start with one round of views at object level */
    int triangle_rounds; /* then rounds of the three views at triangle level */
} glcollide_cull_options;

/*
 * The potentially colliding sets. On entry objects[o] = 1 for the objects
 * that take part and, without object_round, flags[o][t] = 1 for their
 * triangles that take part.
 *
 * The object round draws every triangle of the objects in the PCS in each of
 * the three axis views, and an object leaves the PCS when none of its
 * triangles is behind another object in some view. Because objects are drawn
 * whole, a solid inside another stays in the PCS (the outer surface hides it
 * in every view). A triangle round draws only the triangles still flagged: a
 * triangle that is not behind another object in some view touches nothing.
 *
 * On return objects[o] is the object PCS and flags[o][t] = 1 for triangles
 * that were behind another object in every view drawn. With reliable set,
 * every triangle that intersects (or comes within distance of) a triangle of
 * another object stays flagged, and with object_round every pair of objects
 * whose solids touch stays in the PCS. flags[o] arrays hold triangle_count
 * bytes each, allocated by the caller. Counts draw calls, syncs and bytes read
 * back into stats.
 */
int glcollide_cull_triangles(glcollide_context *context, const glcollide_world_space *world,
                             const glcollide_cull_options *options, unsigned char *objects,
                             unsigned char **flags, glcollide_query_stats *stats);

#endif
