/* SPDX-License-Identifier: MIT */
/*
 * Benchmark (not a test): rigid mesh-mesh contacts, glcollide's collider
 * beside ODE's own (OPCODE) in one process.
 *
 * Pairs: one dCollide-style call on two trimesh geoms (64 contacts asked),
 * the time per call, median of --repeat calls each (the two colliders
 * alternate, so that the machine's noise falls on both):
 *
 *   bunnies          two bunny00 (libcgal-demo, 75,408 triangles each)
 *                    deeply interpenetrating (tests/scenes/bunnies.scene)
 *   knots            knot1 and knot2 (libcgal-demo, each fitted to unit
 *                    size), B turned 30 degrees about z and moved 0.3 along
 *                    x: interpenetrating
 *   cylinders-rest   two closed cylinders (200 sides, fan caps, 800
 *                    triangles each) resting cap on cap, the poses of the
 *                    second and third cylinders of the stack-cylinders scene
 *                    after 2 s (tilts of ~1e-5 rad, ~3e-7 m of overlap)
 *   cubes-rest       two cube-meshed.off cubes (1,728 triangles each, 10 cm),
 *                    flush, the top one yawed 10 degrees and sunk 1e-6 m
 *
 * A detailed mesh resting on a large one of few triangles (a part on a
 * table), where a box tree's node boxes are tilted against the other's: the
 * slab is a 12-triangle box, its top at z = 0.1; the mesh, fitted to 0.2 m,
 * is stood on its feet (its y along z), turned about y, and sunk 1e-4 m
 * below the top at its lowest vertex:
 *
 *   slab-bunny-46    bunny00 tilted 46 degrees on a 4 x 4 x 0.2 m slab
 *   slab-bunny-up    bunny00 upright on the same slab
 *   small-slab-bunny-10  bunny00 tilted 10 degrees on a 0.4 x 0.4 x 0.2 m slab
 *   slab-elephant-30 refined_elephant (88,928 triangles) tilted 30 degrees
 *                    on the 4 m slab
 *   armadillo-elephant  armadillo (52,000 triangles) and refined_elephant,
 *                    each fitted to unit size, the elephant turned 30
 *                    degrees about z and moved 0.3 along x: interpenetrating
 *
 * Trimesh against a primitive, the same way (glcollide_ode_collide, its
 * mesh-primitive collider: the mesh's object-space BVH against the exact
 * primitive; ode: dCollide, ODE's trimesh colliders):
 *
 *   bunny-plane      bunny00 resting on a plane (its lowest vertex 1e-4 m
 *                    below it; ODE transforms every triangle of the mesh)
 *   cube-plane       cube-meshed.off (10 cm) flush on a plane, sunk 1e-6 m
 *   rotor-finger     rotor_small (libcgal-demo, 4,800 triangles, fitted to
 *                    10 cm) squeezed by a 2 x 6 x 8 cm box finger on its
 *                    flat round end (the gripper scene's grip, 1e-4 m deep)
 *
 * glcollide: glcollide_ode_collide (its trimesh-trimesh collider: object-
 * space BVH, exact triangle tests, contact regions), arrays registered with
 * glcollide_ode_trimesh_data_build_*; ode: dCollide without glcollide's
 * override, OPCODE trees prebuilt.
 *
 * Stacks: the stability scenes (tests/ode/ode_scenes.c) stepped whole, the time
 * per step (collision + dWorldQuickStep) and the collision alone, median of
 * --repeat runs of --steps steps: primitives (ODE's boxes and cylinders),
 * glcollide (trimeshes, glcollide's space and contacts), ode-trimesh
 * (trimeshes, ODE's space and OPCODE). Scenes stack-cylinders (3 cylinders
 * as above on a slab), stack-fine (5 cube-meshed cubes), stack-cube (5
 * 12-triangle cubes; ODE's trimesh collider throws the top ones off, so its
 * time there is for another motion), and with ODE's primitives against
 * trimeshes: primitives-on-fine-table (ODE's box, sphere, capsule and
 * cylinders on a 32 x 32 tessellated table) and gripper-rotor (the vise
 * lifting the rotor off a plane and holding it, dWorldStep).
 *
 * Each collider steps its own trajectory there, and where ODE's stack drifts
 * or falls its pairs meet other triangles. So the states of both trimesh
 * runs (every 5th step after the first fifth) are also replayed: "replay"
 * lines time both colliders on the same states, those of glcollide's run
 * and those of ODE's, median of --repeat replays.
 *
 *   bench-contacts [--repeat R] [--steps S]     both parts, a table
 *   bench-contacts --threads 1,2 ...           the pairs' glcollide call at
 *       each thread count in turn every round (glcollide_ode_set_threads),
 *       then ODE's: a row per count and each count's ratio to the first,
 *       measured together so that the machine's noise falls on all of them
 *   bench-contacts --csv [--scene NAME] ...     rows of tests/bench/run.sh
 *   bench-contacts --dump [--scene NAME]        every contact of glcollide's
 *       colliders on the pair and trimesh-primitive scenes, as hex floats (7
 *       offsets of the second shape, 64, 5 and 1 contacts asked, both argument
 *       orders): a change meant to keep the contacts bit for bit is checked by
 *       diffing two dumps
 */
