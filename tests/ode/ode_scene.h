/* SPDX-License-Identifier: MIT */
/*
 * Plain ODE programs for judging contacts by simulation: one scene
 * description built twice in one process, once from trimeshes (glcollide's
 * space and contacts, or ODE's own trimesh collider) and once from ODE's
 * primitives (boxes, cylinders, spheres), stepped the way ODE's demos step
 * (near callback, contact joints, dWorldQuickStep or dWorldStep), with the
 * figures users judge a stack or a ramp by: drift, sinking, tilt, kinetic
 * energy, launches. Shared by the stability suite (tests/ode/test_stacking.c)
 * and the contacts benchmark (tests/bench/bench_contacts.c).
 */
#ifndef GLCOLLIDE_TESTS_ODE_SCENE_H
#define GLCOLLIDE_TESTS_ODE_SCENE_H

#include <glcollide/glcollide.h>
#include <ode/ode.h>

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ scenes */

typedef enum scene_shape {
    SCENE_BOX,      /* size = full sides */
    SCENE_CYLINDER, /* size[0] = radius, size[1] = length, along the body's z */
    SCENE_SPHERE,   /* size[0] = radius */
    SCENE_CUP,      /* size: outer half width, height, hole half width; size[3]: floor */
    SCENE_CAPSULE,  /* size[0] = radius, size[1] = length without the caps, along z */
    SCENE_PLANE     /* through position, normal the rotated z axis; fixed, primitive */
} scene_shape;

/* One solid of a scene: its primitive form and the mesh standing for it. */
typedef struct scene_solid {
    scene_shape shape;
    double size[4];
    const glcollide_mesh *mesh; /* in the body's frame; not owned */
    double position[3];
    double rotation[4]; /* w x y z */
    int fixed;          /* no body: static geometry */
    int primitive;      /* an ODE primitive in every flavour (trimesh-primitive pairs) */
    int side_panel;     /* a vehicle's wheels touch its edge at a point: not counted */
    double density;
} scene_solid;

enum { SCENE_MAX_SOLIDS = 32 };

/*
 * A gripper: a palm body on a vertical slider to the world carries two
 * finger solids on sliders along x. The fingers close on the object with
 * their motors' force limited to squeeze (N) for close_time, the palm then
 * lifts it at lift_speed for lift_time, then holds it still to the run's
 * end. The object's slip is measured against the palm over the hold.
 */
typedef struct scene_gripper {
    int enabled;
    size_t fingers[2]; /* solids: -x finger, +x finger */
    size_t object;     /* the solid gripped */
    double squeeze, close_speed, close_time, lift_speed, lift_time;
} scene_gripper;

/*
 * A car: a chassis solid and four wheel solids (cylinders lying along y),
 * each wheel on a hinge2 joint to the chassis at its centre (axis 1 along
 * z, locked straight ahead; axis 2 its axle along y) with a soft
 * suspension; the rear wheels' motors turn them at wheel_speed (rad/s,
 * forward along +x) with at most wheel_torque (N m), from the start.
 */
typedef struct scene_vehicle {
    int enabled;
    size_t chassis;
    size_t wheels[4]; /* front left, front right, rear left, rear right */
    double wheel_speed, wheel_torque;
    double suspension_erp, suspension_cfm;
} scene_vehicle;

typedef struct scene_desc {
    const char *name;
    scene_solid solids[SCENE_MAX_SOLIDS];
    size_t count;
    scene_gripper gripper;
    scene_vehicle vehicle;
} scene_desc;

/* Which geometry and collider a run uses. */
typedef enum scene_flavour {
    SCENE_PRIMITIVES, /* ODE boxes, cylinders, spheres */
    SCENE_GLCOLLIDE,  /* trimeshes, glcollide's space and contacts */
    SCENE_ODE_TRIMESH /* trimeshes, ODE's own space and trimesh collider */
} scene_flavour;

/* Poses of a scene's bodies at a series of steps: a run records them, a
 * later run (of any flavour) replays them. */
typedef struct scene_states {
    size_t count, capacity; /* states */
    size_t bodies;          /* poses per state */
    double *poses;          /* count x bodies x 7: position, quaternion w x y z */
} scene_states;

