/* SPDX-License-Identifier: MIT */
/*
 * The ODE plugin: the space against ODE's dSimpleSpace (brute force inside
 * ODE) on random scenes with ODE's edge cases, the hash space's defect, GPU
 * culling of trimesh pairs, and trimesh contacts against analytic answers.
 * A program of its own (tests/glcollide-ode-tests): it links the shared
 * libglcollide-ode, as ODE users do.
 */
#define _GNU_SOURCE
#include "helpers/tests.h"

#include "programs/ode_demo.h"

#include <glcollide/geometry.h>
#include <glcollide/ode.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pair_set {
    dGeomID (*pairs)[2];
    size_t count, capacity;
} pair_set;

/* Room for one more item of size bytes in a growable array. */
static void *room_for_one(void *array, size_t count, size_t *capacity, size_t size)
{
    if (count < *capacity)
        return array;
    *capacity = *capacity ? 2 * *capacity : 64;
    array = realloc(array, *capacity * size);
    ck_assert_ptr_nonnull(array);
    return array;
}

static void record(void *data, dGeomID a, dGeomID b)
{
    pair_set *set = data;
    set->pairs = room_for_one(set->pairs, set->count, &set->capacity, sizeof *set->pairs);
    set->pairs[set->count][0] = a < b ? a : b;
    set->pairs[set->count][1] = a < b ? b : a;
    set->count++;
}

static int compare_pair(const void *x, const void *y)
{
    const dGeomID *a = x, *b = y;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

static void sort_pairs(pair_set *set)
{
    qsort(set->pairs, set->count, sizeof *set->pairs, compare_pair);
}

static int has_pair(const pair_set *set, const dGeomID *pair)
{
    return bsearch(pair, set->pairs, set->count, sizeof *set->pairs, compare_pair) != NULL;
}

/* A cube trimesh (12 triangles, half size h), its arrays kept for ODE. */
typedef struct cube_data {
    dReal vertices[8 * 3];
    dTriIndex indices[36];
    dTriMeshDataID data;
} cube_data;

static void cube_build(cube_data *cube, double h)
{
    ode_demo_box_arrays(h, h, h, cube->vertices, cube->indices);
    cube->data = dGeomTriMeshDataCreate();
    ode_demo_build_trimesh(cube->data, cube->vertices, 8, cube->indices, 36);
}

/* A random orientation; one geom in disabled_one_in disabled, one in 10
 * with category/collide bits that exclude some others. */
static void randomise_geom(test_rng *rng, dGeomID g, uint32_t disabled_one_in)
{
    double q[4];
    test_rng_quaternion(rng, q);
    dQuaternion dq = {q[0], q[1], q[2], q[3]};
    dGeomSetQuaternion(g, dq);
    if (test_rng_below(rng, disabled_one_in) == 0)
        dGeomDisable(g);
    if (test_rng_below(rng, 10) == 0) {
        dGeomSetCategoryBits(g, 1ul << test_rng_below(rng, 3));
        dGeomSetCollideBits(g, 1ul << test_rng_below(rng, 3));
    }
}

/*
 * A random scene in the spirit of ODE's demo_space: boxes, spheres, capsules
 * and trimesh cubes; some geoms share a body, some are disabled, some have
 * category/collide bits that exclude each other, a few sit in a nested space.
 */
static dSpaceID random_scene(test_rng *rng, cube_data *cube, int geoms, int axis_aligned_boxes)
{
    dSpaceID space = dSimpleSpaceCreate(NULL);
    dSpaceID nested = axis_aligned_boxes ? NULL : dSimpleSpaceCreate(space);
    dBodyID shared = NULL;
    for (int i = 0; i < geoms; i++) {
        dSpaceID target = nested && test_rng_below(rng, 8) == 0 ? nested : space;
        dGeomID g;
        double s = test_rng_uniform(rng, 0.1, 1.0);
        int kind = axis_aligned_boxes ? 0 : (int)test_rng_below(rng, 4);
        switch (kind) {
        case 0:
            g = dCreateBox(target, s, test_rng_uniform(rng, 0.1, 1), test_rng_uniform(rng, 0.1, 1));
            break;
        case 1: g = dCreateSphere(target, 0.5 * s); break;
        case 2: g = dCreateCapsule(target, 0.3 * s, s); break;
        default: g = dCreateTriMesh(target, cube->data, NULL, NULL, NULL); break;
        }
        dGeomSetPosition(g, test_rng_uniform(rng, 0, 4), test_rng_uniform(rng, 0, 4),
                         test_rng_uniform(rng, 0, 4));
        if (!axis_aligned_boxes)
            randomise_geom(rng, g, 10);
        (void)shared;
    }
    return space;
}

static void destroy_scene(dSpaceID space)
{
    dSpaceSetCleanup(space, 1);
    dSpaceDestroy(space); /* nested spaces and geoms with it */
}

/* Bodies shared by geoms: attach every fifth geom to one body. */
static void share_bodies(dWorldID world, dSpaceID space, dBodyID *bodies, int *body_count)
{
    dBodyID body = dBodyCreate(world);
    bodies[(*body_count)++] = body;
    int n = dSpaceGetNumGeoms(space);
    for (int i = 0; i < n; i += 5) {
        dGeomID g = dSpaceGetGeom(space, i);
        if (!dGeomIsSpace(g) && dGeomGetClass(g) != dPlaneClass) {
            const dReal *p = dGeomGetPosition(g);
            dReal position[3] = {p[0], p[1], p[2]};
            dGeomSetBody(g, body);
            dGeomSetOffsetWorldPosition(g, position[0], position[1], position[2]);
        }
    }
}

/* ODE's simple space's pairs of space (sorted), after geoms were put on
 * shared bodies if share. */
static pair_set reference_pairs(dWorldID world, dSpaceID space, int share, dBodyID *bodies,
                                int *body_count)
{
    pair_set ode = {0};
    if (share)
        share_bodies(world, space, bodies, body_count);
    dSpaceCollide(space, &ode, record);
    sort_pairs(&ode);
    return ode;
}

/* The end of one random scene: its pairs, geoms and bodies freed. */
static void scene_done(dSpaceID space, pair_set *ode, pair_set *ours, dBodyID *bodies,
                       int body_count)
{
    free(ode->pairs);
    free(ours->pairs);
    destroy_scene(space);
    for (int b = 0; b < body_count; b++)
        dBodyDestroy(bodies[b]);
}

/*
 * 200 random scenes of 40 geoms (seeds 0x0DE00000 + s): glcollide's space
 * reports exactly the pairs ODE's simple space does (no missing, no extra,
 * no duplicate), with the GPU culling off; with it on (every 4th scene: a
 * GPU query per scene costs ~0.5 s on llvmpipe), only trimesh pairs whose
 * triangles do not touch may be missing.
 */
START_TEST(test_space_conformance)
{
    dWorldID world = dWorldCreate();
    cube_data cube;
    cube_build(&cube, 0.4);
    size_t total = 0, culled = 0;
    for (int s = 0; s < 200; s++) {
        test_rng rng = {0x0DE00000u + (uint64_t)s};
        dSpaceID space = random_scene(&rng, &cube, 40, 0);
        dBodyID bodies[4];
        int body_count = 0;
        pair_set ode = reference_pairs(world, space, s % 2, bodies, &body_count), ours = {0};
        for (int gpu = 0; gpu < (s % 4 == 0 ? 2 : 1); gpu++) { /* GPU: every 4th scene */
            glcollide_ode_set_gpu(gpu ? GLCOLLIDE_ODE_GPU_ALWAYS : GLCOLLIDE_ODE_GPU_NEVER);
            ours.count = 0;
            glcollide_ode_space_collide(space, &ours, record);
            sort_pairs(&ours);
            for (size_t i = 1; i < ours.count; i++)
                ck_assert_msg(compare_pair(ours.pairs[i - 1], ours.pairs[i]) != 0,
                              "seed %d: duplicate pair", s);
            for (size_t i = 0; i < ours.count; i++)
                ck_assert_msg(has_pair(&ode, ours.pairs[i]), "seed %d: extra pair", s);
            for (size_t i = 0; i < ode.count; i++) {
                if (has_pair(&ours, ode.pairs[i]))
                    continue;
                dGeomID a = ode.pairs[i][0], b = ode.pairs[i][1];
                ck_assert_msg(gpu && dGeomGetClass(a) == dTriMeshClass &&
                                  dGeomGetClass(b) == dTriMeshClass,
                              "seed %d (gpu %d): missing pair of classes %d and %d", s, gpu,
                              dGeomGetClass(a), dGeomGetClass(b));
                dContactGeom contact[4];
                ck_assert_msg(glcollide_ode_collide(a, b, 4, contact, sizeof contact[0]) == 0,
                              "seed %d: GPU culled a touching trimesh pair", s);
                culled++;
            }
        }
        total += ode.count;
        scene_done(space, &ode, &ours, bodies, body_count);
    }
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    printf("space conformance: 200 scenes, %zu pairs equal to dSimpleSpace's; %zu trimesh pairs "
           "culled by the GPU, none touching\n",
           total, culled);
    ck_assert_uint_gt(total, 2000);
    dGeomTriMeshDataDestroy(cube.data);
    dWorldDestroy(world);
}
END_TEST

/*
 * DESIGN.md's measurement: ODE's hash space misses pairs whose AABBs overlap
 * (200 scenes of 40 axis-aligned boxes, seeds 0xA5B00000 + s). glcollide's
 * space agrees with the simple space on every one.
 */
START_TEST(test_hash_space_defect)
{
    cube_data cube;
    cube_build(&cube, 0.4);
    int hash_scenes_missing = 0;
    for (int s = 0; s < 200; s++) {
        test_rng rng = {0xA5B00000u + (uint64_t)s};
        dSpaceID space = random_scene(&rng, &cube, 40, 1);
        dSpaceID hash = dHashSpaceCreate(NULL);
        int n = dSpaceGetNumGeoms(space);
        dGeomID *geoms = malloc((size_t)n * sizeof *geoms);
        for (int i = 0; i < n; i++)
            geoms[i] = dSpaceGetGeom(space, i);
        pair_set simple = {0}, ours = {0}, hashed = {0};
        dSpaceCollide(space, &simple, record);
        glcollide_ode_space_collide(space, &ours, record);
        for (int i = 0; i < n; i++) {
            dSpaceRemove(space, geoms[i]);
            dSpaceAdd(hash, geoms[i]);
        }
        dSpaceCollide(hash, &hashed, record);
        sort_pairs(&simple);
        sort_pairs(&ours);
        ck_assert_uint_eq(simple.count, ours.count);
        for (size_t i = 0; i < ours.count; i++)
            ck_assert(compare_pair(simple.pairs[i], ours.pairs[i]) == 0);
        hash_scenes_missing += hashed.count < simple.count;
        free(simple.pairs);
        free(ours.pairs);
        free(hashed.pairs);
        free(geoms);
        destroy_scene(hash);
        destroy_scene(space);
    }
    printf("hash space: missed pairs in %d of 200 scenes; glcollide's space in none\n",
           hash_scenes_missing);
    dGeomTriMeshDataDestroy(cube.data);
}
END_TEST

/* ------------------------------------------------ ODE's edge cases, every space kind */

enum { SCENE_ZERO_SIZED = 1, SCENE_CUSTOM_CLASS = 2 };

/*
 * Zero-sized geoms as ODE flags them (GEOM_ZERO_SIZED): a sphere or capsule
 * of radius 0, a box with a zero side, a cylinder of radius or length 0.
 */
static dGeomID zero_sized_geom(test_rng *rng, dSpaceID space, double s)
{
    switch (test_rng_below(rng, 5)) {
    case 0: return dCreateSphere(space, 0);
    case 1: return dCreateBox(space, s, 0, s);
    case 2: return dCreateCapsule(space, 0, s);
    case 3: return dCreateCylinder(space, 0, s);
    default: return dCreateCylinder(space, s, 0);
    }
}

/*
 * A random scene with ODE's edge cases, into space: boxes, spheres,
 * capsules (some of length 0, which ODE does not count as zero-sized),
 * cylinders, trimesh cubes, two planes (one with a half-infinite box, one
 * with an infinite box), disabled geoms, category/collide bits; with flags,
 * zero-sized geoms and sensor balls, else a nested space (glcollide does not
 * ask a custom class's aabb_test about a nested space: see ode.h). Each
 * geom's data is its index (dGeomSetData), so scenes built twice can be
 * compared.
 */
static void edge_case_scene(test_rng *rng, const cube_data *cube, dSpaceID space, int geoms,
                            int flags)
{
    dSpaceID nested = flags & SCENE_CUSTOM_CLASS ? space : dSimpleSpaceCreate(space);
    dGeomSetData(dCreatePlane(space, 0, 0, 1, 0.3), (void *)(intptr_t)-1);
    dGeomSetData(dCreatePlane(space, 1, 1, 1, 5.0), (void *)(intptr_t)-2);
    for (int i = 0; i < geoms; i++) {
        dSpaceID target = test_rng_below(rng, 8) == 0 ? nested : space;
        double s = test_rng_uniform(rng, 0.1, 1.0);
        dGeomID g;
        switch (test_rng_below(rng, 7)) {
        case 0:
            g = dCreateBox(target, s, test_rng_uniform(rng, 0.1, 1), test_rng_uniform(rng, 0.1, 1));
            break;
        case 1: g = dCreateSphere(target, 0.5 * s); break;
        case 2: g = dCreateCapsule(target, 0.3 * s, test_rng_below(rng, 3) ? s : 0); break;
        case 3: g = dCreateCylinder(target, 0.3 * s, s); break;
        case 4: g = dCreateTriMesh(target, cube->data, NULL, NULL, NULL); break;
        case 5:
            g = flags & SCENE_ZERO_SIZED ? zero_sized_geom(rng, target, s)
                                         : dCreateSphere(target, 0.4 * s);
            break;
        default:
            g = flags & SCENE_CUSTOM_CLASS ? ode_demo_sensor_create(target, 0.6 * s)
                                           : dCreateBox(target, s, s, s);
            break;
        }
        dGeomSetData(g, (void *)(intptr_t)i);
        dGeomSetPosition(g, test_rng_uniform(rng, 0, 4), test_rng_uniform(rng, 0, 4),
                         test_rng_uniform(rng, 0, 4));
        randomise_geom(rng, g, 12);
    }
}

/* Pairs as they reach the callback, in order and as given (geom data tags). */
typedef struct pair_sequence {
    intptr_t (*tags)[2];
    size_t count, capacity;
} pair_sequence;

static void record_sequence(void *data, dGeomID a, dGeomID b)
{
    pair_sequence *seq = data;
    seq->tags = room_for_one(seq->tags, seq->count, &seq->capacity, sizeof *seq->tags);
    seq->tags[seq->count][0] = (intptr_t)dGeomGetData(a);
    seq->tags[seq->count][1] = (intptr_t)dGeomGetData(b);
    seq->count++;
}

enum { KIND_SIMPLE, KIND_HASH, KIND_SAP, KIND_QUADTREE };
static const char *const kind_names[] = {"simple", "hash", "SAP", "quadtree"};

static dSpaceID space_of_kind(int kind)
{
    static const dVector3 centre = {2, 2, 2}, extents = {8, 8, 8};
    switch (kind) {
    case KIND_SIMPLE: return dSimpleSpaceCreate(NULL);
    case KIND_HASH: return dHashSpaceCreate(NULL);
    case KIND_SAP: return dSweepAndPruneSpaceCreate(NULL, dSAP_AXES_XYZ);
    default: return dQuadTreeSpaceCreate(NULL, centre, extents, 4);
    }
}

/* Moves every geom of from into to (nested spaces with their geoms). */
static void move_geoms(dSpaceID from, dSpaceID to)
{
    int n = dSpaceGetNumGeoms(from);
    dGeomID *geoms = malloc((size_t)(n ? n : 1) * sizeof *geoms);
    ck_assert_ptr_nonnull(geoms);
    for (int i = 0; i < n; i++)
        geoms[i] = dSpaceGetGeom(from, i);
    for (int i = 0; i < n; i++) {
        dSpaceRemove(from, geoms[i]);
        dSpaceAdd(to, geoms[i]);
    }
    free(geoms);
}

/* Pairs of geoms (top level of space) whose boxes overlap and whose bits and
 * bodies allow a pair, counted when one of them satisfies what. */
static size_t overlapping_pairs_where(dSpaceID space, int (*what)(dGeomID, dGeomID))
{
    size_t count = 0;
    int n = dSpaceGetNumGeoms(space);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            dGeomID a = dSpaceGetGeom(space, i), b = dSpaceGetGeom(space, j);
            dReal x[6], y[6];
            dGeomGetAABB(a, x);
            dGeomGetAABB(b, y);
            int overlap = 1;
            for (int k = 0; k < 3; k++)
                overlap &= x[2 * k] <= y[2 * k + 1] && y[2 * k] <= x[2 * k + 1];
            dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
            int bits = (dGeomGetCategoryBits(a) & dGeomGetCollideBits(b)) ||
                       (dGeomGetCategoryBits(b) & dGeomGetCollideBits(a));
            count += overlap && bits && !(ba && ba == bb) && dGeomIsEnabled(a) &&
                     dGeomIsEnabled(b) && what(a, b);
        }
    return count;
}

