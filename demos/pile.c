/* SPDX-License-Identifier: MIT */
/*
 * demos/pile: a falling pile in a bin — boxes, spheres, capsules and real
 * meshes (libcgal-demo's bunny, cow, elephant, armadillo, knots) — with
 * glcollide's space and contacts or with ODE's own spaces and OPCODE.
 * Headless by default: per-step statistics every --report steps, a PNG of the
 * final frame (pile.png in the current directory) and a one-line summary as
 * the last line. --window opens a GLFW window (arrow keys orbit, +/- zoom).
 *
 *   pile [--objects N] [--steps S] [--space glcollide|ode-simple|ode-sap|ode-hash]
 *        [--gpu auto|always|never] [--deform none|refit|rebuild] [--output FILE]
 *        [--report K] [--primitives glcollide|ode] [--stencil RESOLUTION] [--pair-times]
 *        [--window]
 *
 * --primitives ode keeps ODE's own colliders for the meshes' pairs with the
 * floor's and walls' planes and the boxes, spheres and capsules (with
 * --space glcollide; glcollide's are the default there). --pair-times times
 * every trimesh-plane dCollide call and prints, over the second half of the
 * run (the pile settled), the medians per step of that time, of the step and
 * of the collision, and the planes' share of the step ("pile-settled: ...").
 *
 * --deform makes the real meshes breathe every step (each vertex scaled by up
 * to 4% with a phase along the mesh's height, so the shape stays closed):
 * "refit" tells ODE with dGeomTriMeshDataUpdate (OPCODE refits its trees),
 * "rebuild" builds the trimesh data again (OPCODE rebuilds, as for a mesh
 * that breaks); glcollide is told with glcollide_ode_trimesh_data_changed.
 */
#define _POSIX_C_SOURCE 200809L
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "../tests/helpers/contact_hash.h"
#include "render.h"

#include <glcollide/glcollide.h>
#include <glcollide/ode.h>

#include <dlfcn.h>
#include <epoxy/gl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_GLFW
#include "window.h"
#endif

#define MAX_CONTACTS 12
#define BIN 1.5 /* half width of the bin */

typedef enum { SPACE_GLCOLLIDE, SPACE_SIMPLE, SPACE_SAP, SPACE_HASH } space_kind;

typedef struct pile {
    dWorldID world;
    dSpaceID space;
    dJointGroupID contacts;
    space_kind kind;
    int pair_times;          /* --pair-times */
    double trimesh_plane_ms; /* this step's time in trimesh-plane dCollide calls */
    dBodyID *bodies;
    dGeomID *geoms;
    int *shape; /* index into shapes */
    int count;
    unsigned long step_pairs, step_contacts;
    uint64_t contact_hash; /* of every contact made, bit for bit (FNV-1a) */
} pile;

/* Render and collision shapes: generated primitives' meshes (for drawing)
 * and real meshes (drawn and collided as ODE trimeshes). */
typedef struct shape {
    glcollide_mesh *mesh; /* object space, for drawing (and trimesh data) */
    dTriMeshDataID data;  /* trimeshes only */
    dTriIndex *indices;
    double *vertices; /* what ODE reads: mesh->positions, deformed with --deform */
    float color[3];
    double half[3]; /* half extents of the bounds */
    int kind;       /* 0 box, 1 sphere, 2 capsule, 3 trimesh */
} shape;

