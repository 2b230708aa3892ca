/* SPDX-License-Identifier: MIT */
/* The Myszkowski tests' tester, pairs of solids and comparisons
 * (myszkowski_pairs.h). */
#include "helpers/myszkowski_pairs.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

glcollide_context *context;
glcollide_myszkowski *tester;

void setup(void)
{
    if (!context)
        ck_assert_msg(glcollide_context_create_egl(&context) == GLCOLLIDE_OK,
                      "no headless EGL context: the myszkowski tests need one");
    if (!tester)
        ck_assert_int_eq(glcollide_myszkowski_create(context, &tester), GLCOLLIDE_OK);
}

void teardown(void)
{
    glcollide_myszkowski_destroy(&tester);
    glcollide_context_destroy(&context);
}

/* Exact answer for objects 0 and 1 of a two-object scene: do they touch,
 * or come closer than distance? */
int exact_touch(const test_scene *scene, double distance)
{
    glcollide_query_options options = glcollide_query_default_options();
    options.distance = distance;
    glcollide_query_result result;
    ck_assert_int_eq(scene_query(scene, NULL, &options, &result), GLCOLLIDE_OK);
    int touch = result.pair_count > 0;
    glcollide_query_result_clear(&result);
    return touch;
}

glcollide_myszkowski_result run_with(const test_scene *scene, int resolution, int full_map,
                                     int refine)
{
    glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
    options.resolution = resolution;
    options.full_map = full_map;
    options.refine = refine;
    options.check_solids = 0; /* the meshes are checked once where they are made */
    glcollide_myszkowski_result result;
    int status = scene_myszkowski_test(tester, scene, 0, 1, &options, &result);
    ck_assert_msg(status == GLCOLLIDE_OK, "myszkowski failed: %s", glcollide_status_string(status));
    return result;
}

glcollide_myszkowski_result run(const test_scene *scene, int resolution, int full_map)
{
    return run_with(scene, resolution, full_map, 0);
}

/* ------------------------------------------------------------ shapes */

const char *const shape_names[SHAPE_KINDS] = {"box", "sphere", "capsule", "torus", "knot", "real"};

glcollide_mesh *real_meshes[5];
static const char *const real_names[5] = {"elephant.off", "knot1.off", "knot2.off", "dino.off",
                                          "bunny00.off"};

static glcollide_mesh *real_mesh(uint32_t k, double size)
{
    if (!real_meshes[k]) {
        ck_assert_int_eq(glcollide_mesh_load(test_data_mesh(real_names[k]), 1.0, &real_meshes[k]),
                         GLCOLLIDE_OK);
        ck_assert_int_eq(glcollide_mesh_require_solid(real_meshes[k], NULL), GLCOLLIDE_OK);
    }
    const glcollide_mesh *m = real_meshes[k];
    glcollide_mesh *mesh = NULL;
    ck_assert_int_eq(glcollide_mesh_create(m->positions, m->vertex_count, m->triangles,
                                           m->triangle_count, real_names[k], &mesh),
                     GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_fit(mesh, size), GLCOLLIDE_OK);
    return mesh;
}

/* A closed solid of about size s: convex (box, sphere, capsule) or concave
 * (torus, knot, real mesh; bunny00 only when allow_large). */
glcollide_mesh *make_shape(test_rng *rng, int kind, double s, int allow_large)
{
    glcollide_mesh *mesh = NULL;
    int status = GLCOLLIDE_OK;
    switch (kind) {
    case SHAPE_BOX:
        status =
            glcollide_mesh_generate_box(0.5 * s * test_rng_uniform(rng, 0.2, 1),
                                        0.5 * s * test_rng_uniform(rng, 0.2, 1), 0.5 * s, &mesh);
        break;
    case SHAPE_SPHERE: status = glcollide_mesh_generate_sphere(0.5 * s, 16, 10, &mesh); break;
    case SHAPE_CAPSULE:
        status = glcollide_mesh_generate_capsule(0.2 * s, 0.3 * s, 12, 3, &mesh);
        break;
    case SHAPE_TORUS:
        status = glcollide_mesh_generate_torus(0.35 * s, 0.12 * s, 24, 10, &mesh);
        break;
    case SHAPE_KNOT:
        status = glcollide_mesh_generate_knot(2, 3, 0.3 * s, 0.07 * s, 96, 8, &mesh);
        break;
    default: mesh = real_mesh(allow_large ? 4 : test_rng_below(rng, 4), s); break;
    }
    ck_assert_int_eq(status, GLCOLLIDE_OK);
    return mesh;
}

