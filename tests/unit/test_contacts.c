/* SPDX-License-Identifier: MIT */
/*
 * Contact generation (glcollide_contacts_generate, glcollide/contacts/contacts.c): one
 * normal, a depth scale and a small spread manifold per contact region.
 * Configurations with an analytic answer (boxes face to face, flush or
 * wider, turned; exact touching; a box in a corner: two regions; spheres), a
 * bound that must hold everywhere (no contact deeper than the solids overlap
 * along its normal, on 600 random box pairs), tessellation independence,
 * stability under tiny motions (a resting pair keeps its contacts),
 * independence from the caller's buffer and from the order of candidates,
 * containment, bad arguments, and timing on the two-bunny scene. Candidates
 * always come from the BVH, as in a real broad phase. The simulations that
 * judge these contacts are in tests/ode/test_stacking.c.
 */
#include "helpers/tests.h"

#include "helpers/meshes.h"

#include "contacts/contacts_internal.h" /* white box: glcollide_contacts_plain_sums */

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

/* A mesh placed in the world, with its BVH (world space). */
typedef struct placed {
    glcollide_mesh *mesh;
    double *positions;
    glcollide_bvh *bvh;
    glcollide_object object;
    int owns_mesh;
} placed;

/* The placed mesh's world positions as a mesh. */
static glcollide_mesh world_mesh(const placed *p)
{
    return (glcollide_mesh){p->positions, p->mesh->triangles, p->mesh->vertex_count,
                            p->mesh->triangle_count, NULL};
}

static placed place(glcollide_mesh *mesh, const double translation[3], const double rotation[4])
{
    placed p = {mesh, NULL, NULL, {0, {{0, 0, 0}, {1, 0, 0, 0}}}, 1};
    ck_assert_ptr_nonnull(mesh);
    p.object = (glcollide_object){0,
                                  {{translation[0], translation[1], translation[2]},
                                   {rotation[0], rotation[1], rotation[2], rotation[3]}}};
    p.positions = malloc(3 * mesh->vertex_count * sizeof *p.positions);
    ck_assert_ptr_nonnull(p.positions);
    glcollide_pose_transform_points(&p.object.pose, mesh->positions, mesh->vertex_count,
                                    p.positions);
    glcollide_mesh world = world_mesh(&p);
    ck_assert_int_eq(glcollide_bvh_create(&world, &p.bvh), GLCOLLIDE_OK);
    return p;
}

static void release(placed *p)
{
    glcollide_bvh_destroy(&p->bvh);
    free(p->positions);
    if (p->owns_mesh)
        glcollide_mesh_destroy(&p->mesh);
}

static const double identity[4] = {1, 0, 0, 0};

static glcollide_mesh *box(double hx, double hy, double hz)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(hx, hy, hz, &mesh), GLCOLLIDE_OK);
    return mesh;
}

static glcollide_mesh *sphere(double r, int slices, int stacks)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(r, slices, stacks, &mesh), GLCOLLIDE_OK);
    return mesh;
}

static void axis_rotation(double q[4], int axis, double angle)
{
    q[0] = cos(angle / 2);
    q[1] = q[2] = q[3] = 0;
    q[1 + axis] = sin(angle / 2);
}

/* q = u v (rotation v, then u). */
static void quat_product(double q[4], const double u[4], const double v[4])
{
    q[0] = u[0] * v[0] - u[1] * v[1] - u[2] * v[2] - u[3] * v[3];
    q[1] = u[0] * v[1] + u[1] * v[0] + u[2] * v[3] - u[3] * v[2];
    q[2] = u[0] * v[2] - u[1] * v[3] + u[2] * v[0] + u[3] * v[1];
    q[3] = u[0] * v[3] + u[1] * v[2] - u[2] * v[1] + u[3] * v[0];
}

static int collect_pair(uint32_t a, uint32_t b, void *user)
{
    ck_assert_int_eq(glcollide_pair_list_push(user, a, b), GLCOLLIDE_OK);
    return 0;
}

/* Candidates (a of A, b of B) from the BVHs, in the BVH's traversal order. */
static glcollide_pair_list candidates(const placed *a, const placed *b)
{
    glcollide_pair_list list = {0};
    glcollide_bvh_overlap(a->bvh, b->bvh, 0.0, collect_pair, &list);
    return list;
}

/* Contacts of A against B, max of them; returns the count. */
static size_t generate(const placed *a, const placed *b, const glcollide_pair_list *pairs,
                       glcollide_contact *out, size_t max)
{
    size_t count = SIZE_MAX;
    glcollide_mesh wa = world_mesh(a), wb = world_mesh(b);
    ck_assert_int_eq(glcollide_contacts_generate(&wa, &wb, pairs->pairs, pairs->count, NULL, out,
                                                 max, &count, NULL),
                     GLCOLLIDE_OK);
    ck_assert_uint_le(count, max);
    return count;
}

static size_t contacts_of(const placed *a, const placed *b, glcollide_contact *out, size_t max)
{
    glcollide_pair_list pairs = candidates(a, b);
    size_t n = generate(a, b, &pairs, out, max);
    glcollide_pair_list_clear(&pairs);
    return n;
}

static double dot3(const double u[3], const double v[3])
{
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
}

static double angle_deg(const double u[3], const double v[3])
{
    double c = dot3(u, v) / sqrt(dot3(u, u) * dot3(v, v));
    return acos(fmax(-1.0, fmin(1.0, c))) * 180.0 / pi;
}

static size_t region_count(const glcollide_contact *c, size_t count)
{
    size_t regions = 0;
    for (size_t i = 0; i < count; i++)
        regions = c[i].region + 1 > regions ? c[i].region + 1 : regions;
    return regions;
}

/* The contract every output meets: unit normals, finite depth >= 0, grouped
 * by region (non-decreasing region numbers, one normal per region). */
static void check_well_formed(const glcollide_contact *c, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        double len = sqrt(dot3(c[i].normal, c[i].normal));
        TEST_REQUIRE(fabs(len - 1.0) < 1e-12, "contact %zu: |normal| = %.17g", i, len);
        TEST_REQUIRE(isfinite(c[i].depth) && c[i].depth >= 0.0, "contact %zu: depth %g", i,
                     c[i].depth);
        for (int k = 0; k < 3; k++)
            TEST_REQUIRE(isfinite(c[i].position[k]), "contact %zu: position not finite", i);
        if (i > 0) {
            TEST_REQUIRE(c[i].region >= c[i - 1].region, "contacts not grouped by region at %zu",
                         i);
            if (c[i].region == c[i - 1].region)
                TEST_REQUIRE(memcmp(c[i].normal, c[i - 1].normal, sizeof c[i].normal) == 0,
                             "contacts %zu, %zu of one region with two normals", i - 1, i);
        }
    }
}

