/* SPDX-License-Identifier: MIT */
/*
 * Headless EGL back-end: a surfaceless OpenGL core context. Mesa offers
 * EGL_PLATFORM_SURFACELESS_MESA (llvmpipe or the GPU's driver); NVIDIA's
 * driver offers EGL_EXT_platform_device instead; eglGetDisplay(DEFAULT) is
 * the last resort. libEGL is probed with dlopen first: libepoxy aborts when it
 * cannot load it, and glcollide must report instead.
 */
#define _GNU_SOURCE
#include "gpu/gl_internal.h"

#include <dlfcn.h>
#include <epoxy/egl.h>
#include <string.h>

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif
#ifndef EGL_PLATFORM_DEVICE_EXT
#define EGL_PLATFORM_DEVICE_EXT 0x313F
#endif
#ifndef EGL_NO_CONFIG_KHR
#define EGL_NO_CONFIG_KHR ((EGLConfig)0)
#endif

static const char *egl_error_name(EGLint error)
{
    switch (error) {
#define NAME(e) \
    case e: return #e
        NAME(EGL_SUCCESS);
        NAME(EGL_NOT_INITIALIZED);
        NAME(EGL_BAD_ACCESS);
        NAME(EGL_BAD_ALLOC);
        NAME(EGL_BAD_ATTRIBUTE);
        NAME(EGL_BAD_CONFIG);
        NAME(EGL_BAD_CONTEXT);
        NAME(EGL_BAD_CURRENT_SURFACE);
        NAME(EGL_BAD_DISPLAY);
        NAME(EGL_BAD_MATCH);
        NAME(EGL_BAD_NATIVE_PIXMAP);
        NAME(EGL_BAD_NATIVE_WINDOW);
        NAME(EGL_BAD_PARAMETER);
        NAME(EGL_BAD_SURFACE);
        NAME(EGL_CONTEXT_LOST);
#undef NAME
    }
    return "unknown EGL error";
}

static int egl_fail(const char *call)
{
    return glcollide_fail(GLCOLLIDE_ERROR_NO_CONTEXT, "EGL: %s failed: %s", call,
                          egl_error_name(eglGetError()));
}

static int libegl_available(void)
{
    void *handle = dlopen("libEGL.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!handle)
        return 0;
    dlclose(handle);
    return 1;
}

static int has_client_extension(const char *name)
{
    const char *list = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!list)
        return 0;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

static EGLDisplay open_display(void)
{
    if (has_client_extension("EGL_MESA_platform_surfaceless") &&
        has_client_extension("EGL_EXT_platform_base")) {
        EGLDisplay display =
            eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (display != EGL_NO_DISPLAY) {
            glcollide_log_debug("EGL: using the surfaceless platform");
            return display;
        }
    }
    if (has_client_extension("EGL_EXT_platform_device") &&
        has_client_extension("EGL_EXT_device_enumeration")) {
        EGLDeviceEXT devices[8];
        EGLint count = 0;
        if (eglQueryDevicesEXT(8, devices, &count) && count > 0) {
            EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[0], NULL);
            if (display != EGL_NO_DISPLAY) {
                glcollide_log_debug("EGL: using the device platform (%d devices)", (int)count);
                return display;
            }
        }
    }
    return eglGetDisplay(EGL_DEFAULT_DISPLAY);
}

