/* SPDX-License-Identifier: MIT */
/* The tetra-tree tests' trees, meshes and world-entry check (tetra_shapes.h). */
#define _POSIX_C_SOURCE 200809L
#include "helpers/tetra_shapes.h"

#include <glcollide/geometry.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double *vertex(const glcollide_mesh *m, uint32_t v)
{
    return m->positions + 3 * (size_t)v;
}

glcollide_tetra_tree *build(const glcollide_mesh *m, const glcollide_tetra_tree_options *options)
{
    glcollide_tetra_tree *tree = NULL;
    int status = glcollide_tetra_tree_create(m, options, &tree);
    ck_assert_msg(status == GLCOLLIDE_OK, "tetra-tree of %s: %s", m->name,
                  glcollide_status_string(status));
    return tree;
}

/* A real mesh fitted to size 2 and quantised to a 2^-20 grid. */
glcollide_mesh *real_mesh(const char *file)
{
    glcollide_mesh *m = NULL;
    ck_assert_int_eq(glcollide_mesh_load(test_data_mesh(file), 1.0, &m), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_fit(m, 2.0), GLCOLLIDE_OK);
    for (size_t i = 0; i < 3 * m->vertex_count; i++)
        m->positions[i] = ldexp(nearbyint(ldexp(m->positions[i], 20)), -20);
    free(m->name);
    m->name = strdup(file);
    return m;
}

glcollide_mesh *shape_mesh(int k)
{
    glcollide_mesh *m = NULL;
    if (k == 0)
        ck_assert_int_eq(glcollide_mesh_generate_torus(0.5, 0.125, 24, 8, &m), GLCOLLIDE_OK);
    else if (k == 1)
        ck_assert_int_eq(glcollide_mesh_generate_knot(2, 3, 0.5, 0.125, 96, 8, &m), GLCOLLIDE_OK);
    else
        m = real_mesh(k == 2 ? "elephant.off" : "knot1.off");
    return m;
}

/* count points uniform in the box of m grown by 20% and placed by (t, q)
 * (its 8 corners' box), from seed. */
double *posed_points(const glcollide_mesh *m, const double t[3], const double q[4], size_t count,
                     uint64_t seed)
{
    glcollide_aabb box = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (size_t v = 0; v < m->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            box.min[k] = fmin(box.min[k], vertex(m, (uint32_t)v)[k]);
            box.max[k] = fmax(box.max[k], vertex(m, (uint32_t)v)[k]);
        }
    glcollide_object pose = {.mesh = 0};
    memcpy(pose.pose.translation, t, sizeof pose.pose.translation);
    memcpy(pose.pose.rotation, q, sizeof pose.pose.rotation);
    glcollide_aabb grown = box, placed;
    for (int k = 0; k < 3; k++) {
        double pad = 0.2 * (box.max[k] - box.min[k]);
        grown.min[k] -= pad;
        grown.max[k] += pad;
    }
    glcollide_aabb_place(&grown, &pose.pose, &placed);
    test_rng rng = {seed};
    double *p = malloc(3 * count * sizeof *p);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < 3 * count; i++)
        p[i] = test_rng_uniform(&rng, placed.min[i % 3], placed.max[i % 3]);
    return p;
}

/* Classifies points against object 1 of world (mesh m, tree) with gpu and
 * requires the tree's answers for R^T (p - t), R and t the object's pose. */
