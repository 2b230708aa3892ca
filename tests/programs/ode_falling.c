/* SPDX-License-Identifier: MIT */
/*
 * A plain ODE program that knows nothing of glcollide: boxes, spheres,
 * capsules and trimesh cubes and icosahedra fall into a walled bin and settle,
 * headless, in the style of ODE's own demos. Linked to libode only; the
 * preload test runs it with and without LD_PRELOAD=libglcollide-ode-preload.so.
 * Usage: ode-falling [objects] [steps] [simple|hash] [ENDING]. Prints the
 * total number of near-callback pairs and contacts, then one line per body
 * with its final position and speed, then a summary line. ENDING is how the
 * program ends, as real programs do:
 *   close    dCloseODE, then return from main (the default)
 *   exit     return from main without dCloseODE (PyODE, many games)
 *   term     killed by SIGTERM, left at its default action
 *   int      killed by SIGINT, the same
 *   handled  its own SIGTERM handler, installed after dInitODE2 only where
 *            it finds the default (as SDL does), then SIGTERM: it returns
 *            from main without dCloseODE
 *   ignored  SIGTERM ignored before dInitODE2, then SIGTERM: it must
 *            survive and return without dCloseODE
 *   nested   dInitODE2 twice, one dCloseODE before the first step and one
 *            after the last (as two collision detectors of a program, one
 *            released early, each pair their calls)
 */
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include "programs/ode_demo.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONTACTS 16

static dWorldID world;
static dJointGroupID contact_group;
static unsigned long pairs_seen, contacts_made;
static volatile sig_atomic_t terminated;

static void on_term(int sig)
{
    (void)sig;
    terminated = 1;
}

/* SDL's way: a handler only where the default is found. */
static int handle_term_if_default(void)
{
    struct sigaction now;
    if (sigaction(SIGTERM, NULL, &now) != 0 || now.sa_handler != SIG_DFL) {
        fprintf(stderr, "ode-falling: SIGTERM's action is not the default\n");
        return 0;
    }
    struct sigaction mine = {.sa_handler = on_term};
    sigemptyset(&mine.sa_mask);
    return sigaction(SIGTERM, &mine, NULL) == 0;
}

static void near_callback(void *data, dGeomID o1, dGeomID o2)
{
    (void)data;
    if (dGeomIsSpace(o1) || dGeomIsSpace(o2)) {
        dSpaceCollide2(o1, o2, data, near_callback);
        return;
    }
    pairs_seen++;
    dBodyID b1 = dGeomGetBody(o1), b2 = dGeomGetBody(o2);
    if (b1 && b2 && dAreConnectedExcluding(b1, b2, dJointTypeContact))
        return;
    int n = ode_demo_contact_joints(world, contact_group, o1, o2, MAX_CONTACTS, 0.8, 0.1);
    contacts_made += (unsigned long)n;
}

/* Trimesh data kept alive for the whole run, as ODE requires. */
static dReal cube_vertices[8 * 3];
static dTriIndex cube_indices[36];
static dReal ico_vertices[12 * 3];
static dTriIndex ico_indices[60];

int main(int argc, char **argv)
{
    int objects = argc > 1 ? atoi(argv[1]) : 40;
    int steps = argc > 2 ? atoi(argv[2]) : 600;
    int hash = argc > 3 && strcmp(argv[3], "hash") == 0;
    const char *ending = argc > 4 ? argv[4] : "close";
    static const char *const endings[] = {"close",   "exit",    "term",  "int",
                                          "handled", "ignored", "nested"};
    size_t e = 0;
    while (e < sizeof endings / sizeof endings[0] && strcmp(ending, endings[e]) != 0)
        e++;
    if (objects < 1 || steps < 1 || e == sizeof endings / sizeof endings[0]) {
        fprintf(stderr, "usage: ode-falling [objects] [steps] [simple|hash] "
                        "[close|exit|term|int|handled|ignored|nested]\n");
        return 2;
    }
    if (strcmp(ending, "ignored") == 0)
        signal(SIGTERM, SIG_IGN);
    dInitODE2(0);
    if (strcmp(ending, "nested") == 0) { /* ODE counts them: the second close ends it */
        dInitODE2(0);
        dCloseODE();
    }
    if (strcmp(ending, "handled") == 0 && !handle_term_if_default())
        return 1;
    world = dWorldCreate();
    dWorldSetGravity(world, 0, 0, -9.81);
    dWorldSetCFM(world, 1e-5);
    dWorldSetContactSurfaceLayer(world, 0.001);
    dSpaceID space = hash ? dHashSpaceCreate(NULL) : dSimpleSpaceCreate(NULL);
    contact_group = dJointGroupCreate(0);
    ode_demo_bin(space, 1.5);
    ode_demo_box_arrays(0.25, 0.25, 0.25, cube_vertices, cube_indices);
    ode_demo_icosahedron_arrays(0.3, ico_vertices, ico_indices);
    dTriMeshDataID cube = dGeomTriMeshDataCreate(), ico = dGeomTriMeshDataCreate();
    ode_demo_build_trimesh(cube, cube_vertices, 8, cube_indices, 36);
    ode_demo_build_trimesh(ico, ico_vertices, 12, ico_indices, 60);

    dBodyID *bodies = calloc((size_t)objects, sizeof *bodies);
    unsigned state = 12345;
    for (int i = 0; i < objects; i++) {
        double x = ode_demo_random(&state) * 2.0 - 1.0;
        double y = ode_demo_random(&state) * 2.0 - 1.0;
        dMass mass;
        static const ode_demo_shape shapes[5] = {ODE_DEMO_BOX, ODE_DEMO_SPHERE, ODE_DEMO_CAPSULE,
                                                 ODE_DEMO_CUBE_MESH, ODE_DEMO_ICO_MESH};
        dGeomID g = ode_demo_create(space, shapes[i % 5], cube, ico, &mass);
        bodies[i] = ode_demo_body(world, g, &mass, x, y, 0.5 + 0.25 * i, 0.3 * i);
    }
    ode_demo_run(world, space, contact_group, steps, 0.01, near_callback, NULL);
    printf("pairs %lu contacts %lu\n", pairs_seen, contacts_made);
    ode_demo_report_bodies(bodies, objects, 6);
    dJointGroupDestroy(contact_group);
    dSpaceDestroy(space);
    dGeomTriMeshDataDestroy(cube);
    dGeomTriMeshDataDestroy(ico);
    dWorldDestroy(world);
    free(bodies);
    fflush(stdout);
    if (strcmp(ending, "term") == 0 || strcmp(ending, "int") == 0)
        raise(ending[0] == 't' ? SIGTERM : SIGINT); /* not to return */
    if (strcmp(ending, "handled") == 0 || strcmp(ending, "ignored") == 0) {
        raise(SIGTERM);
        printf("%s\n", terminated ? "handled SIGTERM" : "survived SIGTERM");
    }
    if (strcmp(ending, "close") == 0 || strcmp(ending, "nested") == 0)
        dCloseODE();
    return 0;
}
