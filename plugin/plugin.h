/* SPDX-License-Identifier: MIT */
/*
 * Private state of the ODE plugin (libglcollide-ode).
 *
 * Threads: what all threads share is in `plugin` (one per process): the
 * registry of trimesh data (the arrays registered for them, their captures
 * and BVHs) under `lock`; the GL context, made on first need and used by one
 * thread at a time under `gpu_lock`; the options and the counters (atomics).
 * What a step works in (the space's buffers, this step's GPU candidates, the
 * collider's scratch) belongs to the thread (plugin_thread), so worlds on
 * separate threads never touch each other's. A capture is read without the
 * lock once found: ODE's own rule (a trimesh data is not changed while
 * another thread collides with it) keeps that safe.
 */
#ifndef GLCOLLIDE_PLUGIN_H
#define GLCOLLIDE_PLUGIN_H

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>
#include <glcollide/ode.h>
#include <glcollide/primitives.h>

#include <pthread.h>
#include <stdatomic.h>

/* A trimesh data captured in object space, once (again after a change), with
 * its object-space BVH: rigid motions of the geoms using it need no refit.
 * Allocated one by one, so a pointer to it stays valid while others come. */
typedef struct plugin_mesh {
    dTriMeshDataID data;
    uint64_t id;           /* of the entry, for its life: unique in the process */
    uint64_t generation;   /* of the capture: unique in the process, never reused */
    int stale;             /* vertices changed: capture again before use */
    glcollide_mesh *mesh;  /* owned; its arrays too unless borrowed */
    int borrowed;          /* mesh's arrays are the registered source's own (not copies) */
    glcollide_aabb bounds; /* object space */
    glcollide_bvh *bvh;    /* object space */
    int closed;            /* a closed solid: containment can be decided */
} plugin_mesh;

/* The arrays a trimesh data was built from, as registered by
 * glcollide_ode_trimesh_data_build_* (the preload does it for every build). */
typedef struct plugin_source {
    dTriMeshDataID data;
    const void *vertices;
    int vertex_stride, vertex_count;
    const void *indices; /* dTriIndex */
    int index_count, tri_stride;
    int single; /* float vertices, else double */
} plugin_source;

/* Counters behind glcollide_ode_stats, added to by every thread. */
typedef struct plugin_counters {
    atomic_ullong space_collides, aabb_pairs, culled_pairs, callbacks, trimesh_collides, candidates,
        contacts, contained, gpu_queries, draw_calls, gpu_syncs, readback_bytes, upload_bytes,
        gl_contexts, primitive_collides, primitive_contacts, ahead_pairs, ahead_served,
        space_collide2s;
    atomic_ullong stencil_passes, stencil_flagged, stencil_missed, stencil_extra;
    atomic_ullong cull_ns, contact_ns, stencil_ns;
} plugin_counters;

/* Steps timed on each path by AUTO's calibration (medians). */
enum { PLUGIN_CALIBRATION_STEPS = 3 };

typedef struct plugin_shared {
    pthread_mutex_t lock; /* meshes, sources; changes of users */
    atomic_int users;     /* glcollide_ode_init calls not yet matched by a shutdown */
    /* Bumped (under lock) by every change of the registry: a thread's
     * lookups made at this version still hold (plugin_thread.found). */
    atomic_ullong registry_version;
    /* Changes when a capture may have been freed or rewritten (not when
     * one is added): a thread's culling world, which borrows captures and
     * their BVHs, is made again only then. */
    atomic_ullong capture_epoch;
    plugin_mesh **meshes;
    size_t mesh_count, mesh_capacity;
    plugin_source *sources;
    size_t source_count, source_capacity;
    pthread_mutex_t gpu_lock;   /* the context: one thread at a time */
    glcollide_context *context; /* NULL until a pair first needs the GPU */
    atomic_int gpu_refused;     /* no context for the mode set: CPU until it is set again */
    atomic_int gpu_mode;        /* GLCOLLIDE_ODE_GPU_* */
    atomic_int primitives;      /* trimesh-primitive pairs get glcollide's contacts (default 1) */
    atomic_int stencil_resolution; /* of the stencil flags pass; 0: none */
    atomic_int threads;            /* glcollide_ode_set_threads; 0: the library's count */
    /* AUTO's measurement (under gpu_lock): steps timed on each path. */
    int calibrate_software; /* calibrate on a software renderer too */
    atomic_int auto_choice; /* GLCOLLIDE_ODE_AUTO_* */
    int calibration_steps;  /* steps timed so far (the first GPU one not counted) */
    unsigned long long calibration_ns[2][PLUGIN_CALIBRATION_STEPS]; /* [gpu] */
    size_t calibrated_objects; /* geoms of the space measured on */
    plugin_counters counters;
} plugin_shared;

