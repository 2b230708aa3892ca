/* SPDX-License-Identifier: MIT */
/*
 * Myszkowski, Okunev and Kunii (1995): interference of two closed solids A
 * and B by depth comparisons and stencil counting along one orthographic
 * view, and the distance map of their contact zone.
 *
 * The view (section 7): each object's box in its own frame is intersected
 * with the other's box taken into that frame; the normals of the largest
 * walls of the two intersection boxes are averaged into the projection
 * direction, and the viewport is the projections of both boxes intersected
 * (no interference can lie outside them). Depth spans both whole objects, so
 * that every surface of A and B along a ray is counted (a clipped solid
 * would no longer be closed). A is the convex object when only one is
 * (convex_mesh: then passes 1 and 2 decide every pixel), else the nearer
 * along the view.
 *
 * The test (sections 4-6), stencil = SA (bit 7) | SC (bits 0-6, saturating):
 *   pass 1: A with depth GREATER (its Zmax) setting SA; B with depth test
 *           LEQUAL, no depth write, where SA: SC counts B's surfaces at or
 *           in front of Zmax(A) (test 2). A compute pass reads the stencil:
 *           SC odd: A's far surface is inside B (collision); SC = 0: B is all
 *           behind A along this ray (none); even and > 0: second pass.
 *   pass 2: where marked, A with depth LESS (its Zmin), counting A's
 *           surfaces per pixel (the pi-convexity check: exactly 2 means A
 *           is convex along this ray), and B with depth LESS: SC2 counts
 *           B's surfaces in front of Zmin(A) (test 3). SC2 odd: collision;
 *           SC2 = SC1: no B surface within [Zmin, Zmax] of A, and Zmin
 *           outside B: none; otherwise collision if A is pi-convex there,
 *           else the pixel goes to pass 3 (the paper's extension #2).
 *   pass 3: the concave case. The paper encodes the depth order of the
 *           layers of A and B by alpha blending over depth-sorted polygons;
 *           here every fragment of A and B at a marked pixel is appended to a
 *           per-pixel list in a buffer (atomic counter + head exchange) and
 *           a compute pass sorts each list (up to 256 surfaces) and walks it
 *           with the count of front minus back faces of each solid: the ray
 *           is inside both somewhere = interference. Chosen over depth
 *           peeling because it takes 2 draws and 1 dispatch whatever the
 *           number of layers (peeling takes one pass per layer, unknown in
 *           advance without a sync per layer), and only the few marked
 *           pixels store anything.
 * The CPU reads 16 counters after each pass (the paper's "examination of
 * the pixel masks", done by compute passes on the GPU): at most 3 syncs, 4
 * when the lists overflow their buffer and pass 3 runs again, and 9 draw
 * calls and dispatches (12 with the rerun) per test.
 *
 * A count that saturates (127 of B's surfaces in front) goes to pass 3 too.
 *
 * A closed mesh that passes through itself is a solid where it winds
 * (nonzero winding number: 2 in its overlaps, -1 in folds). It is made A
 * when the other is not (B's counts keep their meaning: odd inside, even
 * outside); as B, pixels with an even count go to pass 3; and pass 3's walk
 * counts it inside where its winding is not 0 (rather than > 0).
 *
 * The distance map draws A and B once each, keeping per pixel the min and
 * max depth and the number of surfaces of each (atomics); pixels where both
 * have exactly two surfaces get max(Zmin) - min(Zmax) directly (the gap, or
 * minus the overlap), the others go to the same sorted lists.
 *
 * With refine, the direction is then re-chosen from the contact zone's
 * polygons found through an item buffer (refine_direction, section 7).
 *
 * Entries run on two objects of a world (world_pair). The tester made without a context is the
 * CPU twin: the same view, then the exact method's pair test for the test
 * and CPU ray casting (myszkowski_rays.c) for the map.
 *
 * GPU memory per pixel of the viewport: 12 bytes for the test, 44 for the
 * map, 60 with refine (the pixel buffer's regions below), plus 12 bytes per
 * list node (262,144 at first, grown as needed).
 */
#include "gpu/gl_internal.h"
#include "gpu/shaders.h"
#include "methods/myszkowski_rays.h"
#include "methods/query.h"

#include <glcollide/myszkowski.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LAYERS 256
#define NODE_WORDS 3
#define COUNTER_WORDS 16
#define NO_NODE 0xffffffffu

/* The pixel state word: SC1 in bits 0-6, and what the pixel needs. */
#define STATE_SECOND 0x100u
#define STATE_CONCAVE 0x200u
#define STATE_COLLIDE 0x400u

enum {
    C_COVERED = 0,
    C_COLLIDE1,
    C_SECOND,
    C_COLLIDE2,
    C_NOT_PI_CONVEX,
    C_CONCAVE,
    C_COLLIDE_CONCAVE,
    C_UNRESOLVED,
    C_NODES
};

enum {
    PROGRAM_SURFACE = 0,
    PROGRAM_LIST,
    PROGRAM_MINMAX,
    PROGRAM_ITEM,
    PROGRAM_CLASSIFY,
    PROGRAM_RESOLVE,
    PROGRAM_COUNT
};

struct glcollide_myszkowski {
    glcollide_context *context;
    GLuint programs[PROGRAM_COUNT]; /* the context's */
    GLuint vertex_array;
    GLuint vertex_buffer, index_buffer, pixel_buffer, work_buffer;
    size_t vertex_capacity, index_capacity, pixel_capacity, work_capacity;
    GLuint depth_stencil_texture, framebuffer;
    int side;
    int subpixel_bits; /* GL_SUBPIXEL_BITS: vertices snap to 1/2^bits of a pixel */
    size_t max_nodes;
    double *positions[2]; /* world positions of the pair, kept between tests */
    size_t position_capacity[2];
    glcollide_map_rays rays; /* the CPU twin's distance map */
};

static GLuint build_program(int which)
{
    static const char *const names[PROGRAM_COUNT] = {
        "myszkowski surfaces",    "myszkowski lists",    "myszkowski depth ranges",
        "myszkowski item buffer", "myszkowski classify", "myszkowski resolve"};
    static const char *const version = "#version 430 core\n";
    const char *body = which == PROGRAM_SURFACE    ? glcollide_shader_myszkowski_surface
                       : which == PROGRAM_LIST     ? glcollide_shader_myszkowski_list
                       : which == PROGRAM_MINMAX   ? glcollide_shader_myszkowski_minmax
                       : which == PROGRAM_ITEM     ? glcollide_shader_myszkowski_item
                       : which == PROGRAM_CLASSIFY ? glcollide_shader_myszkowski_classify
                                                   : glcollide_shader_myszkowski_resolve;
    int compute = which >= PROGRAM_CLASSIFY;
    const char *const fragment[] = {version, glcollide_shader_myszkowski_common, body, NULL};
    const char *const vertex[] = {version, glcollide_shader_myszkowski_vertex, NULL};
    return compute ? glcollide_gl_program(names[which], NULL, NULL, fragment)
                   : glcollide_gl_program(names[which], vertex, fragment, NULL);
}

glcollide_myszkowski_options glcollide_myszkowski_default_options(void)
{
    glcollide_myszkowski_options options = {
        .resolution = 512,
        .direction = {0, 0, 0},
        .full_map = 0,
        .check_solids = 1,
        .margin = 0,
        .refine = 0,
    };
    return options;
}

/* The programs are the context's, compiled once per context. */
static const glcollide_gl_program_set program_set = {
    {"myszkowski programs", glcollide_gl_programs_release}, PROGRAM_COUNT, build_program};

static void release_gl(glcollide_myszkowski *t)
{
    glDeleteVertexArrays(1, &t->vertex_array);
    GLuint buffers[4] = {t->vertex_buffer, t->index_buffer, t->pixel_buffer, t->work_buffer};
    glDeleteBuffers(4, buffers);
    glDeleteTextures(1, &t->depth_stencil_texture);
    glDeleteFramebuffers(1, &t->framebuffer);
}

