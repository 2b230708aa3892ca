/* SPDX-License-Identifier: MIT */
/*
 * The ODE plugin's space against ODE's dSimpleSpace (brute force inside
 * ODE) on random scenes with ODE's edge cases (zero-sized geoms, custom
 * classes, every space kind), the hash space's defect, and the order of
 * pairs. Part of tests/glcollide-ode-tests, which links the shared
 * libglcollide-ode as ODE users do; trimesh contacts are in
 * test_ode_trimesh.c, the GPU path and the plugin's life in test_ode_gpu.c.
 */
#define _GNU_SOURCE
#include "helpers/tests.h"
#include "ode/ode_tests.h"

#include "programs/ode_demo.h"

#include <glcollide/geometry.h>
#include <glcollide/ode.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * differences of ODE's own spaces that docs/ode-plugin.md lists: its SAP space
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

Suite *suite_ode(void)
{
    Suite *suite = suite_create("ode");
    TCase *tc = tcase_create("plugin");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_space_conformance);
    tcase_add_test(tc, test_hash_space_defect);
    tcase_add_test(tc, test_space_zero_sized);
    tcase_add_test(tc, test_space_custom_class);
    tcase_add_test(tc, test_space_kinds);
    tcase_add_test(tc, test_pair_order);
    suite_add_tcase(suite, tc);
    return suite;
}
