/* SPDX-License-Identifier: MIT */
/*
 * Scene files: meshes and their rigid instances, loaded into a world
 * (glcollide_world_load), which takes the meshes it loads.
 */
#define _POSIX_C_SOURCE 200809L
#include "mesh/mesh_text.h"
#include "world/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------- scene files */

/* Scene files go through the mesh loaders' tokenizer (glcollide_text):
 * the same blanks, '#' comments, line numbers and quoting of bad tokens. */
typedef struct scene_parser {
    glcollide_text text;
    glcollide_world *world;
    glcollide_scene_mesh_loader load_mesh;
    void *user;
} scene_parser;

static int parse_number(scene_parser *parser, const char *what, double *value)
{
    const char *token = NULL;
    size_t length = 0;
    char quoted[GLCOLLIDE_QUOTE_SIZE];
    if (!glcollide_text_token(&parser->text, &token, &length))
        return glcollide_text_fail(&parser->text, GLCOLLIDE_ERROR_PARSE, "expected %s", what);
    /* Subnormal numbers are finite: whether a scale that small makes sense
     * is the mesh loader's question (it refuses coordinates it would push
     * below the normal range). */
    if (!glcollide_parse_double(token, length, value) || !isfinite(*value))
        return glcollide_text_fail(&parser->text, GLCOLLIDE_ERROR_PARSE,
                                   "%s: '%s' is not a finite number", what,
                                   glcollide_text_quote(token, length, quoted));
    return GLCOLLIDE_OK;
}

static int expect_line_end(scene_parser *parser)
{
    const char *token = NULL;
    size_t length = 0;
    char quoted[GLCOLLIDE_QUOTE_SIZE];
    if (!glcollide_text_token(&parser->text, &token, &length))
        return GLCOLLIDE_OK;
    return glcollide_text_fail(&parser->text, GLCOLLIDE_ERROR_PARSE, "unexpected '%s'",
                               glcollide_text_quote(token, length, quoted));
}

/* A relative mesh path is taken relative to the scene file, then looked up
 * by file name among the data meshes when nothing at all is there. */
static int resolve_mesh_path(const char *scene_path, const char *mesh_path, char *out, size_t size)
{
    const char *slash = strrchr(scene_path, '/');
    int n;
    if (mesh_path[0] == '/' || !slash)
        n = snprintf(out, size, "%s", mesh_path);
    else
        n = snprintf(out, size, "%.*s/%s", (int)(slash - scene_path), scene_path, mesh_path);
    if (n < 0 || (size_t)n >= size)
        return glcollide_fail(GLCOLLIDE_ERROR_PARSE, "mesh path too long");
    /* Whatever is there (a FIFO, a directory...) is the user's choice: the
     * reader names what it is. */
    struct stat info;
    if (stat(out, &info) == 0 || mesh_path[0] == '/')
        return GLCOLLIDE_OK;
    const char *base = strrchr(mesh_path, '/');
    base = base ? base + 1 : mesh_path;
    char found[4096], tried[1024];
    int status = glcollide_mesh_find_data_quiet(base, found, sizeof found, tried, sizeof tried);
    if (status == GLCOLLIDE_OK && strlen(found) < size) {
        strcpy(out, found);
        return GLCOLLIDE_OK;
    }
    if (status != GLCOLLIDE_ERROR_IO && status != GLCOLLIDE_OK)
        return status;
    return glcollide_fail(GLCOLLIDE_ERROR_IO,
                          "mesh %s not found next to the scene nor in %s (run "
                          "tests/cgal-meshes.sh for libcgal-demo's meshes)",
                          mesh_path, tried);
}

static int load_mesh_file(const char *scene_path, const char *mesh_path, double scale,
                          glcollide_mesh **out, void *user)
{
    (void)user;
    char path[4096];
    int status = resolve_mesh_path(scene_path, mesh_path, path, sizeof path);
    return status ? status : glcollide_mesh_load(path, scale, out);
}

