/* SPDX-License-Identifier: MIT */
/*
 * glcollide for the Open Dynamics Engine (pkg-config glcollide-ode).
 * Uses ODE types only; include after or instead of <ode/ode.h>.
 *
 * One-line use: after dInitODE2, call glcollide_ode_init(); create spaces with
 * glcollide_ode_space_create (or keep yours) and call
 * glcollide_ode_space_collide where you called dSpaceCollide. Trimesh-trimesh
 * contacts then come from glcollide (exact triangle tests on candidates from
 * the GPU, or a CPU BVH), through dCollide as usual. Zero-code use:
 * LD_PRELOAD=libglcollide-ode-preload.so ./your_ode_program.
 *
 * Threads: everything here runs on the thread that called glcollide_ode_init
 * (the GL context is current there). Not reentrant.
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
 * Starts the plugin: installs glcollide's trimesh-trimesh collider with
 * dSetColliderOverride, and makes glcollide's headless GL context (EGL),
 * checked with glcollide_context_self_test. Returns 0 when the GPU is
 * available; otherwise a negative glcollide_status, logged, and the plugin
 * works on its CPU path (the collider and the space are installed either
 * way). Call after dInitODE2. Calling it again while started returns the
 * first result.
 */
GLCOLLIDE_ODE_API int glcollide_ode_init(void);

/* Removes the collider override and releases everything. Safe when not started. */
GLCOLLIDE_ODE_API void glcollide_ode_shutdown(void);

/* 1 when glcollide_ode_init made a working GL context, 0 when running on the CPU. */
GLCOLLIDE_ODE_API int glcollide_ode_has_gpu(void);

/*
 * When the space culls trimesh pairs on the GPU (FAR, reliable):
 * AUTO (default): when a GPU context exists and it is not a software
 * renderer (llvmpipe is slower than the CPU BVH); ALWAYS: whenever a context
 * exists; NEVER: CPU only. After glcollide_ode_init, NEVER also destroys the
 * GL context (its memory, ~100 MiB with llvmpipe, goes back) and AUTO or
 * ALWAYS tries to make one again (logged when it cannot); NEVER set before
 * glcollide_ode_init makes init skip the context. Not thread-safe;
 * call between steps.
 */
enum { GLCOLLIDE_ODE_GPU_AUTO = -1, GLCOLLIDE_ODE_GPU_NEVER = 0, GLCOLLIDE_ODE_GPU_ALWAYS = 1 };
GLCOLLIDE_ODE_API void glcollide_ode_set_gpu(int mode);

/* A simple space (dSimpleSpaceCreate) to use with glcollide_ode_space_collide;
 * usable with dSpaceAdd, dSpaceRemove, nesting, dSpaceDestroy as any space. */
GLCOLLIDE_ODE_API dSpaceID glcollide_ode_space_create(dSpaceID parent);

/*
 * dSpaceCollide's contract on any space: calls callback(data, o1, o2) once
 * for each unordered pair of enabled geoms of the space whose AABBs overlap
 * (inclusive), skipping geoms on the same non-null body and pairs whose
 * category/collide bits do not match; nested spaces are reported as geoms.
 * Sweep-and-prune on the boxes (exact), then, for pairs of two trimeshes, GPU
 * culling removes the pairs whose surfaces provably do not touch (FAR; a
 * trimesh is a surface for ODE's trimesh collider too). Trimesh boxes come
 * from glcollide's captured vertices, so they stay right for deforming
 * meshes. Geoms must not be moved from inside the callback.
 */
GLCOLLIDE_ODE_API void glcollide_ode_space_collide(dSpaceID space, void *data,
                                                   dNearCallback *callback);

/*
 * dCollide's contract. For two trimeshes: candidate triangle pairs (this
 * step's GPU culling when the geoms have not moved since, otherwise a CPU
 * BVH), exact triangle-triangle tests, contacts (pos, normal, depth,
 * g1 = o1, g2 = o2, side1/side2 = triangle indices) reduced to at most
 * flags & 0xffff, deepest first and spread, in a deterministic order. Other
 * pairs: ODE's dCollide.
 */
GLCOLLIDE_ODE_API int glcollide_ode_collide(dGeomID o1, dGeomID o2, int flags,
                                            dContactGeom *contact, int skip);

/* Call after changing the vertices of a trimesh data (deforming meshes), as
 * with dGeomTriMeshDataUpdate: glcollide captures them again. */
GLCOLLIDE_ODE_API void glcollide_ode_trimesh_data_changed(dTriMeshDataID data);

/*
 * Tells glcollide the arrays a trimesh data was built from: call with the
 * same arguments right after dGeomTriMeshDataBuildDouble (or ...Single).
 * glcollide then reads them directly: exact vertices, shared as in the
 * arrays, and a cheap re-read after glcollide_ode_trimesh_data_changed.
 * Without it, data are captured through dGeomTriMeshGetTriangle, which hands
 * out OPCODE's float copies of the vertices (about 6e-8 relative error,
 * contacts off by as much). The arrays must stay valid as long as ODE's copy
 * of the pointers does. Bad arguments are logged and the data is captured
 * through ODE instead. The preload library calls these for every build.
 */
GLCOLLIDE_ODE_API void glcollide_ode_trimesh_data_build_double(dTriMeshDataID data,
                                                               const void *vertices,
                                                               int vertex_stride, int vertex_count,
                                                               const void *indices, int index_count,
                                                               int tri_stride);
GLCOLLIDE_ODE_API void glcollide_ode_trimesh_data_build_single(dTriMeshDataID data,
                                                               const void *vertices,
                                                               int vertex_stride, int vertex_count,
                                                               const void *indices, int index_count,
                                                               int tri_stride);
/* Call before dGeomTriMeshDataDestroy: glcollide drops its registration and
 * capture, so a new data at the same address is not mistaken for it. */
GLCOLLIDE_ODE_API void glcollide_ode_trimesh_data_forget(dTriMeshDataID data);

typedef struct glcollide_ode_stats {
    unsigned long long space_collides;   /* glcollide_ode_space_collide calls */
    unsigned long long aabb_pairs;       /* pairs passing boxes, bodies and bits */
    unsigned long long culled_pairs;     /* trimesh pairs removed by GPU culling */
    unsigned long long callbacks;        /* near callbacks made */
    unsigned long long trimesh_collides; /* trimesh-trimesh contact generations */
    unsigned long long candidates;       /* triangle pairs tested exactly */
    unsigned long long contacts;         /* contacts returned */
    unsigned long long contained;        /* pairs pushed apart as one solid inside the other */
    unsigned long long gpu_queries, draw_calls, gpu_syncs, readback_bytes;
    double cull_ms, contact_ms; /* time in GPU culling and contact generation */
} glcollide_ode_stats;

/* Counters since glcollide_ode_init (or the last reset). */
GLCOLLIDE_ODE_API void glcollide_ode_get_stats(glcollide_ode_stats *stats);
GLCOLLIDE_ODE_API void glcollide_ode_reset_stats(void);

#ifdef __cplusplus
}
#endif

#endif
