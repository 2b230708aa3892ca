/* SPDX-License-Identifier: MIT */
/*
 * The trimesh-trimesh collider: candidates from the two captures' BVHs
 * (geom.c) traversed with the pair's relative placement, or this step's
 * GPU candidates (space.c), then glcollide's contact regions.
 *
 * A pair of trimesh geoms is traversed with the relative placement of the
 * two (oriented box tests), so a rigid motion costs nothing per geom: no
 * world copy of the mesh, no refit. Only the candidate triangles are then
 * brought into world space, once each, for the exact tests and contacts.
 */
#include "plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Room for a mesh of triangle_count triangles and count slots. */
static int side_reserve(plugin_side *side, size_t triangle_count, size_t count)
{
    if (triangle_count > side->map_capacity) {
        size_t words = (triangle_count + 63) / 64, old_words = (side->map_capacity + 63) / 64;
        uint32_t *slot = realloc(side->slot, triangle_count * sizeof *slot);
        if (slot)
            side->slot = slot;
        uint64_t *marks = realloc(side->marks, words * sizeof *marks);
        if (marks)
            side->marks = marks;
        if (!slot || !marks)
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        memset(side->marks + old_words, 0, (words - old_words) * sizeof *marks);
        side->map_capacity = triangle_count;
    }
    return plugin_reserve((void **)&side->positions, &side->positions_capacity, 9 * count,
                          sizeof *side->positions) ||
                   plugin_reserve((void **)&side->triangles, &side->triangles_capacity, 3 * count,
                                  sizeof *side->triangles) ||
                   plugin_reserve((void **)&side->ids, &side->ids_capacity, count,
                                  sizeof *side->ids)
               ? GLCOLLIDE_ERROR_OUT_OF_MEMORY
               : GLCOLLIDE_OK;
}

/* Notes mesh triangle t as used on a side. */
static inline void side_mark(plugin_side *side, uint32_t t)
{
    side->marks[t / 64] |= (uint64_t)1 << (t % 64);
}

/* The side's marked triangles in increasing order, into ids (a scan of the
 * bit set, one word per 64 triangles: no sort, and the marks are left
 * cleared for the next call). */
static void side_order(plugin_side *side, size_t triangle_count)
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

/*
 * Gives the marked triangles their slots in increasing triangle order (so the
 * contact generator's ties, broken by triangle index, fall as they would on
 * the whole mesh, whatever order the candidates came in) and brings them into
 * world space.
 */
static void side_place(plugin_side *side, const glcollide_mesh *mesh,
                       const glcollide_object *object)
{
    side_order(side, mesh->triangle_count);
    double m[9];
    glcollide_object_rotation_matrix(object, m);
    const double *t0 = object->translation;
    const uint32_t *ids = side->ids;
    for (uint32_t s = 0; s < (uint32_t)side->used; s++) {
        uint32_t t = ids[s];
        /* The mesh is read at scattered places: ask for the triangles a few
         * slots ahead (their indices, then their vertices) early. */
        if (s + 16 < side->used)
            __builtin_prefetch(mesh->triangles + 3 * (size_t)ids[s + 16]);
        if (s + 8 < side->used) {
            const uint32_t *ahead = mesh->triangles + 3 * (size_t)ids[s + 8];
            for (int c = 0; c < 3; c++)
                __builtin_prefetch(mesh->positions + 3 * (size_t)ahead[c]);
        }
        side->slot[t] = s;
        for (int c = 0; c < 3; c++) {
            const double *p = mesh->positions + 3 * (size_t)mesh->triangles[3 * (size_t)t + c];
            double *out = side->positions + 9 * (size_t)s + 3 * c;
            /* as glcollide_object_transform_points, with the matrix made once */
            for (int r = 0; r < 3; r++)
                out[r] = m[3 * r] * p[0] + m[3 * r + 1] * p[1] + m[3 * r + 2] * p[2] + t0[r];
            side->triangles[3 * s + c] = 3 * s + (uint32_t)c;
        }
    }
}

