/* SPDX-License-Identifier: MIT */
/*
 * Myszkowski's distance map on the CPU: per pixel, the ray through its
 * centre along the view meets the triangles of A and B whose projections
 * hold the centre (exact orient2d on the view coordinates, the candidates
 * from a BVH of the projected positions); the crossings, sorted by depth
 * (entries before exits at equal depth: touching counts), are walked with
 * each solid's count of entries minus exits, as the GPU's sorted lists are:
 * the gap between the two solids, or minus the length inside both.
 *
 * The CPU twin's map (glcollide_myszkowski_distance_map without a
 * context) and the tests' reference for the GPU's map are both this code.
 */
#include "methods/myszkowski_rays.h"

#include <glcollide/myszkowski.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

void glcollide_map_rays_release(glcollide_map_rays *rays)
{
    for (int f = 0; f < 2; f++) {
        free(rays->view[f]);
        glcollide_bvh_destroy(&rays->bvh[f]);
    }
    free(rays->hits);
    memset(rays, 0, sizeof *rays);
}

int glcollide_map_rays_prepare(glcollide_map_rays *rays, const glcollide_mesh *const meshes[2],
                               const double *const positions[2], const double corner[3],
                               const double u[3], const double v[3], const double w[3])
{
    rays->extent = 0;
    for (int f = 0; f < 2; f++) {
        const glcollide_mesh *mesh = meshes[f];
        int status =
            glcollide_array_reserve((void **)&rays->view[f], &rays->view_capacity[f],
                                    3 * mesh->vertex_count + 1, sizeof(double), "myszkowski rays");
        if (status != GLCOLLIDE_OK)
            return status;
        const double *axes[3] = {u, v, w};
        for (size_t i = 0; i < mesh->vertex_count; i++) {
            double d[3];
            glcollide_vec3_sub(d, positions[f] + 3 * i, corner);
            for (int k = 0; k < 3; k++) {
                rays->view[f][3 * i + k] = glcollide_vec3_dot(d, axes[k]);
                rays->extent = fmax(rays->extent, fabs(rays->view[f][3 * i + k]));
            }
        }
        rays->triangles[f] = mesh->triangles;
        glcollide_bvh_destroy(&rays->bvh[f]);
        status = glcollide_bvh_build(rays->view[f], mesh->vertex_count, mesh->triangles,
                                     mesh->triangle_count, &rays->bvh[f]);
        if (status != GLCOLLIDE_OK)
            return status;
    }
    return GLCOLLIDE_OK;
}

typedef struct ray_walk {
    glcollide_map_rays *rays;
    const double *view;
    const uint32_t *triangles;
    double x, y, near_edge;
    int object, ambiguous, status;
    size_t count;
} ray_walk;

static double segment_distance(const double *a, const double *b, double x, double y)
{
    double ex = b[0] - a[0], ey = b[1] - a[1], len2 = ex * ex + ey * ey;
    double s = len2 > 0 ? ((x - a[0]) * ex + (y - a[1]) * ey) / len2 : 0;
    s = fmin(1, fmax(0, s));
    return hypot(x - a[0] - s * ex, y - a[1] - s * ey);
}

/* Edge a -> b of a counter-clockwise triangle: a top edge (level, the
 * triangle below) or a left one (going down). */
static int top_left(const double *a, const double *b)
{
    return (a[1] == b[1] && b[0] < a[0]) || b[1] < a[1];
}

