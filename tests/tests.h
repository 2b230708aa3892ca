/* SPDX-License-Identifier: MIT */
/* The Check suites of glcollide, one per file, run by tests/main.c. */
#ifndef GLCOLLIDE_TESTS_H
#define GLCOLLIDE_TESTS_H

#include <check.h>
#include <stdint.h>

Suite *suite_mesh_io(void);
Suite *suite_mesh_validate(void);
Suite *suite_predicates(void);
Suite *suite_tritri(void);
Suite *suite_sap(void);
Suite *suite_bvh(void);
Suite *suite_point_in_mesh(void);
Suite *suite_context(void);
Suite *suite_scene(void);
Suite *suite_query(void);

/* Deterministic random numbers for randomized tests (splitmix64): seeds are
 * fixed in each test and printed on failure, so every run is reproducible. */
typedef struct test_rng {
    uint64_t state;
} test_rng;

static inline uint64_t test_rng_next(test_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static inline double test_rng_uniform(test_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * (double)(test_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform integer in [0, n). */
static inline uint32_t test_rng_below(test_rng *rng, uint32_t n)
{
    return (uint32_t)(test_rng_next(rng) % n);
}

/* Path of a data mesh (libcgal-demo, extracted by tests/cgal-meshes.sh);
 * fails the test (never skips) when the mesh cache is missing. */
const char *test_data_mesh(const char *file_name);

/* Writes text into a fresh temporary file with the given suffix; returns its
 * path (static buffer per call site is not needed: caller frees). */
char *test_write_temp(const char *suffix, const void *data, size_t size);

#endif
