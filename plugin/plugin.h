/* SPDX-License-Identifier: MIT */
/* Private state of the ODE plugin (libglcollide-ode). */
#ifndef GLCOLLIDE_PLUGIN_H
#define GLCOLLIDE_PLUGIN_H

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>
#include <glcollide/ode.h>

/* A trimesh data captured in object space, once (again after a change), with
 * its object-space BVH: rigid motions of the geoms using it need no refit. */
typedef struct plugin_mesh {
    dTriMeshDataID data;
    uint32_t scene_mesh;   /* index in plugin.scene->meshes */
    int stale;             /* vertices changed: capture again before use */
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

/* Candidate triangle pairs of one geom pair, from this step's GPU culling. */
typedef struct plugin_step_pair {
    dGeomID a, b;                         /* a < b as pointers */
    dReal transform_a[7], transform_b[7]; /* position + quaternion when culled */
    size_t first, count;                  /* in plugin.step_candidates */
} plugin_step_pair;

/*
 * One side of a trimesh pair during a collide call: only the candidate
 * triangles are brought into world space, each once, into compact arrays
 * (slot i = triangle ids[i], vertices 3i..3i+2). slot/stamp map a triangle
 * of the mesh to its slot (current when stamp == the call's epoch); all of it
 * is kept between calls so a warm step allocates nothing.
 */
typedef struct plugin_side {
    uint32_t *slot, *stamp; /* per mesh triangle, sized to the largest mesh seen */
    size_t map_capacity;
    double *positions;   /* 9 per slot */
    uint32_t *triangles; /* 3 per slot: 3i, 3i+1, 3i+2 */
    uint32_t *ids;       /* mesh triangle of each slot */
    size_t used, positions_capacity, triangles_capacity, ids_capacity;
} plugin_side;

typedef struct plugin_state {
    int started;
    glcollide_context *context; /* NULL: CPU only */
    int gpu_mode;               /* GLCOLLIDE_ODE_GPU_* */
    plugin_mesh *meshes;
    size_t mesh_count, mesh_capacity;
    plugin_source *sources; /* registered arrays of trimesh data */
    size_t source_count, source_capacity;
    glcollide_scene *scene; /* captured meshes; objects rebuilt each step */
    plugin_step_pair *step_pairs;
    size_t step_pair_count, step_pair_capacity;
    glcollide_index_pair *step_candidates;
    size_t step_candidate_count, step_candidate_capacity;
    plugin_side sides[2];
    uint32_t side_epoch;
    glcollide_index_pair *local_candidates; /* candidates renumbered to slots */
    size_t local_candidate_capacity;
    /* Reused buffers: no allocation per step once warm. */
    glcollide_contact *contacts;
    size_t contact_capacity;
    glcollide_index_pair *candidates; /* CPU candidates of one trimesh pair */
    size_t candidate_capacity;
    glcollide_contact_scratch *contact_scratch;
    glcollide_ode_stats stats;
} plugin_state;

extern plugin_state plugin;

/* The captured mesh of a trimesh geom (NULL on error, logged). */
const glcollide_mesh *plugin_geom_mesh(dGeomID geom);
/* Object-space box of a captured mesh. */
glcollide_aabb plugin_mesh_bounds(const glcollide_mesh *mesh);
/* The world-space state of a trimesh geom, up to date for its current
 * transform and captured mesh (NULL on error, logged). */
void plugin_sides_release(void);
void plugin_geom_transform(dGeomID geom, dReal out[7]);
void plugin_meshes_release(void);
void plugin_space_release(void);

/* Monotonic clock, milliseconds. */
double plugin_now_ms(void);

/* Grows *array to hold count items of size bytes (amortised). */
int plugin_reserve(void **array, size_t *capacity, size_t count, size_t size);

/* The trimesh-trimesh collider (dColliderFn). */
int plugin_trimesh_collide(dGeomID o1, dGeomID o2, int flags, dContactGeom *contact, int skip);

#endif