#define _POSIX_C_SOURCE 200809L
#include "helpers/meshes.h"
#include "ode/ode_scene.h"
#include "bench.h"
#include "bench_ode.h"

#include <glcollide/glcollide.h>
#include <glcollide/ode.h>
#include <ode/ode.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONTACTS 64

#ifdef dDOUBLE
#define TRIMESH_REGISTER glcollide_ode_trimesh_data_build_double
#else
#define TRIMESH_REGISTER glcollide_ode_trimesh_data_build_single
#endif

/* ODE's trimesh geom of a mesh (bench_ode.h: its own arrays in ODE's
 * precision, OPCODE's tree built), those arrays registered with glcollide. */
static void pair_mesh_make(ode_mesh *m, const glcollide_mesh *mesh, const double position[3],
                           const double rotation[4])
{
    glcollide_pose pose = {{position[0], position[1], position[2]},
                           {rotation[0], rotation[1], rotation[2], rotation[3]}};
    ode_mesh_make(m, mesh, &pose);
    TRIMESH_REGISTER(m->data, m->vertices, 3 * sizeof(dReal), (int)mesh->vertex_count, m->indices,
                     (int)(3 * mesh->triangle_count), 3 * sizeof(dTriIndex));
}

static void pair_mesh_free(ode_mesh *m)
{
    glcollide_ode_trimesh_data_forget(m->data);
    ode_mesh_free(m);
}

static glcollide_mesh *data_mesh(const char *name, double fit)
{
    char path[4096];
    glcollide_mesh *mesh = NULL;
    if (glcollide_mesh_find_data(name, path, sizeof path) != GLCOLLIDE_OK ||
        glcollide_mesh_load(path, 1.0, &mesh) != GLCOLLIDE_OK ||
        (fit > 0 && glcollide_mesh_fit(mesh, fit) != GLCOLLIDE_OK)) {
        fprintf(stderr, "bench-contacts: cannot load %s (make meshes)\n", name);
        exit(1);
    }
    return mesh;
}

/* A pair scene: two meshes and their placements. */
typedef struct pair_scene {
    const char *name;
    glcollide_mesh *a, *b; /* b may be a */
    double pa[3], qa[4], pb[3], qb[4];
} pair_scene;

static double lowest_z(const glcollide_mesh *mesh, const double q[4]);

/* a: the named mesh fitted to 0.2 m, its y turned along z, then tilted by
 * degrees about y, its lowest vertex 1e-4 m below the top of b: a slab of
 * half sizes (half, half, 0.1) and 12 triangles at the origin. */
static void slab_scene(pair_scene *s, const char *mesh, double half, double degrees)
{
    s->a = data_mesh(mesh, 0.2);
    s->b = test_mesh_box((const double[3]){half, half, 0.1}, (const int[3]){1, 1, 1});
    if (!s->b)
        exit(1);
    /* tilt (about y) times stand (y to z: 90 degrees about x) */
    double t = 0.5 * degrees * M_PI / 180.0, u = sqrt(0.5);
    double qa[4] = {cos(t) * u, cos(t) * u, sin(t) * u, -sin(t) * u};
    memcpy(s->qa, qa, sizeof qa);
    s->pa[2] = 0.1 - lowest_z(s->a, s->qa) - 1e-4;
}

