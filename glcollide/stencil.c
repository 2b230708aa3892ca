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
 * Changes to the thesis, and why:
 * - Knott offsets edges outward so that an edge does not count its own
 *   faces. Near a silhouette a line fragment lies up to half a pixel from its
 *   edge, where its own faces' depths differ by far more than any small
 *   offset, so the offset still reports self-interference. Here the faces of
 *   the sample's own object are skipped (owner id per pixel), which makes
 *   the offset unnecessary: edges are drawn where they are (offset 0).
 * - Vertices are drawn as points as well: a solid smaller than a pixel,
 *   inside another, may raster no line fragment at all.
 * - The stencil has 8 bits. INCR_WRAP/DECR_WRAP count modulo 256, so the
 *   final count read as a signed byte is exact while fewer than 128 solids
 *   contain one point, whatever the order of the faces. Such a point lies in
 *   that many pairwise-overlapping boxes, so when no box overlaps 127 others
 *   the stencil is exact; otherwise (counter AUTO) the count goes to a
 *   32-bit atomic counter per pixel instead, in the same pass.
 */
#include "stencil.h"

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

enum { PROGRAM_SAMPLES = 0, PROGRAM_FACES, PROGRAM_FACES_ATOMIC, PROGRAM_RECORDS,
       PROGRAM_RECORDS_ATOMIC, PROGRAM_COUNT };

struct glcollide_stencil_cache {
    GLuint programs[PROGRAM_COUNT];
    GLuint vertex_array;
    GLuint vertex_buffer, index_buffer, object_buffer, pixel_buffer, record_buffer, found_buffer;
    size_t vertex_capacity, index_capacity, object_capacity, pixel_capacity, record_capacity;
    size_t found_capacity;
    GLuint sample_texture, owner_texture, depth_texture, depth_stencil_texture;
    GLuint framebuffers[2]; /* samples (ids, owners, depths + depth/stencil), faces (depth/stencil) */
    int resolution;
    size_t max_records; /* records the record buffer holds */
};

static const char *const vertex_source =
    "layout(std430, binding = 0) readonly buffer vertex_block { vec4 vertices[]; };\n"
    "layout(std430, binding = 1) readonly buffer index_block { uint indices[]; };\n"
    "layout(std430, binding = 2) readonly buffer object_block { uint objects[]; };\n"
    "uniform int axis;\n"
    "uniform int flip;\n"
    "uniform vec3 view_min;\n"
    "uniform vec3 view_size;\n"
    "uniform int stride;\n"        /* vertices per primitive: 1 points, 2 lines, 3 triangles */
    "uniform uint first_index;\n"  /* where the primitives' vertex indices start */
    "uniform uint first_object;\n" /* where their objects start */
    "uniform uint first_sample;\n" /* sample id of the first primitive */
    "flat out uint f_sample;\n"
    "flat out uint f_object;\n"
    "vec3 to_view(vec3 p) {\n"
    "    vec3 q = axis == 0 ? p.yzx : axis == 1 ? p.zxy : p.xyz;\n"
    "    return flip != 0 ? vec3(-q.x, q.y, -q.z) : q;\n" /* a rotation: faces keep their side */
    "}\n"
    "void main() {\n"
    "    uint primitive = uint(gl_VertexID) / uint(stride);\n"
    "    uint v = stride == 1 ? uint(gl_VertexID) : indices[first_index + uint(gl_VertexID)];\n"
    "    f_sample = first_sample + primitive;\n"
    "    f_object = objects[first_object + primitive];\n"
    "    vec3 p = to_view(vertices[v].xyz);\n"
    "    gl_Position = vec4(2.0 * (p - view_min) / view_size - 1.0, 1.0);\n"
    "    gl_PointSize = 1.0;\n"
    "}\n";

static const char *const fragment_source =
    "flat in uint f_sample;\n"
    "flat in uint f_object;\n"
    "#if PASS == 0\n"
    "layout(location = 0) out uint sample_id;\n"
    "layout(location = 1) out uint sample_owner;\n"
    "layout(location = 2) out float sample_depth;\n"
    "void main() {\n"
    "    sample_id = f_sample;\n"
    "    sample_owner = f_object;\n"
    "    sample_depth = gl_FragCoord.z;\n"
    "}\n"
    "#else\n"
    "layout(binding = 0) uniform usampler2D owner_texture;\n"
    "layout(binding = 1) uniform sampler2D depth_texture;\n"
    "layout(std430, binding = 3) buffer pixel_block { int pixel_sums[]; };\n"
    "uniform int side;\n"
    "uniform int track;\n" /* some object passes through itself: track who has faces here */
    "void main() {\n"
    "    ivec2 t = ivec2(gl_FragCoord.xy);\n"
    "    uint object = f_object & ID_MASK;\n"
    /* No sample here (owner NO_SAMPLE), a face of the sample's own object, or
     * a face at or behind the sample: not counted. The stencil is updated
     * exactly for the fragments that reach the end (depth test off). */
    "    if (texelFetch(owner_texture, t, 0).r == object ||\n"
    "        !(gl_FragCoord.z < texelFetch(depth_texture, t, 0).r))\n"
    "        discard;\n"
    /* glFrontFace(GL_CW): front = toward the viewer */
    "    int facing = gl_FrontFacing ? 1 : -1;\n"
    "    int pixel = t.y * side + t.x;\n"
    "    atomicAdd(pixel_sums[PIXEL_WORDS * pixel], facing * int(object));\n"
    "#if ATOMIC\n"
    "    atomicAdd(pixel_sums[PIXEL_WORDS * pixel + 1], facing);\n"
    "#endif\n"
    /* Which objects have faces here: the first (+ 1), MULTI once another
     * shows, CROSSING if one passes through itself (its winding may be 2
     * or -1, so the count's sum over objects no longer says who contains
     * the sample). The first fragment to arrive swaps 0 for its object
     * before anyone ORs a flag, so a flag never hides an object. */
    "    if (track != 0) {\n"
    "        int old = atomicCompSwap(pixel_sums[PIXEL_WORDS * pixel + 2], 0, int(object + 1u));\n"
    "        if (old != 0 && (uint(old) & ID_MASK) != object + 1u)\n"
    "            atomicOr(pixel_sums[PIXEL_WORDS * pixel + 2], int(MULTI));\n"
    "        if ((f_object & CROSSING) != 0u)\n"
    "            atomicOr(pixel_sums[PIXEL_WORDS * pixel + 2], int(CROSSING));\n"
    "    }\n"
    "}\n"
    "#endif\n";

