/* SPDX-License-Identifier: MIT */
/*
 * Knott's stencil ray-casting interference detection (CInDeR, thesis ch. 4).
 *
 * Two closed solids interfere iff a boundary point of one lies in the other
 * (Theorem 4.1). For each view (orthographic, along an axis, fitted to the
 * scene), with every object in the same draw calls (vertex pulling):
 *   pass 1: the edges of every object as lines, and its vertices as points,
 *           keep per pixel the nearest sample: its id, owner object and depth
 *           (Algorithm 1 lines 4-10, with Algorithm 2's colour = sample id);
 *   pass 2: every triangle; a fragment in front of the pixel's sample and not
 *           of the sample's own object adds +1 (facing the viewer) or -1 to
 *           the stencil in one two-sided pass (glStencilOpSeparate), and
 *           +-object id to a per-pixel sum (SSBO atomics);
 *   pass 3: a compute pass appends every pixel with a non-zero count to a
 *           record list (pixel, sample id, depth, count or penetrated id).
 * The count is the number of other solids containing the sample (> 0:
 * interference, < 0: a solid that is not closed). Where it is 1, the id sum
 * is the penetrated object (Algorithm 4 in one pass: objects not containing
 * the sample add as many +id as -id). Where it is 2 or more the CPU tests
 * the few objects whose boxes contain the sample (exact point-in-mesh).
 * A closed mesh that passes through itself is a solid where it winds
 * (nonzero, 2 in its overlaps, -1 in folds): its faces flag the pixel, which
 * also notes whether faces of two objects are in front; with one object
 * the count is its winding (nonzero: inside), with more the windings could
 * cancel and the CPU decides the sample exactly.
 * After all views the record count is read (4 bytes: the early
 * non-interference exit, Algorithm 5's purpose without one occlusion query
 * per object), then the records once. Draw calls and syncs do not depend on
 * the number of objects.
 *
 * What travels per frame (gpu_mesh.h): the world's meshes go to the GPU once
 * (vertices in each mesh's own frame, triangles and edges as indices) and
 * again by the range a deformation rewrote; a frame uploads a 48-byte record
 * per object drawn (pose, first triangle/edge/vertex, mesh). One compute
 * dispatch turns the records into an indirect draw command per object and
 * kind, its base instance naming the object to the vertex shader, which
 * reads its record and places the mesh's vertices; each kind is then one
 * multi-draw (a search over the records per vertex cost 10x on llvmpipe).
 * The CPU works per object: boxes from the world, the
 * per-mesh checks (closed, passing through itself) kept by the world, and
 * for the few samples it decides, exact point-in-solid on the mesh's
 * object-space BVH and the object's pose.
 *
 * Changes to the thesis, and why:
 * - Knott offsets edges outward so that an edge does not count its own
 *   faces. Near a silhouette a line fragment lies up to half a pixel from its
 *   edge, where its own faces' depths differ by far more than any small
 *   offset, so the offset still reports self-interference. Here the faces of
 *   the sample's own object are skipped (owner id per pixel), which makes
 *   the offset unnecessary: edges are drawn where they are (offset 0).
 * - Vertices are drawn as points as well: a solid smaller than a pixel,
 *   inside another, may raster no line fragment at all.
 * - A line fragment's depth is its line's at the pixel centre: past an end
 *   of an edge nearly along the view axis that is beyond the edge by half a
 *   pixel times its depth slope (a sample 0.02 from its edge at 512^2 in a
 *   random scene), so sample depths are clamped to their edge's range.
 * - The stencil has 8 bits. INCR_WRAP/DECR_WRAP count modulo 256, so the
 *   final count read as a signed byte is exact while fewer than 128 solids
 *   contain one point, whatever the order of the faces. Such a point lies in
 *   that many pairwise-overlapping boxes, so when no box overlaps 127 others
 *   the stencil is exact; otherwise (counter AUTO) the count goes to a
 *   32-bit atomic counter per pixel instead, in the same pass.
 */
#include "methods/stencil.h"
#include "gpu/gpu_mesh.h"
#include "gpu/shaders.h"
#include "methods/query.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_SAMPLE 0xffffffffu
#define RECORD_WORDS 4
#define HEADER_WORDS 4
#define MAX_VIEWS 6
/* Pixel buffer words: sum of +-ids, atomic count, objects with faces in front. */
#define PIXEL_WORDS 3
/* GL storage per pixel: sample, owner and depth textures, depth/stencil,
 * and the pixel buffer. */
#define STENCIL_BYTES_PER_PIXEL (4 + 4 + 4 + 8 + PIXEL_WORDS * 4)
/* A triangle's object id carries CROSSING when its mesh passes through
 * itself; the pixel's objects word adds MULTI when two objects have faces
 * in front of its sample. Ids stay below ID_MASK. */
#define ID_MASK 0x3fffffffu
#define CROSSING 0x40000000u
#define MULTI 0x80000000u
/* A record's what: the CPU decides (count no guide: windings may cancel). */
#define UNDECIDED 0x20000000u

enum {
    PROGRAM_SAMPLES = 0,
    PROGRAM_FACES,
    PROGRAM_FACES_ATOMIC,
    PROGRAM_RECORDS,
    PROGRAM_RECORDS_ATOMIC,
    PROGRAM_COMMANDS,
    PROGRAM_COUNT
};

/* A mesh of the world on the GPU: its vertices (gpu), then in the index
 * buffer its triangles (3 words each) and its edges (2 each: every
 * undirected edge once, as the directed edge a < b). The edges stay on the
 * CPU too, to name the samples read back. */
typedef struct stencil_mesh {
    glcollide_gpu_mesh gpu;
    size_t first_index, triangle_count, first_edge, edge_count;
} stencil_mesh;

/* Words of an object's record (shaders/stencil_vertex.glsl): the pose (8),
 * its first triangle, edge and vertex among those drawn, its mesh (with
 * CROSSING where the mesh passes through itself). 48 bytes. */
#define OBJECT_WORDS 12

struct glcollide_stencil_cache {
    GLuint programs[PROGRAM_COUNT]; /* the context's (program_set) */
    GLuint vertex_array;
    GLuint vertex_buffer, index_buffer, object_buffer, pixel_buffer, record_buffer, found_buffer;
    GLuint mesh_buffer, command_buffer, slot_buffer;
    size_t vertex_capacity, index_capacity, object_capacity, pixel_capacity, record_capacity;
    size_t found_capacity, mesh_buffer_capacity, command_capacity, slot_capacity;
    size_t slots_filled; /* the slot buffer holds 0, 1, ... up to here */
    GLuint sample_texture, owner_texture, depth_texture, depth_stencil_texture;
    GLuint
        framebuffers[2]; /* samples (ids, owners, depths + depth/stencil), faces (depth/stencil) */
    int resolution;
    size_t max_records; /* records the record buffer holds */
    /* The world whose meshes are on the GPU, and where. */
    uint64_t world_id;
    stencil_mesh *meshes;
    size_t mesh_count, mesh_capacity;
    uint32_t *edges;      /* 2 per edge, mesh after mesh */
    uint32_t *mesh_table; /* 4 per mesh: first vertex, first triangle index, first edge index */
    float *staging;       /* vertices being uploaded, 4 per vertex */
    size_t edge_capacity, mesh_table_capacity, staging_capacity;
    /* A frame's scratch, kept (a warm frame allocates nothing). */
    uint32_t *records;    /* OBJECT_WORDS per drawn object */
    uint32_t *drawn;      /* the world object of each drawn one */
    size_t *firsts;       /* per drawn one and one more: first triangle, edge, vertex */
    unsigned char *flags; /* per world object: ACTIVE, CROSSES */
    size_t *degree;
    glcollide_aabb *boxes; /* per world object: its placed BVH nodes (TIGHT_DEPTH) */
    uint32_t *readback;
    size_t record_words_capacity, drawn_capacity, firsts_capacity, flag_capacity, degree_capacity;
    size_t box_capacity;
    size_t readback_capacity;
    glcollide_pair_list pairs;
    glcollide_workspace sap;
};

