/* SPDX-License-Identifier: MIT */
/*
 * Exact orientation predicates against independent exact references:
 * __int128 determinants on integer inputs (any input that is an integer times
 * a common power of two, plus exact translations, reduces to one), and
 * analytic signs for constructions beyond 128 bits. Each case also checks the
 * three stages (filter, expansions, big integers) separately where they apply,
 * and counts how often plain double evaluation gets the sign wrong, to show
 * that the cases are hard.
 */
#include "helpers/tests.h"

#include "geometry/predicates.h"

#include <float.h>
#include <glcollide/geometry.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef __int128 i128;

static int sign_of(i128 v)
{
    return (v > 0) - (v < 0);
}

static int sign_of_double(double v)
{
    return (v > 0) - (v < 0);
}

/* det[a-d, b-d, c-d] on integers; exact while |coordinates| < 2^40. */
static int reference_orient3d(const int64_t a[3], const int64_t b[3], const int64_t c[3],
                              const int64_t d[3])
{
    i128 ad[3], bd[3], cd[3];
    for (int k = 0; k < 3; k++) {
        ad[k] = (i128)a[k] - d[k];
        bd[k] = (i128)b[k] - d[k];
        cd[k] = (i128)c[k] - d[k];
    }
    i128 v = ad[0] * (bd[1] * cd[2] - bd[2] * cd[1]) - ad[1] * (bd[0] * cd[2] - bd[2] * cd[0]) +
             ad[2] * (bd[0] * cd[1] - bd[1] * cd[0]);
    return sign_of(v);
}

/* det[a-c, b-c] on integers; exact while |coordinates| < 2^61. */
static int reference_orient2d(const int64_t a[2], const int64_t b[2], const int64_t c[2])
{
    i128 v = ((i128)a[0] - c[0]) * ((i128)b[1] - c[1]) - ((i128)a[1] - c[1]) * ((i128)b[0] - c[0]);
    return sign_of(v);
}

static double naive_orient3d(const double a[3], const double b[3], const double c[3],
                             const double d[3])
{
    return glcollide_orient3d_value(a, b, c, d);
}

static double naive_orient2d(const double a[2], const double b[2], const double c[2])
{
    return (a[0] - c[0]) * (b[1] - c[1]) - (a[1] - c[1]) * (b[0] - c[0]);
}

/* The public predicate and every stage that applies must give `expected`. */
static void require_orient3d(const double a[3], const double b[3], const double c[3],
                             const double d[3], int expected, const char *what)
{
    int got = glcollide_orient3d(a, b, c, d);
    TEST_REQUIRE(got == expected, "%s: orient3d %d, expected %d", what, got, expected);
    int big = glcollide_orient3d_bigint(a, b, c, d);
    TEST_REQUIRE(big == expected, "%s: bigint stage %d, expected %d", what, big, expected);
    int expansion;
    if (glcollide_orient3d_expansion(a, b, c, d, &expansion))
        TEST_REQUIRE(expansion == expected, "%s: expansion stage %d, expected %d", what, expansion,
                     expected);
    /* The prepared plane of abc: its filter never decides wrong, and with
     * its fallback it is exact. */
    glcollide_plane_filter plane;
    glcollide_plane_filter_init(&plane, a, b, c);
    int filtered = glcollide_plane_filter_sign(&plane, d);
    TEST_REQUIRE(filtered == 0 || filtered == expected, "%s: plane filter %d, expected %d", what,
                 filtered, expected);
    TEST_REQUIRE(glcollide_plane_side(&plane, d) == expected, "%s: plane side %d, expected %d",
                 what, glcollide_plane_side(&plane, d), expected);
}

static void require_orient2d(const double a[2], const double b[2], const double c[2], int expected,
                             const char *what)
{
    int got = glcollide_orient2d(a, b, c);
    TEST_REQUIRE(got == expected, "%s: orient2d %d, expected %d", what, got, expected);
    int big = glcollide_orient2d_bigint(a, b, c);
    TEST_REQUIRE(big == expected, "%s: bigint stage %d, expected %d", what, big, expected);
    int expansion;
    if (glcollide_orient2d_expansion(a, b, c, &expansion))
        TEST_REQUIRE(expansion == expected, "%s: expansion stage %d, expected %d", what, expansion,
                     expected);
}

static int64_t random_int(test_rng *rng, int bits)
{
    return (int64_t)(test_rng_next(rng) >> (64 - bits)) - ((int64_t)1 << (bits - 1));
}

