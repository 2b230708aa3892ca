/* SPDX-License-Identifier: MIT */
/*
 * demos/contact-map: Myszkowski's distance map of the contact zone of two
 * real meshes (the paper's jaw-occlusion figure), headless. Two closed
 * meshes (default libcgal-demo's knot1.off and knot2.off, each fitted to
 * unit size) are placed --offset apart along x, the second turned by
 * --angle degrees about z; the pair is tested (glcollide_myszkowski_test)
 * and checked against the exact CPU oracle, and the distance map over
 * their bounding-box intersection (grown by --margin) is written as a PNG:
 *   black: neither solid; grey: A only; pink: B only;
 *   green (near) to blue (--margin or more): the gap between A and B;
 *   yellow (touching) to red (the deepest): where the ray is inside both.
 * The last line is a one-line summary.
 *
 *   contact-map [--mesh-a FILE] [--mesh-b FILE] [--offset D] [--angle DEG]
 *               [--resolution N] [--margin M] [--output FILE]
 */
#define _POSIX_C_SOURCE 200809L
#include "png.h"

#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr,
            "usage: contact-map [--mesh-a FILE] [--mesh-b FILE] [--offset D] [--angle DEG]\n"
            "                   [--resolution N] [--margin M] [--output FILE]\n");
    return 2;
}

static int number(const char *text, double *value)
{
    char *end;
    *value = strtod(text, &end);
    return *text && !*end && isfinite(*value);
}

/* A data mesh by file name, or a path; fitted to unit size. */
static int load(const char *name, glcollide_mesh **out)
{
    char path[4096];
    if (!strchr(name, '/') && glcollide_mesh_find_data(name, path, sizeof path) == GLCOLLIDE_OK)
        name = path;
    int status = glcollide_mesh_load(name, 1.0, out);
    if (status == GLCOLLIDE_OK)
        status = glcollide_mesh_fit(*out, 1.0);
    return status;
}

static void shade(float d, unsigned char coverage, double margin, double deepest,
                  unsigned char rgb[3])
{
    int a = coverage & GLCOLLIDE_MYSZKOWSKI_COVER_A, b = coverage & GLCOLLIDE_MYSZKOWSKI_COVER_B;
    unsigned char none[3] = {0, 0, 0}, grey[3] = {128, 128, 128}, pink[3] = {255, 160, 200};
    const unsigned char *flat = !a && !b ? none : a && !b ? grey : !a && b ? pink : NULL;
    if (flat || isnan(d)) {
        memcpy(rgb, flat ? flat : none, 3);
        return;
    }
    if (d > 0) { /* gap: green at contact, blue at the margin and beyond */
        double s = margin > 0 ? fmin(1.0, d / margin) : 1.0;
        rgb[0] = 0;
        rgb[1] = (unsigned char)(220 * (1 - s) + 40 * s);
        rgb[2] = (unsigned char)(60 * (1 - s) + 230 * s);
    } else { /* overlap: yellow when shallow, red at the deepest */
        double s = deepest > 0 ? fmin(1.0, -d / deepest) : 0.0;
        rgb[0] = 255;
        rgb[1] = (unsigned char)(230 * (1 - s));
        rgb[2] = 0;
    }
}