void glcollide_myszkowski_destroy(glcollide_myszkowski **tester)
{
    if (!tester || !*tester)
        return;
    glcollide_myszkowski *t = *tester;
    if (t->context && glcollide_context_make_current(t->context) == GLCOLLIDE_OK)
        release_gl(t);
    free(t->positions[0]);
    free(t->positions[1]);
    glcollide_map_rays_release(&t->rays);
    free(t);
    *tester = NULL;
}

int glcollide_myszkowski_create(glcollide_context *context, glcollide_myszkowski **out)
{
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "myszkowski: out is NULL");
    *out = NULL;
    int status = context ? glcollide_context_make_current(context) : GLCOLLIDE_OK;
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_myszkowski *t = calloc(1, sizeof *t);
    if (!t)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "myszkowski: out of memory");
    if (!context) { /* the CPU twin: no GL */
        *out = t;
        return GLCOLLIDE_OK;
    }
    t->context = context;
    glcollide_gl_state saved;
    glcollide_gl_state_save(&saved);
    glGenVertexArrays(1, &t->vertex_array);
    GLuint buffers[4];
    glGenBuffers(4, buffers);
    t->vertex_buffer = buffers[0];
    t->index_buffer = buffers[1];
    t->pixel_buffer = buffers[2];
    t->work_buffer = buffers[3];
    t->max_nodes = (size_t)1 << 18;
    glGetIntegerv(GL_SUBPIXEL_BITS, &t->subpixel_bits);
    if (t->subpixel_bits < 4) /* the GL minimum */
        t->subpixel_bits = 4;
    for (int i = 0; i < PROGRAM_COUNT && status == GLCOLLIDE_OK; i++)
        if (!(t->programs[i] = glcollide_context_program(context, &program_set, i)))
            status = GLCOLLIDE_ERROR_GL;
    if (status == GLCOLLIDE_OK)
        status = glcollide_gl_check("myszkowski create");
    glcollide_gl_state_restore(&saved);
    if (status != GLCOLLIDE_OK) {
        glcollide_myszkowski_destroy(&t);
        return status;
    }
    *out = t;
    return GLCOLLIDE_OK;
}

void glcollide_myszkowski_map_clear(glcollide_myszkowski_map *map)
{
    if (!map)
        return;
    free(map->distance);
    free(map->coverage);
    memset(map, 0, sizeof *map);
}

/* ------------------------------------------------------------ the view */

/* One object of the pair: its mesh, pose and world positions. */
typedef struct solid {
    const glcollide_mesh *mesh;
    int convex;              /* the mesh bounds a convex solid (convex_mesh) */
    int crossing;            /* the mesh passes through itself (solid where it winds) */
    const double *positions; /* world, 3 * vertex_count */
    double rotation[9];      /* row-major, object to world */
    double translation[3];
    double local_min[3], local_max[3]; /* box in the object's frame */
} solid;

/* An undirected edge of a triangle: (low, high) vertices, the triangle and
 * the corner opposite the edge. */
typedef struct mesh_edge {
    uint32_t low, high, triangle, corner;
} mesh_edge;

static int edge_compare(const void *x, const void *y)
{
    const mesh_edge *a = x, *b = y;
    if (a->low != b->low)
        return a->low < b->low ? -1 : 1;
    return a->high < b->high ? -1 : a->high > b->high;
}

