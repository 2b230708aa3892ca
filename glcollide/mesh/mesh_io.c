/* SPDX-License-Identifier: MIT */
/*
 * Mesh loading: telling formats apart and handing the buffer to the
 * format's parser (mesh_off.c, mesh_obj.c, mesh_stl.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "mesh/mesh_formats.h"
#include "mesh/mesh_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- format detection */

static glcollide_mesh_format format_from_extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    if (!dot)
        return GLCOLLIDE_MESH_FORMAT_AUTO;
    size_t n = strlen(dot + 1);
    if (glcollide_token_is_nocase(dot + 1, n, "off"))
        return GLCOLLIDE_MESH_FORMAT_OFF;
    if (glcollide_token_is_nocase(dot + 1, n, "obj"))
        return GLCOLLIDE_MESH_FORMAT_OBJ;
    if (glcollide_token_is_nocase(dot + 1, n, "stl"))
        return GLCOLLIDE_MESH_FORMAT_STL;
    return GLCOLLIDE_MESH_FORMAT_AUTO;
}

/* From the first token that is not a '#' comment (OFF and OBJ allow those),
 * then the binary STL size rule. */
static glcollide_mesh_format format_from_content(const char *data, size_t size, const char *name)
{
    static const char *const obj_keywords[] = {"v", "vt", "vn", "vp", "f",      "o",
                                               "g", "s",  "l",  "p",  "usemtl", "mtllib"};
    glcollide_text text;
    glcollide_text_init(&text, data, size, name, 1);
    const char *token = NULL;
    size_t length = 0;
    int has_token =
        glcollide_text_skip_empty_lines(&text) && glcollide_text_token(&text, &token, &length);
    /* OFF with its prefixes (COFF, NOFF, STCOFF, 4OFF...): the OFF parser names unsupported ones.
     */
    if (has_token && length >= 3 && length <= 8 && memcmp(token + length - 3, "OFF", 3) == 0)
        return GLCOLLIDE_MESH_FORMAT_OFF;
    if (has_token && glcollide_token_is_nocase(token, length, "solid"))
        return GLCOLLIDE_MESH_FORMAT_STL;
    if (glcollide_stl_size_matches((const unsigned char *)data, size))
        return GLCOLLIDE_MESH_FORMAT_STL;
    for (size_t i = 0; has_token && i < sizeof obj_keywords / sizeof obj_keywords[0]; i++)
        if (glcollide_token_is(token, length, obj_keywords[i]))
            return GLCOLLIDE_MESH_FORMAT_OBJ;
    return GLCOLLIDE_MESH_FORMAT_AUTO;
}

static int only_blanks(const char *data, size_t size)
{
    for (size_t i = 0; i < size; i++)
        if (!glcollide_text_is_blank(data[i]) && data[i] != '\n')
            return 0;
    return 1;
}

static int check_scale(const char *name, double scale)
{
    if (!(scale > 0.0) || !isfinite(scale))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "%s: scale %g must be positive and finite", name, scale);
    return GLCOLLIDE_OK;
}

/* auto_is_parse_error: for files an undetectable format is malformed input,
 * for glcollide_mesh_parse it is a missing argument. */
static int parse_buffer(const char *data, size_t size, glcollide_mesh_format format,
                        const char *name, double scale, int auto_is_parse_error,
                        glcollide_mesh **out)
{
    if (only_blanks(data, size))
        return glcollide_fail(GLCOLLIDE_ERROR_PARSE, "%s:1: empty file", name);
    if (format == GLCOLLIDE_MESH_FORMAT_AUTO)
        format = format_from_content(data, size, name);
    switch (format) {
    case GLCOLLIDE_MESH_FORMAT_OFF: return glcollide_mesh_parse_off(data, size, name, scale, out);
    case GLCOLLIDE_MESH_FORMAT_OBJ: return glcollide_mesh_parse_obj(data, size, name, scale, out);
    case GLCOLLIDE_MESH_FORMAT_STL: return glcollide_mesh_parse_stl(data, size, name, scale, out);
    case GLCOLLIDE_MESH_FORMAT_AUTO: break;
    }
    return glcollide_fail(auto_is_parse_error ? GLCOLLIDE_ERROR_PARSE
                                              : GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                          "%s:1: unknown mesh format (expected OFF, OBJ or STL)", name);
}

int glcollide_mesh_parse(const void *data, size_t size, glcollide_mesh_format format,
                         const char *name, double scale, glcollide_mesh **out)
{
    if (!name)
        name = "mesh";
    if ((!data && size) || !out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "%s: glcollide_mesh_parse: %s is NULL", name, out ? "data" : "out");
    if (format < GLCOLLIDE_MESH_FORMAT_AUTO || format > GLCOLLIDE_MESH_FORMAT_STL)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "%s: unknown mesh format %d", name,
                              (int)format);
    int status = check_scale(name, scale);
    if (status < 0)
        return status;
    return parse_buffer(data ? data : "", size, format, name, scale, 0, out);
}

int glcollide_mesh_load(const char *path, double scale, glcollide_mesh **out)
{
    if (!path || !out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "glcollide_mesh_load: %s is NULL",
                              path ? "out" : "path");
    int status = check_scale(path, scale);
    if (status < 0)
        return status;
    char *data = NULL;
    size_t size = 0;
    status = glcollide_file_read(path, "", &data, &size);
    if (status < 0)
        return status;
    status = parse_buffer(data, size, format_from_extension(path), path, scale, 1, out);
    free(data);
    return status;
}
