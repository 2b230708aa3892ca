/* SPDX-License-Identifier: MIT */
/*
 * glcollide-query: which objects (or triangles) of a scene touch, by a chosen
 * method. Output, one per line, sorted: "pair I J", then at triangle level
 * "tri I A J B"; with the exact method and --distance D, then "distance I J
 * d" for each pair, d its distance (glcollide_world_distance, at most D;
 * printed to round-trip); with --stats a last line "stats key=value ...".
 */
#include <glcollide/glcollide.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const usage =
    "usage: glcollide-query [--method M] [--level objects|triangles] [--resolution N]\n"
    "                       [--distance D] [--threads N] [--stats] SCENE\n"
    "  M: exact (CPU oracle, default), sap, cullide, far, stencil, convex\n"
    "  N: threads for the CPU stages (default: GLCOLLIDE_THREADS, else the CPUs, at most 16)\n"
    "  --distance D: also pairs at most D apart; with exact, a line\n"
    "  'distance I J d' per pair gives its distance d\n";

static int fail(const char *format, const char *arg)
{
    fprintf(stderr, "glcollide-query: ");
    fprintf(stderr, format, arg);
    fprintf(stderr, "\n");
    return 2;
}

static int parse_double(const char *text, double *value)
{
    char *end;
    *value = strtod(text, &end);
    /* Overflow gives an infinity; underflow (ERANGE too) a subnormal or 0,
     * which are finite numbers. */
    return *text && !*end && isfinite(*value);
}

/* "distance I J d" for each pair of result: the exact distances, measured
 * on the world queried (at most bound apart, as the pairs are). */
static int print_distances(glcollide_world *world, const glcollide_query_result *result,
                           double bound)
{
    int status = GLCOLLIDE_OK;
    for (size_t i = 0; i < result->pair_count && status == GLCOLLIDE_OK; i++) {
        glcollide_distance_result d;
        const glcollide_index_pair *p = &result->pairs[i];
        status = glcollide_world_distance(world, p->a, p->b, bound, &d);
        if (status == GLCOLLIDE_OK)
            printf("distance %" PRIu32 " %" PRIu32 " %.17g\n", p->a, p->b, d.distance);
    }
    return status;
}

static int needs_gl(glcollide_method method)
{
    return method != GLCOLLIDE_METHOD_EXACT && method != GLCOLLIDE_METHOD_SAP;
}

/* The tool's order of "tri I A J B" lines: by their four numbers as printed
 * (the library's results are grouped by object pair first). */
static int compare_printed(const void *x, const void *y)
{
    const glcollide_triangle_pair *a = x, *b = y;
    const uint32_t ka[4] = {a->object_a, a->triangle_a, a->object_b, a->triangle_b};
    const uint32_t kb[4] = {b->object_a, b->triangle_a, b->object_b, b->triangle_b};
    for (int k = 0; k < 4; k++)
        if (ka[k] != kb[k])
            return ka[k] < kb[k] ? -1 : 1;
    return 0;
}

