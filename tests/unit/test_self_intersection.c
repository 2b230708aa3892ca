/* SPDX-License-Identifier: MIT */
/*
 * glcollide_mesh_self_intersections: every generated and real closed mesh
 * is a simple surface (0); hand-made surfaces that pass through themselves
 * are found; the adjacency cases (shared edge or vertex, coplanar or not,
 * folded or not, zero area) are decided as documented. (That the methods
 * answer for such meshes by their winding number: tests/gpu/test_bad_input.c.)
 */
#include "helpers/tests.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t self_count(const glcollide_mesh *mesh)
{
    size_t count = 99;
    ck_assert_int_eq(glcollide_mesh_self_intersections(mesh, &count, NULL), GLCOLLIDE_OK);
    return count;
}

static glcollide_mesh *make_mesh(const double *positions, size_t vertex_count,
                                 const uint32_t *triangles, size_t triangle_count, const char *name)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_create(positions, vertex_count, triangles, triangle_count, name,
                                           &mesh),
                     GLCOLLIDE_OK);
    return mesh;
}

/* Two triangles (or more) given inline, not a closed mesh: the count only. */
static size_t triangles_count(const double *positions, size_t vertex_count,
                              const uint32_t *triangles, size_t triangle_count)
{
    glcollide_mesh *mesh = make_mesh(positions, vertex_count, triangles, triangle_count, "pair");
    size_t count = self_count(mesh);
    glcollide_mesh_destroy(&mesh);
    return count;
}

