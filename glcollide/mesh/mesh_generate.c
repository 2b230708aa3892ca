/* SPDX-License-Identifier: MIT */
/*
 * Procedural closed meshes for tests and demos. Every generator shares each
 * vertex between the triangles around it (poles included), so the results
 * are closed, edge-manifold solids with counter-clockwise (outward) triangles.
 */
#include "mesh/mesh_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const double pi = 3.14159265358979323846;

static int positive(const char *generator, const char *what, double value)
{
    if (value > 0.0 && isfinite(value))
        return GLCOLLIDE_OK;
    return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                          "%s: %s must be positive and finite, got %g", generator, what, value);
}

/* Checked before any work so that absurd segment counts fail at once. */
static int check_vertex_count(const char *generator, size_t vertex_count)
{
    if (vertex_count > UINT32_MAX)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "%s: %zu vertices exceed 32-bit indices",
                              generator, vertex_count);
    return GLCOLLIDE_OK;
}

/* Arrays for exactly vertex_count vertices and triangle_count triangles. */
static int allocate(const char *generator, size_t vertex_count, size_t triangle_count,
                    double **positions, uint32_t **triangles)
{
    int status = check_vertex_count(generator, vertex_count);
    if (status < 0)
        return status;
    *positions = vertex_count <= SIZE_MAX / 3
                     ? glcollide_alloc_array(3 * vertex_count, sizeof **positions)
                     : NULL;
    *triangles = triangle_count <= SIZE_MAX / 3
                     ? glcollide_alloc_array(3 * triangle_count, sizeof **triangles)
                     : NULL;
    if (*positions && *triangles)
        return GLCOLLIDE_OK;
    free(*positions);
    free(*triangles);
    return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                          "%s: out of memory for %zu vertices, %zu triangles", generator,
                          vertex_count, triangle_count);
}

static void set_vertex(double *positions, size_t v, double x, double y, double z)
{
    positions[3 * v] = x;
    positions[3 * v + 1] = y;
    positions[3 * v + 2] = z;
}

static void set_triangle(uint32_t *triangles, size_t *t, size_t a, size_t b, size_t c)
{
    triangles[3 * *t] = (uint32_t)a;
    triangles[3 * *t + 1] = (uint32_t)b;
    triangles[3 * *t + 2] = (uint32_t)c;
    (*t)++;
}

/* Two triangles for the quad a b c d, counter-clockwise. */
static void set_quad(uint32_t *triangles, size_t *t, size_t a, size_t b, size_t c, size_t d)
{
    set_triangle(triangles, t, a, b, c);
    set_triangle(triangles, t, a, c, d);
}

int glcollide_mesh_generate_box(double hx, double hy, double hz, glcollide_mesh **out)
{
    int status = positive("box", "hx", hx);
    if (status == GLCOLLIDE_OK)
        status = positive("box", "hy", hy);
    if (status == GLCOLLIDE_OK)
        status = positive("box", "hz", hz);
    if (status == GLCOLLIDE_OK && !out)
        status = glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "box: out is NULL");
    double *positions = NULL;
    uint32_t *triangles = NULL;
    if (status == GLCOLLIDE_OK)
        status = allocate("box", 8, 12, &positions, &triangles);
    if (status < 0)
        return status;
    /* Vertex i has bit 0 for +x, bit 1 for +y, bit 2 for +z. */
    for (size_t i = 0; i < 8; i++)
        set_vertex(positions, i, i & 1 ? hx : -hx, i & 2 ? hy : -hy, i & 4 ? hz : -hz);
    size_t t = 0;
    set_quad(triangles, &t, 0, 4, 6, 2); /* -x */
    set_quad(triangles, &t, 1, 3, 7, 5); /* +x */
    set_quad(triangles, &t, 0, 1, 5, 4); /* -y */
    set_quad(triangles, &t, 2, 6, 7, 3); /* +y */
    set_quad(triangles, &t, 0, 2, 3, 1); /* -z */
    set_quad(triangles, &t, 4, 5, 7, 6); /* +z */
    return glcollide_mesh_adopt(positions, 8, triangles, 12, "box", out);
}

/*
 * A solid of revolution about z: a north pole, ring_count rings of `slices`
 * vertices from top to bottom (ring_z heights, ring_radius distances from
 * the axis), a south pole. Fans close the poles, quads join the rings.
 */
