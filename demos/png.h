/* SPDX-License-Identifier: MIT */
/* A minimal PNG writer for the demos (RGB or RGBA, 8 bits, stored deflate). */
#ifndef GLCOLLIDE_DEMOS_PNG_H
#define GLCOLLIDE_DEMOS_PNG_H

/* rows top to bottom, channels 3 or 4. Returns 0 on success, -1 with errno set. */
int demo_png_write(const char *path, const unsigned char *pixels, int width, int height,
                   int channels);

#endif
