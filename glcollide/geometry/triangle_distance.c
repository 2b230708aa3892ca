/* SPDX-License-Identifier: MIT */
/*
 * Closest points of two triangles.
 *
 * Two closed triangles either meet, and their distance is 0, or they are
 * disjoint, and then a closest pair is a vertex of one over the inside of the
 * other's face, or a point of an edge of one nearest to an edge of the other
 * (the endpoints included: vertex-vertex and vertex-edge pairs are edge pairs
 * too). So the distance of disjoint triangles is the least of 6 vertex-face
 * and 9 edge-edge candidates, each a true distance between points of the two
 * triangles: the least can only be too large by rounding, never by a missed
 * case. A vertex counts against a face only where its projection falls inside
 * it; elsewhere an edge pair is nearer or as near. Parallel edges need no
 * case of their own: their nearest points include an endpoint of one, which
 * the clamped segment-segment solution (glcollide_segment_parameters) finds;
 * a triangle without area (collinear or repeated corners) has no face, and
 * its edges are its whole point set. An edge pair whose boxes are already
 * farther apart than the best candidate (or than the caller's limit) is not
 * solved: it cannot be nearer.
 *
 * Whether they meet is decided before that answer is trusted: the two
 * nearest points found give a direction v (from a's point to b's), and
 * where every corner of a lies strictly below every corner of b along v,
 * with room for the rounding of those six dot products, the plane between
 * them separates the triangles and the candidates' least is the distance.
 * Only where that fails (the triangles meet, or come closer than rounding
 * resolves) does the exact test run (glcollide_tri_tri_intersection, exact
 * orientation signs): meeting triangles get 0 and a point of their
 * intersection, disjoint ones keep the least candidate, at least the
 * smallest positive double. So 0 means exactly "they meet", as
 * glcollide_tri_tri_overlap says on the same coordinates.
 *
 * Scale: candidates are compared by squared distance, and the segment
 * solution multiplies two squared lengths; neither overflows nor
 * underflows for coordinates within 2^+-240 and distances above 2^-500; a
 * least square below 2^-1000 (it may have lost bits) has the candidates
 * compared again by distance, each computed without squares of tiny
 * numbers. Coordinates beyond 2^240 are scaled by a power of two first
 * (glcollide_distance_scale), and so are those of a scene wholly below
 * 2^-240 (exact, both ways): at 1e-110 or 1e110 the product of squared
 * lengths would underflow or overflow and an edge pair's nearest points
 * be missed.
 */
#include "geometry/geometry_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

void glcollide_triangle_prepare(glcollide_prepared_triangle *t, const double *a, const double *b,
                                const double *c)
{
    memcpy(t->p[0], a, sizeof t->p[0]);
    memcpy(t->p[1], b, sizeof t->p[1]);
    memcpy(t->p[2], c, sizeof t->p[2]);
    double e1[3], e2[3];
    glcollide_vec3_sub(e1, b, a);
    glcollide_vec3_sub(e2, c, a);
    glcollide_vec3_cross(t->n, e1, e2);
    t->nn = glcollide_vec3_dot(t->n, t->n);
    for (int k = 0; k < 3; k++) {
        t->lo[k] = glcollide_smaller(glcollide_smaller(c[k], b[k]), a[k]);
        t->hi[k] = glcollide_larger(glcollide_larger(c[k], b[k]), a[k]);
    }
}

/* What the full test needs beyond the prepared triangle: its edges, their
 * squared lengths and boxes, and the in-plane normals of its edges pointing
 * inside (n x (p[i+1] - p[i])). Made per test, not kept: few pairs come to
 * it, and the triangles that only meet bounds stay small. */
typedef struct triangle_edges {
    const glcollide_prepared_triangle *t;
    double edge[3][3], edge2[3];
    double edge_lo[3][3], edge_hi[3][3];
    double inward[3][3];
} triangle_edges;

static void prepare_edges(triangle_edges *e, const glcollide_prepared_triangle *t)
{
    e->t = t;
    for (int i = 0; i < 3; i++) {
        const double *p = t->p[i], *q = t->p[(i + 1) % 3];
        glcollide_vec3_sub(e->edge[i], q, p);
        for (int k = 0; k < 3; k++) {
            e->edge_lo[i][k] = glcollide_smaller(q[k], p[k]);
            e->edge_hi[i][k] = glcollide_larger(q[k], p[k]);
        }
        e->edge2[i] = glcollide_vec3_dot(e->edge[i], e->edge[i]);
        glcollide_vec3_cross(e->inward[i], t->n, e->edge[i]); /* into the triangle, in its plane */
    }
}

