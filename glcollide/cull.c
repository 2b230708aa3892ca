/* SPDX-License-Identifier: MIT */
/*
 * GPU visibility culling: CULLIDE (Govindaraju et al.) and its reliable
 * variant FAR, at triangle level, in a fixed number of draw calls.
 *
 * CULLIDE asks, for each view and each primitive, whether the primitive is
 * fully visible against the primitives of the objects rendered before it
 * (pass 1, order 1..n) and after it (pass 2, order n..1). Taken together the
 * two passes ask whether some fragment of the primitive lies at or behind the
 * nearest fragment of any *other* object at the same pixel. That question
 * does not depend on order, so it is answered here without one occlusion
 * query per primitive:
 *   pass 1: nearest depth z1 over all objects and its owner o1 per pixel
 *           (depth test LESS, owner id in an R32UI colour buffer);
 *   pass 2: nearest depth z2 over objects other than o1 (fragments of o1
 *           discarded);
 *   pass 3: a fragment of object i flags its triangle when its depth is >=
 *           (i == o1 ? z2 : z1); flags are bits in an SSBO, read back once.
 * Three draw calls and one readback per view, whatever the number of objects
 * or triangles. Triangles left unflagged after a view intersect nothing of
 * another object and are not drawn in later views (the PCS shrinks).
 *
 * FAR makes this reliable. CULLIDE misses contacts because a pixel is
 * sampled at its centre only and depth is taken there (FAR §3.2). Here each
 * triangle is rasterised conservatively: a quad covering its 2D bounds
 * grown by the fattening radius and half a pixel, with fragments discarded
 * only where the pixel square, grown by the radius, is separated from the
 * triangle by one of its edges. Each fragment carries the triangle's depth
 * range over that grown square (its plane's extremes, clamped to the
 * vertices' range, widened by the radius): the minimum is written in passes
 * 1-2, the maximum tested in pass 3 — the "depth set function" min/max FAR
 * proposes in §5. If triangles A and B share a point Q, both cover the pixel
 * of Q, and maxdepth(A) >= depth(Q) >= mindepth(B) there, so A is flagged;
 * symmetrically B. Fattening by the radius r also keeps every pair closer
 * than 2r (localised distance culling, r = D/2). Float rounding of the
 * vertex coordinates and of the shader arithmetic is covered by adding
 * 1e-6 of the view's extent to r (about 16 float ulps).
 * This is FAR's Minkowski-sum construction done per pixel rather than with
 * one oriented box per triangle: one conservative fragment per covered pixel
 * instead of the front and back faces of a box, so no face culling is needed.
 */
#include "cull.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PASS_NEAREST = 0, PASS_SECOND = 1, PASS_FLAG = 2, PASS_COUNT = 3 };

/* How triangles are drawn: CULLIDE draws them as they are; FAR draws each as
 * one square point over its grown bounds where the point size allows, else as
 * a quad of two triangles. */
enum { KIND_TRIANGLES = 0, KIND_QUADS = 1, KIND_POINTS = 2, KIND_COUNT = 3 };

struct glcollide_cull_cache {
    GLuint programs[KIND_COUNT][PASS_COUNT];
    float max_point_size;
    GLuint vertex_array;
    GLuint corner_buffer, active_buffer, object_buffer, flag_buffer;
    size_t corner_capacity, active_capacity, object_capacity, flag_capacity; /* bytes */
    GLuint owner_texture, depth_textures[2];
    GLuint framebuffers[3]; /* nearest (owner + depth1), second (depth2), flag (none) */
    int resolution;
};

