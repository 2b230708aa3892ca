/* SPDX-License-Identifier: MIT */
/*
 * Bad input, as a user hands it over: files that are not regular files,
 * bytes a text file should not hold, numbers at the edge of double. Each
 * case is answered right or refused with one message, checked word for word.
 */
#define _GNU_SOURCE
#include "helpers/tests.h"

#include "gpu/gl_internal.h" /* white box: a context reporting small GL limits */

#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A temporary directory with cube.off (a unit cube, glcollide_mesh_save_off)
 * and whatever a test writes into it; removed by bad_dir_remove. */
typedef struct bad_dir {
    char path[256];
    char files[8][64];
    int file_count;
} bad_dir;

static void bad_dir_path(const bad_dir *dir, const char *name, char *out, size_t size)
{
    snprintf(out, size, "%s/%s", dir->path, name);
}

static void bad_dir_remember(bad_dir *dir, const char *name)
{
    ck_assert_int_lt(dir->file_count, 8);
    snprintf(dir->files[dir->file_count++], sizeof dir->files[0], "%s", name);
}

static void bad_dir_write(bad_dir *dir, const char *name, const void *data, size_t size)
{
    char path[512];
    bad_dir_path(dir, name, path, sizeof path);
    FILE *file = fopen(path, "wb");
    ck_assert_ptr_nonnull(file);
    ck_assert_uint_eq(fwrite(data, 1, size, file), size);
    ck_assert_int_eq(fclose(file), 0);
    bad_dir_remember(dir, name);
}

static void bad_dir_text(bad_dir *dir, const char *name, const char *text)
{
    bad_dir_write(dir, name, text, strlen(text));
}

static void bad_dir_create(bad_dir *dir)
{
    memset(dir, 0, sizeof *dir);
    const char *tmp = getenv("TMPDIR");
    snprintf(dir->path, sizeof dir->path, "%s/glcollide-badXXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir->path));
    glcollide_mesh *cube = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.5, 0.5, &cube), GLCOLLIDE_OK);
    char path[512];
    bad_dir_path(dir, "cube.off", path, sizeof path);
    ck_assert_int_eq(glcollide_mesh_save_off(cube, path), GLCOLLIDE_OK);
    glcollide_mesh_destroy(&cube);
    bad_dir_remember(dir, "cube.off");
}

static void bad_dir_remove(bad_dir *dir)
{
    for (int i = 0; i < dir->file_count; i++) {
        char path[512];
        bad_dir_path(dir, dir->files[i], path, sizeof path);
        unlink(path);
    }
    rmdir(dir->path);
}

/* Loads the scene file name of dir, expecting status and one message
 * (printf format; %1$s is the directory). */
static void expect_scene_failure(const bad_dir *dir, const char *name, int status,
                                 const char *format)
{
    char path[512], expected[1024];
    bad_dir_path(dir, name, path, sizeof path);
    snprintf(expected, sizeof expected, format, dir->path);
    test_scene *scene = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    int got = scene_load(path, &scene);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(got, status, expected);
    ck_assert_ptr_null(scene);
}

static test_scene *load_scene(const bad_dir *dir, const char *name)
{
    char path[512];
    bad_dir_path(dir, name, path, sizeof path);
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_load(path, &scene), GLCOLLIDE_OK);
    return scene;
}

START_TEST(test_dev_zero)
{
    /* Once: memory grew without bound, then exit 0 with no message. */
    test_scene *scene = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    int status = scene_load("/dev/zero", &scene);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_IO,
                       "scene /dev/zero: is a character device; only regular files are read");
    glcollide_mesh *mesh = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    status = glcollide_mesh_load("/dev/zero", 1.0, &mesh);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_IO,
                       "/dev/zero: is a character device; only regular files are read");
    test_log_capture_stop();
    ck_assert_ptr_null(mesh);

    bad_dir dir;
    bad_dir_create(&dir);
    bad_dir_text(&dir, "zero.scene", "mesh /dev/zero\n");
    expect_scene_failure(&dir, "zero.scene", GLCOLLIDE_ERROR_IO,
                         "%s/zero.scene:1: /dev/zero: is a character device; only regular files "
                         "are read");
    bad_dir_remove(&dir);
}
END_TEST