static int pair_by_name(const char *name, pair_scene *s)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->qa[0] = s->qb[0] = 1.0;
    if (strcmp(name, "bunnies") == 0) {
        s->a = s->b = data_mesh("bunny00.off", 0);
        s->pb[0] = 0.3;
        s->pb[1] = 0.05;
        s->qb[0] = 0.96891242171064473;
        s->qb[2] = 0.24740395925452294;
    } else if (strcmp(name, "knots") == 0) {
        s->a = data_mesh("knot1.off", 1.0);
        s->b = data_mesh("knot2.off", 1.0);
        s->pb[0] = 0.3;
        s->qb[0] = cos(M_PI / 12);
        s->qb[3] = sin(M_PI / 12);
    } else if (strcmp(name, "cylinders-rest") == 0) {
        s->a = s->b = test_mesh_cylinder(0.05, 0.05, 200);
        const double pa[7] = {1.4133134155809064e-06, 3.2989596052099778e-06,
                              0.2499991540694961,     0.99999999971596132,
                              1.8402342110156389e-06, -4.5198464187955944e-07,
                              2.3758927942320242e-05};
        const double pb[7] = {3.7406411772969545e-06, 1.7661483687818865e-05,
                              0.14999927730027113,    0.99999999994773181,
                              3.6631695598369191e-06, -2.1387429499257547e-06,
                              -9.3028810610801405e-06};
        memcpy(s->pa, pa, sizeof s->pa);
        memcpy(s->qa, pa + 3, sizeof s->qa);
        memcpy(s->pb, pb, sizeof s->pb);
        memcpy(s->qb, pb + 3, sizeof s->qb);
    } else if (strcmp(name, "cubes-rest") == 0) {
        s->a = s->b = data_mesh("cube-meshed.off", 0.1);
        s->pa[2] = 0.1 - 1e-6;
        s->qa[0] = cos(M_PI / 36);
        s->qa[3] = sin(M_PI / 36);
    } else if (strcmp(name, "slab-bunny-46") == 0) {
        slab_scene(s, "bunny00.off", 2.0, 46);
    } else if (strcmp(name, "slab-bunny-up") == 0) {
        slab_scene(s, "bunny00.off", 2.0, 0);
    } else if (strcmp(name, "small-slab-bunny-10") == 0) {
        slab_scene(s, "bunny00.off", 0.2, 10);
    } else if (strcmp(name, "slab-elephant-30") == 0) {
        slab_scene(s, "refined_elephant.off", 2.0, 30);
    } else if (strcmp(name, "armadillo-elephant") == 0) {
        s->a = data_mesh("armadillo.off", 1.0);
        s->b = data_mesh("refined_elephant.off", 1.0);
        s->pb[0] = 0.3;
        s->qb[0] = cos(M_PI / 12);
        s->qb[3] = sin(M_PI / 12);
    } else {
        return 0;
    }
    return 1;
}

/* The named pair scene and both colliders' geoms for it; exits if unknown. */
static void pair_open(const char *name, pair_scene *s, ode_mesh *a, ode_mesh *b)
{
    if (!pair_by_name(name, s)) {
        fprintf(stderr, "bench-contacts: unknown pair '%s'\n", name);
        exit(2);
    }
    pair_mesh_make(a, s->a, s->pa, s->qa);
    pair_mesh_make(b, s->b, s->pb, s->qb);
}

static void pair_close(pair_scene *s, ode_mesh *a, ode_mesh *b)
{
    pair_mesh_free(a);
    pair_mesh_free(b);
    if (s->b != s->a)
        glcollide_mesh_destroy(&s->b);
    glcollide_mesh_destroy(&s->a);
}

/* A trimesh against one of ODE's primitives. */
typedef struct primitive_pair {
    glcollide_mesh *mesh;
    double position[3], rotation[4];
    dGeomID (*make)(const double size[3]);
    double size[3], other_position[3];
} primitive_pair;

static dGeomID make_plane(const double size[3])
{
    (void)size;
    return dCreatePlane(NULL, 0, 0, 1, 0);
}

static dGeomID make_box(const double size[3])
{
    return dCreateBox(NULL, size[0], size[1], size[2]);
}

