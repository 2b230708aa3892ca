/* SPDX-License-Identifier: MIT */
/*
 * Headless EGL back-end: a surfaceless OpenGL core context, from the first
 * display that gives one, tried in this order:
 *   1. Mesa's surfaceless platform (EGL_PLATFORM_SURFACELESS_MESA: the GPU's
 *      Mesa driver, or llvmpipe);
 *   2. each EGL device (EGL_EXT_platform_device), hardware ones first: NVIDIA's
 *      driver has devices and no surfaceless platform;
 *   3. the default display (eglGetDisplay(EGL_DEFAULT_DISPLAY)).
 * A display that exists but whose eglInitialize or context creation fails
 * passes to the next (at info level, with the reason), and when every one
 * fails one error names each reason. Where the display taken gives a
 * software renderer and a hardware device is still untried (a machine with
 * NVIDIA's driver and Mesa beside it: Mesa's surfaceless platform there is
 * llvmpipe), the hardware devices are tried too and the first with a
 * hardware renderer is taken. The choice is logged at info level.
 * GLCOLLIDE_EGL_SKIP=surfaceless,device,deviceN,default (any of them) makes
 * the named ones fail as if eglInitialize had: to steer away from a display
 * that misbehaves, and for the tests of this order.
 * libEGL is probed with dlopen first: libepoxy aborts when it cannot load
 * it, and glcollide must report instead.
 */
#define _GNU_SOURCE
#include "gpu/gl_internal.h"

#include <dlfcn.h>
#include <epoxy/egl.h>
#include <stdio.h>
#include <stdlib.h>
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
#ifndef EGL_DRM_DEVICE_FILE_EXT
#define EGL_DRM_DEVICE_FILE_EXT 0x3233
#endif

enum { MAX_DEVICES = 16 };

