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
 * another object and are not drawn in later views (the PCS shrinks). A round
 * of three views that removes no triangle ends the rounds: the next would
 * draw the same views and remove none either (decided on the GPU: its views
 * select nothing).
 *
 * FAR makes this reliable. CULLIDE misses contacts because a pixel is
 * sampled at its centre only and depth is taken there (FAR §3.2). Here each
 * triangle is rasterised conservatively: a primitive covering its 2D bounds
 * grown by the fattening radius and half a pixel, with fragments discarded
 * only where the pixel square, grown by the radius, is separated from the
 * triangle by one of its edges. The primitive is one square point where the
 * bounds are small or near square, else the triangle itself with each edge
 * pushed out by that test's offset (half the pixels of the bounds for a
 * right triangle), else (a thin triangle) the quad of the bounds: all cover
 * the same kept pixels, so the answer does not depend on the choice, and
 * these pixels are the cost on a software rasterizer (a stack of 6 boxes at
 * 256 pixels: 27 million fragments a query with squares and quads alone,
 * 6.5 million so, 3.3 million with the rounds ended early). Each fragment carries the triangle's depth
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
 *
 * What travels per frame (gpu_mesh.h). Meshes are uploaded once per world
 * (vertices in float relative to each mesh's centre, scaled by a power of
 * two; indices as they are) and again by the range a deformation changed. A
 * frame uploads one 64-byte record per object taking part (its pose record,
 * the box its triangles must meet); the shaders place the triangles. The
 * selection of each view's triangles, its view box, the FAR split into
 * points and quads and the draw commands are compute stages on the GPU,
 * the draws indirect: no CPU work and no readback between views, and one
 * readback at the end (the flagged triangles as a list, or the object PCS).
 *
 * Placement error. A corner is computed in float as R_f v_f k + t_f (see
 * shaders/pose.glsl), the exact one being R v k + t in the frame.
 * With u = 2^-24: |v_f - v| <= u|v|; the quaternion rounds by u per
 * component and R's entries computed from it in float are within 24u of
 * R's; the product R_f v_f adds at most 3u|R_f||v_f| per coordinate and k
 * is a power of two (exact, or below float's range, then contributing less
 * than that range); t_f is within u|t| and the sum adds u of its size. So
 * each coordinate is within (72 + 10 + 3 + 1)u |v|k + 2u|t| < 128u (|v|k +
 * |t|) of the exact one, |v| and |t| the largest coordinates (max norm).
 * That bound (glcollide_gpu_pose's), over the objects taking part, is added
 * to the fattening radius: FAR's guarantee is kept for the exact (double)
 * positions.
 */
#include "methods/cull.h"
#include "gpu/gpu_mesh.h"
#include "gpu/shaders.h"

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

/* The compute stages of shaders/cull_compute.glsl. */
enum {
    STAGE_RESET,
    STAGE_PREFILTER,
    STAGE_SELECT,
    STAGE_SETUP,
    STAGE_CLASSIFY,
    STAGE_COMMANDS,
    STAGE_UPDATE,
    STAGE_OBJECTS,
    STAGE_COMPACT,
    STAGE_COUNT
};

/* Programs: each compute stage in 4 variants (reliable, object round), then
 * the draw programs by kind and pass; each compiled on first use. */
#define COMPUTE_PROGRAM(stage, reliable, object_round) ((stage)*4 + (reliable)*2 + (object_round))
#define DRAW_PROGRAM(kind, pass) (STAGE_COUNT * 4 + (kind)*PASS_COUNT + (pass))
#define PROGRAM_COUNT (STAGE_COUNT * 4 + KIND_COUNT * PASS_COUNT)

/* Buffers, by their binding in the shaders. */
enum {
    BUFFER_VERTICES,
    BUFFER_INDICES,
    BUFFER_OBJECTS,
    BUFFER_MESHES,
    BUFFER_LISTS,
    BUFFER_ALIVE,
    BUFFER_FLAGS,
    BUFFER_CONTROL,
    BUFFER_COUNT
};

/* Byte offsets in the control block (shaders/cull_common.glsl). */
enum {
    CONTROL_LISTED = 36,
    CONTROL_RASTERIZED = 40,
    CONTROL_COMMANDS = 96,
    CONTROL_DISPATCH = 128,
    CONTROL_BYTES = 160
};

/* A mesh of the world on the GPU: its vertices (gpu_mesh.h), then its
 * triangles in the index buffer. */
typedef struct cull_mesh {
    glcollide_gpu_mesh gpu;
    size_t first_index, triangle_count;
} cull_mesh;

struct glcollide_cull_cache {
    GLuint programs[PROGRAM_COUNT]; /* the context's (program_set), filled as used */
    float max_point_size;
    GLuint vertex_array;
    GLuint buffers[BUFFER_COUNT];
    size_t capacity[BUFFER_COUNT]; /* bytes */
    GLuint owner_texture, depth_textures[2];
    GLuint framebuffers[3]; /* nearest (owner + depth1), second (depth2), flag (none) */
    int resolution;
    /* The world whose meshes are on the GPU, and where. */
    uint64_t world_id;
    cull_mesh *meshes;
    size_t mesh_count, mesh_capacity;
    size_t vertices_placed, indices_placed; /* where the next mesh goes */
    /* Scratch kept between frames (a warm frame allocates nothing). */
    float *staging; /* vertices being uploaded, 4 per vertex */
    size_t staging_capacity;
    uint32_t *mesh_table; /* 4 per mesh */
    size_t mesh_table_capacity;
    float *records; /* 16 per object taking part */
    size_t record_capacity;
    uint32_t *first, *flagged, *sort_scratch, *pcs_bits;
    size_t first_capacity, flagged_capacity, sort_capacity, pcs_capacity;
};

static GLuint build_program(int which)
{
    static const char *const stage_defines =
        "#define STAGE_RESET 0\n#define STAGE_PREFILTER 1\n#define STAGE_SELECT 2\n"
        "#define STAGE_SETUP 3\n#define STAGE_CLASSIFY 4\n#define STAGE_COMMANDS 5\n"
        "#define STAGE_UPDATE 6\n#define STAGE_OBJECTS 7\n#define STAGE_COMPACT 8\n";
    char header[512], name[64];
    const char *bodies[2];
    int compute = which < STAGE_COUNT * 4;
    if (compute) {
        snprintf(
            header, sizeof header,
            "#version 430 core\n%s#define STAGE %d\n#define RELIABLE %d\n#define OBJECT_ROUND %d\n",
            stage_defines, which / 4, which / 2 % 2, which % 2);
        snprintf(name, sizeof name, "cull stage %d", which / 4);
        bodies[0] = glcollide_shader_cull_compute;
    } else {
        static const char *const kinds[KIND_COUNT] = {"cullide", "far quads", "far points"};
        int kind = (which - STAGE_COUNT * 4) / PASS_COUNT,
            pass = (which - STAGE_COUNT * 4) % PASS_COUNT;
        snprintf(header, sizeof header,
                 "#version 430 core\n#define RELIABLE %d\n#define POINTS %d\n#define PASS %d\n",
                 kind != KIND_TRIANGLES, kind == KIND_POINTS, pass);
        snprintf(name, sizeof name, "%s pass %d", kinds[kind], pass + 1);
        bodies[0] = glcollide_shader_cull_vertex;
        bodies[1] = glcollide_shader_cull_fragment;
    }
    /* Every stage places triangles: pose.glsl, then cull_common.glsl. */
    const char *const parts[2][5] = {
        {header, glcollide_shader_pose, glcollide_shader_cull_common, bodies[0], NULL},
        {header, glcollide_shader_pose, glcollide_shader_cull_common, bodies[1], NULL}};
    return compute ? glcollide_gl_program(name, NULL, NULL, parts[0])
                   : glcollide_gl_program(name, parts[0], parts[1], NULL);
}

/* The context's programs of the culling passes, and its buffers and targets. */
static const glcollide_gl_program_set program_set = {
    {"cull programs", glcollide_gl_programs_release}, PROGRAM_COUNT, build_program};

static void cache_release(void *memory)
{
    struct glcollide_cull_cache *cache = memory;
    glDeleteVertexArrays(1, &cache->vertex_array);
    glDeleteBuffers(BUFFER_COUNT, cache->buffers);
    glDeleteTextures(1, &cache->owner_texture);
    glDeleteTextures(2, cache->depth_textures);
    glDeleteFramebuffers(3, cache->framebuffers);
    free(cache->meshes);
    free(cache->staging);
    free(cache->mesh_table);
    free(cache->records);
    free(cache->first);
    free(cache->flagged);
    free(cache->sort_scratch);
    free(cache->pcs_bits);
    free(cache);
}

static const glcollide_gl_cache_kind cache_kind = {"cull", cache_release};

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
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
                           cache->owner_texture, 0);
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