static const char *const compute_source =
    "layout(local_size_x = 8, local_size_y = 8) in;\n"
    "layout(binding = 0) uniform usampler2D sample_texture;\n"
    "layout(binding = 1) uniform sampler2D depth_texture;\n"
    "layout(binding = 2) uniform usampler2D stencil_texture;\n"
    "layout(std430, binding = 0) buffer record_block { uint record_count; uint pad[3]; uvec4 "
    "records[]; };\n"
    "layout(std430, binding = 1) buffer found_block { uint found[]; };\n"
    "layout(std430, binding = 3) readonly buffer pixel_block { int pixel_sums[]; };\n"
    "uniform int side;\n"
    "uniform uint view;\n"
    "uniform uint capacity;\n"
    "void main() {\n"
    "    ivec2 t = ivec2(gl_GlobalInvocationID.xy);\n"
    "    if (t.x >= side || t.y >= side)\n"
    "        return;\n"
    "    uint id = texelFetch(sample_texture, t, 0).r;\n"
    "    if (id == 0xffffffffu)\n"
    "        return;\n"
    "    int pixel = t.y * side + t.x;\n"
    "#if ATOMIC\n"
    "    int count = pixel_sums[PIXEL_WORDS * pixel + 1];\n"
    "#else\n"
    "    int count = int(texelFetch(stencil_texture, t, 0).r);\n"
    "    if (count >= 128)\n"
    "        count -= 256;\n" /* the stencil counts modulo 256: read it signed */
    "#endif\n"
    "    uint objects = uint(pixel_sums[PIXEL_WORDS * pixel + 2]);\n"
    "    uint what;\n"
    "    if ((objects & CROSSING) == 0u) {\n"
    /* Every solid in front winds 0 or 1 here: the count is how many
     * contain the sample, and where it is 1 the id sum names it. */
    "        if (count == 0)\n"
    "            return;\n"
    "        what = count == 1 ? uint(pixel_sums[PIXEL_WORDS * pixel])\n"
    "                          : 0x80000000u | (count < 0 ? 0x40000000u : 0u) | "
    "uint(min(abs(count), 0xffff));\n"
    "    } else if ((objects & MULTI) == 0u) {\n"
    /* One object only, which passes through itself: the count is its
     * winding number at the sample (nonzero: inside, -1 included). */
    "        if (count == 0)\n"
    "            return;\n"
    "        what = (objects & ID_MASK) - 1u;\n"
    "    } else {\n"
    /* Several objects, one winding maybe twice or -1 times: windings of
     * different objects may cancel in the sum; the CPU decides. */
    "        what = 0x80000000u | UNDECIDED | uint(min(abs(count), 0xffff));\n"
    "    }\n"
    /* One record per sample and what it is inside, over all pixels and
     * views: the first to find it keeps its slot; another penetrated object
     * (rare) still gets a record of its own. */
    "    uint before = atomicCompSwap(found[id], 0xffffffffu, what);\n"
    "    if (before == what)\n"
    "        return;\n"
    "    uint i = atomicAdd(record_count, 1u);\n"
    "    if (i >= capacity)\n"
    "        return;\n"
    "    records[i] = uvec4(uint(t.x) | uint(t.y) << 14 | view << 28, id,\n"
    "                       floatBitsToUint(texelFetch(depth_texture, t, 0).r), what);\n"
    "}\n";