static void check_world_entry(glcollide_tetra_gpu *gpu, const glcollide_world *world,
                              const glcollide_tetra_tree *tree, const double *points, size_t count,
                              int on_gpu, const char *what)
{
    const glcollide_object *pose = glcollide_world_object(world, 1);
    double m[9], *local = malloc(3 * count * sizeof *local);
    uint8_t *expected = malloc(count), *got = malloc(count);
    ck_assert(local && expected && got);
    glcollide_pose_rotation_matrix(&pose->pose, m);
    for (size_t i = 0; i < count; i++) {
        const double *p = points + 3 * i;
        double d[3] = {p[0] - pose->pose.translation[0], p[1] - pose->pose.translation[1],
                       p[2] - pose->pose.translation[2]};
        for (int k = 0; k < 3; k++)
            local[3 * i + k] = m[k] * d[0] + m[3 + k] * d[1] + m[6 + k] * d[2];
    }
    ck_assert_int_eq(glcollide_tetra_tree_classify(tree, local, count, expected, NULL, NULL),
                     GLCOLLIDE_OK);
    glcollide_tetra_stats stats;
    ck_assert_int_eq(
        glcollide_tetra_gpu_classify(gpu, world, 1, points, count, 0, got, &stats),
        GLCOLLIDE_OK);
    size_t inside = 0, differ = 0;
    for (size_t i = 0; i < count; i++) {
        inside += expected[i];
        differ += expected[i] != got[i];
    }
    ck_assert_msg(differ == 0, "%s: %zu of %zu points differ from the tree's answer", what, differ,
                  count);
    ck_assert_uint_eq(stats.inside, inside);
    ck_assert_uint_eq(stats.draw_calls, on_gpu ? 1 : 0); /* the GPU ran, or none */
    ck_assert_uint_gt(inside, count / 200);              /* the posed solid is among the points */
    free(local);
    free(expected);
    free(got);
}

/* A world of two objects: object 0 a box (another mesh), object 1 mesh m
 * at (t, q). */
glcollide_world *world_with(const glcollide_mesh *box, const glcollide_mesh *m, const double t[3],
                            const double q[4])
{
    glcollide_world *world = NULL;
    uint32_t mb, mm;
    const double t0[3] = {5, 0, 0}, q0[4] = {1, 0, 0, 0};
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, box, &mb), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_mesh(world, m, &mm), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_object(world, mb, t0, q0, NULL), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_world_add_object(world, mm, t, q, NULL), GLCOLLIDE_OK);
    return world;
}

/* The world entry with the CPU twin (gpu_context NULL) or the GPU: 4
 * meshes, each at 3 random poses (seeds 0x0E5B0000 + 16 mesh + pose,
 * translations up to 100), 5,000 points about the posed solid: the answers
 * for the inverse-transformed points. */
void world_entries(glcollide_context *gpu_context)
{
    glcollide_mesh *box = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(1, 1, 1, &box), GLCOLLIDE_OK);
    for (int k = 0; k < SHAPE_MESHES; k++) {
        glcollide_mesh *m = shape_mesh(k);
        glcollide_tetra_tree *tree = build(m, NULL);
        glcollide_tetra_gpu *gpu = NULL;
        ck_assert_int_eq(glcollide_tetra_gpu_create(gpu_context, tree, &gpu), GLCOLLIDE_OK);
        glcollide_world *world = NULL;
        for (int pose = 0; pose < 3; pose++) {
            uint64_t seed = 0x0E5B0000u + (uint64_t)(16 * k + pose);
            test_rng rng = {seed};
            double t[3], q[4];
            for (int c = 0; c < 3; c++)
                t[c] = test_rng_uniform(&rng, -100, 100);
            test_rng_quaternion(&rng, q);
            if (!world)
                world = world_with(box, m, t, q);
            else /* a pose change is seen */
                ck_assert_int_eq(glcollide_world_set_pose(world, 1, t, q), GLCOLLIDE_OK);
            double *points = posed_points(m, t, q, 5000, seed);
            char what[96];
            snprintf(what, sizeof what, "%s %s, seed 0x%llx", gpu_context ? "GPU" : "CPU twin",
                     m->name, (unsigned long long)seed);
            check_world_entry(gpu, world, tree, points, 5000, gpu_context != NULL, what);
            free(points);
        }
        glcollide_world_destroy(&world);
        glcollide_tetra_gpu_destroy(&gpu);
        glcollide_tetra_tree_destroy(&tree);
        glcollide_mesh_destroy(&m);
    }
    glcollide_mesh_destroy(&box);
}