static uint32_t find_root(uint32_t *parent, uint32_t i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/*
 * Is the closed mesh convex? Every edge is shared by exactly two triangles
 * and the far vertex of each lies below the other's plane or above it by at
 * most 1e-9 of the mesh's size (a flat quad split in two rounds either way),
 * and the triangles form one piece: a connected closed surface that is
 * locally convex and does not cross itself bounds a convex solid (Tietze).
 * Then A can be this object and no pixel needs the lists (section 5: "if
 * one object is convex, then it should be rendered as A"). Only a choice of
 * A: the passes check pi-convexity per pixel whatever it says.
 * O(n log n); meshes above 100,000 triangles are not examined (0).
 */
static int convex_mesh(const glcollide_mesh *mesh)
{
    size_t n = mesh->triangle_count;
    if (n < 4 || n > 100000)
        return 0;
    double size = 0;
    for (size_t i = 0; i < 3 * mesh->vertex_count; i++)
        size = fmax(size, fabs(mesh->positions[i]));
    double flat = 1e-9 * size;
    mesh_edge *edges = glcollide_alloc_array(3 * n, sizeof *edges);
    uint32_t *parent = glcollide_alloc_array(n, sizeof *parent);
    int convex = edges && parent;
    for (size_t t = 0; convex && t < n; t++) {
        parent[t] = (uint32_t)t;
        for (int c = 0; c < 3; c++) {
            uint32_t a = mesh->triangles[3 * t + c], b = mesh->triangles[3 * t + (c + 1) % 3];
            edges[3 * t + c] =
                (mesh_edge){a < b ? a : b, a < b ? b : a, (uint32_t)t, (uint32_t)((c + 2) % 3)};
        }
    }
    if (convex)
        qsort(edges, 3 * n, sizeof *edges, edge_compare);
    for (size_t e = 0; convex && e < 3 * n; e += 2) {
        const mesh_edge *x = &edges[e], *y = &edges[e + 1];
        if (e + 1 >= 3 * n || edge_compare(x, y) != 0 ||
            (e + 2 < 3 * n && edge_compare(y, &edges[e + 2]) == 0)) {
            convex = 0; /* not two triangles per edge */
            break;
        }
        for (int side = 0; side < 2 && convex; side++) {
            const mesh_edge *f = side ? y : x, *g = side ? x : y;
            const uint32_t *v = mesh->triangles + 3 * (size_t)f->triangle;
            const double *p0 = mesh->positions + 3 * (size_t)v[0];
            const double *far =
                mesh->positions + 3 * (size_t)mesh->triangles[3 * (size_t)g->triangle + g->corner];
            double e1[3], e2[3], normal[3], out[3];
            glcollide_vec3_sub(e1, mesh->positions + 3 * (size_t)v[1], p0);
            glcollide_vec3_sub(e2, mesh->positions + 3 * (size_t)v[2], p0);
            glcollide_vec3_cross(normal, e1, e2);
            glcollide_vec3_sub(out, far, p0);
            double length = sqrt(glcollide_vec3_dot(normal, normal));
            convex = length > 0 && glcollide_vec3_dot(out, normal) <= flat * length;
        }
        uint32_t rx = find_root(parent, x->triangle), ry = find_root(parent, y->triangle);
        parent[rx] = ry;
    }
    for (size_t t = 0; convex && t < n; t++)
        convex = find_root(parent, (uint32_t)t) == find_root(parent, 0);
    free(edges);
    free(parent);
    return convex;
}

/* The world mesh's convex_mesh, found once per change of the mesh: an
 * O(n log n) sort of its edges, which on every test cost the knots about
 * 7 ms a call here (2 cores), more than a test's GPU passes on an H100. */
static int entry_convex(glcollide_world_mesh_entry *entry)
{
    if (entry->convex_at != 1 + entry->changed_at) {
        entry->convex = convex_mesh(entry->mesh);
        entry->convex_at = 1 + entry->changed_at;
    }
    return entry->convex;
}

static void solid_init(solid *s, glcollide_world_mesh_entry *entry, int crossing,
                       const glcollide_object *pose, const double *positions)
{
    s->mesh = entry->mesh;
    s->crossing = crossing;
    /* Local convexity proves nothing of a surface through itself. */
    s->convex = !crossing && entry_convex(entry);
    s->positions = positions;
    /* The pose's own matrix: differences of transformed points lose the
     * rotation once the translation's ulp exceeds the axes (from 1e17 on,
     * deep interpenetration was missed). */
    glcollide_pose_rotation_matrix(&pose->pose, s->rotation);
    memcpy(s->translation, pose->pose.translation, sizeof s->translation);
    /* The box of the vertices its triangles use, kept by the world. */
    memcpy(s->local_min, entry->bounds.min, sizeof s->local_min);
    memcpy(s->local_max, entry->bounds.max, sizeof s->local_max);
}

static void to_world(const solid *s, const double local[3], double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = s->translation[k] + s->rotation[3 * k] * local[0] +
                 s->rotation[3 * k + 1] * local[1] + s->rotation[3 * k + 2] * local[2];
}

static void to_local(const solid *s, const double world[3], double out[3])
{
    glcollide_unplace_point(s->translation, s->rotation, world, out);
}

static void box_corner(const double lo[3], const double hi[3], int c, double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = (c >> k) & 1 ? hi[k] : lo[k];
}

/* The box of `other` (grown by margin) in `frame`'s coordinates, intersected
 * with frame's own box (grown by margin). 0 when empty. */
static int intersection_box(const solid *frame, const solid *other, double margin, double lo[3],
                            double hi[3])
{
    double olo[3], ohi[3];
    for (int k = 0; k < 3; k++) {
        olo[k] = INFINITY;
        ohi[k] = -INFINITY;
        lo[k] = frame->local_min[k] - margin;
        hi[k] = frame->local_max[k] + margin;
    }
    for (int c = 0; c < 8; c++) {
        double p[3], w[3], q[3], grown_lo[3], grown_hi[3];
        for (int k = 0; k < 3; k++) {
            grown_lo[k] = other->local_min[k] - margin;
            grown_hi[k] = other->local_max[k] + margin;
        }
        box_corner(grown_lo, grown_hi, c, p);
        to_world(other, p, w);
        to_local(frame, w, q);
        for (int k = 0; k < 3; k++) {
            olo[k] = fmin(olo[k], q[k]);
            ohi[k] = fmax(ohi[k], q[k]);
        }
    }
    for (int k = 0; k < 3; k++) {
        lo[k] = fmax(lo[k], olo[k]);
        hi[k] = fmin(hi[k], ohi[k]);
        if (!(lo[k] <= hi[k]))
            return 0;
    }
    return 1;
}

typedef struct pair_view {
    double origin[3]; /* positions go to the GPU relative to it */
    double u[3], v[3], w[3];
    double u0, v0, w0; /* window corner, relative to origin along u, v, w */
    double pixel, depth;
    double extent; /* largest |coordinate| relative to origin, for the tolerance */
    double scale;  /* a power of two: positions go to the GPU as (p - origin) * scale, in [-1, 1] */
    int width, height;
    float to_clip[16]; /* column-major */
} pair_view;

/* The paper's initial guess and the viewport fitted to the zone. 0: the
 * boxes do not meet (no interference possible). */
static int choose_view(const solid *a, const solid *b, const double direction[3], double margin,
                       int resolution, pair_view *view)
{
    double lo[2][3], hi[2][3];
    if (!intersection_box(a, b, margin, lo[0], hi[0]) ||
        !intersection_box(b, a, margin, lo[1], hi[1]))
        return 0;
    const solid *frames[2] = {a, b};
    double w[3] = {direction[0], direction[1], direction[2]};
    if (glcollide_vec3_normalise(w) == 0 || !isfinite(w[0] + w[1] + w[2])) {
        /* Normal of each intersection box's largest wall (its thinnest
         * axis), averaged with matching signs. */
        double normals[2][3];
        for (int f = 0; f < 2; f++) {
            int thin = 0;
            for (int k = 1; k < 3; k++)
                if (hi[f][k] - lo[f][k] < hi[f][thin] - lo[f][thin])
                    thin = k;
            for (int k = 0; k < 3; k++)
                normals[f][k] = frames[f]->rotation[3 * k + thin];
        }
        double sign = glcollide_vec3_dot(normals[0], normals[1]) < 0 ? -1 : 1;
        for (int k = 0; k < 3; k++)
            w[k] = normals[0][k] + sign * normals[1][k];
        if (glcollide_vec3_normalise(w) < 1e-6)
            memcpy(w, normals[0], sizeof w);
    }
    /* u, v: a right-handed basis with u x v = w. */
    int least = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(w[k]) < fabs(w[least]))
            least = k;
    double e[3] = {0, 0, 0};
    e[least] = 1;
    glcollide_vec3_cross(view->u, e, w);
    glcollide_vec3_normalise(view->u);
    glcollide_vec3_cross(view->v, w, view->u);
    memcpy(view->w, w, sizeof w);
    /* Origin: the middle of the two intersection boxes. */
    double centre[2][3];
    for (int f = 0; f < 2; f++) {
        double mid[3];
        for (int k = 0; k < 3; k++)
            mid[k] = 0.5 * (lo[f][k] + hi[f][k]);
        to_world(frames[f], mid, centre[f]);
    }
    for (int k = 0; k < 3; k++)
        view->origin[k] = 0.5 * (centre[0][k] + centre[1][k]);
    /* Window: both boxes' shadows on the (u, v) plane, intersected. */
    double win_lo[2] = {-INFINITY, -INFINITY}, win_hi[2] = {INFINITY, INFINITY};
    for (int f = 0; f < 2; f++) {
        double s_lo[2] = {INFINITY, INFINITY}, s_hi[2] = {-INFINITY, -INFINITY};
        for (int c = 0; c < 8; c++) {
            double p[3], x[3], d[3];
            box_corner(lo[f], hi[f], c, p);
            to_world(frames[f], p, x);
            glcollide_vec3_sub(d, x, view->origin);
            double uv[2] = {glcollide_vec3_dot(d, view->u), glcollide_vec3_dot(d, view->v)};
            for (int k = 0; k < 2; k++) {
                s_lo[k] = fmin(s_lo[k], uv[k]);
                s_hi[k] = fmax(s_hi[k], uv[k]);
            }
        }
        for (int k = 0; k < 2; k++) {
            win_lo[k] = fmax(win_lo[k], s_lo[k]);
            win_hi[k] = fmin(win_hi[k], s_hi[k]);
        }
    }
    /* Depth: all of both objects, so that every surface along a ray counts. */
    double w_lo = INFINITY, w_hi = -INFINITY, extent = 0;
    for (int f = 0; f < 2; f++) {
        const solid *s = frames[f];
        for (size_t t = 0; t < 3 * s->mesh->triangle_count; t++) {
            const double *x = s->positions + 3 * (size_t)s->mesh->triangles[t];
            double d[3];
            glcollide_vec3_sub(d, x, view->origin);
            double z = glcollide_vec3_dot(d, w);
            w_lo = fmin(w_lo, z);
            w_hi = fmax(w_hi, z);
            extent = fmax(extent, fmax(fabs(d[0]), fmax(fabs(d[1]), fabs(d[2]))));
        }
    }
    double size_u = fmax(win_hi[0] - win_lo[0], 0), size_v = fmax(win_hi[1] - win_lo[1], 0);
    double largest = fmax(fmax(size_u, size_v), 1e-9 * fmax(extent, 1e-300));
    /* One free pixel on every side. */
    view->pixel = largest / (resolution - 2);
    view->width = (int)fmin(resolution, ceil(size_u / view->pixel) + 2);
    view->height = (int)fmin(resolution, ceil(size_v / view->pixel) + 2);
    view->u0 = 0.5 * (win_lo[0] + win_hi[0]) - 0.5 * view->width * view->pixel;
    view->v0 = 0.5 * (win_lo[1] + win_hi[1]) - 0.5 * view->height * view->pixel;
    double pad = 1e-3 * (w_hi - w_lo) + 1e-9 * fmax(extent, 1e-300);
    view->w0 = w_lo - pad;
    view->depth = w_hi - w_lo + 2 * pad;
    view->extent = fmax(extent, fmax(view->depth, largest));
    /* Float holds any pair that double does (1e39 overflowed it, 1e-110
     * vanished) when positions are scaled into [-1, 1] first. */
    int exponent = 0;
    if (extent > 0 && isfinite(extent))
        frexp(extent, &exponent);
    view->scale = ldexp(1.0, -exponent);
    /* NDC = M (p - origin) = M' (p - origin) scale: x = 2 (p.u - u0) / (W pixel) - 1, ...
     * (M' = M / scale: as exact as M). */
    double sx = 2 / (view->width * view->pixel), sy = 2 / (view->height * view->pixel),
           sz = 2 / view->depth;
    double rows[3][4];
    for (int k = 0; k < 3; k++) {
        rows[0][k] = sx * view->u[k] / view->scale;
        rows[1][k] = sy * view->v[k] / view->scale;
        rows[2][k] = sz * view->w[k] / view->scale;
    }
    rows[0][3] = -sx * view->u0 - 1;
    rows[1][3] = -sy * view->v0 - 1;
    rows[2][3] = -sz * view->w0 - 1;
    memset(view->to_clip, 0, sizeof view->to_clip);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            view->to_clip[4 * c + r] = (float)rows[r][c];
    view->to_clip[15] = 1.0f;
    return 1;
}

