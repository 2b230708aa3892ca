/* SPDX-License-Identifier: MIT */
/*
 * Private: contacts between two meshes kept in their own space and placed by
 * poses (see posed.c), for the world's contact query.
 */
#ifndef GLCOLLIDE_CONTACTS_POSED_H
#define GLCOLLIDE_CONTACTS_POSED_H

#include "contacts/contacts_internal.h"

/* One mesh's candidate triangles in world space: slot s holds mesh triangle
 * ids[s], its corners at positions[9s..9s+8]; slot_of maps a marked mesh
 * triangle to its slot; marks (a bit per mesh triangle) are clear between
 * calls. */
typedef struct glcollide_posed_side {
    uint32_t *slot_of;
    uint64_t *marks;
    size_t map_capacity;
    double *positions;   /* 9 per slot */
    uint32_t *triangles; /* 3 per slot: 3s, 3s + 1, 3s + 2 */
    uint32_t *ids;
    size_t used, positions_capacity, triangles_capacity, ids_capacity;
} glcollide_posed_side;

/* Scratch of glcollide_posed_contacts, kept between calls (zero-initialise;
 * glcollide_posed_pair_release frees it). */
typedef struct glcollide_posed_pair {
    glcollide_posed_side sides[2];
    glcollide_index_pair *local; /* candidates renumbered to slots */
    size_t local_capacity;
    glcollide_contact_scratch *scratch;
} glcollide_posed_pair;

void glcollide_posed_pair_release(glcollide_posed_pair *pair);

/*
 * glcollide_contacts_generate_arrays (default options) between mesh a placed by
 * pose_a and mesh b placed by pose_b, from candidates naming the meshes'
 * triangles (a of a, b of b: object-space BVH output). Only the candidate
 * triangles are brought into world space, each once, as
 * glcollide_pose_transform_points places them, in increasing triangle
 * order, so the contacts are those of the whole placed meshes with the same
 * candidates; their triangle_a and triangle_b are the meshes' indices.
 * Errors: OUT_OF_MEMORY (logged), those of glcollide_contacts_generate_arrays.
 */
int glcollide_posed_contacts(glcollide_posed_pair *pair, const glcollide_mesh *a,
                             const glcollide_pose *pose_a, const glcollide_mesh *b,
                             const glcollide_pose *pose_b, const glcollide_index_pair *candidates,
                             size_t candidate_count, glcollide_contact *contacts,
                             size_t max_contacts, size_t *count);

#endif
