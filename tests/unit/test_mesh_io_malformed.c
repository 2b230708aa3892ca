/* SPDX-License-Identifier: MIT */
/* Mesh loaders, malformed input: every kind of broken file with its exact
 * file:line message, broken binary STL, I/O errors, scaled overflow. */
#define _POSIX_C_SOURCE 200809L
#include "helpers/tests.h"
#include "unit/mesh_io_cube.h"

#include <glcollide/glcollide.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- malformed input */

typedef struct malformed_case {
    const char *name; /* also selects the format by extension */
    const char *text;
    int status;
    const char *message;
} malformed_case;

#define OFF_TRI "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n"
#define OBJ_TRI "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
#define STL_HEAD "solid t\nfacet normal 0 0 1\nouter loop\n"

static const malformed_case malformed[] = {
    /* OFF */
    {"x.off", "", GLCOLLIDE_ERROR_PARSE, "x.off:1: empty file"},
    {"x.off", " \n\t\n", GLCOLLIDE_ERROR_PARSE, "x.off:1: empty file"},
    {"x.off", "# nothing\n# at all\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:2: empty file (only comments)"},
    {"x.off", "PLY\n3 1 0\n", GLCOLLIDE_ERROR_PARSE, "x.off:1: expected an OFF header, got 'PLY'"},
    {"x.off", "4OFF\n3 1 0\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:1: 4OFF (4D or n-dimensional OFF) is not supported"},
    {"x.off", "OFF BINARY\n", GLCOLLIDE_ERROR_PARSE, "x.off:1: binary OFF is not supported"},
    {"x.off", "OFF\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:1: file ends before the vertex and face counts"},
    {"x.off", "OFF\n3\n", GLCOLLIDE_ERROR_PARSE, "x.off:2: expected the face count"},
    {"x.off", "OFF\n3 x 0\n", GLCOLLIDE_ERROR_PARSE, "x.off:2: expected the face count, got 'x'"},
    {"x.off", "OFF\n-3 1 0\n", GLCOLLIDE_ERROR_PARSE, "x.off:2: negative vertex count -3"},
    {"x.off", "OFF\n3 1 0 7\n", GLCOLLIDE_ERROR_PARSE, "x.off:2: unexpected '7' after the counts"},
    {"x.off", "OFF\n4294967296 1 0\n", GLCOLLIDE_ERROR_LIMIT,
     "x.off:2: vertex count 4294967296 exceeds 4294967295"},
    {"x.off", "OFF\n3 0 0\n0 0 0\n1 0 0\n0 1 0\n", GLCOLLIDE_ERROR_PARSE, "x.off:2: no faces"},
    {"x.off", "OFF\n4 1 0\n0 0 0\n1 0 0\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:4: file ends after 2 of 4 vertices"},
    /* A corrupt count must not allocate for a billion vertices first. */
    {"x.off", "OFF\n1000000000 1 0\n0 0 0\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:3: file ends after 1 of 1000000000 vertices"},
    {"x.off", "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:6: file ends after 1 of 2 faces"},
    {"x.off", OFF_TRI "3 0 1\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:6: expected 3 vertex indices, got 2"},
    {"x.off", OFF_TRI "4 0 1 2\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:6: expected 4 vertex indices, got 3"},
    {"x.off", "OFF\n3 1 0\n0 0 0\n1 zero 0\n0 1 0\n3 0 1 2\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:4: expected a coordinate, got 'zero'"},
    {"x.off", "OFF\n3 1 0\n0 0 0\n1 0\n0 1 0\n3 0 1 2\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:4: expected 3 coordinates, got 2"},
    /* Plain OFF with a fourth value: usually a wrong vertex count. */
    {"x.off", "OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:6: expected 3 coordinates, got 4"},
    {"x.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0 x\n3 0 1 2\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:5: expected 3 coordinates, got 4"},
    {"x.off", "COFF\n3 1 0\n0 0 0\n1 0 0 red\n0 1 0\n3 0 1 2\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:4: expected a number after the coordinates, got 'red'"},
    {"x.off", "OFF\n3 1 0\n0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n", GLCOLLIDE_ERROR_INVALID_MESH,
     "x.off:4: non-finite coordinate nan"},
    {"x.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1e999 0\n3 0 1 2\n", GLCOLLIDE_ERROR_INVALID_MESH,
     "x.off:5: non-finite coordinate 1e999"},
    {"x.off", OFF_TRI "3 0 1 9\n", GLCOLLIDE_ERROR_INVALID_MESH,
     "x.off:6: vertex index 9 out of range (3 vertices)"},
    {"x.off", OFF_TRI "3 0 -1 2\n", GLCOLLIDE_ERROR_INVALID_MESH,
     "x.off:6: vertex index -1 out of range (3 vertices)"},
    {"x.off", OFF_TRI "3 0 1 99999999999999999999\n", GLCOLLIDE_ERROR_INVALID_MESH,
     "x.off:6: vertex index 99999999999999999999 out of range (3 vertices)"},
    {"x.off", OFF_TRI "3 0 1.5 2\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:6: expected a vertex index, got '1.5'"},
    {"x.off", OFF_TRI "2 0 1\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:6: face with 2 vertices (at least 3 needed)"},
    {"x.off", OFF_TRI "three 0 1 2\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:6: expected the number of vertices of a face, got 'three'"},
    {"x.off", OFF_TRI "3 0 1 2 red\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:6: expected a colour value after the face's 3 indices, got 'red'"},
    {"x.off", OFF_TRI "3 0 1 2\n\n3 0 2 1\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:8: unexpected '3' after the last of 1 faces"},
    {"x.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n\x01\x02garbage\n", GLCOLLIDE_ERROR_PARSE,
     "x.off:7: unexpected '??garbage' after the last of 1 faces"},
    /* OBJ */
    {"x.obj", "", GLCOLLIDE_ERROR_PARSE, "x.obj:1: empty file"},
    {"x.obj", OBJ_TRI, GLCOLLIDE_ERROR_PARSE, "x.obj:3: no faces"},
    {"x.obj", "# just a comment\n", GLCOLLIDE_ERROR_PARSE, "x.obj:1: no faces"},
    {"x.obj", OBJ_TRI "f 1 2\n", GLCOLLIDE_ERROR_PARSE,
     "x.obj:4: face with 2 vertices (at least 3 needed)"},
    {"x.obj", OBJ_TRI "f 1 2 3\nf 1 2 9\n", GLCOLLIDE_ERROR_INVALID_MESH,
     "x.obj:5: vertex index 9 out of range (3 vertices)"},
    {"x.obj", OBJ_TRI "f 0 1 2\n", GLCOLLIDE_ERROR_INVALID_MESH,
     "x.obj:4: vertex index 0 out of range (3 vertices, OBJ indices start at 1)"},
    {"x.obj", OBJ_TRI "f -4 -1 -2\n", GLCOLLIDE_ERROR_INVALID_MESH,
     "x.obj:4: vertex index -4 out of range (3 vertices)"},
    {"x.obj", OBJ_TRI "f 1 2 4294967297\n", GLCOLLIDE_ERROR_INVALID_MESH,
     "x.obj:4: vertex index 4294967297 out of range (3 vertices)"},
    {"x.obj", OBJ_TRI "f 1/a 2 3\n", GLCOLLIDE_ERROR_PARSE,
     "x.obj:4: expected a vertex reference (v, v/t, v//n or v/t/n), got '1/a'"},
    {"x.obj", OBJ_TRI "f 1 2 3/1/\n", GLCOLLIDE_ERROR_PARSE,
     "x.obj:4: expected a vertex reference (v, v/t, v//n or v/t/n), got '3/1/'"},
    {"x.obj", OBJ_TRI "f 1 2 x\n", GLCOLLIDE_ERROR_PARSE,
     "x.obj:4: expected a vertex reference (v, v/t, v//n or v/t/n), got 'x'"},
    {"x.obj", "v 0 0\n", GLCOLLIDE_ERROR_PARSE, "x.obj:1: expected 3 coordinates, got 2"},
    {"x.obj", "v 0 0 x\n", GLCOLLIDE_ERROR_PARSE, "x.obj:1: expected a coordinate, got 'x'"},
    {"x.obj", "v 0 0 0 junk\n", GLCOLLIDE_ERROR_PARSE,
     "x.obj:1: expected a number after the coordinates, got 'junk'"},
    {"x.obj", "v 0 0 0\nv 0 0 -inf\n", GLCOLLIDE_ERROR_INVALID_MESH,
     "x.obj:2: non-finite coordinate -inf"},
    {"x.obj", "v 0 0 0\nv 0 0 0x1p3\n", GLCOLLIDE_ERROR_PARSE,
     "x.obj:2: expected a coordinate, got '0x1p3'"},
    /* ASCII STL */
    {"x.stl", STL_HEAD "vertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\nendsolid t\n",
     GLCOLLIDE_ERROR_PARSE, "x.stl:6: facet with 2 vertices (at least 3 needed)"},
    {"x.stl", STL_HEAD "vertex 0 0 0\n", GLCOLLIDE_ERROR_PARSE,
     "x.stl:4: file ends where 'vertex' or 'endloop' was expected"},
    {"x.stl", STL_HEAD "vertex 0 zero 0\n", GLCOLLIDE_ERROR_PARSE,
     "x.stl:4: expected a number, got 'zero'"},
    {"x.stl", STL_HEAD "vertex 0 0 0\nvertex 1 0 nan\n", GLCOLLIDE_ERROR_INVALID_MESH,
     "x.stl:5: non-finite coordinate nan"},
    {"x.stl", "solid t\nfacet normal 0 0 1\ninner loop\n", GLCOLLIDE_ERROR_PARSE,
     "x.stl:3: expected 'outer', got 'inner'"},
    {"x.stl", "solid t\nfacet 0 0 1\n", GLCOLLIDE_ERROR_PARSE,
     "x.stl:2: expected 'normal', got '0'"},
    {"x.stl", "solid t\nendsolid t\n", GLCOLLIDE_ERROR_PARSE, "x.stl:2: no facets"},
    {"x.stl",
     "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\n"
     "endfacet\n",
     GLCOLLIDE_ERROR_PARSE, "x.stl:8: file ends without 'endsolid'"},
    {"x.stl",
     "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\n"
     "endfacet\nendsolid t\ntrailing\n",
     GLCOLLIDE_ERROR_PARSE, "x.stl:10: unexpected 'trailing' after 'endsolid'"},
    {"x.stl",
     "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\n"
     "endfacet\nfacte\n",
     GLCOLLIDE_ERROR_PARSE, "x.stl:9: expected 'facet' or 'endsolid', got 'facte'"},
    /* Not ASCII and too short to be binary. */
    {"x.stl", "hello", GLCOLLIDE_ERROR_PARSE,
     "x.stl: not an ASCII STL and too short for a binary one (5 bytes, the header alone is 84)"},
    /* Undetectable content in a file without a known extension. */
    {"x.dat", "hello world\n", GLCOLLIDE_ERROR_PARSE,
     "x.dat:1: unknown mesh format (expected OFF, OBJ or STL)"},
};

