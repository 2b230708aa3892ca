/* SPDX-License-Identifier: MIT */
/*
 * Particle cloud against a complex solid: simplicial covering and tetra-tree
 * (Jimenez, Ogayar, Segura, Feito). See include/glcollide/tetra_tree.h.
 *
 * Covering. Triangle (a, b, c) of the mesh gives the tetrahedron
 * T = (V0, a, b, c) with sign s = orient3d(a, b, c, V0) (+1 when V0 is on
 * the inner side of the outward face). For a point P the barycentric signs,
 * multiplied by s so that all are > 0 strictly inside T, are
 *   l0 = s orient3d(a, b, c, P)    outer face (the mesh triangle)
 *   l1 = s orient3d(V0, c, b, P)   inner face V0 b c (mesh edge b-c)
 *   l2 = s orient3d(V0, a, c, P)   inner face V0 c a (mesh edge c-a)
 *   l3 = s orient3d(V0, b, a, P)   inner face V0 a b (mesh edge a-b)
 * For P on no face of any tetrahedron, sum of s over the tetrahedra
 * containing P is the winding number (1 inside a solid, 0 outside).
 *
 * Algorithm 1 (doubled so that it stays in integers), for the tetrahedra of
 * P's tetra-cone, with the paper's cases and how each is made exact:
 *  a. P on the outer face (l0 = 0, others >= 0): P is on the surface: IN.
 *     The paper returns IN on the edges of the covered polygon and adds
 *     2s on the rest of the face, which classifies face points like points
 *     just on V0's side of them: OUT on faces with s = -1. glcollide's
 *     convention (that of glcollide_point_in_mesh) is surface = inside, so
 *     the whole closed triangle returns IN, as the paper's edges do.
 *  b. strictly inside: sum += 2s.
 *  c. on one inner face (one zero among l1..l3): sum += s. The inner face
 *     V0 b c is shared by exactly two tetrahedra (those of the two
 *     triangles at mesh edge b-c): with equal signs they lie on either side
 *     of it and points near P are in one of them; with opposite signs on
 *     the same side, in both or neither; either way the pair adds
 *     (s1 + s2) / 2 for each half. Where the other tetrahedron is flat
 *     (V0 in its triangle's plane) the pairing fails, and T counts as the
 *     perturbed point below says.
 *  d. on an inner edge V0-C (two zeros) or at V0 (three): a feature shared
 *     by all tetrahedra of the triangles around vertex C, counted once
 *     (the paper's sets of positive and negative features). The paper adds
 *     +2 once if a positive tetrahedron has it and -2 once if a negative
 *     one has: right when the fan around C has one sign, wrong where the
 *     surface folds over as seen from V0 (it can wind once round C with
 *     both signs). Here the feature adds 2 w_C, w_C the fan's exact
 *     contribution, computed once per vertex when the tree is built (equal
 *     to the paper's value on fans of one sign). At V0 the answer is the
 *     inclusion of V0, computed at build time (the paper's fragment program
 *     does the same: "oResult.r = v0.w").
 *  IN iff sum != 0: sum / 2 is the winding number (2 on a solid, as the
 *  paper), and nonzero is the rule of glcollide_point_in_mesh, which also
 *  holds where a closed mesh passes through itself (winding 2 or -1 there;
 *  the paper's parity would call those parts outside).
 * The exact values (the fan contributions, unpaired inner faces, V0) come
 * from symbolic perturbation: P is moved to P + e x + e^2 y + e^3 z for an
 * infinitesimal e, which lies in no plane, so the covering sum there is the
 * winding number; off the surface it equals P's. A zero l_i turns into the
 * sign of minus the first non-zero component of its face's normal, an exact
 * 2D orientation (glcollide_orient2d_dropping).
 *
 * Signs: a double-precision filter (face planes relative to V0, a proven
 * error bound) decides almost all; exact glcollide_orient3d the rest.
 *
 * Tetra-tree. The 8 octants around V0 are tetra-cones spanned by
 * +-x, +-y, +-z; a tetra-cone (g1, g2, g3) splits into (g1, m12, m31),
 * (m12, g2, m23), (m31, m23, g3), (m12, m23, m31) with mij = gi + gj. The
 * generators are integer vectors, so the planes (normals gi x gj, the same
 * for a plane at every level) are exact in double and float (depth <= 10).
 * A tetrahedron belongs to each cone its triangle meets (then it meets the
 * cone wherever it contains a point other than V0), tested by clipping the
 * triangle against the cone's planes moved out by 2^-16 of the triangle's
 * distance: a point whose direction is within that angle of a cone (float
 * rounding on the GPU is below 2^-20) finds every tetrahedron containing it
 * in that cone. Each cone keeps a bounding plane (the face g1 g2 g3 of its
 * tetrahedron pushed out to the farthest vertex of its triangles): beyond
 * it, no tetrahedron of the cone contains the point.
 *
 * GPU. One compute dispatch: each invocation locates its particle (octant,
 * then 3 plane signs per level, or last frame's cone if the particle is
 * still in it), checks the bounding plane, and tests the cone's
 * tetrahedra: 4 plane values n.p + d in float, each with an error bound
 * 2^-18 (|n|.|p| + |d|) for the float rounding of n, d, p and the dot
 * product, plus 2^-46 sigma (|p| + r) for the double rounding of n and d
 * (sigma bounds the cancellation in the face normal, r the face's distance
 * from V0): the float value has the exact sign whenever it is larger. A
 * tetrahedron excluded by one certain sign is skipped; one certainly
 * containing the point adds 2s; anything else (the point within the bound
 * of a plane, i.e. cases a, c, d and their float neighbourhood) flags the
 * particle, and the CPU classifies it exactly. Results: an inside bit and
 * an uncertain bit per particle, read back once.
 *
 * The object made without a context is the CPU twin: the CPU path above,
 * with the particles' cones kept in the object. The world entry takes
 * world points into the mesh's space by the inverse pose (in double) and
 * classifies those points.
 */
#include "gpu/gl_internal.h"
#include "geometry/predicates.h"
#include "gpu/shaders.h"
#include "world/world.h"

#include <glcollide/tetra_tree.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE 0xffffffffu
#define MAX_DEPTH 10
/* Angular margin of the tet-in-cone test (see above). */
#define CONE_MARGIN 0x1p-16
/* Error bound factors of the plane values: 128 and 64 units in the last place. */
#define FILTER_DOUBLE 0x1p-46
#define FILTER_FLOAT 0x1p-18
#define DOUBLE_OVER_FLOAT 0x1p-28 /* FILTER_DOUBLE / FILTER_FLOAT */
#define GPU_GROUP 64
#define TET_SLOTS 5  /* uvec4 per tetrahedron on the GPU */
#define NODE_SLOTS 4 /* uvec4 per node on the GPU */
#define HEADER_WORDS 4

/* A plane value v(u) = n.u + d for u = P - V0, with |error| <= K (sigma |u|inf + sigma_r). */
typedef struct tetra_plane {
    double n[3], d;
    double sigma, sigma_r;
} tetra_plane;

/* Read first to last when a particle is tested (the sign, the planes), so
 * that a tetrahedron costs one cache miss. */
typedef struct tetra {
    int sign;        /* s; 0: flat (plane[0] is then the triangle's plane) */
    unsigned paired; /* bit i (1..3): inner face i is shared with a tetrahedron that is not flat */
    tetra_plane plane[4];          /* l0..l3, sign folded in: > 0 strictly inside */
    uint32_t vertex[3];            /* a, b, c */
    double box_min[3], box_max[3]; /* of the triangle relative to V0 (flat ones on the GPU) */
} tetra;

