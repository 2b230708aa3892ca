/* SPDX-License-Identifier: MIT */
/*
 * Contacts between a mesh and ODE's primitives (glcollide_contacts_mesh_primitive,
 * glcollide/contacts/contacts_primitive.c), rays (glcollide_ray_mesh) and the BVH's
 * traversals against shapes: analytic answers on flat mesh faces (depths,
 * normals and points to 1e-9, at random poses), the bound that no contact is
 * deeper than the solids overlap along its normal (random poses against a
 * convex mesh, the overlap computed here independently), regions and the
 * buffer, determinism and stability under tiny motions, meshes whose
 * triangles share no vertex indices, containment, bad input word for word,
 * and the BVH queries against brute force. The simulations that judge these
 * contacts are in tests/ode/test_primitives.c. This file: analytic answers
 * on flat faces; test_contacts_primitive_regions.c: the depth bound,
 * regions, determinism, containment, bad input; test_contacts_primitive_queries.c:
 * rays and the BVH queries.
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

/* Is every point of expected (n of them) among the contacts' positions,
 * within tol? */
static int has_points(const glcollide_contact *c, size_t count, const double (*expected)[3],
                      size_t n, double tol)
{
    for (size_t i = 0; i < n; i++) {
        int found = 0;
        for (size_t j = 0; j < count && !found; j++)
            found = distance3(c[j].position, expected[i]) <= tol;
        if (!found)
            return 0;
    }
    return 1;
}

/* An open mesh of one quad (corners in order), two triangles. */
static glcollide_mesh *open_quad(const double corners[12], const char *name)
{
    static const uint32_t triangles[] = {0, 1, 2, 0, 2, 3};
    glcollide_mesh *quad = NULL;
    ck_assert_int_eq(glcollide_mesh_create(corners, 4, triangles, 2, name, &quad), GLCOLLIDE_OK);
    return quad;
}

/* ---------------------------------------------------------------- flat faces */

/* The slab: 0.6 x 0.6 x 0.1, its top face (local z = 0.05) a 6 x 6 grid, at a
 * random pose. Primitives are placed in its local frame. */
typedef struct slab {
    solid solid;
    double t[3], q[4], up[3];
} slab;

/* A box mesh of half sizes half, its faces in grids, at a random pose. */
static slab random_box(test_rng *rng, const double half[3], const int grid[3])
{
    slab s;
    s.solid = random_solid(rng, test_mesh_box(half, grid), 2, s.t, s.q);
    place(s.t, s.q, (double[3]){0, 0, 1}, 1, s.up);
    return s;
}

static slab random_slab(test_rng *rng)
{
    return random_box(rng, (double[3]){0.3, 0.3, 0.05}, (int[3]){6, 6, 1});
}

/* A primitive resting on the slab's top: its pose in the slab's frame. */
static glcollide_primitive on_slab(const slab *s, glcollide_primitive_kind kind,
                                   const double size[3], const double local_t[3],
                                   const double local_q[4])
{
    glcollide_primitive p = {.kind = kind};
    memcpy(p.size, size, sizeof p.size);
    place(s->t, s->q, local_t, 0, p.pose.translation);
    quat_mul(s->q, local_q, p.pose.rotation);
    return p;
}

static void require_normal(const glcollide_contact *c, size_t n, const double expected[3],
                           const char *what)
{
    for (size_t i = 0; i < n; i++)
        TEST_REQUIRE(distance3(c[i].normal, expected) <= 1e-9,
                     "%s: normal (%g, %g, %g), expected (%g, %g, %g)", what, c[i].normal[0],
                     c[i].normal[1], c[i].normal[2], expected[0], expected[1], expected[2]);
}

static void require_depths(const glcollide_contact *c, size_t n, double depth, const char *what)
{
    for (size_t i = 0; i < n; i++)
        TEST_REQUIRE(fabs(c[i].depth - depth) <= 1e-9, "%s: depth %.12g, expected %.12g", what,
                     c[i].depth, depth);
}

/*
 * ODE's primitives sunk by delta into the flat, tessellated top of a slab at
 * random poses: a sphere (one contact at the foot of its centre), a box
 * flat and turned about the face's normal (its 4 bottom corners), a capsule
 * lying (its 2 ends), a cylinder on its cap (4 points of its rim) and on its
 * side (its 2 lowest points); every normal the face's, pointing into the
 * slab (from the primitive toward the mesh), every depth delta, to 1e-9.
 */
