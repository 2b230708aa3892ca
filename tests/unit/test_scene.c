/* SPDX-License-Identifier: MIT */
/* Scene files loaded into worlds, and object transforms. */
#define _GNU_SOURCE
#include "helpers/tests.h"

#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A temporary directory holding cube.off and a scene with the given body. */
static char *write_scene(const char *body, char *dir, size_t size)
{
    snprintf(dir, size, "%s/glcollide-sceneXXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[4200];
    snprintf(path, sizeof path, "%s/cube.off", dir);
    glcollide_mesh *cube = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.5, 0.5, &cube), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_save_off(cube, path), GLCOLLIDE_OK);
    glcollide_mesh_destroy(&cube);
    snprintf(path, sizeof path, "%s/test.scene", dir);
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(body, file);
    fclose(file);
    return strdup(path);
}

static void remove_scene(const char *dir, char *scene_path)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/cube.off", dir);
    unlink(path);
    unlink(scene_path);
    rmdir(dir);
    free(scene_path);
}

START_TEST(test_scene_file)
{
    char dir[4096];
    char *path = write_scene("# two cubes\n"
                             "mesh cube.off scale 2\n"
                             "\n"
                             "object 0  1 2 3  1 0 0 0   # identity\n"
                             "object 0 -1 0 0  0.7071067811865476 0 0 0.7071067811865476\n",
                             dir, sizeof dir);
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_load(path, &world), GLCOLLIDE_OK);
    ck_assert_uint_eq(glcollide_world_mesh_count(world), 1);
    ck_assert_uint_eq(glcollide_world_object_count(world), 2);
    const glcollide_mesh *mesh = glcollide_world_mesh(world, 0);
    ck_assert_uint_eq(mesh->triangle_count, 12);
    ck_assert_ptr_null(glcollide_world_mesh(world, 1));
    /* scale 2 doubles the half extent 0.5 to 1 */
    double max = 0;
    for (size_t i = 0; i < 3 * mesh->vertex_count; i++)
        max = fmax(max, fabs(mesh->positions[i]));
    ck_assert_double_eq_tol(max, 1.0, 1e-15);
    ck_assert_double_eq(glcollide_world_object(world, 0)->pose.translation[2], 3.0);
    /* 90 degrees about z: (1, 0, 0) -> (0, 1, 0), then translated by (-1, 0, 0) */
    double p[3] = {1, 0, 0}, q[3];
    glcollide_pose_transform_points(&glcollide_world_object(world, 1)->pose, p, 1, q);
    ck_assert_double_eq_tol(q[0], -1.0, 1e-12);
    ck_assert_double_eq_tol(q[1], 1.0, 1e-12);
    ck_assert_double_eq_tol(q[2], 0.0, 1e-12);
    glcollide_world_destroy(&world); /* and the mesh it loaded */
    ck_assert_ptr_null(world);
    remove_scene(dir, path);
}
END_TEST

/* Each malformed scene fails with PARSE (or IO) and a message naming file:line. */
static const struct {
    const char *body;
    int status;
    const char *line, *what;
} bad_scenes[] = {
    {"mesh cube.off\nobject 1 0 0 0 1 0 0 0\n", GLCOLLIDE_ERROR_PARSE, ":2:", "mesh 1"},
    {"object 0 0 0 0 1 0 0 0\n", GLCOLLIDE_ERROR_PARSE, ":1:", "0 meshes"},
    {"mesh cube.off\nobject 0 0 0 0 2 0 0 0\n", GLCOLLIDE_ERROR_PARSE, ":2:", "unit quaternion"},
    {"mesh cube.off\nobject 0 0 0 0 1 0 0\n", GLCOLLIDE_ERROR_PARSE, ":2:", "expected QZ"},
    {"mesh cube.off\nobject 0 0 x 0 1 0 0 0\n", GLCOLLIDE_ERROR_PARSE, ":2:", "'x'"},
    {"mesh cube.off\nobject 0 0 nan 0 1 0 0 0\n", GLCOLLIDE_ERROR_PARSE, ":2:", "finite"},
    {"mesh cube.off\nobject 0 0 0 0 1 0 0 0 9\n", GLCOLLIDE_ERROR_PARSE, ":2:", "unexpected '9'"},
    {"mesh cube.off\nobject 0.5 0 0 0 1 0 0 0\n", GLCOLLIDE_ERROR_PARSE, ":2:", "mesh 0.5"},
    {"\n\nmesh cube.off scale -1\n", GLCOLLIDE_ERROR_PARSE, ":3:", "positive"},
    {"mesh cube.off size 2\n", GLCOLLIDE_ERROR_PARSE, ":1:", "'scale S'"},
    {"mesh\n", GLCOLLIDE_ERROR_PARSE, ":1:", "mesh path"},
    {"cube cube.off\n", GLCOLLIDE_ERROR_PARSE, ":1:", "unknown statement 'cube'"},
    {"mesh no-such-mesh-anywhere.off\n", GLCOLLIDE_ERROR_IO, ":1:", "not found"},
};