int glcollide_egl_create(glcollide_context *context)
{
    if (!libegl_available())
        return glcollide_fail(GLCOLLIDE_ERROR_NO_CONTEXT, "EGL: libEGL.so.1 cannot be loaded: %s",
                              dlerror());
    EGLDisplay display = open_display();
    if (display == EGL_NO_DISPLAY)
        return egl_fail("eglGetPlatformDisplay/eglGetDisplay");
    EGLint major = 0, minor = 0;
    if (!eglInitialize(display, &major, &minor))
        return egl_fail("eglInitialize");
    int status = GLCOLLIDE_ERROR_NO_CONTEXT;
    if (!epoxy_has_egl_extension(display, "EGL_KHR_surfaceless_context")) {
        glcollide_fail(status, "EGL: display lacks EGL_KHR_surfaceless_context");
        goto fail;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        egl_fail("eglBindAPI(EGL_OPENGL_API)");
        goto fail;
    }
    EGLConfig config = EGL_NO_CONFIG_KHR;
    if (!epoxy_has_egl_extension(display, "EGL_KHR_no_config_context")) {
        /* EGL_SURFACE_TYPE 0 matches every config: no surface is ever made. */
        const EGLint attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0,
                                     EGL_NONE};
        EGLint count = 0;
        if (!eglChooseConfig(display, attributes, &config, 1, &count) || count < 1) {
            egl_fail("eglChooseConfig(EGL_OPENGL_BIT)");
            goto fail;
        }
    }
    /* Asking for the minimum core version gives the highest compatible one. */
    const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                                         GLCOLLIDE_GL_VERSION_MIN / 10,
                                         EGL_CONTEXT_MINOR_VERSION,
                                         GLCOLLIDE_GL_VERSION_MIN % 10,
                                         EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                         EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                         EGL_NONE};
    EGLContext egl_context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attributes);
    if (egl_context == EGL_NO_CONTEXT) {
        EGLint error = eglGetError();
        status = error == EGL_BAD_MATCH ? GLCOLLIDE_ERROR_GL_UNSUPPORTED : GLCOLLIDE_ERROR_NO_CONTEXT;
        glcollide_fail(status, "EGL: eglCreateContext(OpenGL %d.%d core) failed: %s",
                       GLCOLLIDE_GL_VERSION_MIN / 10, GLCOLLIDE_GL_VERSION_MIN % 10,
                       egl_error_name(error));
        goto fail;
    }
    glcollide_egl_save(context);
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, egl_context)) {
        egl_fail("eglMakeCurrent");
        eglDestroyContext(display, egl_context);
        goto fail;
    }
    context->egl_display = display;
    context->egl_context = egl_context;
    glcollide_log_info("EGL %d.%d: %s", (int)major, (int)minor,
                       eglQueryString(display, EGL_VENDOR));
    return GLCOLLIDE_OK;
fail:
    /* No eglTerminate: the display is shared by every context of the process
     * on this platform, and terminating it would break another glcollide context. */
    return status;
}

int glcollide_gl_context_is_current(void)
{
    if (libegl_available() && eglGetCurrentContext() != EGL_NO_CONTEXT)
        return 1;
    /* A GLX context can only be current if the caller loaded libGL/libGLX. */
    void *(*get_current)(void) = (void *(*)(void))dlsym(RTLD_DEFAULT, "glXGetCurrentContext");
    return get_current && get_current() != NULL;
}

int glcollide_egl_make_current(glcollide_context *context)
{
    if (eglGetCurrentContext() == context->egl_context)
        return GLCOLLIDE_OK;
    if (!eglMakeCurrent(context->egl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, context->egl_context))
        return egl_fail("eglMakeCurrent");
    return GLCOLLIDE_OK;
}

void glcollide_egl_save(glcollide_context *context)
{
    context->saved_context = eglGetCurrentContext();
    context->saved_display = eglGetCurrentDisplay();
    context->saved_draw = eglGetCurrentSurface(EGL_DRAW);
    context->saved_read = eglGetCurrentSurface(EGL_READ);
}

void glcollide_egl_restore(glcollide_context *context)
{
    if (eglGetCurrentContext() != context->egl_context)
        return; /* someone else's is current: theirs to keep */
    if (context->saved_context != EGL_NO_CONTEXT && context->saved_context != context->egl_context)
        eglMakeCurrent(context->saved_display, context->saved_draw, context->saved_read,
                       context->saved_context);
    else
        eglMakeCurrent(context->egl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    context->saved_context = EGL_NO_CONTEXT;
}

void glcollide_egl_destroy(glcollide_context *context)
{
    if (!context->egl_display)
        return;
    if (eglGetCurrentContext() == context->egl_context)
        eglMakeCurrent(context->egl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(context->egl_display, context->egl_context);
    /* Terminating the display would also kill other contexts of the process on
     * it (EGL displays are shared per platform), e.g. a second glcollide context:
     * eglReleaseThread is enough to let EGL free this thread's state. */
    eglReleaseThread();
    context->egl_display = NULL;
    context->egl_context = NULL;
}