/* ---------------------------------------------------------------- tests */

/* The classic near-collinear grid: a = (0.5 + i u, 0.5 + j u), u = 2^-53,
 * against b = (12, 12), c = (24, 24). Scaled by 2^53 everything is an integer
 * below 2^58, so __int128 is the reference. */
START_TEST(test_orient2d_near_collinear_grid)
{
    int naive_wrong = 0, cases = 0;
    const double b[2] = {12.0, 12.0}, c[2] = {24.0, 24.0};
    const int64_t bi[2] = {(int64_t)12 << 53, (int64_t)12 << 53};
    const int64_t ci[2] = {(int64_t)24 << 53, (int64_t)24 << 53};
    for (int i = 0; i < 256; i++)
        for (int j = 0; j < 256; j++) {
            double a[2] = {0.5 + i * 0x1p-53, 0.5 + j * 0x1p-53};
            int64_t ai[2] = {((int64_t)1 << 52) + i, ((int64_t)1 << 52) + j};
            int expected = reference_orient2d(ai, bi, ci);
            char what[64];
            snprintf(what, sizeof what, "grid i=%d j=%d", i, j);
            require_orient2d(a, b, c, expected, what);
            naive_wrong += sign_of_double(naive_orient2d(a, b, c)) != expected;
            /* antisymmetry on the same hard inputs */
            TEST_REQUIRE(glcollide_orient2d(b, a, c) == -expected, "%s: swap", what);
            TEST_REQUIRE(glcollide_orient2d(b, c, a) == expected, "%s: rotate", what);
            cases++;
        }
    printf("predicates: orient2d grid: %d cases, naive double wrong on %d\n", cases, naive_wrong);
    ck_assert_int_gt(naive_wrong, 1000); /* the case is hard, and we got all of it right */
}
END_TEST

/* The same in 3D: a = (0.5 + i u, 0.5 + j u, 0.5 + k u) against the plane
 * z = x through b = (12,12,12), c = (24,24,24), d = (1,2,1). The determinant
 * is affine in a and equals 12 (a_z - a_x) (a = d + e_z gives 12, a = d + e_x
 * gives -12, a = d + e_y gives 0), so the sign is sign(k - i). */
START_TEST(test_orient3d_near_coplanar_grid)
{
    const double b[3] = {12, 12, 12}, c[3] = {24, 24, 24}, d[3] = {1, 2, 1};
    int naive_wrong = 0, cases = 0;
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 8; j++)
            for (int k = 0; k < 32; k++) {
                double a[3] = {0.5 + i * 0x1p-53, 0.5 + j * 0x1p-53, 0.5 + k * 0x1p-53};
                int expected = (k > i) - (k < i);
                char what[64];
                snprintf(what, sizeof what, "grid i=%d j=%d k=%d", i, j, k);
                require_orient3d(a, b, c, d, expected, what);
                naive_wrong += sign_of_double(naive_orient3d(a, b, c, d)) != expected;
                TEST_REQUIRE(glcollide_orient3d(b, a, c, d) == -expected, "%s: swap", what);
                TEST_REQUIRE(glcollide_orient3d(a, b, d, c) == -expected, "%s: swap cd", what);
                cases++;
            }
    printf("predicates: orient3d grid: %d cases, naive double wrong on %d\n", cases, naive_wrong);
    ck_assert_int_gt(naive_wrong, 100);
}
END_TEST

/* Random 30-bit integer coordinates, as they are and mapped by exact
 * similarity transforms (power-of-two scaling over the whole exponent range,
 * translation by large offsets), which keep the orientation. Seed 0x5eed0001. */
