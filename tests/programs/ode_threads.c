/* SPDX-License-Identifier: MIT */
/*
 * A plain ODE program that knows nothing of glcollide: independent worlds on
 * separate threads, as people running many environments at once do (one
 * world, space and contact group per thread, dAllocateODEDataForThread as
 * ODE asks, and a stepping implementation of its own: ODE's default is one
 * for the whole process). Each world: trimesh cubes and icosahedra fall onto a trimesh
 * slab, boxes, spheres and capsules onto a plane beside them.
 *
 * Usage: ode-threads THREADS [STEPS]. THREADS = 0 runs one world on the main
 * thread; N runs N copies of it at once. Prints one block per world (its
 * pair and contact counts, every body's final position to the last bit);
 * every block must equal the world run alone.
 *
 * Debian's ODE 0.16.2 is built without ODE_EXT_mt_collisions: its own
 * trimesh colliders share one cache and must not run on two threads at once
 * (without the preload, two threads crash in OPCODE's trimesh-trimesh test).
 * glcollide's trimesh-trimesh collider may; category bits keep trimeshes and
 * primitives apart here, so only trimesh-trimesh pairs (glcollide's) and
 * primitive pairs (stateless in ODE) reach dCollide.
 */
#define _POSIX_C_SOURCE 200809L
#include "programs/ode_demo.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BODIES 24
#define MAX_CONTACTS 8
#define TRIMESH_BITS 1u
#define PRIMITIVE_BITS 2u

static dReal cube_vertices[8 * 3], ico_vertices[12 * 3], slab_vertices[8 * 3];
static dTriIndex cube_indices[36], ico_indices[60], slab_indices[36];

typedef struct world_run {
    int steps;
    dWorldID world;
    dJointGroupID contacts;
    unsigned long pairs, contact_count;
    char report[BODIES * 96 + 128];
} world_run;

static void near_callback(void *data, dGeomID o1, dGeomID o2)
{
    world_run *run = data;
    run->pairs++;
    int n = ode_demo_contact_joints(run->world, run->contacts, o1, o2, MAX_CONTACTS, 0.7, 0);
    run->contact_count += (unsigned long)n;
}

static void set_bits(dGeomID g, unsigned long bits)
{
    dGeomSetCategoryBits(g, bits);
    dGeomSetCollideBits(g, bits);
}

