/* SPDX-License-Identifier: MIT */
/* Query dispatch, the world-space scene, and result arrays. */
#include "convex.h"
#include "query.h"
#include "stencil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const method_names[] = {"exact", "sap", "cullide", "far", "stencil", "convex"};
#define METHOD_COUNT (int)(sizeof method_names / sizeof method_names[0])

int glcollide_method_from_name(const char *name)
{
    for (int i = 0; name && i < METHOD_COUNT; i++)
        if (strcmp(name, method_names[i]) == 0)
            return i;
    return -1;
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
    };
    return options;
}

void glcollide_world_release(glcollide_world *world)
{
    for (size_t i = 0; world->objects && i < world->object_count; i++) {
        free(world->objects[i].positions);
        glcollide_bvh_destroy(&world->objects[i].bvh);
    }
    free(world->objects);
    free(world->bounds);
    for (size_t m = 0; world->shells && m < world->mesh_count; m++)
        free(world->shells[m]);
    free(world->shells);
    memset(world, 0, sizeof *world);
}

/*
 * A vertex of each vertex-connected part of mesh, and how many parts: a
 * solid may be inside another in one part and not in the others (and where
 * the parts of one closed mesh pass through each other, the solid is where
 * they wind), so containment is asked once per part. Union-find.
 */
static int mesh_shells(const glcollide_mesh *mesh, uint32_t **shells, size_t *count)
{
    size_t n = mesh->vertex_count;
    uint32_t *parent = glcollide_alloc_array(n ? n : 1, sizeof *parent);
    *shells = glcollide_alloc_array(n ? n : 1, sizeof **shells);
    *count = 0;
    if (!parent || !*shells) {
        free(parent);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "query: out of memory");
    }
    for (size_t v = 0; v < n; v++)
        parent[v] = (uint32_t)v;
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++) {
        uint32_t a = mesh->triangles[i], b = mesh->triangles[i - i % 3 + (i + 1) % 3];
        while (parent[a] != a)
            a = parent[a] = parent[parent[a]];
        while (parent[b] != b)
            b = parent[b] = parent[parent[b]];
        parent[a] = b;
    }
    /* Each root once: the first corner met in each part. */
    unsigned char *seen = calloc(n ? n : 1, 1);
    if (!seen) {
        free(parent);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "query: out of memory");
    }
    for (size_t i = 0; i < 3 * mesh->triangle_count; i += 3) {
        uint32_t r = mesh->triangles[i];
        while (parent[r] != r)
            r = parent[r];
        if (!seen[r]) {
            seen[r] = 1;
            (*shells)[(*count)++] = mesh->triangles[i];
        }
    }
    free(seen);
    free(parent);
    return GLCOLLIDE_OK;
}

