/* SPDX-License-Identifier: MIT */
/* Private declarations of the mesh layer (glcollide/mesh) for the layers
 * above it: meshes made from loaders' arrays, the mesh search path. */
#ifndef GLCOLLIDE_MESH_INTERNAL_H
#define GLCOLLIDE_MESH_INTERNAL_H

#include "geometry/geometry_internal.h"

/* glcollide_mesh_find_data without the message when nothing is found (IO):
 * tried receives the directories looked in, for the caller's own message.
 * Other failures (OUT_OF_MEMORY, LIMIT) are logged. */
int glcollide_mesh_find_data_quiet(const char *file_name, char *buf, size_t size, char *tried,
                                   size_t tried_size);

/*
 * Makes a mesh that takes ownership of positions and triangles (freed on
 * failure too). No checks: for loaders and generators that produce valid data.
 */
int glcollide_mesh_adopt(double *positions, size_t vertex_count, uint32_t *triangles,
                         size_t triangle_count, const char *name, glcollide_mesh **out);

#endif /* GLCOLLIDE_MESH_INTERNAL_H */
