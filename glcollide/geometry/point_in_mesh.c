/* SPDX-License-Identifier: MIT */
/*
 * Point containment in a closed triangle mesh: the nonzero winding rule.
 *
 * Inside means a winding number other than 0: how many times the surface
 * wraps around p, counted with orientation. For a closed mesh that does not
 * pass through itself it is 1 inside and 0 outside (so parity would do);
 * where a closed mesh passes through itself (camel.off, scans whose parts
 * overlap), the overlap winds twice and parity would call it outside, while
 * the image-space methods, which count front faces minus back faces, see 2:
 * nonzero is the rule that they and this oracle share.
 *
 * glcollide_point_in_mesh sums, exactly, the signed crossings of the segment
 * from p to a far point q (q is outside: winding 0): +1 where p is behind
 * the crossed face (on its inner side), -1 where in front. Every decision is a sign of
 * glcollide_orient3d / glcollide_orient2d, so the answer does not depend on
 * rounding: the segment crosses triangle abc iff p and q are strictly on
 * opposite sides of its plane and the line pq passes strictly on the same
 * side of its three edges. Zeros are sorted out exactly too: p on the plane
 * of a triangle is either on the triangle (2D orientations in a projection:
 * the answer is then "inside") or touches the plane outside it (no
 * crossing); q is outside the mesh's box, so on no triangle; a line through
 * an edge or vertex, or a segment lying in a triangle's plane, is grazing,
 * and then another q is tried, from a fixed sequence of directions.
 *
 * With a BVH, only the triangles whose boxes overlap the segment's box are
 * classified (glcollide_bvh_query_box). That box is exact, so there is no
 * slab-test tolerance to get right, and the directions are the coordinate
 * axes or within 0.25 of them, so it is thin. Without a BVH the exact box
 * of each triangle is tested; the BVH's boxes enclose those by a few ulps,
 * so it may also classify a triangle the segment cannot meet, which counts
 * no crossing (at most it makes a segment lying in that triangle's plane
 * try the next direction): both give the same answer.
 *
 * glcollide_winding_number is an independent floating-point formulation
 * (solid angles, van Oosterom and Strackee 1983) used to cross-check it.
 */
#include "geometry/geometry_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* Directions tried per axis (one exact, the others tilted) and in all. */
#define GLCOLLIDE_RAY_TILTS 8
#define GLCOLLIDE_RAY_ATTEMPTS (6 * (1 + GLCOLLIDE_RAY_TILTS))
#define GLCOLLIDE_PI 3.14159265358979323846

typedef struct ray_cast {
    const double *positions;
    const uint32_t *triangles;
    const glcollide_pose *pose;   /* positions in object space, placed by pose (or NULL) */
    double m[9];                  /* pose's rotation */
    double p[3], q[3];
    glcollide_aabb segment_box;
    int winding;    /* signed crossings: the winding number at p */
    int degenerate; /* the segment grazes a triangle's edge, vertex or plane */
    int on_surface; /* p lies on a triangle */
} ray_cast;

/* The 2D coordinates of x once axis `drop` is removed. */
static void project(const double x[3], int drop, double out[2])
{
    out[0] = x[(drop + 1) % 3];
    out[1] = x[(drop + 2) % 3];
}

/*
 * Is p, known to be coplanar with a, b, c, on the closed triangle? Decided in
 * the projection along an axis where the projected triangle is not
 * degenerate (the dominant axis of its normal first): the projection is then
 * one-to-one on the plane, so containment is preserved. Returns 1 on, 0 not
 * on, -1 not on and the triangle has zero area (collinear or repeated
 * vertices), in which case it is a segment or a point and was tested as such.
 */