static GLuint build_program(int which)
{
    static const char *const names[PROGRAM_COUNT] = {
        "stencil samples",          "stencil faces",
        "stencil faces (atomic)",   "stencil records",
        "stencil records (atomic)", "stencil draw commands"};
    int pass = which == PROGRAM_SAMPLES          ? 0
               : which <= PROGRAM_FACES_ATOMIC   ? 1
               : which <= PROGRAM_RECORDS_ATOMIC ? 2
                                                 : 3;
    int compute = pass >= 2;
    int atomic = which == PROGRAM_FACES_ATOMIC || which == PROGRAM_RECORDS_ATOMIC;
    char header[256];
    snprintf(header, sizeof header,
             "#version 430 core\n#define PASS %d\n#define ATOMIC %d\n#define PIXEL_WORDS %d\n"
             "#define ID_MASK 0x%xu\n#define CROSSING 0x%xu\n#define MULTI 0x%xu\n"
             "#define UNDECIDED 0x%xu\n",
             pass, atomic, PIXEL_WORDS, ID_MASK, CROSSING, MULTI, UNDECIDED);
    /* The vertex shader places the meshes (pose.glsl). */
    const char *const vertex[] = {header, glcollide_shader_pose, glcollide_shader_stencil_vertex,
                                  NULL};
    const char *const fragment[] = {header, glcollide_shader_stencil_fragment, NULL};
    const char *const kernel[] = {header, glcollide_shader_stencil_compute, NULL};
    return compute ? glcollide_gl_program(names[which], NULL, NULL, kernel)
                   : glcollide_gl_program(names[which], vertex, fragment, NULL);
}

static void release_targets(struct glcollide_stencil_cache *cache)
{
    GLuint textures[4] = {cache->sample_texture, cache->owner_texture, cache->depth_texture,
                          cache->depth_stencil_texture};
    glDeleteTextures(4, textures);
    glDeleteFramebuffers(2, cache->framebuffers);
    cache->sample_texture = cache->owner_texture = cache->depth_texture = 0;
    cache->depth_stencil_texture = cache->framebuffers[0] = cache->framebuffers[1] = 0;
    cache->resolution = 0;
}

static const glcollide_gl_program_set program_set = {
    {"stencil programs", glcollide_gl_programs_release}, PROGRAM_COUNT, build_program};

static void cache_release(void *memory)
{
    struct glcollide_stencil_cache *cache = memory;
    glDeleteVertexArrays(1, &cache->vertex_array);
    GLuint buffers[9] = {cache->vertex_buffer, cache->index_buffer,   cache->object_buffer,
                         cache->pixel_buffer,  cache->record_buffer,  cache->found_buffer,
                         cache->mesh_buffer,   cache->command_buffer, cache->slot_buffer};
    glDeleteBuffers(9, buffers);
    release_targets(cache);
    void *arrays[] = {cache->meshes,  cache->edges,    cache->mesh_table, cache->staging,
                      cache->records, cache->drawn,    cache->firsts,     cache->flags,
                      cache->degree,  cache->readback, cache->boxes};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        free(arrays[i]);
    glcollide_pair_list_clear(&cache->pairs);
    glcollide_workspace_release(&cache->sap);
    free(cache);
}

static const glcollide_gl_cache_kind cache_kind = {"stencil", cache_release};

static GLuint make_texture(GLenum format, int side)
{
    GLuint texture = glcollide_gl_texture_2d(format, side);
    if (format == GL_DEPTH32F_STENCIL8) { /* the compute pass reads the stencil (GL 4.3) */
        glBindTexture(GL_TEXTURE_2D, texture);
        glTexParameteri(GL_TEXTURE_2D, GL_DEPTH_STENCIL_TEXTURE_MODE, GL_STENCIL_INDEX);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    return texture;
}

static int prepare(glcollide_context *context, int resolution, struct glcollide_stencil_cache **out)
{
    struct glcollide_stencil_cache *cache = glcollide_context_cache_find(context, &cache_kind);
    if (!cache) {
        cache = calloc(1, sizeof *cache);
        if (!cache)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "stencil: out of memory");
        glGenVertexArrays(1, &cache->vertex_array);
        GLuint buffers[9];
        glGenBuffers(9, buffers);
        cache->mesh_buffer = buffers[6];
        cache->command_buffer = buffers[7];
        cache->slot_buffer = buffers[8];
        /* Attribute 0: the drawn object, per instance (the base instance of
         * each object's draw command). */
        glBindVertexArray(cache->vertex_array);
        glBindBuffer(GL_ARRAY_BUFFER, cache->slot_buffer);
        glVertexAttribIPointer(0, 1, GL_UNSIGNED_INT, 0, NULL);
        glVertexAttribDivisor(0, 1);
        glEnableVertexAttribArray(0);
        glBindVertexArray(0);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        cache->found_buffer = buffers[5];
        cache->vertex_buffer = buffers[0];
        cache->index_buffer = buffers[1];
        cache->object_buffer = buffers[2];
        cache->pixel_buffer = buffers[3];
        cache->record_buffer = buffers[4];
        int status = glcollide_context_cache_add(context, &cache_kind, cache);
        if (status != GLCOLLIDE_OK)
            return status;
    }
    for (int i = 0; i < PROGRAM_COUNT; i++)
        if (!(cache->programs[i] = glcollide_context_program(context, &program_set, i)))
            return GLCOLLIDE_ERROR_GL;
    *out = cache;
    if (cache->resolution == resolution)
        return GLCOLLIDE_OK;
    release_targets(cache);
    cache->sample_texture = make_texture(GL_R32UI, resolution);
    cache->owner_texture = make_texture(GL_R32UI, resolution);
    cache->depth_texture = make_texture(GL_R32F, resolution);
    cache->depth_stencil_texture = make_texture(GL_DEPTH32F_STENCIL8, resolution);
    glGenFramebuffers(2, cache->framebuffers);
    glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[0]);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
                           cache->sample_texture, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D,
                           cache->owner_texture, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT2, GL_TEXTURE_2D,
                           cache->depth_texture, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_TEXTURE_2D,
                           cache->depth_stencil_texture, 0);
    const GLenum draw_buffers[3] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1,
                                    GL_COLOR_ATTACHMENT2};
    glDrawBuffers(3, draw_buffers);
    GLenum ok0 = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[1]);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_TEXTURE_2D,
                           cache->depth_stencil_texture, 0);
    glDrawBuffer(GL_NONE);
    GLenum ok1 = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (ok0 != GL_FRAMEBUFFER_COMPLETE || ok1 != GL_FRAMEBUFFER_COMPLETE) {
        release_targets(cache);
        return glcollide_fail(GLCOLLIDE_ERROR_GL, "stencil: framebuffer incomplete (0x%x, 0x%x)",
                              (unsigned)ok0, (unsigned)ok1);
    }
    cache->resolution = resolution;
    return glcollide_gl_check("stencil framebuffers");
}

