/* SPDX-License-Identifier: MIT */
/*
 * Distances between meshes (glcollide_world_distance): analytic cases
 * (cubes at known gaps and turns, a vertex over a face, parallel and
 * crossing edges, touching, overlapping, one solid inside another,
 * degenerate triangles), random poses of generated meshes against a
 * brute-force oracle over all triangle pairs (in long double, written apart
 * from the library's: point-triangle and segment-segment by their own
 * case analysis, containment by point-in-solid), real meshes (bunny00,
 * armadillo, refined_elephant, skipped one by one where missing) against
 * the oracle on every triangle pair the overlap traversal finds within the
 * distance, the upper bound's contract, agreement with the exact query's
 * --distance, the scale of the scene, and bad input word for word.
 */
#include "helpers/tests.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double identity[4] = {1, 0, 0, 0};
#define QUARTER_TURN 0.78539816339744830962 /* pi / 4 */

/* ---------------------------------------------------------------- helpers */

static glcollide_mesh *box(double hx, double hy, double hz)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(hx, hy, hz, &mesh), GLCOLLIDE_OK);
    return mesh;
}

static glcollide_mesh *sphere(double r)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(r, 16, 8, &mesh), GLCOLLIDE_OK);
    return mesh;
}

static glcollide_mesh *mesh_of(const double *positions, size_t vertices, const uint32_t *triangles,
                               size_t count)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_create(positions, vertices, triangles, count, "test", &mesh),
                     GLCOLLIDE_OK);
    return mesh;
}

/* A unit quaternion for angle about axis (any length). */
static void quaternion(double q[4], double ax, double ay, double az, double angle)
{
    double n = sqrt(ax * ax + ay * ay + az * az), s = sin(angle / 2) / n;
    q[0] = cos(angle / 2);
    q[1] = ax * s;
    q[2] = ay * s;
    q[3] = az * s;
}

/* A world of meshes a and b (borrowed), a at the origin unturned, b at t
 * turned by q. */
static glcollide_world *pair_world(const glcollide_mesh *a, const glcollide_mesh *b,
                                   const double t[3], const double q[4])
{
    glcollide_world *world = NULL;
    static const double origin[3] = {0, 0, 0};
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, a, NULL), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, b, NULL), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_object(world, 0, origin, identity, NULL), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_object(world, 1, t, q, NULL), GLCOLLIDE_OK);
    return world;
}

static double gap3(const double p[3], const double q[3])
{
    return sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                (p[2] - q[2]) * (p[2] - q[2]));
}

static glcollide_distance_result distance_of(glcollide_world *world, uint32_t a, uint32_t b)
{
    glcollide_distance_result r;
    ck_assert_int_eq(glcollide_world_distance(world, a, b, INFINITY, &r), GLCOLLIDE_OK);
    return r;
}

/* ---------------------------------------------------------------- the oracle */

typedef long double real;

