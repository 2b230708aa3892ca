/* SPDX-License-Identifier: MIT */
#include "render.h"

#include "png.h"

#include <epoxy/gl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct demo_renderer {
    int width, height, offscreen;
    GLuint program, vertex_array, buffer, framebuffer, color, depth;
    float *vertices; /* position, normal, colour: 9 floats per vertex */
    size_t count, capacity;
};

static const char *const vertex_source =
    "#version 330 core\n"
    "layout(location = 0) in vec3 position;\n"
    "layout(location = 1) in vec3 normal;\n"
    "layout(location = 2) in vec3 color;\n"
    "uniform mat4 view_projection;\n"
    "out vec3 v_normal;\n"
    "out vec3 v_color;\n"
    "void main() {\n"
    "    v_normal = normal;\n"
    "    v_color = color;\n"
    "    gl_Position = view_projection * vec4(position, 1.0);\n"
    "}\n";

static const char *const fragment_source =
    "#version 330 core\n"
    "in vec3 v_normal;\n"
    "in vec3 v_color;\n"
    "out vec4 out_color;\n"
    "void main() {\n"
    "    vec3 n = normalize(gl_FrontFacing ? v_normal : -v_normal);\n"
    "    float light = 0.35 + 0.65 * max(dot(n, normalize(vec3(0.4, 0.3, 1.0))), 0.0);\n"
    "    out_color = vec4(v_color * light, 1.0);\n"
    "}\n";

static GLuint compile(GLenum type, const char *source)
{
    GLuint shader = glCreateShader(type);
    glShaderSource(shader, 1, &source, NULL);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[512] = "";
        glGetShaderInfoLog(shader, sizeof log, NULL, log);
        fprintf(stderr, "render: shader: %s\n", log);
    }
    return shader;
}

demo_renderer *demo_renderer_create(int width, int height, int offscreen)
{
    demo_renderer *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->offscreen = offscreen;
    GLuint vs = compile(GL_VERTEX_SHADER, vertex_source);
    GLuint fs = compile(GL_FRAGMENT_SHADER, fragment_source);
    r->program = glCreateProgram();
    glAttachShader(r->program, vs);
    glAttachShader(r->program, fs);
    glLinkProgram(r->program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(r->program, GL_LINK_STATUS, &ok);
    if (!ok) {
        fprintf(stderr, "render: the shaders do not link\n");
        demo_renderer_destroy(r);
        return NULL;
    }
    glGenVertexArrays(1, &r->vertex_array);
    glGenBuffers(1, &r->buffer);
    glBindVertexArray(r->vertex_array);
    glBindBuffer(GL_ARRAY_BUFFER, r->buffer);
    for (GLuint a = 0; a < 3; a++) {
        glVertexAttribPointer(a, 3, GL_FLOAT, GL_FALSE, 9 * sizeof(float),
                              (const void *)(uintptr_t)(3 * a * sizeof(float)));
        glEnableVertexAttribArray(a);
    }
    glBindVertexArray(0);
    demo_renderer_resize(r, width, height);
    return r;
}

void demo_renderer_resize(demo_renderer *r, int width, int height)
{
    r->width = width;
    r->height = height;
    if (!r->offscreen)
        return;
    glDeleteFramebuffers(1, &r->framebuffer);
    glDeleteRenderbuffers(1, &r->color);
    glDeleteRenderbuffers(1, &r->depth);
    glGenFramebuffers(1, &r->framebuffer);
    glGenRenderbuffers(1, &r->color);
    glGenRenderbuffers(1, &r->depth);
    glBindRenderbuffer(GL_RENDERBUFFER, r->color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, r->depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, r->framebuffer);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, r->color);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, r->depth);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
}

void demo_renderer_destroy(demo_renderer *r)
{
    if (!r)
        return;
    glDeleteProgram(r->program);
    glDeleteVertexArrays(1, &r->vertex_array);
    glDeleteBuffers(1, &r->buffer);
    glDeleteFramebuffers(1, &r->framebuffer);
    glDeleteRenderbuffers(1, &r->color);
    glDeleteRenderbuffers(1, &r->depth);
    free(r->vertices);
    free(r);
}

