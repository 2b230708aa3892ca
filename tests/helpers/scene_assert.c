/* SPDX-License-Identifier: MIT */
/* Scenes built and queried in tests, failing the test on any error
 * (declared in tests.h; the scenes are test_scene.h's). */
#include "helpers/tests.h"

uint32_t test_scene_add_mesh(test_scene *scene, glcollide_mesh *mesh)
{
    uint32_t index;
    ck_assert_ptr_nonnull(mesh);
    ck_assert_int_eq(scene_add_mesh(scene, mesh, &index), GLCOLLIDE_OK);
    return index;
}

glcollide_query_result test_run_query(const test_scene *scene, glcollide_context *context,
                                      glcollide_method method, glcollide_level level,
                                      int resolution, double distance)
{
    glcollide_query_options options = glcollide_query_default_options();
    options.method = method;
    options.level = level;
    options.resolution = resolution;
    options.distance = distance;
    glcollide_query_result result;
    int status =
        scene_query(scene, method == GLCOLLIDE_METHOD_EXACT ? NULL : context, &options, &result);
    ck_assert_msg(status == GLCOLLIDE_OK, "%s query failed: %s", glcollide_method_name(method),
                  glcollide_status_string(status));
    return result;
}

void test_scene_add_object(test_scene *scene, uint32_t mesh, const double t[3], const double q[4])
{
    ck_assert_int_eq(scene_add_object(scene, mesh, t, q, NULL), GLCOLLIDE_OK);
}
