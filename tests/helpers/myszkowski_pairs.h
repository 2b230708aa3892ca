/* SPDX-License-Identifier: MIT */
/*
 * The Myszkowski tests' shared parts: the tester and its context, the pairs
 * of solids they test (generated and real meshes, random, nested, in a
 * torus's hole), worlds made of those scenes, and the comparisons of a
 * world entry's result with a scene entry's. Linked into both test
 * programs: tests/gpu/test_myszkowski*.c use the GPU tester,
 * tests/unit/test_myszkowski_cpu.c the CPU twin.
 */
#ifndef GLCOLLIDE_TEST_MYSZKOWSKI_PAIRS_H
#define GLCOLLIDE_TEST_MYSZKOWSKI_PAIRS_H

#include "helpers/tests.h"

#include <glcollide/glcollide.h>

#define PI 3.14159265358979323846

/* The GPU tests' context and tester, made by setup on first need (a test
 * calls it), released by teardown (the suites' unchecked fixture). */
extern glcollide_context *context;
extern glcollide_myszkowski *tester;
void setup(void);
void teardown(void);

/* Exact answer for objects 0 and 1 of a two-object scene: do they touch,
 * or come closer than distance? */
int exact_touch(const test_scene *scene, double distance);
/* The GPU tester on objects 0 and 1 (check_solids off), failing on error. */
glcollide_myszkowski_result run_with(const test_scene *scene, int resolution, int full_map,
                                     int refine);
glcollide_myszkowski_result run(const test_scene *scene, int resolution, int full_map);

enum { SHAPE_BOX, SHAPE_SPHERE, SHAPE_CAPSULE, SHAPE_TORUS, SHAPE_KNOT, SHAPE_REAL, SHAPE_KINDS };
extern const char *const shape_names[SHAPE_KINDS];
/* The real meshes, loaded once (destroyed by the tests that end with them). */
extern glcollide_mesh *real_meshes[5];

/* A closed solid of about size s: convex (box, sphere, capsule) or concave
 * (torus, knot, real mesh; bunny00 only when allow_large). */
glcollide_mesh *make_shape(test_rng *rng, int kind, double s, int allow_large);
/* Two solids: the first at the origin, the second at a random direction
 * and a distance that makes about half of the pairs touch. */
test_scene *random_pair(uint64_t seed, int kinds[2]);
int concave(int kind);

/* Object 0 a closed box at the origin, object 1 the same box without its
 * last two triangles ("open box"), 0.3 along x: the errors' scene. */
test_scene *box_and_open_box(void);

/* A world of scene's meshes (borrowed) and objects; the scene's poses are
 * then set to the world's (normalised), so that both hold the same poses. */
glcollide_world *world_of_scene(test_scene *scene);
/* The exact method on world (objects 0 and 1): do they touch, or come
 * within distance? */
int world_exact(glcollide_world *world, double distance);
/* The scenes of the one-shape tests: kind 0 random_pair (generated and
 * real meshes, about half touching), 1 and 2 nested (containment, each
 * order), 3 disjoint with nested boxes. */
test_scene *shape_scene(int kind, uint64_t seed);
extern const char *const scene_kinds[4];
glcollide_myszkowski_options shape_options(int resolution);
/* The fields of a result that describe the answer and its view, and maps,
 * the same in x and y (what names the case in the failure). */
void require_same_result(const glcollide_myszkowski_result *x, const glcollide_myszkowski_result *y,
                         const char *what);
void require_same_map(const glcollide_myszkowski_map *x, const glcollide_myszkowski_map *y,
                      const char *what);

#endif