/* ------------------------------------------------------------ views */

typedef struct stencil_view {
    int axis, flip;
    float min[3], size[3]; /* view box in view coordinates (relative to origin) */
} stencil_view;

static void to_view(int axis, int flip, const double p[3], double out[3])
{
    static const int map[3][3] = {{1, 2, 0}, {2, 0, 1}, {0, 1, 2}};
    for (int k = 0; k < 3; k++)
        out[k] = p[map[axis][k]];
    if (flip) {
        out[0] = -out[0];
        out[2] = -out[2];
    }
}

static void from_view(int axis, int flip, const double q[3], double out[3])
{
    static const int map[3][3] = {{1, 2, 0}, {2, 0, 1}, {0, 1, 2}};
    double v[3] = {flip ? -q[0] : q[0], q[1], flip ? -q[2] : q[2]};
    for (int k = 0; k < 3; k++)
        out[map[axis][k]] = v[k];
}

/* ------------------------------------------------------------ the query */

glcollide_stencil_options glcollide_stencil_default_options(void)
{
    glcollide_stencil_options options = {
        .resolution = 1024,
        .views = 6,
        .counter = GLCOLLIDE_STENCIL_COUNTER_AUTO,
        .check_solids = 1,
        .detect_only = 0,
    };
    return options;
}

void glcollide_stencil_result_clear(glcollide_stencil_result *result)
{
    if (!result)
        return;
    free(result->pairs);
    free(result->samples);
    memset(result, 0, sizeof *result);
}

static int sample_compare(const void *x, const void *y)
{
    const glcollide_stencil_sample *a = x, *b = y;
    const uint32_t ka[4] = {a->object, a->vertex_a, a->vertex_b, a->inside};
    const uint32_t kb[4] = {b->object, b->vertex_a, b->vertex_b, b->inside};
    for (int k = 0; k < 4; k++)
        if (ka[k] != kb[k])
            return ka[k] < kb[k] ? -1 : 1;
    return 0;
}

/* Flags of a world object in a frame. */
#define ACTIVE 1  /* drawn: its box overlaps another's */
#define CROSSES 2 /* its mesh passes through itself */

/* ------------------------------------------------------------ meshes */

static int upload_vertices(struct glcollide_stencil_cache *cache, const glcollide_mesh *mesh,
                           stencil_mesh *slot, size_t first, size_t count,
                           glcollide_query_stats *stats)
{
    return glcollide_gpu_mesh_upload(mesh, &slot->gpu, first, count, &cache->staging,
                                     &cache->staging_capacity, cache->vertex_buffer, "stencil",
                                     stats);
}

/* The next corner of corner t of a triangle list (its edge is t -> next). */
static size_t next_corner(size_t t)
{
    return t - t % 3 + (t % 3 + 1) % 3;
}

/* Mesh m's edges appended to the cache's (from edge first on); their count. */
static int find_edges(struct glcollide_stencil_cache *cache, const glcollide_mesh *mesh,
                      size_t first, size_t *count)
{
    size_t e = 0;
    for (size_t t = 0; t < 3 * mesh->triangle_count; t++)
        e += mesh->triangles[t] < mesh->triangles[next_corner(t)];
    int status = glcollide_array_reserve((void **)&cache->edges, &cache->edge_capacity,
                                         2 * (first + e), sizeof *cache->edges, "stencil");
    if (status != GLCOLLIDE_OK)
        return status;
    uint32_t *edges = cache->edges + 2 * first;
    for (size_t t = 0; t < 3 * mesh->triangle_count; t++) {
        uint32_t a = mesh->triangles[t], b = mesh->triangles[next_corner(t)];
        if (a < b) {
            *edges++ = a;
            *edges++ = b;
        }
    }
    *count = e;
    return GLCOLLIDE_OK;
}

/* Every mesh of the world placed in the buffers, its edges found, and
 * uploaded whole: on first use, for another world, or when a mesh was
 * replaced (or changed before its last upload). */
static int layout_meshes(struct glcollide_stencil_cache *cache, const glcollide_world *world,
                         glcollide_query_stats *stats)
{
    size_t mesh_count = world->mesh_count, vertices = 0, indices = 0, edges = 0;
    cache->mesh_count = 0;
    int status = glcollide_array_reserve((void **)&cache->meshes, &cache->mesh_capacity, mesh_count,
                                         sizeof *cache->meshes, "stencil");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&cache->mesh_table, &cache->mesh_table_capacity,
                                         4 * mesh_count + 4, sizeof *cache->mesh_table, "stencil");
    for (size_t m = 0; m < mesh_count && status == GLCOLLIDE_OK; m++) {
        const glcollide_mesh *mesh = world->meshes[m].mesh;
        stencil_mesh *slot = &cache->meshes[m];
        status = find_edges(cache, mesh, edges, &slot->edge_count);
        slot->gpu.first_vertex = vertices;
        slot->gpu.vertex_count = mesh->vertex_count;
        slot->first_index = indices;
        slot->triangle_count = mesh->triangle_count;
        slot->first_edge = edges;
        vertices += mesh->vertex_count;
        indices += 3 * mesh->triangle_count + 2 * slot->edge_count;
        edges += slot->edge_count;
    }
    if (status == GLCOLLIDE_OK && (vertices >= UINT32_MAX || indices >= UINT32_MAX))
        status = glcollide_fail(GLCOLLIDE_ERROR_LIMIT,
                                "stencil: %zu vertices and %zu indices in the world's meshes, at "
                                "most %u each",
                                vertices, indices, UINT32_MAX - 1);
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_gl_buffer_reserve(cache->vertex_buffer, &cache->vertex_capacity,
                                16 * (vertices ? vertices : 1));
    glcollide_gl_buffer_reserve(cache->index_buffer, &cache->index_capacity,
                                4 * (indices ? indices : 1));
    glcollide_gl_buffer_reserve(cache->mesh_buffer, &cache->mesh_buffer_capacity,
                                16 * (mesh_count ? mesh_count : 1));
    for (size_t m = 0; m < mesh_count && status == GLCOLLIDE_OK; m++) {
        const glcollide_mesh *mesh = world->meshes[m].mesh;
        stencil_mesh *slot = &cache->meshes[m];
        glcollide_gpu_mesh_frame(&world->meshes[m], &slot->gpu);
        status = upload_vertices(cache, mesh, slot, 0, mesh->vertex_count, stats);
        size_t edge_index = slot->first_index + 3 * slot->triangle_count;
        glcollide_gl_buffer_upload(cache->index_buffer, 4 * slot->first_index,
                                   12 * slot->triangle_count, mesh->triangles, stats);
        glcollide_gl_buffer_upload(cache->index_buffer, 4 * edge_index, 8 * slot->edge_count,
                                   cache->edges + 2 * slot->first_edge, stats);
        slot->gpu.synced_at = world->meshes[m].changed_at;
        uint32_t *row = cache->mesh_table + 4 * m;
        row[0] = (uint32_t)slot->gpu.first_vertex;
        row[1] = (uint32_t)slot->first_index;
        row[2] = (uint32_t)edge_index;
        row[3] = 0;
    }
    glcollide_gl_buffer_upload(cache->mesh_buffer, 0, 16 * mesh_count, cache->mesh_table, stats);
    if (status == GLCOLLIDE_OK) {
        cache->mesh_count = mesh_count;
        cache->world_id = world->id;
    }
    return status;
}

