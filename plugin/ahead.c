/* SPDX-License-Identifier: MIT */
/*
 * A step's contacts computed ahead, on every core.
 *
 * ODE's contract is serial: the space hands each pair to the program's near
 * callback, which calls dCollide, pair after pair, on the stepping thread.
 * But the space knows every pair it is about to hand over. So before the
 * first callback, the trimesh-trimesh and trimesh-primitive pairs that
 * glcollide's colliders will serve are read from ODE (pair.c, on this
 * thread), their contacts computed on the library's workers (each task one
 * pair, with its worker's scratch, ranked so that any buffer size is served),
 * and kept for this step. A dCollide call that the callback then makes
 * finds its pair's answer when the pair is as it was read (same geoms in the
 * same argument order, captures, transforms, primitive, GPU candidates) and
 * writes it out; anything else is computed there as usual.
 *
 * The answer is the one computing it in dCollide would give, bit for bit,
 * whatever the number of threads: each pair's contacts depend on the pair
 * alone (no state is carried between pairs but scratch memory), and the
 * callbacks still come in ODE's order.
 *
 * The argument order: ODE calls an override registered for one class pair
 * (trimesh, trimesh) with its arguments reversed and flips the contacts, so
 * the collider sees dCollide(a, b) as (b, a); glcollide_ode_collide does the
 * same. A trimesh-primitive override always sees the trimesh first.
 */
#include "plugin.h"

#include <stdlib.h>
#include <string.h>

enum {
    RANKED_FIRST = 64,      /* contacts room of a first ranked computation */
    RANKED_ENOUGH = 0x10000 /* more than any dCollide asks for (16 bits of flags) */
};

int plugin_threads(void)
{
    int n = atomic_load_explicit(&plugin.threads, memory_order_relaxed);
    return n > 0 ? n : glcollide_workers_count();
}

void glcollide_ode_set_threads(int count)
{
    if (count < 0 || count > GLCOLLIDE_WORKERS_MAX) {
        glcollide_log(GLCOLLIDE_LOG_ERROR,
                      "ODE plugin: %d threads is not from 0 (the library's count) to %d: unchanged",
                      count, GLCOLLIDE_WORKERS_MAX);
        return;
    }
    atomic_store(&plugin.threads, count);
}

int glcollide_ode_threads(void)
{
    return plugin_threads();
}

void plugin_ahead_free(plugin_ahead *ahead)
{
    for (int w = 0; w < ahead->worker_count; w++)
        plugin_scratch_free(&ahead->workers[w]);
    free(ahead->workers);
    free(ahead->answers);
    free(ahead->table.slots);
    memset(ahead, 0, sizeof *ahead);
}

void plugin_ahead_reset(plugin_thread *t)
{
    plugin_ahead *ahead = &t->ahead;
    plugin_pair_table_clear(&ahead->table);
    ahead->answer_count = 0;
    t->scratch.answer_count = 0;
    for (int w = 0; w < ahead->worker_count; w++)
        ahead->workers[w].answer_count = 0;
}

static void answer_key(const void *user, uint32_t i, dGeomID *a, dGeomID *b)
{
    const plugin_answer *answer = &((const plugin_ahead *)user)->answers[i];
    *a = answer->pair.g1;
    *b = answer->pair.g2;
}

const plugin_answer *plugin_ahead_find(const plugin_thread *t, const plugin_pair *pair)
{
    const plugin_ahead *ahead = &t->ahead;
    uint32_t i = plugin_pair_table_find(&ahead->table, pair->g1, pair->g2, answer_key, ahead);
    if (i == UINT32_MAX)
        return NULL;
    const plugin_answer *answer = &ahead->answers[i];
    return answer->status == GLCOLLIDE_OK && plugin_pair_same(&answer->pair, pair) ? answer : NULL;
}

/* The kind of pair k for glcollide's colliders, with the geoms in the order
 * the collider will see them; 0 for a pair they do not serve. */
static int pair_kind(const plugin_space_buffers *buffers, size_t k, dGeomID *g1, dGeomID *g2)
{
    uint32_t i = buffers->pairs.pairs[k].a, j = buffers->pairs.pairs[k].b;
    const plugin_geom_info *a = &buffers->info[i], *b = &buffers->info[j];
    dGeomID ga = buffers->geoms[i], gb = buffers->geoms[j];
    if (!buffers->keep[k] || a->user_class || b->user_class || dGeomIsSpace(ga) ||
        dGeomIsSpace(gb))
        return 0;
    if (a->trimesh && b->trimesh) {
        *g1 = gb; /* ODE reverses a same-class override's arguments */
        *g2 = ga;
        return PLUGIN_PAIR_TRIMESH;
    }
    if (a->trimesh != b->trimesh) {
        *g1 = a->trimesh ? ga : gb;
        *g2 = a->trimesh ? gb : ga;
        return plugin_primitive_served(*g1, *g2) ? PLUGIN_PAIR_PRIMITIVE : 0;
    }
    return 0;
}

