/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the scene parser (make fuzz): the input is a scene
 * file. Its "mesh" lines load no files here: each becomes a box of half
 * side `scale`, so that every pose, scale and count the parser accepts
 * reaches the exact oracle (for scenes of up to 8 objects), which must
 * answer any finite scene. Any crash, leak or undefined behaviour is a
 * bug; refusals are fine.
 */
#include "world/world.h"
#include "fuzz.h"

#include <string.h>

/* A box instead of the file: the path must still be a C string. */
static int box_loader(const char *scene_path, const char *mesh_path, double scale,
                      glcollide_mesh **out, void *user)
{
    (void)scene_path;
    (void)user;
    if (strlen(mesh_path) == 0)
        return GLCOLLIDE_ERROR_PARSE;
    return glcollide_mesh_generate_box(scale, scale, scale, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    glcollide_scene *scene = NULL;
    if (glcollide_scene_create(&scene) != GLCOLLIDE_OK)
        return 0;
    if (glcollide_scene_parse((const char *)data, size, "fuzz.scene", box_loader, NULL, scene) ==
            GLCOLLIDE_OK &&
        scene->object_count <= 8) {
        glcollide_query_options options = glcollide_query_default_options();
        glcollide_query_result result;
        for (int level = 0; level < 2; level++) {
            options.level = (glcollide_level)level;
            if (glcollide_query_run(scene, NULL, &options, &result) == GLCOLLIDE_OK)
                glcollide_query_result_clear(&result);
        }
    }
    glcollide_scene_destroy(&scene);
    return 0;
}
