/* SPDX-License-Identifier: MIT */
/*
 * Contact generation (glcollide_contacts_generate) on configurations with an
 * analytic answer (boxes overlapping along an axis, a box on a plate, two
 * spheres), on random interpenetrating meshes (every contact on both of its
 * triangles), for determinism, and for timing on the two-bunny scene.
 * Candidates always come from the BVH, as in a real broad phase.
 */
#include "tests.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

/* A mesh placed in the world, with its BVH. */
typedef struct placed {
    glcollide_mesh *mesh;
    double *positions;
    glcollide_bvh *bvh;
    int owns_mesh;
} placed;

static placed place(glcollide_mesh *mesh, const double translation[3], const double rotation[4])
{
    placed p = {mesh, NULL, NULL, 1};
    ck_assert_ptr_nonnull(mesh);
    glcollide_object object = {0,
                               {translation[0], translation[1], translation[2]},
                               {rotation[0], rotation[1], rotation[2], rotation[3]}};
    p.positions = malloc(3 * mesh->vertex_count * sizeof *p.positions);
    ck_assert_ptr_nonnull(p.positions);
    glcollide_object_transform_points(&object, mesh->positions, mesh->vertex_count, p.positions);
    ck_assert_int_eq(glcollide_bvh_build(p.positions, mesh->vertex_count, mesh->triangles,
                                         mesh->triangle_count, &p.bvh),
                     GLCOLLIDE_OK);
    return p;
}

static void release(placed *p)
{
    glcollide_bvh_destroy(&p->bvh);
    free(p->positions);
    if (p->owns_mesh)
        glcollide_mesh_destroy(&p->mesh);
}

static const double identity[4] = {1, 0, 0, 0};

static glcollide_mesh *box(double hx, double hy, double hz)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(hx, hy, hz, &mesh), GLCOLLIDE_OK);
    return mesh;
}

static glcollide_mesh *sphere(double r, int slices, int stacks)
{
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(r, slices, stacks, &mesh), GLCOLLIDE_OK);
    return mesh;
}

static int collect_pair(uint32_t a, uint32_t b, void *user)
{
    ck_assert_int_eq(glcollide_pair_list_push(user, a, b), GLCOLLIDE_OK);
    return 0;
}

/* Candidates (a of A, b of B) from the BVHs, in the BVH's traversal order. */
static glcollide_pair_list candidates(const placed *a, const placed *b, double margin)
{
    glcollide_pair_list list = {0};
    glcollide_bvh_overlap(a->bvh, b->bvh, margin, collect_pair, &list);
    return list;
}

/* Contacts of A against B, max of them; returns the count. */
static size_t generate(const placed *a, const placed *b, const glcollide_pair_list *pairs,
                       glcollide_contact *out, size_t max)
{
    size_t count = SIZE_MAX;
    ck_assert_int_eq(glcollide_contacts_generate(a->positions, a->mesh->triangles, b->positions,
                                                 b->mesh->triangles, pairs->pairs, pairs->count,
                                                 out, max, &count),
                     GLCOLLIDE_OK);
    ck_assert_uint_le(count, max);
    return count;
}

static double dot3(const double u[3], const double v[3])
{
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
}

static double angle_deg(const double u[3], const double v[3])
{
    double c = dot3(u, v) / sqrt(dot3(u, u) * dot3(v, v));
    return acos(fmax(-1.0, fmin(1.0, c))) * 180.0 / pi;
}

/* The contract every contact must meet: unit normal, finite depth >= 0. */
static void check_well_formed(const glcollide_contact *c, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        double len = sqrt(c[i].normal[0] * c[i].normal[0] + c[i].normal[1] * c[i].normal[1] +
                          c[i].normal[2] * c[i].normal[2]);
        TEST_REQUIRE(fabs(len - 1.0) < 1e-12, "contact %zu: |normal| = %.17g", i, len);
        TEST_REQUIRE(isfinite(c[i].depth) && c[i].depth >= 0.0, "contact %zu: depth %g", i,
                     c[i].depth);
        for (int k = 0; k < 3; k++)
            TEST_REQUIRE(isfinite(c[i].position[k]), "contact %zu: position not finite", i);
        if (i > 0)
            TEST_REQUIRE(c[i].depth <= c[i - 1].depth, "contacts not sorted by depth at %zu", i);
    }
}