static shape shapes[16];
static int shape_count;
static int glcollide_in_use; /* --space glcollide */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void near_callback(void *data, dGeomID o1, dGeomID o2)
{
    pile *p = data;
    if (dGeomIsSpace(o1) || dGeomIsSpace(o2)) {
        dSpaceCollide2(o1, o2, data, near_callback);
        return;
    }
    p->step_pairs++;
    dBodyID b1 = dGeomGetBody(o1), b2 = dGeomGetBody(o2);
    dContact contact[MAX_CONTACTS];
    int c1 = dGeomGetClass(o1), c2 = dGeomGetClass(o2);
    int timed = p->pair_times && ((c1 == dTriMeshClass && c2 == dPlaneClass) ||
                                  (c1 == dPlaneClass && c2 == dTriMeshClass));
    double t0 = timed ? now_ms() : 0.0;
    int n = dCollide(o1, o2, MAX_CONTACTS, &contact[0].geom, sizeof contact[0]);
    if (timed)
        p->trimesh_plane_ms += now_ms() - t0;
    for (int i = 0; i < n; i++) {
        p->contact_hash = contact_hash_add(p->contact_hash, &contact[i].geom);
        contact[i].surface.mode = dContactSoftCFM | dContactSoftERP;
        contact[i].surface.mu = 0.7;
        contact[i].surface.soft_cfm = 1e-4;
        contact[i].surface.soft_erp = 0.4;
        dJointAttach(dJointCreateContact(p->world, p->contacts, &contact[i]), b1, b2);
    }
    p->step_contacts += (unsigned long)n;
}

static void add_primitive_shape(int kind, glcollide_mesh *mesh, const double half[3], float r,
                                float g, float b)
{
    shape *s = &shapes[shape_count++];
    s->kind = kind;
    s->mesh = mesh;
    memcpy(s->half, half, sizeof s->half);
    s->color[0] = r, s->color[1] = g, s->color[2] = b;
}

static void build_data(shape *s)
{
#ifdef dDOUBLE
    dGeomTriMeshDataBuildDouble(s->data, s->vertices, 3 * sizeof(double),
                                (int)s->mesh->vertex_count, s->indices,
                                (int)(3 * s->mesh->triangle_count), 3 * sizeof(dTriIndex));
    /* glcollide reads the same arrays (exact vertices, cheap re-reads). */
    if (glcollide_in_use)
        glcollide_ode_trimesh_data_build_double(
            s->data, s->vertices, 3 * sizeof(double), (int)s->mesh->vertex_count, s->indices,
            (int)(3 * s->mesh->triangle_count), 3 * sizeof(dTriIndex));
#else
#error "the pile demo feeds double vertices to ODE: build ODE with double precision"
#endif
}

typedef enum { DEFORM_NONE, DEFORM_REFIT, DEFORM_REBUILD } deform_kind;

/* Step s of --deform: every real mesh breathes (closed shapes stay closed).
 * The new vertices are the application's business, outside the timings. */
static void deform_vertices(int step)
{
    for (int i = 0; i < shape_count; i++) {
        shape *sh = &shapes[i];
        if (sh->kind != 3)
            continue;
        const glcollide_mesh *m = sh->mesh;
        double height = fmax(sh->half[2], 1e-9);
        for (size_t v = 0; v < m->vertex_count; v++) {
            const double *rest = m->positions + 3 * v;
            double scale = 1.0 + 0.04 * sin(0.05 * step + 3.0 * rest[2] / height + i);
            for (int k = 0; k < 3; k++)
                sh->vertices[3 * v + k] = scale * rest[k];
        }
    }
}

/* Telling the collision code, timed with it: ODE refits or rebuilds OPCODE's
 * trees; glcollide captures the vertices again and refits its BVH. */
static void announce_deformation(deform_kind deform, int glcollide_space)
{
    for (int i = 0; i < shape_count; i++) {
        shape *sh = &shapes[i];
        if (sh->kind != 3)
            continue;
        if (deform == DEFORM_REBUILD)
            build_data(sh);
        else
            dGeomTriMeshDataUpdate(sh->data);
        if (glcollide_space)
            glcollide_ode_trimesh_data_changed(sh->data);
    }
}