void demo_renderer_clear(demo_renderer *r)
{
    r->count = 0;
}

void demo_renderer_add(demo_renderer *r, const double *t, size_t count, const float color[3])
{
    if (r->count + 3 * count > r->capacity) {
        size_t grown = r->capacity ? r->capacity : 4096;
        while (grown < r->count + 3 * count)
            grown *= 2;
        float *bigger = realloc(r->vertices, grown * 9 * sizeof(float));
        if (!bigger)
            return;
        r->vertices = bigger;
        r->capacity = grown;
    }
    for (size_t i = 0; i < count; i++, t += 9) {
        double e1[3] = {t[3] - t[0], t[4] - t[1], t[5] - t[2]};
        double e2[3] = {t[6] - t[0], t[7] - t[1], t[8] - t[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++)
            n[k] = len > 0 ? n[k] / len : 0;
        for (int c = 0; c < 3; c++) {
            float *v = r->vertices + 9 * r->count++;
            for (int k = 0; k < 3; k++) {
                v[k] = (float)t[3 * c + k];
                v[3 + k] = (float)n[k];
                v[6 + k] = color[k];
            }
        }
    }
}

/* Perspective look-at, column-major, z up. */
static void view_projection(const double eye[3], const double target[3], double aspect, float m[16])
{
    double f[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
    double fl = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int k = 0; k < 3; k++)
        f[k] /= fl;
    double up[3] = {0, 0, 1};
    double s[3] = {f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0]};
    double sl = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    for (int k = 0; k < 3; k++)
        s[k] /= sl;
    double u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
    double view[16] = {s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0,
                       -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]),
                       -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]),
                       f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2], 1};
    double near_plane = 0.05, far_plane = 100, t = 1.0 / tan(0.5 * 45.0 * 3.14159265358979 / 180.0);
    double proj[16] = {t / aspect, 0, 0, 0, 0, t, 0, 0, 0, 0,
                       (far_plane + near_plane) / (near_plane - far_plane), -1, 0, 0,
                       2 * far_plane * near_plane / (near_plane - far_plane), 0};
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double sum = 0;
            for (int k = 0; k < 4; k++)
                sum += proj[k * 4 + row] * view[c * 4 + k];
            m[c * 4 + row] = (float)sum;
        }
}

void demo_renderer_draw(demo_renderer *r, const double eye[3], const double target[3])
{
    glBindFramebuffer(GL_FRAMEBUFFER, r->offscreen ? r->framebuffer : 0);
    glViewport(0, 0, r->width, r->height);
    glClearColor(0.92f, 0.93f, 0.95f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glUseProgram(r->program);
    float m[16];
    view_projection(eye, target, (double)r->width / r->height, m);
    glUniformMatrix4fv(glGetUniformLocation(r->program, "view_projection"), 1, GL_FALSE, m);
    glBindVertexArray(r->vertex_array);
    glBindBuffer(GL_ARRAY_BUFFER, r->buffer);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(r->count * 9 * sizeof(float)), r->vertices,
                 GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, (GLsizei)r->count);
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_DEPTH_TEST);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

int demo_renderer_save_png(demo_renderer *r, const char *path)
{
    if (!r->offscreen)
        return -1;
    size_t row = (size_t)r->width * 4;
    unsigned char *pixels = malloc(row * (size_t)r->height);
    unsigned char *flipped = malloc(row * (size_t)r->height);
    int status = -1;
    if (pixels && flipped) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, r->framebuffer);
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glReadPixels(0, 0, r->width, r->height, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        for (int y = 0; y < r->height; y++) /* GL rows run bottom up */
            memcpy(flipped + (size_t)y * row, pixels + (size_t)(r->height - 1 - y) * row, row);
        status = demo_png_write(path, flipped, r->width, r->height, 4);
    }
    free(pixels);
    free(flipped);
    return status;
}