static int lathe(const char *generator, double north_z, double south_z, const double *ring_z,
                 const double *ring_radius, size_t ring_count, size_t slices, glcollide_mesh **out)
{
    size_t vertex_count = 2 + ring_count * slices;
    size_t triangle_count = 2 * slices * ring_count;
    double *positions = NULL;
    uint32_t *triangles = NULL;
    int status = allocate(generator, vertex_count, triangle_count, &positions, &triangles);
    if (status < 0)
        return status;
    size_t north = 0, south = vertex_count - 1;
    set_vertex(positions, north, 0.0, 0.0, north_z);
    set_vertex(positions, south, 0.0, 0.0, south_z);
    for (size_t i = 0; i < ring_count; i++)
        for (size_t j = 0; j < slices; j++) {
            double phi = 2.0 * pi * (double)j / (double)slices;
            set_vertex(positions, 1 + i * slices + j, ring_radius[i] * cos(phi),
                       ring_radius[i] * sin(phi), ring_z[i]);
        }
    size_t t = 0;
    for (size_t j = 0; j < slices; j++) {
        size_t next = (j + 1) % slices;
        set_triangle(triangles, &t, north, 1 + j, 1 + next);
        for (size_t i = 0; i + 1 < ring_count; i++) {
            size_t upper = 1 + i * slices, lower = upper + slices;
            set_quad(triangles, &t, upper + j, lower + j, lower + next, upper + next);
        }
        size_t last = 1 + (ring_count - 1) * slices;
        set_triangle(triangles, &t, south, last + next, last + j);
    }
    return glcollide_mesh_adopt(positions, vertex_count, triangles, triangle_count, generator, out);
}

int glcollide_mesh_generate_sphere(double radius, int slices, int stacks, glcollide_mesh **out)
{
    int status = positive("sphere", "radius", radius);
    if (status < 0)
        return status;
    if (slices < 3 || stacks < 2 || !out)
        return glcollide_fail(
            GLCOLLIDE_ERROR_INVALID_ARGUMENT,
            !out ? "sphere: out is NULL"
                 : "sphere: need slices >= 3 and stacks >= 2, got %d slices, %d stacks",
            slices, stacks);
    size_t ring_count = (size_t)stacks - 1;
    status = check_vertex_count("sphere", 2 + ring_count * (size_t)slices);
    if (status < 0)
        return status;
    double *rings = glcollide_alloc_array(2 * ring_count, sizeof *rings);
    if (!rings)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "sphere: out of memory");
    for (size_t i = 0; i < ring_count; i++) {
        double theta = pi * (double)(i + 1) / (double)stacks;
        rings[i] = radius * cos(theta);
        rings[ring_count + i] = radius * sin(theta);
    }
    status = lathe("sphere", radius, -radius, rings, rings + ring_count, ring_count, (size_t)slices,
                   out);
    free(rings);
    return status;
}

int glcollide_mesh_generate_capsule(double radius, double half_length, int slices, int cap_stacks,
                                    glcollide_mesh **out)
{
    int status = positive("capsule", "radius", radius);
    if (status == GLCOLLIDE_OK)
        status = positive("capsule", "half_length", half_length);
    if (status < 0)
        return status;
    if (slices < 3 || cap_stacks < 1 || !out)
        return glcollide_fail(
            GLCOLLIDE_ERROR_INVALID_ARGUMENT,
            !out ? "capsule: out is NULL"
                 : "capsule: need slices >= 3 and cap_stacks >= 1, got %d slices, %d cap stacks",
            slices, cap_stacks);
    size_t per_cap = (size_t)cap_stacks, ring_count = 2 * per_cap;
    status = check_vertex_count("capsule", 2 + ring_count * (size_t)slices);
    if (status < 0)
        return status;
    double *rings = glcollide_alloc_array(2 * ring_count, sizeof *rings);
    if (!rings)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "capsule: out of memory");
    /* Top cap rings down to its equator at z = +h, then the bottom cap's
     * from its equator at z = -h; the equators are exact so the cylinder
     * between them is straight. */
    for (size_t k = 1; k <= per_cap; k++) {
        double theta = 0.5 * pi * (double)k / (double)per_cap;
        rings[k - 1] = half_length + (k == per_cap ? 0.0 : radius * cos(theta));
        rings[ring_count + k - 1] = k == per_cap ? radius : radius * sin(theta);
    }
    for (size_t k = 0; k < per_cap; k++) {
        double theta = 0.5 * pi * (double)k / (double)per_cap;
        rings[per_cap + k] = -half_length - (k == 0 ? 0.0 : radius * sin(theta));
        rings[ring_count + per_cap + k] = k == 0 ? radius : radius * cos(theta);
    }
    status = lathe("capsule", half_length + radius, -half_length - radius, rings,
                   rings + ring_count, ring_count, (size_t)slices, out);
    free(rings);
    return status;
}