/* The world's meshes on the GPU, up to date: a deformation sends the
 * vertices it rewrote (its topology is kept: triangles and edges stay). */
static int sync_meshes(struct glcollide_stencil_cache *cache, const glcollide_world *world,
                       glcollide_query_stats *stats)
{
    int relayout = cache->world_id != world->id || cache->mesh_count != world->mesh_count;
    for (size_t m = 0; m < world->mesh_count && !relayout; m++)
        relayout = glcollide_gpu_mesh_need(&cache->meshes[m].gpu, &world->meshes[m]) ==
                   GLCOLLIDE_GPU_MESH_WHOLE;
    if (relayout)
        return layout_meshes(cache, world, stats);
    int status = GLCOLLIDE_OK;
    for (size_t m = 0; m < world->mesh_count && status == GLCOLLIDE_OK; m++) {
        const glcollide_world_mesh_entry *entry = &world->meshes[m];
        stencil_mesh *slot = &cache->meshes[m];
        if (glcollide_gpu_mesh_need(&slot->gpu, entry) == GLCOLLIDE_GPU_MESH_CURRENT)
            continue;
        status = upload_vertices(cache, entry->mesh, slot, entry->changed_first,
                                 entry->changed_count, stats);
        slot->gpu.synced_at = entry->changed_at;
    }
    return status;
}

/* ------------------------------------------------------------ a frame */

/* Levels of a mesh's BVH whose nodes, placed, bound an object tightly: the
 * world's boxes (the mesh box placed) of a rotated long object overlap many
 * that its nodes do not, and every object drawn costs its triangles. */
enum { TIGHT_DEPTH = 10 };

/*
 * The objects to draw (cache->drawn, their count in *count): those with
 * triangles whose box overlaps another's; the others interfere with
 * nothing, and the views fit the objects that matter. Boxes: the world's,
 * then for the objects of the pairs those of their placed BVH nodes
 * (cache->boxes; the world's for the others). *bound: the largest number of
 * other boxes one box overlaps, + 1, a bound on how many solids can contain
 * one point.
 */
static int select_objects(struct glcollide_stencil_cache *cache, glcollide_world *world,
                          size_t *bound, size_t *count)
{
    size_t n = world->object_count;
    int status = glcollide_array_reserve((void **)&cache->flags, &cache->flag_capacity, n + 1,
                                         sizeof *cache->flags, "stencil");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&cache->degree, &cache->degree_capacity, n + 1,
                                         sizeof *cache->degree, "stencil");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&cache->drawn, &cache->drawn_capacity, n + 1,
                                         sizeof *cache->drawn, "stencil");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&cache->boxes, &cache->box_capacity, n + 1,
                                         sizeof *cache->boxes, "stencil");
    if (status != GLCOLLIDE_OK)
        return status;
    memset(cache->flags, 0, n);
    memset(cache->degree, 0, n * sizeof *cache->degree);
    for (size_t o = 0; o < n; o++) {
        const glcollide_aabb *box = &world->boxes[o];
        const glcollide_mesh *mesh = world->meshes[world->objects[o].mesh].mesh;
        for (int k = 0; k < 3; k++)
            if (mesh->triangle_count && !(isfinite(box->min[k]) && isfinite(box->max[k])))
                return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                      "stencil: object %zu (%s) has non-finite coordinates", o,
                                      mesh->name ? mesh->name : "mesh");
        cache->boxes[o] = *box;
    }
    cache->pairs.count = 0;
    status = glcollide_sap_pairs_ws(world->boxes, n, 0.0, &cache->pairs, &cache->sap);
    for (size_t k = 0; status == GLCOLLIDE_OK && k < cache->pairs.count; k++)
        for (int side = 0; side < 2 && status == GLCOLLIDE_OK; side++) {
            uint32_t o = side ? cache->pairs.pairs[k].b : cache->pairs.pairs[k].a;
            const glcollide_object *pose = &world->objects[o];
            if (cache->flags[o] || !world->meshes[pose->mesh].mesh->triangle_count)
                continue;
            cache->flags[o] = ACTIVE; /* placed: cleared below */
            status = glcollide_world_prepare_mesh(world, pose->mesh, GLCOLLIDE_WORLD_BVH);
            if (status == GLCOLLIDE_OK)
                glcollide_bvh_placed_bounds(world->meshes[pose->mesh].bvh, &pose->pose, TIGHT_DEPTH,
                                            &cache->boxes[o]);
        }
    memset(cache->flags, 0, n);
    *bound = n ? 1 : 0;
    for (size_t k = 0; status == GLCOLLIDE_OK && k < cache->pairs.count; k++) {
        uint32_t a = cache->pairs.pairs[k].a, b = cache->pairs.pairs[k].b;
        const glcollide_aabb *x = &cache->boxes[a], *y = &cache->boxes[b];
        int overlap = world->meshes[world->objects[a].mesh].mesh->triangle_count &&
                      world->meshes[world->objects[b].mesh].mesh->triangle_count;
        for (int c = 0; c < 3; c++)
            overlap &= x->min[c] <= y->max[c] && y->min[c] <= x->max[c];
        if (!overlap)
            continue;
        cache->flags[a] = cache->flags[b] = ACTIVE;
        size_t da = ++cache->degree[a] + 1, db = ++cache->degree[b] + 1;
        *bound = da > *bound ? da : *bound;
        *bound = db > *bound ? db : *bound;
    }
    *count = 0;
    for (size_t o = 0; o < n; o++)
        if (cache->flags[o] & ACTIVE)
            cache->drawn[(*count)++] = (uint32_t)o;
    return status;
}

/*
 * Meshes that are not closed: named here, before the GPU sees them.
 * Whether a mesh is closed and whether it passes through itself (a solid
 * still, where it winds, but its faces make the pass count windings rather
 * than solids: CROSSES) are the world's, decided once per mesh and again
 * only when it changes.
 */
static int check_solids(struct glcollide_stencil_cache *cache, glcollide_world *world)
{
    int status = GLCOLLIDE_OK;
    for (size_t o = 0; o < world->object_count && status == GLCOLLIDE_OK; o++) {
        uint32_t m = world->objects[o].mesh;
        const glcollide_world_mesh_entry *entry = &world->meshes[m];
        status = glcollide_world_prepare_mesh(world, m,
                                              GLCOLLIDE_WORLD_SOLIDS | GLCOLLIDE_WORLD_CROSSING);
        if (status != GLCOLLIDE_OK)
            break;
        if (entry->solid == 0) {
            glcollide_mesh_report report; /* again, to name the defects */
            if ((status = glcollide_mesh_validate(entry->mesh, &report)) != GLCOLLIDE_OK)
                break;
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                  "stencil: object %zu (%s) is not a closed solid: %zu boundary, "
                                  "%zu non-manifold, %zu misoriented edges, %zu degenerate "
                                  "triangles, signed volume %g",
                                  o, entry->mesh->name ? entry->mesh->name : "mesh",
                                  report.boundary_edges, report.nonmanifold_edges,
                                  report.misoriented_edges, report.degenerate_triangles,
                                  report.signed_volume);
        }
        if (entry->crossing == 1)
            cache->flags[o] |= CROSSES;
    }
    return status;
}

/* Per drawn object its first triangle, edge and vertex (firsts, then the
 * totals in the entry after the last) and its meshes' count limits. */