static const char *const vertex_source =
    "layout(std430, binding = 0) readonly buffer corner_block { vec4 corners[]; };\n"
    "layout(std430, binding = 1) readonly buffer active_block { uint active_triangles[]; };\n"
    "layout(std430, binding = 2) readonly buffer object_block { uint triangle_object[]; };\n"
    "uniform int axis;\n"
    "uniform vec3 view_min;\n"  /* u, v, w of the view box */
    "uniform vec3 view_size;\n"
    "uniform vec2 pixel;\n"     /* pixel size in u, v */
    "uniform float radius;\n"   /* fattening, world units */
    "uniform uint first_large;\n" /* quads: their triangles follow the points' */
    "flat out uint f_triangle;\n"
    "flat out uint f_object;\n"
    "#if RELIABLE\n"
    "flat out vec3 f_edges[3];\n" /* unit normal (xy), offset (z): inside iff dot(n, p) <= z */
    "flat out vec4 f_plane;\n"    /* w = x + y u + z v where the plane is valid (w = 1) */
    "flat out vec2 f_wrange;\n"
    "flat out vec4 f_bounds;\n"  /* 2D bounds grown by the radius */
    "#else\n"
    "invariant gl_Position;\n"
    "#endif\n"
    "vec3 to_view(vec3 p) { return axis == 0 ? p.yzx : axis == 1 ? p.zxy : p.xyz; }\n"
    "void main() {\n"
    "#if RELIABLE && POINTS\n"
    "    uint t = active_triangles[gl_VertexID];\n"
    "    int corner = 0;\n"
    "#elif RELIABLE\n"
    "    uint t = active_triangles[first_large + uint(gl_VertexID / 6)];\n"
    "    int corner = gl_VertexID % 6;\n"
    "#else\n"
    "    uint t = active_triangles[gl_VertexID / 3];\n"
    "    int corner = gl_VertexID % 3;\n"
    "#endif\n"
    "    f_triangle = t;\n"
    "    f_object = triangle_object[t];\n"
    "    vec3 p[3] = vec3[3](to_view(corners[3u * t].xyz), to_view(corners[3u * t + 1u].xyz),\n"
    "                        to_view(corners[3u * t + 2u].xyz));\n"
    "#if RELIABLE\n"
    "    vec2 grow = vec2(radius) + 0.51 * pixel;\n"
    "    vec2 lo = min(min(p[0].xy, p[1].xy), p[2].xy) - grow;\n"
    "    vec2 hi = max(max(p[0].xy, p[1].xy), p[2].xy) + grow;\n"
    "    f_bounds = vec4(lo + 0.51 * pixel, hi - 0.51 * pixel);\n"
    "#if POINTS\n"
    "    /* one square point over the grown bounds: one vertex, one primitive */\n"
    "    vec2 q = 0.5 * (lo + hi);\n"
    "    gl_PointSize = max((hi.x - lo.x) / pixel.x, (hi.y - lo.y) / pixel.y) + 1.0;\n"
    "#else\n"
    "    vec2 quad[6] = vec2[6](lo, vec2(hi.x, lo.y), hi, lo, hi, vec2(lo.x, hi.y));\n"
    "    vec2 q = quad[corner];\n"
    "#endif\n"
    "    gl_Position = vec4(2.0 * (q - view_min.xy) / view_size.xy - 1.0, 0.0, 1.0);\n"
    "    float area = (p[1].x - p[0].x) * (p[2].y - p[0].y) - (p[2].x - p[0].x) * (p[1].y - p[0].y);\n"
    "    float orientation = area > 0.0 ? 1.0 : -1.0;\n"
    "    for (int k = 0; k < 3; k++) {\n"
    "        vec2 e = p[(k + 1) % 3].xy - p[k].xy;\n"
    "        vec2 n = orientation * vec2(e.y, -e.x);\n"
    "        float len = length(n);\n"
    "        /* a degenerate edge or triangle gives no separating edge: keep all */\n"
    "        f_edges[k] = (area != 0.0 && len > 0.0) ? vec3(n / len, dot(n / len, p[k].xy))\n"
    "                                               : vec3(0.0, 0.0, 1.0);\n"
    "    }\n"
    "    vec3 normal = cross(p[1] - p[0], p[2] - p[0]);\n"
    "    if (abs(normal.z) > 1e-6 * length(normal)) {\n"
    "        vec2 g = -normal.xy / normal.z;\n"
    "        f_plane = vec4(p[0].z - dot(g, p[0].xy), g, 1.0);\n"
    "    } else {\n"
    "        f_plane = vec4(0.0);\n"
    "    }\n"
    "    f_wrange = vec2(min(min(p[0].z, p[1].z), p[2].z), max(max(p[0].z, p[1].z), p[2].z));\n"
    "#else\n"
    "    vec3 v = p[corner];\n"
    "    gl_Position = vec4(2.0 * (v.xy - view_min.xy) / view_size.xy - 1.0,\n"
    "                       2.0 * (v.z - view_min.z) / view_size.z - 1.0, 1.0);\n"
    "#endif\n"
    "}\n";

