/* SPDX-License-Identifier: MIT */
/*
 * glcollide_ode_space_collide2 against ODE's dSpaceCollide2: the same pairs
 * (in the same order where ODE's space is a simple one) for a space with a
 * space, a space with a geom, a space with itself, spaces at different
 * sublevels, disabled geoms on either side, shared bodies and category
 * bits; and trimesh pairs across two spaces get the contacts dCollide gives
 * them, whatever the number of threads.
 */
#define _POSIX_C_SOURCE 200809L
#include "helpers/contact_hash.h"
#include "helpers/tests.h"
#include "ode/ode_tests.h"
#include "programs/ode_demo.h"

#include <glcollide/ode.h>

#include <stdlib.h>
#include <string.h>

typedef struct pair_log {
    dGeomID (*pairs)[2];
    size_t count, capacity;
} pair_log;

static void log_pair(void *data, dGeomID a, dGeomID b)
{
    pair_log *log = data;
    if (log->count == log->capacity) {
        log->capacity = log->capacity ? 2 * log->capacity : 256;
        log->pairs = realloc(log->pairs, log->capacity * sizeof *log->pairs);
        ck_assert_ptr_nonnull(log->pairs);
    }
    log->pairs[log->count][0] = a;
    log->pairs[log->count][1] = b;
    log->count++;
}

static int compare_logged(const void *x, const void *y)
{
    const dGeomID *p = x, *q = y;
    for (int k = 0; k < 2; k++)
        if (p[k] != q[k])
            return (uintptr_t)p[k] < (uintptr_t)q[k] ? -1 : 1;
    return 0;
}

static dSpaceID make_space(int kind, dSpaceID parent)
{
    switch (kind) {
    case 0: return dSimpleSpaceCreate(parent);
    case 1: return dHashSpaceCreate(parent);
    default: return dSweepAndPruneSpaceCreate(parent, dSAP_AXES_XYZ);
    }
}

/* Random boxes, spheres and capsules, some on shared bodies, some disabled,
 * some with their own category bits. */
static void fill(test_rng *rng, dWorldID world, dSpaceID space, int count, dBodyID *shared)
{
    for (int i = 0; i < count; i++) {
        dGeomID g;
        switch (test_rng_below(rng, 3)) {
        case 0:
            g = dCreateBox(space, test_rng_uniform(rng, 0.1, 0.6), test_rng_uniform(rng, 0.1, 0.6),
                           test_rng_uniform(rng, 0.1, 0.6));
            break;
        case 1: g = dCreateSphere(space, test_rng_uniform(rng, 0.05, 0.4)); break;
        default:
            g = dCreateCapsule(space, test_rng_uniform(rng, 0.05, 0.2),
                               test_rng_uniform(rng, 0.1, 0.5));
        }
        dGeomSetPosition(g, test_rng_uniform(rng, 0, 3), test_rng_uniform(rng, 0, 3),
                         test_rng_uniform(rng, 0, 3));
        if (test_rng_below(rng, 8) == 0) {
            if (!*shared)
                *shared = dBodyCreate(world);
            dGeomSetBody(g, *shared);
        }
        if (test_rng_below(rng, 10) == 0)
            dGeomDisable(g);
        if (test_rng_below(rng, 10) == 0) {
            dGeomSetCategoryBits(g, 2);
            dGeomSetCollideBits(g, 2);
        }
    }
}

/* Both answers for (o1, o2): equal lists where exact, else equal sets. */
static void compare_collide2(dGeomID o1, dGeomID o2, int exact_order, const char *what)
{
    pair_log ode = {0}, ours = {0};
    dSpaceCollide2(o1, o2, &ode, log_pair);
    glcollide_ode_space_collide2(o1, o2, &ours, log_pair);
    TEST_REQUIRE(ode.count == ours.count, "%s: %zu pairs, ODE's %zu", what, ours.count, ode.count);
    if (!exact_order) {
        qsort(ode.pairs, ode.count, sizeof *ode.pairs, compare_logged);
        qsort(ours.pairs, ours.count, sizeof *ours.pairs, compare_logged);
    }
    for (size_t k = 0; k < ode.count; k++)
        TEST_REQUIRE(ode.pairs[k][0] == ours.pairs[k][0] && ode.pairs[k][1] == ours.pairs[k][1],
                     "%s: pair %zu differs from ODE's", what, k);
    free(ode.pairs);
    free(ours.pairs);
}

