/* SPDX-License-Identifier: MIT */
/*
 * Particles against analytic colliders with impact feedback (Knott's CInDeR
 * thesis, chapter 3; response as in Real-Time Rendering 17.6.4).
 *
 * One algorithm, written twice: in double here (the CPU reference) and in
 * float in the compute shader below (the GPU path). Per particle and step:
 *
 *   for each generation whose life meets the window (t0 + L, t1 + L]:
 *     replay it from its start: segment = (x, v, a) from time s0;
 *       for each collider: h(s) = f(p(s)) is a polynomial of degree <= 4
 *       (2 for planes or first-order motion); its real roots in (0, S] are
 *       enumerated in ascending order (closed form up to degree 2, else
 *       derivative cascade: the roots of h' split (0, S] into monotone
 *       pieces, each bisected) until one satisfies the constraints;
 *       the earliest over all colliders wins; impacts inside the window are
 *       emitted; elimination ends the replay, a bounce starts a new segment
 *       at the impact with v' = v - (1 + k)(v . n) n. Right after a bounce
 *       the polynomial of the collider just hit has its root at s = 0
 *       divided out (h(s) / s), so the particle never re-hits at s = 0 from
 *       rounding and a bounce needs no epsilon.
 *   the position at t1 comes from the same replay.
 *
 * Emitted impacts are appended to a record buffer (SSBO, atomic counter);
 * the impact map is drawn from those records as one point per impact with
 * additive blending (thesis 3.4: one point primitive per impact, drawn into
 * an offscreen map, channels collider id, time within the frame, speed).
 * The record count heads the buffer as an indirect draw command, so the map
 * draw needs no sync; the count is read once to check for overflow (then
 * the step runs again with room: no impact is lost).
 *
 * Changes to the thesis, and why: any number of bounces per step (a loop,
 * where 2003 vertex programs had room for three); the map holds a count
 * channel (additive blending of the others then gives sums that the count
 * turns into means; the collider id also follows from the tile); the
 * per-particle alternative of 3.5.2 is a record per impact in an SSBO
 * rather than reserved pixels.
 */
#include "gpu/gl_internal.h"
#include "gpu/shaders.h"

#include <glcollide/particles.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLLIDERS 65535
#define MAX_GENERATIONS_PER_STEP 4
#define RECORD_WORDS 12
#define HEADER_WORDS 4
#define GROUP_SIZE 64
#define PI 3.14159265358979323846

/* ------------------------------------------------------------ constructors */

/* A frame from an axis: u, v perpendicular, u x v = w. */
static void frame_from_axis(const double axis[3], double u[3], double v[3])
{
    double w[3] = {axis[0], axis[1], axis[2]};
    glcollide_vec3_normalise(w);
    double helper[3] = {1, 0, 0};
    if (fabs(w[0]) > 0.9) {
        helper[0] = 0;
        helper[1] = 1;
    }
    glcollide_vec3_cross(u, helper, w);
    glcollide_vec3_normalise(u);
    glcollide_vec3_cross(v, w, u);
}

static glcollide_collider collider_base(glcollide_collider_kind kind, const double origin[3])
{
    glcollide_collider c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    memcpy(c.origin, origin, sizeof c.origin);
    for (int k = 0; k < 3; k++) {
        c.bound_min[k] = -INFINITY;
        c.bound_max[k] = INFINITY;
    }
    c.bound_radius = INFINITY;
    c.response = GLCOLLIDE_RESPONSE_ELIMINATE;
    c.restitution = 0.5;
    return c;
}

glcollide_collider glcollide_collider_rectangle(const double centre[3], const double axis_u[3],
                                                const double axis_v[3], double half_u, double half_v)
{
    glcollide_collider c = collider_base(GLCOLLIDE_COLLIDER_PLANE, centre);
    memcpy(c.axis_u, axis_u, sizeof c.axis_u);
    memcpy(c.axis_v, axis_v, sizeof c.axis_v);
    c.bound_min[0] = -half_u;
    c.bound_max[0] = half_u;
    c.bound_min[1] = -half_v;
    c.bound_max[1] = half_v;
    return c;
}

glcollide_collider glcollide_collider_disc(const double centre[3], const double normal[3],
                                           double radius)
{
    glcollide_collider c = collider_base(GLCOLLIDE_COLLIDER_PLANE, centre);
    frame_from_axis(normal, c.axis_u, c.axis_v);
    c.bound_radius = radius;
    return c;
}

/* The box of a constructor's quadric, 1% larger than the surface where the
 * surface itself ends (x and y; z of an ellipsoid): it never cuts the
 * surface there (float noise at a tight bound would), it only serves to
 * cull particles that come nowhere near and to span the map. */
static void loose_box(glcollide_collider *c, double rx, double ry, double z0, double z1)
{
    c->bound_min[0] = -1.01 * rx;
    c->bound_max[0] = 1.01 * rx;
    c->bound_min[1] = -1.01 * ry;
    c->bound_max[1] = 1.01 * ry;
    c->bound_min[2] = z0;
    c->bound_max[2] = z1;
}

glcollide_collider glcollide_collider_ellipsoid(const double centre[3], const double axis[3],
                                                const double radii[3])
{
    glcollide_collider c = collider_base(GLCOLLIDE_COLLIDER_QUADRIC, centre);
    frame_from_axis(axis, c.axis_u, c.axis_v);
    c.quadric[0] = 1.0 / (radii[0] * radii[0]);
    c.quadric[1] = 1.0 / (radii[1] * radii[1]);
    c.quadric[2] = 1.0 / (radii[2] * radii[2]);
    c.quadric[9] = -1.0;
    loose_box(&c, radii[0], radii[1], -1.01 * radii[2], 1.01 * radii[2]);
    return c;
}

glcollide_collider glcollide_collider_cylinder(const double base[3], const double axis[3],
                                               double radius, double height)
{
    glcollide_collider c = collider_base(GLCOLLIDE_COLLIDER_QUADRIC, base);
    frame_from_axis(axis, c.axis_u, c.axis_v);
    c.quadric[0] = c.quadric[1] = 1.0;
    c.quadric[9] = -radius * radius;
    loose_box(&c, radius, radius, 0.0, height);
    return c;
}

glcollide_collider glcollide_collider_cone(const double apex[3], const double axis[3],
                                           double tan_half_angle, double height)
{
    glcollide_collider c = collider_base(GLCOLLIDE_COLLIDER_QUADRIC, apex);
    frame_from_axis(axis, c.axis_u, c.axis_v);
    c.quadric[0] = c.quadric[1] = 1.0;
    c.quadric[2] = -tan_half_angle * tan_half_angle;
    double r = tan_half_angle * height;
    loose_box(&c, r, r, 0.0, height);
    return c;
}

glcollide_collider glcollide_collider_paraboloid(const double vertex[3], const double axis[3],
                                                 double curvature, double height)
{
    glcollide_collider c = collider_base(GLCOLLIDE_COLLIDER_QUADRIC, vertex);
    frame_from_axis(axis, c.axis_u, c.axis_v);
    c.quadric[0] = c.quadric[1] = 1.0;
    c.quadric[8] = -0.5 * curvature; /* 2Iz = -curvature z */
    double r = sqrt(fabs(curvature * height));
    loose_box(&c, r, r, 0.0, height);
    return c;
}

glcollide_collider glcollide_collider_hyperboloid(const double centre[3], const double axis[3],
                                                  double waist, double cz, double half_height)
{
    glcollide_collider c = collider_base(GLCOLLIDE_COLLIDER_QUADRIC, centre);
    frame_from_axis(axis, c.axis_u, c.axis_v);
    c.quadric[0] = c.quadric[1] = 1.0 / (waist * waist);
    c.quadric[2] = -1.0 / (cz * cz);
    c.quadric[9] = -1.0;
    double r = waist * sqrt(1.0 + half_height * half_height / (cz * cz));
    loose_box(&c, r, r, -half_height, half_height);
    return c;
}

/* ------------------------------------------------------------ settings, checks */

