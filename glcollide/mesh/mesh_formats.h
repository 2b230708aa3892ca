/* SPDX-License-Identifier: MIT */
/* Private: the mesh file formats' parsers, which mesh_io.c dispatches to. */
#ifndef GLCOLLIDE_MESH_FORMATS_H
#define GLCOLLIDE_MESH_FORMATS_H

#include "mesh/mesh_internal.h"

#include <stddef.h>

/* ---------------------------------------------------------------- formats */

/* Each parses a whole buffer; name is the path in messages. scale is checked by the caller. */
int glcollide_mesh_parse_off(const char *data, size_t size, const char *name, double scale,
                             glcollide_mesh **out);
int glcollide_mesh_parse_obj(const char *data, size_t size, const char *name, double scale,
                             glcollide_mesh **out);
int glcollide_mesh_parse_stl(const char *data, size_t size, const char *name, double scale,
                             glcollide_mesh **out);

/* 1 when data has exactly the size a binary STL with its header's triangle count has. */
int glcollide_stl_size_matches(const unsigned char *data, size_t size);

#endif /* GLCOLLIDE_MESH_FORMATS_H */
