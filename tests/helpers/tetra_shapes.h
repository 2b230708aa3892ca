/* SPDX-License-Identifier: MIT */
/*
 * The tetra-tree tests' shared parts: trees built or failed, real meshes
 * quantised so that feature points lie exactly on their features, and the
 * world entry checked on posed meshes, by the CPU twin
 * (tests/unit/test_tetra_tree_cpu.c) and by the GPU
 * (tests/gpu/test_tetra_tree.c). Linked into both test programs.
 */
#ifndef GLCOLLIDE_TEST_TETRA_SHAPES_H
#define GLCOLLIDE_TEST_TETRA_SHAPES_H

#include "helpers/tests.h"

#include <glcollide/glcollide.h>
#include <glcollide/tetra_tree.h>

/* Vertex v of m (3 doubles). */
const double *vertex(const glcollide_mesh *m, uint32_t v);
/* The tree of m (options NULL: defaults), failing the test on error. */
glcollide_tetra_tree *build(const glcollide_mesh *m, const glcollide_tetra_tree_options *options);
/* A real mesh fitted to size 2 and quantised to a 2^-20 grid. */
glcollide_mesh *real_mesh(const char *file);

/* The meshes of the one-shape tests: generated (torus, knot) and real
 * (elephant.off, knot1.off, quantised as above). */
enum { SHAPE_MESHES = 4 };
glcollide_mesh *shape_mesh(int k);
/* count points uniform in the box of m grown by 20% and placed by (t, q)
 * (its 8 corners' box), from seed; the caller frees. */
double *posed_points(const glcollide_mesh *m, const double t[3], const double q[4], size_t count,
                     uint64_t seed);
/* A world of two objects: object 0 a box (another mesh), object 1 mesh m
 * at (t, q). */
glcollide_world *world_with(const glcollide_mesh *box, const glcollide_mesh *m, const double t[3],
                            const double q[4]);
/* The world entry with the CPU twin (gpu_context NULL) or the GPU: 4
 * meshes, each at 3 random poses, 5,000 points about the posed solid: the
 * answers for the inverse-transformed points. */
void world_entries(glcollide_context *gpu_context);

#endif