glcollide_particles_settings glcollide_particles_default_settings(void)
{
    glcollide_particles_settings s;
    memset(&s, 0, sizeof s);
    s.max_bounces = 16;
    s.map_tile = 128;
    s.time_bits = 8;
    return s;
}

/* Finite, and within 1e15: the GPU's floats (and their squares in the
 * quadric's terms) stay finite. */
#define MAX_MAGNITUDE 1e15

static int all_finite(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!(fabs(v[i]) <= MAX_MAGNITUDE))
            return 0;
    return 1;
}

static int check_settings(const glcollide_particles_settings *s)
{
    if (!all_finite(s->position_jitter, 3) || !all_finite(s->velocity_jitter, 3) ||
        !all_finite(s->origin, 3))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "particles: settings: jitter or origin not finite");
    if (s->max_bounces < 0 || s->max_bounces > 65535) /* 16 bits of a GPU record */
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "particles: settings: max_bounces %d outside 0..65535", s->max_bounces);
    if (s->map_tile < 1 || s->map_tile > 4096)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "particles: settings: map_tile %d outside 1..4096", s->map_tile);
    if (s->time_bits < 1 || s->time_bits > 23)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "particles: settings: time_bits %d outside 1..23", s->time_bits);
    return GLCOLLIDE_OK;
}

static int check_particles(const glcollide_particle *p, size_t count)
{
    if (count && !p)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "particles: particles is NULL");
    if (count >= (size_t)1 << 31)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "particles: %zu particles, at most 2^31 - 1",
                              count);
    for (size_t i = 0; i < count; i++) {
        const glcollide_particle *q = &p[i];
        const char *bad = !all_finite(q->position, 3)       ? "position"
                          : !all_finite(q->velocity, 3)     ? "velocity"
                          : !all_finite(q->acceleration, 3) ? "acceleration"
                          : !all_finite(&q->birth, 1)       ? "birth"
                          : !all_finite(&q->lifetime, 1)    ? "lifetime"
                                                            : NULL;
        if (bad)
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                                  "particles: particle %zu: %s is not finite (or above 1e15)", i, bad);
        if (q->lifetime < 0)
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                                  "particles: particle %zu: lifetime %g is negative", i, q->lifetime);
    }
    return GLCOLLIDE_OK;
}

/* The mapped range of a collider: planes (x, y), quadrics (angle, z). */
static void map_range(const glcollide_collider *c, double lo[2], double hi[2])
{
    if (c->kind == GLCOLLIDE_COLLIDER_PLANE) {
        for (int k = 0; k < 2; k++) {
            lo[k] = fmax(c->bound_min[k], -c->bound_radius);
            hi[k] = fmin(c->bound_max[k], c->bound_radius);
        }
    } else {
        lo[0] = -PI;
        hi[0] = PI;
        lo[1] = c->bound_min[2];
        hi[1] = c->bound_max[2];
    }
}

static int check_colliders(const glcollide_collider *c, size_t count)
{
    if (count && !c)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "particles: colliders is NULL");
    if (count > MAX_COLLIDERS)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "particles: %zu colliders, at most %d", count,
                              MAX_COLLIDERS);
    for (size_t i = 0; i < count; i++) {
        const glcollide_collider *d = &c[i];
        const char *bad = NULL;
        if (d->kind != GLCOLLIDE_COLLIDER_PLANE && d->kind != GLCOLLIDE_COLLIDER_QUADRIC)
            bad = "unknown kind";
        else if (d->response != GLCOLLIDE_RESPONSE_ELIMINATE && d->response != GLCOLLIDE_RESPONSE_BOUNCE)
            bad = "unknown response";
        else if (!all_finite(d->origin, 3) || !all_finite(d->axis_u, 3) || !all_finite(d->axis_v, 3) ||
                 !all_finite(d->quadric, 10))
            bad = "origin, axes or quadric not finite (or above 1e15)";
        else if (isnan(d->bound_radius) || d->bound_radius <= 0 || isnan(d->bound_min[0]) ||
                 isnan(d->bound_min[1]) || isnan(d->bound_min[2]) || isnan(d->bound_max[0]) ||
                 isnan(d->bound_max[1]) || isnan(d->bound_max[2]))
            bad = "bounds NaN or radius not positive";
        else if (!(d->restitution >= 0 && d->restitution <= 1))
            bad = "restitution outside [0, 1]";
        else if (fabs(glcollide_vec3_dot(d->axis_u, d->axis_u) - 1) > 1e-6 ||
                 fabs(glcollide_vec3_dot(d->axis_v, d->axis_v) - 1) > 1e-6 ||
                 fabs(glcollide_vec3_dot(d->axis_u, d->axis_v)) > 1e-6)
            bad = "axes not orthonormal";
        else if (d->kind == GLCOLLIDE_COLLIDER_QUADRIC) {
            int zero = 1;
            for (int k = 0; k < 10; k++)
                zero &= d->quadric[k] == 0;
            if (zero)
                bad = "quadric coefficients all zero";
        }
        if (!bad) {
            for (int k = 0; k < 3; k++)
                if (!(d->bound_min[k] <= d->bound_max[k]))
                    bad = "empty bounds (min > max)";
            double lo[2], hi[2];
            map_range(d, lo, hi);
            if (!bad && !(isfinite(lo[0]) && isfinite(hi[0]) && isfinite(lo[1]) && isfinite(hi[1])))
                bad = d->kind == GLCOLLIDE_COLLIDER_PLANE
                          ? "plane without finite x and y bounds (the impact map needs them)"
                          : "quadric without a finite z range (the impact map needs one)";
            else if (!bad && !(hi[0] > lo[0] && hi[1] > lo[1]))
                bad = "mapped range of zero size";
        }
        if (bad)
            return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "particles: collider %zu: %s", i,
                                  bad);
    }
    return GLCOLLIDE_OK;
}

static int check_step(double t0, double t1, const glcollide_particles_step_options *options)
{
    if (!options)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "particles: options is NULL");
    if (!isfinite(t0) || !isfinite(t1) || t1 < t0)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "particles: step times %g, %g: finite and t0 <= t1 needed", t0, t1);
    if (!(options->lookahead >= 0) || !isfinite(options->lookahead))
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                              "particles: lookahead %g: finite and >= 0 needed", options->lookahead);
    if (options->feedback & ~7)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "particles: unknown feedback bits 0x%x",
                              (unsigned)options->feedback);
    return GLCOLLIDE_OK;
}

/* ------------------------------------------------------------ the CPU twin */

void glcollide_collider_map_coordinates(const glcollide_collider *c, const double local[3],
                                        double uv[2])
{
    double lo[2], hi[2];
    map_range(c, lo, hi);
    double a = c->kind == GLCOLLIDE_COLLIDER_PLANE ? local[0] : atan2(local[1], local[0]);
    double b = c->kind == GLCOLLIDE_COLLIDER_PLANE ? local[1] : local[2];
    uv[0] = fmin(fmax((a - lo[0]) / (hi[0] - lo[0]), 0.0), 1.0);
    uv[1] = fmin(fmax((b - lo[1]) / (hi[1] - lo[1]), 0.0), 1.0);
}

/* The start conditions of generation g: x0, v0 and a jitter from a hash of
 * (particle, generation) that the shader computes bit for bit alike. */
static uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static double jitter_unit(uint32_t particle, uint32_t generation, uint32_t k)
{
    uint32_t h = hash32(hash32(particle) ^ (generation * 0x9E3779B9u + k * 0x85EBCA6Bu));
    return (double)(h >> 8) * (1.0 / 8388608.0) - 1.0; /* [-1, 1), exact in float too */
}

/* A collider prepared for solving: frame rows, quadric as M (3x3), g, J. */
typedef struct prepared {
    double origin[3], frame[3][3]; /* rows u, v, w */
    double m[3][3], g[3], j;
    double bmin[3], bmax[3], radius;
    double cull_min[3], cull_max[3]; /* world box of the bounds; cull = 0 where unbounded */
    int cull;
    int bounce;
    double restitution;
} prepared;

