/* SPDX-License-Identifier: MIT */
/* Mesh loaders on files: the real CGAL meshes, STL welding on them, the
 * data-file lookup (GLCOLLIDE_MESH_DIR, the cache), OFF round trips. */
#define _POSIX_C_SOURCE 200809L
#include "helpers/tests.h"
#include "unit/mesh_io_cube.h"

#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- real meshes */

static void assert_data_mesh(const char *file, size_t vertices, size_t triangles, int closed)
{
    const char *path = test_data_mesh(file);
    glcollide_mesh *mesh = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_mesh_load(path, 1.0, &mesh);
    test_log_capture_stop();
    ck_assert_msg(status == GLCOLLIDE_OK, "%s: %s", file, test_log_last());
    ck_assert_uint_eq(mesh->vertex_count, vertices);
    ck_assert_uint_eq(mesh->triangle_count, triangles);
    glcollide_mesh_report report;
    ck_assert_int_eq(glcollide_mesh_validate(mesh, &report), GLCOLLIDE_OK);
    ck_assert_msg(report.closed == closed, "%s: closed %d", file, report.closed);
    if (closed) {
        ck_assert_uint_eq(
            report.boundary_edges + report.nonmanifold_edges + report.misoriented_edges, 0);
        ck_assert(report.signed_volume > 0.0);
    }
    glcollide_mesh_destroy(&mesh);
}

START_TEST(test_real_meshes)
{
    assert_data_mesh("bunny00.off", 37706, 75408, 1);
    assert_data_mesh("armadillo.off", 26002, 52000, 1);
    assert_data_mesh("elephant.off", 2775, 5558, 1);
    assert_data_mesh("knot1.off", 3200, 6400, 1);
    assert_data_mesh("knot2.off", 5760, 11520, 1);
    assert_data_mesh("cow.off", 2904, 5804, 1);
    assert_data_mesh("camel.off", 9770, 19536, 1);
    assert_data_mesh("man.off", 17495, 34986, 1);
    assert_data_mesh("refined_elephant.off", 44460, 88928, 1);
    /* Quads and mixed polygons fan-triangulated; COFF; comments before the header. */
    assert_data_mesh("cube_quad.off", 8, 12, 1);
    assert_data_mesh("cube_poly.off", 8, 12, 1);
    assert_data_mesh("cactus.off", 620, 1236, 1);
    assert_data_mesh("sphere966.off", 926, 1848, 1);
}
END_TEST

START_TEST(test_bunny_load_time)
{
    const char *path = test_data_mesh("bunny00.off");
    glcollide_mesh *mesh = NULL;
    double best = INFINITY;
    for (int run = 0; run < 3; run++) {
        double start = test_now_ms();
        ck_assert_int_eq(glcollide_mesh_load(path, 1.0, &mesh), GLCOLLIDE_OK);
        double elapsed = test_now_ms() - start;
        best = elapsed < best ? elapsed : best;
        glcollide_mesh_destroy(&mesh);
    }
    printf("mesh_io: bunny00.off (75,408 triangles) loads in %.1f ms\n", best);
    /* Not a benchmark: a guard against a quadratic loader (it takes ~11 ms). */
    if (!under_valgrind())
        ck_assert_msg(best < 1000.0, "bunny00.off took %.1f ms to load", best);
}
END_TEST

START_TEST(test_open_dragon)
{
    const char *path = test_data_mesh("ChineseDragon-10kv.off");
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_load(path, 1.0, &mesh), GLCOLLIDE_OK);
    ck_assert_uint_eq(mesh->vertex_count, 10000);
    ck_assert_uint_eq(mesh->triangle_count, 19994);
    glcollide_mesh_report report;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_mesh_require_solid(mesh, &report);
    test_log_capture_stop();
    char expected[4200];
    snprintf(expected, sizeof expected, "%s: not a closed solid: 6 boundary edges", path);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH, expected);
    ck_assert_int_eq(report.closed, 0);
    ck_assert_uint_eq(report.boundary_edges, 6);
    ck_assert_uint_eq(report.nonmanifold_edges, 0);
    ck_assert_uint_eq(report.misoriented_edges, 0);
    glcollide_mesh_destroy(&mesh);
}
END_TEST

/* A real mesh written as ASCII (exact %.17g) and binary (float) STL welds
 * back into the same vertices, numbered by first use. */