static const char *egl_error_name(EGLint error)
{
    switch (error) {
#define NAME(e)                                                                                    \
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

/* Is name a word of the space-separated list? */
static int has_word(const char *list, const char *name)
{
    if (!list)
        return 0;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

static int has_client_extension(const char *name)
{
    return has_word(eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS), name);
}

/* A display to try: the surfaceless platform, an EGL device or the default. */
typedef struct egl_candidate {
    EGLenum platform; /* EGL_PLATFORM_SURFACELESS_MESA, EGL_PLATFORM_DEVICE_EXT, 0: default */
    EGLDeviceEXT device;
    int software;  /* a device of Mesa's software rasterizer */
    char name[24]; /* as GLCOLLIDE_EGL_SKIP names it: surfaceless, device3, default */
    char label[128];
} egl_candidate;

/* Is the candidate named in GLCOLLIDE_EGL_SKIP ("device" names them all)? */
static int skipped(const egl_candidate *c)
{
    const char *skip = getenv("GLCOLLIDE_EGL_SKIP");
    if (!skip || !*skip)
        return 0;
    char list[256];
    snprintf(list, sizeof list, "%s", skip);
    for (char *p = list; *p; p++)
        if (*p == ',')
            *p = ' ';
    return has_word(list, c->name) ||
           (c->platform == EGL_PLATFORM_DEVICE_EXT && has_word(list, "device"));
}

const char *glcollide_egl_device_extension_missing(const char *client_extensions)
{
    /* EGL_EXT_device_base is device_enumeration and device_query together
     * (its specification); NVIDIA's driver lists only it. */
    static const char *const needed[] = {"EGL_EXT_platform_base", "EGL_EXT_platform_device"};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (!has_word(client_extensions, needed[i]))
            return needed[i];
    if (!has_word(client_extensions, "EGL_EXT_device_base") &&
        !has_word(client_extensions, "EGL_EXT_device_enumeration"))
        return "EGL_EXT_device_enumeration";
    return NULL;
}

/* The EGL devices (at most MAX_DEVICES) into devices; their number, or 0
 * and why none in why. */
static EGLint query_devices(EGLDeviceEXT *devices, char *why, size_t size)
{
    const char *missing =
        glcollide_egl_device_extension_missing(eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS));
    if (missing) {
        snprintf(why, size, "no %s among EGL's client extensions", missing);
        return 0;
    }
    EGLint count = 0;
    if (!eglQueryDevicesEXT(MAX_DEVICES, devices, &count)) {
        snprintf(why, size, "eglQueryDevicesEXT failed: %s", egl_error_name(eglGetError()));
        return 0;
    }
    if (count <= 0)
        snprintf(why, size, "eglQueryDevicesEXT lists none");
    return count > 0 ? count : 0;
}

/* The displays to try, in order: surfaceless, hardware devices, software
 * devices, default. Returns how many (at most 2 + MAX_DEVICES); where no
 * device is among them, why in no_device. */
static int list_candidates(egl_candidate *list, char *no_device, size_t size)
{
    int n = 0;
    if (has_client_extension("EGL_MESA_platform_surfaceless") &&
        has_client_extension("EGL_EXT_platform_base")) {
        list[n] = (egl_candidate){.platform = EGL_PLATFORM_SURFACELESS_MESA};
        snprintf(list[n].name, sizeof list[n].name, "surfaceless");
        snprintf(list[n].label, sizeof list[n].label, "the surfaceless platform");
        n++;
    }
    EGLDeviceEXT devices[MAX_DEVICES];
    EGLint count = query_devices(devices, no_device, size);
    int query =
        has_client_extension("EGL_EXT_device_query") || has_client_extension("EGL_EXT_device_base");
    for (int pass = 0; pass < 2; pass++) /* hardware, then software */
        for (EGLint d = 0; d < count; d++) {
            const char *extensions =
                query ? eglQueryDeviceStringEXT(devices[d], EGL_EXTENSIONS) : NULL;
            int software = has_word(extensions, "EGL_MESA_device_software");
            if (software != pass)
                continue;
            const char *file = has_word(extensions, "EGL_EXT_device_drm")
                                   ? eglQueryDeviceStringEXT(devices[d], EGL_DRM_DEVICE_FILE_EXT)
                                   : NULL;
            list[n] = (egl_candidate){
                .platform = EGL_PLATFORM_DEVICE_EXT, .device = devices[d], .software = software};
            snprintf(list[n].name, sizeof list[n].name, "device%d", (int)d);
            snprintf(list[n].label, sizeof list[n].label, "EGL device %d of %d (%s)", (int)d,
                     (int)count,
                     file       ? file
                     : software ? "software"
                                : "no DRM file");
            n++;
        }
    list[n] = (egl_candidate){.platform = 0};
    snprintf(list[n].name, sizeof list[n].name, "default");
    snprintf(list[n].label, sizeof list[n].label, "the default display");
    return n + 1;
}

/* What one candidate gave: its display and context (current), or why not. */
typedef struct egl_made {
    EGLDisplay display;
    EGLContext context;
    EGLint major, minor;
    int status;
    char why[160];
} egl_made;

static int refuse(egl_made *made, int status, const char *what, EGLint error)
{
    made->status = status;
    snprintf(made->why, sizeof made->why, "%s%s%s", what, error ? " failed: " : "",
             error ? egl_error_name(error) : "");
    return 0;
}

/* A core context on the candidate's display, made current; 0 and the
 * reason in made where there is none. */
static int make_on(const egl_candidate *c, egl_made *made)
{
    *made = (egl_made){.display = EGL_NO_DISPLAY, .context = EGL_NO_CONTEXT};
    if (skipped(c))
        return refuse(made, GLCOLLIDE_ERROR_NO_CONTEXT, "skipped (GLCOLLIDE_EGL_SKIP)", 0);
    EGLDisplay display =
        c->platform
            ? eglGetPlatformDisplayEXT(c->platform,
                                       c->platform == EGL_PLATFORM_DEVICE_EXT ? (void *)c->device
                                                                              : EGL_DEFAULT_DISPLAY,
                                       NULL)
            : eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (display == EGL_NO_DISPLAY)
        return refuse(made, GLCOLLIDE_ERROR_NO_CONTEXT, "no display", 0);
    if (!eglInitialize(display, &made->major, &made->minor))
        return refuse(made, GLCOLLIDE_ERROR_NO_CONTEXT, "eglInitialize", eglGetError());
    /* No eglTerminate on the way out: the display is shared by every
     * context of the process on it, another glcollide context's included. */
    if (!epoxy_has_egl_extension(display, "EGL_KHR_surfaceless_context"))
        return refuse(made, GLCOLLIDE_ERROR_NO_CONTEXT, "no EGL_KHR_surfaceless_context", 0);
    if (!eglBindAPI(EGL_OPENGL_API))
        return refuse(made, GLCOLLIDE_ERROR_NO_CONTEXT, "eglBindAPI(EGL_OPENGL_API)",
                      eglGetError());
    EGLConfig config = EGL_NO_CONFIG_KHR;
    if (!epoxy_has_egl_extension(display, "EGL_KHR_no_config_context")) {
        /* EGL_SURFACE_TYPE 0 matches every config: no surface is ever made. */
        const EGLint attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0,
                                     EGL_NONE};
        EGLint count = 0;
        if (!eglChooseConfig(display, attributes, &config, 1, &count) || count < 1)
            return refuse(made, GLCOLLIDE_ERROR_NO_CONTEXT, "eglChooseConfig(EGL_OPENGL_BIT)",
                          count < 1 ? EGL_BAD_CONFIG : eglGetError());
    }
    /* Asking for the minimum core version gives the highest compatible one. */
    const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                                         GLCOLLIDE_GL_VERSION_MIN / 10,
                                         EGL_CONTEXT_MINOR_VERSION,
                                         GLCOLLIDE_GL_VERSION_MIN % 10,
                                         EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                         EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                         EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attributes);
    if (context == EGL_NO_CONTEXT) {
        EGLint error = eglGetError();
        char what[64];
        snprintf(what, sizeof what, "eglCreateContext(OpenGL %d.%d core)",
                 GLCOLLIDE_GL_VERSION_MIN / 10, GLCOLLIDE_GL_VERSION_MIN % 10);
        return refuse(made,
                      error == EGL_BAD_MATCH ? GLCOLLIDE_ERROR_GL_UNSUPPORTED
                                             : GLCOLLIDE_ERROR_NO_CONTEXT,
                      what, error);
    }
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
        EGLint error = eglGetError();
        eglDestroyContext(display, context);
        return refuse(made, GLCOLLIDE_ERROR_NO_CONTEXT, "eglMakeCurrent", error);
    }
    made->display = display;
    made->context = context;
    made->status = GLCOLLIDE_OK;
    return 1;
}