static void prepare_collider(const glcollide_collider *c, prepared *p)
{
    memcpy(p->origin, c->origin, sizeof p->origin);
    memcpy(p->frame[0], c->axis_u, sizeof p->frame[0]);
    memcpy(p->frame[1], c->axis_v, sizeof p->frame[1]);
    glcollide_vec3_cross(p->frame[2], c->axis_u, c->axis_v);
    memset(p->m, 0, sizeof p->m);
    memset(p->g, 0, sizeof p->g);
    p->j = 0;
    if (c->kind == GLCOLLIDE_COLLIDER_PLANE) {
        p->g[2] = 0.5; /* f = z */
    } else {
        const double *q = c->quadric;
        p->m[0][0] = q[0];
        p->m[1][1] = q[1];
        p->m[2][2] = q[2];
        p->m[0][1] = p->m[1][0] = q[3];
        p->m[0][2] = p->m[2][0] = q[4];
        p->m[1][2] = p->m[2][1] = q[5];
        p->g[0] = q[6];
        p->g[1] = q[7];
        p->g[2] = q[8];
        p->j = q[9];
    }
    p->radius = c->bound_radius;
    double lo[3], hi[3];
    p->cull = 1;
    for (int k = 0; k < 3; k++) {
        p->bmin[k] = c->bound_min[k];
        p->bmax[k] = c->bound_max[k];
        lo[k] = c->bound_min[k];
        hi[k] = c->bound_max[k];
        if (k < 2 && isfinite(c->bound_radius)) {
            lo[k] = fmax(lo[k], -c->bound_radius);
            hi[k] = fmin(hi[k], c->bound_radius);
        }
        if (k == 2 && c->kind == GLCOLLIDE_COLLIDER_PLANE) { /* the plane is z = 0 */
            lo[k] = fmax(lo[k], 0.0);
            hi[k] = fmin(hi[k], 0.0);
        }
        if (!isfinite(lo[k]) || !isfinite(hi[k]))
            p->cull = 0;
    }
    if (p->cull) {
        for (int d = 0; d < 3; d++) {
            double centre = p->origin[d], half = 0;
            for (int k = 0; k < 3; k++) {
                centre += p->frame[k][d] * 0.5 * (lo[k] + hi[k]);
                half += fabs(p->frame[k][d]) * 0.5 * (hi[k] - lo[k]);
            }
            half += 1e-9 * (fabs(centre) + half) + 1e-12;
            p->cull_min[d] = centre - half;
            p->cull_max[d] = centre + half;
        }
    }
    p->bounce = c->response == GLCOLLIDE_RESPONSE_BOUNCE;
    p->restitution = c->restitution;
}

static double poly_eval(const double *c, int degree, double s)
{
    double r = c[degree];
    for (int k = degree - 1; k >= 0; k--)
        r = r * s + c[k];
    return r;
}

static int sign_of(double x)
{
    return (x > 0) - (x < 0);
}

/* The piece [l, r] holds a root when the sign changes, or reaches 0 at r. */
static int crosses(double fl, double fr)
{
    return (fl < 0 && fr >= 0) || (fl > 0 && fr <= 0);
}

static double bisect(const double *c, int degree, double l, double r)
{
    int sl = sign_of(poly_eval(c, degree, l));
    for (int i = 0; i < 100; i++) {
        double m = 0.5 * (l + r);
        if (m <= l || m >= r)
            break;
        double fm = poly_eval(c, degree, m);
        if (fm != 0 && sign_of(fm) == sl)
            l = m;
        else
            r = m;
    }
    return r;
}

/* Real roots of c (degree <= 2) in (lo, hi], ascending; closed form, stable. */
static int roots_quadratic(const double *c, int degree, double lo, double hi, double out[2])
{
    double r[2];
    int n = 0;
    if (degree == 1) {
        r[n++] = -c[0] / c[1];
    } else if (degree == 2) {
        double disc = c[1] * c[1] - 4 * c[2] * c[0];
        if (disc < 0)
            return 0;
        double q = -0.5 * (c[1] + (c[1] >= 0 ? sqrt(disc) : -sqrt(disc)));
        if (q == 0) {
            r[n++] = 0; /* c[1] = c[0] = 0: double root at 0 */
        } else {
            double a = q / c[2], b = c[0] / q;
            r[n++] = fmin(a, b);
            r[n++] = fmax(a, b);
        }
    }
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (r[i] > lo && r[i] <= hi)
            out[kept++] = r[i];
    return kept;
}

static int degree_of(const double *c, int degree)
{
    while (degree > 0 && c[degree] == 0)
        degree--;
    return degree;
}

/* Roots of c in (lo, hi], ascending, degree <= 4: closed form up to 2, else
 * the roots of the derivative split the interval into monotone pieces. */
static int roots_in(const double *c, int degree, double lo, double hi, double out[4])
{
    degree = degree_of(c, degree);
    if (degree <= 0)
        return 0; /* constant: zero everywhere (moving in the surface) or never */
    if (degree <= 2)
        return roots_quadratic(c, degree, lo, hi, out);
    double d[4], critical[4];
    for (int k = 1; k <= degree; k++)
        d[k - 1] = k * c[k];
    int nc = roots_in(d, degree - 1, lo, hi, critical);
    int n = 0;
    double l = lo, fl = poly_eval(c, degree, lo);
    for (int i = 0; i <= nc; i++) {
        double r = i < nc ? critical[i] : hi;
        if (r <= l)
            continue;
        double fr = poly_eval(c, degree, r);
        if (crosses(fl, fr))
            out[n++] = bisect(c, degree, l, r);
        l = r;
        fl = fr;
    }
    return n;
}

static void to_local(const prepared *p, const double x[3], double out[3])
{
    double d[3];
    glcollide_vec3_sub(d, x, p->origin);
    for (int k = 0; k < 3; k++)
        out[k] = glcollide_vec3_dot(p->frame[k], d);
}

static void rotate_local(const prepared *p, const double v[3], double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = glcollide_vec3_dot(p->frame[k], v);
}

static void mat_vec(const double m[3][3], const double v[3], double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = m[k][0] * v[0] + m[k][1] * v[1] + m[k][2] * v[2];
}

static int inside_bounds(const prepared *p, const double l[3])
{
    for (int k = 0; k < 3; k++)
        if (!(l[k] >= p->bmin[k] && l[k] <= p->bmax[k]))
            return 0;
    return !isfinite(p->radius) || l[0] * l[0] + l[1] * l[1] <= p->radius * p->radius;
}

/* Can the path x + v s + b s^2, s in [0, S], meet the collider's box? */
static int path_meets_box(const prepared *p, const double x[3], const double v[3], const double b[3],
                          double S)
{
    if (!p->cull)
        return 1;
    for (int d = 0; d < 3; d++) {
        double e = x[d] + S * (v[d] + S * b[d]);
        double lo = fmin(x[d], e), hi = fmax(x[d], e);
        if (b[d] != 0) {
            double s = -v[d] / (2 * b[d]);
            if (s > 0 && s < S) {
                double m = x[d] + s * (v[d] + s * b[d]);
                lo = fmin(lo, m);
                hi = fmax(hi, m);
            }
        }
        if (hi < p->cull_min[d] || lo > p->cull_max[d])
            return 0;
    }
    return 1;
}

