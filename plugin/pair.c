/* SPDX-License-Identifier: MIT */
/*
 * One collider call in three parts, so that the middle one can run on any
 * thread: reading the pair from ODE (on the calling thread: ODE's getters may
 * update a geom's cached placement), computing its contacts (trimesh.c,
 * primitive.c: glcollide only, with a scratch of the caller's), and writing
 * what a buffer of max_contacts gets into ODE's (on the calling thread).
 *
 * The contacts are computed ranked (glcollide_contact_options.ranked): any
 * buffer's answer is glcollide_contacts_select of the first max_contacts of
 * them. So a step's answers computed ahead (ahead.c) at one size serve each
 * dCollide call whatever buffer it brings, with exactly the contacts, order
 * and bits that computing it there would give; and a call that finds none
 * computes at its own size through the same path.
 */
#include "plugin.h"

#include <math.h>
#include <string.h>

/* One trimesh of a pair: its capture (NULL: none, logged), transform, pose. */
static const plugin_mesh *read_trimesh(plugin_thread *t, dGeomID g, uint64_t *generation,
                                       dReal transform[7], glcollide_pose *pose)
{
    const plugin_mesh *m = plugin_geom_mesh(t, g);
    if (!m)
        return NULL;
    *generation = m->generation;
    plugin_geom_transform(g, transform);
    *pose = plugin_transform_pose(transform);
    return m;
}

int plugin_pair_read(plugin_thread *t, int kind, dGeomID g1, dGeomID g2, plugin_pair *pair)
{
    memset(pair, 0, sizeof *pair);
    pair->kind = kind;
    pair->g1 = g1;
    pair->g2 = g2;
    pair->m1 = read_trimesh(t, g1, &pair->generation1, pair->transform1, &pair->pose1);
    if (!pair->m1)
        return 0;
    if (kind == PLUGIN_PAIR_PRIMITIVE)
        return plugin_primitive_of(g2, &pair->primitive);
    pair->m2 = read_trimesh(t, g2, &pair->generation2, pair->transform2, &pair->pose2);
    if (!pair->m2)
        return 0;
    /* This step's GPU candidates, kept by the lower geom first: only while
     * both geoms have the captures and transforms they were culled with. */
    int swapped = plugin_step_swapped(g1, g2);
    const plugin_step_pair *p = plugin_step_find(&t->step, swapped ? g2 : g1, swapped ? g1 : g2);
    if (p && p->generation_a == (swapped ? pair->generation2 : pair->generation1) &&
        p->generation_b == (swapped ? pair->generation1 : pair->generation2) &&
        memcmp(p->transform_a, swapped ? pair->transform2 : pair->transform1,
               sizeof p->transform_a) == 0 &&
        memcmp(p->transform_b, swapped ? pair->transform1 : pair->transform2,
               sizeof p->transform_b) == 0) {
        pair->culled = p;
        pair->culled_candidates = t->step.candidates + p->first;
        pair->culled_index = (size_t)(p - t->step.pairs) + 1;
    }
    return 1;
}

int plugin_pair_same(const plugin_pair *a, const plugin_pair *b)
{
    return a->kind == b->kind && a->g1 == b->g1 && a->g2 == b->g2 &&
           a->generation1 == b->generation1 && a->generation2 == b->generation2 &&
           a->culled_index == b->culled_index &&
           memcmp(a->transform1, b->transform1, sizeof a->transform1) == 0 &&
           memcmp(a->transform2, b->transform2, sizeof a->transform2) == 0 &&
           memcmp(&a->primitive, &b->primitive, sizeof a->primitive) == 0;
}

int plugin_pair_contacts(plugin_scratch *s, const plugin_pair *pair, size_t max, size_t *count)
{
    *count = 0;
    if (plugin_reserve((void **)&s->contacts, &s->contact_capacity, max, sizeof *s->contacts)) {
        glcollide_log(GLCOLLIDE_LOG_ERROR, "ODE plugin: out of memory for %zu contacts", max);
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    }
    return pair->kind == PLUGIN_PAIR_TRIMESH ? plugin_trimesh_contacts(s, pair, max, count)
                                             : plugin_primitive_contacts(s, pair, max, count);
}

