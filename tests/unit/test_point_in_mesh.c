/* SPDX-License-Identifier: MIT */
/*
 * Point containment: exact ray parity against the winding number (an
 * independent formulation) on generated and real meshes, against analytic
 * answers on integer meshes whose vertices line up with the query points (so
 * that axis rays graze edges and vertices), with and without the BVH.
 */
#include "helpers/tests.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts point_in_mesh's debug messages about grazing rays (retries). */
static int grazing_rays;
static void count_grazing(glcollide_log_level level, const char *message, void *user)
{
    (void)user;
    if (strstr(message, "grazes"))
        grazing_rays++;
    else if (level <= GLCOLLIDE_LOG_WARNING)
        fprintf(stderr, "glcollide: %s\n", message);
}

/* ---------------------------------------------------------------- helpers */

static glcollide_bvh *build(const glcollide_mesh *mesh)
{
    glcollide_bvh *bvh = NULL;
    ck_assert_int_eq(glcollide_bvh_create(mesh, &bvh), GLCOLLIDE_OK);
    return bvh;
}

/* Both paths; they must agree exactly (the BVH only skips what cannot matter). */
static int inside(const glcollide_mesh *mesh, const glcollide_bvh *bvh, const double p[3],
                  int without_bvh_too)
{
    int with = glcollide_point_in_mesh(mesh, bvh, p);
    if (without_bvh_too) {
        int without = glcollide_point_in_mesh(mesh, NULL, p);
        TEST_REQUIRE(with == without, "%s: (%.17g, %.17g, %.17g): %d with BVH, %d without",
                     mesh->name ? mesh->name : "mesh", p[0], p[1], p[2], with, without);
    }
    TEST_REQUIRE(with == 0 || with == 1, "point_in_mesh returned %d", with);
    return with;
}

/* Random rigid motion applied to the mesh in place (offset adds a far translation). */
static void move_mesh(glcollide_mesh *mesh, test_rng *rng, double offset)
{
    double m[9], t[3];
    test_rng_rotation(rng, m);
    for (int k = 0; k < 3; k++)
        t[k] = offset + test_rng_uniform(rng, -1.0, 1.0);
    for (size_t i = 0; i < mesh->vertex_count; i++) {
        double *p = mesh->positions + 3 * i, r[3];
        for (int k = 0; k < 3; k++)
            r[k] = m[3 * k] * p[0] + m[3 * k + 1] * p[1] + m[3 * k + 2] * p[2] + t[k];
        memcpy(p, r, sizeof r);
    }
}

/*
 * count random points in the mesh's box grown by 10%: point_in_mesh (with
 * the BVH, and without for the first `without` points) must say inside
 * exactly where the rounded winding number is not 0, wherever that is clear
 * (|w - round(w)| < 1e-3: the nonzero rule, also on self-intersecting real
 * meshes). Unclear points are points within rounding of the surface and
 * must be rare.
 */
static void check_against_winding(const glcollide_mesh *mesh, uint64_t seed, int count, int without)
{
    ck_assert_int_eq(glcollide_mesh_require_solid(mesh, NULL), GLCOLLIDE_OK);
    glcollide_bvh *bvh = build(mesh);
    glcollide_aabb box = glcollide_bvh_bounds(bvh);
    test_rng rng = {seed};
    int inside_count = 0, unclear = 0;
    for (int i = 0; i < count; i++) {
        double p[3];
        for (int k = 0; k < 3; k++) {
            double pad = 0.1 * (box.max[k] - box.min[k]);
            p[k] = test_rng_uniform(&rng, box.min[k] - pad, box.max[k] + pad);
        }
        int got = inside(mesh, bvh, p, i < without);
        double w = glcollide_winding_number(mesh, p);
        double r = round(w);
        if (fabs(w - r) >= 1e-3) {
            unclear++;
            continue;
        }
        TEST_REQUIRE(
            got == (r != 0),
            "%s (seed %llu), point %d (%.17g, %.17g, %.17g): point_in_mesh %d, winding %.6f",
            mesh->name, (unsigned long long)seed, i, p[0], p[1], p[2], got, w);
        inside_count += got;
    }
    ck_assert_msg(unclear <= count / 100, "%s: %d of %d points with an unclear winding number",
                  mesh->name, unclear, count);
    ck_assert_msg(inside_count > count / 50 && inside_count < count - count / 50,
                  "%s: %d of %d points inside: the sample says little", mesh->name, inside_count, count);
    glcollide_bvh_destroy(&bvh);
}

