/* SPDX-License-Identifier: MIT */
/*
 * Sweep-and-prune as a query method: the candidates an AABB broad phase would
 * hand on. Object pairs are box overlaps (each box grown by D/2); triangle
 * pairs are the triangle-box overlaps within those object pairs. The baseline
 * the culling methods' efficiency is measured against.
 */
#include "query.h"

typedef struct sap_pair {
    uint32_t object_a, object_b;
    glcollide_query_result *result;
    size_t *capacity;
    int status;
} sap_pair;

static int add_candidate(uint32_t ta, uint32_t tb, void *user)
{
    sap_pair *pair = user;
    pair->status = glcollide_result_add_triangle_pair(pair->result, pair->capacity, pair->object_a,
                                                      ta, pair->object_b, tb);
    return pair->status != GLCOLLIDE_OK;
}

int glcollide_query_sap(const glcollide_world *world, const glcollide_query_options *options,
                        glcollide_query_result *result)
{
    glcollide_pair_list pairs = {0};
    int status =
        glcollide_sap_pairs(world->bounds, world->object_count, options->distance / 2, &pairs);
    if (status != GLCOLLIDE_OK)
        return status;
    result->stats.aabb_pairs = pairs.count;
    size_t pair_capacity = 0, triangle_capacity = 0;
    for (size_t k = 0; k < pairs.count && status == GLCOLLIDE_OK; k++) {
        uint32_t i = pairs.pairs[k].a, j = pairs.pairs[k].b;
        status = glcollide_result_add_pair(result, &pair_capacity, i, j);
        if (status != GLCOLLIDE_OK || options->level != GLCOLLIDE_LEVEL_TRIANGLES)
            continue;
        sap_pair pair = {i, j, result, &triangle_capacity, GLCOLLIDE_OK};
        glcollide_bvh_overlap(world->objects[i].bvh, world->objects[j].bvh, options->distance / 2,
                              add_candidate, &pair);
        status = pair.status;
    }
    result->stats.candidates =
        options->level == GLCOLLIDE_LEVEL_TRIANGLES ? result->triangle_pair_count : pairs.count;
    glcollide_pair_list_release(&pairs);
    return status;
}
