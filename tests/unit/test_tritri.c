/* SPDX-License-Identifier: MIT */
/*
 * Triangle-triangle overlap, intersection and distance.
 *
 * The exact overlap test is compared with an independent exact formulation
 * written here in __int128 integer arithmetic (closed triangles meet iff an
 * edge of one meets the other; a segment meets a triangle iff it crosses its
 * plane inside it or, when coplanar, has an endpoint inside or crosses an
 * edge), on integer coordinates mapped exactly to doubles. Small grids make
 * touching, coplanar and degenerate configurations frequent. A plain
 * floating-point interval test (Moller 1997, written here) must agree on
 * well-separated generic pairs.
 *
 * Seeds: 0x7121001 (grid pairs), 0x7121002 (12-bit pairs), 0x7121003 (generic
 * float pairs), 0x7121004 (intersection), 0x7121005 (coplanar lattice),
 * 0x7121006 (distance), 0x7121007 (timing).
 */
#include "helpers/tests.h"

#include <float.h>
#include <glcollide/geometry.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef __int128 i128;

static int overlap(const double t[3][3], const double u[3][3])
{
    return glcollide_tri_tri_overlap(t[0], t[1], t[2], u[0], u[1], u[2]);
}

/* ---------------------------------------------------------------- independent exact reference */

typedef struct ivec {
    i128 x, y, z;
} ivec;