START_TEST(test_malformed)
{
    const malformed_case *c = &malformed[_i];
    /* Through a real file so that the extension picks the format; the
     * message then names the file's path, which replaces "x.off". */
    const char *dot = strrchr(c->name, '.');
    char *path = test_write_temp(dot, c->text, strlen(c->text));
    char expected[1024];
    snprintf(expected, sizeof expected, "%s%s", path, c->message + strlen(c->name));
    glcollide_mesh *mesh = (glcollide_mesh *)&expected; /* must stay untouched */
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_mesh_load(path, 1.0, &mesh);
    test_log_capture_stop();
    ck_assert_msg(status == c->status, "case %d (%s): status %d, expected %d; message: %s", _i,
                  c->message, status, c->status, test_log_last());
    ck_assert_int_eq(test_log_count(), 1);
    ck_assert_str_eq(test_log_last(), expected);
    ck_assert_ptr_eq(mesh, (glcollide_mesh *)&expected);
    unlink(path);
    free(path);

    /* And from memory, where the name is the given one. */
    static const glcollide_mesh_format formats[] = {
        GLCOLLIDE_MESH_FORMAT_OFF, GLCOLLIDE_MESH_FORMAT_OBJ, GLCOLLIDE_MESH_FORMAT_STL};
    for (int f = 0; f < 3; f++) {
        static const char *const extensions[] = {".off", ".obj", ".stl"};
        if (strcmp(dot, extensions[f]) != 0)
            continue;
        test_log_capture_start(GLCOLLIDE_LOG_ERROR);
        status = glcollide_mesh_parse(c->text, strlen(c->text), formats[f], c->name, 1.0, &mesh);
        test_log_capture_stop();
        TEST_ASSERT_FAILED(status, c->status, c->message);
    }
}
END_TEST