/* Unit boxes (half-extent 0.5) overlapping by d along one axis, A on the
 * positive side: every penetrating contact has A's normal +axis (exactly: the
 * faces are flat) and depth d (1e-9), and lies in the overlap region. With
 * equal boxes the side faces are flush: their pairs give no contact, and the
 * edges where they meet only touch (depth 0, on the overlap's rim). With A
 * 10% wider across, every contact penetrates. Swapping the roles flips the
 * normal. */
START_TEST(test_boxes_overlapping_along_axes)
{
    static const double depths[] = {0.01, 0.1, 0.35};
    glcollide_contact contacts[64];
    for (int axis = 0; axis < 3; axis++)
        for (size_t di = 0; di < sizeof depths / sizeof depths[0]; di++)
            for (int wide = 0; wide < 2; wide++)
                for (int swapped = 0; swapped < 2; swapped++) {
                    double d = depths[di], half[3], t[3] = {0, 0, 0}, origin[3] = {0, 0, 0};
                    for (int k = 0; k < 3; k++)
                        half[k] = k == axis ? 0.5 : wide ? 0.55 : 0.5;
                    t[axis] = 1.0 - d;
                    placed moved = place(box(half[0], half[1], half[2]), t, identity);
                    placed still = place(box(0.5, 0.5, 0.5), origin, identity);
                    const placed *a = swapped ? &still : &moved, *b = swapped ? &moved : &still;
                    double expected[3] = {0, 0, 0};
                    expected[axis] = swapped ? -1.0 : 1.0;
                    glcollide_pair_list pairs = candidates(a, b, 0.0);
                    size_t count = generate(a, b, &pairs, contacts, 64);
                    check_well_formed(contacts, count);
                    size_t penetrating = 0;
                    for (size_t i = 0; i < count; i++) {
                        const glcollide_contact *c = &contacts[i];
                        for (int k = 0; k < 3; k++) {
                            double lo = k == axis ? 0.5 - d : -0.5, hi = 0.5;
                            TEST_REQUIRE(c->position[k] >= lo - 1e-9 && c->position[k] <= hi + 1e-9,
                                         "axis %d d %g wide %d swapped %d: contact %zu outside "
                                         "the overlap (%g %g %g)",
                                         axis, d, wide, swapped, i, c->position[0], c->position[1],
                                         c->position[2]);
                        }
                        if (c->depth <= 1e-9) {
                            /* Touching: only on the rim where equal boxes' edges meet. */
                            int rim = 0;
                            for (int k = 0; k < 3; k++)
                                rim += k != axis && fabs(fabs(c->position[k]) - 0.5) < 1e-9;
                            TEST_REQUIRE(!wide && rim > 0,
                                         "axis %d d %g wide %d swapped %d: touching contact %zu "
                                         "at (%g %g %g)",
                                         axis, d, wide, swapped, i, c->position[0], c->position[1],
                                         c->position[2]);
                            continue;
                        }
                        penetrating++;
                        TEST_REQUIRE(angle_deg(c->normal, expected) < 0.01,
                                     "axis %d d %g wide %d swapped %d: contact %zu normal "
                                     "(%g %g %g)",
                                     axis, d, wide, swapped, i, c->normal[0], c->normal[1],
                                     c->normal[2]);
                        TEST_REQUIRE(fabs(c->depth - d) < 1e-9,
                                     "axis %d d %g wide %d swapped %d: contact %zu depth %.17g",
                                     axis, d, wide, swapped, i, c->depth);
                    }
                    /* At least the four corners of the overlap's cross-section. */
                    TEST_REQUIRE(penetrating >= 4,
                                 "axis %d d %g wide %d swapped %d: %zu of %zu "
                                 "contacts penetrate",
                                 axis, d, wide, swapped, penetrating, count);
                    TEST_REQUIRE(contacts[0].depth > d - 1e-9, "deepest first");
                    glcollide_pair_list_release(&pairs);
                    release(&moved);
                    release(&still);
                }
}
END_TEST

