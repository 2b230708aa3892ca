/* SPDX-License-Identifier: MIT */
/* Axis-aligned boxes: empty boxes, growing them, and the per-query float frame fitted to one. */
#include "geometry/geometry_internal.h"

#include <math.h>

void glcollide_aabb_empty(glcollide_aabb *box)
{
    for (int k = 0; k < 3; k++) {
        box->min[k] = INFINITY;
        box->max[k] = -INFINITY;
    }
}

void glcollide_aabb_add_point(glcollide_aabb *box, const double p[3])
{
    for (int k = 0; k < 3; k++) {
        if (p[k] < box->min[k])
            box->min[k] = p[k];
        if (p[k] > box->max[k])
            box->max[k] = p[k];
    }
}

void glcollide_frame_fit(const glcollide_aabb *box, double origin[3], double *scale)
{
    double half = 0.0;
    for (int k = 0; k < 3; k++) {
        /* Halves first: min + max may overflow where their mean does not. */
        origin[k] = 0.5 * box->min[k] + 0.5 * box->max[k];
        half = fmax(half, fmax(box->max[k] - origin[k], origin[k] - box->min[k]));
    }
    int exponent = 0;
    if (half > 0 && isfinite(half))
        frexp(half, &exponent);
    *scale = ldexp(1.0, -exponent);
}