static real dot_l(const real a[3], const real b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub_l(real out[3], const real a[3], const real b[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = a[k] - b[k];
}

/* Squared distance of p and the segment ab: the projection clamped. */
static real point_segment2(const real p[3], const real a[3], const real b[3])
{
    real d[3], w[3], c[3];
    sub_l(d, b, a);
    sub_l(w, p, a);
    real dd = dot_l(d, d), t = dd > 0 ? dot_l(w, d) / dd : 0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    for (int k = 0; k < 3; k++)
        c[k] = a[k] + t * d[k] - p[k];
    return dot_l(c, c);
}

/* Squared distance of p and the closed triangle t: over the face when the
 * foot is inside (all three edge sides agree with the normal), else the
 * nearest edge. */
static real point_triangle2(const real p[3], const real t[3][3])
{
    real e1[3], e2[3], n[3], w[3];
    sub_l(e1, t[1], t[0]);
    sub_l(e2, t[2], t[0]);
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    real nn = dot_l(n, n);
    if (nn > 0) {
        int inside = 1;
        for (int i = 0; i < 3 && inside; i++) {
            real e[3], v[3], c[3];
            sub_l(e, t[(i + 1) % 3], t[i]);
            sub_l(v, p, t[i]);
            c[0] = e[1] * v[2] - e[2] * v[1];
            c[1] = e[2] * v[0] - e[0] * v[2];
            c[2] = e[0] * v[1] - e[1] * v[0];
            inside = dot_l(c, n) >= 0;
        }
        if (inside) {
            sub_l(w, p, t[0]);
            real h = dot_l(w, n);
            return h * h / nn;
        }
    }
    real best = INFINITY;
    for (int i = 0; i < 3; i++) {
        real d = point_segment2(p, t[i], t[(i + 1) % 3]);
        best = d < best ? d : best;
    }
    return best;
}

/* Squared distance of segments a0a1 and b0b1: the four endpoint-segment
 * distances, and the stationary point of the two lines when it falls
 * inside both. */
static real segment_segment2(const real a0[3], const real a1[3], const real b0[3], const real b1[3])
{
    real best = point_segment2(a0, b0, b1), d;
    if ((d = point_segment2(a1, b0, b1)) < best)
        best = d;
    if ((d = point_segment2(b0, a0, a1)) < best)
        best = d;
    if ((d = point_segment2(b1, a0, a1)) < best)
        best = d;
    real u[3], v[3], r[3];
    sub_l(u, a1, a0);
    sub_l(v, b1, b0);
    sub_l(r, a0, b0);
    real a = dot_l(u, u), b = dot_l(u, v), c = dot_l(v, v), e = dot_l(u, r), f = dot_l(v, r);
    real denom = a * c - b * b;
    if (denom > 1e-30L * a * c) {
        real s = (b * f - c * e) / denom, t = (a * f - b * e) / denom;
        if (s > 0 && s < 1 && t > 0 && t < 1) {
            real x[3];
            for (int k = 0; k < 3; k++)
                x[k] = a0[k] + s * u[k] - b0[k] - t * v[k];
            if ((d = dot_l(x, x)) < best)
                best = d;
        }
    }
    return best;
}

/* The oracle's distance of two triangles given in double: 0 where they
 * meet (exact), else the least of the 6 point-triangle and 9 edge-edge
 * distances, in long double. */
static real oracle_triangles(const double *const a[3], const double *const b[3])
{
    if (glcollide_tri_tri_overlap(a[0], a[1], a[2], b[0], b[1], b[2]))
        return 0;
    real la[3][3], lb[3][3];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            la[i][k] = a[i][k];
            lb[i][k] = b[i][k];
        }
    real best = INFINITY, d;
    for (int i = 0; i < 3; i++) {
        if ((d = point_triangle2(la[i], lb)) < best)
            best = d;
        if ((d = point_triangle2(lb[i], la)) < best)
            best = d;
        for (int j = 0; j < 3; j++)
            if ((d = segment_segment2(la[i], la[(i + 1) % 3], lb[j], lb[(j + 1) % 3])) < best)
                best = d;
    }
    return sqrtl(best);
}

/* World positions of object o (as glcollide_pose_transform_points
 * computes them), allocated. */
static double *world_positions(const glcollide_world *world, const glcollide_mesh *mesh, uint32_t o)
{
    double *p = malloc(3 * mesh->vertex_count * sizeof *p + 1);
    ck_assert_ptr_nonnull(p);
    glcollide_pose_transform_points(&glcollide_world_object(world, o)->pose, mesh->positions,
                                    mesh->vertex_count, p);
    return p;
}

static void triangle_corners(const double *positions, const glcollide_mesh *mesh, uint32_t t,
                             const double *out[3])
{
    for (int c = 0; c < 3; c++)
        out[c] = positions + 3 * (size_t)mesh->triangles[3 * (size_t)t + c];
}

/* Box distance of two triangles in long double (a lower bound of theirs). */
static real box_gap(const double *const a[3], const double *const b[3])
{
    real d2 = 0;
    for (int k = 0; k < 3; k++) {
        real lo_a = fminl(a[0][k], fminl(a[1][k], a[2][k])),
             hi_a = fmaxl(a[0][k], fmaxl(a[1][k], a[2][k]));
        real lo_b = fminl(b[0][k], fminl(b[1][k], b[2][k])),
             hi_b = fmaxl(b[0][k], fmaxl(b[1][k], b[2][k]));
        real g = lo_b > hi_a ? lo_b - hi_a : (lo_a > hi_b ? lo_a - hi_b : 0);
        d2 += g * g;
    }
    return sqrtl(d2);
}

/* The oracle's distance of objects 0 and 1 of world (meshes ma, mb): every
 * triangle pair (those whose boxes are farther than the best so far cannot
 * be nearer), and 0 when one closed mesh holds a vertex of the other. */
static real oracle_objects(const glcollide_world *world, const glcollide_mesh *ma,
                           const glcollide_mesh *mb, int closed_a, int closed_b)
{
    double *pa = world_positions(world, ma, 0), *pb = world_positions(world, mb, 1);
    real best = INFINITY;
    for (uint32_t i = 0; i < ma->triangle_count && best > 0; i++) {
        const double *ta[3];
        triangle_corners(pa, ma, i, ta);
        for (uint32_t j = 0; j < mb->triangle_count && best > 0; j++) {
            const double *tb[3];
            triangle_corners(pb, mb, j, tb);
            if (box_gap(ta, tb) > best)
                continue;
            real d = oracle_triangles(ta, tb);
            best = d < best ? d : best;
        }
    }
    /* The meshes at their world positions. */
    const glcollide_mesh world_a = {pa, ma->triangles, ma->vertex_count, ma->triangle_count, NULL};
    const glcollide_mesh world_b = {pb, mb->triangles, mb->vertex_count, mb->triangle_count, NULL};
    if (best > 0 &&
        ((closed_b && glcollide_point_in_mesh(&world_b, NULL, pa + 3 * ma->triangles[0])) ||
         (closed_a && glcollide_point_in_mesh(&world_a, NULL, pb + 3 * mb->triangles[0]))))
        best = 0;
    free(pa);
    free(pb);
    return best;
}

/* The result's points lie on its triangles (world positions), as far
 * apart as its distance. */
static void check_witnesses(const glcollide_world *world, const glcollide_mesh *ma,
                            const glcollide_mesh *mb, const glcollide_distance_result *r,
                            double tolerance, const char *what)
{
    TEST_REQUIRE(fabs(gap3(r->point_a, r->point_b) - r->distance) <= tolerance,
                 "%s: points %.17g apart, distance %.17g", what, gap3(r->point_a, r->point_b),
                 r->distance);
    const glcollide_mesh *meshes[2] = {ma, mb};
    const uint32_t triangles[2] = {r->triangle_a, r->triangle_b};
    const double *points[2] = {r->point_a, r->point_b};
    for (int side = 0; side < 2; side++) {
        if (triangles[side] == GLCOLLIDE_NO_TRIANGLE)
            continue;
        TEST_REQUIRE(triangles[side] < meshes[side]->triangle_count, "%s: triangle %u", what,
                     triangles[side]);
        double *p = world_positions(world, meshes[side], (uint32_t)side);
        const double *t[3];
        triangle_corners(p, meshes[side], triangles[side], t);
        real lt[3][3], lp[3];
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++)
                lt[i][k] = t[i][k];
        for (int k = 0; k < 3; k++)
            lp[k] = points[side][k];
        double off = (double)sqrtl(point_triangle2(lp, lt));
        free(p);
        TEST_REQUIRE(off <= tolerance, "%s: point %d is %g off its triangle %u", what, side, off,
                     triangles[side]);
    }
}

