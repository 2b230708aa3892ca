/* SPDX-License-Identifier: MIT */
/* Helpers shared by the test programs (declared in tests.h). */
#define _GNU_SOURCE
#include "helpers/tests.h"

#include <glcollide/glcollide.h>

#include <epoxy/gl.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *test_data_mesh(const char *file_name)
{
    static char path[4096];
    int status = glcollide_mesh_find_data(file_name, path, sizeof path);
    ck_assert_msg(status == GLCOLLIDE_OK,
                  "data mesh %s not found: run `make meshes` (tests/cgal-meshes.sh) first", file_name);
    return path;
}

char *test_write_temp(const char *suffix, const void *data, size_t size)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + strlen(suffix) + 32;
    char *path = malloc(n);
    ck_assert_ptr_nonnull(path);
    snprintf(path, n, "%s/glcollide-testXXXXXX%s", dir, suffix);
    int fd = mkstemps(path, (int)strlen(suffix));
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, size), (ssize_t)size);
    close(fd);
    return path;
}

void test_rng_rotation(test_rng *rng, double m[9])
{
    double q[4], n2;
    do { /* rejection sampling in the unit ball of R^4 */
        n2 = 0.0;
        for (int k = 0; k < 4; k++) {
            q[k] = test_rng_uniform(rng, -1.0, 1.0);
            n2 += q[k] * q[k];
        }
    } while (n2 < 0.01 || n2 > 1.0);
    double s = 1.0 / sqrt(n2), w = q[0] * s, x = q[1] * s, y = q[2] * s, z = q[3] * s;
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                         2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                         2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    memcpy(m, r, sizeof r);
}

double test_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static struct {
    glcollide_log_level max_level;
    int count;
    char last[1024];
    char all[4096];
} logged;

static void log_capture(glcollide_log_level level, const char *message, void *user)
{
    (void)user;
    if (level > logged.max_level)
        return;
    logged.count++;
    snprintf(logged.last, sizeof logged.last, "%s", message);
    size_t n = strlen(logged.all);
    snprintf(logged.all + n, sizeof logged.all - n, "%s\n", message);
}

void test_log_capture_start(glcollide_log_level max_level)
{
    logged.max_level = max_level;
    logged.count = 0;
    logged.last[0] = '\0';
    logged.all[0] = '\0';
    glcollide_set_log_callback(log_capture, NULL);
}

void test_log_capture_stop(void)
{
    glcollide_set_log_callback(NULL, NULL);
}

int test_log_count(void)
{
    return logged.count;
}

const char *test_log_last(void)
{
    return logged.last;
}

const char *test_log_all(void)
{
    return logged.all;
}

void test_rng_quaternion(test_rng *rng, double q[4])
{
    double n;
    do {
        for (int k = 0; k < 4; k++)
            q[k] = test_rng_uniform(rng, -1, 1);
        n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (n < 0.1 || n > 1);
    for (int k = 0; k < 4; k++)
        q[k] /= n;
}

/* A thin fan of sliver triangles (aspect ~1e4), closed by a second layer. */
static glcollide_mesh *sliver_fan(test_rng *rng, double size)
{
    enum { N = 24 };
    double positions[3 * (N + 2)];
    uint32_t triangles[3 * 2 * (N - 1)];
    for (int i = 0; i < N; i++) {
        double a = 1e-4 * i;
        positions[3 * i + 0] = size * cos(a);
        positions[3 * i + 1] = size * sin(a);
        positions[3 * i + 2] = test_rng_uniform(rng, -1e-5, 1e-5) * size;
    }
    positions[3 * N + 0] = positions[3 * N + 1] = positions[3 * N + 2] = 0;
    positions[3 * N + 3] = 0, positions[3 * N + 4] = 0, positions[3 * N + 5] = 1e-4 * size;
    size_t t = 0;
    for (uint32_t i = 0; i + 1 < N; i++) {
        triangles[t++] = N, triangles[t++] = i, triangles[t++] = i + 1;
        triangles[t++] = N + 1, triangles[t++] = i + 1, triangles[t++] = i;
    }
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_create(positions, N + 2, triangles, t / 3, "sliver fan", &mesh),
                     GLCOLLIDE_OK);
    return mesh;
}

glcollide_mesh *test_random_mesh(test_rng *rng, double s)
{
    glcollide_mesh *mesh = NULL;
    int status = GLCOLLIDE_OK;
    switch (test_rng_below(rng, 6)) {
    case 0: /* thin plate: near-degenerate long triangles */
        status = glcollide_mesh_generate_box(s, 0.3 * s, 1e-3 * s, &mesh);
        break;
    case 1: status = glcollide_mesh_generate_sphere(s, 10, 6, &mesh); break;
    case 2: status = glcollide_mesh_generate_torus(s, 0.3 * s, 12, 6, &mesh); break;
    case 3: status = glcollide_mesh_generate_capsule(0.3 * s, s, 8, 2, &mesh); break;
    case 4: status = glcollide_mesh_generate_knot(2, 3, s, 0.15 * s, 36, 5, &mesh); break;
    default: mesh = sliver_fan(rng, s); break;
    }
    ck_assert_int_eq(status, GLCOLLIDE_OK);
    return mesh;
}

glcollide_mesh *test_two_boxes(const double offset[3], double half, int inverted, const char *name)
{
    glcollide_mesh *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 1, 1, &box), GLCOLLIDE_OK);
    double positions[3 * 16];
    uint32_t triangles[3 * 24];
    for (size_t v = 0; v < 8; v++)
        for (int k = 0; k < 3; k++) {
            positions[3 * v + k] = box->positions[3 * v + k];
            positions[3 * (v + 8) + k] = box->positions[3 * v + k] * half + offset[k];
        }
    for (size_t t = 0; t < 12; t++)
        for (int c = 0; c < 3; c++) {
            triangles[3 * t + c] = box->triangles[3 * t + c];
            triangles[36 + 3 * t + c] = box->triangles[3 * t + (inverted ? 2 - c : c)] + 8;
        }
    glcollide_mesh_destroy(&box);
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_create(positions, 16, triangles, 24, name, &mesh),
                     GLCOLLIDE_OK);
    return mesh;
}

void test_gl_framebuffer_create(unsigned int *framebuffer, unsigned int *renderbuffer)
{
    glGenFramebuffers(1, framebuffer);
    glGenRenderbuffers(1, renderbuffer);
    glBindRenderbuffer(GL_RENDERBUFFER, *renderbuffer);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 32, 32);
    glBindFramebuffer(GL_FRAMEBUFFER, *framebuffer);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, *renderbuffer);
}

int test_run_suites(SRunner *runner)
{
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