extern plugin_shared plugin;

static inline void plugin_count(atomic_ullong *counter, unsigned long long n)
{
    atomic_fetch_add_explicit(counter, n, memory_order_relaxed);
}

/* ------------------------------------------------------------- per thread */

/* Candidate triangle pairs of one geom pair, from this step's GPU culling,
 * valid while both geoms keep their captures and transforms. */
typedef struct plugin_step_pair {
    dGeomID a, b;                         /* a < b as pointers */
    uint64_t generation_a, generation_b;  /* captures the triangle indices refer to */
    dReal transform_a[7], transform_b[7]; /* position + quaternion when culled */
    size_t first, count;                  /* in the cache's candidates */
    int stencil;                          /* this step's stencil pass covered the pair */
    int interfering; /* ... and saw the two interpenetrate (a hint: confirmed exactly) */
} plugin_step_pair;

/* Geom pairs -> an index, in constant time: open addressing on the two
 * pointers, index + 1 per slot (0: empty), at most half full. Kept between
 * steps (emptied, not freed). */
typedef struct plugin_pair_table {
    uint32_t *slots;
    size_t size; /* a power of two, or 0 */
    size_t count;
} plugin_pair_table;

/* Empties the table (keeping its memory). */
void plugin_pair_table_clear(plugin_pair_table *table);
/* Notes index for (a, b), a later one replacing an earlier (key_of(user, i)
 * gives the geoms of index i, for refilling when the table grows). */
int plugin_pair_table_add(plugin_pair_table *table, dGeomID a, dGeomID b, uint32_t index,
                          void (*key_of)(const void *user, uint32_t i, dGeomID *a, dGeomID *b),
                          const void *user);
/* The index noted for (a, b), or UINT32_MAX (key_of as for add). */
uint32_t plugin_pair_table_find(const plugin_pair_table *table, dGeomID a, dGeomID b,
                                void (*key_of)(const void *user, uint32_t i, dGeomID *a,
                                               dGeomID *b),
                                const void *user);

typedef struct plugin_step_cache {
    plugin_step_pair *pairs;
    size_t pair_count, pair_capacity;
    glcollide_index_pair *candidates;
    size_t candidate_count, candidate_capacity;
    plugin_pair_table table; /* (a, b) -> pairs */
} plugin_step_cache;

/* The order the step cache keeps a pair of geoms in: the lower address
 * first. 1 when (g1, g2) is the other way round: the one place that says
 * which geom of a pair comes first. */
static inline int plugin_step_swapped(dGeomID g1, dGeomID g2)
{
    return (uintptr_t)g2 < (uintptr_t)g1;
}

/* The step pair of geoms (a, b), a < b, or NULL: constant time. */
const plugin_step_pair *plugin_step_find(const plugin_step_cache *cache, dGeomID a, dGeomID b);

/* What the pair tests read of a geom, read once per step. */
typedef struct plugin_geom_info {
    dBodyID body;
    unsigned long category, collide;
    int user_class; /* a class of the program's own (dCreateGeomClass) */
    int trimesh;
} plugin_geom_info;

/* One call of glcollide_ode_space_collide at one nesting depth (a near
 * callback may collide a nested space with it again). */
