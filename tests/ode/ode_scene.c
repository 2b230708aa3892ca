/* SPDX-License-Identifier: MIT */
/* Plain ODE programs for judging contacts by simulation (see ode_scene.h). */
#define _POSIX_C_SOURCE 200809L
#include "helpers/contact_hash.h"
#include "ode/ode_scene.h"

#include "helpers/meshes.h"

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
} run_state;

static int current_step = -1;
static void message_handler(int num, const char *msg, va_list ap) GLCOLLIDE_SCENE_PRINTF;
static void message_handler(int num, const char *msg, va_list ap)
{
    fprintf(stderr, "ODE message %d at step %d: ", num, current_step);
    vfprintf(stderr, msg, ap);
    fprintf(stderr, "\n");
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

int scene_run(const scene_desc *scene, const scene_params *params, scene_figures *out)
{
    memset(out, 0, sizeof *out);
    int mesh_geoms = params->flavour != SCENE_PRIMITIVES;
    int glcollide = params->flavour == SCENE_GLCOLLIDE;
    if (glcollide)
        glcollide_ode_init();
    else
        glcollide_ode_shutdown(); /* ODE's own colliders only */

    run_state run = {.params = params, .trace_from = -1, .contact_hash = CONTACT_HASH_START};
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

/* ------------------------------------------------------------ the scenes */

enum {
    MESH_SLAB,
    MESH_CUBE,      /* libcgal-demo's cube.off, 12 triangles, side 0.1 */
    MESH_CUBE_FINE, /* cube-meshed.off, 1,728 triangles, side 0.1 */
    MESH_CYLINDER,  /* 200 sides, fan caps, r 0.05, length 0.1 */
    MESH_BEAM,      /* 0.4 x 0.1 x 0.1 */
    MESH_CUP,
    MESH_PEG,
    MESH_RAMP,
    MESH_SPHERE,
    MESH_PLATE,      /* 0.1 x 0.1 x 0.005 */
    MESH_FINE_FLOOR, /* slab with a 32 x 32 grid on top */
    MESH_BIG_BOX,    /* 0.4 cube, static */
    MESH_BUNNY,      /* libcgal-demo's bunny00.off, 75,408 triangles, fitted to 0.1 */
    MESH_ROTOR,      /* rotor_small.off, 4,800 triangles, fitted to 0.1: flat round ends */
    MESH_COUNT
};
static glcollide_mesh *meshes[MESH_COUNT];

static const glcollide_mesh *data_mesh(const char *file, double scale)
{
    char path[4096];
    glcollide_mesh *mesh = NULL;
    if (glcollide_mesh_find_data(file, path, sizeof path) != GLCOLLIDE_OK ||
        glcollide_mesh_load(path, scale, &mesh) != GLCOLLIDE_OK)
        return NULL;
    return mesh;
}

static const glcollide_mesh *mesh_of(int which)
{
    if (meshes[which])
        return meshes[which];
    static const int one[3] = {1, 1, 1};
    switch (which) {
    case MESH_SLAB: meshes[which] = test_mesh_box((double[3]){0.5, 0.5, 0.05}, one); break;
    case MESH_CUBE: meshes[which] = (glcollide_mesh *)data_mesh("cube.off", 0.05); break;
    case MESH_CUBE_FINE:
        meshes[which] = (glcollide_mesh *)data_mesh("cube-meshed.off", 0.05);
        break;
    case MESH_CYLINDER: meshes[which] = test_mesh_cylinder(0.05, 0.05, 200); break;
    case MESH_BEAM: meshes[which] = test_mesh_box((double[3]){0.2, 0.05, 0.05}, one); break;
    case MESH_CUP: meshes[which] = test_mesh_cup(0.1, 0.1, 0.0501, 0.02); break;
    case MESH_PEG: meshes[which] = test_mesh_box((double[3]){0.05, 0.05, 0.06}, one); break;
    case MESH_RAMP: meshes[which] = test_mesh_box((double[3]){1.0, 0.25, 0.05}, one); break;
    case MESH_SPHERE: glcollide_mesh_generate_sphere(0.05, 48, 24, &meshes[which]); break;
    case MESH_PLATE: meshes[which] = test_mesh_box((double[3]){0.05, 0.05, 0.0025}, one); break;
    case MESH_FINE_FLOOR:
        meshes[which] = test_mesh_box((double[3]){0.5, 0.5, 0.05}, (int[3]){32, 32, 1});
        break;
    case MESH_BIG_BOX: meshes[which] = test_mesh_box((double[3]){0.2, 0.2, 0.2}, one); break;
    case MESH_BUNNY:
    case MESH_ROTOR:
        meshes[which] = (glcollide_mesh *)data_mesh(
            which == MESH_BUNNY ? "bunny00.off" : "rotor_small.off", 1.0);
        if (meshes[which] && glcollide_mesh_fit(meshes[which], 0.1) != GLCOLLIDE_OK)
            glcollide_mesh_destroy(&meshes[which]);
        break;
    }
    return meshes[which];
}

void scene_meshes_release(void)
{
    for (int i = 0; i < MESH_COUNT; i++)
        glcollide_mesh_destroy(&meshes[i]);
}

static scene_solid *add(scene_desc *d, scene_shape shape, const double size[4], int mesh, double x,
                        double y, double z, int fixed)
{
    scene_solid *s = &d->solids[d->count++];
    memset(s, 0, sizeof *s);
    s->shape = shape;
    memcpy(s->size, size, 4 * sizeof *size);
    s->mesh = mesh >= 0 ? mesh_of(mesh) : NULL; /* < 0: a primitive in every flavour */
    s->primitive = mesh < 0;
    s->position[0] = x;
    s->position[1] = y;
    s->position[2] = z;
    s->rotation[0] = 1;
    s->fixed = fixed;
    s->density = 1000;
    return s;
}

static void rotate(scene_solid *s, double angle, const double axis[3])
{
    s->rotation[0] = cos(angle / 2);
    for (int k = 0; k < 3; k++)
        s->rotation[k + 1] = sin(angle / 2) * axis[k];
}

static const double z_axis[3] = {0, 0, 1}, y_axis[3] = {0, 1, 0};

/* p turned by the solid's rotation. */
static void rotate_point(const scene_solid *s, const double p[3], double out[3])
{
    glcollide_pose o = {{0, 0, 0},
                        {s->rotation[0], s->rotation[1], s->rotation[2], s->rotation[3]}};
    glcollide_pose_transform_points(&o, p, 1, out);
}

static void add_slab(scene_desc *d)
{
    add(d, SCENE_BOX, (double[4]){1, 1, 0.1}, MESH_SLAB, 0, 0, -0.05, 1);
}

enum { PRIMITIVE = -1 };

/* ODE's plane z = 0 (the solid below), in every flavour. */
static void add_plane(scene_desc *d)
{
    add(d, SCENE_PLANE, (double[4]){0}, PRIMITIVE, 0, 0, 0, 1);
}

static const double x_axis[3] = {1, 0, 0};

/* ODE's box, sphere, capsule and cylinders (upright and on its side)
 * resting on a table top at z = 0 (a mesh: the slab or the finely
 * tessellated floor). */
static void primitives_on(scene_desc *d, int table)
{
    add(d, SCENE_BOX, (double[4]){1, 1, 0.1}, table, 0, 0, -0.05, 1);
    add(d, SCENE_BOX, (double[4]){0.1, 0.1, 0.1}, PRIMITIVE, -0.3, -0.1, 0.05, 0);
    add(d, SCENE_SPHERE, (double[4]){0.05}, PRIMITIVE, -0.1, -0.1, 0.05, 0);
    scene_solid *capsule =
        add(d, SCENE_CAPSULE, (double[4]){0.03, 0.15}, PRIMITIVE, 0.1, -0.1, 0.03, 0);
    rotate(capsule, pi / 2, x_axis); /* lying along y */
    add(d, SCENE_CYLINDER, (double[4]){0.05, 0.1}, PRIMITIVE, 0.3, -0.1, 0.05, 0);
    scene_solid *side =
        add(d, SCENE_CYLINDER, (double[4]){0.04, 0.12}, PRIMITIVE, 0, 0.25, 0.04, 0);
    rotate(side, pi / 2, x_axis);
}

/*
 * A vise picks a real mesh off a plane (the object's body frame is the
 * mesh's, turned by the quaternion q): two box fingers 2 x 6 x 8 cm (or,
 * with capsules, capsules of radius 1 cm and 6 cm between the caps' centres,
 * lying along y) at the height of the mesh's centre, the fixed one touching
 * its -x side, the moving one 5 mm off its +x side, squeezing with 10 N; the
 * primitive version grips a box of the mesh's bounds, of the same mass.
 */
static void gripper(scene_desc *d, int mesh, const double q[4], double density, int capsules)
{
    add_plane(d);
    const glcollide_mesh *m = mesh_of(mesh);
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, world_lo[3] = {0, 0, 0}, world_hi[3] = {0, 0, 0};
    scene_solid probe = {.rotation = {q[0], q[1], q[2], q[3]}};
    for (size_t v = 0; m && v < m->vertex_count; v++) {
        const double *x = m->positions + 3 * v;
        double w[3];
        rotate_point(&probe, x, w);
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], x[k]);
            hi[k] = fmax(hi[k], x[k]);
            world_lo[k] = fmin(world_lo[k], w[k]);
            world_hi[k] = fmax(world_hi[k], w[k]);
        }
    }
    scene_solid *object =
        add(d, SCENE_BOX, (double[4]){hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}, mesh, 0, 0,
            -world_lo[2] + 1e-4, 0);
    memcpy(object->rotation, q, sizeof object->rotation);
    object->density = density;
    d->gripper.object = d->count - 1;
    double z = object->position[2], finger[4] = {0.02, 0.06, 0.08}, capsule[4] = {0.01, 0.06};
    for (int i = 0; i < 2; i++) {
        double x = i ? world_hi[0] + 0.005 + 0.5 * finger[0] : world_lo[0] - 0.5 * finger[0];
        scene_solid *f = add(d, capsules ? SCENE_CAPSULE : SCENE_BOX, capsules ? capsule : finger,
                             PRIMITIVE, x, 0, z, 0);
        if (capsules)
            rotate(f, pi / 2, x_axis); /* lying along y */
        f->density = capsules ? 2000 : 500;
        d->gripper.fingers[i] = d->count - 1;
    }
    d->gripper.enabled = 1;
    d->gripper.squeeze = 10;
    d->gripper.close_speed = 0.1;
    d->gripper.close_time = 0.3;
    d->gripper.lift_speed = 0.1;
    d->gripper.lift_time = 0.5;
}

