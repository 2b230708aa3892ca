/* SPDX-License-Identifier: MIT */
/*
 * Rays at a mesh (glcollide_ray_mesh) and the BVH's traversals against
 * shapes (half-space, oriented box, ray) against brute force, and the cost
 * of a mesh resting on a plane.
 */
#include "helpers/tests.h"
#include "unit/contacts_primitive_solid.h"

#include "helpers/meshes.h"

#include <glcollide/geometry.h>
#include <glcollide/primitives.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- rays */

/*
 * Rays at a box mesh at a random pose: through it (two hits, nearest first,
 * at the analytic distances, with the faces' outward normals), the closest
 * only, back faces culled (the entry only), the first found (one of them),
 * too short (none), from inside (the exit).
 */
START_TEST(test_rays)
{
    test_rng rng = {0x4a75};
    const double h[3] = {0.1, 0.07, 0.05};
    for (int trial = 0; trial < 50; trial++) {
        double q[4], t[3];
        solid m = random_solid(&rng, test_mesh_box(h, (int[3]){2, 3, 2}), 1, t, q);
        /* along the box's local x through a random inner point */
        double local[3] = {-0.5, test_rng_uniform(&rng, -0.06, 0.06),
                           test_rng_uniform(&rng, -0.04, 0.04)},
               origin[3], direction[3], xn[3];
        place(t, q, local, 0, origin);
        place(t, q, (double[3]){1, 0, 0}, 1, direction);
        place(t, q, (double[3]){-1, 0, 0}, 1, xn);
        glcollide_ray_hit hits[8];
        size_t n = 0;
        ck_assert_int_eq(glcollide_ray_mesh(&m.s, origin, direction, 2.0, 0, hits, 8, &n),
                         GLCOLLIDE_OK);
        ck_assert_uint_eq(n, 2);
        ck_assert_msg(
            fabs(hits[0].distance - 0.4) <= 1e-12 && fabs(hits[1].distance - 0.6) <= 1e-12,
            "trial %d: hits at %.15g and %.15g", trial, hits[0].distance, hits[1].distance);
        ck_assert_msg(distance3(hits[0].normal, xn) <= 1e-12, "trial %d: entry normal", trial);
        double entry[3];
        place(t, q, (double[3]){-0.1, local[1], local[2]}, 0, entry);
        ck_assert_msg(distance3(hits[0].position, entry) <= 1e-12, "trial %d: entry point", trial);
        ck_assert_int_eq(
            glcollide_ray_mesh(&m.s, origin, direction, 2.0, GLCOLLIDE_RAY_CLOSEST, hits, 8, &n),
            GLCOLLIDE_OK);
        ck_assert_uint_eq(n, 1);
        ck_assert_double_eq_tol(hits[0].distance, 0.4, 1e-12);
        ck_assert_int_eq(glcollide_ray_mesh(&m.s, origin, direction, 2.0,
                                            GLCOLLIDE_RAY_CULL_BACKFACES, hits, 8, &n),
                         GLCOLLIDE_OK);
        ck_assert_uint_eq(n, 1);
        ck_assert_double_eq_tol(hits[0].distance, 0.4, 1e-12);
        ck_assert_int_eq(
            glcollide_ray_mesh(&m.s, origin, direction, 2.0, GLCOLLIDE_RAY_FIRST, hits, 8, &n),
            GLCOLLIDE_OK);
        ck_assert_uint_eq(n, 1);
        ck_assert_int_eq(glcollide_ray_mesh(&m.s, origin, direction, 0.39, 0, hits, 8, &n),
                         GLCOLLIDE_OK);
        ck_assert_uint_eq(n, 0);
        double inside[3];
        place(t, q, (double[3]){0, local[1], local[2]}, 0, inside);
        ck_assert_int_eq(glcollide_ray_mesh(&m.s, inside, direction, 2.0, 0, hits, 8, &n),
                         GLCOLLIDE_OK);
        ck_assert_uint_eq(n, 1);
        ck_assert_double_eq_tol(hits[0].distance, 0.1, 1e-12);
        release(&m);
    }
    double identity[4] = {1, 0, 0, 0};
    solid m = make_solid(test_mesh_box(h, (int[3]){1, 1, 1}), (double[3]){0, 0, 0}, identity);
    glcollide_ray_hit hit;
    size_t n = 9;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    int status =
        glcollide_ray_mesh(&m.s, (double[3]){0, 0, 0}, (double[3]){0, 0, 2}, 1.0, 0, &hit, 1, &n);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "ray: origin, direction (unit) and pose must be finite and length not "
                       "negative (length 1, |direction|^2 4)");
    ck_assert_uint_eq(n, 0);
    test_log_capture_stop();
    release(&m);
}
END_TEST

