/* SPDX-License-Identifier: MIT */
/* The demos' --window option (only when built with GLFW): one window with an
 * OpenGL core context made current. */
#ifndef GLCOLLIDE_DEMOS_WINDOW_H
#define GLCOLLIDE_DEMOS_WINDOW_H

#include "render.h"

#include <GLFW/glfw3.h>

/* Starts GLFW and opens a width x height window titled "glcollide <demo>"
 * with an OpenGL major.minor core context, made current. NULL when there is
 * no display or no such context (message on stderr, prefixed by demo). */
GLFWwindow *demo_window_open(const char *demo, int width, int height, int major, int minor);

/* Start of a frame: 0 when the window was closed. Otherwise the arrow keys
 * have turned (left, right) and moved (up, down) the orbit camera, and the
 * renderer has the framebuffer's size; the caller draws, then calls
 * demo_window_end_frame. */
int demo_window_begin_frame(GLFWwindow *window, demo_renderer *renderer, double *yaw,
                            double *distance);
/* Shows the frame drawn and takes the window's events. */
void demo_window_end_frame(GLFWwindow *window);

#endif
