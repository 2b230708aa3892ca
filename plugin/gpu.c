/* SPDX-License-Identifier: MIT */
/*
 * The plugin's GL context, made only when a space first has a trimesh pair
 * to cull on the GPU and the mode wants it (glcollide_ode_set_gpu), shared
 * by all threads under plugin.gpu_lock; AUTO's measurement of both paths;
 * the stencil flags pass's settings and agreement counters.
 */
#include "plugin.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void plugin_gpu_release(void)
{
    pthread_mutex_lock(&plugin.gpu_lock);
    glcollide_context_destroy(&plugin.context);
    plugin.gpu_refused = 0;
    pthread_mutex_unlock(&plugin.gpu_lock);
}
