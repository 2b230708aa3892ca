/* SPDX-License-Identifier: MIT */
/*
 * The BVH against brute force: every overlap and query answer must be the set
 * of triangle pairs (or triangles) whose boxes overlap, for random soups and
 * for generated and real meshes under random rigid motions and deformations.
 */
#include "helpers/tests.h"

#include "geometry/bvh_internal.h"      /* white box: a refit's nodes and slots */
#include "geometry/geometry_internal.h" /* white box: the leaf test on every pair */

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

/* A triangle soup or a mesh's arrays, owned by the test. */
typedef struct test_mesh {
    double *positions;
    uint32_t *triangles;
    size_t vertex_count, triangle_count;
} test_mesh;

/* The public calls on arrays: a glcollide_mesh over them (positions, and
 * the triangles of topology where a refit needs them). */
static int bvh_of(const double *positions, size_t vertex_count, const uint32_t *triangles,
                  size_t triangle_count, glcollide_bvh **out)
{
    const glcollide_mesh view = {(double *)positions, (uint32_t *)triangles, vertex_count,
                                 triangle_count, NULL};
    return glcollide_bvh_create(&view, out);
}

static void refit(glcollide_bvh *bvh, double *positions, const test_mesh *topology)
{
    const glcollide_mesh view = {positions, topology->triangles, topology->vertex_count,
                                 topology->triangle_count, NULL};
    glcollide_bvh_refit(bvh, &view, 0);
}

static void test_mesh_free(test_mesh *mesh)
{
    free(mesh->positions);
    free(mesh->triangles);
    memset(mesh, 0, sizeof *mesh);
}

static test_mesh copy_mesh(const glcollide_mesh *mesh)
{
    test_mesh copy = {
        .positions = malloc(3 * mesh->vertex_count * sizeof(double) + 1),
        .triangles = malloc(3 * mesh->triangle_count * sizeof(uint32_t) + 1),
        .vertex_count = mesh->vertex_count,
        .triangle_count = mesh->triangle_count,
    };
    memcpy(copy.positions, mesh->positions, 3 * mesh->vertex_count * sizeof(double));
    memcpy(copy.triangles, mesh->triangles, 3 * mesh->triangle_count * sizeof(uint32_t));
    return copy;
}

/*
 * n triangles in [0, extent]^3: mostly small, some long slivers, some with
 * repeated vertices (segments, points). With integer != 0 every coordinate
 * is a small integer, so that many boxes touch exactly.
 */
static test_mesh random_soup(test_rng *rng, size_t n, double extent, int integer)
{
    test_mesh soup = {
        .positions = malloc(9 * n * sizeof(double) + 1),
        .triangles = malloc(3 * n * sizeof(uint32_t) + 1),
        .vertex_count = 3 * n,
        .triangle_count = n,
    };
    for (size_t t = 0; t < n; t++) {
        double size = test_rng_below(rng, 10) == 0 ? extent / 3 : extent / 40;
        double centre[3];
        for (int k = 0; k < 3; k++)
            centre[k] = test_rng_uniform(rng, 0.0, extent);
        uint32_t shape = test_rng_below(rng, 20);
        for (int v = 0; v < 3; v++) {
            double *p = soup.positions + 9 * t + 3 * v;
            for (int k = 0; k < 3; k++) {
                p[k] = centre[k] + test_rng_uniform(rng, -size, size);
                if (integer)
                    p[k] = floor(p[k]);
            }
            if (shape == 0 && v > 0) /* a point */
                memcpy(p, soup.positions + 9 * t, 3 * sizeof(double));
            if (shape == 1 && v == 2) /* a segment */
                memcpy(p, soup.positions + 9 * t + 3, 3 * sizeof(double));
            soup.triangles[3 * t + v] = (uint32_t)(3 * t + v);
        }
    }
    return soup;
}

static void transform(const double *in, size_t count, const double m[9], const double t[3],
                      double *out)
{
    for (size_t i = 0; i < count; i++) {
        const double *p = in + 3 * i;
        for (int r = 0; r < 3; r++)
            out[3 * i + r] = m[3 * r] * p[0] + m[3 * r + 1] * p[1] + m[3 * r + 2] * p[2] + t[r];
    }
}

/* Triangle boxes grown by margin, as the definition says. */
static glcollide_aabb *grown_boxes(const double *positions, const uint32_t *triangles, size_t n,
                                   double margin)
{
    glcollide_aabb *boxes = malloc((n + 1) * sizeof *boxes);
    for (size_t t = 0; t < n; t++) {
        for (int k = 0; k < 3; k++) {
            double lo = INFINITY, hi = -INFINITY;
            for (int v = 0; v < 3; v++) {
                double x = positions[3 * (size_t)triangles[3 * t + v] + k];
                lo = x < lo ? x : lo;
                hi = x > hi ? x : hi;
            }
            boxes[t].min[k] = lo - margin;
            boxes[t].max[k] = hi + margin;
        }
    }
    return boxes;
}

/* Every (i, j) with overlapping grown boxes, sorted by construction. */
static void brute_force_pairs(const double *pa, const uint32_t *ta, size_t na, const double *pb,
                              const uint32_t *tb, size_t nb, double margin,
                              glcollide_pair_list *out)
{
    glcollide_aabb *a = grown_boxes(pa, ta, na, margin);
    glcollide_aabb *b = grown_boxes(pb, tb, nb, margin);
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (glcollide_aabb_overlap(&a[i], &b[j]))
                TEST_REQUIRE(glcollide_pair_list_push(out, (uint32_t)i, (uint32_t)j) ==
                                 GLCOLLIDE_OK,
                             "push failed");
    free(a);
    free(b);
}

typedef struct collected {
    glcollide_pair_list pairs;
    size_t calls;
    size_t stop_after; /* 0: never stop */
} collected;

static int collect_pair(uint32_t a, uint32_t b, void *user)
{
    collected *c = user;
    c->calls++;
    TEST_REQUIRE(glcollide_pair_list_push(&c->pairs, a, b) == GLCOLLIDE_OK, "push failed");
    return c->stop_after && c->calls >= c->stop_after;
}

static int collect_triangle(uint32_t t, void *user)
{
    return collect_pair(t, 0, user);
}

/* BVH overlap as a sorted set; fails on a pair reported twice. */
static void bvh_pairs(const glcollide_bvh *a, const glcollide_bvh *b, double margin,
                      glcollide_pair_list *out)
{
    collected c = {0};
    ck_assert_int_eq(glcollide_bvh_overlap(a, b, margin, collect_pair, &c), 0);
    glcollide_pair_list_sort_unique(&c.pairs);
    ck_assert_msg(c.pairs.count == c.calls, "overlap reported %zu pairs, %zu distinct", c.calls,
                  c.pairs.count);
    *out = c.pairs;
}

static void assert_same_pairs(const glcollide_pair_list *got, const glcollide_pair_list *want,
                              const char *what)
{
    ck_assert_msg(got->count == want->count, "%s: %zu pairs, want %zu", what, got->count,
                  want->count);
    for (size_t i = 0; i < want->count; i++)
        TEST_REQUIRE(got->pairs[i].a == want->pairs[i].a && got->pairs[i].b == want->pairs[i].b,
                     "%s: pair %zu is (%u, %u), want (%u, %u)", what, i, got->pairs[i].a,
                     got->pairs[i].b, want->pairs[i].a, want->pairs[i].b);
}

/*
 * How much wider than a triangle's exact box the BVH may test it: a leaf
 * keeps its triangles' boxes as 16-bit steps across the leaf's box, rounded
 * outward (a step or two, 1/65535 of the leaf's box, which is within the
 * mesh's), plus a growth of about 2^-48 of the coordinates.
 */
static double box_tolerance(const glcollide_bvh *bvh)
{
    glcollide_aabb bounds = glcollide_bvh_bounds(bvh);
    double half = 0.0, largest = 0.0;
    for (int k = 0; k < 3 && bounds.min[k] <= bounds.max[k]; k++) {
        half = fmax(half, 0.5 * (bounds.max[k] - bounds.min[k]));
        largest = fmax(largest, fmax(fabs(bounds.min[k]), fabs(bounds.max[k])));
    }
    return 3.0 * half / 65535.0 + 1e-12 * (largest + half);
}

static int has_pair(const glcollide_pair_list *list, glcollide_index_pair key);

/*
 * Overlap of two BVHs over (pa, pb) against brute force on the triangles'
 * exact boxes: every pair whose boxes (grown by margin) overlap, and no pair
 * whose boxes do not overlap when grown by the BVHs' tolerance as well.
 * Returns the brute-force pair count.
 */
