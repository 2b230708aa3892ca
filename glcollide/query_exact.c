/* SPDX-License-Identifier: MIT */
/*
 * The exact CPU oracle. Objects pair when their solids touch: some triangle
 * pair intersects (exact predicates), or, for two closed meshes whose surfaces
 * do not meet, one contains a vertex of a connected part of the other (then
 * it contains all of that part). A solid is where its closed surface winds
 * (nonzero winding number, glcollide_point_in_mesh): for a mesh that passes
 * through itself, its overlaps too.
 * With distance D > 0, surfaces closer than D (distance <= D) also pair.
 * Candidates come from sweep-and-prune on object boxes and a BVH per object.
 */
#include "query.h"

typedef struct exact_pair {
    const glcollide_world_mesh *a, *b;
    uint32_t object_a, object_b;
    double distance;
    int all_triangles; /* keep going after the first hit (triangle level) */
    int found;
    int status;
    glcollide_query_result *result;
    size_t *triangle_capacity;
} exact_pair;

static const double *vertex(const glcollide_world_mesh *w, uint32_t triangle, int corner)
{
    return w->positions + 3 * (size_t)w->mesh->triangles[3 * (size_t)triangle + corner];
}

/* Triangles (corners a0 a1 a2 b0 b1 b2) at most distance apart, measured
 * where the six corners lie in [-1, 1]: the squares and products inside
 * neither overflow nor underflow, whatever the scene's scale (the overlap
 * test needs none of this: its predicates are exact for any double). */
static int within_distance(const double *const corners[6], double distance)
{
    glcollide_aabb box;
    glcollide_aabb_empty(&box);
    for (int i = 0; i < 6; i++)
        glcollide_aabb_add_point(&box, corners[i]);
    double origin[3], scale, p[6][3];
    glcollide_frame_fit(&box, origin, &scale);
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 3; k++)
            p[i][k] = (corners[i][k] - origin[k]) * scale;
    return glcollide_tri_tri_distance(p[0], p[1], p[2], p[3], p[4], p[5], NULL, NULL) <=
           distance * scale;
}

static int test_triangles(uint32_t ta, uint32_t tb, void *user)
{
    exact_pair *pair = user;
    pair->result->stats.triangle_tests++;
    const double *a0 = vertex(pair->a, ta, 0), *a1 = vertex(pair->a, ta, 1),
                 *a2 = vertex(pair->a, ta, 2);
    const double *b0 = vertex(pair->b, tb, 0), *b1 = vertex(pair->b, tb, 1),
                 *b2 = vertex(pair->b, tb, 2);
    const double *corners[6] = {a0, a1, a2, b0, b1, b2};
    int hit = pair->distance > 0 ? within_distance(corners, pair->distance)
                                 : glcollide_tri_tri_overlap(a0, a1, a2, b0, b1, b2);
    if (!hit)
        return 0;
    pair->found = 1;
    if (!pair->all_triangles)
        return 1;
    pair->status = glcollide_result_add_triangle_pair(pair->result, pair->triangle_capacity,
                                                      pair->object_a, ta, pair->object_b, tb);
    return pair->status != GLCOLLIDE_OK;
}

/* Some part of inner inside or on the closed mesh outer: one vertex per
 * connected part decides for all of it, since the surfaces do not meet. */
static int contains_part(const glcollide_world_mesh *outer, const glcollide_world_mesh *inner)
{
    if (!outer->closed || inner->mesh->triangle_count == 0 || outer->mesh->triangle_count == 0)
        return 0;
    /* An open inner mesh has no parts listed: its first vertex stands for it. */
    const uint32_t first = inner->mesh->triangles[0];
    const uint32_t *parts = inner->shell_count ? inner->shell_vertices : &first;
    size_t count = inner->shell_count ? inner->shell_count : 1;
    for (size_t i = 0; i < count; i++) {
        const double *p = inner->positions + 3 * (size_t)parts[i];
        if (glcollide_aabb_overlap(&outer->bounds,
                                   &(glcollide_aabb){{p[0], p[1], p[2]}, {p[0], p[1], p[2]}}) &&
            glcollide_point_in_mesh(outer->positions, outer->mesh->triangles,
                                    outer->mesh->triangle_count, outer->bvh, p))
            return 1;
    }
    return 0;
}

int glcollide_query_exact(const glcollide_world *world, const glcollide_query_options *options,
                          glcollide_query_result *result)
{
    glcollide_pair_list candidates = {0};
    int status = glcollide_sap_pairs(world->bounds, world->object_count, options->distance / 2,
                                     &candidates);
    if (status != GLCOLLIDE_OK)
        return status;
    result->stats.aabb_pairs = candidates.count;
    size_t pair_capacity = 0, triangle_capacity = 0;
    for (size_t k = 0; k < candidates.count && status == GLCOLLIDE_OK; k++) {
        uint32_t i = candidates.pairs[k].a, j = candidates.pairs[k].b;
        exact_pair pair = {
            .a = &world->objects[i],
            .b = &world->objects[j],
            .object_a = i,
            .object_b = j,
            .distance = options->distance,
            .all_triangles = options->level == GLCOLLIDE_LEVEL_TRIANGLES,
            .result = result,
            .triangle_capacity = &triangle_capacity,
        };
        uint64_t tests_before = result->stats.triangle_tests;
        glcollide_bvh_overlap(pair.a->bvh, pair.b->bvh, options->distance / 2, test_triangles, &pair);
        result->stats.candidates += result->stats.triangle_tests - tests_before;
        status = pair.status;
        if (status == GLCOLLIDE_OK && !pair.found)
            pair.found = contains_part(pair.a, pair.b) || contains_part(pair.b, pair.a);
        if (status == GLCOLLIDE_OK && pair.found)
            status = glcollide_result_add_pair(result, &pair_capacity, i, j);
    }
    glcollide_pair_list_release(&candidates);
    return status;
}
