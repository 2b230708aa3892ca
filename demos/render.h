/* SPDX-License-Identifier: MIT */
/* A small flat-shaded renderer for the demos: triangle soups in world space,
 * into an offscreen framebuffer (saved as PNG) or the current window. */
#ifndef GLCOLLIDE_DEMOS_RENDER_H
#define GLCOLLIDE_DEMOS_RENDER_H

#include <stddef.h>

typedef struct demo_renderer demo_renderer;

/* A GL 3.3+ core context must be current. offscreen: render into an FBO of
 * width x height; otherwise into framebuffer 0. Returns NULL on failure
 * (message on stderr). */
demo_renderer *demo_renderer_create(int width, int height, int offscreen);
void demo_renderer_destroy(demo_renderer *renderer);
void demo_renderer_resize(demo_renderer *renderer, int width, int height);

/* Collect triangles (9 doubles each, world space, z up) with one colour. */
void demo_renderer_clear(demo_renderer *renderer);
void demo_renderer_add(demo_renderer *renderer, const double *triangles, size_t count,
                       const float color[3]);
/* Draws what was collected, seen from eye towards target. */
void demo_renderer_draw(demo_renderer *renderer, const double eye[3], const double target[3]);
/* Offscreen only: writes the last frame. 0 on success. */
int demo_renderer_save_png(demo_renderer *renderer, const char *path);

#endif