/* 48 bytes: the descent touches one node per level. */
typedef struct tetra_node {
    float nb[3], db;       /* bounding plane: nb.u <= db on every tetrahedron of the node
                              (nb: integers below 2^24, exact; db rounded up) */
    uint32_t child;        /* first of 4 children; NONE for a leaf */
    uint32_t first, count; /* a leaf's tetrahedra in leaf_tets */
    int16_t g[3][3];       /* generators, positively oriented (|component| <= 2^MAX_DEPTH) */
    uint8_t depth;
} tetra_node;

/* x rounded to float, up (for bounds). */
static float float_up(double x)
{
    float f = (float)x;
    if ((double)f < x)
        f = nextafterf(f, INFINITY);
    return f;
}

static void node_generators(const tetra_node *nd, int32_t g[3][3])
{
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++)
            g[j][k] = nd->g[j][k];
}

static void set_generators(tetra_node *nd, const int32_t *g0, const int32_t *g1, const int32_t *g2)
{
    const int32_t *g[3] = {g0, g1, g2};
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++)
            nd->g[j][k] = (int16_t)g[j][k];
}

struct glcollide_tetra_tree {
    double origin[3];
    double *positions; /* copies of the mesh */
    uint32_t *triangles;
    size_t vertex_count, triangle_count;
    tetra *tets;
    int8_t *fan_winding; /* w_C per vertex */
    tetra_node *nodes;
    size_t node_count, node_capacity;
    uint32_t *leaf_tets;
    size_t leaf_tet_count, leaf_tet_capacity;
    double extent; /* max |v - V0|inf over vertices */
    glcollide_tetra_tree_info info;
    char *name;
};

glcollide_tetra_tree_options glcollide_tetra_tree_default_options(void)
{
    glcollide_tetra_tree_options options = {
        .max_depth = 8,
        .min_tetrahedra = 16,
        .use_origin = 0,
        .origin = {0, 0, 0},
        .check_self_intersections = 0,
    };
    return options;
}

/* ------------------------------------------------------------ small helpers */

static double max_abs3(const double v[3])
{
    return fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
}

static double norm1(const double v[3])
{
    return fabs(v[0]) + fabs(v[1]) + fabs(v[2]);
}

static const double *vertex_of(const glcollide_tetra_tree *tree, uint32_t v)
{
    return tree->positions + 3 * (size_t)v;
}

/* The three points (x, y, z) of face i of tetrahedron t, so that
 * l_i = s orient3d(x, y, z, P). */
static void face_points(const glcollide_tetra_tree *tree, const tetra *t, int i, const double *f[3])
{
    const double *o = tree->origin;
    const double *a = vertex_of(tree, t->vertex[0]), *b = vertex_of(tree, t->vertex[1]),
                 *c = vertex_of(tree, t->vertex[2]);
    switch (i) {
    case 0: f[0] = a, f[1] = b, f[2] = c; break;
    case 1: f[0] = o, f[1] = c, f[2] = b; break;
    case 2: f[0] = o, f[1] = a, f[2] = c; break;
    default: f[0] = o, f[1] = b, f[2] = a; break;
    }
}

/* Exact sign of l_i at p. */
static int exact_sign(const glcollide_tetra_tree *tree, const tetra *t, int i, const double p[3])
{
    const double *f[3];
    face_points(tree, t, i, f);
    return t->sign * glcollide_orient3d(f[0], f[1], f[2], p);
}

/* Sign of l_i at the perturbed point P + e x + e^2 y + e^3 z where l_i(P) = 0:
 * orient3d(x, y, z, .) has gradient -(y - x) x (z - x). Never 0 for a face of
 * a tetrahedron that is not flat. */
static int perturbed_sign(const glcollide_tetra_tree *tree, const tetra *t, int i)
{
    const double *f[3];
    face_points(tree, t, i, f);
    for (int k = 0; k < 3; k++) {
        int component = glcollide_orient2d_dropping(f[0], f[1], f[2], k);
        if (component)
            return -t->sign * component;
    }
    return 0;
}

/* Is p, in the plane of triangle abc (not degenerate), on the closed triangle? */
static int on_triangle(const double a[3], const double b[3], const double c[3], const double p[3])
{
    int k = glcollide_triangle_drop_axis(a, b, c);
    if (k < 0)
        return 0;
    int side = glcollide_orient2d_dropping(a, b, c, k);
    int o1 = glcollide_orient2d_dropping(a, b, p, k);
    int o2 = glcollide_orient2d_dropping(b, c, p, k);
    int o3 = glcollide_orient2d_dropping(c, a, p, k);
    return (o1 == 0 || o1 == side) && (o2 == 0 || o2 == side) && (o3 == 0 || o3 == side);
}

/* ------------------------------------------------------------ covering */

/* Plane through f0 f1 f2 (relative to V0) as v(u) = -n.u + n.f0' times sign, with its bound. */
static void make_plane(const double origin[3], const double *f[3], int sign, tetra_plane *plane)
{
    double e1[3], e2[3], n[3], a[3];
    glcollide_vec3_sub(e1, f[1], f[0]);
    glcollide_vec3_sub(e2, f[2], f[0]);
    glcollide_vec3_cross(n, e1, e2);
    glcollide_vec3_sub(a, f[0], origin);
    double s = sign ? (double)sign : 1.0;
    for (int k = 0; k < 3; k++)
        plane->n[k] = -s * n[k];
    plane->d = s * glcollide_vec3_dot(n, a);
    plane->sigma = 2.0 * max_abs3(e1) * max_abs3(e2);
    plane->sigma_r = plane->sigma * max_abs3(a);
}

static double plane_value(const tetra_plane *plane, const double u[3])
{
    return plane->n[0] * u[0] + plane->n[1] * u[1] + plane->n[2] * u[2] + plane->d;
}

static double plane_bound(const tetra_plane *plane, double u_max)
{
    return FILTER_DOUBLE * (plane->sigma * u_max + plane->sigma_r);
}

typedef struct half_edge {
    uint32_t from, to, triangle;
} half_edge;

static int half_edge_compare(const void *x, const void *y)
{
    const half_edge *a = x, *b = y;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    if (a->to != b->to)
        return a->to < b->to ? -1 : 1;
    return 0;
}