int glcollide_world_build(const glcollide_scene *scene, unsigned what, glcollide_world *world)
{
    memset(world, 0, sizeof *world);
    world->scene = scene;
    size_t n = scene->object_count;
    int *closed = calloc(scene->mesh_count ? scene->mesh_count : 1, sizeof *closed);
    world->objects = calloc(n ? n : 1, sizeof *world->objects);
    world->bounds = glcollide_alloc_array(n, sizeof *world->bounds);
    if (!closed || !world->objects || !world->bounds) {
        free(closed);
        glcollide_world_release(world);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "query: out of memory");
    }
    world->object_count = n;
    int status = GLCOLLIDE_OK;
    size_t *shell_counts = NULL;
    if (what & GLCOLLIDE_WORLD_SOLIDS) {
        world->mesh_count = scene->mesh_count;
        world->shells = calloc(scene->mesh_count ? scene->mesh_count : 1, sizeof *world->shells);
        shell_counts = calloc(scene->mesh_count ? scene->mesh_count : 1, sizeof *shell_counts);
        if (!world->shells || !shell_counts)
            status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "query: out of memory");
    }
    /* Closedness once per mesh: containment is only meaningful for solids. */
    for (size_t m = 0; (what & GLCOLLIDE_WORLD_SOLIDS) && m < scene->mesh_count && status == GLCOLLIDE_OK;
         m++) {
        glcollide_mesh_report report;
        status = glcollide_mesh_validate(scene->meshes[m], &report);
        closed[m] = status == GLCOLLIDE_OK && report.closed;
        if (closed[m])
            status = mesh_shells(scene->meshes[m], &world->shells[m], &shell_counts[m]);
    }
    for (size_t i = 0; i < n && status == GLCOLLIDE_OK; i++) {
        const glcollide_object *object = &scene->objects[i];
        const glcollide_mesh *mesh = scene->meshes[object->mesh];
        glcollide_world_mesh *w = &world->objects[i];
        w->mesh = mesh;
        w->closed = closed[object->mesh];
        if (w->closed) {
            w->shell_vertices = world->shells[object->mesh];
            w->shell_count = shell_counts[object->mesh];
        }
        w->positions = glcollide_alloc_array(mesh->vertex_count * 3, sizeof(double));
        if (!w->positions) {
            status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "query: out of memory");
            break;
        }
        glcollide_object_transform_points(object, mesh->positions, mesh->vertex_count, w->positions);
        glcollide_aabb_empty(&w->bounds);
        for (size_t t = 0; t < 3 * mesh->triangle_count; t++)
            glcollide_aabb_add_point(&w->bounds, w->positions + 3 * (size_t)mesh->triangles[t]);
        world->bounds[i] = w->bounds;
        /* Positions may have been rewritten in place (deforming meshes):
         * a NaN would silently compare false everywhere downstream. */
        for (int k = 0; k < 3; k++)
            if (mesh->triangle_count && !(isfinite(w->bounds.min[k]) && isfinite(w->bounds.max[k])))
                status = glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                        "query: object %zu (mesh %s) has non-finite coordinates", i,
                                        mesh->name ? mesh->name : "?");
        if (status == GLCOLLIDE_OK && (what & GLCOLLIDE_WORLD_BVH))
            status = glcollide_bvh_build(w->positions, mesh->vertex_count, mesh->triangles,
                                         mesh->triangle_count, &w->bvh);
    }
    free(closed);
    free(shell_counts);
    if (status != GLCOLLIDE_OK)
        glcollide_world_release(world);
    return status;
}

int glcollide_result_add_pair(glcollide_query_result *result, size_t *capacity, uint32_t a,
                              uint32_t b)
{
    if (result->pair_count == *capacity) {
        size_t grown = *capacity ? 2 * *capacity : 64;
        glcollide_object_pair *pairs = glcollide_realloc_array(result->pairs, grown, sizeof *pairs);
        if (!pairs)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "query: out of memory");
        result->pairs = pairs;
        *capacity = grown;
    }
    result->pairs[result->pair_count++] = (glcollide_object_pair){a < b ? a : b, a < b ? b : a};
    return GLCOLLIDE_OK;
}

int glcollide_result_add_triangle_pair(glcollide_query_result *result, size_t *capacity,
                                       uint32_t object_a, uint32_t triangle_a, uint32_t object_b,
                                       uint32_t triangle_b)
{
    if (result->triangle_pair_count == *capacity) {
        size_t grown = *capacity ? 2 * *capacity : 256;
        glcollide_triangle_pair *pairs =
            glcollide_realloc_array(result->triangle_pairs, grown, sizeof *pairs);
        if (!pairs)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "query: out of memory");
        result->triangle_pairs = pairs;
        *capacity = grown;
    }
    glcollide_triangle_pair pair = {object_a, triangle_a, object_b, triangle_b};
    if (object_a > object_b)
        pair = (glcollide_triangle_pair){object_b, triangle_b, object_a, triangle_a};
    result->triangle_pairs[result->triangle_pair_count++] = pair;
    return GLCOLLIDE_OK;
}

