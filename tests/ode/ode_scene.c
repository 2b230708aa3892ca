/* SPDX-License-Identifier: MIT */
/* Plain ODE programs for judging contacts by simulation (see ode_scene.h);
 * the named scenes they run are in ode_scenes.c. */
#define _POSIX_C_SOURCE 200809L
#include "ode/ode_scene.h"
#include "helpers/contact_hash.h"

#include <glcollide/ode.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__GNUC__)
#define GLCOLLIDE_SCENE_PRINTF __attribute__((format(printf, 2, 0)))
#else
#define GLCOLLIDE_SCENE_PRINTF
#endif

static const double pi = 3.14159265358979323846;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ------------------------------------------------------------ running */

enum { MAX_CONTACT_BUFFER = 256 };

typedef struct ode_mesh {
    dReal *vertices;
    dTriIndex *indices;
    dTriMeshDataID data;
    const glcollide_mesh *mesh;
} ode_mesh;

typedef struct run_state {
    const scene_params *params;
    dWorldID world;
    dJointGroupID joints;
    long contacts;
    int max_step_contacts;
    double collide_ms;
    int step, trace_from, trace_to; /* GLCOLLIDE_SCENE_TRACE=FROM[,TO]: contacts printed */
    uint64_t contact_hash;          /* every contact, bit for bit */
    dGeomID wheels[4];              /* a vehicle's: their contacts are counted */
    const scene_desc *scene;
    long wheel_touches, wheel_single_touches, wheel_contacts;
} run_state;

static int current_step = -1;
static void message_handler(int num, const char *msg, va_list ap) GLCOLLIDE_SCENE_PRINTF;
static void message_handler(int num, const char *msg, va_list ap)
{
    fprintf(stderr, "ODE message %d at step %d: ", num, current_step);
    vfprintf(stderr, msg, ap);
    fprintf(stderr, "\n");
}

/* Is g (its data: 8 * (solid + 1) + part) a side panel's? */
static int touches_side_panel(const run_state *run, dGeomID g)
{
    intptr_t solid = (intptr_t)dGeomGetData(g) / 8 - 1;
    return solid >= 0 && (size_t)solid < run->scene->count && run->scene->solids[solid].side_panel;
}

static void near_callback(void *data, dGeomID o1, dGeomID o2)
{
    run_state *run = data;
    dBodyID b1 = dGeomGetBody(o1), b2 = dGeomGetBody(o2);
    if (!b1 && !b2)
        return;
    dContact contact[MAX_CONTACT_BUFFER];
    int max = run->params->max_contacts < MAX_CONTACT_BUFFER ? run->params->max_contacts
                                                             : MAX_CONTACT_BUFFER;
    int n = dCollide(o1, o2, max, &contact[0].geom, sizeof contact[0]);
    if (n > run->max_step_contacts)
        run->max_step_contacts = n;
    for (int w = 0; w < 4 && n > 0; w++)
        if (run->wheels[w] && (o1 == run->wheels[w] || o2 == run->wheels[w]) &&
            !touches_side_panel(run, o1 == run->wheels[w] ? o2 : o1)) {
            run->wheel_touches++;
            run->wheel_single_touches += n == 1;
            run->wheel_contacts += n;
        }
    if (run->trace_from >= 0 && run->step >= run->trace_from && run->step <= run->trace_to &&
        n > 0) {
        dGeomID g[2] = {o1, o2};
        for (int k = 0; k < 2; k++) {
            const dReal *p = dGeomGetPosition(g[k]);
            dQuaternion q;
            dGeomGetQuaternion(g[k], q);
            printf("step %d pose %d %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", run->step, k,
                   p[0], p[1], p[2], q[0], q[1], q[2], q[3]);
        }
    }
    if (run->trace_from >= 0 && run->step >= run->trace_from && run->step <= run->trace_to)
        for (int i = 0; i < n; i++)
            printf("step %d pair %p %p contact %d pos %.6f %.6f %.6f normal %.4f %.4f %.4f depth "
                   "%.3e sides %d %d\n",
                   run->step, (void *)o1, (void *)o2, i, contact[i].geom.pos[0],
                   contact[i].geom.pos[1], contact[i].geom.pos[2], contact[i].geom.normal[0],
                   contact[i].geom.normal[1], contact[i].geom.normal[2], contact[i].geom.depth,
                   contact[i].geom.side1, contact[i].geom.side2);
    for (int i = 0; i < n; i++) {
        run->contact_hash = contact_hash_add(run->contact_hash, &contact[i].geom);
        contact[i].surface.mode =
            dContactSoftERP | dContactSoftCFM | (run->params->approx1 ? dContactApprox1 : 0);
        contact[i].surface.mu = (dReal)run->params->mu;
        contact[i].surface.soft_erp = 0.2;
        contact[i].surface.soft_cfm = 1e-5;
        dJointID joint = dJointCreateContact(run->world, run->joints, &contact[i]);
        dJointAttach(joint, b1, b2);
    }
    run->contacts += n;
}