static int build_covering(glcollide_tetra_tree *tree)
{
    size_t n = tree->triangle_count;
    const double *o = tree->origin;
    tree->tets = glcollide_alloc_array(n, sizeof *tree->tets);
    tree->fan_winding = calloc(tree->vertex_count ? tree->vertex_count : 1, 1);
    half_edge *edges = glcollide_alloc_array(3 * n, sizeof *edges);
    int *winding = calloc(tree->vertex_count ? tree->vertex_count : 1, sizeof *winding);
    if (!tree->tets || !tree->fan_winding || !edges || !winding) {
        free(edges);
        free(winding);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "tetra-tree: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        tetra *t = &tree->tets[i];
        memset(t, 0, sizeof *t);
        for (int k = 0; k < 3; k++)
            t->vertex[k] = tree->triangles[3 * i + k];
        const double *a = vertex_of(tree, t->vertex[0]), *b = vertex_of(tree, t->vertex[1]),
                     *c = vertex_of(tree, t->vertex[2]);
        t->sign = glcollide_orient3d(a, b, c, o);
        for (int f = 0; f < 4; f++) {
            const double *p[3];
            face_points(tree, t, f, p);
            make_plane(o, p, t->sign, &t->plane[f]);
        }
        for (int k = 0; k < 3; k++) {
            t->box_min[k] = fmin(a[k], fmin(b[k], c[k])) - o[k];
            t->box_max[k] = fmax(a[k], fmax(b[k], c[k])) - o[k];
        }
        if (t->sign > 0)
            tree->info.positive++;
        else if (t->sign < 0)
            tree->info.negative++;
        else
            tree->info.degenerate++;
        for (int k = 0; k < 3; k++)
            edges[3 * i + k] = (half_edge){t->vertex[k], t->vertex[(k + 1) % 3], (uint32_t)i};
    }
    /* Inner face l1 is edge b-c, l2 c-a, l3 a-b: paired when the triangle
     * across that edge (the half-edge the other way) is not flat. */
    qsort(edges, 3 * n, sizeof *edges, half_edge_compare);
    static const int edge_of_face[4] = {-1, 1, 2, 0}; /* l_i -> k of edge (v[k], v[k+1]) */
    for (size_t i = 0; i < n; i++) {
        tetra *t = &tree->tets[i];
        for (int f = 1; f <= 3 && t->sign; f++) {
            int k = edge_of_face[f];
            half_edge key = {t->vertex[(k + 1) % 3], t->vertex[k], 0};
            const half_edge *other = bsearch(&key, edges, 3 * n, sizeof *edges, half_edge_compare);
            if (other && tree->tets[other->triangle].sign)
                t->paired |= 1u << f;
        }
    }
    free(edges);
    /* Fan contributions: P on the open edge V0-C of every tetrahedron at C
     * has the two l's of the other corners at 0; the perturbed point is
     * inside when both perturbed signs are positive. */
    unsigned char *fan_signs = calloc(tree->vertex_count ? tree->vertex_count : 1, 1);
    if (!fan_signs) {
        free(winding);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "tetra-tree: out of memory");
    }
    static const int zero_faces[3][2] = {{2, 3}, {1, 3}, {1, 2}}; /* corner a, b, c */
    for (size_t i = 0; i < n; i++) {
        const tetra *t = &tree->tets[i];
        if (!t->sign)
            continue;
        int perturbed[4];
        for (int f = 1; f <= 3; f++)
            perturbed[f] = perturbed_sign(tree, t, f);
        for (int k = 0; k < 3; k++) {
            uint32_t v = t->vertex[k];
            fan_signs[v] |= t->sign > 0 ? 1 : 2;
            if (perturbed[zero_faces[k][0]] > 0 && perturbed[zero_faces[k][1]] > 0)
                winding[v] += t->sign;
        }
    }
    for (size_t v = 0; v < tree->vertex_count; v++) {
        if (winding[v] < -127 || winding[v] > 127) {
            free(fan_signs);
            free(winding);
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                  "tetra-tree: %s: vertex %zu has a fan winding %d times round it",
                                  tree->name, v, winding[v]);
        }
        tree->fan_winding[v] = (int8_t)winding[v];
        tree->info.mixed_fans += fan_signs[v] == 3;
    }
    free(fan_signs);
    free(winding);

    /* Inclusion of V0: on a triangle (then its tetrahedron is flat), or the
     * perturbed covering sum there (every l1..l3 is 0 at V0, l0 is s^2). */
    int inside = 0, sum = 0;
    for (size_t i = 0; i < n && !inside; i++) {
        const tetra *t = &tree->tets[i];
        if (!t->sign) {
            const double *a = vertex_of(tree, t->vertex[0]), *b = vertex_of(tree, t->vertex[1]),
                         *c = vertex_of(tree, t->vertex[2]);
            inside = on_triangle(a, b, c, o);
            continue;
        }
        if (perturbed_sign(tree, t, 1) > 0 && perturbed_sign(tree, t, 2) > 0 &&
            perturbed_sign(tree, t, 3) > 0)
            sum += t->sign;
    }
    tree->info.origin_inside = inside || sum != 0;
    return GLCOLLIDE_OK;
}

/* ------------------------------------------------------------ tetra-tree */

static void cross_int(const int32_t a[3], const int32_t b[3], double out[3])
{
    out[0] = (double)a[1] * b[2] - (double)a[2] * b[1];
    out[1] = (double)a[2] * b[0] - (double)a[0] * b[2];
    out[2] = (double)a[0] * b[1] - (double)a[1] * b[0];
}

/* The three side planes of a cone: normals g2 x g3, g3 x g1, g1 x g2 (>= 0 inside). */
static void cone_normals(const int32_t g[3][3], double normals[3][3])
{
    cross_int(g[1], g[2], normals[0]);
    cross_int(g[2], g[0], normals[1]);
    cross_int(g[0], g[1], normals[2]);
}

/* Does the triangle (relative to V0, |coordinates| <= r) meet the cone
 * grown by CONE_MARGIN r |n|1 on each side plane? Sutherland-Hodgman. */
static int triangle_meets_cone(const double triangle[3][3], double r, const double normals[3][3])
{
    double polygon[2][9][3];
    int count = 3, which = 0;
    memcpy(polygon[0], triangle, 3 * sizeof polygon[0][0]);
    for (int i = 0; i < 3; i++) {
        const double *n = normals[i];
        double margin = CONE_MARGIN * r * norm1(n);
        double distance[9];
        int inside = 0;
        for (int v = 0; v < count; v++) {
            distance[v] = glcollide_vec3_dot(n, polygon[which][v]) + margin;
            inside += distance[v] >= 0;
        }
        if (inside == 0)
            return 0;
        if (inside == count)
            continue;
        int out = 0;
        for (int v = 0; v < count; v++) {
            int w = (v + 1) % count;
            const double *p = polygon[which][v], *q = polygon[which][w];
            if (distance[v] >= 0)
                memcpy(polygon[1 - which][out++], p, sizeof polygon[0][0]);
            if ((distance[v] >= 0) != (distance[w] >= 0)) {
                double t = distance[v] / (distance[v] - distance[w]);
                for (int k = 0; k < 3; k++)
                    polygon[1 - which][out][k] = p[k] + t * (q[k] - p[k]);
                out++;
            }
        }
        count = out;
        which = 1 - which;
        if (count == 0)
            return 0;
    }
    return 1;
}

typedef struct tree_build {
    glcollide_tetra_tree *tree;
    const glcollide_tetra_tree_options *options;
    double (*triangle)[3][3]; /* per tetrahedron: its triangle relative to V0 */
    double *radius;           /* and its max |coordinate| */
} tree_build;