int glcollide_mesh_generate_torus(double major_radius, double minor_radius, int major_segments,
                                  int minor_segments, glcollide_mesh **out)
{
    int status = positive("torus", "major_radius", major_radius);
    if (status == GLCOLLIDE_OK)
        status = positive("torus", "minor_radius", minor_radius);
    if (status < 0)
        return status;
    /* A fatter tube would pass through the axis and through itself. */
    if (minor_radius >= major_radius)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "torus: minor_radius %g must be below major_radius %g", minor_radius,
                              major_radius);
    if (major_segments < 3 || minor_segments < 3 || !out)
        return glcollide_fail(
            GLCOLLIDE_ERROR_INVALID_ARGUMENT,
            !out ? "torus: out is NULL"
                 : "torus: need at least 3 major and 3 minor segments, got %d and %d",
            major_segments, minor_segments);
    size_t major = (size_t)major_segments, minor = (size_t)minor_segments;
    size_t vertex_count = major * minor, triangle_count = 2 * major * minor;
    double *positions = NULL;
    uint32_t *triangles = NULL;
    status = allocate("torus", vertex_count, triangle_count, &positions, &triangles);
    if (status < 0)
        return status;
    for (size_t i = 0; i < major; i++) {
        double phi = 2.0 * pi * (double)i / (double)major;
        for (size_t j = 0; j < minor; j++) {
            double theta = 2.0 * pi * (double)j / (double)minor;
            double rho = major_radius + minor_radius * cos(theta);
            set_vertex(positions, i * minor + j, rho * cos(phi), rho * sin(phi),
                       minor_radius * sin(theta));
        }
    }
    size_t t = 0;
    for (size_t i = 0; i < major; i++) {
        size_t i1 = (i + 1) % major;
        for (size_t j = 0; j < minor; j++) {
            size_t j1 = (j + 1) % minor;
            /* Around the axis then around the tube: the outward normal. */
            set_quad(triangles, &t, i * minor + j, i1 * minor + j, i1 * minor + j1, i * minor + j1);
        }
    }
    return glcollide_mesh_adopt(positions, vertex_count, triangles, triangle_count, "torus", out);
}

/* ---------------------------------------------------------------- torus knot */

/*
 * The centre line winds p times about z and q times about the core circle of
 * a torus with major radius 2/3 and minor radius 1/3 of `radius`, so it
 * reaches exactly `radius` from the axis. The tube's frame is the torus
 * surface normal n (perpendicular to the tangent because the curve lies on
 * the torus) and b = t x n: periodic with the curve, so the tube closes
 * without a twist.
 */
typedef struct knot_curve {
    int p, q;
    double major, minor;
} knot_curve;

static void knot_point(const knot_curve *k, double s, double point[3], double normal[3],
                       double binormal[3])
{
    double phi = k->p * s, theta = k->q * s;
    double rho = k->major + k->minor * cos(theta);
    point[0] = rho * cos(phi);
    point[1] = rho * sin(phi);
    point[2] = k->minor * sin(theta);
    if (!normal)
        return;
    normal[0] = cos(theta) * cos(phi);
    normal[1] = cos(theta) * sin(phi);
    normal[2] = sin(theta);
    double tangent[3] = {-k->minor * k->q * sin(theta) * cos(phi) - rho * k->p * sin(phi),
                         -k->minor * k->q * sin(theta) * sin(phi) + rho * k->p * cos(phi),
                         k->minor * k->q * cos(theta)};
    double length = sqrt(glcollide_vec3_dot(tangent, tangent));
    for (int c = 0; c < 3; c++)
        tangent[c] /= length;
    glcollide_vec3_cross(binormal, tangent, normal);
}

