/* SPDX-License-Identifier: MIT */
/* Small shared helpers: checked allocation, clock, boxes. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double glcollide_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void *glcollide_alloc_array(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    return malloc(bytes ? bytes : 1);
}

void *glcollide_realloc_array(void *ptr, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    return realloc(ptr, bytes ? bytes : 1);
}

char *glcollide_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

void glcollide_aabb_empty(glcollide_aabb *box)
{
    for (int k = 0; k < 3; k++) {
        box->min[k] = INFINITY;
        box->max[k] = -INFINITY;
    }
}

void glcollide_aabb_add_point(glcollide_aabb *box, const double p[3])
{
    for (int k = 0; k < 3; k++) {
        if (p[k] < box->min[k])
            box->min[k] = p[k];
        if (p[k] > box->max[k])
            box->max[k] = p[k];
    }
}

void *glcollide_workspace_get(glcollide_workspace *workspace, size_t bytes, void **own)
{
    if (!workspace)
        return *own = malloc(bytes ? bytes : 1);
    if (workspace->bytes < bytes) {
        void *grown = realloc(workspace->memory, bytes);
        if (!grown)
            return NULL;
        workspace->memory = grown;
        workspace->bytes = bytes;
    }
    return workspace->memory;
}

void glcollide_workspace_release(glcollide_workspace *workspace)
{
    if (!workspace)
        return;
    free(workspace->memory);
    workspace->memory = NULL;
    workspace->bytes = 0;
}
