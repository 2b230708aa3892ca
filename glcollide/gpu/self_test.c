/* SPDX-License-Identifier: MIT */
/*
 * Driver self-test: the mechanisms every GPU algorithm relies on, checked
 * against analytic answers on a 64x64 framebuffer before anything trusts them:
 * - depth test GEQUAL against a prior depth write, counted by an occlusion
 *   query (CULLIDE's visibility test);
 * - two-sided stencil counting (front faces increment, back faces decrement;
 *   the stencil ray-casting method);
 * - fragments that pass an early depth test incrementing an SSBO counter
 *   (visibility results without one query per object).
 */
#include "gpu/gl_internal.h"
#include "gpu/shaders.h"

#include <string.h>

#define SIDE 64

/* Quads as two triangles each; z in NDC ([-1, 1] maps to depth [0, 1]). */
static void quad(float *v, float x0, float x1, float z, int clockwise)
{
    float corners[6][2] = {{x0, -1}, {x1, -1}, {x1, 1}, {x0, -1}, {x1, 1}, {x0, 1}};
    for (int i = 0; i < 6; i++) {
        int k = clockwise ? 5 - i : i;
        v[3 * i + 0] = corners[k][0];
        v[3 * i + 1] = corners[k][1];
        v[3 * i + 2] = z;
    }
}

static int expect(const char *what, long long got, long long want)
{
    if (got == want)
        return GLCOLLIDE_OK;
    return glcollide_fail(GLCOLLIDE_ERROR_GL, "GL self-test: %s: got %lld, expected %lld", what,
                          got, want);
}

int glcollide_context_self_test(glcollide_context *context)
{
    if (!context)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "self-test: context is NULL");
    int status = glcollide_context_make_current(context);
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_gl_state saved;
    glcollide_gl_state_save(&saved);
    glcollide_gl_state_reset();

    GLuint program = glcollide_gl_program(
        "self-test", (const char *const[]){glcollide_shader_self_test_vertex, NULL},
        (const char *const[]){glcollide_shader_self_test_fragment, NULL}, NULL);
    GLuint framebuffer = 0, renderbuffers[2] = {0, 0}, vertex_array = 0, buffers[2] = {0, 0};
    GLuint query = 0;
    if (!program) {
        status = GLCOLLIDE_ERROR_GL;
        goto done;
    }
    glGenFramebuffers(1, &framebuffer);
    glGenRenderbuffers(2, renderbuffers);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glBindRenderbuffer(GL_RENDERBUFFER, renderbuffers[0]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, SIDE, SIDE);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, renderbuffers[0]);
    glBindRenderbuffer(GL_RENDERBUFFER, renderbuffers[1]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, SIDE, SIDE);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER,
                              renderbuffers[1]);
    GLenum complete = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (complete != GL_FRAMEBUFFER_COMPLETE) {
        status = glcollide_fail(GLCOLLIDE_ERROR_GL, "GL self-test: framebuffer incomplete (0x%x)",
                                (unsigned)complete);
        goto done;
    }

    /* 0: left half at z=-0.5 (depth 0.25); 1: whole at z=0 (0.5), ccw;
     * 2: whole, ccw; 3: left half, clockwise (back-facing). */
    float vertices[4][18];
    quad(vertices[0], -1, 0, -0.5f, 0);
    quad(vertices[1], -1, 1, 0.0f, 0);
    quad(vertices[2], -1, 1, 0.0f, 0);
    quad(vertices[3], -1, 0, 0.0f, 1);
    glGenVertexArrays(1, &vertex_array);
    glBindVertexArray(vertex_array);
    glGenBuffers(2, buffers);
    glBindBuffer(GL_ARRAY_BUFFER, buffers[0]);
    glBufferData(GL_ARRAY_BUFFER, sizeof vertices, vertices, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);
    GLuint zero = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers[1]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, sizeof zero, &zero, GL_DYNAMIC_READ);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffers[1]);
    glUseProgram(program);
    glViewport(0, 0, SIDE, SIDE);
    glClearDepth(1.0);
    glClearStencil(0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);

    /* Depth: write the left half at 0.25, then count GEQUAL passes of the
     * whole quad at 0.5 without writing: exactly the left half passes. */
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDrawArrays(GL_TRIANGLES, 0, 6);
    glDepthFunc(GL_GEQUAL);
    glDepthMask(GL_FALSE);
    glGenQueries(1, &query);
    glBeginQuery(GL_SAMPLES_PASSED, query);
    glDrawArrays(GL_TRIANGLES, 6, 6);
    glEndQuery(GL_SAMPLES_PASSED);
    GLuint samples = 0;
    glGetQueryObjectuiv(query, GL_QUERY_RESULT, &samples);
    GLuint fragments = 0;
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof fragments, &fragments);
    if ((status = expect("occlusion query after GEQUAL depth test", samples, SIDE * SIDE / 2)) ||
        (status = expect("SSBO counter after early depth test (first draw included)", fragments,
                         SIDE * SIDE / 2 + SIDE * SIDE / 2)))
        goto done;

    /* Two-sided stencil: a front quad over all, a front quad over all, a back
     * quad over the left half: 2 on the right, 1 on the left. */
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_STENCIL_TEST);
    glStencilFunc(GL_ALWAYS, 0, 0xff);
    glStencilOpSeparate(GL_FRONT, GL_KEEP, GL_KEEP, GL_INCR_WRAP);
    glStencilOpSeparate(GL_BACK, GL_KEEP, GL_KEEP, GL_DECR_WRAP);
    glDrawArrays(GL_TRIANGLES, 6, 18);
    unsigned char stencil[SIDE * SIDE];
    memset(stencil, 0xee, sizeof stencil);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, SIDE, SIDE, GL_STENCIL_INDEX, GL_UNSIGNED_BYTE, stencil);
    long long left = 0, right = 0;
    for (int y = 0; y < SIDE; y++)
        for (int x = 0; x < SIDE; x++) {
            left += x < SIDE / 2 && stencil[y * SIDE + x] == 1;
            right += x >= SIDE / 2 && stencil[y * SIDE + x] == 2;
        }
    if ((status = expect("two-sided stencil count, left half", left, SIDE * SIDE / 2)) ||
        (status = expect("two-sided stencil count, right half", right, SIDE * SIDE / 2)))
        goto done;
    status = glcollide_gl_check("self-test");

done:
    glDeleteQueries(1, &query);
    glDeleteBuffers(2, buffers);
    glDeleteVertexArrays(1, &vertex_array);
    glDeleteRenderbuffers(2, renderbuffers);
    glDeleteFramebuffers(1, &framebuffer);
    glDeleteProgram(program);
    glcollide_gl_state_restore(&saved);
    if (status == GLCOLLIDE_OK)
        status = glcollide_gl_check("self-test state restore");
    return status;
}