/* ------------------------------------------------------------ GPU passes */

typedef struct pair_gpu {
    glcollide_myszkowski *t;
    const pair_view *view;
    size_t triangles[2]; /* of A, B */
    int crossing[2];     /* A, B pass through themselves */
    glcollide_query_stats *stats;
    uint32_t counters[COUNTER_WORDS];
} pair_gpu;

static int upload(glcollide_myszkowski *t, const solid *a, const solid *b, const pair_view *view,
                  size_t pixel_words)
{
    size_t va = a->mesh->vertex_count, vb = b->mesh->vertex_count;
    size_t ta = a->mesh->triangle_count, tb = b->mesh->triangle_count;
    float *vertices = glcollide_alloc_array(va + vb, 4 * sizeof(float));
    uint32_t *indices = glcollide_alloc_array(3 * (ta + tb) + 1, sizeof(uint32_t));
    if (!vertices || !indices) {
        free(vertices);
        free(indices);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "myszkowski: out of memory");
    }
    const solid *both[2] = {a, b};
    size_t v = 0, i = 0;
    for (int f = 0; f < 2; f++) {
        size_t base = v;
        for (size_t k = 0; k < both[f]->mesh->vertex_count; k++, v++) {
            for (int c = 0; c < 3; c++)
                vertices[4 * v + c] =
                    (float)((both[f]->positions[3 * k + c] - view->origin[c]) * view->scale);
            vertices[4 * v + 3] = 1.0f;
        }
        for (size_t k = 0; k < 3 * both[f]->mesh->triangle_count; k++)
            indices[i++] = (uint32_t)(base + both[f]->mesh->triangles[k]);
    }
    glcollide_gl_buffer_reserve(t->vertex_buffer, &t->vertex_capacity,
                                (va + vb) * 4 * sizeof(float));
    glcollide_gl_buffer_reserve(t->index_buffer, &t->index_capacity, (3 * (ta + tb) + 1) * 4);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, t->vertex_buffer);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)((va + vb) * 4 * sizeof(float)),
                    vertices);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, t->index_buffer);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(3 * (ta + tb) * 4), indices);
    free(vertices);
    free(indices);
    glcollide_gl_buffer_reserve(t->pixel_buffer, &t->pixel_capacity, pixel_words * 4);
    glcollide_gl_buffer_reserve(t->work_buffer, &t->work_capacity,
                                (COUNTER_WORDS + NODE_WORDS * t->max_nodes) * 4);
    int side = view->width > view->height ? view->width : view->height;
    if (t->side < side) {
        glDeleteTextures(1, &t->depth_stencil_texture);
        glDeleteFramebuffers(1, &t->framebuffer);
        t->depth_stencil_texture = glcollide_gl_texture_2d(GL_DEPTH32F_STENCIL8, side);
        glBindTexture(GL_TEXTURE_2D, t->depth_stencil_texture);
        /* The classification passes read the stencil (GL 4.3). */
        glTexParameteri(GL_TEXTURE_2D, GL_DEPTH_STENCIL_TEXTURE_MODE, GL_STENCIL_INDEX);
        glBindTexture(GL_TEXTURE_2D, 0);
        glGenFramebuffers(1, &t->framebuffer);
        glBindFramebuffer(GL_FRAMEBUFFER, t->framebuffer);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_TEXTURE_2D,
                               t->depth_stencil_texture, 0);
        glDrawBuffer(GL_NONE);
        glReadBuffer(GL_NONE);
        GLenum ok = glCheckFramebufferStatus(GL_FRAMEBUFFER);
        if (ok != GL_FRAMEBUFFER_COMPLETE) {
            glDeleteTextures(1, &t->depth_stencil_texture);
            glDeleteFramebuffers(1, &t->framebuffer);
            t->depth_stencil_texture = t->framebuffer = 0;
            t->side = 0;
            return glcollide_fail(GLCOLLIDE_ERROR_GL, "myszkowski: framebuffer incomplete (0x%x)",
                                  (unsigned)ok);
        }
        t->side = side;
    }
    return glcollide_gl_check("myszkowski upload");
}

static void use_program(pair_gpu *g, int which)
{
    GLuint program = g->t->programs[which];
    glUseProgram(program);
    GLint at;
    if ((at = glGetUniformLocation(program, "to_clip")) >= 0)
        glUniformMatrix4fv(at, 1, GL_FALSE, g->view->to_clip);
    if ((at = glGetUniformLocation(program, "width")) >= 0)
        glUniform1i(at, g->view->width);
    if ((at = glGetUniformLocation(program, "height")) >= 0)
        glUniform1i(at, g->view->height);
    if ((at = glGetUniformLocation(program, "pixel_count")) >= 0)
        glUniform1ui(at, (GLuint)((size_t)g->view->width * (size_t)g->view->height));
}

static void set_uint(pair_gpu *g, int which, const char *name, GLuint value)
{
    glUniform1ui(glGetUniformLocation(g->t->programs[which], name), value);
}

static void set_int(pair_gpu *g, int which, const char *name, GLint value)
{
    glUniform1i(glGetUniformLocation(g->t->programs[which], name), value);
}

/* Draws object 0 (A) or 1 (B) with the current program. */
static void draw(pair_gpu *g, int which, int object)
{
    set_uint(g, which, "first_index", object ? (GLuint)(3 * g->triangles[0]) : 0);
    glDrawArrays(GL_TRIANGLES, 0, (GLsizei)(3 * g->triangles[object]));
    g->stats->draw_calls++;
    g->stats->triangles_rasterized += g->triangles[object];
}

static void dispatch(pair_gpu *g)
{
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    glDispatchCompute((GLuint)(g->view->width + 7) / 8, (GLuint)(g->view->height + 7) / 8, 1);
    g->stats->draw_calls++; /* a dispatch counts as a draw call */
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
}

/* The stencil is read as a texture, bound only for the dispatch (the
 * framebuffer renders into it). */
static void classify(pair_gpu *g)
{
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, g->t->depth_stencil_texture);
    dispatch(g);
    glBindTexture(GL_TEXTURE_2D, 0);
}

static int read_counters(pair_gpu *g)
{
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->t->work_buffer);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof g->counters, g->counters);
    g->stats->gpu_syncs++;
    g->stats->readback_bytes += sizeof g->counters;
    return glcollide_gl_check("myszkowski readback");
}

static void bind_buffers(glcollide_myszkowski *t);

static void clear_words(GLuint buffer, size_t first, size_t count, GLuint value)
{
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer);
    glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, (GLintptr)(first * 4),
                         (GLsizeiptr)(count * 4), GL_RED_INTEGER, GL_UNSIGNED_INT, &value);
}

static void bind_buffers(glcollide_myszkowski *t)
{
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, t->vertex_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, t->index_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, t->pixel_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, t->work_buffer);
}

/* Room for needed list nodes; the counters (lost with the old storage) are
 * put back as read, without the lists' own. */
static void grow_nodes(pair_gpu *g, size_t needed)
{
    glcollide_myszkowski *t = g->t;
    t->max_nodes = needed + needed / 4;
    glcollide_gl_buffer_reserve(t->work_buffer, &t->work_capacity,
                                (COUNTER_WORDS + NODE_WORDS * t->max_nodes) * 4);
    g->counters[C_NODES] = g->counters[C_COLLIDE_CONCAVE] = g->counters[C_UNRESOLVED] = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, t->work_buffer);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof g->counters, g->counters);
    bind_buffers(t);
}

