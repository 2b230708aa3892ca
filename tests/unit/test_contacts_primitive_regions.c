/* SPDX-License-Identifier: MIT */
/*
 * Mesh-primitive contacts beyond single faces: no contact deeper than the
 * solids overlap along its normal (random poses against a convex mesh, the
 * overlap computed here independently), regions and the buffer, determinism
 * and stability under tiny motions, meshes whose triangles share no vertex
 * indices, containment, bad input word for word.
 */
#include "helpers/tests.h"
#include "unit/contacts_primitive_solid.h"

#include "helpers/meshes.h"

#include <glcollide/geometry.h>
#include <glcollide/primitives.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the depth bound */

/* Where the line p + t d lies in the box of half sizes h (its frame): [t0, t1]. */
/* Rounding of the intervals below where a line only grazes a solid. */
static const double line_tolerance = 1e-9;

static int line_in_box(const double p[3], const double d[3], const double h[3], double *t0,
                       double *t1)
{
    *t0 = -INFINITY;
    *t1 = INFINITY;
    for (int k = 0; k < 3; k++) {
        if (fabs(d[k]) < 1e-12) { /* along the slab (a normal that rounded off it) */
            if (fabs(p[k]) > h[k] + line_tolerance)
                return 0;
            continue;
        }
        double a = (-h[k] - p[k]) / d[k], b = (h[k] - p[k]) / d[k];
        *t0 = fmax(*t0, fmin(a, b));
        *t1 = fmin(*t1, fmax(a, b));
    }
    return *t0 <= *t1 + line_tolerance; /* a line through an edge or a corner */
}

