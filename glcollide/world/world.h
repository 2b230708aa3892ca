/* SPDX-License-Identifier: MIT */
/*
 * Private: the persistent world (see world.c) as the query methods read it,
 * its world-space view for the methods that draw or test world positions,
 * and result building.
 *
 * Layering: world.c knows meshes, BVHs and boxes, nothing of GL or of any
 * method; the methods (query_exact.c, query_sap.c, query_cull.c, stencil.c,
 * myszkowski.c) read the world; query.c dispatches to them.
 */
#ifndef GLCOLLIDE_WORLD_H
#define GLCOLLIDE_WORLD_H

#include "contacts/posed.h"
#include "mesh/mesh_internal.h"

/*
 * Loads the mesh of a scene line "mesh PATH [scale S]", PATH as written in
 * the scene at scene_path; logs one message on failure (the parser puts the
 * scene's file:line before it).
 */
typedef int (*glcollide_scene_mesh_loader)(const char *scene_path, const char *mesh_path,
                                           double scale, glcollide_mesh **out, void *user);

/* The scene file format (glcollide_world_load) on a buffer, adding the
 * meshes (through load_mesh; the world takes them) and objects to world.
 * For glcollide_world_load and the fuzz harness, which loads no files. */
int glcollide_world_parse(const char *data, size_t size, const char *path,
                          glcollide_scene_mesh_loader load_mesh, void *user,
                          glcollide_world *world);

/* A mesh registered in a world: borrowed, with what is derived from it once. */
typedef struct glcollide_world_mesh_entry {
    const glcollide_mesh *mesh;
    glcollide_bvh *bvh;    /* object space; built on first need, refit on change */
    int bvh_borrowed;      /* bvh is the caller's (glcollide_world_add_mesh_with_bvh) */
    glcollide_aabb bounds; /* object space, of the vertices triangles use */
    int solid;             /* -1 undecided, 0 not a closed solid, 1 closed */
    uint32_t *shells;      /* closed: a triangle of each connected part */
    size_t shell_count;
    int crossing;        /* closed: -1 undecided, 1 passes through itself, 0 not */
    /* Myszkowski's test: the mesh bounds a convex solid (1) or not (0),
     * found when convex_at != 1 + changed_at. */
    int convex;
    uint64_t convex_at;
    uint64_t changed_at; /* the world's clock at its registration or last change */
    /* The vertices the last change rewrote: a cache synced just before it
     * uploads only these (a replacement covers the whole mesh). */
    size_t changed_first, changed_count;
    uint64_t previous_change; /* changed_at before the last change */
    /* The culling methods' tight boxes: the BVH's nodes some levels down, in
     * glcollide_boxes_place_union's rows (query_cull.c), made when
     * frontier_at != 1 + changed_at. */
    double *frontier;
    size_t frontier_count;
    uint64_t frontier_at;
    /* glcollide_world_distance's slab per BVH node, made when slabs_at !=
     * 1 + changed_at. */
    glcollide_bvh_slab *slabs;
    uint64_t slabs_at;
} glcollide_world_mesh_entry;

/* Scratch of a pair's triangle-level work, kept between frames. */
typedef struct glcollide_world_scratch {
    glcollide_pair_list pairs;
    glcollide_workspace sap, boxes;
} glcollide_world_scratch;

void glcollide_world_scratch_release(glcollide_world_scratch *scratch);

/*
 * What a query method keeps in a world between frames (the culling
 * queries' per-object slots and boxes), behind one pointer: the method
 * makes it on first use and the world releases it through its kind when it
 * is destroyed. As with the GL context's cache table, the world names no
 * method: a lower layer never calls a higher one.
 */
typedef struct glcollide_world_method_kind {
    const char *name;
    void (*release)(void *scratch); /* frees scratch too */
} glcollide_world_method_kind;

/* The method scratch of kind in world, NULL when none was set. */
void *glcollide_world_method_scratch(const glcollide_world *world,
                                     const glcollide_world_method_kind *kind);
/* Keeps scratch (not NULL) under kind, releasing what another kind kept. */
void glcollide_world_set_method_scratch(glcollide_world *world,
                                        const glcollide_world_method_kind *kind, void *scratch);

