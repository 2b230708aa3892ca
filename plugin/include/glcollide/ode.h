/* SPDX-License-Identifier: MIT */
/*
 * glcollide for the Open Dynamics Engine (pkg-config glcollide-ode).
 * Uses ODE types only; include after or instead of <ode/ode.h>.
 *
 * This release provides the plugin's lifetime functions. The collision space
 * (glcollide_ode_space_create/collide) and the trimesh contact generator
 * (glcollide_ode_collide) are being built on the GPU culling methods and will
 * be declared here when they exist.
 */
#ifndef GLCOLLIDE_ODE_H
#define GLCOLLIDE_ODE_H

#include <ode/ode.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GLCOLLIDE_BUILDING) && defined(__GNUC__)
#define GLCOLLIDE_ODE_API __attribute__((visibility("default")))
#else
#define GLCOLLIDE_ODE_API
#endif

/*
 * Starts the plugin: makes glcollide's headless GL context (EGL) and checks
 * the driver with glcollide_context_self_test. Returns 0 on success; otherwise
 * logs why (through glcollide's log callback) and returns a negative
 * glcollide_status, and the plugin then works on the exact CPU path. Call
 * after dInitODE2 and from the thread that runs the simulation. Calling it
 * again while started is a no-op returning 0.
 */
GLCOLLIDE_ODE_API int glcollide_ode_init(void);

/* Releases what glcollide_ode_init made. Safe to call when not started. */
GLCOLLIDE_ODE_API void glcollide_ode_shutdown(void);

/* 1 when glcollide_ode_init made a working GL context, 0 when running on the CPU. */
GLCOLLIDE_ODE_API int glcollide_ode_has_gpu(void);

#ifdef __cplusplus
}
#endif

#endif