START_TEST(test_collide2_pairs)
{
    dWorldID world = dWorldCreate();
    size_t compared = 0;
    glcollide_ode_reset_stats();
    for (int scene = 0; scene < 60; scene++) {
        test_rng rng = {0xC0112000u + (uint64_t)scene};
        int kind_a = scene % 3, kind_b = (scene / 3) % 3;
        dSpaceID a = make_space(kind_a, NULL), b = make_space(kind_b, NULL);
        dBodyID shared = NULL;
        fill(&rng, world, a, 10 + (int)test_rng_below(&rng, 30), &shared);
        fill(&rng, world, b, 10 + (int)test_rng_below(&rng, 30), &shared);
        /* a space nested in b: at a lower sublevel, a geom of b's */
        dSpaceID nested = dSimpleSpaceCreate(b);
        fill(&rng, world, nested, 5, &shared);
        char what[96];
        /* ODE's order where it is dSimpleSpace's: the space collided with
         * the other's geoms (not the one iterated: the first unless it has
         * fewer geoms) is a simple one */
        int na = dSpaceGetNumGeoms(a), nb = dSpaceGetNumGeoms(b);
        snprintf(what, sizeof what, "scene %d, spaces %d and %d", scene, kind_a, kind_b);
        compare_collide2((dGeomID)a, (dGeomID)b, (na < nb ? kind_b : kind_a) == 0, what);
        compare_collide2((dGeomID)b, (dGeomID)a, (nb < na ? kind_a : kind_b) == 0, what);
        snprintf(what, sizeof what, "scene %d, a space and a geom", scene);
        dGeomID one = dSpaceGetGeom(b, 0);
        compare_collide2((dGeomID)a, one, kind_a == 0, what);
        compare_collide2(one, (dGeomID)a, kind_a == 0, what);
        snprintf(what, sizeof what, "scene %d, space with its nested space", scene);
        compare_collide2((dGeomID)b, (dGeomID)nested, kind_b == 0, what);
        snprintf(what, sizeof what, "scene %d, a space with itself", scene);
        /* glcollide's own collide: dSimpleSpace's pairs, not a hash space's */
        if (kind_a == 0)
            compare_collide2((dGeomID)a, (dGeomID)a, 1, what);
        compared += 6;
        dSpaceDestroy(a);
        dSpaceDestroy(b);
        if (shared)
            dBodyDestroy(shared);
    }
    glcollide_ode_stats stats;
    glcollide_ode_get_stats(&stats);
    printf(
        "collide2: %zu calls (%llu through glcollide's sweep, the rest ODE's), the same pairs as "
        "dSpaceCollide2\n",
        compared, stats.space_collide2s);
    /* most went through glcollide's own pairing (not all handed back to ODE) */
    ck_assert_uint_ge(stats.space_collide2s, compared / 2);
    dWorldDestroy(world);
}
END_TEST

/* Trimesh knots in one space against tori in another: the pairs' contacts
 * computed ahead are dCollide's, at every thread count, with GPU culling or
 * without (which hands on no pair without contacts: those are not hashed).
 * extra tori make the knots' space the one ODE iterates; flip passes the
 * tori's space first. */
static void hash_contacts(void *data, dGeomID o1, dGeomID o2)
{
    uint64_t *h = data;
    dContactGeom contacts[32];
    int n = dCollide(o1, o2, 32, contacts, sizeof contacts[0]);
    for (int i = 0; i < n; i++)
        *h = contact_hash_add(*h, &contacts[i]);
    if (n)
        *h = contact_hash_bytes(*h, &n, sizeof n);
}