/* The mesh's lowest point along z once turned by q. */
static double lowest_z(const glcollide_mesh *mesh, const double q[4])
{
    glcollide_pose o = {{0, 0, 0}, {q[0], q[1], q[2], q[3]}};
    double low = INFINITY;
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        double w[3];
        glcollide_pose_transform_points(&o, mesh->positions + 3 * v, 1, w);
        low = fmin(low, w[2]);
    }
    return low;
}

static int primitive_pair_by_name(const char *name, primitive_pair *s)
{
    memset(s, 0, sizeof *s);
    s->rotation[0] = 1.0;
    if (strcmp(name, "bunny-plane") == 0) {
        s->mesh = data_mesh("bunny00.off", 0);
        s->rotation[0] = s->rotation[1] = sqrt(0.5); /* its up (y) along z */
        s->position[2] = -lowest_z(s->mesh, s->rotation) - 1e-4;
        s->make = make_plane;
    } else if (strcmp(name, "cube-plane") == 0) {
        s->mesh = data_mesh("cube-meshed.off", 0.1);
        s->position[2] = -lowest_z(s->mesh, s->rotation) - 1e-6;
        s->make = make_plane;
    } else if (strcmp(name, "rotor-finger") == 0) {
        s->mesh = data_mesh("rotor_small.off", 0.1);
        s->rotation[0] = s->rotation[2] = sqrt(0.5); /* its axis (z) along x */
        glcollide_pose o = {{0, 0, 0}, {s->rotation[0], 0, s->rotation[2], 0}};
        double high = -INFINITY;
        for (size_t v = 0; v < s->mesh->vertex_count; v++) {
            double w[3];
            glcollide_pose_transform_points(&o, s->mesh->positions + 3 * v, 1, w);
            high = fmax(high, w[0]);
        }
        s->size[0] = 0.02;
        s->size[1] = 0.06;
        s->size[2] = 0.08;
        s->other_position[0] = high + 0.01 - 1e-4;
        s->make = make_box;
    } else {
        return 0;
    }
    return 1;
}

static const char *device = "cpu";

static void print_row(int csv, const char *bench, const char *scene, const char *method,
                      double triangles, double *times, int n, double contacts, double candidates,
                      double collide_ms)
{
    char number[32];
    bench_row row = bench_row_empty();
    row.device = device;
    row.bench = bench;
    row.scene = scene;
    row.method = method;
    row.size = 2;
    row.size_unit = "objects";
    row.triangles = triangles;
    bench_row_times(&row, times, n);
    row.contacts = contacts;
    row.candidates = candidates;
    row.peak_rss_mb = bench_peak_rss_mb();
    if (csv)
        bench_row_print(&row);
    else if (collide_ms >= 0)
        printf("%-10s %-16s %-12s median %8.3f ms/step (collide %7.3f ms)  contacts/step %6.1f\n",
               bench, scene, method, row.median_ms, collide_ms, contacts);
    else
        printf("%-10s %-16s %-12s median %8.3f ms/call  min %8.3f  contacts %3.0f  candidates "
               "%8s\n",
               bench, scene, method, row.median_ms, row.min_ms, contacts,
               candidates >= 0 ? (snprintf(number, sizeof number, "%.0f", candidates), number)
                               : "-");
}

/* --threads: the thread counts glcollide's call alternates between within
 * each round (0 counts: the default, one call a round). */
enum { MAX_THREAD_COUNTS = 8 };
static int thread_counts[MAX_THREAD_COUNTS], thread_count_n;