/* n cubes of side 0.1 resting face to face, every other one yawed by yaw. */
static void stack_of(scene_desc *d, int mesh, int n, double yaw_degrees)
{
    add_slab(d);
    for (int i = 0; i < n; i++) {
        scene_solid *s =
            add(d, SCENE_BOX, (double[4]){0.1, 0.1, 0.1}, mesh, 0, 0, 0.05 + 0.1 * i, 0);
        if (i % 2)
            rotate(s, yaw_degrees * pi / 180, z_axis);
    }
}

static void ramp(scene_desc *d, double degrees)
{
    double a = degrees * pi / 180;
    scene_solid *r = add(d, SCENE_BOX, (double[4]){2, 0.5, 0.1}, MESH_RAMP, 0, 0, 0, 1);
    rotate(r, a, y_axis);
    /* the box sits on the ramp's top face, 0.05 + 0.05 along its normal */
    double n[3] = {sin(a), 0, cos(a)};
    scene_solid *b = add(d, SCENE_BOX, (double[4]){0.1, 0.1, 0.1}, MESH_CUBE, 0.1 * n[0],
                         0.1 * n[1], 0.1 * n[2], 0);
    rotate(b, a, y_axis);
}

/* The 200-sided mesh cylinder on its side on a floor at z = 0. */
static void cylinder_on_side(scene_desc *d)
{
    /* on its side, a facet of the 200-gon down (turned half a facet
     * about its axis: on an edge it would rest in unstable balance),
     * its centre a facet's apothem above the floor */
    double apothem = 0.05 * cos(pi / 200);
    scene_solid *s =
        add(d, SCENE_CYLINDER, (double[4]){0.05, 0.1}, MESH_CYLINDER, 0, 0, apothem, 0);
    double half = pi / 400, qx[4] = {cos(pi / 4), sin(pi / 4), 0, 0},
           qz[4] = {cos(half), 0, 0, sin(half)};
    /* q = qx * qz */
    s->rotation[0] = qx[0] * qz[0] - qx[1] * qz[1] - qx[2] * qz[2] - qx[3] * qz[3];
    s->rotation[1] = qx[0] * qz[1] + qx[1] * qz[0] + qx[2] * qz[3] - qx[3] * qz[2];
    s->rotation[2] = qx[0] * qz[2] - qx[1] * qz[3] + qx[2] * qz[0] + qx[3] * qz[1];
    s->rotation[3] = qx[0] * qz[3] + qx[1] * qz[2] - qx[2] * qz[1] + qx[3] * qz[0];
}

