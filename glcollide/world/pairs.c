/* SPDX-License-Identifier: MIT */
/*
 * A method's per-object-pair stage on the workers: each candidate pair is
 * one task, answering whether the pair is found and appending its triangle
 * pairs to its worker's part of the result. Pairs found are appended in the
 * candidates' order and the parts after them; the query then sorts and
 * groups its result (glcollide_result_group), so the answer is the same for
 * any number of threads, and counters are sums.
 */
#include "world/world.h"

#include <stdlib.h>
#include <string.h>

int glcollide_query_check_pairs(const glcollide_query_options *options, size_t object_count)
{
    if (!options->pairs) {
        if (options->pair_count)
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                                  "query: %zu pairs given but pairs is NULL", options->pair_count);
        return GLCOLLIDE_OK;
    }
    for (size_t k = 0; k < options->pair_count; k++) {
        const glcollide_index_pair *p = &options->pairs[k];
        if (!(p->a < p->b) || p->b >= object_count)
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                                  "query: pair %zu (%u, %u) is not (a, b) with a < b < %zu "
                                  "objects",
                                  k, p->a, p->b, object_count);
        if (k && glcollide_index_pair_compare(&options->pairs[k - 1], p) >= 0)
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                                  "query: pair %zu (%u, %u) does not follow pair %zu (%u, %u): "
                                  "pairs must be sorted by (a, b), none twice",
                                  k, p->a, p->b, k - 1, options->pairs[k - 1].a,
                                  options->pairs[k - 1].b);
    }
    return GLCOLLIDE_OK;
}

int glcollide_query_box_pairs(const glcollide_query_options *options, const glcollide_aabb *boxes,
                              size_t count, double margin, glcollide_pair_list *pairs,
                              glcollide_workspace *workspace)
{
    pairs->count = 0;
    if (!options->pairs)
        return glcollide_sap_pairs_ws(boxes, count, margin, pairs, workspace);
    for (size_t k = 0; k < options->pair_count; k++) {
        uint32_t a = options->pairs[k].a, b = options->pairs[k].b;
        if (glcollide_aabb_overlap_grown(&boxes[a], &boxes[b], margin) &&
            glcollide_pair_list_push(pairs, a, b) != GLCOLLIDE_OK)
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    }
    return GLCOLLIDE_OK;
}

int glcollide_query_pair_given(const glcollide_query_options *options, uint32_t a, uint32_t b)
{
    glcollide_index_pair key = {a, b};
    return !options->pairs || bsearch(&key, options->pairs, options->pair_count, sizeof key,
                                      glcollide_index_pair_compare) != NULL;
}

typedef struct pairs_job {
    const glcollide_pair_list *pairs;
    glcollide_world_pair_fn fn;
    void *user;
    glcollide_query_result *parts;
    int *outcomes; /* per pair: 1 found, 0 not, else a status */
} pairs_job;

static void pair_task(void *user, size_t k, int worker)
{
    pairs_job *job = user;
    int found = 0;
    int status = job->fn(job->user, job->pairs->pairs[k].a, job->pairs->pairs[k].b, worker,
                         &job->parts[worker], &found);
    job->outcomes[k] = status != GLCOLLIDE_OK ? status : found != 0;
}

/* Appends part's triangle pairs to result and adds its counters. */
static int merge_part(glcollide_query_result *result, const glcollide_query_result *part)
{
    int status =
        glcollide_array_reserve((void **)&result->triangle_pairs, &result->triangle_pair_capacity,
                                result->triangle_pair_count + part->triangle_pair_count,
                                sizeof *result->triangle_pairs, "query");
    if (status != GLCOLLIDE_OK)
        return status;
    memcpy(result->triangle_pairs + result->triangle_pair_count, part->triangle_pairs,
           part->triangle_pair_count * sizeof *part->triangle_pairs);
    result->triangle_pair_count += part->triangle_pair_count;
    result->stats.candidates += part->stats.candidates;
    result->stats.triangle_tests += part->stats.triangle_tests;
    return GLCOLLIDE_OK;
}

int glcollide_world_pairs_run(glcollide_world *world, const glcollide_pair_list *pairs, int threads,
                              glcollide_world_pair_fn fn, void *user,
                              glcollide_query_result *result)
{
    if (threads <= 0)
        threads = glcollide_workers_count();
    if ((size_t)threads > pairs->count)
        threads = (int)pairs->count;
    int status = GLCOLLIDE_OK;
    if (threads <= 1) {
        for (size_t k = 0; k < pairs->count && status == GLCOLLIDE_OK; k++) {
            int found = 0;
            uint32_t i = pairs->pairs[k].a, j = pairs->pairs[k].b;
            status = fn(user, i, j, 0, result, &found);
            if (status == GLCOLLIDE_OK && found)
                status = glcollide_result_add_pair(result, i, j);
        }
        return status;
    }
    if ((size_t)threads > world->part_count) {
        glcollide_query_result *parts =
            glcollide_realloc_array(world->parts, (size_t)threads, sizeof *parts);
        if (!parts)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                                  "query: out of memory for %d threads' results", threads);
        memset(parts + world->part_count, 0, ((size_t)threads - world->part_count) * sizeof *parts);
        world->parts = parts;
        world->part_count = (size_t)threads;
    }
    if ((status = glcollide_array_reserve((void **)&world->outcomes, &world->outcome_capacity,
                                          pairs->count, sizeof *world->outcomes, "query")))
        return status;
    for (int w = 0; w < threads; w++)
        glcollide_result_reset(&world->parts[w]);
    pairs_job job = {pairs, fn, user, world->parts, world->outcomes};
    glcollide_workers_run(pairs->count, threads, pair_task, &job);
    for (size_t k = 0; k < pairs->count && status == GLCOLLIDE_OK; k++) {
        if (job.outcomes[k] < 0)
            status = job.outcomes[k]; /* logged by the task */
        else if (job.outcomes[k])
            status = glcollide_result_add_pair(result, pairs->pairs[k].a, pairs->pairs[k].b);
    }
    for (int w = 0; w < threads && status == GLCOLLIDE_OK; w++)
        status = merge_part(result, &world->parts[w]);
    return status;
}
