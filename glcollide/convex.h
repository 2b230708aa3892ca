/* SPDX-License-Identifier: MIT */
/*
 * Private: Myszkowski's pairwise depth/stencil interference test as the query
 * method "convex". See myszkowski.c; the public entries are in
 * <glcollide/myszkowski.h>.
 */
#ifndef GLCOLLIDE_CONVEX_H
#define GLCOLLIDE_CONVEX_H

#include "gl_internal.h"
#include "query.h"

#include <glcollide/myszkowski.h>

/* The method as a query (method convex): the pairs of world whose boxes
 * overlap (sweep-and-prune), each tested on the GPU; stats summed. */
int glcollide_query_convex(const glcollide_world *world, glcollide_context *context,
                           const glcollide_query_options *options, glcollide_query_result *result);

#endif
