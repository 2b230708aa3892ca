/* SPDX-License-Identifier: MIT */
/* The GL context object: creation (owned EGL or the caller's), capability
 * probe, error draining, shader building, and the driver self-test. */
#define _DEFAULT_SOURCE /* sysconf(_SC_PHYS_PAGES) */
#include "gpu/gl_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *glcollide_gl_error_name(GLenum error)
{
    switch (error) {
    case GL_NO_ERROR: return "GL_NO_ERROR";
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    }
    return "unknown GL error";
}

int glcollide_gl_check(const char *where)
{
    int status = GLCOLLIDE_OK;
    for (int i = 0; i < 16; i++) { /* bounded: a lost context may report forever */
        GLenum error = glGetError();
        if (error == GL_NO_ERROR)
            break;
        status = glcollide_fail(GLCOLLIDE_ERROR_GL, "GL: %s: %s", where,
                                glcollide_gl_error_name(error));
    }
    return status;
}

/* GL storage allocated by glcollide in this process (a work counter for
 * benchmarks; atomic: contexts may live on several threads). */
static _Atomic uint64_t gl_storage_bytes;

void glcollide_gl_storage_count(uint64_t bytes) { gl_storage_bytes += bytes; }

uint64_t glcollide_gl_storage_allocated(void) { return gl_storage_bytes; }

size_t glcollide_gl_texel_bytes(GLenum format)
{
    switch (format) {
    case GL_DEPTH32F_STENCIL8: return 8;
    case GL_RGBA32F: return 16;
    default: return 4; /* R32UI, R32F, DEPTH_COMPONENT32F, RGBA8 */
    }
}

void glcollide_gl_buffer_reserve(GLuint buffer, size_t *capacity, size_t bytes)
{
    if (bytes <= *capacity)
        return;
    size_t grown = *capacity ? *capacity : 4096;
    while (grown < bytes)
        grown *= 2;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)grown, NULL, GL_DYNAMIC_DRAW);
    glcollide_gl_storage_count(grown - *capacity);
    *capacity = grown;
}

void glcollide_gl_buffer_upload(GLuint buffer, size_t offset, size_t bytes, const void *data,
                                glcollide_query_stats *stats)
{
    if (!bytes)
        return;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)offset, (GLsizeiptr)bytes, data);
    stats->upload_bytes += bytes;
}

GLuint glcollide_gl_texture_2d(GLenum format, int side)
{
    glcollide_gl_storage_count((uint64_t)side * (uint64_t)side * glcollide_gl_texel_bytes(format));
    GLuint texture;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexStorage2D(GL_TEXTURE_2D, 1, format, side, side);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    return texture;
}

static GLuint compile_shader(const char *name, GLenum type, const char *const *parts)
{
    GLsizei count = 0;
    while (parts[count])
        count++;
    GLuint shader = glCreateShader(type);
    glShaderSource(shader, count, parts, NULL);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetShaderInfoLog(shader, sizeof log, NULL, log);
        log[strcspn(log, "\n")] = '\0';
        glcollide_fail(GLCOLLIDE_ERROR_GL, "GL: shader %s (%s) does not compile: %s", name,
                       type == GL_VERTEX_SHADER     ? "vertex"
                       : type == GL_FRAGMENT_SHADER ? "fragment"
                                                    : "compute",
                       log);
        glDeleteShader(shader);
        return 0;
    }
    return shader;
}

GLuint glcollide_gl_program(const char *name, const char *const *vertex,
                            const char *const *fragment, const char *const *compute)
{
    GLuint shaders[2] = {0, 0};
    int count = 0;
    if (compute) {
        if (!(shaders[count++] = compile_shader(name, GL_COMPUTE_SHADER, compute)))
            return 0;
    } else {
        if (!(shaders[count++] = compile_shader(name, GL_VERTEX_SHADER, vertex)))
            return 0;
        if (fragment && !(shaders[count++] = compile_shader(name, GL_FRAGMENT_SHADER, fragment))) {
            glDeleteShader(shaders[0]);
            return 0;
        }
    }
    GLuint program = glCreateProgram();
    for (int i = 0; i < count; i++)
        glAttachShader(program, shaders[i]);
    glLinkProgram(program);
    for (int i = 0; i < count; i++)
        glDeleteShader(shaders[i]);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetProgramInfoLog(program, sizeof log, NULL, log);
        log[strcspn(log, "\n")] = '\0';
        glcollide_fail(GLCOLLIDE_ERROR_GL, "GL: program %s does not link: %s", name, log);
        glDeleteProgram(program);
        return 0;
    }
    return program;
}

int glcollide_gl_renderer_is_software(const char *renderer)
{
    static const char *const names[] = {"llvmpipe", "softpipe", "SWR", "Software Rasterizer"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strstr(renderer, names[i]))
            return 1;
    return 0;
}