/* A unit box resting on a 4 x 4 plate (top at z = 0), sunk by d, turned
 * about z: at most 4 contacts are the 4 corners of its footprint (within
 * 0.05), all with normal +z (exact) and depth d (1e-9); with 64, every
 * contact is on the plate's top inside the footprint. */
START_TEST(test_box_on_plate)
{
    static const double depths[] = {0.001, 0.05, 0.2}, turns[] = {0.0, 0.5, 1.2};
    const double up[3] = {0, 0, 1}, plate_at[3] = {0, 0, -0.25};
    glcollide_contact contacts[64];
    for (size_t di = 0; di < 3; di++)
        for (size_t ti = 0; ti < 3; ti++) {
            double d = depths[di], turn = turns[ti];
            const double at[3] = {0.3, -0.2, 0.5 - d};
            const double q[4] = {cos(turn / 2), 0, 0, sin(turn / 2)};
            placed cube = place(box(0.5, 0.5, 0.5), at, q);
            placed plate = place(box(2, 2, 0.25), plate_at, identity);
            glcollide_pair_list pairs = candidates(&cube, &plate, 0.0);
            double corners[4][2];
            for (int c = 0; c < 4; c++) {
                double x = c & 1 ? 0.5 : -0.5, y = c & 2 ? 0.5 : -0.5;
                corners[c][0] = at[0] + cos(turn) * x - sin(turn) * y;
                corners[c][1] = at[1] + sin(turn) * x + cos(turn) * y;
            }
            for (int pass = 0; pass < 2; pass++) {
                size_t max = pass == 0 ? 4 : 64;
                size_t count = generate(&cube, &plate, &pairs, contacts, max);
                check_well_formed(contacts, count);
                ck_assert_uint_ge(count, 4);
                int seen[4] = {0, 0, 0, 0};
                for (size_t i = 0; i < count; i++) {
                    const glcollide_contact *c = &contacts[i];
                    TEST_REQUIRE(angle_deg(c->normal, up) < 0.01 && fabs(c->depth - d) < 1e-9 &&
                                     fabs(c->position[2]) < 1e-9,
                                 "d %g turn %g max %zu: contact %zu normal (%g %g %g) depth %.17g "
                                 "z %g",
                                 d, turn, max, i, c->normal[0], c->normal[1], c->normal[2],
                                 c->depth, c->position[2]);
                    /* In the footprint: local coordinates within the half-extent. */
                    double dx = c->position[0] - at[0], dy = c->position[1] - at[1];
                    double lx = cos(turn) * dx + sin(turn) * dy,
                           ly = -sin(turn) * dx + cos(turn) * dy;
                    TEST_REQUIRE(fabs(lx) < 0.5 + 1e-9 && fabs(ly) < 0.5 + 1e-9,
                                 "contact %zu outside the footprint", i);
                    for (int k = 0; k < 4; k++)
                        if (hypot(c->position[0] - corners[k][0], c->position[1] - corners[k][1]) <
                            0.05)
                            seen[k]++;
                }
                if (max == 4)
                    for (int k = 0; k < 4; k++)
                        TEST_REQUIRE(seen[k] == 1, "d %g turn %g: corner %d has %d of 4 contacts",
                                     d, turn, k, seen[k]);
            }
            glcollide_pair_list_release(&pairs);
            release(&cube);
            release(&plate);
        }
}
END_TEST

