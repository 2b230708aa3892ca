/* SPDX-License-Identifier: MIT */
/* Private GL side of libglcollide: the context object and GL state handling. */
#ifndef GLCOLLIDE_GL_INTERNAL_H
#define GLCOLLIDE_GL_INTERNAL_H

#include "core/internal.h"

#include <epoxy/gl.h>

#define GLCOLLIDE_GL_SSBO_BINDINGS 8

/* The GL state any glcollide entry point may touch. Saved on entry and put
 * back on exit, in owned and wrapped contexts alike: in an owned context that
 * leaves the defaults, in the caller's it leaves what the caller had. */
typedef struct glcollide_gl_state {
    GLint draw_framebuffer, read_framebuffer, renderbuffer;
    GLint viewport[4];
    GLint program, vertex_array, array_buffer, element_array_buffer;
    GLint shader_storage_buffer, atomic_counter_buffer, draw_indirect_buffer, query_buffer;
    GLint dispatch_indirect_buffer;
    GLint pixel_pack_buffer, pixel_unpack_buffer, pack_alignment, unpack_alignment;
    GLboolean depth_test, stencil_test, cull_face, blend, scissor_test, polygon_offset_fill;
    GLboolean depth_clamp, rasterizer_discard, multisample;
    GLint depth_func;
    GLboolean depth_mask;
    GLboolean color_mask[4];
    GLint stencil_func[2], stencil_ref[2], stencil_value_mask[2], stencil_writemask[2];
    GLint stencil_fail[2], stencil_pass_depth_fail[2], stencil_pass_depth_pass[2];
    GLint cull_face_mode, front_face;
    GLfloat polygon_offset_factor, polygon_offset_units;
    GLfloat clear_color[4];
    GLfloat clear_depth;
    GLint clear_stencil;
    GLint active_texture;
    GLint polygon_mode;
    /* Indexed SSBO bindings: glcollide's shaders use binding points 0..7 only. */
    GLint ssbo_binding[GLCOLLIDE_GL_SSBO_BINDINGS];
    GLint64 ssbo_start[GLCOLLIDE_GL_SSBO_BINDINGS], ssbo_size[GLCOLLIDE_GL_SSBO_BINDINGS];
} glcollide_gl_state;

void glcollide_gl_state_save(glcollide_gl_state *state);
void glcollide_gl_state_restore(const glcollide_gl_state *state);
/* Sets the GL defaults every pass starts from (after a save): a caller's
 * context may have any masks, tests or packing set. */
void glcollide_gl_state_reset(void);

/*
 * A kind of GPU resources one module keeps in a context (programs, buffers,
 * textures): made on first use in that context, released with it, in it,
 * through release. The context names no module: a lower layer never calls a
 * higher one.
 */
typedef struct glcollide_gl_cache_kind {
    const char *name;
    void (*release)(void *cache); /* the context is current; frees cache too */
} glcollide_gl_cache_kind;

enum { GLCOLLIDE_GL_CACHE_SLOTS = 16 };

typedef struct glcollide_gl_cache_entry {
    const glcollide_gl_cache_kind *kind;
    void *cache;
} glcollide_gl_cache_entry;

struct glcollide_context {
    int owned;                /* glcollide made the EGL context */
    void *egl_display;        /* EGLDisplay, owned contexts only */
    void *egl_context;        /* EGLContext */
    /* What was current on the thread before create or acquire (EGLDisplay,
     * EGLSurface draw and read, EGLContext): release puts it back. */
    void *saved_display, *saved_draw, *saved_read, *saved_context;
    glcollide_gl_caps caps;
    glcollide_gl_cache_entry caches[GLCOLLIDE_GL_CACHE_SLOTS]; /* released last made first */
    size_t cache_count;
};

/* The cache of kind in context, NULL when none was added. */
void *glcollide_context_cache_find(const glcollide_context *context,
                                   const glcollide_gl_cache_kind *kind);
/* Adds cache (not NULL) under kind; LIMIT (logged) when the table is full,
 * then cache is released at once. */
