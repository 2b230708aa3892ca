/* SPDX-License-Identifier: MIT */
/*
 * Every contact of a run hashed bit for bit (FNV-1a), so that runs with
 * different thread counts, or before and after a change, can be compared by
 * one number. Geoms are hashed by their data pointer, which the program sets
 * to a number of its own (the same in every run). Shared by the demos and
 * the tests.
 */
#ifndef GLCOLLIDE_CONTACT_HASH_H
#define GLCOLLIDE_CONTACT_HASH_H

#include <ode/ode.h>

#include <stddef.h>
#include <stdint.h>

#define CONTACT_HASH_START 0xcbf29ce484222325ULL

static inline uint64_t contact_hash_bytes(uint64_t h, const void *data, size_t size)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* h with contact c added: geoms (their data), position, normal, depth, sides. */
static inline uint64_t contact_hash_add(uint64_t h, const dContactGeom *c)
{
    intptr_t ids[2] = {(intptr_t)dGeomGetData(c->g1), (intptr_t)dGeomGetData(c->g2)};
    int sides[2] = {c->side1, c->side2};
    h = contact_hash_bytes(h, ids, sizeof ids);
    h = contact_hash_bytes(h, c->pos, 3 * sizeof c->pos[0]);
    h = contact_hash_bytes(h, c->normal, 3 * sizeof c->normal[0]);
    h = contact_hash_bytes(h, &c->depth, sizeof c->depth);
    return contact_hash_bytes(h, sides, sizeof sides);
}

#endif