/* The memory one query may use (see glcollide_gl_caps.memory_budget). */
static void probe_memory_budget(glcollide_gl_caps *caps)
{
    const char *env = getenv("GLCOLLIDE_GL_MEMORY");
    char *end = NULL;
    double mib = env && *env ? strtod(env, &end) : 0;
    if (env && *env && end && !*end && mib > 0 && mib < 1e12) {
        caps->memory_budget = (uint64_t)(mib * 1048576.0);
        snprintf(caps->memory_budget_source, sizeof caps->memory_budget_source,
                 "GLCOLLIDE_GL_MEMORY");
        return;
    }
    if (env && *env)
        glcollide_log_warning("GLCOLLIDE_GL_MEMORY='%s' is not a number of MiB; ignored", env);
    GLint kib[4] = {0, 0, 0, 0};
    if (epoxy_has_gl_extension("GL_NVX_gpu_memory_info"))
        glGetIntegerv(GL_GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX, kib);
    else if (epoxy_has_gl_extension("GL_ATI_meminfo"))
        glGetIntegerv(GL_TEXTURE_FREE_MEMORY_ATI, kib);
    if (kib[0] > 0) {
        caps->memory_budget = (uint64_t)kib[0] * 1024 / 2;
        snprintf(caps->memory_budget_source, sizeof caps->memory_budget_source,
                 "half of the GPU's memory");
        return;
    }
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (glcollide_gl_renderer_is_software(caps->renderer) && pages > 0 && page > 0) {
        caps->memory_budget = (uint64_t)pages * (uint64_t)page / 8;
        snprintf(caps->memory_budget_source, sizeof caps->memory_budget_source,
                 "an eighth of the host's memory");
    }
}

int glcollide_context_check_resolution(const glcollide_context *context, const char *layer,
                                       int resolution, size_t bytes_per_pixel)
{
    const glcollide_gl_caps *caps = &context->caps;
    if (caps->max_resolution > 0 && resolution > caps->max_resolution)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT,
                              "%s: resolution %d is above this GL's largest framebuffer side, %d "
                              "(%s)",
                              layer, resolution, caps->max_resolution, caps->renderer);
    double need = (double)resolution * resolution * (double)bytes_per_pixel;
    if (caps->memory_budget == 0 || need <= (double)caps->memory_budget)
        return GLCOLLIDE_OK;
    int most = (int)floor(sqrt((double)caps->memory_budget / (double)bytes_per_pixel));
    return glcollide_fail(GLCOLLIDE_ERROR_LIMIT,
                          "%s: resolution %d needs %.1f GiB of GL memory (%zu bytes per pixel), "
                          "over the budget of %.1f GiB (%s); at most %d",
                          layer, resolution, need / 1073741824.0, bytes_per_pixel,
                          (double)caps->memory_budget / 1073741824.0, caps->memory_budget_source,
                          most);
}

int glcollide_gl_probe(glcollide_gl_caps *caps)
{
    memset(caps, 0, sizeof *caps);
    if (!epoxy_is_desktop_gl())
        return glcollide_fail(GLCOLLIDE_ERROR_GL_UNSUPPORTED,
                              "GL: the current context is OpenGL ES; desktop OpenGL %d.%d core is needed",
                              GLCOLLIDE_GL_VERSION_MIN / 10, GLCOLLIDE_GL_VERSION_MIN % 10);
    caps->gl_version = epoxy_gl_version();
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    const char *version = (const char *)glGetString(GL_VERSION);
    snprintf(caps->renderer, sizeof caps->renderer, "%s", renderer ? renderer : "?");
    snprintf(caps->version_string, sizeof caps->version_string, "%s", version ? version : "?");
    if (caps->gl_version < GLCOLLIDE_GL_VERSION_MIN)
        return glcollide_fail(GLCOLLIDE_ERROR_GL_UNSUPPORTED,
                              "GL: version %d.%d (%s) is below the %d.%d core glcollide needs "
                              "(compute shaders, SSBOs, atomic counters, multi-draw indirect)",
                              caps->gl_version / 10, caps->gl_version % 10, caps->renderer,
                              GLCOLLIDE_GL_VERSION_MIN / 10, GLCOLLIDE_GL_VERSION_MIN % 10);
    caps->glsl_version = epoxy_glsl_version();
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &caps->max_texture_size);
    GLint framebuffer[2] = {0, 0}, viewport[2] = {0, 0};
    glGetIntegerv(GL_MAX_FRAMEBUFFER_WIDTH, &framebuffer[0]);
    glGetIntegerv(GL_MAX_FRAMEBUFFER_HEIGHT, &framebuffer[1]);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, viewport);
    caps->max_resolution = caps->max_texture_size;
    for (int k = 0; k < 2; k++) {
        caps->max_resolution =
            framebuffer[k] < caps->max_resolution ? framebuffer[k] : caps->max_resolution;
        caps->max_resolution =
            viewport[k] < caps->max_resolution ? viewport[k] : caps->max_resolution;
    }
    probe_memory_budget(caps);
    glGetIntegerv(GL_MAX_SAMPLES, &caps->max_samples);
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &caps->max_ssbo_bindings);
    /* glcollide renders into its own FBOs with GL_DEPTH24_STENCIL8 or better. */
    caps->depth_bits = 24;
    caps->stencil_bits = 8;
    caps->has_clip_control = caps->gl_version >= 45 || epoxy_has_gl_extension("GL_ARB_clip_control");
    caps->has_query_buffer_object =
        caps->gl_version >= 44 || epoxy_has_gl_extension("GL_ARB_query_buffer_object");
    caps->has_conservative_raster = epoxy_has_gl_extension("GL_NV_conservative_raster") ||
                                    epoxy_has_gl_extension("GL_INTEL_conservative_rasterization");
    caps->has_shader_interlock = epoxy_has_gl_extension("GL_ARB_fragment_shader_interlock");
    glcollide_log_info("GL %d.%d core, GLSL %d, %s", caps->gl_version / 10, caps->gl_version % 10,
                       caps->glsl_version, caps->renderer);
    return glcollide_gl_check("capability probe");
}

