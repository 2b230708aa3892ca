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

#include <float.h>
#include <math.h>

/* The float filters assume each double operation is rounded once to double
 * (see predicates.c); elsewhere only the exact stages run. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define PREDICATES_FLOAT_STAGES 1
#else
#define PREDICATES_FLOAT_STAGES 0
#endif

/* orient3d's filter constants (the proof is in predicates.c). */
#define ORIENT3D_C3 (0x1p-50 + 0x1p-98) /* 8u (1 + 32u) */
#define ORIENT3D_K3 0x1p-1067

/*
 * orient3d's bound, fl(fl(C3 P') + fl(fl(M + 1) K3)), or a value at least as
 * large: the absolute term is subnormal, and arithmetic on subnormals costs
 * a microcode assist on common x86 cores (measured: the filter's time
 * doubled). Where rel = fl(C3 P') >= 2^-960 fl(M + 1) (all but tiny
 * inputs), the absolute term is at most rel 2^-106 (rounding included), so
 * fl(rel + it) <= rel (1 + 2^-52) <= fl(rel (1 + 2^-50)): the bound used is
 * the larger, and the proof's conclusion holds a fortiori.
 */
static inline double glcollide_orient3d_bound(double permanent, double largest)
{
    double rel = ORIENT3D_C3 * permanent, m = largest + 1.0;
    if (rel >= 0x1p-960 * m)
        return rel * (1.0 + 0x1p-50);
    return rel + m * ORIENT3D_K3;
}

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

/*
 * A triangle's plane prepared for many orientation queries: the sign of
 * glcollide_orient3d(t0, t1, t2, p) for many p (a vertex against the
 * triangles it meets), exact, at about a third of orient3d's cost while the
 * filter decides. The filter is orient3d's own, evaluated as
 * det[t1 - t0, t2 - t0, p - t0] expanded along the last row: the products
 * of the first two rows (the normal's components and their absolute
 * parts, for the permanent) are computed once. Its error bound is
 * orient3d's (the proof in predicates.c is symmetric in rows and columns:
 * each monomial still passes 3 differences, 2 products, 1 difference of
 * products and 2 sums). Where it cannot decide, glcollide_orient3d
 * decides, on the stored triangle.
 */
typedef struct glcollide_plane_filter {
    const double *t[3];
    double normal[3];    /* rounded (t1 - t0) x (t2 - t0) */
    double magnitude[3]; /* per component, the sum of its two products' magnitudes */
    /* The bound for a set of points declared with
     * glcollide_plane_filter_set_extent; +inf where none was. */
    double set_bound;
} glcollide_plane_filter;

void glcollide_plane_filter_init(glcollide_plane_filter *f, const double *t0, const double *t1,
                                 const double *t2);

/*
 * Declares that every point p tested with f from now on lies in a box with
 * t0 whose side is at most extent on each axis: each computed difference
 * p_k - t0_k is then at most extent in magnitude (rounding is monotone), so
 * the filter's permanent is at most the one computed with extent for every
 * |p_k - t0_k|, and so is its bound (monotone in both arguments where its
 * first form applies, which is checked; +inf, no set bound, elsewhere). A
 * point whose determinant clears this one bound is decided without its
 * own: three subtractions, three products and two sums. A point outside the
 * box gets a wrong answer: only callers that know their points use it (the
 * contact stage: the candidate triangles' vertices, whose box it measures).
 */
static inline void glcollide_plane_filter_set_extent(glcollide_plane_filter *f, double extent)
{
    double permanent =
        (extent * f->magnitude[0] + extent * f->magnitude[1]) + extent * f->magnitude[2];
    double rel = ORIENT3D_C3 * permanent, m = extent + 1.0;
    f->set_bound =
        PREDICATES_FLOAT_STAGES && rel >= 0x1p-960 * m ? rel * (1.0 + 0x1p-50) : INFINITY;
}

/* The filter's determinant det[t1 - t0, t2 - t0, p - t0] (-orient3d), as
 * the filter computes it. */
static inline double glcollide_plane_filter_det(const glcollide_plane_filter *f, const double p[3])
{
    const double *t0 = f->t[0];
    double wx = p[0] - t0[0], wy = p[1] - t0[1], wz = p[2] - t0[2];
    return (wx * f->normal[0] + wy * f->normal[1]) + wz * f->normal[2];
}

/* The filter's decision (+1 or -1), or 0 where it cannot decide (always 0
 * without the float stages). */
static inline int glcollide_plane_filter_sign(const glcollide_plane_filter *f, const double p[3])
{
#if PREDICATES_FLOAT_STAGES
    const double *t0 = f->t[0];
    double det = glcollide_plane_filter_det(f, p);
    double ax = fabs(p[0] - t0[0]), ay = fabs(p[1] - t0[1]), az = fabs(p[2] - t0[2]);
    double permanent = (ax * f->magnitude[0] + ay * f->magnitude[1]) + az * f->magnitude[2];
    double largest = ax > ay ? ax : ay;
    largest = largest > az ? largest : az;
    double bound = glcollide_orient3d_bound(permanent, largest);
    return (-det > bound) - (det > bound); /* no branch on the outcome */
#else
    (void)f;
    (void)p;
    return 0;
#endif
}

/* glcollide_orient3d(f->t[0], f->t[1], f->t[2], p), exact, without the set
 * bound: the point's own filter, else orient3d. */
static inline int glcollide_plane_side_own(const glcollide_plane_filter *f, const double p[3])
{
    int sign = glcollide_plane_filter_sign(f, p);
    return sign ? sign : glcollide_orient3d(f->t[0], f->t[1], f->t[2], p);
}

/* glcollide_orient3d(f->t[0], f->t[1], f->t[2], p), exact: the set bound
 * where it decides, else glcollide_plane_side_own. */
static inline int glcollide_plane_side(const glcollide_plane_filter *f, const double p[3])
{
    double det = glcollide_plane_filter_det(f, p);
    if (fabs(det) > f->set_bound)
        return det < 0.0 ? 1 : -1;
    return glcollide_plane_side_own(f, p);
}

/* glcollide_plane_side of three points: the set bound decides all three
 * without a branch on its outcomes (which follow no pattern a predictor
 * learns), the filter and orient3d the ones it leaves open. */
static inline void glcollide_plane_sides3(const glcollide_plane_filter *f, const double *const p[3],
                                          int sides[3])
{
    int undecided = 0;
    for (int i = 0; i < 3; i++) {
        double det = glcollide_plane_filter_det(f, p[i]);
        sides[i] = (-det > f->set_bound) - (det > f->set_bound);
        undecided |= sides[i] == 0;
    }
    if (undecided)
        for (int i = 0; i < 3; i++)
            if (sides[i] == 0)
                sides[i] = glcollide_plane_side_own(f, p[i]);
}

#endif /* GLCOLLIDE_PREDICATES_H */