static size_t check_overlap(const glcollide_bvh *a, const double *pa, const uint32_t *ta,
                            const glcollide_bvh *b, const double *pb, const uint32_t *tb,
                            double margin, const char *what)
{
    glcollide_pair_list got, want = {0}, loose = {0};
    bvh_pairs(a, b, margin, &got);
    size_t na = glcollide_bvh_triangle_count(a), nb = glcollide_bvh_triangle_count(b);
    brute_force_pairs(pa, ta, na, pb, tb, nb, margin, &want);
    brute_force_pairs(pa, ta, na, pb, tb, nb,
                      margin + fmax(box_tolerance(a), box_tolerance(b)), &loose);
    for (size_t i = 0; i < want.count; i++)
        TEST_REQUIRE(has_pair(&got, want.pairs[i]), "%s: pair (%u, %u) missing", what,
                     want.pairs[i].a, want.pairs[i].b);
    for (size_t i = 0; i < got.count; i++)
        TEST_REQUIRE(has_pair(&loose, got.pairs[i]),
                     "%s: pair (%u, %u) reported, its boxes farther apart than the tolerance",
                     what, got.pairs[i].a, got.pairs[i].b);
    size_t count = want.count;
    glcollide_pair_list_clear(&got);
    glcollide_pair_list_clear(&want);
    glcollide_pair_list_clear(&loose);
    return count;
}

static glcollide_bvh *build(const test_mesh *mesh)
{
    glcollide_bvh *bvh = NULL;
    ck_assert_int_eq(
        bvh_of(mesh->positions, mesh->vertex_count, mesh->triangles, mesh->triangle_count, &bvh),
        GLCOLLIDE_OK);
    ck_assert_ptr_nonnull(bvh);
    ck_assert_uint_eq(glcollide_bvh_triangle_count(bvh), mesh->triangle_count);
    return bvh;
}

/* Bounds equal the exact box of the referenced vertices. */
static void check_bounds(const glcollide_bvh *bvh, const test_mesh *mesh)
{
    glcollide_aabb want = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
        for (int k = 0; k < 3; k++) {
            double x = mesh->positions[3 * (size_t)mesh->triangles[i] + k];
            want.min[k] = fmin(want.min[k], x);
            want.max[k] = fmax(want.max[k], x);
        }
    glcollide_aabb got = glcollide_bvh_bounds(bvh);
    for (int k = 0; k < 3; k++)
        ck_assert(got.min[k] == want.min[k] && got.max[k] == want.max[k]);
}

/* ---------------------------------------------------------------- tests */

START_TEST(test_bvh_random_soups)
{
    static const double margins[] = {0.0, 0.05, 0.4};
    size_t total = 0;
    for (uint64_t seed = 11; seed < 11 + 12; seed++) {
        test_rng rng = {seed};
        int integer = seed % 3 == 0;
        size_t na = 1 + test_rng_below(&rng, 1500), nb = 1 + test_rng_below(&rng, 1500);
        test_mesh a = random_soup(&rng, na, integer ? 12.0 : 10.0, integer);
        test_mesh b = random_soup(&rng, nb, integer ? 12.0 : 10.0, integer);
        glcollide_bvh *ba = build(&a), *bb = build(&b);
        check_bounds(ba, &a);
        check_bounds(bb, &b);
        double margin = margins[seed % 3];
        char what[96];
        snprintf(what, sizeof what, "soups %zu x %zu (seed %llu, margin %g)", na, nb,
                 (unsigned long long)seed, margin);
        total +=
            check_overlap(ba, a.positions, a.triangles, bb, b.positions, b.triangles, margin, what);
        /* The same tree on both sides: (i, j), (j, i) and (i, i) all appear. */
        snprintf(what, sizeof what, "soup %zu with itself (seed %llu)", na,
                 (unsigned long long)seed);
        check_overlap(ba, a.positions, a.triangles, ba, a.positions, a.triangles, margin, what);
        glcollide_bvh_destroy(&ba);
        glcollide_bvh_destroy(&bb);
        ck_assert_ptr_null(ba);
        test_mesh_free(&a);
        test_mesh_free(&b);
    }
    ck_assert_uint_gt(total, 1000);
}
END_TEST

/* Query boxes: points, slabs, tiny, huge, empty, inverted. */
static void random_query_box(test_rng *rng, glcollide_aabb *box, double extent)
{
    uint32_t kind = test_rng_below(rng, 6);
    for (int k = 0; k < 3; k++) {
        box->min[k] = test_rng_uniform(rng, -0.2 * extent, 1.2 * extent);
        double size = kind == 0   ? 0.0
                      : kind == 1 ? extent * 0.01
                      : kind == 2 ? extent * 0.3
                                  : extent * 2;
        if (kind == 3 && k == 1)
            size = 0.0; /* a slab */
        box->max[k] = box->min[k] + test_rng_uniform(rng, 0.0, size);
        if (kind == 5 && k == 2) /* inverted: matches nothing */
            box->max[k] = box->min[k] - 1.0;
    }
}

static void check_query_box(const glcollide_bvh *bvh, const test_mesh *mesh, test_rng *rng,
                            int queries, double extent, const char *name)
{
    glcollide_aabb *boxes =
        grown_boxes(mesh->positions, mesh->triangles, mesh->triangle_count, 0.0);
    double tolerance = box_tolerance(bvh);
    for (int q = 0; q < queries; q++) {
        glcollide_aabb box;
        random_query_box(rng, &box, extent);
        if (q == 0) /* one integer-aligned box on a vertex: touching counts */
            for (int k = 0; k < 3; k++)
                box.min[k] = box.max[k] = mesh->positions[3 * (size_t)mesh->triangles[0] + k];
        collected c = {0};
        ck_assert_int_eq(glcollide_bvh_query_box(bvh, &box, collect_triangle, &c), 0);
        glcollide_pair_list_sort_unique(&c.pairs);
        TEST_REQUIRE(c.pairs.count == c.calls, "%s: query %d reported a triangle twice", name, q);
        size_t want = 0, got = 0;
        for (size_t t = 0; t < mesh->triangle_count; t++) {
            int listed = got < c.pairs.count && c.pairs.pairs[got].a == t;
            got += (size_t)listed;
            if (glcollide_aabb_overlap(&boxes[t], &box)) {
                TEST_REQUIRE(listed, "%s: query %d misses triangle %zu", name, q, t);
                want++;
            } else if (listed) {
                glcollide_aabb near = boxes[t];
                for (int k = 0; k < 3; k++) {
                    near.min[k] -= tolerance;
                    near.max[k] += tolerance;
                }
                TEST_REQUIRE(glcollide_aabb_overlap(&near, &box),
                             "%s: query %d reports triangle %zu, farther than the tolerance",
                             name, q, t);
            }
        }
        TEST_REQUIRE(got == c.pairs.count, "%s: query %d reported triangles out of range", name, q);
        if (q == 0)
            ck_assert_uint_gt(want, 0);
        glcollide_pair_list_clear(&c.pairs);
    }
    free(boxes);
}

START_TEST(test_bvh_query_box)
{
    for (uint64_t seed = 31; seed < 31 + 6; seed++) {
        test_rng rng = {seed};
        test_mesh soup = random_soup(&rng, 1 + test_rng_below(&rng, 3000), 10.0, seed % 2 == 0);
        glcollide_bvh *bvh = build(&soup);
        char name[64];
        snprintf(name, sizeof name, "soup (seed %llu)", (unsigned long long)seed);
        check_query_box(bvh, &soup, &rng, 200, 10.0, name);
        glcollide_bvh_destroy(&bvh);
        test_mesh_free(&soup);
    }
}
END_TEST

