/* SPDX-License-Identifier: MIT */
/*
 * OFF reader (Geomview's Object File Format, as CGAL writes it):
 *
 *   [ST][C][N]OFF [V F [E]]     header; the counts may follow on the same line
 *   V F E                       vertex, face and edge counts (edges ignored)
 *   x y z [extra values]        V lines; extras only with a ST/C/N prefix
 *   n i0 ... i(n-1) [colour]    F lines; polygons are fan-triangulated
 *
 * '#' starts a comment anywhere. Each vertex and face is one line, which is
 * what lets a wrong count or a missing value be reported at its line. The
 * prefixed variants (COFF colours, NOFF normals, STOFF texture coordinates)
 * are read with their per-vertex extras ignored; 4OFF, nOFF and binary OFF
 * are refused with a message naming them.
 */
#include "mesh/mesh_formats.h"
#include "mesh/mesh_text.h"

#include <math.h>

/* Reads the ST/C/N prefix of an OFF keyword; 0 if token is not one. */
static int off_header(const char *token, size_t length, int *has_extras, int *unsupported)
{
    if (length < 3 || !glcollide_token_is(token + length - 3, 3, "OFF"))
        return 0;
    size_t n = length - 3, i = 0;
    *unsupported = 0;
    if (n - i >= 2 && token[i] == 'S' && token[i + 1] == 'T')
        i += 2;
    if (i < n && token[i] == 'C')
        i++;
    if (i < n && token[i] == 'N')
        i++;
    if (i < n && token[i] == '4') {
        i++;
        *unsupported = 1;
    }
    if (i < n && token[i] == 'n') {
        i++;
        *unsupported = 1;
    }
    *has_extras = n > 0;
    return i == n;
}

/* Reads one count; what names it in messages. */
static int read_count(glcollide_text *text, const char *what, int required, int64_t *count)
{
    const char *token = NULL;
    size_t length = 0;
    char quoted[GLCOLLIDE_QUOTE_SIZE];
    if (!glcollide_text_token(text, &token, &length)) {
        if (!required)
            return 0;
        return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE, "expected the %s count", what);
    }
    glcollide_int_result result = glcollide_parse_int64(token, length, count);
    if (result == GLCOLLIDE_INT_NOT_INTEGER)
        return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE, "expected the %s count, got '%s'",
                                   what, glcollide_text_quote(token, length, quoted));
    if (result == GLCOLLIDE_INT_OVERFLOW || *count > (int64_t)UINT32_MAX)
        return glcollide_text_fail(text, GLCOLLIDE_ERROR_LIMIT, "%s count %s exceeds %u", what,
                                   glcollide_text_quote(token, length, quoted),
                                   (unsigned)UINT32_MAX);
    if (*count < 0)
        return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE, "negative %s count %lld", what,
                                   (long long)*count);
    return 1;
}

static int read_vertices(glcollide_text *text, glcollide_mesh_builder *builder, int64_t count,
                         int has_extras, double scale)
{
    char quoted[GLCOLLIDE_QUOTE_SIZE];
    const char *token = NULL;
    size_t length = 0;
    for (int64_t i = 0; i < count; i++) {
        if (!glcollide_text_skip_empty_lines(text)) {
            text->line = glcollide_text_last_line(text);
            return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE,
                                       "file ends after %lld of %lld vertices", (long long)i,
                                       (long long)count);
        }
        double xyz[3];
        for (int k = 0; k < 3; k++) {
            if (!glcollide_text_token(text, &token, &length))
                return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE,
                                           "expected 3 coordinates, got %d", k);
            if (!glcollide_parse_double(token, length, &xyz[k]))
                return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE,
                                           "expected a coordinate, got '%s'",
                                           glcollide_text_quote(token, length, quoted));
            const char *defect = glcollide_scaled_defect(xyz[k], scale);
            if (defect)
                return glcollide_text_fail(text, GLCOLLIDE_ERROR_INVALID_MESH, defect,
                                           glcollide_text_quote(token, length, quoted));
        }
        int extras = 0;
        while (glcollide_text_token(text, &token, &length)) {
            double ignored;
            extras++;
            if (has_extras && !glcollide_parse_double(token, length, &ignored))
                return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE,
                                           "expected a number after the coordinates, got '%s'",
                                           glcollide_text_quote(token, length, quoted));
        }
        /* Plain OFF has exactly three values: more usually means a wrong vertex count. */
        if (extras && !has_extras)
            return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE,
                                       "expected 3 coordinates, got %d", 3 + extras);
        int status = glcollide_mesh_builder_add_vertex(builder, xyz[0], xyz[1], xyz[2]);
        if (status < 0)
            return status;
        glcollide_text_next_line(text);
    }
    return GLCOLLIDE_OK;
}

