/* SPDX-License-Identifier: MIT */
/*
 * What the mesh parsers and the scene parser share: a text cursor with line
 * numbers, numbers without per-token allocation, growable vertex and
 * triangle arrays, STL vertex welding, and reading a regular file whole.
 * Knows no format: the parsers (mesh_off.c, mesh_obj.c, mesh_stl.c) build on
 * it, and mesh_io.c, above them, tells formats apart.
 */
#define _POSIX_C_SOURCE 200809L
#include "mesh/mesh_text.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- text cursor */

void glcollide_text_init(glcollide_text *text, const void *data, size_t size, const char *name,
                         int comments)
{
    text->begin = data;
    text->p = data;
    text->end = text->p + size;
    /* A UTF-8 byte order mark, as some Windows editors write, is not content. */
    if (size >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
        text->p += 3;
    text->line = 1;
    text->name = name;
    text->comments = comments;
}

int glcollide_text_skip_empty_lines(glcollide_text *text)
{
    for (;;) {
        const char *p = text->p, *end = text->end;
        while (p < end && glcollide_text_is_blank(*p))
            p++;
        if (p < end && *p != '\n' && !(*p == '#' && text->comments)) {
            text->p = p;
            return 1;
        }
        text->p = p;
        if (!glcollide_text_next_line(text))
            return 0;
    }
}

int glcollide_text_token_any(glcollide_text *text, const char **start, size_t *length)
{
    while (!glcollide_text_token(text, start, length))
        if (!glcollide_text_next_line(text))
            return 0;
    return 1;
}

int glcollide_text_fail(const glcollide_text *text, int status, const char *format, ...)
{
    char what[768];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    return glcollide_fail(status, "%s:%zu: %s", text->name, text->line, what);
}

const char *glcollide_text_quote(const char *token, size_t length, char buf[GLCOLLIDE_QUOTE_SIZE])
{
    size_t n = length > 32 ? 32 : length;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)token[i];
        buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (length > n) {
        memcpy(buf + n, "...", 4);
        return buf;
    }
    buf[n] = '\0';
    return buf;
}

int glcollide_token_is(const char *token, size_t length, const char *keyword)
{
    size_t n = strlen(keyword);
    return length == n && memcmp(token, keyword, n) == 0;
}

