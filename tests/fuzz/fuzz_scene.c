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
    glcollide_world *world = NULL;
    if (glcollide_world_create(&world) != GLCOLLIDE_OK)
        return 0;
    if (glcollide_world_parse((const char *)data, size, "fuzz.scene", box_loader, NULL, world) ==
            GLCOLLIDE_OK &&
        glcollide_world_object_count(world) <= 8) {
        glcollide_query_options options = glcollide_query_default_options();
        glcollide_query_result result = {0};
        for (int level = 0; level < 2; level++) {
            options.level = (glcollide_level)level;
            glcollide_world_query(world, NULL, &options, &result);
        }
        glcollide_query_result_clear(&result);
    }
    glcollide_world_destroy(&world);
    return 0;
}
