/* SPDX-License-Identifier: MIT */
/* Mesh loaders, the formats: every format on the same cube, their variants,
 * scaling, and the number parser they share. Malformed files are in
 * test_mesh_io_malformed.c, real meshes and data files in test_mesh_io_data.c. */
#define _POSIX_C_SOURCE 200809L
#include "helpers/tests.h"
#include "unit/mesh_io_cube.h"

#include "mesh/mesh_text.h"

#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- one cube, four formats */

START_TEST(test_cube_off)
{
    glcollide_mesh *mesh =
        parse_ok(cube_off, strlen(cube_off), GLCOLLIDE_MESH_FORMAT_OFF, "cube.off");
    assert_cube(mesh);
    glcollide_mesh_destroy(&mesh);
    ck_assert_ptr_null(mesh);
    glcollide_mesh_destroy(&mesh); /* NULL handle: no-op */
    glcollide_mesh_destroy(NULL);
}
END_TEST

START_TEST(test_cube_obj)
{
    char text[2048];
    size_t used = (size_t)snprintf(text, sizeof text, "# cube\nmtllib cube.mtl\no cube\n");
    for (int v = 0; v < 8; v++)
        used +=
            (size_t)snprintf(text + used, sizeof text - used, "v %g %g %g\n", cube_positions[3 * v],
                             cube_positions[3 * v + 1], cube_positions[3 * v + 2]);
    used +=
        (size_t)snprintf(text + used, sizeof text - used, "vt 0 0\nvn 0 0 1\nusemtl red\ns off\n");
    for (int t = 0; t < 12; t++)
        used += (size_t)snprintf(text + used, sizeof text - used, "f %u %u %u\n",
                                 cube_triangles[3 * t] + 1, cube_triangles[3 * t + 1] + 1,
                                 cube_triangles[3 * t + 2] + 1);
    glcollide_mesh *mesh = parse_ok(text, used, GLCOLLIDE_MESH_FORMAT_OBJ, "cube.obj");
    assert_cube(mesh);
    glcollide_mesh_destroy(&mesh);
}
END_TEST

START_TEST(test_cube_ascii_stl)
{
    for (int upper = 0; upper < 2; upper++) {
        char *text = cube_ascii_stl(upper ? "upper" : "lower");
        glcollide_mesh *mesh = parse_ok(text, strlen(text), GLCOLLIDE_MESH_FORMAT_STL, "cube.stl");
        assert_cube(mesh);
        glcollide_mesh_destroy(&mesh);
        free(text);
    }
}
END_TEST

START_TEST(test_cube_binary_stl)
{
    /* Plain header, and one that starts with "solid" as many exporters write. */
    const char *headers[] = {"binary cube", "solid cube exported by a CAD program"};
    for (int i = 0; i < 2; i++) {
        size_t size;
        unsigned char *data = cube_binary_stl(headers[i], &size);
        glcollide_mesh *mesh =
            parse_ok((const char *)data, size, GLCOLLIDE_MESH_FORMAT_STL, "cube.stl");
        assert_cube(mesh);
        glcollide_mesh_destroy(&mesh);
        /* Found by content too, and through a file. */
        mesh = parse_ok((const char *)data, size, GLCOLLIDE_MESH_FORMAT_AUTO, "cube");
        assert_cube(mesh);
        glcollide_mesh_destroy(&mesh);
        char *path = test_write_temp(".STL", data, size);
        ck_assert_int_eq(glcollide_mesh_load(path, 1.0, &mesh), GLCOLLIDE_OK);
        assert_cube(mesh);
        ck_assert_str_eq(mesh->name, path);
        glcollide_mesh_destroy(&mesh);
        unlink(path);
        free(path);
        free(data);
    }
}
END_TEST

/* The same cube from files of each format, the format taken from the extension
 * or (for an unknown extension) from the content. */
