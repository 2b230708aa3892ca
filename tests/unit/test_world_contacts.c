/* SPDX-License-Identifier: MIT */
/*
 * glcollide_world_contacts held to the pipeline it stands for, built here
 * from the public pieces: both meshes' object-space BVHs, the candidates of
 * glcollide_bvh_overlap_posed for the two poses, the two whole meshes
 * placed in world space, glcollide_contacts_generate on them, and
 * glcollide_contacts_containment where that found nothing. The contacts must
 * be the same bit for bit (positions, normals, depths, triangles, regions)
 * on random meshes and poses, on two interpenetrating bunnies, for every
 * buffer size; a box inside a box gets the containment contacts; the
 * arguments are checked word for word.
 */
#include "helpers/tests.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_CONTACTS = 256 };

static int collect(uint32_t a, uint32_t b, void *user)
{
    ck_assert_int_eq(glcollide_pair_list_push(user, a, b), GLCOLLIDE_OK);
    return 0;
}

/* The pipeline by hand: *count contacts of mesh a at pose_a against b. */
static void reference_contacts(const glcollide_mesh *a, const glcollide_pose *pose_a,
                               const glcollide_mesh *b, const glcollide_pose *pose_b,
                               size_t max_contacts, glcollide_contact *contacts, size_t *count)
{
    const glcollide_mesh *meshes[2] = {a, b};
    const glcollide_pose *poses[2] = {pose_a, pose_b};
    glcollide_bvh *bvh[2] = {NULL, NULL};
    double *placed[2];
    glcollide_contact_solid solid[2];
    for (int i = 0; i < 2; i++) {
        const glcollide_mesh *m = meshes[i];
        ck_assert_int_eq(glcollide_bvh_create(m, &bvh[i]), GLCOLLIDE_OK);
        placed[i] = malloc(3 * m->vertex_count * sizeof(double) + 1);
        glcollide_pose_transform_points(poses[i], m->positions, m->vertex_count, placed[i]);
        glcollide_mesh_report report;
        ck_assert_int_eq(glcollide_mesh_validate(m, &report), GLCOLLIDE_OK);
        solid[i] = (glcollide_contact_solid){m, bvh[i], *poses[i], report.closed};
    }
    glcollide_pair_list candidates = {0};
    glcollide_bvh_overlap_posed(bvh[0], pose_a, bvh[1], pose_b, 0.0, collect, &candidates);
    const glcollide_mesh wa = {placed[0], a->triangles, a->vertex_count, a->triangle_count, NULL},
                         wb = {placed[1], b->triangles, b->vertex_count, b->triangle_count, NULL};
    ck_assert_int_eq(glcollide_contacts_generate(&wa, &wb, candidates.pairs, candidates.count, NULL,
                                                 contacts, max_contacts, count, NULL),
                     GLCOLLIDE_OK);
    if (*count == 0 && (solid[0].closed || solid[1].closed))
        ck_assert_int_eq(glcollide_contacts_containment(&solid[0], &solid[1], NULL, contacts,
                                                        max_contacts, count),
                         GLCOLLIDE_OK);
    glcollide_pair_list_clear(&candidates);
    for (int i = 0; i < 2; i++) {
        glcollide_bvh_destroy(&bvh[i]);
        free(placed[i]);
    }
}

/* Objects 0 and 1 of world against the reference, at several buffer sizes;
 * returns the contact count at the largest. */
static size_t check_pair(glcollide_world *world, const glcollide_mesh *a, const glcollide_mesh *b,
                         const char *what)
{
    static const size_t sizes[] = {MAX_CONTACTS, 64, 4, 1};
    size_t first_count = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        glcollide_contact got[MAX_CONTACTS], want[MAX_CONTACTS];
        memset(got, 0, sizeof got);
        memset(want, 0, sizeof want);
        size_t got_count = 99, want_count = 0;
        ck_assert_int_eq(glcollide_world_contacts(world, 0, 1, sizes[s], got, &got_count),
                         GLCOLLIDE_OK);
        reference_contacts(a, &glcollide_world_object(world, 0)->pose, b,
                           &glcollide_world_object(world, 1)->pose, sizes[s], want, &want_count);
        TEST_REQUIRE(got_count == want_count, "%s, room %zu: %zu contacts, the pipeline %zu", what,
                     sizes[s], got_count, want_count);
        TEST_REQUIRE(memcmp(got, want, got_count * sizeof *got) == 0,
                     "%s, room %zu: contacts differ from the pipeline's", what, sizes[s]);
        if (s == 0)
            first_count = got_count;
    }
    return first_count;
}

static glcollide_world *world_of(const glcollide_mesh *a, const glcollide_mesh *b)
{
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, a, NULL), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, b, NULL), GLCOLLIDE_OK);
    return world;
}

START_TEST(test_world_contacts_random)
{
    test_rng rng = {0xC0A7AC75u};
    size_t touching = 0, trials = 120;
    for (size_t trial = 0; trial < trials; trial++) {
        glcollide_mesh *a = test_random_mesh(&rng, 1.0), *b = test_random_mesh(&rng, 1.0);
        glcollide_world *world = world_of(a, b);
        double t[3], q[4];
        for (int o = 0; o < 2; o++) {
            for (int k = 0; k < 3; k++)
                t[k] = o ? test_rng_uniform(&rng, -1.5, 1.5) : 0.0;
            test_rng_quaternion(&rng, q);
            ck_assert_int_eq(glcollide_world_add_object(world, (uint32_t)o, t, q, NULL),
                             GLCOLLIDE_OK);
        }
        char what[64];
        snprintf(what, sizeof what, "trial %zu", trial);
        touching += check_pair(world, a, b, what) > 0;
        /* Moved: the world's boxes and scratch follow. */
        test_rng_quaternion(&rng, q);
        t[0] *= 0.5;
        ck_assert_int_eq(glcollide_world_set_pose(world, 1, t, q), GLCOLLIDE_OK);
        touching += check_pair(world, a, b, what) > 0;
        glcollide_world_destroy(&world);
        glcollide_mesh_destroy(&a);
        glcollide_mesh_destroy(&b);
    }
    /* Both kinds of pair were met. */
    ck_assert_uint_gt(touching, trials / 4);
    ck_assert_uint_lt(touching, 2 * trials);
}
END_TEST