static int zero_sized_pair(dGeomID a, dGeomID b)
{
    return ode_demo_zero_sized(a) || ode_demo_zero_sized(b);
}

/* What check_space_kind saw: pairs, pairs ODE drops for the property
 * asked about, and the pairs ODE's own space of that kind reports beyond
 * the simple space's, or misses. */
typedef struct kind_counts {
    size_t pairs, dropped, ode_extra, ode_missing;
} kind_counts;

/* ODE's own space of a kind against the simple space's pairs (reference):
 * extra pairs may only pair planes (the SAP space's habit). */
static void compare_ode_kind(dSpaceID space, const pair_set *reference, kind_counts *counts)
{
    pair_set ode_kind = {0};
    dSpaceCollide(space, &ode_kind, record);
    sort_pairs(&ode_kind);
    for (size_t i = 0; i < ode_kind.count; i++) {
        if (has_pair(reference, ode_kind.pairs[i]))
            continue;
        TEST_REQUIRE(dGeomGetClass(ode_kind.pairs[i][0]) == dPlaneClass ||
                         dGeomGetClass(ode_kind.pairs[i][1]) == dPlaneClass,
                     "ODE's space of class %d: an extra pair without a plane",
                     dSpaceGetClass(space));
        counts->ode_extra++;
    }
    for (size_t i = 0; i < reference->count; i++)
        counts->ode_missing += !has_pair(&ode_kind, reference->pairs[i]);
    free(ode_kind.pairs);
}

/*
 * scenes random scenes of geoms geoms (seeds seed + s) with flags, built in a
 * simple space: ODE's pairs there are the reference. Then the geoms move into
 * a space of the given kind, and glcollide's space must report exactly those
 * pairs (no missing, no extra, no duplicate). what: the pairs whose boxes
 * overlap but that ODE drops for it are counted (NULL: not counted).
 */
static kind_counts check_space_kind(int kind, uint64_t seed, int scenes, int geoms, int flags,
                                    int (*what)(dGeomID, dGeomID))
{
    dWorldID world = dWorldCreate();
    cube_data cube;
    cube_build(&cube, 0.4);
    kind_counts counts = {0};
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_NEVER);
    for (int s = 0; s < scenes; s++) {
        test_rng rng = {seed + (uint64_t)s};
        dSpaceID simple = dSimpleSpaceCreate(NULL);
        edge_case_scene(&rng, &cube, simple, geoms, flags);
        dBodyID bodies[4];
        int body_count = 0;
        pair_set ode = reference_pairs(world, simple, s % 2, bodies, &body_count), ours = {0};
        if (what)
            counts.dropped += overlapping_pairs_where(simple, what);
        dSpaceID space = simple;
        if (kind != KIND_SIMPLE) {
            space = space_of_kind(kind);
            move_geoms(simple, space);
            dSpaceDestroy(simple);
            compare_ode_kind(space, &ode, &counts);
        }
        glcollide_ode_space_collide(space, &ours, record);
        sort_pairs(&ours);
        for (size_t i = 1; i < ours.count; i++)
            TEST_REQUIRE(compare_pair(ours.pairs[i - 1], ours.pairs[i]) != 0,
                         "%s space, seed 0x%llx: duplicate pair", kind_names[kind],
                         (unsigned long long)(seed + (uint64_t)s));
        for (size_t i = 0; i < ours.count; i++)
            TEST_REQUIRE(has_pair(&ode, ours.pairs[i]),
                         "%s space, seed 0x%llx: extra pair of classes %d and %d (geoms %d, %d)",
                         kind_names[kind], (unsigned long long)(seed + (uint64_t)s),
                         dGeomGetClass(ours.pairs[i][0]), dGeomGetClass(ours.pairs[i][1]),
                         (int)(intptr_t)dGeomGetData(ours.pairs[i][0]),
                         (int)(intptr_t)dGeomGetData(ours.pairs[i][1]));
        TEST_REQUIRE(ours.count == ode.count,
                     "%s space, seed 0x%llx: %zu pairs, ODE's simple space %zu", kind_names[kind],
                     (unsigned long long)(seed + (uint64_t)s), ours.count, ode.count);
        counts.pairs += ode.count;
        scene_done(space, &ode, &ours, bodies, body_count);
    }
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    printf("%s space: %d scenes of %d geoms, %zu pairs equal to dSimpleSpace's", kind_names[kind],
           scenes, geoms, counts.pairs);
    if (what)
        printf(" (%zu overlapping pairs dropped as ODE drops them)", counts.dropped);
    if (kind != KIND_SIMPLE)
        printf("; ODE's own: %zu extra plane pairs, %zu missing", counts.ode_extra,
               counts.ode_missing);
    printf("\n");
    ck_assert_uint_gt(counts.pairs, (size_t)scenes * 10);
    dGeomTriMeshDataDestroy(cube.data);
    dWorldDestroy(world);
    return counts;
}