typedef struct ahead_job {
    plugin_thread *t;
    size_t first; /* the job's first answer */
} ahead_job;

/* Task: one pair's ranked contacts, with room enough that the list is
 * whole (or longer than any buffer), appended to the worker's answers. */
static void compute_answer(void *user, size_t index, int worker)
{
    const ahead_job *job = user;
    plugin_answer *answer = &job->t->ahead.answers[job->first + index];
    plugin_scratch *s = plugin_ahead_scratch(job->t, worker);
    size_t max = s->ranked_max ? s->ranked_max : RANKED_FIRST, count = 0;
    /* The pairs are what is shared out: a pair's own work (its descent, its
     * triangle tests) would find the workers busy and run here anyway, and
     * its split form only costs memory then. The answer is the same. */
    s->threads = 1;
    for (;;) {
        answer->status = plugin_pair_contacts(s, &answer->pair, max, &count);
        if (answer->status != GLCOLLIDE_OK || count < max || max >= RANKED_ENOUGH)
            break;
        max *= 4; /* the list may have been cut: again with room */
    }
    s->threads = 0;
    if (max > s->ranked_max)
        s->ranked_max = max;
    if (answer->status != GLCOLLIDE_OK)
        return;
    if (plugin_reserve((void **)&s->answers, &s->answer_capacity, s->answer_count + count,
                       sizeof *s->answers)) {
        answer->status = GLCOLLIDE_ERROR_OUT_OF_MEMORY; /* dCollide computes it itself */
        return;
    }
    memcpy(s->answers + s->answer_count, s->contacts, count * sizeof *s->answers);
    answer->worker = worker;
    answer->first = s->answer_count;
    answer->count = count;
    s->answer_count += count;
}

/* Scratch for every worker a job of threads may use but the caller, which
 * uses its own (plugin_ahead_scratch). */
static int reserve_workers(plugin_ahead *ahead, int threads)
{
    int others = threads - 1;
    if (others <= ahead->worker_count)
        return GLCOLLIDE_OK;
    plugin_scratch *workers = realloc(ahead->workers, (size_t)others * sizeof *workers);
    if (!workers)
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    memset(workers + ahead->worker_count, 0,
           (size_t)(others - ahead->worker_count) * sizeof *workers);
    ahead->workers = workers;
    ahead->worker_count = others;
    return GLCOLLIDE_OK;
}

void plugin_ahead_compute(plugin_thread *t, const plugin_space_buffers *buffers)
{
    int threads = plugin_threads();
    if (threads <= 1 || atomic_load(&plugin.users) == 0)
        return; /* dCollide computes each pair itself, as without workers */
    plugin_ahead *ahead = &t->ahead;
    size_t first = ahead->answer_count;
    for (size_t k = 0; k < buffers->pairs.count; k++) {
        dGeomID g1, g2;
        int kind = pair_kind(buffers, k, &g1, &g2);
        if (!kind || plugin_reserve((void **)&ahead->answers, &ahead->answer_capacity,
                                    ahead->answer_count + 1, sizeof *ahead->answers))
            continue;
        plugin_answer *answer = &ahead->answers[ahead->answer_count];
        if (plugin_pair_read(t, kind, g1, g2, &answer->pair))
            ahead->answer_count++;
    }
    size_t count = ahead->answer_count - first;
    if (count < 2 || reserve_workers(ahead, threads) != GLCOLLIDE_OK) {
        ahead->answer_count = first; /* one pair gains nothing from it */
        return;
    }
    ahead_job job = {t, first};
    glcollide_workers_run(count, threads, compute_answer, &job);
    for (size_t i = first; i < ahead->answer_count; i++)
        if (ahead->answers[i].status == GLCOLLIDE_OK &&
            plugin_pair_table_add(&ahead->table, ahead->answers[i].pair.g1,
                                  ahead->answers[i].pair.g2, (uint32_t)i, answer_key,
                                  ahead) != GLCOLLIDE_OK)
            ahead->answers[i].status = GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    plugin_count(&plugin.counters.ahead_pairs, count);
}
