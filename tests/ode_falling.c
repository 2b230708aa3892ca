/* SPDX-License-Identifier: MIT */
/*
 * A plain ODE program that knows nothing of glcollide: boxes, spheres,
 * capsules and trimesh cubes and icosahedra fall into a walled bin and settle,
 * headless, in the style of ODE's own demos. Linked to libode only; the
 * preload test runs it with and without LD_PRELOAD=libglcollide-ode-preload.so.
 * Usage: ode-falling [objects] [steps] [simple|hash]. Prints the total number
 * of near-callback pairs and contacts, then one line per body with its final
 * position and speed, then a summary line.
 */
#include <ode/ode.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONTACTS 16

static dWorldID world;
static dJointGroupID contact_group;
static unsigned long pairs_seen, contacts_made;

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
    dContact contacts[MAX_CONTACTS];
    int n = dCollide(o1, o2, MAX_CONTACTS, &contacts[0].geom, sizeof contacts[0]);
    for (int i = 0; i < n; i++) {
        contacts[i].surface.mode = dContactBounce | dContactSoftCFM;
        contacts[i].surface.mu = 0.8;
        contacts[i].surface.bounce = 0.1;
        contacts[i].surface.bounce_vel = 0.1;
        contacts[i].surface.soft_cfm = 0.001;
        dJointID joint = dJointCreateContact(world, contact_group, &contacts[i]);
        dJointAttach(joint, b1, b2);
    }
    contacts_made += (unsigned long)n;
}

/* Trimesh data kept alive for the whole run, as ODE requires. */
static dReal cube_vertices[8 * 3];
static dTriIndex cube_indices[36];
static dReal ico_vertices[12 * 3];
static dTriIndex ico_indices[60];

/* Vertices packed three dReals apiece (dGeomTriMeshDataBuildSimple wants dVector3s). */
static void build_trimesh(dTriMeshDataID data, const dReal *vertices, int vertex_count,
                          const dTriIndex *indices, int index_count)
{
#ifdef dDOUBLE
    dGeomTriMeshDataBuildDouble(data, vertices, 3 * sizeof(dReal), vertex_count, indices,
                                index_count, 3 * sizeof(dTriIndex));
#else
    dGeomTriMeshDataBuildSingle(data, vertices, 3 * sizeof(dReal), vertex_count, indices,
                                index_count, 3 * sizeof(dTriIndex));
#endif
}