/* ODE's spaces skip zero-sized geoms (sphere of radius 0, box with a zero
 * side, ...): so must glcollide's. 25 scenes of 60 geoms, seeds 0x2E805000 + s. */
START_TEST(test_space_zero_sized)
{
    ck_assert_uint_gt(
        check_space_kind(KIND_SIMPLE, 0x2E805000u, 25, 60, SCENE_ZERO_SIZED, zero_sized_pair)
            .dropped,
        0);
}
END_TEST

/* A custom class's aabb_test is honoured as ODE's spaces honour it.
 * 25 scenes of 60 geoms, seeds 0xC0570000 + s. */
START_TEST(test_space_custom_class)
{
    ck_assert_uint_gt(check_space_kind(KIND_SIMPLE, 0xC0570000u, 25, 60, SCENE_CUSTOM_CLASS,
                                       ode_demo_sensor_rejects)
                          .dropped,
                      0);
}
END_TEST

/*
 * Every kind of ODE space serves as glcollide's: hash, sweep-and-prune and
 * quadtree spaces (ODE 0.16 has no dSpaceGetGeom for the last), with all the
 * edge cases (a nested space, or custom classes). 2 x 25 scenes of 60 geoms
 * per kind, seeds 0x5FACE000 + 100 kind + 50 custom + s. On the way, the
 * differences of ODE's own spaces that the README lists: its SAP space
 * pairs infinite planes with every geom, whatever their boxes (pairs that
 * give no contacts).
 */
START_TEST(test_space_kinds)
{
    for (int kind = KIND_SIMPLE; kind <= KIND_QUADTREE; kind++) {
        size_t ode_extra = 0;
        for (int custom = 0; custom < 2; custom++)
            ode_extra +=
                check_space_kind(kind, 0x5FACE000u + 100u * (uint64_t)kind + 50u * (uint64_t)custom,
                                 25, 60, SCENE_ZERO_SIZED | (custom ? SCENE_CUSTOM_CLASS : 0), NULL)
                    .ode_extra;
        if (kind == KIND_SAP)
            ck_assert_uint_gt(ode_extra, 0);
    }
}
END_TEST

/*
 * Pairs reach the callback in dSimpleSpace's order, each as (earlier, later)
 * in the space's list, so that joints, and hence results, are the same with
 * and without glcollide. The same scene built in a hash space gives that
 * order too (the two keep their geoms in one list alike); ODE's hash space
 * itself does not. 20 scenes of 60 geoms, seeds 0x0DE50000 + s.
 */
START_TEST(test_pair_order)
{
    cube_data cube;
    cube_build(&cube, 0.4);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_NEVER);
    size_t pairs = 0;
    int hash_orders_differ = 0;
    for (int s = 0; s < 20; s++) {
        dSpaceID spaces[2] = {dSimpleSpaceCreate(NULL), dHashSpaceCreate(NULL)};
        for (int i = 0; i < 2; i++) {
            test_rng rng = {0x0DE50000u + (uint64_t)s};
            edge_case_scene(&rng, &cube, spaces[i], 60, SCENE_ZERO_SIZED | SCENE_CUSTOM_CLASS);
        }
        pair_sequence ode = {0}, ode_hash = {0}, ours[2] = {{0}, {0}};
        dSpaceCollide(spaces[0], &ode, record_sequence);
        dSpaceCollide(spaces[1], &ode_hash, record_sequence);
        for (int i = 0; i < 2; i++) {
            glcollide_ode_space_collide(spaces[i], &ours[i], record_sequence);
            TEST_REQUIRE(ours[i].count == ode.count, "seed %d, %s space: %zu pairs, ODE %zu", s,
                         i ? "hash" : "simple", ours[i].count, ode.count);
            for (size_t k = 0; k < ode.count; k++)
                TEST_REQUIRE(ours[i].tags[k][0] == ode.tags[k][0] &&
                                 ours[i].tags[k][1] == ode.tags[k][1],
                             "seed %d, %s space: pair %zu is (%d, %d), dSimpleSpace's (%d, %d)", s,
                             i ? "hash" : "simple", k, (int)ours[i].tags[k][0],
                             (int)ours[i].tags[k][1], (int)ode.tags[k][0], (int)ode.tags[k][1]);
        }
        hash_orders_differ += ode_hash.count != ode.count ||
                              memcmp(ode_hash.tags, ode.tags, ode.count * sizeof *ode.tags) != 0;
        pairs += ode.count;
        free(ode.tags);
        free(ode_hash.tags);
        free(ours[0].tags);
        free(ours[1].tags);
        destroy_scene(spaces[0]);
        destroy_scene(spaces[1]);
    }
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    printf("pair order: 20 scenes, %zu pairs in dSimpleSpace's order (simple and hash spaces); "
           "ODE's hash space gives another order in %d\n",
           pairs, hash_orders_differ);
    ck_assert_int_gt(hash_orders_differ, 0);
    dGeomTriMeshDataDestroy(cube.data);
}
END_TEST

/* Two trimesh cubes overlapping by d along each axis: contacts with normal
 * along that axis (from the second cube towards the first), depth d. */
START_TEST(test_trimesh_contacts)
{
    cube_data cube;
    cube_build(&cube, 0.5);
    dGeomID a = dCreateTriMesh(NULL, cube.data, NULL, NULL, NULL);
    dGeomID b = dCreateTriMesh(NULL, cube.data, NULL, NULL, NULL);
    static const double depths[] = {0.01, 0.1, 0.3};
    for (int axis = 0; axis < 3; axis++)
        for (size_t d = 0; d < 3; d++) {
            double offset[3] = {0, 0, 0};
            offset[axis] = 1.0 - depths[d];
            dGeomSetPosition(a, offset[0], offset[1], offset[2]);
            dGeomSetPosition(b, 0, 0, 0);
            dContactGeom contacts[16];
            int n = glcollide_ode_collide(a, b, 16, contacts, sizeof contacts[0]);
            ck_assert_int_gt(n, 0);
            ck_assert_int_le(n, 16);
            for (int i = 0; i < n; i++) {
                ck_assert(contacts[i].g1 == a && contacts[i].g2 == b);
                ck_assert_msg(contacts[i].normal[axis] > 0.9, "axis %d: normal %g %g %g", axis,
                              contacts[i].normal[0], contacts[i].normal[1], contacts[i].normal[2]);
                ck_assert_msg(fabs(contacts[i].depth - depths[d]) <= 0.5 * depths[d] + 1e-9,
                              "axis %d depth %g: contact depth %g", axis, depths[d],
                              contacts[i].depth);
                ck_assert_int_ge(contacts[i].side1, 0);
                ck_assert_int_lt(contacts[i].side1, 12);
            }
            /* Through dCollide and the collider override: the same contacts. */
            dContactGeom again[16];
            int m = dCollide(a, b, 16, again, sizeof again[0]);
            ck_assert_int_eq(m, n);
            for (int i = 0; i < n; i++)
                ck_assert(fabs(again[i].depth - contacts[i].depth) < 1e-12);
            /* Asking for one contact gives the deepest. */
            ck_assert_int_eq(glcollide_ode_collide(a, b, 1, again, sizeof again[0]), 1);
        }
    dGeomSetPosition(a, 1.001, 0, 0);
    dContactGeom none[4];
    ck_assert_int_eq(glcollide_ode_collide(a, b, 4, none, sizeof none[0]), 0);
    dGeomDestroy(a);
    dGeomDestroy(b);
    dGeomTriMeshDataDestroy(cube.data);
}
END_TEST

/* A glcollide mesh as ODE trimesh data (vertices copied into dReal). */
typedef struct mesh_data {
    dReal *vertices;
    dTriIndex *indices;
    dTriMeshDataID data;
    const glcollide_mesh *mesh;
} mesh_data;

static void mesh_data_build(mesh_data *m, const glcollide_mesh *mesh)
{
    m->mesh = mesh;
    m->vertices = malloc(3 * mesh->vertex_count * sizeof *m->vertices);
    m->indices = malloc(3 * mesh->triangle_count * sizeof *m->indices);
    ck_assert(m->vertices && m->indices);
    for (size_t i = 0; i < 3 * mesh->vertex_count; i++)
        m->vertices[i] = (dReal)mesh->positions[i];
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
        m->indices[i] = (dTriIndex)mesh->triangles[i];
    m->data = dGeomTriMeshDataCreate();
    ode_demo_build_trimesh(m->data, m->vertices, (int)mesh->vertex_count, m->indices,
                           (int)(3 * mesh->triangle_count));
    /* glcollide reads the exact arrays (else OPCODE's float copies). */
#ifdef dDOUBLE
    glcollide_ode_trimesh_data_build_double(m->data, m->vertices, 3 * sizeof(dReal),
                                            (int)mesh->vertex_count, m->indices,
                                            (int)(3 * mesh->triangle_count), 3 * sizeof(dTriIndex));
#else
    glcollide_ode_trimesh_data_build_single(m->data, m->vertices, 3 * sizeof(dReal),
                                            (int)mesh->vertex_count, m->indices,
                                            (int)(3 * mesh->triangle_count), 3 * sizeof(dTriIndex));
#endif
}

static void mesh_data_free(mesh_data *m)
{
    glcollide_ode_trimesh_data_forget(m->data);
    dGeomTriMeshDataDestroy(m->data);
    free(m->vertices);
    free(m->indices);
}

/* The world positions of a trimesh geom's vertices, as ODE places them. */
static double *world_positions(dGeomID geom, const mesh_data *m)
{
    const dReal *p = dGeomGetPosition(geom), *r = dGeomGetRotation(geom);
    size_t n = m->mesh->vertex_count;
    double *world = malloc(3 * n * sizeof *world);
    ck_assert_ptr_nonnull(world);
    for (size_t v = 0; v < n; v++)
        for (int k = 0; k < 3; k++)
            world[3 * v + k] = r[4 * k] * m->vertices[3 * v] +
                               r[4 * k + 1] * m->vertices[3 * v + 1] +
                               r[4 * k + 2] * m->vertices[3 * v + 2] + p[k];
    return world;
}

/* The world positions as the plugin places a geom's mesh: ODE's position
 * and its quaternion, normalised (glcollide_object_transform_points). */
