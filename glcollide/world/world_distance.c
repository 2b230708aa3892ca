/* SPDX-License-Identifier: MIT */
/*
 * The distance between two objects of a world, and whether one solid holds
 * (a part of) the other.
 *
 * Two solids are 0 apart when their surfaces meet, and also when one lies
 * inside the other with no surface meeting: the closest pair of triangles
 * alone would call a ball in a hollow shell as far apart as the gap
 * between the surfaces. So the search for the closest pair of triangles
 * (geometry/bvh_distance.c, on each mesh's object-space BVH, built on first
 * need and kept by the world) comes first; when it finds the surfaces
 * apart, one corner per connected part of each mesh is tested against the
 * other's solid with the exact point-in-solid test (closed meshes only; a
 * part is inside entirely or not at all when the surfaces do not meet), as
 * the exact query method decides containment.
 *
 * World positions are computed as the exact methods compute them
 * (glcollide_place_point), scaled by a power of two only where the scene
 * lies beyond 2^+-240 (glcollide_distance_scale), so the distance is the
 * same number glcollide-query's exact method compares with its --distance,
 * and 0 exactly where the exact method finds the surfaces meeting.
 */
#include "world/world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int glcollide_world_contains_part(const glcollide_world *world, uint32_t outer, uint32_t inner,
                                  double point[3], uint32_t *triangle)
{
    const glcollide_object *object_o = &world->objects[outer], *object_i = &world->objects[inner];
    const glcollide_world_mesh_entry *o = &world->meshes[object_o->mesh];
    const glcollide_world_mesh_entry *in = &world->meshes[object_i->mesh];
    if (o->solid != 1 || in->mesh->triangle_count == 0 || o->mesh->triangle_count == 0)
        return 0;
    /* An open inner mesh has no parts listed: its first triangle stands for it. */
    const uint32_t first = 0;
    const uint32_t *parts = in->shell_count ? in->shells : &first;
    size_t count = in->shell_count ? in->shell_count : 1;
    double m[9];
    glcollide_pose_rotation_matrix(&object_i->pose, m);
    for (size_t i = 0; i < count; i++) {
        uint32_t vertex = in->mesh->triangles[3 * (size_t)parts[i]];
        double p[3];
        glcollide_place_point(&object_i->pose, m, in->mesh->positions + 3 * (size_t)vertex, p);
        if (glcollide_aabb_overlap(&world->boxes[outer],
                                   &(glcollide_aabb){{p[0], p[1], p[2]}, {p[0], p[1], p[2]}}) &&
            glcollide_point_in_posed_mesh(o->mesh, o->bvh, &object_o->pose, &world->boxes[outer],
                                          p)) {
            if (point)
                memcpy(point, p, sizeof p);
            if (triangle)
                *triangle = parts[i];
            return 1;
        }
    }
    return 0;
}

/* No pair: what the result holds on error, for an empty mesh, and (with
 * the distance set after) beyond the upper bound. */
static void no_pair(glcollide_distance_result *result, double distance)
{
    result->distance = distance;
    for (int k = 0; k < 3; k++)
        result->point_a[k] = result->point_b[k] = NAN;
    result->triangle_a = result->triangle_b = GLCOLLIDE_NO_TRIANGLE;
}

static int check_arguments(const glcollide_world *world, uint32_t a, uint32_t b, double upper_bound)
{
    if (!world)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "distance: world is NULL");
    uint32_t bad = a >= world->object_count ? a : b;
    if (a >= world->object_count || b >= world->object_count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "distance: no object %u (the world has %zu)", bad,
                              world->object_count);
    if (a == b)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "distance: object %u against itself", a);
    if (!(upper_bound >= 0.0))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "distance: upper_bound must be >= 0 (INFINITY: no bound), got %g",
                              upper_bound);
    return GLCOLLIDE_OK;
}

/* The factor both objects' world positions are measured at. */
static double pair_scale(const glcollide_aabb *a, const glcollide_aabb *b)
{
    double largest = 0.0;
    for (int k = 0; k < 3; k++)
        largest = fmax(largest, fmax(fmax(fabs(a->min[k]), fabs(a->max[k])),
                                     fmax(fabs(b->min[k]), fabs(b->max[k]))));
    return glcollide_distance_scale(largest);
}

double glcollide_world_pair_scale(const glcollide_world *world, uint32_t a, uint32_t b)
{
    return pair_scale(&world->boxes[a], &world->boxes[b]);
}

/* Mesh m ready for the search: its BVH, closedness and parts, and its
 * nodes' slabs (again after a change of the mesh). */