START_TEST(test_flat_faces)
{
    test_rng rng = {0x5eedf1a7};
    for (int trial = 0; trial < 40; trial++) {
        slab s = random_slab(&rng);
        double down[3] = {-s.up[0], -s.up[1], -s.up[2]};
        double x = test_rng_uniform(&rng, -0.15, 0.15), y = test_rng_uniform(&rng, -0.15, 0.15);
        double delta = exp(test_rng_uniform(&rng, log(1e-6), log(1e-2)));
        double yaw = test_rng_uniform(&rng, 0, 2 * pi), qz[4], qx[4], qs[4];
        axis_quat(2, yaw, qz);
        axis_quat(0, pi / 2, qx);
        quat_mul(qz, qx, qs); /* lying: local z turned into the face's plane */
        glcollide_contact c[64];
        char what[96];

        glcollide_primitive sphere = on_slab(&s, GLCOLLIDE_PRIMITIVE_SPHERE, (double[3]){0.05},
                                             (double[3]){x, y, 0.05 + 0.05 - delta}, qz);
        size_t n = contacts_of(&s.solid, &sphere, c, 64);
        snprintf(what, sizeof what, "sphere, trial %d, delta %g", trial, delta);
        ck_assert_msg(n == 1, "%s: %zu contacts", what, n);
        double foot[3];
        place(s.t, s.q, (double[3]){x, y, 0.05}, 0, foot);
        require_normal(c, n, down, what);
        require_depths(c, n, delta, what);
        ck_assert_msg(distance3(c[0].position, foot) <= 1e-9, "%s: not at the foot", what);

        glcollide_primitive box = on_slab(&s, GLCOLLIDE_PRIMITIVE_BOX, (double[3]){0.1, 0.08, 0.06},
                                          (double[3]){x, y, 0.05 + 0.03 - delta}, qz);
        n = contacts_of(&s.solid, &box, c, 64);
        snprintf(what, sizeof what, "box, trial %d, delta %g", trial, delta);
        ck_assert_msg(n == 4, "%s: %zu contacts", what, n);
        double corners[4][3];
        for (int k = 0; k < 4; k++)
            place(box.pose.translation, box.pose.rotation,
                  (double[3]){k & 1 ? 0.05 : -0.05, k & 2 ? 0.04 : -0.04, -0.03}, 0, corners[k]);
        require_normal(c, n, down, what);
        require_depths(c, n, delta, what);
        ck_assert_msg(has_points(c, n, corners, 4, 1e-9), "%s: not at its bottom corners", what);

        glcollide_primitive capsule =
            on_slab(&s, GLCOLLIDE_PRIMITIVE_CAPSULE, (double[3]){0.03, 0.15},
                    (double[3]){x, y, 0.05 + 0.03 - delta}, qs);
        n = contacts_of(&s.solid, &capsule, c, 64);
        snprintf(what, sizeof what, "capsule, trial %d, delta %g", trial, delta);
        ck_assert_msg(n == 2, "%s: %zu contacts", what, n);
        double ends[2][3];
        for (int e = 0; e < 2; e++) {
            double axis = (e ? 0.075 : -0.075);
            place(s.t, s.q, (double[3]){x - axis * sin(yaw), y + axis * cos(yaw), 0.05}, 0,
                  ends[e]);
        }
        require_normal(c, n, down, what);
        require_depths(c, n, delta, what);
        ck_assert_msg(has_points(c, n, ends, 2, 1e-9), "%s: not at its ends", what);

        glcollide_primitive upright =
            on_slab(&s, GLCOLLIDE_PRIMITIVE_CYLINDER, (double[3]){0.05, 0.1},
                    (double[3]){x, y, 0.05 + 0.05 - delta}, qz);
        n = contacts_of(&s.solid, &upright, c, 64);
        snprintf(what, sizeof what, "cylinder on its cap, trial %d, delta %g", trial, delta);
        ck_assert_msg(n == 4, "%s: %zu contacts", what, n);
        require_normal(c, n, down, what);
        require_depths(c, n, delta, what);
        double centre[3];
        place(s.t, s.q, (double[3]){x, y, 0.05 - delta}, 0, centre);
        for (size_t i = 0; i < n; i++) /* on its bottom rim */
            ck_assert_msg(fabs(distance3(c[i].position, centre) - 0.05) <= 1e-9,
                          "%s: a point off the rim", what);

        glcollide_primitive side =
            on_slab(&s, GLCOLLIDE_PRIMITIVE_CYLINDER, (double[3]){0.04, 0.12},
                    (double[3]){x, y, 0.05 + 0.04 - delta}, qs);
        n = contacts_of(&s.solid, &side, c, 64);
        snprintf(what, sizeof what, "cylinder on its side, trial %d, delta %g", trial, delta);
        /* its lowest line's ends, and the slab's vertices in the sunk strip
         * at their own depths where they add to the support */
        ck_assert_msg(n >= 2 && n <= 4, "%s: %zu contacts", what, n);
        for (int e = 0; e < 2; e++) {
            double axis = (e ? 0.06 : -0.06);
            place(s.t, s.q, (double[3]){x - axis * sin(yaw), y + axis * cos(yaw), 0.05 - delta}, 0,
                  ends[e]);
        }
        require_normal(c, n, down, what);
        ck_assert_msg(has_points(c, n, ends, 2, 1e-9), "%s: not at its lowest line's ends", what);
        for (size_t i = 0; i < n; i++) {
            double l[3], own; /* the slab's top at 0.05; the axis 0.04 above the lowest line */
            into(&(glcollide_pose){{s.t[0], s.t[1], s.t[2]}, {s.q[0], s.q[1], s.q[2], s.q[3]}},
                 c[i].position, 0, l);
            double across = -(l[0] - x) * cos(yaw) - (l[1] - y) * sin(yaw);
            own = delta - (0.04 - sqrt(0.04 * 0.04 - across * across));
            double to_end =
                fmin(distance3(c[i].position, ends[0]), distance3(c[i].position, ends[1]));
            ck_assert_msg(fabs(l[2] - 0.05) <= 1e-9 || to_end <= 1e-9,
                          "%s: contact %zu off the face", what, i);
            ck_assert_msg(fabs(c[i].depth - own) <= 1e-9,
                          "%s: contact %zu depth %.12g, expected %.12g", what, i, c[i].depth, own);
        }
        release(&s.solid);
    }
}
END_TEST