static int ode_mesh_build(ode_mesh *m, const glcollide_mesh *mesh, int register_arrays)
{
    m->mesh = mesh;
    m->vertices = malloc(3 * mesh->vertex_count * sizeof *m->vertices);
    m->indices = malloc(3 * mesh->triangle_count * sizeof *m->indices);
    if (!m->vertices || !m->indices)
        return -1;
    for (size_t i = 0; i < 3 * mesh->vertex_count; i++)
        m->vertices[i] = (dReal)mesh->positions[i];
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
        m->indices[i] = (dTriIndex)mesh->triangles[i];
    m->data = dGeomTriMeshDataCreate();
#ifdef dDOUBLE
    dGeomTriMeshDataBuildDouble(m->data, m->vertices, 3 * sizeof(dReal), (int)mesh->vertex_count,
                                m->indices, (int)(3 * mesh->triangle_count), 3 * sizeof(dTriIndex));
    if (register_arrays)
        glcollide_ode_trimesh_data_build_double(
            m->data, m->vertices, 3 * sizeof(dReal), (int)mesh->vertex_count, m->indices,
            (int)(3 * mesh->triangle_count), 3 * sizeof(dTriIndex));
#else
    dGeomTriMeshDataBuildSingle(m->data, m->vertices, 3 * sizeof(dReal), (int)mesh->vertex_count,
                                m->indices, (int)(3 * mesh->triangle_count), 3 * sizeof(dTriIndex));
    if (register_arrays)
        glcollide_ode_trimesh_data_build_single(
            m->data, m->vertices, 3 * sizeof(dReal), (int)mesh->vertex_count, m->indices,
            (int)(3 * mesh->triangle_count), 3 * sizeof(dTriIndex));
#endif
    return 0;
}

static void ode_mesh_free(ode_mesh *m, int registered)
{
    if (m->data) {
        if (registered)
            glcollide_ode_trimesh_data_forget(m->data);
        dGeomTriMeshDataDestroy(m->data);
    }
    free(m->vertices);
    free(m->indices);
    memset(m, 0, sizeof *m);
}

/* The primitive geoms of a solid (a cup is five boxes); returns how many. */
static int primitive_geoms(const scene_solid *s, dSpaceID space, dGeomID out[5],
                           double offsets[5][3])
{
    for (int i = 0; i < 5; i++)
        offsets[i][0] = offsets[i][1] = offsets[i][2] = 0;
    switch (s->shape) {
    case SCENE_BOX: out[0] = dCreateBox(space, s->size[0], s->size[1], s->size[2]); return 1;
    case SCENE_CYLINDER: out[0] = dCreateCylinder(space, s->size[0], s->size[1]); return 1;
    case SCENE_SPHERE: out[0] = dCreateSphere(space, s->size[0]); return 1;
    case SCENE_CAPSULE: out[0] = dCreateCapsule(space, s->size[0], s->size[1]); return 1;
    case SCENE_PLANE: {
        /* not placeable: its normal and offset say where it is */
        dMatrix3 r;
        dQuaternion q = {s->rotation[0], s->rotation[1], s->rotation[2], s->rotation[3]};
        dRfromQ(r, q);
        double n[3] = {r[2], r[6], r[10]};
        out[0] =
            dCreatePlane(space, n[0], n[1], n[2],
                         n[0] * s->position[0] + n[1] * s->position[1] + n[2] * s->position[2]);
        return 1;
    }
    case SCENE_CUP: {
        double w = s->size[0], height = s->size[1], hole = s->size[2], floor = s->size[3];
        double wall = w - hole;
        out[0] = dCreateBox(space, 2 * w, 2 * w, floor);
        offsets[0][2] = floor / 2;
        /* walls: two spanning the whole width along x, two between them */
        out[1] = dCreateBox(space, 2 * w, wall, height - floor);
        out[2] = dCreateBox(space, 2 * w, wall, height - floor);
        out[3] = dCreateBox(space, wall, 2 * hole, height - floor);
        out[4] = dCreateBox(space, wall, 2 * hole, height - floor);
        double mid = floor + (height - floor) / 2;
        double o[4][3] = {{0, -(hole + wall / 2), mid},
                          {0, hole + wall / 2, mid},
                          {-(hole + wall / 2), 0, mid},
                          {hole + wall / 2, 0, mid}};
        for (int i = 0; i < 4; i++)
            memcpy(offsets[i + 1], o[i], sizeof o[i]);
        return 5;
    }
    }
    return 0;
}