/* Earliest impact with collider p in (0, S]: returns the time or -1. */
static double first_hit(const prepared *p, const double x[3], const double v[3], const double b[3],
                        double S, int deflate)
{
    if (!path_meets_box(p, x, v, b, S))
        return -1;
    double xl[3], vl[3], bl[3], mx[3], mv[3], mb[3];
    to_local(p, x, xl);
    rotate_local(p, v, vl);
    rotate_local(p, b, bl);
    mat_vec(p->m, xl, mx);
    mat_vec(p->m, vl, mv);
    mat_vec(p->m, bl, mb);
    double c[5];
    c[4] = glcollide_vec3_dot(bl, mb);
    c[3] = 2 * glcollide_vec3_dot(vl, mb);
    c[2] = glcollide_vec3_dot(vl, mv) + 2 * glcollide_vec3_dot(xl, mb) + 2 * glcollide_vec3_dot(p->g, bl);
    c[1] = 2 * glcollide_vec3_dot(xl, mv) + 2 * glcollide_vec3_dot(p->g, vl);
    c[0] = glcollide_vec3_dot(xl, mx) + 2 * glcollide_vec3_dot(p->g, xl) + p->j;
    const double *poly = c;
    int degree = 4;
    if (deflate) { /* the root at s = 0 of the collider just bounced off, divided out */
        poly = c + 1;
        degree = 3;
    }
    double roots[4];
    int n = roots_in(poly, degree, 0.0, S, roots);
    for (int i = 0; i < n; i++) {
        double s = roots[i], l[3];
        for (int k = 0; k < 3; k++)
            l[k] = xl[k] + s * (vl[k] + s * bl[k]);
        if (inside_bounds(p, l))
            return s;
    }
    return -1;
}

/* The replay of one generation (see the top of the file), shared by the
 * reference step: emits impacts with local times in (wa, wb], returns the
 * position at local time until (alive or not). */
typedef struct replay_out {
    glcollide_particles_result *result;
    const glcollide_collider *colliders;
    double window_start, window_length, generation_start;
    uint32_t particle, generation;
    int emit;
    int status;
} replay_out;

static int emit_impact(replay_out *o, uint32_t collider, uint32_t bounce, double s,
                       const double p[3], const double vel[3], const double n[3], int eliminated,
                       const prepared *pc)
{
    glcollide_particles_result *r = o->result;
    int status = glcollide_array_reserve((void **)&r->impacts, &r->impact_capacity,
                                         r->impact_count + 1, sizeof *r->impacts, "particles");
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_impact *im = &r->impacts[r->impact_count++];
    memset(im, 0, sizeof *im); /* padding too: results compare with memcmp */
    im->particle = o->particle;
    im->collider = collider;
    im->generation = o->generation;
    im->bounce = bounce;
    im->time = o->generation_start + s;
    memcpy(im->position, p, sizeof im->position);
    double l[3];
    to_local(pc, p, l);
    glcollide_collider_map_coordinates(&o->colliders[collider], l, im->map);
    im->speed = sqrt(glcollide_vec3_dot(vel, vel));
    im->normal_speed = fabs(glcollide_vec3_dot(vel, n));
    im->eliminated = eliminated;
    return GLCOLLIDE_OK;
}

static int replay(const prepared *cs, size_t nc, const double x0[3], const double v0[3],
                  const double acc[3], int max_bounces, double until, double wa, double wb,
                  replay_out *out, double position[3])
{
    double x[3], v[3], b[3] = {0.5 * acc[0], 0.5 * acc[1], 0.5 * acc[2]};
    memcpy(x, x0, sizeof x);
    memcpy(v, v0, sizeof v);
    double s0 = 0;
    int last = -1, bounces = 0;
    for (;;) {
        double best = until - s0;
        int hit = -1;
        for (size_t c = 0; c < nc; c++) {
            double s = first_hit(&cs[c], x, v, b, best, (int)c == last);
            if (s >= 0 && (hit < 0 || s < best)) {
                best = s;
                hit = (int)c;
            }
        }
        if (hit < 0)
            break;
        double p[3], vel[3], grad[3], l[3], n[3];
        for (int k = 0; k < 3; k++) {
            p[k] = x[k] + best * (v[k] + best * b[k]);
            vel[k] = v[k] + best * acc[k];
        }
        const prepared *pc = &cs[hit];
        to_local(pc, p, l);
        mat_vec(pc->m, l, grad);
        for (int k = 0; k < 3; k++)
            grad[k] += pc->g[k];
        for (int d = 0; d < 3; d++)
            n[d] = pc->frame[0][d] * grad[0] + pc->frame[1][d] * grad[1] + pc->frame[2][d] * grad[2];
        glcollide_vec3_normalise(n);
        double th = s0 + best;
        int eliminated = !pc->bounce || bounces >= max_bounces;
        if (out && out->emit && th > wa && th <= wb) {
            int status = emit_impact(out, (uint32_t)hit, (uint32_t)bounces, th, p, vel, n, eliminated, pc);
            if (status != GLCOLLIDE_OK)
                return status;
        }
        if (eliminated)
            return 0; /* dead */
        double vn = glcollide_vec3_dot(vel, n);
        for (int k = 0; k < 3; k++) {
            x[k] = p[k];
            v[k] = vel[k] - (1.0 + pc->restitution) * vn * n[k];
        }
        s0 = th;
        last = hit;
        bounces++;
    }
    double s = until - s0;
    if (position)
        for (int k = 0; k < 3; k++)
            position[k] = x[k] + s * (v[k] + s * b[k]);
    return 1;
}

static void generation_start(const glcollide_particle *q, const glcollide_particles_settings *s,
                             uint32_t index, uint32_t g, double x0[3], double v0[3])
{
    for (int k = 0; k < 3; k++) {
        x0[k] = q->position[k] + s->position_jitter[k] * jitter_unit(index, g, (uint32_t)k);
        v0[k] = q->velocity[k] + s->velocity_jitter[k] * jitter_unit(index, g, (uint32_t)k + 3);
    }
}

/* Generation holding time t (birth <= t); lifetime 0: always 0. */
static double generation_of(const glcollide_particle *q, double t)
{
    if (q->lifetime <= 0)
        return 0;
    return floor((t - q->birth) / q->lifetime);
}

static void map_layout(size_t colliders, int tile, int *columns, int *width, int *height)
{
    int c = 1;
    while ((size_t)c * (size_t)c < colliders)
        c++;
    int rows = colliders ? (int)((colliders + (size_t)c - 1) / (size_t)c) : 0;
    *columns = c;
    *width = colliders ? c * tile : 0;
    *height = rows * tile;
}

static int impact_compare(const void *x, const void *y)
{
    const glcollide_impact *a = x, *b = y;
    if (a->particle != b->particle)
        return a->particle < b->particle ? -1 : 1;
    if (a->generation != b->generation)
        return a->generation < b->generation ? -1 : 1;
    if (a->bounce != b->bounce)
        return a->bounce < b->bounce ? -1 : 1;
    return 0;
}

static double quantise_time(double tau, int bits)
{
    double levels = (double)((1u << bits) - 1u);
    return floor(fmin(fmax(tau, 0.0), 1.0) * levels + 0.5) / levels;
}

static int reset_result(glcollide_particles_result *result)
{
    result->impact_count = 0;
    result->position_count = 0;
    result->map_width = result->map_height = result->map_tile = result->map_columns = 0;
    memset(&result->stats, 0, sizeof result->stats);
    return GLCOLLIDE_OK;
}

int glcollide_collider_map_point(const glcollide_collider *c, const double uv[2], double point[3],
                                 double normal[3])
{
    prepared p;
    prepare_collider(c, &p);
    double lo[2], hi[2], l[3];
    map_range(c, lo, hi);
    double a = lo[0] + uv[0] * (hi[0] - lo[0]), b = lo[1] + uv[1] * (hi[1] - lo[1]);
    if (c->kind == GLCOLLIDE_COLLIDER_PLANE) {
        l[0] = a;
        l[1] = b;
        l[2] = 0;
    } else {
        /* On the ray r (cos a, sin a, 0) + (0, 0, b), r >= 0: f is A r^2 + 2 B r + C. */
        double d[3] = {cos(a), sin(a), 0}, z[3] = {0, 0, b}, md[3], mz[3];
        mat_vec(p.m, d, md);
        mat_vec(p.m, z, mz);
        double qa = glcollide_vec3_dot(d, md);
        double qb = glcollide_vec3_dot(d, mz) + glcollide_vec3_dot(p.g, d);
        double qc = glcollide_vec3_dot(z, mz) + 2 * glcollide_vec3_dot(p.g, z) + p.j;
        double r = -1;
        if (qa != 0) {
            double disc = qb * qb - qa * qc;
            if (disc >= 0) {
                double r1 = (-qb - sqrt(disc)) / qa, r2 = (-qb + sqrt(disc)) / qa;
                r = fmin(r1, r2) >= 0 ? fmin(r1, r2) : fmax(r1, r2);
            }
        } else if (qb != 0) {
            r = -qc / (2 * qb);
        }
        if (!(r >= 0))
            return 0;
        l[0] = r * d[0];
        l[1] = r * d[1];
        l[2] = b;
    }
    double grad[3];
    mat_vec(p.m, l, grad);
    for (int k = 0; k < 3; k++)
        grad[k] += p.g[k];
    for (int k = 0; k < 3; k++) {
        point[k] = p.origin[k] + p.frame[0][k] * l[0] + p.frame[1][k] * l[1] + p.frame[2][k] * l[2];
        normal[k] = p.frame[0][k] * grad[0] + p.frame[1][k] * grad[1] + p.frame[2][k] * grad[2];
    }
    glcollide_vec3_normalise(normal);
    return 1;
}

