/* SPDX-License-Identifier: MIT */
/*
 * The ODE plugin's trimesh contacts: against analytic answers, against the
 * world oracle in object space, after a mesh changes between steps, and
 * trimeshes against ODE's primitives (every collider, the generic sphere,
 * rays).
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

/* Two geoms of one trimesh data (one capture, one BVH): a 2 m slab with a
 * 10 cm cube 3 m beside it, the second geom turned half a turn so that each
 * cube rests on the other's slab. Both places touch: contacts at each. */
START_TEST(test_trimesh_one_data_two_places)
{
    glcollide_mesh *plate = NULL, *cube = NULL, *both = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1.0, 1.0, 0.05, &plate), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.05, 0.05, 0.05, &cube), GLCOLLIDE_OK);
    size_t pv = plate->vertex_count, pt = plate->triangle_count;
    size_t nv = pv + cube->vertex_count, nt = pt + cube->triangle_count;
    double *positions = malloc(3 * nv * sizeof *positions);
    uint32_t *triangles = malloc(3 * nt * sizeof *triangles);
    ck_assert_ptr_nonnull(positions);
    ck_assert_ptr_nonnull(triangles);
    memcpy(positions, plate->positions, 3 * pv * sizeof *positions);
    memcpy(triangles, plate->triangles, 3 * pt * sizeof *triangles);
    const double centre[3] = {3.0, 0.0, 0.0999}; /* 1e-4 into the other's slab */
    for (size_t v = 0; v < cube->vertex_count; v++)
        for (int k = 0; k < 3; k++)
            positions[3 * (pv + v) + k] = cube->positions[3 * v + k] + centre[k];
    for (size_t i = 0; i < 3 * cube->triangle_count; i++)
        triangles[3 * pt + i] = cube->triangles[i] + (uint32_t)pv;
    ck_assert_int_eq(glcollide_mesh_create(positions, nv, triangles, nt, "slab and cube", &both),
                     GLCOLLIDE_OK);
    mesh_data m;
    mesh_data_build(&m, both);
    dGeomID a = dCreateTriMesh(NULL, m.data, NULL, NULL, NULL);
    dGeomID b = dCreateTriMesh(NULL, m.data, NULL, NULL, NULL);
    dGeomSetPosition(b, 3.0, 0.0, 0.0);
    dQuaternion half = {0, 0, 0, 1};
    dGeomSetQuaternion(b, half);
    dContactGeom contacts[64];
    int n = dCollide(a, b, 64, contacts, sizeof contacts[0]);
    int near_origin = 0, near_far = 0;
    for (int i = 0; i < n; i++) {
        near_origin += fabs(contacts[i].pos[0]) < 0.1 && fabs(contacts[i].pos[1]) < 0.1;
        near_far += fabs(contacts[i].pos[0] - 3.0) < 0.1 && fabs(contacts[i].pos[1]) < 0.1;
    }
    ck_assert_msg(near_origin > 0 && near_far > 0,
                  "%d contacts: %d at the first slab's cube, %d at the second's", n, near_origin,
                  near_far);
    dGeomDestroy(a);
    dGeomDestroy(b);
    mesh_data_free(&m);
    glcollide_mesh_destroy(&both);
    glcollide_mesh_destroy(&plate);
    glcollide_mesh_destroy(&cube);
    free(positions);
    free(triangles);
}
END_TEST

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
 * and its quaternion, normalised (glcollide_pose_transform_points). */