START_TEST(test_malformed_binary_stl)
{
    size_t size;
    unsigned char *data = cube_binary_stl("solid but binary", &size);
    glcollide_mesh *mesh = NULL;

    /* Truncated (its header still says "solid": the NUL bytes tell). */
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status =
        glcollide_mesh_parse(data, size - 10, GLCOLLIDE_MESH_FORMAT_STL, "x.stl", 1.0, &mesh);
    TEST_ASSERT_FAILED(
        status, GLCOLLIDE_ERROR_PARSE,
        "x.stl: binary STL header declares 12 triangles (684 bytes) but the file has 674 bytes");
    /* One record too many. */
    unsigned char *longer = calloc(1, size + 50);
    memcpy(longer, data, size);
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status =
        glcollide_mesh_parse(longer, size + 50, GLCOLLIDE_MESH_FORMAT_AUTO, "x.stl", 1.0, &mesh);
    TEST_ASSERT_FAILED(
        status, GLCOLLIDE_ERROR_PARSE,
        "x.stl: binary STL header declares 12 triangles (684 bytes) but the file has 734 bytes");
    free(longer);
    /* A count that does not fit the size at all. */
    put_le32(data + 80, 0xFFFFFFFFu);
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_mesh_parse(data, size, GLCOLLIDE_MESH_FORMAT_STL, "x.stl", 1.0, &mesh);
    TEST_ASSERT_FAILED(
        status, GLCOLLIDE_ERROR_PARSE,
        "x.stl: binary STL header declares 4294967295 triangles (214748364834 bytes) but "
        "the file has 684 "
        "bytes");
    /* No triangles. */
    put_le32(data + 80, 0);
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_mesh_parse(data, 84, GLCOLLIDE_MESH_FORMAT_STL, "x.stl", 1.0, &mesh);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_PARSE, "x.stl: binary STL with no triangles");
    /* A non-finite corner. */
    put_le32(data + 80, 12);
    put_le_float(data + 84 + 50 * 3 + 12 + 4, NAN);
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_mesh_parse(data, size, GLCOLLIDE_MESH_FORMAT_STL, "x.stl", 1.0, &mesh);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "x.stl: triangle 3: non-finite coordinate nan");
    test_log_capture_stop();
    ck_assert_ptr_null(mesh);
    free(data);
}
END_TEST

