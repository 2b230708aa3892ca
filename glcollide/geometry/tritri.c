/* SPDX-License-Identifier: MIT */
/*
 * Triangle-triangle overlap (exact) and intersection segment (their distance:
 * triangle_distance.c).
 *
 * The overlap decision uses only exact orientation signs. The general case
 * follows Guigue and Devillers (2003): each triangle meets the other's plane
 * in a segment of the common line L, and the two segments are compared along
 * L with orient3d on triangle vertices alone. Everything else is reduced to
 * exact sub-cases: coplanar triangles (2D, by separating edge lines), and
 * degenerate triangles (collinear or coincident points), which are replaced
 * by the segment or point they span.
 *
 * Derivation of the crossing case (A, B non-degenerate, planes distinct).
 * Write nA = (a1-a0) x (a2-a0), so orient3d(a0,a1,a2,x) = -nA.(x-a0), same
 * for B, and d = nA x nB (the direction of L). Pick in A an apex p whose
 * side sp = orient3d(B, p) is nonzero while the two others q, r (in cyclic
 * order p, q, r) are on the other side or on the plane. The crossing points X
 * of pq and Y of pr with the plane of B bound A's segment on L, and
 * (X-p) x (Y-p) is a positive multiple of nA; expanding gives
 * Y - X = tau d with sign(tau) = sp. Symmetrically for B with apex p' and
 * side sp' = orient3d(A, p'): Y' - X' runs along -sp' d. For an edge p-e of A
 * and p'-e' of B with crossing points Z, Z', a column expansion gives
 *   orient3d(p, e, p', e') = -det[e-p, Z'-Z, e'-p'],
 * and det[e-p, d, e'-p'] = (nA.(e'-p')) (nB.(e-p)) has the sign sp sp', so
 *   sign((Z' - Z).d) = -sp sp' orient3d(p, e, p', e').
 * The segments overlap iff low(A) <= high(B) and low(B) <= high(A) along d:
 * two orient3d calls. When no apex exists, the triangle touches the other's
 * plane at a single vertex, and the test becomes point-in-triangle.
 */
#include "geometry/geometry_internal.h"
#include "geometry/predicates.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- small helpers */

/* The point or segment spanned by collinear (or coincident) points. */
typedef struct hull {
    int count; /* 1: point p[0]; 2: segment p[0] p[1], p[0] != p[1] */
    const double *p[2];
} hull;

static hull degenerate_hull(const double *const t[3])
{
    /* Along an axis where the points differ, the coordinate is a one-to-one
     * affine function of the position on their common line, so the extremes
     * along that axis are the segment's endpoints. */
    for (int k = 0; k < 3; k++) {
        int low = 0, high = 0;
        for (int i = 1; i < 3; i++) {
            if (t[i][k] < t[low][k])
                low = i;
            if (t[i][k] > t[high][k])
                high = i;
        }
        if (t[low][k] < t[high][k])
            return (hull){2, {t[low], t[high]}};
    }
    return (hull){1, {t[0], t[0]}};
}