static int number_objects(struct glcollide_stencil_cache *cache, const glcollide_world *world,
                          size_t count, size_t totals[3])
{
    int status = glcollide_array_reserve((void **)&cache->firsts, &cache->firsts_capacity,
                                         3 * (count + 1), sizeof *cache->firsts, "stencil");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&cache->records, &cache->record_words_capacity,
                                         OBJECT_WORDS * (count ? count : 1), sizeof *cache->records,
                                         "stencil");
    if (status != GLCOLLIDE_OK)
        return status;
    totals[0] = totals[1] = totals[2] = 0;
    for (size_t p = 0; p <= count; p++) {
        memcpy(cache->firsts + 3 * p, totals, 3 * sizeof *totals);
        if (p == count)
            break;
        const stencil_mesh *slot = &cache->meshes[world->objects[cache->drawn[p]].mesh];
        totals[0] += slot->triangle_count;
        totals[1] += slot->edge_count;
        totals[2] += slot->gpu.vertex_count;
    }
    if (totals[1] + totals[2] >= UINT32_MAX || 3 * totals[0] >= UINT32_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT,
                              "stencil: %zu edges and vertices, %zu triangles: at most 2^32 - 2 "
                              "and (2^32 - 1) / 3",
                              totals[1] + totals[2], totals[0]);
    return GLCOLLIDE_OK;
}

/* The drawn objects' records in the frame (origin, scale); returns the
 * bound of the placement error (frame units). */
static double fill_records(struct glcollide_stencil_cache *cache, const glcollide_world *world,
                           size_t count, const double origin[3], double scale)
{
    double error = 0.0;
    for (size_t p = 0; p < count; p++) {
        uint32_t o = cache->drawn[p];
        const glcollide_object *pose = &world->objects[o];
        uint32_t *record = cache->records + OBJECT_WORDS * p;
        float placement[8];
        error = fmax(error, glcollide_gpu_pose(&pose->pose, &cache->meshes[pose->mesh].gpu, origin,
                                               scale, placement));
        memcpy(record, placement, sizeof placement);
        for (int k = 0; k < 3; k++)
            record[8 + k] = (uint32_t)cache->firsts[3 * p + (size_t)k];
        record[11] = pose->mesh | (cache->flags[o] & CROSSES ? CROSSING : 0u);
    }
    return error;
}

/* The drawn object owning id of kind (0 triangle, 1 edge, 2 vertex): the
 * last whose first id of that kind is <= id. */
static size_t owner_of(const size_t *firsts, size_t count, int kind, size_t id)
{
    size_t lo = 0, hi = count - 1;
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (firsts[3 * mid + (size_t)kind] <= id)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Sets a uniform of program where it has one, counting its bytes. */
static void set_uint(GLuint program, const char *name, GLuint value, glcollide_query_stats *stats)
{
    GLint at = glGetUniformLocation(program, name);
    if (at >= 0) {
        glUniform1ui(at, value);
        stats->upload_bytes += sizeof value;
    }
}

static void set_int(GLuint program, const char *name, GLint value, glcollide_query_stats *stats)
{
    GLint at = glGetUniformLocation(program, name);
    if (at >= 0) {
        glUniform1i(at, value);
        stats->upload_bytes += sizeof value;
    }
}

/* What the three programs read that does not change between views. */
static void set_constants(struct glcollide_stencil_cache *cache, int atomic,
                          const stencil_view *views, int view_count, size_t drawn,
                          const size_t totals[3], int side, int track, glcollide_query_stats *stats)
{
    GLfloat mins[3 * MAX_VIEWS], sizes[3 * MAX_VIEWS];
    for (int i = 0; i < view_count; i++)
        for (int k = 0; k < 3; k++) {
            mins[3 * i + k] = views[i].min[k];
            sizes[3 * i + k] = views[i].size[k];
        }
    const GLuint programs[3] = {cache->programs[PROGRAM_SAMPLES],
                                cache->programs[atomic ? PROGRAM_FACES_ATOMIC : PROGRAM_FACES],
                                cache->programs[atomic ? PROGRAM_RECORDS_ATOMIC : PROGRAM_RECORDS]};
    for (int i = 0; i < 3; i++) {
        glUseProgram(programs[i]);
        if (i < 2) {
            glUniform3fv(glGetUniformLocation(programs[i], "view_min"), view_count, mins);
            glUniform3fv(glGetUniformLocation(programs[i], "view_size"), view_count, sizes);
            stats->upload_bytes += 2 * sizeof(GLfloat) * 3 * (size_t)view_count;
            set_uint(programs[i], "object_count", (GLuint)drawn, stats);
            set_uint(programs[i], "edge_total", (GLuint)totals[1], stats);
        }
        set_int(programs[i], "side", side, stats);
        set_int(programs[i], "track", track, stats);
        set_uint(programs[i], "capacity", (GLuint)cache->max_records, stats);
    }
}

/* Binds the buffers the vertex shader reads. */
static void bind_geometry(const struct glcollide_stencil_cache *cache)
{
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, cache->vertex_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, cache->index_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, cache->object_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 4, cache->mesh_buffer);
}

/*
 * Views fitted to the drawn objects' boxes (frame units, grown by pad):
 * w along the axis, room for a pixel. Returns the largest pixel side.
 */
static double fit_views(stencil_view *views, int view_count, const double lo[3], const double hi[3],
                        double pad0, int side)
{
    double pixel_max = 0;
    for (int i = 0; i < view_count; i++) {
        stencil_view *view = &views[i];
        view->axis = i % 3;
        view->flip = i >= 3;
        double a[3], b[3];
        to_view(view->axis, view->flip, lo, a);
        to_view(view->axis, view->flip, hi, b);
        for (int c = 0; c < 3; c++) {
            double low = fmin(a[c], b[c]), high = fmax(a[c], b[c]), pad = pad0;
            double size = high - low + 2 * pad;
            if (c < 2)
                pad += size / (double)(side - 2);
            view->min[c] = (float)(low - pad);
            view->size[c] = (float)(high + pad - view->min[c]);
            if (c < 2)
                pixel_max = fmax(pixel_max, view->size[c] / side);
        }
    }
    return pixel_max;
}

/* What the GPU found, per record, turned into pairs and samples. */
typedef struct stencil_collect {
    glcollide_stencil_result *result;
    size_t sample_capacity;
} stencil_collect;

static int add_sample(stencil_collect *c, uint32_t object, uint32_t inside, uint32_t a, uint32_t b,
                      const double p[3])
{
    glcollide_stencil_result *r = c->result;
    if (r->sample_count == c->sample_capacity) {
        size_t grown = c->sample_capacity ? 2 * c->sample_capacity : 256;
        glcollide_stencil_sample *s = glcollide_realloc_array(r->samples, grown, sizeof *s);
        if (!s)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "stencil: out of memory");
        r->samples = s;
        c->sample_capacity = grown;
    }
    r->interference = 1;
    glcollide_stencil_sample *s = &r->samples[r->sample_count++];
    s->object = object;
    s->inside = inside;
    s->vertex_a = a < b ? a : b;
    s->vertex_b = a < b ? b : a;
    memcpy(s->position, p, sizeof s->position);
    return GLCOLLIDE_OK;
}

/* Is p (world) inside world object o? Exact, on the mesh's object-space BVH
 * (built on first need, kept by the world) and the object's pose. */