/* Fills node (already holding its generators) from the candidates. */
static int build_node(tree_build *b, uint32_t node, const uint32_t *candidates,
                      size_t candidate_count)
{
    glcollide_tetra_tree *tree = b->tree;
    double normals[3][3];
    int32_t generators[3][3];
    node_generators(&tree->nodes[node], generators);
    cone_normals(generators, normals);
    uint32_t *mine = glcollide_alloc_array(candidate_count ? candidate_count : 1, sizeof *mine);
    if (!mine)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "tetra-tree: out of memory");
    size_t count = 0;
    for (size_t i = 0; i < candidate_count; i++)
        if (triangle_meets_cone(b->triangle[candidates[i]], b->radius[candidates[i]], normals))
            mine[count++] = candidates[i];

    /* Bounding plane: the face g1 g2 g3, pushed out to the farthest vertex. */
    tetra_node *nd = &tree->nodes[node];
    double e1[3], e2[3], nb[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)nd->g[1][k] - nd->g[0][k];
        e2[k] = (double)nd->g[2][k] - nd->g[0][k];
    }
    glcollide_vec3_cross(nb, e1, e2);
    double db = 0;
    for (size_t i = 0; i < count; i++)
        for (int v = 0; v < 3; v++)
            db = fmax(db, glcollide_vec3_dot(nb, b->triangle[mine[i]][v]));
    db += 0x1p-40 * norm1(nb) * tree->extent; /* above the rounding of the dot products */
    for (int k = 0; k < 3; k++)
        nd->nb[k] = (float)nb[k];
    nd->db = float_up(db);
    nd->child = NONE;
    nd->first = nd->count = 0;
    int depth = nd->depth;
    if (depth > tree->info.depth)
        tree->info.depth = depth;

    int status = GLCOLLIDE_OK;
    if (depth >= b->options->max_depth || count < b->options->min_tetrahedra) {
        if (tree->leaf_tet_count + count > INT32_MAX) {
            status =
                glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "tetra-tree: more than 2^31 leaf entries");
        } else {
            status = glcollide_array_reserve((void **)&tree->leaf_tets, &tree->leaf_tet_capacity,
                                             tree->leaf_tet_count + count, sizeof *tree->leaf_tets,
                                             "tetra-tree");
        }
        if (status == GLCOLLIDE_OK) {
            nd->first = (uint32_t)tree->leaf_tet_count;
            nd->count = (uint32_t)count;
            if (count > 0) /* an empty leaf: mine may be NULL, memcpy must not see it */
                memcpy(tree->leaf_tets + tree->leaf_tet_count, mine, count * sizeof *mine);
            tree->leaf_tet_count += count;
        }
        free(mine);
        return status;
    }
    /* Four children, contiguous. */
    if (tree->node_count + 4 > INT32_MAX) {
        free(mine);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "tetra-tree: out of memory");
    }
    if ((status = glcollide_array_reserve((void **)&tree->nodes, &tree->node_capacity,
                                          tree->node_count + 4, sizeof *tree->nodes,
                                          "tetra-tree")) != GLCOLLIDE_OK) {
        free(mine);
        return status;
    }
    nd = &tree->nodes[node];
    uint32_t first = (uint32_t)tree->node_count;
    tree->node_count += 4;
    nd->child = first;
    int32_t g[3][3], m[3][3]; /* m[0] = m12, m[1] = m23, m[2] = m31 */
    node_generators(nd, g);
    for (int k = 0; k < 3; k++) {
        m[0][k] = g[0][k] + g[1][k];
        m[1][k] = g[1][k] + g[2][k];
        m[2][k] = g[2][k] + g[0][k];
    }
    const int32_t *children[4][3] = {
        {g[0], m[0], m[2]}, {m[0], g[1], m[1]}, {m[2], m[1], g[2]}, {m[0], m[1], m[2]}};
    for (int c = 0; c < 4; c++) {
        tetra_node *child = &tree->nodes[first + c];
        memset(child, 0, sizeof *child);
        set_generators(child, children[c][0], children[c][1], children[c][2]);
        child->depth = (uint8_t)(depth + 1);
    }
    for (int c = 0; c < 4 && status == GLCOLLIDE_OK; c++)
        status = build_node(b, first + (uint32_t)c, mine, count);
    free(mine);
    return status;
}

static int build_tree(glcollide_tetra_tree *tree, const glcollide_tetra_tree_options *options)
{
    size_t n = tree->triangle_count;
    tree_build b = {.tree = tree, .options = options};
    b.triangle = glcollide_alloc_array(n, sizeof *b.triangle);
    b.radius = glcollide_alloc_array(n, sizeof *b.radius);
    uint32_t *all = glcollide_alloc_array(n, sizeof *all);
    int status = !b.triangle || !b.radius || !all
                     ? glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "tetra-tree: out of memory")
                     : glcollide_array_reserve((void **)&tree->nodes, &tree->node_capacity, 8,
                                               sizeof *tree->nodes, "tetra-tree");
    if (status != GLCOLLIDE_OK)
        goto done;
    for (size_t i = 0; i < n; i++) {
        b.radius[i] = 0;
        for (int v = 0; v < 3; v++) {
            glcollide_vec3_sub(b.triangle[i][v], vertex_of(tree, tree->tets[i].vertex[v]),
                               tree->origin);
            b.radius[i] = fmax(b.radius[i], max_abs3(b.triangle[i][v]));
        }
        all[i] = (uint32_t)i;
    }
    /* Octant o: x < 0 if bit 0, y < 0 if bit 1, z < 0 if bit 2. */
    tree->node_count = 8;
    for (int o = 0; o < 8; o++) {
        tetra_node *nd = &tree->nodes[o];
        memset(nd, 0, sizeof *nd);
        int sx = (o & 1) ? -1 : 1, sy = (o & 2) ? -1 : 1, sz = (o & 4) ? -1 : 1;
        int32_t gx[3] = {sx, 0, 0}, gy[3] = {0, sy, 0}, gz[3] = {0, 0, sz};
        /* det(gx, gy, gz) = sx sy sz: swap to keep the cone positively oriented. */
        if (sx * sy * sz > 0)
            set_generators(nd, gx, gy, gz);
        else
            set_generators(nd, gx, gz, gy);
    }
    for (uint32_t o = 0; o < 8 && status == GLCOLLIDE_OK; o++)
        status = build_node(&b, o, all, n);
    /* Tetrahedra renumbered in the order the leaves list them: a leaf's
     * tetrahedra are then mostly consecutive in memory (on the CPU and the
     * GPU), instead of scattered over the mesh's triangle order. */
    uint32_t *renumber = all;
    tetra *sorted = status == GLCOLLIDE_OK ? glcollide_alloc_array(n, sizeof *sorted) : NULL;
    if (status == GLCOLLIDE_OK && !sorted)
        status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "tetra-tree: out of memory");
    if (status == GLCOLLIDE_OK) {
        uint32_t next = 0;
        for (size_t i = 0; i < n; i++)
            renumber[i] = NONE;
        for (size_t e = 0; e < tree->leaf_tet_count; e++) {
            uint32_t t = tree->leaf_tets[e];
            if (renumber[t] == NONE) {
                renumber[t] = next;
                sorted[next++] = tree->tets[t];
            }
            tree->leaf_tets[e] = renumber[t];
        }
        for (size_t t = 0; t < n; t++) /* in no leaf: possible only for degenerate input */
            if (renumber[t] == NONE)
                sorted[next++] = tree->tets[t];
        free(tree->tets);
        tree->tets = sorted;
    }
done:
    free(b.triangle);
    free(b.radius);
    free(all);
    return status;
}

/* ------------------------------------------------------------ build */

void glcollide_tetra_tree_destroy(glcollide_tetra_tree **tree)
{
    if (!tree || !*tree)
        return;
    glcollide_tetra_tree *t = *tree;
    free(t->positions);
    free(t->triangles);
    free(t->tets);
    free(t->fan_winding);
    free(t->nodes);
    free(t->leaf_tets);
    free(t->name);
    free(t);
    *tree = NULL;
}

/* Centroid of the solid, rounded to 12 bits of its box (short coordinates). */
static void solid_centroid(const glcollide_mesh *mesh, const glcollide_mesh_report *report,
                           double out[3])
{
    double base[3], sum[3] = {0, 0, 0}, volume = 0, extent = 0;
    for (int k = 0; k < 3; k++) {
        base[k] = 0.5 * (report->bounds_min[k] + report->bounds_max[k]);
        extent = fmax(extent, report->bounds_max[k] - report->bounds_min[k]);
    }
    for (size_t i = 0; i < mesh->triangle_count; i++) {
        double p[3][3], cross[3];
        for (int v = 0; v < 3; v++)
            glcollide_vec3_sub(p[v], mesh->positions + 3 * (size_t)mesh->triangles[3 * i + v],
                               base);
        glcollide_vec3_cross(cross, p[1], p[2]);
        double w = glcollide_vec3_dot(p[0], cross); /* 6 x signed volume of (base, a, b, c) */
        volume += w;
        for (int k = 0; k < 3; k++)
            sum[k] += w * (p[0][k] + p[1][k] + p[2][k]);
    }
    int e;
    frexp(extent, &e);
    double grid = ldexp(1.0, e - 12);
    for (int k = 0; k < 3; k++) {
        double c = volume > 0 ? base[k] + sum[k] / (4 * volume) : base[k];
        out[k] = nearbyint(c / grid) * grid;
    }
}

