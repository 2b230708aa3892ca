/* SPDX-License-Identifier: MIT */
/*
 * Particles against analytic colliders (Knott's CInDeR, chapter 3): the CPU
 * reference (and the GPU, run beside it) against analytic answers: fall
 * times, bounce series, ray hits on every quadric, constraints, the map's
 * round trip, regeneration, several generations in one step, and the
 * defined behaviour of bad or empty input. The GPU against the reference on
 * random rain is in test_particles_gpu.c.
 */
#include "gpu/particles_scene.h"
#include "helpers/tests.h"

#include "gpu/gl_internal.h"

#include <glcollide/particles.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ analytic answers */

/* One step with records (and positions) on the reference and, when a
 * context is given, on the GPU. */
static void step_both(const glcollide_particle *p, size_t n, const glcollide_collider *c, size_t nc,
                      const glcollide_particles_settings *settings, double t0, double t1,
                      glcollide_particles_result *ref, glcollide_particles_result *gpu)
{
    glcollide_particles_step_options options = {
        GLCOLLIDE_FEEDBACK_RECORDS | GLCOLLIDE_FEEDBACK_POSITIONS, 0};
    ck_assert_int_eq(glcollide_particles_reference_step(p, n, c, nc, settings, t0, t1, &options, ref),
                     GLCOLLIDE_OK);
    glcollide_particles *system = NULL;
    ck_assert_int_eq(glcollide_particles_create(particles_context, settings, &system),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_particles_set_colliders(system, c, nc), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_particles_set_particles(system, p, n), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_particles_step(system, t0, t1, &options, gpu), GLCOLLIDE_OK);
    glcollide_particles_destroy(&system);
}

/* The first impact of particle i: collider and time, within tolerances
 * for the reference (1e-9) and the GPU (1e-5 relative to the time). */
static void expect_hit(const glcollide_particles_result *r, double tolerance, uint32_t particle,
                       uint32_t collider, double time, const char *what)
{
    for (size_t k = 0; k < r->impact_count; k++) {
        const glcollide_impact *im = &r->impacts[k];
        if (im->particle != particle)
            continue;
        ck_assert_msg(im->collider == collider && fabs(im->time - time) <= tolerance * fmax(1, time),
                      "%s: collider %u at %.9f, expected %u at %.9f", what, im->collider, im->time,
                      collider, time);
        return;
    }
    ck_abort_msg("%s: no impact, expected collider %u at %.9f", what, collider, time);
}

static void expect_no_hit(const glcollide_particles_result *r, uint32_t particle, const char *what)
{
    for (size_t k = 0; k < r->impact_count; k++)
        ck_assert_msg(r->impacts[k].particle != particle, "%s: impact with collider %u at %.9f", what,
                      r->impacts[k].collider, r->impacts[k].time);
}

START_TEST(test_analytic_hits)
{
    context_setup();
    const double ez[3] = {0, 0, 1}, ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0};
    glcollide_collider c[16];
    size_t nc = 0;
    /* Each collider far from the others (along x), each probed by rays. */
    double o0[3] = {0, 0, 0};
    c[nc++] = glcollide_collider_rectangle(o0, ex, ey, 1, 1); /* 0: z = 0 */
    double o1[3] = {10, 0, 0}, r1[3] = {1.5, 1.5, 0.5};
    c[nc++] = glcollide_collider_ellipsoid(o1, ez, r1); /* 1 */
    double o2[3] = {20, 0, 0};
    c[nc++] = glcollide_collider_cylinder(o2, ez, 0.5, 2.0); /* 2 */
    double o3[3] = {30, 0, 0};
    c[nc++] = glcollide_collider_cone(o3, ez, 1.0, 2.0); /* 3 */
    double o4[3] = {40, 0, 0};
    c[nc++] = glcollide_collider_paraboloid(o4, ez, 1.0, 4.0); /* 4 */
    double o5[3] = {50, 0, 0};
    c[nc++] = glcollide_collider_hyperboloid(o5, ez, 1.0, 1.0, 2.0); /* 5 */
    double o6[3] = {60, 0, 1};
    c[nc++] = glcollide_collider_disc(o6, ez, 1.0); /* 6 */
    double o7[3] = {70, 0, 2}, o8[3] = {70, 0, 1};
    c[nc++] = glcollide_collider_rectangle(o7, ex, ey, 1, 1); /* 7: above 8 */
    c[nc++] = glcollide_collider_rectangle(o8, ex, ey, 1, 1); /* 8 */
    double o9[3] = {80, 0, 0}, r9[3] = {1, 1, 1};
    c[nc++] = glcollide_collider_ellipsoid(o9, ez, r9); /* 9: unit sphere */
    const double g = 9.81;
    glcollide_particle p[16];
    memset(p, 0, sizeof p);
    size_t n = 0;
