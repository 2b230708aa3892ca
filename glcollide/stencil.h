/* SPDX-License-Identifier: MIT */
/*
 * Private: Knott's stencil ray-casting interference detection (CInDeR).
 * See stencil.c; the public entry is glcollide_stencil_run.
 */
#ifndef GLCOLLIDE_STENCIL_H
#define GLCOLLIDE_STENCIL_H

#include "gl_internal.h"
#include "world.h"

/* Runs the method on a world built by the caller (positions, bounds). */
int glcollide_stencil_world(const glcollide_world_space *world, glcollide_context *context,
                            const glcollide_stencil_options *options,
                            glcollide_stencil_result *result);


#endif