/* A trimesh pair of a space as the culling world's objects: (lower,
 * higher) object, and the pair's index in the space's pairs. */
typedef struct plugin_cull_pair {
    glcollide_index_pair objects;
    size_t k;
} plugin_cull_pair;

typedef struct plugin_space_buffers {
    dGeomID *geoms;
    size_t geom_count, geom_capacity;
    plugin_geom_info *info;
    size_t info_capacity;
    glcollide_aabb *boxes;
    size_t box_capacity;
    /* Per listed geom, read once per step: its capture (trimeshes; NULL for
     * the others, or none), and for the culling world's objects, its
     * transform (position + quaternion) when culled. */
    const plugin_mesh **meshes;
    size_t mesh_capacity;
    dReal (*transforms)[7];
    size_t transform_capacity;
    int32_t *scene_object; /* geom -> object of the culling scene, -1 if none */
    size_t scene_object_capacity;
    /* The trimesh pairs handed to the culling, sorted by objects, and
     * those objects alone: the query's pairs. */
    plugin_cull_pair *cull_pairs;
    size_t cull_pair_capacity;
    glcollide_index_pair *cull_objects;
    size_t cull_object_capacity;
    unsigned char *keep; /* pair -> reported to the callback */
    size_t keep_capacity;
    glcollide_pair_list pairs;
    glcollide_scratch *sap; /* sweep-and-prune's, made on first need */
} plugin_space_buffers;

/*
 * One side of a trimesh pair during a collide call: only the candidate
 * triangles are brought into world space, each once, into compact arrays
 * (slot i = triangle ids[i], vertices 3i..3i+2). marks is a bit per mesh
 * triangle (set while gathering, all clear between calls), slot maps a
 * marked triangle to its slot; all of it is kept between calls so a warm step
 * allocates nothing.
 */
typedef struct plugin_side {
    uint64_t *marks;   /* a bit per mesh triangle, sized to the largest mesh seen */
    uint64_t *summary; /* a bit per word of marks: the words with a bit set */
    uint32_t *ranks;   /* per word of marks in use: the slots before it */
    size_t map_capacity;
    double *positions;   /* 9 per slot */
    uint32_t *triangles; /* 3 per slot: 3i, 3i+1, 3i+2 */
    uint32_t *ids;       /* mesh triangle of each slot */
    size_t used, positions_capacity, triangles_capacity, ids_capacity;
    size_t first_summary, end_summary; /* the words of summary that may be set */
} plugin_side;

/* What a collider works in between its inputs and ODE's buffer: one per
 * thread that calls dCollide, and one per worker of a step's contacts
 * computed ahead (ahead.c). Kept, so that a warm step allocates nothing. */
typedef struct plugin_scratch {
    plugin_side sides[2];
    glcollide_index_pair *local_candidates; /* candidates renumbered to slots */
    size_t local_candidate_capacity;
    glcollide_contact *contacts;
    size_t contact_capacity;
    glcollide_index_pair *candidates; /* CPU candidates of one trimesh pair */
    size_t candidate_capacity;
    glcollide_pair_list parts[GLCOLLIDE_BVH_PARTS]; /* a large pair's descent, shared */
    glcollide_scratch *scratch; /* the contact generators', made on first need */
    glcollide_ray_hit *ray_hits;
    size_t ray_hit_capacity;
    /* A worker's answers computed ahead this step (ahead.c), ranked. */
    glcollide_contact *answers;
    size_t answer_count, answer_capacity;
    size_t ranked_max; /* the ranked buffer that sufficed so far (at least 64) */
    int threads; /* for one pair's work: 0, plugin_threads(); 1 inside a job already shared out */
} plugin_scratch;

void plugin_scratch_free(plugin_scratch *scratch);

/* A pair of the colliders as they read it from ODE (on the thread that
 * calls them): everything its contacts depend on, so that they can be
 * computed on any thread and kept while it stays the same. */
