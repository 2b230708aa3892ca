/* SPDX-License-Identifier: MIT */
/* Private declarations of the core layer (glcollide/core): logging, checked
 * allocation, growable arrays, scratch, sorting, the clock, vector helpers.
 * Every other layer builds on it; it names none of them. */
#ifndef GLCOLLIDE_INTERNAL_H
#define GLCOLLIDE_INTERNAL_H

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define GLCOLLIDE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GLCOLLIDE_PRINTF(f, a)
#endif

/* Logging (glcollide_log is public: the ODE plugin logs through it too). */
#define glcollide_log_error(...) glcollide_log(GLCOLLIDE_LOG_ERROR, __VA_ARGS__)
#define glcollide_log_warning(...) glcollide_log(GLCOLLIDE_LOG_WARNING, __VA_ARGS__)
#define glcollide_log_info(...) glcollide_log(GLCOLLIDE_LOG_INFO, __VA_ARGS__)
#define glcollide_log_debug(...) glcollide_log(GLCOLLIDE_LOG_DEBUG, __VA_ARGS__)

/* Text put before every message this thread logs until it is set back
 * (NULL: none); the string must outlive that. Returns the previous one. */
const char *glcollide_log_set_prefix(const char *prefix);

/* Logs the message at error level and returns status, for `return glcollide_fail(...)`. */
int glcollide_fail(int status, const char *format, ...) GLCOLLIDE_PRINTF(2, 3);

/* Monotonic clock in milliseconds. */
double glcollide_now_ms(void);

/* glcollide_workers_run, where the calling thread first runs tasks alone
 * for up to serial_ms and wakes the workers only for what is left then: a
 * job that may be a few microseconds of work (a small pair's descent) costs
 * no wake-up, a long one loses at most serial_ms of sharing. */
int glcollide_workers_run_after(size_t count, int max_threads, double serial_ms,
                                glcollide_task_fn fn, void *user);

/* glcollide_workers_run_after for a job of a chain (the stages of one
 * large pair's call, a few hundred microseconds apart): its workers look
 * for the next job for a while before they park, where waking them would
 * cost more than most stages. A job run once a step (the ODE space's pairs
 * computed ahead) does not linger: its workers park at once, as between
 * steps. */
int glcollide_workers_run_chain(size_t count, int max_threads, double serial_ms,
                                glcollide_task_fn fn, void *user);

/* Overflow-checked allocation of count * size bytes; NULL on overflow or failure. */
void *glcollide_alloc_array(size_t count, size_t size);
void *glcollide_realloc_array(void *ptr, size_t count, size_t size);
char *glcollide_strdup(const char *s);

/*
 * Grows *array (room for *capacity items of size bytes) to hold at least
 * count items, geometrically, so that repeated growth is amortised and a
 * warm caller allocates nothing. On failure logs "<what>: out of memory for
 * N items" and returns GLCOLLIDE_ERROR_OUT_OF_MEMORY, leaving the array as
 * it was.
 */
int glcollide_array_reserve(void **array, size_t *capacity, size_t count, size_t size,
                            const char *what);

/* Bytes kept between calls, grown when a call needs more, never shrunk
 * (zero-initialise; release frees them). The byte store of
 * glcollide_scratch, and of the world and the methods' caches. */
typedef struct glcollide_workspace {
    void *memory;
    size_t bytes;
} glcollide_workspace;
void glcollide_workspace_release(glcollide_workspace *workspace);

/* A higher layer's part of a glcollide_scratch (the contact generators'):
 * made by that layer on first use, released through release, so that the
 * core, which frees the scratch, names no layer above it. */
typedef struct glcollide_scratch_part {
    void *memory;
    void (*release)(void *memory);
} glcollide_scratch_part;

/* The public scratch (glcollide_scratch_create): sweep-and-prune's bytes and
 * the contact generators' parts, each made on first need. */
struct glcollide_scratch {
    glcollide_workspace workspace;
    glcollide_scratch_part contacts, primitives;
};

/* The workspace of scratch, or NULL for a NULL scratch (the call then
 * allocates its own). */
static inline glcollide_workspace *glcollide_scratch_workspace(glcollide_scratch *scratch)
{
    return scratch ? &scratch->workspace : NULL;
}

/* Scratch of bytes: the workspace's block (grown) or, without a workspace, a
 * block of its own in *own that the caller frees. NULL when out of memory. */
/* qsort's contract without its heap use (glibc's qsort mallocs a merge
 * buffer above 1 KiB): heapsort, not stable, deterministic, O(n log n). For
 * the paths that must not allocate once warm. */
void glcollide_sort(void *base, size_t count, size_t size,
                    int (*compare)(const void *, const void *));
void *glcollide_workspace_get(glcollide_workspace *workspace, size_t bytes, void **own);

/* Counting sort: turns counts[0..n) per bucket into each bucket's first slot. */
static inline void glcollide_counts_to_offsets(size_t *counts, size_t n)
{
    size_t sum = 0;
    for (size_t d = 0; d < n; d++) {
        size_t count = counts[d];
        counts[d] = sum;
        sum += count;
    }
}

/* The larger and the smaller of an accumulator and a value: what fmax and
 * fmin give for finite values, without their calls into libm (NaN and
 * signed-zero rules). A NaN x leaves acc as it is, as fmax would. */
static inline double glcollide_larger(double acc, double x)
{
    return x > acc ? x : acc;
}
static inline double glcollide_smaller(double acc, double x)
{
    return x < acc ? x : acc;
}

/* t clamped to [0, 1]; NaN gives 0 (a parameter from a degenerate division
 * picks the segment's start, never a NaN point). */
static inline double glcollide_clamp01(double t)
{
    return t > 0.0 ? (t < 1.0 ? t : 1.0) : 0.0;
}

/* A 64-bit finaliser (MurmurHash3's fmix64): every input bit reaches every
 * output bit, so masked low bits serve as hash-table slots. */
static inline uint64_t glcollide_mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

/* Vector helpers on double[3]. */
static inline void glcollide_vec3_sub(double out[3], const double a[3], const double b[3])
{
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
}
static inline double glcollide_vec3_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void glcollide_vec3_cross(double out[3], const double a[3], const double b[3])
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}
/* Scales v to unit length when it is not zero; returns its length before. */
static inline double glcollide_vec3_normalise(double v[3])
{
    double n = sqrt(glcollide_vec3_dot(v, v));
    if (n > 0)
        for (int k = 0; k < 3; k++)
            v[k] /= n;
    return n;
}

#endif /* GLCOLLIDE_INTERNAL_H */