/* A real mesh scaled so its largest side is size, centred on its bounds. */
static void add_mesh_shape(const char *name, double size, float r, float g, float b)
{
    char path[4096];
    glcollide_mesh *mesh = NULL;
    if (glcollide_mesh_find_data(name, path, sizeof path) != GLCOLLIDE_OK ||
        glcollide_mesh_load(path, 1.0, &mesh) != GLCOLLIDE_OK)
        return; /* logged by glcollide; the pile goes on without it */
    if (glcollide_mesh_fit(mesh, size) != GLCOLLIDE_OK) {
        glcollide_mesh_destroy(&mesh);
        return;
    }
    shape *s = &shapes[shape_count++];
    s->kind = 3;
    s->mesh = mesh;
    for (int k = 0; k < 3; k++)
        s->half[k] = 0.0;
    for (size_t v = 0; v < mesh->vertex_count; v++) /* fitted: the box is centred */
        for (int k = 0; k < 3; k++)
            s->half[k] = fmax(s->half[k], fabs(mesh->positions[3 * v + k]));
    s->indices = malloc(3 * mesh->triangle_count * sizeof *s->indices);
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
        s->indices[i] = (dTriIndex)mesh->triangles[i];
    s->vertices = malloc(3 * mesh->vertex_count * sizeof *s->vertices);
    memcpy(s->vertices, mesh->positions, 3 * mesh->vertex_count * sizeof *s->vertices);
    s->data = dGeomTriMeshDataCreate();
    build_data(s);
    s->color[0] = r, s->color[1] = g, s->color[2] = b;
}

static void make_shapes(void)
{
    glcollide_mesh *m = NULL;
    const double box[3] = {0.12, 0.08, 0.06}, ball[3] = {0.09, 0.09, 0.09},
                 pill[3] = {0.05, 0.05, 0.13};
    glcollide_mesh_generate_box(box[0], box[1], box[2], &m);
    add_primitive_shape(0, m, box, 0.85f, 0.45f, 0.25f);
    glcollide_mesh_generate_sphere(ball[0], 16, 8, &m);
    add_primitive_shape(1, m, ball, 0.3f, 0.55f, 0.85f);
    glcollide_mesh_generate_capsule(0.05, 0.08, 12, 3, &m);
    add_primitive_shape(2, m, pill, 0.45f, 0.75f, 0.35f);
    add_mesh_shape("bunny00.off", 0.3, 0.8f, 0.75f, 0.6f);
    add_mesh_shape("cow.off", 0.3, 0.55f, 0.4f, 0.3f);
    add_mesh_shape("elephant.off", 0.3, 0.6f, 0.6f, 0.65f);
    add_mesh_shape("armadillo.off", 0.3, 0.7f, 0.5f, 0.35f);
    add_mesh_shape("knot1.off", 0.25, 0.8f, 0.3f, 0.5f);
    add_mesh_shape("knot2.off", 0.25, 0.5f, 0.3f, 0.8f);
}

static dSpaceID make_space(space_kind kind)
{
    switch (kind) {
    case SPACE_GLCOLLIDE: return glcollide_ode_space_create(NULL);
    case SPACE_SAP: return dSweepAndPruneSpaceCreate(NULL, dSAP_AXES_XYZ);
    case SPACE_HASH: return dHashSpaceCreate(NULL);
    default: return dSimpleSpaceCreate(NULL);
    }
}

