/* SPDX-License-Identifier: MIT */
/*
 * The particle tests' shared parts (test_particles*.c): the GL context, the
 * scene of every collider type with rain over it, and a point's coordinate
 * in a collider's frame.
 */
#ifndef GLCOLLIDE_TEST_PARTICLES_SCENE_H
#define GLCOLLIDE_TEST_PARTICLES_SCENE_H

#include <glcollide/particles.h>

#include <stddef.h>
#include <stdint.h>

/* Made by context_setup on first need, released by context_teardown (the
 * suites' unchecked fixture). */
extern glcollide_context *particles_context;
void context_setup(void);
void context_teardown(void);

static const double gravity[3] = {0, 0, -9.81};

/* Every collider type: ground, tilted roof (rectangles), disc, ellipsoid,
 * cylinder, cone, paraboloid, hyperboloid; bounce and elimination mixed.
 * Writes them to c (room for 16), returns how many. */
size_t scene_colliders(glcollide_collider *c);
/* Rain over the scene: half second order (gravity), half first order; the
 * caller frees. */
glcollide_particle *scene_particles(uint64_t seed, size_t n);
/* Coordinate k (0 x, 1 y, 2 z) of world point p in collider c's frame. */
double local_coordinate(const glcollide_collider *c, const double p[3], int k);

#endif
