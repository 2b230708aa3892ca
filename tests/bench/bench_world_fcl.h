/* SPDX-License-Identifier: MIT */
/* FCL's answer to bench-world's question, for tests/bench/bench_world.c built
 * as bench-world-fcl (only where configure finds FCL): the scene's meshes as
 * FCL BVHModel<OBBRSS> (one per mesh, shared by its instances), one
 * CollisionObject per object in a DynamicAABBTreeCollisionManager, and
 * fcl::collide on each of the manager's candidate pairs.
 *
 * Each frame the manager's tree is built again from all objects (its bulk
 * top-down build), or with refit by the manager's update(), which keeps the
 * tree's shape from the first frame: when every object jumps to a new random
 * pose, as here, that shape no longer fits and the broad phase slows down
 * (at 5,000 objects about 1.8x as long a frame: tests/bench/BENCHMARKS.md). */
#ifndef GLCOLLIDE_BENCH_WORLD_FCL_H
#define GLCOLLIDE_BENCH_WORLD_FCL_H

#include "helpers/test_scene.h"

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_fcl bench_fcl;

/* The scene's meshes and objects (at their current poses), the tree rebuilt
 * (refit 0) or refitted (refit 1) per frame; NULL on failure. */
bench_fcl *bench_fcl_create(const test_scene *scene, int refit);
/* Copies the scene's poses to the FCL objects (untimed, like
 * glcollide_world_set_pose). */
void bench_fcl_pose(bench_fcl *fcl, const test_scene *scene);
/* One frame: the objects' boxes, the manager's tree and its collide with
 * FCL's mesh tests; found gets the pairs (a < b) whose triangles intersect,
 * *candidates grows by the manager's candidate pairs. 0, or -1 out of
 * memory. */
int bench_fcl_collide(bench_fcl *fcl, glcollide_pair_list *found, size_t *candidates);
void bench_fcl_destroy(bench_fcl *fcl);

#ifdef __cplusplus
}
#endif

#endif
