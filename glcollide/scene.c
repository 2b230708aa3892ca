/* SPDX-License-Identifier: MIT */
/* Scenes: meshes and their rigid instances, from a scene file or from code. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int glcollide_scene_create(glcollide_scene **out)
{
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "scene: out is NULL");
    *out = calloc(1, sizeof **out);
    return *out ? GLCOLLIDE_OK : glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "scene: out of memory");
}

void glcollide_scene_destroy(glcollide_scene **scene)
{
    if (!scene || !*scene)
        return;
    for (size_t i = 0; i < (*scene)->mesh_count; i++)
        glcollide_mesh_destroy(&(*scene)->meshes[i]);
    free((*scene)->meshes);
    free((*scene)->objects);
    free((*scene)->path);
    free(*scene);
    *scene = NULL;
}

int glcollide_scene_add_mesh(glcollide_scene *scene, glcollide_mesh *mesh, uint32_t *index)
{
    if (!scene || !mesh) {
        glcollide_mesh_destroy(&mesh);
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "scene: add_mesh with NULL");
    }
    glcollide_mesh **meshes =
        glcollide_realloc_array(scene->meshes, scene->mesh_count + 1, sizeof *meshes);
    if (!meshes || scene->mesh_count >= UINT32_MAX) {
        if (meshes)
            scene->meshes = meshes;
        glcollide_mesh_destroy(&mesh);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "scene: out of memory");
    }
    scene->meshes = meshes;
    if (index)
        *index = (uint32_t)scene->mesh_count;
    scene->meshes[scene->mesh_count++] = mesh;
    return GLCOLLIDE_OK;
}

void glcollide_scene_clear_objects(glcollide_scene *scene)
{
    if (scene)
        scene->object_count = 0;
}

int glcollide_scene_replace_mesh(glcollide_scene *scene, uint32_t index, glcollide_mesh *mesh)
{
    if (!scene || !mesh || index >= scene->mesh_count) {
        glcollide_mesh_destroy(&mesh);
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "scene: replace_mesh: bad arguments");
    }
    glcollide_mesh_destroy(&scene->meshes[index]);
    scene->meshes[index] = mesh;
    return GLCOLLIDE_OK;
}

/* Unit quaternion check: within 1e-6 of unit length, then normalised. */
static int normalise_rotation(const double in[4], double out[4])
{
    double n2 = in[0] * in[0] + in[1] * in[1] + in[2] * in[2] + in[3] * in[3];
    if (!isfinite(n2) || fabs(sqrt(n2) - 1.0) > 1e-6)
        return 0;
    double inv = 1.0 / sqrt(n2);
    for (int k = 0; k < 4; k++)
        out[k] = in[k] * inv;
    return 1;
}

static int add_object(glcollide_scene *scene, uint32_t mesh, const double translation[3],
                      const double rotation[4], uint32_t *index, const char *where)
{
    if (mesh >= scene->mesh_count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "%sobject refers to mesh %u, only %zu meshes", where, mesh,
                              scene->mesh_count);
    glcollide_object object = {.mesh = mesh};
    for (int k = 0; k < 3; k++) {
        if (!isfinite(translation[k]))
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                                  "%sobject translation is not finite", where);
        object.translation[k] = translation[k];
    }
    if (!normalise_rotation(rotation, object.rotation))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "%sobject rotation (%g %g %g %g) is not a unit quaternion", where,
                              rotation[0], rotation[1], rotation[2], rotation[3]);
    if (scene->object_count >= UINT32_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "%stoo many objects", where);
    glcollide_object *objects =
        glcollide_realloc_array(scene->objects, scene->object_count + 1, sizeof *objects);
    if (!objects)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "scene: out of memory");
    scene->objects = objects;
    if (index)
        *index = (uint32_t)scene->object_count;
    scene->objects[scene->object_count++] = object;
    return GLCOLLIDE_OK;
}

int glcollide_scene_add_object(glcollide_scene *scene, uint32_t mesh, const double translation[3],
                               const double rotation[4], uint32_t *index)
{
    if (!scene || !translation || !rotation)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "scene: add_object with NULL");
    return add_object(scene, mesh, translation, rotation, index, "scene: ");
}

