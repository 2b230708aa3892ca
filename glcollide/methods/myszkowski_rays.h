/* SPDX-License-Identifier: MIT */
/*
 * Private: Myszkowski's distance map by CPU ray casting (myszkowski_rays.c),
 * the CPU twin's map and the reference the GPU map is tested against. Rays
 * run along the view direction through points (x, y) of the view plane;
 * positions are taken into view coordinates (x along axis_u, y along axis_v,
 * depth along direction, from the map's corner) in double.
 */
#ifndef GLCOLLIDE_MYSZKOWSKI_RAYS_H
#define GLCOLLIDE_MYSZKOWSKI_RAYS_H

#include "world/world.h"

/* One surface crossed by a ray. */
typedef struct glcollide_map_crossing {
    double depth;
    int object, front;
    double slope; /* |grad depth| of the triangle: depth error per unit of xy error */
} glcollide_map_crossing;

/* Both objects in view coordinates with a BVH each; storage kept between
 * uses (grown, never shrunk). Zero-initialise; release with
 * glcollide_map_rays_release. */
typedef struct glcollide_map_rays {
    double *view[2];
    size_t view_capacity[2];
    const uint32_t *triangles[2];
    glcollide_bvh *bvh[2];
    double extent; /* largest |view coordinate| of either object */
    glcollide_map_crossing *hits;
    size_t hit_capacity;
} glcollide_map_rays;

/* What one ray meets. */
typedef struct glcollide_map_ray {
    double distance; /* the map's value: gap, minus the overlap, NaN when it misses one */
    int coverage;    /* GLCOLLIDE_MYSZKOWSKI_COVER_A | _B */
    size_t surfaces; /* crossings of both objects */
    double slope;    /* largest slope among them */
    int ambiguous;   /* within near_edge of a projected edge of either object */
} glcollide_map_ray;

/* Objects a and b (meshes and their world positions) in the view of corner
 * and the unit axes u, v, w. OUT_OF_MEMORY (logged). */
int glcollide_map_rays_prepare(glcollide_map_rays *rays, const glcollide_mesh *const meshes[2],
                               const double *const positions[2], const double corner[3],
                               const double u[3], const double v[3], const double w[3]);

/* The ray through (x, y). A point on a projected edge or vertex belongs to
 * the triangles whose edge there is a top or left one (the rasterizers'
 * rule), so that a ray through a shared edge crosses the surface once.
 * near_edge > 0: also says whether the ray passes that close to an edge.
 * OUT_OF_MEMORY (logged). */
int glcollide_map_rays_cast(glcollide_map_rays *rays, double x, double y, double near_edge,
                            glcollide_map_ray *ray);

void glcollide_map_rays_release(glcollide_map_rays *rays);

#endif
