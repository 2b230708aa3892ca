/* SPDX-License-Identifier: MIT */
/*
 * The exact CPU oracle. Objects pair when their solids touch: some triangle
 * pair intersects (exact predicates), or, for two closed meshes whose surfaces
 * do not meet, one contains a vertex of a connected part of the other (then
 * it contains all of that part). A solid is where its closed surface winds
 * (nonzero winding number, glcollide_point_in_mesh): for a mesh that passes
 * through itself, its overlaps too.
 * With distance D > 0, surfaces closer than D (distance <= D) also pair.
 *
 * On the persistent world: candidates come from sweep-and-prune on the
 * objects' boxes and the two meshes' object-space BVHs placed by their poses
 * (no world copy of any mesh); only the triangles of candidate pairs are
 * placed in world space, as glcollide_pose_transform_points places them,
 * so the exact tests see the same coordinates as on world positions.
 */
#include "methods/query.h"

typedef struct exact_pair {
    const glcollide_mesh *a, *b;
    const glcollide_object *pose_a, *pose_b;
    double ma[9], mb[9]; /* rotations */
    uint32_t object_a, object_b;
    double distance;
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
    double a[3][3], b[3][3];
    place_triangle(pair->a, pair->pose_a, pair->ma, ta, a);
    place_triangle(pair->b, pair->pose_b, pair->mb, tb, b);
    const double *corners[6] = {a[0], a[1], a[2], b[0], b[1], b[2]};
    int hit = pair->distance > 0 ? within_distance(corners, pair->distance)
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

/* Some part of object inner inside or on the closed mesh of object outer:
 * one vertex per connected part decides for all of it, since the surfaces
 * do not meet. */
static int contains_part(const glcollide_world *world, uint32_t outer, uint32_t inner)
{
    const glcollide_object *pose_o = &world->objects[outer], *pose_i = &world->objects[inner];
    const glcollide_world_mesh_entry *o = &world->meshes[pose_o->mesh];
    const glcollide_world_mesh_entry *in = &world->meshes[pose_i->mesh];
    if (o->solid != 1 || in->mesh->triangle_count == 0 || o->mesh->triangle_count == 0)
        return 0;
    /* An open inner mesh has no parts listed: its first vertex stands for it. */
    const uint32_t first = in->mesh->triangles[0];
    const uint32_t *parts = in->shell_count ? in->shells : &first;
    size_t count = in->shell_count ? in->shell_count : 1;
    double m[9];
    glcollide_pose_rotation_matrix(&pose_i->pose, m);
    for (size_t i = 0; i < count; i++) {
        double p[3];
        glcollide_place_point(&pose_i->pose, m, in->mesh->positions + 3 * (size_t)parts[i], p);
        if (glcollide_aabb_overlap(&world->boxes[outer],
                                   &(glcollide_aabb){{p[0], p[1], p[2]}, {p[0], p[1], p[2]}}) &&
            glcollide_point_in_posed_mesh(o->mesh, o->bvh, &pose_o->pose, &world->boxes[outer], p))
            return 1;
    }
    return 0;
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
        pair.found = contains_part(world, i, j) || contains_part(world, j, i);
    *found = pair.status == GLCOLLIDE_OK && pair.found;
    return pair.status;
}

typedef struct exact_job {
    glcollide_world *world;
    double distance;
    int all_triangles;
} exact_job;

static int exact_task(void *user, uint32_t i, uint32_t j, int worker,
                      glcollide_query_result *into, int *found)
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
    candidates->count = 0;
    status = glcollide_sap_pairs_ws(world->boxes, world->object_count, options->distance / 2,
                                    candidates, &world->workspace);
    if (status != GLCOLLIDE_OK)
        return status;
    result->stats.aabb_pairs = candidates->count;
    /* Each pair reads the prepared world alone: the pairs run on the workers. */
    exact_job job = {world, options->distance, options->level == GLCOLLIDE_LEVEL_TRIANGLES};
    return glcollide_world_pairs_run(world, candidates, options->threads, exact_task, &job, result);
}
