/* SPDX-License-Identifier: MIT */
/*
 * demos/hail: hail falling on a small outdoor scene (Knott's CInDeR thesis,
 * figure 3.7): a gable roof, a gazebo dome, a picnic table, a bin and the
 * ground, all analytic colliders; the hailstones bounce off them and leave
 * splats where the impact map reports hits (the map read back each frame,
 * its counts summed per texel, a splat drawn on the collider's surface at
 * each texel hit, larger where more stones landed).
 * Headless by default: per-frame statistics every --report frames, a PNG of
 * the last frame (hail.png in the current directory) and a one-line summary
 * as the last line. --window opens a GLFW window (arrow keys orbit).
 *
 *   hail [--particles N] [--frames F] [--lookahead S] [--records]
 *        [--cpu] [--output FILE] [--report K] [--window]
 *
 * --records also reads one record per impact and checks that the map holds
 * as many impacts; --cpu runs the CPU reference instead of the GPU.
 */
#define _POSIX_C_SOURCE 200809L
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "../tests/helpers/hail_scene.h"
#include "render.h"

#include <glcollide/glcollide.h>
#include <glcollide/particles.h>

#include <epoxy/gl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_GLFW
#include "window.h"
#endif

#define PI 3.14159265358979323846

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* A growable triangle soup (9 doubles per triangle). */
typedef struct soup {
    double *t;
    size_t count, capacity;
} soup;

static void soup_add(soup *s, const double a[3], const double b[3], const double c[3])
{
    if (s->count == s->capacity) {
        size_t grown = s->capacity ? 2 * s->capacity : 1024;
        double *t = realloc(s->t, grown * 9 * sizeof *t);
        if (!t)
            return;
        s->t = t;
        s->capacity = grown;
    }
    double *t = s->t + 9 * s->count++;
    memcpy(t, a, 3 * sizeof *t);
    memcpy(t + 3, b, 3 * sizeof *t);
    memcpy(t + 6, c, 3 * sizeof *t);
}

/* A collider drawn through its own map: a grid over (u, v), cells whose
 * corners are all on the surface (and inside a disc's radius). */
static void tessellate(soup *s, const glcollide_collider *c)
{
    const int nu = c->kind == GLCOLLIDE_COLLIDER_PLANE ? 1 : 48, nv = c->kind == GLCOLLIDE_COLLIDER_PLANE ? 1 : 12;
    if (c->kind == GLCOLLIDE_COLLIDER_PLANE && isfinite(c->bound_radius)) {
        for (int i = 0; i < 32; i++) {
            double a0 = 2 * PI * i / 32, a1 = 2 * PI * (i + 1) / 32, p0[3], p1[3];
            for (int k = 0; k < 3; k++) {
                p0[k] = c->origin[k] + c->bound_radius * (cos(a0) * c->axis_u[k] + sin(a0) * c->axis_v[k]);
                p1[k] = c->origin[k] + c->bound_radius * (cos(a1) * c->axis_u[k] + sin(a1) * c->axis_v[k]);
            }
            soup_add(s, c->origin, p0, p1);
        }
        return;
    }
    for (int i = 0; i < nu; i++) {
        for (int j = 0; j < nv; j++) {
            double p[4][3], n[3];
            int ok = 1;
            const double uv[4][2] = {{(double)i / nu, (double)j / nv}, {(double)(i + 1) / nu, (double)j / nv},
                                     {(double)(i + 1) / nu, (double)(j + 1) / nv},
                                     {(double)i / nu, (double)(j + 1) / nv}};
            for (int k = 0; k < 4; k++) {
                if (glcollide_collider_map_point(c, uv[k], p[k], n))
                    continue;
                /* Past the surface's end (an ellipsoid's pole): the last
                 * point towards this cell's lower row, by bisection. */
                double lo = (double)j / nv, hi = uv[k][1], q[2] = {uv[k][0], lo};
                if (!glcollide_collider_map_point(c, q, p[k], n)) {
                    ok = 0;
                    break;
                }
                for (int it = 0; it < 40; it++) {
                    double mid[2] = {uv[k][0], 0.5 * (lo + hi)}, m[3];
                    if (glcollide_collider_map_point(c, mid, m, n)) {
                        lo = mid[1];
                        memcpy(p[k], m, sizeof m);
                    } else {
                        hi = mid[1];
                    }
                }
            }
            if (!ok)
                continue;
            soup_add(s, p[0], p[1], p[2]);
            soup_add(s, p[0], p[2], p[3]);
        }
    }
}

