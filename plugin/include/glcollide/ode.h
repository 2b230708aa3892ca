/* SPDX-License-Identifier: MIT */
/*
 * glcollide for the Open Dynamics Engine (pkg-config glcollide-ode).
 * Uses ODE types only; include after or instead of <ode/ode.h>.
 *
 * One-line use: after dInitODE2, call glcollide_ode_init(); create spaces with
 * glcollide_ode_space_create (or keep yours, of any kind) and call
 * glcollide_ode_space_collide where you called dSpaceCollide. Trimesh-trimesh
 * contacts then come from glcollide (exact triangle tests on candidates from
 * the GPU, or a CPU BVH), and so do a trimesh's contacts with planes, boxes,
 * spheres, capsules, cylinders and rays (the trimesh's BVH against the exact
 * primitive), through dCollide as usual. Zero-code use:
 * LD_PRELOAD=libglcollide-ode-preload.so ./your_ode_program.
 *
 * Threads: independent worlds may be stepped on separate threads at once,
 * each with its own spaces (as ODE asks: dAllocateODEDataForThread per
 * thread, and a stepping implementation per world). Thread-safe:
 * glcollide_ode_space_collide, glcollide_ode_collide and dCollide's trimesh
 * pairs, the trimesh_data functions, glcollide_ode_set_gpu, has_gpu and the
 * statistics. Each thread has its own buffers and this step's candidates;
 * the registry of trimesh data is shared under a lock, and the one GL
 * context is used by one thread at a time (made current for a query, then
 * the thread's previous EGL context is current again). Not thread-safe: one
 * space (or two spaces sharing geoms) collided from two threads at once, and
 * changing a trimesh data (rebuild, dGeomTriMeshDataUpdate,
 * glcollide_ode_trimesh_data_changed, _forget) while another thread
 * collides geoms that use it: ODE's own rules. glcollide_ode_init and
 * glcollide_ode_shutdown may be called from any thread, but not while other
 * threads collide.
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
 * Starts the plugin: installs glcollide's trimesh-trimesh collider and its
 * trimesh colliders for planes, boxes, spheres, capsules, cylinders and rays
 * (unless turned off, glcollide_ode_set_primitive_contacts) for dCollide
 * (dSetColliderOverride, both argument orders) and lets spaces cull trimesh
 * pairs on the GPU. No GL context is made here: one is made when a space first has a
 * trimesh pair to cull on the GPU (see glcollide_ode_set_gpu); when none can
 * be had, that is logged once and the CPU path serves. Calls are counted,
 * as ODE counts dInitODE2: each is matched by a glcollide_ode_shutdown.
 * Returns 0. Call after dInitODE2.
 *
 * Without it (before, or after the last shutdown) glcollide_ode_collide and
 * glcollide_ode_space_collide still work, on the CPU; only dCollide keeps
 * ODE's own trimesh-trimesh collider.
 */
GLCOLLIDE_ODE_API int glcollide_ode_init(void);

/* The last of them (one per glcollide_ode_init) gives trimesh pairs back to
 * ODE's own colliders (a warning is logged for any of them libode does not
 * export, whose pairs then get no contacts from dCollide) and releases the GL context, the captured
 * meshes and their registrations, and the calling thread's buffers (other threads' go when those
 * threads end). Safe when not started. */
GLCOLLIDE_ODE_API void glcollide_ode_shutdown(void);

/* 1 while the plugin holds a working GL context, 0 otherwise (none needed
 * yet, CPU only, or none could be had). */
GLCOLLIDE_ODE_API int glcollide_ode_has_gpu(void);

/*
 * When the space culls trimesh pairs on the GPU (FAR, reliable):
 * AUTO (default): where it measured faster. No context is tried on a machine
 * without a GPU device (/dev/dri/renderD*, /dev/nvidiactl), nor kept on a
 * software renderer (llvmpipe: the same cores, slower than the CPU BVH)
 * unless glcollide_ode_set_calibrate_software(1). Otherwise the first steps
 * with trimesh pairs are the benchmark: one GPU step to upload the meshes,
 * then 3 steps on each path, alternating, each timed whole (space collide
 * and callbacks); the path with the smaller median is kept and one line is
 * logged (info) with both figures and the choice. Measured again when the
 * space has twice the geoms it was measured with. Either path gives the same
 * contacts (both are exact after culling). ALWAYS: whenever a context can be
 * made (llvmpipe included); NEVER: CPU only. The context is made when a
 * trimesh pair first needs it; NEVER (and AUTO, where it chose the CPU)
 * gives it back (and the driver's memory with it). A new mode lets a
 * context refused before be tried again and measures again.
 * The preload reads it from GLCOLLIDE_GPU=auto|never|always.
 */
enum { GLCOLLIDE_ODE_GPU_AUTO = -1, GLCOLLIDE_ODE_GPU_NEVER = 0, GLCOLLIDE_ODE_GPU_ALWAYS = 1 };
GLCOLLIDE_ODE_API void glcollide_ode_set_gpu(int mode);
/* AUTO on a software renderer, or on a machine without a GPU device: 1 makes
 * the context and measures it like any other (tests, or to see the
 * figures), 0 (default) uses the CPU without measuring. */