int glcollide_tetra_tree_create(const glcollide_mesh *mesh,
                                const glcollide_tetra_tree_options *options,
                                glcollide_tetra_tree **out)
{
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "tetra-tree: out is NULL");
    *out = NULL;
    if (!mesh)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "tetra-tree: mesh is NULL");
    glcollide_tetra_tree_options defaults = glcollide_tetra_tree_default_options();
    if (!options)
        options = &defaults;
    if (options->max_depth < 0 || options->max_depth > MAX_DEPTH)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "tetra-tree: max_depth %d outside 0..%d", options->max_depth,
                              MAX_DEPTH);
    if (options->min_tetrahedra < 1)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "tetra-tree: min_tetrahedra must be >= 1");
    if (options->use_origin && !(isfinite(options->origin[0]) && isfinite(options->origin[1]) &&
                                 isfinite(options->origin[2])))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "tetra-tree: origin is not finite");
    const char *name = mesh->name ? mesh->name : "mesh";
    if (mesh->triangle_count > INT32_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT,
                              "tetra-tree: %s: %zu triangles, at most 2^31 - 1", name,
                              mesh->triangle_count);
    double start = glcollide_now_ms();
    glcollide_mesh_report report;
    int status = glcollide_mesh_require_solid(mesh, &report);
    if (status != GLCOLLIDE_OK)
        return status; /* logged: "name: not a closed solid: ..." */
    if (options->check_self_intersections) {
        size_t crossings = 0;
        uint32_t first[2] = {0, 0};
        status = glcollide_mesh_self_intersections(mesh, &crossings, first);
        if (status != GLCOLLIDE_OK)
            return glcollide_fail(status, "tetra-tree: %s: self-intersection test failed", name);
        if (crossings)
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH,
                                  "tetra-tree: %s intersects itself: %zu triangle pairs (first: "
                                  "triangles %u and %u), refused as asked "
                                  "(check_self_intersections)",
                                  name, crossings, first[0], first[1]);
    }

    glcollide_tetra_tree *tree = calloc(1, sizeof *tree);
    if (!tree)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "tetra-tree: out of memory");
    tree->vertex_count = mesh->vertex_count;
    tree->triangle_count = mesh->triangle_count;
    tree->positions = glcollide_alloc_array(3 * mesh->vertex_count, sizeof(double));
    tree->triangles = glcollide_alloc_array(3 * mesh->triangle_count, sizeof(uint32_t));
    tree->name = glcollide_strdup(name);
    if (!tree->positions || !tree->triangles || !tree->name) {
        glcollide_tetra_tree_destroy(&tree);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "tetra-tree: out of memory");
    }
    memcpy(tree->positions, mesh->positions, 3 * mesh->vertex_count * sizeof(double));
    memcpy(tree->triangles, mesh->triangles, 3 * mesh->triangle_count * sizeof(uint32_t));
    if (options->use_origin)
        memcpy(tree->origin, options->origin, sizeof tree->origin);
    else
        solid_centroid(mesh, &report, tree->origin);
    for (size_t v = 0; v < tree->vertex_count; v++) {
        double u[3];
        glcollide_vec3_sub(u, vertex_of(tree, (uint32_t)v), tree->origin);
        tree->extent = fmax(tree->extent, max_abs3(u));
    }
    if (!isfinite(tree->extent)) {
        glcollide_tetra_tree_destroy(&tree);
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "tetra-tree: %s: vertices minus the origin overflow", name);
    }
    status = build_covering(tree);
    if (status == GLCOLLIDE_OK)
        status = build_tree(tree, options);
    if (status != GLCOLLIDE_OK) {
        glcollide_tetra_tree_destroy(&tree);
        return status;
    }
    glcollide_tetra_tree_info *info = &tree->info;
    memcpy(info->origin, tree->origin, sizeof info->origin);
    info->tetrahedra = tree->triangle_count;
    info->nodes = tree->node_count;
    size_t filled = 0;
    for (size_t i = 0; i < tree->node_count; i++) {
        const tetra_node *nd = &tree->nodes[i];
        if (nd->child != NONE)
            continue;
        info->leaves++;
        info->empty_leaves += nd->count == 0;
        filled += nd->count > 0;
        if (nd->count > info->max_leaf_tetrahedra)
            info->max_leaf_tetrahedra = nd->count;
    }
    info->leaf_entries = tree->leaf_tet_count;
    info->mean_leaf_tetrahedra = filled ? (double)tree->leaf_tet_count / (double)filled : 0;
    info->build_ms = glcollide_now_ms() - start;
    glcollide_log_debug("tetra-tree: %s: %zu tetrahedra (%zu +, %zu -, %zu flat), origin (%g, %g, "
                        "%g) %s, %zu nodes, %zu leaves (%zu empty), %zu entries, max %zu, %.1f ms",
                        name, info->tetrahedra, info->positive, info->negative, info->degenerate,
                        info->origin[0], info->origin[1], info->origin[2],
                        info->origin_inside ? "inside" : "outside", info->nodes, info->leaves,
                        info->empty_leaves, info->leaf_entries, info->max_leaf_tetrahedra,
                        info->build_ms);
    *out = tree;
    return GLCOLLIDE_OK;
}

int glcollide_tetra_tree_get_info(const glcollide_tetra_tree *tree, glcollide_tetra_tree_info *info)
{
    if (!tree || !info)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "tetra-tree: tree or info is NULL");
    *info = tree->info;
    return GLCOLLIDE_OK;
}

/* ------------------------------------------------------------ CPU classification */

static int in_cone(const tetra_node *nd, const double u[3])
{
    double normals[3][3];
    int32_t g[3][3];
    node_generators(nd, g);
    cone_normals(g, normals);
    for (int i = 0; i < 3; i++)
        if (glcollide_vec3_dot(normals[i], u) < 0)
            return 0;
    return 1;
}

static uint32_t descend(const glcollide_tetra_tree *tree, const double u[3])
{
    uint32_t node = (u[0] < 0 ? 1u : 0u) | (u[1] < 0 ? 2u : 0u) | (u[2] < 0 ? 4u : 0u);
    for (;;) {
        const tetra_node *nd = &tree->nodes[node];
        if (nd->child == NONE)
            return node;
        int32_t m[3][3];
        for (int k = 0; k < 3; k++) {
            m[0][k] = nd->g[0][k] + nd->g[1][k];
            m[1][k] = nd->g[1][k] + nd->g[2][k];
            m[2][k] = nd->g[2][k] + nd->g[0][k];
        }
        double n[3];
        uint32_t child = 3;
        cross_int(m[2], m[0], n); /* plane m31 m12: child 0 beyond it */
        if (glcollide_vec3_dot(n, u) < 0) {
            child = 0;
        } else {
            cross_int(m[0], m[1], n);
            if (glcollide_vec3_dot(n, u) < 0) {
                child = 1;
            } else {
                cross_int(m[1], m[2], n);
                if (glcollide_vec3_dot(n, u) < 0)
                    child = 2;
            }
        }
        node = nd->child + child;
    }
}

/* Fallback of Algorithm 1 when it meets more distinct features than it
 * keeps: every tetrahedron counted at the perturbed point. Same answer. */
static int classify_perturbed(const glcollide_tetra_tree *tree, const tetra_node *leaf,
                              const double p[3])
{
    int sum = 0;
    for (uint32_t k = 0; k < leaf->count; k++) {
        const tetra *t = &tree->tets[tree->leaf_tets[leaf->first + k]];
        if (!t->sign) {
            const double *a = vertex_of(tree, t->vertex[0]), *b = vertex_of(tree, t->vertex[1]),
                         *c = vertex_of(tree, t->vertex[2]);
            if (glcollide_orient3d(a, b, c, p) == 0 && on_triangle(a, b, c, p))
                return 1;
            continue;
        }
        int exact[4], inside = 1, closed = 1;
        for (int i = 0; i < 4; i++) {
            exact[i] = exact_sign(tree, t, i, p);
            closed &= exact[i] >= 0;
        }
        if (closed && exact[0] == 0)
            return 1; /* on the surface */
        for (int i = 0; i < 4 && inside; i++)
            inside = (exact[i] ? exact[i] : perturbed_sign(tree, t, i)) > 0;
        sum += inside ? t->sign : 0;
    }
    return sum != 0;
}

