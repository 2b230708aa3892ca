/* SPDX-License-Identifier: MIT */
/*
 * Poses: a rigid placement (translation, unit quaternion) as a rotation
 * matrix, points and boxes placed by it. Every module that places a mesh
 * (BVH traversal, point-in-solid, rays, contacts, the GPU's pose uploads)
 * goes through these, so that each sees the same numbers for a vertex.
 */
#include "geometry/geometry_internal.h"

#include <math.h>

void glcollide_pose_rotation_matrix(const glcollide_pose *pose, double m[9])
{
    const double w = pose->rotation[0], x = pose->rotation[1], y = pose->rotation[2],
                 z = pose->rotation[3];
    m[0] = 1 - 2 * (y * y + z * z);
    m[1] = 2 * (x * y - w * z);
    m[2] = 2 * (x * z + w * y);
    m[3] = 2 * (x * y + w * z);
    m[4] = 1 - 2 * (x * x + z * z);
    m[5] = 2 * (y * z - w * x);
    m[6] = 2 * (x * z - w * y);
    m[7] = 2 * (y * z + w * x);
    m[8] = 1 - 2 * (x * x + y * y);
}

void glcollide_pose_transform_points(const glcollide_pose *pose, const double *points, size_t count,
                                     double *out)
{
    double m[9];
    glcollide_pose_rotation_matrix(pose, m);
    for (size_t i = 0; i < count; i++) {
        double p[3] = {points[3 * i], points[3 * i + 1], points[3 * i + 2]}; /* out may be points */
        glcollide_place_point(pose, m, p, out + 3 * i);
    }
}

void glcollide_aabb_place_with(const glcollide_aabb *local, const double m[9],
                               const double translation[3], glcollide_aabb *box)
{
    for (int k = 0; k < 3; k++) {
        double centre = translation[k], extent = 0;
        for (int j = 0; j < 3; j++) {
            double c = 0.5 * local->min[j] + 0.5 * local->max[j];
            double h = 0.5 * local->max[j] - 0.5 * local->min[j];
            centre += m[3 * k + j] * c;
            extent += fabs(m[3 * k + j]) * h;
        }
        /* A few ulps of what is summed, and the smallest subnormals: the
         * rounding of the placed vertices. */
        extent += 1e-12 * (fabs(centre) + extent) + 4 * 4.9406564584124654e-324;
        box->min[k] = centre - extent;
        box->max[k] = centre + extent;
    }
}

void glcollide_boxes_place_union(const double *boxes, size_t stride, size_t count,
                                 const glcollide_pose *pose, glcollide_aabb *out)
{
    /* Each box placed from its centre and half extents (c' = m c + t,
     * h' = |m| h), the union taken as it goes, and the allowance
     * glcollide_aabb_place_with gives each box for the rounding of placed
     * vertices added once at the end: relative to the union's largest
     * coordinate, which bounds every box's |c'| + h'. Row k of the output
     * streams through the six rows of boxes (vectorisable). */
    double m[9];
    glcollide_pose_rotation_matrix(pose, m);
    const double *cx = boxes, *cy = boxes + stride, *cz = boxes + 2 * stride;
    const double *hx = boxes + 3 * stride, *hy = boxes + 4 * stride, *hz = boxes + 5 * stride;
    for (int k = 0; k < 3; k++) {
        const double r0 = m[3 * k], r1 = m[3 * k + 1], r2 = m[3 * k + 2];
        const double a0 = fabs(r0), a1 = fabs(r1), a2 = fabs(r2), t = pose->translation[k];
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < count; i++) {
            double centre = t + r0 * cx[i] + r1 * cy[i] + r2 * cz[i];
            double extent = a0 * hx[i] + a1 * hy[i] + a2 * hz[i];
            double low = centre - extent, high = centre + extent;
            lo = low < lo ? low : lo;
            hi = high > hi ? high : hi;
        }
        double largest = fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi);
        double allowance = 1e-12 * largest + 4 * 4.9406564584124654e-324;
        out->min[k] = count ? lo - allowance : INFINITY;
        out->max[k] = count ? hi + allowance : -INFINITY;
    }
}

void glcollide_aabb_place(const glcollide_aabb *local, const glcollide_pose *pose,
                          glcollide_aabb *box)
{
    double m[9];
    glcollide_pose_rotation_matrix(pose, m);
    glcollide_aabb_place_with(local, m, pose->translation, box);
}
