/* SPDX-License-Identifier: MIT */
/*
 * Private to the mesh and scene parsers: a cursor over text that tracks line numbers
 * for "path:line: what" messages, number parsing without per-token
 * allocation, growable vertex/triangle arrays, and STL vertex welding.
 */
#ifndef GLCOLLIDE_MESH_TEXT_H
#define GLCOLLIDE_MESH_TEXT_H

#include "mesh/mesh_internal.h"

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- text cursor */

typedef struct glcollide_text {
    const char *begin; /* start of the buffer */
    const char *p;     /* current position */
    const char *end;   /* one past the last byte; the buffer need not be NUL-terminated */
    size_t line;       /* 1-based line number of p */
    const char *name;  /* the "path" of messages */
    int comments;      /* '#' starts a comment running to the end of the line */
} glcollide_text;

void glcollide_text_init(glcollide_text *text, const void *data, size_t size, const char *name,
                         int comments);

static inline int glcollide_text_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * Next token of the current line, never crossing a newline: skips blanks and
 * (if enabled) a comment. Returns 0, leaving p at the newline or the end, when
 * the line has no more tokens.
 */
static inline int glcollide_text_token(glcollide_text *text, const char **start, size_t *length)
{
    const char *p = text->p, *end = text->end;
    while (p < end && glcollide_text_is_blank(*p))
        p++;
    if (p < end && *p == '#' && text->comments)
        while (p < end && *p != '\n')
            p++;
    if (p == end || *p == '\n') {
        text->p = p;
        return 0;
    }
    const char *s = p;
    while (p < end && *p != '\n' && !glcollide_text_is_blank(*p) && !(*p == '#' && text->comments))
        p++;
    text->p = p;
    *start = s;
    *length = (size_t)(p - s);
    return 1;
}

/* Moves past the end of the current line. Returns 0 when the buffer ended instead. */
static inline int glcollide_text_next_line(glcollide_text *text)
{
    const char *p = text->p, *end = text->end;
    while (p < end && *p != '\n')
        p++;
    if (p == end) {
        text->p = p;
        return 0;
    }
    text->p = p + 1;
    text->line++;
    return 1;
}

/*
 * Skips lines that hold only blanks and comments, stopping at the start of
 * the next line with a token (which the next glcollide_text_token returns).
 * Returns 0 when the buffer ends first.
 */
int glcollide_text_skip_empty_lines(glcollide_text *text);

/* The line to blame when the buffer ended early: the last line with content
 * rather than the empty one after a final newline. */
static inline size_t glcollide_text_last_line(const glcollide_text *text)
{
    return text->p == text->end && text->p > text->begin && text->p[-1] == '\n' ? text->line - 1
                                                                                : text->line;
}

/* Next token anywhere, crossing lines (for ASCII STL, a token stream). */
int glcollide_text_token_any(glcollide_text *text, const char **start, size_t *length);

/* Logs "name:line: <message>" and returns status. */
int glcollide_text_fail(const glcollide_text *text, int status, const char *format, ...)
    GLCOLLIDE_PRINTF(3, 4);

/* A printable, bounded copy of a token for messages (at most 32 characters
 * then "..."; control bytes shown as '?'). Returns buf. */
#define GLCOLLIDE_QUOTE_SIZE 40
const char *glcollide_text_quote(const char *token, size_t length, char buf[GLCOLLIDE_QUOTE_SIZE]);

/* Comparison of a token with a keyword, case-sensitive or ignoring ASCII case. */
int glcollide_token_is(const char *token, size_t length, const char *keyword);
int glcollide_token_is_nocase(const char *token, size_t length, const char *keyword);

/* ---------------------------------------------------------------- numbers */

/*
 * Parses a whole token as a decimal floating-point number ("-1.5e3", ".5",
 * "inf", "nan"), correctly rounded and independent of the C locale. Returns 1,
 * or 0 when the token is not a number (hexadecimal floats are refused).
 * Overflow gives an infinity, which callers report as non-finite.
 */
int glcollide_parse_double(const char *token, size_t length, double *out);