static int prepare_cache(glcollide_context *context, struct glcollide_cull_cache **out)
{
    struct glcollide_cull_cache *cache = glcollide_context_cache_find(context, &cache_kind);
    if (!cache) {
        /* The vertex stage reads six storage blocks, the compute stages eight. */
        GLint vertex_blocks = 0, compute_blocks = 0;
        glGetIntegerv(GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS, &vertex_blocks);
        glGetIntegerv(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS, &compute_blocks);
        if (vertex_blocks < 6 || compute_blocks < 8)
            return glcollide_fail(GLCOLLIDE_ERROR_GL_UNSUPPORTED,
                                  "cull: %s offers %d storage blocks to vertex shaders and %d to "
                                  "compute shaders; 6 and 8 are needed",
                                  context->caps.renderer, vertex_blocks, compute_blocks);
        cache = calloc(1, sizeof *cache);
        if (!cache)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "cull: out of memory");
        glGenVertexArrays(1, &cache->vertex_array);
        glGenBuffers(BUFFER_COUNT, cache->buffers);
        GLfloat range[2] = {1, 1};
        glGetFloatv(GL_POINT_SIZE_RANGE, range);
        cache->max_point_size = range[1];
        int status = glcollide_context_cache_add(context, &cache_kind, cache);
        if (status != GLCOLLIDE_OK)
            return status;
    }
    *out = cache;
    return GLCOLLIDE_OK;
}