int glcollide_context_cache_add(glcollide_context *context, const glcollide_gl_cache_kind *kind,
                                void *cache);

/*
 * Programs of one module, compiled once per context, each on first use:
 * build(which) compiles program which (0 on failure, logged). The set's
 * kind.release must be glcollide_gl_programs_release.
 */
typedef struct glcollide_gl_program_set {
    glcollide_gl_cache_kind kind;
    int count;
    GLuint (*build)(int which);
} glcollide_gl_program_set;

/* Program which of set in context (current), compiled now if it was not;
 * 0 on failure (GL or OUT_OF_MEMORY, logged). */
GLuint glcollide_context_program(glcollide_context *context, const glcollide_gl_program_set *set,
                                 int which);
void glcollide_gl_programs_release(void *programs);

/* EGL back-end (egl_context.c). */
int glcollide_egl_create(glcollide_context *context);
void glcollide_egl_destroy(glcollide_context *context);
int glcollide_egl_make_current(glcollide_context *context);
/* Notes what EGL has current on this thread, for glcollide_egl_restore. */
void glcollide_egl_save(glcollide_context *context);
/* Makes current again what glcollide_egl_save noted (nothing if nothing was). */
void glcollide_egl_restore(glcollide_context *context);
/* The client extension (of the space-separated list, NULL: none) whose
 * absence keeps EGL's devices from being listed and tried; NULL where
 * they can be. */
const char *glcollide_egl_device_extension_missing(const char *client_extensions);
/* Is some OpenGL context (EGL, or GLX when the caller loaded libGL) current
 * on this thread? Asked without letting epoxy abort. */
int glcollide_gl_context_is_current(void);

/*
 * Can context render a resolution x resolution view for a method keeping
 * bytes_per_pixel of GL storage per pixel? LIMIT, with one message starting
 * with layer, when the side is above caps.max_resolution or the storage
 * above caps.memory_budget (naming the largest resolution that fits).
 */
int glcollide_context_check_resolution(const glcollide_context *context, const char *layer,
                                       int resolution, size_t bytes_per_pixel);

/* Does the GL_RENDERER string name a software rasterizer (llvmpipe...)? */
int glcollide_gl_renderer_is_software(const char *renderer);

/* Probes caps of the current context; GL_UNSUPPORTED below the minimum. */
int glcollide_gl_probe(glcollide_gl_caps *caps);

/* Drains glGetError, logging each error by name with where; returns GL if any. */
int glcollide_gl_check(const char *where);
const char *glcollide_gl_error_name(GLenum error);

/* Adds bytes to glcollide_gl_storage_allocated (call where GL storage is
 * allocated other than by the two helpers below); bytes per texel of the
 * formats glcollide uses. */
void glcollide_gl_storage_count(uint64_t bytes);
size_t glcollide_gl_texel_bytes(GLenum format);

/* Grows an SSBO to hold at least bytes, doubling (contents not kept). */
void glcollide_gl_buffer_reserve(GLuint buffer, size_t *capacity, size_t bytes);
/* Writes bytes of data at offset in an SSBO (left bound to
 * GL_SHADER_STORAGE_BUFFER) and adds them to stats->upload_bytes; nothing
 * when bytes is 0. */
void glcollide_gl_buffer_upload(GLuint buffer, size_t offset, size_t bytes, const void *data,
                                glcollide_query_stats *stats);
/* An immutable side x side 2D texture of format, nearest filtering, unbound. */
GLuint glcollide_gl_texture_2d(GLenum format, int side);

/*
 * Compiles and links a program from vertex and fragment (or compute, with
 * vertex NULL) sources, each given in parts, a NULL-terminated array that
 * glShaderSource joins (a #version and #define header, pose.glsl, a common
 * part, the stage's body): no caller concatenates by hand. fragment may be
 * NULL. Logs the info log on failure; 0 on failure.
 */
GLuint glcollide_gl_program(const char *name, const char *const *vertex,
                            const char *const *fragment, const char *const *compute);

#endif