/* Rotation quaternion from the seeded generator. */
static void random_quaternion(test_rng *rng, double q[4])
{
    test_rng_quaternion(rng, q);
}

/*
 * Two tessellated spheres (radii 1 and 0.7, 48 x 24, randomly turned)
 * overlapping by r_a + r_b - D along a slanted centre line. The contacts are
 * on the rim circle; each normal is a facet normal there, so its angle to the
 * centre line is the rim angle of that sphere (acos of the distance from its
 * centre to the rim plane over its radius) within the facet angle (360/48
 * degrees, doubled for margin). Contacts take B's normal (tilted outward
 * from the centre line) or A's reversed (tilted inward), so the tilts
 * balance around the rim: the sum of the normals is within 20 degrees of the
 * centre line (measured: 3-5 degrees at D 1.55 and 1.4, 16 at 1.1, where the
 * rim angles differ by 24). Depths are local to the rim triangles: > 0.02 for
 * the deepest and at most the overlap plus one facet length (0.15), not the
 * overlap itself (measured deepest 0.06-0.09 for overlaps 0.15-0.6).
 */
START_TEST(test_spheres)
{
    static const double distances[] = {1.55, 1.4, 1.1};
    const double ra = 1.0, rb = 0.7;
    test_rng rng = {0x5FE2E5};
    static glcollide_contact contacts[4096];
    for (size_t di = 0; di < 3; di++) {
        double D = distances[di], u[3] = {1, 2, 3}, qa[4], qb[4];
        double un = sqrt(dot3(u, u));
        for (int k = 0; k < 3; k++)
            u[k] /= un;
        const double cb[3] = {0.2, 0.1, -0.3};
        const double ca[3] = {cb[0] + D * u[0], cb[1] + D * u[1], cb[2] + D * u[2]};
        random_quaternion(&rng, qa);
        random_quaternion(&rng, qb);
        placed a = place(sphere(ra, 48, 24), ca, qa);
        placed b = place(sphere(rb, 48, 24), cb, qb);
        glcollide_pair_list pairs = candidates(&a, &b, 0.0);
        double xb = (D * D + rb * rb - ra * ra) / (2 * D), xa = D - xb;
        double rim_b = acos(xb / rb) * 180 / pi, rim_a = acos(xa / ra) * 180 / pi;
        double overlap = ra + rb - D, facet = 2 * 360.0 / 48;
        for (int pass = 0; pass < 2; pass++) {
            size_t max = pass == 0 ? 64 : sizeof contacts / sizeof contacts[0];
            size_t count = generate(&a, &b, &pairs, contacts, max);
            check_well_formed(contacts, count);
            ck_assert_uint_ge(count, pass == 0 ? 64 : 96);
            if (pass == 1)
                ck_assert_uint_lt(count, max);
            double sum[3] = {0, 0, 0}, worst = 0;
            for (size_t i = 0; i < count; i++) {
                const glcollide_contact *c = &contacts[i];
                double angle = angle_deg(c->normal, u);
                worst = fmax(worst, angle);
                TEST_REQUIRE(angle < fmax(rim_a, rim_b) + facet,
                             "D %g: contact %zu normal at %.2f degrees (rims %.2f, %.2f)", D, i,
                             angle, rim_a, rim_b);
                TEST_REQUIRE(c->depth <= overlap + 0.15, "D %g: contact %zu depth %g, overlap %g",
                             D, i, c->depth, overlap);
                for (int k = 0; k < 3; k++)
                    sum[k] += c->normal[k];
            }
            TEST_REQUIRE(contacts[0].depth > 0.02, "D %g: deepest %g, overlap %g", D,
                         contacts[0].depth, overlap);
            double sum_angle = angle_deg(sum, u);
            TEST_REQUIRE(sum_angle < 20.0, "D %g max %zu: sum of normals %.2f degrees off", D, max,
                         sum_angle);
            printf("spheres D %.2f (overlap %.2f, rims %.1f/%.1f deg): %zu contacts, deepest "
                   "%.3f, worst normal %.1f deg, sum %.2f deg\n",
                   D, overlap, rim_a, rim_b, count, contacts[0].depth, worst, sum_angle);
        }
        glcollide_pair_list_release(&pairs);
        release(&a);
        release(&b);
    }
}
END_TEST

