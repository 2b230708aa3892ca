/* SPDX-License-Identifier: MIT */
/* Query dispatch: every method on the world. */
#include "methods/query.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const method_names[] = {"exact", "sap", "cullide", "far", "stencil", "convex"};
#define METHOD_COUNT (int)(sizeof method_names / sizeof method_names[0])

int glcollide_method_from_name(const char *name, glcollide_method *method)
{
    for (int i = 0; name && method && i < METHOD_COUNT; i++)
        if (strcmp(name, method_names[i]) == 0) {
            *method = (glcollide_method)i;
            return GLCOLLIDE_OK;
        }
    return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                          "query: unknown method '%s' (exact, sap, cullide, far, stencil, convex)",
                          name ? name : "(null)");
}

const char *glcollide_method_name(glcollide_method method)
{
    return (int)method >= 0 && (int)method < METHOD_COUNT ? method_names[method] : "unknown";
}

glcollide_query_options glcollide_query_default_options(void)
{
    /* 1024: the thesis's and FAR's experiments run at 1K-1.4K pixels; the
     * image-space methods document their own tolerance in pixels of it. */
    glcollide_query_options options = {
        .method = GLCOLLIDE_METHOD_EXACT,
        .level = GLCOLLIDE_LEVEL_OBJECTS,
        .resolution = 1024,
        .distance = 0.0,
        .threads = 0,
    };
    return options;
}

/* The options' own checks, before any method runs. */
static int check_options(const glcollide_query_options *options, const glcollide_context *context)
{
    if (!(options->distance >= 0) || !isfinite(options->distance))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "query: distance must be finite and >= 0, got %g", options->distance);
    if (options->level != GLCOLLIDE_LEVEL_OBJECTS && options->level != GLCOLLIDE_LEVEL_TRIANGLES)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "query: unknown level %d",
                              (int)options->level);
    if (options->threads < 0 || options->threads > GLCOLLIDE_WORKERS_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "query: threads %d outside 0..%d",
                              options->threads, GLCOLLIDE_WORKERS_MAX);
    if (options->resolution < 16 || options->resolution > 16384)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "query: resolution %d outside 16..16384", options->resolution);
    switch (options->method) {
    case GLCOLLIDE_METHOD_EXACT:
    case GLCOLLIDE_METHOD_SAP: return GLCOLLIDE_OK;
    case GLCOLLIDE_METHOD_CULLIDE:
    case GLCOLLIDE_METHOD_FAR:
    case GLCOLLIDE_METHOD_STENCIL:
    case GLCOLLIDE_METHOD_CONVEX:
        if (!context)
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                                  "query: method '%s' runs on the GPU and needs a context",
                                  glcollide_method_name(options->method));
        return GLCOLLIDE_OK;
    }
    return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "query: unknown method %d",
                          (int)options->method);
}

static int run_method(glcollide_world *world, glcollide_context *context,
                      const glcollide_query_options *options, glcollide_query_result *result)
{
    switch (options->method) {
    case GLCOLLIDE_METHOD_EXACT: return glcollide_query_exact(world, options, result);
    case GLCOLLIDE_METHOD_SAP: return glcollide_query_sap(world, options, result);
    case GLCOLLIDE_METHOD_CULLIDE: return glcollide_query_cull(world, context, options, 0, result);
    case GLCOLLIDE_METHOD_FAR: return glcollide_query_cull(world, context, options, 1, result);
    case GLCOLLIDE_METHOD_STENCIL: return glcollide_query_stencil(world, context, options, result);
    case GLCOLLIDE_METHOD_CONVEX: return glcollide_query_convex(world, context, options, result);
    }
    return GLCOLLIDE_ERROR_INVALID_ARGUMENT; /* refused by check_options */
}

int glcollide_world_query(glcollide_world *world, glcollide_context *context,
                          const glcollide_query_options *options, glcollide_query_result *result)
{
    if (!result)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "query: result is NULL");
    glcollide_result_reset(result);
    if (!world || !options)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "query: world or options is NULL");
    int status = check_options(options, context);
    if (status == GLCOLLIDE_OK)
        status = glcollide_query_check_pairs(options, world->object_count);
    if (status != GLCOLLIDE_OK)
        return status;
    double start = glcollide_now_ms();
    status = run_method(world, context, options, result);
    if (status == GLCOLLIDE_OK)
        status = glcollide_result_group(result);
    if (status != GLCOLLIDE_OK) {
        glcollide_result_reset(result);
        return status;
    }
    result->stats.time_ms = glcollide_now_ms() - start;
    return GLCOLLIDE_OK;
}