START_TEST(test_fifo)
{
    /* Once: hung forever, waiting for a writer. */
    bad_dir dir;
    bad_dir_create(&dir);
    char fifo[512], text[600];
    bad_dir_path(&dir, "fifo", fifo, sizeof fifo);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    bad_dir_remember(&dir, "fifo");
    expect_scene_failure(&dir, "fifo", GLCOLLIDE_ERROR_IO,
                         "scene %s/fifo: is a FIFO; only regular files are read");
    int n = snprintf(text, sizeof text, "mesh %s\n", fifo);
    bad_dir_write(&dir, "absolute.scene", text, (size_t)n);
    expect_scene_failure(
        &dir, "absolute.scene", GLCOLLIDE_ERROR_IO,
        "%1$s/absolute.scene:1: %1$s/fifo: is a FIFO; only regular files are read");
    bad_dir_text(&dir, "relative.scene", "mesh fifo\n");
    expect_scene_failure(
        &dir, "relative.scene", GLCOLLIDE_ERROR_IO,
        "%1$s/relative.scene:1: %1$s/fifo: is a FIFO; only regular files are read");
    bad_dir_remove(&dir);
}
END_TEST

START_TEST(test_directory)
{
    /* Once: "read error" with no reason. */
    bad_dir dir;
    bad_dir_create(&dir);
    char path[512];
    bad_dir_path(&dir, ".", path, sizeof path);
    expect_scene_failure(&dir, ".", GLCOLLIDE_ERROR_IO,
                         "scene %s/.: is a directory; only regular files are read");
    bad_dir_text(&dir, "dir.scene", "mesh .\n");
    expect_scene_failure(&dir, "dir.scene", GLCOLLIDE_ERROR_IO,
                         "%1$s/dir.scene:1: %1$s/.: is a directory; only regular files are read");
    glcollide_mesh *mesh = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    int status = glcollide_mesh_load(dir.path, 1.0, &mesh);
    test_log_capture_stop();
    char expected[600];
    snprintf(expected, sizeof expected, "%s: is a directory; only regular files are read",
             dir.path);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_IO, expected);
    bad_dir_remove(&dir);
}
END_TEST

/* A file of a case: name and bytes (NUL bytes included). */
typedef struct bad_file {
    const char *name;
    const char *data;
    size_t size;
} bad_file;
#define BAD_FILE(name, text)                                                                       \
    {                                                                                              \
        name, text, sizeof text - 1                                                                \
    }

/* Scenes (the first file) with the status and one message they must give;
 * %1$s is the directory. */
static const struct {
    bad_file files[2];
    int status;
    const char *message;
} bad_scenes[] = {
    /* Once: the rest of the line was ignored and the scene loaded. */
    {{BAD_FILE("nul.scene", "mesh cube.off\nobject 0 0 0 0 1 0 0 0\0 junk\n")},
     GLCOLLIDE_ERROR_PARSE,
     "%1$s/nul.scene:2: NUL byte (a scene file is text)"},
    /* In a mesh path, where C strings would cut it short. */
    {{BAD_FILE("nul-path.scene", "mesh cube.off\0.obj\n")},
     GLCOLLIDE_ERROR_PARSE,
     "%1$s/nul-path.scene:1: NUL byte (a scene file is text)"},
    /* A byte order mark is skipped at the start only: elsewhere it is a bad token. */
    {{BAD_FILE("late.scene", "mesh cube.off\n\xef\xbb\xbfobject 0 0 0 0 1 0 0 0\n")},
     GLCOLLIDE_ERROR_PARSE,
     "%1$s/late.scene:2: unknown statement '???object' (expected mesh or object)"},
    /* Once: "'1e-320' is not a finite number". It is finite (subnormal): the
     * scene reads it, and the mesh loader refuses coordinates that the scale
     * pushes below the normal range of double, where few bits remain. */
    {{BAD_FILE("tiny.scene", "mesh cube.off scale 1e-320\n")},
     GLCOLLIDE_ERROR_INVALID_MESH,
     "%1$s/tiny.scene:1: %1$s/cube.off:3: coordinate -0.5 underflows when scaled (below the "
     "normal double range)"},
    /* Once: the mesh's message, then "mesh X could not be loaded (see above)". */
    {{BAD_FILE("short.scene", "# a cut mesh\nmesh short.off\n"),
      BAD_FILE("short.off", "OFF\n8 12 0\n0 0 0\n1 0 0\n")},
     GLCOLLIDE_ERROR_PARSE,
     "%1$s/short.scene:2: %1$s/short.off:4: file ends after 2 of 8 vertices"},
    /* Once: two messages (the data mesh search's, then the scene's). */
    {{BAD_FILE("missing.scene", "mesh sub/none-such.off scale 2\n")},
     GLCOLLIDE_ERROR_IO,
     "%1$s/missing.scene:1: mesh sub/none-such.off not found next to the scene nor in %1$s, "
     "%1$s/glcollide/meshes (run tests/cgal-meshes.sh for libcgal-demo's meshes)"},
};

