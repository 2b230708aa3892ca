/* SPDX-License-Identifier: MIT */
/*
 * The ODE plugin: the space against ODE's dSimpleSpace (brute force inside
 * ODE) on random scenes with ODE's edge cases, the hash space's defect, GPU
 * culling of trimesh pairs, and trimesh contacts against analytic answers.
 * A program of its own (tests/glcollide-ode-tests): it links the shared
 * libglcollide-ode, as ODE users do.
 */
#include "tests.h"

#include <glcollide/geometry.h>
#include <glcollide/ode.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pair_set {
    dGeomID (*pairs)[2];
    size_t count, capacity;
} pair_set;

static void record(void *data, dGeomID a, dGeomID b)
{
    pair_set *set = data;
    if (set->count == set->capacity) {
        set->capacity = set->capacity ? 2 * set->capacity : 64;
        set->pairs = realloc(set->pairs, set->capacity * sizeof *set->pairs);
        ck_assert_ptr_nonnull(set->pairs);
    }
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

/* Vertices packed three dReals apiece (dGeomTriMeshDataBuildSimple wants dVector3s). */
static void build_trimesh(dTriMeshDataID data, const dReal *vertices, int vertex_count,
                          const dTriIndex *indices, int index_count)
{
#ifdef dDOUBLE
    dGeomTriMeshDataBuildDouble(data, vertices, 3 * sizeof(dReal), vertex_count, indices,
                                index_count, 3 * sizeof(dTriIndex));
#else
    dGeomTriMeshDataBuildSingle(data, vertices, 3 * sizeof(dReal), vertex_count, indices,
                                index_count, 3 * sizeof(dTriIndex));
#endif
}

/* A cube trimesh (12 triangles, half size h), its arrays kept for ODE. */
typedef struct cube_data {
    dReal vertices[8 * 3];
    dTriIndex indices[36];
    dTriMeshDataID data;
} cube_data;

static void cube_build(cube_data *cube, double h)
{
    static const int faces[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7},
                                     {0, 1, 5}, {0, 5, 4}, {1, 2, 6}, {1, 6, 5},
                                     {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
    for (int v = 0; v < 8; v++) {
        cube->vertices[3 * v + 0] = (dReal)((v == 1 || v == 2 || v == 5 || v == 6) ? h : -h);
        cube->vertices[3 * v + 1] = (dReal)((v == 2 || v == 3 || v == 6 || v == 7) ? h : -h);
        cube->vertices[3 * v + 2] = (dReal)(v >= 4 ? h : -h);
    }
    for (int f = 0; f < 12; f++)
        for (int c = 0; c < 3; c++)
            cube->indices[3 * f + c] = (dTriIndex)faces[f][c];
    cube->data = dGeomTriMeshDataCreate();
    build_trimesh(cube->data, cube->vertices, 8, cube->indices, 36);
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
        if (!axis_aligned_boxes) {
            double q[4];
            test_rng_quaternion(rng, q);
            dQuaternion dq = {q[0], q[1], q[2], q[3]};
            dGeomSetQuaternion(g, dq);
            if (test_rng_below(rng, 10) == 0)
                dGeomDisable(g);
            if (test_rng_below(rng, 10) == 0) {
                dGeomSetCategoryBits(g, 1ul << test_rng_below(rng, 3));
                dGeomSetCollideBits(g, 1ul << test_rng_below(rng, 3));
            }
        }
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
        if (s % 2)
            share_bodies(world, space, bodies, &body_count);
        pair_set ode = {0}, ours = {0};
        dSpaceCollide(space, &ode, record);
        sort_pairs(&ode);
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
        free(ode.pairs);
        free(ours.pairs);
        destroy_scene(space);
        for (int b = 0; b < body_count; b++)
            dBodyDestroy(bodies[b]);
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
    build_trimesh(m->data, m->vertices, (int)mesh->vertex_count, m->indices,
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
    glcollide_pair_list candidates = {0};
    glcollide_bvh_overlap(ba, bb, 0.0, collect_candidate, &candidates);
    glcollide_contact *want = malloc(MAX * sizeof *want);
    dContactGeom *got = malloc(MAX * sizeof *got);
    ck_assert(want && got);
    size_t want_count = 0;
    ck_assert_int_eq(glcollide_contacts_generate(pa, ma->mesh->triangles, pb, mb->mesh->triangles,
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
                     want[i].triangle_a, want[i].triangle_b, want[i].depth);
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

/* glcollide_ode_set_gpu(NEVER) gives the context back and AUTO makes one
 * again; NEVER before init makes no context. */
START_TEST(test_gpu_mode_context)
{
    int had = glcollide_ode_has_gpu();
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_NEVER);
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    ck_assert_int_eq(glcollide_ode_has_gpu(), had);
    glcollide_ode_shutdown();
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_NEVER);
    ck_assert_int_eq(glcollide_ode_init(), 0);
    ck_assert_int_eq(glcollide_ode_has_gpu(), 0);
    glcollide_ode_set_gpu(GLCOLLIDE_ODE_GPU_AUTO);
    ck_assert_int_eq(glcollide_ode_has_gpu(), had);
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
    tcase_add_test(tc, test_gpu_mode_context);
    suite_add_tcase(suite, tc);
    return suite;
}