static GLuint build_program(int which)
{
    static const char *const names[PROGRAM_COUNT] = {
        "stencil samples", "stencil faces", "stencil faces (atomic)", "stencil records",
        "stencil records (atomic)"};
    int pass = which == PROGRAM_SAMPLES ? 0 : which <= PROGRAM_FACES_ATOMIC ? 1 : 2;
    int atomic = which == PROGRAM_FACES_ATOMIC || which == PROGRAM_RECORDS_ATOMIC;
    char header[256];
    snprintf(header, sizeof header,
             "#version 430 core\n#define PASS %d\n#define ATOMIC %d\n#define PIXEL_WORDS %d\n"
             "#define ID_MASK 0x%xu\n#define CROSSING 0x%xu\n#define MULTI 0x%xu\n"
             "#define UNDECIDED 0x%xu\n",
             pass, atomic, PIXEL_WORDS, ID_MASK, CROSSING, MULTI, UNDECIDED);
    const char *body[2] = {pass == 2 ? compute_source : vertex_source, fragment_source};
    char *source[2] = {NULL, NULL};
    GLuint program = 0;
    for (int i = 0; i < (pass == 2 ? 1 : 2); i++) {
        size_t n = strlen(header) + strlen(body[i]) + 1;
        if (!(source[i] = malloc(n)))
            goto done;
        snprintf(source[i], n, "%s%s", header, body[i]);
    }
    program = pass == 2 ? glcollide_gl_program(names[which], NULL, NULL, source[0])
                        : glcollide_gl_program(names[which], source[0], source[1], NULL);
    free(source[0]);
    free(source[1]);
    return program;
done:
    free(source[0]);
    glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "stencil: out of memory");
    return 0;
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

void glcollide_stencil_release(glcollide_context *context)
{
    struct glcollide_stencil_cache *cache = context->stencil;
    if (!cache)
        return;
    for (int i = 0; i < PROGRAM_COUNT; i++)
        glDeleteProgram(cache->programs[i]);
    glDeleteVertexArrays(1, &cache->vertex_array);
    GLuint buffers[6] = {cache->vertex_buffer, cache->index_buffer, cache->object_buffer,
                         cache->pixel_buffer, cache->record_buffer, cache->found_buffer};
    glDeleteBuffers(6, buffers);
    release_targets(cache);
    free(cache);
    context->stencil = NULL;
}

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

static int prepare(glcollide_context *context, int resolution)
{
    struct glcollide_stencil_cache *cache = context->stencil;
    if (!cache) {
        cache = context->stencil = calloc(1, sizeof *cache);
        if (!cache)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "stencil: out of memory");
        glGenVertexArrays(1, &cache->vertex_array);
        GLuint buffers[6];
        glGenBuffers(6, buffers);
        cache->found_buffer = buffers[5];
        cache->vertex_buffer = buffers[0];
        cache->index_buffer = buffers[1];
        cache->object_buffer = buffers[2];
        cache->pixel_buffer = buffers[3];
        cache->record_buffer = buffers[4];
        for (int i = 0; i < PROGRAM_COUNT; i++)
            if (!(cache->programs[i] = build_program(i)))
                return GLCOLLIDE_ERROR_GL;
    }
    for (int i = 0; i < PROGRAM_COUNT; i++)
        if (!cache->programs[i])
            return glcollide_fail(GLCOLLIDE_ERROR_GL, "stencil: programs unavailable");
    if (cache->resolution == resolution)
        return GLCOLLIDE_OK;
    release_targets(cache);
    cache->sample_texture = make_texture(GL_R32UI, resolution);
    cache->owner_texture = make_texture(GL_R32UI, resolution);
    cache->depth_texture = make_texture(GL_R32F, resolution);
    cache->depth_stencil_texture = make_texture(GL_DEPTH32F_STENCIL8, resolution);
    glGenFramebuffers(2, cache->framebuffers);
    glBindFramebuffer(GL_FRAMEBUFFER, cache->framebuffers[0]);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, cache->sample_texture, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D, cache->owner_texture, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT2, GL_TEXTURE_2D, cache->depth_texture, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_TEXTURE_2D,
                           cache->depth_stencil_texture, 0);
    const GLenum draw_buffers[3] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1, GL_COLOR_ATTACHMENT2};
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

/* Largest number of other boxes one box overlaps, + 1: a bound on how many
 * solids can contain one point; and active[o] = 1 for the objects whose box
 * overlaps another (the others interfere with nothing and are not drawn, so
 * the views fit the objects that matter). */
static int overlap_bound(const glcollide_world *world, size_t *bound, unsigned char *active)
{
    glcollide_pair_list pairs = {0};
    int status = glcollide_sap_pairs(world->bounds, world->object_count, 0, &pairs);
    size_t *degree = calloc(world->object_count ? world->object_count : 1, sizeof *degree);
    if (status == GLCOLLIDE_OK && !degree)
        status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "stencil: out of memory");
    *bound = world->object_count ? 1 : 0;
    for (size_t k = 0; status == GLCOLLIDE_OK && k < pairs.count; k++) {
        active[pairs.pairs[k].a] = active[pairs.pairs[k].b] = 1;
        size_t a = ++degree[pairs.pairs[k].a] + 1, b = ++degree[pairs.pairs[k].b] + 1;
        *bound = a > *bound ? a : *bound;
        *bound = b > *bound ? b : *bound;
    }
    free(degree);
    glcollide_pair_list_release(&pairs);
    return status;
}