static int ray_triangle(uint32_t triangle, void *user)
{
    ray_walk *r = user;
    const double *p[3];
    for (int c = 0; c < 3; c++)
        p[c] = r->view + 3 * (size_t)r->triangles[3 * (size_t)triangle + c];
    for (int c = 0; r->near_edge > 0 && c < 3; c++)
        if (segment_distance(p[c], p[(c + 1) % 3], r->x, r->y) < r->near_edge)
            r->ambiguous = 1;
    int area = glcollide_orient2d(p[0], p[1], p[2]);
    if (area == 0)
        return 0; /* edge-on: no pixel */
    /* counter-clockwise in (u, v) with u x v = w: the normal points along
     * the view, away from the viewer: a back face (the ray leaves). */
    const double *ccw[3] = {p[0], area > 0 ? p[1] : p[2], area > 0 ? p[2] : p[1]};
    const double pt[2] = {r->x, r->y};
    for (int c = 0; c < 3; c++) {
        int side = glcollide_orient2d(ccw[c], ccw[(c + 1) % 3], pt);
        if (side < 0 || (side == 0 && !top_left(ccw[c], ccw[(c + 1) % 3])))
            return 0;
    }
    double d1[3], d2[3], n[3];
    glcollide_vec3_sub(d1, p[1], p[0]);
    glcollide_vec3_sub(d2, p[2], p[0]);
    glcollide_vec3_cross(n, d1, d2);
    double z = p[0][2] - (n[0] * (r->x - p[0][0]) + n[1] * (r->y - p[0][1])) / n[2];
    glcollide_map_rays *rays = r->rays;
    r->status = glcollide_array_reserve((void **)&rays->hits, &rays->hit_capacity, r->count + 1,
                                        sizeof *rays->hits, "myszkowski rays");
    if (r->status != GLCOLLIDE_OK)
        return 1;
    rays->hits[r->count++] =
        (glcollide_map_crossing){z, r->object, area < 0, hypot(n[0], n[1]) / fabs(n[2])};
    return 0;
}

static int crossing_compare(const void *x, const void *y)
{
    const glcollide_map_crossing *a = x, *b = y;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    if (a->front != b->front)
        return b->front - a->front; /* entries first: touching counts */
    return a->object - b->object;
}

/* The map's definition, in double: gap, or minus the length inside both. */
static double sweep(const glcollide_map_crossing *hits, size_t n)
{
    int inside[2] = {0, 0}, both = 0;
    double last_exit[2] = {-INFINITY, -INFINITY}, overlap = 0, gap = INFINITY, previous = 0;
    for (size_t k = 0; k < n; k++) {
        int o = hits[k].object;
        double z = hits[k].depth;
        if (inside[0] > 0 && inside[1] > 0)
            overlap += z - previous;
        if (hits[k].front) {
            if (inside[o] == 0 && inside[1 - o] <= 0 && isfinite(last_exit[1 - o]))
                gap = fmin(gap, z - last_exit[1 - o]);
            inside[o]++;
        } else if (--inside[o] == 0) {
            last_exit[o] = z;
        }
        both |= inside[0] > 0 && inside[1] > 0;
        previous = z;
    }
    return both ? -overlap : gap;
}

int glcollide_map_rays_cast(glcollide_map_rays *rays, double x, double y, double near_edge,
                            glcollide_map_ray *ray)
{
    ray_walk r = {.rays = rays, .x = x, .y = y, .near_edge = near_edge};
    size_t hits[2];
    for (int f = 0; f < 2 && r.status == GLCOLLIDE_OK; f++) {
        size_t before = r.count;
        r.view = rays->view[f];
        r.triangles = rays->triangles[f];
        r.object = f;
        glcollide_aabb box = {{x - near_edge, y - near_edge, -INFINITY},
                              {x + near_edge, y + near_edge, INFINITY}};
        glcollide_bvh_query_box(rays->bvh[f], &box, ray_triangle, &r);
        hits[f] = r.count - before;
    }
    if (r.status != GLCOLLIDE_OK)
        return r.status;
    glcollide_sort(rays->hits, r.count, sizeof *rays->hits, crossing_compare);
    ray->coverage = (hits[0] > 0 ? GLCOLLIDE_MYSZKOWSKI_COVER_A : 0) |
                    (hits[1] > 0 ? GLCOLLIDE_MYSZKOWSKI_COVER_B : 0);
    ray->distance = hits[0] && hits[1] ? sweep(rays->hits, r.count) : NAN;
    ray->surfaces = r.count;
    ray->slope = 0;
    for (size_t k = 0; k < r.count; k++)
        ray->slope = fmax(ray->slope, rays->hits[k].slope);
    ray->ambiguous = r.ambiguous;
    return GLCOLLIDE_OK;
}