/* Is world point p within box (half sizes h) placed by p->object (1e-9)? */
static int inside_box(const placed *box_placed, const double h[3], const double p[3])
{
    double m[9], d[3];
    glcollide_pose_rotation_matrix(&box_placed->object.pose, m);
    for (int k = 0; k < 3; k++)
        d[k] = p[k] - box_placed->object.pose.translation[k];
    for (int k = 0; k < 3; k++) {
        double local = m[k] * d[0] + m[3 + k] * d[1] + m[6 + k] * d[2];
        if (fabs(local) > h[k] + 1e-9)
            return 0;
    }
    return 1;
}

/* The overlap of A and B along n (from B toward A): how far B reaches past
 * A's lowest point. A contact deeper than this undoes more than the overlap. */
static double overlap_along(const placed *a, const placed *b, const double n[3])
{
    double low = INFINITY, high = -INFINITY;
    for (size_t v = 0; v < a->mesh->vertex_count; v++)
        low = fmin(low, dot3(n, a->positions + 3 * v));
    for (size_t v = 0; v < b->mesh->vertex_count; v++)
        high = fmax(high, dot3(n, b->positions + 3 * v));
    return high - low;
}

/*
 * Unit boxes (half extent 0.5) face to face with overlap d along an axis, A
 * on the positive side (or the negative: the normal flips): one region, the
 * axis as normal (exactly: the faces are flat), the deepest contact exactly
 * d, none deeper, four points spread over the overlap's footprint (its
 * corners, within rounding). Equal boxes are flush (their side faces
 * coincide: the case that used to launch stacks); A 10% wider overhangs;
 * A turned 30 degrees about the axis overlaps in an octagon.
 */
START_TEST(test_boxes_face_to_face)
{
    static const double depths[] = {1e-6, 0.001, 0.01, 0.1, 0.35};
    glcollide_contact c[64];
    for (int axis = 0; axis < 3; axis++)
        for (int side = -1; side <= 1; side += 2)
            for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++)
                for (int shape = 0; shape < 3; shape++) {
                    double half[3] = {0.5, 0.5, 0.5}, q[4], at[3] = {0, 0, 0};
                    if (shape == 1)
                        for (int k = 0; k < 3; k++)
                            half[k] = k == axis ? 0.5 : 0.55;
                    axis_rotation(q, axis, shape == 2 ? pi / 6 : 0.0);
                    at[axis] = side * (1.0 - depths[d]);
                    placed a = place(box(half[0], half[1], half[2]), at, q);
                    placed b = place(box(0.5, 0.5, 0.5), (double[3]){0, 0, 0}, identity);
                    size_t n = contacts_of(&a, &b, c, 64);
                    check_well_formed(c, n);
                    TEST_REQUIRE(n == 4 && region_count(c, n) == 1,
                                 "axis %d side %d d %g shape %d: %zu contacts in %zu regions", axis,
                                 side, depths[d], shape, n, region_count(c, n));
                    double deepest = 0.0;
                    for (size_t i = 0; i < n; i++) {
                        for (int k = 0; k < 3; k++)
                            TEST_REQUIRE(fabs(c[i].normal[k] - (k == axis ? side : 0)) < 1e-9,
                                         "axis %d side %d d %g shape %d: normal (%g %g %g)", axis,
                                         side, depths[d], shape, c[i].normal[0], c[i].normal[1],
                                         c[i].normal[2]);
                        TEST_REQUIRE(c[i].depth <= depths[d] * (1 + 1e-9) + 1e-12,
                                     "axis %d d %g shape %d: contact %zu depth %.17g", axis,
                                     depths[d], shape, i, c[i].depth);
                        deepest = fmax(deepest, c[i].depth);
                        /* in the overlap slab, within rounding */
                        double h = side * c[i].position[axis];
                        TEST_REQUIRE(h >= 0.5 - depths[d] - 1e-9 && h <= 0.5 + 1e-9,
                                     "axis %d d %g shape %d: contact %zu outside the overlap", axis,
                                     depths[d], shape, i);
                    }
                    TEST_REQUIRE(fabs(deepest - depths[d]) <= 1e-9 * (1 + depths[d]),
                                 "axis %d side %d d %g shape %d: deepest %.17g", axis, side,
                                 depths[d], shape, deepest);
                    /* spread: the points span the footprint in both directions */
                    for (int k = 0; k < 3; k++) {
                        if (k == axis)
                            continue;
                        double lo = INFINITY, hi = -INFINITY;
                        for (size_t i = 0; i < n; i++) {
                            lo = fmin(lo, c[i].position[k]);
                            hi = fmax(hi, c[i].position[k]);
                        }
                        double want = shape == 2 ? 0.9 : 0.999; /* octagon: 4 of its corners */
                        TEST_REQUIRE(hi - lo >= want, "axis %d d %g shape %d: spread %g along %d",
                                     axis, depths[d], shape, hi - lo, k);
                    }
                    release(&a);
                    release(&b);
                }
}
END_TEST

/* Exactly touching, flush (a stack placed face to face): one region, the
 * face normal, depth 0, the four corners. */
/* Deep penetration: a small box sunk through a face of a large one, up to
 * 95% of its own height (its bottom far inside, its top still out): one
 * region, the face's normal (the shortest way out) and the sunk depth. */
START_TEST(test_deep_sink)
{
    static const double sunk[] = {0.05, 0.15, 0.19};
    glcollide_contact c[64];
    for (int axis = 0; axis < 3; axis++)
        for (int side = -1; side <= 1; side += 2)
            for (size_t d = 0; d < sizeof sunk / sizeof sunk[0]; d++)
                for (int turned = 0; turned < 2; turned++) {
                    double q[4], at[3] = {0.1, -0.05, 0.08};
                    axis_rotation(q, axis, turned ? pi / 5 : 0.0);
                    at[axis] = side * (0.5 + 0.1 - sunk[d]);
                    placed a = place(box(0.1, 0.1, 0.1), at, q);
                    placed b = place(box(0.5, 0.5, 0.5), (double[3]){0, 0, 0}, identity);
                    size_t n = contacts_of(&a, &b, c, 64);
                    check_well_formed(c, n);
                    TEST_REQUIRE(n == 4 && region_count(c, n) == 1,
                                 "axis %d side %d sunk %g turned %d: %zu contacts in %zu regions",
                                 axis, side, sunk[d], turned, n, region_count(c, n));
                    double deepest = 0.0;
                    for (size_t i = 0; i < n; i++) {
                        for (int k = 0; k < 3; k++)
                            TEST_REQUIRE(fabs(c[i].normal[k] - (k == axis ? side : 0)) < 1e-9,
                                         "axis %d side %d sunk %g turned %d: normal (%g %g %g)",
                                         axis, side, sunk[d], turned, c[i].normal[0],
                                         c[i].normal[1], c[i].normal[2]);
                        deepest = fmax(deepest, c[i].depth);
                    }
                    TEST_REQUIRE(fabs(deepest - sunk[d]) <= 1e-9,
                                 "axis %d side %d sunk %g turned %d: deepest %.17g", axis, side,
                                 sunk[d], turned, deepest);
                    release(&a);
                    release(&b);
                }
}
END_TEST