/* The candidates found so far: the best one's measure (squared distance,
 * or in the careful pass the distance itself) and its points. */
typedef struct nearest {
    double best;
    int careful;
    double *pa, *pb;
} nearest;

/* |v| without overflow or underflow of the squares. */
static double norm3(const double v[3])
{
    double m = glcollide_larger(glcollide_larger(fabs(v[2]), fabs(v[1])), fabs(v[0]));
    if (!(m > 0.0) || !isfinite(m))
        return m;
    double x = v[0] / m, y = v[1] / m, z = v[2] / m;
    return m * sqrt(x * x + y * y + z * z);
}

static inline void keep_nearer(nearest *n, const double p[3], const double q[3])
{
    double v[3];
    glcollide_vec3_sub(v, q, p);
    double measure = n->careful ? norm3(v) : glcollide_vec3_dot(v, v);
    if (measure < n->best) {
        n->best = measure;
        memcpy(n->pa, p, 3 * sizeof *n->pa);
        memcpy(n->pb, q, 3 * sizeof *n->pb);
    }
}

/* The vertex p against the inside of face t: its foot on t's plane when
 * that falls inside t (a triangle without area has no inside). */
static inline int foot_on_face(const triangle_edges *e, const double p[3], double foot[3])
{
    const glcollide_prepared_triangle *t = e->t;
    if (!(t->nn > 0.0))
        return 0;
    for (int i = 0; i < 3; i++) {
        double w[3];
        glcollide_vec3_sub(w, p, t->p[i]);
        if (glcollide_vec3_dot(w, e->inward[i]) < 0.0)
            return 0;
    }
    double w[3];
    glcollide_vec3_sub(w, p, t->p[0]);
    double h = glcollide_vec3_dot(w, t->n) / t->nn;
    for (int k = 0; k < 3; k++)
        foot[k] = p[k] - h * t->n[k];
    return 1;
}

/* The 6 vertex-face candidates. */
static void vertex_face(const triangle_edges *a, const triangle_edges *b, nearest *n)
{
    double foot[3];
    for (int i = 0; i < 3; i++) {
        if (foot_on_face(b, a->t->p[i], foot))
            keep_nearer(n, a->t->p[i], foot);
        if (foot_on_face(a, b->t->p[i], foot))
            keep_nearer(n, foot, b->t->p[i]);
    }
}

/* The 9 edge-edge candidates, but for the edge pairs whose boxes are
 * farther apart than the best so far or than the limit (squared: only in
 * the first pass). The boxes' gap is taken 2^-40 short, far more than the
 * rounding of a candidate within 2^+-240, so no edge pair that would be
 * kept is passed over. */
static void edge_edge(const triangle_edges *a, const triangle_edges *b, double limit2, nearest *n)
{
    for (int i = 0; i < 3; i++) {
        const double *u1 = a->t->p[i];
        for (int j = 0; j < 3; j++) {
            const double *u2 = b->t->p[j];
            if (!n->careful) {
                double gap2 = 0.0;
                for (int k = 0; k < 3; k++) {
                    double g = glcollide_larger(a->edge_lo[i][k] - b->edge_hi[j][k],
                                                b->edge_lo[j][k] - a->edge_hi[i][k]) -
                               0x1p-40 * (fabs(u1[k]) + fabs(u2[k]));
                    gap2 += g > 0.0 ? g * g : 0.0;
                }
                if (gap2 >= n->best || gap2 >= limit2)
                    continue;
            }
            double s, t, ca[3], cb[3];
            glcollide_segment_parameters(u1, a->edge[i], a->edge2[i], u2, b->edge[j], b->edge2[j],
                                         &s, &t);
            for (int k = 0; k < 3; k++) {
                ca[k] = u1[k] + s * a->edge[i][k];
                cb[k] = u2[k] + t * b->edge[j][k];
            }
            keep_nearer(n, ca, cb);
        }
    }
}

/* Is every corner of a strictly below every corner of b along v = pb - pa,
 * beyond the rounding of the dot products? Then a plane separates them:
 * they do not meet. A dot product of three terms is off by at most 3 units
 * in the last place of sum |v_k x_k| <= |v|_1 max |x| (plus underflow): 8
 * covers that and the rounding of the bound itself. */
