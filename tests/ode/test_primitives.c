/* SPDX-License-Identifier: MIT */
/*
 * Trimeshes against ODE's primitives judged by simulation (the contacts of
 * glcollide/contacts/contacts_primitive.c through the plugin's collider overrides;
 * their geometry is tested in tests/unit/test_contacts_primitive.c). Each scene is
 * built twice in one run (tests/ode/ode_scene.c): from ODE's primitives only,
 * and with the meshes as trimeshes on glcollide's space, the pairs of a
 * trimesh with a plane, box, sphere, capsule or cylinder going through
 * glcollide's colliders. Parameters as the stacking suite's: dWorldQuickStep
 * (50 iterations) and dWorldStep, ERP 0.2, CFM 1e-5, mu 0.8 with soft
 * ERP/CFM, dt 2 ms, 5 s.
 *
 * Resting scenes (a trimesh box on a plane and on an ODE box; ODE's box,
 * sphere, capsule and cylinders on a trimesh table, coarse and finely
 * tessellated; a trimesh cylinder on its side on a plane): each body stays
 * as its primitive twin does, with the stacking suite's criteria per body
 * (drift, sinking and tilt within twice the twin's figures or 0.1 mm /
 * 0.1 mm / 0.1 deg), and never creeps 1 mm whatever the twin does (ODE's own
 * capsule-box collider lets a lying capsule creep 7 mm over the run), no
 * centre rises 0.5 mm above its start, kinetic energy at rest small.
 *
 * The gripper: a vise of two box fingers on a palm (one fixed, one on a
 * slider squeezing with 10 N) picks libcgal-demo's rotor_small (fitted to
 * 10 cm, its flat round ends between the fingers) off a plane, lifts it 5 cm
 * and holds it 5 s: with mu 0.8, in ODE's default friction model and in
 * dContactApprox1, it must be lifted and slip less than 1 mm against the
 * palm over the hold, as the primitive version (a box of the rotor's bounds)
 * does. The same with capsule fingers (radius 1 cm, lying across the flat
 * end, which is narrower than their core: a line contact): glcollide's
 * grip alone is judged, since ODE's own capsule-box collider lets the
 * primitive version slip by millimetres to centimetres (printed).
 * dWorldStep: with dWorldQuickStep (50 iterations) ODE's own primitive box
 * creeps out of the same vise by centimetres, so that stepper cannot judge
 * a grip.
 *
 * The car (tests/ode/ode_scenes.c's car-pit, modeled on a racing
 * game whose car is ODE's boxes and cylinders on a trimesh track):
 * a box chassis on four cylinder wheels (hinge2 joints, the rear wheels
 * driven by their motors) drives up a ramp onto a plateau and off its edge
 * into a pit crossed by a beam narrower than its wheels, where its chassis
 * lands and stays. In the game's settings (dContactApprox1, mu 50, dt 1/180
 * s, dWorldQuickStep) it is run three times in one run: the track of ODE
 * boxes, of trimeshes with ODE's own colliders, and with glcollide's. Each
 * car must get over the edge (its chassis past x = 6.5 m); glcollide's must
 * end where the others do (chassis height within 1 mm of both: resting on
 * the beam, not sunk into it; along the track within 0.1 m of the
 * primitive track's), swerve no more than 25 mm, and its wheels on the
 * road must touch with both rims: at most one touch in five with a single
 * contact; each for 10 seeds of ODE's random numbers (dWorldQuickStep
 * reorders its constraints with them). Before this scene glcollide left the
 * chassis 11 mm deep in the beam, every point of the crossing given depth 0;
 * a wheel lying on a face got one contact, its other rim lost, in 98% of
 * its touches; and, those fixed, the chassis landing on the beam was
 * propped on the rim of the sunk wedge and kicked sideways, off the beam
 * for 2 seeds of 10 (swerving 56 mm for 2 more).
 *
 * The same car on twin strips that its wheels overhang, each strip with a
 * side panel that is an open mesh (car-strips, as the game builds its
 * ramps), 4 seeds: see test_car_strips.
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

/* Both flavours of a resting scene under one stepper, compared body by body. */
static void check_resting(const char *name, int world_step)
{
    scene_params params = scene_default_params(SCENE_PRIMITIVES);
    params.world_step = world_step;
    scene_figures prim, mesh;
    run(name, params, &prim);
    params.flavour = SCENE_GLCOLLIDE;
    run(name, params, &mesh);
    const char *how = world_step ? "dWorldStep" : "dWorldQuickStep";
    ck_assert_uint_eq(mesh.body_count, prim.body_count);
    for (size_t b = 0; b < mesh.body_count; b++) {
        const scene_body_figures *m = &mesh.bodies[b], *p = &prim.bodies[b];
        ck_assert_msg(m->rise <= 5e-4, "%s (%s): body %zu rose %.3f mm: launched", name, how, b,
                      1e3 * m->rise);
        ck_assert_msg(m->drift <= fmin(fmax(2.0 * p->drift, 1e-4), 1e-3),
                      "%s (%s): body %zu drift %.4f mm, primitives %.4f mm", name, how, b,
                      1e3 * m->drift, 1e3 * p->drift);
        ck_assert_msg(m->sink <= fmax(2.0 * p->sink, 1e-4),
                      "%s (%s): body %zu sank %.4f mm, primitives %.4f mm", name, how, b,
                      1e3 * m->sink, 1e3 * p->sink);
        ck_assert_msg(m->tilt <= fmax(2.0 * p->tilt, 0.1 * degree),
                      "%s (%s): body %zu tilt %.4f deg, primitives %.4f deg", name, how, b,
                      m->tilt / degree, p->tilt / degree);
    }
    ck_assert_msg(mesh.kinetic_late <= fmax(5.0 * prim.kinetic_late, 1e-4),
                  "%s (%s): kinetic energy at rest %.2e J, primitives %.2e J", name, how,
                  mesh.kinetic_late, prim.kinetic_late);
}

