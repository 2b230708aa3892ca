/* SPDX-License-Identifier: MIT */
/*
 * Private: a world's meshes as the GPU methods that draw posed meshes keep
 * them (cull.c, stencil.c). Each mesh's vertices go to the GPU
 * once per world in float, relative to the centre of its box and scaled by
 * the power of two that takes the box into [-1, 1]; a deformation sends the
 * range it rewrote; a frame sends one pose record per object, which the
 * vertex shader applies (shaders/pose.glsl): R v k + t in the query's frame.
 *
 * Placement error (as cull.c derives it): each coordinate placed in float is
 * within 128u (|v|k + |t|) of the exact one, u = 2^-24, |v| and |t| the
 * largest coordinates; glcollide_gpu_pose returns that bound.
 */
#ifndef GLCOLLIDE_GPU_MESH_H
#define GLCOLLIDE_GPU_MESH_H

#include "gpu/gl_internal.h"
#include "world/world.h"

typedef struct glcollide_gpu_mesh {
    size_t first_vertex, vertex_count;
    double centre[3], scale; /* stored vertex = (p - centre) * scale, in float */
    double largest;          /* largest |coordinate| stored */
    uint64_t synced_at;      /* the entry's changed_at when uploaded */
} glcollide_gpu_mesh;

/* What a mesh on the GPU needs to be current with its world entry. */
enum {
    GLCOLLIDE_GPU_MESH_CURRENT = 0,
    GLCOLLIDE_GPU_MESH_RANGE = 1, /* the vertices of the entry's last change */
    GLCOLLIDE_GPU_MESH_WHOLE = 2  /* a change older than the upload, or a replacement */
};
int glcollide_gpu_mesh_need(const glcollide_gpu_mesh *slot,
                            const glcollide_world_mesh_entry *entry);

/* Sets slot's frame from the entry's box (and clears slot->largest). */
void glcollide_gpu_mesh_frame(const glcollide_world_mesh_entry *entry, glcollide_gpu_mesh *slot);

/* Vertices first..first+count-1 of mesh in slot's frame, 4 floats each, into
 * *staging (grown as needed; OUT_OF_MEMORY logged with layer); slot->largest
 * grows to cover them. */
int glcollide_gpu_mesh_stage(const glcollide_mesh *mesh, glcollide_gpu_mesh *slot, size_t first,
                             size_t count, float **staging, size_t *staging_capacity,
                             const char *layer);

/* Stages vertices first..first+count-1 as glcollide_gpu_mesh_stage does and
 * uploads them to their place in vertex_buffer (4 floats a vertex from
 * slot->first_vertex on), counted in stats; leaves vertex_buffer bound to
 * GL_SHADER_STORAGE_BUFFER. */
int glcollide_gpu_mesh_upload(const glcollide_mesh *mesh, glcollide_gpu_mesh *slot, size_t first,
                              size_t count, float **staging, size_t *staging_capacity,
                              GLuint vertex_buffer, const char *layer,
                              glcollide_query_stats *stats);

/* The pose record of an object of slot's mesh in the frame (origin, scale):
 * record[0..3] the quaternion x y z w, [4..6] t, [7] k. Returns the bound of
 * the placement error, in frame units. */
double glcollide_gpu_pose(const glcollide_pose *pose, const glcollide_gpu_mesh *slot,
                          const double origin[3], double scale, float record[8]);

#endif