static int separated(const glcollide_prepared_triangle *a, const glcollide_prepared_triangle *b,
                     const double pa[3], const double pb[3])
{
    double v[3];
    glcollide_vec3_sub(v, pb, pa);
    double largest = 0.0, top_a = -INFINITY, bottom_b = INFINITY;
    for (int i = 0; i < 3; i++) {
        top_a = glcollide_larger(glcollide_vec3_dot(v, a->p[i]), top_a);
        bottom_b = glcollide_smaller(glcollide_vec3_dot(v, b->p[i]), bottom_b);
        for (int k = 0; k < 3; k++)
            largest =
                glcollide_larger(glcollide_larger(fabs(b->p[i][k]), fabs(a->p[i][k])), largest);
    }
    double error =
        8.0 * DBL_EPSILON * (fabs(v[0]) + fabs(v[1]) + fabs(v[2])) * largest + 8.0 * DBL_MIN;
    return top_a + error < bottom_b - error;
}

double glcollide_triangle_closest(const glcollide_prepared_triangle *a,
                                  const glcollide_prepared_triangle *b, double limit, double pa[3],
                                  double pb[3])
{
    triangle_edges ea, eb;
    prepare_edges(&ea, a);
    prepare_edges(&eb, b);
    memcpy(pa, a->p[0], sizeof a->p[0]);
    memcpy(pb, b->p[0], sizeof b->p[0]);
    /* A limit whose square underflows prunes nothing. */
    double limit2 = limit * limit;
    if (limit > 0.0 && !(limit2 >= 0x1p-1000))
        limit2 = INFINITY;
    nearest n = {INFINITY, 0, pa, pb};
    vertex_face(&ea, &eb, &n);
    edge_edge(&ea, &eb, limit2, &n);
    double d = sqrt(n.best);
    if (!(n.best >= 0x1p-1000)) {
        /* Squares this small may have lost bits: all again, by distance. */
        n = (nearest){INFINITY, 1, pa, pb};
        vertex_face(&ea, &eb, &n);
        edge_edge(&ea, &eb, INFINITY, &n);
        d = n.best;
    }
    if (d > 0.0 && separated(a, b, pa, pb))
        return d;
    double seg0[3], seg1[3];
    if (glcollide_tri_tri_intersection(a->p[0], a->p[1], a->p[2], b->p[0], b->p[1], b->p[2], seg0,
                                       seg1)) {
        memcpy(pa, seg0, sizeof seg0);
        memcpy(pb, seg0, sizeof seg0);
        return 0.0;
    }
    /* Disjoint (exactly), however close: the distance stays positive. */
    return d > 0.0 ? d : DBL_TRUE_MIN;
}

double glcollide_distance_scale(double largest)
{
    if (!(largest >= 0x1p240 || (largest > 0.0 && largest < 0x1p-240)) || !isfinite(largest))
        return 1.0;
    int exponent;
    frexp(largest, &exponent); /* largest < 2^exponent */
    return ldexp(1.0, -exponent);
}

double glcollide_tri_tri_distance(const double a0[3], const double a1[3], const double a2[3],
                                  const double b0[3], const double b1[3], const double b2[3],
                                  double pa[3], double pb[3])
{
    const double *corners[6] = {a0, a1, a2, b0, b1, b2};
    double largest = 0.0, p[6][3];
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 3; k++)
            largest = glcollide_larger(fabs(corners[i][k]), largest);
    double scale = glcollide_distance_scale(largest);
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 3; k++)
            p[i][k] = corners[i][k] * scale;
    glcollide_prepared_triangle ta, tb;
    glcollide_triangle_prepare(&ta, p[0], p[1], p[2]);
    glcollide_triangle_prepare(&tb, p[3], p[4], p[5]);
    double ca[3], cb[3];
    double d = glcollide_triangle_closest(&ta, &tb, INFINITY, ca, cb);
    for (int k = 0; k < 3; k++) {
        if (pa)
            pa[k] = ca[k] / scale;
        if (pb)
            pb[k] = cb[k] / scale;
    }
    if (d == 0.0)
        return 0.0;
    d /= scale;
    return d > 0.0 ? d : DBL_TRUE_MIN; /* apart, however little */
}