/* ---------------------------------------------------------------- analytic cases */

/* The distance of b, placed at t turned by q, from a at the origin, its
 * witnesses checked (to 1e-15); the world made for it and gone. */
static glcollide_distance_result measure(const glcollide_mesh *a, const glcollide_mesh *b,
                                         const double t[3], const double q[4], const char *what)
{
    glcollide_world *world = pair_world(a, b, t, q);
    glcollide_distance_result r = distance_of(world, 0, 1);
    check_witnesses(world, a, b, &r, 1e-15, what);
    glcollide_world_destroy(&world);
    return r;
}

/* Unit cubes along x at gaps from 1 down to 1e-12, and turned about z by
 * 45 degrees (an edge toward the face: the gap shrinks by the half
 * diagonal's excess), about the diagonal (a vertex toward the face). */
START_TEST(test_distance_cubes)
{
    glcollide_mesh *cube = box(0.5, 0.5, 0.5);
    static const double gaps[] = {1.0, 0.25, 1e-3, 1e-9, 1e-12};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        const double t[3] = {1.0 + gaps[g], 0.2, -0.1};
        glcollide_distance_result r = measure(cube, cube, t, identity, "cubes");
        ck_assert_msg(fabs(r.distance - gaps[g]) <= 1e-15, "gap %g: distance %.17g", gaps[g],
                      r.distance);
        ck_assert_double_eq_tol(r.point_a[0], 0.5, 1e-15);
        ck_assert_double_eq_tol(r.point_b[0], 0.5 + gaps[g], 1e-15);
    }
    /* Turned 45 degrees about z: the near edge at x = t - sqrt(2)/2. */
    double q[4];
    quaternion(q, 0, 0, 1, QUARTER_TURN);
    const double t[3] = {1.5, 0.1, 0.05};
    glcollide_distance_result r = measure(cube, cube, t, q, "edge toward face");
    ck_assert_double_eq_tol(r.distance, 1.5 - 0.5 - sqrt(0.5), 1e-15);
    /* Turned so that a corner leads: the nearest corner's x, from the pose. */
    quaternion(q, 1, 1, 0, 0.6);
    const glcollide_pose pose = {{2.0, 0.05, 0.0}, {q[0], q[1], q[2], q[3]}};
    double lowest = INFINITY;
    for (size_t v = 0; v < cube->vertex_count; v++) {
        double p[3];
        glcollide_pose_transform_points(&pose, cube->positions + 3 * v, 1, p);
        if (p[0] < lowest)
            lowest = p[0];
    }
    r = measure(cube, cube, pose.translation, q, "corner toward face");
    ck_assert_double_eq_tol(r.distance, lowest - 0.5, 1e-15);
    ck_assert_double_eq_tol(r.point_b[0], lowest, 1e-15);
    glcollide_mesh_destroy(&cube);
}
END_TEST

/* A pyramid's apex straight over a slab's top face, 0.125 above it. */
START_TEST(test_distance_vertex_over_face)
{
    /* Apex at the origin, base square at z = 1; outward triangles. */
    static const double positions[] = {0, 0, 0, 1, 0, 1, 0, 1, 1, -1, 0, 1, 0, -1, 1};
    static const uint32_t triangles[] = {0, 2, 1, 0, 3, 2, 0, 4, 3, 0, 1, 4, 1, 2, 3, 1, 3, 4};
    glcollide_mesh *pyramid = mesh_of(positions, 5, triangles, 6);
    glcollide_mesh *slab = box(2, 2, 0.5);
    const double t[3] = {0.3, -0.2, 0.5 + 0.125};
    glcollide_distance_result r = measure(slab, pyramid, t, identity, "vertex over face");
    ck_assert_double_eq_tol(r.distance, 0.125, 1e-15);
    ck_assert_double_eq_tol(r.point_b[0], 0.3, 1e-15);
    ck_assert_double_eq_tol(r.point_b[1], -0.2, 1e-15);
    ck_assert_double_eq_tol(r.point_a[2], 0.5, 1e-15);
    glcollide_mesh_destroy(&pyramid);
    glcollide_mesh_destroy(&slab);
}
END_TEST

/* Both cubes turned 45 degrees about z: their near vertical edges are
 * parallel, 1.4 - sqrt(2) apart; turned about x and y instead, a top
 * edge along y under a bottom edge along x: crossing edges. */
START_TEST(test_distance_edges)
{
    glcollide_mesh *cube = box(0.5, 0.5, 0.5);
    double q[4];
    quaternion(q, 0, 0, 1, QUARTER_TURN);
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, cube, NULL), GLCOLLIDE_OK);
    const double t0[3] = {0, 0, 0}, t1[3] = {1.5, 0, 0.3};
    ck_assert_int_eq(glcollide_world_add_object(world, 0, t0, q, NULL), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_object(world, 0, t1, q, NULL), GLCOLLIDE_OK);
    glcollide_distance_result r = distance_of(world, 0, 1);
    ck_assert_double_eq_tol(r.distance, 1.5 - sqrt(2.0), 1e-15);
    check_witnesses(world, cube, cube, &r, 1e-15, "parallel edges");
    glcollide_world_destroy(&world);

    double qa[4], qb[4];
    quaternion(qa, 0, 1, 0, QUARTER_TURN); /* A's top edge runs along y */
    quaternion(qb, 1, 0, 0, QUARTER_TURN); /* B's bottom edge runs along x */
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, cube, NULL), GLCOLLIDE_OK);
    const double t2[3] = {0.1, -0.05, 1.6};
    ck_assert_int_eq(glcollide_world_add_object(world, 0, t0, qa, NULL), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_object(world, 0, t2, qb, NULL), GLCOLLIDE_OK);
    r = distance_of(world, 0, 1);
    ck_assert_double_eq_tol(r.distance, 1.6 - sqrt(2.0), 1e-15);
    ck_assert_double_eq_tol(r.point_a[0], 0.0, 1e-15); /* on A's edge, above B's */
    ck_assert_double_eq_tol(r.point_a[1], -0.05, 1e-15);
    ck_assert_double_eq_tol(r.point_b[0], 0.0, 1e-15);
    check_witnesses(world, cube, cube, &r, 1e-15, "crossing edges");
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&cube);
}
END_TEST