/*
 * A cylinder lying on the slab with its axis tilted out of the face by a
 * hair (1e-7 to 1e-3 rad: a wheel on a road), sunk so that both rims are
 * in: each rim's lowest point at its own depth, the normal the face's, to
 * 1e-9. The ray from one of the rims along the face's normal leans off its
 * cap and leaves the cylinder at once: that rim must not be lost.
 */
START_TEST(test_tilted_cylinder)
{
    test_rng rng = {0x5ed9e5};
    for (int trial = 0; trial < 40; trial++) {
        slab s = random_slab(&rng);
        double down[3] = {-s.up[0], -s.up[1], -s.up[2]};
        double x = test_rng_uniform(&rng, -0.15, 0.15), y = test_rng_uniform(&rng, -0.15, 0.15);
        double tilt = exp(test_rng_uniform(&rng, log(1e-7), log(1e-3)));
        double radius = 0.04, half = 0.06;
        double delta = half * sin(tilt) + exp(test_rng_uniform(&rng, log(1e-6), log(1e-2)));
        double yaw = test_rng_uniform(&rng, 0, 2 * pi), qz[4], qt[4], qx[4], qtx[4], q[4];
        axis_quat(2, yaw, qz);
        axis_quat(0, tilt, qt);
        axis_quat(0, pi / 2, qx);
        quat_mul(qt, qx, qtx);
        quat_mul(qz, qtx, q);
        /* in the slab's frame: the axis a, and d across it pointing most down */
        double a[3], d[3];
        place((double[3]){0, 0, 0}, q, (double[3]){0, 0, 1}, 1, a);
        for (int k = 0; k < 3; k++)
            d[k] = (k == 2 ? -1.0 : 0.0) + a[2] * a[k];
        double len = sqrt(dot3(d, d));
        for (int k = 0; k < 3; k++)
            d[k] /= len;
        double centre_z = 0.05 - delta - radius * d[2];
        glcollide_primitive wheel =
            on_slab(&s, GLCOLLIDE_PRIMITIVE_CYLINDER, (double[3]){radius, 2 * half},
                    (double[3]){x, y, centre_z}, q);
        glcollide_contact c[64];
        char what[96];
        size_t n = contacts_of(&s.solid, &wheel, c, 64);
        snprintf(what, sizeof what, "trial %d, tilt %g, delta %g", trial, tilt, delta);
        require_normal(c, n, down, what);
        for (int e = 0; e < 2; e++) {
            double sign = e ? 1.0 : -1.0, local[3], rim[3];
            for (int k = 0; k < 3; k++)
                local[k] = (k == 0   ? x
                            : k == 1 ? y
                                     : centre_z) +
                           sign * half * a[k] + radius * d[k];
            place(s.t, s.q, local, 0, rim);
            int found = 0;
            for (size_t i = 0; i < n; i++)
                if (distance3(c[i].position, rim) <= 1e-9) {
                    found = 1;
                    ck_assert_msg(fabs(c[i].depth - (0.05 - local[2])) <= 1e-9,
                                  "%s: rim %d depth %.12g, expected %.12g", what, e, c[i].depth,
                                  0.05 - local[2]);
                }
            ck_assert_msg(found, "%s: rim %d's lowest point missing (%zu contacts)", what, e, n);
        }
        release(&s.solid);
    }
}
END_TEST

/*
 * A box lying across a beam narrower than it (a car's chassis on a beam),
 * sunk by delta at a random pose: its bottom face crosses the beam's sides,
 * none of its corners is in the beam and no vertex of the beam is in it, so
 * every point where the surfaces meet lies on both. Its contacts: the 4
 * corners of the sunk footprint on the beam's sides at depth delta (how far
 * they lie below the beam's top, though each leaves the box at once as the
 * beam moves down), the normal the top's, to 1e-9.
 */