START_TEST(test_orient_random_integers)
{
    test_rng rng = {0x5eed0001u};
    int cases = 0, nonzero = 0;
    for (int it = 0; it < 40000; it++) {
        int64_t p[4][3];
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                p[i][k] = random_int(&rng, 30);
        if (it % 3 == 1) /* coplanar, then perturbed by at most one unit */
            for (int k = 0; k < 3; k++)
                p[3][k] = p[0][k] + 3 * (p[1][k] - p[0][k]) / 4 - 2 * (p[2][k] - p[0][k]) / 4 +
                          (int64_t)test_rng_below(&rng, 3) - 1;
        if (it % 3 == 2) /* small values: many exact zeros */
            for (int i = 0; i < 4; i++)
                for (int k = 0; k < 3; k++)
                    p[i][k] = (int64_t)test_rng_below(&rng, 4);
        int expected3 = reference_orient3d(p[0], p[1], p[2], p[3]);
        int expected2 = reference_orient2d(p[0], p[1], p[2]);
        nonzero += expected3 != 0;

        /* Three exact maps: identity, scaling by 2^e, translation by 2^40 m. */
        for (int map = 0; map < 3; map++) {
            int e = map == 1 ? (int)test_rng_below(&rng, 2060) - 1070 : 0; /* [-1070, 989] */
            double offset[3] = {0, 0, 0};
            if (map == 2)
                for (int k = 0; k < 3; k++)
                    offset[k] = ldexp((double)((int)test_rng_below(&rng, 15) - 7), 40);
            double q[4][3];
            for (int i = 0; i < 4; i++)
                for (int k = 0; k < 3; k++)
                    q[i][k] = ldexp((double)p[i][k], e) + offset[k];
            char what[96];
            snprintf(what, sizeof what, "case %d map %d (seed 0x5eed0001)", it, map);
            require_orient3d(q[0], q[1], q[2], q[3], expected3, what);
            require_orient2d(q[0], q[1], q[2], expected2, what);
            cases++;
        }
    }
    printf("predicates: %d random integer cases (%d nonzero orient3d), all exact\n", cases,
           nonzero);
}
END_TEST

/* Four nearly collinear points with 39-bit coordinates: the determinant is
 * tiny against products near 2^80, where doubles fail. Seed 0x5eed0002. */
START_TEST(test_orient3d_near_collinear_large)
{
    test_rng rng = {0x5eed0002u};
    int naive_wrong = 0, cases = 0;
    for (int it = 0; it < 20000; it++) {
        int64_t base[3], dir[3], p[4][3];
        for (int k = 0; k < 3; k++) {
            base[k] = random_int(&rng, 38);
            dir[k] = random_int(&rng, 19);
        }
        for (int i = 0; i < 4; i++) {
            int64_t s = random_int(&rng, 18);
            for (int k = 0; k < 3; k++)
                p[i][k] =
                    base[k] + s * dir[k] + (i >= 2 ? (int64_t)test_rng_below(&rng, 5) - 2 : 0);
        }
        double q[4][3];
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                q[i][k] = (double)p[i][k];
        int expected = reference_orient3d(p[0], p[1], p[2], p[3]);
        char what[64];
        snprintf(what, sizeof what, "case %d (seed 0x5eed0002)", it);
        require_orient3d(q[0], q[1], q[2], q[3], expected, what);
        naive_wrong += sign_of_double(naive_orient3d(q[0], q[1], q[2], q[3])) != expected;
        cases++;
    }
    printf("predicates: near-collinear 39-bit: %d cases, naive double wrong on %d\n", cases,
           naive_wrong);
    ck_assert_int_gt(naive_wrong, 0);
}
END_TEST

/* Points built exactly coplanar / collinear give exactly 0, at any offset. */
START_TEST(test_orient_exact_zeros)
{
    test_rng rng = {0x5eed0003u};
    for (int it = 0; it < 5000; it++) {
        /* points o + i u + j v: integer lattice of a tilted plane, offset by up to 2^40 */
        int64_t o[3], u[3], v[3];
        for (int k = 0; k < 3; k++) {
            o[k] = ((int64_t)test_rng_below(&rng, 7) - 3) * ((int64_t)1 << 40);
            u[k] = random_int(&rng, 10);
            v[k] = random_int(&rng, 10);
        }
        double q[4][3];
        for (int i = 0; i < 4; i++) {
            int64_t s = random_int(&rng, 12), t = random_int(&rng, 12);
            for (int k = 0; k < 3; k++)
                q[i][k] = (double)(o[k] + s * u[k] + t * v[k]);
        }
        char what[64];
        snprintf(what, sizeof what, "plane lattice %d (seed 0x5eed0003)", it);
        require_orient3d(q[0], q[1], q[2], q[3], 0, what);
        /* scaled down into fractions: still exactly coplanar */
        double r[4][3];
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                r[i][k] = ldexp(q[i][k], -60);
        require_orient3d(r[0], r[1], r[2], r[3], 0, what);
        /* collinear in 2D: a, a + s w, a + t w */
        int64_t a[2] = {random_int(&rng, 50), random_int(&rng, 50)};
        int64_t w[2] = {random_int(&rng, 20), random_int(&rng, 20)};
        int64_t s = random_int(&rng, 20), t = random_int(&rng, 20);
        double pa[2] = {(double)a[0], (double)a[1]};
        double pb[2] = {(double)(a[0] + s * w[0]), (double)(a[1] + s * w[1])};
        double pc[2] = {(double)(a[0] + t * w[0]), (double)(a[1] + t * w[1])};
        require_orient2d(pa, pb, pc, 0, what);
    }
    /* Repeated points. */
    const double p[3] = {0.1, 0.2, 0.3}, q[3] = {1e300, -1e-300, 5};
    require_orient3d(p, p, q, q, 0, "repeated points");
    require_orient3d(p, q, p, q, 0, "repeated points");
    require_orient2d(p, q, q, 0, "repeated points 2d");
}
END_TEST