/* One world from start to end; its report written into run->report. */
static void run_world(world_run *run)
{
    run->world = dWorldCreate();
    /* ODE's default stepping implementation is one for the whole process:
     * each world on its own thread needs its own. */
    dThreadingImplementationID threading = dThreadingAllocateSelfThreadedImplementation();
    dWorldSetStepThreadingImplementation(
        run->world, dThreadingImplementationGetFunctions(threading), threading);
    dWorldSetGravity(run->world, 0, 0, -9.81);
    dWorldSetCFM(run->world, 1e-5);
    dSpaceID space = dSimpleSpaceCreate(NULL);
    run->contacts = dJointGroupCreate(0);
    set_bits(dCreatePlane(space, 0, 0, 1, 0), PRIMITIVE_BITS);
    dTriMeshDataID cube = dGeomTriMeshDataCreate(), ico = dGeomTriMeshDataCreate(),
                   slab = dGeomTriMeshDataCreate();
    ode_demo_build_trimesh(cube, cube_vertices, 8, cube_indices, 36);
    ode_demo_build_trimesh(ico, ico_vertices, 12, ico_indices, 60);
    ode_demo_build_trimesh(slab, slab_vertices, 8, slab_indices, 36);
    dGeomID floor = dCreateTriMesh(space, slab, NULL, NULL, NULL);
    dGeomSetPosition(floor, -1.5, 0, -0.1);
    set_bits(floor, TRIMESH_BITS);
    dBodyID bodies[BODIES];
    unsigned state = 7;
    for (int i = 0; i < BODIES; i++) {
        double x = ode_demo_random(&state) - 0.5, y = 1.6 * ode_demo_random(&state) - 0.8;
        int trimesh = i % 2 == 0;
        bodies[i] = dBodyCreate(run->world);
        dBodySetPosition(bodies[i], trimesh ? x - 1.5 : x + 1.0, y, 0.5 + 0.2 * i);
        dMass mass;
        static const ode_demo_shape shapes[6] = {ODE_DEMO_CUBE_MESH, ODE_DEMO_BOX,
                                                 ODE_DEMO_ICO_MESH,  ODE_DEMO_SPHERE,
                                                 ODE_DEMO_CUBE_MESH, ODE_DEMO_CAPSULE};
        dGeomID g = ode_demo_create(space, shapes[i % 6], cube, ico, &mass);
        set_bits(g, trimesh ? TRIMESH_BITS : PRIMITIVE_BITS);
        dBodySetMass(bodies[i], &mass);
        dGeomSetBody(g, bodies[i]);
        dMatrix3 r;
        dRFromAxisAndAngle(r, x, y, 1, 0.3 * i);
        dBodySetRotation(bodies[i], r);
    }
    for (int s = 0; s < run->steps; s++) {
        dSpaceCollide(space, run, near_callback);
        /* dWorldStep: QuickStep shuffles constraints with ODE's one random
         * seed for the whole process, so its results depend on other threads. */
        dWorldStep(run->world, 0.01);
        dJointGroupEmpty(run->contacts);
    }
    size_t used = (size_t)snprintf(run->report, sizeof run->report, "pairs %lu contacts %lu\n",
                                   run->pairs, run->contact_count);
    for (int i = 0; i < BODIES && used < sizeof run->report; i++) {
        const dReal *p = dBodyGetPosition(bodies[i]);
        used += (size_t)snprintf(run->report + used, sizeof run->report - used,
                                 "body %d %.17g %.17g %.17g\n", i, p[0], p[1], p[2]);
    }
    dJointGroupDestroy(run->contacts);
    dSpaceDestroy(space);
    dGeomTriMeshDataDestroy(cube);
    dGeomTriMeshDataDestroy(ico);
    dGeomTriMeshDataDestroy(slab);
    dWorldDestroy(run->world);
    dThreadingFreeImplementation(threading);
}

static pthread_barrier_t start_together;

static void *thread_main(void *arg)
{
    dAllocateODEDataForThread(dAllocateMaskAll);
    pthread_barrier_wait(&start_together);
    run_world(arg);
    dCleanupODEAllDataForThread();
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    int steps = argc > 2 ? atoi(argv[2]) : 300;
    if (threads < 0 || threads > 64 || steps < 1) {
        fprintf(stderr, "usage: ode-threads THREADS [STEPS]\n");
        return 2;
    }
    dInitODE2(0);
    ode_demo_box_arrays(0.25, 0.25, 0.25, cube_vertices, cube_indices);
    ode_demo_icosahedron_arrays(0.3, ico_vertices, ico_indices);
    ode_demo_box_arrays(1.0, 1.0, 0.1, slab_vertices, slab_indices);
    int worlds = threads ? threads : 1;
    world_run *runs = calloc((size_t)worlds, sizeof *runs);
    pthread_t *ids = calloc((size_t)worlds, sizeof *ids);
    if (!runs || !ids)
        return 1;
    for (int t = 0; t < worlds; t++)
        runs[t].steps = steps;
    if (threads == 0) {
        dAllocateODEDataForThread(dAllocateMaskAll);
        run_world(&runs[0]);
    } else {
        pthread_barrier_init(&start_together, NULL, (unsigned)threads);
        for (int t = 0; t < threads; t++)
            if (pthread_create(&ids[t], NULL, thread_main, &runs[t]) != 0)
                return 1;
        for (int t = 0; t < threads; t++)
            pthread_join(ids[t], NULL);
        pthread_barrier_destroy(&start_together);
    }
    for (int t = 0; t < worlds; t++)
        printf("world %d\n%s", t, runs[t].report);
    free(runs);
    free(ids);
    dCloseODE();
    return 0;
}
