/* SPDX-License-Identifier: MIT */
/*
 * Benchmark (not a test): small ODE scenes, where a space's fixed cost per
 * step weighs most, run with ODE's own space and with glcollide's in one
 * process, the same scene from the same start:
 *
 *   basket          demo_basket's style: SIZE balls (radius 0.14) dropped
 *                   into a trimesh basket (a 1.6 m tray: a 12 x 12 grid
 *                   floor and four walls, 320 triangles), 1 ms steps,
 *                   QuickStep with 64 iterations; ODE: a hash space (the
 *                   demo's). Pairs: ball-basket (ODE's collider in both) and
 *                   ball-ball.
 *   moving-trimesh  demo_moving_trimesh's style: SIZE tori of 900 triangles
 *                   (the demo drops 902-triangle bunnies) and SIZE boxes fall
 *                   on a plane among two static tori, gravity -0.5, 0.05 s
 *                   steps; ODE: a simple space (the demo's). Trimesh pairs:
 *                   OPCODE for ODE, glcollide's collider (CPU BVH) for it.
 *   sparse          SIZE primitives far apart, no pair: the space's fixed
 *                   cost alone (ODE: a simple space).
 *
 * Methods: ode (the demo's space, ODE's colliders), ode-simple (where the
 * demo's space is another kind), glcollide (glcollide_ode_space_collide on
 * the demo's kind of space, its trimesh-trimesh collider through dCollide,
 * GPU mode auto: the CPU path on software renderers). Per step: collide =
 * the space's collide with the near callbacks (dCollide, contact joints);
 * step = collide + QuickStep. Medians over all steps of --repeat runs.
 *
 *   bench-small [--steps S] [--repeat R]        every scene at sizes 1 and 8 (a
 *                                               table, times in microseconds)
 *   bench-small --csv --scene basket|moving-trimesh|sparse --size N
 *               [--steps S] [--repeat R]        rows of tests/bench/run.sh
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <glcollide/glcollide.h>
#include <glcollide/ode.h>
#include <ode/ode.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONTACTS 32

/* A trimesh data with its arrays, given to ODE (and glcollide when used). */
typedef struct shape {
    dReal *vertices;
    dTriIndex *indices;
    int vertex_count, triangle_count;
    dTriMeshDataID data;
} shape;

typedef struct scene {
    const char *name;
    dWorldID world;
    dSpaceID space;
    dJointGroupID contacts;
    shape shapes[2];
    int shape_count, glcollide, triangles;
    double dt;
    unsigned long pairs, contact_count;
} scene;

/* The basket: a w x w tray of n x n floor quads and four walls of height h. */
static void basket_arrays(shape *s, double w, double h, int n)
{
    s->vertex_count = (n + 1) * (n + 1) + 8;
    s->triangle_count = 2 * n * n + 8;
    s->vertices = malloc(3 * (size_t)s->vertex_count * sizeof *s->vertices);
    s->indices = malloc(3 * (size_t)s->triangle_count * sizeof *s->indices);
    if (!s->vertices || !s->indices)
        exit(1);
    int v = 0, t = 0;
    for (int i = 0; i <= n; i++)
        for (int j = 0; j <= n; j++, v++) {
            s->vertices[3 * v] = (dReal)(w * ((double)i / n - 0.5));
            s->vertices[3 * v + 1] = (dReal)(w * ((double)j / n - 0.5));
            s->vertices[3 * v + 2] = 0;
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            dTriIndex a = (dTriIndex)(i * (n + 1) + j), b = a + 1, c = a + (dTriIndex)(n + 1),
                      d = c + 1;
            dTriIndex quad[6] = {a, c, d, a, d, b};
            memcpy(s->indices + 3 * t, quad, sizeof quad);
            t += 2;
        }
    /* the walls: the floor's corners, then the same raised by h */
    int corner = v;
    const double cx[4] = {-0.5, 0.5, 0.5, -0.5}, cy[4] = {-0.5, -0.5, 0.5, 0.5};
    for (int k = 0; k < 8; k++, v++) {
        s->vertices[3 * v] = (dReal)(w * cx[k % 4]);
        s->vertices[3 * v + 1] = (dReal)(w * cy[k % 4]);
        s->vertices[3 * v + 2] = (dReal)(k < 4 ? 0 : h);
    }
    for (int k = 0; k < 4; k++) {
        dTriIndex a = (dTriIndex)(corner + k), b = (dTriIndex)(corner + (k + 1) % 4);
        dTriIndex quad[6] = {a, b, b + 4, a, b + 4, a + 4};
        memcpy(s->indices + 3 * t, quad, sizeof quad);
        t += 2;
    }
}

