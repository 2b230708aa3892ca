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
} plugin_mesh;

/* Candidate triangle pairs of one geom pair, from this step's GPU culling. */
typedef struct plugin_step_pair {
    dGeomID a, b;              /* a < b as pointers */
    dReal transform_a[7], transform_b[7]; /* position + quaternion when culled */
    size_t first, count;       /* in plugin.step_candidates */
} plugin_step_pair;

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
    /* Reused buffers: no allocation per step once warm. */
    double *world_a, *world_b;
    size_t world_a_capacity, world_b_capacity;
    glcollide_contact *contacts;
    size_t contact_capacity;
    glcollide_ode_stats stats;
} plugin_state;

extern plugin_state plugin;

/* The captured mesh of a trimesh geom (NULL on error, logged). */
const glcollide_mesh *plugin_geom_mesh(dGeomID geom);
/* World positions of a trimesh geom's captured mesh into *buffer (grown). */
int plugin_world_positions(dGeomID geom, const glcollide_mesh *mesh, double **buffer,
                           size_t *capacity);
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