/* The context made current now: does it render in software? */
static int software_now(void)
{
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    return renderer && glcollide_gl_renderer_is_software(renderer);
}

static void unmake(egl_made *made)
{
    eglMakeCurrent(made->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(made->display, made->context);
}

/* Candidate i was taken but renders in software: the first untried
 * hardware device that renders in hardware replaces it (made updated, 1). */
static int prefer_hardware(const egl_candidate *list, int count, int i, egl_made *made)
{
    for (int h = i + 1; h < count; h++) {
        if (list[h].platform != EGL_PLATFORM_DEVICE_EXT || list[h].software)
            continue;
        egl_made other;
        if (!make_on(&list[h], &other)) {
            glcollide_log_info("EGL: %s: %s", list[h].label, other.why);
            continue;
        }
        if (software_now()) {
            unmake(&other);
            eglMakeCurrent(made->display, EGL_NO_SURFACE, EGL_NO_SURFACE, made->context);
            continue;
        }
        glcollide_log_info("EGL: %s renders in software: %s instead", list[i].label, list[h].label);
        eglDestroyContext(made->display, made->context); /* not current: other is */
        *made = other;
        return h;
    }
    return i;
}

int glcollide_egl_create(glcollide_context *context)
{
    if (!libegl_available())
        return glcollide_fail(GLCOLLIDE_ERROR_NO_CONTEXT, "EGL: libEGL.so.1 cannot be loaded: %s",
                              dlerror());
    egl_candidate list[2 + MAX_DEVICES];
    char no_device[160] = "";
    int count = list_candidates(list, no_device, sizeof no_device);
    glcollide_log_debug("EGL: client extensions: %s",
                        eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS));
    if (no_device[0])
        glcollide_log_info("EGL: no EGL device to try: %s", no_device);
    char reasons[768] = "";
    int status = GLCOLLIDE_ERROR_NO_CONTEXT;
    glcollide_egl_save(context);
    for (int i = 0; i < count; i++) {
        egl_made made;
        if (!make_on(&list[i], &made)) {
            glcollide_log_info("EGL: %s: %s", list[i].label, made.why);
            size_t used = strlen(reasons);
            snprintf(reasons + used, sizeof reasons - used, "%s%s: %s", used ? "; " : "",
                     list[i].label, made.why);
            if (made.status == GLCOLLIDE_ERROR_GL_UNSUPPORTED)
                status = made.status;
            continue;
        }
        if (software_now())
            i = prefer_hardware(list, count, i, &made);
        context->egl_display = made.display;
        context->egl_context = made.context;
        glcollide_log_info("EGL %d.%d: %s, on %s", (int)made.major, (int)made.minor,
                           eglQueryString(made.display, EGL_VENDOR), list[i].label);
        return GLCOLLIDE_OK;
    }
    return glcollide_fail(status, "EGL: no OpenGL %d.%d core context (%s%s%s)",
                          GLCOLLIDE_GL_VERSION_MIN / 10, GLCOLLIDE_GL_VERSION_MIN % 10, reasons,
                          no_device[0] ? "; no EGL device: " : "", no_device);
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