#define MAX_FEATURES 32

/* Algorithm 1 on the tetrahedra of leaf; 1 inside or on the surface. */
static int classify_in_leaf(const glcollide_tetra_tree *tree, const tetra_node *leaf,
                            const double p[3], const double u[3], glcollide_tetra_stats *stats)
{
    double u_max = max_abs3(u);
    uint32_t features[MAX_FEATURES];
    int feature_count = 0, special = 0, sum = 0;
    static const uint32_t corner_of_zeros[8] = {NONE, NONE, NONE, 2, NONE, 1, 0, NONE};
    for (uint32_t k = 0; k < leaf->count; k++) {
        const tetra *t = &tree->tets[tree->leaf_tets[leaf->first + k]];
        stats->tetrahedra_tests++;
        if (!t->sign) {
            /* Flat: only a point on its triangle is in it (on the surface). */
            double v = plane_value(&t->plane[0], u);
            if (fabs(v) > plane_bound(&t->plane[0], u_max))
                continue;
            stats->exact_signs++;
            const double *a = vertex_of(tree, t->vertex[0]), *b = vertex_of(tree, t->vertex[1]),
                         *c = vertex_of(tree, t->vertex[2]);
            if (glcollide_orient3d(a, b, c, p) == 0 && on_triangle(a, b, c, p)) {
                stats->special_cases++;
                return 1;
            }
            continue;
        }
        /* Inner faces first: most tetrahedra of a cone are narrower than it. */
        int sign[4], outside = 0, unsure = 0;
        for (int j = 0; j < 4 && !outside; j++) {
            int i = (j + 1) & 3;
            double v = plane_value(&t->plane[i], u), bound = plane_bound(&t->plane[i], u_max);
            sign[i] = v > bound ? 1 : v < -bound ? -1 : 2;
            outside = sign[i] < 0;
            unsure |= sign[i] == 2;
        }
        if (outside)
            continue;
        if (unsure) {
            for (int i = 0; i < 4 && !outside; i++)
                if (sign[i] == 2) {
                    stats->exact_signs++;
                    sign[i] = exact_sign(tree, t, i, p);
                    outside = sign[i] < 0;
                }
            if (outside)
                continue;
        }
        if (sign[0] == 0) { /* a: on the triangle */
            stats->special_cases++;
            return 1;
        }
        unsigned zeros =
            (sign[1] == 0 ? 1u : 0u) | (sign[2] == 0 ? 2u : 0u) | (sign[3] == 0 ? 4u : 0u);
        if (zeros == 0) { /* b */
            sum += 2 * t->sign;
            continue;
        }
        special = 1;
        if (zeros == 1 || zeros == 2 || zeros == 4) { /* c: one inner face */
            int face = zeros == 1 ? 1 : zeros == 2 ? 2 : 3;
            if (t->paired & (1u << face))
                sum += t->sign;
            else if (perturbed_sign(tree, t, face) > 0)
                sum += 2 * t->sign;
            continue;
        }
        if (zeros == 7) { /* d: at V0 */
            stats->special_cases++;
            return tree->info.origin_inside;
        }
        /* d: on the inner edge V0-C, C the corner whose l is not 0. */
        uint32_t vertex = t->vertex[corner_of_zeros[zeros]];
        int seen = 0;
        for (int f = 0; f < feature_count && !seen; f++)
            seen = features[f] == vertex;
        if (seen)
            continue;
        if (feature_count == MAX_FEATURES) {
            stats->special_cases++;
            return classify_perturbed(tree, leaf, p);
        }
        features[feature_count++] = vertex;
        sum += 2 * tree->fan_winding[vertex];
    }
    stats->special_cases += special;
    return sum != 0; /* twice the winding number */
}

/* One point: 1 inside or on the surface. *cone: in last frame's tetra-cone
 * (or NONE), out this one's. */
static int classify_point(const glcollide_tetra_tree *tree, const double p[3], uint32_t *cone,
                          glcollide_tetra_stats *stats)
{
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
        *cone = NONE;
        return 0;
    }
    double u[3];
    glcollide_vec3_sub(u, p, tree->origin);
    if (p[0] == tree->origin[0] && p[1] == tree->origin[1] && p[2] == tree->origin[2]) {
        stats->special_cases++;
        return tree->info.origin_inside;
    }
    /* Beyond twice the farthest vertex: outside the mesh's box (and no
     * overflow in the plane values below). */
    if (!(max_abs3(u) <= 2 * tree->extent)) {
        *cone = NONE;
        return 0;
    }
    uint32_t node = *cone;
    if (node < tree->node_count && tree->nodes[node].child == NONE &&
        in_cone(&tree->nodes[node], u))
        stats->coherent++;
    else
        node = descend(tree, u);
    *cone = node;
    const tetra_node *leaf = &tree->nodes[node];
    if (leaf->count == 0)
        return 0;
    const double nb[3] = {leaf->nb[0], leaf->nb[1], leaf->nb[2]};
    double beyond = glcollide_vec3_dot(nb, u) - leaf->db;
    if (beyond > 0x1p-40 * norm1(nb) * max_abs3(u)) {
        stats->bounding_rejects++;
        return 0;
    }
    return classify_in_leaf(tree, leaf, p, u, stats);
}

int glcollide_tetra_tree_classify(const glcollide_tetra_tree *tree, const double *points,
                                  size_t count, uint8_t *inside, uint32_t *cones,
                                  glcollide_tetra_stats *stats)
{
    glcollide_tetra_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (!tree || (count && (!points || !inside)))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "tetra-tree classify: tree, points or inside is NULL");
    double start = glcollide_now_ms();
    for (size_t i = 0; i < count; i++) {
        uint32_t cone = cones ? cones[i] : NONE;
        inside[i] = (uint8_t)classify_point(tree, points + 3 * i, &cone, stats);
        if (cones)
            cones[i] = cone;
        stats->inside += inside[i];
    }
    stats->particles = count;
    stats->time_ms = glcollide_now_ms() - start;
    return GLCOLLIDE_OK;
}

/* ------------------------------------------------------------ GPU */

struct glcollide_tetra_gpu {
    glcollide_context *context;
    const glcollide_tetra_tree *tree;
    GLuint program;
    GLuint tree_buffer, point_buffer, cone_buffer, result_buffer;
    size_t point_capacity, cone_capacity, result_capacity;
    float *staging;
    size_t staging_capacity;
    uint32_t *results;
    size_t results_capacity;
    size_t last_count; /* particles of the previous call: their cones are on the GPU */
    int has_cones;
    uint32_t tet_base, leaf_base;
    double scale;    /* power of two: GPU coordinates are (P - V0) * scale, within [-1, 1] */
    uint32_t *cones; /* the CPU twin's frame coherence: each particle's last tetra-cone */
    size_t cones_capacity;
    double *local; /* world entry: the points in the mesh's space */
    size_t local_capacity;
    /* World entry: the (world, mesh, its change) last found to be the tree's mesh. */
    uint64_t matched_world, matched_at;
    uint32_t matched_mesh;
    int matched;
};

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static void put_vec(uint32_t *slot, const double v[3], double factor, uint32_t w)
{
    for (int k = 0; k < 3; k++)
        slot[k] = float_bits((float)(v[k] * factor));
    slot[3] = w;
}