/* The order of glcollide_pair_list_sort_unique: by a, then b. */
static int compare_index_pairs(const void *x, const void *y)
{
    const glcollide_index_pair *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* Is key in list (sorted by a, then b)? */
static int has_pair(const glcollide_pair_list *list, glcollide_index_pair key)
{
    return list->count > 0 && bsearch(&key, list->pairs, list->count, sizeof key,
                                      compare_index_pairs) != NULL;
}

/*
 * glcollide_bvh_overlap_posed on the object-space BVHs: no pair twice, and
 * every pair of the world-space candidates (want, exact box overlap) whose
 * world triangles come within margin is there. Returns the pair count.
 */
static size_t check_overlap_objects(const glcollide_bvh *a, const glcollide_object *object_a,
                                    const double *wa, const uint32_t *ta, const glcollide_bvh *b,
                                    const glcollide_object *object_b, const double *wb,
                                    const uint32_t *tb, double margin,
                                    const glcollide_pair_list *want, const char *what)
{
    collected c = {0};
    ck_assert_int_eq(glcollide_bvh_overlap_posed(a, &object_a->pose, b, &object_b->pose, margin,
                                                 collect_pair, &c),
                     0);
    glcollide_pair_list_sort_unique(&c.pairs);
    ck_assert_msg(c.pairs.count == c.calls, "%s: %zu pairs, %zu distinct", what, c.calls,
                  c.pairs.count);
    /* The descent shared among threads: the same list for any count, the
     * same set as the callback's. */
    glcollide_pair_list parts[GLCOLLIDE_BVH_PARTS] = {{0}}, first = {0};
    const int threads[] = {1, 2, 5};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        glcollide_pair_list split = {0};
        ck_assert_int_eq(glcollide_bvh_overlap_posed_split(a, &object_a->pose, b, &object_b->pose,
                                                           margin, threads[t], parts, &split),
                         GLCOLLIDE_OK);
        if (t == 0) {
            first = split;
            glcollide_pair_list sorted = {0};
            for (size_t i = 0; i < split.count; i++)
                ck_assert_int_eq(
                    glcollide_pair_list_push(&sorted, split.pairs[i].a, split.pairs[i].b),
                    GLCOLLIDE_OK);
            glcollide_pair_list_sort_unique(&sorted);
            ck_assert_msg(sorted.count == split.count && sorted.count == c.pairs.count,
                          "%s: split descent %zu pairs (%zu distinct), callback %zu", what,
                          split.count, sorted.count, c.pairs.count);
            if (sorted.count)
                ck_assert_mem_eq(sorted.pairs, c.pairs.pairs, sorted.count * sizeof *sorted.pairs);
            glcollide_pair_list_clear(&sorted);
            continue;
        }
        ck_assert_msg(split.count == first.count, "%s: %d threads, %zu pairs; 1 thread %zu", what,
                      threads[t], split.count, first.count);
        if (split.count)
            ck_assert_mem_eq(split.pairs, first.pairs, split.count * sizeof *split.pairs);
        glcollide_pair_list_clear(&split);
    }
    glcollide_pair_list_clear(&first);
    for (int k = 0; k < GLCOLLIDE_BVH_PARTS; k++)
        glcollide_pair_list_clear(&parts[k]);
    size_t near = 0, found = 0;
    for (size_t i = 0; i < want->count; i++) {
        const uint32_t *x = ta + 3 * (size_t)want->pairs[i].a,
                       *y = tb + 3 * (size_t)want->pairs[i].b;
        double distance =
            glcollide_tri_tri_distance(wa + 3 * x[0], wa + 3 * x[1], wa + 3 * x[2], wb + 3 * y[0],
                                       wb + 3 * y[1], wb + 3 * y[2], NULL, NULL);
        if (distance > margin)
            continue;
        near++;
        glcollide_index_pair key = want->pairs[i];
        found += c.pairs.count > 0 && bsearch(&key, c.pairs.pairs, c.pairs.count, sizeof key,
                                              compare_index_pairs) != NULL;
        TEST_REQUIRE(found == near,
                     "%s: triangles (%u, %u) at distance %g <= margin %g not reported", what, key.a,
                     key.b, distance, margin);
    }
    glcollide_pair_list_clear(&c.pairs);
    return near;
}

/* A split form's lists at 1 and 3 threads: the same list, no pair twice,
 * the same set as want (sorted). The lists and parts are released. */
static void check_split_lists(glcollide_pair_list parts[GLCOLLIDE_BVH_PARTS],
                              glcollide_pair_list *one, glcollide_pair_list *three,
                              const glcollide_pair_list *want, const char *what)
{
    ck_assert_msg(one->count == three->count, "%s: split %zu pairs at 1 thread, %zu at 3", what,
                  one->count, three->count);
    if (one->count)
        ck_assert_mem_eq(one->pairs, three->pairs, one->count * sizeof *one->pairs);
    glcollide_pair_list_sort_unique(one);
    ck_assert_msg(one->count == three->count, "%s: split pairs repeated", what);
    assert_same_pairs(one, want, what);
    for (int k = 0; k < GLCOLLIDE_BVH_PARTS; k++)
        glcollide_pair_list_clear(&parts[k]);
    glcollide_pair_list_clear(one);
    glcollide_pair_list_clear(three);
}

/*
 * glcollide_bvh_overlap_posed reports exactly the pairs its leaf test
 * passes on every pair (glcollide_bvh_overlap_posed_all): the tests above
 * the leaves only skip pairs, never decide them; so does the split
 * descent. Returns the pair count.
 */
static size_t check_same_as_all(const glcollide_bvh *a, const glcollide_pose *pose_a,
                                const glcollide_bvh *b, const glcollide_pose *pose_b, double margin,
                                const char *what)
{
    collected tree = {0}, all = {0};
    glcollide_bvh_overlap_posed(a, pose_a, b, pose_b, margin, collect_pair, &tree);
    glcollide_bvh_overlap_posed_all(a, pose_a, b, pose_b, margin, collect_pair, &all);
    glcollide_pair_list_sort_unique(&tree.pairs);
    glcollide_pair_list_sort_unique(&all.pairs);
    ck_assert_msg(tree.pairs.count == tree.calls, "%s: %zu pairs, %zu distinct", what, tree.calls,
                  tree.pairs.count);
    assert_same_pairs(&tree.pairs, &all.pairs, what);
    /* The descent shared among threads cuts the same pairs (a large part's
     * pair is one part of the cut): the same list at 1 and 3 threads, the
     * same set. */
    glcollide_pair_list parts[GLCOLLIDE_BVH_PARTS] = {{0}}, one = {0}, three = {0};
    ck_assert_int_eq(
        glcollide_bvh_overlap_posed_split(a, pose_a, b, pose_b, margin, 1, parts, &one),
        GLCOLLIDE_OK);
    ck_assert_int_eq(
        glcollide_bvh_overlap_posed_split(a, pose_a, b, pose_b, margin, 3, parts, &three),
        GLCOLLIDE_OK);
    check_split_lists(parts, &one, &three, &all.pairs, what);
    size_t count = all.pairs.count;
    glcollide_pair_list_clear(&tree.pairs);
    glcollide_pair_list_clear(&all.pairs);
    return count;
}

/* Do triangle ta of (positions_a, triangles_a) placed by pose_a and tb of
 * b's meet, on their vertices as glcollide_pose_transform_points places
 * them? */
static int placed_triangles_meet(const double *positions_a, const uint32_t *triangles_a,
                                 const glcollide_pose *pose_a, uint32_t ta,
                                 const double *positions_b, const uint32_t *triangles_b,
                                 const glcollide_pose *pose_b, uint32_t tb)
{
    double w[6][3];
    for (int c = 0; c < 3; c++) {
        glcollide_pose_transform_points(pose_a, positions_a + 3 * (size_t)triangles_a[3 * ta + c],
                                        1, w[c]);
        glcollide_pose_transform_points(pose_b, positions_b + 3 * (size_t)triangles_b[3 * tb + c],
                                        1, w[3 + c]);
    }
    return glcollide_tri_tri_overlap(w[0], w[1], w[2], w[3], w[4], w[5]);
}

/*
 * glcollide_bvh_overlap_posed_exact against glcollide_bvh_overlap_posed at
 * margin 0: its pairs are the posed overlap's in the same order, less some;
 * every pair left out has placed triangles that do not meet; the split form
 * lists the same at 1 and 3 threads, the same set. Adds the two counts to
 * *posed and *exact.
 */
static void check_exact_filter(const test_mesh *a, const glcollide_bvh *ba,
                               const glcollide_pose *pose_a, const test_mesh *b,
                               const glcollide_bvh *bb, const glcollide_pose *pose_b,
                               const char *what, size_t *posed, size_t *exact)
{
    collected all = {0}, kept = {0};
    glcollide_bvh_overlap_posed(ba, pose_a, bb, pose_b, 0.0, collect_pair, &all);
    ck_assert_int_eq(glcollide_bvh_overlap_posed_exact(ba, a->positions, pose_a, bb, b->positions,
                                                       pose_b, collect_pair, &kept),
                     0);
    size_t j = 0, met = 0;
    for (size_t i = 0; i < all.pairs.count; i++) {
        glcollide_index_pair p = all.pairs.pairs[i];
        if (j < kept.pairs.count && kept.pairs.pairs[j].a == p.a && kept.pairs.pairs[j].b == p.b) {
            j++;
            continue;
        }
        int meet = placed_triangles_meet(a->positions, a->triangles, pose_a, p.a, b->positions,
                                         b->triangles, pose_b, p.b);
        met += (size_t)meet;
        TEST_REQUIRE(!meet, "%s: triangles (%u, %u) meet and were left out", what, p.a, p.b);
    }
    ck_assert_msg(j == kept.pairs.count,
                  "%s: %zu of the exact form's %zu pairs are not the posed form's, in its order",
                  what, kept.pairs.count - j, kept.pairs.count);
    glcollide_pair_list parts[GLCOLLIDE_BVH_PARTS] = {{0}}, one = {0}, three = {0};
    ck_assert_int_eq(glcollide_bvh_overlap_posed_exact_split(ba, a->positions, pose_a, bb,
                                                             b->positions, pose_b, 1, parts, &one),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_bvh_overlap_posed_exact_split(
                         ba, a->positions, pose_a, bb, b->positions, pose_b, 3, parts, &three),
                     GLCOLLIDE_OK);
    glcollide_pair_list_sort_unique(&kept.pairs);
    check_split_lists(parts, &one, &three, &kept.pairs, what);
    *posed += all.pairs.count;
    *exact += kept.pairs.count;
    glcollide_pair_list_clear(&all.pairs);
    glcollide_pair_list_clear(&kept.pairs);
}

/*
 * Two instances of generated or real meshes, each moved by random rigid
 * motions: object-space BVHs are built once and refit to the world positions;
 * each time the overlap equals brute force and a fresh build's overlap.
 */
