/* SPDX-License-Identifier: MIT */
/* Runs every suite. CK_RUN_SUITE / CK_RUN_CASE select a part (see Check's manual). */
#define _GNU_SOURCE
#include "tests.h"

#include <glcollide/glcollide.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *test_data_mesh(const char *file_name)
{
    static char path[4096];
    int status = glcollide_mesh_find_data(file_name, path, sizeof path);
    ck_assert_msg(status == GLCOLLIDE_OK,
                  "data mesh %s not found: run `make meshes` (tests/cgal-meshes.sh) first", file_name);
    return path;
}

char *test_write_temp(const char *suffix, const void *data, size_t size)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + strlen(suffix) + 32;
    char *path = malloc(n);
    ck_assert_ptr_nonnull(path);
    snprintf(path, n, "%s/glcollide-testXXXXXX%s", dir, suffix);
    int fd = mkstemps(path, (int)strlen(suffix));
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, size), (ssize_t)size);
    close(fd);
    return path;
}

int main(void)
{
    SRunner *runner = srunner_create(suite_mesh_io());
    srunner_add_suite(runner, suite_mesh_validate());
    srunner_add_suite(runner, suite_predicates());
    srunner_add_suite(runner, suite_tritri());
    srunner_add_suite(runner, suite_sap());
    srunner_add_suite(runner, suite_bvh());
    srunner_add_suite(runner, suite_point_in_mesh());
    srunner_add_suite(runner, suite_context());
    srunner_add_suite(runner, suite_scene());
    srunner_add_suite(runner, suite_query());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