/* ---------------------------------------------------------------- voxel solids */

/*
 * The boundary of a union of unit cubes on a 4x4x4 grid: every face between
 * an occupied and an empty cell, as two outward triangles with a random
 * diagonal. Integer coordinates throughout, so that points on the half-grid
 * line up with edges and vertices. Diagonally touching cubes make
 * non-manifold edges; the surface is still the boundary of the union, which
 * is all that parity and winding need.
 */
#define VOXEL_GRID 4
typedef struct voxel_solid {
    int occupied[VOXEL_GRID][VOXEL_GRID][VOXEL_GRID];
    glcollide_mesh mesh;
} voxel_solid;

static int voxel_at(const voxel_solid *solid, int x, int y, int z)
{
    if (x < 0 || y < 0 || z < 0 || x >= VOXEL_GRID || y >= VOXEL_GRID || z >= VOXEL_GRID)
        return 0;
    return solid->occupied[x][y][z];
}

static uint32_t grid_vertex(const int c[3])
{
    return (uint32_t)(c[0] + (VOXEL_GRID + 1) * (c[1] + (VOXEL_GRID + 1) * c[2]));
}

static void make_voxel_solid(voxel_solid *solid, test_rng *rng)
{
    memset(solid, 0, sizeof *solid);
    int any = 0;
    while (!any)
        for (int x = 0; x < VOXEL_GRID; x++)
            for (int y = 0; y < VOXEL_GRID; y++)
                for (int z = 0; z < VOXEL_GRID; z++)
                    any |= solid->occupied[x][y][z] = test_rng_below(rng, 2);
    const int n = VOXEL_GRID + 1;
    glcollide_mesh *mesh = &solid->mesh;
    mesh->name = "voxels";
    mesh->vertex_count = (size_t)n * n * n;
    mesh->positions = malloc(3 * mesh->vertex_count * sizeof(double));
    for (int z = 0; z < n; z++)
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                int c[3] = {x, y, z};
                double *p = mesh->positions + 3 * grid_vertex(c);
                p[0] = x;
                p[1] = y;
                p[2] = z;
            }
    mesh->triangles = malloc(6 * 2 * 3 * VOXEL_GRID * VOXEL_GRID * VOXEL_GRID * sizeof(uint32_t));
    mesh->triangle_count = 0;
    for (int x = 0; x < VOXEL_GRID; x++)
        for (int y = 0; y < VOXEL_GRID; y++)
            for (int z = 0; z < VOXEL_GRID; z++) {
                if (!solid->occupied[x][y][z])
                    continue;
                int cell[3] = {x, y, z};
                for (int k = 0; k < 3; k++)
                    for (int side = 0; side < 2; side++) {
                        int next[3] = {x, y, z};
                        next[k] += side ? 1 : -1;
                        if (voxel_at(solid, next[0], next[1], next[2]))
                            continue;
                        int u = (k + 1) % 3, w = (k + 2) % 3;
                        int c[4][3];
                        for (int i = 0; i < 4; i++) {
                            memcpy(c[i], cell, sizeof cell);
                            c[i][k] += side;
                        }
                        c[1][u]++;
                        c[2][u]++;
                        c[2][w]++;
                        c[3][w]++;
                        /* c0 c1 c2 c3 turn about +e_k (e_u x e_w = e_k): outward on the + side. */
                        uint32_t v[4];
                        for (int i = 0; i < 4; i++)
                            v[i] = grid_vertex(c[side ? i : 3 - i]);
                        uint32_t *t = mesh->triangles + 3 * mesh->triangle_count;
                        if (test_rng_below(rng, 2)) {
                            uint32_t tri[6] = {v[0], v[1], v[2], v[0], v[2], v[3]};
                            memcpy(t, tri, sizeof tri);
                        } else {
                            uint32_t tri[6] = {v[0], v[1], v[3], v[1], v[2], v[3]};
                            memcpy(t, tri, sizeof tri);
                        }
                        mesh->triangle_count += 2;
                    }
            }
}