enum { PLUGIN_PAIR_TRIMESH = 1, PLUGIN_PAIR_PRIMITIVE = 2 };
typedef struct plugin_pair {
    int kind;
    dGeomID g1, g2;                     /* the collider's arguments (the trimesh first) */
    const plugin_mesh *m1, *m2;         /* captures (m2: NULL for a primitive) */
    uint64_t generation1, generation2;  /* theirs (0 for none) */
    dReal transform1[7], transform2[7]; /* position + quaternion (a primitive's: 0) */
    glcollide_pose pose1, pose2;
    glcollide_primitive primitive; /* PRIMITIVE: g2 as glcollide's, pose included */
    /* This step's GPU candidates of a trimesh pair (NULL: none; valid while
     * the step's culling adds no pair), and which of the step's pairs they
     * are (index + 1, 0: none), for telling answers apart. */
    const plugin_step_pair *culled;
    const glcollide_index_pair *culled_candidates;
    size_t culled_index;
} plugin_pair;

/* An answer computed ahead: the pair it holds for, and its ranked contacts
 * in a worker's answers. */
typedef struct plugin_answer {
    plugin_pair pair;
    int status; /* GLCOLLIDE_OK, else dCollide computes afresh */
    int worker;
    size_t first, count;
} plugin_answer;

typedef struct plugin_ahead {
    plugin_answer *answers;
    size_t answer_count, answer_capacity;
    plugin_pair_table table; /* (g1, g2) -> answers */
    plugin_scratch *workers; /* one per worker of the jobs but the caller (worker 0) */
    int worker_count;
} plugin_ahead;

enum { PLUGIN_MAX_DEPTH = 16, PLUGIN_FOUND_SLOTS = 16 };

/* A registry lookup this thread made (trimesh data -> capture), valid while
 * the registry's version is the one it was made at. */
typedef struct plugin_found {
    dTriMeshDataID data;
    size_t triangle_count;
    unsigned long long version;
    const plugin_mesh *mesh;
} plugin_found;

/* Everything a thread steps its worlds with; reused, so a warm step
 * allocates nothing. Freed when the thread ends (or, for the thread that
 * calls it, at the last glcollide_ode_shutdown). */
typedef struct plugin_thread {
    plugin_space_buffers space[PLUGIN_MAX_DEPTH];
    int depth;
    plugin_found found[PLUGIN_FOUND_SLOTS]; /* by data address: no lock for the rest of a step */
    dGeomID probe;                          /* an infinite plane that lists quadtree spaces */
    plugin_step_cache step;                 /* this step's GPU candidates */
    /* GPU culling's persistent world: one mesh per capture used (borrowed
     * from the registry with its BVH, valid while capture_epoch is
     * cull_version), one
     * object per trimesh geom culled, in the space's order, posed each step. */
    glcollide_world *cull_world;
    unsigned long long cull_version;
    uint64_t *cull_ids;         /* per world mesh: its entry's id */
    uint64_t *cull_generations; /* ... and the capture's generation it holds */
    size_t cull_id_capacity, cull_generation_capacity;
    uint32_t *cull_mesh_table; /* world mesh by entry id: index + 1, 0 empty */
    size_t cull_mesh_table_size;
    uint32_t *cull_meshes; /* per object wanted this step: its world mesh */
    size_t cull_mesh_capacity;
    glcollide_query_result cull_result;    /* kept: its arrays are reused */
    glcollide_query_result stencil_result; /* this step's interfering objects */
    plugin_scratch scratch;                /* the colliders' own, for calls on this thread */
    plugin_ahead ahead;                    /* this step's contacts computed ahead */
} plugin_thread;

/* ------------------------------------------------------------- state.c */

/* This thread's state, made on first use; NULL when out of memory (logged). */
plugin_thread *plugin_thread_get(void);
/* Frees the calling thread's state now (the last shutdown). */
void plugin_thread_release_current(void);
/* Frees a space's kept buffers (zeroed after). */
void plugin_space_buffers_free(plugin_space_buffers *buffers);