static ivec iv(const int64_t p[3])
{
    return (ivec){p[0], p[1], p[2]};
}
static ivec isub(ivec a, ivec b)
{
    return (ivec){a.x - b.x, a.y - b.y, a.z - b.z};
}
static ivec iscale(ivec a, i128 s)
{
    return (ivec){a.x * s, a.y * s, a.z * s};
}
static ivec icross(ivec a, ivec b)
{
    return (ivec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static i128 idot(ivec a, ivec b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static int iszero(ivec a)
{
    return a.x == 0 && a.y == 0 && a.z == 0;
}
static int isame(ivec a, ivec b)
{
    return iszero(isub(a, b));
}

/* p on the closed segment uv (u may equal v). */
static int ref_point_on_segment(ivec p, ivec u, ivec v)
{
    if (isame(u, v))
        return isame(p, u);
    ivec d = isub(v, u), w = isub(p, u);
    if (!iszero(icross(d, w)))
        return 0;
    i128 t = idot(w, d);
    return t >= 0 && t <= idot(d, d);
}

/* Closed segments u1v1 and u2v2 (either may be a point). */
static int ref_segments_meet(ivec u1, ivec v1, ivec u2, ivec v2)
{
    if (isame(u1, v1))
        return ref_point_on_segment(u1, u2, v2);
    if (isame(u2, v2))
        return ref_point_on_segment(u2, u1, v1);
    ivec d1 = isub(v1, u1), d2 = isub(v2, u2), w = isub(u2, u1);
    ivec n = icross(d1, d2);
    if (!iszero(n)) {
        if (idot(w, n) != 0)
            return 0; /* skew */
        /* u1 + s d1 = u2 + t d2: s = (w x d2).n / n.n, t = (w x d1).n / n.n */
        i128 nn = idot(n, n), s = idot(icross(w, d2), n), t = idot(icross(w, d1), n);
        return s >= 0 && s <= nn && t >= 0 && t <= nn;
    }
    if (!iszero(icross(d1, w)))
        return 0; /* parallel lines */
    i128 t0 = idot(w, d1), t1 = idot(isub(v2, u1), d1), dd = idot(d1, d1);
    i128 lo = t0 < t1 ? t0 : t1, hi = t0 < t1 ? t1 : t0;
    return lo <= dd && hi >= 0;
}

/* x / den (den > 0) inside the closed non-degenerate triangle t with normal n,
 * given x lies in its plane. */
static int ref_inside(ivec x, i128 den, const ivec t[3], ivec n)
{
    for (int i = 0; i < 3; i++) {
        ivec edge = isub(t[(i + 1) % 3], t[i]);
        ivec to_x = isub(x, iscale(t[i], den));
        if (idot(n, icross(edge, to_x)) < 0)
            return 0;
    }
    return 1;
}

/* Closed segment uv (possibly a point) against a closed triangle t (possibly degenerate). */
static int ref_segment_meets_triangle(ivec u, ivec v, const ivec t[3])
{
    ivec n = icross(isub(t[1], t[0]), isub(t[2], t[0]));
    if (iszero(n)) /* a degenerate triangle is the union of its edges */
        return ref_segments_meet(u, v, t[0], t[1]) || ref_segments_meet(u, v, t[1], t[2]) ||
               ref_segments_meet(u, v, t[2], t[0]);
    i128 su = idot(n, isub(u, t[0])), sv = idot(n, isub(v, t[0]));
    if ((su > 0 && sv > 0) || (su < 0 && sv < 0))
        return 0;
    if (su == 0 && sv == 0)
        return ref_inside(u, 1, t, n) || ref_inside(v, 1, t, n) ||
               ref_segments_meet(u, v, t[0], t[1]) || ref_segments_meet(u, v, t[1], t[2]) ||
               ref_segments_meet(u, v, t[2], t[0]);
    /* the crossing point X = (su v - sv u) / (su - sv) */
    i128 den = su - sv;
    ivec x = isub(iscale(v, su), iscale(u, sv));
    if (den < 0) {
        den = -den;
        x = iscale(x, -1);
    }
    return ref_inside(x, den, t, n);
}

/* Integer coordinates below 2^12 in magnitude keep every product in 128 bits. */
static int ref_overlap(const int64_t a[3][3], const int64_t b[3][3])
{
    ivec ta[3] = {iv(a[0]), iv(a[1]), iv(a[2])}, tb[3] = {iv(b[0]), iv(b[1]), iv(b[2])};
    for (int i = 0; i < 3; i++) {
        if (ref_segment_meets_triangle(ta[i], ta[(i + 1) % 3], tb))
            return 1;
        if (ref_segment_meets_triangle(tb[i], tb[(i + 1) % 3], ta))
            return 1;
    }
    return 0;
}

static int ref_all_coplanar(const int64_t a[3][3], const int64_t b[3][3])
{
    ivec p[6];
    for (int i = 0; i < 3; i++) {
        p[i] = iv(a[i]);
        p[3 + i] = iv(b[i]);
    }
    /* find a non-degenerate triangle among the points; then all must be in its plane */
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            for (int k = j + 1; k < 6; k++) {
                ivec n = icross(isub(p[j], p[i]), isub(p[k], p[i]));
                if (iszero(n))
                    continue;
                for (int m = 0; m < 6; m++)
                    if (idot(n, isub(p[m], p[i])) != 0)
                        return 0;
                return 1;
            }
    return 1; /* all collinear */
}

static int ref_degenerate(const int64_t t[3][3])
{
    return iszero(icross(isub(iv(t[1]), iv(t[0])), isub(iv(t[2]), iv(t[0]))));
}

/* ---------------------------------------------------------------- symmetry */

/* All 72 equivalent forms of the question (cyclic shifts and reversal of each
 * triangle, and swapping them) must give `expected`, and intersection and
 * distance must agree with it. */
static void require_all_forms(const double a[3][3], const double b[3][3], int expected,
                              const char *what, int check_distance)
{
    static const int forms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1},
                                    {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    for (int fa = 0; fa < 6; fa++)
        for (int fb = 0; fb < 6; fb++) {
            const double *pa[3] = {a[forms[fa][0]], a[forms[fa][1]], a[forms[fa][2]]};
            const double *pb[3] = {b[forms[fb][0]], b[forms[fb][1]], b[forms[fb][2]]};
            int ab = glcollide_tri_tri_overlap(pa[0], pa[1], pa[2], pb[0], pb[1], pb[2]);
            int ba = glcollide_tri_tri_overlap(pb[0], pb[1], pb[2], pa[0], pa[1], pa[2]);
            TEST_REQUIRE(ab == expected && ba == expected,
                         "%s: forms %d/%d give %d (swapped %d), expected %d", what, fa, fb, ab, ba,
                         expected);
            int in = glcollide_tri_tri_intersection(pa[0], pa[1], pa[2], pb[0], pb[1], pb[2], NULL,
                                                    NULL);
            TEST_REQUIRE((in != 0) == expected, "%s: forms %d/%d intersection %d, expected %d",
                         what, fa, fb, in, expected);
            if (check_distance) {
                double d = glcollide_tri_tri_distance(pa[0], pa[1], pa[2], pb[0], pb[1], pb[2],
                                                      NULL, NULL);
                TEST_REQUIRE((d == 0.0) == expected, "%s: forms %d/%d distance %g, expected %s",
                             what, fa, fb, d, expected ? "0" : "> 0");
            }
        }
}

/* ---------------------------------------------------------------- hand-made cases */

typedef struct tritri_case {
    const char *name;
    double a[3][3], b[3][3];
    int expected;
} tritri_case;

/* clang-format off */
/* BASE lies in z = 0, with its hypotenuse on x + y = 4. */
#define BASE {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}}
#define TINY 0x1p-1074 /* the smallest subnormal */
#define D40 0x1p-40
#define D50 0x1p-50

static const tritri_case hand_cases[] = {
    {"vertex on face", BASE, {{1, 1, 0}, {1, 2, 3}, {2, 1, 3}}, 1},
    {"vertex 1e-300 above face", BASE, {{1, 1, 1e-300}, {1, 2, 3}, {2, 1, 3}}, 0},
    {"vertex 2^-1074 above face", BASE, {{1, 1, TINY}, {1, 2, 3}, {2, 1, 3}}, 0},
    {"vertex 1e-300 below face (crossing)", BASE, {{1, 1, -1e-300}, {1, 2, 3}, {2, 1, 3}}, 1},
    {"vertex on edge", BASE, {{2, 0, 0}, {2, -1, 3}, {3, -1, 3}}, 1},
    {"vertex 2^-1074 outside edge", BASE, {{2, -TINY, 0}, {2, -1, 3}, {3, -1, 3}}, 0},
    {"vertex on hypotenuse", BASE, {{1, 3, 0}, {2, 3, 3}, {3, 3, 3}}, 1},
    {"vertex one ulp beyond hypotenuse", BASE, {{1, 0x1.0000000000001p+1 + 1, 0}, {2, 3, 3}, {3, 3, 3}}, 0},
    {"vertex on vertex", BASE, {{0, 0, 0}, {-1, -1, 3}, {-1, 0, 3}}, 1},
    {"vertex 2^-1074 from vertex", BASE, {{-TINY, 0, 0}, {-1, -1, 3}, {-1, 0, 3}}, 0},
    {"edge crosses edge", BASE, {{1, -1, 1}, {1, 1, -1}, {1, -3, -3}}, 1},
    {"edge passes 2^-40 outside edge", BASE, {{1, -1 - D40, 1}, {1, 1 - D40, -1}, {1, -3 - D40, -3}}, 0},
    {"edge passes 2^-40 inside edge", BASE, {{1, -1 + D40, 1}, {1, 1 + D40, -1}, {1, -3 + D40, -3}}, 1},
    {"collinear edges overlapping", BASE, {{1, 0, 0}, {3, 0, 0}, {1, -2, 5}}, 1},
    {"collinear edges touching at endpoints", BASE, {{4, 0, 0}, {6, 0, 0}, {5, -2, 5}}, 1},
    {"collinear edges disjoint", BASE, {{5, 0, 0}, {6, 0, 0}, {5, -2, 5}}, 0},
    {"coplanar overlapping", BASE, {{1, 1, 0}, {5, 1, 0}, {1, 5, 0}}, 1},
    {"coplanar contained", BASE, {{1, 1, 0}, {2, 1, 0}, {1, 2, 0}}, 1},
    {"coplanar containing", BASE, {{-1, -1, 0}, {9, -1, 0}, {-1, 9, 0}}, 1},
    {"coplanar identical", BASE, BASE, 1},
    {"coplanar disjoint", BASE, {{3, 3, 0}, {5, 3, 0}, {3, 5, 0}}, 0},
    {"coplanar disjoint behind a vertex", BASE, {{-1, -1, 0}, {-2, -1, 0}, {-1, -2, 0}}, 0},
    {"coplanar sharing an edge", BASE, {{4, 0, 0}, {0, 4, 0}, {4, 4, 0}}, 1},
    {"coplanar shared edge moved 2^-50 away", BASE, {{4 + D50, D50, 0}, {D50, 4 + D50, 0}, {4 + D50, 4 + D50, 0}}, 0},
    {"coplanar touching along part of an edge", BASE, {{1, 0, 0}, {3, 0, 0}, {2, -1, 0}}, 1},
    {"coplanar T-junction (vertex on edge)", BASE, {{2, 0, 0}, {3, -1, 0}, {1, -1, 0}}, 1},
    {"coplanar vertex 2^-1074 off the edge", BASE, {{2, -TINY, 0}, {3, -1, 0}, {1, -1, 0}}, 0},
    {"coplanar star (edges cross, no vertex inside)", BASE, {{-1, 1, 0}, {3, -1, 0}, {3, 3, 0}}, 1},
    {"coplanar vertex-vertex", BASE, {{4, 0, 0}, {5, 0, 0}, {5, -1, 0}}, 1},
    {"parallel planes", BASE, {{0, 0, 1}, {4, 0, 1}, {0, 4, 1}}, 0},
    {"parallel planes 2^-1074 apart", BASE, {{0, 0, TINY}, {4, 0, TINY}, {0, 4, TINY}}, 0},
    {"parallel planes 1e-300 apart", BASE, {{1, 1, 1e-300}, {5, 1, 1e-300}, {1, 5, 1e-300}}, 0},
    {"T-junction: standing on the face", BASE, {{1, 1, 0}, {2, 1, 0}, {1.5, 1, 2}}, 1},
    {"T-junction: hanging 2^-1074 above", BASE, {{1, 1, TINY}, {2, 1, TINY}, {1.5, 1, 2}}, 0},
    {"piercing", BASE, {{1, 1, -1}, {2, 1, 1}, {1, 2, 1}}, 1},
    {"crossing, planes tilted", BASE, {{-1, 1, -1}, {5, 1, -1}, {2, 1, 3}}, 1},
    {"segment through the face", BASE, {{1, 1, -1}, {1, 1, 1}, {1, 1, 0.5}}, 1},
    {"segment above the face", BASE, {{1, 1, 1}, {1, 1, 2}, {1, 1, 3}}, 0},
    {"segment in the plane crossing", BASE, {{-1, 1, 0}, {5, 1, 0}, {2, 1, 0}}, 1},
    {"segment in the plane outside", BASE, {{5, 5, 0}, {6, 6, 0}, {7, 7, 0}}, 0},
    {"segment in the plane along the hypotenuse", BASE, {{-1, 5, 0}, {5, -1, 0}, {2, 2, 0}}, 1},
    {"segment ending on the face", BASE, {{1, 1, 0}, {1, 1, 2}, {1, 1, 1}}, 1},
    {"segment ending 2^-1074 above", BASE, {{1, 1, TINY}, {1, 1, 2}, {1, 1, 1}}, 0},
    {"segment crossing the plane outside", BASE, {{3, 3, -1}, {3, 3, 1}, {3, 3, 0.5}}, 0},
    {"segment crossing the plane at the vertex", BASE, {{-1, -1, -1}, {1, 1, 1}, {0.5, 0.5, 0.5}}, 1},
    {"point on the face", BASE, {{1, 1, 0}, {1, 1, 0}, {1, 1, 0}}, 1},
    {"point 1e-300 above", BASE, {{1, 1, 1e-300}, {1, 1, 1e-300}, {1, 1, 1e-300}}, 0},
    {"point on a vertex", BASE, {{4, 0, 0}, {4, 0, 0}, {4, 0, 0}}, 1},
    {"point on the hypotenuse", BASE, {{2, 2, 0}, {2, 2, 0}, {2, 2, 0}}, 1},
    {"point one ulp beyond the hypotenuse", BASE, {{2, 0x1.0000000000001p+1, 0}, {2, 0x1.0000000000001p+1, 0}, {2, 0x1.0000000000001p+1, 0}}, 0},
    {"segments crossing", {{0, 0, 0}, {2, 2, 0}, {1, 1, 0}}, {{0, 2, 0}, {2, 0, 0}, {0.5, 1.5, 0}}, 1},
    {"segments skew", {{0, 0, 0}, {2, 2, 0}, {1, 1, 0}}, {{0, 2, 1}, {2, 0, 1}, {0.5, 1.5, 1}}, 0},
    {"segments coplanar, not meeting", {{0, 0, 0}, {2, 2, 0}, {1, 1, 0}}, {{3, 2, 0}, {5, 0, 0}, {4, 1, 0}}, 0},
    {"segments touching end to middle", {{0, 0, 0}, {2, 2, 0}, {1, 1, 0}}, {{1, 1, 0}, {3, -1, 0}, {2, 0, 0}}, 1},
    {"collinear segments overlapping", {{0, 0, 0}, {2, 2, 2}, {1, 1, 1}}, {{1.5, 1.5, 1.5}, {3, 3, 3}, {2, 2, 2}}, 1},
    {"collinear segments touching", {{0, 0, 0}, {2, 2, 2}, {1, 1, 1}}, {{2, 2, 2}, {3, 3, 3}, {4, 4, 4}}, 1},
    {"collinear segments disjoint", {{0, 0, 0}, {2, 2, 2}, {1, 1, 1}}, {{2.5, 2.5, 2.5}, {3, 3, 3}, {4, 4, 4}}, 0},
    {"parallel segments", {{0, 0, 0}, {2, 2, 2}, {1, 1, 1}}, {{0, 0, 1}, {2, 2, 3}, {1, 1, 2}}, 0},
    {"equal points", {{1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, {{1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, 1},
    {"distinct points", {{1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, {{1, 2, 0x1.8000000000001p+1}, {1, 2, 0x1.8000000000001p+1}, {1, 2, 0x1.8000000000001p+1}}, 0},
    {"point on a segment", {{0, 0, 0}, {2, 2, 2}, {1, 1, 1}}, {{0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}}, 1},
    {"point one ulp off a segment", {{0, 0, 0}, {2, 2, 2}, {1, 1, 1}}, {{0.5, 0.5, 0x1.0000000000001p-1}, {0.5, 0.5, 0x1.0000000000001p-1}, {0.5, 0.5, 0x1.0000000000001p-1}}, 0},
    {"point beyond a segment's end", {{0, 0, 0}, {2, 2, 2}, {1, 1, 1}}, {{3, 3, 3}, {3, 3, 3}, {3, 3, 3}}, 0},
};
/* clang-format on */

START_TEST(test_tritri_hand_cases)
{
    int n = (int)(sizeof hand_cases / sizeof hand_cases[0]);
    for (int i = 0; i < n; i++)
        require_all_forms(hand_cases[i].a, hand_cases[i].b, hand_cases[i].expected,
                          hand_cases[i].name, 1);
    printf("tritri: %d hand-made cases, 72 forms each\n", n);
}
END_TEST

/* ---------------------------------------------------------------- randomized agreement */

static void random_int_triangle(test_rng *rng, int64_t t[3][3], uint32_t range)
{
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            t[i][k] = (int64_t)test_rng_below(rng, range);
}

/* Shapes that make special configurations frequent on the small grid. */
static void special_grid_pair(test_rng *rng, int64_t a[3][3], int64_t b[3][3])
{
    switch (test_rng_below(rng, 8)) {
    case 0: /* both in a common axis plane */
    {
        int axis = (int)test_rng_below(rng, 3);
        int64_t level = (int64_t)test_rng_below(rng, 4);
        for (int i = 0; i < 3; i++)
            a[i][axis] = b[i][axis] = level;
        break;
    }
    case 1: /* a shared vertex */
        memcpy(b[test_rng_below(rng, 3)], a[test_rng_below(rng, 3)], sizeof a[0]);
        break;
    case 2: /* a shared edge */
        memcpy(b[0], a[0], sizeof a[0]);
        memcpy(b[1], a[1], sizeof a[0]);
        break;
    case 3: /* a degenerate: a repeated vertex */
        memcpy(a[2], a[test_rng_below(rng, 2)], sizeof a[0]);
        break;
    case 4: /* a degenerate: collinear a0, a1 and a2 = 2 a1 - a0 when on the grid */
        for (int k = 0; k < 3; k++) {
            int64_t v = 2 * a[1][k] - a[0][k];
            a[2][k] = v >= 0 && v <= 3 ? v : a[1][k];
        }
        break;
    case 5: /* both degenerate */
        memcpy(a[2], a[0], sizeof a[0]);
        memcpy(b[1], b[0], sizeof b[0]);
        break;
    case 6: /* a single point against a triangle */
        memcpy(a[1], a[0], sizeof a[0]);
        memcpy(a[2], a[0], sizeof a[0]);
        break;
    default: /* plain random */ break;
    }
}

/*
 * Exact maps from integers to doubles that preserve every incidence: x,
 * x 2^-30 + 2^20 (fractions with a large offset), x 2^-1060 (subnormal
 * range), x 2^990 (products overflow), and a per-axis permutation with sign.
 */
static void map_to_doubles(const int64_t in[3][3], double out[3][3], int map)
{
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            double x = (double)in[i][k];
            switch (map) {
            case 1: out[i][k] = ldexp(x, -30) + 0x1p20; break;
            case 2: out[i][k] = ldexp(x, -1060); break;
            case 3: out[i][k] = ldexp(x, 990); break;
            case 4: out[i][(k + 1) % 3] = k == 0 ? -x : x; break;
            default: out[i][k] = x; break;
            }
        }
}

typedef struct agreement_stats {
    long pairs, overlapping, coplanar, degenerate;
} agreement_stats;

static void compare_with_reference(test_rng *rng, uint32_t range, int special, long pairs,
                                   const char *seed_name, agreement_stats *stats)
{
    for (long it = 0; it < pairs; it++) {
        int64_t a[3][3], b[3][3];
        random_int_triangle(rng, a, range);
        random_int_triangle(rng, b, range);
        if (special)
            special_grid_pair(rng, a, b);
        int expected = ref_overlap(a, b);
        int map = (int)(it % 5);
        double da[3][3], db[3][3];
        map_to_doubles(a, da, map);
        map_to_doubles(b, db, map);
        int got = overlap(da, db);
        int swapped = overlap(db, da);
        TEST_REQUIRE(got == expected && swapped == expected,
                     "pair %ld (%s, map %d): overlap %d (swapped %d), reference %d\n"
                     "a = (%lld %lld %lld) (%lld %lld %lld) (%lld %lld %lld)\n"
                     "b = (%lld %lld %lld) (%lld %lld %lld) (%lld %lld %lld)",
                     it, seed_name, map, got, swapped, expected, (long long)a[0][0],
                     (long long)a[0][1], (long long)a[0][2], (long long)a[1][0], (long long)a[1][1],
                     (long long)a[1][2], (long long)a[2][0], (long long)a[2][1], (long long)a[2][2],
                     (long long)b[0][0], (long long)b[0][1], (long long)b[0][2], (long long)b[1][0],
                     (long long)b[1][1], (long long)b[1][2], (long long)b[2][0], (long long)b[2][1],
                     (long long)b[2][2]);
        stats->pairs++;
        stats->overlapping += expected;
        stats->coplanar += ref_all_coplanar(a, b);
        stats->degenerate += ref_degenerate(a) || ref_degenerate(b);
    }
}

START_TEST(test_tritri_random_grid_agreement)
{
    agreement_stats grid = {0}, wide = {0};
    test_rng rng = {0x7121001u};
    compare_with_reference(&rng, 4, 1, 150000, "seed 0x7121001", &grid);
    test_rng rng2 = {0x7121002u};
    compare_with_reference(&rng2, 4096, 0, 60000, "seed 0x7121002", &wide);
    printf("tritri: %ld grid {0..3} pairs agree with the reference (%ld overlapping, %ld "
           "coplanar, %ld with a degenerate triangle)\n",
           grid.pairs, grid.overlapping, grid.coplanar, grid.degenerate);
    printf("tritri: %ld 12-bit pairs agree with the reference (%ld overlapping)\n", wide.pairs,
           wide.overlapping);
    ck_assert_int_gt(grid.coplanar, 10000);
    ck_assert_int_gt(grid.degenerate, 10000);
    ck_assert_int_gt(grid.overlapping, 30000);
    ck_assert_int_gt(grid.pairs - grid.overlapping, 30000);
}
END_TEST

/* All 72 forms on grid pairs (touching, coplanar and degenerate ones included). */
START_TEST(test_tritri_grid_symmetry)
{
    test_rng rng = {0x7121001u ^ 0xffu};
    for (int it = 0; it < 4000; it++) {
        int64_t a[3][3], b[3][3];
        random_int_triangle(&rng, a, 4);
        random_int_triangle(&rng, b, 4);
        special_grid_pair(&rng, a, b);
        double da[3][3], db[3][3];
        map_to_doubles(a, da, 0);
        map_to_doubles(b, db, 0);
        char what[64];
        snprintf(what, sizeof what, "grid pair %d (seed 0x71210fe)", it);
        require_all_forms(da, db, ref_overlap(a, b), what, it < 1000);
    }
}
END_TEST

/* ---------------------------------------------------------------- floating-point comparison */

/* Vertices within size of a center uniform in [0, spread]^3. */
static void random_triangle(test_rng *rng, double t[3][3], double spread, double size)
{
    double c[3];
    for (int k = 0; k < 3; k++)
        c[k] = test_rng_uniform(rng, 0.0, spread);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            t[i][k] = c[k] + test_rng_uniform(rng, -size, size);
}

static void fsub(double o[3], const double a[3], const double b[3])
{
    o[0] = a[0] - b[0];
    o[1] = a[1] - b[1];
    o[2] = a[2] - b[2];
}
static void fcross(double o[3], const double a[3], const double b[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}
static double fdot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static double fdist(const double a[3], const double b[3])
{
    double d[3];
    fsub(d, a, b);
    return sqrt(fdot(d, d));
}

/* The interval of triangle t (projected values p, signed distances d) on the line. */
static void moller_interval(const double p[3], const double d[3], double out[2])
{
    int alone; /* the vertex alone on its side of the other plane */
    if (d[0] * d[1] > 0)
        alone = 2;
    else if (d[0] * d[2] > 0)
        alone = 1;
    else if (d[1] * d[2] > 0 || d[0] != 0)
        alone = 0;
    else if (d[1] != 0)
        alone = 1;
    else
        alone = 2;
    int o1 = (alone + 1) % 3, o2 = (alone + 2) % 3;
    double t1 = p[alone] + (p[o1] - p[alone]) * d[alone] / (d[alone] - d[o1]);
    double t2 = p[alone] + (p[o2] - p[alone]) * d[alone] / (d[alone] - d[o2]);
    out[0] = fmin(t1, t2);
    out[1] = fmax(t1, t2);
}

/* Plain floating-point interval overlap test (no exactness); -1 when coplanar. */
static int moller_overlap(const double a[3][3], const double b[3][3])
{
    double e1[3], e2[3], na[3], nb[3], da[3], db[3];
    fsub(e1, b[1], b[0]);
    fsub(e2, b[2], b[0]);
    fcross(nb, e1, e2);
    for (int i = 0; i < 3; i++) {
        double w[3];
        fsub(w, a[i], b[0]);
        da[i] = fdot(nb, w);
    }
    if ((da[0] > 0 && da[1] > 0 && da[2] > 0) || (da[0] < 0 && da[1] < 0 && da[2] < 0))
        return 0;
    fsub(e1, a[1], a[0]);
    fsub(e2, a[2], a[0]);
    fcross(na, e1, e2);
    for (int i = 0; i < 3; i++) {
        double w[3];
        fsub(w, b[i], a[0]);
        db[i] = fdot(na, w);
    }
    if ((db[0] > 0 && db[1] > 0 && db[2] > 0) || (db[0] < 0 && db[1] < 0 && db[2] < 0))
        return 0;
    if (da[0] == 0 && da[1] == 0 && da[2] == 0)
        return -1;
    double dir[3];
    fcross(dir, na, nb);
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(dir[k]) > fabs(dir[axis]))
            axis = k;
    double pa[3] = {a[0][axis], a[1][axis], a[2][axis]},
           pb[3] = {b[0][axis], b[1][axis], b[2][axis]};
    double ia[2], ib[2];
    moller_interval(pa, da, ia);
    moller_interval(pb, db, ib);
    return !(ia[1] < ib[0] || ib[1] < ia[0]);
}

/* Independent closest distance from p to triangle t (plane projection by the
 * 2x2 Gram system when inside, else the nearest edge). */
static double point_triangle_distance(const double p[3], const double t[3][3])
{
    double e1[3], e2[3], w[3];
    fsub(e1, t[1], t[0]);
    fsub(e2, t[2], t[0]);
    fsub(w, p, t[0]);
    double g11 = fdot(e1, e1), g12 = fdot(e1, e2), g22 = fdot(e2, e2);
    double r1 = fdot(w, e1), r2 = fdot(w, e2), det = g11 * g22 - g12 * g12;
    if (det > 1e-300) {
        double s = (r1 * g22 - r2 * g12) / det, u = (r2 * g11 - r1 * g12) / det;
        if (s >= 0 && u >= 0 && s + u <= 1) {
            double q[3];
            for (int k = 0; k < 3; k++)
                q[k] = t[0][k] + s * e1[k] + u * e2[k];
            return fdist(p, q);
        }
    }
    double best = INFINITY;
    for (int i = 0; i < 3; i++) {
        const double *u0 = t[i], *u1 = t[(i + 1) % 3];
        double d[3], v[3], q[3];
        fsub(d, u1, u0);
        fsub(v, p, u0);
        double dd = fdot(d, d), s = dd > 0 ? fdot(v, d) / dd : 0;
        s = s < 0 ? 0 : (s > 1 ? 1 : s);
        for (int k = 0; k < 3; k++)
            q[k] = u0[k] + s * d[k];
        best = fmin(best, fdist(p, q));
    }
    return best;
}

START_TEST(test_tritri_vs_floating_point)
{
    test_rng rng = {0x7121003u};
    long pairs = 0, overlapping = 0, disagree = 0, disagree_separated = 0, separated = 0;
    for (int it = 0; it < 50000; it++) {
        double a[3][3], b[3][3];
        random_triangle(&rng, a, 0.4, 0.3);
        random_triangle(&rng, b, 0.4, 0.3);
        int m = moller_overlap(a, b);
        if (m < 0)
            continue;
        double s0[3], s1[3];
        int kind = glcollide_tri_tri_intersection(a[0], a[1], a[2], b[0], b[1], b[2], s0, s1);
        int got = overlap(a, b);
        TEST_REQUIRE((kind != 0) == got, "pair %d: intersection %d vs overlap %d", it, kind, got);
        /* well separated: disjoint by more than 1e-9, or crossing along more than 1e-9 */
        double margin =
            got ? fdist(s0, s1)
                : glcollide_tri_tri_distance(a[0], a[1], a[2], b[0], b[1], b[2], NULL, NULL);
        int well = margin > 1e-9;
        pairs++;
        overlapping += got;
        separated += well;
        disagree += m != got;
        disagree_separated += well && m != got;
        TEST_REQUIRE(!(well && m != got),
                     "pair %d (seed 0x7121003): exact %d, Moller %d, margin %g", it, got, m,
                     margin);
    }
    printf("tritri: %ld generic float pairs vs Moller: %ld overlapping, %ld well separated, "
           "%ld disagreements (%ld among well separated)\n",
           pairs, overlapping, separated, disagree, disagree_separated);
    ck_assert_int_gt(overlapping, 5000);
    ck_assert_int_eq(disagree_separated, 0);
}
END_TEST

/* ---------------------------------------------------------------- intersection */

static double pair_size(const double a[3][3], const double b[3][3])
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], fmin(a[i][k], b[i][k]));
            hi[k] = fmax(hi[k], fmax(a[i][k], b[i][k]));
        }
    return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}

static void require_on_both(const double p[3], const double a[3][3], const double b[3][3],
                            double tolerance, const char *what)
{
    double da = point_triangle_distance(p, a), db = point_triangle_distance(p, b);
    TEST_REQUIRE(da <= tolerance && db <= tolerance,
                 "%s: endpoint (%.17g %.17g %.17g) at %g from A and %g from B", what, p[0], p[1],
                 p[2], da, db);
}

START_TEST(test_tritri_intersection_segment)
{
    test_rng rng = {0x7121004u};
    long crossing = 0;
    for (int it = 0; it < 20000; it++) {
        double a[3][3], b[3][3], s0[3], s1[3];
        random_triangle(&rng, a, 0.4, 0.3);
        random_triangle(&rng, b, 0.4, 0.3);
        int kind = glcollide_tri_tri_intersection(a[0], a[1], a[2], b[0], b[1], b[2], s0, s1);
        if (!kind)
            continue;
        char what[64];
        snprintf(what, sizeof what, "crossing pair %d (seed 0x7121004)", it);
        TEST_REQUIRE(kind == 1, "%s: kind %d", what, kind);
        double tolerance = 1e-9 * pair_size(a, b);
        require_on_both(s0, a, b, tolerance, what);
        require_on_both(s1, a, b, tolerance, what);
        /* the segment is the whole intersection: its length matches the swapped call */
        double t0[3], t1[3];
        ck_assert_int_eq(glcollide_tri_tri_intersection(b[0], b[1], b[2], a[0], a[1], a[2], t0, t1),
                         1);
        TEST_REQUIRE(fabs(fdist(s0, s1) - fdist(t0, t1)) <= tolerance, "%s: length differs", what);
        crossing++;
    }
    printf("tritri: %ld random crossing pairs: segment endpoints on both triangles\n", crossing);
    ck_assert_int_gt(crossing, 2000);

    /* analytic: B in the plane y = 1 crosses A along x in [1, 3] */
    const double a[3][3] = BASE, b[3][3] = {{1, 1, -1}, {1, 1, 1}, {3, 1, 0}};
    double s0[3], s1[3];
    ck_assert_int_eq(glcollide_tri_tri_intersection(a[0], a[1], a[2], b[0], b[1], b[2], s0, s1), 1);
    double lo = fmin(s0[0], s1[0]), hi = fmax(s0[0], s1[0]);
    ck_assert_double_eq_tol(lo, 1.0, 1e-12);
    ck_assert_double_eq_tol(hi, 3.0, 1e-12);
    ck_assert_double_eq_tol(s0[1], 1.0, 1e-12);
    ck_assert_double_eq_tol(s1[2], 0.0, 1e-12);
    /* touching at a vertex: a point, exactly that vertex */
    const double c[3][3] = {{1, 1, 0}, {1, 2, 3}, {2, 1, 3}};
    ck_assert_int_eq(glcollide_tri_tri_intersection(a[0], a[1], a[2], c[0], c[1], c[2], s0, s1), 1);
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq(s0[k], c[0][k]);
        ck_assert_double_eq(s1[k], c[0][k]);
    }
    /* coplanar, B inside A: 2, extent = B's longest edge (length sqrt 2) */
    const double d[3][3] = {{1, 1, 0}, {2, 1, 0}, {1, 2, 0}};
    ck_assert_int_eq(glcollide_tri_tri_intersection(a[0], a[1], a[2], d[0], d[1], d[2], s0, s1), 2);
    ck_assert_double_eq_tol(fdist(s0, s1), sqrt(2.0), 1e-12);
    /* disjoint: 0, outputs untouched */
    const double e[3][3] = {{0, 0, 1}, {4, 0, 1}, {0, 4, 1}};
    s0[0] = 42;
    ck_assert_int_eq(glcollide_tri_tri_intersection(a[0], a[1], a[2], e[0], e[1], e[2], s0, NULL),
                     0);
    ck_assert_double_eq(s0[0], 42);
}
END_TEST

/* Coplanar pairs on a tilted integer lattice plane o + i u + j v: 2 when they
 * overlap, with the extent's ends on both triangles. */
START_TEST(test_tritri_intersection_coplanar)
{
    test_rng rng = {0x7121005u};
    long coplanar = 0;
    for (int it = 0; it < 5000; it++) {
        int64_t u[3], v[3], o[3];
        for (int k = 0; k < 3; k++) {
            u[k] = (int64_t)test_rng_below(&rng, 7) - 3;
            v[k] = (int64_t)test_rng_below(&rng, 7) - 3;
            o[k] = (int64_t)test_rng_below(&rng, 100);
        }
        int64_t a[3][3], b[3][3];
        for (int i = 0; i < 3; i++) {
            int64_t ia = (int64_t)test_rng_below(&rng, 9), ja = (int64_t)test_rng_below(&rng, 9);
            int64_t ib = (int64_t)test_rng_below(&rng, 9), jb = (int64_t)test_rng_below(&rng, 9);
            for (int k = 0; k < 3; k++) {
                a[i][k] = o[k] + ia * u[k] + ja * v[k];
                b[i][k] = o[k] + ib * u[k] + jb * v[k];
            }
        }
        double da[3][3], db[3][3], s0[3], s1[3];
        map_to_doubles(a, da, 0);
        map_to_doubles(b, db, 0);
        int expected = ref_overlap(a, b);
        int kind = glcollide_tri_tri_intersection(da[0], da[1], da[2], db[0], db[1], db[2], s0, s1);
        TEST_REQUIRE((kind != 0) == expected, "lattice pair %d: %d, reference %d", it, kind,
                     expected);
        if (!kind)
            continue;
        char what[64];
        snprintf(what, sizeof what, "lattice pair %d (seed 0x7121005)", it);
        TEST_REQUIRE(kind == 2, "%s: kind %d", what, kind);
        double tolerance = 1e-9 * pair_size(da, db);
        require_on_both(s0, da, db, tolerance, what);
        require_on_both(s1, da, db, tolerance, what);
        coplanar++;
    }
    printf("tritri: %ld coplanar overlapping lattice pairs: kind 2, extent on both\n", coplanar);
    ck_assert_int_gt(coplanar, 1000);
}
END_TEST

/* ---------------------------------------------------------------- distance */

static void require_distance_witnesses(const double a[3][3], const double b[3][3], double d,
                                       const double pa[3], const double pb[3], const char *what)
{
    double size = pair_size(a, b);
    TEST_REQUIRE(point_triangle_distance(pa, a) <= 1e-9 * size, "%s: pa not on A", what);
    TEST_REQUIRE(point_triangle_distance(pb, b) <= 1e-9 * size, "%s: pb not on B", what);
    TEST_REQUIRE(fabs(fdist(pa, pb) - d) <= 1e-9 * size, "%s: |pa - pb| = %g, distance %g", what,
                 fdist(pa, pb), d);
}

START_TEST(test_tritri_distance_sampling)
{
    test_rng rng = {0x7121006u};
    int checked = 0;
    for (int it = 0; it < 300; it++) {
        double a[3][3], b[3][3], pa[3], pb[3];
        random_triangle(&rng, a, 0.4, 0.3);
        random_triangle(&rng, b, 0.4, 0.3);
        double d = glcollide_tri_tri_distance(a[0], a[1], a[2], b[0], b[1], b[2], pa, pb);
        char what[64];
        snprintf(what, sizeof what, "pair %d (seed 0x7121006)", it);
        TEST_REQUIRE((d == 0.0) == overlap(a, b), "%s: distance %g vs overlap", what, d);
        require_distance_witnesses(a, b, d, pa, pb, what);
        if (d == 0.0)
            continue;
        /* dense barycentric sampling of each triangle against the other: an upper bound */
        enum { N = 40 };
        double bound = INFINITY;
        for (int i = 0; i <= N; i++)
            for (int j = 0; i + j <= N; j++) {
                double s = (double)i / N, t = (double)j / N, pa_s[3], pb_s[3];
                for (int k = 0; k < 3; k++) {
                    pa_s[k] = a[0][k] + s * (a[1][k] - a[0][k]) + t * (a[2][k] - a[0][k]);
                    pb_s[k] = b[0][k] + s * (b[1][k] - b[0][k]) + t * (b[2][k] - b[0][k]);
                }
                bound = fmin(bound, point_triangle_distance(pa_s, b));
                bound = fmin(bound, point_triangle_distance(pb_s, a));
            }
        TEST_REQUIRE(d <= bound + 1e-12, "%s: distance %.17g above sampled bound %.17g", what, d,
                     bound);
        checked++;
    }
    printf("tritri: distance checked against sampling on %d disjoint pairs\n", checked);
    ck_assert_int_gt(checked, 100);

    /* 0 iff overlap on grid pairs, where touching is frequent */
    test_rng grid = {0x7121006u ^ 0x55u};
    for (int it = 0; it < 20000; it++) {
        int64_t ia[3][3], ib[3][3];
        random_int_triangle(&grid, ia, 4);
        random_int_triangle(&grid, ib, 4);
        special_grid_pair(&grid, ia, ib);
        double a[3][3], b[3][3], pa[3], pb[3];
        map_to_doubles(ia, a, 0);
        map_to_doubles(ib, b, 0);
        double d = glcollide_tri_tri_distance(a[0], a[1], a[2], b[0], b[1], b[2], pa, pb);
        int expected = ref_overlap(ia, ib);
        TEST_REQUIRE((d == 0.0) == expected, "grid pair %d: distance %g, reference overlap %d", it,
                     d, expected);
        char what[64];
        snprintf(what, sizeof what, "grid pair %d", it);
        require_distance_witnesses(a, b, d, pa, pb, what);
    }
}
END_TEST

START_TEST(test_tritri_distance_analytic)
{
    double pa[3], pb[3];
    const double a[3][3] = BASE;
    /* parallel planes 0.5 apart, overlapping in projection */
    const double b[3][3] = {{1, 1, 0.5}, {3, 1, 0.5}, {1, 3, 0.5}};
    ck_assert_double_eq_tol(glcollide_tri_tri_distance(a[0], a[1], a[2], b[0], b[1], b[2], pa, pb),
                            0.5, 1e-15);
    ck_assert_double_eq_tol(pa[2], 0.0, 1e-15);
    ck_assert_double_eq_tol(pb[2], 0.5, 1e-15);
    /* coplanar, one unit beyond the hypotenuse edge: (x + y - 4) / sqrt 2 */
    const double c[3][3] = {{3, 3, 0}, {6, 3, 0}, {3, 6, 0}};
    ck_assert_double_eq_tol(glcollide_tri_tri_distance(a[0], a[1], a[2], c[0], c[1], c[2], pa, pb),
                            2.0 / sqrt(2.0), 1e-14);
    /* skew edges: A's top edge along x at z = 0, B's bottom edge along y at z = h */
    const double h = 0.25;
    const double e[3][3] = {{-1, 0, 0}, {1, 0, 0}, {0, 0, -1}};
    const double f[3][3] = {{0, -1, h}, {0, 1, h}, {0, 0, h + 1}};
    ck_assert_double_eq_tol(glcollide_tri_tri_distance(e[0], e[1], e[2], f[0], f[1], f[2], pa, pb),
                            h, 1e-15);
    for (int k = 0; k < 2; k++) {
        ck_assert_double_eq_tol(pa[k], 0.0, 1e-15);
        ck_assert_double_eq_tol(pb[k], 0.0, 1e-15);
    }
    /* 1e-300 apart: positive, and right */
    const double g[3][3] = {{1, 1, 1e-300}, {3, 1, 1e-300}, {1, 3, 1e-300}};
    double d = glcollide_tri_tri_distance(a[0], a[1], a[2], g[0], g[1], g[2], pa, pb);
    ck_assert(d > 0.0);
    ck_assert_double_eq_tol(d / 1e-300, 1.0, 1e-12);
    /* one subnormal apart: exactly disjoint, so still positive */
    const double s[3][3] = {{1, 1, TINY}, {3, 1, TINY}, {1, 3, TINY}};
    ck_assert(glcollide_tri_tri_distance(a[0], a[1], a[2], s[0], s[1], s[2], NULL, NULL) > 0.0);
    /* touching: 0, with both witnesses at the contact */
    const double t[3][3] = {{1, 1, 0}, {1, 2, 3}, {2, 1, 3}};
    ck_assert_double_eq(glcollide_tri_tri_distance(a[0], a[1], a[2], t[0], t[1], t[2], pa, pb),
                        0.0);
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq(pa[k], t[0][k]);
        ck_assert_double_eq(pb[k], t[0][k]);
    }
    /* degenerate: a point 2 above the face, a segment beside the triangle */
    const double p[3][3] = {{1, 1, 2}, {1, 1, 2}, {1, 1, 2}};
    ck_assert_double_eq_tol(glcollide_tri_tri_distance(a[0], a[1], a[2], p[0], p[1], p[2], pa, pb),
                            2.0, 1e-15);
    const double q[3][3] = {{-1, -1, 0}, {-1, 5, 0}, {-1, 2, 0}};
    ck_assert_double_eq_tol(glcollide_tri_tri_distance(a[0], a[1], a[2], q[0], q[1], q[2], pa, pb),
                            1.0, 1e-15);
}
END_TEST

/* ---------------------------------------------------------------- timing (no assertion) */

START_TEST(test_tritri_timing)
{
    enum { N = 4096, REPEAT = 250 };
    static double a[N][3][3], b[N][3][3];
    test_rng rng = {0x7121007u};
    for (int i = 0; i < N; i++) {
        random_triangle(&rng, a[i], 1.0, 0.1);
        random_triangle(&rng, b[i], 1.0, 0.1);
    }
    long hits = 0;
    double t0 = test_now_ms();
    for (int r = 0; r < REPEAT; r++)
        for (int i = 0; i < N; i++)
            hits += overlap(a[i], b[i]);
    double t1 = test_now_ms();
    /* pairs that are close: b is a translate of a by a small offset, so most
     * pairs straddle each other's planes and reach the full test */
    for (int i = 0; i < N; i++)
        for (int v = 0; v < 3; v++)
            for (int k = 0; k < 3; k++)
                b[i][v][k] = a[(i + 1) % N][v][k] + (a[i][0][k] - a[(i + 1) % N][0][k]) +
                             test_rng_uniform(&rng, -0.05, 0.05);
    long hits2 = 0;
    double t2 = test_now_ms();
    for (int r = 0; r < REPEAT; r++)
        for (int i = 0; i < N; i++)
            hits2 += overlap(a[i], b[i]);
    double t3 = test_now_ms();
    /* grid pairs: exact fallbacks on touching and coplanar configurations */
    for (int i = 0; i < N; i++) {
        int64_t ia[3][3], ib[3][3];
        random_int_triangle(&rng, ia, 4);
        random_int_triangle(&rng, ib, 4);
        special_grid_pair(&rng, ia, ib);
        map_to_doubles(ia, a[i], 1);
        map_to_doubles(ib, b[i], 1);
    }
    long hits3 = 0;
    double t4 = test_now_ms();
    for (int r = 0; r < REPEAT / 10; r++)
        for (int i = 0; i < N; i++)
            hits3 += overlap(a[i], b[i]);
    double t5 = test_now_ms();
    double calls = (double)N * REPEAT;
    printf("tritri: overlap %.1f ns/call on random pairs (%.1f%% overlapping), %.1f ns/call on "
           "close pairs (%.1f%%), %.1f ns/call on touching/coplanar/degenerate grid pairs "
           "(%.1f%%)\n",
           (t1 - t0) * 1e6 / calls, 100.0 * hits / calls, (t3 - t2) * 1e6 / calls,
           100.0 * hits2 / calls, (t5 - t4) * 1e6 / (calls / 10), 100.0 * hits3 / (calls / 10));
}
END_TEST

Suite *suite_tritri(void)
{
    Suite *suite = suite_create("tritri");
    TCase *tc = tcase_create("tritri");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_tritri_hand_cases);
    tcase_add_test(tc, test_tritri_random_grid_agreement);
    tcase_add_test(tc, test_tritri_grid_symmetry);
    tcase_add_test(tc, test_tritri_vs_floating_point);
    tcase_add_test(tc, test_tritri_intersection_segment);
    tcase_add_test(tc, test_tritri_intersection_coplanar);
    tcase_add_test(tc, test_tritri_distance_sampling);
    tcase_add_test(tc, test_tritri_distance_analytic);
    tcase_add_test(tc, test_tritri_timing);
    suite_add_tcase(suite, tc);
    return suite;
}