static GLuint program(glcollide_context *context, struct glcollide_cull_cache *cache, int which)
{
    if (!cache->programs[which])
        cache->programs[which] = glcollide_context_program(context, &program_set, which);
    return cache->programs[which];
}

/* Grows buffer b to hold bytes (contents kept only when kept is set). */
static void buffer_reserve(struct glcollide_cull_cache *cache, int b, size_t bytes)
{
    glcollide_gl_buffer_reserve(cache->buffers[b], &cache->capacity[b], bytes);
}

/* Grows buffer b to hold bytes, keeping its first used bytes (a new buffer
 * with the old contents copied on the GPU). */
static void buffer_reserve_kept(struct glcollide_cull_cache *cache, int b, size_t bytes,
                                size_t used)
{
    if (bytes <= cache->capacity[b] || used == 0) {
        buffer_reserve(cache, b, bytes);
        return;
    }
    GLuint old = cache->buffers[b], fresh = 0;
    glGenBuffers(1, &fresh);
    glcollide_gl_buffer_reserve(fresh, &cache->capacity[b], bytes); /* counts the growth */
    glBindBuffer(GL_COPY_READ_BUFFER, old);
    glBindBuffer(GL_COPY_WRITE_BUFFER, fresh);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, (GLsizeiptr)used);
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    glDeleteBuffers(1, &old);
    cache->buffers[b] = fresh;
}

static void upload(struct glcollide_cull_cache *cache, int b, size_t offset, size_t bytes,
                   const void *data, glcollide_query_stats *stats)
{
    glcollide_gl_buffer_upload(cache->buffers[b], offset, bytes, data, stats);
}

/* ------------------------------------------------------------- meshes */

/* Uploads vertices first..first+count-1 of mesh m (its frame already set). */
static int upload_vertices(struct glcollide_cull_cache *cache, const glcollide_mesh *mesh,
                           cull_mesh *slot, size_t first, size_t count,
                           glcollide_query_stats *stats)
{
    return glcollide_gpu_mesh_upload(mesh, &slot->gpu, first, count, &cache->staging,
                                     &cache->staging_capacity, cache->buffers[BUFFER_VERTICES],
                                     "cull", stats);
}

/* Places the world's meshes from first on after those placed already and
 * uploads them whole, with their rows of the mesh table: registering a
 * mesh sends that mesh alone. */