/* Touching face to face, edge to face, corner to corner (0, a point of
 * both surfaces); overlapping (0); and the smallest gaps double holds. */
START_TEST(test_distance_touching)
{
    glcollide_mesh *cube = box(0.5, 0.5, 0.5);
    const double faces[3] = {1.0, 0.3, 0.0}, corners[3] = {1.0, 1.0, 1.0},
                 overlap[3] = {0.7, 0.2, 0.1};
    const double *cases[3] = {faces, corners, overlap};
    for (int c = 0; c < 3; c++) {
        glcollide_distance_result r = measure(cube, cube, cases[c], identity, "touching");
        ck_assert_msg(r.distance == 0.0, "case %d: %g", c, r.distance);
        ck_assert(r.point_a[0] == r.point_b[0] && r.point_a[1] == r.point_b[1] &&
                  r.point_a[2] == r.point_b[2]);
    }
    /* An edge on a face: sqrt(0.5) rounds, so within an ulp of it, either side. */
    double q[4];
    quaternion(q, 0, 0, 1, QUARTER_TURN);
    const double edge[3] = {0.5 + sqrt(0.5), 0, 0};
    ck_assert(measure(cube, cube, edge, q, "edge on face").distance <= 1e-15);
    /* One ulp apart at x = 1: still apart, and by that much. */
    const double ulp[3] = {nextafter(1.0, 2.0), 0, 0};
    double d = measure(cube, cube, ulp, identity, "an ulp apart").distance;
    ck_assert(d > 0.0 && d <= 4 * DBL_EPSILON);
    glcollide_mesh_destroy(&cube);
}
END_TEST

/* A small sphere inside a large one, surfaces 0.4 apart: 0, at the inner
 * sphere's first corner, no triangle of the outer; in both orders. A
 * triangle (open) inside a cube: 0 too. A cube inside an open box (no
 * lid): the surfaces' distance. */
START_TEST(test_distance_inside)
{
    glcollide_mesh *outer = sphere(1.0), *inner = sphere(0.5);
    const double t[3] = {0.05, -0.02, 0.03};
    glcollide_world *world = pair_world(outer, inner, t, identity);
    glcollide_distance_result r = distance_of(world, 0, 1);
    ck_assert(r.distance == 0.0);
    ck_assert(r.triangle_a == GLCOLLIDE_NO_TRIANGLE && r.triangle_b < inner->triangle_count);
    ck_assert(gap3(r.point_a, r.point_b) == 0.0);
    check_witnesses(world, outer, inner, &r, 1e-15, "inside");
    glcollide_distance_result s = distance_of(world, 1, 0);
    ck_assert(s.distance == 0.0 && s.triangle_b == GLCOLLIDE_NO_TRIANGLE &&
              s.triangle_a == r.triangle_b);
    /* With a bound below the surfaces' gap: still 0 (containment). */
    ck_assert_int_eq(glcollide_world_distance(world, 0, 1, 0.0, &r), GLCOLLIDE_OK);
    ck_assert(r.distance == 0.0);
    glcollide_world_destroy(&world);

    static const double tri_positions[] = {0, 0, 0, 0.2, 0, 0, 0, 0.2, 0};
    static const uint32_t tri[] = {0, 1, 2};
    glcollide_mesh *triangle = mesh_of(tri_positions, 3, tri, 1);
    glcollide_mesh *cube = box(0.5, 0.5, 0.5);
    world = pair_world(cube, triangle, t, identity);
    r = distance_of(world, 0, 1);
    ck_assert(r.distance == 0.0 && r.triangle_b == 0 && r.triangle_a == GLCOLLIDE_NO_TRIANGLE);
    glcollide_world_destroy(&world);

    /* A box without its lid (10 of 12 triangles): open, so the cube inside
     * is its surfaces' distance away: 0.5 from the floor. */
    glcollide_mesh *open = box(1, 1, 1);
    uint32_t kept[30];
    size_t n = 0;
    for (size_t f = 0; f < open->triangle_count; f++) {
        int top = 1;
        for (int c = 0; c < 3; c++)
            top &= open->positions[3 * open->triangles[3 * f + c] + 2] > 0.5;
        for (int c = 0; c < 3 && !top; c++)
            kept[n++] = open->triangles[3 * f + c];
    }
    ck_assert_uint_eq(n, 30);
    glcollide_mesh *cup = mesh_of(open->positions, open->vertex_count, kept, 10);
    glcollide_mesh *small = box(0.25, 0.25, 0.25);
    const double above_floor[3] = {0, 0, -0.25};
    ck_assert_double_eq_tol(measure(cup, small, above_floor, identity, "cup").distance, 0.5, 1e-15);
    glcollide_mesh_destroy(&outer);
    glcollide_mesh_destroy(&inner);
    glcollide_mesh_destroy(&triangle);
    glcollide_mesh_destroy(&cube);
    glcollide_mesh_destroy(&open);
    glcollide_mesh_destroy(&cup);
    glcollide_mesh_destroy(&small);
}
END_TEST

/* Triangles without area: a segment (collinear corners) and a point
 * (repeated corners) over a face and beside an edge. */