START_TEST(test_bad_scene)
{
    bad_dir dir;
    bad_dir_create(&dir);
    for (int f = 0; f < 2 && bad_scenes[_i].files[f].name; f++)
        bad_dir_write(&dir, bad_scenes[_i].files[f].name, bad_scenes[_i].files[f].data,
                      bad_scenes[_i].files[f].size);
    /* The data mesh search looks here only (Check runs each test in its own
     * process: the environment is ours). */
    setenv("GLCOLLIDE_MESH_DIR", dir.path, 1);
    setenv("XDG_CACHE_HOME", dir.path, 1);
    expect_scene_failure(&dir, bad_scenes[_i].files[0].name, bad_scenes[_i].status,
                         bad_scenes[_i].message);
    bad_dir_remove(&dir);
}
END_TEST

START_TEST(test_accepted)
{
    /* Once: "unknown statement '\xef\xbb\xbfmesh'". A UTF-8 byte order mark
     * is not content, in scenes and in text meshes alike. */
    static const bad_file bom[] = {
        BAD_FILE("bom.scene", "\xef\xbb\xbfmesh bom.off\nobject 0 0 0 0 1 0 0 0\n"),
        BAD_FILE("bom.off", "\xef\xbb\xbfOFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"),
        /* A subnormal scale of large coordinates keeps them normal: fine. */
        BAD_FILE("big.scene", "mesh big.off scale 1e-320\nobject 0 0 0 0 1 0 0 0\n"),
        BAD_FILE("big.off", "OFF\n3 1 0\n0 0 0\n1e300 0 0\n0 1e300 0\n3 0 1 2\n"),
    };
    bad_dir dir;
    bad_dir_create(&dir);
    for (int f = 0; f < 4; f++)
        bad_dir_write(&dir, bom[f].name, bom[f].data, bom[f].size);
    for (int f = 0; f < 4; f += 2) {
        test_scene *scene = load_scene(&dir, bom[f].name);
        ck_assert_uint_eq(scene->mesh_count, 1);
        ck_assert_uint_eq(scene->object_count, 1);
        ck_assert_uint_eq(scene->meshes[0]->triangle_count, 1);
        ck_assert(scene->meshes[0]->positions[3] == (f ? 1e300 * 1e-320 : 1.0));
        scene_destroy(&scene);
    }
    bad_dir_remove(&dir);
}
END_TEST

/* ---------------------------------------------------------------- GL limits */

/* Two overlapping unit cubes. */
static test_scene *two_cubes(void)
{
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *cube = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.5, 0.5, &cube), GLCOLLIDE_OK);
    uint32_t mesh = test_scene_add_mesh(scene, cube);
    const double q[4] = {1, 0, 0, 0}, t0[3] = {0, 0, 0}, t1[3] = {0.5, 0, 0};
    test_scene_add_object(scene, mesh, t0, q);
    test_scene_add_object(scene, mesh, t1, q);
    return scene;
}

START_TEST(test_resolution_cap)
{
    /* Once: --resolution 16384 was accepted, then ran for minutes in 3 to
     * 7.5 GB on llvmpipe. The budget comes from the environment here so
     * that the message is the same on every machine. */
    setenv("GLCOLLIDE_GL_MEMORY", "1024", 1);
    glcollide_context *context = NULL;
    ck_assert_msg(glcollide_context_create_egl(&context) == GLCOLLIDE_OK,
                  "no headless EGL context: the resolution cap test needs one");
    const glcollide_gl_caps *caps = glcollide_context_caps(context);
    ck_assert_uint_eq(caps->memory_budget, 1u << 30);
    ck_assert_int_ge(caps->max_resolution, 1024);
    static const struct {
        glcollide_method method;
        int status;
        const char *message;
    } cases[] = {
        {GLCOLLIDE_METHOD_FAR, GLCOLLIDE_ERROR_LIMIT,
         "far: resolution 16384 needs 3.0 GiB of GL memory (12 bytes per pixel), over the budget "
         "of 1.0 GiB (GLCOLLIDE_GL_MEMORY); at most 9459"},
        {GLCOLLIDE_METHOD_CULLIDE, GLCOLLIDE_ERROR_LIMIT,
         "cullide: resolution 16384 needs 3.0 GiB of GL memory (12 bytes per pixel), over the "
         "budget of 1.0 GiB (GLCOLLIDE_GL_MEMORY); at most 9459"},
        {GLCOLLIDE_METHOD_STENCIL, GLCOLLIDE_ERROR_LIMIT,
         "stencil: resolution 16384 needs 8.0 GiB of GL memory (32 bytes per pixel), over the "
         "budget of 1.0 GiB (GLCOLLIDE_GL_MEMORY); at most 5792"},
        {GLCOLLIDE_METHOD_CONVEX, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
         "query: method 'convex' takes resolutions up to 4096, got 16384"},
    };
    test_scene *scene = two_cubes();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        glcollide_query_options options = glcollide_query_default_options();
        options.method = cases[i].method;
        options.resolution = 16384;
        glcollide_query_result result;
        test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
        int status = scene_query(scene, context, &options, &result);
        test_log_capture_stop();
        TEST_ASSERT_FAILED(status, cases[i].status, cases[i].message);
    }
    /* Myszkowski's own entry counts the words of its map and refinement too. */
    glcollide_myszkowski *tester = NULL;
    ck_assert_int_eq(glcollide_myszkowski_create(context, &tester), GLCOLLIDE_OK);
    glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
    options.resolution = 4096;
    options.refine = 1;
    glcollide_myszkowski_map map;
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    int status = scene_myszkowski_map(tester, scene, 0, 1, &options, &map);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_LIMIT,
                       "myszkowski: resolution 4096 needs 1.1 GiB of GL memory (68 bytes per "
                       "pixel), over the budget of 1.0 GiB (GLCOLLIDE_GL_MEMORY); at most 3973");
    glcollide_myszkowski_destroy(&tester);
    scene_destroy(&scene);
    glcollide_context_destroy(&context);
}
END_TEST

