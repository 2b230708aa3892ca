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

int demo_window_begin_frame(GLFWwindow *window, demo_renderer *renderer, double *yaw,
                            double *distance)
{
    if (glfwWindowShouldClose(window))
        return 0;
    if (glfwGetKey(window, GLFW_KEY_LEFT) == GLFW_PRESS)
        *yaw -= 0.03;
    if (glfwGetKey(window, GLFW_KEY_RIGHT) == GLFW_PRESS)
        *yaw += 0.03;
    if (glfwGetKey(window, GLFW_KEY_UP) == GLFW_PRESS)
        *distance *= 0.98;
    if (glfwGetKey(window, GLFW_KEY_DOWN) == GLFW_PRESS)
        *distance *= 1.02;
    int width, height;
    glfwGetFramebufferSize(window, &width, &height);
    demo_renderer_resize(renderer, width, height > 0 ? height : 1);
    return 1;
}

void demo_window_end_frame(GLFWwindow *window)
{
    glfwSwapBuffers(window);
    glfwPollEvents();
}
