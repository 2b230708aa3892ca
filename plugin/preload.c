/* SPDX-License-Identifier: MIT */
/*
 * libglcollide-ode-preload.so: LD_PRELOAD it into an unmodified ODE program
 * (linked to the shared libode) and glcollide serves its spaces and trimesh
 * contacts. The ODE functions below are interposed; each calls ODE's own
 * (found with dlsym(RTLD_NEXT)) and adds glcollide's part:
 *   dInitODE, dInitODE2   then glcollide_ode_init (no GL context yet: one is
 *                         made when a trimesh pair first needs the GPU)
 *   dCloseODE             glcollide_ode_shutdown first
 *   dSpaceCollide         glcollide_ode_space_collide, for every space
 *   dSpaceCollide2        glcollide_ode_space_collide2 (ODE's for two geoms,
 *                         quadtree spaces and classes of the program's own)
 *   dGeomTriMeshDataBuild* then register the arrays with glcollide
 *   dGeomTriMeshDataUpdate then mark the data changed
 *   dGeomTriMeshDataDestroy first glcollide_ode_trimesh_data_forget
 * Environment (read at dInitODE2; README's table):
 *   GLCOLLIDE_PRELOAD=0          all of it off: ODE as if not preloaded
 *   GLCOLLIDE_GPU=auto|never|always  GPU culling of trimesh pairs
 *                                (glcollide_ode_set_gpu; default auto)
 *   GLCOLLIDE_PRIMITIVES=0|1     a trimesh's pairs with ODE's planes, boxes,
 *                                spheres, capsules, cylinders and rays:
 *                                glcollide's colliders (1, default) or ODE's
 *                                (glcollide_ode_set_primitive_contacts)
 *   GLCOLLIDE_STENCIL=RESOLUTION the stencil flags pass beside GPU culling
 *                                (glcollide_ode_set_stencil_flags; default 0: off)
 *   GLCOLLIDE_PRELOAD_STATS=1    glcollide's counters on stderr at dCloseODE
 *   GLCOLLIDE_LOG=debug|info|... glcollide's log level (default warnings)
 */
#define _GNU_SOURCE
#include "plugin.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int enabled(void)
{
    const char *env = getenv("GLCOLLIDE_PRELOAD");
    return !env || strcmp(env, "0") != 0;
}

/* ODE's own definition of a symbol we interpose; NULL if not found. */
static void *next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

#define GLCOLLIDE_PRELOAD_API __attribute__((visibility("default")))

/* GLCOLLIDE_GPU, GLCOLLIDE_PRIMITIVES and GLCOLLIDE_STENCIL, then glcollide_ode_init. */
static void start(void)
{
    static const struct {
        const char *name;
        int mode;
    } modes[] = {{"auto", GLCOLLIDE_ODE_GPU_AUTO},
                 {"never", GLCOLLIDE_ODE_GPU_NEVER},
                 {"always", GLCOLLIDE_ODE_GPU_ALWAYS}};
    const char *gpu = getenv("GLCOLLIDE_GPU");
    if (gpu && *gpu) {
        size_t i = 0;
        while (i < sizeof modes / sizeof modes[0] && strcmp(gpu, modes[i].name) != 0)
            i++;
        if (i < sizeof modes / sizeof modes[0])
            glcollide_ode_set_gpu(modes[i].mode);
        else
            glcollide_log(GLCOLLIDE_LOG_WARNING,
                          "preload: GLCOLLIDE_GPU=%s is not auto, never or always: auto", gpu);
    }
    const char *primitives = getenv("GLCOLLIDE_PRIMITIVES");
    if (primitives && *primitives) {
        if (strcmp(primitives, "0") == 0 || strcmp(primitives, "1") == 0)
            glcollide_ode_set_primitive_contacts(primitives[0] == '1');
        else
            glcollide_log(GLCOLLIDE_LOG_WARNING,
                          "preload: GLCOLLIDE_PRIMITIVES=%s is not 0 or 1: 1", primitives);
    }
    const char *stencil = getenv("GLCOLLIDE_STENCIL");
    if (stencil && *stencil)
        glcollide_ode_set_stencil_flags(atoi(stencil));
    glcollide_ode_init();
}

GLCOLLIDE_PRELOAD_API int dInitODE2(unsigned int flags)
{
    int (*real)(unsigned int) = (int (*)(unsigned int))next("dInitODE2");
    int ok = real ? real(flags) : 0;
    if (ok && enabled())
        start();
    return ok;
}

GLCOLLIDE_PRELOAD_API void dInitODE(void)
{
    void (*real)(void) = (void (*)(void))next("dInitODE");
    if (real)
        real();
    if (enabled())
        start();
}

GLCOLLIDE_PRELOAD_API void dCloseODE(void)
{
    const char *stats_env = getenv("GLCOLLIDE_PRELOAD_STATS");
    if (stats_env && strcmp(stats_env, "1") == 0 && enabled()) {
        glcollide_ode_stats s;
        glcollide_ode_get_stats(&s);
        fprintf(stderr,
                "glcollide-preload: gpu=%d space_collides=%llu aabb_pairs=%llu culled_pairs=%llu "
                "callbacks=%llu trimesh_collides=%llu candidates=%llu contacts=%llu "
                "gpu_queries=%llu gl_contexts=%llu cull_ms=%.1f contact_ms=%.1f "
                "primitive_collides=%llu "
                "primitive_contacts=%llu space_collide2s=%llu\n",
                glcollide_ode_has_gpu(), s.space_collides, s.aabb_pairs, s.culled_pairs,
                s.callbacks, s.trimesh_collides, s.candidates, s.contacts, s.gpu_queries,
                s.gl_contexts, s.cull_ms, s.contact_ms, s.primitive_collides, s.primitive_contacts,
                s.space_collide2s);
    }
    glcollide_ode_shutdown();
    void (*real)(void) = (void (*)(void))next("dCloseODE");
    if (real)
        real();
}