static const char *const fragment_source =
    "uniform vec3 view_min;\n"
    "uniform vec3 view_size;\n"
    "uniform vec2 pixel;\n"
    "uniform float radius;\n"
    "layout(binding = 0) uniform usampler2D owner_texture;\n"
    "layout(binding = 1) uniform sampler2D nearest_texture;\n"
    "layout(binding = 2) uniform sampler2D second_texture;\n"
    "layout(std430, binding = 3) buffer flag_block { uint flags[]; };\n"
    "flat in uint f_triangle;\n"
    "flat in uint f_object;\n"
    "#if RELIABLE\n"
    "flat in vec3 f_edges[3];\n"
    "flat in vec4 f_plane;\n"
    "flat in vec2 f_wrange;\n"
    "flat in vec4 f_bounds;\n"
    "#endif\n"
    "#if PASS == 0\n"
    "layout(location = 0) out uint owner;\n"
    "#endif\n"
    "void main() {\n"
    "#if RELIABLE\n"
    "    vec2 c = view_min.xy + gl_FragCoord.xy * pixel;\n"
    "    vec2 h = 0.5 * pixel + vec2(radius);\n"
    "    if (any(lessThan(c + 0.5 * pixel, f_bounds.xy)) || any(greaterThan(c - 0.5 * pixel, f_bounds.zw)))\n"
    "        discard;\n"
    "    for (int k = 0; k < 3; k++)\n"
    "        if (dot(f_edges[k].xy, c) - f_edges[k].z > dot(abs(f_edges[k].xy), h))\n"
    "            discard;\n"
    "    float wlo = f_wrange.x, whi = f_wrange.y;\n"
    "    if (f_plane.w != 0.0) {\n"
    "        float wc = f_plane.x + dot(f_plane.yz, c);\n"
    "        float spread = dot(abs(f_plane.yz), h);\n"
    "        wlo = max(wc - spread, wlo);\n"
    "        whi = min(wc + spread, whi);\n"
    "    }\n"
    "    float zlo = (wlo - radius - view_min.z) / view_size.z;\n"
    "    float zhi = (whi + radius - view_min.z) / view_size.z;\n"
    "#else\n"
    "    float zlo = gl_FragCoord.z, zhi = gl_FragCoord.z;\n"
    "#endif\n"
    "#if PASS == 0\n"
    "    owner = f_object;\n"
    "#if RELIABLE\n"
    "    gl_FragDepth = zlo;\n"
    "#endif\n"
    "#elif PASS == 1\n"
    "    if (texelFetch(owner_texture, ivec2(gl_FragCoord.xy), 0).r == f_object)\n"
    "        discard;\n"
    "#if RELIABLE\n"
    "    gl_FragDepth = zlo;\n"
    "#endif\n"
    "#else\n"
    "    ivec2 texel = ivec2(gl_FragCoord.xy);\n"
    "    bool own = texelFetch(owner_texture, texel, 0).r == f_object;\n"
    "    float other = own ? texelFetch(second_texture, texel, 0).r\n"
    "                      : texelFetch(nearest_texture, texel, 0).r;\n"
    "    if (zhi >= other)\n"
    "        atomicOr(flags[f_triangle >> 5], 1u << (f_triangle & 31u));\n"
    "#endif\n"
    "}\n";

static GLuint build_program(int kind, int pass)
{
    static const char *const names[KIND_COUNT] = {"cullide", "far quads", "far points"};
    char header[128], name[64];
    snprintf(header, sizeof header,
             "#version 430 core\n#define RELIABLE %d\n#define POINTS %d\n#define PASS %d\n",
             kind != KIND_TRIANGLES, kind == KIND_POINTS, pass);
    snprintf(name, sizeof name, "%s pass %d", names[kind], pass + 1);
    size_t vn = strlen(header) + strlen(vertex_source) + 1;
    size_t fn = strlen(header) + strlen(fragment_source) + 1;
    char *vertex = malloc(vn), *fragment = malloc(fn);
    GLuint program = 0;
    if (vertex && fragment) {
        snprintf(vertex, vn, "%s%s", header, vertex_source);
        snprintf(fragment, fn, "%s%s", header, fragment_source);
        program = glcollide_gl_program(name, vertex, fragment, NULL);
    } else {
        glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "cull: out of memory");
    }
    free(vertex);
    free(fragment);
    return program;
}