/* A splat: a small square on the surface at map (u, v), lifted along the
 * normal so that it is drawn over the collider. */
static void splat(soup *s, const glcollide_collider *c, const double uv[2], double size)
{
    double p[3], n[3];
    if (!glcollide_collider_map_point(c, uv, p, n))
        return;
    double helper[3] = {fabs(n[0]) < 0.9 ? 1.0 : 0.0, fabs(n[0]) < 0.9 ? 0.0 : 1.0, 0}, a[3], b[3];
    a[0] = helper[1] * n[2] - helper[2] * n[1];
    a[1] = helper[2] * n[0] - helper[0] * n[2];
    a[2] = helper[0] * n[1] - helper[1] * n[0];
    double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    for (int k = 0; k < 3; k++)
        a[k] /= la;
    b[0] = n[1] * a[2] - n[2] * a[1];
    b[1] = n[2] * a[0] - n[0] * a[2];
    b[2] = n[0] * a[1] - n[1] * a[0];
    double q[4][3];
    const double corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int k = 0; k < 4; k++)
        for (int d = 0; d < 3; d++)
            q[k][d] = p[d] + 0.004 * n[d] + size * (corner[k][0] * a[d] + corner[k][1] * b[d]);
    soup_add(s, q[0], q[1], q[2]);
    soup_add(s, q[0], q[2], q[3]);
}

/* A hailstone: an octahedron. */
static void stone(soup *s, const double p[3], double r)
{
    const double axes[6][3] = {{r, 0, 0}, {0, r, 0}, {-r, 0, 0}, {0, -r, 0}, {0, 0, r}, {0, 0, -r}};
    double v[6][3];
    for (int k = 0; k < 6; k++)
        for (int d = 0; d < 3; d++)
            v[k][d] = p[d] + axes[k][d];
    for (int k = 0; k < 4; k++) {
        soup_add(s, v[k], v[(k + 1) % 4], v[4]);
        soup_add(s, v[(k + 1) % 4], v[k], v[5]);
    }
}

typedef struct hail {
    glcollide_collider colliders[HAIL_COLLIDERS];
    size_t collider_count;
    float *splats; /* impact counts summed over the frames, per map texel */
    int map_width, map_height, map_tile, map_columns;
    size_t texels;
} hail;

static void draw(demo_renderer *renderer, const hail *h, const glcollide_particles_result *r,
                 size_t particles, const double eye[3])
{
    static const float colors[HAIL_COLLIDERS][3] = {
        {0.35f, 0.55f, 0.30f}, {0.62f, 0.25f, 0.20f}, {0.62f, 0.25f, 0.20f}, {0.75f, 0.75f, 0.70f},
        {0.55f, 0.40f, 0.25f}, {0.30f, 0.35f, 0.40f}, {0.35f, 0.40f, 0.45f}};
    const float splat_color[3] = {0.95f, 0.97f, 1.0f}, stone_color[3] = {0.85f, 0.92f, 1.0f};
    demo_renderer_clear(renderer);
    soup s = {0};
    for (size_t c = 0; c < h->collider_count; c++) {
        s.count = 0;
        tessellate(&s, &h->colliders[c]);
        demo_renderer_add(renderer, s.t, s.count, colors[c]);
    }
    s.count = 0;
    for (size_t c = 0; c < h->collider_count && h->splats; c++) {
        int x0 = (int)(c % (size_t)h->map_columns) * h->map_tile;
        int y0 = (int)(c / (size_t)h->map_columns) * h->map_tile;
        for (int y = 0; y < h->map_tile; y++)
            for (int x = 0; x < h->map_tile; x++) {
                float count = h->splats[(size_t)(y0 + y) * (size_t)h->map_width + (size_t)(x0 + x)];
                if (count <= 0)
                    continue;
                const double uv[2] = {(x + 0.5) / h->map_tile, (y + 0.5) / h->map_tile};
                splat(&s, &h->colliders[c], uv, 0.012 + 0.006 * sqrt(count));
            }
    }
    demo_renderer_add(renderer, s.t, s.count, splat_color);
    s.count = 0;
    for (size_t i = 0; r->positions && i < particles && i < r->position_count; i++)
        if (r->positions[4 * i + 3] != 0)
            stone(&s, &r->positions[4 * i], 0.025);
    demo_renderer_add(renderer, s.t, s.count, stone_color);
    free(s.t);
    const double target[3] = {0, 0, 1.0};
    demo_renderer_draw(renderer, eye, target);
}