#define RAY(px, py, pz, vx, vy, vz)                                                                \
    do {                                                                                           \
        glcollide_particle q = {{px, py, pz}, {vx, vy, vz}, {0, 0, 0}, 0, 0};                      \
        p[n++] = q;                                                                                \
    } while (0)
    glcollide_particle fall = {{0.3, 0.2, 5}, {0, 0, 0}, {0, 0, -g}, 0, 0};
    p[n++] = fall;                      /* 0: free fall onto the ground: sqrt(2h/g) */
    RAY(10, 0, 10, 0, 0, -2);           /* 1: ellipsoid top z = 0.5 at (10 - 0.5) / 2 */
    RAY(7, 0, 0, 1, 0, 0);              /* 2: ellipsoid side x = 8.5 at 1.5 */
    RAY(17, 0, 1, 1, 0, 0);             /* 3: cylinder x = 19.5 at 2.5 */
    RAY(17, 0, 2.5, 1, 0, 0);           /* 4: above the cylinder's cap: no hit */
    RAY(20, 0, 1, 0, 1, 0);             /* 5: inside the cylinder, out at 0.5 */
    RAY(25, 0, 1, 1, 0, 0);             /* 6: cone x = 29 (radius 1 at z = 1) at 4 */
    RAY(41, 0, 10, 0, 0, -1);           /* 7: paraboloid z = 1 at 9 */
    RAY(45, 0, 1, 1, 0, 0);             /* 8: hyperboloid x = 50 - sqrt 2 at 5 - sqrt 2 */
    RAY(60.5, 0, 3, 0, 0, -1);          /* 9: disc at 2 */
    RAY(61.5, 0, 3, 0, 0, -1);          /* 10: outside the disc: no hit */
    RAY(70, 0.5, 5, 0, 0, -1);          /* 11: the upper of two rectangles first: 3 */
    glcollide_particle onto_sphere = {{80, 0, 5}, {0, 0, 0}, {0, 0, -g}, 0, 0};
    p[n++] = onto_sphere;               /* 12: second order onto a quadric (quartic) */
    glcollide_particle arc = {{77, 0, 0}, {3, 0, 3}, {0, 0, -g}, 0, 0};
    p[n++] = arc;                       /* 13: an arc into the sphere: checked on the surface */
    RAY(1.5, 0, 1, 0, 0, -1);           /* 14: beside the ground rectangle: no hit */
#undef RAY
    glcollide_particles_result ref = {0}, gpu = {0};
    step_both(p, n, c, nc, NULL, 0, 12, &ref, &gpu);
    for (int side = 0; side < 2; side++) {
        const glcollide_particles_result *r = side ? &gpu : &ref;
        double tol = side ? 1e-5 : 1e-9;
        expect_hit(r, tol, 0, 0, sqrt(2 * 5 / g), "free fall");
        expect_hit(r, tol, 1, 1, 4.75, "ellipsoid top");
        expect_hit(r, tol, 2, 1, 1.5, "ellipsoid side");
        expect_hit(r, tol, 3, 2, 2.5, "cylinder");
        expect_no_hit(r, 4, "above the cylinder");
        expect_hit(r, tol, 5, 2, 0.5, "inside the cylinder");
        expect_hit(r, tol, 6, 3, 4.0, "cone");
        expect_hit(r, tol, 7, 4, 9.0, "paraboloid");
        expect_hit(r, tol, 8, 5, 5 - sqrt(2.0), "hyperboloid");
        expect_hit(r, tol, 9, 6, 2.0, "disc");
        expect_no_hit(r, 10, "outside the disc");
        expect_hit(r, tol, 11, 7, 3.0, "earliest of two");
        expect_hit(r, tol, 12, 9, sqrt(2 * 4 / g), "falling onto the sphere");
        expect_no_hit(r, 14, "beside the rectangle");
        /* The arc: its impact lies on the sphere, and the path stays
         * outside before it (sampled every 1e-4 s). */
        const glcollide_impact *hit = NULL;
        for (size_t k = 0; k < r->impact_count; k++)
            if (r->impacts[k].particle == 13)
                hit = &r->impacts[k];
        ck_assert_ptr_nonnull(hit);
        ck_assert_uint_eq(hit->collider, 9);
        double d[3] = {hit->position[0] - 80, hit->position[1], hit->position[2]};
        ck_assert_msg(fabs(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - 1) < (side ? 1e-5 : 1e-12),
                      "arc impact off the sphere");
        for (double t = 0; t < hit->time - 1e-4; t += 1e-4) {
            double x = 77 + 3 * t - 80, z = 3 * t - 0.5 * g * t * t;
            ck_assert_msg(x * x + z * z > 1, "arc inside the sphere at %g before its impact", t);
        }
    }
    glcollide_particles_result_clear(&ref);
    glcollide_particles_result_clear(&gpu);
}
END_TEST

