/* SPDX-License-Identifier: MIT */
/*
 * The ODE plugin tests' shared parts (test_ode_*.c): the pairs a space hands
 * to its callback, trimesh cubes and glcollide meshes as ODE trimesh data,
 * the contacts of one step, and the fixture that starts ODE and the plugin.
 */
#ifndef GLCOLLIDE_TEST_ODE_TESTS_H
#define GLCOLLIDE_TEST_ODE_TESTS_H

#include <glcollide/glcollide.h>
#include <glcollide/ode.h>

#include <stddef.h>

/* The pairs a space reported, in a growable array. */
typedef struct pair_set {
    dGeomID (*pairs)[2];
    size_t count, capacity;
} pair_set;

/* Room for one more item of size bytes in a growable array. */
void *room_for_one(void *array, size_t count, size_t *capacity, size_t size);
/* A near callback that appends the pair, smaller pointer first, to the
 * pair_set data. */
void record(void *data, dGeomID a, dGeomID b);
/* qsort/bsearch order of two-geom pairs. */
int compare_pair(const void *x, const void *y);
/* Sorts the set (compare_pair). */
void sort_pairs(pair_set *set);
/* Is pair in the sorted set? */
int has_pair(const pair_set *set, const dGeomID *pair);

/* A cube trimesh (12 triangles, half size h), its arrays kept for ODE. */
typedef struct cube_data {
    dReal vertices[8 * 3];
    dTriIndex indices[36];
    dTriMeshDataID data;
} cube_data;
void cube_build(cube_data *cube, double h);
/* Destroys space with its geoms and nested spaces. */
void destroy_scene(dSpaceID space);
/* Two trimesh cubes that overlap, in a space of their own. */
dSpaceID overlapping_cubes(const cube_data *cube);

/* A glcollide mesh as ODE trimesh data (vertices copied into dReal),
 * registered with the plugin's exact arrays. */
typedef struct mesh_data {
    dReal *vertices;
    dTriIndex *indices;
    dTriMeshDataID data;
    const glcollide_mesh *mesh;
} mesh_data;
void mesh_data_build(mesh_data *m, const glcollide_mesh *mesh);
void mesh_data_free(mesh_data *m);

/* The contacts a space's step gives: every pair handed to the callback is
 * collided at once (dCollide, 16 contacts offered), as a near callback does. */
typedef struct step_contacts {
    dContactGeom contacts[256];
    int count;
} step_contacts;
void collide_pair(void *data, dGeomID a, dGeomID b);

/* The checked fixture: ODE and the plugin started (the GPU optional), and
 * both shut down. */
void setup(void);
void teardown(void);

#endif
