/* SPDX-License-Identifier: MIT */
/*
 * Contact generation between two triangle meshes, for rigid-body solvers
 * (ODE's dContactGeom). Each candidate triangle pair is first decided
 * exactly (glcollide_tri_tri_intersection); an intersecting pair gives one
 * or two contact points, then the set is reduced to max_contacts.
 *
 * Per pair (triangles a of mesh A and b of mesh B, outward normals n_a, n_b):
 * - Position: both ends of the intersection segment (one point when they
 *   coincide). They lie on both triangles up to rounding, and the ends of the
 *   segments trace the intersection curve, so the reduction below can spread
 *   contacts to the corners of a contact region, not only to segment middles.
 * - Normal and depth: a separating-axis choice between the two face normals,
 *   each with a local depth:
 *     along n_b: how far a dips below b's plane inside the prism over b
 *                (a clipped to b's three side planes; the deepest vertex);
 *     along -n_a: how far b dips below a's plane inside the prism over a.
 *   The smaller depth wins (the cheaper way to undo this pair's overlap);
 *   ties go to n_b. The clipped polygon is part of one triangle, so the depth
 *   never exceeds that triangle's extent: a sliver cannot report a depth
 *   larger than itself. Depths are clamped to >= 0. The normal points from
 *   B toward A (out of B, into A), as ODE expects: moving A by normal * depth
 *   undoes the pair's overlap. The difference n_b - n_a was rejected: it is
 *   45 degrees off for a box resting on a face (side wall against floor),
 *   the configuration solvers see most; face normals are exact there.
 * - Touching without crossing: when the intersection lies on the boundary of
 *   both triangles (edges lying along each other, as where the side faces of
 *   two stacked equal boxes meet), neither triangle enters the other's
 *   interior, so the pair only touches: depth 0, normal n_b. Without this,
 *   such pairs would report the whole height of a side face as depth.
 * - Coplanar pairs: faces touching back to back (n_a . n_b < 0) give depth 0
 *   and n_b. Coplanar faces facing the same way (flush sides of two
 *   overlapping solids) give no contact: the solids are on the same side of
 *   them, and the pairs that cross carry the penetration.
 * - A zero-area triangle has no normal: the other one's is used; if both are
 *   degenerate the pair gives no contact. Non-finite results are dropped.
 * The depth is local to the two triangles: it is exact for flat faces (box
 * on box, box on floor) and, for curved or finely tessellated surfaces,
 * bounded by the size of the triangles near the intersection curve rather
 * than equal to the global penetration depth (for two spheres, each contact's
 * normal is a sphere normal on the rim, off the centre line by up to the
 * rim's angle; the set of contacts is balanced around it).
 *
 * Reduction, deterministic and independent of the order of candidates:
 * 1. Points are sorted by (triangle_a, triangle_b, segment end); repeats of a
 *    candidate pair are dropped.
 * 2. Near-duplicates (within 1e-9 of the size of the contact set, plus a few
 *    ulps of the coordinates) are merged, keeping the deeper one (ties: the
 *    smaller key). Adjacent pairs share the ends of their segments, so this
 *    roughly halves the points.
 * 3. If more than max_contacts remain: keep the deepest point (among equally
 *    deep ones, the one farthest from the centroid of all points, i.e. a
 *    corner of a flat contact patch), then repeatedly the point farthest from
 *    all kept ones (ties: deeper, then smaller key): farthest-point sampling,
 *    which spreads the kept contacts over the region. O(points * max_contacts).
 * 4. Output sorted by depth, deepest first (ties by key, then position).
 *
 * Memory: up to 16 candidate pairs use the stack; more use one heap block of
 * 2 * candidate_count points (~100 bytes each), freed before returning.
 */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct contact_point {
    double position[3];
    double normal[3];
    double depth;
    double distance2; /* squared distance to the nearest kept point, during selection */
    uint32_t triangle_a, triangle_b;
    uint32_t end;    /* which end of the pair's segment: 0 or 1 */
    uint32_t status; /* 0 candidate, 1 merged away, 2 kept */
} contact_point;

