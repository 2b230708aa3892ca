/* SPDX-License-Identifier: MIT */
/*
 * Contacts judged by simulation: plain ODE programs (tests/ode/ode_scene.c) built
 * twice in one run, from ODE's primitives and from trimeshes with glcollide's
 * space and contacts, stepped with dWorldQuickStep (50 iterations) and with
 * dWorldStep, ERP 0.2, CFM 1e-5, contact mu 0.8 with soft ERP/CFM, dt 2 ms,
 * 5 s. The mesh version must behave as the primitive one does: stacks stand
 * (top drift, sinking and tilt within twice the primitives' own figures or
 * 1 mm / 0.1 mm / 0.1 deg), nothing is launched (no centre rises 0.5 mm above
 * its start), kinetic energy at rest stays small, a contained cube is pushed
 * out, ramps hold below the friction angle and slide above it in both
 * friction models, as the primitive box does.
 */
#include "helpers/tests.h"

#include "ode/ode_scene.h"

#include <glcollide/ode.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double degree = 3.14159265358979323846 / 180.0;

static void run(const char *name, scene_params params, scene_figures *out)
{
    ck_assert_msg(scene_run_named(name, &params, out) == 0, "scene %s did not run", name);
}

/* Both flavours of a resting scene under one stepper, compared. */
static void check_resting(const char *name, int world_step, double max_correcting_vel)
{
    scene_params params = scene_default_params(SCENE_PRIMITIVES);
    params.world_step = world_step;
    params.max_correcting_vel = max_correcting_vel;
    scene_figures prim, mesh;
    run(name, params, &prim);
    params.flavour = SCENE_GLCOLLIDE;
    run(name, params, &mesh);
    const char *how = world_step ? "dWorldStep" : "dWorldQuickStep";
    ck_assert_msg(mesh.max_rise <= 5e-4, "%s (%s): a body rose %.3f mm: launched", name, how,
                  1e3 * mesh.max_rise);
    ck_assert_msg(mesh.max_drift <= fmax(2.0 * prim.max_drift, 1e-3),
                  "%s (%s): drift %.4f mm, primitives %.4f mm", name, how, 1e3 * mesh.max_drift,
                  1e3 * prim.max_drift);
    ck_assert_msg(mesh.max_sink <= fmax(2.0 * prim.max_sink, 1e-4),
                  "%s (%s): sank %.4f mm, primitives %.4f mm", name, how, 1e3 * mesh.max_sink,
                  1e3 * prim.max_sink);
    ck_assert_msg(mesh.max_tilt <= fmax(2.0 * prim.max_tilt, 0.1 * degree),
                  "%s (%s): tilt %.4f deg, primitives %.4f deg", name, how, mesh.max_tilt / degree,
                  prim.max_tilt / degree);
    ck_assert_msg(mesh.kinetic_late <= fmax(5.0 * prim.kinetic_late, 1e-4),
                  "%s (%s): kinetic energy at rest %.2e J, primitives %.2e J", name, how,
                  mesh.kinetic_late, prim.kinetic_late);
}

static const char *const stacks[] = {"stack-cube",      "stack-cube-yaw10", "stack-cube-yaw45",
                                     "stack-fine",      "stack-fine-yaw10", "stack-fine-yaw45",
                                     "stack-cylinders", "bridge",           "peg",
                                     "plates",          "fine-floor"};

START_TEST(test_stacks_quickstep)
{
    check_resting(stacks[_i], 0, 0.0);
}
END_TEST

START_TEST(test_stacks_worldstep)
{
    check_resting(stacks[_i], 1, 0.0);
}
END_TEST

/*
 * A polyhedral sphere or cylinder is no primitive: it rolls to a face (or
 * rocks on its edge) where ODE's round one stands still. Judged on its own:
 * not launched, not sinking, settled (kinetic energy at rest small).
 */
static const char *const rolling[] = {"sphere", "cylinder-side"};

START_TEST(test_rolling)
{
    for (int world_step = 0; world_step < 2; world_step++) {
        scene_params params = scene_default_params(SCENE_GLCOLLIDE);
        params.world_step = world_step;
        scene_figures mesh;
        run(rolling[_i], params, &mesh);
        ck_assert_msg(mesh.max_rise <= 5e-4, "%s: rose %.3f mm", rolling[_i], 1e3 * mesh.max_rise);
        ck_assert_msg(mesh.max_sink <= 2e-4, "%s: sank %.4f mm", rolling[_i], 1e3 * mesh.max_sink);
        ck_assert_msg(mesh.kinetic_late <= 1e-4, "%s: kinetic energy at rest %.2e J", rolling[_i],
                      mesh.kinetic_late);
    }
}
END_TEST

