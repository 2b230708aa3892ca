/* SPDX-License-Identifier: MIT */
/*
 * GL context: headless EGL creation, capabilities, the driver self-test, the
 * wrapped-context mode leaving the caller's state as it was, and errors.
 * These tests run for real: they fail when no EGL context can be made, unless
 * GLCOLLIDE_TEST_SKIP_GL=1 says this machine has no EGL (never set in CI).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "helpers/tests.h"

#include "gpu/gl_internal.h"

#include <epoxy/egl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int gl_skipped(void)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    return skip && strcmp(skip, "1") == 0;
}

static glcollide_context *make_context(void)
{
    glcollide_context *context = NULL;
    int status = glcollide_context_create_egl(&context);
    ck_assert_msg(status == GLCOLLIDE_OK,
                  "no headless EGL context (%s): install Mesa's EGL (libegl-mesa0, "
                  "libgl1-mesa-dri) or set GLCOLLIDE_TEST_SKIP_GL=1 on a machine without EGL",
                  glcollide_status_string(status));
    return context;
}

START_TEST(test_egl_context_caps)
{
    if (gl_skipped())
        return;
    glcollide_context *context = make_context();
    ck_assert(glcollide_context_is_owned(context));
    const glcollide_gl_caps *caps = glcollide_context_caps(context);
    ck_assert_int_ge(caps->gl_version, GLCOLLIDE_GL_VERSION_MIN);
    ck_assert_int_ge(caps->glsl_version, 430);
    ck_assert_int_ge(caps->max_ssbo_bindings, GLCOLLIDE_GL_SSBO_BINDINGS);
    ck_assert_int_ge(caps->max_texture_size, 4096);
    ck_assert(strlen(caps->renderer) > 0 && strcmp(caps->renderer, "?") != 0);
    ck_assert_int_eq(glcollide_context_self_test(context), GLCOLLIDE_OK);
    glcollide_context_destroy(&context);
    ck_assert_ptr_null(context);
    glcollide_context_destroy(&context); /* NULL handle: no-op */
    glcollide_context_destroy(NULL);
}
END_TEST

START_TEST(test_two_contexts)
{
    if (gl_skipped())
        return;
    glcollide_context *a = make_context();
    glcollide_context *b = make_context();
    ck_assert_int_eq(glcollide_context_self_test(a), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_context_self_test(b), GLCOLLIDE_OK);
    glcollide_context_destroy(&a);
    ck_assert_int_eq(glcollide_context_self_test(b), GLCOLLIDE_OK);
    glcollide_context_destroy(&b);
}
END_TEST

/* On another thread: takes the shared context, checks it works, gives it back. */
static void *use_shared_context(void *shared)
{
    glcollide_context *context = shared;
    intptr_t ok = glcollide_context_acquire(context) == GLCOLLIDE_OK &&
                  eglGetCurrentContext() == context->egl_context &&
                  glcollide_context_self_test(context) == GLCOLLIDE_OK;
    glcollide_context_release(context);
    ok &= eglGetCurrentContext() == EGL_NO_CONTEXT;
    return (void *)ok;
}

/*
 * One owned context shared by threads in turn (the ODE plugin's way):
 * acquire makes it current and release puts back what was current before
 * (the caller's own context, or none), so another thread can take it next;
 * a context just made is released the same way.
 */
START_TEST(test_shared_context)
{
    if (gl_skipped())
        return;
    glcollide_context *mine = make_context(), *shared = make_context();
    ck_assert(eglGetCurrentContext() == shared->egl_context);
    glcollide_context_release(shared); /* creation made it current: mine again */
    ck_assert(eglGetCurrentContext() == mine->egl_context);
    for (int turn = 0; turn < 3; turn++) {
        pthread_t thread;
        void *ok = NULL;
        ck_assert_int_eq(pthread_create(&thread, NULL, use_shared_context, shared), 0);
        pthread_join(thread, &ok);
        ck_assert_msg(ok != NULL, "turn %d: the other thread could not use the context", turn);
        ck_assert_int_eq(glcollide_context_acquire(shared), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_context_self_test(shared), GLCOLLIDE_OK);
        glcollide_context_release(shared);
        ck_assert(eglGetCurrentContext() == mine->egl_context);
    }
    glcollide_context_destroy(&shared);
    glcollide_context_destroy(&mine);
}
END_TEST

/* A caller's state that differs from every default the self-test changes. */
static void set_caller_state(GLuint framebuffer, GLuint buffer)
{
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glViewport(1, 2, 30, 40);
    glEnable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glDepthFunc(GL_GREATER);
    glDepthMask(GL_FALSE);
    glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_FALSE);
    glStencilOpSeparate(GL_BACK, GL_ZERO, GL_INVERT, GL_REPLACE);
    glStencilFuncSeparate(GL_FRONT, GL_NOTEQUAL, 3, 0x0f);
    glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
    glClearDepth(0.5);
    glClearStencil(7);
    glPixelStorei(GL_PACK_ALIGNMENT, 8);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
}

