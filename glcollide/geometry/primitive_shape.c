/* SPDX-License-Identifier: MIT */
/* ODE's primitives in their own frame (see primitive_shape.h). */
#include "geometry/primitive_shape.h"

#include "geometry/geometry_internal.h"

#include <math.h>
#include <string.h>

static void point_at(const double a[3], const double d[3], double t, double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = a[k] + t * d[k];
}

double primitive_point_segment(const double p[3], const double a[3], const double b[3],
                               double out[3])
{
    double ab[3], ap[3];
    glcollide_vec3_sub(ab, b, a);
    glcollide_vec3_sub(ap, p, a);
    double len2 = glcollide_vec3_dot(ab, ab);
    double t = len2 > 0.0 ? glcollide_clamp01(glcollide_vec3_dot(ap, ab) / len2) : 0.0;
    point_at(a, ab, t, out);
    double d[3];
    glcollide_vec3_sub(d, p, out);
    return glcollide_vec3_dot(d, d);
}

int primitive_inside(const primitive_shape *s, const double p[3])
{
    double r = s->radius + s->eps;
    switch (s->kind) {
    case GLCOLLIDE_PRIMITIVE_PLANE: return p[2] <= s->eps;
    case GLCOLLIDE_PRIMITIVE_SPHERE: return glcollide_vec3_dot(p, p) <= r * r;
    case GLCOLLIDE_PRIMITIVE_CAPSULE: {
        double a[3] = {0, 0, -s->half_length}, b[3] = {0, 0, s->half_length}, q[3];
        return primitive_point_segment(p, a, b, q) <= r * r;
    }
    case GLCOLLIDE_PRIMITIVE_BOX:
        return fabs(p[0]) <= s->half[0] + s->eps && fabs(p[1]) <= s->half[1] + s->eps &&
               fabs(p[2]) <= s->half[2] + s->eps;
    case GLCOLLIDE_PRIMITIVE_CYLINDER:
        return fabs(p[2]) <= s->half_length + s->eps && p[0] * p[0] + p[1] * p[1] <= r * r;
    }
    return 0;
}

/* Narrows [*t0, *t1] to where lo <= p + t d <= hi along one axis; 0 if empty. */
static int slab(double p, double d, double lo, double hi, double *t0, double *t1)
{
    if (d == 0.0)
        return p >= lo && p <= hi;
    double a = (lo - p) / d, b = (hi - p) / d;
    if (a > b) {
        double t = a;
        a = b;
        b = t;
    }
    *t0 = a > *t0 ? a : *t0;
    *t1 = b < *t1 ? b : *t1;
    return *t0 <= *t1;
}

/* Narrows [*t0, *t1] to where a t^2 + 2 b t + c <= 0 (a >= 0); 0 if empty.
 * The roots in the form that does not cancel. */
static int quadratic(double a, double b, double c, double *t0, double *t1)
{
    if (a == 0.0) /* constant along the line */
        return c <= 0.0;
    double disc = b * b - a * c;
    if (disc < 0.0)
        return 0;
    double q = -(b + copysign(sqrt(disc), b));
    double r0 = q != 0.0 ? c / q : 0.0, r1 = q / a;
    if (r0 > r1) {
        double t = r0;
        r0 = r1;
        r1 = t;
    }
    *t0 = r0 > *t0 ? r0 : *t0;
    *t1 = r1 < *t1 ? r1 : *t1;
    return *t0 <= *t1;
}

/* The line in the infinite z-cylinder of radius r, within lo <= z <= hi. */
static int round_slab(const double p[3], const double d[3], double r, double lo, double hi,
                      double *t0, double *t1)
{
    *t0 = -INFINITY;
    *t1 = INFINITY;
    return slab(p[2], d[2], lo, hi, t0, t1) &&
           quadratic(d[0] * d[0] + d[1] * d[1], p[0] * d[0] + p[1] * d[1],
                     p[0] * p[0] + p[1] * p[1] - r * r, t0, t1);
}

static int ball(const double p[3], const double d[3], const double centre[3], double r, double *t0,
                double *t1)
{
    double q[3];
    glcollide_vec3_sub(q, p, centre);
    *t0 = -INFINITY;
    *t1 = INFINITY;
    return quadratic(glcollide_vec3_dot(d, d), glcollide_vec3_dot(q, d),
                     glcollide_vec3_dot(q, q) - r * r, t0, t1);
}