/* ---------------------------------------------------------------- BVH queries */

typedef struct id_set {
    unsigned char *seen;
    size_t count;
} id_set;

static int mark(uint32_t triangle, void *user)
{
    id_set *s = user;
    ck_assert_msg(!s->seen[triangle], "triangle %u reported twice", triangle);
    s->seen[triangle] = 1;
    s->count++;
    return 0;
}

static void triangle_bounds(const glcollide_mesh *m, size_t t, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++) {
            double x = m->positions[3 * (size_t)m->triangles[3 * t + c] + k];
            lo[k] = fmin(lo[k], x);
            hi[k] = fmax(hi[k], x);
        }
}

/*
 * The BVH's traversals against shapes on random meshes, beside brute force
 * over the triangles' own boxes: the half-space query reports exactly the
 * triangles whose boxes reach the half-space; the oriented-box query every
 * triangle whose box it meets (and only boxes it does not separate on the six
 * face axes); the ray query every triangle the ray hits within its length.
 */
START_TEST(test_bvh_queries)
{
    test_rng rng = {0xb1a5};
    for (int trial = 0; trial < 30; trial++) {
        glcollide_mesh *mesh = test_random_mesh(&rng, 1.0);
        glcollide_bvh *bvh = NULL;
        ck_assert_int_eq(glcollide_bvh_create(mesh, &bvh), GLCOLLIDE_OK);
        size_t nt = mesh->triangle_count;
        id_set set = {calloc(nt, 1), 0};
        double normal[3], offset = test_rng_uniform(&rng, -0.5, 0.5);
        test_rng_quaternion(&rng, (double[4]){0});
        double a = test_rng_uniform(&rng, 0, 2 * pi), b = acos(test_rng_uniform(&rng, -1, 1));
        normal[0] = sin(b) * cos(a);
        normal[1] = sin(b) * sin(a);
        normal[2] = cos(b);
        glcollide_bvh_query_half_space(bvh, normal, offset, mark, &set);
        for (size_t t = 0; t < nt; t++) {
            double lo[3], hi[3], low = 0.0;
            triangle_bounds(mesh, t, lo, hi);
            for (int k = 0; k < 3; k++)
                low += normal[k] * (normal[k] >= 0 ? lo[k] : hi[k]);
            TEST_REQUIRE(set.seen[t] == (low <= offset), "trial %d: half-space, triangle %zu",
                         trial, t);
        }
        memset(set.seen, 0, nt);
        double m9[9], centre[3], half[3];
        test_rng_rotation(&rng, m9);
        for (int k = 0; k < 3; k++) {
            centre[k] = test_rng_uniform(&rng, -0.3, 0.3);
            half[k] = test_rng_uniform(&rng, 0.05, 0.3);
        }
        glcollide_bvh_query_oriented_box(bvh, centre, m9, half, mark, &set);
        for (size_t t = 0; t < nt; t++) {
            double lo[3], hi[3], c[3], e[3], d[3];
            triangle_bounds(mesh, t, lo, hi);
            int separated = 0;
            for (int k = 0; k < 3; k++) {
                c[k] = 0.5 * (lo[k] + hi[k]);
                e[k] = 0.5 * (hi[k] - lo[k]);
                d[k] = centre[k] - c[k];
            }
            for (int k = 0; k < 3; k++)
                separated |= fabs(d[k]) > e[k] + fabs(m9[k]) * half[0] + fabs(m9[3 + k]) * half[1] +
                                              fabs(m9[6 + k]) * half[2];
            for (int j = 0; j < 3; j++)
                separated |= fabs(dot3(m9 + 3 * j, d)) > half[j] + fabs(m9[3 * j]) * e[0] +
                                                             fabs(m9[3 * j + 1]) * e[1] +
                                                             fabs(m9[3 * j + 2]) * e[2];
            TEST_REQUIRE(set.seen[t] == !separated, "trial %d: oriented box, triangle %zu", trial,
                         t);
        }
        memset(set.seen, 0, nt);
        double origin[3], direction[3], t_max = test_rng_uniform(&rng, 0.2, 2.0);
        for (int k = 0; k < 3; k++)
            origin[k] = test_rng_uniform(&rng, -1, 1);
        double to[3] = {test_rng_uniform(&rng, -0.2, 0.2), test_rng_uniform(&rng, -0.2, 0.2),
                        test_rng_uniform(&rng, -0.2, 0.2)};
        for (int k = 0; k < 3; k++)
            direction[k] = to[k] - origin[k];
        glcollide_bvh_query_ray(bvh, origin, direction, &t_max, mark, &set);
        for (size_t t = 0; t < nt; t++) {
            const double *v[3];
            for (int c = 0; c < 3; c++)
                v[c] = mesh->positions + 3 * (size_t)mesh->triangles[3 * t + c];
            /* does the segment cross the triangle? (Moller-Trumbore) */
            double e1[3], e2[3], p[3], s[3], qv[3];
            for (int k = 0; k < 3; k++) {
                e1[k] = v[1][k] - v[0][k];
                e2[k] = v[2][k] - v[0][k];
                s[k] = origin[k] - v[0][k];
            }
            p[0] = direction[1] * e2[2] - direction[2] * e2[1];
            p[1] = direction[2] * e2[0] - direction[0] * e2[2];
            p[2] = direction[0] * e2[1] - direction[1] * e2[0];
            double det = dot3(e1, p);
            if (fabs(det) < 1e-15)
                continue;
            double u = dot3(s, p) / det;
            qv[0] = s[1] * e1[2] - s[2] * e1[1];
            qv[1] = s[2] * e1[0] - s[0] * e1[2];
            qv[2] = s[0] * e1[1] - s[1] * e1[0];
            double w = dot3(direction, qv) / det, th = dot3(e2, qv) / det;
            int hit = u > 1e-9 && w > 1e-9 && u + w < 1 - 1e-9 && th > 1e-9 && th < t_max - 1e-9;
            TEST_REQUIRE(!hit || set.seen[t], "trial %d: ray missed triangle %zu", trial, t);
        }
        free(set.seen);
        glcollide_bvh_destroy(&bvh);
        glcollide_mesh_destroy(&mesh);
    }
}
END_TEST

