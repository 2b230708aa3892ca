/* SPDX-License-Identifier: MIT */
/* ODE's side of the pairwise benchmarks: one trimesh geom (no space) for one
 * object of a glcollide scene, with its own copy of the arrays in ODE's
 * precision, so the OPCODE tree can be refitted or rebuilt from them. */
#ifndef GLCOLLIDE_BENCH_ODE_H
#define GLCOLLIDE_BENCH_ODE_H

#include <glcollide/glcollide.h>
#include <ode/ode.h>

#include <stdio.h>
#include <stdlib.h>

typedef struct ode_mesh {
    dTriMeshDataID data;
    dGeomID geom;
    dReal *vertices;
    dTriIndex *indices;
    const glcollide_mesh *mesh;
} ode_mesh;

/* (Re)builds the trimesh data from the arrays (OPCODE's tree included). */
static inline void ode_build(ode_mesh *m)
{
#ifdef dDOUBLE
    dGeomTriMeshDataBuildDouble(m->data, m->vertices, 3 * sizeof(dReal), (int)m->mesh->vertex_count,
                                m->indices, (int)(3 * m->mesh->triangle_count),
                                3 * sizeof(dTriIndex));
#else
    dGeomTriMeshDataBuildSingle(m->data, m->vertices, 3 * sizeof(dReal), (int)m->mesh->vertex_count,
                                m->indices, (int)(3 * m->mesh->triangle_count),
                                3 * sizeof(dTriIndex));
#endif
}

/* A geom for mesh placed by pose; exits if memory runs out. */
static inline void ode_mesh_make(ode_mesh *m, const glcollide_mesh *mesh,
                                 const glcollide_pose *pose)
{
    m->mesh = mesh;
    m->vertices = malloc(3 * mesh->vertex_count * sizeof(dReal));
    m->indices = malloc(3 * mesh->triangle_count * sizeof(dTriIndex));
    if (!m->vertices || !m->indices) {
        fprintf(stderr, "bench: out of memory for ODE's copy of %s\n", mesh->name);
        exit(1);
    }
    for (size_t i = 0; i < 3 * mesh->vertex_count; i++)
        m->vertices[i] = (dReal)mesh->positions[i];
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
        m->indices[i] = (dTriIndex)mesh->triangles[i];
    m->data = dGeomTriMeshDataCreate();
    ode_build(m);
    m->geom = dCreateTriMesh(0, m->data, NULL, NULL, NULL);
    dGeomSetPosition(m->geom, pose->translation[0], pose->translation[1], pose->translation[2]);
    dQuaternion q = {pose->rotation[0], pose->rotation[1], pose->rotation[2], pose->rotation[3]};
    dGeomSetQuaternion(m->geom, q);
}

static inline void ode_mesh_free(ode_mesh *m)
{
    dGeomDestroy(m->geom);
    dGeomTriMeshDataDestroy(m->data);
    free(m->vertices);
    free(m->indices);
}

#endif