static double *plugin_positions(dGeomID geom, const mesh_data *m)
{
    const dReal *p = dGeomGetPosition(geom);
    dQuaternion q;
    dGeomGetQuaternion(geom, q);
    double norm = 0.0; /* exactly as the plugin does it */
    for (int k = 0; k < 4; k++)
        norm += (double)q[k] * (double)q[k];
    norm = norm > 0.0 ? 1.0 / sqrt(norm) : 1.0;
    glcollide_object object = {
        0, {p[0], p[1], p[2]}, {q[0] * norm, q[1] * norm, q[2] * norm, q[3] * norm}};
    size_t n = m->mesh->vertex_count;
    double *local = malloc(3 * n * sizeof *local), *world = malloc(3 * n * sizeof *world);
    ck_assert(local && world);
    for (size_t i = 0; i < 3 * n; i++) /* the arrays ODE has now (a deforming mesh's too) */
        local[i] = (double)m->vertices[i];
    glcollide_object_transform_points(&object, local, n, world);
    free(local);
    return world;
}

static int collect_candidate(uint32_t a, uint32_t b, void *user)
{
    TEST_REQUIRE(glcollide_pair_list_push(user, a, b) == GLCOLLIDE_OK, "push failed");
    return 0;
}

/*
 * The oracle: every pair of triangles whose world boxes overlap, given to the
 * contact generator on full world copies of both meshes, placed as the
 * plugin places them. The plugin (object-space BVHs, only candidate
 * triangles moved to world space) must give the same contacts, all of them
 * (a cap far above the count): the same count, and each within 1e-12 of the
 * scene's size in position and depth (regions, normals and choices are made
 * on the same coordinates and keyed alike). Which of two coincident points
 * (a vertex shared by triangles) represents them may differ. Each contact's
 * triangles must really touch where ODE's matrix places the arrays.
 */
static void check_against_world_oracle(dGeomID a, const mesh_data *ma, dGeomID b,
                                       const mesh_data *mb, const char *what, size_t *touching)
{
    enum { MAX = 4096 };
    double *pa = plugin_positions(a, ma), *pb = plugin_positions(b, mb);
    double *wa = world_positions(a, ma), *wb = world_positions(b, mb);
    glcollide_bvh *ba = NULL, *bb = NULL;
    ck_assert_int_eq(glcollide_bvh_build(pa, ma->mesh->vertex_count, ma->mesh->triangles,
                                         ma->mesh->triangle_count, &ba),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_bvh_build(pb, mb->mesh->vertex_count, mb->mesh->triangles,
                                         mb->mesh->triangle_count, &bb),
                     GLCOLLIDE_OK);
    /* ODE's dCollide hands two trimeshes to the collider as (b, a) and
     * reverses its contacts; the plugin does the same, so the oracle
     * generates with b first (a contact's point and depth do not change
     * with the reversal). */
    glcollide_pair_list candidates = {0};
    glcollide_bvh_overlap(bb, ba, 0.0, collect_candidate, &candidates);
    glcollide_contact *want = malloc(MAX * sizeof *want);
    dContactGeom *got = malloc(MAX * sizeof *got);
    ck_assert(want && got);
    size_t want_count = 0;
    ck_assert_int_eq(glcollide_contacts_generate(pb, mb->mesh->triangles, pa, ma->mesh->triangles,
                                                 candidates.pairs, candidates.count, want, MAX,
                                                 &want_count),
                     GLCOLLIDE_OK);
    ck_assert_uint_lt(want_count, MAX);
    int n = glcollide_ode_collide(a, b, MAX, got, sizeof got[0]);
    ck_assert_msg((size_t)n == want_count, "%s: %d contacts, the world-space oracle %zu", what, n,
                  want_count);
    double scale = 0.0;
    for (size_t v = 0; v < 3 * ma->mesh->vertex_count; v++)
        scale = fmax(scale, fabs(pa[v]));
    double tol = 1e-12 * scale + 1e-12;
    for (size_t i = 0; i < want_count; i++) {
        int found = 0;
        for (int j = 0; j < n && !found; j++) {
            double d = 0;
            for (int k = 0; k < 3; k++)
                d = fmax(d, fabs(got[j].pos[k] - want[i].position[k]));
            found = d <= tol && fabs(got[j].depth - fmax(want[i].depth, 0.0)) <= tol + 1e-9;
        }
        TEST_REQUIRE(found, "%s: oracle contact %zu (triangles %u, %u, depth %g) missing", what, i,
                     want[i].triangle_b, want[i].triangle_a, want[i].depth);
    }
    for (int j = 0; j < n; j++) {
        const uint32_t *ta = ma->mesh->triangles + 3 * (size_t)got[j].side1;
        const uint32_t *tb = mb->mesh->triangles + 3 * (size_t)got[j].side2;
        TEST_REQUIRE(got[j].side1 >= 0 && (size_t)got[j].side1 < ma->mesh->triangle_count &&
                         got[j].side2 >= 0 && (size_t)got[j].side2 < mb->mesh->triangle_count,
                     "%s: contact %d sides %d, %d out of range", what, j, got[j].side1,
                     got[j].side2);
        double gap =
            glcollide_tri_tri_distance(wa + 3 * ta[0], wa + 3 * ta[1], wa + 3 * ta[2],
                                       wb + 3 * tb[0], wb + 3 * tb[1], wb + 3 * tb[2], NULL, NULL);
        gap = gap > 1e-9 * scale ? gap : 0.0; /* ODE's matrix and the quaternion differ by ulps */
        TEST_REQUIRE(gap <= 1e-9 && got[j].g1 == a && got[j].g2 == b,
                     "%s: contact %d names triangles %d, %d that are %g apart", what, j,
                     got[j].side1, got[j].side2, gap);
    }
    *touching += want_count > 0;
    free(want);
    free(got);
    glcollide_pair_list_release(&candidates);
    glcollide_bvh_destroy(&ba);
    glcollide_bvh_destroy(&bb);
    free(wa);
    free(wb);
    free(pa);
    free(pb);
}

static void random_pose(test_rng *rng, dGeomID geom, double spread)
{
    double q[4];
    test_rng_quaternion(rng, q);
    dQuaternion dq = {(dReal)q[0], (dReal)q[1], (dReal)q[2], (dReal)q[3]};
    dGeomSetQuaternion(geom, dq);
    dGeomSetPosition(geom, test_rng_uniform(rng, -spread, spread),
                     test_rng_uniform(rng, -spread, spread),
                     test_rng_uniform(rng, -spread, spread));
}

/*
 * Rigid meshes at random poses (rotations included, far from the origin
 * too), then a deforming one (vertices changed in place, ODE told with
 * dGeomTriMeshDataUpdate and glcollide with glcollide_ode_trimesh_data_changed):
 * the plugin's contacts equal the world-space oracle's every time.
 * Seeds 0x0B1EC700 + pose; 120 poses of knot1/elephant, 40 deformed.
 */
START_TEST(test_trimesh_object_space)
{
    glcollide_mesh *knot = NULL, *elephant = NULL;
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("knot1.off"), 1.0, &knot), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("elephant.off"), 1.0, &elephant),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_fit(knot, 1.0), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_fit(elephant, 1.0), GLCOLLIDE_OK);
    mesh_data mk, me;
    mesh_data_build(&mk, knot);
    mesh_data_build(&me, elephant);
    dGeomID a = dCreateTriMesh(NULL, mk.data, NULL, NULL, NULL);
    dGeomID b = dCreateTriMesh(NULL, me.data, NULL, NULL, NULL);
    size_t touching = 0;
    char what[96];
    for (int pose = 0; pose < 160; pose++) {
        test_rng rng = {0x0B1EC700u + (uint64_t)pose};
        double far = pose % 8 == 7 ? 1e4 : 0.0; /* both far from the origin */
        random_pose(&rng, a, 0.35);
        random_pose(&rng, b, 0.1);
        const dReal *pa = dGeomGetPosition(a), *pb = dGeomGetPosition(b);
        dGeomSetPosition(a, pa[0] + far, pa[1], pa[2]);
        dGeomSetPosition(b, pb[0] + far, pb[1], pb[2]);
        if (pose >= 120) { /* the elephant breathes: in place, same triangles */
            double scale = 1.0 + 0.05 * sin(pose);
            for (size_t i = 0; i < 3 * elephant->vertex_count; i++)
                me.vertices[i] = (dReal)(scale * elephant->positions[i]);
            dGeomTriMeshDataUpdate(me.data);
            glcollide_ode_trimesh_data_changed(me.data);
        }
        snprintf(what, sizeof what, "pose %d (seed 0x%llx)", pose,
                 (unsigned long long)(0x0B1EC700u + (uint64_t)pose));
        check_against_world_oracle(a, &mk, b, &me, what, &touching);
    }
    printf("trimesh object space: 160 poses equal to the world-space oracle, %zu touching\n",
           touching);
    ck_assert_uint_ge(touching, 40);
    dGeomDestroy(a);
    dGeomDestroy(b);
    mesh_data_free(&mk);
    mesh_data_free(&me);
    glcollide_mesh_destroy(&knot);
    glcollide_mesh_destroy(&elephant);
}
END_TEST

/* Contacts of (a, b) through dCollide equal those of two geoms never seen by
 * a space (ra, rb) given the same data and transforms: nothing cached for
 * (a, b) was used unless it still holds. */
static void expect_fresh_contacts(dGeomID a, dGeomID b, dGeomID ra, dGeomID rb, const char *what)
{
    enum { MAX = 64 };
    dGeomID geoms[2] = {a, b}, fresh[2] = {ra, rb};
    for (int i = 0; i < 2; i++) {
        dGeomTriMeshSetData(fresh[i], dGeomTriMeshGetTriMeshDataID(geoms[i]));
        const dReal *p = dGeomGetPosition(geoms[i]);
        dGeomSetPosition(fresh[i], p[0], p[1], p[2]);
        dGeomSetRotation(fresh[i], dGeomGetRotation(geoms[i]));
    }
    dContactGeom got[MAX], want[MAX];
    int n = dCollide(a, b, MAX, got, sizeof got[0]);
    int m = dCollide(ra, rb, MAX, want, sizeof want[0]);
    int triangles[2] = {dGeomTriMeshGetTriangleCount(a), dGeomTriMeshGetTriangleCount(b)};
    ck_assert_msg(m > 0, "%s: the placement must touch", what);
    for (int i = 0; i < n; i++)
        ck_assert_msg(got[i].side1 >= 0 && got[i].side1 < triangles[0] && got[i].side2 >= 0 &&
                          got[i].side2 < triangles[1],
                      "%s: contact %d names triangles %d and %d of meshes of %d and %d", what, i,
                      got[i].side1, got[i].side2, triangles[0], triangles[1]);
    ck_assert_msg(n == m, "%s: %d contacts, %d from geoms no space has seen", what, n, m);
    for (int i = 0; i < n; i++)
        ck_assert_msg(got[i].depth == want[i].depth && got[i].side1 == want[i].side1 &&
                          got[i].side2 == want[i].side2 &&
                          memcmp(got[i].pos, want[i].pos, sizeof got[i].pos) == 0,
                      "%s: contact %d differs", what, i);
}

