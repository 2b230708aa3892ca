/* SPDX-License-Identifier: MIT */
/*
 * A malloc counter to LD_PRELOAD into a test: every malloc, calloc, realloc
 * and aligned allocation bumps glcollide_test_allocations, then goes to
 * glibc's own (__libc_*). Programs find the counter with dlsym(RTLD_DEFAULT)
 * (demos/pile --count-allocations), so it costs nothing when not preloaded.
 *
 * Allocations whose caller lies outside the program, glcollide's and ODE's
 * libraries also bump glcollide_test_driver_allocations: the GL driver's own
 * (Mesa, LLVM, epoxy), which glcollide cannot remove. The caller is the
 * first frame outside the C and C++ runtimes (a strdup or operator new is
 * charged to whoever called it); where the stack cannot be walked the
 * allocation counts as ours, so the rest is an upper bound of the program's
 * own. The objects are listed once, when this library is initialised
 * (before main, after every library the program links is mapped):
 * libraries opened later with dlopen (the driver) are not ours. Nothing
 * here allocates once initialised.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *ptr);

#define EXPORT __attribute__((visibility("default")))

EXPORT unsigned long glcollide_test_allocations;
EXPORT unsigned long glcollide_test_driver_allocations;

/* The executable segments of the objects whose allocations are ours, and
 * of the runtimes that allocate on behalf of their callers. */
enum { OURS, RUNTIME, DRIVER };
enum { MAX_RANGES = 64 };
static struct {
    uintptr_t start, end;
    int owner;
} ranges[MAX_RANGES];
static int range_count;
static int listed;          /* set once the ranges are known */
static __thread int inside; /* walking the stack (it may allocate the first time) */

static int owner_of_object(const char *name)
{
    static const char *const ours[] = {"glcollide", "libode"};
    static const char *const runtimes[] = {"libc.so",  "libm.so",  "libstdc++",
                                           "libgcc_s", "ld-linux", "alloc-count"};
    if (!name || !name[0])
        return OURS; /* the program itself */
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
        if (strstr(base, ours[i]))
            return OURS;
    for (size_t i = 0; i < sizeof runtimes / sizeof runtimes[0]; i++)
        if (strstr(base, runtimes[i]))
            return RUNTIME;
    return DRIVER;
}

static int note_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    int owner = owner_of_object(info->dlpi_name);
    if (owner == DRIVER)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && range_count < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            ranges[range_count].start = info->dlpi_addr + ph->p_vaddr;
            ranges[range_count].end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
            ranges[range_count].owner = owner;
            range_count++;
        }
    }
    return 0;
}

__attribute__((constructor(101))) static void list_objects(void)
{
    void *frames[4];
    inside = 1;
    backtrace(frames, 4); /* loads the unwinder now, not inside a malloc */
    inside = 0;
    dl_iterate_phdr(note_object, NULL);
    __atomic_store_n(&listed, 1, __ATOMIC_RELEASE);
}

static int owner_of_address(const void *address)
{
    uintptr_t at = (uintptr_t)address;
    for (int i = 0; i < range_count; i++)
        if (at >= ranges[i].start && at < ranges[i].end)
            return ranges[i].owner;
    return DRIVER;
}

static void note_allocation(const void *caller)
{
    if (inside)
        return; /* the unwinder's own, for this counter */
    __atomic_add_fetch(&glcollide_test_allocations, 1, __ATOMIC_RELAXED);
    if (!__atomic_load_n(&listed, __ATOMIC_ACQUIRE))
        return; /* before main: counted as ours */
    int owner = owner_of_address(caller);
    if (owner == RUNTIME) { /* charged to the runtime's caller */
        void *frames[16];
        inside = 1;
        int n = backtrace(frames, 16);
        inside = 0;
        owner = OURS;
        for (int i = 0; i < n; i++)
            if ((owner = owner_of_address(frames[i])) != RUNTIME)
                break;
        if (owner == RUNTIME)
            owner = OURS;
    }
    if (owner == DRIVER)
        __atomic_add_fetch(&glcollide_test_driver_allocations, 1, __ATOMIC_RELAXED);
}

EXPORT void *malloc(size_t size)
{
    note_allocation(__builtin_return_address(0));
    return __libc_malloc(size);
}

EXPORT void *calloc(size_t count, size_t size)
{
    note_allocation(__builtin_return_address(0));
    return __libc_calloc(count, size);
}

EXPORT void *realloc(void *ptr, size_t size)
{
    note_allocation(__builtin_return_address(0));
    return __libc_realloc(ptr, size);
}

EXPORT void *memalign(size_t alignment, size_t size)
{
    note_allocation(__builtin_return_address(0));
    return __libc_memalign(alignment, size);
}

EXPORT int posix_memalign(void **out, size_t alignment, size_t size)
{
    if (alignment % sizeof(void *) || (alignment & (alignment - 1)))
        return EINVAL;
    note_allocation(__builtin_return_address(0));
    void *p = __libc_memalign(alignment, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

EXPORT void *aligned_alloc(size_t alignment, size_t size)
{
    note_allocation(__builtin_return_address(0));
    return __libc_memalign(alignment, size);
}

EXPORT void free(void *ptr)
{
    __libc_free(ptr);
}