static int point_on_triangle(const double a[3], const double b[3], const double c[3],
                             const double p[3])
{
    double ab[3], ac[3], normal[3];
    glcollide_vec3_sub(ab, b, a);
    glcollide_vec3_sub(ac, c, a);
    glcollide_vec3_cross(normal, ab, ac);
    int axes[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++) /* order by decreasing |normal| component */
        for (int j = i + 1; j < 3; j++)
            if (fabs(normal[axes[j]]) > fabs(normal[axes[i]])) {
                int swap = axes[i];
                axes[i] = axes[j];
                axes[j] = swap;
            }
    double a2[2], b2[2], c2[2], p2[2];
    for (int i = 0; i < 3; i++) {
        project(a, axes[i], a2);
        project(b, axes[i], b2);
        project(c, axes[i], c2);
        int side = glcollide_orient2d(a2, b2, c2);
        if (side == 0)
            continue;
        project(p, axes[i], p2);
        int o1 = glcollide_orient2d(a2, b2, p2);
        int o2 = glcollide_orient2d(b2, c2, p2);
        int o3 = glcollide_orient2d(c2, a2, p2);
        return (o1 == 0 || o1 == side) && (o2 == 0 || o2 == side) && (o3 == 0 || o3 == side);
    }

    /* Zero area: all projections collinear. p is on it iff it is within the
     * box of the vertices and on their line (if they are not one point). */
    for (int k = 0; k < 3; k++) {
        double lo = fmin(a[k], fmin(b[k], c[k])), hi = fmax(a[k], fmax(b[k], c[k]));
        if (!(p[k] >= lo && p[k] <= hi))
            return -1;
    }
    const double *u = a, *v = b;
    if (v[0] == u[0] && v[1] == u[1] && v[2] == u[2])
        v = c;
    if (v[0] == u[0] && v[1] == u[1] && v[2] == u[2])
        return 1; /* a point, and p is within its (zero) box */
    double u2[2], v2[2];
    for (int k = 0; k < 3; k++) {
        project(u, k, u2);
        project(v, k, v2);
        project(p, k, p2);
        if (glcollide_orient2d(u2, v2, p2) != 0)
            return -1;
    }
    return 1;
}

/* Classifies one triangle against the segment; returns 1 to stop (p on it). */
static int cast_triangle(uint32_t triangle, void *user)
{
    ray_cast *ray = user;
    const uint32_t *t = ray->triangles + 3 * (size_t)triangle;
    const double *a = ray->positions + 3 * (size_t)t[0];
    const double *b = ray->positions + 3 * (size_t)t[1];
    const double *c = ray->positions + 3 * (size_t)t[2];
    double placed[3][3];
    if (ray->pose) {
        glcollide_place_point(ray->pose, ray->m, a, placed[0]);
        glcollide_place_point(ray->pose, ray->m, b, placed[1]);
        glcollide_place_point(ray->pose, ray->m, c, placed[2]);
        a = placed[0], b = placed[1], c = placed[2];
    }
    int side_p = glcollide_orient3d(a, b, c, ray->p);
    int side_q = glcollide_orient3d(a, b, c, ray->q);
    if (side_p == 0) {
        int on = point_on_triangle(a, b, c, ray->p);
        if (on == 1) {
            ray->on_surface = 1;
            return 1;
        }
        /* The whole segment in the plane of a real triangle (and p not on
         * it): it may run along the surface. On a closed mesh it then also
         * meets an edge of a neighbouring triangle (caught below); this
         * catches it directly, for any mesh. */
        if (side_q == 0 && on == 0)
            ray->degenerate = 1;
        return 0;
    }
    /* Same side, or q (outside the mesh's box) on the plane: no crossing. */
    if (side_q == side_p || side_q == 0)
        return 0;
    int e1 = glcollide_orient3d(ray->p, ray->q, a, b);
    int e2 = glcollide_orient3d(ray->p, ray->q, b, c);
    int e3 = glcollide_orient3d(ray->p, ray->q, c, a);
    if (e1 != 0 && e1 == e2 && e2 == e3) {
        ray->winding += side_p; /* orient3d > 0: p below the counter-clockwise face, inside it */
        return 0;
    }
    int has_positive = e1 > 0 || e2 > 0 || e3 > 0;
    int has_negative = e1 < 0 || e2 < 0 || e3 < 0;
    /* Mixed strict signs: the line meets the plane outside the triangle.
     * Otherwise it meets it on an edge or a vertex. */
    if (!(has_positive && has_negative))
        ray->degenerate = 1;
    return 0;
}