static int place_meshes(struct glcollide_cull_cache *cache, const glcollide_world *world,
                        size_t first, glcollide_query_stats *stats)
{
    int status = glcollide_array_reserve((void **)&cache->meshes, &cache->mesh_capacity,
                                         world->mesh_count, sizeof *cache->meshes, "cull");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&cache->mesh_table, &cache->mesh_table_capacity,
                                         4 * world->mesh_count, sizeof *cache->mesh_table, "cull");
    if (status != GLCOLLIDE_OK)
        return status;
    size_t vertices = cache->vertices_placed, indices = cache->indices_placed;
    for (size_t m = first; m < world->mesh_count; m++) {
        const glcollide_mesh *mesh = world->meshes[m].mesh;
        cull_mesh *slot = &cache->meshes[m];
        slot->gpu.first_vertex = vertices;
        slot->first_index = indices;
        slot->gpu.vertex_count = mesh->vertex_count;
        slot->triangle_count = mesh->triangle_count;
        vertices += mesh->vertex_count;
        indices += 3 * mesh->triangle_count;
    }
    if (vertices > UINT32_MAX || indices > UINT32_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT,
                              "cull: %zu vertices and %zu indices in the "
                              "world's meshes, at most %u each",
                              vertices, indices, UINT32_MAX);
    buffer_reserve_kept(cache, BUFFER_VERTICES, 16 * (vertices ? vertices : 1),
                        16 * cache->vertices_placed);
    buffer_reserve_kept(cache, BUFFER_INDICES, 4 * (indices ? indices : 1),
                        4 * cache->indices_placed);
    buffer_reserve_kept(cache, BUFFER_MESHES, 16 * (world->mesh_count ? world->mesh_count : 1),
                        16 * first);
    for (size_t m = first; m < world->mesh_count && status == GLCOLLIDE_OK; m++) {
        const glcollide_mesh *mesh = world->meshes[m].mesh;
        cull_mesh *slot = &cache->meshes[m];
        glcollide_gpu_mesh_frame(&world->meshes[m], &slot->gpu);
        status = upload_vertices(cache, mesh, slot, 0, mesh->vertex_count, stats);
        upload(cache, BUFFER_INDICES, 4 * slot->first_index, 12 * mesh->triangle_count,
               mesh->triangles, stats);
        slot->gpu.synced_at = world->meshes[m].changed_at;
        uint32_t *row = cache->mesh_table + 4 * m;
        row[0] = (uint32_t)slot->gpu.first_vertex;
        row[1] = (uint32_t)slot->first_index;
        row[2] = (uint32_t)slot->triangle_count;
        row[3] = 0;
    }
    upload(cache, BUFFER_MESHES, 16 * first, 16 * (world->mesh_count - first),
           cache->mesh_table + 4 * first, stats);
    if (status == GLCOLLIDE_OK) {
        cache->mesh_count = world->mesh_count;
        cache->vertices_placed = vertices;
        cache->indices_placed = indices;
    }
    return status;
}

/*
 * The world's meshes on the GPU, up to date: all of them on first use (or
 * for another world, or when one changed size), the meshes registered since
 * the last frame, and the vertices a deformation rewrote, in the frame the
 * mesh was uploaded in (a change older than the last upload, or a replaced
 * mesh, sends the whole mesh).
 */
static int sync_meshes(struct glcollide_cull_cache *cache, const glcollide_world *world,
                       glcollide_query_stats *stats)
{
    int relayout = cache->world_id != world->id || cache->mesh_count > world->mesh_count;
    size_t placed = relayout ? 0 : cache->mesh_count;
    for (size_t m = 0; m < placed && !relayout; m++)
        relayout = cache->meshes[m].gpu.vertex_count != world->meshes[m].mesh->vertex_count ||
                   cache->meshes[m].triangle_count != world->meshes[m].mesh->triangle_count;
    if (relayout) {
        cache->world_id = world->id;
        cache->mesh_count = cache->vertices_placed = cache->indices_placed = 0;
        return place_meshes(cache, world, 0, stats);
    }
    int status =
        placed < world->mesh_count ? place_meshes(cache, world, placed, stats) : GLCOLLIDE_OK;
    for (size_t m = 0; m < placed && status == GLCOLLIDE_OK; m++) {
        const glcollide_world_mesh_entry *entry = &world->meshes[m];
        cull_mesh *slot = &cache->meshes[m];
        int need = glcollide_gpu_mesh_need(&slot->gpu, entry);
        if (need == GLCOLLIDE_GPU_MESH_CURRENT)
            continue;
        if (need == GLCOLLIDE_GPU_MESH_RANGE) {
            status = upload_vertices(cache, entry->mesh, slot, entry->changed_first,
                                     entry->changed_count, stats);
        } else {
            glcollide_gpu_mesh_frame(entry, &slot->gpu);
            status = upload_vertices(cache, entry->mesh, slot, 0, slot->gpu.vertex_count, stats);
            upload(cache, BUFFER_INDICES, 4 * slot->first_index, 12 * slot->triangle_count,
                   entry->mesh->triangles, stats);
        }
        slot->gpu.synced_at = entry->changed_at;
    }
    return status;
}

/* ------------------------------------------------------------- a frame */

/* What the stages read besides the buffers (unused ones are skipped). */
typedef struct cull_uniforms {
    GLuint object_count, triangle_total, capacity, triangle_words;
    GLint axis, resolution, round_start;
    GLfloat base_radius, max_point_size;
} cull_uniforms;

