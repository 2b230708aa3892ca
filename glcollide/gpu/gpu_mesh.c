/* SPDX-License-Identifier: MIT */
/* Meshes once on the GPU, poses per frame: see gpu_mesh.h. */
#include "gpu/gpu_mesh.h"

#include <float.h>
#include <math.h>

int glcollide_gpu_mesh_need(const glcollide_gpu_mesh *slot, const glcollide_world_mesh_entry *entry)
{
    if (slot->synced_at >= entry->changed_at)
        return GLCOLLIDE_GPU_MESH_CURRENT;
    if (slot->synced_at == entry->previous_change && entry->changed_count < slot->vertex_count)
        return GLCOLLIDE_GPU_MESH_RANGE;
    return GLCOLLIDE_GPU_MESH_WHOLE;
}

void glcollide_gpu_mesh_frame(const glcollide_world_mesh_entry *entry, glcollide_gpu_mesh *slot)
{
    if (entry->mesh->triangle_count) {
        glcollide_frame_fit(&entry->bounds, slot->centre, &slot->scale);
    } else {
        slot->centre[0] = slot->centre[1] = slot->centre[2] = 0.0;
        slot->scale = 1.0;
    }
    slot->largest = 0.0;
}

int glcollide_gpu_mesh_stage(const glcollide_mesh *mesh, glcollide_gpu_mesh *slot, size_t first,
                             size_t count, float **staging, size_t *staging_capacity,
                             const char *layer)
{
    int status = glcollide_array_reserve((void **)staging, staging_capacity, 4 * count,
                                         sizeof **staging, layer);
    if (status != GLCOLLIDE_OK)
        return status;
    for (size_t v = 0; v < count; v++) {
        const double *p = mesh->positions + 3 * (first + v);
        for (int k = 0; k < 3; k++) {
            float f = (float)((p[k] - slot->centre[k]) * slot->scale);
            (*staging)[4 * v + (size_t)k] = f;
            slot->largest = fmax(slot->largest, fabs((double)f));
        }
        (*staging)[4 * v + 3] = 0.0f;
    }
    return GLCOLLIDE_OK;
}

int glcollide_gpu_mesh_upload(const glcollide_mesh *mesh, glcollide_gpu_mesh *slot, size_t first,
                              size_t count, float **staging, size_t *staging_capacity,
                              GLuint vertex_buffer, const char *layer, glcollide_query_stats *stats)
{
    int status =
        glcollide_gpu_mesh_stage(mesh, slot, first, count, staging, staging_capacity, layer);
    if (status == GLCOLLIDE_OK)
        glcollide_gl_buffer_upload(vertex_buffer, 16 * (slot->first_vertex + first), 16 * count,
                                   *staging, stats);
    return status;
}

double glcollide_gpu_pose(const glcollide_pose *pose, const glcollide_gpu_mesh *slot,
                          const double origin[3], double scale, float record[8])
{
    double m[9], t[3], largest_t = 0.0;
    glcollide_pose_rotation_matrix(pose, m);
    glcollide_place_point(pose, m, slot->centre, t);
    for (int k = 0; k < 3; k++) {
        record[k] = (float)pose->rotation[1 + k];
        t[k] = (t[k] - origin[k]) * scale;
        record[4 + k] = (float)t[k];
        largest_t = fmax(largest_t, fabs(t[k]));
    }
    record[3] = (float)pose->rotation[0];
    double k = scale / slot->scale;
    record[7] = (float)k;
    return 128.0 * 0x1p-24 * (slot->largest * k + largest_t) + 4 * (double)FLT_MIN;
}