/* Pass 3 (and the map's listed pixels): lists of the STATE_CONCAVE pixels,
 * sorted and walked; run again once with room for every node if the
 * buffer was too small. */
static int lists(pair_gpu *g, int map)
{
    glcollide_myszkowski *t = g->t;
    size_t pixels = (size_t)g->view->width * (size_t)g->view->height;
    for (int attempt = 0;; attempt++) {
        clear_words(t->pixel_buffer, 2 * pixels, pixels, NO_NODE);
        clear_words(t->work_buffer, C_NODES, 1, 0);
        glDisable(GL_DEPTH_TEST);
        glDisable(GL_STENCIL_TEST);
        glDepthMask(GL_FALSE);
        use_program(g, PROGRAM_LIST);
        set_uint(g, PROGRAM_LIST, "capacity", (GLuint)t->max_nodes);
        for (int object = 0; object < 2; object++) {
            set_uint(g, PROGRAM_LIST, "object", (GLuint)object);
            draw(g, PROGRAM_LIST, object);
        }
        use_program(g, PROGRAM_RESOLVE);
        set_int(g, PROGRAM_RESOLVE, "map", map);
        set_int(g, PROGRAM_RESOLVE, "nonzero", g->crossing[0] | g->crossing[1] << 1);
        dispatch(g);
        if (map && attempt == 0) {
            /* The map reads the counters with the map itself. */
            return GLCOLLIDE_OK;
        }
        int status = read_counters(g);
        if (status != GLCOLLIDE_OK)
            return status;
        size_t used = g->counters[C_NODES];
        if (used <= t->max_nodes || attempt > 0)
            return used <= t->max_nodes
                       ? GLCOLLIDE_OK
                       : glcollide_fail(GLCOLLIDE_ERROR_LIMIT,
                                        "myszkowski: %zu list nodes overflowed", used);
        grow_nodes(g, used);
    }
}

/* Section 7's refinement: depth ranges and the item buffer of A and B,
 * the contact zone's polygons flagged on the GPU, their normals averaged
 * on the CPU (area-weighted, as lines: each turned to face along the
 * current direction). 4 draws, 1 dispatch, 1 sync (the bitset). 0 and
 * refined untouched when no polygon is in the zone. */
static int refine_direction(pair_gpu *g, const solid *a, const solid *b, double zone,
                            double refined[3], int *changed)
{
    glcollide_myszkowski *t = g->t;
    const pair_view *view = g->view;
    size_t pixels = (size_t)view->width * (size_t)view->height;
    size_t words = (g->triangles[0] + g->triangles[1] + 31) / 32;
    glcollide_gl_buffer_reserve(t->work_buffer, &t->work_capacity, (COUNTER_WORDS + words) * 4);
    clear_words(t->work_buffer, 0, COUNTER_WORDS + words, 0);
    clear_words(t->pixel_buffer, 3 * pixels, 2 * pixels, 0xffffffffu);
    clear_words(t->pixel_buffer, 5 * pixels, 4 * pixels, 0);
    bind_buffers(t);
    glBindFramebuffer(GL_FRAMEBUFFER, t->framebuffer);
    glViewport(0, 0, view->width, view->height);
    glBindVertexArray(t->vertex_array);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glDepthMask(GL_FALSE);
    for (int pass = 0; pass < 2; pass++) {
        int which = pass ? PROGRAM_ITEM : PROGRAM_MINMAX;
        use_program(g, which);
        for (int object = 0; object < 2; object++) {
            set_uint(g, which, "object", (GLuint)object);
            draw(g, which, object);
        }
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
    }
    use_program(g, PROGRAM_CLASSIFY);
    set_int(g, PROGRAM_CLASSIFY, "stage", 4);
    glUniform1f(glGetUniformLocation(t->programs[PROGRAM_CLASSIFY], "zone"),
                (float)(zone / view->depth));
    set_uint(g, PROGRAM_CLASSIFY, "triangles_a", (GLuint)g->triangles[0]);
    dispatch(g);
    uint32_t *bits = glcollide_alloc_array(COUNTER_WORDS + words, sizeof(uint32_t));
    if (!bits)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "myszkowski: out of memory");
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, t->work_buffer);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)((COUNTER_WORDS + words) * 4),
                       bits);
    g->stats->gpu_syncs++;
    g->stats->readback_bytes += (COUNTER_WORDS + words) * 4;
    int status = glcollide_gl_check("myszkowski item buffer");
    double tensor[9] = {0}; /* sum of area * n n^T over flagged polygons (n unit) */
    size_t flagged = 0;
    for (size_t k = 0; status == GLCOLLIDE_OK && k < g->triangles[0] + g->triangles[1]; k++) {
        if (!(bits[COUNTER_WORDS + k / 32] >> (k % 32) & 1u))
            continue;
        const solid *s = k < g->triangles[0] ? a : b;
        size_t tri = k < g->triangles[0] ? k : k - g->triangles[0];
        const uint32_t *v = s->mesh->triangles + 3 * tri;
        double e1[3], e2[3], n[3];
        glcollide_vec3_sub(e1, s->positions + 3 * (size_t)v[1], s->positions + 3 * (size_t)v[0]);
        glcollide_vec3_sub(e2, s->positions + 3 * (size_t)v[2], s->positions + 3 * (size_t)v[0]);
        glcollide_vec3_cross(n, e1, e2);
        double area = glcollide_vec3_normalise(n); /* twice the area: the weight */
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                tensor[3 * r + c] += area * n[r] * n[c];
        flagged++;
    }
    free(bits);
    glcollide_log_debug("myszkowski: %zu polygons in the contact zone", flagged);
    /* Normals averaged as lines (a normal and its opposite give the same
     * projection): the dominant eigenvector of the tensor, by power
     * iteration from its largest column. Summing normals turned toward the
     * current view instead cancels where they cross the view plane. */
    double x[3] = {0, 0, 0}, best = 0;
    for (int c = 0; c < 3; c++) {
        double column[3] = {tensor[c], tensor[3 + c], tensor[6 + c]};
        double norm = sqrt(glcollide_vec3_dot(column, column));
        if (norm > best) {
            best = norm;
            memcpy(x, column, sizeof x);
        }
    }
    for (int iteration = 0; iteration < 64 && best > 0; iteration++) {
        double y[3];
        for (int r = 0; r < 3; r++)
            y[r] = tensor[3 * r] * x[0] + tensor[3 * r + 1] * x[1] + tensor[3 * r + 2] * x[2];
        if (glcollide_vec3_normalise(y) == 0)
            break;
        memcpy(x, y, sizeof x);
    }
    if (status == GLCOLLIDE_OK && flagged && glcollide_vec3_normalise(x) > 0 &&
        isfinite(x[0] + x[1] + x[2])) {
        memcpy(refined, x, sizeof x);
        *changed = 1;
    }
    return status;
}

/* Renderings 1 and 2 (stage): A's farthest (1) or nearest (2) depth into a
 * cleared depth buffer, marking the pixels it covers (SA) in stencil bit 7 and,
 * in stage 2, counting A's surfaces at the pixels pass 1 sent on; then B's
 * surfaces counted in the low stencil bits where they lie at or before that
 * depth (stage 1) or strictly before it (stage 2); then the classification
 * of that stage, read back into g->counters. */