START_TEST(test_distance_degenerate)
{
    static const double positions[] = {/* a segment along x at z = 0.75 over the cube's top face */
                                       -0.2, 0.1, 0.75, 0.0, 0.1, 0.75, 0.3, 0.1, 0.75,
                                       /* a point at (0.9, 0.1, 0.2): 0.4 beside the +x face */
                                       0.9, 0.1, 0.2};
    static const uint32_t triangles[] = {0, 1, 2, 3, 3, 3};
    glcollide_mesh *cube = box(0.5, 0.5, 0.5);
    static const double origin[3] = {0, 0, 0};
    glcollide_mesh *segment = mesh_of(positions, 4, triangles, 1);
    glcollide_distance_result r = measure(cube, segment, origin, identity, "segment");
    ck_assert_double_eq_tol(r.distance, 0.25, 1e-15);
    ck_assert_double_eq_tol(r.point_b[2], 0.75, 1e-15);
    glcollide_mesh *point = mesh_of(positions, 4, triangles + 3, 1);
    r = measure(cube, point, origin, identity, "point");
    ck_assert_double_eq_tol(r.distance, 0.4, 1e-15);
    ck_assert(r.point_b[0] == 0.9 && r.triangle_b == 0);
    /* A point against a point. */
    const double apart[3] = {0.3, 0.4, 0};
    ck_assert_double_eq_tol(measure(point, point, apart, identity, "points").distance, 0.5, 1e-15);
    glcollide_mesh_destroy(&cube);
    glcollide_mesh_destroy(&segment);
    glcollide_mesh_destroy(&point);
}
END_TEST

/* ---------------------------------------------------------------- random poses */

/* Generated meshes (plates, spheres, tori, capsules, knots, sliver fans)
 * of different sizes at random poses, from deep overlap and containment
 * to apart by more than their size: the oracle's distance to 1e-12
 * (relative, or 1e-15 of the scene's size), 0 exactly where it says 0, the
 * points on their triangles and as far apart; the same answer to the last
 * bit with the objects swapped, the same distance with a bound above it. */
START_TEST(test_distance_random_oracle)
{
    test_rng rng = {20261125};
    int zeros = 0, contained = 0, apart = 0;
    double start = test_now_ms();
    for (int trial = 0; trial < 160; trial++) {
        double sa = test_rng_uniform(&rng, 0.5, 2.0), sb = test_rng_uniform(&rng, 0.2, 2.0);
        glcollide_mesh *ma = test_random_mesh(&rng, sa), *mb = test_random_mesh(&rng, sb);
        double q[4], t[3];
        test_rng_quaternion(&rng, q);
        double reach = test_rng_uniform(&rng, 0.0, 1.5) * (sa + sb);
        double u[3];
        for (int k = 0; k < 3; k++)
            u[k] = test_rng_uniform(&rng, -1, 1);
        double n = gap3(u, (double[3]){0, 0, 0});
        for (int k = 0; k < 3; k++)
            t[k] = u[k] / n * reach;
        glcollide_world *world = pair_world(ma, mb, t, q);
        glcollide_distance_result r = distance_of(world, 0, 1);
        glcollide_mesh_report ra, rb;
        ck_assert_int_eq(glcollide_mesh_validate(ma, &ra), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_validate(mb, &rb), GLCOLLIDE_OK);
        double expected = (double)oracle_objects(world, ma, mb, ra.closed, rb.closed);
        double size = 4 * (sa + sb + reach);
        char what[64];
        snprintf(what, sizeof what, "trial %d", trial);
        if (expected == 0.0) {
            TEST_REQUIRE(r.distance == 0.0, "%s: distance %.17g, oracle 0", what, r.distance);
            zeros++;
            contained +=
                r.triangle_a == GLCOLLIDE_NO_TRIANGLE || r.triangle_b == GLCOLLIDE_NO_TRIANGLE;
        } else {
            TEST_REQUIRE(fabs(r.distance - expected) <= 1e-12 * expected + 1e-15 * size,
                         "%s: distance %.17g, oracle %.17g", what, r.distance, expected);
            apart++;
        }
        check_witnesses(world, ma, mb, &r, 1e-12 * r.distance + 1e-15 * size, what);
        glcollide_distance_result s = distance_of(world, 1, 0);
        TEST_REQUIRE(s.distance == r.distance && s.triangle_a == r.triangle_b &&
                         s.triangle_b == r.triangle_a && !memcmp(s.point_a, r.point_b, 24) &&
                         !memcmp(s.point_b, r.point_a, 24),
                     "%s: swapped, %.17g", what, s.distance);
        /* With a bound above it: the same distance (where pairs tie, the
         * search may settle on another of them). */
        ck_assert_int_eq(glcollide_world_distance(world, 0, 1, 2 * r.distance + 1, &s),
                         GLCOLLIDE_OK);
        TEST_REQUIRE(s.distance == r.distance, "%s: with a bound, %.17g", what, s.distance);
        check_witnesses(world, ma, mb, &s, 1e-12 * s.distance + 1e-15 * size, what);
        glcollide_world_destroy(&world);
        glcollide_mesh_destroy(&ma);
        glcollide_mesh_destroy(&mb);
    }
    printf("distance: 160 random poses against the oracle: %d apart, %d at 0 (%d by "
           "containment), %.0f ms\n",
           apart, zeros, contained, test_now_ms() - start);
    ck_assert(apart > 40 && zeros > 20 && contained > 0);
}
END_TEST

/* ---------------------------------------------------------------- upper bound */

/* A box turned by 0.7 rad about (1, 2, 3) and moved to (2.1, 0.4, -0.3),
 * beside a unit sphere: apart by about 0.6, no face parallel to another. */