/* Every permutation of the four points multiplies the sign by its parity. */
START_TEST(test_orient_antisymmetry)
{
    static const int perms[24][4] = {
        {0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {0, 3, 2, 1},
        {1, 0, 2, 3}, {1, 0, 3, 2}, {1, 2, 0, 3}, {1, 2, 3, 0}, {1, 3, 0, 2}, {1, 3, 2, 0},
        {2, 0, 1, 3}, {2, 0, 3, 1}, {2, 1, 0, 3}, {2, 1, 3, 0}, {2, 3, 0, 1}, {2, 3, 1, 0},
        {3, 0, 1, 2}, {3, 0, 2, 1}, {3, 1, 0, 2}, {3, 1, 2, 0}, {3, 2, 0, 1}, {3, 2, 1, 0}};
    test_rng rng = {0x5eed0004u};
    for (int it = 0; it < 3000; it++) {
        /* nearly coplanar in floating point: d = a + s (b - a) + t (c - a), rounded */
        double p[4][3];
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++)
                p[i][k] =
                    test_rng_uniform(&rng, -1.0, 1.0) * ldexp(1.0, (int)test_rng_below(&rng, 40));
        double s = test_rng_uniform(&rng, -2, 2), t = test_rng_uniform(&rng, -2, 2);
        for (int k = 0; k < 3; k++)
            p[3][k] = p[0][k] + s * (p[1][k] - p[0][k]) + t * (p[2][k] - p[0][k]);
        int base = glcollide_orient3d(p[0], p[1], p[2], p[3]);
        for (int m = 0; m < 24; m++) {
            const int *pm = perms[m];
            int inversions = 0;
            for (int i = 0; i < 4; i++)
                for (int j = i + 1; j < 4; j++)
                    inversions += pm[i] > pm[j];
            int expected = inversions % 2 ? -base : base;
            int got = glcollide_orient3d(p[pm[0]], p[pm[1]], p[pm[2]], p[pm[3]]);
            TEST_REQUIRE(got == expected, "case %d perm %d: %d, expected %d (seed 0x5eed0004)", it,
                         m, got, expected);
        }
        int base2 = glcollide_orient2d(p[0], p[1], p[3]);
        TEST_REQUIRE(glcollide_orient2d(p[1], p[3], p[0]) == base2, "2d rotate %d", it);
        TEST_REQUIRE(glcollide_orient2d(p[3], p[0], p[1]) == base2, "2d rotate %d", it);
        TEST_REQUIRE(glcollide_orient2d(p[1], p[0], p[3]) == -base2, "2d swap %d", it);
        TEST_REQUIRE(glcollide_orient2d(p[0], p[3], p[1]) == -base2, "2d swap %d", it);
        TEST_REQUIRE(glcollide_orient2d(p[3], p[1], p[0]) == -base2, "2d swap %d", it);
        /* the two exact stages, written independently, agree on these */
        int expansion;
        if (glcollide_orient3d_expansion(p[0], p[1], p[2], p[3], &expansion))
            TEST_REQUIRE(expansion == base, "case %d: expansion %d vs %d", it, expansion, base);
        TEST_REQUIRE(glcollide_orient3d_bigint(p[0], p[1], p[2], p[3]) == base,
                     "case %d: bigint differs", it);
    }
}
END_TEST

/* Points a few ulps apart (relative 1e-16 .. 1e-17): coordinates 1 + k 2^-52
 * and 2^60 + k 2^8 are translates of small integers scaled by a power of two. */