int glcollide_particles_reference_step(const glcollide_particle *particles, size_t particle_count,
                                       const glcollide_collider *colliders, size_t collider_count,
                                       const glcollide_particles_settings *settings, double t0,
                                       double t1, const glcollide_particles_step_options *options,
                                       glcollide_particles_result *result)
{
    if (!result)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "particles: result is NULL");
    reset_result(result);
    double start = glcollide_now_ms();
    glcollide_particles_settings defaults = glcollide_particles_default_settings();
    if (!settings)
        settings = &defaults;
    int status = check_settings(settings);
    if (status == GLCOLLIDE_OK)
        status = check_step(t0, t1, options);
    if (status == GLCOLLIDE_OK)
        status = check_particles(particles, particle_count);
    if (status == GLCOLLIDE_OK)
        status = check_colliders(colliders, collider_count);
    if (status != GLCOLLIDE_OK)
        return status;
    prepared *cs = glcollide_alloc_array(collider_count ? collider_count : 1, sizeof *cs);
    if (!cs)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "particles: out of memory");
    for (size_t c = 0; c < collider_count; c++)
        prepare_collider(&colliders[c], &cs[c]);
    int want_positions = options->feedback & GLCOLLIDE_FEEDBACK_POSITIONS;
    if (want_positions) {
        status =
            glcollide_array_reserve((void **)&result->positions, &result->position_capacity,
                                    4 * particle_count, sizeof *result->positions, "particles");
        result->position_count = particle_count;
    }
    double A = t0 + options->lookahead, B = t1 + options->lookahead;
    for (size_t i = 0; i < particle_count && status == GLCOLLIDE_OK; i++) {
        const glcollide_particle *q = &particles[i];
        double life = q->lifetime;
        replay_out out = {.result = result, .colliders = colliders, .particle = (uint32_t)i, .emit = 1};
        double x0[3], v0[3];
        double *pos = want_positions ? &result->positions[4 * i] : NULL;
        int have_position = 0;
        if (pos)
            pos[0] = pos[1] = pos[2] = pos[3] = 0;
        /* Impacts of the generations whose lives meet (A, B]. */
        if (B > q->birth) {
            double gb = generation_of(q, B), ga = A > q->birth ? generation_of(q, A) : 0;
            if (gb - ga >= MAX_GENERATIONS_PER_STEP)
                ga = gb - (MAX_GENERATIONS_PER_STEP - 1);
            for (double g = ga; g <= gb && status == GLCOLLIDE_OK; g++) {
                double tg = q->birth + g * life;
                double until = life > 0 ? fmin(B - tg, life) : B - tg;
                generation_start(q, settings, (uint32_t)i, (uint32_t)g, x0, v0);
                out.generation = (uint32_t)g;
                out.generation_start = tg;
                /* Without look-ahead the last replay ends at t1: its position is the one asked for. */
                int last = g == gb && t1 == B && pos;
                int r = replay(cs, collider_count, x0, v0, q->acceleration, settings->max_bounces,
                               until, A - tg, B - tg, &out, last ? pos : NULL);
                if (r < 0)
                    status = r;
                if (last && r >= 0) {
                    pos[3] = r == 1;
                    result->stats.alive += r == 1;
                    have_position = 1;
                }
            }
        }
        if (pos && !have_position && status == GLCOLLIDE_OK) {
            if (t1 >= q->birth) {
                double g = generation_of(q, t1), tg = q->birth + g * life;
                generation_start(q, settings, (uint32_t)i, (uint32_t)g, x0, v0);
                int r = replay(cs, collider_count, x0, v0, q->acceleration, settings->max_bounces,
                               t1 - tg, 0, 0, NULL, pos);
                if (r < 0)
                    status = r;
                pos[3] = r == 1;
                result->stats.alive += r == 1;
            }
        }
    }
    free(cs);
    if (status != GLCOLLIDE_OK)
        return status;
    result->stats.impacts = result->impact_count;
    if (result->impact_count)
        qsort(result->impacts, result->impact_count, sizeof *result->impacts, impact_compare);
    if (options->feedback & GLCOLLIDE_FEEDBACK_IMPACT_MAP) {
        int tile = settings->map_tile, columns, width, height;
        map_layout(collider_count, tile, &columns, &width, &height);
        size_t texels = (size_t)width * (size_t)height;
        status = glcollide_array_reserve((void **)&result->impact_map, &result->map_capacity,
                                         4 * texels, sizeof *result->impact_map, "particles");
        if (status != GLCOLLIDE_OK)
            return status;
        if (texels)
            memset(result->impact_map, 0, 4 * texels * sizeof(float));
        result->map_width = width;
        result->map_height = height;
        result->map_tile = tile;
        result->map_columns = columns;
        double length = B - A;
        for (size_t k = 0; k < result->impact_count; k++) {
            const glcollide_impact *im = &result->impacts[k];
            int ix = (int)fmin(floor(im->map[0] * tile), tile - 1);
            int iy = (int)fmin(floor(im->map[1] * tile), tile - 1);
            size_t x = (size_t)((int)(im->collider % (uint32_t)columns) * tile + ix);
            size_t y = (size_t)((int)(im->collider / (uint32_t)columns) * tile + iy);
            float *t = &result->impact_map[4 * (y * (size_t)width + x)];
            double tau = length > 0 ? (im->time - A) / length : 1.0;
            t[0] += 1.0f;
            t[1] += (float)im->collider;
            t[2] += (float)quantise_time(tau, settings->time_bits);
            t[3] += (float)im->speed;
        }
    }
    if (!(options->feedback & GLCOLLIDE_FEEDBACK_RECORDS))
        result->impact_count = 0;
    result->stats.time_ms = glcollide_now_ms() - start;
    return GLCOLLIDE_OK;
}

void glcollide_particles_result_clear(glcollide_particles_result *result)
{
    if (!result)
        return;
    free(result->impacts);
    free(result->impact_map);
    free(result->positions);
    memset(result, 0, sizeof *result);
}

/* ------------------------------------------------------------ the GPU path */

enum { PROGRAM_SOLVE = 0, PROGRAM_MAP, PROGRAM_COUNT };

struct glcollide_particles {
    glcollide_context *context;
    glcollide_particles_settings settings;
    glcollide_particle *particles;
    size_t particle_count;
    glcollide_collider *colliders;
    size_t collider_count;
    double origin[3];
    int uploaded; /* buffers hold the current particles and colliders */
    GLuint programs[PROGRAM_COUNT];
    GLuint vertex_array, particle_buffer, collider_buffer, record_buffer, position_buffer;
    size_t particle_capacity, collider_capacity, record_capacity, position_capacity;
    size_t max_records;
    size_t max_colliders; /* what the uniform block holds */
    GLuint map_texture, framebuffer;
    int map_width, map_height;
};

/* Colliders live in a uniform block (every invocation reads the same ones;
 * llvmpipe reads SSBOs lane by lane): as many as GL_MAX_UNIFORM_BLOCK_SIZE
 * holds at 192 bytes each. A property of the context, as its programs. */