static const double turned_t[3] = {2.1, 0.4, -0.3};
static const double turned_q[4] = {0.9393727128473789, 0.0916432938695913, 0.1832865877391826,
                                   0.2749298816087739};

/* Below the distance: a lower bound above the bound, no points or
 * triangles; at or above it: the exact answer, as with no bound. */
START_TEST(test_distance_upper_bound)
{
    glcollide_mesh *a = sphere(1.0), *b = box(0.3, 0.4, 0.5);
    glcollide_world *world = pair_world(a, b, turned_t, turned_q);
    glcollide_distance_result exact = distance_of(world, 0, 1), r;
    ck_assert(exact.distance > 0.1);
    const double bounds[] = {0.0, 1e-9, 0.5 * exact.distance, 0.999 * exact.distance};
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
        ck_assert_int_eq(glcollide_world_distance(world, 0, 1, bounds[i], &r), GLCOLLIDE_OK);
        ck_assert_msg(r.distance > bounds[i] && r.distance <= exact.distance,
                      "bound %g: %.17g (exact %.17g)", bounds[i], r.distance, exact.distance);
        ck_assert(isnan(r.point_a[0]) && isnan(r.point_b[2]));
        ck_assert(r.triangle_a == GLCOLLIDE_NO_TRIANGLE && r.triangle_b == GLCOLLIDE_NO_TRIANGLE);
    }
    const double above[] = {exact.distance, 1.001 * exact.distance, 10.0};
    for (size_t i = 0; i < sizeof above / sizeof above[0]; i++) {
        ck_assert_int_eq(glcollide_world_distance(world, 0, 1, above[i], &r), GLCOLLIDE_OK);
        ck_assert(!memcmp(&r, &exact, sizeof r));
    }
    glcollide_world_destroy(&world);
    /* Touching, with a bound of 0: the exact 0. */
    const double touch[3] = {1.3, 0, 0};
    world = pair_world(a, b, touch, identity);
    ck_assert_int_eq(glcollide_world_distance(world, 0, 1, 0.0, &r), GLCOLLIDE_OK);
    ck_assert(r.distance == 0.0 && r.triangle_a != GLCOLLIDE_NO_TRIANGLE);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&a);
    glcollide_mesh_destroy(&b);
}
END_TEST

/* ---------------------------------------------------------------- the query */

/* Random scenes: the exact query with distance D pairs (i, j) exactly when
 * glcollide_world_distance(i, j) <= D, at D = the distance itself and the
 * double below it. */
START_TEST(test_distance_agrees_with_query)
{
    test_rng rng = {77};
    glcollide_mesh *meshes[4];
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    for (int m = 0; m < 4; m++) {
        meshes[m] = test_random_mesh(&rng, test_rng_uniform(&rng, 0.3, 1.0));
        ck_assert_int_eq(glcollide_world_add_mesh(world, meshes[m], NULL), GLCOLLIDE_OK);
    }
    enum { N = 12 };
    for (int o = 0; o < N; o++) {
        double t[3], q[4];
        for (int k = 0; k < 3; k++)
            t[k] = test_rng_uniform(&rng, -2.5, 2.5);
        test_rng_quaternion(&rng, q);
        ck_assert_int_eq(glcollide_world_add_object(world, test_rng_below(&rng, 4), t, q, NULL),
                         GLCOLLIDE_OK);
    }
    glcollide_query_result result = {0};
    glcollide_query_options options = glcollide_query_default_options();
    int checked = 0;
    for (uint32_t i = 0; i < N; i++)
        for (uint32_t j = i + 1; j < N; j++) {
            glcollide_distance_result r = distance_of(world, i, j);
            if (r.distance == 0.0 || r.distance > 3.0)
                continue;
            for (int below = 0; below < 2; below++) {
                options.distance = below ? nextafter(r.distance, 0.0) : r.distance;
                ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &result),
                                 GLCOLLIDE_OK);
                int paired = 0;
                for (size_t k = 0; k < result.pair_count; k++)
                    paired |= result.pairs[k].a == i && result.pairs[k].b == j;
                TEST_REQUIRE(paired == !below, "pair %u %u: distance %.17g, query at %.17g: %s", i,
                             j, r.distance, options.distance, paired ? "paired" : "not");
            }
            checked++;
        }
    ck_assert(checked > 10);
    glcollide_query_result_clear(&result);
    glcollide_world_destroy(&world);
    for (int m = 0; m < 4; m++)
        glcollide_mesh_destroy(&meshes[m]);
}
END_TEST

/* ---------------------------------------------------------------- scale and changes */

/* The same scene at 2^600 and 2^-600: the distance scales exactly with it
 * (powers of two), and the points too. */
START_TEST(test_distance_scale)
{
    glcollide_mesh *a = sphere(1.0), *b = box(0.3, 0.4, 0.5);
    glcollide_world *world = pair_world(a, b, turned_t, turned_q);
    glcollide_distance_result base = distance_of(world, 0, 1);
    glcollide_world_destroy(&world);
    const double factors[] = {0x1p600, 0x1p-600, 0x1p-1000};
    for (size_t f = 0; f < sizeof factors / sizeof factors[0]; f++) {
        glcollide_mesh *sa = NULL, *sb = NULL;
        ck_assert_int_eq(glcollide_mesh_create(a->positions, a->vertex_count, a->triangles,
                                               a->triangle_count, "a", &sa),
                         GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_create(b->positions, b->vertex_count, b->triangles,
                                               b->triangle_count, "b", &sb),
                         GLCOLLIDE_OK);
        for (size_t i = 0; i < 3 * sa->vertex_count; i++)
            sa->positions[i] *= factors[f];
        for (size_t i = 0; i < 3 * sb->vertex_count; i++)
            sb->positions[i] *= factors[f];
        const double st[3] = {turned_t[0] * factors[f], turned_t[1] * factors[f],
                              turned_t[2] * factors[f]};
        world = pair_world(sa, sb, st, turned_q);
        glcollide_distance_result r = distance_of(world, 0, 1);
        ck_assert_msg(fabs(r.distance / factors[f] - base.distance) <= 1e-14 * base.distance,
                      "factor %g: %.17g, at 1: %.17g", factors[f], r.distance / factors[f],
                      base.distance);
        ck_assert(r.triangle_a == base.triangle_a && r.triangle_b == base.triangle_b);
        glcollide_world_destroy(&world);
        glcollide_mesh_destroy(&sa);
        glcollide_mesh_destroy(&sb);
    }
    glcollide_mesh_destroy(&a);
    glcollide_mesh_destroy(&b);
}
END_TEST