void glcollide_cull_release(glcollide_context *context)
{
    struct glcollide_cull_cache *cache = context->cull;
    if (!cache)
        return;
    for (int kind = 0; kind < KIND_COUNT; kind++)
        for (int pass = 0; pass < PASS_COUNT; pass++)
            glDeleteProgram(cache->programs[kind][pass]);
    glDeleteVertexArrays(1, &cache->vertex_array);
    GLuint buffers[4] = {cache->corner_buffer, cache->active_buffer, cache->object_buffer,
                         cache->flag_buffer};
    glDeleteBuffers(4, buffers);
    glDeleteTextures(1, &cache->owner_texture);
    glDeleteTextures(2, cache->depth_textures);
    glDeleteFramebuffers(3, cache->framebuffers);
    free(cache);
    context->cull = NULL;
}

static int prepare_targets(struct glcollide_cull_cache *cache, int resolution)
{
    if (cache->resolution == resolution)
        return GLCOLLIDE_OK;
    glDeleteTextures(1, &cache->owner_texture);
    glDeleteTextures(2, cache->depth_textures);
    glDeleteFramebuffers(3, cache->framebuffers);
    cache->owner_texture = glcollide_gl_texture_2d(GL_R32UI, resolution);
    cache->depth_textures[0] = glcollide_gl_texture_2d(GL_DEPTH_COMPONENT32F, resolution);
    cache->depth_textures[1] = glcollide_gl_texture_2d(GL_DEPTH_COMPONENT32F, resolution);
    glGenFramebuffers(3, cache->framebuffers);
    glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[PASS_NEAREST]);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, cache->owner_texture, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D,
                           cache->depth_textures[0], 0);
    GLenum ok0 = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[PASS_SECOND]);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D,
                           cache->depth_textures[1], 0);
    glDrawBuffer(GL_NONE);
    GLenum ok1 = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    /* Pass 3 writes only the SSBO: a framebuffer without attachments. */
    glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[PASS_FLAG]);
    glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_WIDTH, resolution);
    glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_HEIGHT, resolution);
    GLenum ok2 = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (ok0 != GL_FRAMEBUFFER_COMPLETE || ok1 != GL_FRAMEBUFFER_COMPLETE ||
        ok2 != GL_FRAMEBUFFER_COMPLETE) {
        cache->resolution = 0;
        return glcollide_fail(GLCOLLIDE_ERROR_GL,
                              "cull: framebuffers at %dx%d incomplete (0x%x 0x%x 0x%x)", resolution,
                              resolution, (unsigned)ok0, (unsigned)ok1, (unsigned)ok2);
    }
    cache->resolution = resolution;
    return glcollide_gl_check("cull framebuffers");
}

static int prepare_cache(glcollide_context *context, int reliable)
{
    struct glcollide_cull_cache *cache = context->cull;
    if (!cache) {
        cache = context->cull = calloc(1, sizeof *cache);
        if (!cache)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "cull: out of memory");
        glGenVertexArrays(1, &cache->vertex_array);
        GLuint buffers[4];
        glGenBuffers(4, buffers);
        cache->corner_buffer = buffers[0];
        cache->active_buffer = buffers[1];
        cache->object_buffer = buffers[2];
        cache->flag_buffer = buffers[3];
        GLfloat range[2] = {1, 1};
        glGetFloatv(GL_POINT_SIZE_RANGE, range);
        cache->max_point_size = range[1];
    }
    for (int kind = reliable ? KIND_QUADS : KIND_TRIANGLES;
         kind <= (reliable ? KIND_POINTS : KIND_TRIANGLES); kind++)
        for (int pass = 0; pass < PASS_COUNT; pass++)
            if (!cache->programs[kind][pass] &&
                !(cache->programs[kind][pass] = build_program(kind, pass)))
                return GLCOLLIDE_ERROR_GL;
    return GLCOLLIDE_OK;
}

/* View coordinates (u, v, w) of axis: w along the axis, as in the shader. */
static void to_view(int axis, const float p[3], float out[3])
{
    static const int map[3][3] = {{1, 2, 0}, {2, 0, 1}, {0, 1, 2}};
    for (int k = 0; k < 3; k++)
        out[k] = p[map[axis][k]];
}