struct glcollide_world {
    uint64_t id; /* unique in the process: GPU caches tell worlds apart by it */
    glcollide_world_mesh_entry *meshes;
    size_t mesh_count, mesh_capacity;
    glcollide_object *objects; /* pose and mesh index of each object */
    glcollide_aabb *boxes;     /* world boxes bounding each object (from pose and mesh box) */
    uint64_t *changed_at;      /* the clock at each object's last pose change */
    size_t object_count, object_capacity, box_capacity, changed_capacity;
    uint64_t clock;        /* ticks at every change: caches compare against it */
    uint64_t solid_checks; /* meshes checked for closedness (GLCOLLIDE_WORLD_SOLIDS) */
    /* Kept between queries so that a warm frame allocates nothing. */
    glcollide_pair_list pairs;
    glcollide_workspace workspace;
    glcollide_distance_scratch distance; /* glcollide_world_distance's */
    glcollide_world_scratch scratch;
    /* Per worker, the parts of a query run on several threads
     * (glcollide_world_pairs_run), and per candidate pair its outcome. */
    glcollide_query_result *parts;
    size_t part_count;
    int *outcomes;
    size_t outcome_capacity;
    /* glcollide_world_contacts' candidates and placed triangles. */
    glcollide_pair_list contact_candidates;
    glcollide_posed_pair posed;
    glcollide_aabb *exact_boxes; /* boxes of the world positions, for sap (lazily) */
    uint64_t *exact_synced;
    size_t exact_capacity, exact_synced_capacity;
    struct glcollide_world_space *space; /* world positions, for the methods that need them */
    glcollide_mesh **owned;              /* the meshes the world took (glcollide_world_take_mesh) */
    size_t owned_count, owned_capacity;
    /* A method's scratch (glcollide_world_method_scratch), kept between frames. */
    const glcollide_world_method_kind *method_kind;
    void *method_scratch;
};

/* When object o last changed: its pose or its mesh. */
static inline uint64_t glcollide_world_object_changed_at(const glcollide_world *world, size_t o)
{
    uint64_t pose = world->changed_at[o];
    uint64_t mesh = world->meshes[world->objects[o].mesh].changed_at;
    return pose > mesh ? pose : mesh;
}

/* What glcollide_world_prepare makes ready for the meshes objects use. */
enum {
    GLCOLLIDE_WORLD_BVH = 1,      /* each mesh's object-space BVH */
    GLCOLLIDE_WORLD_SOLIDS = 2,   /* whether each mesh is a closed solid, and its parts */
    GLCOLLIDE_WORLD_CROSSING = 4, /* with SOLIDS: whether a closed mesh passes through itself */
};
int glcollide_world_prepare(glcollide_world *world, unsigned what);
/* The same for mesh m alone. */
int glcollide_world_prepare_mesh(glcollide_world *world, uint32_t m, unsigned what);

/* A non-finite box of object o, which has triangles (a pose past double's
 * range): INVALID_MESH, logged as "<what>: object O (mesh M) has non-finite
 * coordinates". */
int glcollide_world_check_box(const glcollide_world *world, size_t o, const glcollide_aabb *box,
                              const char *what);

/*
 * Does a part of object inner lie inside the solid of object outer (a closed
 * mesh), their surfaces known not to meet? Then all of that part does, and
 * its first corner (a vertex of one of its triangles) decides: exact
 * point-in-solid (a nonzero winding number, glcollide_point_in_mesh). An
 * open inner mesh is one part, its first triangle's first corner standing
 * for it. On 1, point (may be NULL) receives that corner in the world and
 * triangle (may be NULL) the inner triangle it is a corner of. 0 when
 * outer is not closed or either has no triangles. Needs the meshes
 * prepared (GLCOLLIDE_WORLD_BVH | GLCOLLIDE_WORLD_SOLIDS).
 */
int glcollide_world_contains_part(const glcollide_world *world, uint32_t outer, uint32_t inner,
                                  double point[3], uint32_t *triangle);

/* The factor the distance of objects a and b is computed at
 * (glcollide_distance_scale of their boxes' largest coordinate): the exact
 * query's --distance test uses the same, so both give the same answer. */
double glcollide_world_pair_scale(const glcollide_world *world, uint32_t a, uint32_t b);

/* Boxes of the objects' world positions (exact min/max), updated for the
 * objects changed since last asked; INVALID_MESH for non-finite ones. */
int glcollide_world_exact_boxes(glcollide_world *world, const glcollide_aabb **boxes);

/* ------------------------------------------------------------- world space */

/* One object with its positions in world space. */
typedef struct glcollide_world_placed {
    const glcollide_mesh *mesh;
    double *positions;     /* world space, 3 * vertex_count */
    glcollide_aabb bounds; /* of the positions triangles use */
} glcollide_world_placed;

/* Every object of a world in world space: for the methods that draw or test
 * world positions (cullide, far, stencil, convex). Kept by the world and
 * brought up to date for the objects changed since. */