/*
 * Gathers the candidate triangles of both meshes into the sides (each
 * triangle once) and renumbers the candidates to slots, in
 * t->local_candidates. Errors: OUT_OF_MEMORY.
 */
static int gather_sides(plugin_thread *t, const glcollide_mesh *ma, const glcollide_object *oa,
                        const glcollide_mesh *mb, const glcollide_object *ob,
                        const glcollide_index_pair *candidates, size_t count)
{
    plugin_side *sides = t->sides;
    if (side_reserve(&sides[0], ma->triangle_count, count) ||
        side_reserve(&sides[1], mb->triangle_count, count) ||
        plugin_reserve((void **)&t->local_candidates, &t->local_candidate_capacity, count,
                       sizeof *t->local_candidates))
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < count; i++) {
        side_mark(&sides[0], candidates[i].a);
        side_mark(&sides[1], candidates[i].b);
    }
    side_place(&sides[0], ma, oa);
    side_place(&sides[1], mb, ob);
    for (size_t i = 0; i < count; i++) {
        t->local_candidates[i].a = sides[0].slot[candidates[i].a];
        t->local_candidates[i].b = sides[1].slot[candidates[i].b];
    }
    return GLCOLLIDE_OK;
}

/*
 * This step's GPU candidates for (o1, o2): only while both geoms have the
 * captures (generations) and transforms they were culled with, so that a
 * changed mesh, data or placement can never reuse them.
 */
static const plugin_step_pair *step_pair(const plugin_step_cache *cache, dGeomID o1,
                                         const plugin_mesh *m1, dGeomID o2, const plugin_mesh *m2)
{
    int swapped = o1 > o2;
    dGeomID a = swapped ? o2 : o1, b = swapped ? o1 : o2;
    uint64_t generation_a = swapped ? m2->generation : m1->generation;
    uint64_t generation_b = swapped ? m1->generation : m2->generation;
    const plugin_step_pair *p = plugin_step_find(cache, a, b);
    if (!p || p->generation_a != generation_a || p->generation_b != generation_b)
        return NULL;
    dReal ta[7], tb[7];
    plugin_geom_transform(a, ta);
    plugin_geom_transform(b, tb);
    return memcmp(ta, p->transform_a, sizeof ta) == 0 && memcmp(tb, p->transform_b, sizeof tb) == 0
               ? p
               : NULL;
}

typedef struct candidate_list {
    glcollide_index_pair *pairs;
    size_t count, capacity;
    int status;
} candidate_list;

static int add_candidate(uint32_t a, uint32_t b, void *user)
{
    candidate_list *list = user;
    list->status = plugin_reserve((void **)&list->pairs, &list->capacity, list->count + 1,
                                  sizeof *list->pairs);
    if (list->status != GLCOLLIDE_OK)
        return 1;
    list->pairs[list->count++] = (glcollide_index_pair){a, b};
    return 0;
}