static void solid_mass(const scene_solid *s, dMass *m)
{
    switch (s->shape) {
    case SCENE_BOX: dMassSetBox(m, s->density, s->size[0], s->size[1], s->size[2]); break;
    case SCENE_CYLINDER: dMassSetCylinder(m, s->density, 3, s->size[0], s->size[1]); break;
    case SCENE_SPHERE: dMassSetSphere(m, s->density, s->size[0]); break;
    case SCENE_CUP: dMassSetBox(m, s->density, 2 * s->size[0], 2 * s->size[0], s->size[1]); break;
    case SCENE_CAPSULE: dMassSetCapsule(m, s->density, 3, s->size[0], s->size[1]); break;
    case SCENE_PLANE: dMassSetZero(m); break;
    }
}

scene_params scene_default_params(scene_flavour flavour)
{
    scene_params p = {0};
    p.flavour = flavour;
    p.mu = 0.8;
    p.max_contacts = 64;
    p.dt = 0.002;
    p.steps = 2500;
    p.settle_steps = 100;
    p.gravity[2] = -9.81;
    return p;
}

static double body_speed(dBodyID body)
{
    const dReal *v = dBodyGetLinearVel(body);
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static double body_kinetic(dBodyID body)
{
    dMass m;
    dBodyGetMass(body, &m);
    const dReal *v = dBodyGetLinearVel(body), *w = dBodyGetAngularVel(body),
                *r = dBodyGetRotation(body);
    double e = 0.5 * m.mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    /* angular: w^T R I R^T w */
    double local[3];
    for (int k = 0; k < 3; k++)
        local[k] = r[k] * w[0] + r[4 + k] * w[1] + r[8 + k] * w[2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            e += 0.5 * local[i] * m.I[4 * i + j] * local[j];
    return e;
}

/* Angle between two rotations (row-major 3x4 ODE matrices). */
static double rotation_angle(const dReal *r0, const dReal *r1)
{
    double trace = 0;
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 3; j++)
            trace += r0[4 * j + k] * r1[4 * j + k];
    double c = 0.5 * (trace - 1);
    return acos(c > 1 ? 1 : (c < -1 ? -1 : c));
}

static double axis_angle(const dReal *r0, const dReal *r1)
{
    double c = r0[2] * r1[2] + r0[6] * r1[6] + r0[10] * r1[10];
    return acos(c > 1 ? 1 : (c < -1 ? -1 : c));
}

/* ------------------------------------------------------------ the gripper */

typedef struct gripper_state {
    dBodyID palm, object;
    dJointID lift, slide[2];
    double object_start_z, hold_relative[3];
    int holding;
} gripper_state;

static void relative_to_palm(const gripper_state *g, double out[3])
{
    const dReal *o = dBodyGetPosition(g->object), *p = dBodyGetPosition(g->palm);
    for (int k = 0; k < 3; k++)
        out[k] = o[k] - p[k];
}

/* The palm (1 kg, no geom) above the fingers' centre, on a vertical slider
 * to the world, carrying the fingers. */
static void gripper_build(gripper_state *g, const scene_gripper *desc, dWorldID world,
                          dBodyID solid_body[])
{
    dBodyID fingers[2] = {solid_body[desc->fingers[0]], solid_body[desc->fingers[1]]};
    g->object = solid_body[desc->object];
    g->object_start_z = dBodyGetPosition(g->object)[2];
    g->palm = dBodyCreate(world);
    dMass m;
    dMassSetBoxTotal(&m, 1.0, 0.1, 0.1, 0.02);
    dBodySetMass(g->palm, &m);
    const dReal *a = dBodyGetPosition(fingers[0]), *b = dBodyGetPosition(fingers[1]);
    dBodySetPosition(g->palm, 0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), a[2] + 0.1);
    g->lift = dJointCreateSlider(world, 0);
    dJointAttach(g->lift, g->palm, 0);
    dJointSetSliderAxis(g->lift, 0, 0, 1);
    dJointSetSliderParam(g->lift, dParamFMax, 1e4);
    /* A vise: the -x finger fixed to the palm, the +x finger on a slider
     * along x pushed by its motor (two motorised fingers would leave the
     * pair free to drift together along x once both motors saturate). */
    g->slide[0] = dJointCreateFixed(world, 0);
    dJointAttach(g->slide[0], fingers[0], g->palm);
    dJointSetFixed(g->slide[0]);
    g->slide[1] = dJointCreateSlider(world, 0);
    dJointAttach(g->slide[1], fingers[1], g->palm);
    dJointSetSliderAxis(g->slide[1], 1, 0, 0);
    dJointSetSliderParam(g->slide[1], dParamFMax, desc->squeeze);
}