static void check_instances(const glcollide_mesh *mesh_a, const glcollide_mesh *mesh_b,
                            uint64_t seed, int motions, const char *name)
{
    test_rng rng = {seed};
    test_mesh a = copy_mesh(mesh_a), b = copy_mesh(mesh_b);
    glcollide_bvh *ba = build(&a), *bb = build(&b), *oa = build(&a), *ob = build(&b);
    size_t near = 0;
    glcollide_aabb bounds = glcollide_bvh_bounds(ba);
    double size = 0.0;
    for (int k = 0; k < 3; k++)
        size = fmax(size, bounds.max[k] - bounds.min[k]);
    double *wa = malloc(3 * a.vertex_count * sizeof *wa + 1);
    double *wb = malloc(3 * b.vertex_count * sizeof *wb + 1);
    size_t total = 0;
    for (int motion = 0; motion < motions; motion++) {
        glcollide_object object_a = {0}, object_b = {0};
        test_rng_quaternion(&rng, object_a.pose.rotation);
        test_rng_quaternion(&rng, object_b.pose.rotation);
        double ra[9], rb[9], *ta = object_a.pose.translation, *tb = object_b.pose.translation;
        glcollide_pose_rotation_matrix(&object_a.pose, ra);
        glcollide_pose_rotation_matrix(&object_b.pose, rb);
        for (int k = 0; k < 3; k++) {
            ta[k] = test_rng_uniform(&rng, -0.1, 0.1) * size + 1e3 * (motion == 1);
            tb[k] = test_rng_uniform(&rng, -0.5, 0.5) * size + 1e3 * (motion == 1);
        }
        transform(a.positions, a.vertex_count, ra, ta, wa);
        transform(b.positions, b.vertex_count, rb, tb, wb);
        refit(ba, wa, &a);
        refit(bb, wb, &b);
        test_mesh world_a = {wa, a.triangles, a.vertex_count, a.triangle_count};
        check_bounds(ba, &world_a);
        double margin = motion % 2 ? 0.01 * size : 0.0;
        char what[128];
        snprintf(what, sizeof what, "%s, motion %d (seed %llu)", name, motion,
                 (unsigned long long)seed);
        total += check_overlap(ba, wa, a.triangles, bb, wb, b.triangles, margin, what);

        /* The object-space BVHs placed by the motions find every near pair. */
        glcollide_pair_list world_pairs;
        bvh_pairs(ba, bb, margin, &world_pairs);
        near += check_overlap_objects(oa, &object_a, wa, a.triangles, ob, &object_b, wb,
                                      b.triangles, margin, &world_pairs, what);
        check_same_as_all(oa, &object_a.pose, ob, &object_b.pose, margin, what);
        check_same_as_all(ob, &object_b.pose, oa, &object_a.pose, margin, what);
        glcollide_pair_list_clear(&world_pairs);

        /* A fresh build on the moved positions answers as well (its
         * leaves differ, and so may the pairs within the tolerance). */
        glcollide_bvh *fa = NULL, *fb = NULL;
        ck_assert_int_eq(bvh_of(wa, a.vertex_count, a.triangles, a.triangle_count, &fa),
                         GLCOLLIDE_OK);
        ck_assert_int_eq(bvh_of(wb, b.vertex_count, b.triangles, b.triangle_count, &fb),
                         GLCOLLIDE_OK);
        check_overlap(fa, wa, a.triangles, fb, wb, b.triangles, margin, what);
        glcollide_bvh_destroy(&fa);
        glcollide_bvh_destroy(&fb);
    }
    ck_assert_msg(total > 0, "%s: the motions never brought the instances together", name);
    ck_assert_msg(near > 0, "%s: no pair of triangles ever came within the margin", name);
    glcollide_bvh_destroy(&oa);
    glcollide_bvh_destroy(&ob);
    free(wa);
    free(wb);
    glcollide_bvh_destroy(&ba);
    glcollide_bvh_destroy(&bb);
    test_mesh_free(&a);
    test_mesh_free(&b);
}

START_TEST(test_bvh_generated_meshes)
{
    glcollide_mesh *sphere = NULL, *torus = NULL, *knot = NULL, *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(1.0, 48, 24, &sphere), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_torus(1.0, 0.3, 48, 16, &torus), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_knot(2, 3, 1.0, 0.25, 192, 12, &knot), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(1.0, 0.5, 2.0, &box), GLCOLLIDE_OK);
    check_instances(sphere, torus, 101, 4, "sphere/torus");
    check_instances(knot, knot, 102, 4, "knot/knot");
    check_instances(box, sphere, 103, 4, "box/sphere");
    check_instances(torus, torus, 104, 3, "torus/torus");
    glcollide_mesh_destroy(&sphere);
    glcollide_mesh_destroy(&torus);
    glcollide_mesh_destroy(&knot);
    glcollide_mesh_destroy(&box);
}
END_TEST

START_TEST(test_bvh_real_meshes)
{
    glcollide_mesh *knot1 = NULL, *elephant = NULL;
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("knot1.off"), 1.0, &knot1), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("elephant.off"), 1.0, &elephant),
                     GLCOLLIDE_OK);
    check_instances(knot1, elephant, 201, 3, "knot1/elephant");
    check_instances(elephant, elephant, 202, 2, "elephant/elephant");

    /* And query_box on the real meshes. */
    test_rng rng = {203};
    test_mesh e = copy_mesh(elephant);
    glcollide_bvh *bvh = build(&e);
    glcollide_aabb bounds = glcollide_bvh_bounds(bvh);
    double extent = 0.0;
    for (int k = 0; k < 3; k++)
        extent = fmax(extent, bounds.max[k] - bounds.min[k]);
    /* Shift the mesh into [0, extent] where the random boxes are drawn. */
    for (size_t i = 0; i < 3 * e.vertex_count; i++)
        e.positions[i] -= bounds.min[i % 3];
    refit(bvh, e.positions, &e);
    check_query_box(bvh, &e, &rng, 100, extent, "elephant");
    glcollide_bvh_destroy(&bvh);
    test_mesh_free(&e);
    glcollide_mesh_destroy(&knot1);
    glcollide_mesh_destroy(&elephant);
}
END_TEST

/*
 * A detailed mesh resting on a slab of 12 triangles, tilted (the slab's box
 * placed in the mesh's frame then covers the whole mesh, and the traversal
 * holds the slab fixed below the roots): the same pairs as the leaf test on
 * every pair, in both argument orders, margins 0 and 1 mm, at tilts from 0
 * to 80 degrees, on a slab much larger than the mesh and on one about its
 * size. The exact form (check_exact_filter) on each at margin 0, the slab
 * also placed by a quaternion 2% off unit length: it leaves out most pairs
 * and no pair that meets.
 */