START_TEST(test_boxes_touching)
{
    glcollide_contact c[64];
    for (int axis = 0; axis < 3; axis++) {
        double at[3] = {0, 0, 0};
        at[axis] = 1.0;
        placed a = place(box(0.5, 0.5, 0.5), at, identity);
        placed b = place(box(0.5, 0.5, 0.5), (double[3]){0, 0, 0}, identity);
        size_t n = contacts_of(&a, &b, c, 64);
        check_well_formed(c, n);
        ck_assert_uint_eq(n, 4);
        ck_assert_uint_eq(region_count(c, n), 1);
        for (size_t i = 0; i < n; i++) {
            TEST_REQUIRE(c[i].normal[axis] == 1.0 && c[i].depth == 0.0,
                         "axis %d: contact %zu normal %g depth %g", axis, i, c[i].normal[axis],
                         c[i].depth);
            for (int k = 0; k < 3; k++)
                TEST_REQUIRE(fabs(fabs(c[i].position[k] - at[k] / 2) - 0.5) < 1e-12 || k == axis,
                             "axis %d: contact %zu is no corner", axis, i);
        }
        release(&a);
        release(&b);
    }
}
END_TEST

/* The same overlap, 12 triangles or 2 x 12 x 12 per face (the finely
 * tessellated case, identical tessellations face to face): the same
 * normal and depth, points at the same corners. */
START_TEST(test_tessellation_independent)
{
    static const int coarse[3] = {1, 1, 1}, fine[3] = {12, 12, 12};
    const double half[3] = {0.05, 0.05, 0.05};
    glcollide_contact c[2][64];
    size_t n[2];
    for (int t = 0; t < 2; t++) {
        double q[4];
        axis_rotation(q, 2, 1e-7); /* within rounding of flush, as in a real stack */
        placed a =
            place(test_mesh_box(half, t ? fine : coarse), (double[3]){1e-9, 2e-9, 0.09999}, q);
        placed b = place(test_mesh_box(half, t ? fine : coarse), (double[3]){0, 0, 0}, identity);
        n[t] = contacts_of(&a, &b, c[t], 64);
        check_well_formed(c[t], n[t]);
        release(&a);
        release(&b);
    }
    ck_assert_uint_eq(n[0], 4);
    ck_assert_uint_eq(n[1], 4);
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; i < 4; i++) {
            TEST_REQUIRE(angle_deg(c[t][i].normal, (double[3]){0, 0, 1}) < 1e-4,
                         "tessellation %d: normal %g deg off vertical", t,
                         angle_deg(c[t][i].normal, (double[3]){0, 0, 1}));
            TEST_REQUIRE(c[t][i].depth <= 1e-5 + 1e-9, "tessellation %d: depth %g", t,
                         c[t][i].depth);
        }
    for (size_t i = 0; i < 4; i++) { /* the deepest corner of each: the same depth */
        double d0 = 0, d1 = 0;
        for (size_t j = 0; j < 4; j++) {
            d0 = fmax(d0, c[0][j].depth);
            d1 = fmax(d1, c[1][j].depth);
        }
        ck_assert_double_eq_tol(d0, d1, 1e-9);
    }
}
END_TEST

/*
 * A finely tessellated box (triangles 5 mm across) tilted about two axes,
 * one corner or one edge dipping 1 mm into a 12-triangle slab 2 m wide:
 * every crossing pair is a small triangle against a large one, whose depth
 * below the small face the contacts find from where the small face's prism
 * pierces the slab, not by clipping the slab. The slab's face is the
 * thinner one: one region, the slab's normal (from B toward A, whichever
 * mesh is A), as deep as the dip. Each tilt is tried with the box as A and
 * as B.
 */
START_TEST(test_fine_on_large_slab)
{
    static const int fine[3] = {20, 20, 20}, coarse[3] = {1, 1, 1};
    const double half[3] = {0.05, 0.05, 0.05}, slab_half[3] = {1.0, 1.0, 0.05};
    const double tilts[][2] = {{30, 20}, {12, 40}, {45, 0}}; /* about x, then y (degrees) */
    const double dip = 1e-3;
    for (size_t t = 0; t < sizeof tilts / sizeof tilts[0]; t++) {
        double qx[4], qy[4], q[4];
        axis_rotation(qx, 0, tilts[t][0] * pi / 180);
        axis_rotation(qy, 1, tilts[t][1] * pi / 180);
        quat_product(q, qy, qx);
        /* The box's lowest point at its centre, then lowered to dip. */
        glcollide_pose pose = {{0, 0, 0}, {q[0], q[1], q[2], q[3]}};
        glcollide_mesh *mesh = test_mesh_box(half, fine);
        double low = INFINITY;
        for (size_t v = 0; v < mesh->vertex_count; v++) {
            double w[3];
            glcollide_pose_transform_points(&pose, mesh->positions + 3 * v, 1, w);
            low = fmin(low, w[2]);
        }
        glcollide_mesh_destroy(&mesh);
        double at[3] = {0.013, -0.021, 0.05 - dip - low}, slab_at[3] = {0, 0, 0};
        for (int box_is_a = 0; box_is_a < 2; box_is_a++) {
            placed box_p = place(test_mesh_box(half, fine), at, q);
            placed slab = place(test_mesh_box(slab_half, coarse), slab_at, identity);
            glcollide_contact c[16];
            size_t n =
                box_is_a ? contacts_of(&box_p, &slab, c, 16) : contacts_of(&slab, &box_p, c, 16);
            check_well_formed(c, n);
            TEST_REQUIRE(n > 0 && region_count(c, n) == 1,
                         "tilt %zu, box %s: %zu contacts, %zu regions", t, box_is_a ? "A" : "B", n,
                         region_count(c, n));
            double up[3] = {0, 0, box_is_a ? 1.0 : -1.0}, deepest = 0.0;
            for (size_t i = 0; i < n; i++) {
                TEST_REQUIRE(angle_deg(c[i].normal, up) < 1e-6,
                             "tilt %zu, box %s: contact %zu's normal %g deg off the slab's", t,
                             box_is_a ? "A" : "B", i, angle_deg(c[i].normal, up));
                deepest = fmax(deepest, c[i].depth);
            }
            TEST_REQUIRE(fabs(deepest - dip) < 1e-9, "tilt %zu, box %s: deepest %.12g, dip %g", t,
                         box_is_a ? "A" : "B", deepest, dip);
            release(&box_p);
            release(&slab);
        }
    }
}
END_TEST