static void face_normal(const double *positions, const uint32_t *triangles, uint32_t t, double n[3])
{
    const double *p0 = positions + 3 * triangles[3 * t], *p1 = positions + 3 * triangles[3 * t + 1],
                 *p2 = positions + 3 * triangles[3 * t + 2];
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = p1[k] - p0[k];
        e2[k] = p2[k] - p0[k];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
}

/* Distance from p to triangle t, and the triangle's longest edge. */
static double point_triangle(const double *positions, const uint32_t *triangles, uint32_t t,
                             const double p[3], double *longest)
{
    const double *v[3];
    for (int i = 0; i < 3; i++)
        v[i] = positions + 3 * triangles[3 * t + i];
    *longest = 0;
    for (int i = 0; i < 3; i++) {
        double e[3] = {v[(i + 1) % 3][0] - v[i][0], v[(i + 1) % 3][1] - v[i][1],
                       v[(i + 1) % 3][2] - v[i][2]};
        *longest = fmax(*longest, sqrt(dot3(e, e)));
    }
    return glcollide_tri_tri_distance(p, p, p, v[0], v[1], v[2], NULL, NULL);
}

/* A random interpenetrating pair of random meshes of size 0.5-2. */
static void random_pair(test_rng *rng, placed *a, placed *b, double *scale)
{
    double sa = test_rng_uniform(rng, 0.5, 2), sb = test_rng_uniform(rng, 0.5, 2), qa[4], qb[4];
    double ta[3], tb[3];
    random_quaternion(rng, qa);
    random_quaternion(rng, qb);
    for (int k = 0; k < 3; k++) {
        ta[k] = test_rng_uniform(rng, -0.3, 0.3) * sa;
        tb[k] = test_rng_uniform(rng, -0.3, 0.3) * sb;
    }
    *a = place(test_random_mesh(rng, sa), ta, qa);
    *b = place(test_random_mesh(rng, sb), tb, qb);
    *scale = 2 * (sa + sb);
}

/*
 * Random meshes (test_random_mesh: plates, spheres, tori, capsules, knots,
 * sliver fans) in random interpenetration, 80 scenes: every contact is within
 * 1e-9 * scene size of both triangles it names, its normal is B's face normal
 * or A's reversed (1e-4 degrees: acos near 1 resolves ~1e-6), its depth is finite, >= 0 and at most
 * the longer triangle's longest edge; a reduction to 8 is a subset of all.
 */
