/* SPDX-License-Identifier: MIT */
/*
 * A mesh with its object-space BVH placed in the world, and the small
 * vector and quaternion helpers, shared by test_contacts_primitive*.c.
 */
#ifndef GLCOLLIDE_TEST_CONTACTS_PRIMITIVE_SOLID_H
#define GLCOLLIDE_TEST_CONTACTS_PRIMITIVE_SOLID_H

#include "helpers/tests.h"

#include <glcollide/geometry.h>
#include <glcollide/primitives.h>

#include <stddef.h>

static const double pi = 3.14159265358979323846;

/* A mesh with its object-space BVH, placed in the world. */
typedef struct solid {
    glcollide_mesh *mesh;
    glcollide_bvh *bvh;
    glcollide_contact_solid s;
} solid;

/* Takes mesh (not NULL), builds its BVH, places it; closed. */
solid make_solid(glcollide_mesh *mesh, const double translation[3], const double q[4]);
/* make_solid at a random pose: a random rotation q, then a translation t
 * with each coordinate uniform in [-spread, spread] (drawn in that order). */
solid random_solid(test_rng *rng, glcollide_mesh *mesh, double spread, double t[3], double q[4]);
/* Destroys the BVH and the mesh. */
void release(solid *s);

double dot3(const double a[3], const double b[3]);
double distance3(const double a[3], const double b[3]);
/* q = a * b (w x y z) */
void quat_mul(const double a[4], const double b[4], double q[4]);
/* A rotation by angle about axis 0, 1 or 2. */
void axis_quat(int axis, double angle, double q[4]);
/* A point (direction: 0 translation) of a frame into the world. */
void place(const double t[3], const double q[4], const double p[3], int direction, double out[3]);
/* A world point or direction (1: no translation) into a pose's frame. */
void into(const glcollide_pose *pose, const double w[3], int direction, double out[3]);
/* The contacts of m and p (at most max), failing the test on any error. */
size_t contacts_of(const solid *m, const glcollide_primitive *p, glcollide_contact *out,
                   size_t max);

#endif