/*
 * The candidates a step's GPU culling leaves for a pair serve the dCollide
 * calls of that step; they must never serve a pair whose meshes changed:
 * another data set on both geoms at the same transforms (a smaller one: its
 * triangles are fewer than the cached indices), a data rebuilt from other
 * arrays, vertices changed in place (ODE and glcollide told), a data marked
 * changed.
 */
START_TEST(test_step_cache_changed_mesh)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (skip && strcmp(skip, "1") == 0)
        return;
    glcollide_mesh *sphere = NULL, *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.5, 24, 12, &sphere), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.5, 0.5, &box), GLCOLLIDE_OK);
    static const char *const cases[] = {"another, smaller data set on both geoms",
                                        "the data rebuilt from a smaller mesh's arrays",
                                        "vertices changed in place", "the data marked changed"};
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
    for (int c = 0; c < 4; c++) {
        mesh_data used, small;
        mesh_data_build(&used, sphere);
        mesh_data_build(&small, box);
        dSpaceID space = dSimpleSpaceCreate(NULL);
        dGeomID a = dCreateTriMesh(space, used.data, NULL, NULL, NULL);
        dGeomID b = dCreateTriMesh(space, used.data, NULL, NULL, NULL);
        dGeomID ra = dCreateTriMesh(NULL, used.data, NULL, NULL, NULL);
        dGeomID rb = dCreateTriMesh(NULL, used.data, NULL, NULL, NULL);
        dGeomSetPosition(b, 0.7, 0.15, 0.05);
        dMatrix3 r;
        dRFromAxisAndAngle(r, 1, 2, 3, 0.4);
        dGeomSetRotation(b, r);
        glcollide_ode_stats before, after;
        glcollide_ode_get_stats(&before);
        pair_set seen = {0};
        glcollide_ode_space_collide(space, &seen, record);
        glcollide_ode_get_stats(&after);
        ck_assert_uint_eq(seen.count, 1);
        ck_assert_msg(after.gpu_queries > before.gpu_queries, "no GPU culling ran");
        switch (c) {
        case 0:
            dGeomTriMeshSetData(a, small.data);
            dGeomTriMeshSetData(b, small.data);
            break;
        case 1:
            ode_demo_build_trimesh(used.data, small.vertices, (int)box->vertex_count, small.indices,
                                   (int)(3 * box->triangle_count));
#ifdef dDOUBLE
            glcollide_ode_trimesh_data_build_double(
                used.data, small.vertices, 3 * sizeof(dReal), (int)box->vertex_count, small.indices,
                (int)(3 * box->triangle_count), 3 * sizeof(dTriIndex));
#else
            glcollide_ode_trimesh_data_build_single(
                used.data, small.vertices, 3 * sizeof(dReal), (int)box->vertex_count, small.indices,
                (int)(3 * box->triangle_count), 3 * sizeof(dTriIndex));
#endif
            break;
        default:
            for (size_t i = 0; i < 3 * sphere->vertex_count; i++)
                used.vertices[i] = (dReal)(1.3 * sphere->positions[i]);
            if (c == 2)
                dGeomTriMeshDataUpdate(used.data);
            glcollide_ode_trimesh_data_changed(used.data);
            break;
        }
        expect_fresh_contacts(a, b, ra, rb, cases[c]);
        free(seen.pairs);
        dGeomDestroy(ra);
        dGeomDestroy(rb);
        dSpaceDestroy(space);
        mesh_data_free(&used);
        mesh_data_free(&small);
    }
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    glcollide_mesh_destroy(&sphere);
    glcollide_mesh_destroy(&box);
}
END_TEST

/* The contacts a space's step gives: every pair handed to the callback is
 * collided at once (dCollide, 16 contacts offered), as a near callback does. */
typedef struct step_contacts {
    dContactGeom contacts[256];
    int count;
} step_contacts;

static void collide_pair(void *data, dGeomID a, dGeomID b)
{
    step_contacts *out = data;
    if (out->count + 16 <= 256)
        out->count += dCollide(a, b, 16, out->contacts + out->count, sizeof out->contacts[0]);
}

/*
 * A solid wholly inside another (no surfaces meet) is pushed out with the
 * GPU culling on exactly as on the CPU: GPU culling finds no candidate
 * triangle pair for it, and must not drop the pair. Cases: a sphere inside
 * a box; a sphere turned 45 degrees inside a slightly larger sphere, whose
 * rotated box is not inside the outer one's (a box test alone misses it);
 * the same with the outer one turned.
 */
START_TEST(test_contained_gpu_equals_cpu)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (skip && strcmp(skip, "1") == 0)
        return;
    glcollide_mesh *box = NULL, *small = NULL, *inner = NULL, *outer = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(0.4, 0.4, 0.4, &box), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.05, 12, 6, &small), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.3, 24, 12, &inner), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.35, 24, 12, &outer), GLCOLLIDE_OK);
    static const struct {
        const char *what;
        int pair; /* 0: box and small sphere, 1: the two spheres */
        double offset[3], yaw_inner, yaw_outer;
    } cases[] = {{"small sphere in a box", 0, {0.13, 0.02, -0.05}, 0.3, 0},
                 {"turned sphere in a sphere", 1, {0.005, -0.004, 0.003}, 0.25 * M_PI, 0},
                 {"sphere in a turned sphere", 1, {0.003, 0.002, -0.004}, 0, 0.25 * M_PI}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        mesh_data md_outer, md_inner;
        mesh_data_build(&md_outer, cases[c].pair ? outer : box);
        mesh_data_build(&md_inner, cases[c].pair ? inner : small);
        dSpaceID space = dSimpleSpaceCreate(NULL);
        dGeomID go = dCreateTriMesh(space, md_outer.data, NULL, NULL, NULL);
        dGeomID gi = dCreateTriMesh(space, md_inner.data, NULL, NULL, NULL);
        dMatrix3 r;
        dRFromAxisAndAngle(r, 0, 0, 1, cases[c].yaw_outer);
        dGeomSetRotation(go, r);
        dRFromAxisAndAngle(r, 0, 0, 1, cases[c].yaw_inner);
        dGeomSetRotation(gi, r);
        dGeomSetPosition(gi, cases[c].offset[0], cases[c].offset[1], cases[c].offset[2]);
        /* CPU; GPU culling; GPU culling with the stencil flags pass */
        step_contacts got[3];
        unsigned long long contained[3];
        for (int gpu = 0; gpu < 3; gpu++) {
            glcollide_ode_set_gpu(gpu ? GLCOLLIDE_ODE_GPU_ALWAYS : GLCOLLIDE_ODE_GPU_NEVER);
            glcollide_ode_set_stencil_flags(gpu == 2 ? GLCOLLIDE_ODE_STENCIL_RESOLUTION : 0);
            glcollide_ode_stats before, after;
            glcollide_ode_get_stats(&before);
            got[gpu].count = 0;
            glcollide_ode_space_collide(space, &got[gpu], collide_pair);
            glcollide_ode_get_stats(&after);
            contained[gpu] = after.contained - before.contained;
            if (gpu)
                ck_assert_msg(after.gpu_queries > before.gpu_queries, "%s: no GPU culling ran",
                              cases[c].what);
            if (gpu == 2) {
                ck_assert_msg(after.stencil_passes == before.stencil_passes + 1,
                              "%s: no stencil pass ran", cases[c].what);
                /* deep inside at 256 pixels: flagged */
                ck_assert_msg(after.stencil_flagged == before.stencil_flagged + 1 &&
                                  after.stencil_missed == before.stencil_missed,
                              "%s: the stencil did not flag the contained pair", cases[c].what);
            }
        }
        glcollide_ode_set_stencil_flags(0);
        ck_assert_msg(got[0].count > 0 && contained[0] == 1,
                      "%s: CPU path: %d contacts, %llu pairs pushed out", cases[c].what,
                      got[0].count, contained[0]);
        for (int gpu = 1; gpu < 3; gpu++)
            ck_assert_msg(got[gpu].count == got[0].count && contained[gpu] == contained[0],
                          "%s: GPU path %d: %d contacts (%llu contained), CPU path %d",
                          cases[c].what, gpu, got[gpu].count, contained[gpu], got[0].count);
        for (int i = 0; i < 2 * got[0].count; i++) {
            const dContactGeom *x = &got[0].contacts[i / 2], *y = &got[1 + i % 2].contacts[i / 2];
            ck_assert_msg(x->depth == y->depth && memcmp(x->pos, y->pos, sizeof x->pos) == 0 &&
                              memcmp(x->normal, y->normal, sizeof x->normal) == 0 &&
                              x->g1 == y->g1 && x->side1 == y->side1 && x->side2 == y->side2,
                          "%s: contact %d differs between the GPU and CPU paths", cases[c].what, i);
        }
        dSpaceDestroy(space);
        mesh_data_free(&md_outer);
        mesh_data_free(&md_inner);
    }
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    glcollide_mesh_destroy(&box);
    glcollide_mesh_destroy(&small);
    glcollide_mesh_destroy(&inner);
    glcollide_mesh_destroy(&outer);
}
END_TEST

/*
 * Geoms that cannot meet anything, or only each other, with GPU culling
 * forced: two at NaN (ODE's box is NaN: no pair), one alone at 1e300, two
 * at 1e300 touching each other, beside a finite stack of three boxes. The
 * finite pairs and the far pair get the contacts of the CPU path, bit for
 * bit; the far pair is kept (its candidates from the CPU's BVHs, not the
 * views, which keep the finite boxes' pixels); the GPU ran.
 */