/*
 * Direction of attempt i: axes in order of the mesh box's nearest face from p
 * (the shortest segment, and a thin segment box for the BVH), each first
 * exactly along the axis (cheapest; it grazes only on aligned geometry),
 * then tilted by irrational-looking amounts (fractional parts of multiples of
 * the plastic number's R2 sequence constants), where exact grazing needs a
 * coincidence of the mesh data with those tilts.
 */
static void ray_direction(int attempt, const int axis_order[6], double direction[3])
{
    int face = axis_order[attempt / (1 + GLCOLLIDE_RAY_TILTS)];
    int tilt = attempt % (1 + GLCOLLIDE_RAY_TILTS);
    int axis = face / 2;
    direction[0] = direction[1] = direction[2] = 0.0;
    direction[axis] = (face & 1) ? 1.0 : -1.0;
    if (tilt > 0) {
        double u = 0.5 + tilt * 0.7548776662466927, v = 0.5 + tilt * 0.5698402909980532;
        direction[(axis + 1) % 3] = 0.5 * (u - floor(u) - 0.5);
        direction[(axis + 2) % 3] = 0.5 * (v - floor(v) - 0.5);
    }
}

/*
 * The far point along direction: strictly outside bounds along the main axis
 * (so q is on no triangle). Returns 0 if no finite such point exists.
 */
static int far_point(const double p[3], const double direction[3], const glcollide_aabb *bounds,
                     double q[3])
{
    int axis = fabs(direction[0]) == 1.0 ? 0 : fabs(direction[1]) == 1.0 ? 1 : 2;
    double span = 0.0;
    for (int k = 0; k < 3; k++)
        span = fmax(span, bounds->max[k] - bounds->min[k]);
    double length = span + 1.0;
    for (int tries = 0; tries < 1100 && isfinite(length); tries++, length *= 2.0) {
        for (int k = 0; k < 3; k++)
            q[k] = p[k] + length * direction[k];
        int outside =
            direction[axis] > 0 ? q[axis] > bounds->max[axis] : q[axis] < bounds->min[axis];
        if (outside && isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]))
            return 1;
    }
    return 0;
}

/* R^T (x - t): a world point taken to a placed mesh's frame (rounded). */
static void to_local(const ray_cast *ray, const double x[3], double out[3])
{
    const double *t = ray->pose->translation, *m = ray->m;
    double d[3] = {x[0] - t[0], x[1] - t[1], x[2] - t[2]};
    for (int k = 0; k < 3; k++)
        out[k] = m[k] * d[0] + m[3 + k] * d[1] + m[6 + k] * d[2];
}

/*
 * For a placed mesh the ray leaves p along the mesh's own axes turned into
 * the world (local direction d, world direction R d): taken back to the
 * mesh's frame its segment is then nearly along an axis there, and its box
 * holds few triangles, where a world axis would cut the mesh diagonally.
 * Any far point outside the world box of the placed mesh is outside the
 * solid; the crossings are counted exactly in world coordinates whatever
 * the direction, so the answer is the one of a world-axis ray.
 */
static int placed_far_point(const ray_cast *ray, const double p[3], const double local_direction[3],
                            const glcollide_aabb *bounds, double q[3])
{
    double direction[3], span = 0.0;
    for (int k = 0; k < 3; k++) {
        const double *m = ray->m;
        direction[k] = m[3 * k] * local_direction[0] + m[3 * k + 1] * local_direction[1] +
                       m[3 * k + 2] * local_direction[2];
        span += bounds->max[k] - bounds->min[k];
    }
    double length = span + 1.0;
    for (int tries = 0; tries < 1100 && isfinite(length); tries++, length *= 2.0) {
        int outside = 0;
        for (int k = 0; k < 3; k++) {
            q[k] = p[k] + length * direction[k];
            outside |= q[k] > bounds->max[k] || q[k] < bounds->min[k];
        }
        if (outside && isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]))
            return 1;
    }
    return 0;
}

/* Classifies the triangles that may meet the ray's segment: those whose box
 * meets the segment's box. Placed meshes are searched in their own frame,
 * with the segment taken back there and its box grown by what rounding of
 * either placement can move a point (1e-12 of the coordinates in play), so
 * that every triangle the world-space filter would keep is kept. */