static void use_program(GLuint program, const cull_uniforms *u, glcollide_query_stats *stats)
{
    glUseProgram(program);
    const struct {
        const char *name;
        int type; /* 0 uint, 1 int, 2 float */
        const void *value;
    } all[] = {{"object_count", 0, &u->object_count},
               {"triangle_total", 0, &u->triangle_total},
               {"capacity", 0, &u->capacity},
               {"triangle_words", 0, &u->triangle_words},
               {"axis", 1, &u->axis},
               {"resolution", 1, &u->resolution},
               {"round_start", 1, &u->round_start},
               {"base_radius", 2, &u->base_radius},
               {"max_point_size", 2, &u->max_point_size}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        GLint location = glGetUniformLocation(program, all[i].name);
        if (location < 0)
            continue;
        if (all[i].type == 0)
            glUniform1ui(location, *(const GLuint *)all[i].value);
        else if (all[i].type == 1)
            glUniform1i(location, *(const GLint *)all[i].value);
        else
            glUniform1f(location, *(const GLfloat *)all[i].value);
        stats->upload_bytes += 4;
    }
}

/* A compute stage over n invocations (64 a group; groups in rows of at
 * most 65535), or over the count the setup stage wrote (n = 0, indirect). */
static int run_stage(glcollide_context *context, struct glcollide_cull_cache *cache, int stage,
                     int reliable, int object_round, size_t n, int indirect, const cull_uniforms *u,
                     glcollide_query_stats *stats)
{
    GLuint p = program(context, cache, COMPUTE_PROGRAM(stage, reliable, object_round));
    if (!p)
        return GLCOLLIDE_ERROR_GL;
    use_program(p, u, stats);
    if (indirect) {
        glDispatchComputeIndirect((GLintptr)CONTROL_DISPATCH);
    } else {
        size_t groups = (n + 63) / 64;
        if (groups == 0)
            return GLCOLLIDE_OK;
        GLuint x = groups < 65535 ? (GLuint)groups : 65535;
        glDispatchCompute(x, (GLuint)((groups + x - 1) / x), 1);
    }
    stats->compute_dispatches++;
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT);
    return GLCOLLIDE_OK;
}

/* One pass of a view: the indirect draws the commands stage wrote. */
static int draw_pass(glcollide_context *context, struct glcollide_cull_cache *cache, int reliable,
                     int pass, const cull_uniforms *u, glcollide_query_stats *stats)
{
    const int kinds[2] = {reliable ? KIND_POINTS : KIND_TRIANGLES, reliable ? KIND_QUADS : -1};
    for (int i = 0; i < 2 && kinds[i] >= 0; i++) {
        GLuint p = program(context, cache, DRAW_PROGRAM(kinds[i], pass));
        if (!p)
            return GLCOLLIDE_ERROR_GL;
        use_program(p, u, stats);
        glDrawArraysIndirect(kinds[i] == KIND_POINTS ? GL_POINTS : GL_TRIANGLES,
                             (const void *)(uintptr_t)(CONTROL_COMMANDS + 16 * i));
        stats->draw_calls++;
    }
    return GLCOLLIDE_OK;
}

/* One view: select, fit, split, draw the three passes, update the flags. */
static int run_view(glcollide_context *context, struct glcollide_cull_cache *cache, int reliable,
                    int object_round, size_t total, size_t flag_bytes, const cull_uniforms *u,
                    glcollide_query_stats *stats)
{
    GLuint zero = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->buffers[BUFFER_FLAGS]);
    glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, 0, (GLsizeiptr)flag_bytes,
                         GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    int status = GLCOLLIDE_OK;
    if ((status = run_stage(context, cache, STAGE_RESET, 0, 0, 1, 0, u, stats)) ||
        (status = run_stage(context, cache, STAGE_SELECT, 0, object_round, total, 0, u, stats)) ||
        (status = run_stage(context, cache, STAGE_SETUP, reliable, 0, 1, 0, u, stats)) ||
        (reliable && (status = run_stage(context, cache, STAGE_CLASSIFY, 0, 0, 0, 1, u, stats))) ||
        (status = run_stage(context, cache, STAGE_COMMANDS, reliable, 0, 1, 0, u, stats)))
        return status;

    int side = cache->resolution;
    glViewport(0, 0, side, side);
    if (reliable)
        glEnable(GL_PROGRAM_POINT_SIZE);
    /* Pass 1: nearest depth and its owner. */
    glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[PASS_NEAREST]);
    const GLuint no_owner[4] = {0xffffffffu, 0, 0, 0};
    const GLfloat far_depth = 1.0f;
    glClearBufferuiv(GL_COLOR, 0, no_owner);
    glClearBufferfv(GL_DEPTH, 0, &far_depth);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    status = draw_pass(context, cache, reliable, PASS_NEAREST, u, stats);
    /* Pass 2: nearest depth of the other objects. */
    glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[PASS_SECOND]);
    glClearBufferfv(GL_DEPTH, 0, &far_depth);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, cache->owner_texture);
    if (status == GLCOLLIDE_OK)
        status = draw_pass(context, cache, reliable, PASS_SECOND, u, stats);
    /* Pass 3: flag every triangle with a fragment at or behind another object. */
    glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[PASS_FLAG]);
    glDisable(GL_DEPTH_TEST);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, cache->depth_textures[0]);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, cache->depth_textures[1]);
    if (status == GLCOLLIDE_OK)
        status = draw_pass(context, cache, reliable, PASS_FLAG, u, stats);
    for (int unit = 2; unit >= 0; unit--) {
        glActiveTexture(GL_TEXTURE0 + (GLenum)unit);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    glDisable(GL_PROGRAM_POINT_SIZE);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    if (status == GLCOLLIDE_OK)
        status = run_stage(context, cache, STAGE_UPDATE, 0, object_round, 0, 1, u, stats);
    if (status == GLCOLLIDE_OK && object_round)
        status = run_stage(context, cache, STAGE_OBJECTS, 0, 0, (u->object_count + 31) / 32, 0, u,
                           stats);
    return status;
}

