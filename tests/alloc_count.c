/* SPDX-License-Identifier: MIT */
/*
 * A malloc counter to LD_PRELOAD into a test: every malloc, calloc, realloc
 * and aligned allocation bumps glcollide_test_allocations, then goes to
 * glibc's own (__libc_*). Programs find the counter with dlsym(RTLD_DEFAULT)
 * (demos/pile --count-allocations), so it costs nothing when not preloaded.
 */
#include <malloc.h>
#include <stddef.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *ptr);

#define EXPORT __attribute__((visibility("default")))

EXPORT unsigned long glcollide_test_allocations;

EXPORT void *malloc(size_t size)
{
    __atomic_add_fetch(&glcollide_test_allocations, 1, __ATOMIC_RELAXED);
    return __libc_malloc(size);
}

EXPORT void *calloc(size_t count, size_t size)
{
    __atomic_add_fetch(&glcollide_test_allocations, 1, __ATOMIC_RELAXED);
    return __libc_calloc(count, size);
}

EXPORT void *realloc(void *ptr, size_t size)
{
    __atomic_add_fetch(&glcollide_test_allocations, 1, __ATOMIC_RELAXED);
    return __libc_realloc(ptr, size);
}

EXPORT void *memalign(size_t alignment, size_t size)
{
    __atomic_add_fetch(&glcollide_test_allocations, 1, __ATOMIC_RELAXED);
    return __libc_memalign(alignment, size);
}

EXPORT void free(void *ptr)
{
    __libc_free(ptr);
}