START_TEST(test_cube_files)
{
    char *stl = cube_ascii_stl("lower");
    const struct {
        const char *suffix;
        const char *text;
    } files[] = {
        {".off", cube_off},
        {".mesh", cube_off},
        {".stl", stl},
        {".txt", stl},
        {"", "v -1 -1 -1\nv -1 -1 1\nv -1 1 1\nv -1 1 -1\nv 1 -1 -1\nv 1 1 -1\nv 1 1 1\nv 1 -1 1\n"
             "f 1 2 3\nf 1 3 4\nf 5 6 7\nf 5 7 8\nf 1 5 8\nf 1 8 2\n"
             "f 4 3 7\nf 4 7 6\nf 1 4 6\nf 1 6 5\nf 2 8 7\nf 2 7 3\n"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *path = test_write_temp(files[i].suffix, files[i].text, strlen(files[i].text));
        glcollide_mesh *mesh = NULL;
        test_log_capture_start(GLCOLLIDE_LOG_ERROR);
        int status = glcollide_mesh_load(path, 1.0, &mesh);
        test_log_capture_stop();
        ck_assert_msg(status == GLCOLLIDE_OK, "%s: %s", path, test_log_last());
        assert_cube(mesh);
        ck_assert_str_eq(mesh->name, path);
        glcollide_mesh_destroy(&mesh);
        unlink(path);
        free(path);
    }
    free(stl);
}
END_TEST

/* ---------------------------------------------------------------- format variants */

START_TEST(test_off_variants)
{
    /* Counts on the header line, comments everywhere, blank lines, CRLF,
     * a quad and a pentagon fan-triangulated, a colour after a face. */
    static const char text[] = "# made by hand\r\n"
                               "OFF 6 2 0 # counts here\r\n"
                               "\r\n"
                               "0 0 0\r\n1 0 0\r\n1 1 0 # a comment\r\n0 1 0\r\n"
                               "# more\r\n"
                               "0.5 1.5 0\r\n-0.5 0.5 0\r\n"
                               "4 0 1 2 3 255 0 0\r\n"
                               "5 0 3 4 5 1\r\n";
    glcollide_mesh *mesh =
        parse_ok(text, sizeof text - 1, GLCOLLIDE_MESH_FORMAT_OFF, "variants.off");
    ck_assert_uint_eq(mesh->vertex_count, 6);
    ck_assert_uint_eq(mesh->triangle_count, 2 + 3);
    const uint32_t expected[] = {0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 5, 0, 5, 1};
    ck_assert_mem_eq(mesh->triangles, expected, sizeof expected);
    ck_assert(mesh->positions[3 * 4] == 0.5 && mesh->positions[3 * 4 + 1] == 1.5);
    glcollide_mesh_destroy(&mesh);

    /* COFF: colours after each vertex (as CGAL's cactus.off), NOFF: normals. */
    static const char coff[] = "COFF\n3 1 0\n0 0 0 192 192 192 255\n1 0 0 192 192 192 255\n"
                               "0 1 0 0.5 0.5 0.5 1\n3 0 1 2\n";
    mesh = parse_ok(coff, sizeof coff - 1, GLCOLLIDE_MESH_FORMAT_AUTO, "colours.off");
    ck_assert_uint_eq(mesh->vertex_count, 3);
    ck_assert_uint_eq(mesh->triangle_count, 1);
    ck_assert(mesh->positions[3] == 1.0 && mesh->positions[7] == 1.0);
    glcollide_mesh_destroy(&mesh);
    static const char noff[] = "NOFF\n3 1\n0 0 0 0 0 1\n1 0 0 0 0 1\n0 1 0 0 0 1\n3 0 1 2\n";
    mesh = parse_ok(noff, sizeof noff - 1, GLCOLLIDE_MESH_FORMAT_OFF, "normals.off");
    ck_assert_uint_eq(mesh->triangle_count, 1);
    glcollide_mesh_destroy(&mesh);
}
END_TEST

START_TEST(test_obj_variants)
{
    /* All corner forms, negative indices, a quad, a face before its vertices
     * (positive indices may look ahead), ignored statements, CRLF. */
    static const char text[] = "# exported\r\n"
                               "g part\r\n"
                               "v 0 0 0\r\nv 1 0 0 1.0\r\nv 1 1 0 0.2 0.3 0.4\r\n"
                               "vt 0 0\r\nvt 1 0\r\nvn 0 0 1\r\n"
                               "f 1/1 2/2 3/1\r\n"
                               "f 1//1 3//1 4//1\r\n"
                               "f 1/1/1 2/2/1 3/1/1 4/1/1\r\n"
                               "f 5 6 7\r\n"
                               "v 0 1 0\r\n"
                               "f -4 -3 -2 -1\r\n"
                               "l 1 2\r\n"
                               "v 2 0 0\r\nv 2 1 0\r\nv 3 0 0\r\n";
    glcollide_mesh *mesh =
        parse_ok(text, sizeof text - 1, GLCOLLIDE_MESH_FORMAT_OBJ, "variants.obj");
    ck_assert_uint_eq(mesh->vertex_count, 7);
    ck_assert_uint_eq(mesh->triangle_count, 1 + 1 + 2 + 1 + 2);
    const uint32_t expected[] = {0, 1, 2, 0, 2, 3, 0, 1, 2, 0, 2, 3, 4, 5, 6, 0, 1, 2, 0, 2, 3};
    ck_assert_mem_eq(mesh->triangles, expected, sizeof expected);
    ck_assert(mesh->positions[3 * 3 + 1] == 1.0);
    glcollide_mesh_destroy(&mesh);
}
END_TEST

START_TEST(test_stl_variants)
{
    /* Two solids in one file form one mesh; shared corners weld, -0 with +0. */
    static const char text[] =
        "solid a\n"
        "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\n"
        "endloop\nendfacet\n"
        "endsolid a\n"
        "solid b\n"
        "facet normal 0 0 1\nouter loop\nvertex 1 0 0\nvertex 1 1 0\nvertex 0 1 -0\n"
        "endloop\nendfacet\n"
        "endsolid b\n";
    glcollide_mesh *mesh = parse_ok(text, sizeof text - 1, GLCOLLIDE_MESH_FORMAT_AUTO, "two.stl");
    ck_assert_uint_eq(mesh->vertex_count, 4);
    ck_assert_uint_eq(mesh->triangle_count, 2);
    const uint32_t expected[] = {0, 1, 2, 1, 3, 2};
    ck_assert_mem_eq(mesh->triangles, expected, sizeof expected);
    glcollide_mesh_destroy(&mesh);
}
END_TEST

START_TEST(test_scale)
{
    glcollide_mesh *mesh = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    ck_assert_int_eq(glcollide_mesh_parse(cube_off, strlen(cube_off), GLCOLLIDE_MESH_FORMAT_OFF,
                                          "cube.off", 2.5, &mesh),
                     GLCOLLIDE_OK);
    for (int i = 0; i < 24; i++)
        ck_assert(mesh->positions[i] == 2.5 * cube_positions[i]);
    glcollide_mesh_destroy(&mesh);

    const double bad[] = {0.0, -1.0, NAN, INFINITY};
    const char *expected[] = {"cube.off: scale 0 must be positive and finite",
                              "cube.off: scale -1 must be positive and finite",
                              "cube.off: scale nan must be positive and finite",
                              "cube.off: scale inf must be positive and finite"};
    glcollide_mesh *untouched = (glcollide_mesh *)&mesh;
    for (int i = 0; i < 4; i++) {
        test_log_capture_start(GLCOLLIDE_LOG_ERROR);
        mesh = untouched;
        int status = glcollide_mesh_parse(cube_off, strlen(cube_off), GLCOLLIDE_MESH_FORMAT_OFF,
                                          "cube.off", bad[i], &mesh);
        TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, expected[i]);
        ck_assert_ptr_eq(mesh, untouched);
        test_log_capture_start(GLCOLLIDE_LOG_ERROR);
        status = glcollide_mesh_load("cube.off", bad[i], &mesh);
        TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, expected[i]);
    }
    test_log_capture_stop();
}
END_TEST