static int sample_inside(glcollide_world *world, const glcollide_aabb *box, uint32_t o,
                         const double p[3], int *status)
{
    const glcollide_object *pose = &world->objects[o];
    const glcollide_world_mesh_entry *entry = &world->meshes[pose->mesh];
    if ((*status = glcollide_world_prepare_mesh(world, pose->mesh, GLCOLLIDE_WORLD_BVH)) !=
        GLCOLLIDE_OK)
        return 0;
    return glcollide_point_in_posed_mesh(entry->mesh, entry->bvh, &pose->pose, box, p);
}

/* A frame's geometry on the CPU side, for turning records into samples. */
typedef struct stencil_frame {
    const stencil_view *views;
    int view_count, side;
    size_t drawn;
    double origin[3], scale;
} stencil_frame;

/* Records read back turned into samples (exact point-in-solid where the
 * GPU's count does not name the solid), then pairs. */
static int collect(struct glcollide_stencil_cache *cache, glcollide_world *world,
                   const stencil_frame *frame, const uint32_t *records, uint32_t record_count,
                   glcollide_stencil_result *result)
{
    stencil_collect c = {.result = result};
    size_t edge_total = cache->firsts[3 * frame->drawn + 1];
    size_t vertex_total = cache->firsts[3 * frame->drawn + 2];
    uint32_t negative_object = UINT32_MAX;
    int status = GLCOLLIDE_OK;
    for (uint32_t r = 0; r < record_count && status == GLCOLLIDE_OK; r++) {
        const uint32_t *rec = records + RECORD_WORDS * (size_t)r;
        uint32_t x = rec[0] & 0x3fff, y = (rec[0] >> 14) & 0x3fff, vi = rec[0] >> 28;
        uint32_t id = rec[1], what = rec[3];
        float depth;
        memcpy(&depth, &rec[2], sizeof depth);
        if (vi >= (uint32_t)frame->view_count || id >= edge_total + vertex_total)
            continue;
        int is_edge = id < edge_total;
        size_t local = is_edge ? id : id - edge_total;
        size_t slot = owner_of(cache->firsts, frame->drawn, is_edge ? 1 : 2, local);
        uint32_t owner = cache->drawn[slot];
        const stencil_mesh *mesh = &cache->meshes[world->objects[owner].mesh];
        local -= cache->firsts[3 * slot + (is_edge ? 1 : 2)];
        uint32_t a = is_edge ? cache->edges[2 * (mesh->first_edge + local)] : (uint32_t)local;
        uint32_t b = is_edge ? cache->edges[2 * (mesh->first_edge + local) + 1] : (uint32_t)local;
        const stencil_view *view = &frame->views[vi];
        int side = frame->side;
        double q[3] = {view->min[0] + (x + 0.5) * (double)view->size[0] / side,
                       view->min[1] + (y + 0.5) * (double)view->size[1] / side,
                       view->min[2] + (double)depth * view->size[2]},
               p[3];
        from_view(view->axis, view->flip, q, p);
        for (int k = 0; k < 3; k++)
            p[k] = p[k] / frame->scale + frame->origin[k];
        if ((what & 0xc0000000u) == 0xc0000000u) {
            result->negative_samples++;
            negative_object = owner;
            continue;
        }
        if (!(what & UNDECIDED))
            result->interference = 1;
        if (!(what & 0x80000000u) && what < frame->drawn && what != slot) {
            status = add_sample(&c, owner, cache->drawn[what], a, b, p);
            continue;
        }
        /* Inside two or more solids (or an id sum that does not name one):
         * test the drawn objects whose boxes hold the sample. */
        for (size_t k = 0; k < frame->drawn && status == GLCOLLIDE_OK; k++) {
            uint32_t o = cache->drawn[k];
            const glcollide_aabb *box = &cache->boxes[o];
            double grow = result->tolerance;
            if (k == slot || p[0] < box->min[0] - grow || p[0] > box->max[0] + grow ||
                p[1] < box->min[1] - grow || p[1] > box->max[1] + grow ||
                p[2] < box->min[2] - grow || p[2] > box->max[2] + grow)
                continue;
            if (sample_inside(world, box, o, p, &status))
                status = add_sample(&c, owner, o, a, b, p);
        }
    }
    if (result->negative_samples)
        glcollide_log_warning("stencil: %llu samples (the last of object %u) see more back "
                              "faces than front faces in front of them: a solid in the scene "
                              "is not closed",
                              (unsigned long long)result->negative_samples, negative_object);
    if (status != GLCOLLIDE_OK || !result->sample_count)
        return status;
    /* Samples: one per (object, edge, inside); pairs from them. */
    qsort(result->samples, result->sample_count, sizeof *result->samples, sample_compare);
    size_t kept = 0;
    for (size_t i = 0; i < result->sample_count; i++)
        if (kept == 0 || sample_compare(&result->samples[kept - 1], &result->samples[i]))
            result->samples[kept++] = result->samples[i];
    result->sample_count = kept;
    glcollide_index_pair *pairs = glcollide_alloc_array(kept, sizeof *pairs);
    if (!pairs)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "stencil: out of memory");
    for (size_t i = 0; i < kept; i++) {
        uint32_t o = result->samples[i].object, in = result->samples[i].inside;
        pairs[i] = (glcollide_index_pair){o < in ? o : in, o < in ? in : o};
    }
    qsort(pairs, kept, sizeof *pairs, glcollide_index_pair_compare);
    size_t unique = 0;
    for (size_t i = 0; i < kept; i++)
        if (unique == 0 || glcollide_index_pair_compare(&pairs[unique - 1], &pairs[i]))
            pairs[unique++] = pairs[i];
    result->pairs = pairs;
    result->pair_count = unique;
    return GLCOLLIDE_OK;
}

/* Draws one kind of primitive (0 triangles, 1 edges, 2 vertices) of every
 * drawn object: one multi-draw of the commands the GPU wrote. */
static void draw_kind(GLuint program, GLenum mode, int kind, size_t drawn,
                      glcollide_query_stats *stats)
{
    set_int(program, "kind", kind, stats);
    glMultiDrawArraysIndirect(mode, (const void *)(uintptr_t)(16 * (size_t)kind * drawn),
                              (GLsizei)drawn, 0);
    stats->draw_calls++;
}

/*
 * The draw commands, written on the GPU from the records (one dispatch per
 * frame, whatever the number of objects), and the slot attribute's buffer
 * of 0, 1, 2, ... (uploaded when it grows).
 */
static int write_commands(struct glcollide_stencil_cache *cache, size_t drawn,
                          const size_t totals[3], glcollide_query_stats *stats)
{
    if (drawn > cache->slots_filled) {
        glcollide_gl_buffer_reserve(cache->slot_buffer, &cache->slot_capacity, 4 * drawn);
        size_t count = cache->slot_capacity / 4;
        int status = glcollide_array_reserve((void **)&cache->readback, &cache->readback_capacity,
                                             count, sizeof *cache->readback, "stencil");
        if (status != GLCOLLIDE_OK)
            return status;
        for (size_t i = 0; i < count; i++)
            cache->readback[i] = (uint32_t)i;
        glcollide_gl_buffer_upload(cache->slot_buffer, 0, 4 * count, cache->readback, stats);
        cache->slots_filled = count;
    }
    glcollide_gl_buffer_reserve(cache->command_buffer, &cache->command_capacity, 48 * drawn);
    GLuint program = cache->programs[PROGRAM_COMMANDS];
    glUseProgram(program);
    set_uint(program, "object_count", (GLuint)drawn, stats);
    glUniform3ui(glGetUniformLocation(program, "totals"), (GLuint)totals[0], (GLuint)totals[1],
                 (GLuint)totals[2]);
    stats->upload_bytes += 12;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, cache->object_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 5, cache->command_buffer);
    glDispatchCompute((GLuint)((drawn + 63) / 64), 1, 1);
    stats->draw_calls++; /* a dispatch counts as a draw call */
    glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
    return glcollide_gl_check("stencil draw commands");
}