START_TEST(test_random_meshes)
{
    test_rng rng = {0xC0417AC7};
    static glcollide_contact all[16384];
    glcollide_contact few[8];
    size_t total = 0, scenes_with_contacts = 0;
    for (int scene = 0; scene < 80; scene++) {
        placed a, b;
        double scale;
        random_pair(&rng, &a, &b, &scale);
        glcollide_pair_list pairs = candidates(&a, &b, 0.0);
        size_t count = generate(&a, &b, &pairs, all, sizeof all / sizeof all[0]);
        ck_assert_uint_lt(count, sizeof all / sizeof all[0]);
        check_well_formed(all, count);
        for (size_t i = 0; i < count; i++) {
            const glcollide_contact *c = &all[i];
            double la, lb, na[3], nb[3];
            double da =
                point_triangle(a.positions, a.mesh->triangles, c->triangle_a, c->position, &la);
            double db =
                point_triangle(b.positions, b.mesh->triangles, c->triangle_b, c->position, &lb);
            TEST_REQUIRE(da <= 1e-9 * scale && db <= 1e-9 * scale,
                         "scene %d contact %zu: %g from triangle a %u, %g from b %u", scene, i, da,
                         c->triangle_a, db, c->triangle_b);
            TEST_REQUIRE(c->depth <= fmax(la, lb) * (1 + 1e-9),
                         "scene %d contact %zu: depth %g, "
                         "edges %g %g",
                         scene, i, c->depth, la, lb);
            face_normal(a.positions, a.mesh->triangles, c->triangle_a, na);
            face_normal(b.positions, b.mesh->triangles, c->triangle_b, nb);
            for (int k = 0; k < 3; k++)
                na[k] = -na[k];
            TEST_REQUIRE(angle_deg(c->normal, nb) < 1e-4 || angle_deg(c->normal, na) < 1e-4,
                         "scene %d contact %zu: normal is neither face's: %g %g deg, depth %g",
                         scene, i, angle_deg(c->normal, nb), angle_deg(c->normal, na), c->depth);
        }
        size_t reduced = generate(&a, &b, &pairs, few, 8);
        ck_assert_uint_eq(reduced, count < 8 ? count : 8);
        for (size_t i = 0; i < reduced; i++) {
            size_t j = 0;
            while (j < count && memcmp(&few[i], &all[j], sizeof few[i]) != 0)
                j++;
            TEST_REQUIRE(j < count, "scene %d: reduced contact %zu is not among all", scene, i);
        }
        total += count;
        scenes_with_contacts += count > 0;
        glcollide_pair_list_release(&pairs);
        release(&a);
        release(&b);
    }
    printf("random meshes: %zu contacts in %zu of 80 scenes\n", total, scenes_with_contacts);
    ck_assert_uint_ge(scenes_with_contacts, 40);
}
END_TEST

/* The same candidates shuffled, with a quarter of them repeated, give
 * bit-identical output (all contacts, and 16). */
START_TEST(test_deterministic)
{
    test_rng rng = {0xDE7E2};
    static glcollide_contact expected[16384], got[16384];
    int checked = 0;
    for (int scene = 0; scene < 30; scene++) {
        placed a, b;
        double scale;
        random_pair(&rng, &a, &b, &scale);
        glcollide_pair_list pairs = candidates(&a, &b, 0.0), shuffled = {0};
        for (size_t i = 0; i < pairs.count; i++) {
            ck_assert_int_eq(
                glcollide_pair_list_push(&shuffled, pairs.pairs[i].a, pairs.pairs[i].b),
                GLCOLLIDE_OK);
            if (test_rng_below(&rng, 4) == 0)
                ck_assert_int_eq(
                    glcollide_pair_list_push(&shuffled, pairs.pairs[i].a, pairs.pairs[i].b),
                    GLCOLLIDE_OK);
        }
        for (size_t i = shuffled.count; i > 1; i--) {
            size_t j = test_rng_below(&rng, (uint32_t)i);
            glcollide_index_pair swap = shuffled.pairs[i - 1];
            shuffled.pairs[i - 1] = shuffled.pairs[j];
            shuffled.pairs[j] = swap;
        }
        for (int pass = 0; pass < 2; pass++) {
            size_t max = pass == 0 ? 16 : sizeof got / sizeof got[0];
            size_t n1 = generate(&a, &b, &pairs, expected, max);
            size_t n2 = generate(&a, &b, &shuffled, got, max);
            ck_assert_uint_eq(n1, n2);
            ck_assert_msg(memcmp(expected, got, n1 * sizeof got[0]) == 0,
                          "scene %d max %zu: shuffled candidates changed the contacts", scene, max);
        }
        checked += pairs.count > 0;
        glcollide_pair_list_release(&pairs);
        glcollide_pair_list_release(&shuffled);
        release(&a);
        release(&b);
    }
    ck_assert_int_ge(checked, 15);
}
END_TEST

/* Disjoint candidates give nothing; max_contacts 0, 1, count - 1, count and
 * far more than count. */