/* Least significant digit radix sort of 32-bit keys, 11 bits a pass. */
static void sort_ids(uint32_t *keys, uint32_t *scratch, size_t n)
{
    size_t counts[2048];
    for (int shift = 0; shift < 32; shift += 11) {
        memset(counts, 0, sizeof counts);
        for (size_t i = 0; i < n; i++)
            counts[keys[i] >> shift & 2047u]++;
        glcollide_counts_to_offsets(counts, 2048);
        for (size_t i = 0; i < n; i++)
            scratch[counts[keys[i] >> shift & 2047u]++] = keys[i];
        memcpy(keys, scratch, n * sizeof *keys);
    }
}

/* Reserves the frame's scratch: records, first ids. */
static int reserve_frame(struct glcollide_cull_cache *cache, size_t count)
{
    int status = glcollide_array_reserve((void **)&cache->records, &cache->record_capacity,
                                         16 * count, sizeof *cache->records, "cull");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&cache->first, &cache->first_capacity, count + 1,
                                         sizeof *cache->first, "cull");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&cache->pcs_bits, &cache->pcs_capacity,
                                         (count + 31) / 32 + 1, sizeof *cache->pcs_bits, "cull");
    return status;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/*
 * The objects' records (see shaders/cull_common.glsl) in the frame
 * (origin, scale): the pose record of gpu_mesh.h in words 0-7, the first
 * global triangle id in 11 and the mesh slot in 15 (fill_regions writes the
 * rest); returns the bound of the placement error (frame units).
 */
static double fill_records(struct glcollide_cull_cache *cache, const glcollide_world *world,
                           const uint32_t *objects, size_t count, const double origin[3],
                           double scale)
{
    double error = 4 * (double)FLT_MIN; /* the least bound glcollide_gpu_pose gives */
    for (size_t p = 0; p < count; p++) {
        const glcollide_object *pose = &world->objects[objects[p]];
        float *r = cache->records + 16 * p;
        error = fmax(error, glcollide_gpu_pose(&pose->pose, &cache->meshes[pose->mesh].gpu, origin,
                                               scale, r));
        r[11] = bits_float(cache->first[p]);
        r[15] = bits_float(pose->mesh);
    }
    return error;
}

/* Each object's region (the box its triangles must meet) in the frame,
 * rounded outward and grown by the placement error; everything without. */
static void fill_regions(struct glcollide_cull_cache *cache, const glcollide_aabb *regions,
                         size_t count, const double origin[3], double scale, double error)
{
    for (size_t p = 0; p < count; p++) {
        float *r = cache->records + 16 * p;
        for (int k = 0; k < 3; k++) {
            if (!regions) {
                r[8 + k] = -INFINITY;
                r[12 + k] = INFINITY;
                continue;
            }
            double lo = (regions[p].min[k] - origin[k]) * scale;
            double hi = (regions[p].max[k] - origin[k]) * scale;
            r[8 + k] = (float)(lo - 2 * error - 0x1p-22 * fabs(lo));
            r[12 + k] = (float)(hi + 2 * error + 0x1p-22 * fabs(hi));
        }
    }
}