static int read_index(glcollide_text *text, int64_t expected, int64_t got, int64_t vertex_count,
                      uint32_t *index)
{
    char quoted[GLCOLLIDE_QUOTE_SIZE];
    const char *token = NULL;
    size_t length = 0;
    int64_t value;
    if (!glcollide_text_token(text, &token, &length))
        return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE,
                                   "expected %lld vertex indices, got %lld", (long long)expected,
                                   (long long)got);
    glcollide_int_result result = glcollide_parse_int64(token, length, &value);
    if (result == GLCOLLIDE_INT_NOT_INTEGER)
        return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE, "expected a vertex index, got '%s'",
                                   glcollide_text_quote(token, length, quoted));
    if (result == GLCOLLIDE_INT_OVERFLOW || value < 0 || value >= vertex_count)
        return glcollide_text_fail(
            text, GLCOLLIDE_ERROR_INVALID_MESH, "vertex index %s out of range (%lld vertices)",
            glcollide_text_quote(token, length, quoted), (long long)vertex_count);
    *index = (uint32_t)value;
    return GLCOLLIDE_OK;
}

static int read_faces(glcollide_text *text, glcollide_mesh_builder *builder, int64_t count)
{
    char quoted[GLCOLLIDE_QUOTE_SIZE];
    const char *token = NULL;
    size_t length = 0;
    int64_t vertex_count = (int64_t)builder->vertex_count;
    for (int64_t i = 0; i < count; i++) {
        if (!glcollide_text_skip_empty_lines(text)) {
            text->line = glcollide_text_last_line(text);
            return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE,
                                       "file ends after %lld of %lld faces", (long long)i,
                                       (long long)count);
        }
        glcollide_text_token(text, &token, &length);
        int64_t n;
        glcollide_int_result result = glcollide_parse_int64(token, length, &n);
        if (result != GLCOLLIDE_INT_OK)
            return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE,
                                       "expected the number of vertices of a face, got '%s'",
                                       glcollide_text_quote(token, length, quoted));
        if (n < 3)
            return glcollide_text_fail(text, GLCOLLIDE_ERROR_PARSE,
                                       "face with %lld vertices (at least 3 needed)", (long long)n);
        uint32_t first = 0, previous = 0, current = 0;
        int status = read_index(text, n, 0, vertex_count, &first);
        if (status == GLCOLLIDE_OK)
            status = read_index(text, n, 1, vertex_count, &previous);
        /* Fan triangulation: (i0, i(k-1), ik) keeps the polygon's orientation. */
        for (int64_t k = 2; status == GLCOLLIDE_OK && k < n; k++) {
            status = read_index(text, n, k, vertex_count, &current);
            if (status == GLCOLLIDE_OK)
                status = glcollide_mesh_builder_add_triangle(builder, first, previous, current);
            previous = current;
        }
        if (status < 0)
            return status;
        /* Optional colour: an index or 3-4 components. */
        while (glcollide_text_token(text, &token, &length)) {
            double ignored;
            if (!glcollide_parse_double(token, length, &ignored))
                return glcollide_text_fail(
                    text, GLCOLLIDE_ERROR_PARSE,
                    "expected a colour value after the face's %lld indices, got '%s'", (long long)n,
                    glcollide_text_quote(token, length, quoted));
        }
        glcollide_text_next_line(text);
    }
    return GLCOLLIDE_OK;
}

