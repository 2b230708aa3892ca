/* SPDX-License-Identifier: MIT */
/*
 * Private: Knott's stencil ray-casting interference detection (CInDeR).
 * See stencil.c; the public entry is glcollide_stencil_run.
 */
#ifndef GLCOLLIDE_STENCIL_H
#define GLCOLLIDE_STENCIL_H

#include "gpu/gl_internal.h"
#include "world/world.h"

/* Runs the method on a world: its meshes uploaded once (again by the range
 * a deformation rewrote), a pose record per object per frame; whether each
 * mesh is a closed solid and passes through itself is kept by the world. */
int glcollide_stencil_world(glcollide_world *world, glcollide_context *context,
                            const glcollide_stencil_options *options,
                            glcollide_stencil_result *result);

#endif