START_TEST(test_orient_ulp_apart)
{
    test_rng rng = {0x5eed0005u};
    int naive_wrong = 0;
    for (int it = 0; it < 20000; it++) {
        int64_t p[4][3];
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                p[i][k] = (int64_t)test_rng_below(&rng, 9) - 4;
        int expected3 = reference_orient3d(p[0], p[1], p[2], p[3]);
        int expected2 = reference_orient2d(p[0], p[1], p[2]);
        double origin = it % 2 ? 1.0 : 0x1p60;
        double unit = it % 2 ? 0x1p-52 : 0x1p8;
        double q[4][3];
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                q[i][k] = origin + (double)p[i][k] * unit;
        char what[64];
        snprintf(what, sizeof what, "case %d (seed 0x5eed0005)", it);
        require_orient3d(q[0], q[1], q[2], q[3], expected3, what);
        require_orient2d(q[0], q[1], q[2], expected2, what);
        naive_wrong += sign_of_double(naive_orient3d(q[0], q[1], q[2], q[3])) != expected3;
    }
    printf("predicates: ulp-apart points: naive double wrong on %d of 20000\n", naive_wrong);
}
END_TEST

/* Huge and tiny together (products overflow or underflow in double, outside
 * the expansion stage's range): signs from constructions. Seed 0x5eed0006. */
START_TEST(test_orient_extreme_range)
{
    test_rng rng = {0x5eed0006u};
    for (int it = 0; it < 2000; it++) {
        /* a, b, c in the plane z = 0 with coordinates m 2^970, d off by +-2^-1074:
         * det[a-d, b-d, c-d] = -d_z orient2d(a, b, c). */
        int64_t ai[2] = {random_int(&rng, 30), random_int(&rng, 30)};
        int64_t bi[2] = {random_int(&rng, 30), random_int(&rng, 30)};
        int64_t ci[2] = {random_int(&rng, 30), random_int(&rng, 30)};
        if (it % 4 == 0)
            for (int k = 0; k < 2; k++)
                ci[k] = ai[k] + 2 * (bi[k] - ai[k]); /* collinear: 0 */
        int o2 = reference_orient2d(ai, bi, ci);
        double a[3] = {ldexp((double)ai[0], 970), ldexp((double)ai[1], 970), 0};
        double b[3] = {ldexp((double)bi[0], 970), ldexp((double)bi[1], 970), 0};
        double c[3] = {ldexp((double)ci[0], 970), ldexp((double)ci[1], 970), 0};
        double dz = it % 2 ? DBL_TRUE_MIN : -DBL_TRUE_MIN;
        double d[3] = {ldexp((double)random_int(&rng, 30), 970),
                       ldexp((double)random_int(&rng, 30), 970), dz};
        char what[64];
        snprintf(what, sizeof what, "huge/tiny case %d (seed 0x5eed0006)", it);
        require_orient3d(a, b, c, d, -sign_of_double(dz) * o2, what);
        int unused;
        TEST_REQUIRE(!glcollide_orient3d_expansion(a, b, c, d, &unused), "%s: range", what);

        /* 2D: a, b on the x axis at m 2^990, c at height +-2^-1074 (and a tiny
         * a_y = 0): det[a-c, b-c] = c_y (b_x - a_x). */
        int64_t x1 = random_int(&rng, 30), x2 = random_int(&rng, 30);
        double pa[2] = {ldexp((double)x1, 990), 0}, pb[2] = {ldexp((double)x2, 990), 0};
        double pc[2] = {ldexp((double)random_int(&rng, 30), 990), dz};
        require_orient2d(pa, pb, pc, sign_of_double(dz) * ((x2 > x1) - (x2 < x1)), what);
    }
    /* Differences that overflow: the line y = x through +-1.5 2^1023. */
    const double big = 0x1.8p1023;
    const double a[2] = {-big, -big}, b[2] = {big, big};
    const double above[2] = {0, DBL_TRUE_MIN}, below[2] = {DBL_TRUE_MIN, 0}, on[2] = {-big, -big};
    require_orient2d(a, b, above, 1, "overflow above");
    require_orient2d(a, b, below, -1, "overflow below");
    require_orient2d(a, b, on, 0, "overflow on");
    const double a3[3] = {-big, -big, 0}, b3[3] = {big, big, 0}, c3[3] = {-big, big, 0};
    const double up[3] = {big, -big, DBL_TRUE_MIN}, flat[3] = {big, -big, 0};
    /* a3 b3 c3 counter-clockwise from +z; a point above gives -1 */
    require_orient3d(a3, b3, c3, up, -1, "overflow 3d above");
    require_orient3d(a3, b3, c3, flat, 0, "overflow 3d on plane");
    /*
     * Products that underflow next to a rounding boundary. (a0 - c0) rounds up
     * to 2^-500 (true value 2^-500 (1 - 2^-54)), so the computed (a0-c0) b1 is
     * exactly 1.5 2^-1074 and rounds (to even) up to 2 2^-1074, while
     * a1 (b0 - c0) lies in between and rounds down to 2^-1074: the computed
     * determinant is +2^-1074, the exact one negative, and the relative part of
     * the error bound underflows to 0. Found with exact rationals; it fails
     * without the filters' absolute underflow terms. In 3D the same through
     * c = d in x, y and d one unit below: det = 1 * (2D determinant).
     */
    const double ua[3] = {0x1p-500, 0x1.f1ca27311d8a3p-520, 0};
    const double ub[3] = {0x1.c57b22d29ba33p-554, 0x1.8p-574, 0};
    const double uc[3] = {0x1.fffffffffffffp-555, 0, 0}, ud[3] = {0x1.fffffffffffffp-555, 0, -1};
    require_orient2d(ua, ub, uc, -1, "underflow next to a rounding boundary");
    require_orient3d(ua, ub, uc, ud, -1, "underflow next to a rounding boundary (3d)");
    /* d far below: the underflowed minor is then multiplied by 2^60 */
    const double far[3] = {0x1.fffffffffffffp-555, 0, -0x1p60};
    require_orient3d(ua, ub, uc, far, -1, "underflow times a large difference");
    /* all subnormal */
    const double s1[2] = {DBL_TRUE_MIN, 0}, s2[2] = {0, DBL_TRUE_MIN}, s3[2] = {0, 0};
    require_orient2d(s1, s2, s3, 1, "subnormal");
    require_orient2d(s2, s1, s3, -1, "subnormal swapped");
}
END_TEST