static int gcd(int a, int b)
{
    while (b) {
        int r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static double distance(const double a[3], const double b[3])
{
    double d[3];
    glcollide_vec3_sub(d, a, b);
    return sqrt(glcollide_vec3_dot(d, d));
}

/*
 * Refuses tubes that would cut into themselves, checked on a fine sampling of
 * the smooth centre line: the radius of curvature must exceed the tube
 * radius, and two points farther apart along the curve than half the tube's
 * circumference must be at least a tube diameter apart (closer points of a
 * curve bending less sharply than the tube are always that far apart).
 */
static int knot_check_tube(const knot_curve *k, double tube_radius)
{
    size_t n = (size_t)(32 * (k->p + k->q));
    n = n < 256 ? 256 : n > 2048 ? 2048 : n;
    double *points = glcollide_alloc_array(n, 3 * sizeof(double));
    double *arc = glcollide_alloc_array(n + 1, sizeof(double));
    if (!points || !arc) {
        free(points);
        free(arc);
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "knot: out of memory");
    }
    for (size_t i = 0; i < n; i++)
        knot_point(k, 2.0 * pi * (double)i / (double)n, points + 3 * i, NULL, NULL);
    arc[0] = 0.0;
    for (size_t i = 0; i < n; i++)
        arc[i + 1] = arc[i] + distance(points + 3 * i, points + 3 * ((i + 1) % n));
    double total = arc[n], closest = INFINITY, sharpest = INFINITY;
    for (size_t i = 0; i < n; i++) {
        /* Circumradius of three consecutive samples. */
        const double *a = points + 3 * ((i + n - 1) % n), *b = points + 3 * i,
                     *c = points + 3 * ((i + 1) % n);
        double ab[3], ac[3], cross[3];
        glcollide_vec3_sub(ab, b, a);
        glcollide_vec3_sub(ac, c, a);
        glcollide_vec3_cross(cross, ab, ac);
        double area2 = sqrt(glcollide_vec3_dot(cross, cross));
        if (area2 > 0.0) {
            double r = distance(a, b) * distance(b, c) * distance(a, c) / (2.0 * area2);
            sharpest = r < sharpest ? r : sharpest;
        }
        for (size_t j = i + 1; j < n; j++) {
            double along = arc[j] - arc[i];
            if (total - along < along)
                along = total - along;
            if (along > pi * tube_radius) {
                double d = distance(points + 3 * i, points + 3 * j);
                closest = d < closest ? d : closest;
            }
        }
    }
    free(points);
    free(arc);
    if (sharpest <= tube_radius)
        return glcollide_fail(
            GLCOLLIDE_ERROR_INVALID_ARGUMENT,
            "knot: tube_radius %g exceeds the centre line's radius of curvature %g", tube_radius,
            sharpest);
    if (closest < 2.0 * tube_radius)
        return glcollide_fail(
            GLCOLLIDE_ERROR_INVALID_ARGUMENT,
            "knot: tube_radius %g too large: strands of the centre line come within %g",
            tube_radius, closest);
    return GLCOLLIDE_OK;
}

int glcollide_mesh_generate_knot(int p, int q, double radius, double tube_radius, int segments,
                                 int tube_segments, glcollide_mesh **out)
{
    int status = positive("knot", "radius", radius);
    if (status == GLCOLLIDE_OK)
        status = positive("knot", "tube_radius", tube_radius);
    if (status < 0)
        return status;
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "knot: out is NULL");
    if (p < 1 || q < 2 || gcd(p, q) != 1)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "knot: need coprime p >= 1 and q >= 2, got (%d, %d)", p, q);
    if (p > INT32_MAX / 3 || segments < 3 * p || tube_segments < 3)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "knot: need segments >= 3 * p and tube_segments >= 3, got %d and %d",
                              segments, tube_segments);
    knot_curve curve = {p, q, radius * (2.0 / 3.0), radius / 3.0};
    status = knot_check_tube(&curve, tube_radius);
    if (status < 0)
        return status;
    size_t along = (size_t)segments, around = (size_t)tube_segments;
    size_t vertex_count = along * around, triangle_count = 2 * along * around;
    double *positions = NULL;
    uint32_t *triangles = NULL;
    status = allocate("knot", vertex_count, triangle_count, &positions, &triangles);
    if (status < 0)
        return status;
    for (size_t i = 0; i < along; i++) {
        double centre[3], normal[3], binormal[3];
        knot_point(&curve, 2.0 * pi * (double)i / (double)along, centre, normal, binormal);
        for (size_t j = 0; j < around; j++) {
            double psi = 2.0 * pi * (double)j / (double)around;
            double c = tube_radius * cos(psi), s = tube_radius * sin(psi);
            set_vertex(positions, i * around + j, centre[0] + c * normal[0] + s * binormal[0],
                       centre[1] + c * normal[1] + s * binormal[1],
                       centre[2] + c * normal[2] + s * binormal[2]);
        }
    }
    size_t t = 0;
    for (size_t i = 0; i < along; i++) {
        size_t i1 = (i + 1) % along;
        for (size_t j = 0; j < around; j++) {
            size_t j1 = (j + 1) % around;
            /* Around the tube (n towards b) then along the tangent: b x t = n points out. */
            set_quad(triangles, &t, i * around + j, i * around + j1, i1 * around + j1,
                     i1 * around + j);
        }
    }
    char name[48];
    snprintf(name, sizeof name, "knot(%d,%d)", p, q);
    return glcollide_mesh_adopt(positions, vertex_count, triangles, triangle_count, name, out);
}