static void bench_pair(const char *name, int repeat, int csv)
{
    pair_scene s;
    ode_mesh a, b;
    pair_open(name, &s, &a, &b);
    dContactGeom contacts[MAX_CONTACTS];
    int settings = thread_count_n ? thread_count_n : 1;
    double *times[MAX_THREAD_COUNTS + 1];
    for (int k = 0; k <= settings; k++)
        if (!(times[k] = malloc((size_t)repeat * sizeof(double))))
            exit(1);
    int count[2] = {0, 0};
    glcollide_ode_reset_stats();
    for (int warm = 0; warm < 2; warm++) { /* captures, BVHs, buffers */
        count[0] =
            glcollide_ode_collide(a.geom, b.geom, MAX_CONTACTS, contacts, sizeof contacts[0]);
        count[1] = dCollide(a.geom, b.geom, MAX_CONTACTS, contacts, sizeof contacts[0]);
    }
    glcollide_ode_stats before;
    glcollide_ode_get_stats(&before);
    /* Each round: glcollide's call at each thread count, then ODE's. */
    for (int r = 0; r < repeat; r++) {
        for (int k = 0; k < settings; k++) {
            if (thread_count_n)
                glcollide_ode_set_threads(thread_counts[k]);
            double t0 = bench_now_ms();
            glcollide_ode_collide(a.geom, b.geom, MAX_CONTACTS, contacts, sizeof contacts[0]);
            times[k][r] = bench_now_ms() - t0;
        }
        double t1 = bench_now_ms();
        dCollide(a.geom, b.geom, MAX_CONTACTS, contacts, sizeof contacts[0]);
        times[settings][r] = bench_now_ms() - t1;
    }
    if (thread_count_n)
        glcollide_ode_set_threads(0);
    glcollide_ode_stats after;
    glcollide_ode_get_stats(&after);
    double candidates = (double)(after.candidates - before.candidates) / (repeat * settings);
    double triangles = (double)(s.a->triangle_count + s.b->triangle_count);
    for (int k = 0; k < settings; k++) {
        char method[32] = "glcollide";
        if (thread_count_n)
            snprintf(method, sizeof method, "glcollide-t%d", thread_counts[k]);
        print_row(csv, "contacts", name, method, triangles, times[k], repeat, count[0], candidates,
                  -1);
    }
    print_row(csv, "contacts", name, "ode", triangles, times[settings], repeat, count[1],
              BENCH_NONE, -1);
    if (!csv) {
        double ode = bench_median(times[settings], repeat);
        printf("contacts   %-16s ratio glcollide/ode %.2f\n", name,
               bench_median(times[0], repeat) / ode);
        for (int k = 1; k < settings; k++)
            printf("contacts   %-16s ratio t%d/t%d %.2f (glcollide/ode %.2f)\n", name,
                   thread_counts[k], thread_counts[0],
                   bench_median(times[k], repeat) / bench_median(times[0], repeat),
                   bench_median(times[k], repeat) / ode);
    }
    for (int k = 0; k <= settings; k++)
        free(times[k]);
    pair_close(&s, &a, &b);
}

/* The largest extent of a mesh's vertices. */
static double mesh_size(const glcollide_mesh *mesh)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < mesh->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], mesh->positions[3 * v + k]);
            hi[k] = fmax(hi[k], mesh->positions[3 * v + k]);
        }
    return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}

/* One contact as hex floats: position, normal, depth, then the sides. */
static void print_contact(const dContactGeom *c)
{
    printf("  %a %a %a  %a %a %a  %a  %d %d\n", (double)c->pos[0], (double)c->pos[1],
           (double)c->pos[2], (double)c->normal[0], (double)c->normal[1], (double)c->normal[2],
           (double)c->depth, c->side1, c->side2);
}

/* The calls of one placement: 64, 5 and 1 contacts asked, both argument
 * orders, each call's contacts as hex floats (and for trimesh pairs the
 * number of candidate triangle pairs it tested exactly). */
static void dump_calls(const char *name, int offset, dGeomID a, dGeomID b, int candidates)
{
    static const int asked[3] = {MAX_CONTACTS, 5, 1};
    dContactGeom contacts[MAX_CONTACTS];
    for (int m = 0; m < 3; m++)
        for (int swap = 0; swap < 2; swap++) {
            glcollide_ode_stats before, after;
            glcollide_ode_get_stats(&before);
            int n = glcollide_ode_collide(swap ? b : a, swap ? a : b, asked[m], contacts,
                                          sizeof contacts[0]);
            glcollide_ode_get_stats(&after);
            printf("%s offset %d max %d swap %d: %d contacts", name, offset, asked[m], swap, n);
            if (candidates)
                printf(", %llu candidates", after.candidates - before.candidates);
            printf("\n");
            for (int i = 0; i < n; i++)
                print_contact(&contacts[i]);
        }
}

/* Every contact of glcollide's collider on a pair scene: the second mesh at
 * 7 offsets (-2 to 4 times 2e-4 of the first mesh's size along a fixed
 * direction, up into the resting meshes above it), dump_calls at each. */