static int same_point(const double *a, const double *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static int strictly_one_side(const int s[3])
{
    int positive = (s[0] > 0) + (s[1] > 0) + (s[2] > 0);
    int negative = (s[0] < 0) + (s[1] < 0) + (s[2] < 0);
    return (positive == 3) | (negative == 3);
}

static int all_zero(const int s[3])
{
    return s[0] == 0 && s[1] == 0 && s[2] == 0;
}

/* An index i with s[i] != 0 and both others on the opposite side or zero; -1 if none. */
static int apex_index(const int s[3])
{
    for (int i = 0; i < 3; i++)
        if (s[i] != 0 && s[(i + 1) % 3] != s[i] && s[(i + 2) % 3] != s[i])
            return i;
    return -1;
}

static int zero_index(const int s[3])
{
    return s[0] == 0 ? 0 : (s[1] == 0 ? 1 : 2);
}

/* ---------------------------------------------------------------- exact sub-tests */

/* Collinear segments (all four points on one line): do they share a point? */
static int collinear_segments_overlap(const double *u1, const double *v1, const double *u2,
                                      const double *v2)
{
    int k = 0;
    while (k < 2 && u1[k] == v1[k])
        k++;
    double lo1 = fmin(u1[k], v1[k]), hi1 = fmax(u1[k], v1[k]);
    double lo2 = fmin(u2[k], v2[k]), hi2 = fmax(u2[k], v2[k]);
    return lo1 <= hi2 && lo2 <= hi1;
}

/* p on the closed segment uv (u != v), in 3D. */
static int point_on_segment(const double *p, const double *u, const double *v)
{
    if (glcollide_triangle_drop_axis(u, v, p) >= 0)
        return 0; /* not collinear */
    return collinear_segments_overlap(u, v, p, p);
}

/* Is some edge line of triangle t (orientation s in the projection) strictly
 * separating it from all the points? */
static int edge_separates(const double *const t[3], int s, const double *const *points, int count,
                          int drop)
{
    for (int i = 0; i < 3; i++) {
        const double *from = t[i], *to = t[(i + 1) % 3];
        int j = 0;
        while (j < count && glcollide_orient2d_dropping(from, to, points[j], drop) == -s)
            j++;
        if (j == count)
            return 1;
    }
    return 0;
}

/* Are all three points strictly on one side of the line uv (projection)? */
static int line_separates(const double *u, const double *v, const double *const t[3], int drop)
{
    int s = glcollide_orient2d_dropping(u, v, t[0], drop);
    return s != 0 && glcollide_orient2d_dropping(u, v, t[1], drop) == s &&
           glcollide_orient2d_dropping(u, v, t[2], drop) == s;
}

/*
 * Coplanar overlap of a non-degenerate triangle a with a triangle, segment or
 * point b (count 3, 2 or 1) lying in its plane, in the projection that drops
 * axis `drop` (one-to-one on the plane). Two disjoint closed convex polygons
 * are separated by the line of an edge of one of them with the other strictly
 * beyond it: 0 lies outside the Minkowski difference a - b, hence strictly
 * outside the line of one of its edges, and each edge of a - b is an edge of a
 * or of -b carrying that strict separation. A segment b contributes its line
 * (both sides); a point contributes nothing.
 */
static int coplanar_overlap(const double *const a[3], const double *const *b, int count, int drop)
{
    int sa = glcollide_orient2d_dropping(a[0], a[1], a[2], drop);
    hull hb;
    if (count == 3) {
        int sb = glcollide_orient2d_dropping(b[0], b[1], b[2], drop);
        if (sb != 0)
            return !edge_separates(a, sa, b, 3, drop) && !edge_separates(b, sb, a, 3, drop);
        hb = degenerate_hull(b);
    } else {
        hb = (hull){count, {b[0], b[count - 1]}};
    }
    if (edge_separates(a, sa, hb.p, hb.count, drop))
        return 0;
    if (hb.count == 2 && line_separates(hb.p[0], hb.p[1], a, drop))
        return 0;
    return 1;
}

/* Point p lying in the plane of the non-degenerate triangle t: p in t? */
static int point_in_coplanar_triangle(const double *p, const double *const t[3])
{
    int drop = glcollide_triangle_drop_axis(t[0], t[1], t[2]);
    return coplanar_overlap(t, &p, 1, drop);
}

/*
 * A segment or point h against a non-degenerate triangle t. When h crosses
 * the plane at one point X, X = u + s (v - u), the signs of
 * orient3d(u, v, t_i, t_i+1) are those of X's barycentric coordinates times a
 * common nonzero factor, so X is in t iff no two of them are strictly opposite.
 */
static int hull_meets_triangle(const hull *h, const double *const t[3])
{
    const double *u = h->p[0], *v = h->p[1];
    int su = glcollide_orient3d(t[0], t[1], t[2], u);
    int sv = h->count == 2 ? glcollide_orient3d(t[0], t[1], t[2], v) : su;
    if (su == sv && su != 0)
        return 0;
    if (su == 0 && sv == 0) {
        int drop = glcollide_triangle_drop_axis(t[0], t[1], t[2]);
        return coplanar_overlap(t, h->p, h->count, drop);
    }
    int o0 = glcollide_orient3d(u, v, t[0], t[1]);
    int o1 = glcollide_orient3d(u, v, t[1], t[2]);
    int o2 = glcollide_orient3d(u, v, t[2], t[0]);
    int positive = o0 > 0 || o1 > 0 || o2 > 0;
    int negative = o0 < 0 || o1 < 0 || o2 < 0;
    return !(positive && negative);
}

/* Two segments or points in 3D. */
static int hull_meets_hull(const hull *h1, const hull *h2)
{
    if (h1->count == 1 && h2->count == 1)
        return same_point(h1->p[0], h2->p[0]);
    if (h1->count == 1)
        return point_on_segment(h1->p[0], h2->p[0], h2->p[1]);
    if (h2->count == 1)
        return point_on_segment(h2->p[0], h1->p[0], h1->p[1]);
    const double *u1 = h1->p[0], *v1 = h1->p[1], *u2 = h2->p[0], *v2 = h2->p[1];
    if (glcollide_orient3d(u1, v1, u2, v2) != 0)
        return 0;
    int drop = glcollide_triangle_drop_axis(u1, v1, u2);
    if (drop < 0)
        drop = glcollide_triangle_drop_axis(u1, v1, v2);
    if (drop < 0)
        return collinear_segments_overlap(u1, v1, u2, v2);
    /* Coplanar, not all collinear: the classical 2D straddle test. */
    int o1 = glcollide_orient2d_dropping(u1, v1, u2, drop);
    int o2 = glcollide_orient2d_dropping(u1, v1, v2, drop);
    if (o1 == o2 && o1 != 0)
        return 0;
    int o3 = glcollide_orient2d_dropping(u2, v2, u1, drop);
    int o4 = glcollide_orient2d_dropping(u2, v2, v1, drop);
    if (o3 == o4 && o3 != 0)
        return 0;
    if (o1 == 0 && o2 == 0 && o3 == 0 && o4 == 0)
        return collinear_segments_overlap(u1, v1, u2, v2);
    return 1;
}

/* The crossing configuration prepared for comparison along L (see the top). */
typedef struct crossing {
    const double *p, *low_a, *high_a; /* apex of A, far ends of its low and high edges */
    const double *q, *low_b, *high_b; /* same for B */
    int sign;                         /* sp * sp' */
    /* Whether each far end lies in the other triangle's plane (its sign,
     * from classify, is 0). */
    int low_a_in, high_a_in, low_b_in, high_b_in;
    /* Non-NULL when a triangle meets the other's plane at this vertex only;
     * touched is then the other triangle, in whose plane the vertex lies. */
    const double *touching_vertex;
    const double *const *touched;
} crossing;

static void prepare_crossing(const double *const a[3], const int sa[3], const double *const b[3],
                             const int sb[3], crossing *c)
{
    memset(c, 0, sizeof *c);
    int ia = apex_index(sa), ib = apex_index(sb);
    if (ia < 0) {
        c->touching_vertex = a[zero_index(sa)];
        c->touched = b;
        return;
    }
    if (ib < 0) {
        c->touching_vertex = b[zero_index(sb)];
        c->touched = a;
        return;
    }
    /* A's crossing points run from edge p-q to edge p-r along sa[ia] d; B's from
     * edge p'-q' to p'-r' along -sb[ib] d. Name the ends low/high along d. */
    const double *q = a[(ia + 1) % 3], *r = a[(ia + 2) % 3];
    const double *q2 = b[(ib + 1) % 3], *r2 = b[(ib + 2) % 3];
    int sq = sa[(ia + 1) % 3], sr = sa[(ia + 2) % 3];
    int sq2 = sb[(ib + 1) % 3], sr2 = sb[(ib + 2) % 3];
    c->p = a[ia];
    c->low_a = sa[ia] > 0 ? q : r;
    c->high_a = sa[ia] > 0 ? r : q;
    c->low_a_in = (sa[ia] > 0 ? sq : sr) == 0;
    c->high_a_in = (sa[ia] > 0 ? sr : sq) == 0;
    c->q = b[ib];
    c->low_b = sb[ib] > 0 ? r2 : q2;
    c->high_b = sb[ib] > 0 ? q2 : r2;
    c->low_b_in = (sb[ib] > 0 ? sr2 : sq2) == 0;
    c->high_b_in = (sb[ib] > 0 ? sq2 : sr2) == 0;
    c->sign = sa[ia] * sb[ib];
}

/* sign((Z' - Z).d) for Z on edge p-e of A and Z' on edge p'-e2 of B. */
static int compare_along_line(const crossing *c, const double *e, const double *e2)
{
    return -c->sign * glcollide_orient3d(c->p, e, c->q, e2);
}

static int crossing_overlap(const crossing *c)
{
    if (c->touching_vertex)
        return point_in_coplanar_triangle(c->touching_vertex, c->touched);
    /* low(A) <= high(B) and low(B) <= high(A) */
    return compare_along_line(c, c->low_a, c->high_b) >= 0 &&
           compare_along_line(c, c->high_a, c->low_b) <= 0;
}

/* The decision tree shared by the overlap test and the intersection. */
typedef enum overlap_case {
    CASE_SEPARATED,       /* one triangle strictly on one side of the other's plane */
    CASE_CROSSING,        /* both non-degenerate, planes distinct */
    CASE_HULL_B_CROSSING, /* A non-degenerate, B degenerate and not in A's plane */
    CASE_COPLANAR,        /* A non-degenerate, B in its plane; drop axis of A */
    CASE_HULL_A_TRIANGLE, /* A degenerate, B non-degenerate */
    CASE_HULLS            /* both degenerate */
} overlap_case;

typedef struct overlap_state {
    const double *a[3], *b[3];
    const glcollide_plane_filter *plane_a, *plane_b; /* prepared planes, or NULL */
    int sa[3], sb[3];
    int drop;
    overlap_case kind;
} overlap_state;

static void classify(overlap_state *st)
{
    const double *const *a = st->a, *const *b = st->b;
    if (st->plane_a)
        glcollide_plane_sides3(st->plane_a, b, st->sb);
    else
        for (int i = 0; i < 3; i++)
            st->sb[i] = glcollide_orient3d(a[0], a[1], a[2], b[i]);
    st->kind = CASE_SEPARATED;
    if (strictly_one_side(st->sb))
        return;
    if (!all_zero(st->sb)) {
        /* A is non-degenerate and B is not in its plane. */
        if (st->plane_b)
            glcollide_plane_sides3(st->plane_b, a, st->sa);
        else
            for (int i = 0; i < 3; i++)
                st->sa[i] = glcollide_orient3d(b[0], b[1], b[2], a[i]);
        if (strictly_one_side(st->sa))
            return;
        /* All of A in B's plane would put B in A's plane: B is degenerate. */
        st->kind = all_zero(st->sa) ? CASE_HULL_B_CROSSING : CASE_CROSSING;
        return;
    }
    st->drop = glcollide_triangle_drop_axis(a[0], a[1], a[2]);
    if (st->drop >= 0) {
        st->kind = CASE_COPLANAR;
        return;
    }
    st->drop = glcollide_triangle_drop_axis(b[0], b[1], b[2]);
    st->kind = st->drop >= 0 ? CASE_HULL_A_TRIANGLE : CASE_HULLS;
}

static int decide(const overlap_state *st)
{
    hull ha, hb;
    crossing c;
    switch (st->kind) {
    case CASE_SEPARATED: return 0;
    case CASE_CROSSING:
        prepare_crossing(st->a, st->sa, st->b, st->sb, &c);
        return crossing_overlap(&c);
    case CASE_HULL_B_CROSSING: hb = degenerate_hull(st->b); return hull_meets_triangle(&hb, st->a);
    case CASE_COPLANAR: return coplanar_overlap(st->a, st->b, 3, st->drop);
    case CASE_HULL_A_TRIANGLE: ha = degenerate_hull(st->a); return hull_meets_triangle(&ha, st->b);
    case CASE_HULLS:
        ha = degenerate_hull(st->a);
        hb = degenerate_hull(st->b);
        return hull_meets_hull(&ha, &hb);
    }
    return 0;
}

static void init_state(overlap_state *st, const double a0[3], const double a1[3],
                       const double a2[3], const double b0[3], const double b1[3],
                       const double b2[3])
{
    st->plane_a = st->plane_b = NULL;
    st->drop = -1;
    st->a[0] = a0;
    st->a[1] = a1;
    st->a[2] = a2;
    st->b[0] = b0;
    st->b[1] = b1;
    st->b[2] = b2;
}

int glcollide_tri_tri_overlap(const double a0[3], const double a1[3], const double a2[3],
                              const double b0[3], const double b1[3], const double b2[3])
{
    overlap_state st;
    init_state(&st, a0, a1, a2, b0, b1, b2);
    classify(&st);
    return decide(&st);
}

/* ---------------------------------------------------------------- geometry (floating point) */

static void copy3(double out[3], const double p[3])
{
    out[0] = p[0];
    out[1] = p[1];
    out[2] = p[2];
}

static void lerp3(double out[3], const double p[3], const double q[3], double t)
{
    for (int k = 0; k < 3; k++)
        out[k] = p[k] + t * (q[k] - p[k]);
}

/* |v| without overflow or underflow of the squares. */
static double norm3(const double v[3])
{
    double m = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
    if (m == 0.0 || !isfinite(m))
        return m;
    double x = v[0] / m, y = v[1] / m, z = v[2] / m;
    return m * sqrt(x * x + y * y + z * z);
}

static double distance3(const double p[3], const double q[3])
{
    double v[3];
    glcollide_vec3_sub(v, p, q);
    return norm3(v);
}

/* Where segment p-e (p strictly off the plane of t) meets that plane; e_in:
 * whether e lies in it (exactly: then e is the point). */
static void plane_crossing_at(double out[3], const double *p, const double *e, int e_in,
                              const double *const t[3])
{
    if (e_in) {
        copy3(out, e);
        return;
    }
    double vp = glcollide_orient3d_value(t[0], t[1], t[2], p);
    double ve = glcollide_orient3d_value(t[0], t[1], t[2], e);
    lerp3(out, p, e, glcollide_clamp01(vp / (vp - ve)));
}

/* The same where whether e lies in the plane is not known yet. */
static void plane_crossing(double out[3], const double *p, const double *e,
                           const double *const t[3])
{
    plane_crossing_at(out, p, e, glcollide_orient3d(t[0], t[1], t[2], e) == 0, t);
}

/* Float orient2d in the projection dropping `drop`. */
static double orient2d_value(const double *a, const double *b, const double *c, int drop)
{
    int i = (drop + 1) % 3, j = (drop + 2) % 3;
    return (b[i] - a[i]) * (c[j] - a[j]) - (b[j] - a[j]) * (c[i] - a[i]);
}

#define MAX_POLYGON 12

/* Sutherland-Hodgman: keep the part of polygon (or segment, n = 2) where
 * side * orient2d(from, to, x) >= 0. */
static int clip_polygon(double poly[MAX_POLYGON][3], int n, const double *from, const double *to,
                        int side, int drop)
{
    double out[MAX_POLYGON][3];
    int m = 0;
    for (int i = 0; i < n; i++) {
        const double *p = poly[i], *q = poly[(i + 1) % n];
        double vp = side * orient2d_value(from, to, p, drop);
        double vq = side * orient2d_value(from, to, q, drop);
        if (vp >= 0.0 && m < MAX_POLYGON)
            copy3(out[m++], p);
        if (((vp > 0.0 && vq < 0.0) || (vp < 0.0 && vq > 0.0)) && m < MAX_POLYGON)
            lerp3(out[m++], p, q, glcollide_clamp01(vp / (vp - vq)));
    }
    memcpy(poly, out, (size_t)m * sizeof out[0]);
    return m;
}

/* The two farthest-apart points of a small set. */
static void extent_of(double poly[MAX_POLYGON][3], int n, double seg0[3], double seg1[3])
{
    int bi = 0, bj = 0;
    double best = -1.0;
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++) {
            double d = distance3(poly[i], poly[j]);
            if (d > best) {
                best = d;
                bi = i;
                bj = j;
            }
        }
    copy3(seg0, poly[bi]);
    copy3(seg1, poly[bj]);
}