/* The buffers a frame of total triangles and count objects works in. */
static int reserve_buffers(glcollide_context *context, struct glcollide_cull_cache *cache,
                           size_t total, size_t count, size_t *flag_bytes, size_t *triangle_words)
{
    GLint64 largest = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &largest);
    size_t list_bytes = 12 * (total ? total : 1);
    if (largest > 0 && (double)list_bytes > (double)largest)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT,
                              "cull: %zu triangles take part; their lists need %zu bytes, %s's "
                              "storage blocks hold %lld",
                              total, list_bytes, context->caps.renderer, (long long)largest);
    *triangle_words = (total + 31) / 32;
    *flag_bytes = 4 * (*triangle_words + (count + 31) / 32);
    buffer_reserve(cache, BUFFER_OBJECTS, 64 * count);
    buffer_reserve(cache, BUFFER_LISTS, list_bytes);
    buffer_reserve(cache, BUFFER_ALIVE, *flag_bytes);
    buffer_reserve(cache, BUFFER_FLAGS, *flag_bytes);
    buffer_reserve(cache, BUFFER_CONTROL, CONTROL_BYTES);
    for (int b = 0; b < BUFFER_COUNT; b++)
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, (GLuint)b, cache->buffers[b]);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, cache->buffers[BUFFER_CONTROL]);
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, cache->buffers[BUFFER_CONTROL]);
    glBindVertexArray(cache->vertex_array);
    return GLCOLLIDE_OK;
}

/* Fills buffer b's first bytes with the word value. */
static void fill_words(struct glcollide_cull_cache *cache, int b, size_t offset, size_t bytes,
                       GLuint value)
{
    if (!bytes)
        return;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->buffers[b]);
    glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, (GLintptr)offset, (GLsizeiptr)bytes,
                         GL_RED_INTEGER, GL_UNSIGNED_INT, &value);
}

/* The one readback: the control block's counters, then the list or the bits. */
static int read_results(struct glcollide_cull_cache *cache, int object_round, size_t count,
                        size_t triangle_words, glcollide_cull_frame *frame,
                        glcollide_query_stats *stats)
{
    uint32_t header[12];
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->buffers[BUFFER_CONTROL]);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof header, header);
    stats->gpu_syncs++;
    stats->readback_bytes += sizeof header;
    stats->triangles_rasterized += header[CONTROL_RASTERIZED / 4];
    if (object_round) {
        size_t words = (count + 31) / 32;
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->buffers[BUFFER_ALIVE]);
        glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)(4 * triangle_words),
                           (GLsizeiptr)(4 * words), cache->pcs_bits);
        stats->gpu_syncs++;
        stats->readback_bytes += 4 * words;
        frame->pcs_bits = cache->pcs_bits;
        return GLCOLLIDE_OK;
    }
    size_t listed = header[CONTROL_LISTED / 4];
    int status = glcollide_array_reserve((void **)&cache->flagged, &cache->flagged_capacity,
                                         listed + 1, sizeof *cache->flagged, "cull");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&cache->sort_scratch, &cache->sort_capacity,
                                         listed + 1, sizeof *cache->sort_scratch, "cull");
    if (status != GLCOLLIDE_OK)
        return status;
    if (listed) {
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->buffers[BUFFER_LISTS]);
        glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(4 * listed), cache->flagged);
        stats->gpu_syncs++;
        stats->readback_bytes += 4 * listed;
    }
    /* Appended in any order: sorted, each object's triangles lie together. */
    sort_ids(cache->flagged, cache->sort_scratch, listed);
    frame->flagged = cache->flagged;
    frame->flagged_count = listed;
    return GLCOLLIDE_OK;
}

/* The rounds of views, on buffers ready. */
static int run_rounds(glcollide_context *context, struct glcollide_cull_cache *cache,
                      const glcollide_cull_options *options, int prefilter, size_t total,
                      size_t flag_bytes, const cull_uniforms *u, glcollide_query_stats *stats)
{
    size_t triangle_bytes = 4 * (size_t)u->triangle_words;
    fill_words(cache, BUFFER_CONTROL, 0, CONTROL_BYTES, 0);
    /* Who takes part: every triangle (or, prefiltered, those meeting their
     * region); every object. */
    fill_words(cache, BUFFER_ALIVE, 0, triangle_bytes, prefilter ? 0 : 0xffffffffu);
    fill_words(cache, BUFFER_ALIVE, triangle_bytes, flag_bytes - triangle_bytes, 0xffffffffu);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    int status = GLCOLLIDE_OK;
    if (prefilter)
        status = run_stage(context, cache, STAGE_PREFILTER, 0, 0, total, 0, u, stats);
    int rounds = (options->object_round ? 1 : 0) + options->triangle_rounds;
    for (int round = 0; round < rounds && status == GLCOLLIDE_OK; round++) {
        int object_round = options->object_round && round == 0;
        for (int axis = 0; axis < 3 && status == GLCOLLIDE_OK; axis++) {
            cull_uniforms view = *u;
            view.axis = axis;
            view.round_start = round > 0 && axis == 0;
            status = run_view(context, cache, options->reliable, object_round, total, flag_bytes,
                              &view, stats);
        }
    }
    if (status == GLCOLLIDE_OK && options->triangle_rounds) {
        status = run_stage(context, cache, STAGE_RESET, 0, 0, 1, 0, u, stats);
        if (status == GLCOLLIDE_OK)
            status = run_stage(context, cache, STAGE_COMPACT, 0, 0, total, 0, u, stats);
    }
    return status;
}

