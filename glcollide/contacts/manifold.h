/* SPDX-License-Identifier: MIT */
/*
 * The contact manifold of one region: which few of a region's candidate
 * points become contacts (private to the library; used by every contact
 * generator, so that mesh-mesh and mesh-primitive contacts are chosen alike).
 */
#ifndef GLCOLLIDE_MANIFOLD_H
#define GLCOLLIDE_MANIFOLD_H

#include <glcollide/geometry.h>

#include <stddef.h>
#include <stdint.h>

/* A point a contact can be made at. key orders points that tie (smaller
 * first): it must be stable from step to step while the same features meet
 * (triangle and corner indices, not positions), so that a resting pair keeps
 * the same contacts. u, v, distance2 and kept are the selection's own. */
typedef struct glcollide_manifold_point {
    double position[3];
    double depth; /* in [0, the region's width] */
    uint64_t key[2];
    double u, v, distance2;
    uint32_t kept; /* 0, or the pick's rank: 1, 2, ... */
} glcollide_manifold_point;

/* An orthonormal pair spanning the plane normal to unit n (deterministic). */
void glcollide_plane_basis(const double n[3], double e1[3], double e2[3]);

/*
 * Picks up to max of a region's n points, marking them kept = 1, 2, ... in
 * pick order; returns the number picked. normal: the region's unit normal,
 * centre: a point of the region, width: its overlap width along the normal
 * (the depth scale). The picks, as Bullet's manifold keeps them: the
 * deepest (within 10% of width, so that a resting face keeps the same
 * corner while the solver jitters; among those, the farthest from the
 * points' centre), the farthest from it, the one making the largest
 * triangle, the one adding the most area; then farthest-point sampling.
 * Ties within 1e-6 of the region's size go to the deeper (beyond 1% of
 * width), then to the smaller key. Points nearer than that to a kept one
 * are never picked.
 */
uint32_t glcollide_manifold_select(glcollide_manifold_point *points, uint32_t n,
                                   const double normal[3], const double centre[3], double width,
                                   size_t max);

/* Orders contacts by region, stably (each region's picks keep their order):
 * the manifolds' output, written in turns across the regions. */
void glcollide_contacts_group_by_region(glcollide_contact *contacts, size_t count);

#endif
