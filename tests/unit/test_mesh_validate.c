/* SPDX-License-Identifier: MIT */
/* Mesh validation and generators: hand-made defects counted exactly, random
 * meshes against a brute-force count, generated solids against the volume
 * of their exact polyhedra and of the smooth shapes they approximate. */
#define _POSIX_C_SOURCE 200809L
#include "helpers/tests.h"

#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

static glcollide_mesh *make(const double *positions, size_t vertex_count, const uint32_t *triangles,
                            size_t triangle_count, const char *name)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(
        glcollide_mesh_create(positions, vertex_count, triangles, triangle_count, name, &mesh),
        GLCOLLIDE_OK);
    return mesh;
}

static glcollide_mesh_report validated(const glcollide_mesh *mesh)
{
    glcollide_mesh_report report;
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    ck_assert_int_eq(glcollide_mesh_validate(mesh, &report), GLCOLLIDE_OK);
    test_log_capture_stop();
    ck_assert_int_eq(test_log_count(), 0); /* validate logs nothing */
    return report;
}

/* Counts in the order of the report: boundary, non-manifold, misoriented,
 * degenerate, non-finite, unreferenced. */
static void assert_counts(const glcollide_mesh_report *r, size_t boundary, size_t nonmanifold,
                          size_t misoriented, size_t degenerate, size_t nonfinite,
                          size_t unreferenced, int closed)
{
    ck_assert_uint_eq(r->boundary_edges, boundary);
    ck_assert_uint_eq(r->nonmanifold_edges, nonmanifold);
    ck_assert_uint_eq(r->misoriented_edges, misoriented);
    ck_assert_uint_eq(r->degenerate_triangles, degenerate);
    ck_assert_uint_eq(r->nonfinite_vertices, nonfinite);
    ck_assert_uint_eq(r->unreferenced_vertices, unreferenced);
    ck_assert_int_eq(r->closed, closed);
}

/* require_solid's single message, or OK when expected is NULL. */
static void assert_solid_message(const glcollide_mesh *mesh, const char *expected)
{
    glcollide_mesh_report report;
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    int status = glcollide_mesh_require_solid(mesh, &report);
    test_log_capture_stop();
    if (!expected) {
        ck_assert_msg(status == GLCOLLIDE_OK, "%s", test_log_last());
        ck_assert_int_eq(test_log_count(), 0);
        return;
    }
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH, expected);
}

/* ---------------------------------------------------------------- hand-made meshes */

/* Cube of side 2 (volume 8), 9 vertices: the last one is for the cases below. */
/* clang-format off */
static const double cube_positions[9 * 3] = {
    -1, -1, -1,  -1, -1, 1,  -1, 1, 1,  -1, 1, -1,
    1, -1, -1,   1, 1, -1,   1, 1, 1,   1, -1, 1,
    0, -2, -1, /* off the cube: for the fin below */
};
static const uint32_t cube_triangles[13 * 3] = {
    0, 1, 2,  0, 2, 3, /* -x */
    4, 5, 6,  4, 6, 7, /* +x */
    0, 4, 7,  0, 7, 1, /* -y */
    3, 2, 6,  3, 6, 5, /* +y */
    0, 3, 5,  0, 5, 4, /* -z */
    1, 7, 6,  1, 6, 2, /* +z */
    0, 4, 8,           /* a fin on the edge 0-4, for the non-manifold case */
};
/* clang-format on */

START_TEST(test_closed_cube)
{
    glcollide_mesh *mesh = make(cube_positions, 8, cube_triangles, 12, "cube");
    glcollide_mesh_report r = validated(mesh);
    assert_counts(&r, 0, 0, 0, 0, 0, 0, 1);
    ck_assert(r.signed_volume == 8.0);
    for (int k = 0; k < 3; k++) {
        ck_assert(r.bounds_min[k] == -1.0);
        ck_assert(r.bounds_max[k] == 1.0);
    }
    assert_solid_message(mesh, NULL);
    ck_assert_int_eq(glcollide_mesh_require_solid(mesh, NULL), GLCOLLIDE_OK);
    glcollide_mesh_destroy(&mesh);
}
END_TEST

START_TEST(test_open_cube)
{
    glcollide_mesh *mesh = make(cube_positions, 8, cube_triangles, 11, "open cube");
    glcollide_mesh_report r = validated(mesh);
    assert_counts(&r, 3, 0, 0, 0, 0, 0, 0);
    assert_solid_message(mesh, "open cube: not a closed solid: 3 boundary edges");
    glcollide_mesh_destroy(&mesh);
}
END_TEST