static int counting_pass(pair_gpu *g, int stage)
{
    glDepthMask(GL_TRUE);
    glStencilMask(0xff);
    glClearBufferfi(GL_DEPTH_STENCIL, 0, stage == 1 ? 0.0f : 1.0f, 0);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_STENCIL_TEST);
    use_program(g, PROGRAM_SURFACE);
    set_uint(g, PROGRAM_SURFACE, "require", stage == 1 ? 0 : STATE_SECOND);
    set_int(g, PROGRAM_SURFACE, "count_layers", stage == 2);
    glDepthFunc(stage == 1 ? GL_GREATER : GL_LESS);
    glStencilFunc(GL_ALWAYS, 0x80, 0xff);
    glStencilOp(GL_KEEP, GL_REPLACE, GL_REPLACE);
    glStencilMask(0x80);
    draw(g, PROGRAM_SURFACE, 0);
    set_uint(g, PROGRAM_SURFACE, "require", 0);
    set_int(g, PROGRAM_SURFACE, "count_layers", 0);
    glDepthMask(GL_FALSE);
    glDepthFunc(stage == 1 ? GL_LEQUAL : GL_LESS);
    glStencilFunc(GL_EQUAL, 0x80, 0x80);
    glStencilOp(GL_KEEP, GL_KEEP, GL_INCR);
    glStencilMask(0x7f);
    draw(g, PROGRAM_SURFACE, 1);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    use_program(g, PROGRAM_CLASSIFY);
    set_int(g, PROGRAM_CLASSIFY, "stage", stage);
    set_int(g, PROGRAM_CLASSIFY, "b_crossing", g->crossing[1]);
    classify(g);
    return read_counters(g);
}

/* The test on one view: passes 1, 2 and 3 as needed. */
static int run_test(pair_gpu *g, int full_map, glcollide_myszkowski_result *result)
{
    glcollide_myszkowski *t = g->t;
    size_t pixels = (size_t)g->view->width * (size_t)g->view->height;
    clear_words(t->work_buffer, 0, COUNTER_WORDS, 0);
    clear_words(t->pixel_buffer, 0, 2 * pixels, 0);
    bind_buffers(t);
    glBindFramebuffer(GL_FRAMEBUFFER, t->framebuffer);
    glViewport(0, 0, g->view->width, g->view->height);
    glBindVertexArray(t->vertex_array);
    glFrontFace(GL_CW); /* u x v = w: faces toward the viewer are clockwise on screen */

    /* Pass 1: Zmax of A with SA; B counted where Z_B <= Zmax(A) (test 2). */
    int status = counting_pass(g, 1);
    result->passes = 1;
    if (status != GLCOLLIDE_OK)
        return status;
    uint32_t *c = g->counters;
    int done = !full_map && c[C_COLLIDE1] > 0;
    if (!done && c[C_SECOND] > 0) {
        /* Pass 2 where marked: Zmin of A counting its surfaces (SA again),
         * then B counted where Z_B < Zmin(A) (test 3). */
        if ((status = counting_pass(g, 2)) != GLCOLLIDE_OK)
            return status;
        result->passes = 2;
        done = !full_map && c[C_COLLIDE2] > 0;
    }
    if (!done && c[C_CONCAVE] > 0) {
        if ((status = lists(g, 0)) != GLCOLLIDE_OK)
            return status;
        result->passes = 3;
    }
    result->covered_pixels = c[C_COVERED];
    result->collision_pass1 = c[C_COLLIDE1];
    result->second_pass = c[C_SECOND];
    result->collision_pass2 = c[C_COLLIDE2];
    result->not_pi_convex = c[C_NOT_PI_CONVEX];
    result->concave_pixels = c[C_CONCAVE];
    result->collision_concave = c[C_COLLIDE_CONCAVE];
    result->unresolved_pixels = c[C_UNRESOLVED];
    result->interference =
        c[C_COLLIDE1] + c[C_COLLIDE2] + c[C_COLLIDE_CONCAVE] + c[C_UNRESOLVED] > 0;
    return GLCOLLIDE_OK;
}

/* The distance map on one view: 2 draws + 1 dispatch, lists for the rest,
 * one readback of counters, distances and coverage. */
static int run_map(pair_gpu *g, glcollide_myszkowski_map *map)
{
    glcollide_myszkowski *t = g->t;
    size_t pixels = (size_t)g->view->width * (size_t)g->view->height;
    clear_words(t->work_buffer, 0, COUNTER_WORDS, 0);
    clear_words(t->pixel_buffer, 0, 3 * pixels, 0);
    clear_words(t->pixel_buffer, 3 * pixels, 2 * pixels, 0xffffffffu); /* min depths */
    clear_words(t->pixel_buffer, 5 * pixels, 4 * pixels, 0);           /* max depths, counts */
    bind_buffers(t);
    glBindFramebuffer(GL_FRAMEBUFFER, t->framebuffer);
    glViewport(0, 0, g->view->width, g->view->height);
    glBindVertexArray(t->vertex_array);
    glFrontFace(GL_CW);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glDepthMask(GL_FALSE);
    use_program(g, PROGRAM_MINMAX);
    for (int object = 0; object < 2; object++) {
        set_uint(g, PROGRAM_MINMAX, "object", (GLuint)object);
        draw(g, PROGRAM_MINMAX, object);
    }
    use_program(g, PROGRAM_CLASSIFY);
    set_int(g, PROGRAM_CLASSIFY, "stage", 3);
    dispatch(g);
    int status = lists(g, 1);
    if (status != GLCOLLIDE_OK)
        return status;
    uint32_t *words = glcollide_alloc_array(2 * pixels, sizeof(uint32_t));
    map->distance = glcollide_alloc_array(pixels, sizeof(float));
    map->coverage = malloc(pixels ? pixels : 1);
    if (!words || !map->distance || !map->coverage) {
        free(words);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "myszkowski: out of memory");
    }
    if ((status = read_counters(g)) == GLCOLLIDE_OK && g->counters[C_NODES] > t->max_nodes) {
        /* Too many surfaces for the list buffer: grown, lists again. */
        grow_nodes(g, g->counters[C_NODES]);
        status = lists(g, 0 /* reads the counters */);
        if (status == GLCOLLIDE_OK) {
            /* Lists were resolved for the decision; resolve the distances too. */
            use_program(g, PROGRAM_RESOLVE);
            set_int(g, PROGRAM_RESOLVE, "map", 1);
            dispatch(g);
        }
    }
    if (status == GLCOLLIDE_OK) {
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, t->pixel_buffer);
        glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)(9 * pixels * 4),
                           (GLsizeiptr)(2 * pixels * 4), words);
        g->stats->gpu_syncs++;
        g->stats->readback_bytes += 2 * pixels * 4;
        status = glcollide_gl_check("myszkowski map readback");
    }
    if (status == GLCOLLIDE_OK) {
        map->min_distance = INFINITY;
        for (size_t p = 0; p < pixels; p++) {
            float d;
            memcpy(&d, &words[p], sizeof d);
            map->coverage[p] = (unsigned char)words[pixels + p];
            map->distance[p] = (float)(d * g->view->depth);
            if (isfinite(map->distance[p]))
                map->min_distance = fmin(map->min_distance, map->distance[p]);
            map->listed_pixels += (words[pixels + p] & GLCOLLIDE_MYSZKOWSKI_LISTED) != 0;
            map->unresolved_pixels += (words[pixels + p] & GLCOLLIDE_MYSZKOWSKI_UNRESOLVED) != 0;
        }
    }
    free(words);
    return status;
}

/* ------------------------------------------------------------ entries */

/* GL storage per pixel: the depth/stencil texture and the pixel buffer's
 * words (3 for the test, 11 for the map, 15 with refine). */
static size_t bytes_per_pixel(size_t pixel_words)
{
    return 8 + 4 * pixel_words;
}

/* A mesh that is not closed is named before the GPU sees it. *crossing: it
 * passes through itself (a solid still, where it winds; the passes then
 * count windings). */
static int check_solid(const glcollide_mesh *mesh, uint32_t object, int *crossing)
{
    const char *name = mesh->name ? mesh->name : "mesh";
    glcollide_mesh_report report;
    int status = glcollide_mesh_validate(mesh, &report);
    if (status != GLCOLLIDE_OK)
        return status;
    if (!report.closed)
        return glcollide_fail(
            GLCOLLIDE_ERROR_INVALID_MESH,
            "myszkowski: object %u (%s) is not a closed solid: %zu boundary, %zu "
            "non-manifold, %zu misoriented edges, %zu degenerate triangles, signed "
            "volume %g",
            object, name, report.boundary_edges, report.nonmanifold_edges, report.misoriented_edges,
            report.degenerate_triangles, report.signed_volume);
    size_t crossings = 0;
    status = glcollide_mesh_self_intersections(mesh, &crossings, NULL);
    *crossing = crossings > 0;
    return status;
}