/* Close (the motors push with at most the squeeze force, and keep pushing),
 * lift, hold. */
static void gripper_drive(gripper_state *g, const scene_gripper *desc, double t, scene_figures *out)
{
    dJointSetSliderParam(g->slide[1], dParamVel, -desc->close_speed);
    int lifting = t >= desc->close_time && t < desc->close_time + desc->lift_time;
    dJointSetSliderParam(g->lift, dParamVel, lifting ? desc->lift_speed : 0.0);
    if (!g->holding && t >= desc->close_time + desc->lift_time) {
        g->holding = 1;
        relative_to_palm(g, g->hold_relative);
        out->lifted = dBodyGetPosition(g->object)[2] - g->object_start_z;
    }
}

static void gripper_finish(const gripper_state *g, scene_figures *out)
{
    double now[3];
    relative_to_palm(g, now);
    out->slip = g->holding ? sqrt((now[0] - g->hold_relative[0]) * (now[0] - g->hold_relative[0]) +
                                  (now[1] - g->hold_relative[1]) * (now[1] - g->hold_relative[1]) +
                                  (now[2] - g->hold_relative[2]) * (now[2] - g->hold_relative[2]))
                           : INFINITY;
}

/* ------------------------------------------------------------ the vehicle */

static void vehicle_build(const scene_vehicle *desc, dWorldID world, dBodyID solid_body[])
{
    dBodyID chassis = solid_body[desc->chassis];
    for (int w = 0; w < 4; w++) {
        dBodyID wheel = solid_body[desc->wheels[w]];
        const dReal *p = dBodyGetPosition(wheel);
        dJointID j = dJointCreateHinge2(world, 0);
        dJointAttach(j, chassis, wheel);
        dJointSetHinge2Anchor(j, p[0], p[1], p[2]);
        static const dReal up[3] = {0, 0, 1}, axle[3] = {0, 1, 0};
        dJointSetHinge2Axes(j, up, axle);
        dJointSetHinge2Param(j, dParamLoStop, 0); /* straight ahead */
        dJointSetHinge2Param(j, dParamHiStop, 0);
        dJointSetHinge2Param(j, dParamSuspensionERP, desc->suspension_erp);
        dJointSetHinge2Param(j, dParamSuspensionCFM, desc->suspension_cfm);
        if (w >= 2) {
            dJointSetHinge2Param(j, dParamVel2, desc->wheel_speed);
            dJointSetHinge2Param(j, dParamFMax2, desc->wheel_torque);
        }
    }
}

/* The chassis' figures of one step. */
static void vehicle_watch(const scene_vehicle *desc, dBodyID solid_body[], scene_figures *out)
{
    const dReal *p = dBodyGetPosition(solid_body[desc->chassis]);
    out->reached = fmax(out->reached, p[0]);
    out->swerve = fmax(out->swerve, fabs(p[1]));
    for (int k = 0; k < 3; k++)
        out->chassis_end[k] = p[k];
}

void scene_states_free(scene_states *states)
{
    free(states->poses);
    memset(states, 0, sizeof *states);
}

/* Appends the bodies' poses as one state; exits when memory runs out (a
 * benchmark's recording). */