int primitive_line(const primitive_shape *s, const double p[3], const double d[3], double *t0,
                   double *t1)
{
    double r = s->radius + s->eps, hl = s->half_length + s->eps;
    *t0 = -INFINITY;
    *t1 = INFINITY;
    switch (s->kind) {
    case GLCOLLIDE_PRIMITIVE_PLANE: return slab(p[2], d[2], -INFINITY, s->eps, t0, t1);
    case GLCOLLIDE_PRIMITIVE_SPHERE: {
        static const double origin[3] = {0, 0, 0};
        return ball(p, d, origin, r, t0, t1);
    }
    case GLCOLLIDE_PRIMITIVE_BOX:
        for (int k = 0; k < 3; k++)
            if (!slab(p[k], d[k], -s->half[k] - s->eps, s->half[k] + s->eps, t0, t1))
                return 0;
        return 1;
    case GLCOLLIDE_PRIMITIVE_CYLINDER: return round_slab(p, d, r, -hl, hl, t0, t1);
    case GLCOLLIDE_PRIMITIVE_CAPSULE: {
        /* A convex union: the line meets it in one interval, the hull of
         * its intervals with the middle and the two end balls. */
        double a0, a1, found = 0;
        double ends[2][3] = {{0, 0, -s->half_length}, {0, 0, s->half_length}};
        *t0 = INFINITY;
        *t1 = -INFINITY;
        if (round_slab(p, d, r, -s->half_length, s->half_length, &a0, &a1))
            found = 1, *t0 = a0, *t1 = a1;
        for (int e = 0; e < 2; e++)
            if (ball(p, d, ends[e], r, &a0, &a1)) {
                found = 1;
                *t0 = fmin(*t0, a0);
                *t1 = fmax(*t1, a1);
            }
        return found != 0;
    }
    }
    return 0;
}

double primitive_exit(const primitive_shape *s, const double p[3], const double d[3])
{
    double t0, t1;
    if (!primitive_line(s, p, d, &t0, &t1) || !(t1 > 0.0))
        return 0.0;
    return t1;
}

double primitive_support(const primitive_shape *s, const double d[3])
{
    double plan = sqrt(d[0] * d[0] + d[1] * d[1]);
    switch (s->kind) {
    case GLCOLLIDE_PRIMITIVE_PLANE: return d[2] < 0.0 ? INFINITY : 0.0;
    case GLCOLLIDE_PRIMITIVE_SPHERE: return s->radius;
    case GLCOLLIDE_PRIMITIVE_CAPSULE: return s->radius + s->half_length * fabs(d[2]);
    case GLCOLLIDE_PRIMITIVE_BOX:
        return s->half[0] * fabs(d[0]) + s->half[1] * fabs(d[1]) + s->half[2] * fabs(d[2]);
    case GLCOLLIDE_PRIMITIVE_CYLINDER: return s->half_length * fabs(d[2]) + s->radius * plan;
    }
    return 0.0;
}

/* ---------------------------------------------------------------- clipping */

/* cos and sin of 2 pi i / PRIMITIVE_PRISM_SIDES (no libm in the clipping loop). */
static const double prism_sides[PRIMITIVE_PRISM_SIDES][2] = {
    {1.0, 0.0},
    {0.9807852804032304, 0.19509032201612825},
    {0.9238795325112867, 0.3826834323650898},
    {0.8314696123025452, 0.5555702330196022},
    {0.7071067811865476, 0.7071067811865475},
    {0.5555702330196023, 0.8314696123025452},
    {0.38268343236508984, 0.9238795325112867},
    {0.19509032201612833, 0.9807852804032304},
    {0.0, 1.0},
    {-0.1950903220161282, 0.9807852804032304},
    {-0.3826834323650897, 0.9238795325112867},
    {-0.555570233019602, 0.8314696123025455},
    {-0.7071067811865475, 0.7071067811865476},
    {-0.8314696123025453, 0.5555702330196022},
    {-0.9238795325112867, 0.3826834323650899},
    {-0.9807852804032304, 0.1950903220161286},
    {-1.0, 0.0},
    {-0.9807852804032304, -0.19509032201612836},
    {-0.9238795325112868, -0.38268343236508967},
    {-0.8314696123025455, -0.555570233019602},
    {-0.7071067811865477, -0.7071067811865475},
    {-0.5555702330196022, -0.8314696123025452},
    {-0.38268343236509034, -0.9238795325112865},
    {-0.19509032201612866, -0.9807852804032303},
    {0.0, -1.0},
    {0.1950903220161283, -0.9807852804032304},
    {0.38268343236509, -0.9238795325112866},
    {0.5555702330196018, -0.8314696123025455},
    {0.7071067811865474, -0.7071067811865477},
    {0.8314696123025452, -0.5555702330196022},
    {0.9238795325112865, -0.3826834323650904},
    {0.9807852804032303, -0.19509032201612872}};