START_TEST(test_disjoint_and_limits)
{
    glcollide_contact contacts[256], all[256];
    const double origin[3] = {0, 0, 0}, apart[3] = {1.01, 0.2, 0}, into[3] = {0.9, 0.2, 0.1};
    placed b = place(box(0.5, 0.5, 0.5), origin, identity);
    placed far = place(box(0.5, 0.5, 0.5), apart, identity);
    glcollide_pair_list pairs = candidates(&far, &b, 0.1);
    ck_assert_uint_gt(pairs.count, 0);
    ck_assert_uint_eq(generate(&far, &b, &pairs, contacts, 64), 0);
    glcollide_pair_list_release(&pairs);

    placed a = place(box(0.5, 0.5, 0.5), into, identity);
    pairs = candidates(&a, &b, 0.0);
    size_t count = generate(&a, &b, &pairs, all, 256);
    ck_assert_uint_ge(count, 4);
    ck_assert_uint_lt(count, 256);
    size_t n = SIZE_MAX;
    ck_assert_int_eq(glcollide_contacts_generate(a.positions, a.mesh->triangles, b.positions,
                                                 b.mesh->triangles, pairs.pairs, pairs.count, NULL,
                                                 0, &n),
                     GLCOLLIDE_OK);
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(generate(&a, &b, &pairs, contacts, 1), 1);
    ck_assert(contacts[0].depth == all[0].depth);
    ck_assert_uint_eq(generate(&a, &b, &pairs, contacts, count - 1), count - 1);
    ck_assert_uint_eq(generate(&a, &b, &pairs, contacts, count), count);
    ck_assert(memcmp(contacts, all, count * sizeof all[0]) == 0);
    ck_assert_uint_eq(glcollide_contacts_generate(a.positions, a.mesh->triangles, b.positions,
                                                  b.mesh->triangles, pairs.pairs, 0, contacts, 64,
                                                  &n),
                      GLCOLLIDE_OK);
    ck_assert_uint_eq(n, 0);
    glcollide_pair_list_release(&pairs);
    release(&a);
    release(&b);
    release(&far);
}
END_TEST

START_TEST(test_arguments)
{
    const double p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t t[3] = {0, 1, 2};
    const glcollide_index_pair pair = {0, 0};
    glcollide_contact c[4];
    size_t n = 7;
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    int status = glcollide_contacts_generate(p, t, p, t, &pair, 1, c, 4, NULL);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT, "contacts: count is NULL");
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_contacts_generate(p, NULL, p, t, &pair, 1, c, 4, &n);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "contacts: NULL mesh arrays or candidates with 1 candidates");
    ck_assert_uint_eq(n, 0);
    test_log_capture_start(GLCOLLIDE_LOG_ERROR);
    status = glcollide_contacts_generate(p, t, p, t, &pair, 1, NULL, 4, &n);
    TEST_ASSERT_FAILED(status, GLCOLLIDE_ERROR_INVALID_ARGUMENT,
                       "contacts: contacts is NULL with max_contacts 4");
    test_log_capture_stop();
    /* Coplanar, same orientation (flush): no contact; back to back: depth 0. */
    ck_assert_int_eq(glcollide_contacts_generate(p, t, p, t, &pair, 1, c, 4, &n), GLCOLLIDE_OK);
    ck_assert_uint_eq(n, 0);
    const uint32_t flipped[3] = {0, 2, 1};
    ck_assert_int_eq(glcollide_contacts_generate(p, t, p, flipped, &pair, 1, c, 4, &n),
                     GLCOLLIDE_OK);
    ck_assert_uint_ge(n, 1);
    ck_assert(c[0].depth == 0.0 && c[0].normal[2] == -1.0);
}
END_TEST

