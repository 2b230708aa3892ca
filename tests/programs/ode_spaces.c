/* SPDX-License-Identifier: MIT */
/*
 * A plain ODE program that knows nothing of glcollide, in the style of ODE's
 * demo_space and demo_crash: bodies of every primitive class (and trimesh
 * cubes and icosahedra) fall onto a floor among obstacles in a nested space,
 * zero-sized geoms (a sphere of radius 0, a box with a zero side, ...) and
 * sensor balls of a geom class of the program's own (dCreateGeomClass, with
 * an aabb_test), in a space of the kind asked for.
 *
 * Usage: ode-spaces simple|hash|sap|quadtree [steps] [trimesh|primitives]
 *
 * The near callback checks the contract of ODE's spaces: no pair with a
 * zero-sized geom, no pair a sensor ball's aabb_test rejects. Prints the
 * pairs, contacts and broken-contract counts, one line per body (final
 * position and speed), then a summary line; exits 1 if the contract broke.
 */
#include "programs/ode_demo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONTACTS 8
#define BODIES 30

static dWorldID world;
static dJointGroupID contact_group;
static unsigned long pairs_seen, contacts_made, sensor_pairs, zero_sized_pairs, rejected_pairs;

static int sensor_class;

static void near_callback(void *data, dGeomID o1, dGeomID o2)
{
    if (dGeomIsSpace(o1) || dGeomIsSpace(o2)) {
        dSpaceCollide2(o1, o2, data, near_callback);
        return;
    }
    pairs_seen++;
    zero_sized_pairs += ode_demo_zero_sized(o1) || ode_demo_zero_sized(o2);
    rejected_pairs += ode_demo_sensor_rejects(o1, o2);
    if (dGeomGetClass(o1) == sensor_class || dGeomGetClass(o2) == sensor_class) {
        sensor_pairs++;
        return;
    }
    int n = ode_demo_contact_joints(world, contact_group, o1, o2, MAX_CONTACTS, 0.6, 0.2);
    contacts_made += (unsigned long)n;
}

/* ------------------------------------------------------------------ scene */

static dReal cube_vertices[8 * 3], ico_vertices[12 * 3];
static dTriIndex cube_indices[36], ico_indices[60];

static dSpaceID space_create(const char *kind)
{
    static const dVector3 centre = {0, 0, 0}, extents = {8, 8, 8};
    if (strcmp(kind, "simple") == 0)
        return dSimpleSpaceCreate(NULL);
    if (strcmp(kind, "hash") == 0)
        return dHashSpaceCreate(NULL);
    if (strcmp(kind, "sap") == 0)
        return dSweepAndPruneSpaceCreate(NULL, dSAP_AXES_XZY);
    if (strcmp(kind, "quadtree") == 0)
        return dQuadTreeSpaceCreate(NULL, centre, extents, 5);
    return NULL;
}

/* Zero-sized geoms and sensor balls on the floor, where bodies land. */
static void floor_clutter(dSpaceID space, unsigned *state)
{
    for (int i = 0; i < 12; i++) {
        double x = 2.4 * ode_demo_random(state) - 1.2, y = 2.4 * ode_demo_random(state) - 1.2;
        dGeomID g;
        switch (i % 6) {
        case 0: g = dCreateSphere(space, 0); break;
        case 1: g = dCreateBox(space, 0.4, 0.4, 0); break;
        case 2: g = dCreateCapsule(space, 0, 0.3); break;
        case 3: g = dCreateCylinder(space, 0.2, 0); break;
        default: g = ode_demo_sensor_create(space, 0.25); break;
        }
        dGeomSetPosition(g, x, y, 0.1);
    }
}

static dGeomID body_geom(dSpaceID space, int i, int trimeshes, dTriMeshDataID cube,
                         dTriMeshDataID ico, dMass *mass)
{
    switch (i % (trimeshes ? 6 : 4)) {
    case 0: dMassSetBox(mass, 1, 0.4, 0.3, 0.2); return dCreateBox(space, 0.4, 0.3, 0.2);
    case 1: dMassSetSphere(mass, 1, 0.15); return dCreateSphere(space, 0.15);
    case 2: dMassSetCapsule(mass, 1, 3, 0.1, 0.3); return dCreateCapsule(space, 0.1, 0.3);
    case 3: dMassSetCylinder(mass, 1, 3, 0.12, 0.3); return dCreateCylinder(space, 0.12, 0.3);
    case 4:
        dMassSetBox(mass, 1, 0.5, 0.5, 0.5);
        return dCreateTriMesh(space, cube, NULL, NULL, NULL);
    default: dMassSetSphere(mass, 1, 0.3); return dCreateTriMesh(space, ico, NULL, NULL, NULL);
    }
}

int main(int argc, char **argv)
{
    const char *kind = argc > 1 ? argv[1] : "simple";
    int steps = argc > 2 ? atoi(argv[2]) : 400;
    int trimeshes = !(argc > 3 && strcmp(argv[3], "primitives") == 0);
    dInitODE2(0);
    dSpaceID space = space_create(kind);
    if (!space || steps < 1) {
        fprintf(stderr,
                "usage: ode-spaces simple|hash|sap|quadtree [steps] [trimesh|primitives]\n");
        return 2;
    }
    sensor_class = ode_demo_sensor_class();
    world = dWorldCreate();
    dWorldSetGravity(world, 0, 0, -9.81);
    dWorldSetCFM(world, 1e-5);
    contact_group = dJointGroupCreate(0);
    ode_demo_bin(space, 1.5);
    /* obstacles in a nested space, as demo_basket keeps its world */
    dSpaceID obstacles = dSimpleSpaceCreate(space);
    dGeomSetPosition(dCreateBox(obstacles, 0.6, 0.6, 0.3), -0.6, 0.5, 0.15);
    dGeomSetPosition(dCreateSphere(obstacles, 0.3), 0.7, -0.4, 0.0);
    unsigned state = 2024;
    floor_clutter(space, &state);
    ode_demo_box_arrays(0.25, 0.25, 0.25, cube_vertices, cube_indices);
    ode_demo_icosahedron_arrays(0.3, ico_vertices, ico_indices);
    dTriMeshDataID cube = dGeomTriMeshDataCreate(), ico = dGeomTriMeshDataCreate();
    ode_demo_build_trimesh(cube, cube_vertices, 8, cube_indices, 36);
    ode_demo_build_trimesh(ico, ico_vertices, 12, ico_indices, 60);

    dBodyID bodies[BODIES];
    for (int i = 0; i < BODIES; i++) {
        double x = 2.2 * ode_demo_random(&state) - 1.1, y = 2.2 * ode_demo_random(&state) - 1.1;
        dMass mass;
        dGeomID g = body_geom(space, i, trimeshes, cube, ico, &mass);
        bodies[i] = ode_demo_body(world, g, &mass, x, y, 0.6 + 0.3 * i, 0.4 * i);
    }
    ode_demo_run(world, space, contact_group, steps, 0.01, near_callback, NULL);
    printf("pairs %lu contacts %lu sensor_pairs %lu zero_sized_pairs %lu rejected_pairs %lu\n",
           pairs_seen, contacts_made, sensor_pairs, zero_sized_pairs, rejected_pairs);
    ode_demo_report_bodies(bodies, BODIES, 9);
    dJointGroupDestroy(contact_group);
    dSpaceDestroy(space);
    dGeomTriMeshDataDestroy(cube);
    dGeomTriMeshDataDestroy(ico);
    dWorldDestroy(world);
    dCloseODE();
    return zero_sized_pairs || rejected_pairs ? 1 : 0;
}
