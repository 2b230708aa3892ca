/* SPDX-License-Identifier: MIT */
/* Runs the ODE plugin's suites (tests/glcollide-ode-tests). CK_RUN_SUITE
 * selects one: ode (the space and the collider), stacking (simulations),
 * primitives (trimeshes against ODE's primitives, simulated), threads (the
 * narrow phase on worker threads). */
#include "helpers/tests.h"

#include <stdlib.h>

int main(void)
{
    SRunner *runner = srunner_create(suite_ode());
    srunner_add_suite(runner, suite_stacking());
    srunner_add_suite(runner, suite_primitives());
    srunner_add_suite(runner, suite_ode_threads());
    srunner_add_suite(runner, suite_ode_collide2());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