/* The box of n points as the contact stage measures it: the largest side. */
static double set_extent(const double (*pts)[3], int n)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], pts[i][k]);
            hi[k] = fmax(hi[k], pts[i][k]);
        }
    return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}

/* Every triangle of a set against every point of it, with the set's bound
 * (glcollide_plane_filter_set_extent): one point and three at a time, equal
 * to orient3d. Returns how many the set bound decided alone. */
static int require_set_sides(const double (*pts)[3], int n, const char *what)
{
    double extent = set_extent(pts, n);
    int quick = 0;
    for (int t = 0; t + 2 < n; t += 3) {
        glcollide_plane_filter plane;
        glcollide_plane_filter_init(&plane, pts[t], pts[t + 1], pts[t + 2]);
        glcollide_plane_filter_set_extent(&plane, extent);
        for (int q = 0; q + 2 < n; q += 3) {
            const double *tri[3] = {pts[q], pts[q + 1], pts[q + 2]};
            int sides[3];
            glcollide_plane_sides3(&plane, tri, sides);
            for (int i = 0; i < 3; i++) {
                int expected = glcollide_orient3d(pts[t], pts[t + 1], pts[t + 2], tri[i]);
                TEST_REQUIRE(sides[i] == expected, "%s: triangle %d point %d: %d, orient3d %d",
                             what, t, q + i, sides[i], expected);
                TEST_REQUIRE(glcollide_plane_side(&plane, tri[i]) == expected,
                             "%s: triangle %d point %d alone", what, t, q + i);
                quick += fabs(glcollide_plane_filter_det(&plane, tri[i])) > plane.set_bound;
            }
        }
    }
    return quick;
}

/*
 * The set bound of a prepared plane (one bound for every point of a box, in
 * place of each point's own): on random sets over the whole expansion range
 * (seed 0x5eed0011), on sets of points exactly in the triangles' planes
 * whose determinants round to nonzero values (integer coordinates near
 * 2^40: a bound too small calls them off the plane), and on points at
 * distances from a plane around the bound itself, it decides as orient3d
 * does; it decides most generic points alone (the reason it exists).
 */