enum { STACK_PAIRS = 16, MAX_POLYGON = 9 };
enum { POINT_CANDIDATE = 0, POINT_MERGED = 1, POINT_KEPT = 2 };

/* Relative tolerance for "same point" and "on an edge": far above rounding,
 * far below any feature a mesh of doubles would model. */
static const double relative_tolerance = 1e-9;

static double length3(const double v[3])
{
    return sqrt(glcollide_vec3_dot(v, v));
}

static double distance2(const double p[3], const double q[3])
{
    double d[3];
    glcollide_vec3_sub(d, p, q);
    return glcollide_vec3_dot(d, d);
}

/* Unit normal of triangle t (counter-clockwise = outward); 0 if it has no area. */
static int unit_normal(const double *const t[3], double n[3])
{
    double e1[3], e2[3];
    glcollide_vec3_sub(e1, t[1], t[0]);
    glcollide_vec3_sub(e2, t[2], t[0]);
    glcollide_vec3_cross(n, e1, e2);
    double len = length3(n);
    if (!(len > 0.0) || !isfinite(len))
        return 0;
    for (int k = 0; k < 3; k++)
        n[k] /= len;
    return 1;
}

/* Does segment pq lie on one edge line of triangle t (within tol)? A
 * triangle without area is all boundary. */
static int on_boundary(const double *const t[3], int has_normal, const double p[3],
                       const double q[3], double tol)
{
    if (!has_normal)
        return 1;
    for (int i = 0; i < 3; i++) {
        const double *u = t[i], *v = t[(i + 1) % 3];
        double e[3], up[3], uq[3], c[3];
        glcollide_vec3_sub(e, v, u);
        double len = length3(e);
        if (!(len > 0.0))
            continue;
        glcollide_vec3_sub(up, p, u);
        glcollide_vec3_sub(uq, q, u);
        glcollide_vec3_cross(c, e, up);
        if (length3(c) > tol * len)
            continue;
        glcollide_vec3_cross(c, e, uq);
        if (length3(c) <= tol * len)
            return 1;
    }
    return 0;
}

/* Keeps the part of poly[0..n) where dot(m, p - origin) >= -tol (Sutherland-Hodgman). */
static int clip_half_space(double poly[MAX_POLYGON][3], int n, const double m[3],
                           const double origin[3], double tol)
{
    double out[MAX_POLYGON][3], side[MAX_POLYGON];
    for (int i = 0; i < n; i++) {
        double d[3];
        glcollide_vec3_sub(d, poly[i], origin);
        side[i] = glcollide_vec3_dot(m, d) + tol;
    }
    int count = 0;
    for (int i = 0; i < n && count + 2 <= MAX_POLYGON; i++) {
        int j = (i + 1) % n;
        if (side[i] >= 0.0)
            memcpy(out[count++], poly[i], sizeof out[0]);
        if ((side[i] >= 0.0) != (side[j] >= 0.0)) {
            double s = side[i] / (side[i] - side[j]);
            for (int k = 0; k < 3; k++)
                out[count][k] = poly[i][k] + s * (poly[j][k] - poly[i][k]);
            count++;
        }
    }
    memcpy(poly, out, (size_t)count * sizeof out[0]);
    return count;
}

/*
 * How far triangle other dips below the plane of face (unit normal n) inside
 * the prism over face: other clipped by face's three side planes (kept
 * inclusively, so that a triangle lying in a side plane counts), then the
 * deepest vertex. 0 when nothing is below or inside.
 */