/* The largest extent of the pair, for the least depth a touch gets. */
static double pair_size(const plugin_pair *pair)
{
    double size = 0.0;
    for (int k = 0; k < 3; k++)
        size = fmax(size, pair->m1->bounds.max[k] - pair->m1->bounds.min[k]);
    if (pair->kind == PLUGIN_PAIR_TRIMESH)
        for (int k = 0; k < 3; k++)
            size = fmax(size, pair->m2->bounds.max[k] - pair->m2->bounds.min[k]);
    else if (pair->primitive.kind != GLCOLLIDE_PRIMITIVE_PLANE)
        for (int k = 0; k < 3; k++)
            size = fmax(size, pair->primitive.size[k]);
    return size;
}

int plugin_pair_write(const plugin_pair *pair, glcollide_contact *ranked, size_t count,
                      size_t max_contacts, dContactGeom *contact, int skip)
{
    int primitive = pair->kind == PLUGIN_PAIR_PRIMITIVE;
    size_t n = glcollide_contacts_select(ranked, count, max_contacts,
                                         primitive ? GLCOLLIDE_CONTACTS_MESH_PRIMITIVE
                                                   : GLCOLLIDE_CONTACTS_MESH_MESH);
    /* Touching contacts get a depth of 1e-12 of the pair's size, never
     * exactly 0: ODE's dWorldStep (Dantzig LCP) gives up with "LCP internal
     * error, s <= 0" and drops the remaining constraint forces when a
     * zero-depth contact joins bodies moving at exactly the same velocity, as
     * in a stack placed exactly face to face. */
    double least_depth = 1e-12 * pair_size(pair);
    for (size_t i = 0; i < n; i++) {
        dContactGeom *out =
            plugin_contact_out(contact, skip, i, &ranked[i], least_depth, pair->g1, pair->g2);
        out->side1 = (int)ranked[i].triangle_a;
        out->side2 = primitive ? -1 : (int)ranked[i].triangle_b;
    }
    return (int)n;
}

/* A collider call: the answer computed ahead when there is one for the pair
 * as it is now, else computed here at the caller's size. */
int plugin_pair_collide(int kind, dGeomID g1, dGeomID g2, int flags, dContactGeom *contact,
                        int skip)
{
    size_t max_contacts = (size_t)(flags & 0xffff);
    plugin_thread *t = max_contacts ? plugin_thread_get() : NULL;
    plugin_pair pair;
    if (!t || !plugin_pair_read(t, kind, g1, g2, &pair))
        return 0;
    plugin_scratch *s = &t->scratch;
    size_t count = 0;
    const plugin_answer *answer = plugin_ahead_find(t, &pair);
    if (answer) {
        count = answer->count < max_contacts ? answer->count : max_contacts;
        if (plugin_reserve((void **)&s->contacts, &s->contact_capacity, count, sizeof *s->contacts))
            return 0;
        memcpy(s->contacts, plugin_answer_contacts(t, answer), count * sizeof *s->contacts);
        plugin_count(&plugin.counters.ahead_served, 1);
    } else if (plugin_pair_contacts(s, &pair, max_contacts, &count) != GLCOLLIDE_OK) {
        count = 0;
    }
    int n = plugin_pair_write(&pair, s->contacts, count, max_contacts, contact, skip);
    plugin_counters *c = &plugin.counters;
    plugin_count(kind == PLUGIN_PAIR_TRIMESH ? &c->trimesh_collides : &c->primitive_collides, 1);
    plugin_count(kind == PLUGIN_PAIR_TRIMESH ? &c->contacts : &c->primitive_contacts,
                 (unsigned long long)n);
    return n;
}