static void dump_pair(const char *name)
{
    pair_scene s;
    ode_mesh a, b;
    pair_open(name, &s, &a, &b);
    static const double direction[3] = {0.31, -0.17, 0.53};
    double step = 2e-4 * mesh_size(s.a);
    for (int offset = -2; offset <= 4; offset++) {
        dGeomSetPosition(b.geom, s.pb[0] + offset * step * direction[0],
                         s.pb[1] + offset * step * direction[1],
                         s.pb[2] + offset * step * direction[2]);
        dump_calls(name, offset, a.geom, b.geom, 1);
    }
    pair_close(&s, &a, &b);
}

/* The same for a trimesh-primitive scene: the plane or box at 7 offsets up
 * into the mesh (2e-4 of its size a step). */
static void dump_primitive_pair(const char *name)
{
    primitive_pair s;
    if (!primitive_pair_by_name(name, &s)) {
        fprintf(stderr, "bench-contacts: unknown pair '%s'\n", name);
        exit(2);
    }
    ode_mesh a;
    pair_mesh_make(&a, s.mesh, s.position, s.rotation);
    dGeomID other = s.make(s.size);
    double step = 2e-4 * mesh_size(s.mesh);
    for (int offset = -2; offset <= 4; offset++) {
        if (s.make == make_plane)
            dGeomPlaneSetParams(other, 0, 0, 1, offset * step);
        else
            dGeomSetPosition(other, s.other_position[0] - offset * step, s.other_position[1],
                             s.other_position[2]);
        dump_calls(name, offset, a.geom, other, 0);
    }
    dGeomDestroy(other);
    pair_mesh_free(&a);
    glcollide_mesh_destroy(&s.mesh);
}

static void bench_primitive_pair(const char *name, int repeat, int csv)
{
    primitive_pair s;
    if (!primitive_pair_by_name(name, &s)) {
        fprintf(stderr, "bench-contacts: unknown pair '%s'\n", name);
        exit(2);
    }
    ode_mesh a;
    pair_mesh_make(&a, s.mesh, s.position, s.rotation);
    dGeomID other = s.make(s.size);
    if (s.make != make_plane)
        dGeomSetPosition(other, s.other_position[0], s.other_position[1], s.other_position[2]);
    dContactGeom contacts[MAX_CONTACTS];
    double *times[2] = {malloc((size_t)repeat * sizeof(double)),
                        malloc((size_t)repeat * sizeof(double))};
    if (!times[0] || !times[1])
        exit(1);
    int count[2] = {0, 0};
    for (int warm = 0; warm < 2; warm++) {
        count[0] = glcollide_ode_collide(a.geom, other, MAX_CONTACTS, contacts, sizeof contacts[0]);
        count[1] = dCollide(a.geom, other, MAX_CONTACTS, contacts, sizeof contacts[0]);
    }
    for (int r = 0; r < repeat; r++) {
        double t0 = bench_now_ms();
        glcollide_ode_collide(a.geom, other, MAX_CONTACTS, contacts, sizeof contacts[0]);
        double t1 = bench_now_ms();
        dCollide(a.geom, other, MAX_CONTACTS, contacts, sizeof contacts[0]);
        double t2 = bench_now_ms();
        times[0][r] = t1 - t0;
        times[1][r] = t2 - t1;
    }
    double triangles = (double)s.mesh->triangle_count;
    print_row(csv, "contacts", name, "glcollide", triangles, times[0], repeat, count[0], BENCH_NONE,
              -1);
    print_row(csv, "contacts", name, "ode", triangles, times[1], repeat, count[1], BENCH_NONE, -1);
    if (!csv)
        printf("contacts   %-16s ratio glcollide/ode %.3f\n", name,
               bench_median(times[0], repeat) / bench_median(times[1], repeat));
    free(times[0]);
    free(times[1]);
    dGeomDestroy(other);
    pair_mesh_free(&a);
    glcollide_mesh_destroy(&s.mesh);
}

/*
 * The stepped runs above compare each collider on its own trajectory: where
 * ODE's trimesh stack drifts or collapses, its pairs meet other triangles
 * than glcollide's resting stack does. Here both colliders collide the same
 * states, those recorded from glcollide's run and those from ODE's: the
 * collision time per state, median of repeat replays, the two colliders
 * alternating.
 */
