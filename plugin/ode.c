/* SPDX-License-Identifier: MIT */
/*
 * The ODE plugin: lifetime, threads, the GL context, options, statistics
 * and dCollide's entry.
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
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static void thread_free(void *state)
{
    plugin_thread *t = state;
    if (!t)
        return;
    plugin_space_release(t);
    plugin_sides_release(t);
    if (t->probe)
        dGeomDestroy(t->probe);
    free(t->step.pairs);
    free(t->step.candidates);
    free(t->step.table);
    glcollide_world_destroy(&t->cull_world);
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
    pthread_mutex_lock(&plugin.gpu_lock);
    glcollide_context_destroy(&plugin.context);
    plugin.gpu_refused = 0;
    pthread_mutex_unlock(&plugin.gpu_lock);
    /* This thread's buffers; other threads free theirs when they end. */
    if (this_thread) {
        pthread_setspecific(thread_key, NULL);
        thread_free(this_thread);
        this_thread = NULL;
    }
}

/* ------------------------------------------------------------- GPU */

int plugin_gpu_wanted(void)
{
    return atomic_load_explicit(&plugin.gpu_mode, memory_order_relaxed) !=
               GLCOLLIDE_ODE_GPU_NEVER &&
           !atomic_load_explicit(&plugin.gpu_refused, memory_order_relaxed) &&
           atomic_load_explicit(&plugin.users, memory_order_relaxed) > 0;
}

/* Does the machine show a GPU device (DRM render node, NVIDIA)? Without one
 * EGL can only give a software renderer, which AUTO would not use: asking
 * for it would cost ~0.3 s and ~85 MB (llvmpipe) for nothing. */
static int gpu_device_present(void)
{
    glob_t found;
    int present = glob("/dev/dri/renderD*", 0, NULL, &found) == 0 && found.gl_pathc > 0;
    globfree(&found);
    return present || access("/dev/nvidiactl", F_OK) == 0;
}

static int software_renderer(const glcollide_context *context)
{
    const char *renderer = glcollide_context_caps(context)->renderer;
    return strstr(renderer, "llvmpipe") || strstr(renderer, "softpipe") ||
           strstr(renderer, "swrast");
}

/* The context for the mode set, made now; NULL (refused, logged once) when
 * there is none to have or AUTO would not use it. gpu_lock held. */
static glcollide_context *make_context(int mode)
{
    if (mode == GLCOLLIDE_ODE_GPU_AUTO && !plugin.calibrate_software && !gpu_device_present()) {
        glcollide_log(GLCOLLIDE_LOG_INFO, "ODE plugin: no GPU device: trimesh pairs are culled "
                                          "on the CPU (GLCOLLIDE_GPU=always tries a software "
                                          "renderer)");
        plugin.gpu_refused = 1;
        return NULL;
    }
    glcollide_context *context = NULL;
    if (glcollide_context_create_egl(&context) != GLCOLLIDE_OK ||
        glcollide_context_self_test(context) != GLCOLLIDE_OK) {
        /* logged by glcollide; the CPU path serves */
        glcollide_context_destroy(&context);
        plugin.gpu_refused = 1;
        return NULL;
    }
    plugin_count(&plugin.counters.gl_contexts, 1);
    glcollide_context_release(context); /* creation made it current here */
    if (mode == GLCOLLIDE_ODE_GPU_AUTO && software_renderer(context) &&
        !plugin.calibrate_software) {
        /* On the same cores the CPU BVH is faster than a software rasterizer. */
        glcollide_log(GLCOLLIDE_LOG_INFO,
                      "ODE plugin: %s is a software renderer: trimesh pairs "
                      "are culled on the CPU",
                      glcollide_context_caps(context)->renderer);
        glcollide_context_destroy(&context);
        plugin.gpu_refused = 1;
    }
    return context;
}

