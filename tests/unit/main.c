/* SPDX-License-Identifier: MIT */
/* Runs the suites that need no GL context (tests/glcollide-tests); the GPU
 * ones are in tests/gpu/gpu_main.c. CK_RUN_SUITE / CK_RUN_CASE select a part
 * (see Check's manual). */
#include "helpers/tests.h"

#include <stdlib.h>

int main(void)
{
    SRunner *runner = srunner_create(NULL);
#define TEST_SUITE(name) srunner_add_suite(runner, suite_##name());
#include "unit/suites.h"
#undef TEST_SUITE
    return test_run_suites(runner);
}