START_TEST(test_plane_set_bound_exact)
{
    test_rng rng = {0x5eed0011u};
    enum { SETS = 400, POINTS = 24 };
    static double pts[POINTS][3];
    int quick = 0, asked = 0;
    for (int set = 0; set < SETS; set++) {
        int scale = (int)test_rng_below(&rng, 360) - 180;
        double offset = ldexp(test_rng_uniform(&rng, -8, 8), scale);
        for (int i = 0; i < POINTS; i++)
            for (int k = 0; k < 3; k++)
                pts[i][k] = offset + ldexp(test_rng_uniform(&rng, -1, 1), scale);
        for (int i = 3; i < POINTS; i += 4) /* nearly in the first triangle's plane */
            for (int k = 0; k < 3; k++)
                pts[i][k] = 0.25 * pts[0][k] + 0.5 * pts[1][k] + 0.25 * pts[2][k];
        quick += require_set_sides(pts, POINTS, "random set");
        asked += (POINTS / 3) * (POINTS / 3) * 3;
    }
    /* Exactly coplanar integer points far from the origin: t0 + i u + j v. */
    int rounded = 0;
    for (int set = 0; set < SETS; set++) {
        double base[3], u[3], v[3];
        for (int k = 0; k < 3; k++) {
            base[k] = ldexp(1.0, 40) + (double)test_rng_below(&rng, 1u << 20);
            u[k] = (double)test_rng_below(&rng, 1u << 24) - (double)(1u << 23);
            v[k] = (double)test_rng_below(&rng, 1u << 24) - (double)(1u << 23);
        }
        for (int i = 0; i < POINTS; i++) {
            double a = (double)test_rng_below(&rng, 64) - 32.0,
                   b = (double)test_rng_below(&rng, 64) - 32.0;
            for (int k = 0; k < 3; k++)
                pts[i][k] = base[k] + a * u[k] + b * v[k];
        }
        require_set_sides(pts, POINTS, "coplanar integers");
        glcollide_plane_filter plane;
        glcollide_plane_filter_init(&plane, pts[0], pts[1], pts[2]);
        for (int i = 3; i < POINTS; i++)
            rounded += glcollide_plane_filter_det(&plane, pts[i]) != 0.0;
    }
    /* Points at distances 2^-k of the set's size from a plane, k in 30..64. */
    for (int set = 0; set < SETS; set++) {
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++)
                pts[i][k] = test_rng_uniform(&rng, -1, 1);
        double n[3], e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = pts[1][k] - pts[0][k];
            e2[k] = pts[2][k] - pts[0][k];
        }
        n[0] = e1[1] * e2[2] - e1[2] * e2[1];
        n[1] = e1[2] * e2[0] - e1[0] * e2[2];
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        for (int i = 3; i < POINTS; i++) {
            double a = test_rng_uniform(&rng, 0, 1), b = test_rng_uniform(&rng, 0, 1 - a);
            double d = ldexp(test_rng_uniform(&rng, -1, 1), -30 - (int)test_rng_below(&rng, 35));
            for (int k = 0; k < 3; k++)
                pts[i][k] = pts[0][k] + a * e1[k] + b * e2[k] + d * n[k];
        }
        require_set_sides(pts, POINTS, "near a plane");
    }
    printf("predicates: set bound decided %d of %d random points alone; %d coplanar points "
           "with a rounded nonzero determinant\n",
           quick, asked, rounded);
    ck_assert_int_ge(quick, asked / 2);
    ck_assert_int_gt(rounded, 100);
}
END_TEST

/* The stages agree on random inputs spread over the expansion range, where
 * the filter is mostly decisive; this also times the public predicates. */