/* What the GPU found, per record, turned into pairs and samples. */
typedef struct stencil_collect {
    const glcollide_world *world;
    glcollide_stencil_result *result;
    size_t pair_capacity, sample_capacity;
    unsigned char *paired; /* n * n bits would not scale: pairs are deduplicated at the end */
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

/* Meshes that are not closed: named here, before the GPU sees them. Each
 * mesh once (the self-intersection test is O(n log n)), however many
 * objects use it. crossing[o] = 1 for the objects whose mesh passes through
 * itself: a solid still (where it winds, twice or -1 times included), but
 * its faces make the pass count windings rather than solids. */
static int check_solids(const glcollide_world *world, const glcollide_stencil_options *options,
                        unsigned char *crossing)
{
    size_t n = world->object_count;
    const glcollide_scene *scene = world->scene;
    /* Per mesh: 0 unchecked, 1 a simple solid, 2 crossing itself. */
    unsigned char *checked = scene ? calloc(scene->mesh_count ? scene->mesh_count : 1, 1) : NULL;
    if (scene && !checked)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "stencil: out of memory");
    int status = GLCOLLIDE_OK;
    for (size_t o = 0; options->check_solids && o < n && status == GLCOLLIDE_OK; o++) {
        const glcollide_mesh *mesh = world->objects[o].mesh;
        const char *name = mesh->name ? mesh->name : "mesh";
        if (checked && checked[scene->objects[o].mesh]) {
            crossing[o] = checked[scene->objects[o].mesh] == 2;
            continue;
        }
        glcollide_mesh_report report;
        status = glcollide_mesh_validate(mesh, &report);
        if (status != GLCOLLIDE_OK)
            break;
        if (!report.closed) {
            status = glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                    "stencil: object %zu (%s) is not a closed solid: %zu boundary, "
                                    "%zu non-manifold, %zu misoriented edges, %zu degenerate "
                                    "triangles, signed volume %g",
                                    o, name, report.boundary_edges, report.nonmanifold_edges,
                                    report.misoriented_edges, report.degenerate_triangles,
                                    report.signed_volume);
            break;
        }
        size_t crossings = 0;
        status = glcollide_mesh_self_intersections(mesh, &crossings, NULL);
        crossing[o] = crossings > 0;
        if (checked)
            checked[scene->objects[o].mesh] = crossing[o] ? 2 : 1;
    }
    free(checked);
    return status;
}

/* Is p (world) inside object o? Exact, with the object's BVH built on first
 * use: the CPU decides few samples, but each against a whole mesh. */
static int sample_inside(const glcollide_world *world, glcollide_bvh **bvhs, size_t o,
                         const double p[3], int *status)
{
    const glcollide_world_mesh *w = &world->objects[o];
    if (!bvhs[o] && w->mesh->triangle_count >= 64 &&
        (*status = glcollide_bvh_build(w->positions, w->mesh->vertex_count, w->mesh->triangles,
                                       w->mesh->triangle_count, &bvhs[o])) != GLCOLLIDE_OK)
        return 0;
    return glcollide_point_in_mesh(w->positions, w->mesh->triangles, w->mesh->triangle_count,
                                   bvhs[o], p);
}