static void states_record(scene_states *states, dBodyID *bodies, size_t count)
{
    if (states->count == 0)
        states->bodies = count;
    if (states->count == states->capacity) {
        size_t capacity = states->capacity ? 2 * states->capacity : 64;
        double *poses = realloc(states->poses, capacity * count * 7 * sizeof *poses);
        if (!poses) {
            fprintf(stderr, "scene: out of memory recording states\n");
            exit(1);
        }
        states->poses = poses;
        states->capacity = capacity;
    }
    double *pose = states->poses + states->count++ * count * 7;
    for (size_t b = 0; b < count; b++, pose += 7) {
        const dReal *p = dBodyGetPosition(bodies[b]), *q = dBodyGetQuaternion(bodies[b]);
        for (int k = 0; k < 3; k++)
            pose[k] = p[k];
        for (int k = 0; k < 4; k++)
            pose[3 + k] = q[k];
    }
}

static void states_pose(const scene_states *states, size_t state, dBodyID *bodies)
{
    const double *pose = states->poses + state * states->bodies * 7;
    for (size_t b = 0; b < states->bodies; b++, pose += 7) {
        dQuaternion q = {pose[3], pose[4], pose[5], pose[6]};
        dBodySetPosition(bodies[b], pose[0], pose[1], pose[2]);
        dBodySetQuaternion(bodies[b], q);
    }
}

static int scene_run_with(const scene_desc *scene, const scene_params *params,
                          scene_figures *out);

/*
 * The plugin is made a user of (glcollide's flavour) or let go (ODE's own
 * colliders only) for the run, and given back its count after it: runs in
 * one process (CK_FORK=no, as make tsan runs the suites) then leave the
 * plugin as they found it, its colliders installed over a dInitODE2 that
 * came after.
 */
int scene_run(const scene_desc *scene, const scene_params *params, scene_figures *out)
{
    int glcollide = params->flavour == SCENE_GLCOLLIDE;
    if (glcollide)
        glcollide_ode_init();
    else
        glcollide_ode_shutdown(); /* ODE's own colliders only */
    int status = scene_run_with(scene, params, out);
    if (glcollide)
        glcollide_ode_shutdown();
    else
        glcollide_ode_init();
    return status;
}