/*
 * A cube wholly inside a static box (no surfaces cross): pushed out the
 * shortest way (the box's +x face is 7 cm away, the others farther), with
 * ODE's correcting velocity capped at 0.5 m/s as users do for deep
 * penetration; it ends at rest outside the box, beside it on the slab.
 */
START_TEST(test_contained)
{
    for (int world_step = 0; world_step < 2; world_step++) {
        scene_params params = scene_default_params(SCENE_GLCOLLIDE);
        params.world_step = world_step;
        params.max_correcting_vel = 0.5;
        scene_figures mesh;
        run("contained", params, &mesh);
        const double *p = mesh.bodies[0].final;
        ck_assert_msg(p[0] >= 0.2 + 0.05 - 1e-3 && fabs(p[1]) < 0.3 && fabs(p[2] - 0.05) < 0.02,
                      "contained cube ended at (%g, %g, %g): not pushed out along +x onto the slab",
                      p[0], p[1], p[2]);
        ck_assert_msg(mesh.kinetic_late <= 1e-4, "contained: kinetic energy at rest %.2e J",
                      mesh.kinetic_late);
    }
}
END_TEST

/*
 * A 1 kg box on a ramp, both friction models, as the primitive box does. In
 * ODE's default model mu (0.8) bounds each contact's friction force, so with
 * 4 contacts the box holds while 9.81 sin(angle) < 3.2 N: 15 degrees holds,
 * 25 slides; with dContactApprox1 mu scales the normal force: 30 degrees
 * holds, 45 (above atan 0.8 = 38.7) slides.
 */
START_TEST(test_ramps)
{
    static const struct {
        const char *scene;
        int approx1, slides;
    } cases[] = {{"ramp-15", 0, 0}, {"ramp-25", 0, 1}, {"ramp-30", 1, 0}, {"ramp-45", 1, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        scene_params params = scene_default_params(SCENE_PRIMITIVES);
        params.approx1 = cases[c].approx1;
        params.steps = 1000; /* 2 s: a sliding box is still on the 2 m ramp */
        scene_figures prim, mesh;
        run(cases[c].scene, params, &prim);
        params.flavour = SCENE_GLCOLLIDE;
        run(cases[c].scene, params, &mesh);
        int prim_slides = prim.max_drift > 0.01, mesh_slides = mesh.max_drift > 0.01;
        ck_assert_msg(prim_slides == cases[c].slides, "%s: the primitive box %s (%.1f mm)",
                      cases[c].scene, prim_slides ? "slides" : "holds", 1e3 * prim.max_drift);
        ck_assert_msg(mesh_slides == prim_slides,
                      "%s (%s): the mesh box %s (%.1f mm), the primitive %s", cases[c].scene,
                      cases[c].approx1 ? "approx1" : "default", mesh_slides ? "slides" : "holds",
                      1e3 * mesh.max_drift, prim_slides ? "slides" : "holds");
        if (!prim_slides)
            ck_assert_msg(mesh.max_drift <= fmax(2.0 * prim.max_drift, 1e-4),
                          "%s: the mesh box crept %.4f mm, the primitive %.4f mm", cases[c].scene,
                          1e3 * mesh.max_drift, 1e3 * prim.max_drift);
        ck_assert_int_le(mesh.max_contacts_step, 4);
    }
}
END_TEST

static void setup(void)
{
    dInitODE2(0);
}

static void teardown(void)
{
    glcollide_ode_shutdown();
    scene_meshes_release();
    dCloseODE();
}

Suite *suite_stacking(void)
{
    Suite *suite = suite_create("stacking");
    TCase *tc = tcase_create("stacking");
    tcase_set_timeout(tc, 600);
    tcase_add_checked_fixture(tc, setup, teardown);
    int n = (int)(sizeof stacks / sizeof stacks[0]);
    tcase_add_loop_test(tc, test_stacks_quickstep, 0, n);
    tcase_add_loop_test(tc, test_stacks_worldstep, 0, n);
    tcase_add_loop_test(tc, test_rolling, 0, 2);
    tcase_add_test(tc, test_contained);
    tcase_add_test(tc, test_ramps);
    suite_add_tcase(suite, tc);
    return suite;
}