START_TEST(test_box_across_beam)
{
    test_rng rng = {0xbea3};
    for (int trial = 0; trial < 40; trial++) {
        /* the beam: 0.6 x 0.1 x 0.1, its top at local z = 0.05 */
        slab s = random_box(&rng, (double[3]){0.3, 0.05, 0.05}, (int[3]){1, 1, 1});
        double down[3] = {-s.up[0], -s.up[1], -s.up[2]};
        double x = test_rng_uniform(&rng, -0.2, 0.2);
        double delta = exp(test_rng_uniform(&rng, log(1e-6), log(1e-2)));
        glcollide_primitive box =
            on_slab(&s, GLCOLLIDE_PRIMITIVE_BOX, (double[3]){0.04, 0.2, 0.02},
                    (double[3]){x, 0, 0.05 + 0.01 - delta}, (double[4]){1, 0, 0, 0});
        glcollide_contact c[64];
        char what[96];
        size_t n = contacts_of(&s.solid, &box, c, 64);
        snprintf(what, sizeof what, "trial %d, delta %g", trial, delta);
        ck_assert_msg(n == 4, "%s: %zu contacts", what, n);
        double corners[4][3];
        for (int k = 0; k < 4; k++)
            place(s.t, s.q,
                  (double[3]){x + (k & 1 ? 0.02 : -0.02), k & 2 ? 0.05 : -0.05, 0.05 - delta}, 0,
                  corners[k]);
        require_normal(c, n, down, what);
        require_depths(c, n, delta, what);
        ck_assert_msg(has_points(c, n, corners, 4, 1e-9),
                      "%s: not at the footprint's corners on the beam's sides", what);
        release(&s.solid);
    }
}
END_TEST

/*
 * A box turned at random with one corner delta into the slab's face: the
 * deepest contact is that corner at depth delta, the normal the face's; no
 * contact is deeper.
 */
START_TEST(test_box_corner)
{
    test_rng rng = {0xc0e4e7};
    for (int trial = 0; trial < 60; trial++) {
        slab s = random_slab(&rng);
        double q[4], half[3] = {0.05, 0.04, 0.03}, lowest[3] = {0, 0, INFINITY}, low_z = INFINITY;
        test_rng_quaternion(&rng, q);
        for (int k = 0; k < 8; k++) {
            double corner[3] = {k & 1 ? half[0] : -half[0], k & 2 ? half[1] : -half[1],
                                k & 4 ? half[2] : -half[2]},
                   r[3];
            place((double[3]){0, 0, 0}, q, corner, 1, r);
            if (r[2] < low_z) {
                low_z = r[2];
                memcpy(lowest, r, sizeof lowest);
            }
        }
        double delta = exp(test_rng_uniform(&rng, log(1e-6), log(1e-3)));
        double centre[3] = {test_rng_uniform(&rng, -0.1, 0.1), test_rng_uniform(&rng, -0.1, 0.1),
                            0.05 - delta - low_z};
        glcollide_primitive box =
            on_slab(&s, GLCOLLIDE_PRIMITIVE_BOX, (double[3]){0.1, 0.08, 0.06}, centre, q);
        glcollide_contact c[64];
        size_t n = contacts_of(&s.solid, &box, c, 64);
        ck_assert_msg(n >= 1, "trial %d: no contact", trial);
        double corner[3],
            local[3] = {centre[0] + lowest[0], centre[1] + lowest[1], centre[2] + lowest[2]};
        place(s.t, s.q, local, 0, corner);
        double down[3] = {-s.up[0], -s.up[1], -s.up[2]};
        require_normal(c, n, down, "a box on its corner");
        ck_assert_msg(fabs(c[0].depth - delta) <= 1e-9 && distance3(c[0].position, corner) <= 1e-9,
                      "trial %d: deepest contact depth %.12g at %g from the corner, expected %.12g",
                      trial, c[0].depth, distance3(c[0].position, corner), delta);
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(c[i].depth <= delta + 1e-9, "trial %d: a contact %.3g deep", trial,
                          c[i].depth);
        release(&s.solid);
    }
}
END_TEST

/*
 * A capsule lying across a small square patch (the top of a slab 4 cm wide,
 * tessellated 3 x 3, its core 15 cm long) at random yaws and offsets: a line
 * contact whose ends are the patch's edges under the core, each the sunk
 * depth (one point would let the patch spin about it: a gripper's capsule
 * finger on a small flat face), every normal the face's.
 */
