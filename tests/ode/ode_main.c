/* SPDX-License-Identifier: MIT */
/* Runs the ODE plugin's suites (tests/glcollide-ode-tests). CK_RUN_SUITE
 * selects one: ode (the space and the collider), stacking (simulations),
 * primitives (trimeshes against ODE's primitives, simulated), threads (the
 * narrow phase on worker threads). */
#include "helpers/tests.h"

#include <stdlib.h>

int main(void)
{
    SRunner *runner = srunner_create(NULL);
#define TEST_SUITE(name) srunner_add_suite(runner, suite_##name());
#include "ode/suites.h"
#undef TEST_SUITE
    return test_run_suites(runner);
}