/* ---------------------------------------------------------------- numbers */

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int lower(char c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int equals_lower(const char *s, size_t length, const char *word)
{
    size_t n = strlen(word);
    if (length != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (lower(s[i]) != word[i])
            return 0;
    return 1;
}

int glcollide_token_is_nocase(const char *token, size_t length, const char *keyword)
{
    return equals_lower(token, length, keyword);
}

/*
 * Slow path: strtod on a NUL-terminated copy. The '.' is swapped for the
 * locale's decimal point, so that a program that called setlocale() still
 * reads files written with '.'.
 */
static int parse_double_strtod(const char *token, size_t length, double *out)
{
    const char *point = localeconv()->decimal_point;
    size_t point_length = point && *point ? strlen(point) : 1;
    size_t need = length + point_length + 1;
    char local[512];
    char *copy = need <= sizeof local ? local : malloc(need);
    if (!copy)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < length; i++) {
        if (token[i] == '.' && point && *point) {
            memcpy(copy + n, point, point_length);
            n += point_length;
        } else {
            copy[n++] = token[i];
        }
    }
    copy[n] = '\0';
    char *stop = NULL;
    double value = strtod(copy, &stop);
    int ok = stop == copy + n;
    if (copy != local)
        free(copy);
    if (ok)
        *out = value;
    return ok;
}

int glcollide_parse_double(const char *token, size_t length, double *out)
{
    /* Exact powers of ten: one correctly rounded multiply or divide by them
     * of an exact mantissa is itself correctly rounded (Clinger's fast path). */
    static const double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *p = token, *end = token + length;
    int negative = 0;
    if (p < end && (*p == '+' || *p == '-')) {
        negative = *p == '-';
        p++;
    }
    if (p < end && !is_digit(*p) && *p != '.') {
        size_t rest = (size_t)(end - p);
        if (equals_lower(p, rest, "inf") || equals_lower(p, rest, "infinity")) {
            *out = negative ? -INFINITY : INFINITY;
            return 1;
        }
        if (equals_lower(p, rest, "nan")) {
            *out = NAN;
            return 1;
        }
        return 0;
    }

    uint64_t mantissa = 0;
    int digits = 0, any_digit = 0, inexact = 0;
    long exponent = 0;
    for (; p < end && is_digit(*p); p++) {
        any_digit = 1;
        if (mantissa == 0 && *p == '0')
            continue;
        if (digits < 19) {
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
            digits++;
        } else {
            exponent++;
            inexact |= *p != '0';
        }
    }
    if (p < end && *p == '.') {
        for (p++; p < end && is_digit(*p); p++) {
            any_digit = 1;
            if (mantissa == 0 && *p == '0') {
                exponent--;
                continue;
            }
            if (digits < 19) {
                mantissa = mantissa * 10 + (uint64_t)(*p - '0');
                digits++;
                exponent--;
            } else {
                inexact |= *p != '0';
            }
        }
    }
    if (!any_digit)
        return 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int exponent_negative = 0;
        if (p < end && (*p == '+' || *p == '-')) {
            exponent_negative = *p == '-';
            p++;
        }
        if (p == end || !is_digit(*p))
            return 0;
        long written = 0;
        for (; p < end && is_digit(*p); p++)
            if (written < 100000)
                written = written * 10 + (*p - '0');
        exponent += exponent_negative ? -written : written;
    }
    if (p != end)
        return 0;
    if (mantissa == 0) {
        *out = negative ? -0.0 : 0.0;
        return 1;
    }
    if (!inexact && mantissa <= (UINT64_C(1) << 53) && exponent >= -22 && exponent <= 22) {
        double value = (double)mantissa;
        value = exponent < 0 ? value / powers[-exponent] : value * powers[exponent];
        *out = negative ? -value : value;
        return 1;
    }
    return parse_double_strtod(token, length, out);
}

glcollide_int_result glcollide_parse_int64(const char *token, size_t length, int64_t *out)
{
    const char *p = token, *end = token + length;
    int negative = 0;
    if (p < end && (*p == '+' || *p == '-')) {
        negative = *p == '-';
        p++;
    }
    if (p == end)
        return GLCOLLIDE_INT_NOT_INTEGER;
    uint64_t value = 0;
    int overflow = 0;
    for (; p < end; p++) {
        if (!is_digit(*p))
            return GLCOLLIDE_INT_NOT_INTEGER;
        uint64_t digit = (uint64_t)(*p - '0');
        if (value > (UINT64_C(9223372036854775807) - digit) / 10)
            overflow = 1;
        else
            value = value * 10 + digit;
    }
    if (overflow)
        return GLCOLLIDE_INT_OVERFLOW;
    *out = negative ? -(int64_t)value : (int64_t)value;
    return GLCOLLIDE_INT_OK;
}

const char *glcollide_scaled_defect(double x, double scale)
{
    double scaled = x * scale;
    if (!isfinite(x))
        return "non-finite coordinate %s";
    if (!isfinite(scaled))
        return "coordinate %s overflows when scaled";
    /* Below the normal range a double keeps fewer bits: refuse what the
     * scale pushes there (a subnormal already in the file is kept as is). */
    if (x != 0 && fabs(scaled) < DBL_MIN && fabs(scaled) < fabs(x))
        return "coordinate %s underflows when scaled (below the normal double range)";
    return NULL;
}

/* ---------------------------------------------------------------- mesh builder */