START_TEST(test_capsule_over_patch)
{
    test_rng rng = {0xca95};
    const double half = 0.02, r = 0.01;
    glcollide_mesh *patch = test_mesh_box((double[3]){half, half, 0.01}, (int[3]){3, 3, 1});
    for (int trial = 0; trial < 50; trial++) {
        double q[4], t[3];
        solid m = random_solid(&rng, patch, 1, t, q);
        double yaw = test_rng_uniform(&rng, -0.6, 0.6), y0 = test_rng_uniform(&rng, -0.01, 0.01);
        double delta = exp(test_rng_uniform(&rng, log(1e-6), log(1e-3)));
        /* the core along (sin yaw, cos yaw, 0) through (0, y0), above the top (z = 0.01) */
        double local_q[4], qz[4], qx[4], up[3], down[3];
        axis_quat(2, -yaw, qz);
        axis_quat(0, -pi / 2, qx); /* the capsule's z along +y */
        quat_mul(qz, qx, local_q);
        glcollide_primitive capsule = {.kind = GLCOLLIDE_PRIMITIVE_CAPSULE, .size = {r, 0.15}};
        place(t, q, (double[3]){0, y0, 0.01 + r - delta}, 0, capsule.pose.translation);
        quat_mul(q, local_q, capsule.pose.rotation);
        place(t, q, (double[3]){0, 0, 1}, 1, up);
        for (int k = 0; k < 3; k++)
            down[k] = -up[k];
        glcollide_contact c[64];
        size_t n = contacts_of(&m, &capsule, c, 64);
        char what[64];
        snprintf(what, sizeof what, "trial %d, yaw %.3f", trial, yaw);
        ck_assert_msg(n == 2, "%s: %zu contacts", what, n);
        require_normal(c, n, down, what);
        require_depths(c, n, delta, what);
        /* where the core's line (x = s sin yaw, y = y0 + s cos yaw) leaves the square */
        double dx = sin(yaw), dy = cos(yaw), s0 = -INFINITY, s1 = INFINITY;
        double lo_x = (-half) / dx, hi_x = half / dx;
        s0 = fmax(s0, fmin(lo_x, hi_x));
        s1 = fmin(s1, fmax(lo_x, hi_x));
        double lo_y = (-half - y0) / dy, hi_y = (half - y0) / dy;
        s0 = fmax(s0, fmin(lo_y, hi_y));
        s1 = fmin(s1, fmax(lo_y, hi_y));
        double ends[2][3];
        place(t, q, (double[3]){s0 * dx, y0 + s0 * dy, 0.01}, 0, ends[0]);
        place(t, q, (double[3]){s1 * dx, y0 + s1 * dy, 0.01}, 0, ends[1]);
        ck_assert_msg(has_points(c, n, ends, 2, 1e-9), "%s: not at the patch's edges", what);
        m.mesh = NULL; /* the patch serves every trial */
        release(&m);
    }
    glcollide_mesh_destroy(&patch);
}
END_TEST

/*
 * A wheel overhanging the border of a road (a racing game's car on a track
 * narrower than its wheels' span): a cylinder lying on a slab's top across
 * its edge, its axis at a random angle to the edge, sunk by delta at a
 * random pose. Its line contact runs from the rim over the top to the
 * edge: exactly those two ends, each at depth delta, the normal the top's.
 * Before, only the rim's point was given, and the wheel stood on one point.
 */
START_TEST(test_cylinder_over_edge)
{
    test_rng rng = {0xed9e};
    const double radius = 0.04, half = 0.06;
    for (int trial = 0; trial < 50; trial++) {
        slab s = random_box(&rng, (double[3]){0.3, 0.3, 0.05}, (int[3]){1, 1, 1});
        double down[3] = {-s.up[0], -s.up[1], -s.up[2]};
        double x = test_rng_uniform(&rng, -0.15, 0.15), u = test_rng_uniform(&rng, -0.04, 0.04);
        double yaw = test_rng_uniform(&rng, -0.5, 0.5);
        double delta = exp(test_rng_uniform(&rng, log(1e-6), log(1e-2)));
        double qz[4], qx[4], q[4];
        axis_quat(2, yaw, qz);
        axis_quat(0, pi / 2, qx); /* the axis along (sin yaw, -cos yaw, 0) */
        quat_mul(qz, qx, q);
        glcollide_primitive wheel =
            on_slab(&s, GLCOLLIDE_PRIMITIVE_CYLINDER, (double[3]){radius, 2 * half},
                    (double[3]){x, -0.3 + u, 0.05 + radius - delta}, q);
        glcollide_contact c[64];
        size_t n = contacts_of(&s.solid, &wheel, c, 64);
        char what[96];
        snprintf(what, sizeof what, "trial %d, yaw %.3f, delta %g", trial, yaw, delta);
        ck_assert_msg(n == 2, "%s: %zu contacts", what, n);
        require_normal(c, n, down, what);
        require_depths(c, n, delta, what);
        /* the lowest line: (x + t sin yaw, -0.3 + u - t cos yaw, 0.05 - delta);
         * over the top for t in [-half, u / cos yaw] */
        double ends[2][3], t_edge = u / cos(yaw);
        place(s.t, s.q, (double[3]){x - half * sin(yaw), -0.3 + u + half * cos(yaw), 0.05 - delta},
              0, ends[0]);
        place(s.t, s.q, (double[3]){x + t_edge * sin(yaw), -0.3, 0.05 - delta}, 0, ends[1]);
        ck_assert_msg(has_points(c, n, ends, 2, 1e-9), "%s: not at the rim and the edge", what);
        release(&s.solid);
    }
}
END_TEST

/*
 * An open mesh's edge: a vertical panel (two triangles, nothing else; a
 * game's track builds the sides of its ramps so, apart from their tops) at
 * a random pose, its top edge a little inside a wheel across it (the axis
 * along the panel's normal) and a box lying across it, each dipping delta
 * below the edge. The sheet leaves them soonest downward, across its edge:
 * every normal the panel's down, the deepest contact on the edge under the
 * wheel's lowest point at depth delta, none deeper. Before, the panel's
 * part inside had the vector area of a side face and the wheel was pushed
 * sideways by its whole overlap (80 mm in the game, where ODE's own
 * collider lifts it by its dip).
 */