START_TEST(test_resolution_gl_limit)
{
    /* The GL's own limits, on a context that reports a small one (white box:
     * no driver here has one below the CLI's 16384). */
    glcollide_context fake;
    memset(&fake, 0, sizeof fake);
    fake.caps.max_resolution = 8192;
    snprintf(fake.caps.renderer, sizeof fake.caps.renderer, "a small GPU");
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    int status = glcollide_context_check_resolution(&fake, "stencil", 16384, 28);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_LIMIT,
                       "stencil: resolution 16384 is above this GL's largest framebuffer side, "
                       "8192 (a small GPU)");
    /* No budget known: only the GL's limits count. */
    ck_assert_int_eq(glcollide_context_check_resolution(&fake, "stencil", 8192, 28), GLCOLLIDE_OK);
}
END_TEST

/* ---------------------------------------------------------------- scales */

static glcollide_context *context;

static void context_setup(void)
{
    if (!context)
        ck_assert_msg(glcollide_context_create_egl(&context) == GLCOLLIDE_OK,
                      "no headless EGL context: the scale tests need one");
}

static void context_teardown(void)
{
    glcollide_context_destroy(&context);
}

/* Scales from near the bottom of double to near its top, past float's
 * range both ways (1e-40 is subnormal in float, 3e38 and up overflow it). */
static const double scales[] = {1e-300, 1e-110, 1e-40, 1e17, 3e38, 1e39, 1e110, 1e300};

/* Cubes of half side s (and s / 4): one inside another, partial overlaps
 * (one turned by 45 degrees; no faces in one plane, where the stencil
 * method's samples would all lie on the other's surface), and a pair
 * 1.75 s apart. */
static test_scene *scaled_scene(double s)
{
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *big = NULL, *small = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(s, s, s, &big), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(s / 4, s / 4, s / 4, &small), GLCOLLIDE_OK);
    uint32_t meshes[2] = {test_scene_add_mesh(scene, big), test_scene_add_mesh(scene, small)};
    static const struct {
        int mesh;
        double x, y;
        int turned;
        double z;
    } objects[] = {{0, 0, 0, 0, 0},    {1, 0.1, 0, 0, 0}, {0, 1.5, 0.2, 0, 0.1}, {0, 10, 0.3, 1, 0},
                   {0, 11.2, 0, 0, 0}, {1, 30, 0, 0, 0},  {0, 33, 0, 0, 0}};
    const double identity[4] = {1, 0, 0, 0},
                 turned[4] = {0.9238795325112867, 0, 0, 0.3826834323650898};
    for (size_t i = 0; i < sizeof objects / sizeof objects[0]; i++) {
        const double t[3] = {objects[i].x * s, objects[i].y * s, objects[i].z * s};
        test_scene_add_object(scene, meshes[objects[i].mesh], t,
                              objects[i].turned ? turned : identity);
    }
    return scene;
}

static glcollide_query_result run_method(const test_scene *scene, glcollide_method method,
                                         glcollide_level level, double distance)
{
    return test_run_query(scene, context, method, level, 256, distance);
}

/* Every pair (and triangle pair) of inner is in outer; equal: and no more pairs. */
static void expect_pairs(const glcollide_query_result *inner, const glcollide_query_result *outer,
                         int equal, const char *what, double s)
{
    for (size_t i = 0; i < inner->pair_count; i++)
        ck_assert_msg(bsearch(&inner->pairs[i], outer->pairs, outer->pair_count,
                              sizeof *outer->pairs, glcollide_index_pair_compare),
                      "scale %g: %s loses pair %u %u", s, what, inner->pairs[i].a,
                      inner->pairs[i].b);
    for (size_t i = 0; i < inner->triangle_pair_count; i++)
        ck_assert_msg(bsearch(&inner->triangle_pairs[i], outer->triangle_pairs,
                              outer->triangle_pair_count, sizeof *outer->triangle_pairs,
                              glcollide_triangle_pair_compare),
                      "scale %g: %s loses a triangle pair", s, what);
    if (equal)
        ck_assert_msg(inner->pair_count == outer->pair_count,
                      "scale %g: %s reports %zu pairs, exact %zu", s, what, outer->pair_count,
                      inner->pair_count);
}