void glcollide_mesh_builder_init(glcollide_mesh_builder *builder, const char *name)
{
    memset(builder, 0, sizeof *builder);
    builder->name = name;
}

void glcollide_mesh_builder_free(glcollide_mesh_builder *builder)
{
    free(builder->positions);
    free(builder->triangles);
    builder->positions = NULL;
    builder->triangles = NULL;
    builder->vertex_count = builder->vertex_capacity = 0;
    builder->triangle_count = builder->triangle_capacity = 0;
}

static size_t grown(size_t capacity, size_t needed)
{
    size_t n = capacity < 64 ? 64 : capacity;
    while (n < needed)
        n = n > SIZE_MAX / 2 ? needed : n * 2;
    return n;
}

/* Regrows an array of triples (positions or triangles: 3 elements of size
 * bytes each) to room for at least needed triples; NULL, with array and
 * capacity untouched, when it cannot. */
static void *grown_triples(void *array, size_t *capacity, size_t needed, size_t size)
{
    size_t n = grown(*capacity, needed);
    void *regrown = n <= SIZE_MAX / 3 ? glcollide_realloc_array(array, 3 * n, size) : NULL;
    if (regrown)
        *capacity = n;
    return regrown;
}

int glcollide_mesh_builder_reserve(glcollide_mesh_builder *builder, size_t vertices,
                                   size_t triangles)
{
    if (vertices > builder->vertex_capacity) {
        double *p =
            grown_triples(builder->positions, &builder->vertex_capacity, vertices, sizeof *p);
        if (!p)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                                  "%s: out of memory for %zu vertices", builder->name, vertices);
        builder->positions = p;
    }
    if (triangles > builder->triangle_capacity) {
        uint32_t *t =
            grown_triples(builder->triangles, &builder->triangle_capacity, triangles, sizeof *t);
        if (!t)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                                  "%s: out of memory for %zu triangles", builder->name, triangles);
        builder->triangles = t;
    }
    return GLCOLLIDE_OK;
}

int glcollide_mesh_builder_finish(glcollide_mesh_builder *builder, double scale, const char *name,
                                  glcollide_mesh **out)
{
    if (scale != 1.0)
        for (size_t i = 0; i < 3 * builder->vertex_count; i++)
            builder->positions[i] *= scale;
    /* Trim the growth slack: meshes live as long as the program. */
    double *positions = builder->positions;
    uint32_t *triangles = builder->triangles;
    double *p = glcollide_realloc_array(positions, 3 * builder->vertex_count, sizeof *p);
    if (p)
        positions = p;
    uint32_t *t = glcollide_realloc_array(triangles, 3 * builder->triangle_count, sizeof *t);
    if (t)
        triangles = t;
    size_t vertex_count = builder->vertex_count, triangle_count = builder->triangle_count;
    builder->positions = NULL;
    builder->triangles = NULL;
    glcollide_mesh_builder_free(builder);
    return glcollide_mesh_adopt(positions, vertex_count, triangles, triangle_count, name, out);
}

/* ---------------------------------------------------------------- welding */

void glcollide_weld_free(glcollide_weld_map *map)
{
    free(map->slots);
    map->slots = NULL;
    map->mask = 0;
}

static uint64_t hash_point(const double p[3])
{
    uint64_t h = 0;
    for (int k = 0; k < 3; k++) {
        double c = p[k] + 0.0; /* -0 becomes +0: they weld */
        uint64_t bits;
        memcpy(&bits, &c, sizeof bits);
        h = glcollide_mix64(h ^ bits) + (uint64_t)k;
    }
    return h;
}

