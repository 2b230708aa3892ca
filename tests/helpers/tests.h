/* SPDX-License-Identifier: MIT */
/* What the test programs share: the suites' declarations, Check helpers,
 * random numbers, test meshes and scenes (tests/helpers/util.c, meshes.c). */
#ifndef GLCOLLIDE_TESTS_H
#define GLCOLLIDE_TESTS_H

#include "helpers/splitmix64.h"
#include "helpers/test_scene.h"

#include <glcollide/glcollide.h>

#include <check.h>
#include <stdint.h>

/* Every suite of the three programs (tests/unit, gpu and ode/suites.h). */
#define TEST_SUITE(name) Suite *suite_##name(void);
#include "gpu/suites.h"
#include "ode/suites.h"
#include "unit/suites.h"
#undef TEST_SUITE

/* For the mains: runs the runner's suites (CK_RUN_SUITE / CK_RUN_CASE
 * select a part, see Check's manual), frees it, and returns the program's
 * exit status. */
int test_run_suites(SRunner *runner);

/* Check's ck_assert writes to a pipe on success too (its "last passed
 * point"); in loops over thousands of cases that dominates the run time, so
 * loops use this, which only calls into Check on failure. */
#define TEST_REQUIRE(cond, ...)                                                                    \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg(__VA_ARGS__);                                                             \
    } while (0)

/* Milliseconds on the monotonic clock, for the timings the tests print. */
double test_now_ms(void);

/*
 * The library's log messages, captured instead of printed: between start and
 * stop, each message at max_level or more severe is counted and kept (the
 * last one, and all of them one a line, truncated at a few KiB); the others
 * are dropped. start clears what an earlier capture kept; stop restores the
 * default callback and keeps the capture readable.
 */
void test_log_capture_start(glcollide_log_level max_level);
void test_log_capture_stop(void);
int test_log_count(void);
const char *test_log_last(void);
const char *test_log_all(void);

/* One failure: the status and exactly one captured message, word for word. */
#define TEST_ASSERT_FAILED(status, expected_status, expected_message)                              \
    do {                                                                                           \
        ck_assert_msg((status) == (expected_status), "status %d (%s), expected %d; message: %s",   \
                      (status), glcollide_status_string(status), (expected_status),                \
                      test_log_last());                                                            \
        ck_assert_int_eq(test_log_count(), 1);                                                     \
        ck_assert_str_eq(test_log_last(), (expected_message));                                     \
    } while (0)

/* Deterministic random numbers for randomized tests (splitmix64): seeds are
 * fixed in each test and printed on failure, so every run is reproducible. */
typedef struct test_rng {
    uint64_t state;
} test_rng;

static inline uint64_t test_rng_next(test_rng *rng)
{
    return splitmix64_next(&rng->state);
}

/* Uniform in [lo, hi). */
static inline double test_rng_uniform(test_rng *rng, double lo, double hi)
{
    return splitmix64_uniform(&rng->state, lo, hi);
}

/* Uniform integer in [0, n). */
static inline uint32_t test_rng_below(test_rng *rng, uint32_t n)
{
    return (uint32_t)(test_rng_next(rng) % n);
}

/* A random rotation matrix (row-major) from a uniformly drawn unit quaternion. */
void test_rng_rotation(test_rng *rng, double m[9]);
/* A uniformly random unit quaternion (w x y z). */
void test_rng_quaternion(test_rng *rng, double q[4]);

/* A random closed test mesh of size ~s: thin plate, sphere, torus, capsule,
 * (2,3) knot, or a fan of sliver triangles (aspect ~1e4). */
glcollide_mesh *test_random_mesh(test_rng *rng, double s);

/* Adds mesh (must not be NULL) / an object to scene, failing the test on
 * any error; test_scene_add_mesh returns the index of the mesh. */
uint32_t test_scene_add_mesh(test_scene *scene, glcollide_mesh *mesh);
void test_scene_add_object(test_scene *scene, uint32_t mesh, const double t[3], const double q[4]);

/*
 * Two boxes in one closed mesh: a cube of half side 1 at the origin and one
 * of half side `half` centred at offset, its faces turned inward when
 * inverted. Where they overlap the surface passes through itself: the
 * overlap winds twice (inside by the nonzero rule), or 0 times when the
 * second is inverted (a hole), and the inverted box's part outside the
 * cube winds -1 (inside by the nonzero rule).
 */
glcollide_mesh *test_two_boxes(const double offset[3], double half, int inverted, const char *name);

/* One query (exact without the context), failing the test on any error. */
glcollide_query_result test_run_query(const test_scene *scene, glcollide_context *context,
                                      glcollide_method method, glcollide_level level,
                                      int resolution, double distance);

/*
 * The world query with pairs given (options->pairs) against the same query
 * sweeping: every third object pair of the world (apart or not) given, the
 * answer must be exactly the swept answer's pairs among them, with the same
 * triangle pairs - for CULLIDE and FAR, whose views draw only the objects
 * of the pairs, pairs among them, and (FAR) holding every exact answer
 * among them; and the four ways of giving bad pairs are refused. Returns
 * how many of the swept answer's pairs were given.
 */
size_t test_query_given_pairs(glcollide_world *world, glcollide_context *context,
                              const glcollide_query_options *options);

/* A caller's own framebuffer (a 32 x 32 RGBA8 renderbuffer), created and
 * bound in the current GL context; the caller deletes both (GLuint). */
void test_gl_framebuffer_create(unsigned int *framebuffer, unsigned int *renderbuffer);

/* Path of a data mesh (libcgal-demo, extracted by tests/cgal-meshes.sh);
 * fails the test (never skips) when the mesh cache is missing. */
const char *test_data_mesh(const char *file_name);

/* Writes text into a fresh temporary file with the given suffix; returns its
 * path (static buffer per call site is not needed: caller frees). */
char *test_write_temp(const char *suffix, const void *data, size_t size);

#endif