int main(int argc, char **argv)
{
    size_t particles = 20000;
    int frames = 120, report = 30, window = 0, records = 0, cpu = 0;
    double lookahead = 0;
    const char *output = "hail.png";
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--window") == 0)
            window = 1;
        else if (strcmp(argv[i], "--records") == 0)
            records = 1;
        else if (strcmp(argv[i], "--cpu") == 0)
            cpu = 1;
        else if (strcmp(argv[i], "--particles") == 0 && value)
            particles = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--frames") == 0 && value)
            frames = atoi(argv[++i]);
        else if (strcmp(argv[i], "--report") == 0 && value)
            report = atoi(argv[++i]);
        else if (strcmp(argv[i], "--lookahead") == 0 && value)
            lookahead = atof(argv[++i]);
        else if (strcmp(argv[i], "--output") == 0 && value)
            output = argv[++i];
        else {
            fprintf(stderr, "usage: hail [--particles N] [--frames F] [--lookahead S] [--records] "
                            "[--cpu] [--output FILE] [--report K] [--window]\n");
            return 2;
        }
    }
    if (frames < 1 || report < 1 || !(lookahead >= 0)) {
        fprintf(stderr, "hail: --frames and --report must be positive, --lookahead >= 0\n");
        return 2;
    }
    hail h = {0};
    h.collider_count = hail_scene_colliders(h.colliders);
    glcollide_particle *stones = hail_scene_particles(particles, 0x4A11ull);
    if (!stones) {
        fprintf(stderr, "hail: out of memory\n");
        return 1;
    }

    /* A GL context: the window's (wrapped), or glcollide's own headless one. */
    glcollide_context *gl = NULL;
    demo_renderer *renderer = NULL;
#ifdef HAVE_GLFW
    GLFWwindow *win = NULL;
    if (window) {
        win = demo_window_open("hail", 1024, 768, 4, 3); /* compute shaders */
        if (!win)
            return 1;
        if (glcollide_context_wrap_current(&gl) != GLCOLLIDE_OK)
            return 1;
        renderer = demo_renderer_create(1024, 768, 0);
    }
#else
    if (window) {
        fprintf(stderr, "hail: built without GLFW: --window is not available\n");
        return 2;
    }
