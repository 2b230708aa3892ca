/* SPDX-License-Identifier: MIT */
/*
 * The plugin's shared state (plugin.h's plugin_shared: registry, modes,
 * counters), each thread's buffers, and the small helpers every part uses
 * (the clock, growth of kept arrays). The bottom of the plugin: it calls
 * none of the other parts.
 *
 * A thread's buffers are made on its first step and freed when it ends (a
 * thread key's destructor), or at the last glcollide_ode_shutdown for the
 * thread calling it.
 */
#define _GNU_SOURCE /* dladdr */
#include "plugin.h"

#include <dlfcn.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

plugin_shared plugin = {.lock = PTHREAD_MUTEX_INITIALIZER,
                        .gpu_lock = PTHREAD_MUTEX_INITIALIZER,
                        .gpu_mode = GLCOLLIDE_ODE_GPU_AUTO,
                        .primitives = 1,
                        .stencil_resolution = 0};

unsigned long long plugin_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* glcollide_array_reserve's contract (the library's copy is hidden from
 * the plugin): at least count items, doubling from 16, the doubling never
 * past SIZE_MAX; OUT_OF_MEMORY and the array as it was on failure. It logs
 * nothing: each caller decides what a failure means (most do less work). */
int plugin_grow(void **array, size_t *capacity, size_t count, size_t size)
{
    if (count <= *capacity)
        return GLCOLLIDE_OK;
    size_t grown = *capacity ? *capacity : 16;
    while (grown < count)
        grown = grown > SIZE_MAX / 2 ? count : 2 * grown;
    void *bigger = size && grown > SIZE_MAX / size ? NULL : realloc(*array, grown * size);
    if (!bigger)
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    *array = bigger;
    *capacity = grown;
    return GLCOLLIDE_OK;
}

/* ------------------------------------------------------------- ODE's own */

static plugin_collide2_fn *ode_collide2;
static pthread_once_t ode_collide2_once = PTHREAD_ONCE_INIT;

/* dSpaceCollide2 as libode defines it: looked up in the library that
 * defines dCreatePlane (which nothing interposes), else the name as linked. */
static void find_ode_collide2(void)
{
    Dl_info info;
    void *library = NULL;
    if (dladdr((void *)dCreatePlane, &info) && info.dli_fname)
        library = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (library)
        ode_collide2 = (plugin_collide2_fn *)dlsym(library, "dSpaceCollide2");
    if (!ode_collide2)
        ode_collide2 = dSpaceCollide2;
    /* the reference is kept: libode stays loaded while the plugin is */
}

plugin_collide2_fn *plugin_ode_space_collide2(void)
{
    pthread_once(&ode_collide2_once, find_ode_collide2);
    return ode_collide2;
}

/* ------------------------------------------------------------- pair tables */

/* Slot of a pair in a table of size (a power of two). */
static size_t pair_slot(dGeomID a, dGeomID b, size_t size)
{
    uint64_t key = (uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)b;
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (size - 1);
}

void plugin_pair_table_clear(plugin_pair_table *table)
{
    if (table->count)
        memset(table->slots, 0, table->size * sizeof *table->slots);
    table->count = 0;
}

/* The slot holding (a, b), or the empty slot where it would go. */
static size_t pair_table_probe(const plugin_pair_table *table, dGeomID a, dGeomID b,
                               void (*key_of)(const void *, uint32_t, dGeomID *, dGeomID *),
                               const void *user)
{
    for (size_t slot = pair_slot(a, b, table->size);; slot = (slot + 1) & (table->size - 1)) {
        uint32_t entry = table->slots[slot];
        if (entry == 0)
            return slot;
        dGeomID ea, eb;
        key_of(user, entry - 1, &ea, &eb);
        if (ea == a && eb == b)
            return slot;
    }
}

