/* SPDX-License-Identifier: MIT */
/* Runs the suites that need no GL context (tests/glcollide-tests); the GPU
 * ones are in tests/gpu/gpu_main.c. CK_RUN_SUITE / CK_RUN_CASE select a part
 * (see Check's manual). */
#include "helpers/tests.h"

#include <stdlib.h>

int main(void)
{
    SRunner *runner = srunner_create(suite_workers());
    srunner_add_suite(runner, suite_mesh_io());
    srunner_add_suite(runner, suite_mesh_validate());
    srunner_add_suite(runner, suite_predicates());
    srunner_add_suite(runner, suite_tritri());
    srunner_add_suite(runner, suite_sap());
    srunner_add_suite(runner, suite_bvh());
    srunner_add_suite(runner, suite_point_in_mesh());
    srunner_add_suite(runner, suite_scene());
    srunner_add_suite(runner, suite_query());
    srunner_add_suite(runner, suite_distance());
    srunner_add_suite(runner, suite_world());
    srunner_add_suite(runner, suite_world_contacts());
    srunner_add_suite(runner, suite_self_intersection());
    srunner_add_suite(runner, suite_contacts());
    srunner_add_suite(runner, suite_contacts_primitive());
    srunner_add_suite(runner, suite_myszkowski_cpu());
    srunner_add_suite(runner, suite_tetra_tree_cpu());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