START_TEST(test_flipped_triangle)
{
    uint32_t triangles[12 * 3];
    memcpy(triangles, cube_triangles, sizeof triangles);
    triangles[1] = cube_triangles[2];
    triangles[2] = cube_triangles[1];
    glcollide_mesh *mesh = make(cube_positions, 8, triangles, 12, "flipped");
    glcollide_mesh_report r = validated(mesh);
    assert_counts(&r, 0, 0, 3, 0, 0, 0, 0);
    assert_solid_message(mesh, "flipped: not a closed solid: 3 misoriented edges");
    glcollide_mesh_destroy(&mesh);
}
END_TEST

START_TEST(test_inside_out)
{
    uint32_t triangles[12 * 3];
    for (int t = 0; t < 12; t++) {
        triangles[3 * t] = cube_triangles[3 * t];
        triangles[3 * t + 1] = cube_triangles[3 * t + 2];
        triangles[3 * t + 2] = cube_triangles[3 * t + 1];
    }
    glcollide_mesh *mesh = make(cube_positions, 8, triangles, 12, "inside out");
    glcollide_mesh_report r = validated(mesh);
    assert_counts(&r, 0, 0, 0, 0, 0, 0, 0);
    ck_assert(r.signed_volume == -8.0);
    assert_solid_message(
        mesh, "inside out: not a closed solid: signed volume -8 is not positive (inside out?)");
    glcollide_mesh_destroy(&mesh);
}
END_TEST

START_TEST(test_nonmanifold)
{
    /* A fin: edge 0-4 used three times (and so unpairable), the fin's two
     * other edges open. */
    glcollide_mesh *mesh = make(cube_positions, 9, cube_triangles, 13, "fin");
    glcollide_mesh_report r = validated(mesh);
    assert_counts(&r, 2, 1, 1, 0, 0, 0, 0);
    assert_solid_message(
        mesh, "fin: not a closed solid: 2 boundary edges, 1 non-manifold edge, 1 misoriented edge");
    glcollide_mesh_destroy(&mesh);

    /* Two tetrahedra sharing the edge 0-1: four uses, two each way, so
     * non-manifold but not misoriented. */
    const double positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1};
    const uint32_t triangles[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3,  /* tetra 0 1 2 3 */
                                  0, 4, 1, 0, 1, 5, 0, 5, 4, 1, 4, 5}; /* its half-turn about x */
    mesh = make(positions, 6, triangles, 8, "bowtie");
    r = validated(mesh);
    assert_counts(&r, 0, 1, 0, 0, 0, 0, 0);
    ck_assert_double_eq_tol(r.signed_volume, 2.0 / 6.0, 1e-15);
    assert_solid_message(mesh, "bowtie: not a closed solid: 1 non-manifold edge");
    glcollide_mesh_destroy(&mesh);
}
END_TEST

START_TEST(test_degenerate)
{
    /* A repeated index: counted, and left out of the edge counts. */
    uint32_t triangles[13 * 3];
    memcpy(triangles, cube_triangles, 12 * 3 * sizeof *triangles);
    triangles[36] = 0;
    triangles[37] = 0;
    triangles[38] = 1;
    glcollide_mesh *mesh = make(cube_positions, 8, triangles, 13, "repeated");
    glcollide_mesh_report r = validated(mesh);
    assert_counts(&r, 0, 0, 0, 1, 0, 0, 0);
    assert_solid_message(mesh, "repeated: not a closed solid: 1 degenerate triangle");
    glcollide_mesh_destroy(&mesh);

    /* A closed tetrahedron whose face 1-2-3 is split at the exact midpoint m
     * of edge 1-2, the gap closed by the zero-area sliver (2, m, 1). */
    double positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 0.5, 0};
    const uint32_t split[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 4, 3, 4, 2, 3, 2, 4, 1};
    mesh = make(positions, 5, split, 6, "sliver");
    r = validated(mesh);
    assert_counts(&r, 0, 0, 0, 1, 0, 0, 0);
    ck_assert_double_eq_tol(r.signed_volume, 1.0 / 6.0, 1e-15);
    assert_solid_message(mesh, "sliver: not a closed solid: 1 degenerate triangle");
    /* Moving m off the line by 2^-40 makes the sliver thin but real. */
    mesh->positions[13] = 0.5 + ldexp(1.0, -40);
    r = validated(mesh);
    assert_counts(&r, 0, 0, 0, 0, 0, 0, 1);
    glcollide_mesh_destroy(&mesh);

    /* Exactness: (1+e)(1-e) - 1 * 1 rounds to 0 in double, but is -e^2. */
    const double e = ldexp(1.0, -52);
    const double thin[] = {0,   0,   0,   1 + e, 1,   0,   1,   1 - e, 0,
                           0.1, 0.1, 0.1, 0.2,   0.2, 0.2, 0.7, 0.7,   0.7};
    const uint32_t two[] = {0, 1, 2, 3, 4, 5};
    mesh = make(thin, 6, two, 1, "thin");
    r = validated(mesh);
    assert_counts(&r, 3, 0, 0, 0, 0, 3, 0);
    glcollide_mesh_destroy(&mesh);
    /* Points with equal coordinates lie on x = y = z: exactly collinear. */
    mesh = make(thin, 6, two + 3, 1, "line");
    r = validated(mesh);
    assert_counts(&r, 3, 0, 0, 1, 0, 3, 0);
    assert_solid_message(mesh, "line: not a closed solid: 3 boundary edges, 1 degenerate triangle");
    glcollide_mesh_destroy(&mesh);
}
END_TEST