/* The region of a point/segment/triangle `subject` inside the non-degenerate
 * triangle `window` (same plane), clipped in floating point. */
static int clip_to_triangle(double poly[MAX_POLYGON][3], const double *const *subject, int count,
                            const double *const window[3], int drop)
{
    for (int i = 0; i < count; i++)
        copy3(poly[i], subject[i]);
    if (count == 1)
        return 1;
    int side = glcollide_orient2d_dropping(window[0], window[1], window[2], drop);
    int n = count;
    for (int i = 0; i < 3 && n > 0; i++)
        n = clip_polygon(poly, n, window[i], window[(i + 1) % 3], side, drop);
    return n;
}

static double raw_distance(const double *const a[3], const double *const b[3], double pa[3],
                           double pb[3]);

/* Extent of the overlap of coplanar (or degenerate) triangles known to meet. */
static void coplanar_extent(const overlap_state *st, double seg0[3], double seg1[3])
{
    double poly[MAX_POLYGON][3];
    int n = 0;
    hull ha, hb;
    switch (st->kind) {
    case CASE_COPLANAR: {
        int sb = glcollide_orient2d_dropping(st->b[0], st->b[1], st->b[2], st->drop);
        if (sb != 0) {
            n = clip_to_triangle(poly, st->a, 3, st->b, st->drop);
        } else {
            hb = degenerate_hull(st->b);
            n = clip_to_triangle(poly, hb.p, hb.count, st->a, st->drop);
        }
        break;
    }
    case CASE_HULL_A_TRIANGLE:
        ha = degenerate_hull(st->a);
        n = clip_to_triangle(poly, ha.p, ha.count, st->b, st->drop);
        break;
    case CASE_HULLS:
        ha = degenerate_hull(st->a);
        hb = degenerate_hull(st->b);
        if (ha.count == 1 || hb.count == 1) {
            copy3(poly[0], ha.count == 1 ? ha.p[0] : hb.p[0]);
            n = 1;
        } else {
            /* Collinear overlap: the inner two of the four endpoints along an
             * axis where the line varies; crossing: the closest points. */
            int drop = glcollide_triangle_drop_axis(ha.p[0], ha.p[1], hb.p[0]);
            if (drop < 0)
                drop = glcollide_triangle_drop_axis(ha.p[0], ha.p[1], hb.p[1]);
            if (drop < 0) {
                int k = 0;
                while (k < 2 && ha.p[0][k] == ha.p[1][k])
                    k++;
                const double *lo1 = ha.p[0][k] < ha.p[1][k] ? ha.p[0] : ha.p[1];
                const double *hi1 = lo1 == ha.p[0] ? ha.p[1] : ha.p[0];
                const double *lo2 = hb.p[0][k] < hb.p[1][k] ? hb.p[0] : hb.p[1];
                const double *hi2 = lo2 == hb.p[0] ? hb.p[1] : hb.p[0];
                copy3(poly[0], lo1[k] > lo2[k] ? lo1 : lo2);
                copy3(poly[1], hi1[k] < hi2[k] ? hi1 : hi2);
                n = 2;
            }
        }
        break;
    default: break;
    }
    if (n == 0) {
        /* Touching configurations can clip to nothing in floating point (or two
         * segments cross): the closest points are then the contact. */
        double pa[3], pb[3];
        raw_distance(st->a, st->b, pa, pb);
        lerp3(poly[0], pa, pb, 0.5);
        n = 1;
    }
    extent_of(poly, n, seg0, seg1);
}

