/* SPDX-License-Identifier: MIT */
/*
 * STL reader, ASCII and binary. STL stores each triangle with its own three
 * corners, so corners with identical coordinates are welded into shared
 * vertices; without that no STL mesh could ever be found closed.
 *
 * Telling the two apart: binary files have exactly 84 + 50 * n bytes, n being
 * the count at byte 80, but many exporters also begin their binary header
 * with "solid". A file is read as ASCII when it starts with "solid" and
 * either its size does not fit the binary rule (and it has no NUL byte), or
 * it has no NUL byte and "facet"/"endsolid" follows the solid line.
 */
#include "mesh/mesh_formats.h"
#include "mesh/mesh_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- ASCII */

typedef struct stl_state {
    glcollide_text text;
    glcollide_mesh_builder builder;
    glcollide_weld_map weld;
    double scale;
} stl_state;

static int fail_expected(stl_state *s, const char *what, int have_token, const char *token,
                         size_t length)
{
    char quoted[GLCOLLIDE_QUOTE_SIZE];
    if (!have_token) {
        s->text.line = glcollide_text_last_line(&s->text);
        return glcollide_text_fail(&s->text, GLCOLLIDE_ERROR_PARSE,
                                   "file ends where %s was expected", what);
    }
    return glcollide_text_fail(&s->text, GLCOLLIDE_ERROR_PARSE, "expected %s, got '%s'", what,
                               glcollide_text_quote(token, length, quoted));
}

static int expect_keyword(stl_state *s, const char *keyword)
{
    const char *token = NULL;
    size_t length = 0;
    int have = glcollide_text_token_any(&s->text, &token, &length);
    if (have && glcollide_token_is_nocase(token, length, keyword))
        return GLCOLLIDE_OK;
    char what[32];
    snprintf(what, sizeof what, "'%s'", keyword);
    return fail_expected(s, what, have, token, length);
}

static int read_number(stl_state *s, double *value)
{
    const char *token = NULL;
    size_t length = 0;
    int have = glcollide_text_token_any(&s->text, &token, &length);
    if (have && glcollide_parse_double(token, length, value))
        return GLCOLLIDE_OK;
    return fail_expected(s, "a number", have, token, length);
}

/* A corner's coordinate as read, in an ASCII file (triangle < 0: the
 * message names the line) or a binary one (the triangle). */
static int check_coordinate(stl_state *s, double x, int64_t triangle)
{
    const char *defect = glcollide_scaled_defect(x, s->scale);
    if (!defect)
        return GLCOLLIDE_OK;
    char value[32], what[160];
    snprintf(value, sizeof value, "%g", x);
    snprintf(what, sizeof what, defect, value);
    if (triangle < 0)
        return glcollide_text_fail(&s->text, GLCOLLIDE_ERROR_INVALID_MESH, "%s", what);
    return glcollide_fail(GLCOLLIDE_ERROR_INVALID_MESH, "%s: triangle %lld: %s", s->text.name,
                          (long long)triangle, what);
}

static int read_facet(stl_state *s)
{
    double ignored;
    int status = expect_keyword(s, "normal");
    for (int k = 0; status == GLCOLLIDE_OK && k < 3; k++)
        status = read_number(s, &ignored); /* normals are recomputed from the winding */
    if (status == GLCOLLIDE_OK)
        status = expect_keyword(s, "outer");
    if (status == GLCOLLIDE_OK)
        status = expect_keyword(s, "loop");
    uint32_t first = 0, previous = 0, current = 0;
    int corners = 0;
    while (status == GLCOLLIDE_OK) {
        const char *token = NULL;
        size_t length = 0;
        int have = glcollide_text_token_any(&s->text, &token, &length);
        if (have && glcollide_token_is_nocase(token, length, "endloop"))
            break;
        if (!have || !glcollide_token_is_nocase(token, length, "vertex"))
            return fail_expected(s, "'vertex' or 'endloop'", have, token, length);
        double p[3];
        for (int k = 0; k < 3; k++) {
            status = read_number(s, &p[k]);
            if (status < 0)
                return status;
            status = check_coordinate(s, p[k], -1);
            if (status < 0)
                return status;
        }
        status = glcollide_weld_vertex(&s->builder, &s->weld, p, &current);
        if (status < 0)
            return status;
        /* Fan triangulation of the (rare) facets with more than 3 corners. */
        if (corners >= 2)
            status = glcollide_mesh_builder_add_triangle(&s->builder, first, previous, current);
        if (corners == 0)
            first = current;
        previous = current;
        corners++;
    }
    if (status == GLCOLLIDE_OK && corners < 3)
        return glcollide_text_fail(&s->text, GLCOLLIDE_ERROR_PARSE,
                                   "facet with %d vertices (at least 3 needed)", corners);
    if (status == GLCOLLIDE_OK)
        status = expect_keyword(s, "endfacet");
    return status;
}