/*
 * A real mesh (the bunny, 75,408 triangles) resting on a plane: the
 * half-space query reports only the triangles that reach down to the plane,
 * a small fraction of the mesh, so trimesh-plane contacts cost in proportion
 * to them, not to the mesh.
 */
START_TEST(test_plane_cost)
{
    glcollide_mesh *bunny = NULL;
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("bunny00.off"), 1.0, &bunny), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_fit(bunny, 0.1), GLCOLLIDE_OK);
    glcollide_bvh *bvh = NULL;
    ck_assert_int_eq(glcollide_bvh_create(bunny, &bvh), GLCOLLIDE_OK);
    double low = INFINITY;
    for (size_t v = 0; v < bunny->vertex_count; v++)
        low = fmin(low, bunny->positions[3 * v + 1]);
    id_set set = {calloc(bunny->triangle_count, 1), 0};
    double up[3] = {0, 1, 0};
    /* resting 0.1 mm deep on the plane y = low + 1e-4 */
    glcollide_bvh_query_half_space(bvh, up, low + 1e-4, mark, &set);
    size_t near = 0;
    for (size_t t = 0; t < bunny->triangle_count; t++) {
        double lo[3], hi[3];
        triangle_bounds(bunny, t, lo, hi);
        near += lo[1] <= low + 1e-4;
    }
    ck_assert_uint_eq(set.count, near);
    ck_assert_msg(near > 0 && near < bunny->triangle_count / 100,
                  "%zu of %zu triangles near the plane", near, bunny->triangle_count);
    free(set.seen);
    glcollide_bvh_destroy(&bvh);
    glcollide_mesh_destroy(&bunny);
}
END_TEST

Suite *suite_contacts_primitive_queries(void)
{
    Suite *suite = suite_create("contacts_primitive");
    TCase *tc = tcase_create("contacts_primitive");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_rays);
    tcase_add_test(tc, test_bvh_queries);
    tcase_add_test(tc, test_plane_cost);
    suite_add_tcase(suite, tc);
    return suite;
}
