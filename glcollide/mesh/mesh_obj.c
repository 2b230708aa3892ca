/* SPDX-License-Identifier: MIT */
/*
 * Wavefront OBJ reader: only the geometry a solid needs.
 *
 *   v x y z [w | r g b]         vertex; extra values are ignored
 *   f a b c ...                 polygon, each corner v, v/t, v//n or v/t/n;
 *                               1-based, negative = relative to the last vertex
 *
 * Polygons are fan-triangulated; every other statement (vt, vn, g, o, s,
 * usemtl, mtllib, l, p...) is ignored. '#' starts a comment. Lines continued
 * with a backslash are not supported (the backslash is reported as garbage).
 * Positive indices may refer to vertices defined later in the file (checked
 * at the end), negative ones only to vertices already read.
 */
#include "mesh/mesh_formats.h"
#include "mesh/mesh_text.h"

#include <math.h>

typedef struct obj_state {
    glcollide_text text;
    glcollide_mesh_builder builder;
    int64_t max_index;     /* largest positive index seen */
    size_t max_index_line; /* where it was first seen */
} obj_state;

static int read_vertex(obj_state *s, double scale)
{
    char quoted[GLCOLLIDE_QUOTE_SIZE];
    const char *token = NULL;
    size_t length = 0;
    double xyz[3];
    for (int k = 0; k < 3; k++) {
        if (!glcollide_text_token(&s->text, &token, &length))
            return glcollide_text_fail(&s->text, GLCOLLIDE_ERROR_PARSE,
                                       "expected 3 coordinates, got %d", k);
        if (!glcollide_parse_double(token, length, &xyz[k]))
            return glcollide_text_fail(&s->text, GLCOLLIDE_ERROR_PARSE,
                                       "expected a coordinate, got '%s'",
                                       glcollide_text_quote(token, length, quoted));
        const char *defect = glcollide_scaled_defect(xyz[k], scale);
        if (defect)
            return glcollide_text_fail(&s->text, GLCOLLIDE_ERROR_INVALID_MESH, defect,
                                       glcollide_text_quote(token, length, quoted));
    }
    while (glcollide_text_token(&s->text, &token, &length)) {
        double ignored;
        if (!glcollide_parse_double(token, length, &ignored))
            return glcollide_text_fail(&s->text, GLCOLLIDE_ERROR_PARSE,
                                       "expected a number after the coordinates, got '%s'",
                                       glcollide_text_quote(token, length, quoted));
    }
    if (s->builder.vertex_count >= UINT32_MAX)
        return glcollide_text_fail(&s->text, GLCOLLIDE_ERROR_LIMIT, "more than %u vertices",
                                   (unsigned)UINT32_MAX - 1);
    return glcollide_mesh_builder_add_vertex(&s->builder, xyz[0], xyz[1], xyz[2]);
}

/* Length of an optional signed integer at p (0 if none). */
static size_t integer_length(const char *p, const char *end)
{
    const char *q = p;
    if (q < end && (*q == '+' || *q == '-'))
        q++;
    const char *digits = q;
    while (q < end && *q >= '0' && *q <= '9')
        q++;
    return q == digits ? 0 : (size_t)(q - p);
}

/* One face corner "v", "v/t", "v//n" or "v/t/n"; only v is used. */
static int read_corner(obj_state *s, const char *token, size_t length, uint32_t *index)
{
    char quoted[GLCOLLIDE_QUOTE_SIZE];
    const char *end = token + length;
    size_t n = integer_length(token, end);
    const char *p = token + n;
    int well_formed = n > 0;
    if (well_formed && p < end) {
        p++; /* '/' */
        well_formed = p[-1] == '/';
        p += integer_length(p, end); /* texture index, may be empty */
        if (well_formed && p < end) {
            size_t normal = *p == '/' ? integer_length(p + 1, end) : 0;
            well_formed = normal > 0 && p + 1 + normal == end;
        }
    }
    if (!well_formed)
        return glcollide_text_fail(&s->text, GLCOLLIDE_ERROR_PARSE,
                                   "expected a vertex reference (v, v/t, v//n or v/t/n), got '%s'",
                                   glcollide_text_quote(token, length, quoted));
    int64_t value = 0, count = (int64_t)s->builder.vertex_count;
    int valid = glcollide_parse_int64(token, n, &value) == GLCOLLIDE_INT_OK && value != 0;
    int64_t resolved = value > 0 ? value - 1 : count + value;
    if (!valid || resolved < 0 || resolved >= (int64_t)UINT32_MAX)
        return glcollide_text_fail(&s->text, GLCOLLIDE_ERROR_INVALID_MESH,
                                   "vertex index %s out of range (%lld vertices%s)",
                                   glcollide_text_quote(token, n, quoted), (long long)count,
                                   n == 1 && token[0] == '0' ? ", OBJ indices start at 1" : "");
    if (value > s->max_index) {
        s->max_index = value;
        s->max_index_line = s->text.line;
    }
    *index = (uint32_t)resolved;
    return GLCOLLIDE_OK;
}

static int read_face(obj_state *s)
{
    const char *token = NULL;
    size_t length = 0;
    uint32_t first = 0, previous = 0, current = 0;
    int corners = 0;
    while (glcollide_text_token(&s->text, &token, &length)) {
        int status = read_corner(s, token, length, &current);
        if (status < 0)
            return status;
        /* Fan triangulation: (c0, c(k-1), ck) keeps the polygon's orientation. */
        if (corners >= 2) {
            status = glcollide_mesh_builder_add_triangle(&s->builder, first, previous, current);
            if (status < 0)
                return status;
        }
        if (corners == 0)
            first = current;
        previous = current;
        corners++;
    }
    if (corners < 3)
        return glcollide_text_fail(&s->text, GLCOLLIDE_ERROR_PARSE,
                                   "face with %d vertices (at least 3 needed)", corners);
    return GLCOLLIDE_OK;
}

int glcollide_mesh_parse_obj(const char *data, size_t size, const char *name, double scale,
                             glcollide_mesh **out)
{
    obj_state s = {0};
    glcollide_text_init(&s.text, data, size, name, 1);
    glcollide_mesh_builder_init(&s.builder, name);
    int status = GLCOLLIDE_OK;
    const char *token = NULL;
    size_t length = 0;
    while (status == GLCOLLIDE_OK && glcollide_text_skip_empty_lines(&s.text)) {
        glcollide_text_token(&s.text, &token, &length);
        if (glcollide_token_is(token, length, "v"))
            status = read_vertex(&s, scale);
        else if (glcollide_token_is(token, length, "f"))
            status = read_face(&s);
        if (status == GLCOLLIDE_OK)
            glcollide_text_next_line(&s.text);
    }
    if (status == GLCOLLIDE_OK && s.max_index > (int64_t)s.builder.vertex_count) {
        s.text.line = s.max_index_line;
        status = glcollide_text_fail(&s.text, GLCOLLIDE_ERROR_INVALID_MESH,
                                     "vertex index %lld out of range (%zu vertices)",
                                     (long long)s.max_index, s.builder.vertex_count);
    }
    if (status == GLCOLLIDE_OK && s.builder.triangle_count == 0) {
        s.text.line = glcollide_text_last_line(&s.text);
        status = glcollide_text_fail(&s.text, GLCOLLIDE_ERROR_PARSE, "no faces");
    }
    if (status < 0) {
        glcollide_mesh_builder_free(&s.builder);
        return status;
    }
    return glcollide_mesh_builder_finish(&s.builder, scale, name, out);
}
