/* SPDX-License-Identifier: MIT */
/*
 * glcollide: GPU (OpenGL) collision detection with exact CPU twins.
 *
 * Conventions for every function in this header:
 * - Fallible functions return GLCOLLIDE_OK (0) or a negative glcollide_status
 *   and log one message through the log callback naming the layer and cause.
 *   Nothing here calls exit() or abort().
 * - Objects made by glcollide_X_create/load are released by glcollide_X_destroy(&p),
 *   which accepts NULL (or a pointer to NULL) and clears the handle.
 * - Unless stated, functions are thread-compatible: distinct objects may be used
 *   from distinct threads; one object must not be used from two threads at once.
 *   The log callback setting is global.
 * - Coordinates are double on the CPU side. GPU buffers are float, expressed
 *   relative to a per-query origin and scaled by a power of two into [-1, 1],
 *   so that any finite scene double holds is answered as at scale 1.
 */
#ifndef GLCOLLIDE_GLCOLLIDE_H
#define GLCOLLIDE_GLCOLLIDE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GLCOLLIDE_BUILDING) && defined(__GNUC__)
#define GLCOLLIDE_API __attribute__((visibility("default")))
#else
#define GLCOLLIDE_API
#endif

/* ---------------------------------------------------------------- status */

typedef enum glcollide_status {
    GLCOLLIDE_OK = 0,
    GLCOLLIDE_ERROR_INVALID_ARGUMENT = -1, /* NULL where an object is needed, bad option value */
    GLCOLLIDE_ERROR_OUT_OF_MEMORY = -2,
    GLCOLLIDE_ERROR_IO = -3,    /* a file could not be opened or read */
    GLCOLLIDE_ERROR_PARSE = -4, /* malformed file; the message says file:line */
    GLCOLLIDE_ERROR_INVALID_MESH =
        -5, /* non-finite coordinates, bad indices, not a closed solid... */
    GLCOLLIDE_ERROR_NO_CONTEXT = -6,     /* no EGL display/context could be made */
    GLCOLLIDE_ERROR_GL_UNSUPPORTED = -7, /* GL version or extension below what is needed */
    GLCOLLIDE_ERROR_GL = -8,             /* a GL call failed (glGetError, incomplete FBO, shader) */
    GLCOLLIDE_ERROR_UNAVAILABLE = -9,    /* method or option not available in this build */
    GLCOLLIDE_ERROR_LIMIT = -10          /* a size limit was exceeded (objects, triangles) */
} glcollide_status;

/* A static English string for a status ("out of memory"); "unknown status" for others. */
GLCOLLIDE_API const char *glcollide_status_string(int status);

/* ---------------------------------------------------------------- logging */

typedef enum glcollide_log_level {
    GLCOLLIDE_LOG_ERROR = 0,
    GLCOLLIDE_LOG_WARNING = 1,
    GLCOLLIDE_LOG_INFO = 2,
    GLCOLLIDE_LOG_DEBUG = 3
} glcollide_log_level;

/* message: one line without a trailing newline, valid only during the call. */
typedef void (*glcollide_log_fn)(glcollide_log_level level, const char *message, void *user);

/*
 * Sets where messages go. NULL restores the default, which writes
 * "glcollide: <level>: <message>" to stderr. Messages above max_level are
 * dropped (default GLCOLLIDE_LOG_WARNING; GLCOLLIDE_LOG env variable may name
 * error|warning|info|debug). Not thread-safe with respect to concurrent logging.
 */
GLCOLLIDE_API void glcollide_set_log_callback(glcollide_log_fn fn, void *user);
GLCOLLIDE_API void glcollide_set_log_level(glcollide_log_level max_level);
/*
 * Sends one message (printf format; one line, no trailing newline, truncated
 * at a few KiB) where the library's own go: for layers built on glcollide,
 * such as the ODE plugin, so that one callback sees everything.
 */
