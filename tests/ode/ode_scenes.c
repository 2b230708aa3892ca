/* SPDX-License-Identifier: MIT */
/* The named scenes of ode_scene.h (scene_by_name), their meshes and
 * builders; ode_scene.c runs them. */
#include "ode/ode_scene.h"

#include "helpers/meshes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

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
    MESH_PLATE,       /* 0.1 x 0.1 x 0.005 */
    MESH_FINE_FLOOR,  /* slab with a 32 x 32 grid on top */
    MESH_BIG_BOX,     /* 0.4 cube, static */
    MESH_BUNNY,       /* libcgal-demo's bunny00.off, 75,408 triangles, fitted to 0.1 */
    MESH_ROTOR,       /* rotor_small.off, 4,800 triangles, fitted to 0.1: flat round ends */
    MESH_ROAD,        /* 6 x 2 x 0.1, its top in a 12 x 4 grid */
    MESH_CAR_RAMP,    /* 2.01 x 2 x 0.1 */
    MESH_PLATEAU,     /* 2 x 2 x 0.4 */
    MESH_NARROW_BEAM, /* 4 x 0.5 x 0.1 */
    MESH_STRIP,       /* 24 x 0.2 x 0.1 */
    MESH_PANEL,       /* an open mesh: a vertical rectangle 24 x 0.3, its top edge at z = 0 */
    MESH_COUNT
};
static glcollide_mesh *meshes[MESH_COUNT];
/* the car's ramp: its top rises 0.3 m over 2 m, from (2, 0) to (4, 0.3) in x, z */
static const double car_ramp_half[3] = {1.0111874208078342, 1, 0.05};

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
    case MESH_ROAD:
        meshes[which] = test_mesh_box((double[3]){3, 1, 0.05}, (int[3]){12, 4, 1});
        break;
    case MESH_CAR_RAMP: meshes[which] = test_mesh_box(car_ramp_half, one); break;
    case MESH_PLATEAU: meshes[which] = test_mesh_box((double[3]){1, 1, 0.2}, one); break;
    case MESH_NARROW_BEAM: meshes[which] = test_mesh_box((double[3]){2, 0.25, 0.05}, one); break;
    case MESH_STRIP: meshes[which] = test_mesh_box((double[3]){12, 0.1, 0.05}, one); break;
    case MESH_PANEL: {
        const double corners[] = {-12, 0, -0.15, 12, 0, -0.15, 12, 0, 0.15, -12, 0, 0.15};
        const uint32_t faces[] = {0, 1, 2, 0, 2, 3};
        glcollide_mesh_create(corners, 4, faces, 2, "panel", &meshes[which]);
        break;
    }
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

/*
 * A car modeled on a racing game's (one whose track is trimeshes, its
 * car ODE's boxes and cylinders): a chassis plate 1.5 x 0.68 x
 * 0.05 m of 4 kg on four wheels (cylinders of radius 0.2 m, 0.2 m wide,
 * 0.2 kg) 1.2 m apart along x and 0.9 m across, the rear wheels driven,
 * starting on the road at x = -1.5.
 */
static void add_car(scene_desc *d)
{
    double radius = 0.2, wheel_z = radius + 0.01;
    scene_solid *chassis =
        add(d, SCENE_BOX, (double[4]){1.5, 0.68, 0.05}, PRIMITIVE, -1.5, 0, wheel_z + 0.07, 0);
    chassis->density = 4.0 / (1.5 * 0.68 * 0.05);
    d->vehicle.chassis = d->count - 1;
    for (int w = 0; w < 4; w++) {
        double x = w < 2 ? -0.9 : -2.1, y = w % 2 ? -0.45 : 0.45;
        scene_solid *wheel =
            add(d, SCENE_CYLINDER, (double[4]){radius, 0.2}, PRIMITIVE, x, y, wheel_z, 0);
        rotate(wheel, pi / 2, x_axis); /* its axle along y */
        wheel->density = 0.2 / (pi * radius * radius * 0.2);
        d->vehicle.wheels[w] = d->count - 1;
    }
    d->vehicle.enabled = 1;
    d->vehicle.wheel_speed = -40;
    d->vehicle.wheel_torque = 3.7;
    d->vehicle.suspension_erp = 0.22;
    d->vehicle.suspension_cfm = 0.06;
}

/*
 * The car's track (car-pit): a road (its top z = 0, x from -3 to 3, 2 m
 * wide), a ramp up to a plateau 0.3 m high (x 2 to 4), the plateau (x 4 to
 * 6), then a pit crossed only by a beam 0.5 m wide at the road's height (x
 * 6 to 10), narrower than the gap between the wheels: the car leaves the
 * plateau's edge at about 8 m/s, its chassis lands on the beam nose first
 * and stays there, straddling it, its wheels hanging in the pit, as the
 * game's car does on its first obstacle.
 */
static void car_on_track(scene_desc *d)
{
    add(d, SCENE_BOX, (double[4]){6, 2, 0.1}, MESH_ROAD, 0, 0, -0.05, 1);
    double a = atan(0.15), h = car_ramp_half[2];
    scene_solid *ramp =
        add(d, SCENE_BOX, (double[4]){2 * car_ramp_half[0], 2 * car_ramp_half[1], 2 * h},
            MESH_CAR_RAMP, 3 + h * sin(a), 0, 0.15 - h * cos(a), 1);
    rotate(ramp, -a, y_axis);
    add(d, SCENE_BOX, (double[4]){2, 2, 0.4}, MESH_PLATEAU, 5, 0, 0.1, 1);
    add(d, SCENE_BOX, (double[4]){4, 0.5, 0.1}, MESH_NARROW_BEAM, 8, 0, -0.05, 1);
    add_car(d);
}

/*
 * The same car driving from the road onto two strips 0.2 m wide (x 3 to
 * 27, their tops at the road's height, nothing between them), one under
 * each side's wheels, centred 0.05 m outside them: each wheel overhangs its
 * strip's inner edge by 0.05 m, as the game's car does on its twin ramps,
 * its line contact running from its outer rim to the strip's edge. As the
 * game's ramps, each strip has a side panel of its own on its inner side:
 * an open mesh of two triangles (a box 2 mm thick among primitives) whose
 * top edge runs along the strip's, under the overhanging wheels.
 */
static void car_on_strips(scene_desc *d)
{
    add(d, SCENE_BOX, (double[4]){6, 2, 0.1}, MESH_ROAD, 0, 0, -0.05, 1);
    for (int side = 0; side < 2; side++) {
        double sign = side ? -1.0 : 1.0;
        add(d, SCENE_BOX, (double[4]){24, 0.2, 0.1}, MESH_STRIP, 15, 0.5 * sign, -0.05, 1);
        /* the game's side panel: an open sheet on the strip's inner side */
        add(d, SCENE_BOX, (double[4]){24, 0.002, 0.3}, MESH_PANEL, 15, 0.4 * sign, -0.15, 1)
            ->side_panel = 1;
    }
    add_car(d);
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
                                    "car-pit",
                                    "car-strips",
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
    } else if (strcmp(name, "car-pit") == 0) {
        car_on_track(d);
    } else if (strcmp(name, "car-strips") == 0) {
        car_on_strips(d);
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
    scene_print_details(&scene, out);
    fflush(stdout);
    return 0;
}
