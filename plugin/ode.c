/* SPDX-License-Identifier: MIT */
/*
 * The ODE plugin's entries: lifetime, options, statistics and dCollide's
 * entry; the top of the plugin (state.c, gpu.c, geom.c, space.c, trimesh.c
 * and primitive.c below it).
 *
 * glcollide_ode_init and glcollide_ode_shutdown are counted, as ODE counts
 * dInitODE2 and dCloseODE: the last shutdown releases everything. Nothing is
 * made at init but the collider override: the registry of meshes grows as
 * trimeshes are met, each thread's buffers on its first step, and the GL
 * context only when a space first has a trimesh pair to cull on the GPU.
 */
#define _GNU_SOURCE /* dlsym */
#include "plugin.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- lifetime */

/* ODE's own trimesh-trimesh collider, given back at the last shutdown; its
 * name is exported by libode (C++), though no header declares it. */
static dColliderFn *ode_trimesh_collider(void)
{
    return (dColliderFn *)dlsym(RTLD_DEFAULT, "_Z11dCollideTTLP6dxGeomS0_iP12dContactGeomi");
}

int glcollide_ode_init(void)
{
    pthread_mutex_lock(&plugin.lock);
    if (plugin.users++ == 0) {
        dSetColliderOverride(dTriMeshClass, dTriMeshClass, plugin_trimesh_collide);
        if (atomic_load(&plugin.primitives))
            plugin_primitive_install();
        glcollide_ode_reset_stats();
    }
    pthread_mutex_unlock(&plugin.lock);
    return GLCOLLIDE_OK;
}

void glcollide_ode_shutdown(void)
{
    pthread_mutex_lock(&plugin.lock);
    int last = plugin.users > 0 && --plugin.users == 0;
    if (last) {
        dColliderFn *own = ode_trimesh_collider();
        if (!own)
            glcollide_log(GLCOLLIDE_LOG_WARNING,
                          "ODE plugin: ODE's trimesh collider (dCollideTTL) not found: trimesh "
                          "pairs get no contacts after the last glcollide_ode_shutdown");
        dSetColliderOverride(dTriMeshClass, dTriMeshClass, own);
        if (atomic_load(&plugin.primitives))
            plugin_primitive_restore();
        plugin_meshes_release();
        free(plugin.sources);
        plugin.sources = NULL;
        plugin.source_count = plugin.source_capacity = 0;
    }
    pthread_mutex_unlock(&plugin.lock);
    if (!last)
        return;
    plugin_gpu_release();
    /* This thread's buffers; other threads free theirs when they end. */
    plugin_thread_release_current();
}

/* ------------------------------------------------------------- entries */

dSpaceID glcollide_ode_space_create(dSpaceID parent)
{
    return dSimpleSpaceCreate(parent);
}

void glcollide_ode_set_primitive_contacts(int enabled)
{
    pthread_mutex_lock(&plugin.lock);
    enabled = enabled != 0;
    if (enabled != atomic_load(&plugin.primitives) && plugin.users > 0) {
        if (enabled)
            plugin_primitive_install();
        else
            plugin_primitive_restore();
    }
    atomic_store(&plugin.primitives, enabled);
    pthread_mutex_unlock(&plugin.lock);
}

int glcollide_ode_collide(dGeomID o1, dGeomID o2, int flags, dContactGeom *contact, int skip)
{
    int c1 = dGeomGetClass(o1), c2 = dGeomGetClass(o2);
    if (c1 == dTriMeshClass && c2 == dTriMeshClass) {
        /* As dCollide calls the override (registered for one class pair, it
         * gets its arguments reversed): the same contacts either way. */
        if (o1 == o2)
            return 0;
        int n = plugin_trimesh_collide(o2, o1, flags, contact, skip);
        plugin_contacts_reverse(contact, n, skip);
        return n;
    }
    int primitives = atomic_load_explicit(&plugin.primitives, memory_order_relaxed);
    /* dCollide's own rules first: no contacts of a geom with itself or
     * between geoms of one body. */
    int primitive_pair = primitives && (flags & 0xffff) && o1 != o2 &&
                         (!dGeomGetBody(o1) || dGeomGetBody(o1) != dGeomGetBody(o2));
    if (primitive_pair && c1 == dTriMeshClass && plugin_primitive_class(c2))
        return plugin_primitive_collide(o1, o2, flags, contact, skip);
    if (primitive_pair && c2 == dTriMeshClass && plugin_primitive_class(c1)) {
        int n = plugin_primitive_collide(o2, o1, flags, contact, skip);
        plugin_contacts_reverse(contact, n, skip);
        return n;
    }
    return dCollide(o1, o2, flags, contact, skip);
}

void glcollide_ode_get_stats(glcollide_ode_stats *stats)
{
    if (!stats)
        return;
    const plugin_counters *c = &plugin.counters;
    *stats = (glcollide_ode_stats){
        .space_collides = atomic_load(&c->space_collides),
        .aabb_pairs = atomic_load(&c->aabb_pairs),
        .culled_pairs = atomic_load(&c->culled_pairs),
        .callbacks = atomic_load(&c->callbacks),
        .trimesh_collides = atomic_load(&c->trimesh_collides),
        .candidates = atomic_load(&c->candidates),
        .contacts = atomic_load(&c->contacts),
        .contained = atomic_load(&c->contained),
        .gpu_queries = atomic_load(&c->gpu_queries),
        .draw_calls = atomic_load(&c->draw_calls),
        .gpu_syncs = atomic_load(&c->gpu_syncs),
        .readback_bytes = atomic_load(&c->readback_bytes),
        .upload_bytes = atomic_load(&c->upload_bytes),
        .stencil_passes = atomic_load(&c->stencil_passes),
        .stencil_flagged = atomic_load(&c->stencil_flagged),
        .stencil_missed = atomic_load(&c->stencil_missed),
        .stencil_extra = atomic_load(&c->stencil_extra),
        .stencil_ms = (double)atomic_load(&c->stencil_ns) * 1e-6,
        .cull_ms = (double)atomic_load(&c->cull_ns) * 1e-6,
        .contact_ms = (double)atomic_load(&c->contact_ns) * 1e-6,
        .gl_contexts = atomic_load(&c->gl_contexts),
        .primitive_collides = atomic_load(&c->primitive_collides),
        .primitive_contacts = atomic_load(&c->primitive_contacts),
        .ahead_pairs = atomic_load(&c->ahead_pairs),
        .ahead_served = atomic_load(&c->ahead_served),
        .space_collide2s = atomic_load(&c->space_collide2s),
    };
}

void glcollide_ode_reset_stats(void)
{
    plugin_counters *c = &plugin.counters;
    atomic_ullong *all[] = {
        &c->space_collides,     &c->aabb_pairs,         &c->culled_pairs,   &c->callbacks,
        &c->trimesh_collides,   &c->candidates,         &c->contacts,       &c->contained,
        &c->gpu_queries,        &c->draw_calls,         &c->gpu_syncs,      &c->readback_bytes,
        &c->upload_bytes,       &c->gl_contexts,        &c->cull_ns,        &c->contact_ns,
        &c->primitive_collides, &c->primitive_contacts, &c->stencil_passes, &c->stencil_flagged,
        &c->stencil_missed,     &c->stencil_extra,      &c->stencil_ns,     &c->ahead_pairs,
        &c->ahead_served,       &c->space_collide2s};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        atomic_store(all[i], 0);
}