/*
 * 600 random pairs of boxes (sizes 0.2..1, random rotations, overlapping by
 * random amounts; seed 0xB0C5C0DE + i): every contact is no deeper than the
 * boxes overlap along its normal (plus 1e-9), lies within both boxes (1e-9),
 * and names triangles that meet; at most 4 contacts per region.
 */
START_TEST(test_depth_bound)
{
    glcollide_contact c[256];
    size_t with_contacts = 0;
    for (int i = 0; i < 600; i++) {
        test_rng rng = {0xB0C5C0DEull + (uint64_t)i};
        double ha[3], hb[3], qa[4], qb[4], at[3];
        for (int k = 0; k < 3; k++) {
            ha[k] = test_rng_uniform(&rng, 0.1, 0.5);
            hb[k] = test_rng_uniform(&rng, 0.1, 0.5);
            at[k] = test_rng_uniform(&rng, -0.6, 0.6);
        }
        test_rng_quaternion(&rng, qa);
        test_rng_quaternion(&rng, qb);
        placed a = place(box(ha[0], ha[1], ha[2]), at, qa);
        placed b = place(box(hb[0], hb[1], hb[2]), (double[3]){0, 0, 0}, qb);
        size_t n = contacts_of(&a, &b, c, 256);
        check_well_formed(c, n);
        with_contacts += n > 0;
        TEST_REQUIRE(n <= 4 * region_count(c, n), "pair %d: %zu contacts in %zu regions", i, n,
                     region_count(c, n));
        for (size_t j = 0; j < n; j++) {
            double overlap = overlap_along(&a, &b, c[j].normal);
            TEST_REQUIRE(c[j].depth <= overlap + 1e-9,
                         "pair %d (seed 0x%llx): contact %zu depth %.9g beyond the overlap %.9g "
                         "along its normal",
                         i, (unsigned long long)(0xB0C5C0DEull + (uint64_t)i), j, c[j].depth,
                         overlap);
            TEST_REQUIRE(inside_box(&a, ha, c[j].position) && inside_box(&b, hb, c[j].position),
                         "pair %d: contact %zu outside one of the boxes", i, j);
            const uint32_t *ta = a.mesh->triangles + 3 * (size_t)c[j].triangle_a;
            const uint32_t *tb = b.mesh->triangles + 3 * (size_t)c[j].triangle_b;
            double gap = glcollide_tri_tri_distance(
                a.positions + 3 * ta[0], a.positions + 3 * ta[1], a.positions + 3 * ta[2],
                b.positions + 3 * tb[0], b.positions + 3 * tb[1], b.positions + 3 * tb[2], NULL,
                NULL);
            TEST_REQUIRE(gap <= 1e-9, "pair %d: contact %zu names triangles %g apart", i, j, gap);
        }
        release(&a);
        release(&b);
    }
    printf("depth bound: 600 random box pairs, %zu touching\n", with_contacts);
    ck_assert_uint_ge(with_contacts, 200);
}
END_TEST

/*
 * A box pressed into the corner of a cup (its floor and a wall, one concave
 * mesh): the overlap turns a right angle, so two regions, one along each
 * face's normal, with the floor's and the wall's own overlap among their
 * depths (a point at the corner can see both: the overlap there is thicker),
 * none deeper than the solids overlap along its normal.
 */
START_TEST(test_corner_two_regions)
{
    glcollide_contact c[64];
    glcollide_mesh *cup = test_mesh_cup(0.1, 0.1, 0.0501, 0.02);
    ck_assert_ptr_nonnull(cup);
    /* peg 0.1 wide: pushed 0.2 mm into the -x wall and 0.1 mm into the floor */
    placed peg = place(box(0.05, 0.05, 0.06),
                       (double[3]){-0.0501 + 0.05 - 0.0002, 0, 0.08 - 0.0001}, identity);
    placed b = place(cup, (double[3]){0, 0, 0}, identity);
    size_t n = contacts_of(&peg, &b, c, 64);
    check_well_formed(c, n);
    ck_assert_uint_eq(region_count(c, n), 2);
    int floor_seen = 0, wall_seen = 0;
    for (size_t i = 0; i < n; i++) {
        TEST_REQUIRE(c[i].depth <= overlap_along(&peg, &b, c[i].normal) + 1e-12,
                     "contact %zu deeper than the overlap along its normal", i);
        if (angle_deg(c[i].normal, (double[3]){0, 0, 1}) < 1e-6) {
            floor_seen |= fabs(c[i].depth - 0.0001) < 1e-12; /* the floor's own overlap */
        } else if (angle_deg(c[i].normal, (double[3]){1, 0, 0}) < 1e-6) {
            wall_seen |= fabs(c[i].depth - 0.0002) < 1e-12;
        } else {
            ck_abort_msg("contact %zu: normal (%g %g %g) is neither the floor's nor the wall's", i,
                         c[i].normal[0], c[i].normal[1], c[i].normal[2]);
        }
    }
    ck_assert(floor_seen && wall_seen);
    release(&peg);
    release(&b);
}
END_TEST

/* Regions of two horizontal triangles, A1 (x < 0) and A2 (x > 0), each
 * crossed by a vertical one in the plane y = 0: B1 crosses A1 up to
 * x = -gap / 2, B2 crosses A2 from x = +gap / 2 (no pair shares a
 * triangle: only their points can join them). */
static size_t regions_across(double gap, int flip)
{
    const double h = 0.5 * gap, q = 0.25 * gap;
    double pa[18] = {-2, -1, 0, -q, -1, 0, -q, 1, 0, 2, -1, 0, q, 1, 0, q, -1, 0};
    double pb[18] = {-1, 0, -1, -h, 0, -1, -h, 0, 1, h, 0, -1, 1, 0, -1, h, 0, 1};
    if (flip) /* the scene mirrored: x = 0 a face of the cells again */
        for (int v = 0; v < 6; v++)
            pa[3 * v] = -pa[3 * v], pb[3 * v] = -pb[3 * v];
    uint32_t t[6] = {0, 1, 2, 3, 4, 5};
    glcollide_mesh a = {pa, t, 6, 2, NULL}, b = {pb, t, 6, 2, NULL};
    glcollide_index_pair pairs[2] = {{0, 0}, {1, 1}};
    glcollide_contact c[16];
    size_t n = SIZE_MAX;
    ck_assert_int_eq(glcollide_contacts_generate(&a, &b, pairs, 2, NULL, c, 16, &n, NULL),
                     GLCOLLIDE_OK);
    check_well_formed(c, n);
    ck_assert_uint_gt(n, 0);
    return region_count(c, n);
}

