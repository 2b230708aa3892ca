/* SPDX-License-Identifier: MIT */
/*
 * A scene as the tests and benchmarks build one: meshes it owns and
 * objects (mesh, pose), each call run on a world made of them, as 0.1's
 * glcollide_scene was. The library has one container, the world; the
 * oracle suites keep their scenes (and their cases and assertions word for
 * word) through this helper. Poses are kept as given to scene_add_object
 * normalised once by the world's rule, and reach the world as they are
 * held, so an object's world positions are the scene's bit for bit.
 * Linked into tests/glcollide-tests, tests/glcollide-gpu-tests and the
 * benchmarks (it uses the internal library).
 */
#ifndef GLCOLLIDE_TEST_SCENE_H
#define GLCOLLIDE_TEST_SCENE_H

#include <glcollide/glcollide.h>

typedef struct test_scene {
    glcollide_mesh **meshes; /* owned by the scene */
    size_t mesh_count;
    glcollide_object *objects;
    size_t object_count;
} test_scene;

/* An empty scene; OUT_OF_MEMORY. */
int scene_create(test_scene **out);
/* A scene file (glcollide_world_load's format and messages), its meshes
 * copied into the scene. */
int scene_load(const char *path, test_scene **out);
void scene_destroy(test_scene **scene);
/* Takes mesh (also on error, when it is destroyed); index may be NULL. */
int scene_add_mesh(test_scene *scene, glcollide_mesh *mesh, uint32_t *index);
/* The world's pose rule (glcollide_world_add_object), its messages
 * starting "scene: "; index may be NULL. */
int scene_add_object(test_scene *scene, uint32_t mesh, const double translation[3],
                     const double rotation[4], uint32_t *index);
/* Replaces mesh index by mesh (taken, also on error), destroying the old. */
int scene_replace_mesh(test_scene *scene, uint32_t index, glcollide_mesh *mesh);
void scene_clear_objects(test_scene *scene);

/* A world of the scene's meshes (borrowed) and objects, poses as held. */
int scene_world(const test_scene *scene, glcollide_world **out);

/* The world calls on a one-shot world of the scene: result zeroed first
 * (and emptied on error), as 0.1's scene calls did. */
int scene_query(const test_scene *scene, glcollide_context *context,
                const glcollide_query_options *options, glcollide_query_result *result);
int scene_stencil(const test_scene *scene, glcollide_context *context,
                  const glcollide_stencil_options *options, glcollide_stencil_result *result);
int scene_myszkowski_test(glcollide_myszkowski *tester, const test_scene *scene, uint32_t i,
                          uint32_t j, const glcollide_myszkowski_options *options,
                          glcollide_myszkowski_result *result);
int scene_myszkowski_map(glcollide_myszkowski *tester, const test_scene *scene, uint32_t i,
                         uint32_t j, const glcollide_myszkowski_options *options,
                         glcollide_myszkowski_map *map);

/* glcollide_tetra_gpu_classify on points in mesh's own space: mesh as the
 * one object of a one-shot world at the identity pose (local = p). */
int tetra_classify(glcollide_tetra_gpu *gpu, const glcollide_mesh *mesh, const double *points,
                   size_t count, unsigned flags, uint8_t *inside, glcollide_tetra_stats *stats);

#endif
