/* SPDX-License-Identifier: MIT */
/* Private: the entry of each query method on the world (see world.h), which
 * query.c dispatches to. result is emptied by the caller; the methods append
 * and query.c groups and sorts. */
#ifndef GLCOLLIDE_QUERY_H
#define GLCOLLIDE_QUERY_H

#include "world/world.h"

int glcollide_query_exact(glcollide_world *world, const glcollide_query_options *options,
                          glcollide_query_result *result);
/* The exact test of objects i and j of world (prepared: BVH and SOLIDS):
 * *found = their solids touch or come within distance; with all_triangles
 * every such triangle pair goes to result (else it only counts its tests). */
int glcollide_query_exact_pair(glcollide_world *world, uint32_t i, uint32_t j, double distance,
                               int all_triangles, glcollide_query_result *result, int *found);
int glcollide_query_sap(glcollide_world *world, const glcollide_query_options *options,
                        glcollide_query_result *result);

/* CULLIDE (reliable = 0) and FAR (reliable = 1) on the GPU; see query_cull.c. */
int glcollide_query_cull(glcollide_world *world, glcollide_context *context,
                         const glcollide_query_options *options, int reliable,
                         glcollide_query_result *result);

/* The stencil method (stencil.c) and Myszkowski's test (myszkowski.c). */
int glcollide_query_stencil(glcollide_world *world, glcollide_context *context,
                            const glcollide_query_options *options, glcollide_query_result *result);
int glcollide_query_convex(glcollide_world *world, glcollide_context *context,
                           const glcollide_query_options *options, glcollide_query_result *result);

#endif