START_TEST(test_nonfinite_and_unreferenced)
{
    /* An unreferenced vertex is harmless and outside the bounds. */
    glcollide_mesh *mesh = make(cube_positions, 9, cube_triangles, 12, "cube+1");
    glcollide_mesh_report r = validated(mesh);
    assert_counts(&r, 0, 0, 0, 0, 0, 1, 1);
    ck_assert(r.bounds_min[1] == -1.0);

    /* A NaN written into the positions (allowed for deforming meshes). */
    mesh->positions[3 * 2 + 1] = NAN;
    r = validated(mesh);
    assert_counts(&r, 0, 0, 0, 0, 1, 1, 0);
    for (int k = 0; k < 3; k++) {
        ck_assert(r.bounds_min[k] == -1.0);
        ck_assert(r.bounds_max[k] == 1.0);
    }
    assert_solid_message(mesh, "cube+1: not a closed solid: 1 non-finite vertex");
    mesh->positions[3 * 5] = INFINITY;
    r = validated(mesh);
    ck_assert_uint_eq(r.nonfinite_vertices, 2);
    assert_solid_message(mesh, "cube+1: not a closed solid: 2 non-finite vertices");
    glcollide_mesh_destroy(&mesh);
}
END_TEST

START_TEST(test_empty_and_invalid)
{
    glcollide_mesh *mesh = make(NULL, 0, NULL, 0, "empty");
    glcollide_mesh_report r = validated(mesh);
    assert_counts(&r, 0, 0, 0, 0, 0, 0, 0);
    ck_assert(r.signed_volume == 0.0);
    ck_assert(r.bounds_min[0] > r.bounds_max[0]); /* empty box */
    assert_solid_message(mesh, "empty: not a closed solid: no triangles");
    glcollide_mesh_destroy(&mesh);

    mesh = make(cube_positions, 8, NULL, 0, NULL);
    ck_assert_str_eq(mesh->name, "mesh");
    r = validated(mesh);
    assert_counts(&r, 0, 0, 0, 0, 0, 8, 0);
    glcollide_mesh_destroy(&mesh);

    /* Creation checks the data it copies. */
    const uint32_t bad_index[] = {0, 1, 2, 0, 2, 8};
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    int status = glcollide_mesh_create(cube_positions, 8, bad_index, 2, "bad", &mesh);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "bad: triangle 1 refers to vertex 8, only 8 vertices");
    double nan_positions[9 * 3];
    memcpy(nan_positions, cube_positions, sizeof nan_positions);
    nan_positions[7] = NAN;
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    status = glcollide_mesh_create(nan_positions, 8, cube_triangles, 12, "nan", &mesh);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "nan: vertex 2 has a non-finite coordinate");
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    status = glcollide_mesh_create(NULL, 8, cube_triangles, 12, NULL, &mesh);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "glcollide_mesh_create: positions is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    status = glcollide_mesh_create(cube_positions, 8, NULL, 12, NULL, &mesh);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "glcollide_mesh_create: triangles is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    status = glcollide_mesh_create(cube_positions, 8, cube_triangles, 12, NULL, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "glcollide_mesh_create: out is NULL");
    test_log_capture_stop();
    ck_assert_ptr_null(mesh);

    /* validate: argument errors without a message. */
    mesh = make(cube_positions, 8, cube_triangles, 12, "cube");
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    ck_assert_int_eq(glcollide_mesh_validate(NULL, &r), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_mesh_validate(mesh, NULL), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    mesh->triangles[4] = 99; /* white box: corrupt a read-only field */
    ck_assert_int_eq(glcollide_mesh_validate(mesh, &r), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    test_log_capture_stop();
    ck_assert_int_eq(test_log_count(), 0);
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    status = glcollide_mesh_require_solid(mesh, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "cube: NULL arrays or a vertex index out of range");
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    status = glcollide_mesh_require_solid(NULL, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "glcollide_mesh_require_solid: mesh is NULL");
    test_log_capture_stop();
    glcollide_mesh_destroy(&mesh);
}
END_TEST

/* ---------------------------------------------------------------- random meshes vs brute force */

START_TEST(test_random_against_brute_force)
{
    test_rng rng = {0x6d657368u};
    for (int trial = 0; trial < 3000; trial++) {
        uint32_t vertex_count = 3 + test_rng_below(&rng, 6);
        uint32_t triangle_count = 1 + test_rng_below(&rng, 14);
        double positions[8 * 3];
        uint32_t triangles[14 * 3];
        /* Small integer coordinates: collinear triples are common and the
         * reference cross product below is exact. */
        for (uint32_t i = 0; i < 3 * vertex_count; i++)
            positions[i] = (double)test_rng_below(&rng, 3);
        for (uint32_t i = 0; i < 3 * triangle_count; i++)
            triangles[i] = test_rng_below(&rng, vertex_count);
        /* Often reuse a flipped or copied triangle to make shared edges. */
        for (uint32_t t = 1; t < triangle_count; t++) {
            if (test_rng_below(&rng, 2)) {
                uint32_t s = test_rng_below(&rng, t);
                triangles[3 * t] = triangles[3 * s + 1];
                triangles[3 * t + 1] = triangles[3 * s];
                if (test_rng_below(&rng, 4) == 0)
                    triangles[3 * t + 2] = test_rng_below(&rng, vertex_count);
            }
        }

        size_t degenerate = 0, boundary = 0, nonmanifold = 0, misoriented = 0, unreferenced = 0;
        int referenced[8] = {0};
        double volume = 0.0;
        for (uint32_t t = 0; t < triangle_count; t++) {
            const uint32_t *tri = triangles + 3 * t;
            for (int k = 0; k < 3; k++)
                referenced[tri[k]] = 1;
            const double *a = positions + 3 * tri[0], *b = positions + 3 * tri[1],
                         *c = positions + 3 * tri[2];
            double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]},
                   v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                           u[0] * v[1] - u[1] * v[0]};
            int repeated = tri[0] == tri[1] || tri[1] == tri[2] || tri[2] == tri[0];
            if (repeated || (n[0] == 0 && n[1] == 0 && n[2] == 0))
                degenerate++;
            if (!repeated)
                volume += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                          a[2] * (b[0] * c[1] - b[1] * c[0]);
        }
        for (uint32_t v = 0; v < vertex_count; v++)
            unreferenced += !referenced[v];
        for (uint32_t lo = 0; lo < vertex_count; lo++) {
            for (uint32_t hi = lo + 1; hi < vertex_count; hi++) {
                size_t forward = 0, backward = 0;
                for (uint32_t t = 0; t < triangle_count; t++) {
                    const uint32_t *tri = triangles + 3 * t;
                    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[2] == tri[0])
                        continue;
                    for (int k = 0; k < 3; k++) {
                        forward += tri[k] == lo && tri[(k + 1) % 3] == hi;
                        backward += tri[k] == hi && tri[(k + 1) % 3] == lo;
                    }
                }
                size_t uses = forward + backward;
                boundary += uses == 1;
                nonmanifold += uses >= 3;
                misoriented += uses >= 2 && forward != backward;
            }
        }
        int closed =
            boundary == 0 && nonmanifold == 0 && misoriented == 0 && degenerate == 0 && volume > 0;
        /* Only a surface whose edges all pair up encloses a volume that does
         * not depend on the origin the sum is taken from. */
        int balanced = boundary == 0 && misoriented == 0;

        glcollide_mesh *mesh = make(positions, vertex_count, triangles, triangle_count, "random");
        glcollide_mesh_report r = validated(mesh);
        ck_assert_msg(r.boundary_edges == boundary && r.nonmanifold_edges == nonmanifold &&
                          r.misoriented_edges == misoriented &&
                          r.degenerate_triangles == degenerate &&
                          r.unreferenced_vertices == unreferenced && r.closed == closed,
                      "trial %d: got %zu %zu %zu %zu %zu %d, expected %zu %zu %zu %zu %zu %d",
                      trial, r.boundary_edges, r.nonmanifold_edges, r.misoriented_edges,
                      r.degenerate_triangles, r.unreferenced_vertices, r.closed, boundary,
                      nonmanifold, misoriented, degenerate, unreferenced, closed);
        if (balanced)
            ck_assert_double_eq_tol(r.signed_volume, volume / 6.0, 1e-12);
        glcollide_mesh_destroy(&mesh);
    }
}
END_TEST