START_TEST(test_panel_edge)
{
    test_rng rng = {0x9a7e1};
    glcollide_mesh *panel =
        open_quad((double[12]){-0.5, 0, -0.3, 0.5, 0, -0.3, 0.5, 0, 0, -0.5, 0, 0}, "panel");
    for (int trial = 0; trial < 60; trial++) {
        double q[4], t[3];
        solid m = random_solid(&rng, panel, 1, t, q);
        double x = test_rng_uniform(&rng, -0.2, 0.2), across = test_rng_uniform(&rng, -0.05, 0.05);
        double delta = exp(test_rng_uniform(&rng, log(1e-5), log(2e-2)));
        double down[3], qx[4], qw[4], foot[3];
        place(t, q, (double[3]){0, 0, -1}, 1, down);
        place(t, q, (double[3]){x, 0, 0}, 0, foot);
        axis_quat(0, pi / 2, qx); /* the wheel's axis along the panel's normal */
        quat_mul(q, qx, qw);
        glcollide_primitive wheel = {.kind = GLCOLLIDE_PRIMITIVE_CYLINDER, .size = {0.2, 0.2}};
        place(t, q, (double[3]){x, across, 0.2 - delta}, 0, wheel.pose.translation);
        memcpy(wheel.pose.rotation, qw, sizeof qw);
        glcollide_primitive box = {.kind = GLCOLLIDE_PRIMITIVE_BOX, .size = {0.3, 0.2, 0.1}};
        place(t, q, (double[3]){x, across, 0.05 - delta}, 0, box.pose.translation);
        memcpy(box.pose.rotation, q, sizeof box.pose.rotation);
        const glcollide_primitive *shapes[2] = {&wheel, &box};
        for (int which = 0; which < 2; which++) {
            glcollide_contact c[64];
            size_t n = contacts_of(&m, shapes[which], c, 64);
            char what[96];
            snprintf(what, sizeof what, "%s, trial %d, delta %g", which ? "box" : "wheel", trial,
                     delta);
            ck_assert_msg(n >= 1, "%s: no contact", what);
            require_normal(c, n, down, what);
            double deepest = 0.0;
            for (size_t i = 0; i < n; i++)
                deepest = fmax(deepest, c[i].depth);
            ck_assert_msg(fabs(deepest - delta) <= 1e-9, "%s: deepest %.12g", what, deepest);
            if (which == 0)
                ck_assert_msg(has_points(c, n, &foot, 1, 1e-6),
                              "%s: not under the wheel's lowest point", what);
        }
        m.mesh = NULL; /* the panel serves every trial */
        release(&m);
    }
    glcollide_mesh_destroy(&panel);
}
END_TEST

/*
 * How far a box mesh of half sizes h (frame t, q) must move along unit n to
 * clear the cylinder: its points (a grid over the solid) inside the box
 * moved back by the travel, bisected. A lower bound, within the grid's
 * spacing of the truth.
 */
static double cylinder_clearance(const double h[3], const double t[3], const double q[4],
                                 const glcollide_primitive *cyl, const double n[3])
{
    double pts[12 * 48 * 16][3], nb[3];
    size_t count = 0;
    glcollide_pose box = {{t[0], t[1], t[2]}, {q[0], q[1], q[2], q[3]}};
    into(&box, n, 1, nb);
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 48; j++)
            for (int k = 0; k < 16; k++) {
                double r = cyl->size[0] * (i + 1) / 12.0, a = 2 * pi * j / 48.0;
                double local[3] = {r * cos(a), r * sin(a), cyl->size[1] * (k / 15.0 - 0.5)}, w[3];
                place(cyl->pose.translation, cyl->pose.rotation, local, 0, w);
                into(&box, w, 0, pts[count++]);
            }
    double lo = 0.0, hi = 0.2;
    for (int step = 0; step < 40; step++) {
        double travel = 0.5 * (lo + hi);
        int meets = 0;
        for (size_t i = 0; i < count && !meets; i++) {
            int in = 1;
            for (int k = 0; k < 3; k++)
                in &= fabs(pts[i][k] - travel * nb[k]) <= h[k];
            meets = in;
        }
        if (meets)
            lo = travel;
        else
            hi = travel;
    }
    return lo;
}

/*
 * A wheel that has rolled past the border edge of an open sheet (a game's
 * track built of separate square sheets, the wheel crossing from one to
 * the next): its lowest line is beyond the edge, and the edge lies inside
 * its round side, parallel to its axis, by depth D. The edge's part inside
 * is a line contact: its ends are where it leaves through a cap and, where
 * the wheel overhangs the sheet's corner, that corner; each at depth D,
 * the normal the sheet's. Before, a corner inside was the only point (the
 * cap's end was a curve point no deeper than it, and dropped), and the
 * wheel stood on one point at its inner end; with no corner inside, the
 * cap ends were kept.
 */