START_TEST(test_extreme_scales)
{
    /* Once: far lost every pair from 1e38 on (float overflow), stencil from
     * 3e38, convex from 1e17 (the pose's rotation lost in the translation's
     * rounding) and below 1e-38 (float underflow); exact lost containment
     * at 1e-110 (the signed volume underflowed: "not a closed solid"). Each
     * method must agree with exact (stencil, convex) or keep every pair it
     * finds (sap, far, cullide), and exact must answer as at scale 1. */
    context_setup();
    double s = scales[_i];
    test_scene *unit = scaled_scene(1.0), *scene = scaled_scene(s);
    const glcollide_index_pair touching[] = {{0, 1}, {0, 2}, {3, 4}};
    glcollide_query_result exact =
        run_method(scene, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_OBJECTS, 0);
    ck_assert_uint_eq(exact.pair_count, 3);
    ck_assert_mem_eq(exact.pairs, touching, sizeof touching);
    for (glcollide_method m = GLCOLLIDE_METHOD_SAP; m <= GLCOLLIDE_METHOD_CONVEX; m++) {
        glcollide_query_result found = run_method(scene, m, GLCOLLIDE_LEVEL_OBJECTS, 0);
        expect_pairs(&exact, &found, m >= GLCOLLIDE_METHOD_STENCIL, glcollide_method_name(m), s);
        glcollide_query_result_clear(&found);
    }
    /* Triangles within 2 s: the pair 1.75 s apart joins; far keeps every
     * triangle pair exact finds, and exact finds those of scale 1. */
    glcollide_query_result near =
        run_method(scene, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_TRIANGLES, 2 * s);
    glcollide_query_result reference =
        run_method(unit, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_TRIANGLES, 2);
    ck_assert_uint_eq(near.pair_count, 5);
    expect_pairs(&reference, &near, 1, "exact", s);
    expect_pairs(&near, &reference, 1, "exact at scale 1", s);
    glcollide_query_result far =
        run_method(scene, GLCOLLIDE_METHOD_FAR, GLCOLLIDE_LEVEL_TRIANGLES, 2 * s);
    expect_pairs(&near, &far, 0, "far", s);
    glcollide_query_result_clear(&far);
    glcollide_query_result_clear(&reference);
    glcollide_query_result_clear(&near);
    glcollide_query_result_clear(&exact);
    scene_destroy(&scene);
    scene_destroy(&unit);
}
END_TEST

START_TEST(test_distance_past_float)
{
    /* Once: far --distance 1e39 printed no pairs (the fattening radius
     * overflowed float). Every pair is within 1e39 of a unit scene.
     * (CULLIDE has no distance: it does not fatten.) */
    context_setup();
    test_scene *scene = scaled_scene(1.0);
    glcollide_query_result exact =
        run_method(scene, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_OBJECTS, 1e39);
    ck_assert_uint_eq(exact.pair_count, 21);
    const glcollide_method methods[2] = {GLCOLLIDE_METHOD_SAP, GLCOLLIDE_METHOD_FAR};
    for (int i = 0; i < 2; i++)
        for (glcollide_level level = GLCOLLIDE_LEVEL_OBJECTS; level <= GLCOLLIDE_LEVEL_TRIANGLES;
             level++) {
            /* 64^2: every fattened triangle covers the whole view */
            glcollide_query_result found =
                test_run_query(scene, context, methods[i], level, 64, 1e39);
            expect_pairs(&exact, &found, 1, glcollide_method_name(methods[i]), 1.0);
            glcollide_query_result_clear(&found);
        }
    glcollide_query_result_clear(&exact);
    scene_destroy(&scene);
}
END_TEST

/*
 * Objects far from the rest: a pair of cubes at x = 1e300 touching each
 * other and one alone at -1e300, beside the scene of test_extreme_scales.
 * Once: drawn in one view with the rest, they shrank the scene below a
 * pixel and every fattened triangle covered the whole view (3 times the
 * time of the finite scene alone at 1,024 pixels). Now they are left out
 * of the views: what is drawn, and every answer about the finite objects,
 * is what the finite scene alone gets, bit for bit; the far pair is still
 * reported (its candidates from the CPU's BVHs, every triangle pair the
 * exact path finds among them); the lone one meets nothing.
 */