int main(int argc, char **argv)
{
    const char *mesh_names[2] = {"knot1.off", "knot2.off"}, *output = "contact-map.png";
    double offset = 0.75, angle = 30, margin = 0.05, resolution = 512;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            return usage();
        const char *arg = argv[i], *value = argv[++i];
        if (strcmp(arg, "--mesh-a") == 0)
            mesh_names[0] = value;
        else if (strcmp(arg, "--mesh-b") == 0)
            mesh_names[1] = value;
        else if (strcmp(arg, "--output") == 0)
            output = value;
        else if (!((strcmp(arg, "--offset") == 0 && number(value, &offset)) ||
                   (strcmp(arg, "--angle") == 0 && number(value, &angle)) ||
                   (strcmp(arg, "--margin") == 0 && number(value, &margin) && margin >= 0) ||
                   (strcmp(arg, "--resolution") == 0 && number(value, &resolution) &&
                    resolution >= 16 && resolution <= 4096)))
            return usage();
    }
    glcollide_world *world = NULL;
    glcollide_mesh *meshes[2] = {NULL, NULL}; /* the world borrows them */
    glcollide_context *context = NULL;
    glcollide_myszkowski *tester = NULL;
    glcollide_myszkowski_map map = {0};
    unsigned char *pixels = NULL;
    int status = glcollide_world_create(&world);
    for (int f = 0; f < 2 && status == GLCOLLIDE_OK; f++) {
        status = load(mesh_names[f], &meshes[f]);
        if (status == GLCOLLIDE_OK)
            status = glcollide_world_add_mesh(world, meshes[f], NULL);
        double half = 0.5 * angle * 3.14159265358979323846 / 180 * f;
        const double t[3] = {f * offset, 0, 0}, q[4] = {cos(half), 0, 0, sin(half)};
        if (status == GLCOLLIDE_OK)
            status = glcollide_world_add_object(world, (uint32_t)f, t, q, NULL);
    }
    if (status == GLCOLLIDE_OK)
        status = glcollide_context_create_egl(&context);
    if (status == GLCOLLIDE_OK)
        status = glcollide_myszkowski_create(context, &tester);
    glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
    options.resolution = (int)resolution;
    options.margin = margin;
    glcollide_myszkowski_result test = {0};
    if (status == GLCOLLIDE_OK)
        status = glcollide_myszkowski_test(tester, world, 0, 1, &options, &test);
    options.check_solids = 0; /* checked by the test */
    if (status == GLCOLLIDE_OK)
        status = glcollide_myszkowski_distance_map(tester, world, 0, 1, &options, &map);
    glcollide_query_options exact_options = glcollide_query_default_options();
    glcollide_query_result exact = {0};
    if (status == GLCOLLIDE_OK)
        status = glcollide_world_query(world, NULL, &exact_options, &exact);
    if (status == GLCOLLIDE_OK && map.width > 0) {
        pixels = malloc((size_t)map.width * (size_t)map.height * 3);
        if (!pixels) {
            fprintf(stderr, "contact-map: out of memory\n");
            status = GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        }
    }
    size_t overlap = 0, gap = 0;
    if (pixels) {
        double deepest = map.min_distance < 0 ? -map.min_distance : 0;
        for (int y = 0; y < map.height; y++)
            for (int x = 0; x < map.width; x++) {
                size_t p = (size_t)y * map.width + x;
                /* PNG rows go top to bottom, map rows bottom to top. */
                size_t row = (size_t)(map.height - 1 - y);
                shade(map.distance[p], map.coverage[p], margin, deepest,
                      pixels + 3 * (row * map.width + x));
                overlap += map.distance[p] <= 0;
                gap += map.distance[p] > 0;
            }
        if (demo_png_write(output, pixels, map.width, map.height, 3) != 0) {
            perror(output);
            status = GLCOLLIDE_ERROR_IO;
        }
    }
    if (status == GLCOLLIDE_OK)
        printf("contact-map: %s vs %s, offset %g: interference %d (exact %d, %d passes), map %dx%d "
               "pixel %.3g, %zu pixels overlapping (deepest %.4g), %zu with a gap, %llu listed "
               "(not pi-convex), depth step %.3g; test %.1f ms %llu draw calls %llu syncs, map "
               "%.1f ms; %s\n",
               mesh_names[0], mesh_names[1], offset, test.interference, exact.pair_count > 0,
               test.passes, map.width, map.height, map.pixel_size, overlap,
               map.min_distance < 0 ? -map.min_distance : 0.0, gap,
               (unsigned long long)map.listed_pixels, map.depth_step, test.stats.time_ms,
               (unsigned long long)test.stats.draw_calls, (unsigned long long)test.stats.gpu_syncs,
               map.stats.time_ms, map.width ? output : "(no zone: boxes apart, no image)");
    free(pixels);
    glcollide_query_result_clear(&exact);
    glcollide_myszkowski_map_clear(&map);
    glcollide_myszkowski_destroy(&tester);
    glcollide_context_destroy(&context);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&meshes[0]);
    glcollide_mesh_destroy(&meshes[1]);
    return status == GLCOLLIDE_OK ? 0 : 1;
}