/* The tree in one array of uvec4: nodes, tetrahedra, leaf lists. */
static uint32_t *pack_tree(glcollide_tetra_gpu *gpu, size_t *slots)
{
    const glcollide_tetra_tree *tree = gpu->tree;
    double s = gpu->scale, s2 = s * s, s3 = s2 * s;
    size_t node_slots = NODE_SLOTS * tree->node_count, tet_slots = TET_SLOTS * tree->triangle_count;
    size_t leaf_slots = (tree->leaf_tet_count + 3) / 4 + 1;
    *slots = node_slots + tet_slots + leaf_slots;
    uint32_t *data = glcollide_alloc_array(*slots, 4 * sizeof(uint32_t));
    if (!data)
        return NULL;
    memset(data, 0, *slots * 4 * sizeof(uint32_t));
    gpu->tet_base = (uint32_t)node_slots;
    gpu->leaf_base = (uint32_t)(node_slots + tet_slots);
    for (size_t i = 0; i < tree->node_count; i++) {
        const tetra_node *nd = &tree->nodes[i];
        uint32_t *slot = data + 4 * NODE_SLOTS * i;
        const uint32_t w[3] = {nd->child, nd->first, nd->count};
        for (int j = 0; j < 3; j++) {
            double g[3] = {nd->g[j][0], nd->g[j][1], nd->g[j][2]};
            put_vec(slot + 4 * j, g, 1.0, w[j]);
        }
        const double nb[3] = {nd->nb[0], nd->nb[1], nd->nb[2]};
        put_vec(slot + 12, nb, 1.0, float_bits(float_up(nd->db * s)));
    }
    for (size_t i = 0; i < tree->triangle_count; i++) {
        const tetra *t = &tree->tets[i];
        uint32_t *slot = data + 4 * (node_slots + TET_SLOTS * i);
        put_vec(slot, t->plane[0].n, s2, float_bits((float)(t->plane[0].d * s3)));
        if (t->sign) {
            for (int f = 1; f <= 3; f++)
                put_vec(slot + 4 * f, t->plane[f].n, s2,
                        float_bits(float_up(t->plane[f].sigma * s2 * DOUBLE_OVER_FLOAT)));
        } else {
            put_vec(slot + 4, t->box_min, s, 0);
            put_vec(slot + 8, t->box_max, s, 0);
        }
        slot[16] = float_bits(float_up(t->plane[0].sigma * s2 * DOUBLE_OVER_FLOAT));
        slot[17] = float_bits(float_up(t->plane[0].sigma_r * s3 * DOUBLE_OVER_FLOAT));
        slot[18] = (uint32_t)t->sign;
    }
    memcpy(data + 4 * gpu->leaf_base, tree->leaf_tets, tree->leaf_tet_count * sizeof(uint32_t));
    return data;
}

static GLuint build_program(int which)
{
    (void)which;
    return glcollide_gl_program("tetra-tree classify", NULL, NULL,
                                (const char *const[]){glcollide_shader_tetra_tree_classify, NULL});
}

/* The program is the context's, compiled once per context. */
static const glcollide_gl_program_set program_set = {
    {"tetra-tree programs", glcollide_gl_programs_release}, 1, build_program};

void glcollide_tetra_gpu_destroy(glcollide_tetra_gpu **gpu)
{
    if (!gpu || !*gpu)
        return;
    glcollide_tetra_gpu *g = *gpu;
    if (g->context && glcollide_context_make_current(g->context) == GLCOLLIDE_OK) {
        GLuint buffers[4] = {g->tree_buffer, g->point_buffer, g->cone_buffer, g->result_buffer};
        glDeleteBuffers(4, buffers);
    }
    free(g->staging);
    free(g->results);
    free(g->cones);
    free(g->local);
    free(g);
    *gpu = NULL;
}

int glcollide_tetra_gpu_create(glcollide_context *context, const glcollide_tetra_tree *tree,
                               glcollide_tetra_gpu **out)
{
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "tetra-tree GPU: out is NULL");
    *out = NULL;
    if (!tree)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "tetra-tree GPU: tree is NULL");
    glcollide_tetra_gpu *gpu = calloc(1, sizeof *gpu);
    if (!gpu)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "tetra-tree GPU: out of memory");
    gpu->tree = tree;
    if (!context) { /* the CPU twin: the tree and the particles' cones */
        *out = gpu;
        return GLCOLLIDE_OK;
    }
    int e;
    frexp(tree->extent > 0 ? tree->extent : 1.0, &e);
    gpu->scale = ldexp(1.0, -e);
    size_t slots = 0;
    uint32_t *data = pack_tree(gpu, &slots);
    if (!data) {
        free(gpu);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "tetra-tree GPU: out of memory");
    }
    int status = glcollide_context_make_current(context);
    if (status != GLCOLLIDE_OK) {
        free(data);
        free(gpu);
        return status;
    }
    gpu->context = context;
    GLint64 max_ssbo = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_ssbo);
    if (max_ssbo > 0 && (double)slots * 16 > (double)max_ssbo) {
        free(data);
        glcollide_tetra_gpu_destroy(&gpu);
        return glcollide_fail(
            GLCOLLIDE_ERROR_LIMIT,
            "tetra-tree GPU: tree of %zu bytes, the GL's storage blocks hold %lld", slots * 16,
            (long long)max_ssbo);
    }
    glcollide_gl_state saved;
    glcollide_gl_state_save(&saved);
    gpu->program = glcollide_context_program(context, &program_set, 0);
    GLuint buffers[4];
    glGenBuffers(4, buffers);
    gpu->tree_buffer = buffers[0];
    gpu->point_buffer = buffers[1];
    gpu->cone_buffer = buffers[2];
    gpu->result_buffer = buffers[3];
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, gpu->tree_buffer);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(slots * 16), data, GL_STATIC_DRAW);
    glcollide_gl_storage_count((uint64_t)slots * 16);
    free(data);
    status = gpu->program ? glcollide_gl_check("tetra-tree upload") : GLCOLLIDE_ERROR_GL;
    glcollide_gl_state_restore(&saved);
    if (status != GLCOLLIDE_OK) {
        glcollide_tetra_gpu_destroy(&gpu);
        return status;
    }
    *out = gpu;
    return GLCOLLIDE_OK;
}

/* The CPU twin: glcollide_tetra_tree_classify with the cones of the
 * previous call (the same particles) or none. */
static int cpu_classify(glcollide_tetra_gpu *gpu, const double *points, size_t count,
                        unsigned flags, uint8_t *inside, glcollide_tetra_stats *stats)
{
    int coherence =
        (flags & GLCOLLIDE_TETRA_FRAME_COHERENCE) && gpu->has_cones && gpu->last_count == count;
    int status = glcollide_array_reserve((void **)&gpu->cones, &gpu->cones_capacity, count,
                                         sizeof *gpu->cones, "tetra-tree classify");
    if (status != GLCOLLIDE_OK)
        return status;
    for (size_t i = 0; !coherence && i < count; i++)
        gpu->cones[i] = NONE;
    status = glcollide_tetra_tree_classify(gpu->tree, points, count, inside, gpu->cones, stats);
    gpu->has_cones = status == GLCOLLIDE_OK;
    gpu->last_count = count;
    return status;
}