static const char *const names[] = {"box",
                                    "stack2",
                                    "stack-cube",
                                    "stack-cube-yaw10",
                                    "stack-cube-yaw45",
                                    "stack-fine",
                                    "stack-fine-yaw10",
                                    "stack-fine-yaw45",
                                    "stack-cylinders",
                                    "bridge",
                                    "peg",
                                    "sphere",
                                    "cylinder-side",
                                    "plates",
                                    "fine-floor",
                                    "contained",
                                    "ramp-10",
                                    "ramp-15",
                                    "ramp-25",
                                    "ramp-30",
                                    "ramp-45",
                                    "box-plane",
                                    "fine-box-plane",
                                    "box-on-ode-box",
                                    "primitives-on-table",
                                    "primitives-on-fine-table",
                                    "cylinder-side-plane",
                                    "gripper-rotor",
                                    "gripper-rotor-capsules",
                                    "gripper-bunny",
                                    NULL};

const char *const *scene_names(void)
{
    return names;
}

int scene_by_name(const char *name, scene_desc *d)
{
    memset(d, 0, sizeof *d);
    d->name = name;
    if (strcmp(name, "box") == 0)
        stack_of(d, MESH_CUBE, 1, 0);
    else if (strcmp(name, "stack2") == 0)
        stack_of(d, MESH_CUBE, 2, 0);
    else if (strcmp(name, "stack-cube") == 0)
        stack_of(d, MESH_CUBE, 5, 0);
    else if (strcmp(name, "stack-cube-yaw10") == 0)
        stack_of(d, MESH_CUBE, 5, 10);
    else if (strcmp(name, "stack-cube-yaw45") == 0)
        stack_of(d, MESH_CUBE, 5, 45);
    else if (strcmp(name, "stack-fine") == 0)
        stack_of(d, MESH_CUBE_FINE, 5, 0);
    else if (strcmp(name, "stack-fine-yaw10") == 0)
        stack_of(d, MESH_CUBE_FINE, 5, 10);
    else if (strcmp(name, "stack-fine-yaw45") == 0)
        stack_of(d, MESH_CUBE_FINE, 5, 45);
    else if (strcmp(name, "stack-cylinders") == 0) {
        add_slab(d);
        for (int i = 0; i < 3; i++)
            add(d, SCENE_CYLINDER, (double[4]){0.05, 0.1}, MESH_CYLINDER, 0, 0, 0.05 + 0.1 * i, 0);
    } else if (strcmp(name, "bridge") == 0) {
        add_slab(d);
        add(d, SCENE_BOX, (double[4]){0.1, 0.1, 0.1}, MESH_CUBE, -0.125, 0, 0.05, 0);
        add(d, SCENE_BOX, (double[4]){0.1, 0.1, 0.1}, MESH_CUBE, 0.125, 0, 0.05, 0);
        add(d, SCENE_BOX, (double[4]){0.4, 0.1, 0.1}, MESH_BEAM, 0, 0, 0.15, 0);
    } else if (strcmp(name, "peg") == 0) {
        add_slab(d);
        add(d, SCENE_CUP, (double[4]){0.1, 0.1, 0.0501, 0.02}, MESH_CUP, 0, 0, 0, 1);
        add(d, SCENE_BOX, (double[4]){0.1, 0.1, 0.12}, MESH_PEG, 0, 0, 0.02 + 0.06, 0);
    } else if (strcmp(name, "sphere") == 0) {
        add_slab(d);
        add(d, SCENE_SPHERE, (double[4]){0.05}, MESH_SPHERE, 0, 0, 0.05, 0);
    } else if (strcmp(name, "cylinder-side") == 0) {
        add_slab(d);
        cylinder_on_side(d);
    } else if (strcmp(name, "plates") == 0) {
        add_slab(d);
        for (int i = 0; i < 5; i++)
            add(d, SCENE_BOX, (double[4]){0.1, 0.1, 0.005}, MESH_PLATE, 0, 0, 0.0025 + 0.005 * i,
                0);
    } else if (strcmp(name, "fine-floor") == 0) {
        add(d, SCENE_BOX, (double[4]){1, 1, 0.1}, MESH_FINE_FLOOR, 0, 0, -0.05, 1);
        for (int i = 0; i < 3; i++)
            add(d, SCENE_BOX, (double[4]){0.1, 0.1, 0.1}, MESH_CUBE, 0.013 * i, 0.007 * i,
                0.05 + 0.1 * i, 0);
    } else if (strcmp(name, "contained") == 0) {
        add_slab(d);
        add(d, SCENE_BOX, (double[4]){0.4, 0.4, 0.4}, MESH_BIG_BOX, 0, 0, 0.2, 1);
        add(d, SCENE_BOX, (double[4]){0.1, 0.1, 0.1}, MESH_CUBE, 0.13, 0.02, 0.25, 0);
    } else if (strncmp(name, "ramp-", 5) == 0) {
        ramp(d, atof(name + 5));
    } else if (strcmp(name, "box-plane") == 0) {
        add_plane(d);
        add(d, SCENE_BOX, (double[4]){0.1, 0.1, 0.1}, MESH_CUBE, 0, 0, 0.05, 0);
    } else if (strcmp(name, "fine-box-plane") == 0) {
        add_plane(d);
        add(d, SCENE_BOX, (double[4]){0.1, 0.1, 0.1}, MESH_CUBE_FINE, 0.02, 0.01, 0.05, 0);
    } else if (strcmp(name, "box-on-ode-box") == 0) {
        add_plane(d);
        add(d, SCENE_BOX, (double[4]){0.3, 0.3, 0.1}, PRIMITIVE, 0, 0, 0.05, 0);
        add(d, SCENE_BOX, (double[4]){0.1, 0.1, 0.1}, MESH_CUBE, 0.03, -0.02, 0.15, 0);
    } else if (strcmp(name, "primitives-on-table") == 0) {
        primitives_on(d, MESH_SLAB);
    } else if (strcmp(name, "primitives-on-fine-table") == 0) {
        primitives_on(d, MESH_FINE_FLOOR);
    } else if (strcmp(name, "cylinder-side-plane") == 0) {
        add_plane(d);
        cylinder_on_side(d);
    } else if (strcmp(name, "gripper-rotor") == 0) {
        /* its axis (mesh z) along x, squeezed on its flat round ends */
        gripper(d, MESH_ROTOR, (double[4]){cos(pi / 4), 0, sin(pi / 4), 0}, 300, 0);
    } else if (strcmp(name, "gripper-rotor-capsules") == 0) {
        gripper(d, MESH_ROTOR, (double[4]){cos(pi / 4), 0, sin(pi / 4), 0}, 300, 1);
    } else if (strcmp(name, "gripper-bunny") == 0) {
        /* up (mesh y) turned to z, squeezed where it is widest along x */
        gripper(d, MESH_BUNNY, (double[4]){cos(pi / 4), sin(pi / 4), 0, 0}, 200, 0);
    } else {
        return -1;
    }
    for (size_t i = 0; i < d->count; i++)
        if (!d->solids[i].mesh && !d->solids[i].primitive)
            return -1;
    return 0;
}

int scene_run_named(const char *name, const scene_params *params, scene_figures *out)
{
    scene_desc scene;
    if (scene_by_name(name, &scene) != 0) {
        fprintf(stderr, "scene %s: unknown or a mesh is missing\n", name);
        return -1;
    }
    if (scene_run(&scene, params, out) != 0)
        return -1;
    static const char *const flavours[] = {"primitives", "glcollide", "ode-trimesh"};
    char label[96];
    snprintf(label, sizeof label, "%s %s %s%s", name, flavours[params->flavour],
             params->world_step ? "world" : "quick", params->approx1 ? " approx1" : "");
    scene_print(label, out);
    if (scene.gripper.enabled)
        printf("  gripper: lifted %.2f mm, slip over the hold %.4f mm\n", 1e3 * out->lifted,
               1e3 * out->slip);
    fflush(stdout);
    return 0;
}