/* ---------------------------------------------------------------- generators */

static glcollide_mesh_report assert_generated_solid(const glcollide_mesh *mesh, size_t vertices,
                                                    size_t triangles)
{
    ck_assert_uint_eq(mesh->vertex_count, vertices);
    ck_assert_uint_eq(mesh->triangle_count, triangles);
    glcollide_mesh_report r = validated(mesh);
    ck_assert_msg(r.closed,
                  "%s: %zu boundary, %zu non-manifold, %zu misoriented, %zu degenerate, volume %g",
                  mesh->name, r.boundary_edges, r.nonmanifold_edges, r.misoriented_edges,
                  r.degenerate_triangles, r.signed_volume);
    ck_assert_uint_eq(r.unreferenced_vertices, 0);
    return r;
}

/* Volume of a regular n-gon frustum stack: rings (z, radius) from top to
 * bottom, radius 0 at the poles. Exact for the UV sphere and capsule, whose
 * bands between rings are frustums of regular prisms. */
static double lathe_volume(const double *z, const double *radius, int rings, int n)
{
    double volume = 0.0, area_factor = 0.5 * n * sin(2.0 * pi / n);
    for (int i = 0; i + 1 < rings; i++) {
        double a1 = area_factor * radius[i] * radius[i],
               a2 = area_factor * radius[i + 1] * radius[i + 1];
        volume += (z[i] - z[i + 1]) / 3.0 * (a1 + a2 + sqrt(a1 * a2));
    }
    return volume;
}