/* Points of two elements within the connection's tolerance of each other
 * but in two cells of its grid (x = 0 is a face of every grid) join their
 * regions; points 1 cm apart do not. */
START_TEST(test_joined_across_cells)
{
    for (int flip = 0; flip < 2; flip++) {
        ck_assert_uint_eq(regions_across(1e-2, flip), 2);
        ck_assert_uint_eq(regions_across(1e-12, flip), 1);
        ck_assert_uint_eq(regions_across(0x1p-60, flip), 1);
    }
}
END_TEST

/* Two mesh spheres overlapping: one region, its normal along the line of
 * centres (the rim's vector area), within the polygonal spheres' facet
 * angle; no contact deeper than the spheres overlap along it. */
START_TEST(test_spheres)
{
    static const double distances[] = {1.65, 1.55, 1.4, 1.1};
    const double ra = 1.0, rb = 0.7;
    static glcollide_contact c[256];
    for (size_t d = 0; d < sizeof distances / sizeof distances[0]; d++)
        for (int turn = 0; turn < 3; turn++) {
            double dir[3] = {cos(0.3 + turn), sin(0.3 + turn) * 0.6, sin(0.3 + turn) * 0.8};
            double at[3] = {distances[d] * dir[0], distances[d] * dir[1], distances[d] * dir[2]};
            placed a = place(sphere(ra, 64, 32), at, identity);
            placed b = place(sphere(rb, 48, 24), (double[3]){0, 0, 0}, identity);
            size_t n = contacts_of(&a, &b, c, 256);
            check_well_formed(c, n);
            TEST_REQUIRE(region_count(c, n) == 1 && n == 4,
                         "spheres %.2f apart, turn %d: %zu contacts in %zu regions", distances[d],
                         turn, n, region_count(c, n));
            double off = angle_deg(c[0].normal, dir);
            printf(
                "spheres %.2f apart (overlap %.2f), turn %d: normal %.2f deg off the centre line, "
                "deepest %.4f\n",
                distances[d], ra + rb - distances[d], turn, off, c[0].depth);
            TEST_REQUIRE(off < 3.0, "spheres %.2f apart: normal %.2f deg off", distances[d], off);
            for (size_t i = 0; i < n; i++)
                TEST_REQUIRE(c[i].depth <= overlap_along(&a, &b, c[i].normal) + 1e-9,
                             "spheres %.2f apart: contact %zu too deep", distances[d], i);
            release(&a);
            release(&b);
        }
}
END_TEST

/*
 * The count never grows with the caller's buffer beyond 4 per region, the
 * deepest region's points come first, and a smaller buffer gets the regions
 * in turns (every region its first point before any its second).
 */
START_TEST(test_buffer_independent)
{
    glcollide_contact all[1024], few[16];
    glcollide_mesh *cup = test_mesh_cup(0.1, 0.1, 0.0501, 0.02);
    placed peg = place(box(0.05, 0.05, 0.06),
                       (double[3]){-0.0501 + 0.05 - 0.0002, 0, 0.08 - 0.0001}, identity);
    placed b = place(cup, (double[3]){0, 0, 0}, identity);
    size_t n = contacts_of(&peg, &b, all, 1024);
    size_t regions = region_count(all, n);
    ck_assert_uint_eq(n, 4 * regions);
    for (size_t max = 1; max <= 16; max++) {
        size_t m = contacts_of(&peg, &b, few, max);
        ck_assert_uint_eq(m, max < n ? max : n);
        for (size_t i = 0; i < m; i++) {
            size_t seen = 0; /* points of region few[i].region so far */
            for (size_t j = 0; j < i; j++)
                seen += few[j].region == few[i].region;
            /* with m slots, each region gets floor or ceil of m / regions */
            TEST_REQUIRE(seen < (m + regions - 1) / regions,
                         "max %zu: region %u got more than its turn", max, few[i].region);
        }
    }
    release(&peg);
    release(&b);
}
END_TEST

/* Shuffled and repeated candidates: bit-identical contacts (order-free). */
START_TEST(test_deterministic)
{
    static glcollide_contact expected[1024], got[1024];
    for (int s = 0; s < 40; s++) {
        test_rng rng = {0xDE7E2000ull + (uint64_t)s};
        double qa[4], qb[4], at[3];
        test_rng_quaternion(&rng, qa);
        test_rng_quaternion(&rng, qb);
        for (int k = 0; k < 3; k++)
            at[k] = test_rng_uniform(&rng, -0.5, 0.5);
        placed a = place(test_random_mesh(&rng, 1.0), at, qa);
        placed b = place(test_random_mesh(&rng, 1.0), (double[3]){0, 0, 0}, qb);
        glcollide_pair_list pairs = candidates(&a, &b);
        size_t n = generate(&a, &b, &pairs, expected, 1024);
        /* reverse, then append every other one again */
        size_t count = pairs.count;
        for (size_t i = 0; i < count / 2; i++) {
            glcollide_index_pair t = pairs.pairs[i];
            pairs.pairs[i] = pairs.pairs[count - 1 - i];
            pairs.pairs[count - 1 - i] = t;
        }
        for (size_t i = 0; i < count; i += 2)
            ck_assert_int_eq(glcollide_pair_list_push(&pairs, pairs.pairs[i].a, pairs.pairs[i].b),
                             GLCOLLIDE_OK);
        size_t m = generate(&a, &b, &pairs, got, 1024);
        TEST_REQUIRE(m == n && memcmp(got, expected, n * sizeof *got) == 0,
                     "scene %d (seed 0x%llx): %zu contacts, shuffled %zu, or different", s,
                     (unsigned long long)(0xDE7E2000ull + (uint64_t)s), n, m);
        glcollide_pair_list_clear(&pairs);
        release(&a);
        release(&b);
    }
}
END_TEST

/*
 * A resting pair under tiny motions (1e-9 m, 1e-9 rad, as a solver leaves a
 * stack from step to step): the same count, the same corners (within 1e-5
 * m: the rim of a 2e-6 slab), depths within 1e-8 m. Which triangles name a
 * corner may change with the motion (pairs start or stop crossing there);
 * identical inputs give identical output, triangles included
 * (test_deterministic).
 */