/* A degenerate triangle (hull h, not in the plane of t) crossing the triangle t. */
static void hull_crossing_point(const hull *h, const double *const t[3], double out[3])
{
    const double *u = h->p[0], *v = h->p[1];
    if (h->count == 1 || glcollide_orient3d(t[0], t[1], t[2], u) == 0)
        copy3(out, u);
    else
        plane_crossing(out, u, v, t);
}

int glcollide_tri_tri_intersection(const double a0[3], const double a1[3], const double a2[3],
                                   const double b0[3], const double b1[3], const double b2[3],
                                   double seg0[3], double seg1[3])
{
    return glcollide_tri_tri_intersection_sides(a0, a1, a2, b0, b1, b2, seg0, seg1, NULL, NULL);
}

static int intersection(overlap_state *st, double seg0[3], double seg1[3], int side_a[3],
                        int side_b[3]);

int glcollide_tri_tri_intersection_sides(const double a0[3], const double a1[3], const double a2[3],
                                         const double b0[3], const double b1[3], const double b2[3],
                                         double seg0[3], double seg1[3], int side_a[3],
                                         int side_b[3])
{
    overlap_state st;
    init_state(&st, a0, a1, a2, b0, b1, b2);
    return intersection(&st, seg0, seg1, side_a, side_b);
}