int glcollide_context_create_egl(glcollide_context **out)
{
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "context: out is NULL");
    glcollide_context *context = calloc(1, sizeof *context);
    if (!context)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "context: out of memory");
    context->owned = 1;
    int status = glcollide_egl_create(context);
    if (status == GLCOLLIDE_OK)
        status = glcollide_gl_probe(&context->caps);
    if (status != GLCOLLIDE_OK) {
        glcollide_egl_destroy(context);
        free(context);
        return status;
    }
    *out = context;
    return GLCOLLIDE_OK;
}

int glcollide_context_wrap_current(glcollide_context **out)
{
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "context: out is NULL");
    /* Without a current context epoxy cannot resolve GL and would abort. */
    if (!glcollide_gl_context_is_current())
        return glcollide_fail(GLCOLLIDE_ERROR_NO_CONTEXT,
                              "context: no OpenGL context is current on this thread");
    glcollide_context *context = calloc(1, sizeof *context);
    if (!context)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "context: out of memory");
    int status = glcollide_gl_probe(&context->caps);
    if (status != GLCOLLIDE_OK) {
        free(context);
        return status;
    }
    *out = context;
    return GLCOLLIDE_OK;
}

void glcollide_context_destroy(glcollide_context **context)
{
    if (!context || !*context)
        return;
    /* GL objects first, in their context: an owned one is made current
     * (without it the driver frees them with the context). */
    glcollide_context *c = *context;
    int current = glcollide_context_make_current(c) == GLCOLLIDE_OK;
    while (c->cache_count > 0) {
        glcollide_gl_cache_entry *entry = &c->caches[--c->cache_count];
        if (current)
            entry->kind->release(entry->cache);
    }
    if ((*context)->owned)
        glcollide_egl_destroy(*context);
    free(*context);
    *context = NULL;
}

void *glcollide_context_cache_find(const glcollide_context *context,
                                   const glcollide_gl_cache_kind *kind)
{
    for (size_t i = 0; i < context->cache_count; i++)
        if (context->caches[i].kind == kind)
            return context->caches[i].cache;
    return NULL;
}

int glcollide_context_cache_add(glcollide_context *context, const glcollide_gl_cache_kind *kind,
                                void *cache)
{
    if (context->cache_count == GLCOLLIDE_GL_CACHE_SLOTS) {
        kind->release(cache);
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "context: no room for the %s cache (%d kinds)",
                              kind->name, GLCOLLIDE_GL_CACHE_SLOTS);
    }
    context->caches[context->cache_count++] = (glcollide_gl_cache_entry){kind, cache};
    return GLCOLLIDE_OK;
}

/* A program set's cache: its count, then the programs. */
typedef struct program_cache {
    int count;
    GLuint programs[];
} program_cache;

void glcollide_gl_programs_release(void *programs)
{
    program_cache *cache = programs;
    for (int i = 0; i < cache->count; i++)
        glDeleteProgram(cache->programs[i]);
    free(cache);
}

GLuint glcollide_context_program(glcollide_context *context, const glcollide_gl_program_set *set,
                                 int which)
{
    program_cache *cache = glcollide_context_cache_find(context, &set->kind);
    if (!cache) {
        cache = calloc(1, sizeof *cache + (size_t)set->count * sizeof(GLuint));
        if (!cache) {
            glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "%s: out of memory", set->kind.name);
            return 0;
        }
        cache->count = set->count;
        if (glcollide_context_cache_add(context, &set->kind, cache) != GLCOLLIDE_OK)
            return 0;
    }
    if (!cache->programs[which])
        cache->programs[which] = set->build(which);
    return cache->programs[which];
}

int glcollide_context_make_current(glcollide_context *context)
{
    if (!context)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "context: NULL");
    return context->owned ? glcollide_egl_make_current(context) : GLCOLLIDE_OK;
}

int glcollide_context_acquire(glcollide_context *context)
{
    if (!context)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "context: NULL");
    if (!context->owned)
        return GLCOLLIDE_OK;
    glcollide_egl_save(context);
    return glcollide_egl_make_current(context);
}

void glcollide_context_release(glcollide_context *context)
{
    if (context && context->owned)
        glcollide_egl_restore(context);
}

const glcollide_gl_caps *glcollide_context_caps(const glcollide_context *context)
{
    return context ? &context->caps : NULL;
}

int glcollide_context_is_owned(const glcollide_context *context)
{
    return context && context->owned;
}
