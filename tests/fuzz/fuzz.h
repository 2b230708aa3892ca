/* SPDX-License-Identifier: MIT */
/*
 * What the libFuzzer harnesses share (each includes it once): libFuzzer's
 * entry points, and a library that says nothing (refusals are expected,
 * millions of times).
 */
#ifndef GLCOLLIDE_FUZZ_H
#define GLCOLLIDE_FUZZ_H

#include <glcollide/glcollide.h>

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_quiet(glcollide_log_level level, const char *message, void *user)
{
    (void)level;
    (void)message;
    (void)user;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    glcollide_set_log_callback(fuzz_quiet, NULL);
    return 0;
}

#endif