/* A glcollide mesh's arrays in ODE's precision. */
static void mesh_arrays(shape *s, const glcollide_mesh *mesh)
{
    s->vertex_count = (int)mesh->vertex_count;
    s->triangle_count = (int)mesh->triangle_count;
    s->vertices = malloc(3 * mesh->vertex_count * sizeof *s->vertices);
    s->indices = malloc(3 * mesh->triangle_count * sizeof *s->indices);
    if (!s->vertices || !s->indices)
        exit(1);
    for (size_t i = 0; i < 3 * mesh->vertex_count; i++)
        s->vertices[i] = (dReal)mesh->positions[i];
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
        s->indices[i] = (dTriIndex)mesh->triangles[i];
}

/* The arrays are dReal: ODE's build and glcollide's registration of that precision. */
#ifdef dDOUBLE
#define TRIMESH_BUILD dGeomTriMeshDataBuildDouble
#define TRIMESH_REGISTER glcollide_ode_trimesh_data_build_double
#else
#define TRIMESH_BUILD dGeomTriMeshDataBuildSingle
#define TRIMESH_REGISTER glcollide_ode_trimesh_data_build_single
#endif

static void shape_build(scene *sc, shape *s)
{
    s->data = dGeomTriMeshDataCreate();
    TRIMESH_BUILD(s->data, s->vertices, 3 * sizeof(dReal), s->vertex_count, s->indices,
                  3 * s->triangle_count, 3 * sizeof(dTriIndex));
    if (sc->glcollide)
        TRIMESH_REGISTER(s->data, s->vertices, 3 * sizeof(dReal), s->vertex_count, s->indices,
                         3 * s->triangle_count, 3 * sizeof(dTriIndex));
}

static dBodyID drop(scene *sc, dGeomID g, const dMass *mass, double x, double y, double z,
                    double angle)
{
    dBodyID body = dBodyCreate(sc->world);
    dBodySetPosition(body, x, y, z);
    dBodySetMass(body, mass);
    dGeomSetBody(g, body);
    dMatrix3 r;
    dRFromAxisAndAngle(r, 1, 0.5, 0.2, angle);
    dBodySetRotation(body, r);
    return body;
}

static void build_basket(scene *sc, int balls)
{
    dWorldSetGravity(sc->world, 0, 0, -9.8);
    dWorldSetQuickStepNumIterations(sc->world, 64);
    sc->dt = 0.001;
    shape *basket = &sc->shapes[sc->shape_count++];
    basket_arrays(basket, 1.6, 0.5, 12);
    shape_build(sc, basket);
    sc->triangles = basket->triangle_count;
    dGeomID world_mesh = dCreateTriMesh(sc->space, basket->data, NULL, NULL, NULL);
    dGeomSetPosition(world_mesh, 0, 0, 0.5);
    uint64_t state = 0xBA5CE7;
    for (int i = 0; i < balls; i++) {
        dMass mass;
        dMassSetSphere(&mass, 1, 0.14);
        drop(sc, dCreateSphere(sc->space, 0.14), &mass, splitmix64_uniform(&state, -0.5, 0.5),
             splitmix64_uniform(&state, -0.5, 0.5), 0.7 + 0.3 * i, 0);
    }
}

static void build_moving_trimesh(scene *sc, int count)
{
    dWorldSetGravity(sc->world, 0, 0, -0.5);
    dWorldSetCFM(sc->world, 1e-5);
    sc->dt = 0.05;
    glcollide_mesh *torus = NULL;
    if (glcollide_mesh_generate_torus(0.3, 0.1, 30, 15, &torus) != GLCOLLIDE_OK)
        exit(1);
    shape *s = &sc->shapes[sc->shape_count++];
    mesh_arrays(s, torus);
    glcollide_mesh_destroy(&torus);
    shape_build(sc, s);
    dCreatePlane(sc->space, 0, 0, 1, 0);
    for (int k = 0; k < 2; k++) { /* the demo's two static meshes */
        dGeomID g = dCreateTriMesh(sc->space, s->data, NULL, NULL, NULL);
        dGeomSetPosition(g, k ? 0.5 : -0.5, 0, 0.1);
    }
    sc->triangles = (2 + count) * s->triangle_count;
    uint64_t state = 0x7015;
    for (int i = 0; i < count; i++) {
        double x = splitmix64_uniform(&state, -0.6, 0.6), y = splitmix64_uniform(&state, -0.6, 0.6);
        dMass mass;
        dMassSetBox(&mass, 1, 0.8, 0.8, 0.2);
        drop(sc, dCreateTriMesh(sc->space, s->data, NULL, NULL, NULL), &mass, x, y, 0.5 + 0.4 * i,
             0.3 * i);
        dMassSetBox(&mass, 1, 0.2, 0.2, 0.2);
        drop(sc, dCreateBox(sc->space, 0.2, 0.2, 0.2), &mass, -x, -y, 0.7 + 0.4 * i, 0.5 * i);
    }
}

