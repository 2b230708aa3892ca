/* SPDX-License-Identifier: MIT */
/* The demos' --window option (only when built with GLFW): one window with an
 * OpenGL core context made current. */
#ifndef GLCOLLIDE_DEMOS_WINDOW_H
#define GLCOLLIDE_DEMOS_WINDOW_H

#include <GLFW/glfw3.h>

/* Starts GLFW and opens a width x height window titled "glcollide <demo>"
 * with an OpenGL major.minor core context, made current. NULL when there is
 * no display or no such context (message on stderr, prefixed by demo). */
GLFWwindow *demo_window_open(const char *demo, int width, int height, int major, int minor);

#endif