START_TEST(test_generate_box)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1.0, 2.0, 3.0, &mesh), GLCOLLIDE_OK);
    glcollide_mesh_report r = assert_generated_solid(mesh, 8, 12);
    ck_assert(r.signed_volume == 48.0);
    ck_assert(r.bounds_min[0] == -1.0 && r.bounds_max[1] == 2.0 && r.bounds_min[2] == -3.0);
    ck_assert_str_eq(mesh->name, "box");
    glcollide_mesh_destroy(&mesh);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.3, 0.7, 1.1, &mesh), GLCOLLIDE_OK);
    r = assert_generated_solid(mesh, 8, 12);
    ck_assert_double_eq_tol(r.signed_volume, 8 * 0.3 * 0.7 * 1.1, 1e-14);
    glcollide_mesh_destroy(&mesh);
}
END_TEST

START_TEST(test_generate_sphere)
{
    const int cases[][2] = {{3, 2}, {4, 3}, {48, 24}, {7, 11}, {128, 64}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int slices = cases[c][0], stacks = cases[c][1];
        double radius = 2.0;
        glcollide_mesh *mesh = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_sphere(radius, slices, stacks, &mesh),
                         GLCOLLIDE_OK);
        glcollide_mesh_report r = assert_generated_solid(mesh, 2 + (size_t)slices * (stacks - 1),
                                                         2 * (size_t)slices * (stacks - 1));
        double z[130], rho[130];
        for (int i = 0; i <= stacks; i++) {
            double theta = pi * i / stacks;
            z[i] = i == 0 ? radius : i == stacks ? -radius : radius * cos(theta);
            rho[i] = i == 0 || i == stacks ? 0.0 : radius * sin(theta);
        }
        double exact = lathe_volume(z, rho, stacks + 1, slices),
               smooth = 4.0 / 3.0 * pi * radius * radius * radius;
        ck_assert_double_eq_tol(r.signed_volume, exact, 1e-12 * exact);
        ck_assert(r.signed_volume < smooth);
        ck_assert(r.bounds_max[2] == radius && r.bounds_min[2] == -radius);
        if (slices >= 48)
            ck_assert_msg(smooth - r.signed_volume < 0.01 * smooth, "sphere %dx%d: %g vs %g",
                          slices, stacks, r.signed_volume, smooth);
        if (slices == 128) /* second-order convergence */
            ck_assert(smooth - r.signed_volume < 0.0015 * smooth);
        glcollide_mesh_destroy(&mesh);
    }
}
END_TEST