static void build_sparse(scene *sc, int count)
{
    dWorldSetGravity(sc->world, 0, 0, 0);
    sc->dt = 0.01;
    for (int i = 0; i < count; i++) {
        dMass mass;
        dMassSetSphere(&mass, 1, 0.2);
        dGeomID g = i % 2 ? dCreateBox(sc->space, 0.3, 0.3, 0.3) : dCreateSphere(sc->space, 0.2);
        drop(sc, g, &mass, 2.0 * (i % 10), 2.0 * (i / 10), 0, 0);
    }
}

static void near_callback(void *data, dGeomID o1, dGeomID o2)
{
    scene *sc = data;
    sc->pairs++;
    dContact contact[MAX_CONTACTS];
    int n = dCollide(o1, o2, MAX_CONTACTS, &contact[0].geom, sizeof contact[0]);
    for (int i = 0; i < n; i++) { /* demo_basket's surface */
        contact[i].surface.mode =
            dContactSoftERP | dContactSoftCFM | dContactApprox1 | dContactSlip1 | dContactSlip2;
        contact[i].surface.mu = 50.0;
        contact[i].surface.slip1 = contact[i].surface.slip2 = 0.7;
        contact[i].surface.soft_erp = 0.96;
        contact[i].surface.soft_cfm = 0.04;
        dJointID joint = dJointCreateContact(sc->world, sc->contacts, &contact[i]);
        dJointAttach(joint, dGeomGetBody(o1), dGeomGetBody(o2));
    }
    sc->contact_count += (unsigned long)n;
}

typedef struct method {
    const char *name;
    int hash, glcollide;
} method;

/* One run: the scene built from its start, steps steps timed into
 * collide_ms and step_ms (steps each); the scene's counters in *out. */
static void run(const char *scene_name, int size, const method *m, int steps, double *collide_ms,
                double *step_ms, scene *out)
{
    scene sc = {.name = scene_name, .glcollide = m->glcollide};
    sc.world = dWorldCreate();
    sc.space = m->hash ? dHashSpaceCreate(NULL) : dSimpleSpaceCreate(NULL);
    sc.contacts = dJointGroupCreate(0);
    if (strcmp(scene_name, "basket") == 0)
        build_basket(&sc, size);
    else if (strcmp(scene_name, "moving-trimesh") == 0)
        build_moving_trimesh(&sc, size);
    else
        build_sparse(&sc, size);
    for (int s = 0; s < steps; s++) {
        double t0 = bench_now_ms();
        if (m->glcollide)
            glcollide_ode_space_collide(sc.space, &sc, near_callback);
        else
            dSpaceCollide(sc.space, &sc, near_callback);
        double t1 = bench_now_ms();
        dWorldQuickStep(sc.world, sc.dt);
        dJointGroupEmpty(sc.contacts);
        collide_ms[s] = t1 - t0;
        step_ms[s] = bench_now_ms() - t0;
    }
    dJointGroupDestroy(sc.contacts);
    dSpaceSetCleanup(sc.space, 1);
    dSpaceDestroy(sc.space);
    dWorldDestroy(sc.world);
    for (int k = 0; k < sc.shape_count; k++) {
        if (m->glcollide)
            glcollide_ode_trimesh_data_forget(sc.shapes[k].data);
        dGeomTriMeshDataDestroy(sc.shapes[k].data);
        free(sc.shapes[k].vertices);
        free(sc.shapes[k].indices);
    }
    *out = sc;
}

typedef struct result {
    double collide_ms, step_ms, pairs, contacts, peak_rss_mb;
    int triangles, samples;
    double *collide, *step; /* all samples, sorted */
} result;