/* Two solids: the first at the origin, the second at a random direction
 * and a distance that makes about half of the pairs touch. */
test_scene *random_pair(uint64_t seed, int kinds[2])
{
    test_rng rng = {seed};
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
    double origin = (seed % 11 == 0) ? 1e4 : 0; /* far from the world origin now and then */
    for (int f = 0; f < 2; f++) {
        kinds[f] = (int)test_rng_below(&rng, SHAPE_KINDS);
        uint32_t m = test_scene_add_mesh(
            scene, make_shape(&rng, kinds[f], test_rng_uniform(&rng, 0.5, 1.0), seed % 97 == 5));
        double q[4], t[3] = {origin, origin, origin};
        test_rng_quaternion(&rng, q);
        if (f == 1) {
            double d[3], n2 = 0;
            for (int k = 0; k < 3; k++) {
                d[k] = test_rng_uniform(&rng, -1, 1);
                n2 += d[k] * d[k];
            }
            double r = test_rng_uniform(&rng, 0.15, 0.9) / sqrt(n2);
            for (int k = 0; k < 3; k++)
                t[k] += d[k] * r;
        }
        test_scene_add_object(scene, m, t, q);
    }
    return scene;
}

int concave(int kind)
{
    return kind >= SHAPE_TORUS;
}

/* Object 0 a closed box at the origin, object 1 the same box without its
 * last two triangles ("open box"), 0.3 along x: the errors' scene. */
test_scene *box_and_open_box(void)
{
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *box = NULL, *open = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_box(0.5, 0.5, 0.5, &box), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_create(box->positions, box->vertex_count, box->triangles,
                                           box->triangle_count - 2, "open box", &open),
                     GLCOLLIDE_OK);
    const double q[4] = {1, 0, 0, 0}, t0[3] = {0, 0, 0}, t1[3] = {0.3, 0, 0};
    test_scene_add_object(scene, test_scene_add_mesh(scene, box), t0, q);
    test_scene_add_object(scene, test_scene_add_mesh(scene, open), t1, q);
    return scene;
}

/* ------------------------------------------------------------ one shape */

/* A world of scene's meshes (borrowed) and objects; the scene's poses are
 * then set to the world's (normalised), so that both hold the same poses. */
glcollide_world *world_of_scene(test_scene *scene)
{
    glcollide_world *world = NULL;
    ck_assert_int_eq(glcollide_world_create(&world), GLCOLLIDE_OK);
    for (size_t m = 0; m < scene->mesh_count; m++)
        ck_assert_int_eq(glcollide_world_add_mesh(world, scene->meshes[m], NULL), GLCOLLIDE_OK);
    for (size_t o = 0; o < scene->object_count; o++) {
        const glcollide_object *pose = &scene->objects[o];
        ck_assert_int_eq(glcollide_world_add_object(world, pose->mesh, pose->pose.translation,
                                                    pose->pose.rotation, NULL),
                         GLCOLLIDE_OK);
        scene->objects[o] = *glcollide_world_object(world, (uint32_t)o);
    }
    return world;
}

/* The exact method on world (objects 0 and 1): do they touch, or come
 * within distance? */
int world_exact(glcollide_world *world, double distance)
{
    glcollide_query_options options = glcollide_query_default_options();
    options.method = GLCOLLIDE_METHOD_EXACT;
    options.distance = distance;
    glcollide_query_result result = {0};
    ck_assert_int_eq(glcollide_world_query(world, NULL, &options, &result), GLCOLLIDE_OK);
    int touch = result.pair_count > 0;
    glcollide_query_result_clear(&result);
    return touch;
}

/* Object 1 a shape of size 0.5 near the centre of object 0, a sphere of
 * radius 1.5 (inside it), or the other way round when swap; random poses
 * from seed, far from the world origin now and then. */
