/* SPDX-License-Identifier: MIT */
/* Procedural closed meshes for tests, scenes and benchmarks (no Check, no
 * ODE): boxes with gridded faces, cylinders with fan caps, cups. */
#ifndef GLCOLLIDE_TESTS_MESHES_H
#define GLCOLLIDE_TESTS_MESHES_H

#include <glcollide/glcollide.h>

/* A box of half sizes h with each face cut into a grid of n[k] x n[j] quads
 * (n = {1, 1, 1}: 12 triangles); shared vertices, closed. NULL on error. */
glcollide_mesh *test_mesh_box(const double h[3], const int n[3]);
/* A closed cylinder along z (radius r, half height h), `sides` side quads
 * and fan caps (a centre vertex each). */
glcollide_mesh *test_mesh_cylinder(double r, double h, int sides);
/* A cup: the box [-w, w]^2 x [0, height] with a square hole [-hole, hole]^2
 * from the top down to the floor at z = floor; closed, not convex. */
glcollide_mesh *test_mesh_cup(double w, double height, double hole, double floor);

#endif