int glcollide_stencil_world(const glcollide_world *world, glcollide_context *context,
                            const glcollide_stencil_options *options,
                            glcollide_stencil_result *result)
{
    size_t n = world->object_count;
    if (!context)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "stencil: context is NULL");
    if (options->resolution < 16 || options->resolution > 16384)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "stencil: resolution %d outside 16..16384", options->resolution);
    if (options->views != 3 && options->views != 6)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "stencil: views must be 3 or 6, got %d",
                              options->views);
    if ((int)options->counter < 0 || options->counter > GLCOLLIDE_STENCIL_COUNTER_ATOMIC)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "stencil: unknown counter %d",
                              (int)options->counter);
    if (n >= ID_MASK)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "stencil: %zu objects, at most %u", n,
                              ID_MASK - 1);
    int status = glcollide_context_check_resolution(context, "stencil", options->resolution,
                                                    STENCIL_BYTES_PER_PIXEL);
    if (status != GLCOLLIDE_OK)
        return status;
    /* active[o]: drawn; crossing[o]: its mesh passes through itself. */
    unsigned char *active = calloc(n ? 2 * n : 1, 1), *crossing = active + n;
    if (!active)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "stencil: out of memory");
    status = check_solids(world, options, crossing);
    if (status != GLCOLLIDE_OK) {
        free(active);
        return status;
    }
    size_t bound = 0;
    status = overlap_bound(world, &bound, active);
    /* Global numbering: vertices, triangles, edges (each undirected edge of a
     * closed mesh once: as the directed edge with a < b). */
    size_t vertex_total = 0, triangle_total = 0, edge_total = 0;
    glcollide_aabb all;
    glcollide_aabb_empty(&all);
    for (size_t o = 0; o < n; o++) {
        const glcollide_mesh *m = world->objects[o].mesh;
        if (m->triangle_count == 0 || !active[o])
            continue;
        vertex_total += m->vertex_count;
        triangle_total += m->triangle_count;
        for (size_t t = 0; t < 3 * m->triangle_count; t++)
            edge_total += m->triangles[t] < m->triangles[t - t % 3 + (t % 3 + 1) % 3];
        glcollide_aabb_add_point(&all, world->objects[o].bounds.min);
        glcollide_aabb_add_point(&all, world->objects[o].bounds.max);
    }
    if (status == GLCOLLIDE_OK && (edge_total + vertex_total >= UINT32_MAX || 3 * triangle_total >= UINT32_MAX))
        status = glcollide_fail(GLCOLLIDE_ERROR_LIMIT,
                              "stencil: %zu edges and vertices, %zu triangles: at most 2^32 - 2 and "
                              "(2^32 - 1) / 3", edge_total + vertex_total, triangle_total);
    if (status != GLCOLLIDE_OK || triangle_total == 0) {
        free(active);
        return status;
    }
    /* Where an object passes through itself, the pass tracks which objects
     * have faces in front of each sample, and the records are read even to
     * detect only (some may be left for the CPU to decide). */
    int track = 0;
    for (size_t o = 0; o < n; o++)
        track |= active[o] && crossing[o];
    int detect_only = options->detect_only && !track;
    int atomic = options->counter == GLCOLLIDE_STENCIL_COUNTER_ATOMIC ||
                 (options->counter == GLCOLLIDE_STENCIL_COUNTER_AUTO && bound >= 128);
    if (options->counter == GLCOLLIDE_STENCIL_COUNTER_STENCIL && bound >= 128)
        glcollide_log_warning("stencil: up to %zu solids may overlap at a point; the 8-bit stencil "
                              "is exact below 128 (use the atomic counter)", bound);

    /* Vertices go to the GPU relative to the drawn scene's centre and scaled
     * into [-1, 1] (a power of two: exact), so that float holds any scene
     * double does (3e38 overflowed float before); positions read back are
     * scaled back. */
    double origin[3], scale, extent = 0; /* extent: the scaled box's largest side, in [1, 2) */
    glcollide_frame_fit(&all, origin, &scale);
    for (int k = 0; k < 3; k++)
        extent = fmax(extent, (all.max[k] - origin[k]) * scale + (origin[k] - all.min[k]) * scale);
    status = glcollide_context_make_current(context);
    if (status != GLCOLLIDE_OK) {
        free(active);
        return status;
    }
    glcollide_gl_state saved;
    glcollide_gl_state_save(&saved);
    glcollide_gl_state_reset();

    float *vertices = glcollide_alloc_array(vertex_total, 4 * sizeof(float));
    uint32_t *indices = glcollide_alloc_array(3 * triangle_total + 2 * edge_total, sizeof(uint32_t));
    uint32_t *objects = glcollide_alloc_array(triangle_total + edge_total + vertex_total, sizeof(uint32_t));
    uint32_t *sample_vertex = glcollide_alloc_array(2 * edge_total + vertex_total, sizeof(uint32_t));
    size_t *vertex_base = glcollide_alloc_array(n ? n : 1, sizeof(size_t));
    uint32_t *records = NULL;
    stencil_view views[MAX_VIEWS];
    if (!vertices || !indices || !objects || !sample_vertex || !vertex_base) {
        status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "stencil: out of memory");
        goto done;
    }
    if ((status = prepare(context, options->resolution)))
        goto done;
    struct glcollide_stencil_cache *cache = context->stencil;
    int side = options->resolution;

    /* Layout: indices = triangles (3T) then edges (2E); objects = per
     * triangle (T), per edge (E), per vertex (V); sample ids: edges 0..E-1,
     * vertices E..E+V-1 (sample_vertex: the mesh vertices of each). */
    size_t v = 0, t = 0, e = 0;
    for (size_t o = 0; o < n; o++) {
        const glcollide_world_mesh *w = &world->objects[o];
        const glcollide_mesh *m = w->mesh;
        vertex_base[o] = v;
        if (m->triangle_count == 0 || !active[o])
            continue;
        for (size_t i = 0; i < m->vertex_count; i++, v++) {
            for (int k = 0; k < 3; k++)
                vertices[4 * v + k] = (float)((w->positions[3 * i + k] - origin[k]) * scale);
            vertices[4 * v + 3] = 1.0f;
            objects[triangle_total + edge_total + v] = (uint32_t)o;
            sample_vertex[2 * edge_total + v] = (uint32_t)i;
        }
        for (size_t i = 0; i < m->triangle_count; i++, t++) {
            objects[t] = (uint32_t)o | (crossing[o] ? CROSSING : 0u);
            for (int c = 0; c < 3; c++) {
                uint32_t a = m->triangles[3 * i + c], b = m->triangles[3 * i + (c + 1) % 3];
                indices[3 * t + c] = (uint32_t)(vertex_base[o] + a);
                if (a < b) {
                    indices[3 * triangle_total + 2 * e] = (uint32_t)(vertex_base[o] + a);
                    indices[3 * triangle_total + 2 * e + 1] = (uint32_t)(vertex_base[o] + b);
                    sample_vertex[2 * e] = a;
                    sample_vertex[2 * e + 1] = b;
                    objects[triangle_total + e] = (uint32_t)o;
                    e++;
                }
            }
        }
    }
    size_t pixels = (size_t)side * (size_t)side;
    glcollide_gl_buffer_reserve(cache->vertex_buffer, &cache->vertex_capacity, vertex_total * 4 * sizeof(float));
    glcollide_gl_buffer_reserve(cache->index_buffer, &cache->index_capacity, (3 * triangle_total + 2 * edge_total + 1) * 4);
    glcollide_gl_buffer_reserve(cache->object_buffer, &cache->object_capacity, (triangle_total + edge_total + vertex_total) * 4);
    glcollide_gl_buffer_reserve(cache->pixel_buffer, &cache->pixel_capacity,
                                pixels * PIXEL_WORDS * sizeof(int32_t));
    if (cache->max_records == 0)
        cache->max_records = 1 << 16;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->vertex_buffer);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(vertex_total * 4 * sizeof(float)), vertices);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->index_buffer);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)((3 * triangle_total + 2 * edge_total) * 4),
                    indices);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->object_buffer);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0,
                    (GLsizeiptr)((triangle_total + edge_total + vertex_total) * 4), objects);

    /* Views fitted to the objects: w along the axis, room for a pixel. */
    int view_count = options->views;
    double pixel_max = 0;
    for (int i = 0; i < view_count; i++) {
        stencil_view *view = &views[i];
        view->axis = i % 3;
        view->flip = i >= 3;
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (size_t k = 0; k < vertex_total; k++) {
            double p[3] = {vertices[4 * k], vertices[4 * k + 1], vertices[4 * k + 2]}, q[3];
            to_view(view->axis, view->flip, p, q);
            for (int c = 0; c < 3; c++) {
                lo[c] = fmin(lo[c], q[c]);
                hi[c] = fmax(hi[c], q[c]);
            }
        }
        for (int c = 0; c < 3; c++) {
            double pad = 1e-6 * extent + 1e-30;
            double size = hi[c] - lo[c] + 2 * pad;
            if (c < 2)
                pad += size / (double)(side - 2);
            view->min[c] = (float)(lo[c] - pad);
            view->size[c] = (float)(hi[c] + pad - view->min[c]);
            if (c < 2)
                pixel_max = fmax(pixel_max, view->size[c] / side);
        }
    }
    /* A sample is the pixel centre at the depth of a point of an edge or
     * vertex whose projection is within half a pixel diagonal of it. */
    result->tolerance = (pixel_max * sqrt(2.0) + 1e-5 * extent) / scale;

    int rerun = 0;
    uint32_t record_count = 0;
    for (;;) {
        size_t record_bytes = (HEADER_WORDS + RECORD_WORDS * cache->max_records) * sizeof(uint32_t);
        glcollide_gl_buffer_reserve(cache->record_buffer, &cache->record_capacity, record_bytes);
        GLuint zero = 0, none = NO_SAMPLE;
        glcollide_gl_buffer_reserve(cache->found_buffer, &cache->found_capacity, (edge_total + vertex_total) * 4);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->found_buffer);
        glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, 0,
                             (GLsizeiptr)((edge_total + vertex_total) * 4), GL_RED_INTEGER,
                             GL_UNSIGNED_INT, &none);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->record_buffer);
        glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, 0, HEADER_WORDS * 4, GL_RED_INTEGER,
                             GL_UNSIGNED_INT, &zero);
        glBindVertexArray(cache->vertex_array);
        glViewport(0, 0, side, side);
        glEnable(GL_PROGRAM_POINT_SIZE);
        glFrontFace(GL_CW); /* see the vertex shader: faces toward the viewer are CW on screen */
        for (int i = 0; i < view_count && status == GLCOLLIDE_OK; i++) {
            const stencil_view *view = &views[i];
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
                                 (GLsizeiptr)(pixels * PIXEL_WORDS * sizeof(int32_t)),
                                 GL_RED_INTEGER, GL_INT, &zero);
            glEnable(GL_DEPTH_TEST);
            glDepthFunc(GL_LESS);
            glDepthMask(GL_TRUE);
            GLuint program = cache->programs[PROGRAM_SAMPLES];
            glUseProgram(program);
            glUniform1i(glGetUniformLocation(program, "axis"), view->axis);
            glUniform1i(glGetUniformLocation(program, "flip"), view->flip);
            glUniform3fv(glGetUniformLocation(program, "view_min"), 1, view->min);
            glUniform3fv(glGetUniformLocation(program, "view_size"), 1, view->size);
            /* Whole buffers bound, offsets as uniforms: SSBO offsets need an
             * alignment that differs between drivers. */
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, cache->vertex_buffer);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, cache->index_buffer);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, cache->object_buffer);
            glUniform1i(glGetUniformLocation(program, "stride"), 2);
            glUniform1ui(glGetUniformLocation(program, "first_index"), (GLuint)(3 * triangle_total));
            glUniform1ui(glGetUniformLocation(program, "first_object"), (GLuint)triangle_total);
            glUniform1ui(glGetUniformLocation(program, "first_sample"), 0);
            glDrawArrays(GL_LINES, 0, (GLsizei)(2 * edge_total));
            glUniform1i(glGetUniformLocation(program, "stride"), 1);
            glUniform1ui(glGetUniformLocation(program, "first_object"),
                         (GLuint)(triangle_total + edge_total));
            glUniform1ui(glGetUniformLocation(program, "first_sample"), (GLuint)edge_total);
            glDrawArrays(GL_POINTS, 0, (GLsizei)vertex_total);
            result->stats.draw_calls += 2;

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
            glUniform1i(glGetUniformLocation(program, "axis"), view->axis);
            glUniform1i(glGetUniformLocation(program, "flip"), view->flip);
            glUniform3fv(glGetUniformLocation(program, "view_min"), 1, view->min);
            glUniform3fv(glGetUniformLocation(program, "view_size"), 1, view->size);
            glUniform1i(glGetUniformLocation(program, "stride"), 3);
            glUniform1ui(glGetUniformLocation(program, "first_index"), 0);
            glUniform1ui(glGetUniformLocation(program, "first_object"), 0);
            glUniform1ui(glGetUniformLocation(program, "first_sample"), 0);
            glUniform1i(glGetUniformLocation(program, "side"), side);
            glUniform1i(glGetUniformLocation(program, "track"), track);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, cache->pixel_buffer);
            glActiveTexture(GL_TEXTURE0);
            glBindTexture(GL_TEXTURE_2D, cache->owner_texture);
            glActiveTexture(GL_TEXTURE1);
            glBindTexture(GL_TEXTURE_2D, cache->depth_texture);
            glDrawArrays(GL_TRIANGLES, 0, (GLsizei)(3 * triangle_total));
            result->stats.draw_calls++;
            result->stats.triangles_rasterized += triangle_total;
            glDisable(GL_STENCIL_TEST);

            /* Pass 3: records of the pixels with a non-zero count. */
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT);
            program = cache->programs[atomic ? PROGRAM_RECORDS_ATOMIC : PROGRAM_RECORDS];
            glUseProgram(program);
            glUniform1i(glGetUniformLocation(program, "side"), side);
            glUniform1ui(glGetUniformLocation(program, "view"), (GLuint)i);
            glUniform1ui(glGetUniformLocation(program, "capacity"), (GLuint)cache->max_records);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, cache->record_buffer);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, cache->found_buffer);
            glActiveTexture(GL_TEXTURE0);
            glBindTexture(GL_TEXTURE_2D, cache->sample_texture);
            glActiveTexture(GL_TEXTURE2);
            glBindTexture(GL_TEXTURE_2D, cache->depth_stencil_texture);
            glDispatchCompute((GLuint)(side + 7) / 8, (GLuint)(side + 7) / 8, 1);
            result->stats.draw_calls++; /* a dispatch counts as a draw call */
            for (int unit = 2; unit >= 0; unit--) {
                glActiveTexture(GL_TEXTURE0 + (GLenum)unit);
                glBindTexture(GL_TEXTURE_2D, 0);
            }
            status = glcollide_gl_check("stencil view");
        }
        glDisable(GL_PROGRAM_POINT_SIZE);
        if (status != GLCOLLIDE_OK)
            goto done;
        /* Sync 1: the record count (0: nothing interferes, done). */
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, cache->record_buffer);
        glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, 4, &record_count);
        result->stats.gpu_syncs++;
        result->stats.readback_bytes += 4;
        if (record_count <= cache->max_records || detect_only || rerun)
            break;
        /* More records than room: grow and run the views again (once). */
        cache->max_records = record_count + record_count / 4;
        rerun = 1;
        glcollide_log_debug("stencil: %u records, running again with room for %zu", record_count,
                            cache->max_records);
    }
    if (record_count > cache->max_records && !detect_only) {
        status = glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "stencil: %u records overflowed", record_count);
        goto done;
    }
    result->stats.candidates = record_count;
    if (detect_only || record_count == 0) {
        /* Interference or a negative count: the records would tell which. */
        result->interference = record_count > 0;
        goto done;
    }
    /* Sync 2: the records. */
    records = glcollide_alloc_array((size_t)record_count * RECORD_WORDS, sizeof(uint32_t));
    if (!records) {
        status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "stencil: out of memory");
        goto done;
    }
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, HEADER_WORDS * 4,
                       (GLsizeiptr)((size_t)record_count * RECORD_WORDS * 4), records);
    result->stats.gpu_syncs++;
    result->stats.readback_bytes += (size_t)record_count * RECORD_WORDS * 4;
    status = glcollide_gl_check("stencil readback");