START_TEST(test_wrapped_context_restores_state)
{
    if (gl_skipped())
        return;
    glcollide_context *owner = make_context(); /* stands for the caller's context */
    GLuint framebuffer, renderbuffer, buffer;
    test_gl_framebuffer_create(&framebuffer, &renderbuffer);
    glGenBuffers(1, &buffer);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer);
    glBufferData(GL_SHADER_STORAGE_BUFFER, 64, NULL, GL_STATIC_DRAW);
    set_caller_state(framebuffer, buffer);

    glcollide_gl_state before, after;
    glcollide_gl_state_save(&before);
    glcollide_context *wrapped = NULL;
    ck_assert_int_eq(glcollide_context_wrap_current(&wrapped), GLCOLLIDE_OK);
    ck_assert(!glcollide_context_is_owned(wrapped));
    ck_assert_int_eq(glcollide_context_self_test(wrapped), GLCOLLIDE_OK);
    glcollide_gl_state_save(&after);
    ck_assert_int_eq(glGetError(), GL_NO_ERROR);
    ck_assert_msg(memcmp(&before, &after, sizeof before) == 0,
                  "the self-test changed the caller's GL state");
    ck_assert_int_eq(after.viewport[2], 30);
    ck_assert_int_eq(after.draw_framebuffer, (GLint)framebuffer);
    ck_assert_int_eq(after.ssbo_binding[0], (GLint)buffer);
    glcollide_context_destroy(&wrapped); /* leaves the caller's context alone */
    ck_assert_int_eq(glcollide_context_self_test(owner), GLCOLLIDE_OK);
    glDeleteBuffers(1, &buffer);
    glDeleteRenderbuffers(1, &renderbuffer);
    glDeleteFramebuffers(1, &framebuffer);
    glcollide_context_destroy(&owner);
}
END_TEST

START_TEST(test_owned_context_left_at_defaults)
{
    if (gl_skipped())
        return;
    glcollide_context *context = make_context();
    glcollide_gl_state before, after;
    glcollide_gl_state_save(&before);
    ck_assert_int_eq(glcollide_context_self_test(context), GLCOLLIDE_OK);
    glcollide_gl_state_save(&after);
    ck_assert(memcmp(&before, &after, sizeof before) == 0);
    ck_assert(!after.depth_test && !after.stencil_test);
    ck_assert_int_eq(after.depth_func, GL_LESS);
    glcollide_context_destroy(&context);
}
END_TEST

START_TEST(test_wrap_without_current_context)
{
    if (gl_skipped())
        return;
    /* Make and drop a context so that EGL is loaded but nothing is current. */
    glcollide_context *context = make_context();
    glcollide_context_destroy(&context);
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    glcollide_context *wrapped = NULL;
    int status = glcollide_context_wrap_current(&wrapped);
    test_log_capture_stop();
    ck_assert_int_eq(status, GLCOLLIDE_ERROR_NO_CONTEXT);
    ck_assert_ptr_null(wrapped);
    ck_assert_int_eq(test_log_count(), 1);
    ck_assert_msg(strstr(test_log_last(), "no OpenGL context is current"), "%s", test_log_last());
}
END_TEST

