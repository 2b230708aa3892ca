/* SPDX-License-Identifier: MIT */
/* FCL's side of bench-distance (tests/bench/bench_distance.c, built as
 * bench-distance-fcl where configure finds FCL): each mesh as an FCL
 * BVHModel<OBBRSS>, two CollisionObjects posed as glcollide's objects, and
 * fcl::distance with nearest points (exact: rel_err and abs_err 0). */
#ifndef GLCOLLIDE_BENCH_DISTANCE_FCL_H
#define GLCOLLIDE_BENCH_DISTANCE_FCL_H

#include <glcollide/glcollide.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_fcl_distance bench_fcl_distance;

/* The meshes' FCL models (built here, untimed); NULL on failure. */
bench_fcl_distance *bench_fcl_distance_create(glcollide_mesh *const *meshes, size_t count);
/* Poses two objects of meshes mesh_a and mesh_b (untimed). */
void bench_fcl_distance_pose(bench_fcl_distance *fcl, const glcollide_object *a,
                             const glcollide_object *b);
/* fcl::distance of the posed objects: its min_distance, its nearest
 * points (world) in point_a and point_b. */
double bench_fcl_distance_run(bench_fcl_distance *fcl, double point_a[3], double point_b[3]);
void bench_fcl_distance_destroy(bench_fcl_distance *fcl);

#ifdef __cplusplus
}
#endif

#endif