int glcollide_tri_tri_intersection_planes(const glcollide_plane_filter *a,
                                          const glcollide_plane_filter *b, double seg0[3],
                                          double seg1[3], int side_a[3], int side_b[3])
{
    overlap_state st;
    init_state(&st, a->t[0], a->t[1], a->t[2], b->t[0], b->t[1], b->t[2]);
    st.plane_a = a;
    st.plane_b = b;
    return intersection(&st, seg0, seg1, side_a, side_b);
}

static int intersection(overlap_state *state, double seg0[3], double seg1[3], int side_a[3],
                        int side_b[3])
{
    const double *b0 = state->b[0], *b1 = state->b[1], *b2 = state->b[2];
    crossing c; /* two crossing triangles: prepared once, to decide and to cut */
    classify(state);
    if (state->kind == CASE_CROSSING) {
        prepare_crossing(state->a, state->sa, state->b, state->sb, &c);
        if (!crossing_overlap(&c))
            return 0;
    } else if (!decide(state)) {
        return 0;
    }
    if (side_a && side_b) {
        /* classify computed both sets of signs unless the triangles are
         * coplanar (or one is degenerate in the other's plane). */
        int computed = state->kind == CASE_CROSSING || state->kind == CASE_HULL_B_CROSSING;
        for (int i = 0; i < 3; i++) {
            side_b[i] = state->sb[i];
            side_a[i] = computed         ? state->sa[i]
                        : state->plane_b ? glcollide_plane_side(state->plane_b, state->a[i])
                                         : glcollide_orient3d(b0, b1, b2, state->a[i]);
        }
    }

    double p0[3], p1[3];
    int result = 1;
    hull h;
    switch (state->kind) {
    case CASE_CROSSING:
        if (c.touching_vertex) {
            copy3(p0, c.touching_vertex);
            copy3(p1, c.touching_vertex);
            break;
        }
        /* low end: the larger of the two lows; high end: the smaller of the highs */
        if (compare_along_line(&c, c.low_a, c.low_b) >= 0)
            plane_crossing_at(p0, c.q, c.low_b, c.low_b_in, state->a);
        else
            plane_crossing_at(p0, c.p, c.low_a, c.low_a_in, state->b);
        if (compare_along_line(&c, c.high_a, c.high_b) <= 0)
            plane_crossing_at(p1, c.q, c.high_b, c.high_b_in, state->a);
        else
            plane_crossing_at(p1, c.p, c.high_a, c.high_a_in, state->b);
        break;
    case CASE_HULL_B_CROSSING:
        h = degenerate_hull(state->b);
        hull_crossing_point(&h, state->a, p0);
        copy3(p1, p0);
        break;
    case CASE_HULL_A_TRIANGLE:
        h = degenerate_hull(state->a);
        if (h.count == 2 && (glcollide_orient3d(b0, b1, b2, h.p[0]) != 0 ||
                             glcollide_orient3d(b0, b1, b2, h.p[1]) != 0)) {
            hull_crossing_point(&h, state->b, p0);
            copy3(p1, p0);
            break;
        }
        coplanar_extent(state, p0, p1);
        result = 2;
        break;
    default: /* coplanar, or two degenerate triangles that meet (hence coplanar) */
        coplanar_extent(state, p0, p1);
        result = 2;
        break;
    }
    if (seg0)
        copy3(seg0, p0);
    if (seg1)
        copy3(seg1, p1);
    return result;
}