/* The map's parameterisation and its inverse: for every collider of the
 * scene, map points lie on the surface (f = 0 to 1e-9 of the quadric's
 * scale) and map back to their (u, v). */
START_TEST(test_map_round_trip)
{
    glcollide_collider c[16];
    size_t nc = scene_colliders(c);
    test_rng rng = {0x3A9A11ull};
    size_t tried = 0, on_surface = 0;
    for (size_t k = 0; k < nc; k++) {
        for (int i = 0; i < 500; i++) {
            double uv[2] = {test_rng_uniform(&rng, 0.001, 0.999), test_rng_uniform(&rng, 0.001, 0.999)};
            double p[3], n[3], l[3], back[2];
            tried++;
            if (!glcollide_collider_map_point(&c[k], uv, p, n))
                continue; /* beyond an ellipsoid's or hyperboloid's z extent */
            on_surface++;
            for (int d = 0; d < 3; d++)
                l[d] = local_coordinate(&c[k], p, d);
            const double *q = c[k].quadric;
            double f = c[k].kind == GLCOLLIDE_COLLIDER_PLANE
                           ? l[2]
                           : q[0] * l[0] * l[0] + q[1] * l[1] * l[1] + q[2] * l[2] * l[2] +
                                 2 * (q[3] * l[0] * l[1] + q[4] * l[0] * l[2] + q[5] * l[1] * l[2] +
                                      q[6] * l[0] + q[7] * l[1] + q[8] * l[2]) + q[9];
            ck_assert_msg(fabs(f) < 1e-9, "collider %zu: f = %g at map (%g, %g)", k, f, uv[0], uv[1]);
            ck_assert_msg(fabs(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1) < 1e-12, "normal length");
            glcollide_collider_map_coordinates(&c[k], l, back);
            ck_assert_msg(fabs(back[0] - uv[0]) < 1e-9 && fabs(back[1] - uv[1]) < 1e-9,
                          "collider %zu: (%g, %g) maps back to (%g, %g)", k, uv[0], uv[1], back[0], back[1]);
        }
    }
    ck_assert_msg(on_surface > tried * 3 / 4, "%zu of %zu map points on the surface", on_surface, tried);
}
END_TEST

/* Bounces: a ball dropped from h with restitution k hits at t0 = sqrt(2h/g)
 * with speed v0 = g t0, then every 2 k^j v0 / g later with speed k^j v0;
 * after max_bounces bounces the next impact eliminates it. */