/* A mesh deformed in place (glcollide_world_mesh_changed) and an empty
 * mesh: the distance follows the change; no triangles, no distance. */
START_TEST(test_distance_changes_and_empty)
{
    glcollide_mesh *a = box(0.5, 0.5, 0.5), *b = box(0.5, 0.5, 0.5);
    const double t[3] = {2, 0, 0};
    glcollide_world *world = pair_world(a, b, t, identity);
    ck_assert_double_eq_tol(distance_of(world, 0, 1).distance, 1.0, 1e-15);
    for (size_t i = 0; i < b->vertex_count; i++)
        b->positions[3 * i] *= 2; /* b now spans x in [1, 3] */
    ck_assert_int_eq(glcollide_world_mesh_changed(world, 1, 0, b->vertex_count), GLCOLLIDE_OK);
    ck_assert_double_eq_tol(distance_of(world, 0, 1).distance, 0.5, 1e-15);
    glcollide_world_destroy(&world);
    glcollide_mesh *empty = mesh_of(NULL, 0, NULL, 0);
    world = pair_world(a, empty, t, identity);
    glcollide_distance_result r = distance_of(world, 0, 1);
    ck_assert(isinf(r.distance) && isnan(r.point_a[0]) && r.triangle_a == GLCOLLIDE_NO_TRIANGLE);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&a);
    glcollide_mesh_destroy(&b);
    glcollide_mesh_destroy(&empty);
}
END_TEST

/* ---------------------------------------------------------------- real meshes */

/* Loads a data mesh fitted to a unit box; NULL (and a note) if missing. */
static glcollide_mesh *data_mesh(const char *name)
{
    char path[4096];
    glcollide_mesh *mesh = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int found = glcollide_mesh_find_data(name, path, sizeof path) == GLCOLLIDE_OK;
    test_log_capture_stop();
    if (!found) {
        printf("distance: %s missing, its cases skipped (make meshes)\n", name);
        return NULL;
    }
    ck_assert_int_eq(glcollide_mesh_load(path, 1.0, &mesh), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_fit(mesh, 1.0), GLCOLLIDE_OK);
    return mesh;
}

typedef struct near_pairs {
    const glcollide_mesh *ma, *mb;
    const double *pa, *pb;
    real best;
    size_t pairs;
} near_pairs;

static int oracle_pair(uint32_t ta, uint32_t tb, void *user)
{
    near_pairs *n = user;
    const double *a[3], *b[3];
    triangle_corners(n->pa, n->ma, ta, a);
    triangle_corners(n->pb, n->mb, tb, b);
    real d = oracle_triangles(a, b);
    n->best = d < n->best ? d : n->best;
    n->pairs++;
    return 0;
}

/* Moves object 1 of world along direction until the distance is gap:
 * bisection (the meshes are fitted to unit boxes about the origin, so 0
 * overlaps and 3 is apart); gap 0: the last pose still apart. */
static void place_at_gap(glcollide_world *world, const double q[4], const double direction[3],
                         double gap)
{
    double n = gap3(direction, (double[3]){0, 0, 0}), lo = 0.0, hi = 3.0, t[3];
    for (int i = 0; i < 60; i++) {
        double mid = 0.5 * (lo + hi);
        for (int k = 0; k < 3; k++)
            t[k] = direction[k] / n * mid;
        ck_assert_int_eq(glcollide_world_set_pose(world, 1, t, q), GLCOLLIDE_OK);
        if (distance_of(world, 0, 1).distance <= gap)
            lo = mid;
        else
            hi = mid;
    }
    for (int k = 0; k < 3; k++)
        t[k] = direction[k] / n * hi;
    ck_assert_int_eq(glcollide_world_set_pose(world, 1, t, q), GLCOLLIDE_OK);
}

/* Pairs of real meshes 1% of their size apart, 0.1% apart, just apart,
 * and deep in each other: the oracle on every triangle pair the overlap
 * traversal finds within the distance (and a little more) must find that
 * distance, no less (to 1e-12, or 1e-15 of the unit-sized meshes where
 * just apart), and the points lie on their triangles. */