static int check_options(const glcollide_myszkowski_options *options)
{
    if (options->resolution < 16 || options->resolution > 4096)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "myszkowski: resolution %d outside 16..4096", options->resolution);
    for (int k = 0; k < 3; k++)
        if (!isfinite(options->direction[k]))
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                                  "myszkowski: direction must be finite");
    if (!(options->margin >= 0) || !isfinite(options->margin))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "myszkowski: margin must be finite and >= 0, got %g",
                              options->margin);
    return GLCOLLIDE_OK;
}

/* The GPU's part of pair_run: A and B drawn in view (which refine may
 * change), then the test's passes or the map. */
static int gpu_run(glcollide_myszkowski *t, const solid *s_i, const solid *s_j, const solid *a,
                   const solid *b, const glcollide_myszkowski_options *options, pair_view *view,
                   glcollide_myszkowski_result *result, glcollide_myszkowski_map *map)
{
    double margin = map ? options->margin : 0;
    size_t pixels = (size_t)view->width * (size_t)view->height;
    int status = glcollide_context_make_current(t->context);
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_gl_state saved;
    glcollide_gl_state_save(&saved);
    glcollide_gl_state_reset();
    int refine = options->refine &&
                 !(options->direction[0] || options->direction[1] || options->direction[2]);
    status = upload(t, a, b, view, (refine ? 15 : map ? 11 : 3) * pixels);
    pair_gpu g = {.t = t,
                  .view = view,
                  .triangles = {a->mesh->triangle_count, b->mesh->triangle_count},
                  .crossing = {a->crossing, b->crossing},
                  .stats = result ? &result->stats : &map->stats};
    if (status == GLCOLLIDE_OK && refine) {
        /* The zone: where the gap is below the margin (or 4 pixels). */
        double refined[3] = {0, 0, 0}, zone = fmax(options->margin, 4 * view->pixel);
        int changed = 0;
        status = refine_direction(&g, a, b, zone, refined, &changed);
        pair_view again;
        if (status == GLCOLLIDE_OK && changed &&
            choose_view(s_i, s_j, refined, margin, options->resolution, &again)) {
            *view = again;
            pixels = (size_t)view->width * (size_t)view->height;
            /* Same objects, new view: positions again relative to its origin. */
            status = upload(t, a, b, view, (map ? 11 : 3) * pixels);
            if (result)
                result->refined = 1;
            else
                map->refined = 1;
        }
    }
    if (status == GLCOLLIDE_OK)
        status = map ? run_map(&g, map) : run_test(&g, options->full_map, result);
    glcollide_gl_state_restore(&saved);
    if (status == GLCOLLIDE_OK)
        status = glcollide_gl_check("myszkowski");
    return status;
}

/* The CPU twin's map: a ray cast through each pixel centre of map (its
 * view filled in), A = a. */
static int cpu_map(glcollide_myszkowski *t, const solid *a, const solid *b,
                   glcollide_myszkowski_map *map)
{
    size_t pixels = (size_t)map->width * (size_t)map->height;
    map->distance = glcollide_alloc_array(pixels ? pixels : 1, sizeof(float));
    map->coverage = malloc(pixels ? pixels : 1);
    if (!map->distance || !map->coverage)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "myszkowski: out of memory");
    const glcollide_mesh *meshes[2] = {a->mesh, b->mesh};
    const double *positions[2] = {a->positions, b->positions};
    int status = glcollide_map_rays_prepare(&t->rays, meshes, positions, map->corner, map->axis_u,
                                            map->axis_v, map->direction);
    map->min_distance = INFINITY;
    for (size_t p = 0; p < pixels && status == GLCOLLIDE_OK; p++) {
        glcollide_map_ray ray;
        double x = ((double)(p % (size_t)map->width) + 0.5) * map->pixel_size;
        double y = ((double)(p / (size_t)map->width) + 0.5) * map->pixel_size;
        status = glcollide_map_rays_cast(&t->rays, x, y, 0, &ray);
        map->distance[p] = (float)ray.distance;
        map->coverage[p] = (unsigned char)ray.coverage;
        if (isfinite(map->distance[p]))
            map->min_distance = fmin(map->min_distance, map->distance[p]);
    }
    return status;
}

/* One pair in world space: the view, then the test's passes or the map (on
 * the GPU, or the map by ray casting for the CPU twin; the twin's test is
 * answered by the caller). */
static int pair_run(glcollide_myszkowski *t, const solid *s_i, const solid *s_j,
                    const glcollide_myszkowski_options *options,
                    glcollide_myszkowski_result *result, glcollide_myszkowski_map *map)
{
    if (!s_i->mesh->triangle_count || !s_j->mesh->triangle_count)
        return GLCOLLIDE_OK; /* nothing to interfere with */
    pair_view view;
    double margin = map ? options->margin : 0;
    if (!choose_view(s_i, s_j, options->direction, margin, options->resolution, &view))
        return GLCOLLIDE_OK; /* the boxes do not meet */
    /* A: the nearer along the view (the paper's initial guess). */
    double ci[3], cj[3], mid[3];
    for (int k = 0; k < 3; k++)
        mid[k] = 0.5 * (s_i->local_min[k] + s_i->local_max[k]);
    to_world(s_i, mid, ci);
    for (int k = 0; k < 3; k++)
        mid[k] = 0.5 * (s_j->local_min[k] + s_j->local_max[k]);
    to_world(s_j, mid, cj);
    /* A: the convex one if only one is (then every pixel is decided by
     * passes 1 and 2), else the one that passes through itself if only one
     * does (B's counts then keep their parity meaning: odd inside, even
     * outside), else the nearer along the view (the initial guess). */
    int swapped = !map && (s_i->convex != s_j->convex ? s_j->convex
                           : s_i->crossing != s_j->crossing
                               ? s_j->crossing
                               : glcollide_vec3_dot(cj, view.w) < glcollide_vec3_dot(ci, view.w));
    const solid *a = swapped ? s_j : s_i, *b = swapped ? s_i : s_j;
    int status =
        t->context ? gpu_run(t, s_i, s_j, a, b, options, &view, result, map) : GLCOLLIDE_OK;
    if (result) {
        result->swapped = swapped;
        result->width = view.width;
        result->height = view.height;
        memcpy(result->direction, view.w, sizeof view.w);
        result->pixel_size = view.pixel;
        result->depth_range = view.depth;
        /* Float positions and depths, and the rasterizer's vertex snapping:
         * a sample may sit a snap step off its surface on each side. The
         * CPU twin is exact. */
        result->tolerance = t->context ? 1e-5 * view.extent + 2 * sqrt(2.0) * view.pixel *
                                                                  ldexp(1.0, -t->subpixel_bits)
                                       : 0;
    } else {
        map->width = view.width;
        map->height = view.height;
        memcpy(map->direction, view.w, sizeof view.w);
        memcpy(map->axis_u, view.u, sizeof view.u);
        memcpy(map->axis_v, view.v, sizeof view.v);
        for (int k = 0; k < 3; k++)
            map->corner[k] =
                view.origin[k] + view.u0 * view.u[k] + view.v0 * view.v[k] + view.w0 * view.w[k];
        map->pixel_size = view.pixel;
        map->depth_range = view.depth;
        map->depth_step = view.depth * 0x1p-24;
        map->position_step =
            t->context ? fmax(view.pixel * ldexp(1.0, -t->subpixel_bits), 4 * view.extent * 0x1p-24)
                       : 0;
        if (status == GLCOLLIDE_OK && !t->context)
            status = cpu_map(t, s_i, s_j, map);
    }
    return status;
}

/* A mesh's world positions, every one finite. */
static int check_finite(const double *positions, size_t vertex_count, uint32_t object,
                        const glcollide_mesh *mesh)
{
    for (size_t k = 0; k < 3 * vertex_count; k++)
        if (!isfinite(positions[k]))
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                  "myszkowski: object %u (%s) has non-finite coordinates", object,
                                  mesh->name ? mesh->name : "mesh");
    return GLCOLLIDE_OK;
}