static size_t collider_capacity(void)
{
    GLint block = 0;
    glGetIntegerv(GL_MAX_UNIFORM_BLOCK_SIZE, &block);
    return (size_t)block / 192 < MAX_COLLIDERS ? (size_t)block / 192 : MAX_COLLIDERS;
}

static GLuint build_program(int which)
{
    if (which == PROGRAM_MAP)
        return glcollide_gl_program(
            "particles impact map",
            (const char *const[]){glcollide_shader_particles_map_vertex, NULL},
            (const char *const[]){glcollide_shader_particles_map_fragment, NULL}, NULL);
    char header[96];
    size_t capacity = collider_capacity();
    snprintf(header, sizeof header, "#version 430 core\n#define COLLIDER_CAPACITY %zu\n",
             capacity ? capacity : 1);
    const char *const solve[] = {header, glcollide_shader_particles_solve, NULL};
    return glcollide_gl_program("particles solve", NULL, NULL, solve);
}

/* The programs are the context's, compiled once per context. */
static const glcollide_gl_program_set program_set = {
    {"particles programs", glcollide_gl_programs_release}, PROGRAM_COUNT, build_program};

static void release_gl(glcollide_particles *s)
{
    glDeleteVertexArrays(1, &s->vertex_array);
    GLuint buffers[4] = {s->particle_buffer, s->collider_buffer, s->record_buffer, s->position_buffer};
    glDeleteBuffers(4, buffers);
    glDeleteTextures(1, &s->map_texture);
    glDeleteFramebuffers(1, &s->framebuffer);
}

void glcollide_particles_destroy(glcollide_particles **system)
{
    if (!system || !*system)
        return;
    glcollide_particles *s = *system;
    if (s->context && glcollide_context_make_current(s->context) == GLCOLLIDE_OK)
        release_gl(s);
    free(s->particles);
    free(s->colliders);
    free(s);
    *system = NULL;
}

int glcollide_particles_create(glcollide_context *context,
                               const glcollide_particles_settings *settings,
                               glcollide_particles **out)
{
    if (!out)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "particles: out is NULL");
    glcollide_particles_settings defaults = glcollide_particles_default_settings();
    if (!settings)
        settings = &defaults;
    int status = check_settings(settings);
    if (status != GLCOLLIDE_OK)
        return status;
    if (context && settings->map_tile > context->caps.max_texture_size)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT, "particles: map_tile %d above GL's texture size %d",
                              settings->map_tile, context->caps.max_texture_size);
    glcollide_particles *s = calloc(1, sizeof *s);
    if (!s)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "particles: out of memory");
    s->context = context;
    s->settings = *settings;
    if (context) {
        status = glcollide_context_make_current(context);
        if (status == GLCOLLIDE_OK) {
            s->max_colliders = collider_capacity();
            for (int i = 0; i < PROGRAM_COUNT; i++)
                s->programs[i] = glcollide_context_program(context, &program_set, i);
            glGenVertexArrays(1, &s->vertex_array);
            GLuint buffers[4];
            glGenBuffers(4, buffers);
            s->particle_buffer = buffers[0];
            s->collider_buffer = buffers[1];
            s->record_buffer = buffers[2];
            s->position_buffer = buffers[3];
            glGenFramebuffers(1, &s->framebuffer);
            s->max_records = 1 << 14;
            if (!s->programs[PROGRAM_SOLVE] || !s->programs[PROGRAM_MAP])
                status = GLCOLLIDE_ERROR_GL;
            else
                status = glcollide_gl_check("particles create");
        }
    }
    if (status != GLCOLLIDE_OK) {
        glcollide_particles_destroy(&s);
        return status;
    }
    *out = s;
    return GLCOLLIDE_OK;
}

int glcollide_particles_set_particles(glcollide_particles *system, const glcollide_particle *particles,
                                      size_t count)
{
    if (!system)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "particles: system is NULL");
    int status = check_particles(particles, count);
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_particle *copy = glcollide_alloc_array(count ? count : 1, sizeof *copy);
    if (!copy)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "particles: out of memory");
    if (count)
        memcpy(copy, particles, count * sizeof *copy);
    free(system->particles);
    system->particles = copy;
    system->particle_count = count;
    system->uploaded = 0;
    return GLCOLLIDE_OK;
}

int glcollide_particles_set_colliders(glcollide_particles *system, const glcollide_collider *colliders,
                                      size_t count)
{
    if (!system)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "particles: system is NULL");
    int status = check_colliders(colliders, count);
    if (status != GLCOLLIDE_OK)
        return status;
    if (system->context && count > system->max_colliders)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT,
                              "particles: %zu colliders, this GL's uniform blocks hold %zu", count,
                              system->max_colliders);
    glcollide_collider *copy = glcollide_alloc_array(count ? count : 1, sizeof *copy);
    if (!copy)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "particles: out of memory");
    if (count)
        memcpy(copy, colliders, count * sizeof *copy);
    free(system->colliders);
    system->colliders = copy;
    system->collider_count = count;
    system->uploaded = 0;
    /* The origin: the centre of the bounded colliders' boxes, so that float
     * coordinates are small where impacts happen. */
    if (system->settings.use_origin) {
        memcpy(system->origin, system->settings.origin, sizeof system->origin);
    } else {
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (size_t c = 0; c < count; c++) {
            prepared p;
            prepare_collider(&colliders[c], &p);
            for (int k = 0; k < 3; k++) {
                lo[k] = fmin(lo[k], p.cull ? p.cull_min[k] : p.origin[k]);
                hi[k] = fmax(hi[k], p.cull ? p.cull_max[k] : p.origin[k]);
            }
        }
        for (int k = 0; k < 3; k++)
            system->origin[k] = count ? 0.5 * (lo[k] + hi[k]) : 0.0;
    }
    return GLCOLLIDE_OK;
}

unsigned int glcollide_particles_position_buffer(const glcollide_particles *system)
{
    return system && system->context ? system->position_buffer : 0;
}

void glcollide_particles_origin(const glcollide_particles *system, double origin[3])
{
    for (int k = 0; k < 3; k++)
        origin[k] = system ? system->origin[k] : 0.0;
}

