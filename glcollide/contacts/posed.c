/* SPDX-License-Identifier: MIT */
/*
 * Contacts of two posed meshes without a world copy of either: the
 * object-space BVHs give candidate triangle pairs for the pair's placement,
 * and only the candidate triangles are brought into world space, once each,
 * for the exact tests and contact regions. A pair of 75,000-triangle meshes
 * touching over a small patch places a few hundred triangles, not 150,000
 * vertices.
 *
 * Slots follow increasing triangle index (a bit set per mesh, scanned a word
 * at a time, no sort), so the contact generator, which breaks its ties by
 * triangle index, answers as it would on the whole placed meshes whatever
 * order the candidates came in. Everything is kept in the pair's scratch:
 * a warm call allocates nothing.
 */
#include "contacts/posed.h"

#include "geometry/geometry_internal.h"

#include <stdlib.h>
#include <string.h>

static void side_release(glcollide_posed_side *side)
{
    free(side->slot_of);
    free(side->marks);
    free(side->positions);
    free(side->triangles);
    free(side->ids);
    memset(side, 0, sizeof *side);
}

void glcollide_posed_pair_release(glcollide_posed_pair *pair)
{
    if (!pair)
        return;
    for (int i = 0; i < 2; i++)
        side_release(&pair->sides[i]);
    free(pair->local);
    glcollide_contact_scratch_destroy(&pair->scratch);
    memset(pair, 0, sizeof *pair);
}

/* Room for a mesh of triangle_count triangles and count slots. */
static int side_reserve(glcollide_posed_side *side, size_t triangle_count, size_t count)
{
    if (triangle_count > side->map_capacity) {
        size_t words = (triangle_count + 63) / 64, old_words = (side->map_capacity + 63) / 64;
        uint32_t *slot_of = glcollide_realloc_array(side->slot_of, triangle_count, sizeof *slot_of);
        if (slot_of)
            side->slot_of = slot_of;
        uint64_t *marks = glcollide_realloc_array(side->marks, words, sizeof *marks);
        if (marks)
            side->marks = marks;
        if (!slot_of || !marks)
            return glcollide_fail(GLCOLLIDE_ERROR_OUT_OF_MEMORY,
                                  "contacts: out of memory for a mesh of %zu triangles",
                                  triangle_count);
        memset(side->marks + old_words, 0, (words - old_words) * sizeof *marks);
        side->map_capacity = triangle_count;
    }
    int status = glcollide_array_reserve((void **)&side->positions, &side->positions_capacity,
                                         9 * count, sizeof *side->positions, "contacts");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&side->triangles, &side->triangles_capacity,
                                         3 * count, sizeof *side->triangles, "contacts");
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&side->ids, &side->ids_capacity, count,
                                         sizeof *side->ids, "contacts");
    return status;
}

/* The marked triangles in increasing order into ids, the marks cleared. */
static void side_order(glcollide_posed_side *side, size_t triangle_count)
{
    size_t n = 0;
    for (size_t w = 0; w < (triangle_count + 63) / 64; w++) {
        uint64_t bits = side->marks[w];
        if (!bits)
            continue;
        side->marks[w] = 0;
        do {
            side->ids[n++] = (uint32_t)(64 * w + (size_t)__builtin_ctzll(bits));
            bits &= bits - 1;
        } while (bits);
    }
    side->used = n;
}

/* Gives the marked triangles their slots and their world corners. */
static void side_place(glcollide_posed_side *side, const glcollide_mesh *mesh,
                       const glcollide_pose *pose)
{
    side_order(side, mesh->triangle_count);
    double m[9];
    glcollide_pose_rotation_matrix(pose, m);
    for (uint32_t s = 0; s < (uint32_t)side->used; s++) {
        uint32_t t = side->ids[s];
        side->slot_of[t] = s;
        for (int c = 0; c < 3; c++) {
            const double *p = mesh->positions + 3 * (size_t)mesh->triangles[3 * (size_t)t + c];
            glcollide_place_point(pose, m, p, side->positions + 9 * (size_t)s + 3 * c);
            side->triangles[3 * s + c] = 3 * s + (uint32_t)c;
        }
    }
}

int glcollide_posed_contacts(glcollide_posed_pair *pair, const glcollide_mesh *a,
                             const glcollide_pose *pose_a, const glcollide_mesh *b,
                             const glcollide_pose *pose_b, const glcollide_index_pair *candidates,
                             size_t candidate_count, glcollide_contact *contacts,
                             size_t max_contacts, size_t *count)
{
    *count = 0;
    glcollide_posed_side *sides = pair->sides;
    int status = side_reserve(&sides[0], a->triangle_count, candidate_count);
    if (status == GLCOLLIDE_OK)
        status = side_reserve(&sides[1], b->triangle_count, candidate_count);
    if (status == GLCOLLIDE_OK)
        status = glcollide_array_reserve((void **)&pair->local, &pair->local_capacity,
                                         candidate_count, sizeof *pair->local, "contacts");
    if (status == GLCOLLIDE_OK && !pair->scratch)
        status = glcollide_contact_scratch_create(&pair->scratch);
    if (status != GLCOLLIDE_OK)
        return status;
    for (size_t i = 0; i < candidate_count; i++) {
        uint32_t ta = candidates[i].a, tb = candidates[i].b;
        sides[0].marks[ta / 64] |= (uint64_t)1 << (ta % 64);
        sides[1].marks[tb / 64] |= (uint64_t)1 << (tb % 64);
    }
    side_place(&sides[0], a, pose_a);
    side_place(&sides[1], b, pose_b);
    for (size_t i = 0; i < candidate_count; i++)
        pair->local[i] = (glcollide_index_pair){sides[0].slot_of[candidates[i].a],
                                                sides[1].slot_of[candidates[i].b]};
    status = glcollide_contacts_generate_arrays(
        sides[0].positions, sides[0].triangles, sides[1].positions, sides[1].triangles, pair->local,
        candidate_count, contacts, max_contacts, count, NULL, pair->scratch);
    for (size_t i = 0; i < *count; i++) {
        contacts[i].triangle_a = sides[0].ids[contacts[i].triangle_a];
        contacts[i].triangle_b = sides[1].ids[contacts[i].triangle_b];
    }
    return status;
}