static double penetration(const double *const face[3], const double n[3],
                          const double *const other[3], double tol)
{
    double poly[MAX_POLYGON][3];
    for (int i = 0; i < 3; i++)
        memcpy(poly[i], other[i], sizeof poly[i]);
    int count = 3;
    for (int i = 0; i < 3 && count > 0; i++) {
        double e[3], m[3];
        glcollide_vec3_sub(e, face[(i + 1) % 3], face[i]);
        glcollide_vec3_cross(m, n, e); /* inward in the plane: face is counter-clockwise about n */
        double len = length3(m);
        if (!(len > 0.0))
            continue;
        for (int k = 0; k < 3; k++)
            m[k] /= len;
        count = clip_half_space(poly, count, m, face[i], tol);
    }
    double plane = glcollide_vec3_dot(n, face[0]), depth = 0.0;
    for (int i = 0; i < count; i++) {
        double below = plane - glcollide_vec3_dot(n, poly[i]);
        if (below > depth)
            depth = below;
    }
    return depth;
}

/* The contact points of one candidate pair: 0, 1 or 2 written to out. */
static int pair_contacts(const double *const a[3], const double *const b[3], uint32_t triangle_a,
                         uint32_t triangle_b, contact_point out[2])
{
    double seg[2][3];
    int kind = glcollide_tri_tri_intersection(a[0], a[1], a[2], b[0], b[1], b[2], seg[0], seg[1]);
    if (kind == 0)
        return 0;

    /* Tolerance from the pair's own scale: size of the triangles, plus a few
     * ulps of the coordinates for rounding far from the origin. */
    double max_edge = 0.0, max_abs = 0.0;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            max_abs = fmax(max_abs, fmax(fabs(a[i][k]), fabs(b[i][k])));
            max_edge = fmax(max_edge, fmax(fabs(a[(i + 1) % 3][k] - a[i][k]),
                                           fabs(b[(i + 1) % 3][k] - b[i][k])));
        }
    double tol = relative_tolerance * max_edge + 64.0 * DBL_EPSILON * max_abs;

    double n_a[3], n_b[3], normal[3], depth = 0.0;
    int has_a = unit_normal(a, n_a), has_b = unit_normal(b, n_b);
    if (!has_a && !has_b)
        return 0;
    if (kind == 2 && has_a && has_b && glcollide_vec3_dot(n_a, n_b) > 0.0)
        return 0; /* flush faces of overlapping solids */

    int use_b = has_b;
    if (kind == 1 && !(on_boundary(a, has_a, seg[0], seg[1], tol) &&
                       on_boundary(b, has_b, seg[0], seg[1], tol))) {
        double depth_b = has_b ? penetration(b, n_b, a, tol) : INFINITY;
        double depth_a = has_a ? penetration(a, n_a, b, tol) : INFINITY;
        use_b = depth_b <= depth_a;
        depth = use_b ? depth_b : depth_a;
    }
    for (int k = 0; k < 3; k++)
        normal[k] = use_b ? n_b[k] : -n_a[k];
    if (!isfinite(depth) || !(depth >= 0.0))
        return 0;

    int count = distance2(seg[0], seg[1]) <= tol * tol ? 1 : 2;
    for (int e = 0; e < count; e++) {
        if (!isfinite(seg[e][0]) || !isfinite(seg[e][1]) || !isfinite(seg[e][2]))
            return 0;
        contact_point *c = &out[e];
        memcpy(c->position, seg[e], sizeof c->position);
        memcpy(c->normal, normal, sizeof c->normal);
        c->depth = depth;
        c->distance2 = 0.0;
        c->triangle_a = triangle_a;
        c->triangle_b = triangle_b;
        c->end = (uint32_t)e;
        c->status = POINT_CANDIDATE;
    }
    return count;
}

static int compare_key(const contact_point *p, const contact_point *q)
{
    if (p->triangle_a != q->triangle_a)
        return p->triangle_a < q->triangle_a ? -1 : 1;
    if (p->triangle_b != q->triangle_b)
        return p->triangle_b < q->triangle_b ? -1 : 1;
    if (p->end != q->end)
        return p->end < q->end ? -1 : 1;
    return 0;
}

static int compare_by_key(const void *x, const void *y)
{
    return compare_key(x, y);
}