/* Float copies relative to the origin (std430 layouts of the shader). */
static int upload(glcollide_particles *s)
{
    size_t n = s->particle_count, nc = s->collider_count;
    size_t particle_bytes = n * 64, collider_bytes = nc * 12 * 16;
    size_t most = particle_bytes > collider_bytes ? particle_bytes : collider_bytes;
    unsigned char *data = malloc(most ? most : 1);
    if (!data)
        return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "particles: out of memory");
    for (size_t i = 0; i < n; i++) {
        const glcollide_particle *q = &s->particles[i];
        float f[12] = {0};
        for (int k = 0; k < 3; k++) {
            f[k] = (float)(q->position[k] - s->origin[k]);
            f[4 + k] = (float)q->velocity[k];
            f[8 + k] = (float)q->acceleration[k];
        }
        double d[2] = {q->birth, q->lifetime};
        memcpy(data + 64 * i, f, sizeof f);
        memcpy(data + 64 * i + 48, d, sizeof d);
    }
    /* At least a little storage: an SSBO binding needs a buffer. */
    glcollide_gl_buffer_reserve(s->particle_buffer, &s->particle_capacity, particle_bytes + 64);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, s->particle_buffer);
    if (particle_bytes)
        glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)particle_bytes, data);
    glcollide_gl_buffer_reserve(s->position_buffer, &s->position_capacity, n * 16 + 16);
    for (size_t c = 0; c < nc; c++) {
        prepared p;
        prepare_collider(&s->colliders[c], &p);
        double lo[2], hi[2];
        map_range(&s->colliders[c], lo, hi);
        float f[48] = {0};
        for (int k = 0; k < 3; k++) {
            f[k] = (float)(p.origin[k] - s->origin[k]);
            f[4 + k] = (float)p.frame[0][k];
            f[8 + k] = (float)p.frame[1][k];
            f[12 + k] = (float)p.frame[2][k];
            f[28 + k] = (float)fmax(p.bmin[k], -FLT_MAX);
            f[32 + k] = (float)fmin(p.bmax[k], FLT_MAX);
            f[36 + k] = p.cull ? (float)(p.cull_min[k] - s->origin[k]) : 0.0f;
            f[40 + k] = p.cull ? (float)(p.cull_max[k] - s->origin[k]) : 0.0f;
        }
        f[3] = s->colliders[c].kind == GLCOLLIDE_COLLIDER_PLANE ? 0.0f : 1.0f;
        f[16] = (float)p.m[0][0];
        f[17] = (float)p.m[1][1];
        f[18] = (float)p.m[2][2];
        f[19] = (float)p.m[0][1];
        f[20] = (float)p.m[0][2];
        f[21] = (float)p.m[1][2];
        f[22] = (float)p.g[0];
        f[23] = (float)p.g[1];
        f[24] = (float)p.g[2];
        f[25] = (float)p.j;
        f[26] = (float)p.bounce;
        f[27] = (float)p.restitution;
        f[31] = isfinite(p.radius) ? (float)(p.radius * p.radius) : -1.0f;
        f[39] = (float)p.cull;
        /* The cull box in float: grown by a few ulps of its size and place. */
        for (int k = 0; k < 3 && p.cull; k++) {
            float pad = 1e-5f * (fabsf(f[36 + k]) + fabsf(f[40 + k])) + 1e-6f;
            f[36 + k] -= pad;
            f[40 + k] += pad;
        }
        f[44] = (float)lo[0];
        f[45] = (float)(1.0 / (hi[0] - lo[0]));
        f[46] = (float)lo[1];
        f[47] = (float)(1.0 / (hi[1] - lo[1]));
        memcpy(data + 192 * c, f, sizeof f);
    }
    /* The whole declared uniform block is bound, whatever the count. */
    glcollide_gl_buffer_reserve(s->collider_buffer, &s->collider_capacity,
                                (s->max_colliders ? s->max_colliders : 1) * 192);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, s->collider_buffer);
    if (collider_bytes)
        glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)collider_bytes, data);
    free(data);
    int status = glcollide_gl_check("particles upload");
    if (status == GLCOLLIDE_OK)
        s->uploaded = 1;
    return status;
}

static int prepare_map(glcollide_particles *s, int width, int height)
{
    if (s->map_width == width && s->map_height == height)
        return GLCOLLIDE_OK;
    glDeleteTextures(1, &s->map_texture);
    s->map_texture = 0;
    s->map_width = s->map_height = 0;
    if (!width)
        return GLCOLLIDE_OK;
    if (width > s->context->caps.max_texture_size || height > s->context->caps.max_texture_size)
        return glcollide_fail(GLCOLLIDE_ERROR_LIMIT,
                              "particles: impact map %dx%d above GL's texture size %d (fewer colliders "
                              "or a smaller map_tile)", width, height, s->context->caps.max_texture_size);
    glGenTextures(1, &s->map_texture);
    glBindTexture(GL_TEXTURE_2D, s->map_texture);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, width, height);
    glcollide_gl_storage_count((uint64_t)width * (uint64_t)height * 16);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, s->framebuffer);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, s->map_texture, 0);
    GLenum ok = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (ok != GL_FRAMEBUFFER_COMPLETE)
        return glcollide_fail(GLCOLLIDE_ERROR_GL, "particles: impact map framebuffer incomplete (0x%x)",
                              (unsigned)ok);
    s->map_width = width;
    s->map_height = height;
    return glcollide_gl_check("particles impact map");
}

/* One run of the solve pass and the map draw; the record count comes back. */
static int run_gpu(glcollide_particles *s, double A, double B, double T, int want_map,
                   glcollide_particles_result *result, uint32_t *count)
{
    size_t n = s->particle_count;
    size_t record_bytes = (HEADER_WORDS + 4 * 3 * s->max_records) * sizeof(uint32_t);
    glcollide_gl_buffer_reserve(s->record_buffer, &s->record_capacity, record_bytes);
    const GLuint header[HEADER_WORDS] = {0, 1, 0, 0}; /* a DrawArraysIndirectCommand */
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, s->record_buffer);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof header, header);
    if (n) {
        GLint saved_ubo = 0, saved_ubo_generic = 0;
        GLint64 saved_ubo_start = 0, saved_ubo_size = 0;
        GLuint program = s->programs[PROGRAM_SOLVE];
        glUseProgram(program);
        glUniform1d(glGetUniformLocation(program, "window_a"), A);
        glUniform1d(glGetUniformLocation(program, "window_b"), B);
        glUniform1d(glGetUniformLocation(program, "time_t"), T);
        glUniform1ui(glGetUniformLocation(program, "particle_count"), (GLuint)n);
        glUniform1ui(glGetUniformLocation(program, "collider_count"), (GLuint)s->collider_count);
        glUniform1ui(glGetUniformLocation(program, "capacity"), (GLuint)s->max_records);
        glUniform1i(glGetUniformLocation(program, "max_bounces"), s->settings.max_bounces);
        float pj[3], vj[3];
        for (int k = 0; k < 3; k++) {
            pj[k] = (float)s->settings.position_jitter[k];
            vj[k] = (float)s->settings.velocity_jitter[k];
        }
        glUniform3fv(glGetUniformLocation(program, "position_jitter"), 1, pj);
        glUniform3fv(glGetUniformLocation(program, "velocity_jitter"), 1, vj);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, s->particle_buffer);
        glGetIntegeri_v(GL_UNIFORM_BUFFER_BINDING, 1, &saved_ubo);
        glGetInteger64i_v(GL_UNIFORM_BUFFER_START, 1, &saved_ubo_start);
        glGetInteger64i_v(GL_UNIFORM_BUFFER_SIZE, 1, &saved_ubo_size);
        glGetIntegerv(GL_UNIFORM_BUFFER_BINDING, &saved_ubo_generic);
        glBindBufferRange(GL_UNIFORM_BUFFER, 1, s->collider_buffer, 0,
                          (GLsizeiptr)((s->max_colliders ? s->max_colliders : 1) * 192));
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, s->record_buffer);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, s->position_buffer);
        size_t groups = (n + GROUP_SIZE - 1) / GROUP_SIZE;
        size_t gx = groups < 65535 ? groups : 65535, gy = (groups + gx - 1) / gx;
        glDispatchCompute((GLuint)gx, (GLuint)gy, 1);
        result->stats.draw_calls++;
        /* The uniform buffer bindings are not among the saved GL state. */
        if (saved_ubo_size > 0)
            glBindBufferRange(GL_UNIFORM_BUFFER, 1, (GLuint)saved_ubo, (GLintptr)saved_ubo_start,
                              (GLsizeiptr)saved_ubo_size);
        else
            glBindBufferBase(GL_UNIFORM_BUFFER, 1, (GLuint)saved_ubo);
        glBindBuffer(GL_UNIFORM_BUFFER, (GLuint)saved_ubo_generic);
    }
    if (want_map && s->map_width) {
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT);
        glBindFramebuffer(GL_FRAMEBUFFER, s->framebuffer);
        const GLfloat zero[4] = {0, 0, 0, 0};
        glClearBufferfv(GL_COLOR, 0, zero);
        glViewport(0, 0, s->map_width, s->map_height);
        if (n) {
            GLint src_rgb, dst_rgb, src_alpha, dst_alpha, eq_rgb, eq_alpha;
            glGetIntegerv(GL_BLEND_SRC_RGB, &src_rgb);
            glGetIntegerv(GL_BLEND_DST_RGB, &dst_rgb);
            glGetIntegerv(GL_BLEND_SRC_ALPHA, &src_alpha);
            glGetIntegerv(GL_BLEND_DST_ALPHA, &dst_alpha);
            glGetIntegerv(GL_BLEND_EQUATION_RGB, &eq_rgb);
            glGetIntegerv(GL_BLEND_EQUATION_ALPHA, &eq_alpha);
            glEnable(GL_BLEND);
            glBlendEquation(GL_FUNC_ADD);
            glBlendFunc(GL_ONE, GL_ONE); /* coincident impacts add up (thesis 3.4.3) */
            GLuint program = s->programs[PROGRAM_MAP];
            glUseProgram(program);
            glUniform1ui(glGetUniformLocation(program, "capacity"), (GLuint)s->max_records);
            glUniform1i(glGetUniformLocation(program, "tile"), s->settings.map_tile);
            int columns, width, height;
            map_layout(s->collider_count, s->settings.map_tile, &columns, &width, &height);
            glUniform1i(glGetUniformLocation(program, "columns"), columns);
            glUniform2f(glGetUniformLocation(program, "map_size"), (float)width, (float)height);
            glUniform1f(glGetUniformLocation(program, "levels"),
                        (float)((1u << s->settings.time_bits) - 1u));
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, s->record_buffer);
            glBindBuffer(GL_DRAW_INDIRECT_BUFFER, s->record_buffer);
            glBindVertexArray(s->vertex_array);
            glDrawArraysIndirect(GL_POINTS, NULL); /* one point per impact, count from the GPU */
            result->stats.draw_calls++;
            glBlendFuncSeparate((GLenum)src_rgb, (GLenum)dst_rgb, (GLenum)src_alpha, (GLenum)dst_alpha);
            glBlendEquationSeparate((GLenum)eq_rgb, (GLenum)eq_alpha);
            glDisable(GL_BLEND);
        }
    }
    /* Sync: the record count (overflow check; also the impact count). */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, s->record_buffer);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, 4, count);
    result->stats.gpu_syncs++;
    result->stats.readback_bytes += 4;
    return glcollide_gl_check("particles step");
}