/* repeat runs of a method; medians over all their steps. */
static result measure(const char *scene_name, int size, const method *m, int steps, int repeat)
{
    result r = {0};
    r.samples = steps * repeat;
    r.collide = malloc((size_t)r.samples * sizeof *r.collide);
    r.step = malloc((size_t)r.samples * sizeof *r.step);
    if (!r.collide || !r.step)
        exit(1);
    bench_peak_reset();
    if (m->glcollide)
        glcollide_ode_init();
    scene sc = {0};
    for (int k = 0; k < repeat; k++) {
        run(scene_name, size, m, steps, r.collide + k * steps, r.step + k * steps, &sc);
        r.pairs += (double)sc.pairs / r.samples;
        r.contacts += (double)sc.contact_count / r.samples;
    }
    if (m->glcollide)
        glcollide_ode_shutdown();
    r.peak_rss_mb = bench_peak_rss_mb();
    r.triangles = sc.triangles;
    r.collide_ms = bench_median(r.collide, r.samples);
    r.step_ms = bench_median(r.step, r.samples);
    return r;
}

/* The scene's methods: its own ODE space, the simple space if that is
 * another, glcollide on the scene's own kind of space. */
static int scene_methods(const char *scene_name, method *methods)
{
    int hash = strcmp(scene_name, "basket") == 0, n = 0;
    methods[n++] = (method){"ode", hash, 0};
    if (hash)
        methods[n++] = (method){"ode-simple", 0, 0};
    methods[n++] = (method){"glcollide", hash, 1};
    return n;
}

static void csv_rows(const char *scene_name, int size, int steps, int repeat)
{
    method methods[3];
    int n = scene_methods(scene_name, methods);
    for (int k = 0; k < n; k++) {
        result r = measure(scene_name, size, &methods[k], steps, repeat);
        for (int what = 0; what < 2; what++) {
            char name[64];
            snprintf(name, sizeof name, "%s-%s", scene_name, what ? "step" : "collide");
            bench_row row = bench_row_empty();
            row.device = "cpu";
            row.bench = "small";
            row.scene = name;
            row.method = methods[k].name;
            row.size = size;
            row.size_unit = "objects";
            row.triangles = r.triangles;
            bench_row_times(&row, what ? r.step : r.collide, r.samples);
            row.contacts = r.contacts;
            row.pairs = r.pairs;
            row.peak_rss_mb = r.peak_rss_mb;
            bench_row_print(&row);
        }
        free(r.collide);
        free(r.step);
    }
}

static void table(int steps, int repeat)
{
    static const char *const scenes[] = {"basket", "moving-trimesh", "sparse"};
    static const int sizes[] = {1, 8};
    printf("bench-small: medians over %d steps x %d runs, times in us; ratio = glcollide / ode "
           "(collide)\n",
           steps, repeat);
    printf("%-15s %4s %-11s %10s %10s %9s %9s %8s\n", "scene", "size", "method", "collide", "step",
           "pairs", "contacts", "ratio");
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            method methods[3];
            int n = scene_methods(scenes[i], methods);
            double ode_collide = 0;
            for (int k = 0; k < n; k++) {
                result r = measure(scenes[i], sizes[j], &methods[k], steps, repeat);
                if (k == 0)
                    ode_collide = r.collide_ms;
                printf("%-15s %4d %-11s %10.2f %10.2f %9.1f %9.1f", scenes[i], sizes[j],
                       methods[k].name, 1e3 * r.collide_ms, 1e3 * r.step_ms, r.pairs, r.contacts);
                if (methods[k].glcollide)
                    printf(" %8.2f", r.collide_ms / ode_collide);
                printf("\n");
                free(r.collide);
                free(r.step);
            }
        }
}

static int usage(void)
{
    fprintf(stderr, "usage: bench-small [--steps S] [--repeat R]\n"
                    "       bench-small --csv --scene basket|moving-trimesh|sparse --size N "
                    "[--steps S] [--repeat R]\n");
    return 2;
}

int main(int argc, char **argv)
{
    int csv = 0, size = 1, steps = 400, repeat = 3;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0)
            csv = 1;
        else if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
            size = atoi(argv[++i]);
        else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
            steps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else
            return usage();
    }
    if (steps < 1 || repeat < 1 || size < 1 || size > 10000 || csv != (only != NULL) ||
        (only && strcmp(only, "basket") && strcmp(only, "moving-trimesh") &&
         strcmp(only, "sparse")))
        return usage();
    dInitODE2(0);
    dAllocateODEDataForThread(dAllocateMaskAll);
    if (csv)
        csv_rows(only, size, steps, repeat);
    else
        table(steps, repeat);
    dCloseODE();
    return 0;
}