START_TEST(test_far_groups)
{
    context_setup();
    test_scene *finite = scaled_scene(1.0), *scene = scaled_scene(1.0);
    glcollide_mesh *cube = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 1, 1, &cube), GLCOLLIDE_OK);
    uint32_t m = test_scene_add_mesh(scene, cube);
    const double identity[4] = {1, 0, 0, 0};
    const double far[3][3] = {{1e300, 0, 0}, {1e300, 1.5, 0.1}, {-1e300, 0, 0}};
    for (int i = 0; i < 3; i++)
        test_scene_add_object(scene, m, far[i], identity);
    const uint32_t first_far = 7;
    for (glcollide_level level = GLCOLLIDE_LEVEL_OBJECTS; level <= GLCOLLIDE_LEVEL_TRIANGLES;
         level++) {
        glcollide_query_result exact = run_method(scene, GLCOLLIDE_METHOD_EXACT, level, 0);
        const glcollide_index_pair far_pair = {first_far, first_far + 1};
        ck_assert_uint_eq(exact.pair_count, 4);
        ck_assert_mem_eq(&exact.pairs[3], &far_pair, sizeof far_pair);
        for (glcollide_method method = GLCOLLIDE_METHOD_CULLIDE; method <= GLCOLLIDE_METHOD_FAR;
             method++) {
            const char *name = glcollide_method_name(method);
            glcollide_query_result alone = run_method(finite, method, level, 0);
            glcollide_query_result found = run_method(scene, method, level, 0);
            /* FAR keeps what exact finds: the pairs at object level (the
             * contained cube's pair is an object-level answer), the
             * triangle pairs at triangle level. */
            glcollide_query_result kept = exact;
            if (level == GLCOLLIDE_LEVEL_TRIANGLES)
                kept.pair_count = 0;
            if (method == GLCOLLIDE_METHOD_FAR)
                expect_pairs(&kept, &found, 0, name, 1.0);
            ck_assert_msg(found.stats.draw_calls == alone.stats.draw_calls &&
                              found.stats.triangles_rasterized == alone.stats.triangles_rasterized,
                          "%s: %llu draws, %llu triangles rasterized; the finite scene alone %llu, "
                          "%llu",
                          name, (unsigned long long)found.stats.draw_calls,
                          (unsigned long long)found.stats.triangles_rasterized,
                          (unsigned long long)alone.stats.draw_calls,
                          (unsigned long long)alone.stats.triangles_rasterized);
            /* The finite objects' answers first (sorted), then the far pair's. */
            ck_assert_uint_eq(found.pair_count, alone.pair_count + 1);
            ck_assert_mem_eq(found.pairs, alone.pairs, alone.pair_count * sizeof *alone.pairs);
            ck_assert_mem_eq(&found.pairs[alone.pair_count], &far_pair, sizeof far_pair);
            ck_assert_uint_ge(found.triangle_pair_count, alone.triangle_pair_count);
            if (alone.triangle_pair_count)
                ck_assert_mem_eq(found.triangle_pairs, alone.triangle_pairs,
                                 alone.triangle_pair_count * sizeof *alone.triangle_pairs);
            for (size_t t = alone.triangle_pair_count; t < found.triangle_pair_count; t++)
                ck_assert(found.triangle_pairs[t].object_a == first_far &&
                          found.triangle_pairs[t].object_b == first_far + 1);
            glcollide_query_result_clear(&found);
            glcollide_query_result_clear(&alone);
        }
        glcollide_query_result_clear(&exact);
    }
    scene_destroy(&scene);
    scene_destroy(&finite);
}
END_TEST

/* ---------------------------------------------------------------- self-intersecting solids */

/* Pairs of result as "a-b a-b ..." for messages and comparisons. */
static void pair_text(const glcollide_index_pair *pairs, size_t count, char *out, size_t size)
{
    out[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%u-%u", i ? " " : "", pairs[i].a, pairs[i].b);
    }
}

/* exact gives expected, stencil and convex the same, far keeps them all. */
static void expect_methods(const test_scene *scene, const char *expected, const char *what)
{
    static const glcollide_method methods[] = {GLCOLLIDE_METHOD_STENCIL, GLCOLLIDE_METHOD_CONVEX,
                                               GLCOLLIDE_METHOD_FAR};
    glcollide_query_result exact =
        run_method(scene, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_OBJECTS, 0);
    char got[256];
    pair_text(exact.pairs, exact.pair_count, got, sizeof got);
    ck_assert_msg(strcmp(got, expected) == 0, "%s: exact gives \"%s\", expected \"%s\"", what, got,
                  expected);
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
        glcollide_query_result found = run_method(scene, methods[i], GLCOLLIDE_LEVEL_OBJECTS, 0);
        expect_pairs(&exact, &found, methods[i] != GLCOLLIDE_METHOD_FAR,
                     glcollide_method_name(methods[i]), 1.0);
        glcollide_query_result_clear(&found);
    }
    glcollide_query_result_clear(&exact);
}