int main(int argc, char **argv)
{
    glcollide_query_options options = glcollide_query_default_options();
    const char *scene_path = NULL;
    int stats = 0, distance_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(arg, "--stats") == 0) {
            stats = 1;
        } else if (strcmp(arg, "--method") == 0 || strcmp(arg, "--level") == 0 ||
                   strcmp(arg, "--resolution") == 0 || strcmp(arg, "--distance") == 0 ||
                   strcmp(arg, "--threads") == 0) {
            if (!value)
                return fail("%s needs a value", arg);
            i++;
            if (strcmp(arg, "--method") == 0) {
                if (glcollide_method_from_name(value, &options.method) != GLCOLLIDE_OK)
                    return 2; /* the library said which names it knows */
            } else if (strcmp(arg, "--level") == 0) {
                if (strcmp(value, "objects") == 0)
                    options.level = GLCOLLIDE_LEVEL_OBJECTS;
                else if (strcmp(value, "triangles") == 0)
                    options.level = GLCOLLIDE_LEVEL_TRIANGLES;
                else
                    return fail("unknown level '%s' (objects, triangles)", value);
            } else if (strcmp(arg, "--resolution") == 0) {
                double n;
                if (!parse_double(value, &n) || n != floor(n) || n < 16 || n > 16384)
                    return fail("--resolution '%s': expected an integer in 16..16384", value);
                options.resolution = (int)n;
            } else if (strcmp(arg, "--threads") == 0) {
                double n;
                if (!parse_double(value, &n) || n != floor(n) || n < 1 || n > GLCOLLIDE_WORKERS_MAX)
                    return fail("--threads '%s': expected an integer in 1..256", value);
                options.threads = (int)n;
            } else {
                if (!parse_double(value, &options.distance) || options.distance < 0)
                    return fail("--distance '%s': expected a finite number >= 0", value);
                distance_given = 1;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "%s", usage);
            return fail("unknown option '%s'", arg);
        } else if (scene_path) {
            return fail("more than one scene given ('%s')", arg);
        } else {
            scene_path = arg;
        }
    }
    if (!scene_path) {
        fprintf(stderr, "%s", usage);
        return fail("%s", "no scene given");
    }

    glcollide_world *world = NULL;
    if (glcollide_world_load(scene_path, &world) != GLCOLLIDE_OK)
        return 1; /* the library logged file:line and cause */
    glcollide_context *context = NULL;
    if (needs_gl(options.method) && glcollide_context_create_egl(&context) != GLCOLLIDE_OK) {
        glcollide_world_destroy(&world);
        return 1;
    }
    glcollide_query_result result = {0};
    glcollide_stencil_result stencil = {0};
    int status;
    if (options.method == GLCOLLIDE_METHOD_STENCIL && options.level == GLCOLLIDE_LEVEL_TRIANGLES) {
        /* The stencil method localises edges (and vertices) inside other
         * solids, not triangle pairs: "edge I A B J X Y Z" per edge A-B of
         * object I with a sample at world (X, Y, Z) inside object J. */
        glcollide_stencil_options stencil_options = glcollide_stencil_default_options();
        stencil_options.resolution = options.resolution;
        status = glcollide_stencil_run(world, context, &stencil_options, &stencil);
        result.pairs = stencil.pairs;
        result.pair_count = stencil.pair_count;
        result.stats = stencil.stats;
        stencil.pairs = NULL;
    } else {
        status = glcollide_world_query(world, context, &options, &result);
    }
    if (status == GLCOLLIDE_OK) {
        if (result.triangle_pair_count > 1)
            qsort(result.triangle_pairs, result.triangle_pair_count, sizeof *result.triangle_pairs,
                  compare_printed);
        for (size_t i = 0; i < result.pair_count; i++)
            printf("pair %" PRIu32 " %" PRIu32 "\n", result.pairs[i].a, result.pairs[i].b);
        for (size_t i = 0; i < result.triangle_pair_count; i++) {
            const glcollide_triangle_pair *t = &result.triangle_pairs[i];
            printf("tri %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32 "\n", t->object_a,
                   t->triangle_a, t->object_b, t->triangle_b);
        }
        if (distance_given && options.method == GLCOLLIDE_METHOD_EXACT)
            status = print_distances(world, &result, options.distance);
        for (size_t i = 0; i < stencil.sample_count; i++) {
            const glcollide_stencil_sample *s = &stencil.samples[i];
            printf("edge %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32 " %.9g %.9g %.9g\n",
                   s->object, s->vertex_a, s->vertex_b, s->inside, s->position[0], s->position[1],
                   s->position[2]);
        }
        if (stats) {
            const glcollide_query_stats *s = &result.stats;
            size_t objects = glcollide_world_object_count(world), triangles = 0;
            for (uint32_t i = 0; i < objects; i++)
                triangles += glcollide_world_mesh(world, glcollide_world_object(world, i)->mesh)
                                 ->triangle_count;
            printf("stats method=%s objects=%zu triangles=%zu time_ms=%.3f aabb_pairs=%" PRIu64
                   " candidates=%" PRIu64 " triangle_tests=%" PRIu64 " pairs=%zu triangle_pairs=%zu"
                   " draw_calls=%" PRIu64 " gpu_syncs=%" PRIu64 " readback_bytes=%" PRIu64
                   " triangles_rasterized=%" PRIu64 " upload_bytes=%" PRIu64
                   " compute_dispatches=%" PRIu64 "\n",
                   glcollide_method_name(options.method), objects, triangles, s->time_ms,
                   s->aabb_pairs, s->candidates, s->triangle_tests, result.pair_count,
                   result.triangle_pair_count, s->draw_calls, s->gpu_syncs, s->readback_bytes,
                   s->triangles_rasterized, s->upload_bytes, s->compute_dispatches);
        }
    }
    glcollide_query_result_clear(&result);
    glcollide_stencil_result_clear(&stencil);
    glcollide_context_destroy(&context);
    glcollide_world_destroy(&world);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "glcollide-query: write error: %s\n", strerror(errno));
        return 1;
    }
    return status == GLCOLLIDE_OK ? 0 : 1;
}