static void cast_candidates(ray_cast *ray, size_t triangle_count, const glcollide_bvh *bvh)
{
    if (ray->pose) {
        const double *t = ray->pose->translation;
        glcollide_aabb local, mesh_box = glcollide_bvh_bounds(bvh);
        glcollide_aabb_empty(&local);
        double slack = 0.0;
        for (int e = 0; e < 2; e++) {
            const double *x = e ? ray->q : ray->p;
            double back[3];
            to_local(ray, x, back);
            for (int k = 0; k < 3; k++)
                slack += fabs(x[k]) + fabs(t[k]);
            glcollide_aabb_add_point(&local, back);
        }
        for (int k = 0; k < 3; k++)
            slack += fabs(mesh_box.min[k]) + fabs(mesh_box.max[k]);
        slack = 1e-12 * slack + 4.9406564584124654e-324;
        for (int k = 0; k < 3; k++) {
            local.min[k] -= slack;
            local.max[k] += slack;
        }
        glcollide_bvh_query_box(bvh, &local, cast_triangle, ray);
        return;
    }
    /* With or without the BVH exactly the same triangles are classified
     * (the BVH's boxes are the same exact min/max), so both paths give the
     * same answer. */
    if (bvh) {
        glcollide_bvh_query_box(bvh, &ray->segment_box, cast_triangle, ray);
        return;
    }
    for (size_t t = 0; t < triangle_count && !ray->on_surface; t++) {
        glcollide_aabb box;
        glcollide_aabb_empty(&box);
        for (int v = 0; v < 3; v++)
            glcollide_aabb_add_point(&box, ray->positions + 3 * (size_t)ray->triangles[3 * t + v]);
        if (glcollide_aabb_overlap(&box, &ray->segment_box))
            cast_triangle((uint32_t)t, ray);
    }
}

/* The ray casts from p, within bounds (which holds every triangle as the
 * ray sees it): 1 inside or on, 0 outside, -1 when every ray grazed. */
static int cast_rays(ray_cast *ray, size_t triangle_count, const glcollide_bvh *bvh,
                     const glcollide_aabb *bounds, const double p[3])
{
    /* Outside the closed box of the vertices: outside the solid. */
    for (int k = 0; k < 3; k++)
        if (!(p[k] >= bounds->min[k] && p[k] <= bounds->max[k]))
            return 0;

    /* Faces 2k (towards -k) and 2k+1 (towards +k), nearest first; a placed
     * mesh is cast along its own axes (see placed_far_point). */
    int axis_order[6];
    double distance[6], local_p[3];
    glcollide_aabb local_box = ray->pose ? glcollide_bvh_bounds(bvh) : *bounds;
    if (ray->pose)
        to_local(ray, p, local_p);
    else
        memcpy(local_p, p, sizeof local_p);
    for (int f = 0; f < 6; f++) {
        axis_order[f] = f;
        distance[f] = (f & 1) ? local_box.max[f / 2] - local_p[f / 2]
                              : local_p[f / 2] - local_box.min[f / 2];
    }
    for (int i = 1; i < 6; i++)
        for (int j = i; j > 0 && distance[axis_order[j]] < distance[axis_order[j - 1]]; j--) {
            int swap = axis_order[j];
            axis_order[j] = axis_order[j - 1];
            axis_order[j - 1] = swap;
        }

    for (int k = 0; k < 3; k++)
        ray->p[k] = p[k];
    for (int attempt = 0; attempt < GLCOLLIDE_RAY_ATTEMPTS; attempt++) {
        double direction[3];
        ray_direction(attempt, axis_order, direction);
        if (!(ray->pose ? placed_far_point(ray, p, direction, bounds, ray->q)
                        : far_point(p, direction, bounds, ray->q)))
            continue;
        for (int k = 0; k < 3; k++) {
            ray->segment_box.min[k] = fmin(ray->p[k], ray->q[k]);
            ray->segment_box.max[k] = fmax(ray->p[k], ray->q[k]);
        }
        ray->winding = ray->degenerate = ray->on_surface = 0;
        /* Only triangles whose box meets the segment's box can meet it. */
        cast_candidates(ray, triangle_count, bvh);
        if (ray->on_surface)
            return 1;
        if (!ray->degenerate)
            return ray->winding != 0;
        glcollide_log_debug("point in mesh: ray %d from (%g, %g, %g) grazes an edge, vertex or "
                            "plane; casting another",
                            attempt, p[0], p[1], p[2]);
    }
    return -1;
}