START_TEST(test_far_geoms_gpu_equals_cpu)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (skip && strcmp(skip, "1") == 0)
        return;
    glcollide_mesh *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.5, 0.5, &box), GLCOLLIDE_OK);
    mesh_data md;
    mesh_data_build(&md, box);
    dSpaceID space = dSimpleSpaceCreate(NULL);
    static const double places[][3] = {{0, 0, 0},       {0.02, 0, 0.99}, {0.04, 0, 1.98},
                                       {NAN, 0, 0},     {0, NAN, 1},     {1e300, 0, 0},
                                       {1e300, 0.9, 0}, {-1e300, 0, 0}};
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        dGeomID g = dCreateTriMesh(space, md.data, NULL, NULL, NULL);
        dGeomSetPosition(g, places[i][0], places[i][1], places[i][2]);
    }
    step_contacts got[2];
    for (int gpu = 0; gpu < 2; gpu++) {
        glcollide_ode_set_gpu(gpu ? GLCOLLIDE_ODE_GPU_ALWAYS : GLCOLLIDE_ODE_GPU_NEVER);
        glcollide_ode_stats before, after;
        glcollide_ode_get_stats(&before);
        got[gpu].count = 0;
        glcollide_ode_space_collide(space, &got[gpu], collide_pair);
        glcollide_ode_get_stats(&after);
        /* the stack's two pairs and the far pair */
        ck_assert_uint_eq(after.callbacks - before.callbacks, 3);
        if (gpu)
            ck_assert_msg(after.gpu_queries == before.gpu_queries + 1 &&
                              after.culled_pairs == before.culled_pairs,
                          "GPU culling did not run, or culled a touching pair");
    }
    ck_assert_msg(got[0].count > 0 && got[1].count == got[0].count,
                  "%d contacts on the CPU path, %d with GPU culling", got[0].count, got[1].count);
    int far = 0;
    for (int i = 0; i < got[0].count; i++) {
        const dContactGeom *x = &got[0].contacts[i], *y = &got[1].contacts[i];
        far += x->pos[0] > 1e299;
        ck_assert_msg(x->depth == y->depth && memcmp(x->pos, y->pos, sizeof x->pos) == 0 &&
                          memcmp(x->normal, y->normal, sizeof x->normal) == 0 && x->g1 == y->g1 &&
                          x->g2 == y->g2 && x->side1 == y->side1 && x->side2 == y->side2,
                      "contact %d differs between the GPU and CPU paths", i);
    }
    ck_assert_msg(far > 0, "no contact of the pair at 1e300");
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    dSpaceDestroy(space);
    mesh_data_free(&md);
    glcollide_mesh_destroy(&box);
}
END_TEST

/*
 * A trimesh data met for the first time while GPU culling runs uploads that
 * mesh alone: the thread's culling world (which borrows the captures and
 * their BVHs) is kept when a capture is added, and made again only when
 * one is freed or rewritten. Two spheres of 4,608 triangles overlapping,
 * 3 steps; then a box joins them: its step uploads the box (its vertices
 * and 12 triangles), the poses and the mesh table, not the sphere again;
 * then the box deforms in place: its vertices alone travel again.
 */
START_TEST(test_gpu_new_mesh_uploads_alone)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (skip && strcmp(skip, "1") == 0)
        return;
    glcollide_mesh *sphere = NULL, *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.3, 96, 24, &sphere), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.2, 0.2, 0.2, &box), GLCOLLIDE_OK);
    mesh_data md_sphere, md_box;
    mesh_data_build(&md_sphere, sphere);
    mesh_data_build(&md_box, box);
    dSpaceID space = glcollide_ode_space_create(NULL);
    dGeomID a = dCreateTriMesh(space, md_sphere.data, NULL, NULL, NULL);
    dGeomID b = dCreateTriMesh(space, md_sphere.data, NULL, NULL, NULL);
    dGeomSetPosition(a, 0, 0, 0);
    dGeomSetPosition(b, 0.5, 0, 0);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
    static step_contacts got;
    glcollide_ode_stats before, after;
    for (int step = 0; step < 3; step++) {
        got.count = 0;
        glcollide_ode_space_collide(space, &got, collide_pair);
    }
    dGeomID c = dCreateTriMesh(space, md_box.data, NULL, NULL, NULL);
    dGeomSetPosition(c, 0.25, 0.2, 0);
    glcollide_ode_get_stats(&before);
    got.count = 0;
    glcollide_ode_space_collide(space, &got, collide_pair);
    glcollide_ode_get_stats(&after);
    unsigned long long uploaded = after.upload_bytes - before.upload_bytes;
    size_t sphere_bytes = (16 * 3 + 12) * sphere->triangle_count;
    printf("a box joins two culled spheres: %llu bytes uploaded (the sphere: %zu)\n", uploaded,
           sphere_bytes);
    ck_assert_msg(after.gpu_queries == before.gpu_queries + 1, "no GPU culling ran");
    ck_assert_msg(got.count > 0, "no contacts");
    ck_assert_msg(uploaded > (16 * 3 + 12) * box->triangle_count && uploaded < 4096,
                  "%llu bytes uploaded for a box joining", uploaded);
    /* The box deforms in place (its arrays rewritten, glcollide told): its
     * vertices travel again, nothing else of the meshes. */
    for (size_t i = 0; i < 3 * box->vertex_count; i++)
        md_box.vertices[i] *= (dReal)1.1;
    glcollide_ode_trimesh_data_changed(md_box.data);
    glcollide_ode_get_stats(&before);
    got.count = 0;
    glcollide_ode_space_collide(space, &got, collide_pair);
    glcollide_ode_get_stats(&after);
    uploaded = after.upload_bytes - before.upload_bytes;
    printf("the box deforms: %llu bytes uploaded\n", uploaded);
    ck_assert_msg(after.gpu_queries == before.gpu_queries + 1 && got.count > 0,
                  "no GPU culling or no contacts after the deformation");
    ck_assert_msg(uploaded >= 16 * box->vertex_count && uploaded < 4096,
                  "%llu bytes uploaded for the box's deformation", uploaded);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    dSpaceDestroy(space);
    mesh_data_free(&md_sphere);
    mesh_data_free(&md_box);
    glcollide_mesh_destroy(&sphere);
    glcollide_mesh_destroy(&box);
}
END_TEST

/*
 * Warm steps of the GPU path allocate nothing of ours. Run with
 * tests/alloc_count preloaded (tests/programs/pile.sh does), which charges each
 * allocation to its caller and tells the GL driver's (Mesa's, not ours to
 * remove) from the rest: this case is only registered where the counter
 * is found. A row of 6 trimesh spheres, each overlapping the next, GPU
 * culling forced, moved a little every step (so every step culls, draws
 * and reads back); 10 steps to warm, then 20 counted.
 */
static unsigned long *counter_total, *counter_driver;

START_TEST(test_gpu_warm_allocations)
{
    glcollide_mesh *sphere = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.3, 16, 8, &sphere), GLCOLLIDE_OK);
    mesh_data md;
    mesh_data_build(&md, sphere);
    dSpaceID space = glcollide_ode_space_create(NULL);
    dGeomID geoms[6];
    for (int i = 0; i < 6; i++)
        geoms[i] = dCreateTriMesh(space, md.data, NULL, NULL, NULL);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
    static step_contacts got;
    glcollide_ode_stats before, after;
    unsigned long total = 0, driver = 0;
    int empty_step = -1;
    for (int step = 0; step < 30; step++) {
        for (int i = 0; i < 6; i++)
            dGeomSetPosition(geoms[i], 0.55 * i + 0.002 * sin(0.7 * step + i), 0,
                             0.001 * cos(0.3 * step));
        if (step == 10) {
            glcollide_ode_get_stats(&before);
            total = *counter_total;
            driver = *counter_driver;
        }
        got.count = 0;
        glcollide_ode_space_collide(space, &got, collide_pair);
        if (got.count == 0 && empty_step < 0) /* asserted after: Check allocates */
            empty_step = step;
    }
    unsigned long ours = (*counter_total - total) - (*counter_driver - driver);
    unsigned long theirs = *counter_driver - driver;
    ck_assert_msg(empty_step < 0, "step %d: no contacts", empty_step);
    glcollide_ode_get_stats(&after);
    printf("GPU path, 20 warm steps of 6 spheres: %llu culling queries, %llu draw calls; "
           "allocations: %lu ours, %lu the driver's\n",
           after.gpu_queries - before.gpu_queries, after.draw_calls - before.draw_calls, ours,
           theirs);
    ck_assert_msg(after.gpu_queries - before.gpu_queries == 20 &&
                      after.draw_calls > before.draw_calls,
                  "the GPU path did not run every step (%llu queries)",
                  after.gpu_queries - before.gpu_queries);
    ck_assert_msg(ours == 0, "%lu allocations of ours in 20 warm GPU steps", ours);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    dSpaceDestroy(space);
    mesh_data_free(&md);
    glcollide_mesh_destroy(&sphere);
}
END_TEST

typedef struct log_capture {
    char line[512];
    int count;
} log_capture;

static void capture_auto_line(glcollide_log_level level, const char *message, void *user)
{
    (void)level;
    log_capture *capture = user;
    if (strstr(message, "ODE plugin: auto:")) {
        snprintf(capture->line, sizeof capture->line, "%s", message);
        capture->count++;
    }
}

/*
 * AUTO measures both paths on the program's first steps with trimesh pairs
 * (here on llvmpipe, allowed by glcollide_ode_set_calibrate_software), picks
 * one, logs one line with both figures, and every step's contacts equal
 * those of the CPU path (7 steps measuring, then 3 on the choice), for a
 * row of 6 overlapping spheres.
 */
START_TEST(test_auto_calibration)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (skip && strcmp(skip, "1") == 0)
        return;
    glcollide_mesh *sphere = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.3, 24, 12, &sphere), GLCOLLIDE_OK);
    mesh_data md;
    mesh_data_build(&md, sphere);
    dSpaceID space = dSimpleSpaceCreate(NULL);
    for (int i = 0; i < 6; i++) {
        dGeomID g = dCreateTriMesh(space, md.data, NULL, NULL, NULL);
        dGeomSetPosition(g, 0.5 * i, 0.01 * i, 0.02 * (i % 2));
    }
    enum { STEPS = 10 };
    static step_contacts cpu[STEPS], chosen[STEPS];
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_NEVER);
    for (int s = 0; s < STEPS; s++)
        glcollide_ode_space_collide(space, &cpu[s], collide_pair);
    log_capture capture = {{0}, 0};
    glcollide_set_log_callback(capture_auto_line, &capture);
    glcollide_set_log_level(GLCOLLIDE_LOG_INFO);
    glcollide_ode_set_calibrate_software(1);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    ck_assert_int_eq(glcollide_ode_auto_choice(), GLCOLLIDE_ODE_AUTO_UNDECIDED);
    for (int s = 0; s < STEPS; s++) {
        glcollide_ode_space_collide(space, &chosen[s], collide_pair);
        ck_assert_msg((s < 6) == (glcollide_ode_auto_choice() == GLCOLLIDE_ODE_AUTO_UNDECIDED),
                      "step %d: choice %d", s, glcollide_ode_auto_choice());
    }
    glcollide_set_log_callback(NULL, NULL);
    glcollide_set_log_level(GLCOLLIDE_LOG_WARNING);
    printf("auto calibration: %s\n", capture.line);
    ck_assert_int_eq(capture.count, 1);
    ck_assert_ptr_nonnull(strstr(capture.line, "ms with GPU culling"));
    ck_assert_int_eq(glcollide_ode_has_gpu(),
                     glcollide_ode_auto_choice() == GLCOLLIDE_ODE_AUTO_GPU);
    for (int s = 0; s < STEPS; s++) {
        ck_assert_msg(chosen[s].count == cpu[s].count && cpu[s].count > 0,
                      "step %d: %d contacts, CPU path %d", s, chosen[s].count, cpu[s].count);
        for (int i = 0; i < cpu[s].count; i++)
            ck_assert_msg(memcmp(cpu[s].contacts[i].pos, chosen[s].contacts[i].pos,
                                 sizeof cpu[s].contacts[i].pos) == 0 &&
                              cpu[s].contacts[i].depth == chosen[s].contacts[i].depth,
                          "step %d: contact %d differs from the CPU path's", s, i);
    }
    glcollide_ode_set_calibrate_software(0);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    dSpaceDestroy(space);
    mesh_data_free(&md);
    glcollide_mesh_destroy(&sphere);
}
END_TEST