static int scene_run_with(const scene_desc *scene, const scene_params *params,
                          scene_figures *out)
{
    memset(out, 0, sizeof *out);
    int mesh_geoms = params->flavour != SCENE_PRIMITIVES;
    int glcollide = params->flavour == SCENE_GLCOLLIDE;

    dRandSetSeed(params->seed);
    run_state run = {
        .params = params, .scene = scene, .trace_from = -1, .contact_hash = CONTACT_HASH_START};
    dSetMessageHandler(message_handler); /* ODE's messages with the step they came at */
    const char *trace = getenv("GLCOLLIDE_SCENE_TRACE");
    if (trace) {
        run.trace_from = run.trace_to = atoi(trace);
        const char *comma = strchr(trace, ',');
        if (comma)
            run.trace_to = atoi(comma + 1);
    }
    run.world = dWorldCreate();
    dSpaceID space = dSimpleSpaceCreate(0);
    run.joints = dJointGroupCreate(0);
    dWorldSetGravity(run.world, params->gravity[0], params->gravity[1], params->gravity[2]);
    dWorldSetERP(run.world, 0.2);
    dWorldSetCFM(run.world, 1e-5);
    dWorldSetQuickStepNumIterations(run.world, 50);
    if (params->max_correcting_vel > 0)
        dWorldSetContactMaxCorrectingVel(run.world, params->max_correcting_vel);

    ode_mesh meshes[SCENE_MAX_SOLIDS] = {{0}};
    dBodyID bodies[SCENE_MAX_SOLIDS], solid_body[SCENE_MAX_SOLIDS] = {0};
    dGeomID solid_geom[SCENE_MAX_SOLIDS] = {0}; /* its first */
    size_t body_count = 0;
    dReal start_pos[SCENE_MAX_SOLIDS][3], start_rot[SCENE_MAX_SOLIDS][12];
    double highest[SCENE_MAX_SOLIDS];
    int status = 0;
    for (size_t i = 0; i < scene->count && status == 0; i++) {
        const scene_solid *s = &scene->solids[i];
        dQuaternion q = {s->rotation[0], s->rotation[1], s->rotation[2], s->rotation[3]};
        dBodyID body = NULL;
        if (!s->fixed) {
            body = dBodyCreate(run.world);
            dMass m;
            solid_mass(s, &m);
            dBodySetMass(body, &m);
            dBodySetPosition(body, s->position[0], s->position[1], s->position[2]);
            dBodySetQuaternion(body, q);
            bodies[body_count] = body;
            highest[body_count] = s->position[2];
            body_count++;
        }
        solid_body[i] = body;
        if (mesh_geoms && !s->primitive) {
            if (!s->mesh || ode_mesh_build(&meshes[i], s->mesh, glcollide) != 0) {
                fprintf(stderr, "%s: solid %zu has no mesh\n", scene->name, i);
                status = -1;
                break;
            }
            dGeomID g = dCreateTriMesh(space, meshes[i].data, NULL, NULL, NULL);
            dGeomSetData(g, (void *)(intptr_t)(8 * (i + 1)));
            solid_geom[i] = g;
            if (body) {
                dGeomSetBody(g, body);
            } else {
                dGeomSetPosition(g, s->position[0], s->position[1], s->position[2]);
                dGeomSetQuaternion(g, q);
            }
        } else {
            dGeomID g[5];
            double offsets[5][3];
            int n = primitive_geoms(s, space, g, offsets);
            for (int k = 0; k < n; k++)
                dGeomSetData(g[k], (void *)(intptr_t)(8 * (i + 1) + k));
            solid_geom[i] = n > 0 ? g[0] : NULL;
            for (int k = 0; k < n && s->shape != SCENE_PLANE; k++) {
                if (body) {
                    dGeomSetBody(g[k], body);
                    dGeomSetOffsetPosition(g[k], offsets[k][0], offsets[k][1], offsets[k][2]);
                } else {
                    dMatrix3 r;
                    dRfromQ(r, q);
                    double world[3];
                    for (int j = 0; j < 3; j++)
                        world[j] = s->position[j] + r[4 * j] * offsets[k][0] +
                                   r[4 * j + 1] * offsets[k][1] + r[4 * j + 2] * offsets[k][2];
                    dGeomSetPosition(g[k], world[0], world[1], world[2]);
                    dGeomSetQuaternion(g[k], q);
                }
            }
        }
    }

    gripper_state grip = {0};
    if (status == 0 && scene->gripper.enabled)
        gripper_build(&grip, &scene->gripper, run.world, solid_body);
    if (status == 0 && scene->vehicle.enabled) {
        vehicle_build(&scene->vehicle, run.world, solid_body);
        for (int w = 0; w < 4; w++)
            run.wheels[w] = solid_geom[scene->vehicle.wheels[w]];
    }
    const scene_states *replay = params->replay;
    if (status == 0 && replay && replay->count && replay->bodies != body_count) {
        fprintf(stderr, "%s: %zu bodies, the states replayed have %zu\n", scene->name, body_count,
                replay->bodies);
        status = -1;
    }
    int steps = replay ? (int)replay->count : params->steps;
    double kinetic_early = 0, kinetic_late = 0;
    int early_steps = 0, late_steps = 0;
    double start = now_ms();
    for (int step = 0; step < steps && status == 0; step++) {
        if (replay)
            states_pose(replay, (size_t)step, bodies);
        else if (scene->gripper.enabled)
            gripper_drive(&grip, &scene->gripper, step * params->dt, out);
        if (step == params->settle_steps)
            for (size_t b = 0; b < body_count; b++) {
                memcpy(start_pos[b], dBodyGetPosition(bodies[b]), sizeof start_pos[b]);
                memcpy(start_rot[b], dBodyGetRotation(bodies[b]), sizeof start_rot[b]);
            }
        run.step = step;
        current_step = step;
        double t0 = now_ms();
        if (glcollide)
            glcollide_ode_space_collide(space, &run, near_callback);
        else
            dSpaceCollide(space, &run, near_callback);
        run.collide_ms += now_ms() - t0;
        if (replay) {
            dJointGroupEmpty(run.joints);
            continue;
        }
        if (params->world_step)
            dWorldStep(run.world, params->dt);
        else
            dWorldQuickStep(run.world, params->dt);
        dJointGroupEmpty(run.joints);
        if (scene->vehicle.enabled)
            vehicle_watch(&scene->vehicle, solid_body, out);
        double kinetic = 0;
        for (size_t b = 0; b < body_count; b++) {
            kinetic += body_kinetic(bodies[b]);
            double z = dBodyGetPosition(bodies[b])[2];
            if (z > highest[b])
                highest[b] = z;
        }
        if (step >= params->steps / 5 && step < 2 * params->steps / 5) {
            kinetic_early += kinetic;
            early_steps++;
        }
        if (step >= params->steps - params->steps / 5) {
            kinetic_late += kinetic;
            late_steps++;
            for (size_t b = 0; b < body_count; b++)
                out->max_speed_late = fmax(out->max_speed_late, body_speed(bodies[b]));
        }
        if (params->record && params->record_every > 0 && step >= params->settle_steps &&
            (step - params->settle_steps) % params->record_every == 0)
            states_record(params->record, bodies, body_count);
    }
    double elapsed = now_ms() - start;

    if (status == 0) { /* per step, or per state replayed */
        out->body_count = body_count;
        out->contacts_per_step = steps ? (double)run.contacts / steps : 0;
        out->max_contacts_step = run.max_step_contacts;
        out->contact_hash = run.contact_hash;
        out->ms_per_step = steps ? elapsed / steps : 0;
        out->collide_ms_per_step = steps ? run.collide_ms / steps : 0;
    }
    if (status == 0 && !replay) {
        for (size_t b = 0; b < body_count; b++) {
            scene_body_figures *f = &out->bodies[b];
            const dReal *p = dBodyGetPosition(bodies[b]), *r = dBodyGetRotation(bodies[b]);
            f->drift = hypot(p[0] - start_pos[b][0], p[1] - start_pos[b][1]);
            f->sink = start_pos[b][2] - p[2];
            f->tilt = axis_angle(start_rot[b], r);
            f->turn = rotation_angle(start_rot[b], r);
            f->rise = highest[b] - scene->solids[0].position[2]; /* replaced below */
            for (int k = 0; k < 3; k++)
                f->final[k] = p[k];
        }
        /* rise: above each body's own start */
        size_t b = 0;
        for (size_t i = 0; i < scene->count; i++)
            if (!scene->solids[i].fixed) {
                out->bodies[b].rise = highest[b] - scene->solids[i].position[2];
                b++;
            }
        for (b = 0; b < body_count; b++) {
            out->max_drift = fmax(out->max_drift, out->bodies[b].drift);
            out->max_sink = fmax(out->max_sink, fabs(out->bodies[b].sink));
            out->max_tilt = fmax(out->max_tilt, out->bodies[b].tilt);
            out->max_rise = fmax(out->max_rise, out->bodies[b].rise);
        }
        out->kinetic_early = early_steps ? kinetic_early / early_steps : 0;
        out->kinetic_late = late_steps ? kinetic_late / late_steps : 0;
        if (scene->gripper.enabled)
            gripper_finish(&grip, out);
        out->wheel_touches = run.wheel_touches;
        out->wheel_single_touches = run.wheel_single_touches;
        out->wheel_contacts_per_touch =
            run.wheel_touches ? (double)run.wheel_contacts / (double)run.wheel_touches : 0;
    }

    dJointGroupDestroy(run.joints);
    dSpaceDestroy(space); /* destroys the geoms */
    dWorldDestroy(run.world);
    for (size_t i = 0; i < scene->count; i++)
        ode_mesh_free(&meshes[i], glcollide);
    return status;
}

