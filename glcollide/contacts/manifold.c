/* SPDX-License-Identifier: MIT */
/* The contact manifold of one region (see manifold.h). */
#include "contacts/manifold.h"

#include "geometry/geometry_internal.h"

#include <math.h>

/* Ties in the manifold's choices, relative to the region's size. */
static const double tie_tolerance = 1e-6;

void glcollide_plane_basis(const double n[3], double e1[3], double e2[3])
{
    int k = fabs(n[0]) <= fabs(n[1]) ? (fabs(n[0]) <= fabs(n[2]) ? 0 : 2)
                                     : (fabs(n[1]) <= fabs(n[2]) ? 1 : 2);
    double axis[3] = {0, 0, 0};
    axis[k] = 1.0;
    glcollide_vec3_cross(e1, n, axis);
    double len = sqrt(glcollide_vec3_dot(e1, e1));
    for (int i = 0; i < 3; i++)
        e1[i] /= len;
    glcollide_vec3_cross(e2, n, e1);
}

static int compare_keys(const glcollide_manifold_point *p, const glcollide_manifold_point *q)
{
    for (int i = 0; i < 2; i++)
        if (p->key[i] != q->key[i])
            return p->key[i] < q->key[i] ? -1 : 1;
    return 0;
}

/* Is p a better pick than q at equal spread (deeper beyond the band, then key)? */
static int better(const glcollide_manifold_point *p, const glcollide_manifold_point *q,
                  double depth_band)
{
    if (fabs(p->depth - q->depth) > depth_band)
        return p->depth > q->depth;
    return compare_keys(p, q) < 0;
}

/* Twice the area of the triangle pqr in the plane (u, v). */
static double triangle_area(const glcollide_manifold_point *p, const glcollide_manifold_point *q,
                            const glcollide_manifold_point *r)
{
    return fabs((q->u - p->u) * (r->v - p->v) - (q->v - p->v) * (r->u - p->u));
}

/* Twice the area point x adds to the convex hull of triangle abc: the
 * largest triangle it forms with an edge it lies outside of. */
static double added_area(const glcollide_manifold_point *a, const glcollide_manifold_point *b,
                         const glcollide_manifold_point *c, const glcollide_manifold_point *x)
{
    const glcollide_manifold_point *t[3] = {a, b, c};
    double orientation = (b->u - a->u) * (c->v - a->v) - (b->v - a->v) * (c->u - a->u);
    double best = 0.0;
    for (int i = 0; i < 3; i++) {
        const glcollide_manifold_point *p = t[i], *q = t[(i + 1) % 3];
        double side = (q->u - p->u) * (x->v - p->v) - (q->v - p->v) * (x->u - p->u);
        if (side * orientation < 0.0) /* outside this edge */
            best = glcollide_larger(best, fabs(side));
    }
    return best;
}