GLCOLLIDE_API void glcollide_log(glcollide_log_level level, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---------------------------------------------------------------- threads */

/*
 * Worker threads, one pool per process, shared by every caller: the world's
 * queries (glcollide_query_options.threads) and the ODE plugin's narrow
 * phase. Answers never depend on the number of threads.
 *
 * The count is the number of threads a job may use, the calling thread
 * included: 1 means no worker thread at all. Default: GLCOLLIDE_THREADS in
 * the environment when it holds a whole number from 1 to
 * GLCOLLIDE_WORKERS_MAX (else a warning and the next rule), otherwise the
 * CPUs this process may run on (sched_getaffinity), at most 16. Workers are
 * made on first need and parked between jobs; a forked child makes its own
 * only when it first needs them. A job that finds the pool busy with another
 * thread's job runs on its caller's thread alone, so several threads using
 * glcollide at once never make more threads than the count.
 */
#define GLCOLLIDE_WORKERS_MAX 256
/* The count jobs use now. Thread-safe. */
GLCOLLIDE_API int glcollide_workers_count(void);
/* Sets it (0: the default above). Errors: INVALID_ARGUMENT outside 0..MAX.
 * Thread-safe; a job already running keeps its own. */
GLCOLLIDE_API int glcollide_workers_set_count(int count);
/* The CPUs this process may run on, at most 16: the default without
 * GLCOLLIDE_THREADS. */
GLCOLLIDE_API int glcollide_workers_default_count(void);

/* Task index of count (0..count-1), on worker 0..threads-1: worker numbers a
 * job's scratch memory; two tasks never run on one worker at once. */
typedef void (*glcollide_task_fn)(void *user, size_t index, int worker);
/*
 * Runs fn for every index 0..count-1 on up to max_threads threads (0: the
 * count above), the calling thread taking part as worker 0, and returns
 * when all are done. Tasks must be independent: each writes only what
 * belongs to its index (or to its worker). The order in which tasks run is
 * not fixed. Errors: INVALID_ARGUMENT (no fn with tasks to run).
 */
GLCOLLIDE_API int glcollide_workers_run(size_t count, int max_threads, glcollide_task_fn fn,
                                        void *user);
/*
 * Says that jobs for up to max_threads threads (0: the count above) are
 * near, after some serial work of the caller's own: parked workers wake now
 * and, for about a millisecond, look for the next job instead of parking
 * (also after a job they finish in that time). Waking a parked thread takes
 * tens of microseconds on a virtual machine; this overlaps it with the
 * caller's work. Does nothing when max_threads is 1 or the pool is running
 * another thread's job. Thread-safe; the answers never depend on it.
 */
GLCOLLIDE_API void glcollide_workers_rouse(int max_threads);

/* ---------------------------------------------------------------- meshes */

/*
 * A triangle mesh in its own (object) space. Fields are read-only for users,
 * except that positions may be rewritten in place for deforming meshes (same
 * topology); call nothing else on the mesh while doing so.
 */
typedef struct glcollide_mesh {
    double *positions;   /* 3 * vertex_count, x y z */
    uint32_t *triangles; /* 3 * triangle_count vertex indices, counter-clockwise = outward */
    size_t vertex_count;
    size_t triangle_count;
    char *name; /* file path or generator name, for messages */
} glcollide_mesh;

typedef enum glcollide_mesh_format {
    GLCOLLIDE_MESH_FORMAT_AUTO = 0, /* from the file extension, then from the content */
    GLCOLLIDE_MESH_FORMAT_OFF,
    GLCOLLIDE_MESH_FORMAT_OBJ,
    GLCOLLIDE_MESH_FORMAT_STL /* ASCII or binary, told apart by content */
} glcollide_mesh_format;

/*
 * Makes a mesh from copies of the arrays. Errors: INVALID_ARGUMENT for NULL
 * arrays with non-zero counts, INVALID_MESH for an index >= vertex_count or a
 * non-finite coordinate (the message names the triangle or vertex). An empty
 * mesh (no triangles) is allowed. name may be NULL.
 */
GLCOLLIDE_API int glcollide_mesh_create(const double *positions, size_t vertex_count,
                                        const uint32_t *triangles, size_t triangle_count,
                                        const char *name, glcollide_mesh **out);

/*
 * Loads an OFF, OBJ or STL file. Polygons are fan-triangulated; STL vertices
 * are welded where their coordinates are bit-identical so that closedness can
 * be checked. Coordinates are multiplied by scale (> 0 and finite; a
 * coordinate the scale pushes beyond the range of double or below its normal
 * range is an error). Only regular files are read: directories, FIFOs,
 * devices and sockets are refused before any byte is read (no hang, no
 * endless /dev/zero). A UTF-8 byte order mark before a text format is
 * skipped. Errors: IO (cannot open/read, not a regular file), PARSE with
 * "path:line: what" (binary STL records: "path: triangle N: what"),
 * INVALID_MESH for non-finite or out-of-range coordinates or bad indices
 * (also with file:line). *out is untouched on error.
 */
GLCOLLIDE_API int glcollide_mesh_load(const char *path, double scale, glcollide_mesh **out);

/*
 * Same as glcollide_mesh_load on a buffer in memory; name is used in messages
 * (as the "path"). format must not be AUTO unless the buffer is binary STL
 * or starts with "OFF"/"solid".
 */
GLCOLLIDE_API int glcollide_mesh_parse(const void *data, size_t size, glcollide_mesh_format format,
                                       const char *name, double scale, glcollide_mesh **out);

/*
 * Moves mesh so that its box is centred on the origin and scales it so that
 * the box's largest side is size (> 0, finite), in place: x' = (x - centre) *
 * size / largest_side. Errors: INVALID_ARGUMENT (NULL, bad size, no vertices
 * or a box of zero or non-finite size).
 */
GLCOLLIDE_API int glcollide_mesh_fit(glcollide_mesh *mesh, double size);

/* Writes an OFF file. */
GLCOLLIDE_API int glcollide_mesh_save_off(const glcollide_mesh *mesh, const char *path);

GLCOLLIDE_API void glcollide_mesh_destroy(glcollide_mesh **mesh);

/*
 * Finds a data mesh by file name (e.g. "bunny00.off"): $GLCOLLIDE_MESH_DIR,
 * then $XDG_CACHE_HOME/glcollide/meshes (default ~/.cache/glcollide/meshes),
 * where tests/cgal-meshes.sh extracts Debian's libcgal-demo meshes. Writes the
 * path into buf (size bytes). Returns OK, IO if not found (logged with the
 * directories tried), LIMIT if buf is too small.
 */
GLCOLLIDE_API int glcollide_mesh_find_data(const char *file_name, char *buf, size_t size);

typedef struct glcollide_mesh_report {
    size_t boundary_edges;       /* undirected edges used by exactly one triangle */
    size_t nonmanifold_edges;    /* undirected edges used by three or more triangles */
    size_t misoriented_edges;    /* edges two triangles traverse in the same direction */
    size_t degenerate_triangles; /* repeated or exactly collinear vertices (zero area) */
    size_t nonfinite_vertices;   /* NaN or infinite coordinates */
    size_t unreferenced_vertices;
    double signed_volume; /* > 0 for a closed mesh with outward normals; may overflow to
                             inf or underflow to 0 when the volume itself is beyond the
                             range of double (closed is decided at a scale where it is not) */
    double bounds_min[3], bounds_max[3]; /* of referenced finite vertices */
    int closed; /* 1: edge-manifold, consistently oriented, no boundary, no degenerate
                   or non-finite data, positive volume: a solid the algorithms accept */
} glcollide_mesh_report;

/* Fills report. Errors: INVALID_ARGUMENT, OUT_OF_MEMORY. Logs nothing. */
GLCOLLIDE_API int glcollide_mesh_validate(const glcollide_mesh *mesh,
                                          glcollide_mesh_report *report);

/*
 * Checks that mesh is a closed solid (report.closed). Returns OK, or
 * INVALID_MESH with one message naming the mesh and the first defects
 * ("bunny.off: not a closed solid: 12 boundary edges, 1 degenerate triangle").
 * report may be NULL.
 */
GLCOLLIDE_API int glcollide_mesh_require_solid(const glcollide_mesh *mesh,
                                               glcollide_mesh_report *report);

/*
 * Counts the self-intersections of mesh: unordered pairs of its triangles
 * whose closed point sets meet anywhere other than at the vertices and edge
 * they share by index. Triangles sharing an edge are fine unless they are
 * coplanar and folded onto each other (third vertices on the same side of the
 * edge); triangles sharing one vertex are fine if they meet only there;
 * triangles sharing nothing must not even touch (distinct vertices at one
 * position count). A closed mesh (glcollide_mesh_require_solid) with a
 * count of 0 bounds a solid in the plain sense; with a count above 0 it is a
 * solid where it winds (nonzero winding number, glcollide_point_in_mesh),
 * and the stencil and convex methods, told so, count it that way.
 * Triangles of zero area (repeated or exactly collinear vertices) are not
 * tested: glcollide_mesh_validate counts them. Exact orientation predicates
 * decide; a triangle BVH finds the candidates: O(n log n + k) for n
 * triangles and k pairs with overlapping boxes. first (may be NULL)
 * receives the smallest intersecting pair (i < j, lexicographic) when
 * *count > 0, for messages. Logs nothing unless it fails. Errors:
 * INVALID_ARGUMENT (NULL mesh or count), INVALID_MESH (index out of range),
 * LIMIT (2^32 triangles or more), OUT_OF_MEMORY; *count is 0 on error.
 */
GLCOLLIDE_API int glcollide_mesh_self_intersections(const glcollide_mesh *mesh, size_t *count,
                                                    uint32_t first[2]);

/*
 * Procedural closed meshes with outward (counter-clockwise) triangles, centred
 * at the origin. Errors: INVALID_ARGUMENT for non-positive sizes or too few
 * segments (sphere: slices >= 3, stacks >= 2; torus: >= 3 each; capsule:
 * slices >= 3, stacks >= 1 per cap; knot: segments >= 3 * p and tube >= 3).
 */
GLCOLLIDE_API int glcollide_mesh_generate_box(double hx, double hy, double hz,
                                              glcollide_mesh **out);
GLCOLLIDE_API int glcollide_mesh_generate_sphere(double radius, int slices, int stacks,
                                                 glcollide_mesh **out);
/* Torus around the z axis. */
GLCOLLIDE_API int glcollide_mesh_generate_torus(double major_radius, double minor_radius,
                                                int major_segments, int minor_segments,
                                                glcollide_mesh **out);
/* Capsule along z: a cylinder of half-length half_length capped by hemispheres. */
GLCOLLIDE_API int glcollide_mesh_generate_capsule(double radius, double half_length, int slices,
                                                  int cap_stacks, glcollide_mesh **out);
/* (p, q) torus knot of the given radius with a circular tube (p, q coprime, q >= 2). */
GLCOLLIDE_API int glcollide_mesh_generate_knot(int p, int q, double radius, double tube_radius,
                                               int segments, int tube_segments,
                                               glcollide_mesh **out);

/* ---------------------------------------------------------------- GL context */

typedef struct glcollide_context glcollide_context;

/* What the current context offers, probed once at creation. */
typedef struct glcollide_gl_caps {
    int gl_version;   /* e.g. 45 for 4.5 */
    int glsl_version; /* e.g. 450 */
    int max_texture_size;
    int max_samples;
    int max_ssbo_bindings;
    int stencil_bits; /* of the FBO glcollide renders into */
    int depth_bits;
    int has_clip_control;        /* GL 4.5 / ARB_clip_control: [0,1] depth for precision */
    int has_query_buffer_object; /* GL 4.4 / ARB_query_buffer_object */
    int has_conservative_raster; /* NV_/INTEL_conservative_rasterization */
    int has_shader_interlock;    /* ARB_fragment_shader_interlock */
    char renderer[128];
    char version_string[128];
    /* The largest viewport side glcollide renders at: the smallest of the
     * texture size, framebuffer and viewport limits. */
    int max_resolution;
    /* GL storage one query may take (its framebuffers and pixel buffers),
     * bytes; 0 when unknown (then only GL_OUT_OF_MEMORY tells). From
     * GLCOLLIDE_GL_MEMORY (MiB) when set, else half of the GPU memory the
     * driver reports (NVX_gpu_memory_info, ATI_meminfo), else, on a software
     * renderer (llvmpipe renders in host memory, beside the program), an
     * eighth of the host's memory. */
    uint64_t memory_budget;
    char memory_budget_source[64]; /* where memory_budget comes from, for messages */
} glcollide_gl_caps;

/*
 * Minimum GL glcollide needs: 4.3 core (compute shaders, SSBOs, atomic
 * counters, multi-draw indirect), so that every GPU query runs in a number of
 * draw calls and GPU->CPU synchronisations that does not grow with the number
 * of objects. Older contexts give GL_UNSUPPORTED, never an abort.
 */
#define GLCOLLIDE_GL_VERSION_MIN 43

/*
 * Makes a headless context: EGL on EGL_PLATFORM_SURFACELESS_MESA (falls back to
 * EGL_DEFAULT_DISPLAY through eglGetDisplay), OpenGL core >= 4.3, no surface
 * (rendering goes to glcollide's own framebuffer objects). The context is
 * current on the calling thread on return and stays owned by glcollide; it is
 * left with default GL state after each glcollide call.
 * Errors: NO_CONTEXT (no EGL library, display, config or context; the message
 * names the EGL call and error), GL_UNSUPPORTED (version below the minimum).
 */
GLCOLLIDE_API int glcollide_context_create_egl(glcollide_context **out);

/*
 * Wraps the caller's context, which must be current on the calling thread (for
 * instance a GLFW window's). glcollide makes no context current; each entry
 * point saves and restores the GL state it touches (bindings, enables, masks,
 * viewport, program). The caller keeps ownership of the context.
 * Errors: NO_CONTEXT (none current), GL_UNSUPPORTED.
 */
GLCOLLIDE_API int glcollide_context_wrap_current(glcollide_context **out);

/* Releases glcollide's GL objects (making an owned context current first) and
 * the EGL context if glcollide made it. */
GLCOLLIDE_API void glcollide_context_destroy(glcollide_context **context);

/* Makes an owned context current on the calling thread (no-op when wrapped). */
GLCOLLIDE_API int glcollide_context_make_current(glcollide_context *context);

/*
 * For an owned context shared by several threads, one at a time under the
 * caller's lock: acquire makes it current on the calling thread and notes
 * what EGL had current there before; release makes that current again (or
 * no context), so that another thread can take it next. A context just made
 * by glcollide_context_create_egl can be released the same way. Both do
 * nothing for a wrapped context. Errors (acquire): INVALID_ARGUMENT,
 * NO_CONTEXT (eglMakeCurrent failed, logged).
 */
GLCOLLIDE_API int glcollide_context_acquire(glcollide_context *context);
GLCOLLIDE_API void glcollide_context_release(glcollide_context *context);

GLCOLLIDE_API const glcollide_gl_caps *glcollide_context_caps(const glcollide_context *context);

/* 1 if glcollide created the context (EGL), 0 if it wraps the caller's. */
GLCOLLIDE_API int glcollide_context_is_owned(const glcollide_context *context);

/*
 * Renders a known scene (two overlapping triangles into a 64x64 depth/stencil
 * FBO) and checks the depth test, two-sided stencil counting, an occlusion
 * query and an SSBO write by fragments against their analytic results, so a
 * broken driver is reported before any algorithm trusts it. Touches: the
 * states saved by a wrapped context. Errors: GL (with what disagreed).
 */
GLCOLLIDE_API int glcollide_context_self_test(glcollide_context *context);

/*
 * Bytes of GL storage (buffers and textures) glcollide has allocated in this
 * process, all contexts together: a buffer counts at its current size as it
 * grows, a texture when created; releases are not subtracted (glcollide's
 * caches live as long as their context), so with one context per process it
 * is the high-water mark of glcollide's GPU memory. Driver overheads (and
 * the caller's own objects) are not included. Thread-safe.
 */
GLCOLLIDE_API uint64_t glcollide_gl_storage_allocated(void);

/* ---------------------------------------------------------------- poses and objects */

/* A rigid placement: world = R(rotation) * local + translation. The one
 * pose type: objects, contact solids and primitives hold one. */
typedef struct glcollide_pose {
    double translation[3];
    double rotation[4]; /* unit quaternion w x y z */
} glcollide_pose;

/* An instance of a mesh: the index of its mesh in the world and its pose. */
typedef struct glcollide_object {
    uint32_t mesh; /* index into the world's meshes */
    glcollide_pose pose;
} glcollide_object;

/* The rotation of pose as a row-major 3x3 matrix (world = m * local +
 * translation); the quaternion is used as given (a unit one gives a
 * rotation). */
GLCOLLIDE_API void glcollide_pose_rotation_matrix(const glcollide_pose *pose, double m[9]);
/* count points (3 doubles each) placed by pose into out (caller-allocated;
 * out may be points). */
GLCOLLIDE_API void glcollide_pose_transform_points(const glcollide_pose *pose, const double *points,
                                                   size_t count, double *out);

/* ---------------------------------------------------------------- queries */

typedef enum glcollide_method {
    GLCOLLIDE_METHOD_EXACT = 0, /* CPU oracle: BVH + exact triangle tests + containment */
    GLCOLLIDE_METHOD_SAP,       /* CPU sweep-and-prune on AABBs (candidates, not contacts) */
    GLCOLLIDE_METHOD_CULLIDE,
    GLCOLLIDE_METHOD_FAR,
    GLCOLLIDE_METHOD_STENCIL,
    GLCOLLIDE_METHOD_CONVEX
} glcollide_method;

typedef enum glcollide_level {
    GLCOLLIDE_LEVEL_OBJECTS = 0,
    GLCOLLIDE_LEVEL_TRIANGLES = 1
} glcollide_level;

/* The method named "exact", "sap", "cullide", "far", "stencil" or "convex"
 * into *method. Errors: INVALID_ARGUMENT (an unknown name, logged with the
 * names known; NULL), *method untouched. */
GLCOLLIDE_API int glcollide_method_from_name(const char *name, glcollide_method *method);
GLCOLLIDE_API const char *glcollide_method_name(glcollide_method method);

/* A pair of indices: objects (a < b) in results, triangles (of A, of B) in
 * candidates. The one pair type of the library. */
typedef struct glcollide_index_pair {
    uint32_t a, b;
} glcollide_index_pair;

typedef struct glcollide_query_options {
    glcollide_method method;
    glcollide_level level;
    int resolution;  /* image-space methods: viewport side in pixels */
    double distance; /* report pairs at most this far apart (>= 0; glcollide_world_distance's
                        distance); 0 = touching */
    /* Threads the CPU stages may use (the exact method's object pairs): 0
     * the library's count (glcollide_workers_count), 1 the calling thread
     * alone. The answer is the same for any count. */
    int threads;
    /* The object pairs to consider, in place of the sweep over every
     * object's box (NULL: the sweep). Each (a, b) has a < b < the world's
     * object count, sorted by (a, b), none twice (else INVALID_ARGUMENT).
     * A pair given is tested as a swept one would be (its boxes must still
     * overlap, within distance), so the answer is the swept answer's pairs
     * among those given - except CULLIDE's and FAR's candidates, which
     * depend on the objects drawn (those of the pairs given): FAR's still
     * hold every pair that touches. A program with a broad phase of its
     * own (an ODE space) passes the pairs it found and the objects are not
     * swept again. pair_count 0 with pairs not NULL: no pair. */
    const glcollide_index_pair *pairs;
    size_t pair_count;
} glcollide_query_options;

/* Defaults: exact, objects, resolution 1024, distance 0, threads 0, pairs
 * NULL (the sweep). */
GLCOLLIDE_API glcollide_query_options glcollide_query_default_options(void);

typedef struct glcollide_triangle_pair {
    uint32_t object_a, triangle_a; /* object_a < object_b */
    uint32_t object_b, triangle_b;
} glcollide_triangle_pair;

/* Work counters of one query. Counters that a method does not use stay 0. */
typedef struct glcollide_query_stats {
    double time_ms;          /* wall time of the query */
    uint64_t aabb_pairs;     /* object pairs whose AABBs overlap (within distance) */
    uint64_t candidates;     /* pairs handed to exact tests (objects or triangles) */
    uint64_t triangle_tests; /* exact triangle-triangle tests run */
    uint64_t draw_calls;
    uint64_t gpu_syncs; /* GPU->CPU synchronisations (readbacks, query results) */
    uint64_t readback_bytes;
    uint64_t triangles_rasterized;
    uint64_t upload_bytes; /* CPU->GPU: buffer data and uniforms (meshes on first use) */
    uint64_t compute_dispatches;
} glcollide_query_stats;

typedef struct glcollide_query_result {
    glcollide_index_pair *pairs; /* sorted by (a, b) */
    size_t pair_count;
    /* Only for GLCOLLIDE_LEVEL_TRIANGLES: grouped by object pair in the
     * order of pairs, each group sorted by (triangle_a, triangle_b), which
     * is glcollide_triangle_pair_compare's order. */
    glcollide_triangle_pair *triangle_pairs;
    size_t triangle_pair_count;
    glcollide_query_stats stats;
    /* pair_count + 1 offsets, the triangle pairs of pairs[k] being
     * triangle_pairs[pair_first[k] .. pair_first[k + 1]), so that a pair's
     * share is read in constant time (all 0 at objects level). */
    size_t *pair_first;
    /* Room in the arrays: a result passed to glcollide_world_query again
     * reuses them (a warm frame allocates nothing). */
    size_t pair_capacity, triangle_pair_capacity, pair_first_capacity;
} glcollide_query_result;

/* Frees the result's arrays and zeroes it. Accepts NULL. */
GLCOLLIDE_API void glcollide_query_result_clear(glcollide_query_result *result);

/* The orders of a result's arrays, as qsort/bsearch comparators of
 * glcollide_index_pair and glcollide_triangle_pair: (a, b), and grouped by
 * object pair, (object_a, object_b, triangle_a, triangle_b). */
GLCOLLIDE_API int glcollide_index_pair_compare(const void *x, const void *y);
GLCOLLIDE_API int glcollide_triangle_pair_compare(const void *x, const void *y);

/* ---------------------------------------------------------------- worlds */

/*
 * The world, the one container every algorithm runs on: meshes registered
 * once, objects (mesh, pose) posed frame after frame; the query methods,
 * the stencil method, Myszkowski's test and the tetra-tree's world entry
 * answer on it, and a scene file loads into one. What a mesh needs (its
 * object-space BVH, whether it is a closed solid, its GPU copy) is made
 * once, on first need, and brought up to date only when the mesh changes; a
 * frame moves poses only. docs/api.md draws the object model.
 *
 * Memory: linear in the meshes plus the objects (the exact and sap methods
 * keep no world copy of any mesh). The GPU methods still draw from world
 * positions kept per object, updated for the objects that moved.
 * Threads: one world must not be used by two threads at once.
 */
typedef struct glcollide_world glcollide_world;

/* An empty world. Errors: INVALID_ARGUMENT (out NULL), OUT_OF_MEMORY. */
GLCOLLIDE_API int glcollide_world_create(glcollide_world **out);

/*
 * Loads a scene file into a new world:
 *   # comment
 *   mesh PATH [scale S]                      OFF, OBJ or STL
 *   object MESH_INDEX TX TY TZ QW QX QY QZ   an instance: translation, unit quaternion
 * The world takes the meshes it loads (glcollide_world_mesh reads them;
 * they go with the world). A relative PATH is taken relative to the scene
 * file; if nothing is there, the data mesh directories of
 * glcollide_mesh_find_data are searched by file name. Tokens as in the mesh
 * files: blanks between them, '#' comments, a UTF-8 byte order mark skipped
 * at the start; a NUL byte is an error. Only regular files are read
 * (glcollide_mesh_load's rule). Quaternions are normalised when within 1e-6
 * of unit length (glcollide_world_add_object's rule); others are an error.
 * Errors: IO, PARSE ("scene.txt:4: object refers to mesh 5, but 2 meshes
 * are defined above"), and those of glcollide_mesh_load, whose one message
 * then starts with the scene's file:line ("scene.txt:2: cube.off:7: ...").
 * *out is untouched on error.
 */
GLCOLLIDE_API int glcollide_world_load(const char *path, glcollide_world **out);

/* Accepts NULL or a pointer to NULL; clears the handle. Destroys the meshes
 * the world loaded; the meshes registered by glcollide_world_add_mesh stay
 * the caller's. */
GLCOLLIDE_API void glcollide_world_destroy(glcollide_world **world);

/*
 * Registers mesh, which stays the caller's and must outlive the world (or
 * its replacement). Checks it once: indices in range and coordinates finite
 * (INVALID_MESH, naming the mesh), fewer than 2^32 triangles (LIMIT).
 * index (may be NULL) receives its number, 0, 1, ... Errors also
 * INVALID_ARGUMENT, OUT_OF_MEMORY.
 */
GLCOLLIDE_API int glcollide_world_add_mesh(glcollide_world *world, const glcollide_mesh *mesh,
                                           uint32_t *index);
/* Mesh index of world (NULL for an unknown one): the caller's, or one the
 * world loaded. */
GLCOLLIDE_API const glcollide_mesh *glcollide_world_mesh(const glcollide_world *world,
                                                         uint32_t mesh);
/*
 * For a mesh whose positions were rewritten in place (same topology):
 * vertices first_vertex .. first_vertex + vertex_count - 1 changed. Its BVH
 * is refit, its box and solidity taken again, and the GPU copy is updated by
 * that range when next needed. Errors: INVALID_ARGUMENT (index or range out
 * of bounds), INVALID_MESH (a non-finite coordinate in the range).
 */
GLCOLLIDE_API int glcollide_world_mesh_changed(glcollide_world *world, uint32_t index,
                                               size_t first_vertex, size_t vertex_count);
/* Puts mesh (borrowed) in the place of mesh index: for a change of topology.
 * Checked as glcollide_world_add_mesh; on error the old mesh stays. */
GLCOLLIDE_API int glcollide_world_replace_mesh(glcollide_world *world, uint32_t index,
                                               const glcollide_mesh *mesh);

/*
 * Adds an instance of mesh placed by translation and rotation (unit
 * quaternion w x y z, normalised when within 1e-6 of unit length). index
 * (may be NULL) receives its number, 0, 1, ... Errors: INVALID_ARGUMENT
 * (unknown mesh, non-finite or non-unit pose), OUT_OF_MEMORY.
 */
GLCOLLIDE_API int glcollide_world_add_object(glcollide_world *world, uint32_t mesh,
                                             const double translation[3], const double rotation[4],
                                             uint32_t *index);
/* Moves object; same checks as glcollide_world_add_object (the pose is kept
 * on error). */
GLCOLLIDE_API int glcollide_world_set_pose(glcollide_world *world, uint32_t object,
                                           const double translation[3], const double rotation[4]);
/* Removes every object (meshes and what was made for them stay). */
GLCOLLIDE_API void glcollide_world_clear_objects(glcollide_world *world);
GLCOLLIDE_API size_t glcollide_world_object_count(const glcollide_world *world);
GLCOLLIDE_API size_t glcollide_world_mesh_count(const glcollide_world *world);
/* The object's mesh index and pose (NULL for an unknown object); valid
 * until the world next changes. */
GLCOLLIDE_API const glcollide_object *glcollide_world_object(const glcollide_world *world,
                                                             uint32_t object);

/*
 * Which objects of the world (and, at triangle level, which of their
 * triangles) collide, by options->method. context may be NULL for the CPU
 * methods (exact, sap); the GPU methods need one. For METHOD_EXACT, objects
 * pair when their solids touch (surfaces intersect, or one contains the
 * other; closed meshes required for containment, open ones only pair by
 * surface contact; a solid is where its closed mesh winds,
 * glcollide_point_in_mesh) or, with distance D > 0, when their surfaces come
 * closer than D; triangle pairs are those that intersect (or are closer
 * than D). For METHOD_SAP, pairs are AABB overlaps (inflated by D/2 per
 * object) and triangle pairs are those whose triangle AABBs overlap within
 * those object pairs. The result is kept: pass the same result frame after
 * frame (zeroed before the first) and its arrays are reused; release it
 * with glcollide_query_result_clear. Pairs are sorted by (a, b); at
 * triangle level the triangle pairs are grouped by object pair in the order
 * of pairs (each group sorted by triangle_a, triangle_b) and pair_first
 * gives each group's place. On error the result is emptied (its arrays
 * kept). Errors: INVALID_ARGUMENT, UNAVAILABLE (method not built),
 * INVALID_MESH, OUT_OF_MEMORY, LIMIT (a resolution beyond the context's GL
 * limits or memory budget), and GL errors for GPU methods.
 */
GLCOLLIDE_API int glcollide_world_query(glcollide_world *world, glcollide_context *context,
                                        const glcollide_query_options *options,
                                        glcollide_query_result *result);

/* ---------------------------------------------------------------- distance */

/* A triangle index that names no triangle (glcollide_distance_result). */
#define GLCOLLIDE_NO_TRIANGLE UINT32_MAX

typedef struct glcollide_distance_result {
    double distance;               /* 0 when the solids touch, overlap or one contains the other */
    double point_a[3], point_b[3]; /* closest points, world space (on the surfaces) */
    uint32_t triangle_a, triangle_b;
} glcollide_distance_result;

/*
 * The distance between objects object_a and object_b of world as posed: the
 * least distance between a point of one and a point of the other, where a
 * closed mesh (glcollide_mesh_require_solid) stands for its solid (where it
 * winds, as glcollide_point_in_mesh says) and an open mesh for its surface
 * alone. Exact to double rounding: every triangle pair that could be the
 * closest is measured (vertex-face and edge-edge, parallel and degenerate
 * triangles included) on the world positions the exact query method uses,
 * and whether surfaces meet is decided with exact predicates, so the
 * distance is 0 exactly when glcollide_world_query (method exact) pairs the
 * two, and at most D exactly when it pairs them with options.distance D.
 *
 * What result holds on GLCOLLIDE_OK:
 * - apart, by a distance <= upper_bound: distance > 0; point_a on triangle
 *   triangle_a of object_a's mesh and point_b on triangle_b of object_b's,
 *   |point_a - point_b| = distance (to rounding);
 * - surfaces touching or crossing: distance 0, point_a = point_b a point of
 *   both surfaces, on triangle_a and triangle_b;
 * - one solid holding (a part of) the other, surfaces apart (closed meshes
 *   only; an open mesh inside a closed one counts, tested at its first
 *   triangle's first corner): distance 0, point_a = point_b the inner
 *   part's first corner (on the inner surface, inside the outer solid); the
 *   inner object's triangle is one at that corner, the outer's is
 *   GLCOLLIDE_NO_TRIANGLE;
 * - farther apart than upper_bound: the search stops once it knows, and
 *   distance is a lower bound of the distance, greater than upper_bound
 *   (distance > upper_bound tells this case apart), points NaN, triangles
 *   GLCOLLIDE_NO_TRIANGLE;
 * - an object whose mesh has no triangles: distance INFINITY, points NaN,
 *   triangles GLCOLLIDE_NO_TRIANGLE.
 * Where several pairs are equally close, one of them, the same every call.
 * upper_bound: >= 0; INFINITY always gives the exact distance; 0 asks only
 * whether the solids touch. Cost: each mesh's BVH and closedness on first
 * need (kept by the world); then a branch-and-bound search of both BVHs,
 * which visits the parts of the meshes near the closest pair (and, when the
 * surfaces are apart, a point-in-solid test per connected part).
 * Errors: INVALID_ARGUMENT (world or result NULL, an object out of range,
 * object_a == object_b, upper_bound negative or NaN), INVALID_MESH (an
 * object's placed coordinates beyond double's range), OUT_OF_MEMORY; then
 * result holds distance NaN, points NaN, triangles GLCOLLIDE_NO_TRIANGLE.
 * Threads: uses the world's scratch, as glcollide_world_query does.
 */
GLCOLLIDE_API int glcollide_world_distance(glcollide_world *world, uint32_t object_a,
                                           uint32_t object_b, double upper_bound,
                                           glcollide_distance_result *result);

/* ---------------------------------------------------------------- stencil interference */

/*
 * Knott's stencil ray-casting interference detection (CInDeR): which closed
 * solids interpenetrate (surfaces cross, or one contains the other), for all
 * objects at once, in a fixed number of passes. Rays are cast through the
 * pixels of orthographic views fitted to the scene along the axes; at each
 * pixel the nearest boundary sample (a point on an edge or a vertex) is
 * tested by counting, in the stencil buffer, the front faces (+1) minus the
 * back faces (-1) of the other objects in front of it: the count is the
 * number of other solids containing the sample. See docs/methods.md for the
 * tolerance and what a sample hidden behind other edges means.
 */

/* How the faces in front of a sample are counted. */
typedef enum glcollide_stencil_counter {
    GLCOLLIDE_STENCIL_COUNTER_AUTO =
        0,                             /* stencil unless 128 or more boxes may overlap at a point */
    GLCOLLIDE_STENCIL_COUNTER_STENCIL, /* 8-bit two-sided stencil (counts modulo 256, read signed)
                                        */
    GLCOLLIDE_STENCIL_COUNTER_ATOMIC   /* 32-bit counts by fragment-shader atomics in a buffer */
} glcollide_stencil_counter;

typedef struct glcollide_stencil_options {
    int resolution; /* viewport side in pixels, 16..16384 */
    int views;      /* 3: along +x, +y, +z; 6: also along -x, -y, -z */
    glcollide_stencil_counter counter;
    int check_solids; /* 1: reject meshes that are not closed solids on the CPU first */
    int detect_only;  /* 1: only say whether anything interferes (one 4-byte readback) */
} glcollide_stencil_options;

/* Defaults: resolution 1024, 6 views, counter AUTO, check_solids 1, detect_only 0. */
GLCOLLIDE_API glcollide_stencil_options glcollide_stencil_default_options(void);

/* A boundary sample of one object found inside another (localisation). */
typedef struct glcollide_stencil_sample {
    uint32_t object;             /* the penetrating object, whose boundary the sample is on */
    uint32_t inside;             /* the penetrated object containing the sample */
    uint32_t vertex_a, vertex_b; /* the edge, as mesh vertex indices a < b; a == b: a vertex */
    double position[3];          /* world position: pixel centre and sampled depth */
} glcollide_stencil_sample;

typedef struct glcollide_stencil_result {
    glcollide_index_pair *pairs; /* interfering objects, sorted by (a, b) */
    size_t pair_count;
    glcollide_stencil_sample *samples; /* one per (object, edge, inside), sorted in that order */
    size_t sample_count;
    int interference;          /* 1 if any sample lies inside another solid */
    uint64_t negative_samples; /* samples with a negative count: a solid that is not closed */
    double tolerance; /* world units; see docs/methods.md (pixel diagonal of the coarsest view) */
    glcollide_query_stats stats;
} glcollide_stencil_result;

/*
 * Runs the stencil method over every object of world in context (required):
 * glcollide_world_query's METHOD_STENCIL with every sample and the
 * tolerance.
 * With check_solids, every mesh used must be a closed solid (INVALID_MESH
 * naming the object and its defects otherwise), and the meshes that pass
 * through themselves are found: they are solids where they wind (nonzero
 * winding number, as glcollide_point_in_mesh; 2 in their overlaps, -1 in
 * folds), and where their faces are in front of a sample with another
 * object's, the CPU decides it exactly. Without check_solids every mesh is
 * taken as closed and simple: a solid that is not closed shows as negative
 * counts on the GPU (negative_samples > 0 and a warning naming the objects
 * whose samples saw it). Pairs are reported from samples of one object
 * inside the other, so containment counts. With detect_only, only
 * interference, negative_samples, tolerance and stats are filled (where a
 * mesh passes through itself the records are read to decide, and pairs and
 * samples come along). result is zeroed first and owned by the caller: release it with
 * glcollide_stencil_result_clear. Touches: the GL state of
 * glcollide_context_wrap_current, restored on return. Errors:
 * INVALID_ARGUMENT, INVALID_MESH, LIMIT (more than 2^30 - 2 objects or 2^32 - 2
 * edges and vertices in all; a resolution beyond the context's GL limits or
 * memory budget), OUT_OF_MEMORY, GL.
 */
GLCOLLIDE_API int glcollide_stencil_run(glcollide_world *world, glcollide_context *context,
                                        const glcollide_stencil_options *options,
                                        glcollide_stencil_result *result);

GLCOLLIDE_API void glcollide_stencil_result_clear(glcollide_stencil_result *result);

#ifdef __cplusplus
}
#endif

/* Every other public header, each after those it needs (each of them
 * includes this one first, before its own guard). */
#include <glcollide/geometry.h>
#include <glcollide/myszkowski.h>
#include <glcollide/particles.h>
#include <glcollide/primitives.h>
#include <glcollide/tetra_tree.h>

#endif /* GLCOLLIDE_GLCOLLIDE_H */