START_TEST(test_bvh_large_part)
{
    glcollide_mesh *detail = NULL, *slabs[2] = {NULL, NULL};
    ck_assert_int_eq(glcollide_mesh_generate_knot(2, 3, 0.1, 0.02, 256, 16, &detail), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(2.0, 2.0, 0.1, &slabs[0]), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_box(0.2, 0.2, 0.1, &slabs[1]), GLCOLLIDE_OK);
    ck_assert_uint_eq(slabs[0]->triangle_count, 12);
    test_mesh d = copy_mesh(detail);
    glcollide_bvh *bd = build(&d);
    static const double tilts[] = {0, 10, 30, 46, 80};
    size_t total = 0, posed = 0, exact = 0;
    for (int s = 0; s < 2; s++) {
        test_mesh slab = copy_mesh(slabs[s]);
        glcollide_bvh *bs = build(&slab);
        double top = glcollide_bvh_bounds(bs).max[2];
        for (size_t i = 0; i < sizeof tilts / sizeof tilts[0]; i++) {
            double angle = tilts[i] * 3.14159265358979323846 / 180.0;
            glcollide_pose on = {{0.01, -0.02, 0},
                                 {cos(angle / 2), 0.6 * sin(angle / 2), 0.8 * sin(angle / 2), 0}};
            glcollide_pose slab_pose = {{0, 0, 0}, {1, 0, 0, 0}};
            /* Rest the mesh on the slab's top, 1e-4 deep at its lowest vertex. */
            double m[9], low = INFINITY;
            glcollide_pose_rotation_matrix(&on, m);
            for (size_t v = 0; v < d.vertex_count; v++) {
                const double *p = d.positions + 3 * v;
                low = fmin(low, m[6] * p[0] + m[7] * p[1] + m[8] * p[2]);
            }
            on.translation[2] = top - low - 1e-4;
            for (int margin = 0; margin < 2; margin++) {
                char what[96];
                snprintf(what, sizeof what, "slab %d, tilt %g, margin %d", s, tilts[i], margin);
                size_t n = check_same_as_all(bd, &on, bs, &slab_pose, 1e-3 * margin, what);
                ck_assert_uint_eq(check_same_as_all(bs, &slab_pose, bd, &on, 1e-3 * margin, what),
                                  n);
                total += n;
            }
            char what[96];
            snprintf(what, sizeof what, "slab %d, tilt %g, exact", s, tilts[i]);
            check_exact_filter(&d, bd, &on, &slab, bs, &slab_pose, what, &posed, &exact);
            check_exact_filter(&slab, bs, &slab_pose, &d, bd, &on, what, &posed, &exact);
            glcollide_pose off_unit = {{0, 0, 0}, {1.02, 0, 0, 0}};
            check_exact_filter(&d, bd, &on, &slab, bs, &off_unit, what, &posed, &exact);
        }
        glcollide_bvh_destroy(&bs);
        test_mesh_free(&slab);
    }
    /* A floor tile of two triangles (its whole tree one leaf) a little
     * larger than the mesh resting on it: held fixed from the root. */
    {
        double tile_positions[] = {-0.2, -0.2, 0, 0.2, -0.2, 0, 0.2, 0.2, 0, -0.2, 0.2, 0};
        uint32_t tile_triangles[] = {0, 1, 2, 0, 2, 3};
        test_mesh tile = {tile_positions, tile_triangles, 4, 2};
        glcollide_bvh *bt = build(&tile);
        glcollide_pose tile_pose = {{0, 0, 0}, {1, 0, 0, 0}};
        for (size_t i = 1; i < sizeof tilts / sizeof tilts[0]; i++) {
            double angle = tilts[i] * 3.14159265358979323846 / 180.0, m[9], low = INFINITY;
            glcollide_pose on = {{0.01, -0.02, 0},
                                 {cos(angle / 2), 0.6 * sin(angle / 2), 0.8 * sin(angle / 2), 0}};
            glcollide_pose_rotation_matrix(&on, m);
            for (size_t v = 0; v < d.vertex_count; v++) {
                const double *p = d.positions + 3 * v;
                low = fmin(low, m[6] * p[0] + m[7] * p[1] + m[8] * p[2]);
            }
            on.translation[2] = -low - 1e-4;
            char what[96];
            snprintf(what, sizeof what, "tile, tilt %g", tilts[i]);
            size_t n = check_same_as_all(bd, &on, bt, &tile_pose, 0.0, what);
            ck_assert_uint_eq(check_same_as_all(bt, &tile_pose, bd, &on, 0.0, what), n);
            ck_assert_uint_gt(n, 0);
            check_exact_filter(&d, bd, &on, &tile, bt, &tile_pose, what, &posed, &exact);
            check_exact_filter(&tile, bt, &tile_pose, &d, bd, &on, what, &posed, &exact);
        }
        glcollide_bvh_destroy(&bt);
    }
    /* A flat grid turned and moved anyhow, and one large triangle in its
     * plane as placed (its corners placed grid-plane points): the grid's
     * placed vertices lie on that plane up to rounding, on either side, so
     * a filter that reads the plane on the grid's own vertices and trusts a
     * rounded value's sign leaves out pairs that meet. */
    {
        enum { CELLS = 40 };
        test_mesh grid = {malloc(3 * (CELLS + 1) * (CELLS + 1) * sizeof(double)),
                          malloc(6 * CELLS * CELLS * sizeof(uint32_t)), (CELLS + 1) * (CELLS + 1),
                          2 * CELLS * CELLS};
        for (int y = 0; y <= CELLS; y++)
            for (int x = 0; x <= CELLS; x++) {
                double *p = grid.positions + 3 * (y * (CELLS + 1) + x);
                p[0] = -0.1 + 0.2 * x / CELLS + 1e-3 * sin(7.0 * y);
                p[1] = -0.1 + 0.2 * y / CELLS + 1e-3 * cos(5.0 * x);
                p[2] = 0.0;
            }
        for (uint32_t y = 0, t = 0; y < CELLS; y++)
            for (uint32_t x = 0; x < CELLS; x++, t += 2) {
                uint32_t v = y * (CELLS + 1) + x;
                uint32_t quad[6] = {v, v + 1, v + CELLS + 2, v, v + CELLS + 2, v + CELLS + 1};
                memcpy(grid.triangles + 3 * t, quad, sizeof quad);
            }
        glcollide_pose turned = {{0.37, -1.21, 0.53}, {0.8, 0.36, -0.48, 0.0}};
        const double corners[9] = {-0.4, -0.3, 0, 0.5, -0.35, 0, 0.05, 0.45, 0};
        double big_positions[9];
        uint32_t big_triangle[3] = {0, 1, 2};
        glcollide_pose_transform_points(&turned, corners, 3, big_positions);
        test_mesh big = {big_positions, big_triangle, 3, 1};
        glcollide_bvh *bg = build(&grid), *bb = build(&big);
        glcollide_pose identity = {{0, 0, 0}, {1, 0, 0, 0}};
        size_t before = exact;
        check_exact_filter(&grid, bg, &turned, &big, bb, &identity, "grid in a plane", &posed,
                           &exact);
        check_exact_filter(&big, bb, &identity, &grid, bg, &turned, "grid in a plane", &posed,
                           &exact);
        ck_assert_uint_gt(exact - before, grid.triangle_count / 2); /* it is tested */
        glcollide_bvh_destroy(&bg);
        glcollide_bvh_destroy(&bb);
        test_mesh_free(&grid);
    }
    /* One mesh on both sides (two instances of one mesh: one BVH), a 2 m
     * slab and a 10 cm cube beside it, each instance's cube resting on the
     * other's slab: the descent holds the slab of one side fixed, then the
     * same slots of the same tree on the other side, with its own pose. */
    {
        glcollide_mesh *plate = NULL, *cube = NULL;
        ck_assert_int_eq(glcollide_mesh_generate_box(1.0, 1.0, 0.05, &plate), GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_generate_box(0.05, 0.05, 0.05, &cube), GLCOLLIDE_OK);
        size_t pv = plate->vertex_count, pt = plate->triangle_count;
        test_mesh both = {malloc(3 * (pv + cube->vertex_count) * sizeof(double)),
                          malloc(3 * (pt + cube->triangle_count) * sizeof(uint32_t)),
                          pv + cube->vertex_count, pt + cube->triangle_count};
        memcpy(both.positions, plate->positions, 3 * pv * sizeof(double));
        memcpy(both.triangles, plate->triangles, 3 * pt * sizeof(uint32_t));
        /* the cube 3 m along x, its bottom 1e-4 below the slab's top */
        const double centre[3] = {3.0, 0.0, 0.0999};
        for (size_t v = 0; v < cube->vertex_count; v++)
            for (int k = 0; k < 3; k++)
                both.positions[3 * (pv + v) + k] = cube->positions[3 * v + k] + centre[k];
        for (size_t i = 0; i < 3 * cube->triangle_count; i++)
            both.triangles[3 * pt + i] = cube->triangles[i] + (uint32_t)pv;
        glcollide_bvh *bb = build(&both);
        /* The second instance turned half a turn about z and moved 3 along
         * x: its slab under the first's cube, its cube on the first's slab
         * (then both turned about z together). */
        size_t before = exact;
        for (int turn = 0; turn < 4; turn++) {
            double angle = turn * 0.5, c = cos(angle / 2), s = sin(angle / 2);
            glcollide_pose first = {{0, 0, 0}, {c, 0, 0, s}};
            glcollide_pose second = {{3 * cos(angle), 3 * sin(angle), 0}, {-s, 0, 0, c}};
            char what[64];
            snprintf(what, sizeof what, "one mesh, two instances, turn %d", turn);
            check_exact_filter(&both, bb, &first, &both, bb, &second, what, &posed, &exact);
        }
        ck_assert_uint_gt(exact, before);
        glcollide_bvh_destroy(&bb);
        test_mesh_free(&both);
        glcollide_mesh_destroy(&plate);
        glcollide_mesh_destroy(&cube);
    }
    /* And a real mesh: the elephant on the large slab, tilted 30 degrees. */
    glcollide_mesh *elephant = NULL;
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("elephant.off"), 1.0, &elephant),
                     GLCOLLIDE_OK);
    test_mesh e = copy_mesh(elephant), slab = copy_mesh(slabs[0]);
    glcollide_bvh *be = build(&e), *bs = build(&slab);
    double angle = 30 * 3.14159265358979323846 / 180.0, m[9], low = INFINITY;
    glcollide_pose on = {{0.05, 0.1, 0}, {cos(angle / 2), 0, sin(angle / 2), 0}};
    glcollide_pose slab_pose = {{0, 0, 0}, {1, 0, 0, 0}};
    glcollide_pose_rotation_matrix(&on, m);
    for (size_t v = 0; v < e.vertex_count; v++) {
        const double *p = e.positions + 3 * v;
        low = fmin(low, m[6] * p[0] + m[7] * p[1] + m[8] * p[2]);
    }
    on.translation[2] = glcollide_bvh_bounds(bs).max[2] - low - 1e-3;
    check_exact_filter(&e, be, &on, &slab, bs, &slab_pose, "elephant on the slab", &posed, &exact);
    /* The same far from the origin (the planes' filter bound from the
     * translations). */
    glcollide_pose far_on = on, far_slab = slab_pose;
    const double offset[3] = {1e5, -2e5, 3e4};
    for (int k = 0; k < 3; k++) {
        far_on.translation[k] += offset[k];
        far_slab.translation[k] += offset[k];
    }
    check_exact_filter(&e, be, &far_on, &slab, bs, &far_slab, "elephant on the slab, far", &posed,
                       &exact);
    /* A small box resting exactly on the slab, its bottom in the slab's top
     * plane and across the top's diagonal: its pairs touch, none may be
     * left out. */
    glcollide_mesh *small = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(0.2, 0.2, 0.1, &small), GLCOLLIDE_OK);
    test_mesh b = copy_mesh(small);
    glcollide_bvh *bb = build(&b);
    glcollide_pose resting = {
        {0.3, 0.3, glcollide_bvh_bounds(bs).max[2] - glcollide_bvh_bounds(bb).min[2]},
        {1, 0, 0, 0}};
    size_t before = posed;
    check_exact_filter(&b, bb, &resting, &slab, bs, &slab_pose, "box flush on the slab", &posed,
                       &exact);
    ck_assert_uint_gt(posed, before);
    glcollide_bvh_destroy(&bb);
    test_mesh_free(&b);
    glcollide_mesh_destroy(&small);
    glcollide_bvh_destroy(&be);
    glcollide_bvh_destroy(&bs);
    test_mesh_free(&e);
    test_mesh_free(&slab);
    glcollide_mesh_destroy(&elephant);

    ck_assert_uint_gt(total, 0);
    ck_assert_msg(exact > 0 && 2 * exact < posed, "exact form: %zu pairs of %zu", exact, posed);
    glcollide_bvh_destroy(&bd);
    test_mesh_free(&d);
    glcollide_mesh_destroy(&detail);
    glcollide_mesh_destroy(&slabs[0]);
    glcollide_mesh_destroy(&slabs[1]);
}
END_TEST

