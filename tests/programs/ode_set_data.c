/* SPDX-License-Identifier: MIT */
/*
 * A plain ODE program that knows nothing of glcollide: trimesh geoms whose
 * mesh changes between dSpaceCollide and dCollide, as programs that swap
 * levels of detail or rebuild a deforming mesh do. Two balls overlap in a
 * space; after the space's step the program
 *   1. gives both geoms a smaller mesh at the same transforms (dGeomTriMeshSetData),
 *   2. rebuilds their data from other arrays (dGeomTriMeshDataBuild* again),
 *   3. changes the vertices in place (dGeomTriMeshDataUpdate),
 * and each time compares dCollide's contacts with those of two geoms that no
 * space has seen, given the same data and transforms: they must be equal, and
 * every contact's sides must name triangles of the current mesh.
 * Usage: ode-set-data. Prints one line per case; exits 1 on a difference.
 */
#include "programs/ode_demo.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_CONTACTS 32
#define SLICES 16
#define STACKS 8
#define BALL_VERTICES (SLICES * (STACKS - 1) + 2)
#define BALL_TRIANGLES (2 * SLICES * (STACKS - 1))

static dReal ball_vertices[3 * BALL_VERTICES], cube_vertices[24];
static dTriIndex ball_indices[3 * BALL_TRIANGLES], cube_indices[36];

/* A latitude-longitude ball of radius r: poles, then rings, shared vertices. */
static void ball_arrays(double r)
{
    const double pi = 3.14159265358979323846;
    int v = 0, t = 0;
    dReal *p = ball_vertices;
    p[0] = p[1] = 0, p[2] = (dReal)r;
    p[3] = p[4] = 0, p[5] = (dReal)-r;
    v = 2;
    for (int i = 1; i < STACKS; i++)
        for (int j = 0; j < SLICES; j++, v++) {
            double theta = pi * i / STACKS, phi = 2 * pi * j / SLICES;
            p[3 * v] = (dReal)(r * sin(theta) * cos(phi));
            p[3 * v + 1] = (dReal)(r * sin(theta) * sin(phi));
            p[3 * v + 2] = (dReal)(r * cos(theta));
        }
    for (int i = 0; i < STACKS; i++)
        for (int j = 0; j < SLICES; j++) {
            int k = (j + 1) % SLICES;
            int a = 2 + (i - 1) * SLICES + j, b = 2 + (i - 1) * SLICES + k;
            int c = 2 + i * SLICES + j, d = 2 + i * SLICES + k;
            dTriIndex tri[2][3] = {{0, 0, 0}, {0, 0, 0}};
            int n = 0;
            if (i == 0) {
                tri[n][0] = 0, tri[n][1] = (dTriIndex)c, tri[n][2] = (dTriIndex)d, n++;
            } else if (i == STACKS - 1) {
                tri[n][0] = 1, tri[n][1] = (dTriIndex)b, tri[n][2] = (dTriIndex)a, n++;
            } else {
                tri[n][0] = (dTriIndex)a, tri[n][1] = (dTriIndex)c, tri[n][2] = (dTriIndex)d, n++;
                tri[n][0] = (dTriIndex)a, tri[n][1] = (dTriIndex)d, tri[n][2] = (dTriIndex)b, n++;
            }
            for (int m = 0; m < n; m++, t++)
                memcpy(ball_indices + 3 * t, tri[m], sizeof tri[m]);
        }
}

static void near_callback(void *data, dGeomID o1, dGeomID o2)
{
    dContactGeom contacts[MAX_CONTACTS];
    *(int *)data += dCollide(o1, o2, MAX_CONTACTS, contacts, sizeof contacts[0]);
}

/* The geom as fresh copies see it: same data, position and rotation. */
static void copy_geom(dGeomID from, dGeomID to)
{
    dGeomTriMeshSetData(to, dGeomTriMeshGetTriMeshDataID(from));
    const dReal *p = dGeomGetPosition(from);
    dGeomSetPosition(to, p[0], p[1], p[2]);
    dGeomSetRotation(to, dGeomGetRotation(from));
}