static void build_pile(pile *p, int count)
{
    p->world = dWorldCreate();
    dWorldSetGravity(p->world, 0, 0, -9.81);
    dWorldSetCFM(p->world, 1e-5);
    dWorldSetContactSurfaceLayer(p->world, 0.001);
    dWorldSetQuickStepNumIterations(p->world, 30);
    p->space = make_space(p->kind);
    p->contacts = dJointGroupCreate(0);
    dCreatePlane(p->space, 0, 0, 1, 0);
    dCreatePlane(p->space, 1, 0, 0, -BIN);
    dCreatePlane(p->space, -1, 0, 0, -BIN);
    dCreatePlane(p->space, 0, 1, 0, -BIN);
    dCreatePlane(p->space, 0, -1, 0, -BIN);
    p->count = count;
    p->bodies = calloc((size_t)count, sizeof *p->bodies);
    p->geoms = calloc((size_t)count, sizeof *p->geoms);
    p->shape = calloc((size_t)count, sizeof *p->shape);
    unsigned state = 2024;
    int per_layer = 36; /* a 6 x 6 grid per layer, 0.4 apart */
    for (int i = 0; i < count; i++) {
        int s = i % shape_count;
        shape *sh = &shapes[s];
        dBodyID body = dBodyCreate(p->world);
        dMass mass;
        dGeomID g;
        switch (sh->kind) {
        case 0:
            g = dCreateBox(p->space, 2 * sh->half[0], 2 * sh->half[1], 2 * sh->half[2]);
            dMassSetBoxTotal(&mass, 0.5, 2 * sh->half[0], 2 * sh->half[1], 2 * sh->half[2]);
            break;
        case 1:
            g = dCreateSphere(p->space, sh->half[0]);
            dMassSetSphereTotal(&mass, 0.4, sh->half[0]);
            break;
        case 2:
            g = dCreateCapsule(p->space, 0.05, 0.16);
            dMassSetCapsuleTotal(&mass, 0.3, 3, 0.05, 0.16);
            break;
        default:
            g = dCreateTriMesh(p->space, sh->data, NULL, NULL, NULL);
            dMassSetBoxTotal(&mass, 0.6, 2 * sh->half[0], 2 * sh->half[1], 2 * sh->half[2]);
            break;
        }
        dBodySetMass(body, &mass);
        dGeomSetBody(g, body);
        dGeomSetData(g, (void *)(intptr_t)(i + 1));
        int layer = i / per_layer, cell = i % per_layer;
        state = state * 1103515245u + 12345u;
        double jitter = ((state >> 8) % 1000) / 1000.0 * 0.1 - 0.05;
        dBodySetPosition(body, -1.0 + 0.4 * (cell % 6) + jitter, -1.0 + 0.4 * (cell / 6) - jitter,
                         0.3 + 0.4 * layer);
        dMatrix3 r;
        dRFromAxisAndAngle(r, jitter + 0.3, 1 - jitter, 0.5, 0.7 * i);
        dBodySetRotation(body, r);
        p->bodies[i] = body;
        p->geoms[i] = g;
        p->shape[i] = s;
    }
}

static void draw_pile(demo_renderer *renderer, const pile *p)
{
    demo_renderer_clear(renderer);
    double floor[2 * 9] = {-BIN, -BIN, 0, BIN, -BIN, 0, BIN,  BIN, 0,
                           -BIN, -BIN, 0, BIN, BIN,  0, -BIN, BIN, 0};
    const float grey[3] = {0.7f, 0.7f, 0.68f};
    demo_renderer_add(renderer, floor, 2, grey);
    double *triangles = NULL;
    size_t capacity = 0;
    for (int i = 0; i < p->count; i++) {
        const shape *sh = &shapes[p->shape[i]];
        const glcollide_mesh *m = sh->mesh;
        if (m->triangle_count > capacity) {
            capacity = m->triangle_count;
            triangles = realloc(triangles, 9 * capacity * sizeof *triangles);
        }
        const dReal *pos = dBodyGetPosition(p->bodies[i]);
        const dReal *rot = dBodyGetRotation(p->bodies[i]);
        for (size_t t = 0; t < m->triangle_count; t++)
            for (int c = 0; c < 3; c++) {
                const double *v = m->positions + 3 * (size_t)m->triangles[3 * t + c];
                for (int k = 0; k < 3; k++)
                    triangles[9 * t + 3 * c + k] =
                        rot[4 * k] * v[0] + rot[4 * k + 1] * v[1] + rot[4 * k + 2] * v[2] + pos[k];
            }
        demo_renderer_add(renderer, triangles, m->triangle_count, sh->color);
    }
    free(triangles);
}