/* The same in a ball of radius r about c. */
static int line_in_ball(const double p[3], const double d[3], const double c[3], double r,
                        double *t0, double *t1)
{
    double m[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    double b = dot3(m, d), cc = dot3(m, m) - r * r, disc = b * b - cc;
    if (disc < 0.0)
        return 0;
    *t0 = -b - sqrt(disc);
    *t1 = -b + sqrt(disc);
    return 1;
}

/* In a primitive's frame: the line's interval inside it (capsules by their
 * two balls and the cylinder between, cylinders by caps and side). */
static int line_in_primitive(const glcollide_primitive *p, const double x[3], const double d[3],
                             double *t0, double *t1)
{
    double r = p->size[0], h = 0.5 * p->size[1];
    switch (p->kind) {
    case GLCOLLIDE_PRIMITIVE_SPHERE: return line_in_ball(x, d, (double[3]){0, 0, 0}, r, t0, t1);
    case GLCOLLIDE_PRIMITIVE_BOX:
        return line_in_box(x, d, (double[3]){0.5 * p->size[0], 0.5 * p->size[1], 0.5 * p->size[2]},
                           t0, t1);
    default: break;
    }
    /* capsule, cylinder: sample the interval by bisection-free stepping is
     * not exact; instead intersect the round side analytically */
    double a = d[0] * d[0] + d[1] * d[1], b = x[0] * d[0] + x[1] * d[1],
           c = x[0] * x[0] + x[1] * x[1] - r * r;
    double s0 = -INFINITY, s1 = INFINITY;
    if (a > 1e-18) { /* else along the axis (a normal that rounded off it) */
        double disc = b * b - a * c;
        if (disc < 0.0)
            s0 = INFINITY, s1 = -INFINITY;
        else
            s0 = (-b - sqrt(disc)) / a, s1 = (-b + sqrt(disc)) / a;
    } else if (c > 2.0 * r * line_tolerance) {
        s0 = INFINITY, s1 = -INFINITY;
    }
    double z0 = -INFINITY, z1 = INFINITY;
    if (d[2] != 0.0) {
        z0 = fmin((-h - x[2]) / d[2], (h - x[2]) / d[2]);
        z1 = fmax((-h - x[2]) / d[2], (h - x[2]) / d[2]);
    } else if (fabs(x[2]) > h) {
        z0 = INFINITY, z1 = -INFINITY;
    }
    *t0 = fmax(s0, z0);
    *t1 = fmin(s1, z1);
    int found = *t0 <= *t1 + line_tolerance;
    if (p->kind == GLCOLLIDE_PRIMITIVE_CAPSULE)
        for (int e = 0; e < 2; e++) {
            double b0, b1;
            if (line_in_ball(x, d, (double[3]){0, 0, e ? h : -h}, r, &b0, &b1)) {
                *t0 = found ? fmin(*t0, b0) : b0;
                *t1 = found ? fmax(*t1, b1) : b1;
                found = 1;
            }
        }
    return found;
}

/* The support of a primitive (in its own frame) along unit d. */
static double primitive_support_along(const glcollide_primitive *p, const double d[3])
{
    double r = p->size[0], h = 0.5 * p->size[1];
    switch (p->kind) {
    case GLCOLLIDE_PRIMITIVE_SPHERE: return r;
    case GLCOLLIDE_PRIMITIVE_CAPSULE: return r + h * fabs(d[2]);
    case GLCOLLIDE_PRIMITIVE_BOX:
        return 0.5 * (p->size[0] * fabs(d[0]) + p->size[1] * fabs(d[1]) + p->size[2] * fabs(d[2]));
    default: return h * fabs(d[2]) + r * sqrt(d[0] * d[0] + d[1] * d[1]);
    }
}

/*
 * Random primitives of every kind against a box mesh (convex, gridded
 * faces) at random poses: every contact's point lies in both solids (the
 * line along its normal meets both there, to 1e-9, from the shapes'
 * equations), and no contact reports more depth than the mesh must travel
 * along the normal to clear the primitive (the primitive's highest point
 * along it less the mesh's lowest: both solids are convex).
 */
START_TEST(test_depth_bound)
{
    test_rng rng = {0xdee9};
    const double h[3] = {0.1, 0.07, 0.05};
    glcollide_mesh *mesh = test_mesh_box(h, (int[3]){3, 2, 2});
    size_t checked = 0;
    for (int trial = 0; trial < 400; trial++) {
        double q[4], t[3];
        solid m = random_solid(&rng, mesh, 0.5, t, q);
        glcollide_primitive p = {.kind = (glcollide_primitive_kind)(1 + trial % 4)};
        for (int k = 0; k < 3; k++)
            p.size[k] = test_rng_uniform(&rng, 0.02, 0.12);
        test_rng_quaternion(&rng, p.pose.rotation);
        for (int k = 0; k < 3; k++) /* near the mesh's surface */
            p.pose.translation[k] = t[k] + test_rng_uniform(&rng, -0.15, 0.15);
        glcollide_contact c[64];
        size_t n = contacts_of(&m, &p, c, 64);
        for (size_t i = 0; i < n; i++) {
            double xm[3], dm[3], xp[3], dp[3], a0, a1, b0, b1;
            into(&m.s.pose, c[i].position, 0, xm);
            into(&m.s.pose, c[i].normal, 1, dm);
            into(&p.pose, c[i].position, 0, xp);
            into(&p.pose, c[i].normal, 1, dp);
            int in_mesh = line_in_box(xm, dm, h, &a0, &a1);
            int in_primitive = line_in_primitive(&p, xp, dp, &b0, &b1);
            double low = INFINITY;
            for (size_t v = 0; v < mesh->vertex_count; v++) {
                double w[3];
                place(t, q, mesh->positions + 3 * v, 0, w);
                low = fmin(low, dot3(w, c[i].normal));
            }
            double overlap =
                dot3(p.pose.translation, c[i].normal) + primitive_support_along(&p, dp) - low;
            ck_assert_msg(in_mesh && in_primitive && a0 <= 1e-9 && a1 >= -1e-9 && b0 <= 1e-9 &&
                              b1 >= -1e-9,
                          "trial %d (kind %d): contact %zu not in both solids", trial, p.kind, i);
            ck_assert_msg(c[i].depth <= overlap + 1e-9,
                          "trial %d (kind %d): contact %zu depth %.9g, the mesh clears the "
                          "primitive after %.9g",
                          trial, p.kind, i, c[i].depth, overlap);
            ck_assert_msg(c[i].depth >= 0.0 && fabs(dot3(c[i].normal, c[i].normal) - 1) < 1e-12,
                          "trial %d: bad depth or normal", trial);
            checked++;
        }
        m.mesh = NULL;
        release(&m);
    }
    ck_assert_uint_gt(checked, 200);
    glcollide_mesh_destroy(&mesh);
}
END_TEST

/* ---------------------------------------------------------------- regions, buffer, order */

/* Two separate slabs in one mesh (a gap of 0.1 between them). */
static glcollide_mesh *two_slabs(void)
{
    glcollide_mesh *a = test_mesh_box((double[3]){0.2, 0.2, 0.05}, (int[3]){2, 2, 1});
    ck_assert_ptr_nonnull(a);
    size_t nv = a->vertex_count, nt = a->triangle_count;
    double *positions = malloc(6 * nv * sizeof *positions);
    uint32_t *triangles = malloc(6 * nt * sizeof *triangles);
    for (size_t v = 0; v < nv; v++)
        for (int side = 0; side < 2; side++) {
            double *p = positions + 3 * (v + side * nv);
            memcpy(p, a->positions + 3 * v, 3 * sizeof *p);
            p[0] += side ? 0.25 : -0.25;
        }
    for (size_t i = 0; i < 3 * nt; i++) {
        triangles[i] = a->triangles[i];
        triangles[i + 3 * nt] = a->triangles[i] + (uint32_t)nv;
    }
    glcollide_mesh *out = NULL;
    ck_assert_int_eq(glcollide_mesh_create(positions, 2 * nv, triangles, 2 * nt, "two slabs", &out),
                     GLCOLLIDE_OK);
    free(positions);
    free(triangles);
    glcollide_mesh_destroy(&a);
    return out;
}

/*
 * A box across two separate slabs: two regions of 4 points. The count does
 * not grow with the buffer (8 with room for 64 or 1024); a buffer of 3 gets
 * 2 of the deeper region and 1 of the other (turns), grouped by region.
 */
START_TEST(test_regions_and_buffer)
{
    double identity[4] = {1, 0, 0, 0}, tilt[4];
    solid m = make_solid(two_slabs(), (double[3]){0, 0, 0}, identity);
    axis_quat(1, 1e-4, tilt); /* the +x end a little deeper (3e-5), both sunk (1e-4) */
    glcollide_primitive box = {.kind = GLCOLLIDE_PRIMITIVE_BOX,
                               .size = {0.6, 0.2, 0.1},
                               .pose = {{0, 0, 0.1 - 1e-4}, {tilt[0], tilt[1], tilt[2], tilt[3]}}};
    glcollide_contact c[1024];
    size_t n64 = contacts_of(&m, &box, c, 64), n1024 = contacts_of(&m, &box, c, 1024);
    ck_assert_uint_eq(n64, 8);
    ck_assert_uint_eq(n1024, 8);
    uint32_t regions = 0;
    for (size_t i = 0; i < n1024; i++)
        regions = c[i].region + 1 > regions ? c[i].region + 1 : regions;
    ck_assert_uint_eq(regions, 2);
    size_t n3 = contacts_of(&m, &box, c, 3);
    ck_assert_uint_eq(n3, 3);
    ck_assert_uint_eq(c[0].region, 0);
    ck_assert_uint_eq(c[1].region, 0);
    ck_assert_uint_eq(c[2].region, 1);
    ck_assert_msg(c[0].position[0] > 0, "region 0 is not the deeper (+x) one");
    glcollide_contact_options one = {.points_per_region = 1};
    size_t count = 0;
    ck_assert_int_eq(glcollide_contacts_mesh_primitive(&m.s, &box, &one, c, 64, &count, NULL),
                     GLCOLLIDE_OK);
    ck_assert_uint_eq(count, 2);
    release(&m);
}
END_TEST

/*
 * The same call twice gives the same contacts; a resting box moved by 1e-12
 * keeps its contacts (count, triangles, points within 1e-9); a mesh whose
 * triangles share no vertex index (as ODE's capture gives it) gives the
 * same regions and contacts as the shared one.
 */
START_TEST(test_deterministic_and_unshared)
{
    double identity[4] = {1, 0, 0, 0};
    glcollide_mesh *grid = test_mesh_box((double[3]){0.3, 0.3, 0.05}, (int[3]){6, 6, 1});
    /* the unshared copy */
    size_t nt = grid->triangle_count;
    double *positions = malloc(9 * nt * sizeof *positions);
    uint32_t *triangles = malloc(3 * nt * sizeof *triangles);
    for (size_t i = 0; i < 3 * nt; i++) {
        memcpy(positions + 3 * i, grid->positions + 3 * (size_t)grid->triangles[i],
               3 * sizeof *positions);
        triangles[i] = (uint32_t)i;
    }
    glcollide_mesh *loose = NULL;
    ck_assert_int_eq(glcollide_mesh_create(positions, 3 * nt, triangles, nt, "loose", &loose),
                     GLCOLLIDE_OK);
    free(positions);
    free(triangles);
    solid shared = make_solid(grid, (double[3]){0, 0, 0}, identity);
    solid unshared = make_solid(loose, (double[3]){0, 0, 0}, identity);
    glcollide_primitive_kind kinds[4] = {GLCOLLIDE_PRIMITIVE_BOX, GLCOLLIDE_PRIMITIVE_CYLINDER,
                                         GLCOLLIDE_PRIMITIVE_CAPSULE, GLCOLLIDE_PRIMITIVE_SPHERE};
    double q[4];
    axis_quat(2, 0.3, q);
    for (int k = 0; k < 4; k++) {
        glcollide_primitive p = {.kind = kinds[k],
                                 .size = {0.1, 0.1, 0.1},
                                 .pose = {{0.02, 0.01, 0.1 - 1e-5}, {q[0], q[1], q[2], q[3]}}};
        if (kinds[k] == GLCOLLIDE_PRIMITIVE_CAPSULE || kinds[k] == GLCOLLIDE_PRIMITIVE_SPHERE)
            p.size[0] = 0.05; /* radius */
        glcollide_contact a[64], b[64], moved[64], loose_c[64];
        size_t na = contacts_of(&shared, &p, a, 64), nb = contacts_of(&shared, &p, b, 64);
        ck_assert_uint_eq(na, nb);
        ck_assert_int_eq(memcmp(a, b, na * sizeof *a), 0);
        glcollide_primitive p2 = p;
        p2.pose.translation[0] += 1e-12;
        p2.pose.translation[2] -= 1e-12;
        size_t nm = contacts_of(&shared, &p2, moved, 64);
        ck_assert_msg(nm == na, "kind %d: %zu contacts, moved by 1e-12: %zu", kinds[k], na, nm);
        for (size_t i = 0; i < na; i++)
            ck_assert_msg(moved[i].triangle_a == a[i].triangle_a &&
                              distance3(moved[i].position, a[i].position) <= 1e-9,
                          "kind %d: contact %zu changed under a motion of 1e-12", kinds[k], i);
        size_t nl = contacts_of(&unshared, &p, loose_c, 64);
        ck_assert_msg(nl == na, "kind %d: %zu contacts on the shared mesh, %zu on the loose one",
                      kinds[k], na, nl);
        for (size_t i = 0; i < na; i++)
            ck_assert_msg(distance3(loose_c[i].position, a[i].position) <= 1e-12 &&
                              loose_c[i].region == a[i].region,
                          "kind %d: contact %zu differs on the loose mesh", kinds[k], i);
    }
    release(&shared);
    release(&unshared);
}
END_TEST

/* ---------------------------------------------------------------- containment */

/*
 * A sphere wholly inside a closed box mesh (no surface met) is pushed out
 * through the nearest face, by its distance from it plus its radius; an open
 * mesh gives nothing. A small box mesh wholly inside a big box primitive is
 * pushed out along the primitive's nearest face, by the distance its farthest
 * vertex must travel.
 */
START_TEST(test_containment)
{
    double identity[4] = {1, 0, 0, 0};
    solid big = make_solid(test_mesh_box((double[3]){0.3, 0.2, 0.1}, (int[3]){1, 1, 1}),
                           (double[3]){1, 2, 3}, identity);
    glcollide_primitive ball = {.kind = GLCOLLIDE_PRIMITIVE_SPHERE,
                                .size = {0.02},
                                .pose = {{1.05, 2.12, 3.0}, {1, 0, 0, 0}}};
    glcollide_contact c[64];
    size_t n = contacts_of(&big, &ball, c, 64);
    ck_assert_uint_eq(n, 1);
    /* nearest face: y = 2.2, 0.08 away; the mesh moves along -y */
    ck_assert_msg(distance3(c[0].normal, (double[3]){0, -1, 0}) <= 1e-12, "normal (%g %g %g)",
                  c[0].normal[0], c[0].normal[1], c[0].normal[2]);
    ck_assert_msg(fabs(c[0].depth - (0.08 + 0.02)) <= 1e-12, "depth %.12g", c[0].depth);
    big.s.closed = 0;
    ck_assert_uint_eq(contacts_of(&big, &ball, c, 64), 0);
    release(&big);

    solid small = make_solid(test_mesh_box((double[3]){0.02, 0.02, 0.02}, (int[3]){1, 1, 1}),
                             (double[3]){0.15, 0, 0}, identity);
    glcollide_primitive box = {.kind = GLCOLLIDE_PRIMITIVE_BOX,
                               .size = {0.4, 0.6, 0.6},
                               .pose = {{0, 0, 0}, {1, 0, 0, 0}}};
    n = contacts_of(&small, &box, c, 64);
    ck_assert_uint_ge(n, 1);
    /* the mesh spans x in [0.13, 0.17]: the +x face (x = 0.2) is 0.03 from
     * its nearest side, so it leaves along +x, its far side travelling
     * 0.03 + 0.04 */
    ck_assert_msg(distance3(c[0].normal, (double[3]){1, 0, 0}) <= 1e-12, "normal (%g %g %g)",
                  c[0].normal[0], c[0].normal[1], c[0].normal[2]);
    ck_assert_msg(fabs(c[0].depth - 0.07) <= 1e-12, "depth %.12g", c[0].depth);
    release(&small);
}
END_TEST

/* ---------------------------------------------------------------- bad input */

START_TEST(test_bad_input)
{
    double identity[4] = {1, 0, 0, 0};
    solid m = make_solid(test_mesh_box((double[3]){0.1, 0.1, 0.1}, (int[3]){1, 1, 1}),
                         (double[3]){0, 0, 0}, identity);
    glcollide_contact c[8];
    size_t count = 77;
    glcollide_primitive ball = {
        .kind = GLCOLLIDE_PRIMITIVE_SPHERE, .size = {0.05}, .pose = {{0, 0, 0.14}, {1, 0, 0, 0}}};

    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    ball.pose.translation[0] = NAN;
    int status = glcollide_contacts_mesh_primitive(&m.s, &ball, NULL, c, 8, &count, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "primitive contacts: the primitive's pose is not finite");
    ck_assert_uint_eq(count, 0);
    ball.pose.translation[0] = 0;

    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    m.s.pose.rotation[0] = INFINITY;
    status = glcollide_contacts_mesh_primitive(&m.s, &ball, NULL, c, 8, &count, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "primitive contacts: the mesh's pose is not finite");
    m.s.pose.rotation[0] = 1;

    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    ball.size[0] = 0;
    status = glcollide_contacts_mesh_primitive(&m.s, &ball, NULL, c, 8, &count, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "primitive contacts: size (0, 0, 0) of a sphere is not positive and finite");
    ball.size[0] = 0.05;

    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    glcollide_primitive box = {.kind = GLCOLLIDE_PRIMITIVE_BOX, .size = {0.1, -0.1, 0.1}};
    box.pose.rotation[0] = 1;
    status = glcollide_contacts_mesh_primitive(&m.s, &box, NULL, c, 8, &count, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "primitive contacts: size (0.1, -0.1, 0.1) of a box is not positive and "
                       "finite");

    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    glcollide_primitive plane = {.kind = GLCOLLIDE_PRIMITIVE_PLANE, .plane = {0, 0, 0, 1}};
    status = glcollide_contacts_mesh_primitive(&m.s, &plane, NULL, c, 8, &count, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "primitive contacts: plane (0, 0, 0, 1) has no finite normal and offset");

    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_contacts_mesh_primitive(&m.s, &ball, NULL, NULL, 8, &count, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "primitive contacts: NULL count, mesh, primitive or contacts");
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    status = glcollide_contacts_mesh_primitive(NULL, &ball, NULL, c, 8, &count, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "primitive contacts: NULL count, mesh, primitive or contacts");

    /* Nothing to do is no error: no room, or an empty mesh. */
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    ck_assert_int_eq(glcollide_contacts_mesh_primitive(&m.s, &ball, NULL, NULL, 0, &count, NULL),
                     GLCOLLIDE_OK);
    ck_assert_uint_eq(count, 0);
    const glcollide_mesh no_triangles = {NULL, NULL, 0, 0, "empty"};
    glcollide_contact_solid empty = {&no_triangles, NULL, {{0, 0, 0}, {1, 0, 0, 0}}, 0};
    ck_assert_int_eq(glcollide_contacts_mesh_primitive(&empty, &ball, NULL, c, 8, &count, NULL),
                     GLCOLLIDE_OK);
    ck_assert_uint_eq(count, 0);
    ck_assert_int_eq(test_log_count(), 0);
    /* and the good call still works after all that */
    ck_assert_uint_eq(contacts_of(&m, &ball, c, 8), 1);
    test_log_capture_stop();

    glcollide_scratch *scratch = NULL;
    ck_assert_int_eq(glcollide_scratch_create(&scratch), GLCOLLIDE_OK);
    glcollide_scratch_destroy(&scratch);
    ck_assert_ptr_null(scratch);
    glcollide_scratch_destroy(&scratch);
    glcollide_scratch_destroy(NULL);
    release(&m);
}
END_TEST

Suite *suite_contacts_primitive_regions(void)
{
    Suite *suite = suite_create("contacts_primitive");
    TCase *tc = tcase_create("contacts_primitive");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_depth_bound);
    tcase_add_test(tc, test_regions_and_buffer);
    tcase_add_test(tc, test_deterministic_and_unshared);
    tcase_add_test(tc, test_containment);
    tcase_add_test(tc, test_bad_input);
    suite_add_tcase(suite, tc);
    return suite;
}