int glcollide_object_pair_compare(const void *x, const void *y)
{
    const glcollide_object_pair *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

int glcollide_triangle_pair_compare(const void *x, const void *y)
{
    const glcollide_triangle_pair *a = x, *b = y;
    const uint32_t ka[4] = {a->object_a, a->triangle_a, a->object_b, a->triangle_b};
    const uint32_t kb[4] = {b->object_a, b->triangle_a, b->object_b, b->triangle_b};
    for (int k = 0; k < 4; k++)
        if (ka[k] != kb[k])
            return ka[k] < kb[k] ? -1 : 1;
    return 0;
}

void glcollide_result_sort(glcollide_query_result *result)
{
    if (result->pair_count > 1)
        qsort(result->pairs, result->pair_count, sizeof *result->pairs, glcollide_object_pair_compare);
    if (result->triangle_pair_count > 1)
        qsort(result->triangle_pairs, result->triangle_pair_count, sizeof *result->triangle_pairs,
              glcollide_triangle_pair_compare);
}

void glcollide_query_result_clear(glcollide_query_result *result)
{
    if (!result)
        return;
    free(result->pairs);
    free(result->triangle_pairs);
    memset(result, 0, sizeof *result);
}

int glcollide_query_run(const glcollide_scene *scene, glcollide_context *context,
                        const glcollide_query_options *options, glcollide_query_result *result)
{
    if (!result)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "query: result is NULL");
    memset(result, 0, sizeof *result);
    if (!scene || !options)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "query: scene or options is NULL");
    if (!(options->distance >= 0) || !isfinite(options->distance))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "query: distance must be finite and >= 0, got %g", options->distance);
    if (options->level != GLCOLLIDE_LEVEL_OBJECTS && options->level != GLCOLLIDE_LEVEL_TRIANGLES)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "query: unknown level %d",
                              (int)options->level);
    if (options->resolution < 16 || options->resolution > 16384)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "query: resolution %d outside 16..16384", options->resolution);
    int (*run)(const glcollide_world *, const glcollide_query_options *, glcollide_query_result *) =
        NULL;
    switch (options->method) {
    case GLCOLLIDE_METHOD_EXACT: run = glcollide_query_exact; break;
    case GLCOLLIDE_METHOD_SAP: run = glcollide_query_sap; break;
    case GLCOLLIDE_METHOD_CULLIDE:
    case GLCOLLIDE_METHOD_FAR:
    case GLCOLLIDE_METHOD_STENCIL:
    case GLCOLLIDE_METHOD_CONVEX:
        if (!context)
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                                  "query: method '%s' runs on the GPU and needs a context",
                                  glcollide_method_name(options->method));
        break;
    default:
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "query: unknown method %d",
                              (int)options->method);
    }
    double start = glcollide_now_ms();
    glcollide_world world;
    unsigned what = 0;
    if (options->method == GLCOLLIDE_METHOD_EXACT)
        what = GLCOLLIDE_WORLD_BVH | GLCOLLIDE_WORLD_SOLIDS;
    else if (options->method == GLCOLLIDE_METHOD_SAP && options->level == GLCOLLIDE_LEVEL_TRIANGLES)
        what = GLCOLLIDE_WORLD_BVH;
    int status = glcollide_world_build(scene, what, &world);
    if (status != GLCOLLIDE_OK)
        return status;
    if (run)
        status = run(&world, options, result);
    else if (options->method == GLCOLLIDE_METHOD_STENCIL)
        status = glcollide_query_stencil(&world, context, options, result);
    else if (options->method == GLCOLLIDE_METHOD_CONVEX)
        status = glcollide_query_convex(&world, context, options, result);
    else
        status = glcollide_query_cull(&world, context, options,
                                      options->method == GLCOLLIDE_METHOD_FAR, result);
    glcollide_world_release(&world);
    if (status != GLCOLLIDE_OK) {
        glcollide_query_result_clear(result);
        return status;
    }
    glcollide_result_sort(result);
    result->stats.time_ms = glcollide_now_ms() - start;
    return GLCOLLIDE_OK;
}