/* By x, then key: the order of the merging sweep. */
static int compare_by_x(const void *x, const void *y)
{
    const contact_point *p = x, *q = y;
    if (p->position[0] != q->position[0])
        return p->position[0] < q->position[0] ? -1 : 1;
    return compare_key(p, q);
}

/* Output order: deeper first, then key, then position. */
static int compare_output(const void *x, const void *y)
{
    const contact_point *p = x, *q = y;
    if (p->depth != q->depth)
        return p->depth > q->depth ? -1 : 1;
    int c = compare_key(p, q);
    if (c)
        return c;
    for (int k = 0; k < 3; k++)
        if (p->position[k] != q->position[k])
            return p->position[k] < q->position[k] ? -1 : 1;
    return 0;
}

/* Is p a better representative than q (deeper; ties: smaller key)? */
static int better(const contact_point *p, const contact_point *q)
{
    if (p->depth != q->depth)
        return p->depth > q->depth;
    return compare_key(p, q) < 0;
}

/* Marks near-duplicates as merged; points must be sorted by compare_by_x. */
static void merge_duplicates(contact_point *points, size_t n, double tol)
{
    for (size_t i = 0; i < n; i++) {
        if (points[i].status == POINT_MERGED)
            continue;
        for (size_t j = i + 1; j < n && points[j].position[0] - points[i].position[0] <= tol; j++) {
            if (points[j].status == POINT_MERGED ||
                distance2(points[i].position, points[j].position) > tol * tol)
                continue;
            if (better(&points[j], &points[i])) {
                points[i].status = POINT_MERGED;
                break;
            }
            points[j].status = POINT_MERGED;
        }
    }
}

/* Removes points with status POINT_MERGED; returns the new count. */
static size_t compact(contact_point *points, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (points[i].status != POINT_MERGED)
            points[kept++] = points[i];
    return kept;
}

/* Farthest-point sampling of max points, started at the deepest; the kept
 * ones are moved to the front. Returns the number kept. */
static size_t select_spread(contact_point *points, size_t n, size_t max, double tol)
{
    double centroid[3] = {0, 0, 0}, max_depth = 0.0;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            centroid[k] += points[i].position[k] / (double)n;
        max_depth = fmax(max_depth, points[i].depth);
    }
    size_t first = SIZE_MAX;
    double first_distance2 = -1.0;
    for (size_t i = 0; i < n; i++) {
        if (points[i].depth < max_depth - tol)
            continue;
        double d2 = distance2(points[i].position, centroid);
        if (first == SIZE_MAX || d2 > first_distance2 ||
            (d2 == first_distance2 && better(&points[i], &points[first]))) {
            first = i;
            first_distance2 = d2;
        }
    }
    for (size_t i = 0; i < n; i++)
        points[i].distance2 = INFINITY;
    size_t kept = 0, pick = first;
    while (kept < max) {
        contact_point *chosen = &points[pick];
        chosen->status = POINT_KEPT;
        kept++;
        pick = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
            if (points[i].status == POINT_KEPT)
                continue;
            double d2 = distance2(points[i].position, chosen->position);
            if (d2 < points[i].distance2)
                points[i].distance2 = d2;
            if (pick == SIZE_MAX || points[i].distance2 > points[pick].distance2 ||
                (points[i].distance2 == points[pick].distance2 &&
                 better(&points[i], &points[pick])))
                pick = i;
        }
        if (pick == SIZE_MAX)
            break;
    }
    size_t front = 0;
    for (size_t i = 0; i < n; i++)
        if (points[i].status == POINT_KEPT) {
            contact_point swap = points[front];
            points[front++] = points[i];
            points[i] = swap;
        }
    return kept;
}

int glcollide_contacts_generate(const double *positions_a, const uint32_t *triangles_a,
                                const double *positions_b, const uint32_t *triangles_b,
                                const glcollide_index_pair *candidates, size_t candidate_count,
                                glcollide_contact *contacts, size_t max_contacts, size_t *count)
{
    return glcollide_contacts_generate_with(positions_a, triangles_a, positions_b, triangles_b,
                                            candidates, candidate_count, contacts, max_contacts,
                                            count, NULL);
}

