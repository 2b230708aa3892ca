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
 * contacts are in tests/ode/test_primitives.c.
 */
#include "helpers/tests.h"

#include "helpers/meshes.h"

#include <glcollide/geometry.h>
#include <glcollide/primitives.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

/* A mesh with its object-space BVH, placed in the world. */
typedef struct solid {
    glcollide_mesh *mesh;
    glcollide_bvh *bvh;
    glcollide_contact_solid s;
} solid;

static solid make_solid(glcollide_mesh *mesh, const double translation[3], const double q[4])
{
    solid out = {mesh, NULL, {0}};
    ck_assert_ptr_nonnull(mesh);
    ck_assert_int_eq(glcollide_bvh_build(mesh->positions, mesh->vertex_count, mesh->triangles,
                                         mesh->triangle_count, &out.bvh),
                     GLCOLLIDE_OK);
    out.s = (glcollide_contact_solid){
        mesh->positions,
        mesh->triangles,
        mesh->vertex_count,
        mesh->triangle_count,
        out.bvh,
        {0, {translation[0], translation[1], translation[2]}, {q[0], q[1], q[2], q[3]}},
        1};
    return out;
}

static void release(solid *s)
{
    glcollide_bvh_destroy(&s->bvh);
    glcollide_mesh_destroy(&s->mesh);
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double distance3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

/* q = a * b (w x y z) */
static void quat_mul(const double a[4], const double b[4], double q[4])
{
    q[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    q[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    q[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    q[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

static void axis_quat(int axis, double angle, double q[4])
{
    q[0] = cos(angle / 2);
    q[1] = q[2] = q[3] = 0.0;
    q[1 + axis] = sin(angle / 2);
}

/* A point (direction: 0 translation) of a frame into the world. */
static void place(const double t[3], const double q[4], const double p[3], int direction,
                  double out[3])
{
    glcollide_object o = {0, {0, 0, 0}, {q[0], q[1], q[2], q[3]}};
    glcollide_object_transform_points(&o, p, 1, out);
    for (int k = 0; k < 3 && !direction; k++)
        out[k] += t[k];
}

static size_t contacts_of(const solid *m, const glcollide_primitive *p, glcollide_contact *out,
                          size_t max)
{
    size_t count = SIZE_MAX;
    ck_assert_int_eq(glcollide_contacts_mesh_primitive(&m->s, p, NULL, out, max, &count, NULL),
                     GLCOLLIDE_OK);
    ck_assert_uint_le(count, max);
    return count;
}

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
    test_rng_quaternion(rng, s.q);
    for (int k = 0; k < 3; k++)
        s.t[k] = test_rng_uniform(rng, -2, 2);
    s.solid = make_solid(test_mesh_box(half, grid), s.t, s.q);
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

/* A world point or direction into a pose's frame. */
static void into(const glcollide_object *pose, const double w[3], int direction, double out[3])
{
    double m[9], d[3];
    glcollide_object_rotation_matrix(pose, m);
    for (int k = 0; k < 3; k++)
        d[k] = w[k] - (direction ? 0.0 : pose->translation[k]);
    for (int j = 0; j < 3; j++)
        out[j] = m[j] * d[0] + m[3 + j] * d[1] + m[6 + j] * d[2];
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
            into(&(glcollide_object){0, {s.t[0], s.t[1], s.t[2]}, {s.q[0], s.q[1], s.q[2], s.q[3]}},
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
        test_rng_quaternion(&rng, q);
        for (int k = 0; k < 3; k++)
            t[k] = test_rng_uniform(&rng, -1, 1);
        solid m = make_solid(patch, t, q);
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
        test_rng_quaternion(&rng, q);
        for (int k = 0; k < 3; k++)
            t[k] = test_rng_uniform(&rng, -0.5, 0.5);
        solid m = make_solid(mesh, t, q);
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
    glcollide_primitive box = {
        .kind = GLCOLLIDE_PRIMITIVE_BOX,
        .size = {0.6, 0.2, 0.1},
        .pose = {0, {0, 0, 0.1 - 1e-4}, {tilt[0], tilt[1], tilt[2], tilt[3]}}};
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
                                 .pose = {0, {0.02, 0.01, 0.1 - 1e-5}, {q[0], q[1], q[2], q[3]}}};
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
                                .pose = {0, {1.05, 2.12, 3.0}, {1, 0, 0, 0}}};
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
                               .pose = {0, {0, 0, 0}, {1, 0, 0, 0}}};
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
    glcollide_primitive ball = {.kind = GLCOLLIDE_PRIMITIVE_SPHERE,
                                .size = {0.05},
                                .pose = {0, {0, 0, 0.14}, {1, 0, 0, 0}}};

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
    glcollide_contact_solid empty = {NULL, NULL, 0, 0, NULL, {0, {0, 0, 0}, {1, 0, 0, 0}}, 0};
    ck_assert_int_eq(glcollide_contacts_mesh_primitive(&empty, &ball, NULL, c, 8, &count, NULL),
                     GLCOLLIDE_OK);
    ck_assert_uint_eq(count, 0);
    ck_assert_int_eq(test_log_count(), 0);
    /* and the good call still works after all that */
    ck_assert_uint_eq(contacts_of(&m, &ball, c, 8), 1);
    test_log_capture_stop();

    glcollide_primitive_scratch *scratch = NULL;
    ck_assert_int_eq(glcollide_primitive_scratch_create(&scratch), GLCOLLIDE_OK);
    glcollide_primitive_scratch_destroy(&scratch);
    ck_assert_ptr_null(scratch);
    glcollide_primitive_scratch_destroy(&scratch);
    glcollide_primitive_scratch_destroy(NULL);
    release(&m);
}
END_TEST

/* ---------------------------------------------------------------- rays */

/*
 * Rays at a box mesh at a random pose: through it (two hits, nearest first,
 * at the analytic distances, with the faces' outward normals), the closest
 * only, back faces culled (the entry only), the first found (one of them),
 * too short (none), from inside (the exit).
 */
START_TEST(test_rays)
{
    test_rng rng = {0x4a75};
    const double h[3] = {0.1, 0.07, 0.05};
    for (int trial = 0; trial < 50; trial++) {
        double q[4], t[3];
        test_rng_quaternion(&rng, q);
        for (int k = 0; k < 3; k++)
            t[k] = test_rng_uniform(&rng, -1, 1);
        solid m = make_solid(test_mesh_box(h, (int[3]){2, 3, 2}), t, q);
        /* along the box's local x through a random inner point */
        double local[3] = {-0.5, test_rng_uniform(&rng, -0.06, 0.06),
                           test_rng_uniform(&rng, -0.04, 0.04)},
               origin[3], direction[3], xn[3];
        place(t, q, local, 0, origin);
        place(t, q, (double[3]){1, 0, 0}, 1, direction);
        place(t, q, (double[3]){-1, 0, 0}, 1, xn);
        glcollide_ray_hit hits[8];
        size_t n = 0;
        ck_assert_int_eq(glcollide_ray_mesh(&m.s, origin, direction, 2.0, 0, hits, 8, &n),
                         GLCOLLIDE_OK);
        ck_assert_uint_eq(n, 2);
        ck_assert_msg(
            fabs(hits[0].distance - 0.4) <= 1e-12 && fabs(hits[1].distance - 0.6) <= 1e-12,
            "trial %d: hits at %.15g and %.15g", trial, hits[0].distance, hits[1].distance);
        ck_assert_msg(distance3(hits[0].normal, xn) <= 1e-12, "trial %d: entry normal", trial);
        double entry[3];
        place(t, q, (double[3]){-0.1, local[1], local[2]}, 0, entry);
        ck_assert_msg(distance3(hits[0].position, entry) <= 1e-12, "trial %d: entry point", trial);
        ck_assert_int_eq(
            glcollide_ray_mesh(&m.s, origin, direction, 2.0, GLCOLLIDE_RAY_CLOSEST, hits, 8, &n),
            GLCOLLIDE_OK);
        ck_assert_uint_eq(n, 1);
        ck_assert_double_eq_tol(hits[0].distance, 0.4, 1e-12);
        ck_assert_int_eq(glcollide_ray_mesh(&m.s, origin, direction, 2.0,
                                            GLCOLLIDE_RAY_CULL_BACKFACES, hits, 8, &n),
                         GLCOLLIDE_OK);
        ck_assert_uint_eq(n, 1);
        ck_assert_double_eq_tol(hits[0].distance, 0.4, 1e-12);
        ck_assert_int_eq(
            glcollide_ray_mesh(&m.s, origin, direction, 2.0, GLCOLLIDE_RAY_FIRST, hits, 8, &n),
            GLCOLLIDE_OK);
        ck_assert_uint_eq(n, 1);
        ck_assert_int_eq(glcollide_ray_mesh(&m.s, origin, direction, 0.39, 0, hits, 8, &n),
                         GLCOLLIDE_OK);
        ck_assert_uint_eq(n, 0);
        double inside[3];
        place(t, q, (double[3]){0, local[1], local[2]}, 0, inside);
        ck_assert_int_eq(glcollide_ray_mesh(&m.s, inside, direction, 2.0, 0, hits, 8, &n),
                         GLCOLLIDE_OK);
        ck_assert_uint_eq(n, 1);
        ck_assert_double_eq_tol(hits[0].distance, 0.1, 1e-12);
        release(&m);
    }
    double identity[4] = {1, 0, 0, 0};
    solid m = make_solid(test_mesh_box(h, (int[3]){1, 1, 1}), (double[3]){0, 0, 0}, identity);
    glcollide_ray_hit hit;
    size_t n = 9;
    test_log_capture_start(GLCOLLIDE_LOG_WARNING);
    int status =
        glcollide_ray_mesh(&m.s, (double[3]){0, 0, 0}, (double[3]){0, 0, 2}, 1.0, 0, &hit, 1, &n);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "ray: origin, direction (unit) and pose must be finite and length not "
                       "negative (length 1, |direction|^2 4)");
    ck_assert_uint_eq(n, 0);
    test_log_capture_stop();
    release(&m);
}
END_TEST

/* ---------------------------------------------------------------- BVH queries */

typedef struct id_set {
    unsigned char *seen;
    size_t count;
} id_set;

static int mark(uint32_t triangle, void *user)
{
    id_set *s = user;
    ck_assert_msg(!s->seen[triangle], "triangle %u reported twice", triangle);
    s->seen[triangle] = 1;
    s->count++;
    return 0;
}

static void triangle_bounds(const glcollide_mesh *m, size_t t, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++) {
            double x = m->positions[3 * (size_t)m->triangles[3 * t + c] + k];
            lo[k] = fmin(lo[k], x);
            hi[k] = fmax(hi[k], x);
        }
}

/*
 * The BVH's traversals against shapes on random meshes, beside brute force
 * over the triangles' own boxes: the half-space query reports exactly the
 * triangles whose boxes reach the half-space; the oriented-box query every
 * triangle whose box it meets (and only boxes it does not separate on the six
 * face axes); the ray query every triangle the ray hits within its length.
 */
START_TEST(test_bvh_queries)
{
    test_rng rng = {0xb1a5};
    for (int trial = 0; trial < 30; trial++) {
        glcollide_mesh *mesh = test_random_mesh(&rng, 1.0);
        glcollide_bvh *bvh = NULL;
        ck_assert_int_eq(glcollide_bvh_build(mesh->positions, mesh->vertex_count, mesh->triangles,
                                             mesh->triangle_count, &bvh),
                         GLCOLLIDE_OK);
        size_t nt = mesh->triangle_count;
        id_set set = {calloc(nt, 1), 0};
        double normal[3], offset = test_rng_uniform(&rng, -0.5, 0.5);
        test_rng_quaternion(&rng, (double[4]){0});
        double a = test_rng_uniform(&rng, 0, 2 * pi), b = acos(test_rng_uniform(&rng, -1, 1));
        normal[0] = sin(b) * cos(a);
        normal[1] = sin(b) * sin(a);
        normal[2] = cos(b);
        glcollide_bvh_query_half_space(bvh, normal, offset, mark, &set);
        for (size_t t = 0; t < nt; t++) {
            double lo[3], hi[3], low = 0.0;
            triangle_bounds(mesh, t, lo, hi);
            for (int k = 0; k < 3; k++)
                low += normal[k] * (normal[k] >= 0 ? lo[k] : hi[k]);
            TEST_REQUIRE(set.seen[t] == (low <= offset), "trial %d: half-space, triangle %zu",
                         trial, t);
        }
        memset(set.seen, 0, nt);
        double m9[9], centre[3], half[3];
        test_rng_rotation(&rng, m9);
        for (int k = 0; k < 3; k++) {
            centre[k] = test_rng_uniform(&rng, -0.3, 0.3);
            half[k] = test_rng_uniform(&rng, 0.05, 0.3);
        }
        glcollide_bvh_query_oriented_box(bvh, centre, m9, half, mark, &set);
        for (size_t t = 0; t < nt; t++) {
            double lo[3], hi[3], c[3], e[3], d[3];
            triangle_bounds(mesh, t, lo, hi);
            int separated = 0;
            for (int k = 0; k < 3; k++) {
                c[k] = 0.5 * (lo[k] + hi[k]);
                e[k] = 0.5 * (hi[k] - lo[k]);
                d[k] = centre[k] - c[k];
            }
            for (int k = 0; k < 3; k++)
                separated |= fabs(d[k]) > e[k] + fabs(m9[k]) * half[0] + fabs(m9[3 + k]) * half[1] +
                                              fabs(m9[6 + k]) * half[2];
            for (int j = 0; j < 3; j++)
                separated |= fabs(dot3(m9 + 3 * j, d)) > half[j] + fabs(m9[3 * j]) * e[0] +
                                                             fabs(m9[3 * j + 1]) * e[1] +
                                                             fabs(m9[3 * j + 2]) * e[2];
            TEST_REQUIRE(set.seen[t] == !separated, "trial %d: oriented box, triangle %zu", trial,
                         t);
        }
        memset(set.seen, 0, nt);
        double origin[3], direction[3], t_max = test_rng_uniform(&rng, 0.2, 2.0);
        for (int k = 0; k < 3; k++)
            origin[k] = test_rng_uniform(&rng, -1, 1);
        double to[3] = {test_rng_uniform(&rng, -0.2, 0.2), test_rng_uniform(&rng, -0.2, 0.2),
                        test_rng_uniform(&rng, -0.2, 0.2)};
        for (int k = 0; k < 3; k++)
            direction[k] = to[k] - origin[k];
        glcollide_bvh_query_ray(bvh, origin, direction, &t_max, mark, &set);
        for (size_t t = 0; t < nt; t++) {
            const double *v[3];
            for (int c = 0; c < 3; c++)
                v[c] = mesh->positions + 3 * (size_t)mesh->triangles[3 * t + c];
            /* does the segment cross the triangle? (Moller-Trumbore) */
            double e1[3], e2[3], p[3], s[3], qv[3];
            for (int k = 0; k < 3; k++) {
                e1[k] = v[1][k] - v[0][k];
                e2[k] = v[2][k] - v[0][k];
                s[k] = origin[k] - v[0][k];
            }
            p[0] = direction[1] * e2[2] - direction[2] * e2[1];
            p[1] = direction[2] * e2[0] - direction[0] * e2[2];
            p[2] = direction[0] * e2[1] - direction[1] * e2[0];
            double det = dot3(e1, p);
            if (fabs(det) < 1e-15)
                continue;
            double u = dot3(s, p) / det;
            qv[0] = s[1] * e1[2] - s[2] * e1[1];
            qv[1] = s[2] * e1[0] - s[0] * e1[2];
            qv[2] = s[0] * e1[1] - s[1] * e1[0];
            double w = dot3(direction, qv) / det, th = dot3(e2, qv) / det;
            int hit = u > 1e-9 && w > 1e-9 && u + w < 1 - 1e-9 && th > 1e-9 && th < t_max - 1e-9;
            TEST_REQUIRE(!hit || set.seen[t], "trial %d: ray missed triangle %zu", trial, t);
        }
        free(set.seen);
        glcollide_bvh_destroy(&bvh);
        glcollide_mesh_destroy(&mesh);
    }
}
END_TEST

/*
 * A real mesh (the bunny, 75,408 triangles) resting on a plane: the
 * half-space query reports only the triangles that reach down to the plane,
 * a small fraction of the mesh, so trimesh-plane contacts cost in proportion
 * to them, not to the mesh.
 */
START_TEST(test_plane_cost)
{
    glcollide_mesh *bunny = NULL;
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("bunny00.off"), 1.0, &bunny), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_fit(bunny, 0.1), GLCOLLIDE_OK);
    glcollide_bvh *bvh = NULL;
    ck_assert_int_eq(glcollide_bvh_build(bunny->positions, bunny->vertex_count, bunny->triangles,
                                         bunny->triangle_count, &bvh),
                     GLCOLLIDE_OK);
    double low = INFINITY;
    for (size_t v = 0; v < bunny->vertex_count; v++)
        low = fmin(low, bunny->positions[3 * v + 1]);
    id_set set = {calloc(bunny->triangle_count, 1), 0};
    double up[3] = {0, 1, 0};
    /* resting 0.1 mm deep on the plane y = low + 1e-4 */
    glcollide_bvh_query_half_space(bvh, up, low + 1e-4, mark, &set);
    size_t near = 0;
    for (size_t t = 0; t < bunny->triangle_count; t++) {
        double lo[3], hi[3];
        triangle_bounds(bunny, t, lo, hi);
        near += lo[1] <= low + 1e-4;
    }
    ck_assert_uint_eq(set.count, near);
    ck_assert_msg(near > 0 && near < bunny->triangle_count / 100,
                  "%zu of %zu triangles near the plane", near, bunny->triangle_count);
    free(set.seen);
    glcollide_bvh_destroy(&bvh);
    glcollide_mesh_destroy(&bunny);
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
    tcase_add_test(tc, test_depth_bound);
    tcase_add_test(tc, test_regions_and_buffer);
    tcase_add_test(tc, test_deterministic_and_unshared);
    tcase_add_test(tc, test_containment);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_rays);
    tcase_add_test(tc, test_bvh_queries);
    tcase_add_test(tc, test_plane_cost);
    suite_add_tcase(suite, tc);
    return suite;
}
