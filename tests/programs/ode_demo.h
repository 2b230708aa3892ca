/* SPDX-License-Identifier: MIT */
/*
 * Pieces shared by the plain ODE test programs (tests/ode_*.c): programs that
 * know nothing of glcollide, written as ODE's own demos are, and run with and
 * without LD_PRELOAD=libglcollide-ode-preload.so. ODE only.
 */
#ifndef GLCOLLIDE_ODE_DEMO_H
#define GLCOLLIDE_ODE_DEMO_H

#include <ode/ode.h>

#include <math.h>
#include <stdio.h>

/* Vertices packed three dReals apiece (dGeomTriMeshDataBuildSimple wants dVector3s). */
static inline void ode_demo_build_trimesh(dTriMeshDataID data, const dReal *vertices,
                                          int vertex_count, const dTriIndex *indices,
                                          int index_count)
{
#ifdef dDOUBLE
    dGeomTriMeshDataBuildDouble(data, vertices, 3 * sizeof(dReal), vertex_count, indices,
                                index_count, 3 * sizeof(dTriIndex));
#else
    dGeomTriMeshDataBuildSingle(data, vertices, 3 * sizeof(dReal), vertex_count, indices,
                                index_count, 3 * sizeof(dTriIndex));
#endif
}

/* A box of half sizes hx, hy, hz: 8 vertices, 12 triangles facing out. */
static inline void ode_demo_box_arrays(double hx, double hy, double hz, dReal vertices[24],
                                       dTriIndex indices[36])
{
    static const int faces[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7},
                                     {0, 1, 5}, {0, 5, 4}, {1, 2, 6}, {1, 6, 5},
                                     {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
    for (int v = 0; v < 8; v++) {
        vertices[3 * v + 0] = (v == 1 || v == 2 || v == 5 || v == 6) ? hx : -hx;
        vertices[3 * v + 1] = (v == 2 || v == 3 || v == 6 || v == 7) ? hy : -hy;
        vertices[3 * v + 2] = v >= 4 ? hz : -hz;
    }
    for (int f = 0; f < 12; f++)
        for (int c = 0; c < 3; c++)
            indices[3 * f + c] = (dTriIndex)faces[f][c];
}

/* An icosahedron of circumradius r: 12 vertices, 20 triangles facing out. */
static inline void ode_demo_icosahedron_arrays(double r, dReal vertices[36], dTriIndex indices[60])
{
    const double t = (1 + sqrt(5.0)) / 2, s = r / sqrt(1 + t * t);
    const double v[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                             {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                             {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    static const int faces[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                     {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                     {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                     {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    for (int i = 0; i < 12; i++)
        for (int k = 0; k < 3; k++)
            vertices[3 * i + k] = (dReal)(v[i][k] * s);
    for (int f = 0; f < 20; f++)
        for (int c = 0; c < 3; c++)
            indices[3 * f + c] = (dTriIndex)faces[f][c];
}

/* ------------------------------------------------------------ ODE's edge cases */

/*
 * A geom class of the program's own (dCreateGeomClass), as ODE users write
 * them: a sensor ball whose box is its sphere's and whose aabb_test rejects
 * the boxes the sphere does not reach. ODE's spaces call it as
 * aabb_test(ball, other, other's box) before handing a pair over. It has no
 * collider: dCollide gives no contacts.
 */
typedef struct ode_demo_sensor {
    dReal radius;
} ode_demo_sensor;

static inline dReal ode_demo_sensor_radius(dGeomID g)
{
    return ((const ode_demo_sensor *)dGeomGetClassData(g))->radius;
}

static inline void ode_demo_sensor_aabb(dGeomID g, dReal aabb[6])
{
    const dReal *p = dGeomGetPosition(g);
    for (int k = 0; k < 3; k++) {
        aabb[2 * k] = p[k] - ode_demo_sensor_radius(g);
        aabb[2 * k + 1] = p[k] + ode_demo_sensor_radius(g);
    }
}

static inline int ode_demo_sensor_aabb_test(dGeomID ball, dGeomID other, dReal aabb[6])
{
    (void)other;
    const dReal *p = dGeomGetPosition(ball);
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
        double nearest = fmax(aabb[2 * k], fmin(p[k], aabb[2 * k + 1]));
        d2 += (p[k] - nearest) * (p[k] - nearest);
    }
    return d2 <= ode_demo_sensor_radius(ball) * ode_demo_sensor_radius(ball);
}

static inline dColliderFn *ode_demo_sensor_collider(int other_class)
{
    (void)other_class;
    return NULL;
}

/* The class, made on first use (ODE allows 4 per process and never frees them). */
static inline int ode_demo_sensor_class(void)
{
    static int number = -1;
    if (number < 0) {
        dGeomClass c = {sizeof(ode_demo_sensor), ode_demo_sensor_collider, ode_demo_sensor_aabb,
                        ode_demo_sensor_aabb_test, NULL};
        number = dCreateGeomClass(&c);
    }
    return number;
}

static inline dGeomID ode_demo_sensor_create(dSpaceID space, dReal radius)
{
    dGeomID g = dCreateGeom(ode_demo_sensor_class());
    ((ode_demo_sensor *)dGeomGetClassData(g))->radius = radius;
    if (space)
        dSpaceAdd(space, g);
    return g;
}

/* Whether ODE's spaces must drop the pair because a sensor's aabb_test
 * rejects the other's box. */
static inline int ode_demo_sensor_rejects(dGeomID a, dGeomID b)
{
    dReal box[6];
    for (int side = 0; side < 2; side++) {
        dGeomID ball = side ? b : a, other = side ? a : b;
        if (dGeomGetClass(ball) != ode_demo_sensor_class())
            continue;
        dGeomGetAABB(other, box);
        if (!ode_demo_sensor_aabb_test(ball, other, box))
            return 1;
    }
    return 0;
}

/* ODE's GEOM_ZERO_SIZED (not public), as ODE 0.16's classes set it: a sphere
 * or capsule of radius 0, a box with a zero side, a cylinder of radius or
 * length 0. ODE's spaces skip such geoms. */
static inline int ode_demo_zero_sized(dGeomID g)
{
    dVector3 sides;
    dReal radius, length;
    switch (dGeomGetClass(g)) {
    case dSphereClass: return dGeomSphereGetRadius(g) == 0;
    case dBoxClass: dGeomBoxGetLengths(g, sides); return !sides[0] || !sides[1] || !sides[2];
    case dCapsuleClass: dGeomCapsuleGetParams(g, &radius, &length); return radius == 0;
    case dCylinderClass: dGeomCylinderGetParams(g, &radius, &length); return !radius || !length;
    default: return 0;
    }
}

/* ------------------------------------------------------------ contacts */

/*
 * dCollide's contacts of (o1, o2), at most max (<= 16), as contact joints in
 * group between their bodies, as ODE's demos make them: soft (CFM 0.001),
 * friction mu, bouncing when bounce > 0. Returns how many.
 */
static inline int ode_demo_contact_joints(dWorldID world, dJointGroupID group, dGeomID o1,
                                          dGeomID o2, int max, dReal mu, dReal bounce)
{
    dContact contacts[16];
    int n = dCollide(o1, o2, max < 16 ? max : 16, &contacts[0].geom, sizeof contacts[0]);
    for (int i = 0; i < n; i++) {
        contacts[i].surface.mode = dContactSoftCFM | (bounce > 0 ? dContactBounce : 0);
        contacts[i].surface.mu = mu;
        contacts[i].surface.bounce = bounce;
        contacts[i].surface.bounce_vel = 0.1;
        contacts[i].surface.soft_cfm = 0.001;
        dJointID joint = dJointCreateContact(world, group, &contacts[i]);
        dJointAttach(joint, dGeomGetBody(o1), dGeomGetBody(o2));
    }
    return n;
}

/* ------------------------------------------------------------ bodies and steps */

/* A floor (z = 0) and four walls at +-half along x and y, as infinite planes. */
static inline void ode_demo_bin(dSpaceID space, dReal half)
{
    dCreatePlane(space, 0, 0, 1, 0);
    dCreatePlane(space, 1, 0, 0, -half);
    dCreatePlane(space, -1, 0, 0, -half);
    dCreatePlane(space, 0, 1, 0, -half);
    dCreatePlane(space, 0, -1, 0, -half);
}

/* A body for geom g with mass at (x, y, z), turned by angle about (x, y, 1). */
static inline dBodyID ode_demo_body(dWorldID world, dGeomID g, const dMass *mass, double x,
                                    double y, double z, double angle)
{
    dBodyID body = dBodyCreate(world);
    dBodySetPosition(body, x, y, z);
    dBodySetMass(body, mass);
    dGeomSetBody(g, body);
    dMatrix3 r;
    dRFromAxisAndAngle(r, x, y, 1, angle);
    dBodySetRotation(body, r);
    return body;
}

/* The loop of ODE's demos, steps times: collide, step by dt, drop the contacts. */
static inline void ode_demo_run(dWorldID world, dSpaceID space, dJointGroupID contacts, int steps,
                                dReal dt, dNearCallback *callback, void *data)
{
    for (int s = 0; s < steps; s++) {
        dSpaceCollide(space, data, callback);
        dWorldQuickStep(world, dt);
        dJointGroupEmpty(contacts);
    }
}

/* ------------------------------------------------------------ output */

/* One line per body (final position and speed, digits digits after the
 * point), then the summary line "settled min_z ... max_speed ...". */
static inline void ode_demo_report_bodies(dBodyID *bodies, int count, int digits)
{
    double min_z = INFINITY, max_speed = 0;
    for (int i = 0; i < count; i++) {
        const dReal *p = dBodyGetPosition(bodies[i]), *v = dBodyGetLinearVel(bodies[i]);
        double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        printf("body %d %.*f %.*f %.*f speed %.*f\n", i, digits, p[0], digits, p[1], digits, p[2],
               digits, speed);
        min_z = fmin(min_z, p[2]);
        max_speed = fmax(max_speed, speed);
    }
    printf("settled min_z %.6f max_speed %.6f\n", min_z, max_speed);
}

/* The falling programs' bodies: ODE's box, sphere and capsule, and the two
 * demo trimeshes (a cube and an icosahedron), each with its unit-density
 * mass. */
typedef enum {
    ODE_DEMO_BOX,
    ODE_DEMO_SPHERE,
    ODE_DEMO_CAPSULE,
    ODE_DEMO_CUBE_MESH,
    ODE_DEMO_ICO_MESH
} ode_demo_shape;

static inline dGeomID ode_demo_create(dSpaceID space, ode_demo_shape shape, dTriMeshDataID cube,
                                      dTriMeshDataID ico, dMass *mass)
{
    switch (shape) {
    case ODE_DEMO_BOX: dMassSetBox(mass, 1, 0.4, 0.3, 0.2); return dCreateBox(space, 0.4, 0.3, 0.2);
    case ODE_DEMO_SPHERE: dMassSetSphere(mass, 1, 0.2); return dCreateSphere(space, 0.2);
    case ODE_DEMO_CAPSULE:
        dMassSetCapsule(mass, 1, 3, 0.1, 0.3);
        return dCreateCapsule(space, 0.1, 0.3);
    case ODE_DEMO_CUBE_MESH:
        dMassSetBox(mass, 1, 0.5, 0.5, 0.5);
        return dCreateTriMesh(space, cube, NULL, NULL, NULL);
    case ODE_DEMO_ICO_MESH: break;
    }
    dMassSetSphere(mass, 1, 0.3);
    return dCreateTriMesh(space, ico, NULL, NULL, NULL);
}

/* A small deterministic generator (the programs must not depend on libc's rand). */
static inline double ode_demo_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return ((*state >> 8) % 1000) / 1000.0;
}

#endif
