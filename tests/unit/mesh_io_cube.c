/* SPDX-License-Identifier: MIT */
/* The loaders' test cube and its checks (mesh_io_cube.h). */
#include "unit/mesh_io_cube.h"
#include "helpers/tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int under_valgrind(void)
{
    const char *preload = getenv("LD_PRELOAD");
    return preload && (strstr(preload, "vgpreload") || strstr(preload, "valgrind"));
}

/* A cube of side 2 whose vertices are numbered in order of first use by
 * the triangles, so that STL welding reproduces the same numbering. */
const double cube_positions[8 * 3] = {
    -1, -1, -1, /* 0 */
    -1, -1, 1,  /* 1 */
    -1, 1,  1,  /* 2 */
    -1, 1,  -1, /* 3 */
    1,  -1, -1, /* 4 */
    1,  1,  -1, /* 5 */
    1,  1,  1,  /* 6 */
    1,  -1, 1,  /* 7 */
};
const uint32_t cube_triangles[12 * 3] = {
    0, 1, 2, 0, 2, 3, /* -x */
    4, 5, 6, 4, 6, 7, /* +x */
    0, 4, 7, 0, 7, 1, /* -y */
    3, 2, 6, 3, 6, 5, /* +y */
    0, 3, 5, 0, 5, 4, /* -z */
    1, 7, 6, 1, 6, 2, /* +z */
};

const char cube_off[] = "OFF\n"
                        "8 12 0\n"
                        "-1 -1 -1\n-1 -1 1\n-1 1 1\n-1 1 -1\n1 -1 -1\n1 1 -1\n1 1 1\n1 -1 1\n"
                        "3 0 1 2\n3 0 2 3\n3 4 5 6\n3 4 6 7\n3 0 4 7\n3 0 7 1\n"
                        "3 3 2 6\n3 3 6 5\n3 0 3 5\n3 0 5 4\n3 1 7 6\n3 1 6 2\n";

void assert_cube(const glcollide_mesh *mesh)
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

char *cube_ascii_stl(const char *keyword_case_sample)
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

void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

void put_le_float(unsigned char *p, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    put_le32(p, bits);
}

/* Binary STL of the cube, 84 + 50 * 12 bytes; header as given (padded with zeros). */
unsigned char *cube_binary_stl(const char *header, size_t *size)
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

glcollide_mesh *parse_ok(const char *text, size_t size, glcollide_mesh_format format,
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