glcollide_context *plugin_gpu_begin(void)
{
    pthread_mutex_lock(&plugin.gpu_lock);
    int mode = atomic_load(&plugin.gpu_mode);
    if (!plugin.context && !plugin.gpu_refused && mode != GLCOLLIDE_ODE_GPU_NEVER)
        plugin.context = make_context(mode);
    if (plugin.context && glcollide_context_acquire(plugin.context) == GLCOLLIDE_OK)
        return plugin.context;
    pthread_mutex_unlock(&plugin.gpu_lock);
    return NULL;
}

void plugin_gpu_end(glcollide_context *context)
{
    glcollide_context_release(context);
    pthread_mutex_unlock(&plugin.gpu_lock);
}

int glcollide_ode_has_gpu(void)
{
    pthread_mutex_lock(&plugin.gpu_lock);
    int has = plugin.context != NULL;
    pthread_mutex_unlock(&plugin.gpu_lock);
    return has;
}

void glcollide_ode_set_gpu(int mode)
{
    mode = mode < 0 ? GLCOLLIDE_ODE_GPU_AUTO : mode > 0;
    pthread_mutex_lock(&plugin.gpu_lock);
    atomic_store(&plugin.gpu_mode, mode);
    plugin.gpu_refused = 0; /* a new mode: the next pair that needs it tries again */
    atomic_store(&plugin.auto_choice, GLCOLLIDE_ODE_AUTO_UNDECIDED); /* and AUTO measures again */
    plugin.calibration_steps = 0;
    /* NEVER gives the context's memory back (llvmpipe's is ~100 MiB); so does
     * AUTO where AUTO would not use it. */
    if (plugin.context && (mode == GLCOLLIDE_ODE_GPU_NEVER ||
                           (mode == GLCOLLIDE_ODE_GPU_AUTO && software_renderer(plugin.context) &&
                            !plugin.calibrate_software)))
        glcollide_context_destroy(&plugin.context);
    pthread_mutex_unlock(&plugin.gpu_lock);
}

void glcollide_ode_set_stencil_flags(int resolution)
{
    atomic_store(&plugin.stencil_resolution, resolution <= 0     ? 0
                                             : resolution < 16   ? 16
                                             : resolution > 4096 ? 4096
                                                                 : resolution);
}

void plugin_stencil_agreement(int flagged, int interfering)
{
    plugin_count(&plugin.counters.stencil_flagged, (unsigned long long)flagged);
    plugin_count(&plugin.counters.stencil_missed, (unsigned long long)(interfering && !flagged));
    plugin_count(&plugin.counters.stencil_extra, (unsigned long long)(flagged && !interfering));
}

void glcollide_ode_set_calibrate_software(int enabled)
{
    pthread_mutex_lock(&plugin.gpu_lock);
    plugin.calibrate_software = enabled != 0;
    pthread_mutex_unlock(&plugin.gpu_lock);
}

int glcollide_ode_auto_choice(void)
{
    return atomic_load(&plugin.auto_choice);
}

/*
 * AUTO's calibration. The user's own first steps with trimesh pairs are the
 * benchmark: one GPU step first (meshes uploaded, programs compiled: not
 * counted), then CPU and GPU steps alternating, PLUGIN_CALIBRATION_STEPS
 * each, so that a pile settling changes both alike; the smaller median wins.
 * A space that has doubled its geoms since is measured again (the GPU's
 * share per object falls as scenes grow, the CPU's does not); growth by
 * less keeps the choice, so a program pays at most one measurement per
 * doubling. Answers do not depend on it: both paths are exact after culling.
 */