/* A field of /proc/self/status in KiB (VmHWM: peak resident set, VmRSS:
 * current); 0 where unknown. */
static double status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kib = 0;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0 && line[n] == ':' &&
            sscanf(line + n + 1, "%lf", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of values[first, first + count) (sorted in place). */
static double median_of(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare_double);
    return count ? values[count / 2] : 0.0;
}

/* --pair-times: over the second half of the run, the pile settled, the
 * median per step of the trimesh-plane dCollide time, of the step and of
 * the collision, and the median of each step's plane share. */
static void print_settled(int steps, double *collide_ms, const double *step_ms,
                          const double *plane_ms)
{
    int first = steps / 2, count = steps - first;
    double *v = malloc((size_t)(4 * (count ? count : 1)) * sizeof *v);
    if (!v)
        return;
    double *step = v, *collide = v + count, *plane = v + 2 * count, *share = v + 3 * count;
    for (int i = 0; i < count; i++) {
        step[i] = step_ms[first + i];
        collide[i] = collide_ms[first + i];
        plane[i] = plane_ms[first + i];
        share[i] = step[i] > 0.0 ? plane[i] / step[i] : 0.0;
    }
    printf("pile-settled: steps=%d step_ms_median=%.3f collide_ms_median=%.3f "
           "trimesh_plane_ms_median=%.4f trimesh_plane_share_median=%.4f\n",
           count, median_of(step, count), median_of(collide, count), median_of(plane, count),
           median_of(share, count));
    free(v);
}

int main(int argc, char **argv)
{
    int objects = 200, steps = 500, report = 50, window = 0, count_allocations = 0, pair_times = 0;
    const char *output = "pile.png", *space_name = "glcollide", *gpu = "auto",
               *deform_name = "none", *primitives = "glcollide";
    int stencil = 0;
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--window") == 0)
            window = 1;
        else if (strcmp(argv[i], "--count-allocations") == 0)
            count_allocations = 1;
        else if (strcmp(argv[i], "--pair-times") == 0)
            pair_times = 1;
        else if (strcmp(argv[i], "--primitives") == 0 && value)
            primitives = argv[++i];
        else if (strcmp(argv[i], "--objects") == 0 && value)
            objects = atoi(argv[++i]);
        else if (strcmp(argv[i], "--steps") == 0 && value)
            steps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--report") == 0 && value)
            report = atoi(argv[++i]);
        else if (strcmp(argv[i], "--output") == 0 && value)
            output = argv[++i];
        else if (strcmp(argv[i], "--space") == 0 && value)
            space_name = argv[++i];
        else if (strcmp(argv[i], "--gpu") == 0 && value)
            gpu = argv[++i];
        else if (strcmp(argv[i], "--stencil") == 0 && value)
            stencil = atoi(argv[++i]);
        else if (strcmp(argv[i], "--deform") == 0 && value)
            deform_name = argv[++i];
        else {
            fprintf(stderr, "usage: pile [--objects N] [--steps S] [--space glcollide|ode-simple|"
                            "ode-sap|ode-hash] [--gpu auto|always|never] "
                            "[--deform none|refit|rebuild] [--output FILE] [--report K] "
                            "[--primitives glcollide|ode] [--stencil RESOLUTION] [--pair-times] "
                            "[--window]\n");
            return 2;
        }
    }
    pile p = {.contact_hash = CONTACT_HASH_START};
    if (strcmp(space_name, "glcollide") == 0)
        p.kind = SPACE_GLCOLLIDE;
    else if (strcmp(space_name, "ode-simple") == 0)
        p.kind = SPACE_SIMPLE;
    else if (strcmp(space_name, "ode-sap") == 0)
        p.kind = SPACE_SAP;
    else if (strcmp(space_name, "ode-hash") == 0)
        p.kind = SPACE_HASH;
    else {
        fprintf(stderr, "pile: unknown space '%s'\n", space_name);
        return 2;
    }
    deform_kind deform = DEFORM_NONE;
    if (strcmp(deform_name, "refit") == 0)
        deform = DEFORM_REFIT;
    else if (strcmp(deform_name, "rebuild") == 0)
        deform = DEFORM_REBUILD;
    else if (strcmp(deform_name, "none") != 0) {
        fprintf(stderr, "pile: unknown --deform '%s' (none, refit, rebuild)\n", deform_name);
        return 2;
    }
    if (strcmp(primitives, "glcollide") != 0 && strcmp(primitives, "ode") != 0) {
        fprintf(stderr, "pile: unknown --primitives '%s' (glcollide, ode)\n", primitives);
        return 2;
    }
    p.pair_times = pair_times;
    if (objects < 1 || steps < 1 || report < 1) {
        fprintf(stderr, "pile: --objects, --steps and --report must be positive\n");
        return 2;
    }
    dInitODE2(0);
    glcollide_in_use = p.kind == SPACE_GLCOLLIDE;
    if (p.kind == SPACE_GLCOLLIDE) {
        /* Before init: with "never" no GL context is made at all. */
        glcollide_ode_set_gpu(strcmp(gpu, "always") == 0  ? GLCOLLIDE_ODE_GPU_ALWAYS
                              : strcmp(gpu, "never") == 0 ? GLCOLLIDE_ODE_GPU_NEVER
                                                          : GLCOLLIDE_ODE_GPU_AUTO);
        glcollide_ode_set_primitive_contacts(strcmp(primitives, "glcollide") == 0);
        glcollide_ode_set_stencil_flags(stencil);
        glcollide_ode_init(); /* falls back to the CPU path, logged */
    }
    make_shapes();
    build_pile(&p, objects);

    /* The picture: a GLFW window, or an offscreen frame at the end. */
    glcollide_context *gl = NULL;
    demo_renderer *renderer = NULL;
