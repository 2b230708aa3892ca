/* SPDX-License-Identifier: MIT */
/*
 * Sweep-and-prune as a query method: the candidates an AABB broad phase would
 * hand on. Object pairs are overlaps of the boxes of the objects' world
 * positions (each box grown by D/2); triangle pairs are the triangle-box
 * overlaps within those object pairs. The baseline the culling methods'
 * efficiency is measured against.
 */
#include "methods/query.h"

int glcollide_query_sap(glcollide_world *world, const glcollide_query_options *options,
                        glcollide_query_result *result)
{
    const glcollide_aabb *boxes = NULL;
    int status = glcollide_world_exact_boxes(world, &boxes);
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_pair_list *pairs = &world->pairs;
    status = glcollide_query_box_pairs(options, boxes, world->object_count, options->distance / 2,
                                       pairs, &world->workspace);
    if (status != GLCOLLIDE_OK)
        return status;
    result->stats.aabb_pairs = pairs->count;
    int triangle_level = options->level == GLCOLLIDE_LEVEL_TRIANGLES;
    const glcollide_world_space *space = NULL;
    if (triangle_level && pairs->count)
        status = glcollide_world_space_get(world, &space);
    for (size_t k = 0; k < pairs->count && status == GLCOLLIDE_OK; k++) {
        uint32_t i = pairs->pairs[k].a, j = pairs->pairs[k].b;
        status = glcollide_result_add_pair(result, i, j);
        if (status == GLCOLLIDE_OK && triangle_level)
            status = glcollide_world_space_triangle_pairs(space, NULL, i, j, options->distance / 2,
                                                          result, &world->scratch);
    }
    result->stats.candidates = triangle_level ? result->triangle_pair_count : pairs->count;
    return status;
}
