/* SPDX-License-Identifier: MIT */
/* Mesh loaders: every format on the same cube, malformed files with their exact
 * file:line messages, the real CGAL meshes, data-file lookup, OFF round trips. */
#define _POSIX_C_SOURCE 200809L
#include "helpers/tests.h"

#include "mesh/mesh_text.h"

#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */

static int under_valgrind(void)
{
    const char *preload = getenv("LD_PRELOAD");
    return preload && (strstr(preload, "vgpreload") || strstr(preload, "valgrind"));
}

/* A cube of side 2 whose vertices are numbered in order of first use by
 * the triangles, so that STL welding reproduces the same numbering. */
static const double cube_positions[8 * 3] = {
    -1, -1, -1, /* 0 */
    -1, -1, 1,  /* 1 */
    -1, 1,  1,  /* 2 */
    -1, 1,  -1, /* 3 */
    1,  -1, -1, /* 4 */
    1,  1,  -1, /* 5 */
    1,  1,  1,  /* 6 */
    1,  -1, 1,  /* 7 */
};
static const uint32_t cube_triangles[12 * 3] = {
    0, 1, 2, 0, 2, 3, /* -x */
    4, 5, 6, 4, 6, 7, /* +x */
    0, 4, 7, 0, 7, 1, /* -y */
    3, 2, 6, 3, 6, 5, /* +y */
    0, 3, 5, 0, 5, 4, /* -z */
    1, 7, 6, 1, 6, 2, /* +z */
};

static const char cube_off[] =
    "OFF\n"
    "8 12 0\n"
    "-1 -1 -1\n-1 -1 1\n-1 1 1\n-1 1 -1\n1 -1 -1\n1 1 -1\n1 1 1\n1 -1 1\n"
    "3 0 1 2\n3 0 2 3\n3 4 5 6\n3 4 6 7\n3 0 4 7\n3 0 7 1\n"
    "3 3 2 6\n3 3 6 5\n3 0 3 5\n3 0 5 4\n3 1 7 6\n3 1 6 2\n";

static void assert_cube(const glcollide_mesh *mesh)
{
    ck_assert_uint_eq(mesh->vertex_count, 8);
    ck_assert_uint_eq(mesh->triangle_count, 12);
    ck_assert_mem_eq(mesh->positions, cube_positions, sizeof cube_positions);
    ck_assert_mem_eq(mesh->triangles, cube_triangles, sizeof cube_triangles);
    glcollide_mesh_report report;
    ck_assert_int_eq(glcollide_mesh_validate(mesh, &report), GLCOLLIDE_OK);
    ck_assert_int_eq(report.closed, 1);
    ck_assert(report.signed_volume == 8.0);
}

static char *cube_ascii_stl(const char *keyword_case_sample)
{
    /* keyword_case_sample: "lower" or "upper" keywords. */
    int upper = strcmp(keyword_case_sample, "upper") == 0;
    size_t capacity = 8192, used = 0;
    char *text = malloc(capacity);
    ck_assert_ptr_nonnull(text);
    used += (size_t)snprintf(text + used, capacity - used, "%s cube\n", upper ? "SOLID" : "solid");
    for (int t = 0; t < 12; t++) {
        used += (size_t)snprintf(text + used, capacity - used, "  %s 0 0 0\n    %s\n",
                                 upper ? "FACET NORMAL" : "facet normal",
                                 upper ? "OUTER LOOP" : "outer loop");
        for (int k = 0; k < 3; k++) {
            const double *p = cube_positions + 3 * cube_triangles[3 * t + k];
            used += (size_t)snprintf(text + used, capacity - used, "      %s %.17g %.17g %.17g\n",
                                     upper ? "VERTEX" : "vertex", p[0], p[1], p[2]);
        }
        used += (size_t)snprintf(text + used, capacity - used, "    %s\n  %s\n",
                                 upper ? "ENDLOOP" : "endloop", upper ? "ENDFACET" : "endfacet");
    }
    snprintf(text + used, capacity - used, "%s cube\n", upper ? "ENDSOLID" : "endsolid");
    return text;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static void put_le_float(unsigned char *p, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    put_le32(p, bits);
}

/* Binary STL of the cube, 84 + 50 * 12 bytes; header as given (padded with zeros). */
static unsigned char *cube_binary_stl(const char *header, size_t *size)
{
    *size = 84 + 50 * 12;
    unsigned char *data = calloc(1, *size);
    ck_assert_ptr_nonnull(data);
    memcpy(data, header, strlen(header));
    put_le32(data + 80, 12);
    for (int t = 0; t < 12; t++) {
        unsigned char *record = data + 84 + 50 * t;
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < 3; c++)
                put_le_float(record + 12 + 12 * k + 4 * c,
                             (float)cube_positions[3 * cube_triangles[3 * t + k] + c]);
    }
    return data;
}

static glcollide_mesh *parse_ok(const char *text, size_t size, glcollide_mesh_format format,
                                const char *name)
{
    glcollide_mesh *mesh = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_mesh_parse(text, size, format, name, 1.0, &mesh);
    test_log_capture_stop();
    ck_assert_msg(status == GLCOLLIDE_OK, "%s: status %d: %s", name, status, test_log_last());
    ck_assert_int_eq(test_log_count(), 0);
    ck_assert_ptr_nonnull(mesh);
    ck_assert_str_eq(mesh->name, name);
    return mesh;
}

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

    TCase *errors = tcase_create("malformed");
    tcase_add_loop_test(errors, test_malformed, 0, (int)(sizeof malformed / sizeof malformed[0]));
    tcase_add_test(errors, test_malformed_binary_stl);
    tcase_add_test(errors, test_io_errors);
    tcase_add_test(errors, test_scaled_overflow);
    suite_add_tcase(suite, errors);

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
