/* SPDX-License-Identifier: MIT */
/*
 * Private: Knott's stencil ray-casting interference detection (CInDeR).
 * See stencil.c; the public entry is glcollide_stencil_run.
 */
#ifndef GLCOLLIDE_STENCIL_H
#define GLCOLLIDE_STENCIL_H

#include "gl_internal.h"
#include "query.h"

/* Runs the method on a world built by the caller (positions, bounds). */
int glcollide_stencil_world(const glcollide_world *world, glcollide_context *context,
                            const glcollide_stencil_options *options,
                            glcollide_stencil_result *result);

/* The stencil method as a query (pairs only; samples through glcollide_stencil_run). */
int glcollide_query_stencil(const glcollide_world *world, glcollide_context *context,
                            const glcollide_query_options *options, glcollide_query_result *result);

/* Releases the programs, textures and buffers cached on the context. */
void glcollide_stencil_release(glcollide_context *context);

#endif
