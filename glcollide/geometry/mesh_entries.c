/* SPDX-License-Identifier: MIT */
/*
 * The geometry layer's public calls on a mesh: each takes a glcollide_mesh,
 * the one way a mesh is passed, and hands its arrays to the array forms in
 * bvh.c and point_in_mesh.c, which the library's own callers use directly
 * for arrays that are no mesh (projected or placed positions).
 */
#include "geometry/geometry_internal.h"

#include <math.h>

int glcollide_bvh_create(const glcollide_mesh *mesh, glcollide_bvh **out)
{
    if (!mesh)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "BVH: mesh is NULL");
    return glcollide_bvh_build(mesh->positions, mesh->vertex_count, mesh->triangles,
                               mesh->triangle_count, out);
}

void glcollide_bvh_refit(glcollide_bvh *bvh, const glcollide_mesh *mesh, int threads)
{
    if (mesh)
        glcollide_bvh_refit_positions(bvh, mesh->positions, threads);
}

double glcollide_bvh_nearest(const glcollide_bvh *bvh, const glcollide_mesh *mesh,
                             const double p[3], double closest[3], uint32_t *triangle)
{
    return mesh ? glcollide_bvh_nearest_positions(bvh, mesh->positions, p, closest, triangle)
                : INFINITY;
}

int glcollide_point_in_mesh(const glcollide_mesh *mesh, const glcollide_bvh *bvh, const double p[3])
{
    return mesh ? glcollide_point_in_mesh_arrays(mesh->positions, mesh->triangles,
                                                 mesh->triangle_count, bvh, p)
                : 0;
}

double glcollide_winding_number(const glcollide_mesh *mesh, const double p[3])
{
    return mesh ? glcollide_winding_number_arrays(mesh->positions, mesh->triangles,
                                                  mesh->triangle_count, p)
                : 0.0;
}