int glcollide_cull_world(glcollide_context *context, const glcollide_world *world,
                         const glcollide_cull_options *options, const uint32_t *objects,
                         size_t count, const glcollide_aabb *regions, glcollide_cull_frame *frame,
                         glcollide_query_stats *stats)
{
    memset(frame, 0, sizeof *frame);
    const char *layer = options->reliable ? "far" : "cullide";
    /* The owner texture and two depth textures. */
    int status = glcollide_context_check_resolution(context, layer, options->resolution, 12);
    if (status != GLCOLLIDE_OK || count == 0)
        return status;
    size_t total = 0;
    glcollide_aabb all;
    glcollide_aabb_empty(&all);
    for (size_t p = 0; p < count; p++) {
        const glcollide_object *pose = &world->objects[objects[p]];
        total += world->meshes[pose->mesh].mesh->triangle_count;
        if (world->meshes[pose->mesh].mesh->triangle_count) {
            glcollide_aabb_add_point(&all, world->boxes[objects[p]].min);
            glcollide_aabb_add_point(&all, world->boxes[objects[p]].max);
        }
    }
    if (total > UINT32_MAX / 6)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "cull: %zu triangles, at most %u", total,
                              UINT32_MAX / 6);
    if (total == 0)
        return GLCOLLIDE_OK; /* nothing to cull */
    if ((status = glcollide_context_make_current(context)) != GLCOLLIDE_OK)
        return status;
    glcollide_gl_state saved;
    glcollide_gl_state_save(&saved);
    glcollide_gl_state_reset();
    struct glcollide_cull_cache *cache = NULL;
    size_t flag_bytes = 0, triangle_words = 0;
    if ((status = prepare_cache(context, &cache)) ||
        (status = prepare_targets(cache, options->resolution)) ||
        (status = sync_meshes(cache, world, stats)) || (status = reserve_frame(cache, count)) ||
        (status = reserve_buffers(context, cache, total, count, &flag_bytes, &triangle_words)))
        goto done;
    cache->first[0] = 0;
    for (size_t p = 0; p < count; p++)
        cache->first[p + 1] =
            cache->first[p] +
            (uint32_t)cache->meshes[world->objects[objects[p]].mesh].triangle_count;
    /* Geometry relative to the centre of what is drawn and scaled by a power
     * of two that brings it into [-1, 1]: float keeps 24 bits of the scene's
     * extent, not of its distance from the world origin, and neither
     * overflows nor underflows at any scale double can hold. */
    double origin[3], scale;
    glcollide_frame_fit(&all, origin, &scale);
    double error = fill_records(cache, world, objects, count, origin, scale);
    fill_regions(cache, regions, count, origin, scale, error);
    upload(cache, BUFFER_OBJECTS, 0, 64 * count, cache->records, stats);
    /* A fattening radius above the drawn scene's diameter (below 4 once
     * scaled) keeps every triangle already: the same answer, and no float
     * overflow for --distance 1e39. */
    cull_uniforms u = {
        .object_count = (GLuint)count,
        .triangle_total = (GLuint)total,
        .capacity = (GLuint)total,
        .triangle_words = (GLuint)triangle_words,
        .resolution = options->resolution,
        .base_radius = (float)(fmin(options->distance / 2 * scale, 4.0) + error),
        .max_point_size = cache->max_point_size,
    };
    status = run_rounds(context, cache, options, regions != NULL, total, flag_bytes, &u, stats);
    if (status == GLCOLLIDE_OK)
        status = read_results(cache, options->object_round && !options->triangle_rounds, count,
                              triangle_words, frame, stats);
    if (status == GLCOLLIDE_OK)
        status = glcollide_gl_check(options->reliable ? "far" : "cullide");
    frame->object_count = count;
    frame->first = cache->first;
done:
    glcollide_gl_state_restore(&saved);
    return status;
}