void scene_print(const char *label, const scene_figures *f)
{
    printf("%-34s drift %8.4f mm  sink %8.4f mm  tilt %7.4f deg  rise %8.3f mm  KE %.2e -> %.2e J  "
           "vmax %.2e  contacts/step %6.2f (max %d)  %.3f ms/step (collide %.3f)\n",
           label, 1e3 * f->max_drift, 1e3 * f->max_sink, f->max_tilt * 180 / pi, 1e3 * f->max_rise,
           f->kinetic_early, f->kinetic_late, f->max_speed_late, f->contacts_per_step,
           f->max_contacts_step, f->ms_per_step, f->collide_ms_per_step);
}

void scene_print_details(const scene_desc *scene, const scene_figures *f)
{
    if (scene->gripper.enabled)
        printf("  gripper: lifted %.2f mm, slip over the hold %.4f mm\n", 1e3 * f->lifted,
               1e3 * f->slip);
    if (scene->vehicle.enabled)
        printf("  vehicle: reached x %.3f m, swerved %.1f mm, ended at (%.3f, %.4f, %.4f); wheels: "
               "%.2f contacts per touch, %ld of %ld touches with one\n",
               f->reached, 1e3 * f->swerve, f->chassis_end[0], f->chassis_end[1], f->chassis_end[2],
               f->wheel_contacts_per_touch, f->wheel_single_touches, f->wheel_touches);
}
