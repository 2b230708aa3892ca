/* SPDX-License-Identifier: MIT */
/*
 * The plugin's narrow phase on worker threads: what dCollide returns with
 * contacts computed ahead is what it returns without workers, for every
 * buffer size and argument order; a forked child steps without hanging;
 * two worlds step at once on two threads, each as it does alone.
 */
#define _POSIX_C_SOURCE 200809L
#include "helpers/contact_hash.h"
#include "helpers/tests.h"
#include "ode/ode_tests.h"
#include "programs/ode_demo.h"

#include <glcollide/ode.h>

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A trimesh data made from a glcollide mesh (its arrays registered). */
typedef struct solid {
    glcollide_mesh *mesh;
    dReal *vertices;
    dTriIndex *indices;
    dTriMeshDataID data;
} solid;

static void solid_make(solid *s, glcollide_mesh *mesh)
{
    s->mesh = mesh;
    s->vertices = malloc(3 * mesh->vertex_count * sizeof *s->vertices);
    s->indices = malloc(3 * mesh->triangle_count * sizeof *s->indices);
    ck_assert(s->vertices && s->indices);
    for (size_t i = 0; i < 3 * mesh->vertex_count; i++)
        s->vertices[i] = (dReal)mesh->positions[i];
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
        s->indices[i] = (dTriIndex)mesh->triangles[i];
    s->data = dGeomTriMeshDataCreate();
    ode_demo_build_trimesh(s->data, s->vertices, (int)mesh->vertex_count, s->indices,
                           (int)(3 * mesh->triangle_count));
}

static void solid_free(solid *s)
{
    glcollide_ode_trimesh_data_forget(s->data);
    dGeomTriMeshDataDestroy(s->data);
    free(s->vertices);
    free(s->indices);
    glcollide_mesh_destroy(&s->mesh);
}

/* A scene with many contact regions: knots and tori overlapping each other
 * (trimesh-trimesh), lying across boxes, a capsule, a cylinder, a sphere and
 * the ground plane (trimesh-primitive), and two primitives that only touch
 * each other (ODE's pair, left to ODE). */
typedef struct scene {
    dSpaceID space;
    solid solids[2];
} scene;

static void scene_make(scene *sc, double shift)
{
    glcollide_mesh *knot = NULL, *torus = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_knot(2, 3, 0.5, 0.12, 120, 10, &knot), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_torus(0.5, 0.15, 40, 12, &torus), GLCOLLIDE_OK);
    solid_make(&sc->solids[0], knot);
    solid_make(&sc->solids[1], torus);
    sc->space = glcollide_ode_space_create(NULL);
    intptr_t id = 1;
    for (int i = 0; i < 6; i++) {
        dGeomID g = dCreateTriMesh(sc->space, sc->solids[i % 2].data, NULL, NULL, NULL);
        dGeomSetPosition(g, shift + 0.37 * i, 0.05 * i, 0.2 + 0.03 * i);
        dMatrix3 r;
        dRFromAxisAndAngle(r, 0.3, 1.0 - 0.1 * i, 0.5, 0.7 * i);
        dGeomSetRotation(g, r);
        dGeomSetData(g, (void *)id++);
    }
    dGeomSetData(dCreatePlane(sc->space, 0, 0, 1, 0), (void *)id++);
    dGeomID box = dCreateBox(sc->space, 0.6, 0.4, 0.3);
    dGeomSetPosition(box, shift + 0.4, 0.1, 0.3);
    dGeomSetData(box, (void *)id++);
    dGeomID capsule = dCreateCapsule(sc->space, 0.1, 0.8);
    dGeomSetPosition(capsule, shift + 1.1, 0.2, 0.25);
    dGeomSetData(capsule, (void *)id++);
    dGeomID cylinder = dCreateCylinder(sc->space, 0.2, 0.5);
    dGeomSetPosition(cylinder, shift + 1.6, 0.0, 0.3);
    dGeomSetData(cylinder, (void *)id++);
    dGeomID sphere = dCreateSphere(sc->space, 0.25);
    dGeomSetPosition(sphere, shift + 0.8, 0.3, 0.2);
    dGeomSetData(sphere, (void *)id++);
}

static void scene_free(scene *sc)
{
    dSpaceDestroy(sc->space);
    for (int i = 0; i < 2; i++)
        solid_free(&sc->solids[i]);
}

/* What a step's callback saw: every dCollide answer, hashed. */
typedef struct step_record {
    uint64_t hash;
    unsigned long calls, contacts;
} step_record;

static const int buffer_sizes[] = {1, 2, 3, 4, 5, 7, 16, 64, 300};

/* Asks each pair for several buffer sizes, in both argument orders, and
 * hashes every contact with the size asked. */