START_TEST(test_world_contacts_bunnies)
{
    glcollide_world *scene = NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/scenes/bunnies.scene", GLCOLLIDE_SRCDIR);
    test_data_mesh("bunny00.off");
    ck_assert_int_eq(glcollide_world_load(path, &scene), GLCOLLIDE_OK);
    const glcollide_mesh *bunny = glcollide_world_mesh(scene, 0);
    glcollide_world *world = world_of(bunny, bunny);
    for (uint32_t o = 0; o < 2; o++) {
        const glcollide_pose *pose = &glcollide_world_object(scene, o)->pose;
        ck_assert_int_eq(
            glcollide_world_add_object(world, o, pose->translation, pose->rotation, NULL),
            GLCOLLIDE_OK);
    }
    ck_assert_uint_gt(check_pair(world, bunny, bunny, "bunnies"), 0);
    glcollide_world_destroy(&world);
    glcollide_world_destroy(&scene);
}
END_TEST

START_TEST(test_world_contacts_containment)
{
    glcollide_mesh *big = NULL, *small = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 1, 1, &big), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.2, 0.2, 0.2, &small), GLCOLLIDE_OK);
    glcollide_world *world = world_of(small, big);
    const double inside[3] = {0.5, 0.1, 0}, apart[3] = {3, 0, 0}, origin[3] = {0, 0, 0};
    const double identity[4] = {1, 0, 0, 0};
    ck_assert_int_eq(glcollide_world_add_object(world, 0, inside, identity, NULL), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_object(world, 1, origin, identity, NULL), GLCOLLIDE_OK);
    size_t count = check_pair(world, small, big, "small box inside");
    ck_assert_uint_eq(count, 4);
    glcollide_contact contacts[8];
    ck_assert_int_eq(glcollide_world_contacts(world, 0, 1, 8, contacts, &count), GLCOLLIDE_OK);
    /* Pushed out the shortest way, along +x, until its trailing face (at
     * x = 0.3) passes the big box's face at x = 1. */
    ck_assert_double_eq(contacts[0].normal[0], 1.0);
    ck_assert_double_eq_tol(contacts[0].depth, 0.7, 1e-12);
    ck_assert_int_eq(glcollide_world_set_pose(world, 0, apart, identity), GLCOLLIDE_OK);
    ck_assert_uint_eq(check_pair(world, small, big, "apart"), 0);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&big);
    glcollide_mesh_destroy(&small);
}
END_TEST

START_TEST(test_world_contacts_arguments)
{
    glcollide_mesh *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 1, 1, &box), GLCOLLIDE_OK);
    glcollide_world *world = world_of(box, box);
    const double t[3] = {0, 0, 0}, identity[4] = {1, 0, 0, 0};
    ck_assert_int_eq(glcollide_world_add_object(world, 0, t, identity, NULL), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_object(world, 1, t, identity, NULL), GLCOLLIDE_OK);
    glcollide_contact contacts[4];
    size_t count = 7;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    TEST_ASSERT_FAILED(glcollide_world_contacts(world, 0, 2, 4, contacts, &count),
                       GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "world: contacts: no object 2 (2 objects)");
    ck_assert_uint_eq(count, 0);
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    TEST_ASSERT_FAILED(glcollide_world_contacts(world, 1, 1, 4, contacts, &count),
                       GLCOLLIDE_ERROR_INVALID_ARGUMENT, "world: contacts: object 1 with itself");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    TEST_ASSERT_FAILED(glcollide_world_contacts(world, 0, 1, 4, NULL, &count),
                       GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "world: contacts: contacts is NULL with max_contacts 4");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    TEST_ASSERT_FAILED(glcollide_world_contacts(NULL, 0, 1, 4, contacts, &count),
                       GLCOLLIDE_ERROR_INVALID_ARGUMENT, "world: contacts: world is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    TEST_ASSERT_FAILED(glcollide_world_contacts(world, 0, 1, 4, contacts, NULL),
                       GLCOLLIDE_ERROR_INVALID_ARGUMENT, "world: contacts: count is NULL");
    test_log_capture_stop();
    /* No room asked: nothing written, no error. */
    ck_assert_int_eq(glcollide_world_contacts(world, 0, 1, 0, NULL, &count), GLCOLLIDE_OK);
    ck_assert_uint_eq(count, 0);
    glcollide_world_destroy(&world);
    glcollide_mesh_destroy(&box);
}
END_TEST

Suite *suite_world_contacts(void)
{
    Suite *s = suite_create("world_contacts");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_world_contacts_random);
    tcase_add_test(tc, test_world_contacts_bunnies);
    tcase_add_test(tc, test_world_contacts_containment);
    tcase_add_test(tc, test_world_contacts_arguments);
    suite_add_tcase(s, tc);
    return s;
}
