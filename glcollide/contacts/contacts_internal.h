/* SPDX-License-Identifier: MIT */
/*
 * Private to the contacts layer and the ODE plugin's library side: the
 * contact generators' own scratch (the parts of a glcollide_scratch, made on
 * first use) and the array form of glcollide_contacts_generate.
 */
#ifndef GLCOLLIDE_CONTACTS_INTERNAL_H
#define GLCOLLIDE_CONTACTS_INTERNAL_H

#include "core/internal.h"

#include <glcollide/geometry.h>
#include <glcollide/primitives.h>

typedef struct glcollide_contact_scratch glcollide_contact_scratch;
int glcollide_contact_scratch_create(glcollide_contact_scratch **out);
void glcollide_contact_scratch_destroy(glcollide_contact_scratch **scratch);

typedef struct glcollide_primitive_scratch glcollide_primitive_scratch;
int glcollide_primitive_scratch_create(glcollide_primitive_scratch **out);
void glcollide_primitive_scratch_destroy(glcollide_primitive_scratch **scratch);

/* The mesh-mesh and mesh-primitive parts of scratch, made on first use (the
 * scratch then releases them); NULL with OUT_OF_MEMORY in *status. */
glcollide_contact_scratch *glcollide_scratch_contacts(glcollide_scratch *scratch, int *status);
glcollide_primitive_scratch *glcollide_scratch_primitives(glcollide_scratch *scratch, int *status);

/* glcollide_contacts_generate on arrays (world positions and triangles of
 * A and B), with the generator's own scratch (NULL: allocated within). */
int glcollide_contacts_generate_arrays(const double *positions_a, const uint32_t *triangles_a,
                                       const double *positions_b, const uint32_t *triangles_b,
                                       const glcollide_index_pair *candidates,
                                       size_t candidate_count, glcollide_contact *contacts,
                                       size_t max_contacts, size_t *count,
                                       const glcollide_contact_options *options,
                                       glcollide_contact_scratch *scratch);

/* Tests only: when set, the regions' sums are taken in one part and
 * joined regions summed afresh from their points and elements: the plain
 * sums that the parted and merged ones (the default) are checked against.
 * Not thread-safe: set it between calls. */
extern int glcollide_contacts_plain_sums;

#endif