static void bench_replay(const scene_desc *scene, const char *name, const scene_states *states,
                         scene_flavour glcollide, scene_flavour ode, int repeat, int csv)
{
    static const char *const origin[2] = {"glcollide-states", "ode-states"};
    const scene_states *sets[2] = {&states[1], &states[2]};
    for (int set = 0; set < 2; set++) {
        if (!sets[set]->count)
            continue;
        double *ms[2] = {malloc((size_t)repeat * sizeof(double)),
                         malloc((size_t)repeat * sizeof(double))};
        double contacts[2] = {0, 0};
        if (!ms[0] || !ms[1])
            exit(1);
        for (int r = 0; r < repeat; r++)
            for (int c = 0; c < 2; c++) {
                scene_params p = scene_default_params(c == 0 ? glcollide : ode);
                p.world_step = scene->gripper.enabled;
                p.replay = sets[set];
                scene_figures f;
                if (scene_run(scene, &p, &f) != 0)
                    exit(1);
                ms[c][r] = f.collide_ms_per_step;
                contacts[c] = f.contacts_per_step;
            }
        char label[96];
        snprintf(label, sizeof label, "%s@%s", name, origin[set]);
        if (csv) {
            print_row(csv, "replay", label, "glcollide", BENCH_NONE, ms[0], repeat, contacts[0],
                      BENCH_NONE, -1);
            print_row(csv, "replay", label, "ode-trimesh", BENCH_NONE, ms[1], repeat, contacts[1],
                      BENCH_NONE, -1);
        } else {
            double g = bench_median(ms[0], repeat), o = bench_median(ms[1], repeat);
            printf("replay     %-16s on %-16s %zu states: collide glcollide %7.3f ms, "
                   "ode-trimesh %7.3f ms per state (contacts %5.1f / %5.1f), ratio %.2f\n",
                   name, origin[set], sets[set]->count, g, o, contacts[0], contacts[1], g / o);
        }
        free(ms[0]);
        free(ms[1]);
    }
}

static void bench_stack(const char *name, int repeat, int steps, int csv)
{
    scene_desc scene;
    if (scene_by_name(name, &scene) != 0) {
        fprintf(stderr, "bench-contacts: unknown stack scene or missing mesh '%s'\n", name);
        exit(2);
    }
    static const struct {
        scene_flavour flavour;
        const char *method;
    } kinds[] = {{SCENE_PRIMITIVES, "primitives"},
                 {SCENE_GLCOLLIDE, "glcollide"},
                 {SCENE_ODE_TRIMESH, "ode-trimesh"}};
    enum { KINDS = sizeof kinds / sizeof kinds[0] };
    double *step_ms[KINDS], *collide_ms[KINDS], contacts[KINDS] = {0};
    for (int k = 0; k < KINDS; k++) {
        step_ms[k] = malloc((size_t)repeat * sizeof(double));
        collide_ms[k] = malloc((size_t)repeat * sizeof(double));
        if (!step_ms[k] || !collide_ms[k])
            exit(1);
    }
    size_t triangles = 0;
    for (size_t i = 0; i < scene.count; i++)
        triangles += scene.solids[i].mesh ? scene.solids[i].mesh->triangle_count : 0;
    /* The trimesh runs' states (every 5th step after settling), recorded in
     * the first repeat, replayed below for both colliders. */
    scene_states states[KINDS];
    memset(states, 0, sizeof states);
    for (int r = 0; r < repeat; r++)
        for (int k = 0; k < KINDS; k++) {
            scene_params p = scene_default_params(kinds[k].flavour);
            p.steps = steps;
            p.settle_steps = steps / 5;
            p.world_step = scene.gripper.enabled; /* QuickStep lets the grip creep */
            if (r == 0 && kinds[k].flavour != SCENE_PRIMITIVES) {
                p.record = &states[k];
                p.record_every = 5;
            }
            scene_figures f;
            if (scene_run(&scene, &p, &f) != 0)
                exit(1);
            step_ms[k][r] = f.ms_per_step;
            collide_ms[k][r] = f.collide_ms_per_step;
            contacts[k] = f.contacts_per_step;
        }
    for (int k = 0; k < KINDS; k++) {
        double collide = bench_median(collide_ms[k], repeat);
        print_row(csv, "stack", name, kinds[k].method, (double)triangles, step_ms[k], repeat,
                  contacts[k], BENCH_NONE, collide);
        if (csv) /* the collision alone, as its own row */
            print_row(csv, "stack-collide", name, kinds[k].method, (double)triangles, collide_ms[k],
                      repeat, contacts[k], BENCH_NONE, -1);
        free(step_ms[k]);
        free(collide_ms[k]);
    }
    bench_replay(&scene, name, states, kinds[1].flavour, kinds[2].flavour, repeat, csv);
    for (int k = 0; k < KINDS; k++)
        scene_states_free(&states[k]);
}