START_TEST(test_wheel_past_sheet_edge)
{
    test_rng rng = {0x5ee7};
    const double r = 0.2, half = 0.1;
    glcollide_mesh *sheet =
        open_quad((double[12]){-0.5, -0.3, 0, 0, -0.3, 0, 0, 0.3, 0, -0.5, 0.3, 0}, "sheet");
    for (int trial = 0; trial < 60; trial++) {
        double q[4], t[3];
        solid m = random_solid(&rng, sheet, 1, t, q);
        int over_corner = trial % 2;
        double u = test_rng_uniform(&rng, 0.002, 0.06);
        double depth = exp(test_rng_uniform(&rng, log(1e-5), log(5e-3)));
        double y0 =
            over_corner ? test_rng_uniform(&rng, 0.21, 0.39) : test_rng_uniform(&rng, -0.15, 0.15);
        double down[3], qx[4], qw[4], ends[2][3];
        place(t, q, (double[3]){0, 0, -1}, 1, down);
        axis_quat(0, pi / 2, qx); /* the wheel's axis along the edge */
        quat_mul(q, qx, qw);
        glcollide_primitive wheel = {.kind = GLCOLLIDE_PRIMITIVE_CYLINDER, .size = {r, 2 * half}};
        /* its lowest points at x = 0, the edge, lie depth below the sheet */
        place(t, q, (double[3]){u, y0, sqrt(r * r - u * u) - depth}, 0, wheel.pose.translation);
        memcpy(wheel.pose.rotation, qw, sizeof qw);
        place(t, q, (double[3]){0, y0 - half, 0}, 0, ends[0]);
        place(t, q, (double[3]){0, over_corner ? 0.3 : y0 + half, 0}, 0, ends[1]);
        glcollide_contact c[64];
        size_t n = contacts_of(&m, &wheel, c, 64);
        char what[96];
        snprintf(what, sizeof what, "trial %d, %s, depth %g", trial,
                 over_corner ? "over the corner" : "within the sheet", depth);
        ck_assert_msg(n == 2, "%s: %zu contacts", what, n);
        require_normal(c, n, down, what);
        require_depths(c, n, depth, what);
        ck_assert_msg(has_points(c, n, ends, 2, 1e-9), "%s: not at the ends of the edge inside",
                      what);
        m.mesh = NULL; /* the sheet serves every trial */
        release(&m);
    }
    glcollide_mesh_destroy(&sheet);
}
END_TEST

/*
 * A wheel's cap pressed at a slant into a box's face near its bottom edge
 * (in the game, a wheel wedged against a spike): the cap's part in the box
 * is cut by the bottom face, and it is deepest along that cut, whose ends
 * are where the rim crosses the bottom face; the rim's fixed samples there
 * lie outside the box. The deepest contact must report at least 0.9 of
 * how far the box must move along the normal to clear the wheel (found by
 * sampling); before, it reported the shallower samples' depth (1.8 mm in
 * the game where 12.5 mm were needed).
 */
START_TEST(test_cylinder_cap_in_wedge)
{
    test_rng rng = {0x3ed6e};
    const double h[3] = {0.1, 0.1, 0.1};
    glcollide_mesh *box_mesh = test_mesh_box(h, (int[3]){1, 1, 1});
    for (int trial = 0; trial < 20; trial++) {
        double q[4], t[3];
        solid m = random_solid(&rng, box_mesh, 1, t, q);
        double slant = test_rng_uniform(&rng, 15, 30) * pi / 180,
               sunk = test_rng_uniform(&rng, 0.002, 0.006);
        double up = test_rng_uniform(&rng, 0.005, 0.02), r = 0.04, length = 0.1;
        /* in the box's frame: the axis u = (0, cos slant, sin slant) into the
         * front face y = -0.1, the cap's centre sunk behind it */
        double u[3] = {0, cos(slant), sin(slant)}, qx[4], cap[3] = {0, -0.1 + sunk, -0.1 + up};
        axis_quat(0, slant - pi / 2, qx);
        glcollide_primitive wheel = {.kind = GLCOLLIDE_PRIMITIVE_CYLINDER, .size = {r, length}};
        double centre[3];
        for (int k = 0; k < 3; k++)
            centre[k] = cap[k] - 0.5 * length * u[k];
        place(t, q, centre, 0, wheel.pose.translation);
        quat_mul(q, qx, wheel.pose.rotation);
        glcollide_contact c[64];
        size_t n = contacts_of(&m, &wheel, c, 64);
        char what[96];
        snprintf(what, sizeof what, "trial %d, slant %.1f deg", trial, slant * 180 / pi);
        ck_assert_msg(n >= 1, "%s: no contact", what);
        double deepest = 0.0;
        for (size_t i = 0; i < n; i++)
            deepest = fmax(deepest, c[i].depth);
        double needed = cylinder_clearance(h, t, q, &wheel, c[0].normal);
        ck_assert_msg(deepest >= 0.9 * needed, "%s: deepest %.6f, the box must move %.6f", what,
                      deepest, needed);
        m.mesh = NULL;
        release(&m);
    }
    glcollide_mesh_destroy(&box_mesh);
}
END_TEST

