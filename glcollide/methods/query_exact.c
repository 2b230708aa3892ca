/* SPDX-License-Identifier: MIT */
/*
 * The exact CPU oracle. Objects pair when their solids touch: some triangle
 * pair intersects (exact predicates), or, for two closed meshes whose surfaces
 * do not meet, one contains a vertex of a connected part of the other (then
 * it contains all of that part). A solid is where its closed surface winds
 * (nonzero winding number, glcollide_point_in_mesh): for a mesh that passes
 * through itself, its overlaps too.
 * With distance D > 0, surfaces at most D apart also pair: those whose
 * glcollide_world_distance is at most D (the same triangle distances on the
 * same coordinates decide).
 *
 * On the persistent world: candidates come from sweep-and-prune on the
 * objects' boxes and the two meshes' object-space BVHs placed by their poses
 * (no world copy of any mesh); only the triangles of candidate pairs are
 * placed in world space, as glcollide_pose_transform_points places them,
 * so the exact tests see the same coordinates as on world positions.
 */
#include "methods/query.h"

#include <math.h>

typedef struct exact_pair {
    const glcollide_mesh *a, *b;
    const glcollide_object *pose_a, *pose_b;
    double ma[9], mb[9]; /* rotations */
    uint32_t object_a, object_b;
    double distance;
    double scale;      /* glcollide_world_pair_scale */
    int all_triangles; /* keep going after the first hit (triangle level) */
    int found;
    int status;
    glcollide_query_result *result;
} exact_pair;

/* The corners of triangle t of mesh placed by pose (rotation m). */
static void place_triangle(const glcollide_mesh *mesh, const glcollide_object *pose,
                           const double m[9], uint32_t t, double corners[3][3])
{
    for (int c = 0; c < 3; c++)
        glcollide_place_point(&pose->pose, m,
                              mesh->positions + 3 * (size_t)mesh->triangles[3 * (size_t)t + c],
                              corners[c]);
}

/* Triangles a and b (world corners) at most distance apart, measured as
 * glcollide_world_distance measures them: at the pair's scale (1 but
 * beyond 2^+-500, glcollide_world_pair_scale), by the same triangle
 * distance, so that the pairs found here are those whose distance is at
 * most D (the overlap test needs none of this: its predicates are exact
 * for any double). Thread-safe: the exact method's pairs run on the
 * workers. */
static int within_distance(const exact_pair *pair, double a[3][3], double b[3][3])
{
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++) {
            a[c][k] *= pair->scale;
            b[c][k] *= pair->scale;
        }
    glcollide_prepared_triangle ta, tb;
    glcollide_triangle_prepare(&ta, a[0], a[1], a[2]);
    glcollide_triangle_prepare(&tb, b[0], b[1], b[2]);
    double pa[3], pb[3];
    double limit = pair->distance * pair->scale;
    return glcollide_triangle_closest(&ta, &tb, nextafter(limit, INFINITY), pa, pb) <= limit;
}

static int test_triangles(uint32_t ta, uint32_t tb, void *user)
{
    exact_pair *pair = user;
    pair->result->stats.triangle_tests++;
    double a[3][3], b[3][3];
    place_triangle(pair->a, pair->pose_a, pair->ma, ta, a);
    place_triangle(pair->b, pair->pose_b, pair->mb, tb, b);
    int hit = pair->distance > 0 ? within_distance(pair, a, b)
                                 : glcollide_tri_tri_overlap(a[0], a[1], a[2], b[0], b[1], b[2]);
    if (!hit)
        return 0;
    pair->found = 1;
    if (!pair->all_triangles)
        return 1;
    pair->status =
        glcollide_result_add_triangle_pair(pair->result, pair->object_a, ta, pair->object_b, tb);
    return pair->status != GLCOLLIDE_OK;
}

int glcollide_query_exact_pair(glcollide_world *world, uint32_t i, uint32_t j, double distance,
                               int all_triangles, glcollide_query_result *result, int *found)
{
    exact_pair pair = {
        .a = world->meshes[world->objects[i].mesh].mesh,
        .b = world->meshes[world->objects[j].mesh].mesh,
        .pose_a = &world->objects[i],
        .pose_b = &world->objects[j],
        .object_a = i,
        .object_b = j,
        .distance = distance,
        .scale = glcollide_world_pair_scale(world, i, j),
        .all_triangles = all_triangles,
        .result = result,
    };
    glcollide_pose_rotation_matrix(&pair.pose_a->pose, pair.ma);
    glcollide_pose_rotation_matrix(&pair.pose_b->pose, pair.mb);
    uint64_t tests_before = result->stats.triangle_tests;
    glcollide_bvh_overlap_posed(world->meshes[pair.pose_a->mesh].bvh, &pair.pose_a->pose,
                                world->meshes[pair.pose_b->mesh].bvh, &pair.pose_b->pose,
                                distance / 2, test_triangles, &pair);
    result->stats.candidates += result->stats.triangle_tests - tests_before;
    if (pair.status == GLCOLLIDE_OK && !pair.found)
        pair.found = glcollide_world_contains_part(world, i, j, NULL, NULL) ||
                     glcollide_world_contains_part(world, j, i, NULL, NULL);
    *found = pair.status == GLCOLLIDE_OK && pair.found;
    return pair.status;
}

typedef struct exact_job {
    glcollide_world *world;
    double distance;
    int all_triangles;
} exact_job;

static int exact_task(void *user, uint32_t i, uint32_t j, int worker, glcollide_query_result *into,
                      int *found)
{
    (void)worker;
    const exact_job *job = user;
    return glcollide_query_exact_pair(job->world, i, j, job->distance, job->all_triangles, into,
                                      found);
}

int glcollide_query_exact(glcollide_world *world, const glcollide_query_options *options,
                          glcollide_query_result *result)
{
    int status = glcollide_world_prepare(world, GLCOLLIDE_WORLD_BVH | GLCOLLIDE_WORLD_SOLIDS);
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_pair_list *candidates = &world->pairs;
    status = glcollide_query_box_pairs(options, world->boxes, world->object_count,
                                       options->distance / 2, candidates, &world->workspace);
    if (status != GLCOLLIDE_OK)
        return status;
    result->stats.aabb_pairs = candidates->count;
    /* Each pair reads the prepared world alone: the pairs run on the workers. */
    exact_job job = {world, options->distance, options->level == GLCOLLIDE_LEVEL_TRIANGLES};
    return glcollide_world_pairs_run(world, candidates, options->threads, exact_task, &job, result);
}