/* Keeps the part of poly where m . x <= offset (Sutherland-Hodgman); a new
 * corner lies on the plane (bit face_bit) and on what both ends shared. */
static int clip_plane(double poly[PRIMITIVE_MAX_POLYGON][3], uint32_t label[PRIMITIVE_MAX_POLYGON],
                      int n, const double m[3], double offset, uint32_t face_bit)
{
    double out[PRIMITIVE_MAX_POLYGON][3], h[PRIMITIVE_MAX_POLYGON];
    uint32_t out_label[PRIMITIVE_MAX_POLYGON];
    int all_in = 1, any_in = 0;
    for (int i = 0; i < n; i++) {
        h[i] = glcollide_vec3_dot(m, poly[i]) - offset;
        all_in &= h[i] <= 0.0;
        any_in |= h[i] <= 0.0;
    }
    if (all_in)
        return n;
    if (!any_in)
        return 0;
    int count = 0;
    for (int i = 0; i < n && count <= PRIMITIVE_MAX_POLYGON - 2; i++) {
        int j = (i + 1) % n;
        if (h[i] <= 0.0) {
            memcpy(out[count], poly[i], sizeof out[count]);
            out_label[count++] = label[i];
        }
        if ((h[i] <= 0.0) != (h[j] <= 0.0)) {
            double t = h[i] / (h[i] - h[j]);
            for (int k = 0; k < 3; k++)
                out[count][k] = poly[i][k] + t * (poly[j][k] - poly[i][k]);
            out_label[count++] = (label[i] & label[j]) | face_bit;
        }
    }
    memcpy(poly, out, (size_t)count * sizeof out[0]);
    memcpy(label, out_label, (size_t)count * sizeof out_label[0]);
    return count;
}

int primitive_clip_triangle(const primitive_shape *s, const double *const t[3],
                            double poly[PRIMITIVE_MAX_POLYGON][3],
                            uint32_t label[PRIMITIVE_MAX_POLYGON])
{
    uint32_t labels[PRIMITIVE_MAX_POLYGON];
    int n = 3;
    for (int i = 0; i < 3; i++) {
        memcpy(poly[i], t[i], 3 * sizeof(double));
        /* corner i lies on edges i (to i + 1) and i - 1 */
        labels[i] = (1u << (6 + i)) | (1u << (6 + (i + 2) % 3));
    }
    if (s->kind == GLCOLLIDE_PRIMITIVE_BOX) {
        /* Most candidates lie wholly inside or beyond one face; the others
         * are cut by the faces some corner lies beyond, only. */
        int cut[6];
        for (int k = 0; k < 3; k++) {
            double h = s->half[k] + s->eps;
            int below = 0, above = 0;
            for (int i = 0; i < 3; i++) {
                below += t[i][k] < -h;
                above += t[i][k] > h;
            }
            if (below == 3 || above == 3)
                return 0;
            cut[2 * k] = above > 0;
            cut[2 * k + 1] = below > 0;
        }
        for (int k = 0; k < 3 && n; k++)
            for (int side = 0; side < 2 && n; side++) {
                if (!cut[2 * k + side])
                    continue;
                double m[3] = {0, 0, 0};
                m[k] = side ? -1.0 : 1.0;
                n = clip_plane(poly, labels, n, m, s->half[k] + s->eps, 1u << (2 * k + side));
            }
    } else { /* cylinder */
        static const double up[3] = {0, 0, 1}, down[3] = {0, 0, -1};
        n = clip_plane(poly, labels, n, up, s->half_length + s->eps, 1u << 4);
        if (n)
            n = clip_plane(poly, labels, n, down, s->half_length + s->eps, 1u << 5);
        /* the prism's sides only where the triangle reaches beyond the
         * inscribed circle of it: elsewhere none cuts */
        double r2 = 0.0, r = s->radius + s->eps;
        for (int i = 0; i < 3; i++)
            r2 = fmax(r2, t[i][0] * t[i][0] + t[i][1] * t[i][1]);
        for (int i = 0; i < PRIMITIVE_PRISM_SIDES && n && r2 > r * r; i++) {
            double m[3] = {prism_sides[i][0], prism_sides[i][1], 0};
            n = clip_plane(poly, labels, n, m, r, 0);
        }
    }
    if (label)
        memcpy(label, labels, (size_t)n * sizeof *label);
    return n;
}