/* Every direction grazed (the tilts are fixed, so a mesh could be built to
 * defeat them): the floating-point winding number decides. */
static int winding_fallback(const double *positions, const uint32_t *triangles,
                            size_t triangle_count, const double p[3])
{
    double winding = glcollide_winding_number_arrays(positions, triangles, triangle_count, p);
    glcollide_log_warning("point in mesh: all %d rays from (%g, %g, %g) graze the mesh; using the "
                          "winding number %g",
                          GLCOLLIDE_RAY_ATTEMPTS, p[0], p[1], p[2], winding);
    return fabs(winding) >= 0.5;
}

int glcollide_point_in_mesh_arrays(const double *positions, const uint32_t *triangles,
                                   size_t triangle_count, const glcollide_bvh *bvh,
                                   const double p[3])
{
    if (!positions || !triangles || !triangle_count || !p)
        return 0;
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
        return 0;
    glcollide_aabb bounds;
    if (bvh) {
        bounds = glcollide_bvh_bounds(bvh);
    } else {
        glcollide_aabb_empty(&bounds);
        for (size_t i = 0; i < 3 * triangle_count; i++)
            glcollide_aabb_add_point(&bounds, positions + 3 * (size_t)triangles[i]);
    }
    ray_cast ray = {.positions = positions, .triangles = triangles};
    int inside = cast_rays(&ray, triangle_count, bvh, &bounds, p);
    return inside >= 0 ? inside : winding_fallback(positions, triangles, triangle_count, p);
}

int glcollide_point_in_posed_mesh(const glcollide_mesh *mesh, const glcollide_bvh *bvh,
                                  const glcollide_pose *pose, const glcollide_aabb *world_box,
                                  const double p[3])
{
    if (!mesh->triangle_count || !bvh || !isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
        return 0;
    ray_cast ray = {.positions = mesh->positions, .triangles = mesh->triangles, .pose = pose};
    glcollide_pose_rotation_matrix(pose, ray.m);
    int inside = cast_rays(&ray, mesh->triangle_count, bvh, world_box, p);
    if (inside >= 0)
        return inside;
    /* The winding number does not change with a rigid motion: p is taken
     * to the mesh's frame (in floating point, as the fallback is). */
    double local[3];
    to_local(&ray, p, local);
    return winding_fallback(mesh->positions, mesh->triangles, mesh->triangle_count, local);
}

double glcollide_winding_number_arrays(const double *positions, const uint32_t *triangles,
                                       size_t triangle_count, const double p[3])
{
    if (!positions || !triangles || !p)
        return 0.0;
    double sum = 0.0;
    for (size_t t = 0; t < triangle_count; t++) {
        double a[3], b[3], c[3], bc[3];
        glcollide_vec3_sub(a, positions + 3 * (size_t)triangles[3 * t], p);
        glcollide_vec3_sub(b, positions + 3 * (size_t)triangles[3 * t + 1], p);
        glcollide_vec3_sub(c, positions + 3 * (size_t)triangles[3 * t + 2], p);
        double la = sqrt(glcollide_vec3_dot(a, a));
        double lb = sqrt(glcollide_vec3_dot(b, b));
        double lc = sqrt(glcollide_vec3_dot(c, c));
        glcollide_vec3_cross(bc, b, c);
        /* tan(omega / 2) = det[a b c] / (|a||b||c| + (a.b)|c| + (b.c)|a| + (c.a)|b|);
         * det > 0 when p is behind a counter-clockwise (outward) face. */
        double det = glcollide_vec3_dot(a, bc);
        double den = la * lb * lc + glcollide_vec3_dot(a, b) * lc + glcollide_vec3_dot(b, c) * la +
                     glcollide_vec3_dot(c, a) * lb;
        sum += 2.0 * atan2(det, den);
    }
    return sum / (4.0 * GLCOLLIDE_PI);
}