START_TEST(test_scene_errors)
{
    char dir[4096];
    char *path = write_scene(bad_scenes[_i].body, dir, sizeof dir);
    glcollide_world *world = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    int status = glcollide_world_load(path, &world);
    test_log_capture_stop();
    ck_assert_int_eq(status, bad_scenes[_i].status);
    ck_assert_ptr_null(world);
    char where[4300];
    snprintf(where, sizeof where, "%s%s", path, bad_scenes[_i].line);
    const char *messages = test_log_all();
    ck_assert_msg(strstr(messages, where) && strstr(messages, bad_scenes[_i].what),
                  "scene %d: message '%s' lacks '%s' or '%s'", _i, messages, where,
                  bad_scenes[_i].what);
    remove_scene(dir, path);
}
END_TEST

START_TEST(test_scene_missing_file)
{
    glcollide_world *world = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    ck_assert_int_eq(glcollide_world_load("/nonexistent/x.scene", &world), GLCOLLIDE_ERROR_IO);
    ck_assert_int_eq(glcollide_world_load(NULL, &world), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    test_log_capture_stop();
}
END_TEST

/* A mesh named only by file name comes from the data meshes (libcgal-demo). */
START_TEST(test_scene_data_mesh_fallback)
{
    test_data_mesh("knot1.off"); /* fails clearly when the cache is missing */
    char dir[4096];
    char *path = write_scene("mesh knot1.off\nobject 0 0 0 0 1 0 0 0\n", dir, sizeof dir);
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_load(path, &world), GLCOLLIDE_OK);
    ck_assert_uint_eq(glcollide_world_mesh(world, 0)->triangle_count, 6400);
    glcollide_world_destroy(&world);
    remove_scene(dir, path);
}
END_TEST

START_TEST(test_scene_in_code)
{
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    glcollide_mesh *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 2, 3, &box), GLCOLLIDE_OK);
    uint32_t mesh = 99, object = 99;
    ck_assert_int_eq(glcollide_world_add_mesh(world, box, &mesh), GLCOLLIDE_OK);
    ck_assert_uint_eq(mesh, 0);
    ck_assert_ptr_eq(glcollide_world_mesh(world, 0), box); /* borrowed */
    const double t[3] = {0, 0, 0}, q[4] = {2, 0, 0, 0}, unit[4] = {1, 0, 0, 1e-7};
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    ck_assert_int_eq(glcollide_world_add_object(world, 1, t, unit, &object),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(glcollide_world_add_object(world, 0, t, q, &object),
                     GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    test_log_capture_stop();
    ck_assert_int_eq(glcollide_world_add_object(world, 0, t, unit, &object), GLCOLLIDE_OK);
    ck_assert_uint_eq(object, 0);
    /* normalised */
    const double *r = glcollide_world_object(world, 0)->pose.rotation;
    ck_assert_double_eq_tol(r[0] * r[0] + r[3] * r[3], 1.0, 1e-15);
    glcollide_world_destroy(&world);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&box); /* the caller's */
}
END_TEST

Suite *suite_scene(void)
{
    Suite *suite = suite_create("scene");
    TCase *tc = tcase_create("files");
    tcase_add_test(tc, test_scene_file);
    tcase_add_loop_test(tc, test_scene_errors, 0, (int)(sizeof bad_scenes / sizeof bad_scenes[0]));
    tcase_add_test(tc, test_scene_missing_file);
    tcase_add_test(tc, test_scene_data_mesh_fallback);
    tcase_add_test(tc, test_scene_in_code);
    suite_add_tcase(suite, tc);
    return suite;
}