START_TEST(test_bounce_series)
{
    context_setup();
    const double ez[3] = {0, 0, 1}, ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, o[3] = {0, 0, 0};
    (void)ez;
    glcollide_collider ground = glcollide_collider_rectangle(o, ex, ey, 1, 1);
    ground.response = GLCOLLIDE_RESPONSE_BOUNCE;
    ground.restitution = 0.6;
    const double g = 9.81, h = 2.0;
    glcollide_particle ball = {{0.1, 0.1, h}, {0, 0, 0}, {0, 0, -g}, 0, 0};
    glcollide_particles_settings settings = glcollide_particles_default_settings();
    settings.max_bounces = 5;
    glcollide_particles_result ref = {0}, gpu = {0};
    step_both(&ball, 1, &ground, 1, &settings, 0, 10, &ref, &gpu);
    for (int side = 0; side < 2; side++) {
        const glcollide_particles_result *r = side ? &gpu : &ref;
        ck_assert_uint_eq(r->impact_count, 6);
        double t = sqrt(2 * h / g), v = g * t;
        for (uint32_t j = 0; j < 6; j++) {
            const glcollide_impact *im = &r->impacts[j];
            double tol = side ? 1e-5 : 1e-9;
            ck_assert_msg(im->bounce == j && fabs(im->time - t) < tol && fabs(im->speed - v) < tol * 10 &&
                              fabs(im->normal_speed - v) < tol * 10,
                          "%s bounce %u: t %.9f speed %.9f, expected %.9f %.9f", side ? "gpu" : "ref",
                          j, im->time, im->speed, t, v);
            ck_assert_int_eq(im->eliminated, j == 5);
            t += 2 * 0.6 * v / g;
            v *= 0.6;
        }
        ck_assert_double_eq(r->positions[3], 0.0); /* eliminated by then */
    }
    /* Several bounces inside one step of 1/60 s: the tail of the series. */
    settings.max_bounces = 100;
    /* The series ends at 0.6386 + 1.916 s: bounces 10 and on fall in (2.54, 2.54 + 1/60]. */
    step_both(&ball, 1, &ground, 1, &settings, 2.54, 2.54 + 1.0 / 60, &ref, &gpu);
    for (int side = 0; side < 2; side++) {
        const glcollide_particles_result *r = side ? &gpu : &ref;
        ck_assert_msg(r->impact_count >= 20, "%zu bounces in the step", r->impact_count);
        for (size_t j = 1; j < r->impact_count; j++)
            ck_assert(r->impacts[j].bounce == r->impacts[j - 1].bounce + 1 &&
                      r->impacts[j].time >= r->impacts[j - 1].time);
    }
    printf("particles: a ball with restitution 0.6 bounces %zu times (reference) and %zu times (gpu) "
           "in the 1/60 s step before its series ends\n", ref.impact_count, gpu.impact_count);
    glcollide_particles_result_clear(&ref);
    glcollide_particles_result_clear(&gpu);
}
END_TEST

/* Defined behaviour: starting inside a closed collider, behind a plane,
 * on a surface, before birth; no colliders; no particles. */
