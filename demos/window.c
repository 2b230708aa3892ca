/* SPDX-License-Identifier: MIT */
#include "window.h"

#include <stdio.h>

GLFWwindow *demo_window_open(const char *demo, int width, int height, int major, int minor)
{
    if (!glfwInit()) {
        fprintf(stderr, "%s: GLFW cannot start (no display?)\n", demo);
        return NULL;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, major);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, minor);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    char title[128];
    snprintf(title, sizeof title, "glcollide %s", demo);
    GLFWwindow *window = glfwCreateWindow(width, height, title, NULL, NULL);
    if (!window) {
        fprintf(stderr, "%s: no window (OpenGL %d.%d core needed)\n", demo, major, minor);
        glfwTerminate();
        return NULL;
    }
    glfwMakeContextCurrent(window);
    return window;
}