static int parse_mesh_line(scene_parser *parser)
{
    const char *token = NULL;
    size_t length = 0;
    char quoted[GLCOLLIDE_QUOTE_SIZE];
    if (!glcollide_text_token(&parser->text, &token, &length))
        return glcollide_text_fail(&parser->text, GLCOLLIDE_ERROR_PARSE, "expected a mesh path");
    char mesh_path[4096];
    if (length >= sizeof mesh_path)
        return glcollide_text_fail(&parser->text, GLCOLLIDE_ERROR_PARSE, "mesh path too long");
    memcpy(mesh_path, token, length);
    mesh_path[length] = '\0';
    double scale = 1.0;
    if (glcollide_text_token(&parser->text, &token, &length)) {
        if (!glcollide_token_is(token, length, "scale"))
            return glcollide_text_fail(&parser->text, GLCOLLIDE_ERROR_PARSE,
                                       "expected 'scale S', got '%s'",
                                       glcollide_text_quote(token, length, quoted));
        int status = parse_number(parser, "scale", &scale);
        if (status)
            return status;
        if (!(scale > 0))
            return glcollide_text_fail(&parser->text, GLCOLLIDE_ERROR_PARSE,
                                       "scale must be positive");
    }
    int status = expect_line_end(parser);
    if (status)
        return status;
    /* The loader's one message, whatever layer it comes from, names this line. */
    char where[4200];
    snprintf(where, sizeof where, "%s:%zu: ", parser->text.name, parser->text.line);
    const char *previous = glcollide_log_set_prefix(where);
    glcollide_mesh *mesh = NULL;
    status = parser->load_mesh(parser->text.name, mesh_path, scale, &mesh, parser->user);
    glcollide_log_set_prefix(previous);
    if (status)
        return status;
    return glcollide_world_take_mesh(parser->world, mesh, NULL);
}

static int parse_object_line(scene_parser *parser)
{
    static const char *const names[8] = {"mesh index", "TX", "TY", "TZ", "QW", "QX", "QY", "QZ"};
    double values[8];
    for (int i = 0; i < 8; i++) {
        int status = parse_number(parser, names[i], &values[i]);
        if (status)
            return status;
    }
    int status = expect_line_end(parser);
    if (status)
        return status;
    size_t mesh_count = glcollide_world_mesh_count(parser->world);
    if (values[0] < 0 || values[0] != floor(values[0]) || values[0] >= (double)mesh_count)
        return glcollide_text_fail(&parser->text, GLCOLLIDE_ERROR_PARSE,
                                   "object refers to mesh %g, but %zu meshes are defined above",
                                   values[0], mesh_count);
    char where[4200];
    snprintf(where, sizeof where, "%s:%zu: ", parser->text.name, parser->text.line);
    glcollide_object object;
    status = glcollide_world_pose_check(values + 1, values + 4, (uint32_t)values[0], where, &object);
    if (status == GLCOLLIDE_OK)
        status = glcollide_world_add_object_as_is(parser->world, &object, NULL);
    return status == GLCOLLIDE_ERROR_INVALID_ARGUMENT ? GLCOLLIDE_ERROR_PARSE : status;
}

int glcollide_world_parse(const char *data, size_t size, const char *path,
                          glcollide_scene_mesh_loader load_mesh, void *user, glcollide_world *world)
{
    /* Tokens end at blanks, so a NUL would end a path or a number silently
     * in C strings: a scene file is text. */
    const char *nul = memchr(data, '\0', size);
    if (nul) {
        size_t line = 1;
        for (const char *p = data; p < nul; p++)
            line += *p == '\n';
        return glcollide_fail(GLCOLLIDE_ERROR_PARSE, "%s:%zu: NUL byte (a scene file is text)",
                              path, line);
    }
    scene_parser parser = {.world = world, .load_mesh = load_mesh, .user = user};
    glcollide_text_init(&parser.text, data, size, path, 1);
    int status = GLCOLLIDE_OK;
    while (status == GLCOLLIDE_OK && glcollide_text_skip_empty_lines(&parser.text)) {
        const char *keyword = NULL;
        size_t length = 0;
        char quoted[GLCOLLIDE_QUOTE_SIZE];
        glcollide_text_token(&parser.text, &keyword, &length);
        if (glcollide_token_is(keyword, length, "mesh"))
            status = parse_mesh_line(&parser);
        else if (glcollide_token_is(keyword, length, "object"))
            status = parse_object_line(&parser);
        else
            status = glcollide_text_fail(&parser.text, GLCOLLIDE_ERROR_PARSE,
                                         "unknown statement '%s' (expected mesh or object)",
                                         glcollide_text_quote(keyword, length, quoted));
        if (status == GLCOLLIDE_OK)
            glcollide_text_next_line(&parser.text);
    }
    return status;
}

int glcollide_world_load(const char *path, glcollide_world **out)
{
    if (!path || !out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "scene: NULL path or out");
    char *data = NULL;
    size_t size = 0;
    int status = glcollide_file_read(path, "scene ", &data, &size);
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_world *world = NULL;
    status = glcollide_world_create(&world);
    if (status == GLCOLLIDE_OK)
        status = glcollide_world_parse(data, size, path, load_mesh_file, NULL, world);
    free(data);
    if (status != GLCOLLIDE_OK) {
        glcollide_world_destroy(&world);
        return status;
    }
    *out = world;
    return GLCOLLIDE_OK;
}