START_TEST(test_resting_stable)
{
    static const int fine[3] = {12, 12, 12};
    const double half[3] = {0.05, 0.05, 0.05};
    glcollide_contact first[64], now[64];
    size_t n0 = 0;
    for (int step = 0; step < 50; step++) {
        test_rng rng = {0x57AB1E00ull + (uint64_t)step};
        double q[4], at[3] = {0, 0, 0.1 - 2e-6};
        for (int k = 0; k < 3; k++)
            at[k] += test_rng_uniform(&rng, -1e-9, 1e-9);
        q[0] = 1.0;
        for (int k = 1; k < 4; k++)
            q[k] = test_rng_uniform(&rng, -5e-10, 5e-10);
        placed a = place(test_mesh_box(half, fine), at, q);
        placed b = place(test_mesh_box(half, fine), (double[3]){0, 0, 0}, identity);
        size_t n = contacts_of(&a, &b, step ? now : first, 64);
        if (step == 0) {
            n0 = n;
        } else {
            ck_assert_uint_eq(n, n0);
            for (size_t i = 0; i < n; i++) { /* the same set (which is first may change) */
                int found = 0;
                for (size_t j = 0; j < n0 && !found; j++) {
                    double d = 0;
                    for (int k = 0; k < 3; k++)
                        d = fmax(d, fabs(now[i].position[k] - first[j].position[k]));
                    found = d < 1e-5 && fabs(now[i].depth - first[j].depth) < 1e-8;
                }
                TEST_REQUIRE(found, "step %d: contact %zu (at %g %g %g, depth %g) is new", step, i,
                             now[i].position[0], now[i].position[1], now[i].position[2],
                             now[i].depth);
            }
        }
        release(&a);
        release(&b);
    }
    ck_assert_uint_eq(n0, 4);
}
END_TEST

/* Random meshes (plates, spheres, tori, capsules, knots, slivers) at random
 * poses: well formed, every contact on triangles that meet, at most 4 per
 * region. Seeds 0xC0417AC7 + i, 80 scenes. */
START_TEST(test_random_meshes)
{
    static glcollide_contact c[2048];
    size_t touching = 0, total = 0;
    for (int s = 0; s < 80; s++) {
        test_rng rng = {0xC0417AC7ull + (uint64_t)s};
        double qa[4], qb[4], at[3];
        test_rng_quaternion(&rng, qa);
        test_rng_quaternion(&rng, qb);
        for (int k = 0; k < 3; k++)
            at[k] = test_rng_uniform(&rng, -0.6, 0.6);
        placed a = place(test_random_mesh(&rng, 1.0), at, qa);
        placed b = place(test_random_mesh(&rng, 1.0), (double[3]){0, 0, 0}, qb);
        size_t n = contacts_of(&a, &b, c, 2048);
        check_well_formed(c, n);
        TEST_REQUIRE(n <= 4 * region_count(c, n), "scene %d: %zu contacts in %zu regions", s, n,
                     region_count(c, n));
        for (size_t i = 0; i < n; i++) {
            const uint32_t *ta = a.mesh->triangles + 3 * (size_t)c[i].triangle_a;
            const uint32_t *tb = b.mesh->triangles + 3 * (size_t)c[i].triangle_b;
            double gap = glcollide_tri_tri_distance(
                a.positions + 3 * ta[0], a.positions + 3 * ta[1], a.positions + 3 * ta[2],
                b.positions + 3 * tb[0], b.positions + 3 * tb[1], b.positions + 3 * tb[2], NULL,
                NULL);
            TEST_REQUIRE(gap <= 1e-9, "scene %d: contact %zu names triangles %g apart", s, i, gap);
        }
        touching += n > 0;
        total += n;
        release(&a);
        release(&b);
    }
    printf("random meshes: %zu contacts in %zu of 80 scenes\n", total, touching);
    ck_assert_uint_ge(touching, 30);
}
END_TEST

/* glcollide_contacts_containment: a cube inside a box is pushed out through
 * the nearest face by the distance its far side must travel; the other way
 * round too; nothing when apart, touching, or when the outer mesh is open. */