void scene_states_free(scene_states *states);

typedef struct scene_params {
    scene_flavour flavour;
    int world_step; /* 1: dWorldStep, else dWorldQuickStep */
    int approx1;    /* dContactApprox1 friction (mu scaled by normal force) */
    double mu;
    int max_contacts; /* the buffer offered to dCollide */
    double dt;
    int steps;
    int settle_steps; /* figures are measured from this step on */
    double gravity[3];
    double max_correcting_vel; /* dWorldSetContactMaxCorrectingVel; 0: ODE's default (none) */
    /* Benchmarks: with record set, the bodies' poses are appended to it every
     * record_every steps from settle_steps on. With replay set, the run
     * steps nothing: each recorded state is posed and collided once (the
     * contacts made and dropped), so two colliders can be timed on the same
     * states; collide_ms_per_step and contacts_per_step are then per state,
     * the other figures are left 0. */
    scene_states *record;
    int record_every;
    const scene_states *replay;
    /* dWorldQuickStep reorders the constraints with ODE's random numbers:
     * every run starts them from this seed, so that its figures do not
     * depend on the runs before it */
    unsigned long seed;
} scene_params;

/* The parameters of the reports: QuickStep 50 iterations, ERP 0.2, CFM 1e-5,
 * mu 0.8 with soft ERP/CFM, dt 2 ms, 5 s, 64 contacts offered. */
scene_params scene_default_params(scene_flavour flavour);

/* Figures of one body over a run. */
typedef struct scene_body_figures {
    double drift;    /* horizontal distance moved since settle_steps */
    double sink;     /* fall of the centre since settle_steps (> 0: down) */
    double tilt;     /* angle between the body's z axis then and at the end, radians */
    double turn;     /* whole rotation angle since settle_steps, radians */
    double rise;     /* highest centre above its start, over the run */
    double final[3]; /* centre at the end */
} scene_body_figures;

typedef struct scene_figures {
    size_t body_count;
    scene_body_figures bodies[SCENE_MAX_SOLIDS];
    double max_drift, max_sink, max_tilt, max_rise; /* over the bodies */
    double kinetic_early;     /* mean kinetic energy over the second fifth of the run */
    double kinetic_late;      /* over the last fifth */
    double max_speed_late;    /* largest body speed over the last fifth */
    double contacts_per_step; /* mean contact joints made per step */
    int max_contacts_step;    /* most contacts one dCollide call returned */
    double ms_per_step;       /* wall time per step (collision + solver) */
    double collide_ms_per_step;
    double lifted;         /* gripper: the object's rise at the hold's start */
    double slip;           /* gripper: the object's motion against the palm over the hold */
    uint64_t contact_hash; /* of every contact made (FNV-1a, bit for bit) */
    /* vehicle: its chassis' farthest x, largest |y|, and where it ends;
     * the wheels' contacts per dCollide call that returned any, and how
     * many such calls returned only one contact */
    double reached, swerve, chassis_end[3];
    double wheel_contacts_per_touch;
    long wheel_touches, wheel_single_touches;
} scene_figures;

/* Builds and runs the scene; 0 on success, -1 with a message on stderr. */
int scene_run(const scene_desc *scene, const scene_params *params, scene_figures *out);

/* One line of figures (mm, degrees, J), for logs. */
void scene_print(const char *label, const scene_figures *f);
/* The figures of the scene's gripper or vehicle, a line each. */
void scene_print_details(const scene_desc *scene, const scene_figures *f);

/* Runs the scene called name and prints its figures under "name flavour
 * stepper" (a gripper's lift and slip on a line of their own); 0, or -1 with
 * a message on stderr when the scene is unknown, lacks a mesh or fails. */
int scene_run_named(const char *name, const scene_params *params, scene_figures *out);

/* The scenes of the stability suite; NULL when name is unknown. Meshes are
 * made once and kept until scene_meshes_release. */
int scene_by_name(const char *name, scene_desc *out);
const char *const *scene_names(void);
void scene_meshes_release(void);

#endif
