/* SPDX-License-Identifier: MIT */
/* A cube falls onto a table, both triangle meshes: glcollide's space and
 * contacts. cc example.c $(pkg-config --cflags --libs glcollide-ode) */
#include <glcollide/ode.h>

#include <stdio.h>

/* Two boxes' corners (a 1 m cube, a 4 x 4 x 0.2 m table), one triangle list. */
static const double cube[8][3] = {{-.5, -.5, -.5}, {.5, -.5, -.5}, {.5, .5, -.5}, {-.5, .5, -.5},
                                  {-.5, -.5, .5},  {.5, -.5, .5},  {.5, .5, .5},  {-.5, .5, .5}};
static const double table[8][3] = {{-2, -2, -.1}, {2, -2, -.1}, {2, 2, -.1}, {-2, 2, -.1},
                                   {-2, -2, .1},  {2, -2, .1},  {2, 2, .1},  {-2, 2, .1}};
static const dTriIndex triangles[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7},
                                           {0, 1, 5}, {0, 5, 4}, {1, 2, 6}, {1, 6, 5},
                                           {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};

static dWorldID world;
static dJointGroupID contacts;

static void near_callback(void *data, dGeomID o1, dGeomID o2)
{
    (void)data;
    dContact contact[8];
    int n = dCollide(o1, o2, 8, &contact[0].geom, sizeof contact[0]);
    for (int i = 0; i < n; i++) {
        contact[i].surface.mode = dContactSoftCFM;
        contact[i].surface.mu = 0.5;
        contact[i].surface.soft_cfm = 1e-4;
        dJointID joint = dJointCreateContact(world, contacts, &contact[i]);
        dJointAttach(joint, dGeomGetBody(o1), dGeomGetBody(o2));
    }
}

/* A trimesh data from the arrays; glcollide is given them too (exact vertices). */
static dTriMeshDataID trimesh_data(const double corners[8][3])
{
    dTriMeshDataID data = dGeomTriMeshDataCreate();
    dGeomTriMeshDataBuildDouble(data, corners, sizeof corners[0], 8, triangles, 36,
                                sizeof triangles[0]);
    glcollide_ode_trimesh_data_build_double(data, corners, sizeof corners[0], 8, triangles, 36,
                                            sizeof triangles[0]);
    return data;
}

int main(void)
{
    dInitODE2(0);
    glcollide_ode_init();
    world = dWorldCreate();
    dWorldSetGravity(world, 0, 0, -9.81);
    dSpaceID space = glcollide_ode_space_create(NULL); /* or any ODE space */
    contacts = dJointGroupCreate(0);

    dTriMeshDataID table_data = trimesh_data(table), cube_data = trimesh_data(cube);
    dCreateTriMesh(space, table_data, NULL, NULL, NULL); /* no body: static */
    dGeomID falling = dCreateTriMesh(space, cube_data, NULL, NULL, NULL);
    dBodyID body = dBodyCreate(world);
    dMass mass;
    dMassSetBox(&mass, 1, 1, 1, 1);
    dBodySetMass(body, &mass);
    dGeomSetBody(falling, body);
    dBodySetPosition(body, 0.2, 0.1, 2);
    dMatrix3 tilt;
    dRFromAxisAndAngle(tilt, 1, 1, 0, 0.3);
    dBodySetRotation(body, tilt);

    for (int step = 0; step < 300; step++) {
        glcollide_ode_space_collide(space, NULL, near_callback); /* was dSpaceCollide */
        dWorldQuickStep(world, 0.01);
        dJointGroupEmpty(contacts);
    }
    double z = dBodyGetPosition(body)[2];
    printf("the cube rests on the table at z = %.3f (0.6 expected)\n", z);

    dJointGroupDestroy(contacts);
    dSpaceDestroy(space);
    glcollide_ode_trimesh_data_forget(table_data); /* before ODE destroys it */
    glcollide_ode_trimesh_data_forget(cube_data);
    dGeomTriMeshDataDestroy(table_data);
    dGeomTriMeshDataDestroy(cube_data);
    dWorldDestroy(world);
    glcollide_ode_shutdown();
    dCloseODE();
    return z > 0.55 && z < 0.65 ? 0 : 1;
}
