/* SPDX-License-Identifier: MIT */
/* The tests' scenes, run on worlds (test_scene.h). */
#include "helpers/test_scene.h"
#include "world/world.h" /* white box: objects added with their poses as held */

#include <stdlib.h>
#include <string.h>

int scene_create(test_scene **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? GLCOLLIDE_OK
                : glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "scene: out of memory");
}

void scene_destroy(test_scene **scene)
{
    if (!scene || !*scene)
        return;
    for (size_t i = 0; i < (*scene)->mesh_count; i++)
        glcollide_mesh_destroy(&(*scene)->meshes[i]);
    free((*scene)->meshes);
    free((*scene)->objects);
    free(*scene);
    *scene = NULL;
}

int scene_add_mesh(test_scene *scene, glcollide_mesh *mesh, uint32_t *index)
{
    glcollide_mesh **meshes =
        mesh ? glcollide_realloc_array(scene->meshes, scene->mesh_count + 1, sizeof *meshes)
             : NULL;
    if (!meshes) {
        glcollide_mesh_destroy(&mesh);
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "scene: add_mesh failed");
    }
    scene->meshes = meshes;
    if (index)
        *index = (uint32_t)scene->mesh_count;
    scene->meshes[scene->mesh_count++] = mesh;
    return GLCOLLIDE_OK;
}

/* Appends object, a pose as held. */
static int append(test_scene *scene, const glcollide_object *object, uint32_t *index)
{
    glcollide_object *objects =
        glcollide_realloc_array(scene->objects, scene->object_count + 1, sizeof *objects);
    if (!objects)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "scene: out of memory");
    scene->objects = objects;
    if (index)
        *index = (uint32_t)scene->object_count;
    scene->objects[scene->object_count++] = *object;
    return GLCOLLIDE_OK;
}

int scene_add_object(test_scene *scene, uint32_t mesh, const double translation[3],
                     const double rotation[4], uint32_t *index)
{
    if (mesh >= scene->mesh_count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "scene: object refers to mesh %u, only %zu meshes", mesh,
                              scene->mesh_count);
    glcollide_object object;
    int status = glcollide_world_pose_check(translation, rotation, mesh, "scene: ", &object);
    return status == GLCOLLIDE_OK ? append(scene, &object, index) : status;
}

int scene_replace_mesh(test_scene *scene, uint32_t index, glcollide_mesh *mesh)
{
    if (!mesh || index >= scene->mesh_count) {
        glcollide_mesh_destroy(&mesh);
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "scene: replace_mesh: bad arguments");
    }
    glcollide_mesh_destroy(&scene->meshes[index]);
    scene->meshes[index] = mesh;
    return GLCOLLIDE_OK;
}

void scene_clear_objects(test_scene *scene)
{
    scene->object_count = 0;
}

int scene_load(const char *path, test_scene **out)
{
    glcollide_world *world = NULL;
    int status = glcollide_world_load(path, &world);
    if (status != GLCOLLIDE_OK)
        return status;
    test_scene *scene = NULL;
    status = scene_create(&scene);
    for (uint32_t m = 0; status == GLCOLLIDE_OK && m < glcollide_world_mesh_count(world); m++) {
        const glcollide_mesh *mesh = glcollide_world_mesh(world, m);
        glcollide_mesh *copy = NULL;
        status = glcollide_mesh_create(mesh->positions, mesh->vertex_count, mesh->triangles,
                                       mesh->triangle_count, mesh->name, &copy);
        if (status == GLCOLLIDE_OK)
            status = scene_add_mesh(scene, copy, NULL);
    }
    for (uint32_t o = 0; status == GLCOLLIDE_OK && o < glcollide_world_object_count(world); o++)
        status = append(scene, glcollide_world_object(world, o), NULL);
    glcollide_world_destroy(&world);
    if (status != GLCOLLIDE_OK)
        scene_destroy(&scene);
    *out = scene;
    return status;
}

int scene_world(const test_scene *scene, glcollide_world **out)
{
    glcollide_world *world = NULL;
    int status = glcollide_world_create(&world);
    for (size_t m = 0; m < scene->mesh_count && status == GLCOLLIDE_OK; m++)
        status = glcollide_world_add_mesh(world, scene->meshes[m], NULL);
    for (size_t o = 0; o < scene->object_count && status == GLCOLLIDE_OK; o++)
        status = glcollide_world_add_object_as_is(world, &scene->objects[o], NULL);
    if (status != GLCOLLIDE_OK)
        glcollide_world_destroy(&world);
    *out = world;
    return status;
}

/* A one-shot world of scene; none for a NULL scene (the call refuses it). */
static int one_shot(const test_scene *scene, glcollide_world **world)
{
    *world = NULL;
    return scene ? scene_world(scene, world) : GLCOLLIDE_OK;
}

int scene_query(const test_scene *scene, glcollide_context *context,
                const glcollide_query_options *options, glcollide_query_result *result)
{
    if (result)
        memset(result, 0, sizeof *result);
    glcollide_world *world;
    int status = one_shot(scene, &world);
    if (status == GLCOLLIDE_OK)
        status = glcollide_world_query(world, context, options, result);
    glcollide_world_destroy(&world);
    if (status != GLCOLLIDE_OK)
        glcollide_query_result_clear(result);
    return status;
}

int scene_stencil(const test_scene *scene, glcollide_context *context,
                  const glcollide_stencil_options *options, glcollide_stencil_result *result)
{
    if (result)
        memset(result, 0, sizeof *result);
    glcollide_world *world;
    int status = one_shot(scene, &world);
    if (status == GLCOLLIDE_OK)
        status = glcollide_stencil_run(world, context, options, result);
    glcollide_world_destroy(&world);
    return status;
}

int scene_myszkowski_test(glcollide_myszkowski *tester, const test_scene *scene, uint32_t i,
                          uint32_t j, const glcollide_myszkowski_options *options,
                          glcollide_myszkowski_result *result)
{
    glcollide_world *world;
    int status = one_shot(scene, &world);
    if (status == GLCOLLIDE_OK)
        status = glcollide_myszkowski_test(tester, world, i, j, options, result);
    glcollide_world_destroy(&world);
    return status;
}

int scene_myszkowski_map(glcollide_myszkowski *tester, const test_scene *scene, uint32_t i,
                         uint32_t j, const glcollide_myszkowski_options *options,
                         glcollide_myszkowski_map *map)
{
    glcollide_world *world;
    int status = one_shot(scene, &world);
    if (status == GLCOLLIDE_OK)
        status = glcollide_myszkowski_distance_map(tester, world, i, j, options, map);
    glcollide_world_destroy(&world);
    return status;
}

int tetra_classify(glcollide_tetra_gpu *gpu, const glcollide_mesh *mesh, const double *points,
                   size_t count, unsigned flags, uint8_t *inside, glcollide_tetra_stats *stats)
{
    const double origin[3] = {0, 0, 0}, identity[4] = {1, 0, 0, 0};
    glcollide_world *world = NULL;
    int status = glcollide_world_create(&world);
    if (status == GLCOLLIDE_OK && mesh)
        status = glcollide_world_add_mesh(world, mesh, NULL);
    if (status == GLCOLLIDE_OK && mesh)
        status = glcollide_world_add_object(world, 0, origin, identity, NULL);
    if (status == GLCOLLIDE_OK)
        status = glcollide_tetra_gpu_classify(gpu, world, 0, points, count, flags, inside, stats);
    glcollide_world_destroy(&world);
    return status;
}