/* The two-bunny scene: all BVH candidates to 64 contacts; prints the time. */
START_TEST(test_bunnies)
{
    test_data_mesh("bunny00.off");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/scenes/bunnies.scene", GLCOLLIDE_SRCDIR);
    glcollide_scene *scene = NULL;
    ck_assert_int_eq(glcollide_scene_load(path, &scene), GLCOLLIDE_OK);
    placed bunny[2];
    for (int i = 0; i < 2; i++) {
        const glcollide_object *o = &scene->objects[i];
        bunny[i] = place(scene->meshes[o->mesh], o->translation, o->rotation);
        bunny[i].owns_mesh = 0;
    }
    glcollide_pair_list pairs = candidates(&bunny[0], &bunny[1], 0.0);
    size_t intersecting = 0;
    for (size_t i = 0; i < pairs.count; i++) {
        const uint32_t *ta = bunny[0].mesh->triangles + 3 * pairs.pairs[i].a;
        const uint32_t *tb = bunny[1].mesh->triangles + 3 * pairs.pairs[i].b;
        const double *pa = bunny[0].positions, *pb = bunny[1].positions;
        intersecting += glcollide_tri_tri_overlap(pa + 3 * ta[0], pa + 3 * ta[1], pa + 3 * ta[2],
                                                  pb + 3 * tb[0], pb + 3 * tb[1], pb + 3 * tb[2]);
    }
    glcollide_contact contacts[64];
    size_t count = 0;
    double best = INFINITY;
    for (int run = 0; run < 5; run++) {
        double start = test_now_ms();
        count = generate(&bunny[0], &bunny[1], &pairs, contacts, 64);
        best = fmin(best, test_now_ms() - start);
    }
    check_well_formed(contacts, count);
    ck_assert_uint_eq(count, 64);
    /* With a workspace (twice, reused): bit-identical contacts. */
    glcollide_workspace workspace = {0};
    for (int run = 0; run < 2; run++) {
        glcollide_contact again[64];
        size_t again_count = 0;
        ck_assert_int_eq(glcollide_contacts_generate_with(bunny[0].positions, bunny[0].mesh->triangles,
                                                          bunny[1].positions, bunny[1].mesh->triangles,
                                                          pairs.pairs, pairs.count, again, 64,
                                                          &again_count, &workspace),
                         GLCOLLIDE_OK);
        ck_assert_uint_eq(again_count, count);
        ck_assert(memcmp(again, contacts, count * sizeof *contacts) == 0);
    }
    ck_assert_uint_ge(workspace.bytes, 2 * pairs.count * 8);
    glcollide_workspace_release(&workspace);
    for (size_t i = 0; i < count; i++) {
        double la, lb;
        double da = point_triangle(bunny[0].positions, bunny[0].mesh->triangles,
                                   contacts[i].triangle_a, contacts[i].position, &la);
        double db = point_triangle(bunny[1].positions, bunny[1].mesh->triangles,
                                   contacts[i].triangle_b, contacts[i].position, &lb);
        TEST_REQUIRE(da < 1e-9 && db < 1e-9, "contact %zu off its triangles", i);
    }
    printf("bunnies: %zu candidates, %zu intersecting pairs -> %zu contacts (deepest %.2e) in "
           "%.2f ms\n",
           pairs.count, intersecting, count, contacts[0].depth, best);
    ck_assert_uint_ge(intersecting, 1400);
    glcollide_pair_list_release(&pairs);
    release(&bunny[0]);
    release(&bunny[1]);
    glcollide_scene_destroy(&scene);
}
END_TEST

Suite *suite_contacts(void)
{
    Suite *suite = suite_create("contacts");
    TCase *tc = tcase_create("contacts");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_boxes_overlapping_along_axes);
    tcase_add_test(tc, test_box_on_plate);
    tcase_add_test(tc, test_spheres);
    tcase_add_test(tc, test_random_meshes);
    tcase_add_test(tc, test_deterministic);
    tcase_add_test(tc, test_disjoint_and_limits);
    tcase_add_test(tc, test_arguments);
    tcase_add_test(tc, test_bunnies);
    suite_add_tcase(suite, tc);
    return suite;
}