int plugin_auto_gpu_step(size_t objects)
{
    if (atomic_load(&plugin.gpu_mode) != GLCOLLIDE_ODE_GPU_AUTO)
        return plugin_gpu_wanted();
    pthread_mutex_lock(&plugin.gpu_lock);
    int choice = atomic_load(&plugin.auto_choice);
    if (choice != GLCOLLIDE_ODE_AUTO_UNDECIDED && plugin.calibrated_objects &&
        objects >= 2 * plugin.calibrated_objects) {
        choice = GLCOLLIDE_ODE_AUTO_UNDECIDED;
        atomic_store(&plugin.auto_choice, choice);
        plugin.calibration_steps = 0;
        plugin.gpu_refused = 0;
    }
    if (choice == GLCOLLIDE_ODE_AUTO_UNDECIDED && plugin.calibration_steps == 0)
        plugin.calibrated_objects = objects;
    int step = plugin.calibration_steps;
    pthread_mutex_unlock(&plugin.gpu_lock);
    if (choice == GLCOLLIDE_ODE_AUTO_CPU)
        return 0;
    if (choice == GLCOLLIDE_ODE_AUTO_GPU)
        return plugin_gpu_wanted();
    return plugin_gpu_wanted() && step % 2 == 0; /* 0: the first GPU step */
}

static int compare_ns(const void *x, const void *y)
{
    unsigned long long a = *(const unsigned long long *)x, b = *(const unsigned long long *)y;
    return a < b ? -1 : a > b;
}

static double median_ms(unsigned long long *ns)
{
    qsort(ns, PLUGIN_CALIBRATION_STEPS, sizeof *ns, compare_ns);
    return (double)ns[PLUGIN_CALIBRATION_STEPS / 2] * 1e-6;
}

void plugin_auto_step_done(int gpu, unsigned long long ns)
{
    if (atomic_load(&plugin.gpu_mode) != GLCOLLIDE_ODE_GPU_AUTO)
        return;
    pthread_mutex_lock(&plugin.gpu_lock);
    if (atomic_load(&plugin.auto_choice) != GLCOLLIDE_ODE_AUTO_UNDECIDED) {
        pthread_mutex_unlock(&plugin.gpu_lock);
        return;
    }
    if (!plugin.context) { /* none to be had (logged): nothing to measure */
        atomic_store(&plugin.auto_choice, GLCOLLIDE_ODE_AUTO_CPU);
        pthread_mutex_unlock(&plugin.gpu_lock);
        return;
    }
    int step = plugin.calibration_steps;
    if (step > 0 && (step % 2 == 0) == (gpu != 0))
        plugin.calibration_ns[gpu != 0][(step - 1) / 2] = ns;
    else if (step > 0)
        step = -1; /* another thread's step came between: not counted */
    if (step >= 0 && ++plugin.calibration_steps == 1 + 2 * PLUGIN_CALIBRATION_STEPS) {
        double gpu_ms = median_ms(plugin.calibration_ns[1]);
        double cpu_ms = median_ms(plugin.calibration_ns[0]);
        int choice = gpu_ms < cpu_ms ? GLCOLLIDE_ODE_AUTO_GPU : GLCOLLIDE_ODE_AUTO_CPU;
        glcollide_log(GLCOLLIDE_LOG_INFO,
                      "ODE plugin: auto: a step of %zu geoms takes %.3f ms with GPU culling (%s), "
                      "%.3f ms on the CPU (medians of %d): %s",
                      plugin.calibrated_objects, gpu_ms,
                      glcollide_context_caps(plugin.context)->renderer, cpu_ms,
                      PLUGIN_CALIBRATION_STEPS,
                      choice == GLCOLLIDE_ODE_AUTO_GPU ? "GPU culling on" : "CPU");
        atomic_store(&plugin.auto_choice, choice);
        if (choice == GLCOLLIDE_ODE_AUTO_CPU) /* its memory back */
            glcollide_context_destroy(&plugin.context);
    }
    pthread_mutex_unlock(&plugin.gpu_lock);
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
    if (c1 == dTriMeshClass && c2 == dTriMeshClass)
        return plugin_trimesh_collide(o1, o2, flags, contact, skip);
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
        &c->stencil_missed,     &c->stencil_extra,      &c->stencil_ns};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        atomic_store(all[i], 0);
}