typedef struct cull_view {
    int axis;
    float min[3], size[3], pixel[2], radius;
    size_t point_count; /* reliable: triangles drawn as points, first in the active list */
    size_t quad_count;  /* reliable: as quads; CULLIDE: as triangles */
} cull_view;

/* Draws every active triangle for one pass: one or two draw calls. */
static void draw_pass(struct glcollide_cull_cache *cache, int reliable, int pass,
                      const cull_view *view, glcollide_query_stats *stats)
{
    const int kinds[2] = {reliable ? KIND_POINTS : -1, reliable ? KIND_QUADS : KIND_TRIANGLES};
    const size_t counts[2] = {view->point_count, view->quad_count};
    for (int i = 0; i < 2; i++) {
        if (kinds[i] < 0 || counts[i] == 0)
            continue;
        GLuint program = cache->programs[kinds[i]][pass];
        glUseProgram(program);
        glUniform1i(glGetUniformLocation(program, "axis"), view->axis);
        glUniform3fv(glGetUniformLocation(program, "view_min"), 1, view->min);
        glUniform3fv(glGetUniformLocation(program, "view_size"), 1, view->size);
        glUniform2fv(glGetUniformLocation(program, "pixel"), 1, view->pixel);
        glUniform1f(glGetUniformLocation(program, "radius"), view->radius);
        glUniform1ui(glGetUniformLocation(program, "first_large"), (GLuint)view->point_count);
        if (kinds[i] == KIND_POINTS)
            glDrawArrays(GL_POINTS, 0, (GLsizei)counts[i]);
        else
            glDrawArrays(GL_TRIANGLES, 0, (GLsizei)(counts[i] * (kinds[i] == KIND_QUADS ? 6 : 3)));
        stats->draw_calls++;
        stats->triangles_rasterized += kinds[i] == KIND_QUADS ? 2 * counts[i] : counts[i];
    }
}

/* One view: three passes, then the flags are read back into bits. */
static int cull_view_run(glcollide_context *context, int reliable, const cull_view *view,
                         size_t flag_words, uint32_t *bits, glcollide_query_stats *stats)
{
    struct glcollide_cull_cache *cache = context->cull;
    int side = cache->resolution;
    glBindVertexArray(cache->vertex_array);
    if (reliable)
        glEnable(GL_PROGRAM_POINT_SIZE);
    glViewport(0, 0, side, side);
    GLuint zero = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->flag_buffer);
    glClearBufferData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);

    /* Pass 1: nearest depth and its owner. */
    glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[PASS_NEAREST]);
    const GLuint no_owner[4] = {0xffffffffu, 0, 0, 0};
    const GLfloat far_depth = 1.0f;
    glClearBufferuiv(GL_COLOR, 0, no_owner);
    glClearBufferfv(GL_DEPTH, 0, &far_depth);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    draw_pass(cache, reliable, PASS_NEAREST, view, stats);

    /* Pass 2: nearest depth of the other objects. */
    glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[PASS_SECOND]);
    glClearBufferfv(GL_DEPTH, 0, &far_depth);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, cache->owner_texture);
    draw_pass(cache, reliable, PASS_SECOND, view, stats);

    /* Pass 3: flag every triangle with a fragment at or behind another object. */
    glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[PASS_FLAG]);
    glDisable(GL_DEPTH_TEST);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, cache->depth_textures[0]);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, cache->depth_textures[1]);
    draw_pass(cache, reliable, PASS_FLAG, view, stats);

    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->flag_buffer);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(flag_words * 4), bits);
    for (int unit = 2; unit >= 0; unit--) {
        glActiveTexture(GL_TEXTURE0 + (GLenum)unit);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    glDisable(GL_PROGRAM_POINT_SIZE);
    stats->gpu_syncs += 1;
    stats->readback_bytes += flag_words * 4;
    return glcollide_gl_check(reliable ? "far view" : "cullide view");
}

