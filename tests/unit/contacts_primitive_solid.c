/* SPDX-License-Identifier: MIT */
/* The placed solids and vector helpers of the primitive contact tests
 * (contacts_primitive_solid.h). */
#include "unit/contacts_primitive_solid.h"
#include "helpers/tests.h"

#include <math.h>
#include <stdint.h>

solid make_solid(glcollide_mesh *mesh, const double translation[3], const double q[4])
{
    solid out = {mesh, NULL, {0}};
    ck_assert_ptr_nonnull(mesh);
    ck_assert_int_eq(glcollide_bvh_create(mesh, &out.bvh), GLCOLLIDE_OK);
    out.s = (glcollide_contact_solid){
        mesh,
        out.bvh,
        {{translation[0], translation[1], translation[2]}, {q[0], q[1], q[2], q[3]}},
        1};
    return out;
}

solid random_solid(test_rng *rng, glcollide_mesh *mesh, double spread, double t[3], double q[4])
{
    test_rng_quaternion(rng, q);
    for (int k = 0; k < 3; k++)
        t[k] = test_rng_uniform(rng, -spread, spread);
    return make_solid(mesh, t, q);
}

void release(solid *s)
{
    glcollide_bvh_destroy(&s->bvh);
    glcollide_mesh_destroy(&s->mesh);
}

double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

double distance3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

/* q = a * b (w x y z) */
void quat_mul(const double a[4], const double b[4], double q[4])
{
    q[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    q[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    q[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    q[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

void axis_quat(int axis, double angle, double q[4])
{
    q[0] = cos(angle / 2);
    q[1] = q[2] = q[3] = 0.0;
    q[1 + axis] = sin(angle / 2);
}

/* A point (direction: 0 translation) of a frame into the world. */
void place(const double t[3], const double q[4], const double p[3], int direction, double out[3])
{
    glcollide_pose o = {{0, 0, 0}, {q[0], q[1], q[2], q[3]}};
    glcollide_pose_transform_points(&o, p, 1, out);
    for (int k = 0; k < 3 && !direction; k++)
        out[k] += t[k];
}

size_t contacts_of(const solid *m, const glcollide_primitive *p, glcollide_contact *out, size_t max)
{
    size_t count = SIZE_MAX;
    ck_assert_int_eq(glcollide_contacts_mesh_primitive(&m->s, p, NULL, out, max, &count, NULL),
                     GLCOLLIDE_OK);
    ck_assert_uint_le(count, max);
    return count;
}

/* A world point or direction into a pose's frame. */
void into(const glcollide_pose *pose, const double w[3], int direction, double out[3])
{
    double m[9], d[3];
    glcollide_pose_rotation_matrix(pose, m);
    for (int k = 0; k < 3; k++)
        d[k] = w[k] - (direction ? 0.0 : pose->translation[k]);
    for (int j = 0; j < 3; j++)
        out[j] = m[j] * d[0] + m[3 + j] * d[1] + m[6 + j] * d[2];
}