done:
    glcollide_gl_state_restore(&saved);
    glcollide_bvh **bvhs = status == GLCOLLIDE_OK && records ? calloc(n, sizeof *bvhs) : NULL;
    if (status == GLCOLLIDE_OK && records && !bvhs)
        status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "stencil: out of memory");
    if (status == GLCOLLIDE_OK && records) {
        stencil_collect c = {.world = world, .result = result};
        uint32_t negative_object = UINT32_MAX;
        for (uint32_t r = 0; r < record_count && status == GLCOLLIDE_OK; r++) {
            const uint32_t *rec = records + RECORD_WORDS * (size_t)r;
            uint32_t x = rec[0] & 0x3fff, y = (rec[0] >> 14) & 0x3fff, vi = rec[0] >> 28;
            uint32_t id = rec[1], what = rec[3];
            float depth;
            memcpy(&depth, &rec[2], sizeof depth);
            if (vi >= (uint32_t)view_count || id >= edge_total + vertex_total)
                continue;
            uint32_t owner = objects[triangle_total + id];
            uint32_t a = sample_vertex[id < edge_total ? 2 * id : edge_total + id];
            uint32_t b = sample_vertex[id < edge_total ? 2 * id + 1 : edge_total + id];
            const stencil_view *view = &views[vi];
            double q[3] = {view->min[0] + (x + 0.5) * (double)view->size[0] / side,
                           view->min[1] + (y + 0.5) * (double)view->size[1] / side,
                           view->min[2] + (double)depth * view->size[2]},
                   p[3];
            from_view(view->axis, view->flip, q, p);
            for (int k = 0; k < 3; k++)
                p[k] = p[k] / scale + origin[k];
            if ((what & 0xc0000000u) == 0xc0000000u) {
                result->negative_samples++;
                negative_object = owner;
                continue;
            }
            if (!(what & UNDECIDED))
                result->interference = 1;
            if (!(what & 0x80000000u) && what < n && what != owner) {
                status = add_sample(&c, owner, what, a, b, p);
                continue;
            }
            /* Inside two or more solids (or an id sum that does not name
             * one): test the objects whose boxes hold the sample. */
            for (size_t o = 0; o < n && status == GLCOLLIDE_OK; o++) {
                const glcollide_world_mesh *w = &world->objects[o];
                if (o == owner || !w->mesh->triangle_count || !active[o])
                    continue;
                const glcollide_aabb *box = &w->bounds;
                double grow = result->tolerance;
                if (p[0] < box->min[0] - grow || p[0] > box->max[0] + grow ||
                    p[1] < box->min[1] - grow || p[1] > box->max[1] + grow ||
                    p[2] < box->min[2] - grow || p[2] > box->max[2] + grow)
                    continue;
                if (sample_inside(world, bvhs, o, p, &status))
                    status = add_sample(&c, owner, (uint32_t)o, a, b, p);
            }
        }
        if (result->negative_samples)
            glcollide_log_warning("stencil: %llu samples (the last of object %u) see more back "
                                  "faces than front faces in front of them: a solid in the scene "
                                  "is not closed",
                                  (unsigned long long)result->negative_samples, negative_object);
        /* Samples: one per (object, edge, inside); pairs from them. */
        if (status == GLCOLLIDE_OK && result->sample_count) {
            qsort(result->samples, result->sample_count, sizeof *result->samples, sample_compare);
            size_t kept = 0;
            for (size_t i = 0; i < result->sample_count; i++)
                if (kept == 0 || sample_compare(&result->samples[kept - 1], &result->samples[i]))
                    result->samples[kept++] = result->samples[i];
            result->sample_count = kept;
            glcollide_object_pair *pairs = glcollide_alloc_array(kept, sizeof *pairs);
            if (!pairs) {
                status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "stencil: out of memory");
            } else {
                for (size_t i = 0; i < kept; i++) {
                    uint32_t o = result->samples[i].object, in = result->samples[i].inside;
                    pairs[i] = (glcollide_object_pair){o < in ? o : in, o < in ? in : o};
                }
                qsort(pairs, kept, sizeof *pairs, glcollide_object_pair_compare);
                size_t unique = 0;
                for (size_t i = 0; i < kept; i++)
                    if (unique == 0 || glcollide_object_pair_compare(&pairs[unique - 1], &pairs[i]))
                        pairs[unique++] = pairs[i];
                result->pairs = pairs;
                result->pair_count = unique;
            }
        }
    }
    free(vertices);
    free(indices);
    free(objects);
    free(sample_vertex);
    free(vertex_base);
    free(records);
    for (size_t o = 0; bvhs && o < n; o++)
        glcollide_bvh_destroy(&bvhs[o]);
    free(bvhs);
    free(active);
    return status;
}