static int same_contacts(const char *what, dGeomID a, dGeomID b, dGeomID fresh_a, dGeomID fresh_b)
{
    copy_geom(a, fresh_a);
    copy_geom(b, fresh_b);
    dContactGeom got[MAX_CONTACTS], want[MAX_CONTACTS];
    int n = dCollide(a, b, MAX_CONTACTS, got, sizeof got[0]);
    int m = dCollide(fresh_a, fresh_b, MAX_CONTACTS, want, sizeof want[0]);
    int triangles = dGeomTriMeshGetTriangleCount(a), bad_sides = 0, differ = n != m;
    for (int i = 0; i < n; i++) {
        /* -1: no one triangle (ODE's own collider says so for some contacts) */
        bad_sides += got[i].side1 < -1 || got[i].side1 >= triangles || got[i].side2 < -1 ||
                     got[i].side2 >= triangles;
        differ |= i < m && (got[i].depth != want[i].depth || got[i].side1 != want[i].side1 ||
                            got[i].side2 != want[i].side2 ||
                            memcmp(got[i].pos, want[i].pos, sizeof got[i].pos) != 0);
    }
    printf("%s: %d contacts, fresh geoms %d, sides outside the mesh %d: %s\n", what, n, m,
           bad_sides, differ || bad_sides || m == 0 ? "FAIL" : "ok");
    return !(differ || bad_sides || m == 0);
}

/* One step of the space, then the mesh changes as change_mesh says. */
static int check_case(const char *what, void (*change_mesh)(dGeomID, dGeomID, dTriMeshDataID))
{
    dSpaceID space = dSimpleSpaceCreate(NULL);
    dTriMeshDataID data = dGeomTriMeshDataCreate();
    ode_demo_build_trimesh(data, ball_vertices, BALL_VERTICES, ball_indices, 3 * BALL_TRIANGLES);
    dGeomID a = dCreateTriMesh(space, data, NULL, NULL, NULL);
    dGeomID b = dCreateTriMesh(space, data, NULL, NULL, NULL);
    dGeomID fresh_a = dCreateTriMesh(NULL, data, NULL, NULL, NULL);
    dGeomID fresh_b = dCreateTriMesh(NULL, data, NULL, NULL, NULL);
    dGeomSetPosition(b, 0.7, 0.15, 0.05);
    dMatrix3 r;
    dRFromAxisAndAngle(r, 1, 2, 3, 0.4);
    dGeomSetRotation(b, r);
    int contacts = 0;
    dSpaceCollide(space, &contacts, near_callback);
    dTriMeshDataID cube = dGeomTriMeshDataCreate();
    ode_demo_build_trimesh(cube, cube_vertices, 8, cube_indices, 36);
    change_mesh(a, b, cube);
    int ok = contacts > 0 && same_contacts(what, a, b, fresh_a, fresh_b);
    dGeomDestroy(fresh_a);
    dGeomDestroy(fresh_b);
    dSpaceDestroy(space);
    dGeomTriMeshDataDestroy(cube);
    dGeomTriMeshDataDestroy(data);
    ode_demo_box_arrays(0.5, 0.5, 0.5, cube_vertices, cube_indices);
    ball_arrays(0.5);
    return ok;
}

static void set_smaller_data(dGeomID a, dGeomID b, dTriMeshDataID cube)
{
    dGeomTriMeshSetData(a, cube);
    dGeomTriMeshSetData(b, cube);
}

static void rebuild_data(dGeomID a, dGeomID b, dTriMeshDataID cube)
{
    (void)b, (void)cube;
    ode_demo_build_trimesh(dGeomTriMeshGetTriMeshDataID(a), cube_vertices, 8, cube_indices, 36);
}

static void update_vertices(dGeomID a, dGeomID b, dTriMeshDataID cube)
{
    (void)b, (void)cube;
    for (int i = 0; i < 3 * BALL_VERTICES; i++)
        ball_vertices[i] *= (dReal)1.3;
    dGeomTriMeshDataUpdate(dGeomTriMeshGetTriMeshDataID(a));
}

int main(void)
{
    dInitODE2(0);
    ode_demo_box_arrays(0.5, 0.5, 0.5, cube_vertices, cube_indices);
    ball_arrays(0.5);
    int ok = check_case("smaller data set on both geoms", set_smaller_data);
    ok &= check_case("data rebuilt from other arrays", rebuild_data);
    ok &= check_case("vertices changed in place", update_vertices);
    dCloseODE();
    return ok ? 0 : 1;
}