int glcollide_contacts_generate_with(const double *positions_a, const uint32_t *triangles_a,
                                     const double *positions_b, const uint32_t *triangles_b,
                                     const glcollide_index_pair *candidates,
                                     size_t candidate_count, glcollide_contact *contacts,
                                     size_t max_contacts, size_t *count,
                                     glcollide_workspace *workspace)
{
    if (!count)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "contacts: count is NULL");
    *count = 0;
    if (candidate_count > 0 &&
        (!positions_a || !triangles_a || !positions_b || !triangles_b || !candidates))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "contacts: NULL mesh arrays or candidates with %zu candidates",
                              candidate_count);
    if (max_contacts > 0 && !contacts)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "contacts: contacts is NULL with max_contacts %zu", max_contacts);
    if (candidate_count == 0 || max_contacts == 0)
        return GLCOLLIDE_OK;

    contact_point stack_points[2 * STACK_PAIRS];
    contact_point *points = stack_points;
    void *own = NULL; /* scratch of its own when there is no workspace */
    if (candidate_count > STACK_PAIRS) {
        points = candidate_count <= SIZE_MAX / 2 / sizeof *points
                     ? glcollide_workspace_get(workspace, 2 * candidate_count * sizeof *points, &own)
                     : NULL;
        if (!points)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                                  "contacts: out of memory for %zu candidate pairs",
                                  candidate_count);
    }

    size_t n = 0;
    for (size_t i = 0; i < candidate_count; i++) {
        const uint32_t *ta = triangles_a + 3 * (size_t)candidates[i].a;
        const uint32_t *tb = triangles_b + 3 * (size_t)candidates[i].b;
        const double *a[3] = {positions_a + 3 * (size_t)ta[0], positions_a + 3 * (size_t)ta[1],
                              positions_a + 3 * (size_t)ta[2]};
        const double *b[3] = {positions_b + 3 * (size_t)tb[0], positions_b + 3 * (size_t)tb[1],
                              positions_b + 3 * (size_t)tb[2]};
        n += (size_t)pair_contacts(a, b, candidates[i].a, candidates[i].b, points + n);
    }

    if (n > 0) {
        /* Repeated candidates give bit-identical points with the same key. */
        glcollide_sort(points, n, sizeof *points, compare_by_key);
        size_t unique = 1;
        for (size_t i = 1; i < n; i++)
            if (compare_key(&points[i], &points[unique - 1]) != 0)
                points[unique++] = points[i];
        n = unique;

        double lo[3], hi[3], max_abs = 0.0;
        memcpy(lo, points[0].position, sizeof lo);
        memcpy(hi, points[0].position, sizeof hi);
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) {
                lo[k] = fmin(lo[k], points[i].position[k]);
                hi[k] = fmax(hi[k], points[i].position[k]);
                max_abs = fmax(max_abs, fabs(points[i].position[k]));
            }
        double extent[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
        double tol = relative_tolerance * length3(extent) + 64.0 * DBL_EPSILON * max_abs;

        glcollide_sort(points, n, sizeof *points, compare_by_x);
        merge_duplicates(points, n, tol);
        n = compact(points, n);
        if (n > max_contacts)
            n = select_spread(points, n, max_contacts, tol);
        glcollide_sort(points, n, sizeof *points, compare_output);
        for (size_t i = 0; i < n; i++) {
            glcollide_contact *c = &contacts[i];
            memcpy(c->position, points[i].position, sizeof c->position);
            memcpy(c->normal, points[i].normal, sizeof c->normal);
            c->depth = points[i].depth;
            c->triangle_a = points[i].triangle_a;
            c->triangle_b = points[i].triangle_b;
        }
        *count = n;
    }
    free(own);
    return GLCOLLIDE_OK;
}