/* A deformed mesh (same topology): refit equals brute force and a fresh build. */
START_TEST(test_bvh_refit_deformation)
{
    glcollide_mesh *sphere = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(1.0, 40, 20, &sphere), GLCOLLIDE_OK);
    test_mesh a = copy_mesh(sphere);
    test_rng rng = {301};
    test_mesh b = random_soup(&rng, 800, 2.0, 0);
    for (size_t i = 0; i < 3 * b.vertex_count; i++)
        b.positions[i] -= 1.0;
    glcollide_bvh *ba = build(&a), *bb = build(&b);
    double *deformed = malloc(3 * a.vertex_count * sizeof *deformed);
    for (int step = 0; step < 4; step++) {
        /* Twist about z, stretch along x, and jitter: boxes change shape and order. */
        double twist = 0.8 * (step + 1), stretch = 1.0 + 0.7 * step;
        for (size_t v = 0; v < a.vertex_count; v++) {
            const double *p = a.positions + 3 * v;
            double angle = twist * p[2];
            double x = p[0] * cos(angle) - p[1] * sin(angle),
                   y = p[0] * sin(angle) + p[1] * cos(angle);
            deformed[3 * v] = stretch * x + test_rng_uniform(&rng, -0.02, 0.02);
            deformed[3 * v + 1] = y + test_rng_uniform(&rng, -0.02, 0.02);
            deformed[3 * v + 2] = p[2] + test_rng_uniform(&rng, -0.02, 0.02);
        }
        refit(ba, deformed, &a);
        test_mesh world = {deformed, a.triangles, a.vertex_count, a.triangle_count};
        check_bounds(ba, &world);
        char what[64];
        snprintf(what, sizeof what, "deformed sphere step %d (seed 301)", step);
        check_overlap(ba, deformed, a.triangles, bb, b.positions, b.triangles, 0.0, what);
        check_overlap(ba, deformed, a.triangles, ba, deformed, a.triangles, 0.0, what);

        glcollide_bvh *fresh = build(&world);
        check_overlap(fresh, deformed, a.triangles, bb, b.positions, b.triangles, 0.0, what);
        glcollide_bvh_destroy(&fresh);
    }
    free(deformed);
    glcollide_bvh_destroy(&ba);
    glcollide_bvh_destroy(&bb);
    test_mesh_free(&a);
    test_mesh_free(&b);
    glcollide_mesh_destroy(&sphere);
}
END_TEST

/* Two BVHs of one mesh store the same bytes: nodes, slots, bounds. */
static int same_boxes(const glcollide_bvh *a, const glcollide_bvh *b)
{
    return a->node_count == b->node_count && a->triangle_count == b->triangle_count &&
           memcmp(a->nodes, b->nodes, a->node_count * sizeof *a->nodes) == 0 &&
           memcmp(a->slot_boxes, b->slot_boxes, a->triangle_count * sizeof *a->slot_boxes) == 0 &&
           memcmp(&a->bounds, &b->bounds, sizeof a->bounds) == 0;
}

/* A refit shared among threads (a mesh of 8,192 triangles or more) stores
 * the same boxes as one on one thread, for 2, 3 and the library's count of
 * threads, refit after refit; a small mesh too (it stays on one). The one
 * thread's agree with a build on the same positions where the topology is
 * the same (the rest positions). */
START_TEST(test_bvh_refit_threads)
{
    const int sizes[2][2] = {{160, 80}, {12, 6}}; /* 25,280 and 120 triangles */
    for (int size = 0; size < 2; size++) {
        glcollide_mesh *sphere = NULL;
        ck_assert_int_eq(
            glcollide_mesh_generate_sphere(1.0, sizes[size][0], sizes[size][1], &sphere),
            GLCOLLIDE_OK);
        test_mesh rest = copy_mesh(sphere);
        double *deformed = malloc(3 * rest.vertex_count * sizeof *deformed);
        glcollide_mesh view = {deformed, rest.triangles, rest.vertex_count, rest.triangle_count,
                               NULL};
        glcollide_mesh rest_view = {rest.positions, rest.triangles, rest.vertex_count,
                                    rest.triangle_count, NULL};
        const int threads[] = {1, 2, 3, 0};
        glcollide_bvh *bvh[4];
        for (int t = 0; t < 4; t++)
            bvh[t] = build(&rest);
        test_rng rng = {409};
        for (int step = 0; step < 3; step++) {
            for (size_t i = 0; i < 3 * rest.vertex_count; i++)
                deformed[i] = rest.positions[i] * (1.0 + 0.5 * step * (i % 3)) +
                              test_rng_uniform(&rng, -0.05, 0.05);
            for (int t = 0; t < 4; t++) {
                glcollide_bvh_refit(bvh[t], &view, threads[t]);
                ck_assert_msg(same_boxes(bvh[t], bvh[0]),
                              "step %d: a refit of %zu triangles on %d threads differs from one "
                              "on one thread",
                              step, rest.triangle_count, threads[t]);
            }
            test_mesh world = {deformed, rest.triangles, rest.vertex_count, rest.triangle_count};
            check_bounds(bvh[0], &world);
        }
        glcollide_bvh *fresh = build(&rest);
        glcollide_bvh_refit(bvh[2], &rest_view, 3);
        ck_assert_msg(same_boxes(bvh[2], fresh), "a refit back to the rest positions on 3 "
                                                 "threads differs from a build on them");
        glcollide_bvh_destroy(&fresh);
        for (int t = 0; t < 4; t++)
            glcollide_bvh_destroy(&bvh[t]);
        free(deformed);
        test_mesh_free(&rest);
        glcollide_mesh_destroy(&sphere);
    }
}
END_TEST

/* glcollide_bvh_same_triangles: 1 for the mesh the BVH was built on and for
 * moved vertices, 0 for other triangles (two swapped, one corner changed,
 * another vertex count) and for NULL. */
START_TEST(test_bvh_same_triangles)
{
    test_rng rng = {41};
    test_mesh soup = random_soup(&rng, 300, 10.0, 0);
    glcollide_bvh *bvh = build(&soup);
    glcollide_mesh mesh = {soup.positions, soup.triangles, soup.vertex_count, soup.triangle_count,
                           NULL};
    ck_assert_int_eq(glcollide_bvh_same_triangles(bvh, &mesh), 1);
    for (size_t i = 0; i < 3 * soup.vertex_count; i++)
        soup.positions[i] += 0.5;
    ck_assert_int_eq(glcollide_bvh_same_triangles(bvh, &mesh), 1);
    for (int c = 0; c < 3; c++) { /* triangles 3 and 200 swapped */
        uint32_t x = soup.triangles[9 + c];
        soup.triangles[9 + c] = soup.triangles[600 + c];
        soup.triangles[600 + c] = x;
    }
    ck_assert_int_eq(glcollide_bvh_same_triangles(bvh, &mesh), 0);
    for (int c = 0; c < 3; c++) { /* back, then one corner of the last changed */
        uint32_t x = soup.triangles[9 + c];
        soup.triangles[9 + c] = soup.triangles[600 + c];
        soup.triangles[600 + c] = x;
    }
    ck_assert_int_eq(glcollide_bvh_same_triangles(bvh, &mesh), 1);
    uint32_t *last = soup.triangles + 3 * (soup.triangle_count - 1), kept = last[2];
    last[2] = kept == 0 ? 1 : 0;
    ck_assert_int_eq(glcollide_bvh_same_triangles(bvh, &mesh), 0);
    last[2] = kept;
    ck_assert_int_eq(glcollide_bvh_same_triangles(bvh, &mesh), 1);
    mesh.vertex_count--;
    ck_assert_int_eq(glcollide_bvh_same_triangles(bvh, &mesh), 0);
    ck_assert_int_eq(glcollide_bvh_same_triangles(NULL, &mesh), 0);
    ck_assert_int_eq(glcollide_bvh_same_triangles(bvh, NULL), 0);
    glcollide_bvh_destroy(&bvh);
    test_mesh_free(&soup);
}
END_TEST