static const char *const resting[] = {
    "box-plane",           "fine-box-plane",           "box-on-ode-box",
    "primitives-on-table", "primitives-on-fine-table", "cylinder-side-plane"};

START_TEST(test_resting_quickstep)
{
    check_resting(resting[_i], 0);
}
END_TEST

START_TEST(test_resting_worldstep)
{
    check_resting(resting[_i], 1);
}
END_TEST

/* The vise lifts the rotor and holds it 5 s, in one friction model. */
static void check_gripper(const char *name, int approx1, int judge_primitives)
{
    scene_params params = scene_default_params(SCENE_PRIMITIVES);
    params.world_step = 1;
    params.approx1 = approx1;
    params.steps = 2900; /* close 0.3 s, lift 0.5 s, hold 5 s */
    scene_figures prim, mesh;
    run(name, params, &prim);
    params.flavour = SCENE_GLCOLLIDE;
    run(name, params, &mesh);
    const char *model = approx1 ? "dContactApprox1" : "default friction";
    if (judge_primitives)
        ck_assert_msg(prim.lifted >= 0.045 && prim.slip < 1e-3,
                      "%s (%s): the primitive box lifted %.2f mm, slipped %.4f mm", name, model,
                      1e3 * prim.lifted, 1e3 * prim.slip);
    ck_assert_msg(mesh.lifted >= 0.045, "%s (%s): the rotor lifted %.2f mm of 50", name, model,
                  1e3 * mesh.lifted);
    ck_assert_msg(mesh.slip < 1e-3, "%s (%s): the rotor slipped %.4f mm over the 5 s hold", name,
                  model, 1e3 * mesh.slip);
}

START_TEST(test_gripper)
{
    check_gripper("gripper-rotor", _i, 1);
}
END_TEST

START_TEST(test_gripper_capsules)
{
    check_gripper("gripper-rotor-capsules", _i, 0);
}
END_TEST

/* The game's stepping: dContactApprox1 with its mu, dt 1/180 s, 4 s. */
static scene_params car_params(scene_flavour flavour, int seed)
{
    scene_params params = scene_default_params(flavour);
    params.seed = (unsigned long)seed;
    params.approx1 = 1;
    params.mu = 50;
    params.dt = 1.0 / 180;
    params.steps = 720;
    return params;
}

