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
#include "plugin.h"

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

int plugin_grow(void **array, size_t *capacity, size_t count, size_t size)
{
    if (count <= *capacity)
        return GLCOLLIDE_OK;
    size_t grown = *capacity ? *capacity : 16;
    while (grown < count)
        grown *= 2;
    void *bigger = size && grown > SIZE_MAX / size ? NULL : realloc(*array, grown * size);
    if (!bigger)
        return GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    *array = bigger;
    *capacity = grown;
    return GLCOLLIDE_OK;
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
    free(buffers->scene_object);
    free(buffers->keep);
    glcollide_pair_list_release(&buffers->pairs);
    glcollide_workspace_release(&buffers->sap);
    memset(buffers, 0, sizeof *buffers);
}

static void side_free(plugin_side *side)
{
    free(side->slot);
    free(side->marks);
    free(side->positions);
    free(side->triangles);
    free(side->ids);
    memset(side, 0, sizeof *side);
}

static void thread_free(void *state)
{
    plugin_thread *t = state;
    if (!t)
        return;
    for (int i = 0; i < PLUGIN_MAX_DEPTH; i++)
        plugin_space_buffers_free(&t->space[i]);
    for (int i = 0; i < 2; i++)
        side_free(&t->sides[i]);
    if (t->probe)
        dGeomDestroy(t->probe);
    free(t->step.pairs);
    free(t->step.candidates);
    free(t->step.table);
    glcollide_world_destroy(&t->cull_world);
    free(t->cull_ids);
    free(t->cull_generations);
    free(t->cull_mesh_table);
    free(t->cull_meshes);
    glcollide_query_result_clear(&t->cull_result);
    glcollide_query_result_clear(&t->stencil_result);
    free(t->local_candidates);
    free(t->contacts);
    free(t->candidates);
    glcollide_contact_scratch_destroy(&t->contact_scratch);
    glcollide_primitive_scratch_destroy(&t->primitive_scratch);
    free(t->ray_hits);
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