static int usage(void)
{
    fprintf(stderr, "usage: bench-contacts [--csv] [--scene NAME] [--repeat R] [--steps S]\n"
                    "                      [--threads N,N,...]\n"
                    "       bench-contacts --dump [--scene NAME]\n"
                    "  NAME: bunnies knots cylinders-rest cubes-rest slab-bunny-46 slab-bunny-up\n"
                    "        small-slab-bunny-10 slab-elephant-30 armadillo-elephant (pairs),\n"
                    "        bunny-plane cube-plane rotor-finger (trimesh-primitive pairs),\n"
                    "        stack-cylinders stack-fine stack-cube primitives-on-fine-table\n"
                    "        gripper-rotor (stacks)\n");
    return 2;
}

int main(int argc, char **argv)
{
    int csv = 0, dump = 0, repeat = 0, steps = 1000;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0)
            csv = 1;
        else if (strcmp(argv[i], "--dump") == 0)
            dump = 1;
        else if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
            steps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            for (char *next = argv[++i], *end; *next; next = end + (*end == ',')) {
                long t = strtol(next, &end, 10);
                if (end == next || (*end && *end != ',') || t < 1 || t > 64 ||
                    thread_count_n == MAX_THREAD_COUNTS)
                    return usage();
                thread_counts[thread_count_n++] = (int)t;
            }
        } else
            return usage();
    }
    if (repeat < 0 || steps < 10)
        return usage();
    static const char *const pairs[] = {
        "bunnies",           "knots",         "cylinders-rest",      "cubes-rest",
        "slab-bunny-46",     "slab-bunny-up", "small-slab-bunny-10", "slab-elephant-30",
        "armadillo-elephant"};
    static const char *const primitive_pairs[] = {"bunny-plane", "cube-plane", "rotor-finger"};
    static const char *const stacks[] = {"stack-cylinders", "stack-fine", "stack-cube",
                                         "primitives-on-fine-table", "gripper-rotor"};
    int known = !only;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        known |= only && strcmp(only, pairs[i]) == 0;
    for (size_t i = 0; i < sizeof primitive_pairs / sizeof primitive_pairs[0]; i++)
        known |= only && strcmp(only, primitive_pairs[i]) == 0;
    for (size_t i = 0; i < sizeof stacks / sizeof stacks[0]; i++)
        known |= only && strcmp(only, stacks[i]) == 0;
    if (!known)
        return usage();
    dInitODE2(0);
    if (dump) {
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
            if (!only || strcmp(only, pairs[i]) == 0)
                dump_pair(pairs[i]);
        for (size_t i = 0; i < sizeof primitive_pairs / sizeof primitive_pairs[0]; i++)
            if (!only || strcmp(only, primitive_pairs[i]) == 0)
                dump_primitive_pair(primitive_pairs[i]);
        dCloseODE();
        return 0;
    }
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (!only || strcmp(only, pairs[i]) == 0)
            bench_pair(pairs[i], repeat ? repeat : 51, csv);
    for (size_t i = 0; i < sizeof primitive_pairs / sizeof primitive_pairs[0]; i++)
        if (!only || strcmp(only, primitive_pairs[i]) == 0)
            bench_primitive_pair(primitive_pairs[i], repeat ? repeat : 51, csv);
    for (size_t i = 0; i < sizeof stacks / sizeof stacks[0]; i++)
        if (!only || strcmp(only, stacks[i]) == 0)
            bench_stack(stacks[i], repeat ? repeat : 3, steps, csv);
    scene_meshes_release();
    dCloseODE();
    return 0;
}
