/* SPDX-License-Identifier: MIT */
/* Small shared helpers: checked allocation, growth of arrays, scratch, sorting, the clock. */
#define _POSIX_C_SOURCE 200809L
#include "core/internal.h"

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

int glcollide_array_reserve(void **array, size_t *capacity, size_t count, size_t size,
                            const char *what)
{
    if (count <= *capacity)
        return GLCOLLIDE_OK;
    size_t grown = *capacity ? *capacity : 16;
    while (grown < count)
        grown = grown > SIZE_MAX / 2 ? count : 2 * grown;
    void *bigger = glcollide_realloc_array(*array, grown, size);
    if (!bigger)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu items",
                              what, count);
    *array = bigger;
    *capacity = grown;
    return GLCOLLIDE_OK;
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

void *glcollide_workspace_get(glcollide_workspace *workspace, size_t bytes, void **own)
{
    if (!workspace)
        return *own = malloc(bytes ? bytes : 1);
    if (workspace->bytes < bytes) {
        /* Doubling: a workload that creeps up reallocates O(log) times. */
        size_t want = workspace->bytes > SIZE_MAX / 2 ? bytes : 2 * workspace->bytes;
        if (want < bytes)
            want = bytes;
        void *grown = realloc(workspace->memory, want);
        if (!grown && want > bytes)
            grown = realloc(workspace->memory, want = bytes);
        if (!grown)
            return NULL;
        workspace->memory = grown;
        workspace->bytes = want;
    }
    return workspace->memory;
}

int glcollide_scratch_create(glcollide_scratch **out)
{
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "scratch: out is NULL");
    *out = calloc(1, sizeof **out);
    return *out ? GLCOLLIDE_OK
                : glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "scratch: out of memory");
}

void glcollide_scratch_destroy(glcollide_scratch **scratch)
{
    if (!scratch || !*scratch)
        return;
    glcollide_scratch *s = *scratch;
    glcollide_workspace_release(&s->workspace);
    glcollide_scratch_part *parts[2] = {&s->contacts, &s->primitives};
    for (int k = 0; k < 2; k++)
        if (parts[k]->release)
            parts[k]->release(parts[k]->memory);
    free(s);
    *scratch = NULL;
}

void glcollide_workspace_release(glcollide_workspace *workspace)
{
    if (!workspace)
        return;
    free(workspace->memory);
    workspace->memory = NULL;
    workspace->bytes = 0;
}

/* ---------------------------------------------------------------- sorting */

static void swap_bytes(unsigned char *x, unsigned char *y, size_t size)
{
    unsigned char chunk[64];
    while (size > 0) {
        size_t n = size < sizeof chunk ? size : sizeof chunk;
        memcpy(chunk, x, n);
        memcpy(x, y, n);
        memcpy(y, chunk, n);
        x += n, y += n, size -= n;
    }
}

/* Moves element i down the max-heap of n elements rooted at 0. */
static void sift_down(unsigned char *base, size_t i, size_t n, size_t size,
                      int (*compare)(const void *, const void *))
{
    for (;;) {
        size_t largest = i, left = 2 * i + 1, right = left + 1;
        if (left < n && compare(base + left * size, base + largest * size) > 0)
            largest = left;
        if (right < n && compare(base + right * size, base + largest * size) > 0)
            largest = right;
        if (largest == i)
            return;
        swap_bytes(base + i * size, base + largest * size, size);
        i = largest;
    }
}

void glcollide_sort(void *base, size_t count, size_t size,
                    int (*compare)(const void *, const void *))
{
    unsigned char *b = base;
    if (count < 2)
        return;
    if (count <= 16) { /* insertion sort: fewer compares and moves on tiny inputs */
        for (size_t i = 1; i < count; i++)
            for (size_t j = i; j > 0 && compare(b + (j - 1) * size, b + j * size) > 0; j--)
                swap_bytes(b + (j - 1) * size, b + j * size, size);
        return;
    }
    for (size_t i = count / 2; i-- > 0;)
        sift_down(b, i, count, size, compare);
    for (size_t n = count - 1; n > 0; n--) {
        swap_bytes(b, b + n * size, size);
        sift_down(b, 0, n, size, compare);
    }
}