GLCOLLIDE_ODE_API void glcollide_ode_set_calibrate_software(int enabled);
/* AUTO's choice so far: undecided (measuring or not yet started), GPU, CPU. */
enum { GLCOLLIDE_ODE_AUTO_UNDECIDED = 0, GLCOLLIDE_ODE_AUTO_GPU = 1, GLCOLLIDE_ODE_AUTO_CPU = 2 };
GLCOLLIDE_ODE_API int glcollide_ode_auto_choice(void);

/*
 * Interference flags from the stencil method (Knott's CInDeR): while the
 * space culls trimesh pairs on the GPU, one stencil pass per step over the
 * same trimesh objects (when all are closed solids) tells which pairs
 * interpenetrate, containment included, at this viewport resolution
 * (0, the default: no pass; GLCOLLIDE_ODE_STENCIL_RESOLUTION is a fair
 * choice). Off by default because it changes no answer and costs a
 * rendering of every trimesh object per step. A flag only adds:
 * a pair the GPU culling finds no triangle pair for, flagged, goes to the
 * callback and to the exact containment test (its push-out contacts); a pair
 * not flagged gets the exact test wherever containment is possible (at
 * finite resolution the stencil can miss a small or hidden contained solid),
 * so the contacts are those of the CPU path, flags or not. Without a GPU the
 * exact point-in-solid test alone serves. Counted in glcollide_ode_stats.
 * The preload reads GLCOLLIDE_STENCIL=RESOLUTION.
 */
enum { GLCOLLIDE_ODE_STENCIL_RESOLUTION = 256 };
GLCOLLIDE_ODE_API void glcollide_ode_set_stencil_flags(int resolution);

/* A simple space (dSimpleSpaceCreate) to use with glcollide_ode_space_collide;
 * usable with dSpaceAdd, dSpaceRemove, nesting, dSpaceDestroy as any space. */
/*
 * The threads the glcollide space may use for a step's narrow phase (the
 * calling thread included; 1: none but it). 0 gives back the library's
 * count (glcollide_workers_count: GLCOLLIDE_THREADS, else the CPUs this
 * process may run on, at most 16). Before each step's first near callback,
 * the space computes the contacts of the trimesh-trimesh and
 * trimesh-primitive pairs it is about to hand over on that many threads;
 * the dCollide calls of the callback then take them. What dCollide returns
 * (count, order, every bit) is what it returns with 1 thread. A count
 * outside 0..GLCOLLIDE_WORKERS_MAX is logged and ignored. Thread-safe.
 */
GLCOLLIDE_ODE_API void glcollide_ode_set_threads(int count);
/* The count the space uses now. */
GLCOLLIDE_ODE_API int glcollide_ode_threads(void);

GLCOLLIDE_ODE_API dSpaceID glcollide_ode_space_create(dSpaceID parent);

/*
 * dSpaceCollide's contract on a space of any kind (simple, hash,
 * sweep-and-prune, quadtree): calls callback(data, o1, o2) once for each
 * unordered pair of enabled, non-zero-sized geoms of the space whose AABBs
 * overlap (inclusive), skipping geoms on the same non-null body and pairs
 * whose category/collide bits do not match; nested spaces are reported as
 * geoms; a pair with a geom of a class of the program's own is handed over
 * only if the classes' aabb_test let it (ODE's own test, through
 * dSpaceCollide2). Pairs come in dSimpleSpace's order: by the space's list,
 * (earlier, later). The space's geoms are listed by colliding it with a plane
 * whose box is infinite (dSpaceCollide2), so a class's aabb_test is also
 * asked about that plane with an infinite box: it must not refuse it. It is
 * not asked about nested spaces (their pairs with such a geom are handed
 * over when the boxes overlap).
 * Sweep-and-prune on the boxes (exact), then, for pairs of two trimeshes, GPU
 * culling removes the pairs whose surfaces provably do not touch (FAR; a
 * trimesh is a surface for ODE's trimesh collider too). Trimesh boxes come
 * from glcollide's captured vertices, so they stay right for deforming
 * meshes. Geoms should not be moved from inside the callback (ODE's spaces
 * abort; glcollide's would report stale boxes).
 */
GLCOLLIDE_ODE_API void glcollide_ode_space_collide(dSpaceID space, void *data,
                                                   dNearCallback *callback);

/*
 * Same contract as dSpaceCollide2: the pairs ODE would hand over (a space
 * with itself: glcollide_ode_space_collide; a space with a geom or with
 * another space: each geom of the smaller side against the other space's
 * enabled geoms), found by glcollide's sweep-and-prune between the two
 * sides, in dSimpleSpace's order, their trimesh pairs' contacts computed
 * ahead on the worker threads as for a space's own pairs. Two geoms,
 * quadtree spaces, a sweep-and-prune space on the side ODE iterates (its
 * geoms cannot be listed in that order) and classes of the program's own
 * (their aabb_test is ODE's to call) are left to ODE's dSpaceCollide2.
 */