/* ODE's own dSpaceCollide2, whoever interposes the name (the preload
 * does): the plugin's own calls (listing a space's geoms, a class of the
 * program's own) must reach ODE's. */
typedef void plugin_collide2_fn(dGeomID, dGeomID, void *, dNearCallback *);
plugin_collide2_fn *plugin_ode_space_collide2(void);

/* Monotonic clock, nanoseconds. */
unsigned long long plugin_now_ns(void);

/* Grows *array to hold count items of size bytes (amortised). */
int plugin_grow(void **array, size_t *capacity, size_t count, size_t size);
static inline int plugin_reserve(void **array, size_t *capacity, size_t count, size_t size)
{
    return count <= *capacity ? GLCOLLIDE_OK : plugin_grow(array, capacity, count, size);
}

/* ------------------------------------------------------------- gpu.c */

/* Whether the space should try GPU culling now (started, mode not NEVER,
 * not refused). */
int plugin_gpu_wanted(void);
/* The context, current on the calling thread, for one query: made on first
 * need (logged when it cannot be); NULL when the CPU path serves. Holds
 * plugin.gpu_lock until plugin_gpu_end. */
glcollide_context *plugin_gpu_begin(void);
void plugin_gpu_end(glcollide_context *context);
/* Destroys the context (the last shutdown). */
void plugin_gpu_release(void);

/* AUTO's calibration, for a step of a space of objects geoms with trimesh
 * pairs: whether to cull this step on the GPU (alternating while measuring,
 * then the faster; measured again once the space has doubled), and the time
 * the step took on that path. */
int plugin_auto_gpu_step(size_t objects);
void plugin_auto_step_done(int gpu, unsigned long long ns);

/* Counts a pair the stencil pass covered: flagged or not, against the exact
 * answer (contacts or containment found). */
void plugin_stencil_agreement(int flagged, int interfering);

/* ------------------------------------------------------------- geom.c */

/* The capture of a trimesh geom's data, up to date (captured again when
 * marked changed or rebuilt); NULL on error (logged). */
const plugin_mesh *plugin_geom_mesh(plugin_thread *thread, dGeomID geom);
void plugin_meshes_release(void);
void plugin_geom_transform(dGeomID geom, dReal out[7]);
/* A geom's placement as a glcollide pose (unit quaternion). */
glcollide_pose plugin_geom_pose(dGeomID geom);
/* The same from the transform plugin_geom_transform read. */
glcollide_pose plugin_transform_pose(const dReal transform[7]);

/* Can the closed solid outer (placed) contain inner? 0 only where
 * glcollide_contacts_containment would find it does not (a cheap, exact
 * filter before it). */
int plugin_may_contain(const plugin_mesh *inner, const glcollide_pose *placed_inner,
                       const plugin_mesh *outer, const glcollide_pose *placed_outer);

/* Contact i of glcollide's into ODE's buffer as (g1, g2), its depth at least
 * least_depth; the caller sets side1 and side2. Returns the ODE contact. */
dContactGeom *plugin_contact_out(dContactGeom *contact, int skip, size_t i,
                                 const glcollide_contact *c, double least_depth, dGeomID g1,
                                 dGeomID g2);
/* ODE's reversed-argument rule: normals flipped, g1/g2 and side1/side2
 * swapped, for count contacts. */
void plugin_contacts_reverse(dContactGeom *contact, int count, int skip);

/* Reads a pair (geoms in the collider's order) from ODE: captures, transforms,
 * poses, the primitive, this step's GPU candidates. 0 when the pair has no
 * contacts to compute (no capture: logged). */
int plugin_pair_read(plugin_thread *t, int kind, dGeomID g1, dGeomID g2, plugin_pair *pair);
/* Are a and b the same pair as read (geoms, captures, transforms, primitive)? */
int plugin_pair_same(const plugin_pair *a, const plugin_pair *b);
/* The pair's contacts, ranked (glcollide_contact_options.ranked; triangle
 * indices the meshes'), into s->contacts[0..*count): at most max. Any thread,
 * with a scratch of its own. Errors: OUT_OF_MEMORY (logged). */