static test_scene *nested_pair(uint64_t seed, int swap)
{
    test_rng rng = {seed};
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *big = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_sphere(1.5, 16, 10, &big), GLCOLLIDE_OK);
    glcollide_mesh *small =
        make_shape(&rng, (int)test_rng_below(&rng, SHAPE_KINDS), 0.5, seed % 7 == 3);
    double centre[3], q[2][4], offset[2][3] = {{0, 0, 0}, {0, 0, 0}};
    double far = seed % 5 == 0 ? 1e4 : 1;
    for (int k = 0; k < 3; k++) {
        centre[k] = test_rng_uniform(&rng, -far, far);
        offset[1][k] = centre[k] + test_rng_uniform(&rng, -0.1, 0.1);
        offset[0][k] = centre[k];
    }
    test_rng_quaternion(&rng, q[0]);
    test_rng_quaternion(&rng, q[1]);
    uint32_t mesh[2] = {test_scene_add_mesh(scene, big), test_scene_add_mesh(scene, small)};
    for (int f = 0; f < 2; f++) {
        int g = swap ? 1 - f : f;
        test_scene_add_object(scene, mesh[g], offset[g], q[g]);
    }
    return scene;
}

/* A torus (tube radius 0.24 on a circle of 0.7) and a sphere of radius 0.3
 * in its hole, off centre by up to 0.1: disjoint, their boxes nested. */
static test_scene *hole_pair(uint64_t seed)
{
    test_rng rng = {seed};
    test_scene *scene = NULL;
    ck_assert_int_eq(scene_create(&scene), GLCOLLIDE_OK);
    glcollide_mesh *torus = NULL, *ball = NULL;
    ck_assert_int_eq(glcollide_mesh_generate_torus(0.7, 0.24, 24, 10, &torus), GLCOLLIDE_OK);
    ck_assert_int_eq(glcollide_mesh_generate_sphere(0.3, 16, 10, &ball), GLCOLLIDE_OK);
    double q[4], t[3], b[3];
    test_rng_quaternion(&rng, q);
    for (int k = 0; k < 3; k++) {
        t[k] = test_rng_uniform(&rng, -10, 10);
        b[k] = t[k] + test_rng_uniform(&rng, -0.05, 0.05);
    }
    test_scene_add_object(scene, test_scene_add_mesh(scene, torus), t, q);
    test_scene_add_object(scene, test_scene_add_mesh(scene, ball), b, q);
    return scene;
}

/* The scenes of the one-shape tests: kind 0 random_pair (generated and
 * real meshes, about half touching), 1 and 2 nested (containment, each
 * order), 3 disjoint with nested boxes. */
test_scene *shape_scene(int kind, uint64_t seed)
{
    int kinds[2];
    return kind == 0   ? random_pair(seed, kinds)
           : kind == 3 ? hole_pair(seed)
                       : nested_pair(seed, kind == 2);
}

const char *const scene_kinds[4] = {"random", "nested", "nested (swapped)", "disjoint"};

glcollide_myszkowski_options shape_options(int resolution)
{
    glcollide_myszkowski_options options = glcollide_myszkowski_default_options();
    options.resolution = resolution;
    options.check_solids = 0; /* the meshes are closed solids as made */
    return options;
}

/* The fields of a result that describe the answer and its view. */
void require_same_result(const glcollide_myszkowski_result *x, const glcollide_myszkowski_result *y,
                         const char *what)
{
    TEST_REQUIRE(
        x->interference == y->interference && x->passes == y->passes && x->swapped == y->swapped &&
            x->width == y->width && x->height == y->height &&
            !memcmp(x->direction, y->direction, sizeof x->direction) &&
            x->pixel_size == y->pixel_size && x->depth_range == y->depth_range &&
            x->tolerance == y->tolerance && x->covered_pixels == y->covered_pixels &&
            x->collision_pass1 == y->collision_pass1 && x->concave_pixels == y->concave_pixels &&
            x->stats.draw_calls == y->stats.draw_calls && x->stats.gpu_syncs == y->stats.gpu_syncs,
        "%s: world and scene entries differ (interference %d/%d, passes %d/%d, %dx%d / "
        "%dx%d)",
        what, x->interference, y->interference, x->passes, y->passes, x->width, x->height, y->width,
        y->height);
}

void require_same_map(const glcollide_myszkowski_map *x, const glcollide_myszkowski_map *y,
                      const char *what)
{
    size_t pixels = (size_t)x->width * (size_t)x->height;
    TEST_REQUIRE(x->width == y->width && x->height == y->height &&
                     !memcmp(x->corner, y->corner, sizeof x->corner) &&
                     !memcmp(x->direction, y->direction, sizeof x->direction) &&
                     x->pixel_size == y->pixel_size &&
                     (!pixels || (!memcmp(x->distance, y->distance, pixels * sizeof(float)) &&
                                  !memcmp(x->coverage, y->coverage, pixels))),
                 "%s: world and scene maps differ", what);
}