/* Squared distance from the origin to the plan (x, y) of a convex polygon. */
static double plan_distance2(const double poly[][3], int n)
{
    int positive = 0, negative = 0;
    double best = INFINITY;
    for (int i = 0; i < n; i++) {
        const double *a = poly[i], *b = poly[(i + 1) % n];
        double ex = b[0] - a[0], ey = b[1] - a[1];
        double cross = ex * (-a[1]) - ey * (-a[0]); /* origin's side of edge a b */
        positive |= cross > 0.0;
        negative |= cross < 0.0;
        double len2 = ex * ex + ey * ey;
        double t = len2 > 0.0 ? glcollide_clamp01(-(a[0] * ex + a[1] * ey) / len2) : 0.0;
        double x = a[0] + t * ex, y = a[1] + t * ey;
        best = fmin(best, x * x + y * y);
    }
    /* Inside (no edge sees it on the other side) when the polygon has area
     * in plan; a polygon seen edge-on has only its edges. */
    return positive != negative && n >= 3 ? 0.0 : best;
}

int primitive_cylinder_meets(const primitive_shape *s, const double *const t[3])
{
    double poly[PRIMITIVE_MAX_POLYGON][3];
    uint32_t labels[PRIMITIVE_MAX_POLYGON] = {0};
    static const double up[3] = {0, 0, 1}, down[3] = {0, 0, -1};
    int n = 3;
    for (int i = 0; i < 3; i++)
        memcpy(poly[i], t[i], sizeof poly[i]);
    n = clip_plane(poly, labels, n, up, s->half_length + s->eps, 0);
    if (n)
        n = clip_plane(poly, labels, n, down, s->half_length + s->eps, 0);
    double r = s->radius + s->eps;
    return n > 0 && plan_distance2(poly, n) <= r * r;
}

/* ---------------------------------------------------------------- closest points */

double primitive_segment_segment(const double p0[3], const double p1[3], const double q0[3],
                                 const double q1[3], double cp[3], double cq[3])
{
    glcollide_closest_segments(p0, p1, q0, q1, cp, cq);
    double d[3];
    glcollide_vec3_sub(d, cp, cq);
    return glcollide_vec3_dot(d, d);
}

int primitive_ray_triangle(const double p[3], const double d[3], const double *const t[3],
                           double *t_hit)
{
    double e1[3], e2[3], h[3], sv[3], q[3];
    glcollide_vec3_sub(e1, t[1], t[0]);
    glcollide_vec3_sub(e2, t[2], t[0]);
    glcollide_vec3_cross(h, d, e2);
    double det = glcollide_vec3_dot(e1, h);
    double n[3];
    glcollide_vec3_cross(n, e1, e2);
    /* Parallel (or no area): no single crossing point. */
    if (fabs(det) <= 1e-14 * sqrt(glcollide_vec3_dot(n, n) * glcollide_vec3_dot(d, d)))
        return 0;
    double inv = 1.0 / det;
    glcollide_vec3_sub(sv, p, t[0]);
    double u = inv * glcollide_vec3_dot(sv, h);
    if (u < 0.0 || u > 1.0)
        return 0;
    glcollide_vec3_cross(q, sv, e1);
    double v = inv * glcollide_vec3_dot(d, q);
    if (v < 0.0 || u + v > 1.0)
        return 0;
    *t_hit = inv * glcollide_vec3_dot(e2, q);
    return 1;
}

double primitive_segment_triangle(const double p0[3], const double p1[3], const double *const t[3],
                                  double cs[3], double ct[3])
{
    double d[3], hit;
    glcollide_vec3_sub(d, p1, p0);
    if (primitive_ray_triangle(p0, d, t, &hit) && hit >= 0.0 && hit <= 1.0) {
        point_at(p0, d, hit, cs);
        memcpy(ct, cs, 3 * sizeof *ct);
        return 0.0;
    }
    /* Otherwise the nearest pair has an end of the segment or a point of
     * an edge of the triangle on it. */
    double best = INFINITY, a[3], b[3];
    const double *ends[2] = {p0, p1};
    for (int e = 0; e < 2; e++) {
        glcollide_closest_point_on_triangle(ends[e], t[0], t[1], t[2], b);
        glcollide_vec3_sub(a, ends[e], b);
        double d2 = glcollide_vec3_dot(a, a);
        if (d2 < best) {
            best = d2;
            memcpy(cs, ends[e], 3 * sizeof *cs);
            memcpy(ct, b, 3 * sizeof *ct);
        }
    }
    for (int k = 0; k < 3; k++) {
        double d2 = primitive_segment_segment(p0, p1, t[k], t[(k + 1) % 3], a, b);
        if (d2 < best) {
            best = d2;
            memcpy(cs, a, 3 * sizeof *cs);
            memcpy(ct, b, 3 * sizeof *ct);
        }
    }
    return best;
}
