/* SPDX-License-Identifier: MIT */
/*
 * Exact orientation predicates (private helpers; the public pair
 * glcollide_orient3d / glcollide_orient2d is declared in geometry.h).
 *
 * The public predicates run a floating-point filter with a proven error bound,
 * then exact expansion arithmetic (sums of doubles; used when the coordinate
 * differences are exact and every coordinate is in the range below), then a
 * big-integer evaluation that is exact for every finite double. The stages
 * are exposed here so that tests can compare them with each other.
 */
#ifndef GLCOLLIDE_PREDICATES_H
#define GLCOLLIDE_PREDICATES_H

#include <glcollide/geometry.h>

/*
 * Expansion stage alone. Returns 1 and stores the exact sign in *sign when
 * every coordinate is 0 or has magnitude in [2^-250, 2^300] (the range where
 * no product underflows or overflows); returns 0 and leaves *sign untouched
 * otherwise.
 */
int glcollide_orient3d_expansion(const double a[3], const double b[3], const double c[3],
                                 const double d[3], int *sign);
int glcollide_orient2d_expansion(const double a[2], const double b[2], const double c[2],
                                 int *sign);

/* Big-integer stage alone: exact for all finite doubles; allocation-free,
 * about 14 KB of stack, a few hundred ns for inputs of similar magnitude. */
int glcollide_orient3d_bigint(const double a[3], const double b[3], const double c[3],
                              const double d[3]);
int glcollide_orient2d_bigint(const double a[2], const double b[2], const double c[2]);

/*
 * Floating-point value of det[a-d, b-d, c-d] (the filter's estimate), for
 * computing geometry after an exact decision. Not a sign oracle.
 */
double glcollide_orient3d_value(const double a[3], const double b[3], const double c[3],
                                const double d[3]);

/*
 * orient2d of the projections of 3D points that drop coordinate `drop`
 * (0, 1 or 2), keeping coordinates (drop+1)%3 and (drop+2)%3 in that order.
 * The sign equals the sign of component `drop` of (b-a) x (c-a). Exact.
 */
int glcollide_orient2d_dropping(const double a[3], const double b[3], const double c[3], int drop);

/*
 * An axis k for which component k of the normal (b-a) x (c-a) is exactly
 * nonzero, preferring the largest approximate component, so that dropping
 * coordinate k maps the plane of abc one-to-one onto a coordinate plane
 * (incidences and orientations are preserved exactly). Returns -1 when a, b, c
 * are collinear or coincident (exact).
 */
int glcollide_triangle_drop_axis(const double a[3], const double b[3], const double c[3]);

#endif /* GLCOLLIDE_PREDICATES_H */