static void every_buffer(void *data, dGeomID o1, dGeomID o2)
{
    step_record *r = data;
    dContactGeom contacts[300];
    for (size_t s = 0; s < sizeof buffer_sizes / sizeof buffer_sizes[0]; s++)
        for (int order = 0; order < 2; order++) {
            int size = buffer_sizes[s];
            int n = order ? dCollide(o2, o1, size, contacts, sizeof contacts[0])
                          : dCollide(o1, o2, size, contacts, sizeof contacts[0]);
            ck_assert_int_le(n, size);
            r->hash = contact_hash_bytes(r->hash, &size, sizeof size);
            r->hash = contact_hash_bytes(r->hash, &n, sizeof n);
            for (int i = 0; i < n; i++)
                r->hash = contact_hash_add(r->hash, &contacts[i]);
            r->calls++;
            r->contacts += (unsigned long)n;
        }
}

static step_record step_scene(int threads, double shift)
{
    glcollide_ode_set_threads(threads);
    scene sc;
    scene_make(&sc, shift);
    step_record r = {CONTACT_HASH_START, 0, 0};
    glcollide_ode_space_collide(sc.space, &r, every_buffer);
    scene_free(&sc);
    return r;
}

/* dCollide gives the same contacts, bit for bit, for every buffer size and
 * both argument orders, computed ahead on 2, 3 or 8 threads or on the
 * calling thread alone; the calls in the space's order took the answers
 * computed ahead. */
START_TEST(test_ahead_every_buffer)
{
    step_record alone = step_scene(1, 0.0);
    ck_assert_uint_gt(alone.contacts, 200); /* many regions: buffers cut them */
    const int counts[] = {2, 3, 8};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        glcollide_ode_reset_stats();
        step_record r = step_scene(counts[c], 0.0);
        glcollide_ode_stats stats;
        glcollide_ode_get_stats(&stats);
        ck_assert_msg(r.hash == alone.hash && r.contacts == alone.contacts,
                      "%d threads: %lu contacts, hash %016llx; alone %lu, %016llx", counts[c],
                      r.contacts, (unsigned long long)r.hash, alone.contacts,
                      (unsigned long long)alone.hash);
        ck_assert_uint_ge(stats.ahead_pairs, 8);
        /* in the space's order, every buffer size took the answer */
        ck_assert_uint_ge(stats.ahead_served,
                          stats.ahead_pairs * (sizeof buffer_sizes / sizeof buffer_sizes[0]));
    }
    glcollide_ode_set_threads(0);
}
END_TEST

/* One large pair called directly (no space, nothing computed ahead): its
 * own call shares the descent, the triangles' preparation, the exact tests,
 * the connection of the contact curves and the regions among the threads;
 * every buffer size and both argument orders give the same contacts, bit
 * for bit, on 1, 2, 3 and 8 threads. */
START_TEST(test_large_pair_every_thread_count)
{
    glcollide_mesh *knot = NULL, *torus = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_knot(2, 3, 0.5, 0.12, 720, 24, &knot), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_torus(0.5, 0.15, 240, 48, &torus), GLCOLLIDE_OK);
    solid solids[2];
    solid_make(&solids[0], knot);
    solid_make(&solids[1], torus);
    dGeomID a = dCreateTriMesh(NULL, solids[0].data, NULL, NULL, NULL);
    dGeomID b = dCreateTriMesh(NULL, solids[1].data, NULL, NULL, NULL);
    dGeomSetPosition(b, 0.05, 0.02, 0.01);
    dMatrix3 r;
    dRFromAxisAndAngle(r, 0.3, 1.0, 0.5, 0.4);
    dGeomSetRotation(b, r);
    const int counts[] = {1, 2, 3, 8};
    step_record alone = {0, 0, 0};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        glcollide_ode_set_threads(counts[c]);
        glcollide_ode_reset_stats();
        step_record got = {CONTACT_HASH_START, 0, 0};
        every_buffer(&got, a, b);
        glcollide_ode_stats stats;
        glcollide_ode_get_stats(&stats);
        /* large enough for every stage to be shared */
        ck_assert_uint_ge(stats.candidates / got.calls, 4096);
        if (c == 0) {
            alone = got;
            ck_assert_uint_gt(alone.contacts, 100);
            continue;
        }
        ck_assert_msg(got.hash == alone.hash && got.contacts == alone.contacts,
                      "%d threads: %lu contacts, hash %016llx; 1 thread: %lu, %016llx", counts[c],
                      got.contacts, (unsigned long long)got.hash, alone.contacts,
                      (unsigned long long)alone.hash);
    }
    glcollide_ode_set_threads(0);
    dGeomDestroy(a);
    dGeomDestroy(b);
    for (int i = 0; i < 2; i++)
        solid_free(&solids[i]);
}
END_TEST

/* A pair moved between the step and the call is computed afresh, never
 * served a stale answer. */