int plugin_pair_table_add(plugin_pair_table *table, dGeomID a, dGeomID b, uint32_t index,
                          void (*key_of)(const void *, uint32_t, dGeomID *, dGeomID *),
                          const void *user)
{
    if (2 * (table->count + 1) > table->size) { /* grow and refill */
        size_t size = table->size ? 2 * table->size : 64;
        uint32_t *slots = calloc(size, sizeof *slots);
        if (!slots)
            return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
        plugin_pair_table old = *table;
        *table = (plugin_pair_table){slots, size, 0};
        for (size_t i = 0; i < old.size; i++) {
            if (!old.slots[i])
                continue;
            dGeomID ea, eb;
            key_of(user, old.slots[i] - 1, &ea, &eb);
            table->slots[pair_table_probe(table, ea, eb, key_of, user)] = old.slots[i];
            table->count++;
        }
        free(old.slots);
    }
    size_t slot = pair_table_probe(table, a, b, key_of, user);
    table->count += table->slots[slot] == 0;
    table->slots[slot] = index + 1;
    return GLCOLLIDE_OK;
}

uint32_t plugin_pair_table_find(const plugin_pair_table *table, dGeomID a, dGeomID b,
                                void (*key_of)(const void *, uint32_t, dGeomID *, dGeomID *),
                                const void *user)
{
    if (table->count == 0)
        return UINT32_MAX;
    uint32_t entry = table->slots[pair_table_probe(table, a, b, key_of, user)];
    return entry ? entry - 1 : UINT32_MAX;
}

/* ------------------------------------------------------------- threads */

static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;
static _Thread_local plugin_thread *this_thread;

void plugin_space_buffers_free(plugin_space_buffers *buffers)
{
    free(buffers->geoms);
    free(buffers->info);
    free(buffers->boxes);
    free(buffers->meshes);
    free(buffers->transforms);
    free(buffers->scene_object);
    free(buffers->cull_pairs);
    free(buffers->cull_objects);
    free(buffers->keep);
    glcollide_pair_list_clear(&buffers->pairs);
    glcollide_scratch_destroy(&buffers->sap);
    memset(buffers, 0, sizeof *buffers);
}

static void side_free(plugin_side *side)
{
    free(side->ranks);
    free(side->marks);
    free(side->summary);
    free(side->positions);
    free(side->triangles);
    free(side->ids);
    memset(side, 0, sizeof *side);
}

void plugin_scratch_free(plugin_scratch *s)
{
    for (int i = 0; i < 2; i++)
        side_free(&s->sides[i]);
    free(s->local_candidates);
    free(s->contacts);
    free(s->candidates);
    for (int k = 0; k < GLCOLLIDE_BVH_PARTS; k++)
        glcollide_pair_list_clear(&s->parts[k]);
    glcollide_scratch_destroy(&s->scratch);
    free(s->ray_hits);
    free(s->answers);
    memset(s, 0, sizeof *s);
}

static void thread_free(void *state)
{
    plugin_thread *t = state;
    if (!t)
        return;
    for (int i = 0; i < PLUGIN_MAX_DEPTH; i++)
        plugin_space_buffers_free(&t->space[i]);
    if (t->probe)
        dGeomDestroy(t->probe);
    free(t->step.pairs);
    free(t->step.candidates);
    free(t->step.table.slots);
    glcollide_world_destroy(&t->cull_world);
    free(t->cull_ids);
    free(t->cull_generations);
    free(t->cull_mesh_table);
    free(t->cull_meshes);
    glcollide_query_result_clear(&t->cull_result);
    glcollide_query_result_clear(&t->stencil_result);
    plugin_scratch_free(&t->scratch);
    plugin_ahead_free(&t->ahead);
    free(t);
}

/* A thread's buffers go when it ends (the key's destructor). */
static void thread_key_make(void)
{
    pthread_key_create(&thread_key, thread_free);
}

plugin_thread *plugin_thread_get(void)
{
    if (this_thread)
        return this_thread;
    pthread_once(&thread_key_once, thread_key_make);
    plugin_thread *t = calloc(1, sizeof *t);
    if (!t) {
        glcollide_log(GLCOLLIDE_LOG_ERROR, "ODE plugin: out of memory for a thread's buffers");
        return NULL;
    }
    pthread_setspecific(thread_key, t);
    return this_thread = t;
}

void plugin_thread_release_current(void)
{
    if (this_thread) {
        pthread_setspecific(thread_key, NULL);
        thread_free(this_thread);
        this_thread = NULL;
    }
}