static double *plugin_positions(dGeomID geom, const mesh_data *m)
{
    const dReal *p = dGeomGetPosition(geom);
    dQuaternion q;
    dGeomGetQuaternion(geom, q);
    double norm = 0.0; /* exactly as the plugin does it */
    for (int k = 0; k < 4; k++)
        norm += (double)q[k] * (double)q[k];
    norm = norm > 0.0 ? 1.0 / sqrt(norm) : 1.0;
    glcollide_pose pose = {{p[0], p[1], p[2]},
                           {q[0] * norm, q[1] * norm, q[2] * norm, q[3] * norm}};
    size_t n = m->mesh->vertex_count;
    double *local = malloc(3 * n * sizeof *local), *world = malloc(3 * n * sizeof *world);
    ck_assert(local && world);
    for (size_t i = 0; i < 3 * n; i++) /* the arrays ODE has now (a deforming mesh's too) */
        local[i] = (double)m->vertices[i];
    glcollide_pose_transform_points(&pose, local, n, world);
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
    /* The plugin's world positions of each, as meshes. */
    const glcollide_mesh va = {pa, ma->mesh->triangles, ma->mesh->vertex_count,
                               ma->mesh->triangle_count, NULL},
                         vb = {pb, mb->mesh->triangles, mb->mesh->vertex_count,
                               mb->mesh->triangle_count, NULL};
    ck_assert_int_eq(glcollide_bvh_create(&va, &ba), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_bvh_create(&vb, &bb), GLCOLLIDE_OK);
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
    ck_assert_int_eq(glcollide_contacts_generate(&vb, &va, candidates.pairs, candidates.count, NULL,
                                                 want, MAX, &want_count, NULL),
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
    glcollide_pair_list_clear(&candidates);
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
            if (pose == 140) {
                /* and once its triangles too, in place: their order reversed
                 * (each index names another place of the mesh now). glcollide
                 * reads ODE's arrays where it can: its tree must be rebuilt,
                 * not refit on the triangles it was built on. */
                size_t n = elephant->triangle_count;
                for (size_t t = 0; t < n / 2; t++)
                    for (int c = 0; c < 3; c++) {
                        uint32_t x = elephant->triangles[3 * t + c];
                        elephant->triangles[3 * t + c] = elephant->triangles[3 * (n - 1 - t) + c];
                        elephant->triangles[3 * (n - 1 - t) + c] = x;
                    }
                for (size_t i = 0; i < 3 * n; i++)
                    me.indices[i] = (dTriIndex)elephant->triangles[i];
            }
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

/*
 * A vertex made non-finite in place (and glcollide told) is refused: one
 * logged line, no contacts, nothing read from it; put back, the pair's
 * contacts are as before. Double arrays (which glcollide reads where they
 * are) and float ones (which it copies) alike.
 */
START_TEST(test_trimesh_in_place_not_finite)
{
    glcollide_mesh *knot = NULL;
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("knot1.off"), 1.0, &knot), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_fit(knot, 1.0), GLCOLLIDE_OK);
    mesh_data mb;
    mesh_data_build(&mb, knot);
    for (int single = 0; single < 2; single++) {
        mesh_data ma = {0};
        float *floats = NULL;
        if (single) { /* float vertices: copied */
            floats = malloc(3 * knot->vertex_count * sizeof *floats);
            ma.indices = malloc(3 * knot->triangle_count * sizeof *ma.indices);
            ck_assert(floats && ma.indices);
            for (size_t i = 0; i < 3 * knot->vertex_count; i++)
                floats[i] = (float)knot->positions[i];
            for (size_t i = 0; i < 3 * knot->triangle_count; i++)
                ma.indices[i] = (dTriIndex)knot->triangles[i];
            ma.data = dGeomTriMeshDataCreate();
            dGeomTriMeshDataBuildSingle(ma.data, floats, 3 * sizeof(float),
                                        (int)knot->vertex_count, ma.indices,
                                        (int)(3 * knot->triangle_count), 3 * sizeof(dTriIndex));
            glcollide_ode_trimesh_data_build_single(ma.data, floats, 3 * sizeof(float),
                                                    (int)knot->vertex_count, ma.indices,
                                                    (int)(3 * knot->triangle_count),
                                                    3 * sizeof(dTriIndex));
        } else {
            mesh_data_build(&ma, knot);
        }
        dGeomID a = dCreateTriMesh(NULL, ma.data, NULL, NULL, NULL);
        dGeomID b = dCreateTriMesh(NULL, mb.data, NULL, NULL, NULL);
        dGeomSetPosition(b, 0.1, 0.05, 0.0);
        enum { MAX = 64 };
        dContactGeom before[MAX], got[MAX];
        int n = glcollide_ode_collide(a, b, MAX, before, sizeof before[0]);
        ck_assert_int_gt(n, 0);

        if (single)
            floats[3 * 7 + 1] = NAN;
        else
            ma.vertices[3 * 7 + 1] = (dReal)NAN;
        glcollide_ode_trimesh_data_changed(ma.data);
        test_log_capture_start(GLCOLLIDE_LOG_ERROR);
        int m = glcollide_ode_collide(a, b, MAX, got, sizeof got[0]);
        test_log_capture_stop();
        ck_assert_msg(m == 0, "%s arrays: %d contacts with a vertex not finite",
                      single ? "float" : "double", m);
        ck_assert_msg(strstr(test_log_all(), "vertex 7 is not finite") != NULL, "logged: %s",
                      test_log_all());

        if (single)
            floats[3 * 7 + 1] = (float)knot->positions[3 * 7 + 1];
        else
            ma.vertices[3 * 7 + 1] = (dReal)knot->positions[3 * 7 + 1];
        glcollide_ode_trimesh_data_changed(ma.data);
        m = glcollide_ode_collide(a, b, MAX, got, sizeof got[0]);
        ck_assert_int_eq(m, n);
        ck_assert_mem_eq(got, before, (size_t)n * sizeof got[0]);
        dGeomDestroy(a);
        dGeomDestroy(b);
        if (single) {
            glcollide_ode_trimesh_data_forget(ma.data);
            dGeomTriMeshDataDestroy(ma.data);
            free(ma.indices);
            free(floats);
        } else {
            mesh_data_free(&ma);
        }
    }
    mesh_data_free(&mb);
    glcollide_mesh_destroy(&knot);
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

Suite *suite_ode_trimesh(void)
{
    Suite *suite = suite_create("ode");
    TCase *tc = tcase_create("plugin");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_trimesh_contacts);
    tcase_add_test(tc, test_trimesh_one_data_two_places);
    tcase_add_test(tc, test_trimesh_object_space);
    tcase_add_test(tc, test_trimesh_in_place_not_finite);
    tcase_add_test(tc, test_step_cache_changed_mesh);
    tcase_add_test(tc, test_primitive_colliders);
    tcase_add_test(tc, test_primitive_sphere_generic);
    tcase_add_test(tc, test_primitive_rays);
    suite_add_tcase(suite, tc);
    return suite;
}