START_TEST(test_stl_weld_real)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("elephant.off"), 1.0, &mesh), GLCOLLIDE_OK);
    size_t triangle_count = mesh->triangle_count;
    size_t capacity = 300 * triangle_count + 64, used = 0;
    char *text = malloc(capacity);
    size_t binary_size = 84 + 50 * triangle_count;
    unsigned char *binary = calloc(1, binary_size);
    ck_assert(text && binary);
    used += (size_t)snprintf(text, capacity, "solid elephant\n");
    put_le32(binary + 80, (uint32_t)triangle_count);
    for (size_t t = 0; t < triangle_count; t++) {
        used += (size_t)snprintf(text + used, capacity - used, "facet normal 0 0 0\nouter loop\n");
        for (int k = 0; k < 3; k++) {
            const double *p = mesh->positions + 3 * mesh->triangles[3 * t + k];
            used += (size_t)snprintf(text + used, capacity - used, "vertex %.17g %.17g %.17g\n",
                                     p[0], p[1], p[2]);
            for (int c = 0; c < 3; c++)
                put_le_float(binary + 84 + 50 * t + 12 + 12 * k + 4 * c, (float)p[c]);
        }
        used += (size_t)snprintf(text + used, capacity - used, "endloop\nendfacet\n");
    }
    used += (size_t)snprintf(text + used, capacity - used, "endsolid elephant\n");

    glcollide_mesh *ascii = parse_ok(text, used, GLCOLLIDE_MESH_FORMAT_AUTO, "elephant.stl");
    glcollide_mesh *floats =
        parse_ok((const char *)binary, binary_size, GLCOLLIDE_MESH_FORMAT_AUTO, "elephant.stl");
    ck_assert_uint_eq(ascii->vertex_count, mesh->vertex_count);
    ck_assert_uint_eq(floats->vertex_count, mesh->vertex_count);
    ck_assert_uint_eq(ascii->triangle_count, triangle_count);
    ck_assert_uint_eq(floats->triangle_count, triangle_count);
    for (size_t i = 0; i < 3 * triangle_count; i++) {
        const double *expected = mesh->positions + 3 * mesh->triangles[i];
        ck_assert_mem_eq(ascii->positions + 3 * ascii->triangles[i], expected, 3 * sizeof(double));
        for (int c = 0; c < 3; c++)
            ck_assert(floats->positions[3 * floats->triangles[i] + c] ==
                      (double)(float)expected[c]);
    }
    /* Numbered by first use: the first triangle's corners are 0, 1, 2. */
    ck_assert(ascii->triangles[0] == 0 && ascii->triangles[1] == 1 && ascii->triangles[2] == 2);
    glcollide_mesh_report report;
    ck_assert_int_eq(glcollide_mesh_require_solid(floats, &report), GLCOLLIDE_OK);
    glcollide_mesh_destroy(&ascii);
    glcollide_mesh_destroy(&floats);
    glcollide_mesh_destroy(&mesh);
    free(text);
    free(binary);
}
END_TEST

/* CGAL's prim.off declares 7 faces and has 8: a wrong count is an error. */
START_TEST(test_wrong_face_count)
{
    const char *path = test_data_mesh("prim.off");
    glcollide_mesh *mesh = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_mesh_load(path, 1.0, &mesh);
    test_log_capture_stop();
    char expected[4200];
    snprintf(expected, sizeof expected, "%s:24: unexpected '3' after the last of 7 faces", path);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_PARSE, expected);
}
END_TEST

/* ---------------------------------------------------------------- data files */

static void set_env(const char *name, const char *value)
{
    if (value)
        ck_assert_int_eq(setenv(name, value, 1), 0);
    else
        ck_assert_int_eq(unsetenv(name), 0);
}

static char *saved_env(const char *name)
{
    const char *value = getenv(name);
    return value ? strdup(value) : NULL;
}

