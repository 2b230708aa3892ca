/* SPDX-License-Identifier: MIT */
/*
 * ODE's primitives in their own frame (private to the library): the exact
 * geometry the mesh-primitive contacts (contacts_primitive.c) ask of them.
 *
 * Frames: a box is centred on the origin along the axes; a sphere centred;
 * a capsule's and a cylinder's axis is z, centred; a plane is z = 0 with its
 * solid below (z <= 0). Every membership test grows the shape by eps (a
 * tolerance of the scene's size against rounding), so that exact touching
 * counts however the transforms rounded.
 */
#ifndef GLCOLLIDE_PRIMITIVE_SHAPE_H
#define GLCOLLIDE_PRIMITIVE_SHAPE_H

#include <glcollide/primitives.h>

#include <stdint.h>

typedef struct primitive_shape {
    glcollide_primitive_kind kind;
    double half[3];     /* box: half extents */
    double radius;      /* sphere, capsule, cylinder */
    double half_length; /* capsule, cylinder: half the length along z */
    double eps;
} primitive_shape;

/* Largest clipped polygon: a triangle cut by the two caps and the 32 sides
 * of a cylinder's circumscribed prism gains one corner per plane at most. */
enum { PRIMITIVE_MAX_POLYGON = 40, PRIMITIVE_PRISM_SIDES = 32 };

/* Is p in the shape (grown by eps)? */
int primitive_inside(const primitive_shape *s, const double p[3]);

/*
 * The parameters t0 <= t1 between which the line p + t d lies in the shape
 * (grown by eps); 0 when it misses (d not zero; t0 may be -INFINITY and t1
 * INFINITY for a plane).
 */
int primitive_line(const primitive_shape *s, const double p[3], const double d[3], double *t0,
                   double *t1);

/* How far from p (in the shape) the ray p + t d (d unit) runs inside the
 * shape before it leaves: the exit parameter, at least 0. */
double primitive_exit(const primitive_shape *s, const double p[3], const double d[3]);

/* The farthest extent of the shape along unit d from its centre. */
double primitive_support(const primitive_shape *s, const double d[3]);

/*
 * A triangle's part inside a box (exact) or inside a cylinder (its caps
 * exact, its round side by the circumscribed 32-sided prism: for the vector
 * area only), as a convex polygon: n corners written to poly, 0 when none.
 * For a box, label[i] says what the corner is: bits 0-5 the box's faces it
 * lies on (+x, -x, +y, -y, +z, -z), bits 6-8 the triangle's edges it lies on
 * (edge k from corner k to k + 1): a stable name of the feature pair that
 * made it, for the manifold's keys. label may be NULL.
 */
int primitive_clip_triangle(const primitive_shape *s, const double *const t[3],
                            double poly[PRIMITIVE_MAX_POLYGON][3],
                            uint32_t label[PRIMITIVE_MAX_POLYGON]);

/* Does the cylinder (grown by eps) meet the triangle? Exact up to rounding:
 * the triangle cut by the caps, then its distance from the axis in plan. */
int primitive_cylinder_meets(const primitive_shape *s, const double *const t[3]);

/* The closest points of segments p0p1 and q0q1: on the first to cp, on the
 * second to cq; returns the squared distance. */
double primitive_segment_segment(const double p0[3], const double p1[3], const double q0[3],
                                 const double q1[3], double cp[3], double cq[3]);

/* The closest points of segment p0p1 and triangle t: on the segment to cs,
 * on the triangle to ct (0 distance where the segment crosses it); returns
 * the squared distance. */
double primitive_segment_triangle(const double p0[3], const double p1[3], const double *const t[3],
                                  double cs[3], double ct[3]);

/* The squared distance from p to segment a b, and the nearest point on it. */
double primitive_point_segment(const double p[3], const double a[3], const double b[3],
                               double out[3]);

/* Where the ray p + t d meets triangle t (closed, Moller-Trumbore in double):
 * 1 with *t_hit, 0 on a miss or a triangle without area. */
int primitive_ray_triangle(const double p[3], const double d[3], const double *const t[3],
                           double *t_hit);

#endif
