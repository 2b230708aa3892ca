/* SPDX-License-Identifier: MIT */
/*
 * A particle cloud falling through a complex solid (the armadillo by
 * default), headless: every frame the particles move (gravity, closed form)
 * and the tetra-tree says which are inside the solid, on the GPU with frame
 * coherence (or on the CPU); particles that fall below the solid come back
 * at the top. At the end the particles are drawn, red inside and blue
 * outside (the red ones show the solid's shape), into a PNG, the last
 * frame is checked against glcollide_point_in_mesh, and one summary line is
 * printed.
 *
 *   demos/cloud [--particles N] [--frames F] [--method gpu|cpu]
 *               [--no-coherence] [--mesh FILE] [--output FILE]
 */
#define _POSIX_C_SOURCE 200809L
#include "../tests/helpers/splitmix64.h"
#include "render.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>
#include <glcollide/tetra_tree.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DT (1.0 / 60.0)
#define GRAVITY 2.0 /* units/s^2, the solid being 2 units tall: a slow fall */
#define TOP 3.0
#define BOTTOM (-1.3)

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Mesh space is y up; the renderer's z up: (x, y, z) -> (x, -z, y). */
static void to_display(const double p[3], double out[3])
{
    out[0] = p[0];
    out[1] = -p[2];
    out[2] = p[1];
}