START_TEST(test_generated_meshes)
{
    glcollide_mesh *meshes[12] = {0};
    size_t n = 0;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 0.5, 0.25, &meshes[n++]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 1e-3, 1e-3, &meshes[n++]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(1, 64, 32, &meshes[n++]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(1, 3, 2, &meshes[n++]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_torus(1, 0.3, 48, 24, &meshes[n++]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_torus(1, 0.95, 3, 3, &meshes[n++]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_capsule(0.3, 1, 32, 8, &meshes[n++]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_knot(2, 3, 1, 0.15, 96, 8, &meshes[n++]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_knot(3, 2, 0.5, 0.08, 96, 8, &meshes[n++]),
                     GLCOLLIDE_OK);
    for (size_t i = 0; i < n; i++) {
        size_t count = self_count(meshes[i]);
        ck_assert_msg(count == 0, "generated mesh %zu (%s): %zu self-intersections", i,
                      meshes[i]->name, count);
        glcollide_mesh_destroy(&meshes[i]);
    }
    /* the meshes random test scenes draw from (sliver fans included) */
    test_rng rng = {0x5E1F0000u};
    for (int i = 0; i < 300; i++) {
        glcollide_mesh *mesh = test_random_mesh(&rng, test_rng_uniform(&rng, 1e-3, 10));
        size_t count = self_count(mesh);
        TEST_REQUIRE(count == 0, "random mesh %d (%s): %zu self-intersections", i, mesh->name,
                     count);
        glcollide_mesh_destroy(&mesh);
    }
}
END_TEST

START_TEST(test_real_meshes)
{
    /* cow.off is not a simple surface: 101 triangle pairs cross (triangles
     * 260 and 4706, with no vertex in common, cross in a segment ~5e-3 long
     * on a mesh ~1 across; checked with rational arithmetic as well) */
    static const char *const names[] = {"bunny00.off", "armadillo.off", "elephant.off",
                                        "knot1.off",   "knot2.off",     "dino.off", "cow.off"};
    static const size_t expected[] = {0, 0, 0, 0, 0, 0, 101};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        glcollide_mesh *mesh = NULL;
        ck_assert_int_eq(glcollide_mesh_load(test_data_mesh(names[i]), 1, &mesh), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_require_solid(mesh, NULL), GLCOLLIDE_OK);
        double best = INFINITY;
        size_t count = 0;
        for (int run = 0; run < 3; run++) {
            double start = test_now_ms();
            count = self_count(mesh);
            best = fmin(best, test_now_ms() - start);
        }
        printf("self-intersections: %-14s %6zu triangles: %zu pairs, %.1f ms (best of 3)\n",
               names[i], mesh->triangle_count, count, best);
        fflush(stdout);
        ck_assert_msg(count == expected[i], "%s: %zu self-intersections", names[i], count);
        /* well under a second for 75,000 triangles, even on a loaded CI core */
        ck_assert_msg(best < 1000.0, "%s: %.1f ms", names[i], best);
        glcollide_mesh_destroy(&mesh);
    }
}
END_TEST

/* Two overlapping boxes in one mesh: each closed, together a surface that
 * passes through itself. Apart, the same two boxes are a valid solid. */
static glcollide_mesh *two_boxes(double offset, const char *name)
{
    const double at[3] = {offset / 3, 2 * offset / 3, offset};
    return test_two_boxes(at, 1, 0, name);
}

/* A torus built by hand, tube radius r around a circle of radius R (r > R
 * makes the tube pass through itself near the axis). */
static glcollide_mesh *hand_torus(double major, double minor, uint32_t segments, uint32_t tube)
{
    double *positions = malloc(3 * segments * tube * sizeof *positions);
    uint32_t *triangles = malloc(6 * segments * tube * sizeof *triangles);
    ck_assert(positions && triangles);
    for (uint32_t i = 0; i < segments; i++)
        for (uint32_t j = 0; j < tube; j++) {
            double u = 6.283185307179586 * i / segments, w = 6.283185307179586 * j / tube;
            double *p = positions + 3 * (i * tube + j);
            p[0] = (major + minor * cos(w)) * cos(u);
            p[1] = (major + minor * cos(w)) * sin(u);
            p[2] = minor * sin(w);
        }
    size_t t = 0;
    for (uint32_t i = 0; i < segments; i++)
        for (uint32_t j = 0; j < tube; j++) {
            uint32_t a = i * tube + j, b = ((i + 1) % segments) * tube + j;
            uint32_t c = ((i + 1) % segments) * tube + (j + 1) % tube, d = i * tube + (j + 1) % tube;
            triangles[t++] = a, triangles[t++] = b, triangles[t++] = c;
            triangles[t++] = a, triangles[t++] = c, triangles[t++] = d;
        }
    glcollide_mesh *mesh = make_mesh(positions, segments * tube, triangles, t / 3, "spindle torus");
    free(positions);
    free(triangles);
    return mesh;
}

START_TEST(test_self_intersecting_meshes)
{
    glcollide_mesh *mesh = two_boxes(0.9, "two boxes");
    ck_assert_int_eq(glcollide_mesh_require_solid(mesh, NULL), GLCOLLIDE_OK);
    size_t count = 0;
    uint32_t first[2] = {0, 0};
    ck_assert_int_eq(glcollide_mesh_self_intersections(mesh, &count, first), GLCOLLIDE_OK);
    ck_assert_uint_gt(count, 0);
    ck_assert_uint_lt(first[0], 12); /* a triangle of the first box against one of the second */
    ck_assert_uint_ge(first[1], 12);
    glcollide_mesh_destroy(&mesh);
    mesh = two_boxes(3, "two boxes apart");
    ck_assert_uint_eq(self_count(mesh), 0);
    glcollide_mesh_destroy(&mesh);
    /* touching boxes (the second's -z face on the first's +z face) are not
     * a simple surface either */
    mesh = two_boxes(2, "two boxes touching");
    ck_assert_uint_gt(self_count(mesh), 0);
    glcollide_mesh_destroy(&mesh);

    mesh = hand_torus(1, 0.3, 32, 16);
    ck_assert_uint_eq(self_count(mesh), 0);
    glcollide_mesh_destroy(&mesh);
    mesh = hand_torus(0.5, 0.8, 32, 16);
    ck_assert_uint_gt(self_count(mesh), 0);
    glcollide_mesh_destroy(&mesh);

    /* a box with its +x+y+z corner pushed through the opposite (-z) face */
    glcollide_mesh *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 1, 1, &box), GLCOLLIDE_OK);
    ck_assert_uint_eq(self_count(box), 0);
    box->positions[3 * 7 + 0] = 0.5;
    box->positions[3 * 7 + 1] = 0.5;
    box->positions[3 * 7 + 2] = -2;
    ck_assert_uint_gt(self_count(box), 0);
    glcollide_mesh_destroy(&box);
}
END_TEST

/* Pairs of triangles (not closed meshes) for each adjacency case. */
START_TEST(test_adjacency_cases)
{
    /* 0 1 2 in the plane z = 0; 3 and 4 below and above the edge 0-1 */
    const double p[] = {0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, -1, 0, 0.3, 0.5, 0, 0.5, 0.2, 1,
                        -1, 0, 0, 2, 0, 0, 0.5, -1, 1e-300};
    /* shared edge, coplanar, on opposite sides: only the edge */
    ck_assert_uint_eq(triangles_count(p, 9, (const uint32_t[]){0, 1, 2, 1, 0, 3}, 2), 0);
    /* shared edge, coplanar, third vertices on one side: folded */
    ck_assert_uint_eq(triangles_count(p, 9, (const uint32_t[]){0, 1, 2, 1, 0, 4}, 2), 1);
    /* shared edge, not coplanar, at any dihedral angle */
    ck_assert_uint_eq(triangles_count(p, 9, (const uint32_t[]){0, 1, 2, 1, 0, 5}, 2), 0);
    /* ... even one as flat as doubles allow (vertex 8 is 1e-300 off the plane) */
    ck_assert_uint_eq(triangles_count(p, 9, (const uint32_t[]){0, 1, 2, 1, 0, 8}, 2), 0);
    /* shared vertex 0, coplanar, edges collinear in opposite directions: only the vertex */
    ck_assert_uint_eq(triangles_count(p, 9, (const uint32_t[]){0, 1, 2, 0, 6, 3}, 2), 0);
    /* shared vertex 0, coplanar, edge 0-1 lying along edge 0-7: the edges overlap */
    ck_assert_uint_eq(triangles_count(p, 9, (const uint32_t[]){0, 1, 2, 0, 3, 7}, 2), 1);
    /* shared vertex 0, coplanar, sectors overlapping */
    ck_assert_uint_eq(triangles_count(p, 9, (const uint32_t[]){0, 1, 2, 0, 4, 7}, 2), 1);
    /* shared vertex 0, not coplanar */
    const double q[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, 1, 0.2, 0.2, -1, 0.3, 0.3, 0,
                        -0.2, 0.3, 1};
    /* edge 3-4 pierces triangle 0-1-2 at (0.2, 0.2, 0) */
    ck_assert_uint_eq(triangles_count(q, 7, (const uint32_t[]){0, 1, 2, 0, 3, 4}, 2), 1);
    /* 0-5-3 stands on segment 0-5, which lies in 0-1-2 */
    ck_assert_uint_eq(triangles_count(q, 7, (const uint32_t[]){0, 1, 2, 0, 5, 3}, 2), 1);
    /* 0-3-6 lies above the plane but for vertex 0 */
    ck_assert_uint_eq(triangles_count(q, 7, (const uint32_t[]){0, 1, 2, 0, 3, 6}, 2), 0);
    /* shared vertex 0 and the opposite edge touching the other triangle's edge */
    const double r[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.5, 0.5, 0, 0.5, 0.5, 1, 1, 1, 1};
    ck_assert_uint_eq(triangles_count(r, 6, (const uint32_t[]){0, 1, 2, 0, 3, 4}, 2), 1);
    ck_assert_uint_eq(triangles_count(r, 6, (const uint32_t[]){0, 1, 2, 0, 4, 5}, 2), 0);
    /* no shared index: disjoint, touching at a point, two vertices at one position */
    const double s[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 0, 0, 0.2, 0.2, 0};
    ck_assert_uint_eq(triangles_count(s, 8, (const uint32_t[]){0, 1, 2, 3, 4, 5}, 2), 0);
    ck_assert_uint_eq(triangles_count(s, 8, (const uint32_t[]){0, 1, 2, 7, 4, 5}, 2), 1);
    ck_assert_uint_eq(triangles_count(s, 8, (const uint32_t[]){0, 1, 2, 6, 4, 5}, 2), 1);
    /* a repeated triangle, in either orientation */
    ck_assert_uint_eq(triangles_count(s, 8, (const uint32_t[]){0, 1, 2, 2, 1, 0}, 2), 1);
    /* zero-area triangles are left out (validate counts them) */
    const double t[] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0.5, 1, 0, 0.5, -1, 0};
    ck_assert_uint_eq(triangles_count(t, 5, (const uint32_t[]){0, 1, 2, 0, 2, 3, 1, 1, 4}, 3), 0);
}
END_TEST

/* Closed meshes whose neighbours are coplanar or nearly flat, not folded. */
START_TEST(test_flat_closed_meshes)
{
    /* a bipyramid over a square whose rim has the sides' midpoints: three
     * collinear rim vertices per side, so neighbouring faces are coplanar */
    double positions[3 * 10];
    uint32_t triangles[3 * 16];
    static const double rim[8][2] = {{1, 1},  {0, 1},   {-1, 1}, {-1, 0},
                                     {-1, -1}, {0, -1}, {1, -1}, {1, 0}};
    for (int e = 0; e <= 12; e += 4) {
        double height = pow(10, -e);
        for (int i = 0; i < 8; i++) {
            positions[3 * i + 0] = rim[i][0];
            positions[3 * i + 1] = rim[i][1];
            positions[3 * i + 2] = 0;
        }
        positions[24] = positions[25] = positions[27] = positions[28] = 0;
        positions[26] = height;
        positions[29] = -height;
        for (uint32_t i = 0; i < 8; i++) {
            uint32_t *top = triangles + 6 * i, *bottom = top + 3;
            top[0] = 8, top[1] = i, top[2] = (i + 1) % 8;
            bottom[0] = 9, bottom[1] = (i + 1) % 8, bottom[2] = i;
        }
        glcollide_mesh *mesh = make_mesh(positions, 10, triangles, 16, "bipyramid");
        ck_assert_int_eq(glcollide_mesh_require_solid(mesh, NULL), GLCOLLIDE_OK);
        ck_assert_msg(self_count(mesh) == 0, "height %g", height);
        /* the top apex pushed off centre below the bottom half: near the apex
         * the top half is below the bottom one, near the far rim above it */
        mesh->positions[24] = 0.5;
        mesh->positions[26] = -0.6 * height;
        ck_assert_msg(self_count(mesh) > 0, "height %g", height);
        glcollide_mesh_destroy(&mesh);
    }
}
END_TEST

/* Exact for the small integer coordinates of the test below. */
static int zero_area(const double *x, const uint32_t *t)
{
    const double *p = x + 3 * t[0], *q = x + 3 * t[1], *r = x + 3 * t[2];
    double u[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    double v[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
    return u[1] * v[2] - u[2] * v[1] == 0 && u[2] * v[0] - u[0] * v[2] == 0 &&
           u[0] * v[1] - u[1] * v[0] == 0;
}

/* The definition, pair by pair over all pairs, with the general triangle
 * test for every case but the shared edge. */
static size_t brute_force_count(const glcollide_mesh *mesh)
{
    size_t count = 0;
    const double *x = mesh->positions;
    for (size_t i = 0; i < mesh->triangle_count; i++)
        for (size_t j = i + 1; j < mesh->triangle_count; j++) {
            const uint32_t *a = mesh->triangles + 3 * i, *b = mesh->triangles + 3 * j;
            int shared = 0, ka = -1, kb = -1;
            for (int u = 0; u < 3; u++)
                for (int w = 0; w < 3; w++)
                    if (a[u] == b[w])
                        shared++, ka = u, kb = w;
            if (zero_area(x, a) || zero_area(x, b))
                continue;
            if (shared == 0) {
                count += glcollide_tri_tri_overlap(x + 3 * a[0], x + 3 * a[1], x + 3 * a[2],
                                                   x + 3 * b[0], x + 3 * b[1], x + 3 * b[2]);
            } else if (shared == 1) {
                const double *p = x + 3 * a[(ka + 1) % 3], *q = x + 3 * a[(ka + 2) % 3];
                const double *r = x + 3 * b[(kb + 1) % 3], *t = x + 3 * b[(kb + 2) % 3];
                count += glcollide_tri_tri_overlap(p, q, q, x + 3 * b[0], x + 3 * b[1],
                                                   x + 3 * b[2]) ||
                         glcollide_tri_tri_overlap(r, t, t, x + 3 * a[0], x + 3 * a[1],
                                                   x + 3 * a[2]);
            } else if (shared == 3) {
                count++;
            } else {
                /* folded: coplanar, and b's third vertex inside a's half-plane */
                int n = 0;
                uint32_t e[2] = {0, 0}, oa = 0, ob = 0;
                for (int k = 0; k < 3; k++) {
                    if (a[k] == b[0] || a[k] == b[1] || a[k] == b[2])
                        e[n++] = a[k];
                    else
                        oa = a[k];
                    if (b[k] != a[0] && b[k] != a[1] && b[k] != a[2])
                        ob = b[k];
                }
                const double *e0 = x + 3 * e[0], *e1 = x + 3 * e[1];
                if (glcollide_orient3d(e0, e1, x + 3 * oa, x + 3 * ob) == 0) {
                    double n1[3], d1[3], d2[3];
                    for (int k = 0; k < 3; k++)
                        d1[k] = e1[k] - e0[k], d2[k] = x[3 * oa + k] - e0[k];
                    n1[0] = d1[1] * d2[2] - d1[2] * d2[1];
                    n1[1] = d1[2] * d2[0] - d1[0] * d2[2];
                    n1[2] = d1[0] * d2[1] - d1[1] * d2[0];
                    /* a point off the plane along the normal turns the 2D side
                     * test into an orient3d: same side iff the signs agree */
                    double apex[3] = {e0[0] + n1[0], e0[1] + n1[1], e0[2] + n1[2]};
                    count += glcollide_orient3d(e0, e1, apex, x + 3 * oa) ==
                             glcollide_orient3d(e0, e1, apex, x + 3 * ob);
                }
            }
        }
    return count;
}

/* Random jittered spheres (many self-intersections) with coordinates on a
 * coarse grid (many coplanar and collinear configurations): the BVH and the
 * fast segment test agree with the brute-force definition. */
START_TEST(test_brute_force_agreement)
{
    test_rng rng = {0x5E1F1000u};
    size_t total = 0;
    for (int i = 0; i < 60; i++) {
        glcollide_mesh *mesh = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_sphere(4, 3 + (int)test_rng_below(&rng, 8),
                                                        2 + (int)test_rng_below(&rng, 6), &mesh),
                         GLCOLLIDE_OK);
        double jitter = i % 3 == 0 ? 0 : test_rng_uniform(&rng, 0.5, 3);
        for (size_t v = 0; v < 3 * mesh->vertex_count; v++)
            mesh->positions[v] = round(mesh->positions[v] + test_rng_uniform(&rng, -jitter, jitter));
        size_t expected = brute_force_count(mesh);
        size_t count = self_count(mesh);
        TEST_REQUIRE(count == expected, "mesh %d: %zu self-intersections, brute force %zu", i,
                     count, expected);
        total += count;
        glcollide_mesh_destroy(&mesh);
    }
    ck_assert_uint_gt(total, 100);
}
END_TEST

START_TEST(test_errors)
{
    size_t count = 7;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    int status = glcollide_mesh_self_intersections(NULL, &count, NULL);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "self-intersections: mesh is NULL");
    ck_assert_uint_eq(count, 0);
    glcollide_mesh *empty = make_mesh(NULL, 0, NULL, 0, "empty");
    ck_assert_uint_eq(self_count(empty), 0);
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_mesh_self_intersections(empty, NULL, NULL);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "self-intersections: count is NULL");
    glcollide_mesh_destroy(&empty);
}
END_TEST

Suite *suite_self_intersection(void)
{
    Suite *suite = suite_create("self_intersection");
    TCase *tc = tcase_create("self_intersection");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_generated_meshes);
    tcase_add_test(tc, test_real_meshes);
    tcase_add_test(tc, test_self_intersecting_meshes);
    tcase_add_test(tc, test_adjacency_cases);
    tcase_add_test(tc, test_flat_closed_meshes);
    tcase_add_test(tc, test_brute_force_agreement);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(suite, tc);
    return suite;
}