START_TEST(test_generate_capsule)
{
    const int cases[][2] = {{3, 1}, {32, 8}, {64, 16}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int slices = cases[c][0], cap = cases[c][1];
        double radius = 0.5, half = 1.25;
        glcollide_mesh *mesh = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_capsule(radius, half, slices, cap, &mesh),
                         GLCOLLIDE_OK);
        glcollide_mesh_report r =
            assert_generated_solid(mesh, 2 + (size_t)slices * 2 * cap, 4 * (size_t)slices * cap);
        double z[40], rho[40];
        int n = 0;
        for (int k = 0; k <= cap; k++, n++) { /* north pole to the top equator */
            double theta = 0.5 * pi * k / cap;
            z[n] = half + (k == cap ? 0.0 : radius * cos(theta));
            rho[n] = k == 0 ? 0.0 : k == cap ? radius : radius * sin(theta);
        }
        for (int k = 0; k <= cap; k++, n++) { /* bottom equator to the south pole */
            double theta = 0.5 * pi * k / cap;
            z[n] = -half - (k == 0 ? 0.0 : radius * sin(theta));
            rho[n] = k == cap ? 0.0 : k == 0 ? radius : radius * cos(theta);
        }
        double exact = lathe_volume(z, rho, n, slices);
        double smooth =
            pi * radius * radius * 2.0 * half + 4.0 / 3.0 * pi * radius * radius * radius;
        ck_assert_double_eq_tol(r.signed_volume, exact, 1e-12 * exact);
        ck_assert(r.bounds_max[2] == half + radius && r.bounds_min[2] == -half - radius);
        if (slices >= 32)
            ck_assert_msg(fabs(smooth - r.signed_volume) < 0.01 * smooth, "capsule: %g vs %g",
                          r.signed_volume, smooth);
        glcollide_mesh_destroy(&mesh);
    }
}
END_TEST

START_TEST(test_generate_torus)
{
    const int cases[][2] = {{3, 3}, {64, 32}, {17, 5}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int major = cases[c][0], minor = cases[c][1];
        double big = 3.0, small = 1.0;
        glcollide_mesh *mesh = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_torus(big, small, major, minor, &mesh),
                         GLCOLLIDE_OK);
        glcollide_mesh_report r =
            assert_generated_solid(mesh, (size_t)major * minor, 2 * (size_t)major * minor);
        /* Each of the `major` wedges sweeps the regular minor-gon (area A,
         * centroid at distance big) along chords: volume sin(2 pi / major) A big. */
        double polygon = 0.5 * minor * small * small * sin(2.0 * pi / minor);
        double exact = major * sin(2.0 * pi / major) * polygon * big;
        double smooth = 2.0 * pi * pi * big * small * small;
        ck_assert_double_eq_tol(r.signed_volume, exact, 1e-12 * exact);
        if (major >= 64)
            ck_assert_msg(fabs(smooth - r.signed_volume) < 0.01 * smooth, "torus: %g vs %g",
                          r.signed_volume, smooth);
        glcollide_mesh_destroy(&mesh);
    }
}
END_TEST

/* Length of the knot's centre line (radius 2/3 and 1/3 of `radius`, as documented in
 * mesh_generate.c). */
static double knot_length(int p, int q, double radius)
{
    double length = 0.0, previous[3] = {0, 0, 0};
    const int n = 200000;
    for (int i = 0; i <= n; i++) {
        double s = 2.0 * pi * i / n, rho = radius * (2.0 / 3.0) + radius / 3.0 * cos(q * s);
        double point[3] = {rho * cos(p * s), rho * sin(p * s), radius / 3.0 * sin(q * s)};
        if (i)
            length += sqrt((point[0] - previous[0]) * (point[0] - previous[0]) +
                           (point[1] - previous[1]) * (point[1] - previous[1]) +
                           (point[2] - previous[2]) * (point[2] - previous[2]));
        memcpy(previous, point, sizeof point);
    }
    return length;
}