int plugin_pair_contacts(plugin_scratch *s, const plugin_pair *pair, size_t max, size_t *count);
/* A collider call (dColliderFn's contract) for a pair of kind: the answer
 * computed ahead for it when there is one, else computed here. */
int plugin_pair_collide(int kind, dGeomID g1, dGeomID g2, int flags, dContactGeom *contact,
                        int skip);
/* The contacts a buffer of max_contacts gets from count ranked ones (in
 * place) into ODE's buffer, as the collider called with the pair's geoms
 * returns them; returns how many. */
int plugin_pair_write(const plugin_pair *pair, glcollide_contact *ranked, size_t count,
                      size_t max_contacts, dContactGeom *contact, int skip);

/* ------------------------------------------------------------- ahead.c */

/* Contacts of the kept trimesh pairs of a space's step computed ahead on the
 * workers (when more than one thread may run and more than one pair is
 * there), for the dCollide calls its callback is about to make. */
void plugin_ahead_compute(plugin_thread *t, const plugin_space_buffers *buffers);
/* A new outermost step: last step's answers are done with. */
void plugin_ahead_reset(plugin_thread *t);
/* The answer computed ahead for pair, as it is now, or NULL. */
const plugin_answer *plugin_ahead_find(const plugin_thread *t, const plugin_pair *pair);
/* The scratch worker w of a job of thread t's ahead computation uses: the
 * caller (worker 0) its thread's own, so that a thread keeps one set of
 * contact scratch whether its steps run on workers or not (the answers kept
 * there are apart from what a dCollide computed afresh uses). */
static inline plugin_scratch *plugin_ahead_scratch(plugin_thread *t, int worker)
{
    return worker == 0 ? &t->scratch : &t->ahead.workers[worker - 1];
}
/* An answer's ranked contacts. */
static inline glcollide_contact *plugin_answer_contacts(plugin_thread *t, const plugin_answer *a)
{
    return plugin_ahead_scratch(t, a->worker)->answers + a->first;
}
/* The threads a job of the plugin may use (glcollide_ode_set_threads, else
 * the library's count). */
int plugin_threads(void);
void plugin_ahead_free(plugin_ahead *ahead);

/* ------------------------------------------------------------- trimesh.c */

/* The trimesh-trimesh collider (dColliderFn). */
int plugin_trimesh_collide(dGeomID o1, dGeomID o2, int flags, dContactGeom *contact, int skip);
/* Its contacts of a read pair, ranked (plugin_pair_contacts' contract). */
int plugin_trimesh_contacts(plugin_scratch *s, const plugin_pair *pair, size_t max, size_t *count);

/* ------------------------------------------------------------- primitive.c */

/* The collider of a trimesh (mesh) with a plane, box, sphere, capsule,
 * cylinder or ray (other), as dColliderFn: the trimesh first. */
int plugin_primitive_collide(dGeomID mesh, dGeomID other, int flags, dContactGeom *contact,
                             int skip);
/* Its contacts of a read pair, ranked (plugin_pair_contacts' contract). */
int plugin_primitive_contacts(plugin_scratch *s, const plugin_pair *pair, size_t max,
                              size_t *count);
/* The ODE geom as a glcollide primitive; 0 for a class that is none. */
int plugin_primitive_of(dGeomID geom, glcollide_primitive *p);
/* Does the trimesh-primitive pair go to glcollide's collider (primitive
 * contacts on, a class it serves, not a ray, no triangle callbacks)? */
int plugin_primitive_served(dGeomID mesh, dGeomID other);
/* Is class_id one of those? */
int plugin_primitive_class(int class_id);
/* Installs the collider for every such class (dSetColliderOverride, both
 * argument orders), or gives each back to ODE's own (logged when ODE's
 * cannot be found); plugin.lock held. */
void plugin_primitive_install(void);
void plugin_primitive_restore(void);

#endif