START_TEST(test_edge_cases)
{
    context_setup();
    const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1}, o[3] = {0, 0, 0};
    glcollide_collider c[2];
    c[0] = glcollide_collider_rectangle(o, ex, ey, 2, 2);
    double centre[3] = {10, 0, 0}, radii[3] = {2, 2, 1};
    c[1] = glcollide_collider_ellipsoid(centre, ez, radii);
    glcollide_particle p[6] = {
        {{10, 0, 0.5}, {0, 0, 1}, {0, 0, 0}, 0, 0},  /* inside the ellipsoid: out through z = 1 at 0.5 */
        {{0, 0, -1}, {0, 0, -1}, {0, 0, 0}, 0, 0},  /* behind the plane, moving away: never */
        {{0, 0, -1}, {0, 0, 2}, {0, 0, 0}, 0, 0},   /* behind, moving towards: at 0.5 (two-sided) */
        {{0.5, 0, 0}, {0, 0, 1}, {0, 0, 0}, 0, 0},  /* born on the plane, leaving: no impact */
        {{1, 1, 1}, {0, 0, -1}, {0, 0, 0}, 5, 0},   /* born at t = 5: not alive at 1 */
        {{1, 1, 1}, {0, 0, -1}, {0, 0, 0}, 0.5, 0}, /* born at 0.5: hits at 1.5 */
    };
    glcollide_particles_result ref = {0}, gpu = {0};
    step_both(p, 6, c, 2, NULL, 0, 1, &ref, &gpu);
    for (int side = 0; side < 2; side++) {
        const glcollide_particles_result *r = side ? &gpu : &ref;
        double tol = side ? 1e-5 : 1e-9;
        expect_hit(r, tol, 0, 1, 0.5, "from inside");
        expect_no_hit(r, 1, "behind, away");
        expect_hit(r, tol, 2, 0, 0.5, "from behind");
        expect_no_hit(r, 3, "born on the surface");
        expect_no_hit(r, 4, "not born");
        expect_no_hit(r, 5, "born later, hits after the step");
        ck_assert_double_eq(r->positions[4 * 4 + 3], 0.0);
        ck_assert_double_eq(r->positions[4 * 5 + 3], 1.0);
        ck_assert_msg(fabs(r->positions[4 * 5 + 2] - 0.5) < tol, "position after birth");
        ck_assert_uint_eq(r->stats.alive, 3); /* 1 and 3 fly on, 5 is falling; 0 and 2 were eliminated */
    }
    /* No colliders: closed-form flight, no impacts, an empty map. */
    glcollide_particle thrown = {{1, 2, 3}, {1, 0, 2}, {0, 0, -9.81}, 0, 0};
    glcollide_particles_step_options all = {7, 0};
    glcollide_particles *system = NULL;
    ck_assert_int_eq(glcollide_particles_create(particles_context, NULL, &system), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_particles_set_particles(system, &thrown, 1), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_particles_step(system, 0, 2, &all, &gpu), GLCOLLIDE_OK);
    ck_assert_uint_eq(gpu.stats.impacts, 0);
    ck_assert_int_eq(gpu.map_width * gpu.map_height, 0);
    ck_assert_msg(fabs(gpu.positions[0] - 3) < 1e-5 && fabs(gpu.positions[1] - 2) < 1e-5 &&
                      fabs(gpu.positions[2] - (3 + 4 - 2 * 9.81)) < 1e-4 && gpu.positions[3] == 1,
                  "free flight: %g %g %g", gpu.positions[0], gpu.positions[1], gpu.positions[2]);
    /* No particles: nothing to do, an empty map of the colliders' size. */
    ck_assert_int_eq(glcollide_particles_set_colliders(system, c, 2), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_particles_set_particles(system, NULL, 0), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_particles_step(system, 0, 1, &all, &gpu), GLCOLLIDE_OK);
    ck_assert_uint_eq(gpu.stats.impacts, 0);
    ck_assert_uint_eq(gpu.position_count, 0);
    ck_assert_int_eq(gpu.map_width, 2 * 128);
    for (int k = 0; k < gpu.map_width * gpu.map_height * 4; k++)
        ck_assert_float_eq(gpu.impact_map[k], 0.0f);
    /* Bad input: one message, the system keeps what it had. */
    glcollide_particle bad[2] = {thrown, thrown};
    bad[1].velocity[1] = NAN;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_particles_set_particles(system, bad, 2);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "particles: particle 1: velocity is not finite (or above 1e15)");
    bad[1].velocity[1] = 0;
    bad[1].lifetime = -1;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_particles_set_particles(system, bad, 2);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "particles: particle 1: lifetime -1 is negative");
    glcollide_collider wrong = c[0];
    wrong.axis_v[0] = 0.5;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_particles_set_colliders(system, &wrong, 1);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "particles: collider 0: axes not orthonormal");
    wrong = c[0];
    wrong.bound_min[0] = -INFINITY;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_particles_set_colliders(system, &wrong, 1);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "particles: collider 0: plane without finite x and y bounds (the impact map "
                       "needs them)");
    wrong = c[1];
    wrong.restitution = 2;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_particles_set_colliders(system, &wrong, 1);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "particles: collider 0: restitution outside [0, 1]");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_particles_step(system, 1, 0, &all, &gpu);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "particles: step times 1, 0: finite and t0 <= t1 needed");
    glcollide_particles_settings settings = glcollide_particles_default_settings();
    settings.time_bits = 0;
    glcollide_particles *other = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_particles_create(particles_context, &settings, &other);
    test_log_capture_stop();
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "particles: settings: time_bits 0 outside 1..23");
    ck_assert_ptr_null(other);
    /* Still the two colliders and no particles. */
    ck_assert_int_eq(glcollide_particles_step(system, 0, 1, &all, &gpu), GLCOLLIDE_OK);
    ck_assert_int_eq(gpu.map_width, 2 * 128);
    glcollide_particles_destroy(&system);
    glcollide_particles_destroy(&system); /* NULL is fine */
    glcollide_particles_result_clear(&ref);
    glcollide_particles_result_clear(&gpu);
}
END_TEST

/* Short lives: a step meeting several generations reports each one's
 * impact, the 4 latest at most (the documented cap). */