/* mesh (object 0) and small cubes (half side 0.1) at probes. */
static test_scene *probe_scene(glcollide_mesh *mesh, const double (*probes)[3], int count)
{
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *cube = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(0.1, 0.1, 0.1, &cube), GLCOLLIDE_OK);
    uint32_t m = test_scene_add_mesh(scene, mesh), c = test_scene_add_mesh(scene, cube);
    const double q[4] = {1, 0, 0, 0}, zero[3] = {0, 0, 0};
    test_scene_add_object(scene, m, zero, q);
    for (int i = 0; i < count; i++)
        test_scene_add_object(scene, c, probes[i], q);
    return scene;
}

START_TEST(test_crossing_solids)
{
    /* Once: stencil and convex refused every closed mesh that passes
     * through itself, though both count front minus back faces, the
     * winding number. Inside is a nonzero winding number, for every method. */
    context_setup();
    const double overlap[3] = {1, 1, 1}, beside[3] = {1, 0, 0};
    /* Two boxes overlapping: in the overlap (winding 2), in one box only,
     * in the other only, outside both. */
    const double two[4][3] = {
        {0.5, 0.5, 0.5}, {1.5, 1.5, 1.5}, {-0.5, -0.5, -0.5}, {1.5, -0.5, 0.5}};
    test_scene *scene = probe_scene(test_two_boxes(overlap, 1, 0, "two boxes"), two, 4);
    expect_methods(scene, "0-1 0-2 0-3", "two boxes");
    scene_destroy(&scene);
    /* A box with an inverted one half out: beyond the cube (winding -1),
     * in the hole (0), in the cube (1), a corner beyond the cube. */
    const double hole[4][3] = {{1.25, 0, 0}, {0.75, 0, 0}, {0, 0, 0}, {1.25, 0.4, 0.35}};
    scene = probe_scene(test_two_boxes(beside, 0.5, 1, "box with a hole"), hole, 4);
    expect_methods(scene, "0-1 0-3 0-4", "box with a hole");
    /* Detection alone reads the records where windings may cancel: a cube
     * in the hole only is no interference. */
    scene->object_count = 3; /* the mesh, the cube beyond the cube and the one in the hole */
    glcollide_stencil_options options = glcollide_stencil_default_options();
    options.resolution = 256;
    options.detect_only = 1;
    glcollide_stencil_result found;
    ck_assert_int_eq(scene_stencil(scene, context, &options, &found), GLCOLLIDE_OK);
    ck_assert_int_eq(found.interference, 1);
    glcollide_stencil_result_clear(&found);
    scene->objects[1] = scene->objects[2];
    scene->object_count = 2;
    ck_assert_int_eq(scene_stencil(scene, context, &options, &found), GLCOLLIDE_OK);
    ck_assert_int_eq(found.interference, 0);
    glcollide_stencil_result_clear(&found);
    scene_destroy(&scene);
}
END_TEST

/* Does result pair objects 0 and i? */
static int pairs_with_first(const glcollide_query_result *result, uint32_t i)
{
    const glcollide_index_pair key = {0, i};
    return bsearch(&key, result->pairs, result->pair_count, sizeof key,
                   glcollide_index_pair_compare) != NULL;
}

enum { PROBES = 8 };

/* Spheres of the probes' radii plus grow as meshes 1..PROBES of scene. */
static void set_probe_radii(test_scene *scene, const double *radii, double grow)
{
    for (uint32_t i = 0; i < PROBES; i++) {
        glcollide_mesh *sphere = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_sphere(radii[i] + grow, 16, 8, &sphere),
                         GLCOLLIDE_OK);
        if (i + 1 < scene->mesh_count)
            ck_assert_int_eq(scene_replace_mesh(scene, i + 1, sphere), GLCOLLIDE_OK);
        else
            test_scene_add_mesh(scene, sphere);
    }
}