void glcollide_object_rotation_matrix(const glcollide_object *object, double m[9])
{
    const double w = object->rotation[0], x = object->rotation[1], y = object->rotation[2],
                 z = object->rotation[3];
    m[0] = 1 - 2 * (y * y + z * z);
    m[1] = 2 * (x * y - w * z);
    m[2] = 2 * (x * z + w * y);
    m[3] = 2 * (x * y + w * z);
    m[4] = 1 - 2 * (x * x + z * z);
    m[5] = 2 * (y * z - w * x);
    m[6] = 2 * (x * z - w * y);
    m[7] = 2 * (y * z + w * x);
    m[8] = 1 - 2 * (x * x + y * y);
}

void glcollide_object_transform_points(const glcollide_object *object, const double *points,
                                       size_t count, double *out)
{
    double m[9];
    glcollide_object_rotation_matrix(object, m);
    for (size_t i = 0; i < count; i++) {
        const double *p = points + 3 * i;
        double px = p[0], py = p[1], pz = p[2];
        for (int r = 0; r < 3; r++)
            out[3 * i + r] =
                m[3 * r] * px + m[3 * r + 1] * py + m[3 * r + 2] * pz + object->translation[r];
    }
}

/* ---------------------------------------------------------------- scene files */

typedef struct scene_parser {
    const char *path;
    int line;
    char *cursor;
} scene_parser;

static char *next_token(scene_parser *parser)
{
    char *p = parser->cursor;
    while (*p && isspace((unsigned char)*p))
        p++;
    if (!*p || *p == '#')
        return NULL;
    char *start = p;
    while (*p && !isspace((unsigned char)*p))
        p++;
    if (*p)
        *p++ = '\0';
    parser->cursor = p;
    return start;
}

