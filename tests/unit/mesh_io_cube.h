/* SPDX-License-Identifier: MIT */
/*
 * The cube every mesh loader test reads (the same solid in OFF, OBJ and both
 * STL forms, numbered so that STL welding gives the same vertex order) and
 * the checks on it, shared by test_mesh_io*.c.
 */
#ifndef GLCOLLIDE_TEST_MESH_IO_CUBE_H
#define GLCOLLIDE_TEST_MESH_IO_CUBE_H

#include <glcollide/glcollide.h>

#include <stddef.h>
#include <stdint.h>

/* 1 when run under valgrind (timings are then meaningless). */
int under_valgrind(void);

/* A cube of side 2: 8 vertices, 12 outward triangles, and as an OFF text. */
extern const double cube_positions[8 * 3];
extern const uint32_t cube_triangles[12 * 3];
extern const char cube_off[];

/* Fails the test unless mesh is exactly that cube (arrays bit for bit, closed, volume 8). */
void assert_cube(const glcollide_mesh *mesh);
/* The cube as ASCII STL with "lower" or "upper" case keywords; the caller frees. */
char *cube_ascii_stl(const char *keyword_case_sample);
/* Little-endian stores of binary STL. */
void put_le32(unsigned char *p, uint32_t v);
void put_le_float(unsigned char *p, float f);
/* Binary STL of the cube, 84 + 50 * 12 bytes; header as given (padded with zeros). */
unsigned char *cube_binary_stl(const char *header, size_t *size);
/* Parses text, failing the test on any error or message; the caller destroys the mesh. */
glcollide_mesh *parse_ok(const char *text, size_t size, glcollide_mesh_format format,
                         const char *name);

#endif