static int step_gpu(glcollide_particles *s, double t0, double t1,
                    const glcollide_particles_step_options *options,
                    glcollide_particles_result *result)
{
    int status = glcollide_context_make_current(s->context);
    if (status != GLCOLLIDE_OK)
        return status;
    glcollide_gl_state saved;
    glcollide_gl_state_save(&saved);
    glcollide_gl_state_reset();
    int feedback = options->feedback;
    int want_map = feedback & GLCOLLIDE_FEEDBACK_IMPACT_MAP;
    double A = t0 + options->lookahead, B = t1 + options->lookahead;
    size_t n = s->particle_count;
    uint32_t count = 0;
    float *staging = NULL;
    if (!s->uploaded)
        status = upload(s);
    int columns = 0, width = 0, height = 0;
    map_layout(s->collider_count, s->settings.map_tile, &columns, &width, &height);
    if (status == GLCOLLIDE_OK && want_map)
        status = prepare_map(s, width, height);
    if (status == GLCOLLIDE_OK)
        status = run_gpu(s, A, B, t1, want_map, result, &count);
    if (status == GLCOLLIDE_OK && count > s->max_records) {
        /* More impacts than room: grow, and run again (deterministic, so
         * the count is the same): no impact is lost. */
        s->max_records = (size_t)count + count / 4;
        result->stats.reruns++;
        status = run_gpu(s, A, B, t1, want_map, result, &count);
        if (status == GLCOLLIDE_OK && count > s->max_records)
            status = glcollide_fail(GLCOLLIDE_ERROR_GL, "particles: %u impacts after growing to %zu",
                                    count, s->max_records);
    }
    result->stats.impacts = count;
    if (status == GLCOLLIDE_OK && (feedback & GLCOLLIDE_FEEDBACK_RECORDS) && count) {
        size_t words = (size_t)count * RECORD_WORDS;
        uint32_t *records = glcollide_alloc_array(words, sizeof *records);
        if (!records)
            status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "particles: out of memory");
        if (status == GLCOLLIDE_OK)
            status = glcollide_array_reserve((void **)&result->impacts, &result->impact_capacity,
                                             count, sizeof *result->impacts, "particles");
        if (status == GLCOLLIDE_OK) {
            glBindBuffer(GL_SHADER_STORAGE_BUFFER, s->record_buffer);
            glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, HEADER_WORDS * 4, (GLsizeiptr)(words * 4), records);
            result->stats.gpu_syncs++;
            result->stats.readback_bytes += words * 4;
            double length = B - A;
            for (uint32_t r = 0; r < count; r++) {
                const uint32_t *w = records + (size_t)r * RECORD_WORDS;
                float f[8];
                memcpy(f, w + 4, sizeof f);
                glcollide_impact *im = &result->impacts[r];
                memset(im, 0, sizeof *im);
                im->particle = w[0];
                im->collider = w[1] & 0xffffu;
                im->bounce = w[1] >> 16;
                im->generation = w[2];
                im->eliminated = (int)w[3];
                for (int k = 0; k < 3; k++)
                    im->position[k] = (double)f[k] + s->origin[k];
                im->time = A + (double)f[3] * length;
                im->map[0] = f[4];
                im->map[1] = f[5];
                im->speed = f[6];
                im->normal_speed = f[7];
            }
            result->impact_count = count;
            qsort(result->impacts, count, sizeof *result->impacts, impact_compare);
        }
        free(records);
    }
    if (status == GLCOLLIDE_OK && want_map) {
        size_t texels = (size_t)width * (size_t)height;
        status = glcollide_array_reserve((void **)&result->impact_map, &result->map_capacity,
                                         4 * texels, sizeof *result->impact_map, "particles");
        if (status == GLCOLLIDE_OK && texels) {
            glBindFramebuffer(GL_READ_FRAMEBUFFER, s->framebuffer);
            glReadBuffer(GL_COLOR_ATTACHMENT0);
            glReadPixels(0, 0, width, height, GL_RGBA, GL_FLOAT, result->impact_map);
            result->stats.gpu_syncs++;
            result->stats.readback_bytes += texels * 16;
        }
        result->map_width = width;
        result->map_height = height;
        result->map_tile = s->settings.map_tile;
        result->map_columns = columns;
    }
    if (status == GLCOLLIDE_OK && (feedback & GLCOLLIDE_FEEDBACK_POSITIONS)) {
        status = glcollide_array_reserve((void **)&result->positions, &result->position_capacity,
                                         4 * n, sizeof *result->positions, "particles");
        if (status == GLCOLLIDE_OK && n && !(staging = glcollide_alloc_array(n, 4 * sizeof(float))))
            status = glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY, "particles: out of memory");
        if (status == GLCOLLIDE_OK && n) {
            glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
            glBindBuffer(GL_SHADER_STORAGE_BUFFER, s->position_buffer);
            glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(n * 16), staging);
            result->stats.gpu_syncs++;
            result->stats.readback_bytes += n * 16;
            for (size_t i = 0; i < n; i++) {
                int alive = staging[4 * i + 3] != 0;
                for (int k = 0; k < 3; k++) /* 0 where not alive, as the reference */
                    result->positions[4 * i + k] = alive ? (double)staging[4 * i + k] + s->origin[k] : 0.0;
                result->positions[4 * i + 3] = alive;
                result->stats.alive += staging[4 * i + 3] != 0;
            }
        }
        result->position_count = n;
    }
    free(staging);
    if (status == GLCOLLIDE_OK)
        status = glcollide_gl_check("particles readback");
    glcollide_gl_state_restore(&saved);
    return status;
}

int glcollide_particles_step(glcollide_particles *system, double t0, double t1,
                             const glcollide_particles_step_options *options,
                             glcollide_particles_result *result)
{
    if (!result)
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "particles: result is NULL");
    if (!system) {
        reset_result(result);
        return glcollide_fail(GLCOLLIDE_ERROR_INVALID_ARGUMENT, "particles: system is NULL");
    }
    if (!system->context)
        return glcollide_particles_reference_step(system->particles, system->particle_count,
                                                  system->colliders, system->collider_count,
                                                  &system->settings, t0, t1, options, result);
    reset_result(result);
    int status = check_step(t0, t1, options);
    if (status != GLCOLLIDE_OK)
        return status;
    double start = glcollide_now_ms();
    status = step_gpu(system, t0, t1, options, result);
    if (status != GLCOLLIDE_OK)
        return status;
    result->stats.time_ms = glcollide_now_ms() - start;
    return GLCOLLIDE_OK;
}