static int weld_grow(glcollide_mesh_builder *builder, glcollide_weld_map *map)
{
    size_t capacity = map->slots ? 2 * (map->mask + 1) : 1024;
    uint32_t *slots = glcollide_alloc_array(capacity, sizeof *slots);
    if (!slots)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                              "%s: out of memory welding %zu vertices", builder->name,
                              builder->vertex_count);
    memset(slots, 0, capacity * sizeof *slots);
    size_t mask = capacity - 1;
    for (size_t v = 0; v < builder->vertex_count; v++) {
        size_t i = (size_t)hash_point(builder->positions + 3 * v) & mask;
        while (slots[i])
            i = (i + 1) & mask;
        slots[i] = (uint32_t)(v + 1);
    }
    free(map->slots);
    map->slots = slots;
    map->mask = mask;
    return GLCOLLIDE_OK;
}

int glcollide_weld_vertex(glcollide_mesh_builder *builder, glcollide_weld_map *map,
                          const double p[3], uint32_t *index)
{
    /* Keep the load factor at most one half so probes stay short. */
    if (!map->slots || 2 * (builder->vertex_count + 1) > map->mask + 1) {
        int status = weld_grow(builder, map);
        if (status < 0)
            return status;
    }
    size_t i = (size_t)hash_point(p) & map->mask;
    for (; map->slots[i]; i = (i + 1) & map->mask) {
        const double *q = builder->positions + 3 * (map->slots[i] - 1);
        if (q[0] == p[0] && q[1] == p[1] && q[2] == p[2]) {
            *index = map->slots[i] - 1;
            return GLCOLLIDE_OK;
        }
    }
    if (builder->vertex_count >= UINT32_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "%s: more than %u distinct vertices",
                              builder->name, (unsigned)UINT32_MAX - 1);
    int status = glcollide_mesh_builder_add_vertex(builder, p[0], p[1], p[2]);
    if (status < 0)
        return status;
    map->slots[i] = (uint32_t)builder->vertex_count;
    *index = (uint32_t)(builder->vertex_count - 1);
    return GLCOLLIDE_OK;
}

/* ---------------------------------------------------------------- files */

static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

int glcollide_file_read(const char *path, const char *what, char **data, size_t *size)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; what is not a
     * regular file is refused below, before anything is read (a device
     * such as /dev/zero never ends, a FIFO may never be written). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return glcollide_fail(GLCOLLIDE_ERROR_IO, "%s%s: cannot open: %s", what, path,
                              strerror(errno));
    struct stat info;
    if (fstat(fd, &info) != 0) {
        int error = errno;
        close(fd);
        return glcollide_fail(GLCOLLIDE_ERROR_IO, "%s%s: cannot read: %s", what, path,
                              strerror(error));
    }
    if (!S_ISREG(info.st_mode)) {
        close(fd);
        return glcollide_fail(GLCOLLIDE_ERROR_IO, "%s%s: is %s; only regular files are read", what,
                              path, file_kind(info.st_mode));
    }
    /* The size stat gives, plus room to notice a file that grew (and the
     * files of /proc, which say 0): read until the end either way. */
    size_t capacity = (uintmax_t)info.st_size < SIZE_MAX / 2 ? (size_t)info.st_size + 4096 : 0;
    char *buffer = capacity ? malloc(capacity) : NULL;
    size_t length = 0;
    int error = 0;
    while (buffer) {
        if (length == capacity) {
            char *bigger = capacity <= SIZE_MAX / 2 ? realloc(buffer, capacity * 2) : NULL;
            if (!bigger) {
                free(buffer);
                buffer = NULL;
                break;
            }
            buffer = bigger;
            capacity *= 2;
        }
        ssize_t got = read(fd, buffer + length, capacity - length);
        if (got == 0)
            break;
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            error = errno;
            break;
        }
        length += (size_t)got;
    }
    close(fd);
    if (!buffer)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                              "%s%s: out of memory reading %jd bytes", what, path,
                              (intmax_t)info.st_size);
    if (error) {
        free(buffer);
        return glcollide_fail(GLCOLLIDE_ERROR_IO, "%s%s: read error: %s", what, path,
                              strerror(error));
    }
    *data = buffer;
    *size = length;
    return GLCOLLIDE_OK;
}