/*
 * A finely tessellated box in a plane's half-space at random poses: the
 * normal is the plane's, the deepest contact the deepest vertex at its
 * exact depth, every contact a vertex at its own depth or a point of the
 * mesh on the plane at depth 0; resting flat, its 4 bottom corners.
 */
START_TEST(test_plane)
{
    test_rng rng = {0x9a1e};
    glcollide_mesh *mesh = test_mesh_box((double[3]){0.05, 0.04, 0.03}, (int[3]){4, 4, 4});
    for (int trial = 0; trial < 60; trial++) {
        double q[4], n[3], t[3] = {0, 0, 0};
        test_rng_quaternion(&rng, q);
        test_rng_quaternion(&rng, (double[4]){0}); /* keep streams apart */
        double a = test_rng_uniform(&rng, 0, 2 * pi), b = acos(test_rng_uniform(&rng, -1, 1));
        n[0] = sin(b) * cos(a);
        n[1] = sin(b) * sin(a);
        n[2] = cos(b);
        double offset = test_rng_uniform(&rng, -3, 3), delta = test_rng_uniform(&rng, 1e-6, 0.01);
        int flat = trial % 3 == 0;
        if (flat) { /* the box's -z face down on the plane: its z along n */
            double axis[3] = {-n[1], n[0], 0}, s = sqrt(n[0] * n[0] + n[1] * n[1]);
            double angle = atan2(s, n[2]);
            q[0] = cos(angle / 2);
            for (int k = 0; k < 3; k++)
                q[k + 1] = s > 0 ? sin(angle / 2) * axis[k] / s : 0.0;
        }
        /* the lowest vertex delta below the plane */
        double low = INFINITY;
        for (size_t v = 0; v < mesh->vertex_count; v++) {
            double w[3];
            place(t, q, mesh->positions + 3 * v, 0, w);
            low = fmin(low, dot3(n, w));
        }
        for (int k = 0; k < 3; k++)
            t[k] = n[k] * (offset - delta - low);
        solid m = make_solid(mesh, t, q);
        glcollide_primitive plane = {.kind = GLCOLLIDE_PRIMITIVE_PLANE,
                                     .plane = {n[0], n[1], n[2], offset}};
        glcollide_contact c[64];
        size_t count = contacts_of(&m, &plane, c, 64);
        ck_assert_msg(count >= 1 && count <= 4, "trial %d: %zu contacts", trial, count);
        require_normal(c, count, n, "plane");
        /* The manifold keeps the deepest vertex where it is unique to a
         * tenth of the width (flat: every bottom vertex is); otherwise a
         * vertex within that tenth, farther out (manifold.c). */
        double deepest = 0.0;
        for (size_t i = 0; i < count; i++)
            deepest = fmax(deepest, c[i].depth);
        ck_assert_msg(deepest <= delta + 1e-9 &&
                          (flat ? fabs(deepest - delta) <= 1e-9 : deepest >= 0.89 * delta - 1e-9),
                      "trial %d: deepest %.12g, expected %.12g", trial, deepest, delta);
        for (size_t i = 0; i < count; i++) {
            double own = offset - dot3(n, c[i].position);
            ck_assert_msg(fabs(c[i].depth - fmax(own, 0.0)) <= 1e-9,
                          "trial %d: contact %zu depth %.12g, its point lies %.12g deep", trial, i,
                          c[i].depth, own);
        }
        if (flat) {
            ck_assert_uint_eq(count, 4);
            require_depths(c, count, delta, "a box flat in a plane");
            double corners[4][3];
            for (int k = 0; k < 4; k++)
                place(t, q, (double[3]){k & 1 ? 0.05 : -0.05, k & 2 ? 0.04 : -0.04, -0.03}, 0,
                      corners[k]);
            ck_assert_msg(has_points(c, count, corners, 4, 1e-9), "trial %d: not at the corners",
                          trial);
        }
        m.mesh = NULL; /* shared by the trials */
        release(&m);
    }
    glcollide_mesh_destroy(&mesh);
}
END_TEST

Suite *suite_contacts_primitive(void)
{
    Suite *suite = suite_create("contacts_primitive");
    TCase *tc = tcase_create("contacts_primitive");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_flat_faces);
    tcase_add_test(tc, test_tilted_cylinder);
    tcase_add_test(tc, test_box_across_beam);
    tcase_add_test(tc, test_box_corner);
    tcase_add_test(tc, test_plane);
    tcase_add_test(tc, test_capsule_over_patch);
    tcase_add_test(tc, test_cylinder_over_edge);
    tcase_add_test(tc, test_panel_edge);
    tcase_add_test(tc, test_wheel_past_sheet_edge);
    tcase_add_test(tc, test_cylinder_cap_in_wedge);
    suite_add_tcase(suite, tc);
    return suite;
}
