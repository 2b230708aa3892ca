/* SPDX-License-Identifier: MIT */
/* The ODE plugin: lifetime, options, statistics and dCollide's entry. */
#define _GNU_SOURCE
#include "plugin.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

plugin_state plugin = {.gpu_mode = GLCOLLIDE_ODE_GPU_AUTO};
static int init_status;

double plugin_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int plugin_reserve(void **array, size_t *capacity, size_t count, size_t size)
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

/*
 * ODE's own trimesh-trimesh collider, to put back at shutdown: ODE has no
 * getter for a collider, and dSetColliderOverride(..., NULL) would leave
 * trimesh pairs with no collider at all (they would pass through each
 * other). dCollideTTL is exported by the shared libode with C++ linkage.
 */
static dColliderFn *ode_trimesh_collider(void)
{
    return (dColliderFn *)dlsym(RTLD_DEFAULT, "_Z11dCollideTTLP6dxGeomS0_iP12dContactGeomi");
}

int glcollide_ode_init(void)
{
    if (plugin.started)
        return init_status;
    plugin.started = 1;
    memset(&plugin.stats, 0, sizeof plugin.stats);
    if (glcollide_scene_create(&plugin.scene) != GLCOLLIDE_OK)
        return init_status = GLCOLLIDE_ERROR_OUT_OF_MEMORY;
    dSetColliderOverride(dTriMeshClass, dTriMeshClass, plugin_trimesh_collide);
    if (plugin.gpu_mode == GLCOLLIDE_ODE_GPU_NEVER)
        return init_status = GLCOLLIDE_OK; /* set before init: no context at all */
    init_status = glcollide_context_create_egl(&plugin.context);
    if (init_status == GLCOLLIDE_OK &&
        (init_status = glcollide_context_self_test(plugin.context)) != GLCOLLIDE_OK)
        glcollide_context_destroy(&plugin.context);
    return init_status; /* logged by glcollide; the CPU path works either way */
}

void glcollide_ode_shutdown(void)
{
    if (!plugin.started)
        return;
    dColliderFn *own = ode_trimesh_collider();
    if (!own)
        glcollide_log(GLCOLLIDE_LOG_WARNING,
                      "ODE plugin: ODE's trimesh collider (dCollideTTL) not found: trimesh pairs "
                      "get no contacts after glcollide_ode_shutdown");
    dSetColliderOverride(dTriMeshClass, dTriMeshClass, own);
    plugin_sides_release();
    plugin_meshes_release();
    plugin_space_release();
    glcollide_scene_destroy(&plugin.scene);
    glcollide_context_destroy(&plugin.context);
    free(plugin.sources);
    free(plugin.step_pairs);
    free(plugin.step_candidates);
    free(plugin.contacts);
    free(plugin.candidates);
    glcollide_contact_scratch_destroy(&plugin.contact_scratch);
    int mode = plugin.gpu_mode;
    memset(&plugin, 0, sizeof plugin);
    plugin.gpu_mode = mode;
    init_status = 0;
}

int glcollide_ode_has_gpu(void)
{
    return plugin.context != NULL;
}

void glcollide_ode_set_gpu(int mode)
{
    plugin.gpu_mode = mode < 0 ? GLCOLLIDE_ODE_GPU_AUTO : mode > 0;
    if (!plugin.started)
        return;
    /* NEVER gives the context's memory back (llvmpipe's is ~100 MiB); a
     * later AUTO or ALWAYS makes one again. */
    if (plugin.gpu_mode == GLCOLLIDE_ODE_GPU_NEVER) {
        glcollide_context_destroy(&plugin.context);
    } else if (!plugin.context && glcollide_context_create_egl(&plugin.context) == GLCOLLIDE_OK &&
               glcollide_context_self_test(plugin.context) != GLCOLLIDE_OK) {
        glcollide_context_destroy(&plugin.context);
    }
}

dSpaceID glcollide_ode_space_create(dSpaceID parent)
{
    return dSimpleSpaceCreate(parent);
}

int glcollide_ode_collide(dGeomID o1, dGeomID o2, int flags, dContactGeom *contact, int skip)
{
    if (dGeomGetClass(o1) == dTriMeshClass && dGeomGetClass(o2) == dTriMeshClass)
        return plugin_trimesh_collide(o1, o2, flags, contact, skip);
    return dCollide(o1, o2, flags, contact, skip);
}

void glcollide_ode_get_stats(glcollide_ode_stats *stats)
{
    if (stats)
        *stats = plugin.stats;
}

void glcollide_ode_reset_stats(void)
{
    memset(&plugin.stats, 0, sizeof plugin.stats);
}