GLCOLLIDE_ODE_API void glcollide_ode_space_collide2(dGeomID o1, dGeomID o2, void *data,
                                                    dNearCallback *callback);

/*
 * dCollide's contract. For two trimeshes: candidate triangle pairs (this
 * step's GPU culling on this thread, while both geoms keep the mesh and the
 * transform they were culled with; otherwise a CPU BVH), exact
 * triangle-triangle tests, contacts (pos, normal, depth, g1 = o1, g2 = o2,
 * side1/side2 = triangle indices) reduced to at most flags & 0xffff, deepest
 * first and spread, in a deterministic order. A trimesh with a plane, box,
 * sphere, capsule, cylinder or ray, in either order: glcollide's collider
 * (see glcollide_ode_set_primitive_contacts), also before glcollide_ode_init
 * and after the last shutdown. Other pairs: ODE's dCollide.
 */
GLCOLLIDE_ODE_API int glcollide_ode_collide(dGeomID o1, dGeomID o2, int flags,
                                            dContactGeom *contact, int skip);

/*
 * Whether a trimesh's pairs with ODE's primitives get glcollide's contacts
 * (1, the default) or ODE's own colliders (0), for dCollide (the colliders
 * are installed or given back at once when started) and
 * glcollide_ode_collide. glcollide's: the trimesh's object-space BVH against
 * the exact primitive brought into the mesh's frame (no per-step transform
 * of the mesh: a mesh resting on a plane costs in proportion to the
 * triangles near it), one normal per contact region with up to 4 points
 * spread over it (the count does not grow with the caller's buffer), depths
 * never more than the overlap along the normal, side1 = the triangle, side2
 * = -1, deterministic and stable from step to step. A sphere's region gets
 * one point, a capsule's the ends of its line, a box's or cylinder's up to
 * 4 corners of the face it rests on. A trimesh geom with an ODE triangle
 * callback set keeps ODE's collider. Rays follow ODE's trimesh-ray contract
 * (closest hit, first contact, back-face culling, all hits nearest first).
 * The preload reads it from GLCOLLIDE_PRIMITIVES=0|1. Thread-safe; not
 * while other threads collide.
 */
GLCOLLIDE_ODE_API void glcollide_ode_set_primitive_contacts(int enabled);

/* Call after changing the vertices of a trimesh data (deforming meshes), as
 * with dGeomTriMeshDataUpdate: glcollide captures them again. A data rebuilt
 * with another triangle count is noticed without it; one rebuilt from other
 * arrays of the same size is not (register them again, below). */
GLCOLLIDE_ODE_API void glcollide_ode_trimesh_data_changed(dTriMeshDataID data);

/*
 * Tells glcollide the arrays a trimesh data was built from: call with the
 * same arguments right after dGeomTriMeshDataBuildDouble (or ...Single).
 * glcollide then reads them directly: exact vertices, shared as in the
 * arrays, and a cheap re-read after glcollide_ode_trimesh_data_changed.
 * Without it, data are captured through dGeomTriMeshGetTriangle, which hands
 * out OPCODE's float copies of the vertices (about 6e-8 relative error,
 * contacts off by as much). The arrays must stay valid as long as ODE's copy
 * of the pointers does. Double vertices three to a stride with indices three
 * to a stride (as ODE's demos build them) are used in place, as ODE uses
 * them, not copied; other layouts are copied. Either way, vertices changed
 * in place are seen after glcollide_ode_trimesh_data_changed (a non-finite
 * one, or an index out of range, is logged and the data collides with
 * nothing until it is fixed and glcollide told again). Bad arguments are
 * logged and the data is captured through ODE instead. The preload library
 * calls these for every build.
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
    double cull_ms, contact_ms;            /* time in GPU culling and contact generation */
    unsigned long long gl_contexts;        /* GL contexts made (on first need) */
    unsigned long long primitive_collides; /* trimesh-primitive (and ray) contact generations */
    unsigned long long primitive_contacts; /* contacts (and ray hits) they returned */
    unsigned long long upload_bytes; /* CPU->GPU by GPU culling (meshes on first use or change) */
    /* The stencil flags pass (glcollide_ode_set_stencil_flags): passes run,
     * and over the trimesh pairs it covered, those it flagged, those the
     * exact path found touching or contained that it did not flag (missed),
     * and those it flagged that the exact path found apart (extra). */
    unsigned long long stencil_passes, stencil_flagged, stencil_missed, stencil_extra;
    double stencil_ms; /* time in the stencil pass */
    /* Pairs whose contacts a space computed ahead on worker threads, and
     * the dCollide calls that took such an answer (the rest computed their
     * own: another buffer's geoms order, a pair moved since, ...). */
    unsigned long long ahead_pairs, ahead_served;
    unsigned long long space_collide2s; /* glcollide_ode_space_collide2 calls it served */
} glcollide_ode_stats;

/* Counters since the first glcollide_ode_init (or the last reset), all
 * threads together. */
GLCOLLIDE_ODE_API void glcollide_ode_get_stats(glcollide_ode_stats *stats);
GLCOLLIDE_ODE_API void glcollide_ode_reset_stats(void);

#ifdef __cplusplus
}
#endif

#endif