START_TEST(test_generations_in_one_step)
{
    context_setup();
    const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, o[3] = {0, 0, 0};
    glcollide_collider ground = glcollide_collider_rectangle(o, ex, ey, 1, 1);
    /* Hits 0.01 s into each generation. */
    glcollide_particle p[2] = {{{0, 0, 0.1}, {0, 0, -10}, {0, 0, 0}, 0, 0.1},
                               {{0, 0, 0.1}, {0, 0, -10}, {0, 0, 0}, 0, 0.04}};
    glcollide_particles_result ref = {0}, gpu = {0};
    step_both(p, 2, &ground, 1, NULL, 0, 0.265, &ref, &gpu);
    for (int side = 0; side < 2; side++) {
        const glcollide_particles_result *r = side ? &gpu : &ref;
        /* Lifetime 0.1: generations 0, 1, 2 (0.01, 0.11, 0.21); lifetime
         * 0.04: generations 0..6 hit, the latest 4 (3..6) are reported. */
        ck_assert_uint_eq(r->impact_count, 7);
        for (uint32_t k = 0; k < 3; k++)
            ck_assert_msg(r->impacts[k].particle == 0 && r->impacts[k].generation == k &&
                              fabs(r->impacts[k].time - (0.01 + 0.1 * k)) < 1e-6,
                          "%s: impact %u", side ? "gpu" : "ref", k);
        for (uint32_t k = 0; k < 4; k++)
            ck_assert_msg(r->impacts[3 + k].particle == 1 && r->impacts[3 + k].generation == 3 + k &&
                              fabs(r->impacts[3 + k].time - (0.01 + 0.04 * (3 + k))) < 1e-6,
                          "%s: short-lived impact %u", side ? "gpu" : "ref", k);
    }
    glcollide_particles_result_clear(&ref);
    glcollide_particles_result_clear(&gpu);
}
END_TEST

/* Regeneration: generation g starts from x0 + jitter * r(g); with jitter 0
 * every generation repeats the first; with jitter the starts differ, stay
 * within the jitter, and the GPU draws the same ones. */
START_TEST(test_regeneration)
{
    context_setup();
    const size_t n = 64;
    glcollide_particle p[64];
    for (size_t i = 0; i < n; i++) {
        glcollide_particle q = {{(double)i, 0, 10}, {0, 0, -1}, {0, 0, 0}, 0.25 * (double)(i % 4), 1.0};
        p[i] = q;
    }
    glcollide_particles_settings settings = glcollide_particles_default_settings();
    glcollide_particles_result ref = {0}, gpu = {0};
    /* Age 0.5 in generations 0, 1 and 7: the same place without jitter. */
    for (int gen = 0; gen < 8; gen += (gen == 1 ? 6 : 1)) {
        step_both(p, n, NULL, 0, &settings, 0, 0.5 + gen + 0.75, &ref, &gpu);
        for (size_t i = 0; i < n; i++) {
            double age = 0.5 + gen + 0.75 - p[i].birth - floor(0.5 + gen + 0.75 - p[i].birth);
            ck_assert_msg(fabs(ref.positions[4 * i + 2] - (10 - age)) < 1e-9, "ref generation %d", gen);
            ck_assert_msg(fabs(gpu.positions[4 * i + 2] - (10 - age)) < 1e-5, "gpu generation %d", gen);
        }
    }
    settings.position_jitter[0] = 0.3;
    settings.velocity_jitter[2] = 0.2;
    double first[64];
    size_t moved = 0;
    for (int gen = 0; gen < 3; gen++) {
        double t = 0.9 + gen; /* every particle in generation gen (births 0..0.75) */
        step_both(p, n, NULL, 0, &settings, 0, t, &ref, &gpu);
        for (size_t i = 0; i < n; i++) {
            double x = ref.positions[4 * i];
            ck_assert_msg(fabs(x - (double)i) <= 0.3, "jitter out of range");
            ck_assert_msg(fabs(gpu.positions[4 * i] - x) < 1e-5 && fabs(gpu.positions[4 * i + 2] -
                                                                        ref.positions[4 * i + 2]) < 1e-5,
                          "gpu and reference draw different starts for particle %zu", i);
            if (gen == 0)
                first[i] = x;
            else
                moved += fabs(x - first[i]) > 1e-6;
        }
    }
    ck_assert_msg(moved > 120, "only %zu of 128 later starts differ from the first", moved);
    glcollide_particles_result_clear(&ref);
    glcollide_particles_result_clear(&gpu);
}
END_TEST

Suite *suite_particles(void)
{
    Suite *suite = suite_create("particles");
    TCase *tc = tcase_create("particles");
    tcase_set_timeout(tc, 900);
    tcase_add_unchecked_fixture(tc, NULL, context_teardown);
    tcase_add_test(tc, test_analytic_hits);
    tcase_add_test(tc, test_map_round_trip);
    tcase_add_test(tc, test_bounce_series);
    tcase_add_test(tc, test_edge_cases);
    tcase_add_test(tc, test_regeneration);
    tcase_add_test(tc, test_generations_in_one_step);
    suite_add_tcase(suite, tc);
    return suite;
}