static int prepare(glcollide_world *world, uint32_t m)
{
    int status =
        glcollide_world_prepare_mesh(world, m, GLCOLLIDE_WORLD_BVH | GLCOLLIDE_WORLD_SOLIDS);
    glcollide_world_mesh_entry *entry = &world->meshes[m];
    if (status != GLCOLLIDE_OK || entry->slabs_at == 1 + entry->changed_at)
        return status;
    free(entry->slabs);
    entry->slabs = NULL;
    status = glcollide_bvh_slabs_build(entry->bvh, entry->mesh->positions, &entry->slabs);
    if (status == GLCOLLIDE_OK)
        entry->slabs_at = 1 + entry->changed_at;
    return status;
}

static glcollide_posed_mesh posed(const glcollide_world *world, uint32_t o)
{
    const glcollide_object *object = &world->objects[o];
    const glcollide_world_mesh_entry *entry = &world->meshes[object->mesh];
    return (glcollide_posed_mesh){entry->bvh, entry->mesh->positions, &object->pose, entry->slabs};
}

/* The distance with object_a < object_b, arguments checked. */
static int ordered_distance(glcollide_world *world, uint32_t object_a, uint32_t object_b,
                            double upper_bound, glcollide_distance_result *result)
{
    int status = GLCOLLIDE_OK;
    for (int i = 0; i < 2 && status == GLCOLLIDE_OK; i++) {
        uint32_t o = i ? object_b : object_a;
        status = prepare(world, world->objects[o].mesh);
        if (status == GLCOLLIDE_OK)
            status = glcollide_world_check_box(world, o, &world->boxes[o], "distance");
    }
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_posed_mesh a = posed(world, object_a), b = posed(world, object_b);
    glcollide_closest_pair closest;
    status =
        glcollide_bvh_closest_objects(&a, &b, glcollide_world_pair_scale(world, object_a, object_b),
                                      upper_bound, &world->distance, &closest);
    if (status != GLCOLLIDE_OK)
        return status;
    /* Surfaces apart: does one solid hold a part of the other? Then that
     * part's corner is a point of both solids (on the inner surface, inside
     * the outer), and the outer has no triangle there. */
    double inside[3];
    uint32_t triangle = GLCOLLIDE_NO_TRIANGLE;
    int b_in_a = 0, a_in_b = 0;
    if (!(closest.within && closest.distance == 0.0)) {
        b_in_a = glcollide_world_contains_part(world, object_a, object_b, inside, &triangle);
        if (!b_in_a)
            a_in_b = glcollide_world_contains_part(world, object_b, object_a, inside, &triangle);
    }
    if (b_in_a || a_in_b) {
        result->distance = 0.0;
        memcpy(result->point_a, inside, sizeof inside);
        memcpy(result->point_b, inside, sizeof inside);
        result->triangle_a = a_in_b ? triangle : GLCOLLIDE_NO_TRIANGLE;
        result->triangle_b = b_in_a ? triangle : GLCOLLIDE_NO_TRIANGLE;
        return GLCOLLIDE_OK;
    }
    if (!closest.within) {
        no_pair(result, closest.distance);
        return GLCOLLIDE_OK;
    }
    result->distance = closest.distance;
    memcpy(result->point_a, closest.point_a, sizeof closest.point_a);
    memcpy(result->point_b, closest.point_b, sizeof closest.point_b);
    result->triangle_a = closest.triangle_a;
    result->triangle_b = closest.triangle_b;
    return GLCOLLIDE_OK;
}

int glcollide_world_distance(glcollide_world *world, uint32_t object_a, uint32_t object_b,
                             double upper_bound, glcollide_distance_result *result)
{
    if (!result)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "distance: result is NULL");
    no_pair(result, NAN);
    int status = check_arguments(world, object_a, object_b, upper_bound);
    if (status != GLCOLLIDE_OK)
        return status;
    if (object_a < object_b)
        return ordered_distance(world, object_a, object_b, upper_bound, result);
    /* Measured in one order, so that (a, b) and (b, a) give the same
     * numbers to the last bit. */
    glcollide_distance_result swapped;
    no_pair(&swapped, NAN);
    status = ordered_distance(world, object_b, object_a, upper_bound, &swapped);
    result->distance = swapped.distance;
    memcpy(result->point_a, swapped.point_b, sizeof result->point_a);
    memcpy(result->point_b, swapped.point_a, sizeof result->point_b);
    result->triangle_a = swapped.triangle_b;
    result->triangle_b = swapped.triangle_a;
    return status;
}