static void move_then_collide(void *data, dGeomID o1, dGeomID o2)
{
    step_record *r = data;
    if (dGeomGetClass(o1) == dTriMeshClass && dGeomGetClass(o2) == dTriMeshClass)
        dGeomSetPosition(o1, dGeomGetPosition(o1)[0] + 0.01, dGeomGetPosition(o1)[1],
                         dGeomGetPosition(o1)[2]);
    every_buffer(r, o1, o2);
}

START_TEST(test_ahead_moved_pair)
{
    step_record r[2];
    for (int k = 0; k < 2; k++) {
        glcollide_ode_set_threads(k ? 4 : 1);
        scene sc;
        scene_make(&sc, 0.0);
        /* geoms moved inside the callback: ODE allows it on a space that
         * is not locked (glcollide's lists the geoms before calling) */
        dSpaceSetManualCleanup(sc.space, 0);
        r[k] = (step_record){CONTACT_HASH_START, 0, 0};
        glcollide_ode_space_collide(sc.space, &r[k], move_then_collide);
        scene_free(&sc);
    }
    ck_assert_msg(r[0].hash == r[1].hash, "moved pairs: different contacts with 4 threads");
    glcollide_ode_set_threads(0);
}
END_TEST

/* A child forked after the workers ran steps with workers of its own: it
 * must not hang on the parent's (they do not exist in the child). */
START_TEST(test_fork_child_steps)
{
    step_record parent = step_scene(4, 0.0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        alarm(60); /* a hang ends the child with SIGALRM */
        step_record child = step_scene(4, 0.0);
        _exit(child.hash == parent.hash ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status), "the forked child did not end by itself (signal %d)",
                  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    ck_assert_msg(WEXITSTATUS(status) == 0, "the forked child's contacts differ");
    /* and the parent's workers still serve */
    step_record again = step_scene(4, 0.0);
    ck_assert(again.hash == parent.hash);
    glcollide_ode_set_threads(0);
}
END_TEST

/* Two worlds stepping at once on two threads (4 threads each asked): each
 * gets the contacts it gets alone. */
typedef struct world_thread {
    double shift;
    step_record r;
} world_thread;

static void *step_in_thread(void *arg)
{
    world_thread *w = arg;
    dAllocateODEDataForThread(dAllocateMaskAll);
    for (int i = 0; i < 5; i++) {
        scene sc;
        scene_make(&sc, w->shift);
        step_record r = {CONTACT_HASH_START, 0, 0};
        glcollide_ode_space_collide(sc.space, &r, every_buffer);
        scene_free(&sc);
        if (i == 0)
            w->r = r;
        else if (r.hash != w->r.hash)
            w->r.hash = 0; /* differs between repeats */
    }
    dCleanupODEAllDataForThread();
    return NULL;
}

START_TEST(test_two_worlds)
{
    step_record alone[2] = {step_scene(4, 0.0), step_scene(4, 10.0)};
    world_thread w[2] = {{0.0, {0, 0, 0}}, {10.0, {0, 0, 0}}};
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, step_in_thread, &w[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < 2; i++)
        ck_assert_msg(w[i].r.hash == alone[i].hash, "world %d on its thread: other contacts", i);
    glcollide_ode_set_threads(0);
}
END_TEST

START_TEST(test_set_threads)
{
    glcollide_ode_set_threads(3);
    ck_assert_int_eq(glcollide_ode_threads(), 3);
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    glcollide_ode_set_threads(-1);
    test_log_capture_stop();
    ck_assert_int_eq(test_log_count(), 1);
    ck_assert_str_eq(
        test_log_last(),
        "ODE plugin: -1 threads is not from 0 (the library's count) to 256: unchanged");
    ck_assert_int_eq(glcollide_ode_threads(), 3);
    glcollide_ode_set_threads(0);
    ck_assert_int_eq(glcollide_ode_threads(), glcollide_workers_count());
}
END_TEST

Suite *suite_ode_threads(void)
{
    Suite *suite = suite_create("threads");
    TCase *tc = tcase_create("ahead");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_ahead_every_buffer);
    tcase_add_test(tc, test_ahead_moved_pair);
    tcase_add_test(tc, test_two_worlds);
    tcase_add_test(tc, test_set_threads);
    tcase_add_test(tc, test_large_pair_every_thread_count);
    suite_add_tcase(suite, tc);
    /* Tagged: make tsan leaves it out (ThreadSanitizer does not follow a
     * child forked from a threaded process). */
    TCase *fork = tcase_create("fork");
    tcase_set_tags(fork, "fork");
    tcase_set_timeout(fork, 120);
    tcase_add_checked_fixture(fork, setup, teardown);
    tcase_add_test(fork, test_fork_child_steps);
    suite_add_tcase(suite, fork);
    return suite;
}