/* A car's limits: how far it must get, how far glcollide's may end from
 * the primitive track's along it, how far it may swerve. */
typedef struct car_limits {
    double reach, along, swerve;
} car_limits;

/* The car scene run with ODE's primitives, ODE's trimesh colliders and
 * glcollide's, in one run, judged as the comments above each test say. */
static void check_car(const char *name, int seed, car_limits limits)
{
    scene_figures prim, ode, mesh;
    run(name, car_params(SCENE_PRIMITIVES, seed), &prim);
    run(name, car_params(SCENE_ODE_TRIMESH, seed), &ode);
    run(name, car_params(SCENE_GLCOLLIDE, seed), &mesh);
    const scene_figures *all[3] = {&prim, &ode, &mesh};
    static const char *const label[3] = {"primitives", "ODE's trimesh colliders", "glcollide"};
    for (int i = 0; i < 3; i++)
        ck_assert_msg(all[i]->reached > limits.reach,
                      "%s (%s, seed %d): the car got to x = %.3f m only", name, label[i], seed,
                      all[i]->reached);
    for (int i = 0; i < 2; i++)
        ck_assert_msg(fabs(mesh.chassis_end[2] - all[i]->chassis_end[2]) <= 1e-3,
                      "%s (seed %d): the chassis ends at height %.4f m, with %s %.4f m", name, seed,
                      mesh.chassis_end[2], label[i], all[i]->chassis_end[2]);
    ck_assert_msg(fabs(mesh.chassis_end[0] - prim.chassis_end[0]) <= limits.along,
                  "%s (seed %d): the chassis ends at x = %.3f m, with primitives %.3f m", name,
                  seed, mesh.chassis_end[0], prim.chassis_end[0]);
    ck_assert_msg(mesh.swerve <= limits.swerve, "%s (seed %d): the car swerved %.1f mm", name, seed,
                  1e3 * mesh.swerve);
    ck_assert_msg(5 * mesh.wheel_single_touches <= mesh.wheel_touches,
                  "%s (seed %d): %ld of %ld wheel touches with one contact", name, seed,
                  mesh.wheel_single_touches, mesh.wheel_touches);
}

START_TEST(test_car)
{
    check_car("car-pit", _i, (car_limits){.reach = 6.5, .along = 0.1, .swerve = 0.025});
}
END_TEST

/*
 * The car on the twin strips (car-strips), modeled on the game's twin ramps:
 * each wheel overhangs its strip's inner edge, so its line contact runs
 * from its outer rim to the edge, and each strip has a side panel of its
 * own, an open mesh whose top edge the overhanging wheels dip below. Each
 * car must get onto the strips (past x = 9 m); glcollide's must drive as
 * the others (chassis height within 1 mm of both, within 0.2 m of the
 * primitive track's along it, swerving less than 50 mm: the strips are 0.2
 * m wide) and its wheels touch the strips with both ends of the line (at
 * most one touch in five with a single contact; the panels' edges are
 * point contacts, not counted). Before, every touch on the strips had the
 * rim's point only (the game's tyre model, a force-dependent slip per
 * contact, then slips twice as much), and the panels pushed the wheels
 * sideways by their whole overlap or held them by friction at a sideways
 * normal: the car swerved 0.3-0.5 m and fell between the strips by x = 5-8 m.
 */
START_TEST(test_car_strips)
{
    check_car("car-strips", _i, (car_limits){.reach = 9.0, .along = 0.2, .swerve = 0.05});
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

Suite *suite_primitives(void)
{
    Suite *suite = suite_create("primitives");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 600);
    tcase_add_checked_fixture(tc, setup, teardown);
    int n = (int)(sizeof resting / sizeof resting[0]);
    tcase_add_loop_test(tc, test_resting_quickstep, 0, n);
    tcase_add_loop_test(tc, test_resting_worldstep, 0, n);
    tcase_add_loop_test(tc, test_gripper, 0, 2);
    tcase_add_loop_test(tc, test_gripper_capsules, 0, 2);
    tcase_add_loop_test(tc, test_car, 0, 10);
    tcase_add_loop_test(tc, test_car_strips, 0, 4);
    suite_add_tcase(suite, tc);
    return suite;
}