static void make_meshes(void)
{
    static const int faces[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                     {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
    for (int v = 0; v < 8; v++) {
        cube_vertices[3 * v + 0] = (v == 1 || v == 2 || v == 5 || v == 6) ? 0.25 : -0.25;
        cube_vertices[3 * v + 1] = (v == 2 || v == 3 || v == 6 || v == 7) ? 0.25 : -0.25;
        cube_vertices[3 * v + 2] = v >= 4 ? 0.25 : -0.25;
    }
    for (int f = 0; f < 12; f++)
        for (int c = 0; c < 3; c++)
            cube_indices[3 * f + c] = (dTriIndex)faces[f][c];
    const double t = (1 + sqrt(5.0)) / 2, s = 0.3 / sqrt(1 + t * t);
    const double v[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                             {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    static const int ico[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                   {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                   {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                   {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    for (int i = 0; i < 12; i++)
        for (int k = 0; k < 3; k++)
            ico_vertices[3 * i + k] = v[i][k] * s;
    for (int f = 0; f < 20; f++)
        for (int c = 0; c < 3; c++)
            ico_indices[3 * f + c] = (dTriIndex)ico[f][c];
}

int main(int argc, char **argv)
{
    int objects = argc > 1 ? atoi(argv[1]) : 40;
    int steps = argc > 2 ? atoi(argv[2]) : 600;
    int hash = argc > 3 && strcmp(argv[3], "hash") == 0;
    if (objects < 1 || steps < 1) {
        fprintf(stderr, "usage: ode-falling [objects] [steps] [simple|hash]\n");
        return 2;
    }
    dInitODE2(0);
    world = dWorldCreate();
    dWorldSetGravity(world, 0, 0, -9.81);
    dWorldSetCFM(world, 1e-5);
    dWorldSetContactSurfaceLayer(world, 0.001);
    dSpaceID space = hash ? dHashSpaceCreate(NULL) : dSimpleSpaceCreate(NULL);
    contact_group = dJointGroupCreate(0);
    dCreatePlane(space, 0, 0, 1, 0);
    /* bin walls */
    dCreatePlane(space, 1, 0, 0, -1.5);
    dCreatePlane(space, -1, 0, 0, -1.5);
    dCreatePlane(space, 0, 1, 0, -1.5);
    dCreatePlane(space, 0, -1, 0, -1.5);
    make_meshes();
    dTriMeshDataID cube = dGeomTriMeshDataCreate(), ico = dGeomTriMeshDataCreate();
    build_trimesh(cube, cube_vertices, 8, cube_indices, 36);
    build_trimesh(ico, ico_vertices, 12, ico_indices, 60);

    dBodyID *bodies = calloc((size_t)objects, sizeof *bodies);
    unsigned state = 12345;
    for (int i = 0; i < objects; i++) {
        state = state * 1103515245u + 12345u;
        double x = ((state >> 8) % 1000) / 1000.0 * 2.0 - 1.0;
        state = state * 1103515245u + 12345u;
        double y = ((state >> 8) % 1000) / 1000.0 * 2.0 - 1.0;
        bodies[i] = dBodyCreate(world);
        dBodySetPosition(bodies[i], x, y, 0.5 + 0.25 * i);
        dMass mass;
        dGeomID g;
        switch (i % 5) {
        case 0: g = dCreateBox(space, 0.4, 0.3, 0.2); dMassSetBox(&mass, 1, 0.4, 0.3, 0.2); break;
        case 1: g = dCreateSphere(space, 0.2); dMassSetSphere(&mass, 1, 0.2); break;
        case 2: g = dCreateCapsule(space, 0.1, 0.3); dMassSetCapsule(&mass, 1, 3, 0.1, 0.3); break;
        case 3: g = dCreateTriMesh(space, cube, NULL, NULL, NULL); dMassSetBox(&mass, 1, 0.5, 0.5, 0.5); break;
        default: g = dCreateTriMesh(space, ico, NULL, NULL, NULL); dMassSetSphere(&mass, 1, 0.3); break;
        }
        dBodySetMass(bodies[i], &mass);
        dGeomSetBody(g, bodies[i]);
        dMatrix3 r;
        dRFromAxisAndAngle(r, x, y, 1, 0.3 * i);
        dBodySetRotation(bodies[i], r);
    }
    for (int s = 0; s < steps; s++) {
        dSpaceCollide(space, NULL, near_callback);
        dWorldQuickStep(world, 0.01);
        dJointGroupEmpty(contact_group);
    }
    printf("pairs %lu contacts %lu\n", pairs_seen, contacts_made);
    double min_z = INFINITY, max_speed = 0;
    for (int i = 0; i < objects; i++) {
        const dReal *p = dBodyGetPosition(bodies[i]), *v = dBodyGetLinearVel(bodies[i]);
        double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        printf("body %d %.6f %.6f %.6f speed %.6f\n", i, p[0], p[1], p[2], speed);
        min_z = fmin(min_z, p[2]);
        max_speed = fmax(max_speed, speed);
    }
    printf("settled min_z %.6f max_speed %.6f\n", min_z, max_speed);
    dJointGroupDestroy(contact_group);
    dSpaceDestroy(space);
    dGeomTriMeshDataDestroy(cube);
    dGeomTriMeshDataDestroy(ico);
    dWorldDestroy(world);
    free(bodies);
    dCloseODE();
    return 0;
}