START_TEST(test_find_data)
{
    char *old_dir = saved_env("GLCOLLIDE_MESH_DIR"), *old_xdg = saved_env("XDG_CACHE_HOME");
    char *old_home = saved_env("HOME");
    char dir[] = "/tmp/glcollide-meshdirXXXXXX", cache[] = "/tmp/glcollide-cacheXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_nonnull(mkdtemp(cache));
    char file[256], path[256];
    snprintf(file, sizeof file, "%s/cube.off", dir);
    FILE *out = fopen(file, "w");
    ck_assert_ptr_nonnull(out);
    fputs(cube_off, out);
    fclose(out);

    /* $GLCOLLIDE_MESH_DIR first. */
    set_env("GLCOLLIDE_MESH_DIR", dir);
    set_env("XDG_CACHE_HOME", cache);
    ck_assert_int_eq(glcollide_mesh_find_data("cube.off", path, sizeof path), GLCOLLIDE_OK);
    ck_assert_str_eq(path, file);
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_load(path, 1.0, &mesh), GLCOLLIDE_OK);
    assert_cube(mesh);
    glcollide_mesh_destroy(&mesh);

    /* Too small a buffer. */
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_mesh_find_data("cube.off", path, 8);
    char expected[1024];
    snprintf(expected, sizeof expected, "%s: path needs %zu bytes, buffer has 8", file,
             strlen(file) + 1);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_LIMIT, expected);

    /* Not found: the message names every directory tried. */
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_mesh_find_data("missing.off", path, sizeof path);
    snprintf(
        expected, sizeof expected,
        "data mesh missing.off not found in %s, %s/glcollide/meshes (run tests/cgal-meshes.sh)",
        dir, cache);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_IO, expected);

    /* Without XDG_CACHE_HOME: ~/.cache; a directory is not a mesh. */
    set_env("GLCOLLIDE_MESH_DIR", "/tmp");
    set_env("XDG_CACHE_HOME", NULL);
    set_env("HOME", "/tmp");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_mesh_find_data(strrchr(dir, '/') + 1, path, sizeof path);
    snprintf(
        expected, sizeof expected,
        "data mesh %s not found in /tmp, /tmp/.cache/glcollide/meshes (run tests/cgal-meshes.sh)",
        strrchr(dir, '/') + 1);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_IO, expected);
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_mesh_find_data(NULL, path, sizeof path);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "glcollide_mesh_find_data: no file name");
    test_log_capture_stop();

    set_env("GLCOLLIDE_MESH_DIR", old_dir);
    set_env("XDG_CACHE_HOME", old_xdg);
    set_env("HOME", old_home);
    free(old_dir);
    free(old_xdg);
    free(old_home);
    unlink(file);
    rmdir(dir);
    rmdir(cache);
}
END_TEST

/* ---------------------------------------------------------------- save_off */

static void assert_round_trip(glcollide_mesh *mesh)
{
    char *path = test_write_temp(".off", "", 0);
    ck_assert_int_eq(glcollide_mesh_save_off(mesh, path), GLCOLLIDE_OK);
    glcollide_mesh *loaded = NULL;
    ck_assert_int_eq(glcollide_mesh_load(path, 1.0, &loaded), GLCOLLIDE_OK);
    ck_assert_uint_eq(loaded->vertex_count, mesh->vertex_count);
    ck_assert_uint_eq(loaded->triangle_count, mesh->triangle_count);
    /* Bit-identical: %.17g and a correctly rounded reader. */
    ck_assert_mem_eq(loaded->positions, mesh->positions, 3 * mesh->vertex_count * sizeof(double));
    ck_assert_mem_eq(loaded->triangles, mesh->triangles,
                     3 * mesh->triangle_count * sizeof(uint32_t));
    ck_assert_str_eq(loaded->name, path);
    glcollide_mesh_destroy(&loaded);
    unlink(path);
    free(path);
}

START_TEST(test_save_off_round_trip)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(1.3, 32, 17, &mesh), GLCOLLIDE_OK);
    assert_round_trip(mesh);
    glcollide_mesh_destroy(&mesh);
    ck_assert_int_eq(glcollide_mesh_generate_torus(2.0, 0.7, 40, 13, &mesh), GLCOLLIDE_OK);
    assert_round_trip(mesh);
    glcollide_mesh_destroy(&mesh);
    ck_assert_int_eq(glcollide_mesh_generate_knot(2, 3, 1.0, 0.1, 120, 10, &mesh), GLCOLLIDE_OK);
    assert_round_trip(mesh);
    glcollide_mesh_destroy(&mesh);
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("elephant.off"), 0.1, &mesh), GLCOLLIDE_OK);
    assert_round_trip(mesh);

    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_mesh_save_off(mesh, "/nonexistent/dir/out.off");
    TEST_ASSERT_FAILED(
        status, GLCOLLIDE_ERROR_IO,
        "/nonexistent/dir/out.off: cannot open for writing: No such file or directory");
    mesh->positions[5] = NAN; /* positions are the caller's to rewrite */
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_mesh_save_off(mesh, "/tmp/never-written.off");
    char expected[4200];
    snprintf(expected, sizeof expected, "%s: vertex 1 has a non-finite coordinate", mesh->name);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH, expected);
    test_log_capture_stop();
    glcollide_mesh_destroy(&mesh);
}
END_TEST

Suite *suite_mesh_io_data(void)
{
    Suite *suite = suite_create("mesh_io");
    TCase *data = tcase_create("data");
    tcase_set_timeout(data, 60);
    tcase_add_test(data, test_real_meshes);
    tcase_add_test(data, test_bunny_load_time);
    tcase_add_test(data, test_open_dragon);
    tcase_add_test(data, test_stl_weld_real);
    tcase_add_test(data, test_wrong_face_count);
    tcase_add_test(data, test_find_data);
    tcase_add_test(data, test_save_off_round_trip);
    suite_add_tcase(suite, data);
    return suite;
}