int glcollide_mesh_parse_off(const char *data, size_t size, const char *name, double scale,
                             glcollide_mesh **out)
{
    char quoted[GLCOLLIDE_QUOTE_SIZE];
    glcollide_text text;
    glcollide_text_init(&text, data, size, name, 1);
    const char *token = NULL;
    size_t length = 0;
    if (!glcollide_text_skip_empty_lines(&text)) {
        text.line = glcollide_text_last_line(&text);
        return glcollide_text_fail(&text, GLCOLLIDE_ERROR_PARSE, "empty file (only comments)");
    }
    glcollide_text_token(&text, &token, &length);
    int has_extras = 0, unsupported = 0;
    if (!off_header(token, length, &has_extras, &unsupported))
        return glcollide_text_fail(&text, GLCOLLIDE_ERROR_PARSE, "expected an OFF header, got '%s'",
                                   glcollide_text_quote(token, length, quoted));
    if (unsupported)
        return glcollide_text_fail(&text, GLCOLLIDE_ERROR_PARSE,
                                   "%s (4D or n-dimensional OFF) is not supported",
                                   glcollide_text_quote(token, length, quoted));

    /* Counts: on the header line or on the next line with content. */
    const char *after_header = text.p;
    if (glcollide_text_token(&text, &token, &length)) {
        if (glcollide_token_is(token, length, "BINARY"))
            return glcollide_text_fail(&text, GLCOLLIDE_ERROR_PARSE, "binary OFF is not supported");
        text.p = after_header; /* the counts share the header line */
    } else if (!glcollide_text_next_line(&text) || !glcollide_text_skip_empty_lines(&text)) {
        text.line = glcollide_text_last_line(&text);
        return glcollide_text_fail(&text, GLCOLLIDE_ERROR_PARSE,
                                   "file ends before the vertex and face counts");
    }
    int64_t vertex_count, face_count, edge_count;
    int status = read_count(&text, "vertex", 1, &vertex_count);
    if (status > 0)
        status = read_count(&text, "face", 1, &face_count);
    if (status > 0)
        status = read_count(&text, "edge", 0, &edge_count);
    if (status < 0)
        return status;
    if (glcollide_text_token(&text, &token, &length))
        return glcollide_text_fail(&text, GLCOLLIDE_ERROR_PARSE, "unexpected '%s' after the counts",
                                   glcollide_text_quote(token, length, quoted));
    if (face_count == 0)
        return glcollide_text_fail(&text, GLCOLLIDE_ERROR_PARSE, "no faces");
    glcollide_text_next_line(&text);

    glcollide_mesh_builder builder;
    glcollide_mesh_builder_init(&builder, name);
    /* Reserve what the counts declare, but never more than the bytes left
     * could hold (a vertex line is at least "0 0 0\n"), so that a corrupt
     * count cannot ask for gigabytes before the truncation is found. */
    size_t left = (size_t)(text.end - text.p);
    size_t vertices = (size_t)vertex_count < left / 6 + 1 ? (size_t)vertex_count : left / 6 + 1;
    size_t triangles = (size_t)face_count < left / 8 + 1 ? (size_t)face_count : left / 8 + 1;
    status = glcollide_mesh_builder_reserve(&builder, vertices, triangles);
    if (status == GLCOLLIDE_OK)
        status = read_vertices(&text, &builder, vertex_count, has_extras, scale);
    if (status == GLCOLLIDE_OK)
        status = read_faces(&text, &builder, face_count);
    if (status == GLCOLLIDE_OK && glcollide_text_skip_empty_lines(&text)) {
        glcollide_text_token(&text, &token, &length);
        status = glcollide_text_fail(
            &text, GLCOLLIDE_ERROR_PARSE, "unexpected '%s' after the last of %lld faces",
            glcollide_text_quote(token, length, quoted), (long long)face_count);
    }
    if (status < 0) {
        glcollide_mesh_builder_free(&builder);
        return status;
    }
    return glcollide_mesh_builder_finish(&builder, scale, name, out);
}
