/* SPDX-License-Identifier: MIT */
/*
 * Private: GPU visibility culling of triangles (CULLIDE, and FAR's reliable
 * variant), the potentially colliding set at object and triangle level, on
 * the persistent world. See cull.c.
 */
#ifndef GLCOLLIDE_CULL_H
#define GLCOLLIDE_CULL_H

#include "gpu/gl_internal.h"
#include "world/world.h"

typedef struct glcollide_cull_options {
    int reliable;        /* FAR: conservative rasterisation and depth; 0: CULLIDE */
    int resolution;      /* viewport side in pixels */
    double distance;     /* keep triangles closer than this to another object */
    int object_round;    /* one round of views at object level (alone: the object PCS) */
    int triangle_rounds; /* rounds of the three views at triangle level */
} glcollide_cull_options;

/*
 * What one culling run leaves, in the context's cache, valid until the next
 * run in that context. The objects taking part are numbered 0..count-1 as
 * given; their triangles carry the global ids first[p] .. first[p + 1] - 1.
 */
typedef struct glcollide_cull_frame {
    size_t object_count;
    const uint32_t *first;    /* object_count + 1 */
    const uint32_t *pcs_bits; /* object round alone: bit p set = object p in the PCS */
    const uint32_t *flagged;  /* triangle rounds: the global ids left, sorted */
    size_t flagged_count;
} glcollide_cull_frame;

/*
 * Culls the objects objects[0..count) of world (increasing indices) in a
 * fixed number of draw calls and compute dispatches, and one readback.
 * With object_round alone, an object leaves the PCS when none of its
 * triangles is behind another object in some view (drawn whole, a solid
 * inside another stays). With triangle rounds, a triangle is kept when it
 * is behind another object in every view drawn; regions (one world box per
 * object taking part, or NULL) restrict the triangles to those meeting
 * their object's region first. With reliable set, every triangle that
 * intersects (or comes within distance of) a triangle of another object
 * stays, and every pair of objects whose solids touch stays in the PCS.
 * Uploads meshes once per world and context (again by the range a
 * deformation changed), and 64 bytes per object per run. Counts draw calls,
 * dispatches, syncs, bytes uploaded and read back into stats. Errors: LIMIT
 * (resolution, triangles), OUT_OF_MEMORY, GL, GL_UNSUPPORTED.
 */
int glcollide_cull_world(glcollide_context *context, const glcollide_world *world,
                         const glcollide_cull_options *options, const uint32_t *objects,
                         size_t count, const glcollide_aabb *regions, glcollide_cull_frame *frame,
                         glcollide_query_stats *stats);

#endif