int glcollide_stencil_run(const glcollide_scene *scene, glcollide_context *context,
                          const glcollide_stencil_options *options, glcollide_stencil_result *result)
{
    if (!result)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "stencil: result is NULL");
    memset(result, 0, sizeof *result);
    if (!scene || !options || !context)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "stencil: scene, context or options is NULL");
    double start = glcollide_now_ms();
    glcollide_world world;
    int status = glcollide_world_build(scene, 0, &world);
    if (status != GLCOLLIDE_OK)
        return status;
    status = glcollide_stencil_world(&world, context, options, result);
    glcollide_world_release(&world);
    if (status != GLCOLLIDE_OK) {
        glcollide_stencil_result_clear(result);
        return status;
    }
    result->stats.time_ms = glcollide_now_ms() - start;
    return GLCOLLIDE_OK;
}

int glcollide_query_stencil(const glcollide_world *world, glcollide_context *context,
                            const glcollide_query_options *options, glcollide_query_result *result)
{
    glcollide_stencil_options stencil = glcollide_stencil_default_options();
    stencil.resolution = options->resolution;
    glcollide_stencil_result found;
    memset(&found, 0, sizeof found);
    int status = glcollide_stencil_world(world, context, &stencil, &found);
    if (status == GLCOLLIDE_OK) {
        result->pairs = found.pairs;
        result->pair_count = found.pair_count;
        found.pairs = NULL;
        result->stats = found.stats;
    }
    glcollide_stencil_result_clear(&found);
    return status;
}