START_TEST(test_generate_knot)
{
    const struct {
        int p, q;
        double tube;
        int segments, tube_segments;
    } cases[] = {{2, 3, 0.1, 256, 16},
                 {3, 2, 0.08, 300, 12},
                 {2, 5, 0.05, 500, 12},
                 {1, 3, 0.1, 200, 8},
                 {3, 4, 0.04, 600, 10}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        glcollide_mesh *mesh = NULL;
        test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
        int status = glcollide_mesh_generate_knot(cases[c].p, cases[c].q, 1.0, cases[c].tube,
                                                  cases[c].segments, cases[c].tube_segments, &mesh);
        test_log_capture_stop();
        ck_assert_msg(status == GLCOLLIDE_OK, "knot (%d, %d): %s", cases[c].p, cases[c].q,
                      test_log_last());
        size_t n = (size_t)cases[c].segments * cases[c].tube_segments;
        glcollide_mesh_report r = assert_generated_solid(mesh, n, 2 * n);
        /* A tube that does not cut itself has the volume of its cross-section
         * times the length of its centre line (Pappus). */
        int m = cases[c].tube_segments;
        double section = 0.5 * m * cases[c].tube * cases[c].tube * sin(2.0 * pi / m);
        double expected = section * knot_length(cases[c].p, cases[c].q, 1.0);
        ck_assert_msg(fabs(r.signed_volume - expected) < 0.02 * expected, "knot (%d, %d): %g vs %g",
                      cases[c].p, cases[c].q, r.signed_volume, expected);
        ck_assert(r.bounds_max[0] <= 1.0 + cases[c].tube);
        glcollide_mesh_destroy(&mesh);
    }
}
END_TEST

START_TEST(test_generate_arguments)
{
    glcollide_mesh *mesh = NULL;
    struct {
        int status;
        const char *message;
    } results[32];
    int n = 0;
#define TRY(call)                                                                                  \
    do {                                                                                           \
        test_log_capture_start(GLCOLLIDE_LOG_DEBUG);                                               \
        results[n].status = (call);                                                                \
        ck_assert_int_eq(test_log_count(), 1);                                                     \
        results[n].message = strdup(test_log_last());                                              \
        n++;                                                                                       \
    } while (0)
    TRY(glcollide_mesh_generate_box(0.0, 1.0, 1.0, &mesh));
    TRY(glcollide_mesh_generate_box(1.0, -1.0, 1.0, &mesh));
    TRY(glcollide_mesh_generate_box(1.0, 1.0, NAN, &mesh));
    TRY(glcollide_mesh_generate_box(1.0, 1.0, 1.0, NULL));
    TRY(glcollide_mesh_generate_sphere(0.0, 8, 4, &mesh));
    TRY(glcollide_mesh_generate_sphere(1.0, 2, 4, &mesh));
    TRY(glcollide_mesh_generate_sphere(1.0, 8, 1, &mesh));
    TRY(glcollide_mesh_generate_torus(1.0, 1.0, 8, 8, &mesh));
    TRY(glcollide_mesh_generate_torus(2.0, 1.0, 2, 8, &mesh));
    TRY(glcollide_mesh_generate_torus(2.0, INFINITY, 8, 8, &mesh));
    TRY(glcollide_mesh_generate_capsule(1.0, 0.0, 8, 2, &mesh));
    TRY(glcollide_mesh_generate_capsule(1.0, 1.0, 8, 0, &mesh));
    TRY(glcollide_mesh_generate_knot(2, 4, 1.0, 0.1, 100, 8, &mesh));
    TRY(glcollide_mesh_generate_knot(3, 1, 1.0, 0.1, 100, 8, &mesh));
    TRY(glcollide_mesh_generate_knot(0, 3, 1.0, 0.1, 100, 8, &mesh));
    TRY(glcollide_mesh_generate_knot(2, 3, 1.0, 0.1, 5, 8, &mesh));
    TRY(glcollide_mesh_generate_knot(2, 3, 1.0, 0.1, 100, 2, &mesh));
    TRY(glcollide_mesh_generate_knot(2, 3, 1.0, 0.0, 100, 8, &mesh));
    TRY(glcollide_mesh_generate_knot(2, 3, 1.0, 0.4, 100, 8, &mesh));
#undef TRY
    test_log_capture_stop();
    static const char *const expected[] = {
        "box: hx must be positive and finite, got 0",
        "box: hy must be positive and finite, got -1",
        "box: hz must be positive and finite, got nan",
        "box: out is NULL",
        "sphere: radius must be positive and finite, got 0",
        "sphere: need slices >= 3 and stacks >= 2, got 2 slices, 4 stacks",
        "sphere: need slices >= 3 and stacks >= 2, got 8 slices, 1 stacks",
        "torus: minor_radius 1 must be below major_radius 1",
        "torus: need at least 3 major and 3 minor segments, got 2 and 8",
        "torus: minor_radius must be positive and finite, got inf",
        "capsule: half_length must be positive and finite, got 0",
        "capsule: need slices >= 3 and cap_stacks >= 1, got 8 slices, 0 cap stacks",
        "knot: need coprime p >= 1 and q >= 2, got (2, 4)",
        "knot: need coprime p >= 1 and q >= 2, got (3, 1)",
        "knot: need coprime p >= 1 and q >= 2, got (0, 3)",
        "knot: need segments >= 3 * p and tube_segments >= 3, got 5 and 8",
        "knot: need segments >= 3 * p and tube_segments >= 3, got 100 and 2",
        "knot: tube_radius must be positive and finite, got 0",
        NULL, /* the self-intersection message carries measured distances */
    };
    for (int i = 0; i < n; i++) {
        ck_assert_msg(results[i].status == GLCOLLIDE_ERROR_INVALID_ARGUMENT, "case %d: %s", i,
                      results[i].message);
        if (expected[i])
            ck_assert_str_eq(results[i].message, expected[i]);
        else
            ck_assert_msg(strncmp(results[i].message, "knot: tube_radius 0.4 ", 22) == 0, "%s",
                          results[i].message);
        free((void *)results[i].message);
    }
    ck_assert_ptr_null(mesh);
}
END_TEST