START_TEST(test_orient_stages_agree)
{
    test_rng rng = {0x5eed0007u};
    enum { N = 20000 };
    static double pts[N][4][3];
    for (int it = 0; it < N; it++) {
        int scale = (int)test_rng_below(&rng, 360) - 180;
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                pts[it][i][k] = ldexp(test_rng_uniform(&rng, -1, 1), scale);
        if (it % 2) /* nearly coplanar in floating point */
            for (int k = 0; k < 3; k++)
                pts[it][3][k] = 0.25 * pts[it][0][k] + 0.5 * pts[it][1][k] + 0.25 * pts[it][2][k];
    }
    int zeros = 0, decided = 0;
    for (int it = 0; it < N; it++) {
        double(*p)[3] = pts[it];
        int got = glcollide_orient3d(p[0], p[1], p[2], p[3]);
        int expansion = 2;
        TEST_REQUIRE(glcollide_orient3d_expansion(p[0], p[1], p[2], p[3], &expansion),
                     "case %d in range", it);
        TEST_REQUIRE(got == expansion, "case %d: %d vs expansion %d", it, got, expansion);
        TEST_REQUIRE(got == glcollide_orient3d_bigint(p[0], p[1], p[2], p[3]), "case %d bigint",
                     it);
        int got2 = glcollide_orient2d(p[0], p[1], p[3]);
        TEST_REQUIRE(glcollide_orient2d_expansion(p[0], p[1], p[3], &expansion), "2d range");
        TEST_REQUIRE(got2 == expansion && got2 == glcollide_orient2d_bigint(p[0], p[1], p[3]),
                     "case %d: 2d stages", it);
        zeros += got == 0;
        glcollide_plane_filter plane;
        glcollide_plane_filter_init(&plane, p[0], p[1], p[2]);
        int filtered = glcollide_plane_filter_sign(&plane, p[3]);
        TEST_REQUIRE(filtered == 0 || filtered == got, "case %d: plane filter %d vs %d", it,
                     filtered, got);
        TEST_REQUIRE(glcollide_plane_side(&plane, p[3]) == got, "case %d: plane side", it);
        decided += filtered != 0;
    }
    /* timing of the filter path on generic inputs */
    int sum = 0;
    double t0 = test_now_ms();
    for (int rep = 0; rep < 20; rep++)
        for (int it = 0; it < N; it += 2)
            sum += glcollide_orient3d(pts[it][0], pts[it][1], pts[it][2], pts[it][3]);
    double t1 = test_now_ms();
    for (int rep = 0; rep < 20; rep++)
        for (int it = 1; it < N; it += 2)
            sum += glcollide_orient3d(pts[it][0], pts[it][1], pts[it][2], pts[it][3]);
    double t2 = test_now_ms();
    static glcollide_plane_filter planes[N / 2];
    for (int it = 0; it < N; it += 2)
        glcollide_plane_filter_init(&planes[it / 2], pts[it][0], pts[it][1], pts[it][2]);
    double t3 = test_now_ms();
    for (int rep = 0; rep < 20; rep++)
        for (int it = 0; it < N; it += 2)
            sum += glcollide_plane_side(&planes[it / 2], pts[it][3]);
    double t4 = test_now_ms();
    printf("predicates: orient3d %.1f ns/call generic, %.1f ns/call nearly coplanar (exact "
           "fallback), prepared plane %.1f ns/call generic; plane filter decisive on %d of %d; "
           "%d exact zeros (checksum %d)\n",
           (t1 - t0) * 1e6 / (20.0 * N / 2), (t2 - t1) * 1e6 / (20.0 * N / 2),
           (t4 - t3) * 1e6 / (20.0 * N / 2), decided, N, zeros, sum);
    ck_assert_int_ge(decided, N / 2 - 100); /* the generic half, at least */
}
END_TEST

/* glcollide_triangle_drop_axis: a nonzero normal component, -1 when collinear. */
START_TEST(test_drop_axis)
{
    const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0}, d[3] = {0, 0, 1};
    ck_assert_int_eq(glcollide_triangle_drop_axis(a, b, c), 2);
    ck_assert_int_eq(glcollide_triangle_drop_axis(a, c, d), 0);
    ck_assert_int_eq(glcollide_triangle_drop_axis(a, b, d), 1);
    const double e[3] = {2, 0, 0}, f[3] = {0x1p100, 0x2p100, 0x3p100},
                 g[3] = {0x3p100, 0x6p100, 0x9p100};
    ck_assert_int_eq(glcollide_triangle_drop_axis(a, b, e), -1);
    ck_assert_int_eq(glcollide_triangle_drop_axis(a, f, g), -1);
    ck_assert_int_eq(glcollide_triangle_drop_axis(a, a, a), -1);
    /* a normal whose float estimate is 0 but that is exactly nonzero */
    const double p[3] = {0.5, 0.5, 0.5}, q[3] = {12, 12, 12}, r[3] = {24, 24, 24 + 0x1p-48};
    int axis = glcollide_triangle_drop_axis(p, q, r);
    ck_assert_int_ge(axis, 0);
    ck_assert_int_ne(glcollide_orient2d_dropping(p, q, r, axis), 0);
}
END_TEST

Suite *suite_predicates(void)
{
    Suite *suite = suite_create("predicates");
    TCase *tc = tcase_create("predicates");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_orient2d_near_collinear_grid);
    tcase_add_test(tc, test_orient3d_near_coplanar_grid);
    tcase_add_test(tc, test_orient_random_integers);
    tcase_add_test(tc, test_orient3d_near_collinear_large);
    tcase_add_test(tc, test_orient_exact_zeros);
    tcase_add_test(tc, test_orient_antisymmetry);
    tcase_add_test(tc, test_orient_ulp_apart);
    tcase_add_test(tc, test_orient_extreme_range);
    tcase_add_test(tc, test_orient_stages_agree);
    tcase_add_test(tc, test_plane_set_bound_exact);
    tcase_add_test(tc, test_drop_axis);
    suite_add_tcase(suite, tc);
    return suite;
}