START_TEST(test_io_errors)
{
    glcollide_mesh *mesh = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_mesh_load("/nonexistent/glcollide/mesh.off", 1.0, &mesh);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_IO,
                       "/nonexistent/glcollide/mesh.off: cannot open: No such file or directory");

    char dir[] = "/tmp/glcollide-dirXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_mesh_load(dir, 1.0, &mesh);
    char expected[256];
    snprintf(expected, sizeof expected, "%s: is a directory; only regular files are read", dir);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_IO, expected);
    rmdir(dir);

    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_mesh_load(NULL, 1.0, &mesh);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "glcollide_mesh_load: path is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_mesh_parse(cube_off, 10, GLCOLLIDE_MESH_FORMAT_OFF, "cube.off", 1.0, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "cube.off: glcollide_mesh_parse: out is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_mesh_parse(NULL, 10, GLCOLLIDE_MESH_FORMAT_OFF, "cube.off", 1.0, &mesh);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "cube.off: glcollide_mesh_parse: data is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_mesh_parse(cube_off, 10, (glcollide_mesh_format)7, "cube.off", 1.0, &mesh);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "cube.off: unknown mesh format 7");
    /* AUTO on content that names no format is the caller's mistake. */
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_mesh_parse("1 2 3\n", 6, GLCOLLIDE_MESH_FORMAT_AUTO, "numbers", 1.0, &mesh);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "numbers:1: unknown mesh format (expected OFF, OBJ or STL)");
    test_log_capture_stop();
    ck_assert_ptr_null(mesh);
}
END_TEST

START_TEST(test_scaled_overflow)
{
    glcollide_mesh *mesh = NULL;
    static const char text[] = "OFF\n3 1 0\n0 0 0\n1e10 0 0\n0 1 0\n3 0 1 2\n";
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_mesh_parse(text, sizeof text - 1, GLCOLLIDE_MESH_FORMAT_OFF, "x.off",
                                      1e300, &mesh);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_MESH,
                       "x.off:4: coordinate 1e10 overflows when scaled");
    test_log_capture_stop();
}
END_TEST

Suite *suite_mesh_io_malformed(void)
{
    Suite *suite = suite_create("mesh_io");
    TCase *errors = tcase_create("malformed");
    tcase_add_loop_test(errors, test_malformed, 0, (int)(sizeof malformed / sizeof malformed[0]));
    tcase_add_test(errors, test_malformed_binary_stl);
    tcase_add_test(errors, test_io_errors);
    tcase_add_test(errors, test_scaled_overflow);
    suite_add_tcase(suite, errors);
    return suite;
}