#endif
    if (!window) {
        if (glcollide_context_create_egl(&gl) != GLCOLLIDE_OK)
            fprintf(stderr, "hail: no GL context: the CPU reference runs, no picture\n");
        else
            renderer = demo_renderer_create(1024, 768, 1);
    }
    glcollide_particles_settings settings = hail_scene_settings();
    glcollide_particles *system = NULL;
    if (glcollide_particles_create(cpu ? NULL : gl, &settings, &system) != GLCOLLIDE_OK ||
        glcollide_particles_set_colliders(system, h.colliders, h.collider_count) != GLCOLLIDE_OK ||
        glcollide_particles_set_particles(system, stones, particles) != GLCOLLIDE_OK) {
        fprintf(stderr, "hail: cannot set up the particles\n");
        return 1;
    }
    glcollide_particles_step_options options = {
        GLCOLLIDE_FEEDBACK_IMPACT_MAP | (records ? GLCOLLIDE_FEEDBACK_RECORDS : 0), lookahead};
    glcollide_particles_result result;
    memset(&result, 0, sizeof result);
    unsigned long long impacts = 0, mapped = 0, record_mismatch = 0;
    unsigned long long per_collider[HAIL_COLLIDERS] = {0};
    double step_total_ms = 0, start_ms = now_ms();
    const double dt = 1.0 / 60, t_start = 2.0; /* a couple of lifetimes in: hail arriving evenly */
    double yaw = -0.9, distance = 13;
    int ran = 0, status = GLCOLLIDE_OK;
    for (int f = 0; f < frames; f++) {
        double t0 = t_start + f * dt, t1 = t0 + dt;
        /* Positions only on the frames drawn. */
        int drawing = window || f + 1 == frames;
        options.feedback = (options.feedback & ~GLCOLLIDE_FEEDBACK_POSITIONS) |
                           (drawing ? GLCOLLIDE_FEEDBACK_POSITIONS : 0);
        status = glcollide_particles_step(system, t0, t1, &options, &result);
        if (status != GLCOLLIDE_OK)
            break;
        ran++;
        step_total_ms += result.stats.time_ms;
        impacts += result.stats.impacts;
        if (!h.splats && result.map_width) {
            h.map_width = result.map_width;
            h.map_height = result.map_height;
            h.map_tile = result.map_tile;
            h.map_columns = result.map_columns;
            h.texels = (size_t)h.map_width * (size_t)h.map_height;
            h.splats = calloc(h.texels, sizeof *h.splats);
        }
        unsigned long long frame_mapped = 0;
        for (size_t k = 0; h.splats && k < h.texels; k++) {
            float count = result.impact_map[4 * k];
            if (count <= 0)
                continue;
            h.splats[k] += count;
            frame_mapped += (unsigned long long)count;
            /* The id channel over the count names the collider (thesis 3.4.3). */
            size_t c = (size_t)lrintf(result.impact_map[4 * k + 1] / count);
            if (c < HAIL_COLLIDERS)
                per_collider[c] += (unsigned long long)count;
        }
        mapped += frame_mapped;
        if (records && result.impact_count != frame_mapped)
            record_mismatch++;
        if ((f + 1) % report == 0 || f + 1 == frames)
            printf("frame %d: impacts %llu (map %llu) step %.2f ms draw calls %llu syncs %llu readback "
                   "%llu bytes\n",
                   f + 1, (unsigned long long)result.stats.impacts, frame_mapped, result.stats.time_ms,
                   (unsigned long long)result.stats.draw_calls,
                   (unsigned long long)result.stats.gpu_syncs,
                   (unsigned long long)result.stats.readback_bytes);
        const double eye[3] = {distance * cos(yaw), distance * sin(yaw), 0.55 * distance};
#ifdef HAVE_GLFW
        if (win) {
            if (!demo_window_begin_frame(win, renderer, &yaw, &distance))
                break;
            draw(renderer, &h, &result, particles, eye);
            demo_window_end_frame(win);
        }
#endif
        if (!window && f + 1 == frames && renderer)
            draw(renderer, &h, &result, particles, eye);
    }
    int png_ok = !window && renderer && status == GLCOLLIDE_OK && demo_renderer_save_png(renderer, output) == 0;
    double total_ms = now_ms() - start_ms;
    size_t splat_texels = 0;
    for (size_t k = 0; h.splats && k < h.texels; k++)
        splat_texels += h.splats[k] > 0;
    printf("impacts per collider (from the map's id channel):");
    for (size_t c = 0; c < HAIL_COLLIDERS; c++)
        printf(" %s=%llu", hail_collider_names[c], per_collider[c]);
    printf("\n");
    printf("hail: particles=%zu frames=%d impacts=%llu mapped=%llu splat_texels=%zu "
           "record_mismatch=%llu step_ms_mean=%.2f time_ms=%.0f path=%s png=%s\n",
           particles, ran, impacts, mapped, splat_texels, record_mismatch,
           ran ? step_total_ms / ran : 0.0, total_ms, cpu || !gl ? "cpu" : "gpu",
           png_ok ? output : "none");
    glcollide_particles_result_clear(&result);
    glcollide_particles_destroy(&system);
    demo_renderer_destroy(renderer);
    glcollide_context_destroy(&gl);
#ifdef HAVE_GLFW
    if (win)
        glfwTerminate();
#endif
    free(h.splats);
    free(stones);
    return status == GLCOLLIDE_OK ? 0 : 1;
}