GLCOLLIDE_PRELOAD_API void dSpaceCollide(dSpaceID space, void *data, dNearCallback *callback)
{
    if (enabled()) {
        glcollide_ode_space_collide(space, data, callback);
        return;
    }
    void (*real)(dSpaceID, void *, dNearCallback *) =
        (void (*)(dSpaceID, void *, dNearCallback *))next("dSpaceCollide");
    if (real)
        real(space, data, callback);
}

GLCOLLIDE_PRELOAD_API void dSpaceCollide2(dGeomID o1, dGeomID o2, void *data,
                                          dNearCallback *callback)
{
    if (enabled()) {
        glcollide_ode_space_collide2(o1, o2, data, callback);
        return;
    }
    void (*real)(dGeomID, dGeomID, void *, dNearCallback *) =
        (void (*)(dGeomID, dGeomID, void *, dNearCallback *))next("dSpaceCollide2");
    if (real)
        real(o1, o2, data, callback);
}

GLCOLLIDE_PRELOAD_API void dGeomTriMeshDataUpdate(dTriMeshDataID data)
{
    void (*real)(dTriMeshDataID) = (void (*)(dTriMeshDataID))next("dGeomTriMeshDataUpdate");
    if (real)
        real(data);
    glcollide_ode_trimesh_data_changed(data);
}

/* Each build: ODE's own, then glcollide is given the arrays (exact vertices,
 * re-read cheaply after dGeomTriMeshDataUpdate). */
#define INTERPOSE_BUILD(name, params, args, register_call)                                         \
    GLCOLLIDE_PRELOAD_API void name params                                                         \
    {                                                                                              \
        void(*real) params = (void(*) params)next(#name);                                          \
        if (real)                                                                                  \
            real args;                                                                             \
        if (enabled())                                                                             \
            register_call;                                                                         \
    }

#define BUILD_PARAMS                                                                               \
    (dTriMeshDataID g, const void *vertices, int vertex_stride, int vertex_count,                  \
     const void *indices, int index_count, int tri_stride)
#define BUILD_PARAMS1                                                                              \
    (dTriMeshDataID g, const void *vertices, int vertex_stride, int vertex_count,                  \
     const void *indices, int index_count, int tri_stride, const void *normals)
#define BUILD_ARGS (g, vertices, vertex_stride, vertex_count, indices, index_count, tri_stride)
#define BUILD_ARGS1                                                                                \
    (g, vertices, vertex_stride, vertex_count, indices, index_count, tri_stride, normals)

INTERPOSE_BUILD(dGeomTriMeshDataBuildSingle, BUILD_PARAMS, BUILD_ARGS,
                glcollide_ode_trimesh_data_build_single BUILD_ARGS)
INTERPOSE_BUILD(dGeomTriMeshDataBuildSingle1, BUILD_PARAMS1, BUILD_ARGS1,
                glcollide_ode_trimesh_data_build_single BUILD_ARGS)
INTERPOSE_BUILD(dGeomTriMeshDataBuildDouble, BUILD_PARAMS, BUILD_ARGS,
                glcollide_ode_trimesh_data_build_double BUILD_ARGS)
INTERPOSE_BUILD(dGeomTriMeshDataBuildDouble1, BUILD_PARAMS1, BUILD_ARGS1,
                glcollide_ode_trimesh_data_build_double BUILD_ARGS)

/* The Simple builds take dVector3 vertices (4 dReal apart) and dTriIndex triples. */
#ifdef dDOUBLE
#define register_simple glcollide_ode_trimesh_data_build_double
#else
#define register_simple glcollide_ode_trimesh_data_build_single
#endif
INTERPOSE_BUILD(dGeomTriMeshDataBuildSimple,
                (dTriMeshDataID g, const dReal *vertices, int vertex_count,
                 const dTriIndex *indices, int index_count),
                (g, vertices, vertex_count, indices, index_count),
                register_simple(g, vertices, (int)sizeof(dVector3), vertex_count, indices,
                                index_count, (int)(3 * sizeof(dTriIndex))))
INTERPOSE_BUILD(dGeomTriMeshDataBuildSimple1,
                (dTriMeshDataID g, const dReal *vertices, int vertex_count,
                 const dTriIndex *indices, int index_count, const int *normals),
                (g, vertices, vertex_count, indices, index_count, normals),
                register_simple(g, vertices, (int)sizeof(dVector3), vertex_count, indices,
                                index_count, (int)(3 * sizeof(dTriIndex))))

GLCOLLIDE_PRELOAD_API void dGeomTriMeshDataDestroy(dTriMeshDataID data)
{
    if (enabled())
        glcollide_ode_trimesh_data_forget(data);
    void (*real)(dTriMeshDataID) = (void (*)(dTriMeshDataID))next("dGeomTriMeshDataDestroy");
    if (real)
        real(data);
}