typedef struct glcollide_world_space {
    glcollide_world_placed *objects; /* object_count entries */
    size_t object_count, object_capacity;
    glcollide_aabb *bounds; /* object_count world boxes (exact) */
    size_t bounds_capacity;
    uint64_t *synced_at;           /* the clock each object was last brought up to */
    size_t *position_capacity;     /* doubles allocated for each object */
    const glcollide_object *poses; /* the world's objects: mesh index and pose */
    size_t mesh_count;
} glcollide_world_space;

/* The world in world space, up to date. INVALID_MESH for non-finite
 * positions, OUT_OF_MEMORY. The pointer stays the world's. */
int glcollide_world_space_get(glcollide_world *world, const glcollide_world_space **space);

/* Registers mesh as glcollide_world_add_mesh does and takes it: the world
 * destroys it with itself (also on error, at once). For loaded worlds. */
int glcollide_world_take_mesh(glcollide_world *world, glcollide_mesh *mesh, uint32_t *index);

/* The pose rule of glcollide_world_add_object (a finite translation, a
 * quaternion within 1e-6 of unit length, then normalised) into pose, its
 * messages starting with where ("world: ", "scene.txt:4: "). */
int glcollide_world_pose_check(const double translation[3], const double rotation[4], uint32_t mesh,
                               const char *where, glcollide_object *pose);
/* Adds an object with its pose as given, unnormalised: checks only the mesh
 * index. For poses that already passed glcollide_world_pose_check. */
int glcollide_world_add_object_as_is(glcollide_world *world, const glcollide_object *pose,
                                     uint32_t *index);

/*
 * Candidate triangle pairs of objects i < j of space: the pairs whose
 * triangle boxes overlap after each is grown by margin, among the triangles
 * flagged (flags NULL: all), appended to result (as one group, (i, j)).
 */
int glcollide_world_space_triangle_pairs(const glcollide_world_space *space,
                                         unsigned char *const *flags, uint32_t i, uint32_t j,
                                         double margin, glcollide_query_result *result,
                                         glcollide_world_scratch *scratch);

/* ------------------------------------------------------------- candidate pairs */

/* Are options->pairs usable on a world of object_count objects (a < b <
 * object_count, sorted, none twice)? INVALID_ARGUMENT (logged) if not. */
int glcollide_query_check_pairs(const glcollide_query_options *options, size_t object_count);

/*
 * The object pairs a query considers, into pairs (emptied first): with
 * options->pairs, those of them whose boxes, grown by margin, overlap (the
 * sweep's own inequalities, so exactly the swept pairs among them), in
 * their order; else the sweep over the count boxes.
 */
int glcollide_query_box_pairs(const glcollide_query_options *options, const glcollide_aabb *boxes,
                              size_t count, double margin, glcollide_pair_list *pairs,
                              glcollide_workspace *workspace);

/* Is (a, b) (a < b) among options->pairs (always, without them)? */
int glcollide_query_pair_given(const glcollide_query_options *options, uint32_t a, uint32_t b);

/* ------------------------------------------------------------- pairs on threads */

/* One object pair's work on worker (0..threads-1): *found when the pair is
 * reported; triangle pairs and counters go to into. */
typedef int (*glcollide_world_pair_fn)(void *user, uint32_t i, uint32_t j, int worker,
                                       glcollide_query_result *into, int *found);
/* fn for every pair of pairs on up to threads threads (0: the library's
 * count): the pairs found appended to result in pairs' order, then their
 * triangle pairs, counters added (the same result after grouping whatever
 * threads). Errors: the first task's, OUT_OF_MEMORY. */
int glcollide_world_pairs_run(glcollide_world *world, const glcollide_pair_list *pairs, int threads,
                              glcollide_world_pair_fn fn, void *user,
                              glcollide_query_result *result);

/* ------------------------------------------------------------- results */

/* Appends (OUT_OF_MEMORY on failure, logged), growing the result's arrays
 * (kept between frames). */
int glcollide_result_add_pair(glcollide_query_result *result, uint32_t a, uint32_t b);
int glcollide_result_add_triangle_pair(glcollide_query_result *result, uint32_t object_a,
                                       uint32_t triangle_a, uint32_t object_b, uint32_t triangle_b);
/* Empties the result, keeping its arrays. */
void glcollide_result_reset(glcollide_query_result *result);
/* Sorts pairs by (a, b) and triangle pairs grouped by object pair, then by
 * triangles, and fills pair_first (offsets of each pair's triangle pairs). */
int glcollide_result_group(glcollide_query_result *result);

#endif