START_TEST(test_crossing_real)
{
    /* libcgal-demo's camel (20 triangle pairs through each other) and cow
     * (101), fitted to size 2, against spheres at random places: stencil and
     * convex agree with exact wherever the answer is robust (the same with
     * every sphere 0.06 smaller and larger), which their tolerances need. */
    context_setup();
    static const char *const files[] = {"camel.off", "cow.off"};
    const double q[4] = {1, 0, 0, 0}, zero[3] = {0, 0, 0};
    const double margin = 0.06;
    int robust = 0, touching = 0;
    for (int f = 0; f < 2; f++) {
        test_rng rng = {0xCA3E1000u + (uint64_t)f};
        for (int round = 0; round < 2; round++) {
            glcollide_mesh *mesh = NULL;
            ck_assert_int_eq(glcollide_mesh_load(test_data_mesh(files[f]), 1.0, &mesh),
                             GLCOLLIDE_OK);
            ck_assert_int_eq(glcollide_mesh_fit(mesh, 2.0), GLCOLLIDE_OK);
            test_scene *scene = NULL;
            ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
            test_scene_add_mesh(scene, mesh);
            test_scene_add_object(scene, 0, zero, q);
            /* Spheres that stay apart from each other even when grown. */
            double radii[PROBES], centres[PROBES][3];
            for (int i = 0; i < PROBES; i++) {
                int apart;
                do {
                    radii[i] = test_rng_uniform(&rng, 0.15, 0.3);
                    for (int k = 0; k < 3; k++)
                        centres[i][k] = test_rng_uniform(&rng, -0.8, 0.8);
                    apart = 1;
                    for (int j = 0; j < i; j++) {
                        double d2 = 0;
                        for (int k = 0; k < 3; k++)
                            d2 += (centres[i][k] - centres[j][k]) * (centres[i][k] - centres[j][k]);
                        apart &= sqrt(d2) > radii[i] + radii[j] + 3 * margin;
                    }
                } while (!apart);
            }
            set_probe_radii(scene, radii, 0);
            for (int i = 0; i < PROBES; i++)
                test_scene_add_object(scene, (uint32_t)i + 1, centres[i], q);
            glcollide_query_result results[5];
            for (int b = 0; b < 2; b++) {
                set_probe_radii(scene, radii, b ? margin : -margin);
                results[b] = run_method(scene, GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_LEVEL_OBJECTS, 0);
            }
            set_probe_radii(scene, radii, 0);
            static const glcollide_method methods[3] = {
                GLCOLLIDE_METHOD_EXACT, GLCOLLIDE_METHOD_STENCIL, GLCOLLIDE_METHOD_CONVEX};
            for (int m = 0; m < 3; m++)
                results[2 + m] = run_method(scene, methods[m], GLCOLLIDE_LEVEL_OBJECTS, 0);
            for (uint32_t i = 1; i <= PROBES; i++) {
                int small = pairs_with_first(&results[0], i),
                    big = pairs_with_first(&results[1], i);
                if (small != big)
                    continue;
                robust++;
                touching += small;
                for (int m = 0; m < 3; m++)
                    ck_assert_msg(pairs_with_first(&results[2 + m], i) == small,
                                  "%s, sphere %u (r %g at %g %g %g): %s says %d, exact %d",
                                  files[f], i, radii[i - 1], centres[i - 1][0], centres[i - 1][1],
                                  centres[i - 1][2], glcollide_method_name(methods[m]), !small,
                                  small);
            }
            for (int r = 0; r < 5; r++)
                glcollide_query_result_clear(&results[r]);
            scene_destroy(&scene);
        }
    }
    printf("crossing meshes: %d of %d sphere placements robust, %d of them touching; stencil and "
           "convex agree with exact on all\n",
           robust, 4 * PROBES, touching);
    ck_assert_int_ge(robust, 3 * PROBES);
    ck_assert_int_ge(touching, 4);
}
END_TEST

Suite *suite_bad_input(void)
{
    Suite *suite = suite_create("bad_input");
    /* Timeouts for a loaded CI machine: each case takes about a second alone. */
    TCase *files = tcase_create("files");
    tcase_set_timeout(files, 30);
    tcase_add_test(files, test_dev_zero);
    tcase_add_test(files, test_fifo);
    tcase_add_test(files, test_directory);
    tcase_add_loop_test(files, test_bad_scene, 0, (int)(sizeof bad_scenes / sizeof bad_scenes[0]));
    tcase_add_test(files, test_accepted);
    suite_add_tcase(suite, files);
    TCase *limits = tcase_create("limits");
    tcase_set_timeout(limits, 60);
    tcase_add_test(limits, test_resolution_cap);
    tcase_add_test(limits, test_resolution_gl_limit);
    suite_add_tcase(suite, limits);
    TCase *scale = tcase_create("scales");
    tcase_set_timeout(scale, 120);
    tcase_add_loop_test(scale, test_extreme_scales, 0, (int)(sizeof scales / sizeof scales[0]));
    tcase_add_test(scale, test_distance_past_float);
    tcase_add_unchecked_fixture(scale, NULL, context_teardown);
    suite_add_tcase(suite, scale);
    TCase *far = tcase_create("far groups");
    tcase_set_timeout(far, 60);
    tcase_add_test(far, test_far_groups);
    tcase_add_unchecked_fixture(far, NULL, context_teardown);
    suite_add_tcase(suite, far);
    TCase *crossing = tcase_create("self-intersecting");
    tcase_set_timeout(crossing, 120);
    tcase_add_test(crossing, test_crossing_solids);
    tcase_add_test(crossing, test_crossing_real);
    tcase_add_unchecked_fixture(crossing, NULL, context_teardown);
    suite_add_tcase(suite, crossing);
    return suite;
}
