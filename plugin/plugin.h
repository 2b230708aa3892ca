/* SPDX-License-Identifier: MIT */
/* Private state of the ODE plugin (libglcollide-ode). */
#ifndef GLCOLLIDE_PLUGIN_H
#define GLCOLLIDE_PLUGIN_H

#include <glcollide/geometry.h>
#include <glcollide/glcollide.h>
#include <glcollide/ode.h>

/* A trimesh data captured in object space, once (again after a change). */
typedef struct plugin_mesh {
    dTriMeshDataID data;
    uint32_t scene_mesh; /* index in plugin.scene->meshes */
    int stale;           /* vertices changed: capture again before use */
    glcollide_aabb bounds; /* object space */
} plugin_mesh;

/* Candidate triangle pairs of one geom pair, from this step's GPU culling. */
typedef struct plugin_step_pair {
    dGeomID a, b;              /* a < b as pointers */
    dReal transform_a[7], transform_b[7]; /* position + quaternion when culled */
    size_t first, count;       /* in plugin.step_candidates */
} plugin_step_pair;

/* A trimesh geom in world space, kept across steps: positions and BVH are
 * brought up to date (transform, refit) only when the geom moved. */
typedef struct plugin_geom {
    dGeomID geom;               /* NULL: free slot */
    const glcollide_mesh *mesh; /* captured mesh it was built for */
    double *world;              /* 3 * vertex_count */
    glcollide_bvh *bvh;
    dReal transform[7];
    glcollide_aabb box;
} plugin_geom;

typedef struct plugin_state {
    int started;
    glcollide_context *context;       /* NULL: CPU only */
    int gpu_mode;                     /* GLCOLLIDE_ODE_GPU_* */
    plugin_mesh *meshes;
    size_t mesh_count, mesh_capacity;
    glcollide_scene *scene;           /* captured meshes; objects rebuilt each step */
    plugin_step_pair *step_pairs;
    size_t step_pair_count, step_pair_capacity;
    glcollide_index_pair *step_candidates;
    size_t step_candidate_count, step_candidate_capacity;
    /* Open-addressing table of trimesh geoms (power-of-two size). */
    plugin_geom *geoms;
    size_t geom_slots, geom_used;
    /* Reused buffers: no allocation per step once warm. */
    glcollide_contact *contacts;
    size_t contact_capacity;
    glcollide_index_pair *candidates; /* CPU candidates of one trimesh pair */
    size_t candidate_capacity;
    glcollide_workspace contact_workspace;
    glcollide_ode_stats stats;
} plugin_state;

extern plugin_state plugin;

/* The captured mesh of a trimesh geom (NULL on error, logged). */
const glcollide_mesh *plugin_geom_mesh(dGeomID geom);
/* Object-space box of a captured mesh. */
glcollide_aabb plugin_mesh_bounds(const glcollide_mesh *mesh);
/* The world-space state of a trimesh geom, up to date for its current
 * transform and captured mesh (NULL on error, logged). */
const plugin_geom *plugin_geom_world(dGeomID geom);
void plugin_geoms_release(void);
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