START_TEST(test_distance_real_meshes)
{
    static const char *const names[] = {"bunny00.off", "armadillo.off", "refined_elephant.off"};
    static const struct {
        int a, b;
        double axis[3], angle, direction[3], gap;
    } poses[] = {
        {0, 0, {0, 1, 0}, 0.5, {1, 0, 0}, 0.01},   {0, 0, {1, 1, 0}, 2.0, {0.3, 1, 0.2}, 0.001},
        {1, 2, {1, 0, 0}, 1.0, {1, 0.2, 0}, 0.01}, {1, 1, {0, 0, 1}, 3.1, {1, 0, 0}, 0.0},
        {2, 0, {0, 1, 1}, 2.5, {0, 1, 0.3}, 0.01}, {0, 1, {0, 1, 0}, 0.3, {1, 0, 0}, -1},
    };
    glcollide_mesh *meshes[3];
    for (int m = 0; m < 3; m++)
        meshes[m] = data_mesh(names[m]);
    int done = 0;
    for (size_t p = 0; p < sizeof poses / sizeof poses[0]; p++) {
        const glcollide_mesh *ma = meshes[poses[p].a], *mb = meshes[poses[p].b];
        if (!ma || !mb)
            continue;
        double q[4];
        quaternion(q, poses[p].axis[0], poses[p].axis[1], poses[p].axis[2], poses[p].angle);
        static const double origin[3] = {0, 0, 0};
        glcollide_world *world = pair_world(ma, mb, origin, q);
        if (poses[p].gap >= 0) /* else deep in each other, at the origin */
            place_at_gap(world, q, poses[p].direction, poses[p].gap);
        glcollide_distance_result r = distance_of(world, 0, 1);
        char what[64];
        snprintf(what, sizeof what, "%s-%s pose %zu", names[poses[p].a], names[poses[p].b], p);
        check_witnesses(world, ma, mb, &r, 1e-12, what);
        near_pairs near = {ma, mb, NULL, NULL, INFINITY, 0};
        double *pa = world_positions(world, ma, 0), *pb = world_positions(world, mb, 1);
        near.pa = pa;
        near.pb = pb;
        glcollide_bvh *ba = NULL, *bb = NULL;
        ck_assert_int_eq(glcollide_bvh_create(ma, &ba), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_bvh_create(mb, &bb), GLCOLLIDE_OK);
        glcollide_bvh_overlap_posed(ba, &glcollide_world_object(world, 0)->pose, bb,
                                    &glcollide_world_object(world, 1)->pose, r.distance / 2 + 1e-9,
                                    oracle_pair, &near);
        TEST_REQUIRE(near.pairs > 0, "%s: no pair within %g", what, r.distance);
        if (r.distance == 0.0)
            TEST_REQUIRE(near.best == 0, "%s: 0, the oracle %.17Lg", what, near.best);
        else
            TEST_REQUIRE(fabsl(near.best - r.distance) <= 1e-12 * r.distance + 1e-15,
                         "%s: %.17g, the oracle %.17Lg over %zu pairs", what, r.distance, near.best,
                         near.pairs);
        printf("distance: %s: %.9g (the oracle on the %zu pairs within it)\n", what, r.distance,
               near.pairs);
        glcollide_bvh_destroy(&ba);
        glcollide_bvh_destroy(&bb);
        free(pa);
        free(pb);
        glcollide_world_destroy(&world);
        done++;
    }
    for (int m = 0; m < 3; m++)
        glcollide_mesh_destroy(&meshes[m]);
    if (!done)
        printf("distance: no real mesh found, the real-mesh cases skipped\n");
}
END_TEST

/* ---------------------------------------------------------------- bad input */

START_TEST(test_distance_bad_input)
{
    glcollide_mesh *cube = box(0.5, 0.5, 0.5);
    const double t[3] = {2, 0, 0};
    glcollide_world *world = pair_world(cube, cube, t, identity);
    glcollide_distance_result r;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_world_distance(world, 0, 1, INFINITY, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "distance: result is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_world_distance(NULL, 0, 1, INFINITY, &r);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "distance: world is NULL");
    ck_assert(isnan(r.distance) && r.triangle_a == GLCOLLIDE_NO_TRIANGLE);
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_world_distance(world, 0, 2, INFINITY, &r);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "distance: no object 2 (the world has 2)");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_world_distance(world, UINT32_MAX, 0, INFINITY, &r);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "distance: no object 4294967295 (the world has 2)");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_world_distance(world, 1, 1, INFINITY, &r);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "distance: object 1 against itself");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_world_distance(world, 0, 1, NAN, &r);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "distance: upper_bound must be >= 0 (INFINITY: no bound), got nan");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_world_distance(world, 0, 1, -1.0, &r);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "distance: upper_bound must be >= 0 (INFINITY: no bound), got -1");
    /* NaN poses never reach a world; a pose whose placed mesh leaves
     * double's range does. */
    const double nan_t[3] = {NAN, 0, 0};
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_world_set_pose(world, 1, nan_t, identity);
    ck_assert_int_eq(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(test_log_count(), 1);
    glcollide_mesh *huge = box(1e308, 1, 1);
    uint32_t mesh = 0, object = 0;
    ck_assert_int_eq(glcollide_world_add_mesh(world, huge, &mesh), GLCOLLIDE_OK);
    const double far[3] = {DBL_MAX, 0, 0};
    ck_assert_int_eq(glcollide_world_add_object(world, mesh, far, identity, &object), GLCOLLIDE_OK);
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_world_distance(world, 0, object, INFINITY, &r);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "distance: object 2 (mesh box) has non-finite coordinates");
    ck_assert(isnan(r.distance));
    test_log_capture_stop();
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&cube);
    glcollide_mesh_destroy(&huge);
}
END_TEST

Suite *suite_distance(void)
{
    Suite *s = suite_create("distance");
    TCase *tc = tcase_create("distance");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_distance_cubes);
    tcase_add_test(tc, test_distance_vertex_over_face);
    tcase_add_test(tc, test_distance_edges);
    tcase_add_test(tc, test_distance_touching);
    tcase_add_test(tc, test_distance_inside);
    tcase_add_test(tc, test_distance_degenerate);
    tcase_add_test(tc, test_distance_random_oracle);
    tcase_add_test(tc, test_distance_upper_bound);
    tcase_add_test(tc, test_distance_agrees_with_query);
    tcase_add_test(tc, test_distance_scale);
    tcase_add_test(tc, test_distance_changes_and_empty);
    tcase_add_test(tc, test_distance_real_meshes);
    tcase_add_test(tc, test_distance_bad_input);
    suite_add_tcase(s, tc);
    return s;
}