static int parse_number(scene_parser *parser, const char *what, double *value)
{
    char *token = next_token(parser);
    if (!token)
        return glcollide_fail(GLCOLLIDE_ERROR_PARSE, "%s:%d: expected %s", parser->path,
                              parser->line, what);
    char *end;
    errno = 0;
    *value = strtod(token, &end);
    if (*end || end == token || errno == ERANGE || !isfinite(*value))
        return glcollide_fail(GLCOLLIDE_ERROR_PARSE, "%s:%d: %s: '%s' is not a finite number",
                              parser->path, parser->line, what, token);
    return GLCOLLIDE_OK;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A relative mesh path is taken relative to the scene file, then looked up by
 * file name among the data meshes. */
static int resolve_mesh_path(scene_parser *parser, const char *mesh_path, char *out, size_t size)
{
    const char *slash = strrchr(parser->path, '/');
    int n;
    if (mesh_path[0] == '/' || !slash)
        n = snprintf(out, size, "%s", mesh_path);
    else
        n = snprintf(out, size, "%.*s/%s", (int)(slash - parser->path), parser->path, mesh_path);
    if (n < 0 || (size_t)n >= size)
        return glcollide_fail(GLCOLLIDE_ERROR_PARSE, "%s:%d: mesh path too long", parser->path,
                              parser->line);
    if (file_exists(out) || mesh_path[0] == '/')
        return GLCOLLIDE_OK;
    const char *base = strrchr(mesh_path, '/');
    base = base ? base + 1 : mesh_path;
    char found[4096];
    if (glcollide_mesh_find_data(base, found, sizeof found) == GLCOLLIDE_OK &&
        strlen(found) < size) {
        strcpy(out, found);
        return GLCOLLIDE_OK;
    }
    return glcollide_fail(GLCOLLIDE_ERROR_IO,
                          "%s:%d: mesh %s not found next to the scene nor among the data meshes "
                          "(run tests/cgal-meshes.sh for libcgal-demo's meshes)",
                          parser->path, parser->line, mesh_path);
}

static int parse_mesh_line(scene_parser *parser, glcollide_scene *scene)
{
    char *mesh_path = next_token(parser);
    if (!mesh_path)
        return glcollide_fail(GLCOLLIDE_ERROR_PARSE, "%s:%d: expected a mesh path", parser->path,
                              parser->line);
    double scale = 1.0;
    char *keyword = next_token(parser);
    if (keyword) {
        if (strcmp(keyword, "scale") != 0)
            return glcollide_fail(GLCOLLIDE_ERROR_PARSE, "%s:%d: expected 'scale S', got '%s'",
                                  parser->path, parser->line, keyword);
        int status = parse_number(parser, "scale", &scale);
        if (status)
            return status;
        if (!(scale > 0))
            return glcollide_fail(GLCOLLIDE_ERROR_PARSE, "%s:%d: scale must be positive",
                                  parser->path, parser->line);
    }
    char *extra = next_token(parser);
    if (extra)
        return glcollide_fail(GLCOLLIDE_ERROR_PARSE, "%s:%d: unexpected '%s'", parser->path,
                              parser->line, extra);
    char path[4096];
    int status = resolve_mesh_path(parser, mesh_path, path, sizeof path);
    if (status)
        return status;
    glcollide_mesh *mesh = NULL;
    status = glcollide_mesh_load(path, scale, &mesh);
    if (status)
        return glcollide_fail(status, "%s:%d: mesh %s could not be loaded (see above)",
                              parser->path, parser->line, mesh_path);
    return glcollide_scene_add_mesh(scene, mesh, NULL);
}

static int parse_object_line(scene_parser *parser, glcollide_scene *scene)
{
    static const char *const names[8] = {"mesh index", "TX", "TY", "TZ", "QW", "QX", "QY", "QZ"};
    double values[8];
    for (int i = 0; i < 8; i++) {
        int status = parse_number(parser, names[i], &values[i]);
        if (status)
            return status;
    }
    char *extra = next_token(parser);
    if (extra)
        return glcollide_fail(GLCOLLIDE_ERROR_PARSE, "%s:%d: unexpected '%s'", parser->path,
                              parser->line, extra);
    if (values[0] < 0 || values[0] != floor(values[0]) || values[0] >= (double)scene->mesh_count)
        return glcollide_fail(GLCOLLIDE_ERROR_PARSE,
                              "%s:%d: object refers to mesh %g, but %zu meshes are defined above",
                              parser->path, parser->line, values[0], scene->mesh_count);
    char where[512];
    snprintf(where, sizeof where, "%s:%d: ", parser->path, parser->line);
    int status = add_object(scene, (uint32_t)values[0], values + 1, values + 4, NULL, where);
    return status == GLCOLLIDE_ERROR_INVALID_ARGUMENT ? GLCOLLIDE_ERROR_PARSE : status;
}

int glcollide_scene_load(const char *path, glcollide_scene **out)
{
    if (!path || !out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "scene: NULL path or out");
    FILE *file = fopen(path, "r");
    if (!file)
        return glcollide_fail(GLCOLLIDE_ERROR_IO, "scene %s: cannot open: %s", path,
                              strerror(errno));
    glcollide_scene *scene = NULL;
    int status = glcollide_scene_create(&scene);
    if (status == GLCOLLIDE_OK && !(scene->path = glcollide_strdup(path)))
        status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "scene: out of memory");
    scene_parser parser = {.path = path};
    char *line = NULL;
    size_t capacity = 0;
    while (status == GLCOLLIDE_OK && getline(&line, &capacity, file) >= 0) {
        parser.line++;
        parser.cursor = line;
        char *keyword = next_token(&parser);
        if (!keyword)
            continue;
        if (strcmp(keyword, "mesh") == 0)
            status = parse_mesh_line(&parser, scene);
        else if (strcmp(keyword, "object") == 0)
            status = parse_object_line(&parser, scene);
        else
            status = glcollide_fail(GLCOLLIDE_ERROR_PARSE,
                                    "%s:%d: unknown statement '%s' (expected mesh or object)",
                                    path, parser.line, keyword);
    }
    if (status == GLCOLLIDE_OK && ferror(file))
        status = glcollide_fail(GLCOLLIDE_ERROR_IO, "scene %s: read error", path);
    free(line);
    fclose(file);
    if (status != GLCOLLIDE_OK) {
        glcollide_scene_destroy(&scene);
        return status;
    }
    *out = scene;
    return GLCOLLIDE_OK;
}