START_TEST(test_containment)
{
    glcollide_contact c[16];
    size_t n = 99;
    glcollide_mesh *inner = box(0.05, 0.05, 0.05), *outer = box(0.2, 0.2, 0.2);
    glcollide_bvh *bi = NULL, *bo = NULL;
    ck_assert_int_eq(glcollide_bvh_create(inner, &bi), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_bvh_create(outer, &bo), GLCOLLIDE_OK);
    glcollide_contact_solid si = {inner, bi, {{0.13, 0.02, 0.05}, {1, 0, 0, 0}}, 1};
    glcollide_contact_solid so = {outer, bo, {{0, 0, 0}, {1, 0, 0, 0}}, 1};
    /* inner is A: pushed along +x (the face at x = 0.2 is 0.07 from its
     * centre), by 0.07 + 0.05 */
    ck_assert_int_eq(glcollide_contacts_containment(&si, &so, NULL, c, 16, &n), GLCOLLIDE_OK);
    ck_assert_uint_eq(n, 4);
    for (size_t i = 0; i < n; i++) {
        ck_assert_double_eq_tol(c[i].normal[0], 1.0, 1e-12);
        ck_assert_double_eq_tol(c[i].depth, 0.12, 1e-12);
        ck_assert_double_eq_tol(c[i].position[0], 0.08, 1e-12); /* the trailing face */
    }
    /* roles swapped: B inside A, A moves the other way */
    ck_assert_int_eq(glcollide_contacts_containment(&so, &si, NULL, c, 16, &n), GLCOLLIDE_OK);
    ck_assert_uint_eq(n, 4);
    ck_assert_double_eq_tol(c[0].normal[0], -1.0, 1e-12);
    ck_assert_double_eq_tol(c[0].depth, 0.12, 1e-12);
    /* the buffer bounds the count; options the manifold */
    glcollide_contact_options options = glcollide_contact_default_options();
    options.points_per_region = 2;
    ck_assert_int_eq(glcollide_contacts_containment(&si, &so, &options, c, 16, &n), GLCOLLIDE_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(glcollide_contacts_containment(&si, &so, NULL, c, 1, &n), GLCOLLIDE_OK);
    ck_assert_uint_eq(n, 1);
    /* apart; resting on the outer box's top (its deciding vertex on the
     * face: touching, whatever rounding says); an open outer: nothing */
    si.pose.translation[0] = 1.0;
    ck_assert_int_eq(glcollide_contacts_containment(&si, &so, NULL, c, 16, &n), GLCOLLIDE_OK);
    ck_assert_uint_eq(n, 0);
    si.pose.translation[0] = 0.13;
    si.pose.translation[2] = 0.25;
    ck_assert_int_eq(glcollide_contacts_containment(&si, &so, NULL, c, 16, &n), GLCOLLIDE_OK);
    ck_assert_uint_eq(n, 0);
    si.pose.translation[2] = 0.05;
    so.closed = 0;
    ck_assert_int_eq(glcollide_contacts_containment(&si, &so, NULL, c, 16, &n), GLCOLLIDE_OK);
    ck_assert_uint_eq(n, 0);
    /* bad arguments: one message each */
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_contacts_containment(&si, &so, NULL, c, 16, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "contacts: count is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_contacts_containment(NULL, &so, NULL, c, 16, &n);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "contacts: NULL solid, arrays or contacts for containment");
    test_log_capture_stop();
    glcollide_bvh_destroy(&bi);
    glcollide_bvh_destroy(&bo);
    glcollide_mesh_destroy(&inner);
    glcollide_mesh_destroy(&outer);
}
END_TEST

/* Apart: nothing. max 0: nothing, no error. */
START_TEST(test_disjoint_and_limits)
{
    glcollide_contact c[16];
    placed a = place(box(0.5, 0.5, 0.5), (double[3]){1.01, 0.2, 0}, identity);
    placed b = place(box(0.5, 0.5, 0.5), (double[3]){0, 0, 0}, identity);
    ck_assert_uint_eq(contacts_of(&a, &b, c, 16), 0);
    release(&a);
    a = place(box(0.5, 0.5, 0.5), (double[3]){0.9, 0.2, 0.1}, identity);
    glcollide_pair_list pairs = candidates(&a, &b);
    size_t n = 5;
    glcollide_mesh wa = world_mesh(&a), wb = world_mesh(&b);
    ck_assert_int_eq(
        glcollide_contacts_generate(&wa, &wb, pairs.pairs, pairs.count, NULL, NULL, 0, &n, NULL),
        GLCOLLIDE_OK);
    ck_assert_uint_eq(n, 0);
    glcollide_pair_list_clear(&pairs);
    release(&a);
    release(&b);
}
END_TEST

/* Bad arguments: one message each, nothing written, scratch reusable. */
START_TEST(test_arguments)
{
    double p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint32_t t[3] = {0, 1, 2};
    const glcollide_mesh tri = {p, t, 3, 1, NULL};
    const glcollide_index_pair pair = {0, 0};
    glcollide_contact c[4];
    size_t n = 7;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_contacts_generate(&tri, &tri, &pair, 1, NULL, c, 4, NULL, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "contacts: count is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_contacts_generate(NULL, &tri, &pair, 1, NULL, c, 4, &n, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "contacts: NULL mesh arrays or candidates with 1 candidates");
    ck_assert_uint_eq(n, 0);
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_contacts_generate(&tri, &tri, &pair, 1, NULL, NULL, 4, &n, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "contacts: contacts is NULL with max_contacts 4");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_scratch_create(NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "scratch: out is NULL");
    test_log_capture_stop();
    glcollide_scratch *scratch = NULL;
    glcollide_scratch_destroy(NULL);
    glcollide_scratch_destroy(&scratch);
    /* a triangle against itself: coplanar, same facing: no contact */
    ck_assert_int_eq(glcollide_contacts_generate(&tri, &tri, &pair, 1, NULL, c, 4, &n, NULL),
                     GLCOLLIDE_OK);
    ck_assert_uint_eq(n, 0);
}
END_TEST

/* Two bunny00 deeply interpenetrating: timing (printed), well formed, the
 * same contacts with a reused scratch (and no growth the second time). */
START_TEST(test_bunnies)
{
    test_data_mesh("bunny00.off");
    char path[4096];
    ck_assert_int_eq(glcollide_mesh_find_data("bunny00.off", path, sizeof path), GLCOLLIDE_OK);
    glcollide_mesh *m0 = NULL, *m1 = NULL;
    ck_assert_int_eq(glcollide_mesh_load(path, 1.0, &m0), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_load(path, 1.0, &m1), GLCOLLIDE_OK);
    double q[4];
    axis_rotation(q, 2, 0.7);
    placed a = place(m0, (double[3]){0.1, 0.05, 0.02}, q);
    placed b = place(m1, (double[3]){0, 0, 0}, identity);
    glcollide_pair_list pairs = candidates(&a, &b);
    static glcollide_contact c[256], again[256];
    size_t n = 0;
    double best = INFINITY;
    glcollide_scratch *scratch = NULL;
    ck_assert_int_eq(glcollide_scratch_create(&scratch), GLCOLLIDE_OK);
    glcollide_mesh wa = world_mesh(&a), wb = world_mesh(&b);
    for (int run = 0; run < 3; run++) {
        double start = test_now_ms();
        ck_assert_int_eq(glcollide_contacts_generate(&wa, &wb, pairs.pairs, pairs.count, NULL,
                                                     run ? again : c, 256, &n, scratch),
                         GLCOLLIDE_OK);
        best = fmin(best, test_now_ms() - start);
        if (run)
            ck_assert(memcmp(again, c, n * sizeof *c) == 0);
    }
    check_well_formed(c, n);
    printf("bunnies: %zu candidates -> %zu contacts in %zu regions in %.2f ms\n", pairs.count, n,
           region_count(c, n), best);
    ck_assert_uint_gt(n, 0);
    glcollide_scratch_destroy(&scratch);
    glcollide_pair_list_clear(&pairs);
    release(&a);
    release(&b);
}
END_TEST

/* Two bunnies: the same contacts with the contact stages on 1, 2, 3, 4
 * or 8 threads; and ranked contacts, selected for any buffer, are what an
 * unranked call with that buffer gives (bit for bit). */
START_TEST(test_threads_and_ranks)
{
    test_data_mesh("bunny00.off");
    char path[4096];
    ck_assert_int_eq(glcollide_mesh_find_data("bunny00.off", path, sizeof path), GLCOLLIDE_OK);
    glcollide_mesh *m0 = NULL, *m1 = NULL;
    ck_assert_int_eq(glcollide_mesh_load(path, 1.0, &m0), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_load(path, 1.0, &m1), GLCOLLIDE_OK);
    double q[4];
    axis_rotation(q, 2, 0.7);
    placed a = place(m0, (double[3]){0.1, 0.05, 0.02}, q);
    placed b = place(m1, (double[3]){0, 0, 0}, identity);
    glcollide_pair_list pairs = candidates(&a, &b);
    static glcollide_contact alone[512], got[512], ranked[512];
    glcollide_contact_options options = glcollide_contact_default_options();
    size_t n = 0, m = 0;
    glcollide_mesh wa = world_mesh(&a), wb = world_mesh(&b);
    const int threads[] = {1, 2, 3, 4, 8};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        options.threads = threads[t];
        ck_assert_int_eq(glcollide_contacts_generate(&wa, &wb, pairs.pairs, pairs.count, &options,
                                                     t ? got : alone, 512, t ? &m : &n, NULL),
                         GLCOLLIDE_OK);
        if (t)
            TEST_REQUIRE(m == n && memcmp(got, alone, n * sizeof *got) == 0,
                         "%d threads: %zu contacts, or different from 1 thread's %zu",
                         threads[t], m, n);
    }
    ck_assert_uint_gt(n, 8);
    /* The candidates reversed and every third one again, far from the
     * first (other tasks' chunks): the same contacts, each pair's element
     * once, on 1 and on 4 threads. */
    glcollide_pair_list shuffled = {0};
    for (size_t i = pairs.count; i-- > 0;)
        ck_assert_int_eq(glcollide_pair_list_push(&shuffled, pairs.pairs[i].a, pairs.pairs[i].b),
                         GLCOLLIDE_OK);
    for (size_t i = 0; i < pairs.count; i += 3)
        ck_assert_int_eq(glcollide_pair_list_push(&shuffled, pairs.pairs[i].a, pairs.pairs[i].b),
                         GLCOLLIDE_OK);
    for (int t = 1; t <= 4; t += 3) {
        options.threads = t;
        ck_assert_int_eq(glcollide_contacts_generate(&wa, &wb, shuffled.pairs, shuffled.count,
                                                     &options, got, 512, &m, NULL),
                         GLCOLLIDE_OK);
        TEST_REQUIRE(m == n && memcmp(got, alone, n * sizeof *got) == 0,
                     "%d threads, candidates reversed and repeated: %zu contacts, or different "
                     "from %zu",
                     t, m, n);
    }
    glcollide_pair_list_clear(&shuffled);
    options.threads = 2;
    options.ranked = 1;
    size_t r = 0;
    ck_assert_int_eq(glcollide_contacts_generate(&wa, &wb, pairs.pairs, pairs.count, &options,
                                                 ranked, 512, &r, NULL),
                     GLCOLLIDE_OK);
    ck_assert_uint_eq(r, n);
    options.ranked = 0;
    for (size_t max = 1; max <= n + 1; max++) {
        static glcollide_contact selected[512];
        memcpy(selected, ranked, r * sizeof *ranked);
        size_t k = glcollide_contacts_select(selected, r, max, GLCOLLIDE_CONTACTS_MESH_MESH);
        ck_assert_int_eq(glcollide_contacts_generate(&wa, &wb, pairs.pairs, pairs.count, &options,
                                                     got, max, &m, NULL),
                         GLCOLLIDE_OK);
        TEST_REQUIRE(k == m && memcmp(selected, got, m * sizeof *got) == 0,
                     "buffer %zu: %zu selected from the ranked list, %zu computed, or different",
                     max, k, m);
    }
    glcollide_pair_list_clear(&pairs);
    release(&a);
    release(&b);
}
END_TEST

/* The regions' sums taken in parts (two bunnies' and the knots' points are
 * several parts) and the sums of joined regions made from their parts'
 * (the area moved to the joined region's centroid) agree with the plain
 * sums, joined regions summed afresh from their points: the same points and
 * triangles, normals and depths within 1e-9. On each scene, regions are
 * joined. */
START_TEST(test_sums_in_parts)
{
    static const char *const files[][2] = {{"bunny00.off", "bunny00.off"},
                                           {"knot1.off", "knot2.off"}};
    for (size_t scene = 0; scene < 2; scene++) {
        glcollide_mesh *m0 = NULL, *m1 = NULL;
        ck_assert_int_eq(glcollide_mesh_load(test_data_mesh(files[scene][0]), 1.0, &m0),
                         GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_load(test_data_mesh(files[scene][1]), 1.0, &m1),
                         GLCOLLIDE_OK);
        double q[4];
        axis_rotation(q, 2, scene ? pi / 6 : 0.7);
        placed a = place(m0, (double[3]){0.1, 0.05, 0.02}, q);
        placed b = place(m1, (double[3]){0, 0, 0}, identity);
        glcollide_pair_list pairs = candidates(&a, &b);
        glcollide_mesh wa = world_mesh(&a), wb = world_mesh(&b);
        glcollide_contact_options options = glcollide_contact_default_options();
        options.ranked = 1; /* every region's picks, unselected */
        static glcollide_contact parted[512], plain[512];
        size_t n = 0, m = 0;
        for (int threads = 1; threads <= 2; threads++) {
            options.threads = threads;
            glcollide_contacts_plain_sums = 0;
            ck_assert_int_eq(glcollide_contacts_generate(&wa, &wb, pairs.pairs, pairs.count,
                                                         &options, parted, 512, &n, NULL),
                             GLCOLLIDE_OK);
            glcollide_contacts_plain_sums = 1;
            ck_assert_int_eq(glcollide_contacts_generate(&wa, &wb, pairs.pairs, pairs.count,
                                                         &options, plain, 512, &m, NULL),
                             GLCOLLIDE_OK);
            glcollide_contacts_plain_sums = 0;
            TEST_REQUIRE(n == m && n > 8, "%s: %zu contacts in parts, %zu plain", files[scene][1],
                         n, m);
            double normal = 0.0, depth = 0.0;
            for (size_t i = 0; i < n; i++) {
                TEST_REQUIRE(
                    memcmp(parted[i].position, plain[i].position, sizeof parted[i].position) == 0 &&
                        parted[i].triangle_a == plain[i].triangle_a &&
                        parted[i].triangle_b == plain[i].triangle_b &&
                        parted[i].region == plain[i].region,
                    "%s, contact %zu: another point or region", files[scene][1], i);
                for (int k = 0; k < 3; k++)
                    normal = fmax(normal, fabs(parted[i].normal[k] - plain[i].normal[k]));
                depth = fmax(depth, fabs(parted[i].depth - plain[i].depth));
            }
            TEST_REQUIRE(normal < 1e-9 && depth < 1e-9,
                         "%s, %d threads: normals %g, depths %g apart", files[scene][1], threads,
                         normal, depth);
        }
        glcollide_pair_list_clear(&pairs);
        release(&a);
        release(&b);
    }
}
END_TEST

Suite *suite_contacts(void)
{
    Suite *suite = suite_create("contacts");
    TCase *tc = tcase_create("contacts");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_boxes_face_to_face);
    tcase_add_test(tc, test_deep_sink);
    tcase_add_test(tc, test_boxes_touching);
    tcase_add_test(tc, test_fine_on_large_slab);
    tcase_add_test(tc, test_tessellation_independent);
    tcase_add_test(tc, test_depth_bound);
    tcase_add_test(tc, test_corner_two_regions);
    tcase_add_test(tc, test_joined_across_cells);
    tcase_add_test(tc, test_spheres);
    tcase_add_test(tc, test_buffer_independent);
    tcase_add_test(tc, test_deterministic);
    tcase_add_test(tc, test_resting_stable);
    tcase_add_test(tc, test_random_meshes);
    tcase_add_test(tc, test_containment);
    tcase_add_test(tc, test_disjoint_and_limits);
    tcase_add_test(tc, test_arguments);
    tcase_add_test(tc, test_threads_and_ranks);
    tcase_add_test(tc, test_sums_in_parts);
    tcase_add_test(tc, test_bunnies);
    suite_add_tcase(suite, tc);
    return suite;
}