/* A small octahedron (8 triangles) around p. */
static void octahedron(const double p[3], double r, double *out)
{
    double c[3];
    to_display(p, c);
    double v[6][3];
    for (int i = 0; i < 6; i++) {
        memcpy(v[i], c, sizeof c);
        v[i][i / 2] += (i & 1) ? -r : r;
    }
    static const int faces[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                                    {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
    for (int f = 0; f < 8; f++)
        for (int k = 0; k < 3; k++)
            memcpy(out + 9 * f + 3 * k, v[faces[f][k]], 3 * sizeof(double));
}

int main(int argc, char **argv)
{
    int particles = 30000, frames = 90, coherence = 1, use_gpu = 1;
    const char *output = "cloud.png", *mesh_name = "armadillo.off";
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--particles") == 0 && value)
            particles = atoi(argv[++i]);
        else if (strcmp(argv[i], "--frames") == 0 && value)
            frames = atoi(argv[++i]);
        else if (strcmp(argv[i], "--method") == 0 && value &&
                 (!strcmp(value, "gpu") || !strcmp(value, "cpu")))
            use_gpu = strcmp(argv[++i], "gpu") == 0;
        else if (strcmp(argv[i], "--no-coherence") == 0)
            coherence = 0;
        else if (strcmp(argv[i], "--mesh") == 0 && value)
            mesh_name = argv[++i];
        else if (strcmp(argv[i], "--output") == 0 && value)
            output = argv[++i];
        else {
            fprintf(stderr, "usage: cloud [--particles N] [--frames F] [--method gpu|cpu] "
                            "[--no-coherence] [--mesh FILE] [--output FILE]\n");
            return 2;
        }
    }
    if (particles < 1 || frames < 1) {
        fprintf(stderr, "cloud: --particles and --frames must be positive\n");
        return 2;
    }
    char path[4096];
    glcollide_mesh *mesh = NULL;
    const char *file = mesh_name;
    if (glcollide_mesh_find_data(mesh_name, path, sizeof path) == GLCOLLIDE_OK)
        file = path;
    if (glcollide_mesh_load(file, 1.0, &mesh) != GLCOLLIDE_OK ||
        glcollide_mesh_fit(mesh, 2.0) != GLCOLLIDE_OK)
        return 1; /* the library said why */
    glcollide_tetra_tree *tree = NULL;
    if (glcollide_tetra_tree_create(mesh, NULL, &tree) != GLCOLLIDE_OK)
        return 1;
    /* The solid as an object of a world, at the identity pose: the particles'
     * world positions are then its own space's. */
    glcollide_world *world = NULL;
    const double origin[3] = {0, 0, 0}, identity[4] = {1, 0, 0, 0};
    if (glcollide_world_create(&world) != GLCOLLIDE_OK ||
        glcollide_world_add_mesh(world, mesh, NULL) != GLCOLLIDE_OK ||
        glcollide_world_add_object(world, 0, origin, identity, NULL) != GLCOLLIDE_OK)
        return 1;
    glcollide_context *context = NULL;
    glcollide_tetra_gpu *gpu = NULL;
    if (glcollide_context_create_egl(&context) != GLCOLLIDE_OK ||
        (use_gpu && glcollide_tetra_gpu_create(context, tree, &gpu) != GLCOLLIDE_OK)) {
        fprintf(stderr, "cloud: no GL%s; classifying on the CPU\n", context ? " compute" : "");
        use_gpu = 0;
    }

    size_t n = (size_t)particles;
    double *position = malloc(3 * n * sizeof(double)), *velocity = malloc(3 * n * sizeof(double));
    uint8_t *inside = malloc(n);
    uint32_t *cones = malloc(n * sizeof(uint32_t));
    double *frame_ms = malloc((size_t)frames * sizeof(double));
    if (!position || !velocity || !inside || !cones || !frame_ms) {
        fprintf(stderr, "cloud: out of memory\n");
        return 1;
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < mesh->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], mesh->positions[3 * v + k]);
            hi[k] = fmax(hi[k], mesh->positions[3 * v + k]);
        }
    uint64_t state = 0xC10D0000u;
    for (size_t i = 0; i < n; i++) { /* a column over the solid's box, falling */
        position[3 * i] = splitmix64_uniform(&state, lo[0] - 0.05, hi[0] + 0.05);
        position[3 * i + 1] = splitmix64_uniform(&state, BOTTOM, TOP);
        position[3 * i + 2] = splitmix64_uniform(&state, lo[2] - 0.05, hi[2] + 0.05);
        velocity[3 * i] = splitmix64_uniform(&state, -0.05, 0.05);
        velocity[3 * i + 1] = splitmix64_uniform(&state, -1.0, -0.3);
        velocity[3 * i + 2] = splitmix64_uniform(&state, -0.05, 0.05);
        cones[i] = GLCOLLIDE_TETRA_CONE_NONE;
    }
    uint64_t inside_total = 0, uncertain = 0, coherent = 0, respawned = 0;
    size_t inside_max = 0;
    for (int f = 0; f < frames; f++) {
        for (size_t i = 0; i < n; i++) { /* second-order closed-form step */
            double *p = position + 3 * i, *v = velocity + 3 * i;
            p[0] += v[0] * DT;
            p[1] += v[1] * DT - 0.5 * GRAVITY * DT * DT;
            p[2] += v[2] * DT;
            v[1] -= GRAVITY * DT;
            if (p[1] < BOTTOM) { /* regenerate at the top */
                p[1] += TOP - BOTTOM;
                v[1] = splitmix64_uniform(&state, -1.0, -0.3);
                respawned++;
            }
        }
        glcollide_tetra_stats stats;
        int status = use_gpu ? glcollide_tetra_gpu_classify(
                                   gpu, world, 0, position, n,
                                   coherence ? GLCOLLIDE_TETRA_FRAME_COHERENCE : 0, inside, &stats)
                             : glcollide_tetra_tree_classify(tree, position, n, inside,
                                                             coherence ? cones : NULL, &stats);
        if (status != GLCOLLIDE_OK)
            return 1;
        frame_ms[f] = stats.time_ms;
        inside_total += stats.inside;
        inside_max = stats.inside > inside_max ? stats.inside : inside_max;
        uncertain += stats.uncertain;
        coherent += stats.coherent;
    }

    /* The last frame against the exact point-in-mesh. */
    glcollide_bvh *bvh = NULL;
    size_t mismatches = 0, inside_last = 0;
    if (glcollide_bvh_create(mesh, &bvh) == GLCOLLIDE_OK)
        for (size_t i = 0; i < n; i++) {
            int expected = glcollide_point_in_mesh(mesh, bvh, position + 3 * i);
            mismatches += expected != inside[i];
        }
    for (size_t i = 0; i < n; i++)
        inside_last += inside[i];

    int png_ok = 0;
    if (context) {
        demo_renderer *renderer = demo_renderer_create(1024, 768, 1);
        double *in = malloc(inside_last * 72 * sizeof(double) + 1);
        double *out = malloc((n - inside_last) * 72 * sizeof(double) + 1);
        if (renderer && in && out) {
            size_t a = 0, b = 0;
            for (size_t i = 0; i < n; i++) {
                if (inside[i])
                    octahedron(position + 3 * i, 0.012, in + 72 * a++);
                else
                    octahedron(position + 3 * i, 0.006, out + 72 * b++);
            }
            demo_renderer_clear(renderer);
            const float red[3] = {0.85f, 0.15f, 0.1f}, blue[3] = {0.45f, 0.6f, 0.9f};
            demo_renderer_add(renderer, in, 8 * a, red);
            demo_renderer_add(renderer, out, 8 * b, blue);
            const double eye[3] = {1.2, -4.2, 1.4}, target[3] = {0, 0, 0.2};
            demo_renderer_draw(renderer, eye, target);
            png_ok = demo_renderer_save_png(renderer, output) == 0;
        }
        free(in);
        free(out);
        demo_renderer_destroy(renderer);
    }
    qsort(frame_ms, (size_t)frames, sizeof *frame_ms, compare_double);
    printf("cloud: mesh=%s triangles=%zu particles=%zu frames=%d method=%s coherence=%d "
           "classify_ms_median=%.3f inside_last=%zu inside_max=%zu inside_mean=%.1f respawned=%llu "
           "coherent_pct=%.1f uncertain_per_frame=%.1f mismatches_last_frame=%zu png=%s\n",
           mesh_name, mesh->triangle_count, n, frames, use_gpu ? "gpu" : "cpu", coherence,
           frame_ms[frames / 2], inside_last, inside_max, (double)inside_total / frames,
           (unsigned long long)respawned, 100.0 * (double)coherent / ((double)n * frames),
           (double)uncertain / frames, mismatches, png_ok ? output : "none");
    glcollide_bvh_destroy(&bvh);
    glcollide_tetra_gpu_destroy(&gpu);
    glcollide_context_destroy(&context);
    glcollide_tetra_tree_destroy(&tree);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&mesh);
    free(position);
    free(velocity);
    free(inside);
    free(cones);
    free(frame_ms);
    return mismatches ? 1 : 0;
}
