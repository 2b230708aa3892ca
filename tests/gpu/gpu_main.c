/* SPDX-License-Identifier: MIT */
/*
 * Runs the suites that need a GL context (tests/glcollide-gpu-tests): the
 * GPU methods against their exact CPU twins, the context and its state
 * handling. Where no headless EGL context can be made at all, the program
 * says why and exits 77, which automake counts as skipped; anywhere a
 * context can be made (llvmpipe included), every suite runs.
 */
#define _POSIX_C_SOURCE 200809L
#include "helpers/tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* The library's message, kept for the skip line. */
static char reason[512];

static void keep_reason(glcollide_log_level level, const char *message, void *user)
{
    (void)level;
    (void)user;
    snprintf(reason, sizeof reason, "%s", message);
}

/* Can a context be made? Asked in a child process: the suites' own
 * processes then start from a driver never touched (EGL state does not
 * survive fork well). 0 yes, 77 no (said why), 1 another failure. */
static int probe(void)
{
    fflush(stdout);
    pid_t child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        glcollide_context *context = NULL;
        glcollide_set_log_callback(keep_reason, NULL);
        int status = glcollide_context_create_egl(&context);
        glcollide_set_log_callback(NULL, NULL);
        if (status == GLCOLLIDE_ERROR_NO_CONTEXT || status == GLCOLLIDE_ERROR_GL_UNSUPPORTED) {
            printf("SKIP: no headless EGL context with OpenGL %d.%d core: %s\n",
                   GLCOLLIDE_GL_VERSION_MIN / 10, GLCOLLIDE_GL_VERSION_MIN % 10, reason);
            _exit(77);
        }
        if (status != GLCOLLIDE_OK)
            printf("FAIL: the EGL context could not be made: %s\n", reason);
        glcollide_context_destroy(&context);
        fflush(stdout);
        _exit(status == GLCOLLIDE_OK ? 0 : 1);
    }
    int wstatus = 0;
    if (waitpid(child, &wstatus, 0) != child || !WIFEXITED(wstatus))
        return 1;
    return WEXITSTATUS(wstatus);
}

int main(void)
{
    int probed = probe();
    if (probed != 0)
        return probed;
    SRunner *runner = srunner_create(NULL);
#define TEST_SUITE(name) srunner_add_suite(runner, suite_##name());
#include "gpu/suites.h"
#undef TEST_SUITE
    return test_run_suites(runner);
}