/* ---------------------------------------------------------------- numbers */

START_TEST(test_parse_double)
{
    /* The fast path must agree bit for bit with strtod (correct rounding). */
    test_rng rng = {0x5eed0001u};
    char token[64];
    for (int i = 0; i < 200000; i++) {
        int style = (int)test_rng_below(&rng, 4);
        double magnitude = style == 0   ? test_rng_uniform(&rng, -1, 1)
                           : style == 1 ? test_rng_uniform(&rng, -1e6, 1e6)
                                        : ldexp(test_rng_uniform(&rng, -1, 1),
                                                (int)test_rng_below(&rng, 200) - 100);
        int digits = 1 + (int)test_rng_below(&rng, 19);
        int length = style == 3 ? snprintf(token, sizeof token, "%.*e", digits, magnitude)
                                : snprintf(token, sizeof token, "%.*g", digits, magnitude);
        double ours = 0.0, reference = strtod(token, NULL);
        TEST_REQUIRE(glcollide_parse_double(token, (size_t)length, &ours), "rejected %s", token);
        TEST_REQUIRE(memcmp(&ours, &reference, sizeof ours) == 0, "%s: %.17g, strtod %.17g", token,
                     ours, reference);
    }
    static const char *const good[] = {"0",
                                       "-0",
                                       "+1",
                                       ".5",
                                       "5.",
                                       "1e5",
                                       "1E-5",
                                       "00012.50",
                                       "123456789012345678901234567890",
                                       "0.000000000000000000000000000001",
                                       "1e400",
                                       "-INF",
                                       "Infinity",
                                       "NaN",
                                       "4.9406564584124654e-324",
                                       "2.2250738585072014e-308",
                                       "9007199254740993"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        double ours, reference = strtod(good[i], NULL);
        ck_assert_msg(glcollide_parse_double(good[i], strlen(good[i]), &ours), "rejected %s",
                      good[i]);
        ck_assert_msg(memcmp(&ours, &reference, sizeof ours) == 0 ||
                          (isnan(ours) && isnan(reference)),
                      "%s: %.17g, strtod %.17g", good[i], ours, reference);
    }
    static const char *const bad[] = {"",     "-",   ".",   "e5", "1e",   "1e+", "1.2.3",
                                      "0x10", "1,5", "--1", "1f", "nanx", "in"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double value;
        ck_assert_msg(!glcollide_parse_double(bad[i], strlen(bad[i]), &value), "accepted '%s'",
                      bad[i]);
    }
    int64_t n;
    ck_assert_int_eq(glcollide_parse_int64("-42", 3, &n), GLCOLLIDE_INT_OK);
    ck_assert_int_eq(n, -42);
    ck_assert_int_eq(glcollide_parse_int64("9223372036854775807", 19, &n), GLCOLLIDE_INT_OK);
    ck_assert_int_eq(glcollide_parse_int64("9223372036854775808", 19, &n), GLCOLLIDE_INT_OVERFLOW);
    ck_assert_int_eq(glcollide_parse_int64("4.0", 3, &n), GLCOLLIDE_INT_NOT_INTEGER);
    ck_assert_int_eq(glcollide_parse_int64("+", 1, &n), GLCOLLIDE_INT_NOT_INTEGER);
}
END_TEST

Suite *suite_mesh_io(void)
{
    Suite *suite = suite_create("mesh_io");
    TCase *formats = tcase_create("formats");
    tcase_add_test(formats, test_cube_off);
    tcase_add_test(formats, test_cube_obj);
    tcase_add_test(formats, test_cube_ascii_stl);
    tcase_add_test(formats, test_cube_binary_stl);
    tcase_add_test(formats, test_cube_files);
    tcase_add_test(formats, test_off_variants);
    tcase_add_test(formats, test_obj_variants);
    tcase_add_test(formats, test_stl_variants);
    tcase_add_test(formats, test_scale);
    tcase_add_test(formats, test_parse_double);
    suite_add_tcase(suite, formats);
    return suite;
}