int plugin_trimesh_collide(dGeomID o1, dGeomID o2, int flags, dContactGeom *contact, int skip)
{
    size_t max_contacts = (size_t)(flags & 0xffff);
    plugin_thread *t = max_contacts ? plugin_thread_get() : NULL;
    if (!t)
        return 0;
    const plugin_mesh *da = plugin_geom_mesh(t, o1), *db = plugin_geom_mesh(t, o2);
    if (!da || !db)
        return 0;
    const glcollide_mesh *ma = da->mesh, *mb = db->mesh;
    glcollide_object oa = plugin_geom_object(o1), ob = plugin_geom_object(o2);
    unsigned long long start = plugin_now_ns();

    /* Candidates: this step's GPU culling, else a CPU BVH over both; the list
     * lives in the thread's state so that a warm step allocates nothing. */
    candidate_list cpu = {t->candidates, 0, t->candidate_capacity, GLCOLLIDE_OK};
    const glcollide_index_pair *candidates = NULL;
    size_t candidate_count = 0;
    int swapped = o1 > o2;
    const plugin_step_pair *cached = step_pair(&t->step, o1, da, o2, db);
    if (cached && !swapped) {
        candidates = t->step.candidates + cached->first;
        candidate_count = cached->count;
    } else {
        if (cached) { /* stored as (lower geom, higher geom): swap each pair */
            for (size_t i = 0; i < cached->count; i++) {
                const glcollide_index_pair *p = &t->step.candidates[cached->first + i];
                add_candidate(p->b, p->a, &cpu);
            }
        } else {
            glcollide_bvh_overlap_objects(da->bvh, &oa, db->bvh, &ob, 0.0, add_candidate, &cpu);
        }
        candidates = cpu.pairs;
        candidate_count = cpu.count;
    }

    /* Only the candidate triangles go to world space, each once. */
    size_t count = 0;
    if ((t->contact_scratch ||
         glcollide_contact_scratch_create(&t->contact_scratch) == GLCOLLIDE_OK) &&
        gather_sides(t, ma, &oa, mb, &ob, candidates, candidate_count) == GLCOLLIDE_OK &&
        plugin_reserve((void **)&t->contacts, &t->contact_capacity, max_contacts,
                       sizeof *t->contacts) == GLCOLLIDE_OK)
        glcollide_contacts_generate_with(t->sides[0].positions, t->sides[0].triangles,
                                         t->sides[1].positions, t->sides[1].triangles,
                                         t->local_candidates, candidate_count, t->contacts,
                                         max_contacts, &count, NULL, t->contact_scratch);
    t->candidates = cpu.pairs;
    t->candidate_capacity = cpu.capacity;
    /* No surfaces meet: one solid may lie inside the other. The exact test
     * runs where its one vertex can be inside (plugin_may_contain), or where
     * this step's stencil pass saw the two interfere (it may also catch what
     * that test passes; a pair it did not flag is still tested: at finite
     * resolution it can miss a contained solid). */
    int contained = 0;
    if (count == 0 && t->contacts && (da->closed || db->closed) &&
        ((cached && cached->interfering) || plugin_may_contain(da, &oa, db, &ob) ||
         plugin_may_contain(db, &ob, da, &oa))) {
        glcollide_contact_solid sa = {ma->positions,      ma->triangles, ma->vertex_count,
                                      ma->triangle_count, da->bvh,       oa,
                                      da->closed};
        glcollide_contact_solid sb = {mb->positions,      mb->triangles, mb->vertex_count,
                                      mb->triangle_count, db->bvh,       ob,
                                      db->closed};
        glcollide_contacts_containment(&sa, &sb, NULL, t->contacts, max_contacts, &count);
        contained = count > 0;
    }
    if (cached && cached->stencil)
        plugin_stencil_agreement(cached->interfering, count > 0);
    /* Touching contacts get a depth of 1e-12 of the meshes' size, never
     * exactly 0: ODE's dWorldStep (Dantzig LCP) gives up with "LCP internal
     * error, s <= 0" and drops the remaining constraint forces when a
     * zero-depth contact joins bodies moving at exactly the same velocity, as
     * in a stack placed exactly face to face. */
    double size = 0.0;
    for (int k = 0; k < 3; k++)
        size = fmax(size, fmax(da->bounds.max[k] - da->bounds.min[k],
                               db->bounds.max[k] - db->bounds.min[k]));
    double least_depth = 1e-12 * size;
    for (size_t i = 0; i < count; i++) {
        const glcollide_contact *c = &t->contacts[i];
        dContactGeom *out = plugin_contact_out(contact, skip, i, c, least_depth, o1, o2);
        out->side1 = (int)(contained ? c->triangle_a : t->sides[0].ids[c->triangle_a]);
        out->side2 = (int)(contained ? c->triangle_b : t->sides[1].ids[c->triangle_b]);
    }
    plugin_counters *counters = &plugin.counters;
    plugin_count(&counters->trimesh_collides, 1);
    plugin_count(&counters->candidates, candidate_count);
    plugin_count(&counters->contacts, count);
    plugin_count(&counters->contained, (unsigned long long)contained);
    plugin_count(&counters->contact_ns, plugin_now_ns() - start);
    return (int)count;
}