static uint64_t knots_against_tori(int threads, int extra, int flip)
{
    glcollide_ode_set_threads(threads);
    glcollide_mesh *meshes[2] = {NULL, NULL};
    ck_assert_int_eq(glcollide_mesh_generate_knot(2, 3, 0.5, 0.12, 120, 10, &meshes[0]),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_torus(0.5, 0.15, 40, 12, &meshes[1]), GLCOLLIDE_OK);
    dTriMeshDataID data[2];
    dReal *vertices[2];
    dTriIndex *indices[2];
    for (int m = 0; m < 2; m++) {
        vertices[m] = malloc(3 * meshes[m]->vertex_count * sizeof *vertices[m]);
        indices[m] = malloc(3 * meshes[m]->triangle_count * sizeof *indices[m]);
        for (size_t i = 0; i < 3 * meshes[m]->vertex_count; i++)
            vertices[m][i] = (dReal)meshes[m]->positions[i];
        for (size_t i = 0; i < 3 * meshes[m]->triangle_count; i++)
            indices[m][i] = (dTriIndex)meshes[m]->triangles[i];
        data[m] = dGeomTriMeshDataCreate();
        ode_demo_build_trimesh(data[m], vertices[m], (int)meshes[m]->vertex_count, indices[m],
                               (int)(3 * meshes[m]->triangle_count));
    }
    dSpaceID spaces[2] = {dSimpleSpaceCreate(NULL), dHashSpaceCreate(NULL)};
    for (int i = 0; i < 8 + 2 * extra; i++) {
        if (i >= 8 && i % 2 == 0)
            continue; /* the extra geoms: tori */
        dGeomID g = dCreateTriMesh(spaces[i % 2], data[i % 2], NULL, NULL, NULL);
        dGeomSetData(g, (void *)(intptr_t)(i + 1));
        dGeomSetPosition(g, 0.3 * i, 0.05 * i, 0.02 * i);
        dMatrix3 r;
        dRFromAxisAndAngle(r, 0.3, 1.0, 0.2 * i, 0.6 * i);
        dGeomSetRotation(g, r);
    }
    uint64_t h = CONTACT_HASH_START;
    glcollide_ode_space_collide2((dGeomID)spaces[flip], (dGeomID)spaces[!flip], &h, hash_contacts);
    for (int k = 0; k < 2; k++)
        dSpaceDestroy(spaces[k]);
    for (int m = 0; m < 2; m++) {
        glcollide_ode_trimesh_data_forget(data[m]);
        dGeomTriMeshDataDestroy(data[m]);
        free(vertices[m]);
        free(indices[m]);
        glcollide_mesh_destroy(&meshes[m]);
    }
    return h;
}

START_TEST(test_collide2_contacts_ahead)
{
    uint64_t alone = knots_against_tori(1, 0, 0);
    glcollide_ode_reset_stats();
    uint64_t threaded = knots_against_tori(4, 0, 0);
    glcollide_ode_stats stats;
    glcollide_ode_get_stats(&stats);
    ck_assert_msg(threaded == alone, "contacts across two spaces differ with 4 threads");
    ck_assert_uint_gt(stats.ahead_pairs, 2);
    ck_assert_uint_ge(stats.ahead_served, stats.ahead_pairs);
    glcollide_ode_set_threads(0);
}
END_TEST

/* GPU culling across two spaces (either one iterated, either one first)
 * keeps the pairs and candidates the CPU path finds: the same contacts. */
START_TEST(test_collide2_gpu_equals_cpu)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (skip && strcmp(skip, "1") == 0)
        return;
    for (int extra = 0; extra <= 2; extra += 2)
        for (int flip = 0; flip < 2; flip++) {
            glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_NEVER);
            glcollide_ode_reset_stats();
            uint64_t cpu = knots_against_tori(2, extra, flip);
            glcollide_ode_stats stats;
            glcollide_ode_get_stats(&stats);
            unsigned long long contacts = stats.contacts;
            glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
            glcollide_ode_reset_stats();
            uint64_t gpu = knots_against_tori(2, extra, flip);
            glcollide_ode_get_stats(&stats);
            printf("collide2 on the GPU, %d extra tori, %s space first: %llu contacts, %llu "
                   "GPU queries, %llu pairs culled\n",
                   extra, flip ? "the tori's" : "the knots'", stats.contacts, stats.gpu_queries,
                   stats.culled_pairs);
            ck_assert_uint_gt(contacts, 0);
            ck_assert_uint_gt(stats.gpu_queries, 0);
            ck_assert_msg(gpu == cpu,
                          "collide2, %d extra tori, flip %d: GPU culling changes the contacts "
                          "(%llu against %llu on the CPU)",
                          extra, flip, stats.contacts, contacts);
        }
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    glcollide_ode_set_threads(0);
}
END_TEST

Suite *suite_ode_collide2(void)
{
    Suite *suite = suite_create("collide2");
    TCase *tc = tcase_create("collide2");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_collide2_pairs);
    tcase_add_test(tc, test_collide2_contacts_ahead);
    tcase_add_test(tc, test_collide2_gpu_equals_cpu);
    suite_add_tcase(suite, tc);
    return suite;
}