/* Two trimesh cubes that overlap, in a space of their own. */
static dSpaceID overlapping_cubes(const cube_data *cube)
{
    dSpaceID space = dSimpleSpaceCreate(NULL);
    dCreateTriMesh(space, cube->data, NULL, NULL, NULL);
    dGeomSetPosition(dCreateTriMesh(space, cube->data, NULL, NULL, NULL), 0.3, 0.2, 0.1);
    return space;
}

static unsigned long long contexts_made(void)
{
    glcollide_ode_stats stats;
    glcollide_ode_get_stats(&stats);
    return stats.gl_contexts;
}

/*
 * The GL context is made only when a trimesh pair first needs GPU culling:
 * not at init, not for a space without trimesh pairs, not with NEVER.
 * NEVER gives it back; AUTO makes none on a software renderer or a machine
 * without a GPU device (this one in CI: llvmpipe); the last shutdown
 * releases it.
 */
START_TEST(test_gpu_context_lazy)
{
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (skip && strcmp(skip, "1") == 0)
        return;
    cube_data cube;
    cube_build(&cube, 0.4);
    dSpaceID pair = overlapping_cubes(&cube), apart = dSimpleSpaceCreate(NULL);
    dCreateSphere(apart, 0.5);
    dCreateBox(apart, 1, 1, 1);
    dCreateTriMesh(apart, cube.data, NULL, NULL, NULL);
    pair_set seen = {0};
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0); /* init made none */
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
    glcollide_ode_space_collide(apart, &seen, record);
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0); /* no trimesh pair: none needed */
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_NEVER);
    glcollide_ode_space_collide(pair, &seen, record);
    ck_assert_uint_eq(contexts_made(), 0);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
    glcollide_ode_space_collide(pair, &seen, record);
    ck_assert_int_eq(glcollide_ode_has_gpu(), 1);
    ck_assert_uint_eq(contexts_made(), 1);
    glcollide_ode_space_collide(pair, &seen, record); /* the same one serves */
    ck_assert_uint_eq(contexts_made(), 1);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_NEVER); /* gives it back */
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    glcollide_ode_space_collide(pair, &seen, record);
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0); /* llvmpipe: the CPU serves */
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
    glcollide_ode_space_collide(pair, &seen, record);
    ck_assert_int_eq(glcollide_ode_has_gpu(), 1);
    glcollide_ode_shutdown(); /* the fixture's init: the last user */
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0);
    ck_assert_int_eq(glcollide_ode_init(), 0);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    free(seen.pairs);
    destroy_scene(pair);
    destroy_scene(apart);
    dGeomTriMeshDataDestroy(cube.data);
}
END_TEST

/*
 * Init and shutdown are counted, as ODE counts dInitODE2 and dCloseODE:
 * glcollide serves trimesh pairs through dCollide until the last shutdown,
 * then ODE's own collider does again.
 */
START_TEST(test_init_counted)
{
    cube_data cube;
    cube_build(&cube, 0.4);
    dSpaceID space = overlapping_cubes(&cube);
    dGeomID a = dSpaceGetGeom(space, 0), b = dSpaceGetGeom(space, 1);
    dContactGeom contacts[8];
    glcollide_ode_stats before, after;
    ck_assert_int_eq(glcollide_ode_init(), 0); /* a second user */
    glcollide_ode_shutdown();
    glcollide_ode_get_stats(&before);
    ck_assert_int_gt(dCollide(a, b, 8, contacts, sizeof contacts[0]), 0);
    glcollide_ode_get_stats(&after);
    ck_assert_uint_eq(after.trimesh_collides, before.trimesh_collides + 1);
    glcollide_ode_shutdown();                                             /* the last */
    ck_assert_int_gt(dCollide(a, b, 8, contacts, sizeof contacts[0]), 0); /* ODE's own */
    glcollide_ode_get_stats(&after);
    ck_assert_uint_eq(after.trimesh_collides, before.trimesh_collides + 1);
    ck_assert_int_eq(glcollide_ode_init(), 0); /* for the fixture's shutdown */
    destroy_scene(space);
    dGeomTriMeshDataDestroy(cube.data);
}
END_TEST

/*
 * A trimesh cube (half size 0.05, centre at z = 0.05 - 0.001) on a plane, and
 * ODE's box, sphere, capsule and cylinder sunk 0.001 into its top face:
 * dCollide in both argument orders gives the same contacts (g1/g2 and
 * side1/side2 swapped, normals turned), glcollide_ode_collide the same,
 * every normal the face's and the deepest contact 0.001 deep; ODE's own
 * collider (glcollide_ode_set_primitive_contacts(0)) agrees on the normal
 * and the depth (its faces are right here), and is back once turned on.
 */
START_TEST(test_primitive_colliders)
{
    cube_data cube;
    cube_build(&cube, 0.05);
    dGeomID mesh = dCreateTriMesh(NULL, cube.data, NULL, NULL, NULL);
    const double sunk = 0.001, top = 0.1 - sunk;
    dGeomSetPosition(mesh, 0.01, -0.02, 0.05 - sunk);
    dGeomID others[5] = {dCreatePlane(NULL, 0, 0, 1, 0), dCreateBox(NULL, 0.04, 0.03, 0.02),
                         dCreateSphere(NULL, 0.02), dCreateCapsule(NULL, 0.01, 0.04),
                         dCreateCylinder(NULL, 0.015, 0.03)};
    static const char *const names[5] = {"plane", "box", "sphere", "capsule", "cylinder"};
    dGeomSetPosition(others[1], 0.01, -0.02, top + 0.01 - sunk);
    dGeomSetPosition(others[2], 0.0, -0.01, top + 0.02 - sunk);
    dGeomSetPosition(others[3], 0.02, -0.02, top + 0.01 - sunk);
    dMatrix3 lying;
    dRFromAxisAndAngle(lying, 1, 0, 0, M_PI / 2);
    dGeomSetRotation(others[3], lying);
    dGeomSetPosition(others[4], 0.0, -0.03, top + 0.015 - sunk);
    for (int k = 0; k < 5; k++) {
        /* from the primitive toward the mesh for (mesh, other): the mesh
         * lies above the plane, below the others */
        double up = k == 0 ? 1.0 : -1.0;
        dContactGeom a[16], b[16], c[16], ode[16];
        int na = dCollide(mesh, others[k], 16, a, sizeof a[0]);
        int nb = dCollide(others[k], mesh, 16, b, sizeof b[0]);
        int nc = glcollide_ode_collide(mesh, others[k], 16, c, sizeof c[0]);
        ck_assert_msg(na >= 1 && na <= 4 && nb == na && nc == na, "%s: %d, reversed %d, %d",
                      names[k], na, nb, nc);
        double deepest = 0.0;
        for (int i = 0; i < na; i++) {
            ck_assert_msg(a[i].g1 == mesh && a[i].g2 == others[k] && b[i].g1 == others[k] &&
                              b[i].g2 == mesh && a[i].side1 == b[i].side2 &&
                              a[i].side2 == b[i].side1,
                          "%s: contact %d: geoms or sides not swapped", names[k], i);
            for (int j = 0; j < 3; j++)
                ck_assert_msg(a[i].pos[j] == b[i].pos[j] && a[i].normal[j] == -b[i].normal[j] &&
                                  a[i].pos[j] == c[i].pos[j] && a[i].normal[j] == c[i].normal[j],
                              "%s: contact %d differs between the orders", names[k], i);
            ck_assert_msg(a[i].depth == b[i].depth && a[i].depth == c[i].depth,
                          "%s: contact %d depth differs", names[k], i);
            ck_assert_msg(fabs(a[i].normal[2] - up) <= 1e-9, "%s: contact %d normal (%g, %g, %g)",
                          names[k], i, a[i].normal[0], a[i].normal[1], a[i].normal[2]);
            deepest = fmax(deepest, a[i].depth);
        }
        ck_assert_msg(fabs(deepest - sunk) <= 1e-9, "%s: deepest %.12g", names[k], deepest);
        glcollide_ode_set_primitive_contacts(0);
        int no = dCollide(mesh, others[k], 16, ode, sizeof ode[0]);
        glcollide_ode_set_primitive_contacts(1);
        ck_assert_msg(no >= 1, "%s: ODE's collider gave nothing", names[k]);
        double ode_deepest = 0.0;
        for (int i = 0; i < no; i++) {
            ck_assert_msg(fabs(ode[i].normal[2] - up) <= 1e-6, "%s: ODE's normal (%g, %g, %g)",
                          names[k], ode[i].normal[0], ode[i].normal[1], ode[i].normal[2]);
            ode_deepest = fmax(ode_deepest, ode[i].depth);
        }
        ck_assert_msg(fabs(ode_deepest - deepest) <= 1e-6, "%s: deepest %.9g, ODE's %.9g", names[k],
                      deepest, ode_deepest);
        dContactGeom again[16];
        ck_assert_int_eq(dCollide(mesh, others[k], 16, again, sizeof again[0]), na);
        ck_assert(memcmp(again, a, (size_t)na * sizeof a[0]) == 0);
        dGeomDestroy(others[k]);
    }
    dGeomDestroy(mesh);
    dGeomTriMeshDataDestroy(cube.data);
}
END_TEST

/*
 * A sphere sunk into a face of a trimesh cube at generic poses (the cube
 * turned at random, the sphere over a random point of a random face, sunk
 * 1e-6 to 1e-2): one contact, the face's normal and the sunk depth to 1e-9,
 * and ODE's own sphere-trimesh collider agrees (to 1e-6, its precision).
 */