START_TEST(test_bvh_empty_and_single)
{
    glcollide_bvh *empty = NULL, *single = NULL;
    ck_assert_int_eq(bvh_of(NULL, 0, NULL, 0, &empty), GLCOLLIDE_OK);
    ck_assert_ptr_nonnull(empty);
    ck_assert_uint_eq(glcollide_bvh_triangle_count(empty), 0);
    glcollide_aabb bounds = glcollide_bvh_bounds(empty);
    for (int k = 0; k < 3; k++)
        ck_assert(bounds.min[k] > bounds.max[k]);
    glcollide_bvh_refit(empty, NULL, 0);

    const double positions[] = {0, 0, 0, 1, 0, 0, 0, 2, 0, 5, 5, 5};
    const uint32_t triangle[] = {0, 1, 2};
    ck_assert_int_eq(bvh_of(positions, 4, triangle, 1, &single), GLCOLLIDE_OK);
    ck_assert_uint_eq(glcollide_bvh_triangle_count(single), 1);
    bounds = glcollide_bvh_bounds(single);
    ck_assert(bounds.min[0] == 0 && bounds.min[1] == 0 && bounds.min[2] == 0);
    ck_assert(bounds.max[0] == 1 && bounds.max[1] == 2 && bounds.max[2] == 0);

    collected c = {0};
    ck_assert_int_eq(glcollide_bvh_overlap(empty, single, 1.0, collect_pair, &c), 0);
    ck_assert_int_eq(glcollide_bvh_overlap(single, empty, 1.0, collect_pair, &c), 0);
    ck_assert_int_eq(glcollide_bvh_overlap(empty, empty, 1.0, collect_pair, &c), 0);
    glcollide_aabb everything = {{-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, INFINITY}};
    ck_assert_int_eq(glcollide_bvh_query_box(empty, &everything, collect_triangle, &c), 0);
    ck_assert_uint_eq(c.calls, 0);

    /* One triangle with itself: (0, 0). Touching the flat box counts. */
    ck_assert_int_eq(glcollide_bvh_overlap(single, single, 0.0, collect_pair, &c), 0);
    ck_assert_uint_eq(c.calls, 1);
    ck_assert(c.pairs.pairs[0].a == 0 && c.pairs.pairs[0].b == 0);
    glcollide_aabb touching = {{1, 2, 0}, {3, 3, 3}}, above = {{0, 0, 0.5}, {1, 1, 1}};
    ck_assert_int_eq(glcollide_bvh_query_box(single, &touching, collect_triangle, &c), 0);
    ck_assert_uint_eq(c.calls, 2);
    ck_assert_int_eq(glcollide_bvh_query_box(single, &above, collect_triangle, &c), 0);
    ck_assert_uint_eq(c.calls, 2);

    /* Margin: a second triangle 0.5 above; margin 0.25 on each side reaches it. */
    const double lifted[] = {0, 0, 0.5, 1, 0, 0.5, 0, 2, 0.5};
    glcollide_bvh *upper = NULL;
    ck_assert_int_eq(bvh_of(lifted, 3, triangle, 1, &upper), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_bvh_overlap(single, upper, 0.2, collect_pair, &c), 0);
    ck_assert_uint_eq(c.calls, 2);
    ck_assert_int_eq(glcollide_bvh_overlap(single, upper, 0.25, collect_pair, &c), 0);
    ck_assert_uint_eq(c.calls, 3);

    glcollide_pair_list_clear(&c.pairs);
    glcollide_bvh_destroy(&empty);
    glcollide_bvh_destroy(&single);
    glcollide_bvh_destroy(&upper);
    glcollide_bvh_destroy(&upper); /* a cleared handle is fine */
    glcollide_bvh_destroy(NULL);
    ck_assert_uint_eq(glcollide_bvh_triangle_count(NULL), 0);
}
END_TEST