int glcollide_cull_triangles(glcollide_context *context, const glcollide_world *world,
                             const glcollide_cull_options *options, unsigned char *objects_in,
                             unsigned char **flags, glcollide_query_stats *stats)
{
    /* The owner texture and two depth textures. */
    int status = glcollide_context_check_resolution(context, options->reliable ? "far" : "cullide",
                                                    options->resolution, 12);
    if (status != GLCOLLIDE_OK)
        return status;
    for (size_t o = 0; o < world->object_count; o++)
        if (options->object_round || !objects_in[o])
            memset(flags[o], objects_in[o] ? 1 : 0, world->objects[o].mesh->triangle_count);
    /* Global triangle numbering over the objects that take part. */
    size_t total = 0;
    for (size_t o = 0; o < world->object_count; o++)
        total += world->objects[o].mesh->triangle_count;
    if (total > UINT32_MAX / 6)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "cull: %zu triangles, at most %u", total,
                              UINT32_MAX / 6);
    /* Bounds of the objects with an active triangle. */
    glcollide_aabb all;
    glcollide_aabb_empty(&all);
    for (size_t o = 0; o < world->object_count; o++)
        for (size_t t = 0; t < world->objects[o].mesh->triangle_count; t++)
            if (flags[o][t]) {
                glcollide_aabb_add_point(&all, world->objects[o].bounds.min);
                glcollide_aabb_add_point(&all, world->objects[o].bounds.max);
                break;
            }
    if (all.min[0] > all.max[0])
        return GLCOLLIDE_OK; /* nothing to cull */
    size_t active_count = 0;
    double origin[3], scale;
    /* Geometry relative to the centre of what is drawn and scaled by a power
     * of two that brings it into [-1, 1]: float keeps 24 bits of the scene's
     * extent, not of its distance from the world origin, and neither
     * overflows (past 3.4e38) nor underflows (below 1e-38) at any scale
     * double can hold. */
    glcollide_frame_fit(&all, origin, &scale);
    /* A fattening radius above the drawn scene's diameter (below 4 once
     * scaled) keeps every triangle already: the same answer, and no float
     * overflow for --distance 1e39. */
    float radius = (float)fmin(options->distance / 2 * scale, 4.0);

    status = glcollide_context_make_current(context);
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_gl_state saved;
    glcollide_gl_state_save(&saved);
    glcollide_gl_state_reset();
    size_t flag_words = (total + 31) / 32;
    float *corners = glcollide_alloc_array(total * 3, 4 * sizeof(float));
    uint32_t *objects = glcollide_alloc_array(total, sizeof(uint32_t));
    uint32_t *active = glcollide_alloc_array(total, sizeof(uint32_t));
    uint32_t *ordered = glcollide_alloc_array(total, sizeof(uint32_t));
    uint32_t *bits = glcollide_alloc_array(flag_words, sizeof(uint32_t));
    size_t *base = glcollide_alloc_array(world->object_count, sizeof(size_t));
    if (!corners || !objects || !active || !ordered || !bits || !base) {
        status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "cull: out of memory");
        goto done;
    }
    if ((status = prepare_cache(context, options->reliable)) ||
        (status = prepare_targets(context->cull, options->resolution)))
        goto done;
    struct glcollide_cull_cache *cache = context->cull;

    size_t g = 0;
    for (size_t o = 0; o < world->object_count; o++) {
        const glcollide_world_mesh *w = &world->objects[o];
        base[o] = g;
        for (size_t t = 0; t < w->mesh->triangle_count; t++, g++) {
            objects[g] = (uint32_t)o;
            for (int c = 0; c < 3; c++) {
                const double *p = w->positions + 3 * (size_t)w->mesh->triangles[3 * t + c];
                float *out = corners + 4 * (3 * g + c);
                for (int k = 0; k < 3; k++)
                    out[k] = (float)((p[k] - origin[k]) * scale);
                out[3] = 0.0f;
            }
        }
    }
    glcollide_gl_buffer_reserve(cache->corner_buffer, &cache->corner_capacity, total * 3 * 4 * sizeof(float));
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->corner_buffer);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(total * 3 * 4 * sizeof(float)), corners);
    glcollide_gl_buffer_reserve(cache->object_buffer, &cache->object_capacity, total * sizeof(uint32_t));
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->object_buffer);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(total * sizeof(uint32_t)), objects);
    glcollide_gl_buffer_reserve(cache->flag_buffer, &cache->flag_capacity, flag_words * sizeof(uint32_t));
    glcollide_gl_buffer_reserve(cache->active_buffer, &cache->active_capacity, total * sizeof(uint32_t));
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, cache->corner_buffer, 0,
                      (GLsizeiptr)(total * 3 * 4 * sizeof(float)));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, cache->active_buffer);
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 2, cache->object_buffer, 0,
                      (GLsizeiptr)(total * sizeof(uint32_t)));
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 3, cache->flag_buffer, 0,
                      (GLsizeiptr)(flag_words * sizeof(uint32_t)));

    int rounds = (options->object_round ? 1 : 0) + options->triangle_rounds;
    for (int round = 0; round < rounds && status == GLCOLLIDE_OK; round++) {
        int object_round = options->object_round && round == 0;
        for (int axis = 0; axis < 3 && status == GLCOLLIDE_OK; axis++) {
            /* Active triangles and the view box fitted to them. */
            float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
            active_count = 0;
            for (size_t o = 0; o < world->object_count; o++)
                for (size_t t = 0; t < world->objects[o].mesh->triangle_count; t++) {
                    if (object_round ? !objects_in[o] : !flags[o][t])
                        continue;
                    size_t gt = base[o] + t;
                    active[active_count++] = (uint32_t)gt;
                    for (int c = 0; c < 3; c++) {
                        float v[3];
                        to_view(axis, corners + 4 * (3 * gt + c), v);
                        for (int k = 0; k < 3; k++) {
                            lo[k] = fminf(lo[k], v[k]);
                            hi[k] = fmaxf(hi[k], v[k]);
                        }
                    }
                }
            if (active_count == 0)
                goto done;
            cull_view view;
            float extent = 0;
            for (int k = 0; k < 3; k++)
                extent = fmaxf(extent, fmaxf(fabsf(lo[k]), fabsf(hi[k])));
            view.radius = options->reliable ? radius + 1e-6f * extent + FLT_MIN : 0.0f;
            for (int k = 0; k < 3; k++) {
                /* Room for the fattening and a pixel on every side, and never
                 * a zero extent (a flat scene seen edge-on). */
                float pad = view.radius + 1e-6f * extent + 1e-30f;
                float size = hi[k] - lo[k] + 2 * pad;
                if (k < 2)
                    pad += size / (float)(options->resolution - 2);
                view.min[k] = lo[k] - pad;
                view.size[k] = hi[k] + pad - view.min[k];
            }
            view.pixel[0] = view.size[0] / (float)options->resolution;
            view.pixel[1] = view.size[1] / (float)options->resolution;
            view.axis = axis;
            /* FAR: triangles whose grown bounds fit in a point go first. */
            view.point_count = 0;
            view.quad_count = active_count;
            if (options->reliable) {
                size_t back = active_count;
                for (size_t i = 0; i < active_count; i++) {
                    const float *c = corners + 4 * (3 * (size_t)active[i]);
                    float a[3], b[3], d[3];
                    to_view(axis, c, a);
                    to_view(axis, c + 4, b);
                    to_view(axis, c + 8, d);
                    float side = 0;
                    for (int k = 0; k < 2; k++) {
                        float extent_k = fmaxf(fmaxf(a[k], b[k]), d[k]) - fminf(fminf(a[k], b[k]), d[k]);
                        side = fmaxf(side, (extent_k + 2 * view.radius) / view.pixel[k] + 3.02f);
                    }
                    if (side <= cache->max_point_size)
                        ordered[view.point_count++] = active[i];
                    else
                        ordered[--back] = active[i];
                }
                view.quad_count = active_count - view.point_count;
                memcpy(active, ordered, active_count * sizeof *active);
            }
            glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->active_buffer);
            glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(active_count * sizeof(uint32_t)),
                            active);
            status = cull_view_run(context, options->reliable, &view, flag_words, bits, stats);
            for (size_t o = 0; o < world->object_count && status == GLCOLLIDE_OK; o++) {
                int behind = 0;
                for (size_t t = 0; t < world->objects[o].mesh->triangle_count; t++) {
                    size_t gt = base[o] + t;
                    int flagged = bits[gt >> 5] >> (gt & 31) & 1u;
                    behind |= flagged;
                    flags[o][t] = flags[o][t] && flagged;
                }
                if (object_round)
                    objects_in[o] = objects_in[o] && behind;
            }
        }
        if (object_round)
            for (size_t o = 0; o < world->object_count; o++)
                if (!objects_in[o])
                    memset(flags[o], 0, world->objects[o].mesh->triangle_count);
    }
done:
    free(corners);
    free(objects);
    free(active);
    free(ordered);
    free(bits);
    free(base);
    glcollide_gl_state_restore(&saved);
    return status;
}