/*
 * Objects objects[0] and objects[1] of world (checked), named names[0] and
 * names[1] in messages: the solids checked (the world keeps the answer
 * until the mesh changes), placed, and the pair run; the CPU twin answers
 * the test with the exact method's pair test.
 */
static int world_pair(glcollide_myszkowski *t, glcollide_world *world,
                      const glcollide_world_space *placed, const uint32_t objects[2],
                      const uint32_t names[2], const glcollide_myszkowski_options *options,
                      glcollide_myszkowski_result *result, glcollide_myszkowski_map *map)
{
    double start = glcollide_now_ms();
    int status = check_options(options);
    if (status == GLCOLLIDE_OK && t->context)
        status = glcollide_context_check_resolution(
            t->context, "myszkowski", options->resolution,
            bytes_per_pixel(map ? (options->refine ? 15 : 11) : 3));
    unsigned what = options->check_solids ? GLCOLLIDE_WORLD_SOLIDS | GLCOLLIDE_WORLD_CROSSING : 0;
    if (!t->context && result)
        what |= GLCOLLIDE_WORLD_BVH | GLCOLLIDE_WORLD_SOLIDS; /* the exact pair test's */
    solid solids[2];
    for (int f = 0; f < 2 && status == GLCOLLIDE_OK; f++) {
        const glcollide_object *pose = &world->objects[objects[f]];
        glcollide_world_mesh_entry *entry = &world->meshes[pose->mesh];
        int crossing = 0; /* without check_solids: taken as simple, as the caller says */
        status = glcollide_world_prepare_mesh(world, pose->mesh, what);
        if (status == GLCOLLIDE_OK && options->check_solids && entry->solid != 1)
            status = check_solid(entry->mesh, names[f], &crossing); /* names the defects */
        if (status != GLCOLLIDE_OK)
            break;
        crossing = options->check_solids && entry->crossing == 1;
        const double *positions = placed ? placed->objects[objects[f]].positions : NULL;
        if (!positions) { /* placed here, into the tester's buffers */
            size_t n = 3 * entry->mesh->vertex_count;
            status = glcollide_array_reserve((void **)&t->positions[f], &t->position_capacity[f],
                                             n ? n : 1, sizeof(double), "myszkowski");
            if (status != GLCOLLIDE_OK)
                break;
            glcollide_pose_transform_points(&pose->pose, entry->mesh->positions,
                                            entry->mesh->vertex_count, t->positions[f]);
            positions = t->positions[f];
        }
        status = check_finite(positions, entry->mesh->vertex_count, names[f], entry->mesh);
        solid_init(&solids[f], entry, crossing, pose, positions);
    }
    if (status == GLCOLLIDE_OK)
        status = pair_run(t, &solids[0], &solids[1], options, result, map);
    if (status == GLCOLLIDE_OK && result && !t->context && solids[0].mesh->triangle_count &&
        solids[1].mesh->triangle_count) {
        glcollide_query_result exact = {0};
        status = glcollide_query_exact_pair(world, objects[0], objects[1], 0, 0, &exact,
                                            &result->interference);
        result->stats.triangle_tests = exact.stats.triangle_tests;
    }
    glcollide_query_stats *stats = result ? &result->stats : &map->stats;
    stats->time_ms = glcollide_now_ms() - start;
    return status;
}

/* The result or map emptied (keeping the stats) where the run failed. */
static int pair_finish(int status, glcollide_myszkowski_result *result,
                       glcollide_myszkowski_map *map)
{
    if (status == GLCOLLIDE_OK)
        return status;
    if (result) {
        glcollide_query_stats stats = result->stats;
        memset(result, 0, sizeof *result);
        result->stats = stats;
    }
    glcollide_myszkowski_map_clear(map);
    return status;
}

/* The result or map zeroed before a run; NULL refused. */
static int pair_begin(void *out, size_t size, const char *what)
{
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "myszkowski: %s is NULL", what);
    memset(out, 0, size);
    return GLCOLLIDE_OK;
}

/* Objects i and j of world, checked. */
static int world_entry(glcollide_myszkowski *tester, glcollide_world *world, uint32_t i, uint32_t j,
                       const glcollide_myszkowski_options *options,
                       glcollide_myszkowski_result *result, glcollide_myszkowski_map *map)
{
    if (!tester || !world || !options)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "myszkowski: tester, world or options is NULL");
    if (i == j || i >= world->object_count || j >= world->object_count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "myszkowski: objects %u and %u: need two distinct objects of %zu", i,
                              j, world->object_count);
    const uint32_t objects[2] = {i, j};
    return world_pair(tester, world, NULL, objects, objects, options, result, map);
}

int glcollide_myszkowski_test(glcollide_myszkowski *tester, glcollide_world *world, uint32_t i,
                              uint32_t j, const glcollide_myszkowski_options *options,
                              glcollide_myszkowski_result *result)
{
    int status = pair_begin(result, sizeof *result, "result");
    if (status == GLCOLLIDE_OK)
        status = pair_finish(world_entry(tester, world, i, j, options, result, NULL), result, NULL);
    return status;
}

int glcollide_myszkowski_distance_map(glcollide_myszkowski *tester, glcollide_world *world,
                                      uint32_t i, uint32_t j,
                                      const glcollide_myszkowski_options *options,
                                      glcollide_myszkowski_map *map)
{
    int status = pair_begin(map, sizeof *map, "map");
    if (status == GLCOLLIDE_OK)
        status = pair_finish(world_entry(tester, world, i, j, options, NULL, map), NULL, map);
    return status;
}

int glcollide_query_convex(glcollide_world *persistent, glcollide_context *context,
                           const glcollide_query_options *options, glcollide_query_result *result)
{
    if (options->distance > 0)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "query: method 'convex' answers interference only (no --distance)");
    if (options->level != GLCOLLIDE_LEVEL_OBJECTS)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "query: method 'convex' answers object pairs only (no --level "
                              "triangles)");
    if (options->resolution > 4096)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "query: method 'convex' takes resolutions up to 4096, got %d",
                              options->resolution);
    int status = glcollide_context_check_resolution(context, "convex", options->resolution,
                                                    bytes_per_pixel(3));
    if (status != GLCOLLIDE_OK)
        return status;
    const glcollide_world_space *world = NULL;
    if ((status = glcollide_world_space_get(persistent, &world)) != GLCOLLIDE_OK)
        return status;
    glcollide_pair_list candidates = {0};
    status = glcollide_query_box_pairs(options, world->bounds, world->object_count, 0, &candidates,
                                       NULL);
    if (status != GLCOLLIDE_OK)
        return status;
    result->stats.aabb_pairs = candidates.count;
    /* Each pair as glcollide_myszkowski_test_world answers it: the solid
     * checks are the world's, made once per mesh and kept until it changes,
     * and the world positions those the world keeps per object (placed once
     * per change, not once per pair). */
    glcollide_myszkowski *tester = NULL;
    if (candidates.count)
        status = glcollide_myszkowski_create(context, &tester);
    glcollide_myszkowski_options pair_options = glcollide_myszkowski_default_options();
    pair_options.resolution = options->resolution;
    for (size_t k = 0; k < candidates.count && status == GLCOLLIDE_OK; k++) {
        const uint32_t pair[2] = {candidates.pairs[k].a, candidates.pairs[k].b};
        glcollide_myszkowski_result found;
        memset(&found, 0, sizeof found);
        status = world_pair(tester, persistent, world, pair, pair, &pair_options, &found, NULL);
        result->stats.candidates++;
        result->stats.draw_calls += found.stats.draw_calls;
        result->stats.gpu_syncs += found.stats.gpu_syncs;
        result->stats.readback_bytes += found.stats.readback_bytes;
        result->stats.triangles_rasterized += found.stats.triangles_rasterized;
        if (status == GLCOLLIDE_OK && found.interference)
            status = glcollide_result_add_pair(result, pair[0], pair[1]);
    }
    glcollide_myszkowski_destroy(&tester);
    glcollide_pair_list_clear(&candidates);
    return status;
}