/* The views' passes, then the record count; the records themselves when
 * asked (and not too many). Returns the record count in *found. */
static int run_views(struct glcollide_stencil_cache *cache, const stencil_frame *frame,
                     const size_t totals[3], int atomic, int detect_only,
                     glcollide_stencil_result *result, uint32_t *found)
{
    int side = frame->side, status = GLCOLLIDE_OK;
    size_t pixels = (size_t)side * (size_t)side, samples = totals[1] + totals[2];
    glcollide_query_stats *stats = &result->stats;
    GLuint zero = 0, none = NO_SAMPLE;
    glcollide_gl_buffer_reserve(cache->found_buffer, &cache->found_capacity, samples * 4);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->found_buffer);
    glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, 0, (GLsizeiptr)(samples * 4),
                         GL_RED_INTEGER, GL_UNSIGNED_INT, &none);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->record_buffer);
    glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, 0, HEADER_WORDS * 4, GL_RED_INTEGER,
                         GL_UNSIGNED_INT, &zero);
    glBindVertexArray(cache->vertex_array);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, cache->command_buffer);
    glViewport(0, 0, side, side);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glFrontFace(GL_CW); /* see the vertex shader: faces toward the viewer are CW on screen */
    for (int i = 0; i < frame->view_count && status == GLCOLLIDE_OK; i++) {
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
        /* Pass 1: nearest edge or vertex sample per pixel. */
        glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[0]);
        const GLuint no_sample[4] = {NO_SAMPLE, NO_SAMPLE, 0, 0};
        const GLfloat far_depth[4] = {1.0f, 0, 0, 0};
        glDepthMask(GL_TRUE); /* clears obey the write masks */
        glStencilMask(0xff);
        glClearBufferuiv(GL_COLOR, 0, no_sample);
        glClearBufferuiv(GL_COLOR, 1, no_sample);
        glClearBufferfv(GL_COLOR, 2, far_depth);
        glClearBufferfi(GL_DEPTH_STENCIL, 0, 1.0f, 0);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->pixel_buffer);
        glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32I, 0,
                             (GLsizeiptr)(pixels * PIXEL_WORDS * sizeof(int32_t)), GL_RED_INTEGER,
                             GL_INT, &zero);
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
        glDepthMask(GL_TRUE);
        GLuint program = cache->programs[PROGRAM_SAMPLES];
        glUseProgram(program);
        set_uint(program, "view", (GLuint)i, stats);
        bind_geometry(cache);
        draw_kind(program, GL_LINES, 1, frame->drawn, stats);
        draw_kind(program, GL_POINTS, 2, frame->drawn, stats);

        /* Pass 2: faces in front of each sample, two-sided stencil. */
        glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[1]);
        glDisable(GL_DEPTH_TEST);
        glDepthMask(GL_FALSE);
        if (!atomic) {
            glEnable(GL_STENCIL_TEST);
            glStencilFunc(GL_ALWAYS, 0, 0xff);
            glStencilMask(0xff);
            glStencilOpSeparate(GL_FRONT, GL_KEEP, GL_KEEP, GL_INCR_WRAP);
            glStencilOpSeparate(GL_BACK, GL_KEEP, GL_KEEP, GL_DECR_WRAP);
        }
        program = cache->programs[atomic ? PROGRAM_FACES_ATOMIC : PROGRAM_FACES];
        glUseProgram(program);
        set_uint(program, "view", (GLuint)i, stats);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, cache->pixel_buffer);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, cache->owner_texture);
        glActiveTexture(GL_TEXTURE1);
        glBindTexture(GL_TEXTURE_2D, cache->depth_texture);
        draw_kind(program, GL_TRIANGLES, 0, frame->drawn, stats);
        stats->triangles_rasterized += totals[0];
        glDisable(GL_STENCIL_TEST);

        /* Pass 3: records of the pixels with a non-zero count. */
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT);
        program = cache->programs[atomic ? PROGRAM_RECORDS_ATOMIC : PROGRAM_RECORDS];
        glUseProgram(program);
        set_uint(program, "view", (GLuint)i, stats);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, cache->record_buffer);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, cache->found_buffer);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, cache->sample_texture);
        glActiveTexture(GL_TEXTURE2);
        glBindTexture(GL_TEXTURE_2D, cache->depth_stencil_texture);
        glDispatchCompute((GLuint)(side + 7) / 8, (GLuint)(side + 7) / 8, 1);
        stats->draw_calls++; /* a dispatch counts as a draw call */
        for (int unit = 2; unit >= 0; unit--) {
            glActiveTexture(GL_TEXTURE0 + (GLenum)unit);
            glBindTexture(GL_TEXTURE_2D, 0);
        }
        status = glcollide_gl_check("stencil view");
    }
    glDisable(GL_PROGRAM_POINT_SIZE);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    glBindVertexArray(0);
    if (status != GLCOLLIDE_OK)
        return status;
    /* Sync 1: the record count (0: nothing interferes, done). */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->record_buffer);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, 4, found);
    stats->gpu_syncs++;
    stats->readback_bytes += 4;
    if (detect_only || *found == 0 || *found > cache->max_records)
        return GLCOLLIDE_OK;
    /* Sync 2: the records. */
    status =
        glcollide_array_reserve((void **)&cache->readback, &cache->readback_capacity,
                                (size_t)*found * RECORD_WORDS, sizeof *cache->readback, "stencil");
    if (status != GLCOLLIDE_OK)
        return status;
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, HEADER_WORDS * 4,
                       (GLsizeiptr)((size_t)*found * RECORD_WORDS * 4), cache->readback);
    stats->gpu_syncs++;
    stats->readback_bytes += (size_t)*found * RECORD_WORDS * 4;
    return glcollide_gl_check("stencil readback");
}

/* The frame: meshes current, objects selected and checked, records
 * uploaded, views fitted; then the passes (run again once with room for
 * more records when they overflowed) and the records turned into samples. */