/* In the closed union of the cubes? */
static int voxel_contains(const voxel_solid *solid, const double p[3])
{
    for (int x = 0; x < VOXEL_GRID; x++)
        for (int y = 0; y < VOXEL_GRID; y++)
            for (int z = 0; z < VOXEL_GRID; z++)
                if (solid->occupied[x][y][z] && p[0] >= x && p[0] <= x + 1 && p[1] >= y &&
                    p[1] <= y + 1 && p[2] >= z && p[2] <= z + 1)
                    return 1;
    return 0;
}

/* ---------------------------------------------------------------- tests */

START_TEST(test_pim_generated_meshes)
{
    /* and two closed meshes through themselves: two boxes overlapping
     * (winding 2 there), a box with an inverted one half out (0 in the
     * hole, -1 outside the cube) */
    const double overlap[3] = {0.5, 0.25, 0.125}, beside[3] = {1, 0, 0};
    glcollide_mesh *meshes[7] = {NULL};
    meshes[5] = test_two_boxes(overlap, 1, 0, "two boxes");
    meshes[6] = test_two_boxes(beside, 0.5, 1, "box with a hole");
    ck_assert_int_eq(glcollide_mesh_generate_sphere(1.0, 32, 16, &meshes[0]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_torus(1.0, 0.4, 48, 16, &meshes[1]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_knot(2, 3, 1.0, 0.25, 144, 10, &meshes[2]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_capsule(0.5, 1.0, 24, 6, &meshes[3]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(1.0, 2.0, 0.5, &meshes[4]), GLCOLLIDE_OK);
    for (int m = 0; m < 7; m++) {
        uint64_t seed = 600 + (uint64_t)m;
        /* As generated (aligned with the axes), then moved, then moved far away. */
        check_against_winding(meshes[m], seed, 2000, 2000);
        test_rng rng = {seed};
        move_mesh(meshes[m], &rng, 0.0);
        check_against_winding(meshes[m], seed + 10, 1500, 300);
        move_mesh(meshes[m], &rng, 1e6);
        check_against_winding(meshes[m], seed + 20, 1000, 100);
        glcollide_mesh_destroy(&meshes[m]);
    }
}
END_TEST

START_TEST(test_pim_real_meshes)
{
    static const struct {
        const char *file;
        int points, without_bvh;
    } cases[] = {
        {"knot1.off", 3000, 300}, {"elephant.off", 3000, 300}, {"armadillo.off", 1000, 30},
        {"bunny00.off", 300, 10}, {"camel.off", 1000, 30}, /* closed, through itself: 20 triangle
                                                              pairs */
        {"cow.off", 1000, 30},                             /* 101 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        glcollide_mesh *mesh = NULL;
        ck_assert_int_eq(glcollide_mesh_load(test_data_mesh(cases[i].file), 1.0, &mesh), GLCOLLIDE_OK);
        check_against_winding(mesh, 700 + i, cases[i].points, cases[i].without_bvh);
        /* Every vertex is on the surface, hence inside. */
        glcollide_bvh *bvh = build(mesh);
        for (size_t v = 0; v < mesh->vertex_count; v += 7)
            TEST_REQUIRE(inside(mesh, bvh, mesh->positions + 3 * v, 0) == 1, "%s: vertex %zu outside",
                         cases[i].file, v);
        glcollide_bvh_destroy(&bvh);
        glcollide_mesh_destroy(&mesh);
    }
}
END_TEST

/*
 * The integer box [-2, 2] x [-1, 1] x [-3, 3]: vertices, edge midpoints, face
 * diagonal midpoints and dyadic points on the faces are on the surface
 * (inside); neighbouring doubles just outside are outside. Then the half-grid
 * around it, where axis rays run along faces and through edges and vertices.
 */
START_TEST(test_pim_box_surface_and_grid)
{
    glcollide_mesh *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(2.0, 1.0, 3.0, &box), GLCOLLIDE_OK);
    glcollide_bvh *bvh = build(box);
    const double half[3] = {2.0, 1.0, 3.0};
    for (size_t v = 0; v < box->vertex_count; v++)
        for (int k = 0; k < 3; k++)
            ck_assert(fabs(box->positions[3 * v + k]) == half[k]);
    for (size_t t = 0; t < box->triangle_count; t++)
        for (int e = 0; e < 3; e++) {
            const double *a = box->positions + 3 * box->triangles[3 * t + e];
            const double *b = box->positions + 3 * box->triangles[3 * t + (e + 1) % 3];
            double mid[3];
            for (int k = 0; k < 3; k++)
                mid[k] = 0.5 * (a[k] + b[k]);
            ck_assert_int_eq(inside(box, bvh, a, 1), 1);
            ck_assert_int_eq(inside(box, bvh, mid, 1), 1);
        }
    test_rng rng = {801};
    for (int i = 0; i < 600; i++) {
        /* A dyadic point on a face, then one double outward and inward. */
        double p[3];
        int k = (int)test_rng_below(&rng, 3);
        double sign = test_rng_below(&rng, 2) ? 1.0 : -1.0;
        for (int j = 0; j < 3; j++)
            p[j] = ldexp((double)(int)test_rng_below(&rng, 129) - 64.0, -6) * half[j];
        p[k] = sign * half[k];
        ck_assert_int_eq(inside(box, bvh, p, 1), 1);
        double out[3] = {p[0], p[1], p[2]}, in[3] = {p[0], p[1], p[2]};
        out[k] = nextafter(p[k], 4.0 * p[k]);
        in[k] = nextafter(p[k], 0.0);
        ck_assert_int_eq(inside(box, bvh, out, 1), 0);
        ck_assert_int_eq(inside(box, bvh, in, 1), 1);
    }

    glcollide_set_log_level(GLCOLLIDE_LOG_DEBUG);
    glcollide_set_log_callback(count_grazing, NULL);
    grazing_rays = 0;
    for (int x = -6; x <= 6; x++)
        for (int y = -4; y <= 4; y++)
            for (int z = -8; z <= 8; z++) {
                double p[3] = {0.5 * x, 0.5 * y, 0.5 * z};
                int want = fabs(p[0]) <= 2.0 && fabs(p[1]) <= 1.0 && fabs(p[2]) <= 3.0;
                TEST_REQUIRE(inside(box, bvh, p, 1) == want, "box: (%g, %g, %g) should be %s", p[0],
                             p[1], p[2], want ? "inside" : "outside");
            }
    glcollide_set_log_callback(NULL, NULL);
    glcollide_set_log_level(GLCOLLIDE_LOG_WARNING);
    glcollide_bvh_destroy(&bvh);
    glcollide_mesh_destroy(&box);
}
END_TEST

/*
 * Random unions of unit cubes, every point of the half-grid: the analytic
 * closed containment, with and without the BVH. Axis rays from these points
 * run through vertices and along edges and faces, so the retry path must
 * have been taken (counted through the debug log).
 */
START_TEST(test_pim_voxel_solids)
{
    glcollide_set_log_level(GLCOLLIDE_LOG_DEBUG);
    glcollide_set_log_callback(count_grazing, NULL);
    grazing_rays = 0;
    int points = 0;
    for (uint64_t seed = 901; seed < 901 + 10; seed++) {
        test_rng rng = {seed};
        voxel_solid solid;
        make_voxel_solid(&solid, &rng);
        glcollide_bvh *bvh = build(&solid.mesh);
        for (int x = -1; x <= 2 * VOXEL_GRID + 1; x++)
            for (int y = -1; y <= 2 * VOXEL_GRID + 1; y++)
                for (int z = -1; z <= 2 * VOXEL_GRID + 1; z++) {
                    double p[3] = {0.5 * x, 0.5 * y, 0.5 * z};
                    int want = voxel_contains(&solid, p);
                    TEST_REQUIRE(inside(&solid.mesh, bvh, p, 1) == want,
                                 "voxels (seed %llu): (%g, %g, %g) should be %s",
                                 (unsigned long long)seed, p[0], p[1], p[2],
                                 want ? "inside" : "outside");
                    points++;
                }
        /* Off the grid too: against the analytic answer and the winding number. */
        for (int i = 0; i < 300; i++) {
            double p[3];
            for (int k = 0; k < 3; k++)
                p[k] = test_rng_uniform(&rng, -0.5, VOXEL_GRID + 0.5);
            int want = voxel_contains(&solid, p);
            double w = glcollide_winding_number(&solid.mesh, p);
            TEST_REQUIRE(inside(&solid.mesh, bvh, p, 1) == want && fabs(w - want) < 1e-6,
                         "voxels (seed %llu): (%.17g, %.17g, %.17g): want %d, winding %g",
                         (unsigned long long)seed, p[0], p[1], p[2], want, w);
        }
        glcollide_bvh_destroy(&bvh);
        free(solid.mesh.positions);
        free(solid.mesh.triangles);
    }
    glcollide_set_log_callback(NULL, NULL);
    glcollide_set_log_level(GLCOLLIDE_LOG_WARNING);
    ck_assert_msg(grazing_rays > points / 20, "only %d grazing rays over %d grid points",
                  grazing_rays, 2 * points);
}
END_TEST

START_TEST(test_pim_edge_cases)
{
    glcollide_mesh *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1.0, 1.0, 1.0, &box), GLCOLLIDE_OK);
    const double centre[3] = {0, 0, 0}, far[3] = {5, 0, 0}, nan[3] = {NAN, 0, 0};
    const double inf[3] = {0, INFINITY, 0};
    ck_assert_int_eq(glcollide_point_in_mesh(box, NULL, centre), 1);
    ck_assert_int_eq(glcollide_point_in_mesh(box, NULL, far), 0);
    ck_assert_int_eq(glcollide_point_in_mesh(box, NULL, nan), 0);
    ck_assert_int_eq(glcollide_point_in_mesh(box, NULL, inf), 0);
    /* The box's arrays with no triangles: an empty mesh. */
    const glcollide_mesh empty = {box->positions, box->triangles, box->vertex_count, 0, NULL};
    ck_assert_int_eq(glcollide_point_in_mesh(&empty, NULL, centre), 0);
    ck_assert_int_eq(glcollide_point_in_mesh(NULL, NULL, centre), 0);
    ck_assert_int_eq(glcollide_point_in_mesh(box, NULL, NULL), 0);

    /* Winding number: 1 inside, 0 outside, -1 with the faces turned inward;
     * parity does not care about orientation. */
    double w = glcollide_winding_number(box, centre);
    ck_assert_double_eq_tol(w, 1.0, 1e-12);
    w = glcollide_winding_number(box, far);
    ck_assert_double_eq_tol(w, 0.0, 1e-12);
    for (size_t t = 0; t < box->triangle_count; t++) {
        uint32_t swap = box->triangles[3 * t + 1];
        box->triangles[3 * t + 1] = box->triangles[3 * t + 2];
        box->triangles[3 * t + 2] = swap;
    }
    w = glcollide_winding_number(box, centre);
    ck_assert_double_eq_tol(w, -1.0, 1e-12);
    ck_assert_int_eq(glcollide_point_in_mesh(box, NULL, centre), 1);
    ck_assert_double_eq(glcollide_winding_number(&empty, centre), 0.0);

    /* Two nested boxes (a shell): parity says the cavity is outside. */
    glcollide_mesh *outer = NULL, *inner = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(2.0, 2.0, 2.0, &outer), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(1.0, 1.0, 1.0, &inner), GLCOLLIDE_OK);
    size_t nv = outer->vertex_count + inner->vertex_count;
    size_t nt = outer->triangle_count + inner->triangle_count;
    double *positions = malloc(3 * nv * sizeof *positions);
    uint32_t *triangles = malloc(3 * nt * sizeof *triangles);
    memcpy(positions, outer->positions, 3 * outer->vertex_count * sizeof *positions);
    memcpy(positions + 3 * outer->vertex_count, inner->positions,
           3 * inner->vertex_count * sizeof *positions);
    memcpy(triangles, outer->triangles, 3 * outer->triangle_count * sizeof *triangles);
    for (size_t i = 0; i < 3 * inner->triangle_count; i++) /* inner faces turned inward */
        triangles[3 * outer->triangle_count + i] =
            (uint32_t)outer->vertex_count + inner->triangles[i - i % 3 + (3 - i % 3) % 3];
    const double shell[3] = {1.5, 0.25, -0.5};
    const glcollide_mesh nested = {positions, triangles, nv, nt, NULL};
    ck_assert_int_eq(glcollide_point_in_mesh(&nested, NULL, centre), 0);
    ck_assert_int_eq(glcollide_point_in_mesh(&nested, NULL, shell), 1);
    ck_assert_double_eq_tol(glcollide_winding_number(&nested, centre), 0.0, 1e-12);
    ck_assert_double_eq_tol(glcollide_winding_number(&nested, shell), 1.0, 1e-12);
    free(positions);
    free(triangles);
    glcollide_mesh_destroy(&outer);
    glcollide_mesh_destroy(&inner);
    glcollide_mesh_destroy(&box);
}
END_TEST