START_TEST(test_validate_time)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("bunny00.off"), 1.0, &mesh), GLCOLLIDE_OK);
    glcollide_mesh_report r;
    double start = test_now_ms();
    ck_assert_int_eq(glcollide_mesh_validate(mesh, &r), GLCOLLIDE_OK);
    double ms = test_now_ms() - start;
    printf("mesh_validate: bunny00.off validated in %.1f ms\n", ms);
    assert_counts(&r, 0, 0, 0, 0, 0, 0, 1);
    glcollide_mesh_destroy(&mesh);
}
END_TEST

/* glcollide_mesh_fit: centred box, largest side = size, shape kept. */
START_TEST(test_fit)
{
    glcollide_mesh *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(2.0, 1.0, 0.5, &box), GLCOLLIDE_OK);
    for (size_t v = 0; v < box->vertex_count; v++)
        box->positions[3 * v] += 10.0; /* off centre */
    ck_assert_int_eq(glcollide_mesh_fit(box, 3.0), GLCOLLIDE_OK);
    glcollide_mesh_report report;
    ck_assert_int_eq(glcollide_mesh_validate(box, &report), GLCOLLIDE_OK);
    const double want[3] = {1.5, 0.75, 0.375};
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq_tol(report.bounds_max[k], want[k], 1e-12);
        ck_assert_double_eq_tol(report.bounds_min[k], -want[k], 1e-12);
    }
    ck_assert(report.closed);
    ck_assert_double_eq_tol(report.signed_volume, 3.0 * 1.5 * 0.75, 1e-12);
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    ck_assert_int_eq(glcollide_mesh_fit(box, 0.0), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_mesh_fit(NULL, 1.0), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    glcollide_mesh *empty = NULL;
    ck_assert_int_eq(glcollide_mesh_create(NULL, 0, NULL, 0, "empty", &empty), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_fit(empty, 1.0), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(test_log_count(), 3);
    test_log_capture_stop();
    glcollide_mesh_destroy(&empty);
    glcollide_mesh_destroy(&box);
}
END_TEST

Suite *suite_mesh_validate(void)
{
    Suite *suite = suite_create("mesh_validate");
    TCase *hand = tcase_create("hand-made");
    tcase_add_test(hand, test_closed_cube);
    tcase_add_test(hand, test_fit);
    tcase_add_test(hand, test_open_cube);
    tcase_add_test(hand, test_flipped_triangle);
    tcase_add_test(hand, test_inside_out);
    tcase_add_test(hand, test_nonmanifold);
    tcase_add_test(hand, test_degenerate);
    tcase_add_test(hand, test_nonfinite_and_unreferenced);
    tcase_add_test(hand, test_empty_and_invalid);
    tcase_add_test(hand, test_random_against_brute_force);
    tcase_add_test(hand, test_validate_time);
    suite_add_tcase(suite, hand);

    TCase *generated = tcase_create("generators");
    tcase_set_timeout(generated, 60);
    tcase_add_test(generated, test_generate_box);
    tcase_add_test(generated, test_generate_sphere);
    tcase_add_test(generated, test_generate_capsule);
    tcase_add_test(generated, test_generate_torus);
    tcase_add_test(generated, test_generate_knot);
    tcase_add_test(generated, test_generate_arguments);
    suite_add_tcase(suite, generated);
    return suite;
}