static int parse_ascii(stl_state *s)
{
    glcollide_text *text = &s->text;
    const char *token = NULL;
    size_t length = 0;
    int status = expect_keyword(s, "solid");
    glcollide_text_next_line(text); /* the solid's name */
    while (status == GLCOLLIDE_OK) {
        int have = glcollide_text_token_any(text, &token, &length);
        if (have && glcollide_token_is_nocase(token, length, "facet")) {
            status = read_facet(s);
        } else if (have && glcollide_token_is_nocase(token, length, "endsolid")) {
            glcollide_text_next_line(text); /* the solid's name again */
            if (!glcollide_text_token_any(text, &token, &length))
                break;
            /* Several solids may follow one another; they form one mesh. */
            if (!glcollide_token_is_nocase(token, length, "solid")) {
                char quoted[GLCOLLIDE_QUOTE_SIZE];
                return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE,
                                           "unexpected '%s' after 'endsolid'",
                                           glcollide_text_quote(token, length, quoted));
            }
            glcollide_text_next_line(text);
        } else if (!have) {
            text->line = glcollide_text_last_line(text);
            return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE, "file ends without 'endsolid'");
        } else {
            return fail_expected(s, "'facet' or 'endsolid'", have, token, length);
        }
    }
    if (status == GLCOLLIDE_OK && s->builder.triangle_count == 0) {
        text->line = glcollide_text_last_line(text);
        return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE, "no facets");
    }
    return status;
}

/* ---------------------------------------------------------------- binary */

static uint32_t read_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float read_le_float(const unsigned char *p)
{
    uint32_t bits = read_le32(p);
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static int parse_binary(stl_state *s, const unsigned char *data, size_t size)
{
    const char *name = s->text.name;
    if (size < 84)
        return glcollide_fail(GLCOLLIDE_ERROR_PARSE,
                              "%s: not an ASCII STL and too short for a binary one (%zu bytes, the "
                              "header alone is 84)",
                              name, size);
    uint32_t count = read_le32(data + 80);
    if (!glcollide_stl_size_matches(data, size))
        return glcollide_fail(
            GLCOLLIDE_ERROR_PARSE,
            "%s: binary STL header declares %u triangles (%llu bytes) but the file has %zu bytes",
            name, count, 84 + 50 * (unsigned long long)count, size);
    if (count == 0)
        return glcollide_fail(GLCOLLIDE_ERROR_PARSE, "%s: binary STL with no triangles", name);
    /* A closed mesh has about half as many vertices as triangles. */
    int status = glcollide_mesh_builder_reserve(&s->builder, count / 2 + 4, count);
    for (uint32_t t = 0; status == GLCOLLIDE_OK && t < count; t++) {
        const unsigned char *record = data + 84 + 50 * (size_t)t + 12; /* past the normal */
        uint32_t corner[3];
        for (int k = 0; status == GLCOLLIDE_OK && k < 3; k++) {
            double p[3];
            for (int c = 0; c < 3; c++) {
                p[c] = read_le_float(record + 12 * k + 4 * c);
                int defect = check_coordinate(s, p[c], t);
                if (defect < 0)
                    return defect;
            }
            status = glcollide_weld_vertex(&s->builder, &s->weld, p, &corner[k]);
        }
        if (status == GLCOLLIDE_OK)
            status =
                glcollide_mesh_builder_add_triangle(&s->builder, corner[0], corner[1], corner[2]);
    }
    return status;
}

/* ---------------------------------------------------------------- detection */

static int is_ascii(const char *data, size_t size, const char *name)
{
    glcollide_text text;
    glcollide_text_init(&text, data, size, name, 0);
    const char *token = NULL;
    size_t length = 0;
    if (!glcollide_text_token_any(&text, &token, &length) ||
        !glcollide_token_is_nocase(token, length, "solid"))
        return 0;
    int has_nul = memchr(data, '\0', size) != NULL;
    if (!glcollide_stl_size_matches((const unsigned char *)data, size))
        return !has_nul || size < 84;
    glcollide_text_next_line(&text);
    return !has_nul && glcollide_text_token_any(&text, &token, &length) &&
           (glcollide_token_is_nocase(token, length, "facet") ||
            glcollide_token_is_nocase(token, length, "endsolid"));
}

int glcollide_mesh_parse_stl(const char *data, size_t size, const char *name, double scale,
                             glcollide_mesh **out)
{
    stl_state s;
    memset(&s, 0, sizeof s);
    glcollide_text_init(&s.text, data, size, name, 0);
    glcollide_mesh_builder_init(&s.builder, name);
    s.scale = scale;
    int status = is_ascii(data, size, name) ? parse_ascii(&s)
                                            : parse_binary(&s, (const unsigned char *)data, size);
    glcollide_weld_free(&s.weld);
    if (status < 0) {
        glcollide_mesh_builder_free(&s.builder);
        return status;
    }
    return glcollide_mesh_builder_finish(&s.builder, scale, name, out);
}

int glcollide_stl_size_matches(const unsigned char *data, size_t size)
{
    if (size < 84)
        return 0;
    uint64_t count = (uint64_t)data[80] | (uint64_t)data[81] << 8 | (uint64_t)data[82] << 16 |
                     (uint64_t)data[83] << 24;
    return 84 + 50 * count == (uint64_t)size;
}