/* Not an assertion: time per query on the 75K-triangle bunny. */
START_TEST(test_pim_speed)
{
    glcollide_mesh *bunny = NULL;
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("bunny00.off"), 1.0, &bunny), GLCOLLIDE_OK);
    glcollide_bvh *bvh = build(bunny);
    glcollide_aabb box = glcollide_bvh_bounds(bvh);
    test_rng rng = {1001};
    const int queries = 20000, slow_queries = 50;
    double *points = malloc(3 * queries * sizeof *points);
    for (int i = 0; i < 3 * queries; i++)
        points[i] = test_rng_uniform(&rng, box.min[i % 3], box.max[i % 3]);
    int count = 0;
    double t0 = test_now_ms();
    for (int i = 0; i < queries; i++)
        count += glcollide_point_in_mesh(bunny, bvh, points + 3 * i);
    double t1 = test_now_ms();
    for (int i = 0; i < slow_queries; i++)
        glcollide_point_in_mesh(bunny, NULL, points + 3 * i);
    double t2 = test_now_ms();
    for (int i = 0; i < slow_queries; i++)
        glcollide_winding_number(bunny, points + 3 * i);
    double t3 = test_now_ms();
    printf("point_in_mesh: bunny00 %zu triangles: %.2f us per query with BVH (%d of %d inside), "
           "%.2f ms without, winding number %.2f ms\n",
           bunny->triangle_count, 1e3 * (t1 - t0) / queries, count, queries,
           (t2 - t1) / slow_queries, (t3 - t2) / slow_queries);
    ck_assert_int_gt(count, 0);
    free(points);
    glcollide_bvh_destroy(&bvh);
    glcollide_mesh_destroy(&bunny);
}
END_TEST

Suite *suite_point_in_mesh(void)
{
    Suite *suite = suite_create("point_in_mesh");
    TCase *tc = tcase_create("point_in_mesh");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_pim_generated_meshes);
    tcase_add_test(tc, test_pim_real_meshes);
    tcase_add_test(tc, test_pim_box_surface_and_grid);
    tcase_add_test(tc, test_pim_voxel_solids);
    tcase_add_test(tc, test_pim_edge_cases);
    tcase_add_test(tc, test_pim_speed);
    suite_add_tcase(suite, tc);
    return suite;
}