START_TEST(test_primitive_sphere_generic)
{
    cube_data cube;
    const double h = 0.05, r = 0.02;
    cube_build(&cube, h);
    dGeomID mesh = dCreateTriMesh(NULL, cube.data, NULL, NULL, NULL);
    dGeomID sphere = dCreateSphere(NULL, r);
    test_rng rng = {0x5fe7e};
    for (int trial = 0; trial < 200; trial++) {
        double q[4], p[3];
        test_rng_quaternion(&rng, q);
        for (int k = 0; k < 3; k++)
            p[k] = test_rng_uniform(&rng, -1, 1);
        dQuaternion dq = {q[0], q[1], q[2], q[3]};
        dGeomSetQuaternion(mesh, dq);
        dGeomSetPosition(mesh, p[0], p[1], p[2]);
        int axis = (int)(test_rng_next(&rng) % 3), side = (int)(test_rng_next(&rng) % 2);
        double sunk = exp(test_rng_uniform(&rng, log(1e-6), log(1e-2))), local[3], n[3], w[3];
        for (int k = 0; k < 3; k++) /* away from the face's edges by more than the radius */
            local[k] = test_rng_uniform(&rng, -(h - r), h - r);
        local[axis] = (side ? 1 : -1) * (h + r - sunk);
        dVector3 out, dir;
        dGeomGetRelPointPos(mesh, local[0], local[1], local[2], out);
        double face[3] = {0, 0, 0};
        face[axis] = side ? 1.0 : -1.0;
        dGeomVectorToWorld(mesh, face[0], face[1], face[2], dir);
        for (int k = 0; k < 3; k++) {
            w[k] = out[k];
            n[k] = -dir[k]; /* from the sphere toward the mesh */
        }
        dGeomSetPosition(sphere, w[0], w[1], w[2]);
        dContactGeom ours[8], ode[8];
        int count = dCollide(mesh, sphere, 8, ours, sizeof ours[0]);
        TEST_REQUIRE(count == 1, "trial %d: %d contacts", trial, count);
        for (int k = 0; k < 3; k++)
            TEST_REQUIRE(fabs(ours[0].normal[k] - n[k]) <= 1e-9, "trial %d: normal off", trial);
        TEST_REQUIRE(fabs(ours[0].depth - sunk) <= 1e-9, "trial %d: depth %.12g, sunk %.12g", trial,
                     ours[0].depth, sunk);
        glcollide_ode_set_primitive_contacts(0);
        int ode_count = dCollide(mesh, sphere, 8, ode, sizeof ode[0]);
        glcollide_ode_set_primitive_contacts(1);
        TEST_REQUIRE(ode_count >= 1, "trial %d: ODE gave no contact", trial);
        double ode_deepest = 0.0;
        for (int i = 0; i < ode_count; i++) {
            for (int k = 0; k < 3; k++)
                TEST_REQUIRE(fabs(ode[i].normal[k] - n[k]) <= 1e-6,
                             "trial %d: ODE's normal (%g, %g, %g), expected (%g, %g, %g)", trial,
                             ode[i].normal[0], ode[i].normal[1], ode[i].normal[2], n[0], n[1],
                             n[2]);
            ode_deepest = fmax(ode_deepest, ode[i].depth);
        }
        TEST_REQUIRE(fabs(ode_deepest - ours[0].depth) <= 1e-6, "trial %d: depth %.9g, ODE's %.9g",
                     trial, ours[0].depth, ode_deepest);
    }
    dGeomDestroy(sphere);
    dGeomDestroy(mesh);
    dGeomTriMeshDataDestroy(cube.data);
}
END_TEST

/*
 * Rays at a trimesh cube from random points outside it toward random points
 * inside, in both argument orders: the hit (point, normal, depth) equals
 * ODE's own trimesh-ray collider's (to 1e-9 of the cube), and misses agree.
 */
START_TEST(test_primitive_rays)
{
    cube_data cube;
    cube_build(&cube, 0.05);
    dGeomID mesh = dCreateTriMesh(NULL, cube.data, NULL, NULL, NULL);
    dGeomSetPosition(mesh, 0.3, -0.2, 0.1);
    dMatrix3 turn;
    dRFromAxisAndAngle(turn, 1, 2, 3, 0.7);
    dGeomSetRotation(mesh, turn);
    dGeomID ray = dCreateRay(NULL, 1.0);
    test_rng rng = {0x7a75};
    int hits = 0;
    for (int trial = 0; trial < 200; trial++) {
        double from[3], to[3], d[3], len = 0.0;
        for (int k = 0; k < 3; k++) {
            double a = test_rng_uniform(&rng, 0.1, 0.3) * (test_rng_next(&rng) % 2 ? 1 : -1);
            from[k] = dGeomGetPosition(mesh)[k] + a;
            to[k] = dGeomGetPosition(mesh)[k] + test_rng_uniform(&rng, -0.06, 0.06);
            d[k] = to[k] - from[k];
            len += d[k] * d[k];
        }
        len = sqrt(len);
        dGeomRaySet(ray, from[0], from[1], from[2], d[0], d[1], d[2]);
        dGeomRaySetLength(ray, test_rng_uniform(&rng, 0.5, 1.5) * len);
        dGeomRaySetClosestHit(ray, 1);
        dContactGeom ours[4], reversed[4], ode[4];
        int n = dCollide(mesh, ray, 4, ours, sizeof ours[0]);
        int nr = dCollide(ray, mesh, 4, reversed, sizeof reversed[0]);
        glcollide_ode_set_primitive_contacts(0);
        int no = dCollide(mesh, ray, 4, ode, sizeof ode[0]);
        glcollide_ode_set_primitive_contacts(1);
        TEST_REQUIRE(n == no && nr == n && n <= 1, "trial %d: %d hits, reversed %d, ODE's %d",
                     trial, n, nr, no);
        if (!n)
            continue;
        hits++;
        TEST_REQUIRE(fabs(ours[0].depth - ode[0].depth) <= 1e-6 &&
                         fabs(reversed[0].depth - ours[0].depth) <= 1e-12,
                     "trial %d: depth %.12g, reversed %.12g, ODE's %.12g", trial, ours[0].depth,
                     reversed[0].depth, ode[0].depth);
        for (int k = 0; k < 3; k++)
            TEST_REQUIRE(fabs(ours[0].pos[k] - ode[0].pos[k]) <= 1e-6 &&
                             fabs(ours[0].normal[k] - ode[0].normal[k]) <= 1e-6 &&
                             reversed[0].pos[k] == ours[0].pos[k] &&
                             reversed[0].normal[k] == -ours[0].normal[k],
                         "trial %d: the hit differs from ODE's or between the orders", trial);
    }
    ck_assert_int_gt(hits, 50);
    dGeomDestroy(ray);
    dGeomDestroy(mesh);
    dGeomTriMeshDataDestroy(cube.data);
}
END_TEST

/*
 * Before glcollide_ode_init (or after the last shutdown) glcollide_ode_collide
 * and glcollide_ode_space_collide work, on the CPU: init adds the collider
 * override for dCollide and the GPU path.
 */
START_TEST(test_before_init)
{
    dInitODE2(0);
    cube_data cube;
    cube_build(&cube, 0.4);
    dSpaceID space = overlapping_cubes(&cube);
    pair_set seen = {0};
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_ALWAYS);
    glcollide_ode_space_collide(space, &seen, record);
    ck_assert_uint_eq(seen.count, 1);
    dContactGeom contacts[8];
    int n =
        glcollide_ode_collide(seen.pairs[0][0], seen.pairs[0][1], 8, contacts, sizeof contacts[0]);
    ck_assert_int_gt(n, 0);
    ck_assert(contacts[0].g1 == seen.pairs[0][0] && contacts[0].g2 == seen.pairs[0][1]);
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0);
    /* The same contacts once started. */
    ck_assert_int_eq(glcollide_ode_init(), 0);
    dContactGeom again[8];
    ck_assert_int_eq(
        glcollide_ode_collide(seen.pairs[0][0], seen.pairs[0][1], 8, again, sizeof again[0]), n);
    for (int i = 0; i < n; i++)
        ck_assert(again[i].depth == contacts[i].depth &&
                  memcmp(again[i].pos, contacts[i].pos, sizeof again[i].pos) == 0);
    glcollide_ode_shutdown();
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    free(seen.pairs);
    destroy_scene(space);
    dGeomTriMeshDataDestroy(cube.data);
    glcollide_ode_shutdown(); /* no user left: nothing happens */
    dCloseODE();
}
END_TEST

static void setup(void)
{
    dInitODE2(0);
    /* The GPU path is optional: the CPU path must pass the same tests. */
    glcollide_ode_init();
}

static void teardown(void)
{
    glcollide_ode_shutdown();
    dCloseODE();
}

Suite *suite_ode(void)
{
    Suite *suite = suite_create("ode");
    TCase *tc = tcase_create("plugin");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_space_conformance);
    tcase_add_test(tc, test_hash_space_defect);
    tcase_add_test(tc, test_trimesh_contacts);
    tcase_add_test(tc, test_trimesh_object_space);
    tcase_add_test(tc, test_gpu_context_lazy);
    tcase_add_test(tc, test_init_counted);
    tcase_add_test(tc, test_space_zero_sized);
    tcase_add_test(tc, test_space_custom_class);
    tcase_add_test(tc, test_space_kinds);
    tcase_add_test(tc, test_pair_order);
    tcase_add_test(tc, test_step_cache_changed_mesh);
    tcase_add_test(tc, test_primitive_colliders);
    tcase_add_test(tc, test_primitive_sphere_generic);
    tcase_add_test(tc, test_primitive_rays);
    suite_add_tcase(suite, tc);
    /* The GPU paths against the CPU twin (CK_RUN_CASE=gpu runs them alone). */
    TCase *gpu = tcase_create("gpu");
    tcase_set_timeout(gpu, 300);
    tcase_add_checked_fixture(gpu, setup, teardown);
    tcase_add_test(gpu, test_contained_gpu_equals_cpu);
    tcase_add_test(gpu, test_far_geoms_gpu_equals_cpu);
    tcase_add_test(gpu, test_auto_calibration);
    tcase_add_test(gpu, test_gpu_new_mesh_uploads_alone);
    suite_add_tcase(suite, gpu);
    /* Only under the allocation counter (CK_RUN_CASE=gpu_allocations). */
    counter_total = dlsym(RTLD_DEFAULT, "glcollide_test_allocations");
    counter_driver = dlsym(RTLD_DEFAULT, "glcollide_test_driver_allocations");
    const char *skip = getenv("GLCOLLIDE_TEST_SKIP_GL");
    if (counter_total && counter_driver && !(skip && strcmp(skip, "1") == 0)) {
        TCase *allocations = tcase_create("gpu_allocations");
        tcase_set_timeout(allocations, 300);
        tcase_add_checked_fixture(allocations, setup, teardown);
        tcase_add_test(allocations, test_gpu_warm_allocations);
        suite_add_tcase(suite, allocations);
    }
    TCase *unstarted = tcase_create("unstarted");
    tcase_add_test(unstarted, test_before_init);
    suite_add_tcase(suite, unstarted);
    return suite;
}