static int run_frame(glcollide_context *context, glcollide_world *world,
                     const glcollide_stencil_options *options, glcollide_stencil_result *result)
{
    struct glcollide_stencil_cache *cache = NULL;
    int status = prepare(context, options->resolution, &cache);
    size_t bound = 0, drawn = 0, totals[3] = {0, 0, 0};
    if (status == GLCOLLIDE_OK)
        status = select_objects(cache, world, &bound, &drawn);
    if (status == GLCOLLIDE_OK && options->check_solids)
        status = check_solids(cache, world);
    if (status == GLCOLLIDE_OK && world->mesh_count >= CROSSING)
        status = glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "stencil: %zu meshes, at most %u",
                                world->mesh_count, CROSSING - 1);
    if (status != GLCOLLIDE_OK || drawn == 0)
        return status;
    if ((status = sync_meshes(cache, world, &result->stats)) != GLCOLLIDE_OK ||
        (status = number_objects(cache, world, drawn, totals)) != GLCOLLIDE_OK)
        return status;
    /* Where an object passes through itself, the pass tracks which objects
     * have faces in front of each sample, and the records are read even to
     * detect only (some may be left for the CPU to decide). */
    int track = 0;
    for (size_t p = 0; p < drawn; p++)
        track |= (cache->flags[cache->drawn[p]] & CROSSES) != 0;
    int detect_only = options->detect_only && !track;
    int atomic = options->counter == GLCOLLIDE_STENCIL_COUNTER_ATOMIC ||
                 (options->counter == GLCOLLIDE_STENCIL_COUNTER_AUTO && bound >= 128);
    if (options->counter == GLCOLLIDE_STENCIL_COUNTER_STENCIL && bound >= 128)
        glcollide_log_warning("stencil: up to %zu solids may overlap at a point; the 8-bit stencil "
                              "is exact below 128 (use the atomic counter)",
                              bound);

    /* The frame: the drawn objects' boxes about their centre, scaled into
     * [-1, 1] by a power of two (exact), so that float holds any scene
     * double does; positions read back are scaled back. */
    glcollide_aabb all;
    glcollide_aabb_empty(&all);
    for (size_t p = 0; p < drawn; p++) {
        glcollide_aabb_add_point(&all, cache->boxes[cache->drawn[p]].min);
        glcollide_aabb_add_point(&all, cache->boxes[cache->drawn[p]].max);
    }
    stencil_view views[MAX_VIEWS];
    stencil_frame frame = {
        .views = views, .view_count = options->views, .side = options->resolution, .drawn = drawn};
    double lo[3], hi[3], extent = 0; /* extent: the scaled box's largest side, in [1, 2) */
    glcollide_frame_fit(&all, frame.origin, &frame.scale);
    for (int k = 0; k < 3; k++) {
        lo[k] = (all.min[k] - frame.origin[k]) * frame.scale;
        hi[k] = (all.max[k] - frame.origin[k]) * frame.scale;
        extent = fmax(extent, hi[k] - lo[k]);
    }
    double error = fill_records(cache, world, drawn, frame.origin, frame.scale);
    double pixel_max =
        fit_views(views, options->views, lo, hi, error + 1e-6 * extent + 1e-30, frame.side);
    /* A sample is the pixel centre at the depth of a point of an edge or
     * vertex whose projection is within half a pixel diagonal of it (placed
     * in float within error of the exact point). */
    result->tolerance = (pixel_max * sqrt(2.0) + 1e-5 * extent + error) / frame.scale;
    glcollide_gl_buffer_reserve(cache->object_buffer, &cache->object_capacity,
                                4 * OBJECT_WORDS * drawn);
    glcollide_gl_buffer_upload(cache->object_buffer, 0, 4 * OBJECT_WORDS * drawn, cache->records,
                               &result->stats);
    glcollide_gl_buffer_reserve(cache->pixel_buffer, &cache->pixel_capacity,
                                (size_t)frame.side * (size_t)frame.side * PIXEL_WORDS * 4);
    if (cache->max_records == 0)
        cache->max_records = 1 << 16;
    if ((status = write_commands(cache, drawn, totals, &result->stats)) != GLCOLLIDE_OK)
        return status;
    uint32_t record_count = 0;
    for (int rerun = 0;; rerun = 1) {
        glcollide_gl_buffer_reserve(cache->record_buffer, &cache->record_capacity,
                                    (HEADER_WORDS + RECORD_WORDS * cache->max_records) * 4);
        set_constants(cache, atomic, views, frame.view_count, drawn, totals, frame.side, track,
                      &result->stats);
        status = run_views(cache, &frame, totals, atomic, detect_only, result, &record_count);
        if (status != GLCOLLIDE_OK || record_count <= cache->max_records || detect_only || rerun)
            break;
        /* More records than room: grow and run the views again (once). */
        cache->max_records = record_count + record_count / 4;
        glcollide_log_debug("stencil: %u records, running again with room for %zu", record_count,
                            cache->max_records);
    }
    if (status == GLCOLLIDE_OK && record_count > cache->max_records && !detect_only)
        status =
            glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "stencil: %u records overflowed", record_count);
    if (status != GLCOLLIDE_OK)
        return status;
    result->stats.candidates = record_count;
    if (detect_only || record_count == 0) {
        /* Interference or a negative count: the records would tell which. */
        result->interference = record_count > 0;
        return GLCOLLIDE_OK;
    }
    return collect(cache, world, &frame, cache->readback, record_count, result);
}

int glcollide_stencil_world(glcollide_world *world, glcollide_context *context,
                            const glcollide_stencil_options *options,
                            glcollide_stencil_result *result)
{
    if (!context)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "stencil: context is NULL");
    if (options->resolution < 16 || options->resolution > 16384)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "stencil: resolution %d outside 16..16384", options->resolution);
    if (options->views != 3 && options->views != 6)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "stencil: views must be 3 or 6, got %d", options->views);
    if ((int)options->counter < 0 || options->counter > GLCOLLIDE_STENCIL_COUNTER_ATOMIC)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "stencil: unknown counter %d",
                              (int)options->counter);
    if (world->object_count >= ID_MASK)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "stencil: %zu objects, at most %u",
                              world->object_count, ID_MASK - 1);
    int status = glcollide_context_check_resolution(context, "stencil", options->resolution,
                                                    STENCIL_BYTES_PER_PIXEL);
    if (status == GLCOLLIDE_OK)
        status = glcollide_context_make_current(context);
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_gl_state saved;
    glcollide_gl_state_save(&saved);
    glcollide_gl_state_reset();
    status = run_frame(context, world, options, result);
    glcollide_gl_state_restore(&saved);
    return status;
}

int glcollide_stencil_run(glcollide_world *world, glcollide_context *context,
                          const glcollide_stencil_options *options,
                          glcollide_stencil_result *result)
{
    if (!result)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "stencil: result is NULL");
    memset(result, 0, sizeof *result);
    if (!world || !options || !context)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "stencil: world, context or options is NULL");
    double start = glcollide_now_ms();
    int status = glcollide_stencil_world(world, context, options, result);
    if (status != GLCOLLIDE_OK) {
        glcollide_stencil_result_clear(result);
        return status;
    }
    result->stats.time_ms = glcollide_now_ms() - start;
    return GLCOLLIDE_OK;
}

int glcollide_query_stencil(glcollide_world *world, glcollide_context *context,
                            const glcollide_query_options *options, glcollide_query_result *result)
{
    glcollide_stencil_options stencil = glcollide_stencil_default_options();
    stencil.resolution = options->resolution;
    glcollide_stencil_result found;
    memset(&found, 0, sizeof found);
    int status = glcollide_stencil_world(world, context, &stencil, &found);
    /* Pairs given: the answer among them. The objects are still swept: how
     * many boxes overlap one another bounds the solids at a pixel, which the
     * counters must hold, whichever pairs are asked about. */
    for (size_t k = 0; k < found.pair_count && status == GLCOLLIDE_OK; k++)
        if (glcollide_query_pair_given(options, found.pairs[k].a, found.pairs[k].b))
            status = glcollide_result_add_pair(result, found.pairs[k].a, found.pairs[k].b);
    if (status == GLCOLLIDE_OK)
        result->stats = found.stats;
    glcollide_stencil_result_clear(&found);
    return status;
}