/* glcollide_tetra_gpu_classify's arguments checked. */
static int classify_points(glcollide_tetra_gpu *gpu, const double *points, size_t count,
                           unsigned flags, uint8_t *inside, glcollide_tetra_stats *stats)
{
    if (count > INT32_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT,
                              "tetra-tree GPU classify: %zu particles, at most 2^31 - 1", count);
    if (count == 0)
        return GLCOLLIDE_OK;
    if (!gpu->context)
        return cpu_classify(gpu, points, count, flags, inside, stats);
    double start = glcollide_now_ms();
    const glcollide_tetra_tree *tree = gpu->tree;
    size_t words = (count + 31) / 32;
    size_t result_words = HEADER_WORDS + 2 * words;
    int status = glcollide_array_reserve((void **)&gpu->staging, &gpu->staging_capacity, 3 * count,
                                         sizeof *gpu->staging, "tetra-tree GPU classify");
    if (status == GLCOLLIDE_OK)
        status =
            glcollide_array_reserve((void **)&gpu->results, &gpu->results_capacity, result_words,
                                    sizeof *gpu->results, "tetra-tree GPU classify");
    if (status != GLCOLLIDE_OK)
        return status;
    /* Points relative to V0, scaled by a power of two (exact) so that the
     * mesh fits in [-1, 1]; far ones are replaced by another point outside
     * the mesh's box, non-finite ones by V0, which the GPU flags. */
    const double *o = tree->origin;
    double s = gpu->scale;
    for (size_t i = 0; i < count; i++) {
        const double *p = points + 3 * i;
        float *q = gpu->staging + 3 * i;
        double u[3] = {(p[0] - o[0]) * s, (p[1] - o[1]) * s, (p[2] - o[2]) * s};
        if (max_abs3(u) <= 4.0) /* the mesh is within [-1, 1] */
            for (int k = 0; k < 3; k++)
                q[k] = (float)u[k];
        else if (isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))
            q[0] = q[1] = q[2] = 8.0f; /* outside too: no float overflow */
        else
            q[0] = q[1] = q[2] = 0.0f;
    }
    status = glcollide_context_make_current(gpu->context);
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_gl_state saved;
    glcollide_gl_state_save(&saved);
    glcollide_gl_state_reset();
    int coherence =
        (flags & GLCOLLIDE_TETRA_FRAME_COHERENCE) && gpu->has_cones && gpu->last_count == count;
    glcollide_gl_buffer_reserve(gpu->point_buffer, &gpu->point_capacity, 3 * count * sizeof(float));
    glcollide_gl_buffer_reserve(gpu->cone_buffer, &gpu->cone_capacity, count * sizeof(uint32_t));
    glcollide_gl_buffer_reserve(gpu->result_buffer, &gpu->result_capacity,
                                result_words * sizeof(uint32_t));
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, gpu->point_buffer);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(3 * count * sizeof(float)),
                    gpu->staging);
    stats->upload_bytes = 3 * count * sizeof(float);
    double uploaded = glcollide_now_ms();
    GLuint zero = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, gpu->result_buffer);
    glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, 0, (GLsizeiptr)(result_words * 4),
                         GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    glUseProgram(gpu->program);
    glUniform1ui(glGetUniformLocation(gpu->program, "count"), (GLuint)count);
    glUniform1ui(glGetUniformLocation(gpu->program, "words"), (GLuint)words);
    glUniform1ui(glGetUniformLocation(gpu->program, "node_count"), (GLuint)tree->node_count);
    glUniform1ui(glGetUniformLocation(gpu->program, "tet_base"), gpu->tet_base);
    glUniform1ui(glGetUniformLocation(gpu->program, "leaf_base"), gpu->leaf_base);
    glUniform1i(glGetUniformLocation(gpu->program, "coherence"), coherence);
    glUniform1f(glGetUniformLocation(gpu->program, "tolerance"), (float)FILTER_FLOAT);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, gpu->point_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, gpu->tree_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, gpu->cone_buffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, gpu->result_buffer);
    size_t groups = (count + GPU_GROUP - 1) / GPU_GROUP;
    size_t groups_x = groups < 65535 ? groups : 65535;
    glDispatchCompute((GLuint)groups_x, (GLuint)((groups + groups_x - 1) / groups_x), 1);
    stats->draw_calls++;
    /* The one sync: counters and both bit arrays. */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, gpu->result_buffer);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(result_words * 4), gpu->results);
    stats->gpu_syncs++;
    stats->readback_bytes += result_words * 4;
    double read = glcollide_now_ms();
    stats->upload_ms = uploaded - start;
    stats->gpu_ms = read - uploaded;
    status = glcollide_gl_check("tetra-tree classify");
    glcollide_gl_state_restore(&saved);
    if (status != GLCOLLIDE_OK) {
        gpu->has_cones = 0;
        return status;
    }
    gpu->has_cones = 1;
    gpu->last_count = count;
    const uint32_t *header = gpu->results, *in_bits = gpu->results + HEADER_WORDS,
                   *unsure_bits = in_bits + words;
    stats->coherent = header[0];
    stats->bounding_rejects = header[1];
    for (size_t word = 0; word < words; word++) {
        uint32_t in = in_bits[word], unsure = unsure_bits[word];
        size_t base = 32 * word, n = count - base < 32 ? count - base : 32;
        for (size_t b = 0; b < n; b++)
            inside[base + b] = (uint8_t)((in >> b) & 1u);
        for (size_t b = 0; unsure && b < n; b++) { /* finished exactly on the CPU */
            if (!((unsure >> b) & 1u))
                continue;
            uint32_t cone = NONE;
            inside[base + b] = (uint8_t)classify_point(tree, points + 3 * (base + b), &cone, stats);
            stats->uncertain++;
        }
    }
    for (size_t i = 0; i < count; i++)
        stats->inside += inside[i];
    stats->particles = count;
    double end = glcollide_now_ms();
    stats->finish_ms = end - read;
    stats->time_ms = end - start;
    return GLCOLLIDE_OK;
}

/* Is mesh m of world the one the tree was built from (the same vertices
 * and triangles)? Compared once per change of the mesh. */
static int tree_of_mesh(glcollide_tetra_gpu *gpu, const glcollide_world *world, uint32_t object)
{
    uint32_t m = world->objects[object].mesh;
    const glcollide_world_mesh_entry *entry = &world->meshes[m];
    if (gpu->matched && gpu->matched_world == world->id && gpu->matched_mesh == m &&
        gpu->matched_at == entry->changed_at)
        return GLCOLLIDE_OK;
    const glcollide_tetra_tree *tree = gpu->tree;
    const glcollide_mesh *mesh = entry->mesh;
    int same =
        mesh->vertex_count == tree->vertex_count && mesh->triangle_count == tree->triangle_count &&
        !memcmp(mesh->positions, tree->positions, 3 * tree->vertex_count * sizeof(double)) &&
        !memcmp(mesh->triangles, tree->triangles, 3 * tree->triangle_count * sizeof(uint32_t));
    if (!same)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "tetra-tree: object %u's mesh (%s, %zu triangles) is not the one the "
                              "tree was built from (%s, %zu triangles)",
                              object, mesh->name ? mesh->name : "mesh", mesh->triangle_count,
                              tree->name, tree->triangle_count);
    gpu->matched = 1;
    gpu->matched_world = world->id;
    gpu->matched_mesh = m;
    gpu->matched_at = entry->changed_at;
    return GLCOLLIDE_OK;
}

int glcollide_tetra_gpu_classify(glcollide_tetra_gpu *gpu, const glcollide_world *world,
                                 uint32_t object, const double *points, size_t count,
                                 unsigned flags, uint8_t *inside, glcollide_tetra_stats *stats)
{
    glcollide_tetra_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (!gpu || !world || (count && (!points || !inside)))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "tetra-tree world classify: gpu, world, points or inside is NULL");
    if (object >= world->object_count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "tetra-tree world classify: no object %u (the world has %zu)", object,
                              world->object_count);
    int status = tree_of_mesh(gpu, world, object);
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&gpu->local, &gpu->local_capacity, 3 * count + 1,
                                         sizeof *gpu->local, "tetra-tree world classify");
    if (status != GLCOLLIDE_OK)
        return status;
    /* Into the mesh's space: these doubles are what is classified (exactly). */
    const glcollide_object *pose = &world->objects[object];
    double m[9];
    glcollide_pose_rotation_matrix(&pose->pose, m);
    for (size_t i = 0; i < count; i++)
        glcollide_unplace_point(pose->pose.translation, m, points + 3 * i, gpu->local + 3 * i);
    return classify_points(gpu, gpu->local, count, flags, inside, stats);
}