START_TEST(test_status_and_arguments)
{
    ck_assert_str_eq(glcollide_status_string(GLCOLLIDE_OK), "success");
    ck_assert_str_eq(glcollide_status_string(GLCOLLIDE_ERROR_NO_CONTEXT), "no GL context");
    ck_assert_str_eq(glcollide_status_string(12345), "unknown status");
    for (int s = GLCOLLIDE_ERROR_LIMIT; s < 0; s++)
        ck_assert_str_ne(glcollide_status_string(s), "unknown status");
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    ck_assert_int_eq(glcollide_context_create_egl(NULL), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_context_self_test(NULL), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_context_make_current(NULL), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    test_log_capture_stop();
    ck_assert_ptr_null(glcollide_context_caps(NULL));
}
END_TEST

/* A context made with GLCOLLIDE_EGL_SKIP=skip (NULL: unset), the log at
 * info level captured; its status. */
static int create_skipping(const char *skip, glcollide_context **context)
{
    if (skip)
        setenv("GLCOLLIDE_EGL_SKIP", skip, 1);
    else
        unsetenv("GLCOLLIDE_EGL_SKIP");
    glcollide_set_log_level(GLCOLLIDE_LOG_INFO);
    test_log_capture_start(GLCOLLIDE_LOG_INFO);
    int status = glcollide_context_create_egl(context);
    test_log_capture_stop();
    glcollide_set_log_level(GLCOLLIDE_LOG_WARNING);
    unsetenv("GLCOLLIDE_EGL_SKIP");
    return status;
}

/*
 * The displays are tried in order (the surfaceless platform, each EGL device,
 * the default display) and the one taken is logged at info level. Here (and
 * in CI: Mesa) the surfaceless platform comes first and gives llvmpipe; made
 * to fail, Mesa's software EGL device gives the same renderer, and the log
 * says why the first was passed over; with every one failing, one error
 * names each in the order tried, and no context is made.
 */
START_TEST(test_egl_display_order)
{
    if (gl_skipped())
        return;
    glcollide_context *context = NULL;
    ck_assert_int_eq(create_skipping(NULL, &context), GLCOLLIDE_OK);
    ck_assert_msg(strstr(test_log_all(), ", on the surfaceless platform\n"),
                  "the surfaceless platform not taken first:\n%s", test_log_all());
    char renderer[256];
    snprintf(renderer, sizeof renderer, "%s", glcollide_context_caps(context)->renderer);
    glcollide_context_destroy(&context);

    ck_assert_int_eq(create_skipping("surfaceless", &context), GLCOLLIDE_OK);
    const char *log = test_log_all();
    const char *passed =
        strstr(log, "EGL: the surfaceless platform: skipped (GLCOLLIDE_EGL_SKIP)\n");
    const char *taken = strstr(log, ", on EGL device ");
    ck_assert_msg(passed && taken && passed < taken,
                  "no fallback from the surfaceless platform to an EGL device:\n%s", log);
    ck_assert_str_eq(glcollide_context_caps(context)->renderer, renderer);
    ck_assert_int_eq(glcollide_context_self_test(context), GLCOLLIDE_OK);
    glcollide_context_destroy(&context);

    ck_assert_int_eq(create_skipping("surfaceless,device,default", &context),
                     GLCOLLIDE_ERROR_NO_CONTEXT);
    ck_assert_ptr_null(context);
    const char *error = test_log_last();
    const char *first = strstr(error, "the surfaceless platform: skipped (GLCOLLIDE_EGL_SKIP); ");
    const char *device = strstr(error, "EGL device 0 of ");
    const char *last = strstr(error, "the default display: skipped (GLCOLLIDE_EGL_SKIP))");
    ck_assert_msg(strncmp(error, "EGL: no OpenGL 4.3 core context (", 33) == 0 && first && device &&
                      last && first < device && device < last,
                  "the error does not name each display in order: %s", error);
}
END_TEST

/*
 * Which client extensions let EGL's devices be listed: NVIDIA's driver (580,
 * through glvnd, on an H100) lists EGL_EXT_device_base and neither
 * EGL_EXT_device_enumeration nor EGL_EXT_device_query, which it contains;
 * Mesa lists all three. No GL needed.
 */
START_TEST(test_egl_device_extensions)
{
    const char *nvidia = "EGL_EXT_platform_base EGL_EXT_device_base "
                         "EGL_KHR_client_get_all_proc_addresses EGL_EXT_client_extensions "
                         "EGL_KHR_debug EGL_KHR_platform_x11 EGL_EXT_platform_x11 "
                         "EGL_EXT_platform_device EGL_MESA_platform_surfaceless "
                         "EGL_EXT_explicit_device";
    const char *mesa = "EGL_EXT_device_base EGL_EXT_device_enumeration EGL_EXT_device_query "
                       "EGL_EXT_platform_base EGL_KHR_client_get_all_proc_addresses "
                       "EGL_EXT_client_extensions EGL_KHR_debug EGL_EXT_platform_device "
                       "EGL_MESA_platform_surfaceless";
    ck_assert_ptr_null(glcollide_egl_device_extension_missing(nvidia));
    ck_assert_ptr_null(glcollide_egl_device_extension_missing(mesa));
    ck_assert_ptr_null(glcollide_egl_device_extension_missing(
        "EGL_EXT_platform_base EGL_EXT_device_enumeration EGL_EXT_platform_device"));
    ck_assert_str_eq(glcollide_egl_device_extension_missing(
                         "EGL_EXT_platform_base EGL_EXT_platform_device EGL_EXT_device_query"),
                     "EGL_EXT_device_enumeration");
    ck_assert_str_eq(
        glcollide_egl_device_extension_missing("EGL_EXT_platform_base EGL_EXT_device_base"),
        "EGL_EXT_platform_device");
    ck_assert_str_eq(
        glcollide_egl_device_extension_missing("EGL_EXT_platform_device_x EGL_EXT_device_base"),
        "EGL_EXT_platform_base");
    ck_assert_str_eq(glcollide_egl_device_extension_missing(NULL), "EGL_EXT_platform_base");
}
END_TEST

Suite *suite_context(void)
{
    Suite *suite = suite_create("context");
    TCase *tc = tcase_create("egl");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_egl_context_caps);
    tcase_add_test(tc, test_two_contexts);
    tcase_add_test(tc, test_shared_context);
    tcase_add_test(tc, test_wrapped_context_restores_state);
    tcase_add_test(tc, test_owned_context_left_at_defaults);
    tcase_add_test(tc, test_wrap_without_current_context);
    tcase_add_test(tc, test_status_and_arguments);
    tcase_add_test(tc, test_egl_display_order);
    tcase_add_test(tc, test_egl_device_extensions);
    suite_add_tcase(suite, tc);
    return suite;
}