/* ---------------------------------------------------------------- distance */

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void closest_on_segment(double out[3], const double p[3], const double *u, const double *v)
{
    double d[3], w[3];
    glcollide_vec3_sub(d, v, u);
    glcollide_vec3_sub(w, p, u);
    double dd = dot3(d, d);
    if (!(dd > 0.0)) {
        copy3(out, u);
        return;
    }
    double t = glcollide_clamp01(dot3(w, d) / dd);
    if (t == 1.0)
        copy3(out, v);
    else
        lerp3(out, u, v, t);
}

/* Closest point of the closed triangle t to p: the projection onto the plane
 * if it falls inside, else the closest point of the boundary. */
static void closest_on_triangle(double out[3], const double p[3], const double *const t[3])
{
    double e1[3], e2[3], n[3], w[3];
    glcollide_vec3_sub(e1, t[1], t[0]);
    glcollide_vec3_sub(e2, t[2], t[0]);
    glcollide_vec3_cross(n, e1, e2);
    double nn = dot3(n, n);
    if (nn > 0.0 && isfinite(nn)) {
        glcollide_vec3_sub(w, p, t[0]);
        double h = dot3(w, n) / nn;
        double q[3] = {p[0] - h * n[0], p[1] - h * n[1], p[2] - h * n[2]};
        int inside = 1;
        for (int i = 0; i < 3 && inside; i++) {
            double edge[3], to_q[3], c[3];
            glcollide_vec3_sub(edge, t[(i + 1) % 3], t[i]);
            glcollide_vec3_sub(to_q, q, t[i]);
            glcollide_vec3_cross(c, edge, to_q);
            inside = dot3(c, n) >= 0.0;
        }
        if (inside) {
            copy3(out, q);
            return;
        }
    }
    double best = INFINITY;
    for (int i = 0; i < 3; i++) {
        double c[3];
        closest_on_segment(c, p, t[i], t[(i + 1) % 3]);
        double d = distance3(c, p);
        if (d < best || i == 0) {
            best = d;
            copy3(out, c);
        }
    }
}

