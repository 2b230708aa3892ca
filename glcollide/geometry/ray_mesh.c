/* SPDX-License-Identifier: MIT */
/*
 * Rays cast at a mesh (glcollide_ray_mesh): the ray is brought into the
 * mesh's object space and its BVH visits the boxes along it, nearer first;
 * each triangle met is intersected in double (Moller-Trumbore). The closest
 * hit prunes the traversal as it is found. Hits are kept nearest first in
 * the caller's buffer (insertion: buffers are small), so nothing is
 * allocated.
 */
#include "geometry/geometry_internal.h"
#include "geometry/primitive_shape.h"

#include <math.h>
#include <string.h>

typedef struct ray_search {
    const glcollide_contact_solid *mesh;
    double origin[3], direction[3]; /* object space */
    double t_max;
    unsigned flags;
    glcollide_ray_hit *hits;
    size_t max_hits, count;
} ray_search;

/* Puts a hit in distance order into the buffer (the farthest falls off a
 * full one); the search then only needs what could still enter it. */
static void keep_hit(ray_search *r, double t, uint32_t triangle)
{
    size_t at = r->count < r->max_hits ? r->count : r->max_hits - 1;
    if (r->count == r->max_hits && (t > r->hits[at].distance ||
                                    (t == r->hits[at].distance && triangle > r->hits[at].triangle)))
        return;
    while (at > 0 && (r->hits[at - 1].distance > t ||
                      (r->hits[at - 1].distance == t && r->hits[at - 1].triangle > triangle))) {
        r->hits[at] = r->hits[at - 1];
        at--;
    }
    r->hits[at] = (glcollide_ray_hit){.distance = t, .triangle = triangle};
    if (r->count < r->max_hits)
        r->count++;
    if (r->count == r->max_hits)
        r->t_max = r->hits[r->count - 1].distance;
}

static int visit(uint32_t triangle, void *user)
{
    ray_search *r = user;
    const uint32_t *v = r->mesh->mesh->triangles + 3 * (size_t)triangle;
    const double *t[3];
    for (int k = 0; k < 3; k++)
        t[k] = r->mesh->mesh->positions + 3 * (size_t)v[k];
    double hit, e1[3], e2[3], n[3];
    if (!primitive_ray_triangle(r->origin, r->direction, t, &hit) || hit < 0.0 || hit > r->t_max)
        return 0;
    if (r->flags & GLCOLLIDE_RAY_CULL_BACKFACES) {
        glcollide_vec3_sub(e1, t[1], t[0]);
        glcollide_vec3_sub(e2, t[2], t[0]);
        glcollide_vec3_cross(n, e1, e2);
        if (glcollide_vec3_dot(n, r->direction) > 0.0)
            return 0;
    }
    keep_hit(r, hit, triangle);
    return (r->flags & GLCOLLIDE_RAY_FIRST) != 0;
}

/* Position and outward normal of each hit, in the world. */
static void finish_hits(const ray_search *r, const double world_origin[3],
                        const double world_direction[3])
{
    glcollide_pose pose = r->mesh->pose;
    double q = 0.0, m[9];
    for (int k = 0; k < 4; k++)
        q += pose.rotation[k] * pose.rotation[k];
    for (int k = 0; k < 4; k++)
        pose.rotation[k] /= sqrt(q);
    glcollide_pose_rotation_matrix(&pose, m);
    for (size_t i = 0; i < r->count; i++) {
        glcollide_ray_hit *h = &r->hits[i];
        const uint32_t *v = r->mesh->mesh->triangles + 3 * (size_t)h->triangle;
        const double *a = r->mesh->mesh->positions + 3 * (size_t)v[0];
        const double *b = r->mesh->mesh->positions + 3 * (size_t)v[1];
        const double *c = r->mesh->mesh->positions + 3 * (size_t)v[2];
        double e1[3], e2[3], n[3];
        glcollide_vec3_sub(e1, b, a);
        glcollide_vec3_sub(e2, c, a);
        glcollide_vec3_cross(n, e1, e2);
        double len = sqrt(glcollide_vec3_dot(n, n));
        for (int k = 0; k < 3; k++) {
            h->position[k] = world_origin[k] + h->distance * world_direction[k];
            h->normal[k] = (m[3 * k] * n[0] + m[3 * k + 1] * n[1] + m[3 * k + 2] * n[2]) / len;
        }
    }
}

int glcollide_ray_mesh(const glcollide_contact_solid *mesh, const double origin[3],
                       const double direction[3], double length, unsigned flags,
                       glcollide_ray_hit *hits, size_t max_hits, size_t *count)
{
    if (count)
        *count = 0;
    if (!count || !mesh || !mesh->mesh || !origin || !direction || (!hits && max_hits > 0) ||
        (mesh->mesh->triangle_count &&
         (!mesh->mesh->positions || !mesh->mesh->triangles || !mesh->bvh)))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "ray: NULL count, mesh, origin, direction, hits or mesh arrays");
    double q = 0.0;
    for (int k = 0; k < 4; k++)
        q += mesh->pose.rotation[k] * mesh->pose.rotation[k];
    double d2 = glcollide_vec3_dot(direction, direction);
    int finite = isfinite(origin[0]) && isfinite(origin[1]) && isfinite(origin[2]) &&
                 isfinite(d2) && isfinite(q) && q > 0.0 && isfinite(mesh->pose.translation[0]) &&
                 isfinite(mesh->pose.translation[1]) && isfinite(mesh->pose.translation[2]);
    if (!finite || fabs(d2 - 1.0) > 2e-6 || !(length >= 0.0))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "ray: origin, direction (unit) and pose must be finite and length "
                              "not negative (length %g, |direction|^2 %g)",
                              length, d2);
    if (max_hits == 0 || mesh->mesh->triangle_count == 0)
        return GLCOLLIDE_OK;
    glcollide_pose pose = mesh->pose;
    for (int k = 0; k < 4; k++)
        pose.rotation[k] /= sqrt(q);
    double m[9];
    glcollide_pose_rotation_matrix(&pose, m);
    ray_search r = {.mesh = mesh,
                    .t_max = length,
                    .flags = flags,
                    .hits = hits,
                    .max_hits =
                        flags & (GLCOLLIDE_RAY_CLOSEST | GLCOLLIDE_RAY_FIRST) ? 1 : max_hits};
    const double no_translation[3] = {0, 0, 0};
    glcollide_unplace_point(pose.translation, m, origin, r.origin);
    glcollide_unplace_point(no_translation, m, direction, r.direction);
    glcollide_bvh_query_ray(mesh->bvh, r.origin, r.direction, &r.t_max, visit, &r);
    finish_hits(&r, origin, direction);
    *count = r.count;
    return GLCOLLIDE_OK;
}