#ifdef HAVE_GLFW
    GLFWwindow *win = NULL;
    if (window) {
        win = demo_window_open("pile", 1024, 768, 3, 3);
        if (!win)
            return 1;
        renderer = demo_renderer_create(1024, 768, 0);
    }
#else
    if (window) {
        fprintf(stderr, "pile: built without GLFW: --window is not available\n");
        return 2;
    }
#endif
    /* With tests/alloc_count preloaded: heap allocations during collision
     * (space, callbacks, contacts) in the second half of the run. */
    unsigned long *allocations =
        count_allocations ? dlsym(RTLD_DEFAULT, "glcollide_test_allocations") : NULL;
    unsigned long *driver_allocations =
        count_allocations ? dlsym(RTLD_DEFAULT, "glcollide_test_driver_allocations") : NULL;
    unsigned long warm_allocations = 0, warm_driver_allocations = 0;
    /* glcollide's work counters when the second half (warm steps) begins */
    glcollide_ode_stats warm_start = {0};
    if (count_allocations && !allocations)
        fprintf(stderr, "pile: --count-allocations needs LD_PRELOAD of the allocation counter\n");
    double *collide_ms = malloc((size_t)steps * sizeof *collide_ms);
    double *step_ms = malloc((size_t)steps * sizeof *step_ms);
    double *plane_ms = malloc((size_t)steps * sizeof *plane_ms);
    unsigned long total_pairs = 0, total_contacts = 0;
    double yaw = 0.6, distance = 3.6;
    for (int s = 0; s < steps; s++) {
        if (deform != DEFORM_NONE)
            deform_vertices(s);
        double t0 = now_ms();
        if (deform != DEFORM_NONE)
            announce_deformation(deform, p.kind == SPACE_GLCOLLIDE);
        p.step_pairs = p.step_contacts = 0;
        p.trimesh_plane_ms = 0.0;
        if (s == steps / 2 && p.kind == SPACE_GLCOLLIDE)
            glcollide_ode_get_stats(&warm_start);
        unsigned long allocations_before = allocations ? *allocations : 0;
        unsigned long driver_before = driver_allocations ? *driver_allocations : 0;
        if (p.kind == SPACE_GLCOLLIDE)
            glcollide_ode_space_collide(p.space, &p, near_callback);
        else
            dSpaceCollide(p.space, &p, near_callback);
        double t1 = now_ms();
        if (allocations && s >= steps / 2) {
            unsigned long driver = driver_allocations ? *driver_allocations - driver_before : 0;
            warm_allocations += *allocations - allocations_before - driver;
            warm_driver_allocations += driver;
        }
        dWorldQuickStep(p.world, 0.005);
        dJointGroupEmpty(p.contacts);
        double t2 = now_ms();
        collide_ms[s] = t1 - t0;
        step_ms[s] = t2 - t0;
        plane_ms[s] = p.trimesh_plane_ms;
        total_pairs += p.step_pairs;
        total_contacts += p.step_contacts;
        if ((s + 1) % report == 0 || s + 1 == steps) {
            printf("step %d: pairs %lu contacts %lu collide %.2f ms step %.2f ms rss %.1f MB\n",
                   s + 1, p.step_pairs, p.step_contacts, collide_ms[s], step_ms[s],
                   status_kib("VmRSS") / 1024.0);
            fflush(stdout); /* progress visible in the logs of long runs (soaks) */
        }
#ifdef HAVE_GLFW
        if (win) {
            if (!demo_window_begin_frame(win, renderer, &yaw, &distance))
                break;
            draw_pile(renderer, &p);
            const double eye[3] = {distance * cos(yaw), distance * sin(yaw), 0.5 * distance},
                         target[3] = {0, 0, 0.4};
            demo_renderer_draw(renderer, eye, target);
            demo_window_end_frame(win);
        }
#endif
    }
    /* Peak resident memory of the simulation, before the PNG's renderer. */
    double peak_rss_mb = status_kib("VmHWM") / 1024.0;
    /* Settled? Lowest point of any body and fastest body at the end. */
    double min_z = INFINITY, max_speed = 0;
    int outside = 0;
    for (int i = 0; i < p.count; i++) {
        const dReal *pos = dBodyGetPosition(p.bodies[i]), *v = dBodyGetLinearVel(p.bodies[i]);
        min_z = fmin(min_z, pos[2]);
        max_speed = fmax(max_speed, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
        outside += fabs(pos[0]) > BIN + 0.2 || fabs(pos[1]) > BIN + 0.2 || pos[2] < -0.05;
    }
    int png_ok = 0;
    if (!window && glcollide_context_create_egl(&gl) == GLCOLLIDE_OK) {
        renderer = demo_renderer_create(1024, 768, 1);
        if (renderer) {
            draw_pile(renderer, &p);
            const double eye[3] = {distance * cos(yaw), distance * sin(yaw), 0.5 * distance},
                         target[3] = {0, 0, 0.4};
            demo_renderer_draw(renderer, eye, target);
            png_ok = demo_renderer_save_png(renderer, output) == 0;
        }
    }
    int ran = steps;
    if (pair_times)
        print_settled(steps, collide_ms, step_ms, plane_ms);
    qsort(collide_ms, (size_t)ran, sizeof *collide_ms, compare_double);
    qsort(step_ms, (size_t)ran, sizeof *step_ms, compare_double);
    glcollide_ode_stats stats = {0};
    glcollide_ode_get_stats(&stats);
    /* Ours (the program's, glcollide's, ODE's) apart from the GL driver's. */
    if (allocations)
        printf("allocations during collision in steps %d..%d: %lu (driver %lu)\n", steps / 2 + 1,
               steps, warm_allocations, warm_driver_allocations);
    /* For tests/bench/run.sh: the spread over steps, the trimesh triangles
     * of the pile, glcollide's work counters (totals over the steps). The
     * summary stays the last line. */
    unsigned long trimesh_triangles = 0;
    for (int i = 0; i < p.count; i++)
        if (shapes[p.shape[i]].kind == 3)
            trimesh_triangles += (unsigned long)shapes[p.shape[i]].mesh->triangle_count;
    printf("pile-work: collide_ms_min=%.3f collide_ms_max=%.3f step_ms_min=%.3f step_ms_max=%.3f "
           "triangles=%lu candidates=%llu draw_calls=%llu gpu_syncs=%llu readback_bytes=%llu "
           "upload_bytes=%llu gl_storage_bytes=%llu ahead_pairs=%llu ahead_served=%llu\n",
           collide_ms[0], collide_ms[ran - 1], step_ms[0], step_ms[ran - 1], trimesh_triangles,
           stats.candidates, stats.draw_calls, stats.gpu_syncs, stats.readback_bytes,
           stats.upload_bytes, (unsigned long long)glcollide_gl_storage_allocated(),
           stats.ahead_pairs, stats.ahead_served);
    printf("pile-stencil: passes=%llu stencil_ms=%.3f flagged=%llu missed=%llu extra=%llu\n",
           stats.stencil_passes, stats.stencil_ms, stats.stencil_flagged, stats.stencil_missed,
           stats.stencil_extra);
    /* Per warm step (the second half): the GPU culling's work once meshes
     * are on the GPU. */
    int warm_steps = steps - steps / 2;
    printf("pile-warm: steps=%d..%d objects=%d gpu_queries=%llu draw_calls=%.1f gpu_syncs=%.1f "
           "readback_bytes=%.0f upload_bytes=%.0f candidates=%.0f\n",
           steps / 2 + 1, steps, objects, stats.gpu_queries - warm_start.gpu_queries,
           (double)(stats.draw_calls - warm_start.draw_calls) / warm_steps,
           (double)(stats.gpu_syncs - warm_start.gpu_syncs) / warm_steps,
           (double)(stats.readback_bytes - warm_start.readback_bytes) / warm_steps,
           (double)(stats.upload_bytes - warm_start.upload_bytes) / warm_steps,
           (double)(stats.candidates - warm_start.candidates) / warm_steps);
    printf("pile: space=%s objects=%d steps=%d deform=%s pairs=%lu contacts=%lu "
           "collide_ms_median=%.3f step_ms_median=%.3f gpu=%d culled_pairs=%llu min_z=%.4f "
           "max_speed=%.3f outside=%d peak_rss_mb=%.1f threads=%d contact_hash=%016llx png=%s\n",
           space_name, objects, ran, deform_name, total_pairs, total_contacts, collide_ms[ran / 2],
           step_ms[ran / 2], p.kind == SPACE_GLCOLLIDE && glcollide_ode_has_gpu(),
           stats.culled_pairs, min_z, max_speed, outside, peak_rss_mb,
           p.kind == SPACE_GLCOLLIDE ? glcollide_ode_threads() : 1,
           (unsigned long long)p.contact_hash, png_ok ? output : "none");
    demo_renderer_destroy(renderer);
    glcollide_context_destroy(&gl);
#ifdef HAVE_GLFW
    if (win)
        glfwTerminate();
#endif
    free(collide_ms);
    free(step_ms);
    free(plane_ms);
    dJointGroupDestroy(p.contacts);
    dSpaceDestroy(p.space);
    dWorldDestroy(p.world);
    if (p.kind == SPACE_GLCOLLIDE)
        glcollide_ode_shutdown();
    for (int s = 0; s < shape_count; s++) {
        if (shapes[s].data) /* glcollide's registrations went with its shutdown */
            dGeomTriMeshDataDestroy(shapes[s].data);
        glcollide_mesh_destroy(&shapes[s].mesh);
        free(shapes[s].indices);
        free(shapes[s].vertices);
    }
    free(p.bodies);
    free(p.geoms);
    free(p.shape);
    dCloseODE();
    return outside == 0 ? 0 : 3;
}