/* Closest points of segments u1v1 and u2v2 (minimising the convex quadratic
 * |u1 + s d1 - u2 - t d2|^2 over the unit square: the free optimum in s,
 * clamped, then the best t for it, clamped, then s again). For parallel
 * segments any optimum is returned; endpoint pairs are covered by the
 * point-triangle candidates anyway. */
void glcollide_closest_segments(const double *u1, const double *v1, const double *u2,
                                const double *v2, double c1[3], double c2[3])
{
    double d1[3], d2[3], s, t;
    glcollide_vec3_sub(d1, v1, u1);
    glcollide_vec3_sub(d2, v2, u2);
    glcollide_segment_parameters(u1, d1, dot3(d1, d1), u2, d2, dot3(d2, d2), &s, &t);
    for (int k = 0; k < 3; k++) {
        c1[k] = u1[k] + s * d1[k];
        c2[k] = u2[k] + t * d2[k];
    }
}

/* Minimum over the 6 vertex-triangle and 9 edge-edge candidates. */
static double raw_distance(const double *const a[3], const double *const b[3], double pa[3],
                           double pb[3])
{
    double best = INFINITY, ca[3], cb[3];
    copy3(pa, a[0]);
    copy3(pb, b[0]);
    for (int i = 0; i < 3; i++) {
        closest_on_triangle(cb, a[i], b);
        double d = distance3(a[i], cb);
        if (d < best) {
            best = d;
            copy3(pa, a[i]);
            copy3(pb, cb);
        }
        closest_on_triangle(ca, b[i], a);
        d = distance3(b[i], ca);
        if (d < best) {
            best = d;
            copy3(pa, ca);
            copy3(pb, b[i]);
        }
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            glcollide_closest_segments(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3], ca, cb);
            double d = distance3(ca, cb);
            if (d < best) {
                best = d;
                copy3(pa, ca);
                copy3(pb, cb);
            }
        }
    return best;
}
