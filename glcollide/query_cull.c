/* SPDX-License-Identifier: MIT */
/*
 * The culling methods as queries (CULLIDE, FAR).
 * Objects: sweep-and-prune on the object boxes, then GPU culling of the
 * objects that pair, drawn whole (object PCS); pairs of the PCS by
 * sweep-and-prune.
 * Triangles: sweep-and-prune, then the triangles that overlap the box of an
 * object they pair with, culled on the GPU at triangle level; for each object
 * pair, the PCS triangles of one against those of the other whose boxes
 * overlap (grown by D/2) are the candidates handed to exact tests, and the
 * object pairs reported are those with candidates.
 */
#include "cull.h"
#include "query.h"

#include <stdlib.h>
#include <string.h>

/*
 * The triangles that can touch another object at all: those whose box
 * overlaps the box of an object they pair with (boxes grown by margin). A
 * cheap CPU cut before the GPU: in a pile, only the contact regions remain.
 */
static void overlap_prefilter(const glcollide_world_space *world, const glcollide_pair_list *pairs,
                              double margin, unsigned char **flags)
{
    for (size_t k = 0; k < pairs->count; k++) {
        for (int side = 0; side < 2; side++) {
            uint32_t self = side ? pairs->pairs[k].b : pairs->pairs[k].a;
            uint32_t other = side ? pairs->pairs[k].a : pairs->pairs[k].b;
            const glcollide_world_mesh *w = &world->objects[self];
            glcollide_aabb region = world->bounds[other];
            for (int c = 0; c < 3; c++) {
                region.min[c] -= 2 * margin;
                region.max[c] += 2 * margin;
            }
            for (size_t t = 0; t < w->mesh->triangle_count; t++) {
                if (flags[self][t])
                    continue;
                glcollide_aabb box;
                glcollide_aabb_empty(&box);
                for (int c = 0; c < 3; c++)
                    glcollide_aabb_add_point(&box, w->positions + 3 * (size_t)w->mesh->triangles[3 * t + c]);
                flags[self][t] = glcollide_aabb_overlap(&box, &region);
            }
        }
    }
}

int glcollide_query_cull(glcollide_world *persistent, glcollide_context *context,
                         const glcollide_query_options *options, int reliable,
                         glcollide_query_result *result)
{
    const glcollide_world_space *world = NULL;
    int status = glcollide_world_space_get(persistent, &world);
    if (status != GLCOLLIDE_OK)
        return status;
    size_t n = world->object_count;
    double margin = options->distance / 2;
    glcollide_pair_list pairs = {0};
    status = glcollide_sap_pairs(world->bounds, n, margin, &pairs);
    if (status != GLCOLLIDE_OK)
        return status;
    result->stats.aabb_pairs = pairs.count;
    unsigned char **flags = calloc(n ? n : 1, sizeof *flags);
    unsigned char *in_pair = calloc(n ? n : 1, 1);
    if (!flags || !in_pair)
        status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "query: out of memory");
    for (size_t k = 0; k < pairs.count && status == GLCOLLIDE_OK; k++)
        in_pair[pairs.pairs[k].a] = in_pair[pairs.pairs[k].b] = 1;
    for (size_t o = 0; o < n && status == GLCOLLIDE_OK; o++) {
        size_t triangles = world->objects[o].mesh->triangle_count;
        if (!(flags[o] = calloc(triangles ? triangles : 1, 1)))
            status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "query: out of memory");
    }
    int triangle_level = options->level == GLCOLLIDE_LEVEL_TRIANGLES;
    if (status == GLCOLLIDE_OK && triangle_level)
        overlap_prefilter(world, &pairs, margin, flags);
    if (status == GLCOLLIDE_OK) {
        /* Objects: one round of the three views over whole objects.
         * Triangles: two rounds over the triangles that can touch another
         * object's box; the second round still removes a quarter of the
         * candidates on the bunny scene. */
        glcollide_cull_options cull = {
            .reliable = reliable,
            .resolution = options->resolution,
            .distance = options->distance,
            .object_round = !triangle_level,
            .triangle_rounds = triangle_level ? 2 : 0,
        };
        /* in_pair becomes the object PCS. */
        status = glcollide_cull_triangles(context, world, &cull, in_pair, flags, &result->stats);
    }
    for (size_t k = 0; k < pairs.count && status == GLCOLLIDE_OK; k++) {
        uint32_t i = pairs.pairs[k].a, j = pairs.pairs[k].b;
        if (!in_pair[i] || !in_pair[j])
            continue;
        /* Objects: pairs of the object PCS. Triangles: pairs that have
         * candidate triangle pairs (containment without surface contact is
         * an object-level question). */
        size_t before = result->triangle_pair_count;
        if (triangle_level)
            status = glcollide_world_space_triangle_pairs(world, flags, i, j, margin, result,
                                                          &persistent->scratch);
        if (status == GLCOLLIDE_OK && (!triangle_level || result->triangle_pair_count > before))
            status = glcollide_result_add_pair(result, i, j);
    }
    result->stats.candidates = options->level == GLCOLLIDE_LEVEL_TRIANGLES
                                   ? result->triangle_pair_count
                                   : result->pair_count;
    for (size_t o = 0; flags && o < n; o++)
        free(flags[o]);
    free(flags);
    free(in_pair);
    glcollide_pair_list_release(&pairs);
    return status;
}