typedef enum glcollide_int_result {
    GLCOLLIDE_INT_OK = 0,
    GLCOLLIDE_INT_NOT_INTEGER, /* not [+-]digits */
    GLCOLLIDE_INT_OVERFLOW     /* does not fit in int64_t */
} glcollide_int_result;

/*
 * What is wrong with coordinate x once multiplied by scale: NULL when
 * nothing, else a printf format with one %s (the coordinate as written):
 * non-finite, overflowing, or pushed below the normal range by the scale
 * (it would lose precision there). For the loaders' messages.
 */
const char *glcollide_scaled_defect(double x, double scale);

/* Parses a whole token as a decimal integer. */
glcollide_int_result glcollide_parse_int64(const char *token, size_t length, int64_t *out);

/* ---------------------------------------------------------------- mesh builder */

/* Growable arrays a loader fills; glcollide_mesh_builder_finish hands them to a mesh. */
typedef struct glcollide_mesh_builder {
    double *positions;
    size_t vertex_count, vertex_capacity;
    uint32_t *triangles;
    size_t triangle_count, triangle_capacity;
    const char *name; /* for the out-of-memory message */
} glcollide_mesh_builder;

void glcollide_mesh_builder_init(glcollide_mesh_builder *builder, const char *name);
void glcollide_mesh_builder_free(glcollide_mesh_builder *builder);

/* Ensures room for at least the given totals. Logs and returns OUT_OF_MEMORY. */
int glcollide_mesh_builder_reserve(glcollide_mesh_builder *builder, size_t vertices,
                                   size_t triangles);

static inline int glcollide_mesh_builder_add_vertex(glcollide_mesh_builder *builder, double x,
                                                    double y, double z)
{
    if (builder->vertex_count == builder->vertex_capacity) {
        int status = glcollide_mesh_builder_reserve(builder, builder->vertex_count + 1, 0);
        if (status < 0)
            return status;
    }
    double *p = builder->positions + 3 * builder->vertex_count++;
    p[0] = x;
    p[1] = y;
    p[2] = z;
    return GLCOLLIDE_OK;
}

static inline int glcollide_mesh_builder_add_triangle(glcollide_mesh_builder *builder, uint32_t a,
                                                      uint32_t b, uint32_t c)
{
    if (builder->triangle_count == builder->triangle_capacity) {
        int status = glcollide_mesh_builder_reserve(builder, 0, builder->triangle_count + 1);
        if (status < 0)
            return status;
    }
    uint32_t *t = builder->triangles + 3 * builder->triangle_count++;
    t[0] = a;
    t[1] = b;
    t[2] = c;
    return GLCOLLIDE_OK;
}

/*
 * Multiplies the positions by scale and moves the arrays into a new mesh
 * named name; the builder is left empty (and must still be freed, which is
 * then a no-op). The caller has checked indices and finiteness.
 */
int glcollide_mesh_builder_finish(glcollide_mesh_builder *builder, double scale, const char *name,
                                  glcollide_mesh **out);

/* ---------------------------------------------------------------- welding */

/* Open-addressing map from coordinates to a builder's vertex index. */
typedef struct glcollide_weld_map {
    uint32_t *slots; /* vertex index + 1; 0 = empty */
    size_t mask;     /* capacity - 1, capacity a power of two */
} glcollide_weld_map;

void glcollide_weld_free(glcollide_weld_map *map);

/*
 * Index of the builder vertex with exactly these coordinates (+0 and -0 are
 * the same), adding it when new. Logs and returns OUT_OF_MEMORY or LIMIT.
 */
int glcollide_weld_vertex(glcollide_mesh_builder *builder, glcollide_weld_map *map,
                          const double p[3], uint32_t *index);

/* ---------------------------------------------------------------- files */

/*
 * Reads the whole regular file at path into a fresh buffer (*data, freed by
 * the caller; not NUL-terminated). Directories, FIFOs, devices and sockets
 * are refused before anything is read, so that /dev/zero or a FIFO nobody
 * writes neither exhausts memory nor hangs. Errors (logged as "<what><path>:
 * ..."): IO (cannot open, not a regular file, read error), OUT_OF_MEMORY.
 */
int glcollide_file_read(const char *path, const char *what, char **data, size_t *size);

#endif /* GLCOLLIDE_MESH_TEXT_H */