uint32_t glcollide_manifold_select(glcollide_manifold_point *points, uint32_t n,
                                   const double normal[3], const double centre[3], double width,
                                   size_t max)
{
    if (n == 0 || max == 0)
        return 0;
    double e1[3], e2[3], cu = 0.0, cv = 0.0, max_depth = 0.0;
    glcollide_plane_basis(normal, e1, e2);
    double lo_u = INFINITY, hi_u = -INFINITY, lo_v = INFINITY, hi_v = -INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        double d[3];
        glcollide_vec3_sub(d, points[i].position, centre);
        points[i].u = glcollide_vec3_dot(d, e1);
        points[i].v = glcollide_vec3_dot(d, e2);
        points[i].kept = 0;
        points[i].distance2 = INFINITY;
        cu += points[i].u / n;
        cv += points[i].v / n;
        max_depth = glcollide_larger(max_depth, points[i].depth);
        lo_u = glcollide_smaller(lo_u, points[i].u);
        hi_u = glcollide_larger(hi_u, points[i].u);
        lo_v = glcollide_smaller(lo_v, points[i].v);
        hi_v = glcollide_larger(hi_v, points[i].v);
    }
    double size = sqrt((hi_u - lo_u) * (hi_u - lo_u) + (hi_v - lo_v) * (hi_v - lo_v));
    double band = 0.01 * width + 1e-12 * size; /* depths this close tie (then keys decide) */
    double tie = tie_tolerance * size;
    /* First: the deepest, farthest from the centre; "deepest" within 10% of
     * the region's width, so that a resting face, whose points differ in
     * depth only by the solver's jitter, keeps the same first point (a
     * corner) from step to step. */
    uint32_t pick = UINT32_MAX;
    double pick_d = -1.0;
    for (uint32_t i = 0; i < n; i++) {
        if (points[i].depth < max_depth - 0.1 * width - band)
            continue;
        double du = points[i].u - cu, dv = points[i].v - cv, d = sqrt(du * du + dv * dv);
        if (pick == UINT32_MAX || d > pick_d + tie ||
            (d >= pick_d - tie && compare_keys(&points[i], &points[pick]) < 0)) {
            if (pick == UINT32_MAX || d > pick_d + tie)
                pick_d = d;
            pick = i;
        }
    }
    uint32_t kept = 0;
    const glcollide_manifold_point *chosen[3] = {NULL, NULL, NULL};
    /* The distances to the picks so far are needed by the 2nd pick and by
     * farthest-point sampling (picks 5 on). */
    int sampling = max > 4;
    while (pick != UINT32_MAX && kept < max) {
        points[pick].kept = ++kept;
        if (kept == max)
            break; /* the last pick: no next one to look for */
        if (kept <= 3)
            chosen[kept - 1] = &points[pick];
        const glcollide_manifold_point *last = &points[pick];
        pick = UINT32_MAX;
        double best = -1.0;
        for (uint32_t i = 0; i < n; i++) {
            if (points[i].kept)
                continue;
            if (kept == 1 || sampling) {
                double du = points[i].u - last->u, dv = points[i].v - last->v;
                double d2 = du * du + dv * dv;
                if (d2 < points[i].distance2)
                    points[i].distance2 = d2;
            }
            /* The score of a candidate: the 2nd point is the farthest from
             * the 1st; the 3rd makes the largest triangle with them, the
             * 4th adds the most area to it (the largest support polygon: a
             * long thin strip gets its four corners, not points along its
             * length); then farthest-point sampling. */
            double score;
            if (kept == 2 || kept == 3) {
                score = kept == 2 ? triangle_area(chosen[0], chosen[1], &points[i])
                                  : added_area(chosen[0], chosen[1], chosen[2], &points[i]);
                if (!(score > tie * size))
                    continue;
            } else {
                score = sqrt(points[i].distance2);
                if (score <= tie)
                    continue; /* nothing new there */
            }
            double eps = kept == 2 || kept == 3 ? tie * size : tie;
            if (pick == UINT32_MAX || score > best + eps ||
                (score >= best - eps && better(&points[i], &points[pick], band))) {
                if (pick == UINT32_MAX || score > best + eps)
                    best = score;
                pick = i;
            }
        }
    }
    return kept;
}

void glcollide_contacts_group_by_region(glcollide_contact *contacts, size_t count)
{
    for (size_t i = 1; i < count; i++)
        for (size_t j = i; j > 0 && contacts[j].region < contacts[j - 1].region; j--) {
            glcollide_contact t = contacts[j - 1];
            contacts[j - 1] = contacts[j];
            contacts[j] = t;
        }
}

/*
 * A region's contacts in turn around its normal, from its first pick (the
 * deepest), counter-clockwise. ODE's dWorldStep (Dantzig LCP) is given four
 * coplanar contacts of a face that way by its own box colliders; in the
 * order of the picks (a corner, the corner across, ...) it fails on a box
 * placed exactly on a face ("LCP internal error, s <= 0") and kicks it.
 */
static void around(glcollide_contact *c, size_t n)
{
    if (n < 3)
        return;
    double e1[3], e2[3], centre[3] = {0, 0, 0}, angle[64];
    glcollide_plane_basis(c[0].normal, e1, e2);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            centre[k] += c[i].position[k] / (double)n;
    size_t m = n < 64 ? n : 64;
    double a0 = 0.0;
    for (size_t i = 0; i < m; i++) {
        double d[3];
        glcollide_vec3_sub(d, c[i].position, centre);
        double a = atan2(glcollide_vec3_dot(d, e2), glcollide_vec3_dot(d, e1));
        if (i == 0)
            a0 = a;
        a -= a0;
        angle[i] = a < 0.0 ? a + 2.0 * 3.14159265358979323846 : a;
    }
    for (size_t i = 2; i < m; i++) /* the first stays first */
        for (size_t j = i; j > 1 && angle[j] < angle[j - 1]; j--) {
            double a = angle[j - 1];
            angle[j - 1] = angle[j];
            angle[j] = a;
            glcollide_contact t = c[j - 1];
            c[j - 1] = c[j];
            c[j] = t;
        }
}

size_t glcollide_contacts_select(glcollide_contact *contacts, size_t count, size_t max,
                                 glcollide_contact_kind kind)
{
    size_t n = count < max ? count : max;
    if (!contacts)
        return 0;
    glcollide_contacts_group_by_region(contacts, n);
    if (kind == GLCOLLIDE_CONTACTS_MESH_PRIMITIVE)
        for (size_t first = 0, end; first < n; first = end) {
            for (end = first + 1; end < n && contacts[end].region == contacts[first].region;)
                end++;
            around(contacts + first, end - first);
        }
    return n;
}