START_TEST(test_bvh_invalid_arguments)
{
    const double positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t bad[] = {0, 1, 3};
    glcollide_bvh *bvh = NULL;
    test_log_capture_start(GLCOLLIDE_LOG_DEBUG);
    ck_assert_int_eq(bvh_of(positions, 3, bad, 1, &bvh), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_null(bvh);
    ck_assert_int_eq(bvh_of(positions, 3, NULL, 1, &bvh), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(bvh_of(NULL, 3, bad, 0, &bvh), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(bvh_of(positions, 3, bad, 0, NULL), GLCOLLIDE_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(test_log_count(), 4);
    test_log_capture_stop();
}
END_TEST

START_TEST(test_bvh_early_stop)
{
    test_rng rng = {401};
    test_mesh soup = random_soup(&rng, 2000, 5.0, 0);
    glcollide_bvh *bvh = build(&soup);
    collected c = {.stop_after = 7};
    ck_assert_int_eq(glcollide_bvh_overlap(bvh, bvh, 0.0, collect_pair, &c), 1);
    ck_assert_uint_eq(c.calls, 7);
    collected q = {.stop_after = 3};
    glcollide_aabb box = {{0, 0, 0}, {5, 5, 5}};
    ck_assert_int_eq(glcollide_bvh_query_box(bvh, &box, collect_triangle, &q), 1);
    ck_assert_uint_eq(q.calls, 3);
    glcollide_pair_list_clear(&c.pairs);
    glcollide_pair_list_clear(&q.pairs);
    glcollide_bvh_destroy(&bvh);
    test_mesh_free(&soup);
}
END_TEST

/*
 * 300,000 triangles in a row along x (no recursion may depend on the count),
 * each in its own unit cell: with size 1 neighbours touch, so the self
 * overlap is exactly (i, i) and (i, i +- 1); and 50,000 copies of one
 * triangle (all centroids equal) still build and answer.
 */
START_TEST(test_bvh_large_and_degenerate)
{
    const size_t n = 300000;
    test_mesh row = {
        .positions = malloc(9 * n * sizeof(double)),
        .triangles = malloc(3 * n * sizeof(uint32_t)),
        .vertex_count = 3 * n,
        .triangle_count = n,
    };
    test_rng rng = {501};
    for (size_t t = 0; t < n; t++) {
        /* A permutation of the cells, so the build has to sort. */
        size_t cell = (t * 7919) % n;
        double *p = row.positions + 9 * t;
        double y = test_rng_uniform(&rng, 0.0, 0.5), z = test_rng_uniform(&rng, 0.0, 0.5);
        double v[9] = {(double)cell,       y, z,      (double)cell + 1.0, y + 0.5, z,
                       (double)cell + 0.5, y, z + 0.5};
        memcpy(p, v, sizeof v);
        for (int k = 0; k < 3; k++)
            row.triangles[3 * t + k] = (uint32_t)(3 * t + k);
    }
    double t0 = test_now_ms();
    glcollide_bvh *bvh = build(&row);
    double t1 = test_now_ms();
    collected c = {0};
    ck_assert_int_eq(glcollide_bvh_overlap(bvh, bvh, 0.0, collect_pair, &c), 0);
    ck_assert_uint_eq(c.calls, 3 * n - 2);
    glcollide_pair_list_sort_unique(&c.pairs);
    ck_assert_uint_eq(c.pairs.count, 3 * n - 2);
    for (size_t i = 0; i < c.pairs.count; i++) {
        size_t ca = (c.pairs.pairs[i].a * (size_t)7919) % n,
               cb = (c.pairs.pairs[i].b * (size_t)7919) % n;
        TEST_REQUIRE(ca == cb || ca + 1 == cb || cb + 1 == ca, "cells %zu and %zu paired", ca, cb);
    }
    printf("bvh: %zu triangles in a row: build %.1f ms\n", n, t1 - t0);
    glcollide_pair_list_clear(&c.pairs);
    glcollide_bvh_destroy(&bvh);
    test_mesh_free(&row);

    const size_t copies = 50000;
    const double positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint32_t *same = malloc(3 * copies * sizeof *same);
    for (size_t t = 0; t < copies; t++)
        for (int k = 0; k < 3; k++)
            same[3 * t + k] = (uint32_t)k;
    ck_assert_int_eq(bvh_of(positions, 3, same, copies, &bvh), GLCOLLIDE_OK);
    glcollide_aabb corner = {{1, 0, 0}, {2, 2, 2}};
    collected q = {0};
    ck_assert_int_eq(glcollide_bvh_query_box(bvh, &corner, collect_triangle, &q), 0);
    ck_assert_uint_eq(q.calls, copies);
    glcollide_pair_list_sort_unique(&q.pairs);
    ck_assert_uint_eq(q.pairs.count, copies);
    glcollide_pair_list_clear(&q.pairs);
    glcollide_bvh_destroy(&bvh);
    free(same);
}
END_TEST

/*
 * Triangles spaced ever wider apart (x = base^t): the surface-area split
 * cuts the far few off each range, so the tree is deeper than a median
 * split's (base 2: 4 triangles a level, as deep as the build lets it go
 * by area). The tree must stay within the depth the build promises
 * (GLCOLLIDE_BVH_SAH_DEPTH levels by area, then the median's), and find the same pairs
 * as brute force.
 */
START_TEST(test_bvh_unbalanced_geometry)
{
    static const struct {
        size_t n;
        double base;
    } rows[] = {{3000, 1.01}, {125, 2.0}};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        size_t n = rows[r].n;
        test_mesh row = {
            .positions = malloc(9 * n * sizeof(double)),
            .triangles = malloc(3 * n * sizeof(uint32_t)),
            .vertex_count = 3 * n,
            .triangle_count = n,
        };
        for (size_t t = 0; t < n; t++) {
            double x = pow(rows[r].base, (double)t);
            double v[9] = {x, 0.0, 0.0, x + 1.0, 0.5, 0.0, x + 0.5, 0.0, 0.5};
            memcpy(row.positions + 9 * t, v, sizeof v);
            for (int k = 0; k < 3; k++)
                row.triangles[3 * t + k] = (uint32_t)(3 * t + k);
        }
        glcollide_bvh *bvh = build(&row);
        int balanced = (int)ceil(log2((double)n / (GLCOLLIDE_BVH_LEAF_SIZE / 2)));
        printf("bvh: %zu triangles at %g^t: depth %d (a median split's: %d)\n", n, rows[r].base,
               bvh->depth, balanced);
        ck_assert_msg(bvh->depth > balanced, "depth %d: the splits were not by area", bvh->depth);
        ck_assert_int_le(bvh->depth, GLCOLLIDE_BVH_SAH_DEPTH + balanced);
        ck_assert_int_le(bvh->depth, GLCOLLIDE_BVH_MAX_DEPTH);
        size_t pairs = check_overlap(bvh, row.positions, row.triangles, bvh, row.positions,
                                     row.triangles, 0.0, "ever wider apart");
        ck_assert_uint_ge(pairs, n);
        glcollide_bvh_destroy(&bvh);
        test_mesh_free(&row);
    }
}
END_TEST

/* The elephant scaled by 2^600, 2^-600 and 2^-1000 (every coordinate
 * exactly): the same tree, slot for slot, as at scale 1 (the build weighs
 * its splits in single precision, which holds neither 2^600 nor 2^-600). */
START_TEST(test_bvh_scale_invariant)
{
    glcollide_mesh *elephant = NULL;
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("elephant.off"), 1.0, &elephant),
                     GLCOLLIDE_OK);
    test_mesh base = copy_mesh(elephant);
    glcollide_bvh *at_one = build(&base);
    const double factors[] = {0x1p600, 0x1p-600, 0x1p-1000};
    for (size_t f = 0; f < sizeof factors / sizeof factors[0]; f++) {
        test_mesh scaled = copy_mesh(elephant);
        for (size_t i = 0; i < 3 * scaled.vertex_count; i++)
            scaled.positions[i] *= factors[f];
        glcollide_bvh *bvh = build(&scaled);
        ck_assert_uint_eq(bvh->node_count, at_one->node_count);
        ck_assert_int_eq(bvh->depth, at_one->depth);
        for (size_t i = 0; i < bvh->node_count; i++)
            TEST_REQUIRE(bvh->nodes[i].first == at_one->nodes[i].first &&
                             bvh->nodes[i].count == at_one->nodes[i].count,
                         "factor %g: node %zu differs", factors[f], i);
        ck_assert_mem_eq(bvh->ids, at_one->ids, bvh->triangle_count * sizeof *bvh->ids);
        glcollide_bvh_destroy(&bvh);
        test_mesh_free(&scaled);
    }
    glcollide_bvh_destroy(&at_one);
    test_mesh_free(&base);
    glcollide_mesh_destroy(&elephant);
}
END_TEST

/* The area of every node's box, summed: what a descent pays where the
 * other tree's box lands anywhere in this one's (the build's heuristic). */
static double tree_area(const glcollide_bvh *bvh)
{
    double area = 0.0;
    for (size_t i = 0; i < bvh->node_count; i++) {
        const double *h = bvh->nodes[i].box.h;
        area += h[0] * h[1] + h[1] * h[2] + h[2] * h[0];
    }
    return area;
}

/* The elephant 500 km from the origin (a map's coordinates) gets a tree as
 * good as at the origin: the build weighs its splits on boxes in single
 * precision, which at 5e5 would be 3 cm coarse, coarser than most of the
 * elephant's triangles, were they not taken about the mesh's centre. */
START_TEST(test_bvh_far_from_origin)
{
    glcollide_mesh *elephant = NULL;
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("elephant.off"), 1.0, &elephant),
                     GLCOLLIDE_OK);
    test_mesh base = copy_mesh(elephant), far = copy_mesh(elephant);
    const double offset[3] = {5e5, -3e5, 2e5};
    for (size_t i = 0; i < 3 * far.vertex_count; i++)
        far.positions[i] += offset[i % 3];
    glcollide_bvh *at_origin = build(&base), *away = build(&far);
    double a = tree_area(at_origin), b = tree_area(away);
    printf("bvh: elephant's tree area at the origin %.6g, 500 km away %.6g\n", a, b);
    ck_assert_msg(b <= 1.01 * a, "500 km away: tree area %.6g, at the origin %.6g", b, a);
    glcollide_bvh_destroy(&at_origin);
    glcollide_bvh_destroy(&away);
    test_mesh_free(&base);
    test_mesh_free(&far);
    glcollide_mesh_destroy(&elephant);
}
END_TEST

/* Not an assertion: build, refit and overlap times on the 75K-triangle bunny. */
START_TEST(test_bvh_speed)
{
    glcollide_mesh *bunny = NULL;
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh("bunny00.off"), 1.0, &bunny), GLCOLLIDE_OK);
    double t0 = test_now_ms();
    glcollide_bvh *a = NULL, *b = NULL;
    ck_assert_int_eq(glcollide_bvh_create(bunny, &a), GLCOLLIDE_OK);
    double t1 = test_now_ms();
    ck_assert_int_eq(glcollide_bvh_create(bunny, &b), GLCOLLIDE_OK);
    glcollide_aabb bounds = glcollide_bvh_bounds(a);
    double size = bounds.max[0] - bounds.min[0];
    /* b: the bunny turned about y and moved by a quarter of its width. */
    double *moved = malloc(3 * bunny->vertex_count * sizeof *moved);
    double c = cos(0.5), s = sin(0.5);
    double r[9] = {c, 0, s, 0, 1, 0, -s, 0, c}, t[3] = {0.25 * size, 0.05 * size, 0};
    transform(bunny->positions, bunny->vertex_count, r, t, moved);
    double t2 = test_now_ms();
    glcollide_bvh_refit(b,
                        &(glcollide_mesh){moved, bunny->triangles, bunny->vertex_count,
                                          bunny->triangle_count, NULL},
                        0);
    double t3 = test_now_ms();
    collected pairs = {0};
    ck_assert_int_eq(glcollide_bvh_overlap(a, b, 0.0, collect_pair, &pairs), 0);
    double t4 = test_now_ms();
    ck_assert_uint_gt(pairs.calls, 0);
    printf("bvh: bunny00 %zu triangles: build %.1f ms (%zu nodes, depth %d), refit %.2f ms, "
           "overlap of two instances %.2f ms (%zu triangle pairs)\n",
           bunny->triangle_count, t1 - t0, a->node_count, a->depth, t3 - t2, t4 - t3, pairs.calls);
    glcollide_pair_list_clear(&pairs.pairs);
    free(moved);
    glcollide_bvh_destroy(&a);
    glcollide_bvh_destroy(&b);
    glcollide_mesh_destroy(&bunny);
}
END_TEST

Suite *suite_bvh(void)
{
    Suite *suite = suite_create("bvh");
    TCase *tc = tcase_create("bvh");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_bvh_random_soups);
    tcase_add_test(tc, test_bvh_query_box);
    tcase_add_test(tc, test_bvh_generated_meshes);
    tcase_add_test(tc, test_bvh_large_part);
    tcase_add_test(tc, test_bvh_real_meshes);
    tcase_add_test(tc, test_bvh_refit_deformation);
    tcase_add_test(tc, test_bvh_refit_threads);
    tcase_add_test(tc, test_bvh_same_triangles);
    tcase_add_test(tc, test_bvh_empty_and_single);
    tcase_add_test(tc, test_bvh_invalid_arguments);
    tcase_add_test(tc, test_bvh_early_stop);
    tcase_add_test(tc, test_bvh_large_and_degenerate);
    tcase_add_test(tc, test_bvh_unbalanced_geometry);
    tcase_add_test(tc, test_bvh_scale_invariant);
    tcase_add_test(tc, test_bvh_far_from_origin);
    tcase_add_test(tc, test_bvh_speed);
    suite_add_tcase(suite, tc);
    return suite;
}
